//! Which retransmissions and timeouts were spurious: the segment had not been lost, only
//! delayed (reordering, a delay spike) or its ACK had. Measured from outside the sender, by
//! the scenario, which sees both ends (the Eifel idea of RFC 3522 with an oracle).
//!
//! - A retransmission of segment `seq` sent at `t` is spurious if the receiver already held
//!   the segment at `t`, or if a copy sent before `t` reaches the receiver at any time (before
//!   or after the retransmission itself: with reordering the retransmission may overtake it).
//! - A timeout at `t` whose oldest outstanding segment is `seq` is spurious on the same terms.
//!
//! Every retransmission and every timeout is judged on its own, so three backed-off timeouts
//! of one delayed segment count three times. A retransmission whose earlier copies were all
//! lost stays pending; entries older than [`HORIZON`] whose segment has been delivered are
//! forgotten, which keeps the state bounded (a copy more than a minute late is not waited for).
//!
//! A spurious timeout is one of two kinds, counted apart as well:
//!
//! - **not lost**: the segment's first transmission reached the receiver (a delay spike, a
//!   stalled ACK path): the classic spurious timeout, a timer too short for the path;
//! - **lost, repair delivered**: the first transmission was lost, and a retransmission sent
//!   before the timeout (a fast retransmit, a NewReno partial-ACK retransmission, an earlier
//!   timeout's) reached the receiver. The timer expired during loss recovery while the repair
//!   was on its way: RFC 6298 §5.1 does not restart a running timer at a fast retransmit, and
//!   RFC 6582 §3.2 step 5 restarts it on the first partial ACK only (the "Impatient"
//!   variant, which ends a recovery of one hole per RTT with a timeout on purpose, §4).
//!
//! Which copy decided is known from the pending retransmissions: a retransmission stays
//! pending until a copy sent before it arrives, so when a copy of `seq` arrives, it is a
//! retransmission exactly when its own send time is still pending, and the first
//! transmission has arrived exactly when no retransmission of `seq` is pending. A first
//! transmission that arrives after a retransmission already decided a timeout (it was
//! overtaken) leaves that timeout counted as "lost, repair delivered".

use crate::engine::{Time, NS_PER_S};

/// How long a pending judgement waits for an earlier copy once the segment is delivered.
pub const HORIZON: Time = 64 * NS_PER_S;

#[derive(Debug, Clone, Default)]
pub struct SpuriousTracker {
    /// Send times of retransmissions not yet shown to be spurious, by segment.
    retx: Pending,
    /// Times of timeouts (with the segment oldest outstanding) not yet shown to be spurious.
    rto: Pending,
    pub spurious_retransmissions: u64,
    pub spurious_timeouts: u64,
    /// Of `spurious_timeouts`: the segment's first transmission reached the receiver.
    pub spurious_timeouts_not_lost: u64,
    /// Of `spurious_timeouts`: the first transmission was lost (or had not arrived), a
    /// retransmission sent before the timeout reached the receiver.
    pub spurious_timeouts_lost_repaired: u64,
    arrivals: u64,
}

impl SpuriousTracker {
    /// Segment `seq` is retransmitted at `now`; `held`: the receiver already has it.
    pub fn on_retransmit(&mut self, now: Time, seq: u64, held: bool) {
        if held {
            self.spurious_retransmissions += 1;
        } else {
            self.retx.push(seq, now);
        }
    }

    /// A timeout at `now` with `una` the oldest outstanding segment; `held`: the receiver
    /// already has it.
    pub fn on_timeout(&mut self, now: Time, una: u64, held: bool) {
        if held {
            // A retransmission of `una` still pending: no copy older than it has arrived, so
            // the segment the receiver holds came from a retransmission.
            let repaired = self.retx.times(una).iter().any(|&(_, t)| t < now);
            self.count_timeouts(1, repaired);
        } else {
            self.rto.push(una, now);
        }
    }

    /// A copy of segment `seq` sent at `sent_at` reached the receiver at `now`, whose RCV.NXT
    /// (before this arrival) is `rcv_nxt`.
    pub fn on_arrival(&mut self, now: Time, seq: u64, sent_at: Time, rcv_nxt: u64) {
        if self.rto.holds(seq) {
            // This copy is a retransmission if its own send time is pending (see above).
            let repaired = self.retx.times(seq).iter().any(|&(_, t)| t == sent_at);
            let n = self.rto.judge(seq, sent_at);
            self.count_timeouts(n, repaired);
        }
        self.spurious_retransmissions += self.retx.judge(seq, sent_at);
        self.arrivals += 1;
        if self.arrivals % 1024 == 0 {
            let old = now.saturating_sub(HORIZON);
            self.retx.forget(rcv_nxt, old);
            self.rto.forget(rcv_nxt, old);
        }
    }

    fn count_timeouts(&mut self, n: u64, repaired: bool) {
        self.spurious_timeouts += n;
        if repaired {
            self.spurious_timeouts_lost_repaired += n;
        } else {
            self.spurious_timeouts_not_lost += n;
        }
    }

    /// Judgements still waiting for an earlier copy.
    pub fn pending(&self) -> usize {
        self.retx.len() + self.rto.len()
    }
}

/// Pending judgements as (segment, time) pairs in one array sorted by segment, a segment's
/// pairs together in the order they were made. A segment rarely has more than one or two
/// (one per retransmission or backed-off timeout), and a flow has some tens pending (a needed
/// retransmission waits the [`HORIZON`]): a binary search over a flat array, with no heap
/// block per segment as a map of vectors had (one allocation per retransmission).
#[derive(Debug, Clone, Default)]
struct Pending {
    pairs: Vec<(u64, Time)>,
    /// One past the last pending segment (0 when none): an arrival of new data, above every
    /// pending segment, skips the search with one comparison (every arrival asks).
    end: u64,
}

impl Pending {
    /// Note a judgement on `seq` made at `t`.
    #[inline]
    fn push(&mut self, seq: u64, t: Time) {
        // Retransmissions mostly go to a segment at or above the pending ones (recovery moves
        // forward), so the common case appends.
        if seq >= self.end.saturating_sub(1) {
            self.pairs.push((seq, t));
            self.end = seq + 1;
        } else {
            let at = self.pairs.partition_point(|&(s, _)| s <= seq);
            self.pairs.insert(at, (seq, t));
        }
    }

    fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Whether some judgement on `seq` is pending.
    #[inline(always)]
    fn holds(&self, seq: u64) -> bool {
        seq < self.end && !self.times(seq).is_empty()
    }

    /// The pending pairs of `seq` (empty when none).
    #[inline]
    fn times(&self, seq: u64) -> &[(u64, Time)] {
        if seq >= self.end {
            return &[];
        }
        &self.pairs[self.span(seq)]
    }

    /// Where the pairs of `seq` lie in the array (an empty range when it has none).
    #[inline]
    fn span(&self, seq: u64) -> std::ops::Range<usize> {
        let v = &self.pairs;
        let start = v.partition_point(|&(s, _)| s < seq);
        let len = v[start..].iter().take_while(|&&(s, _)| s == seq).count();
        start..start + len
    }

    /// Count (and forget) the judgements on `seq` made after `sent_at`: that copy predates
    /// them.
    #[inline(always)]
    fn judge(&mut self, seq: u64, sent_at: Time) -> u64 {
        if seq < self.end {
            self.judge_within(seq, sent_at)
        } else {
            0
        }
    }

    /// [`Self::judge`] for a segment at or below the last pending one: out of line, as few
    /// arrivals get here (those of retransmitted segments) and the arrival path stays small.
    #[inline(never)]
    fn judge_within(&mut self, seq: u64, sent_at: Time) -> u64 {
        let span = self.span(seq);
        let end = span.end;
        let v = &mut self.pairs;
        let mut kept = span.start;
        for j in span {
            if v[j].1 <= sent_at {
                v[kept] = v[j];
                kept += 1;
            }
        }
        let n = end - kept;
        if n != 0 {
            v.drain(kept..end);
            self.end = v.last().map_or(0, |&(s, _)| s + 1);
        }
        n as u64
    }

    /// Forget the segments below `rcv_nxt` (delivered) whose judgements are all older than
    /// `old`: a copy more than the horizon late is not waited for.
    fn forget(&mut self, rcv_nxt: u64, old: Time) {
        let v = &mut self.pairs;
        let (mut kept, mut i) = (0, 0);
        while i < v.len() {
            let seq = v[i].0;
            let mut end = i;
            let mut keep = seq >= rcv_nxt;
            while end < v.len() && v[end].0 == seq {
                keep |= v[end].1 >= old;
                end += 1;
            }
            if keep {
                v.copy_within(i..end, kept);
                kept += end - i;
            }
            i = end;
        }
        v.truncate(kept);
        self.end = v.last().map_or(0, |&(s, _)| s + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// The tracker as it kept its pending judgements before, a map of segment to a vector of
    /// times: the reference for the flat array.
    #[derive(Default)]
    struct MapTracker {
        retx: BTreeMap<u64, Vec<Time>>,
        rto: BTreeMap<u64, Vec<Time>>,
        spurious_retransmissions: u64,
        spurious_timeouts: u64,
        spurious_timeouts_not_lost: u64,
        spurious_timeouts_lost_repaired: u64,
        arrivals: u64,
    }

    impl MapTracker {
        fn on_retransmit(&mut self, now: Time, seq: u64, held: bool) {
            if held {
                self.spurious_retransmissions += 1;
            } else {
                self.retx.entry(seq).or_default().push(now);
            }
        }

        fn on_timeout(&mut self, now: Time, una: u64, held: bool) {
            if held {
                let repaired = self
                    .retx
                    .get(&una)
                    .is_some_and(|times| times.iter().any(|&t| t < now));
                self.count_timeouts(1, repaired);
            } else {
                self.rto.entry(una).or_default().push(now);
            }
        }

        fn on_arrival(&mut self, now: Time, seq: u64, sent_at: Time, rcv_nxt: u64) {
            if self.rto.contains_key(&seq) {
                let repaired = self
                    .retx
                    .get(&seq)
                    .is_some_and(|times| times.contains(&sent_at));
                let n = Self::judge(&mut self.rto, seq, sent_at);
                self.count_timeouts(n, repaired);
            }
            self.spurious_retransmissions += Self::judge(&mut self.retx, seq, sent_at);
            self.arrivals += 1;
            if self.arrivals % 1024 == 0 {
                let old = now.saturating_sub(HORIZON);
                for map in [&mut self.retx, &mut self.rto] {
                    map.retain(|&s, times| s >= rcv_nxt || times.iter().any(|&t| t >= old));
                }
            }
        }

        fn count_timeouts(&mut self, n: u64, repaired: bool) {
            self.spurious_timeouts += n;
            if repaired {
                self.spurious_timeouts_lost_repaired += n;
            } else {
                self.spurious_timeouts_not_lost += n;
            }
        }

        fn judge(map: &mut BTreeMap<u64, Vec<Time>>, seq: u64, sent_at: Time) -> u64 {
            let Some(times) = map.get_mut(&seq) else {
                return 0;
            };
            let before = times.len();
            times.retain(|&t| t <= sent_at);
            let n = (before - times.len()) as u64;
            if times.is_empty() {
                map.remove(&seq);
            }
            n
        }

        fn pending(&self) -> usize {
            self.retx
                .values()
                .chain(self.rto.values())
                .map(Vec::len)
                .sum()
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Every counter and the number pending equal the map's after every call, over any
        /// sequence of retransmissions, timeouts and arrivals of a few segments (so that they
        /// collide), with copies sent at the recorded times, at the original's and at others,
        /// and pauses past the horizon that let the pending judgements be forgotten (on its
        /// boundary too).
        #[test]
        fn the_flat_array_judges_as_the_map_of_vectors(
            calls in prop::collection::vec(
                (0u8..6, 0u64..24, 0u32..1000, any::<bool>(), any::<prop::sample::Index>(), 0u64..28),
                0..3000,
            ),
            coarse in any::<bool>(),
        ) {
            let ms = 1_000_000;
            let (mut s, mut reference) = (SpuriousTracker::default(), MapTracker::default());
            let (mut now, mut made): (Time, Vec<Time>) = (0, vec![0]);
            for (kind, seq, step, held, pick, rcv_nxt) in calls {
                // Mostly a few milliseconds apart, now and then a pause past the horizon; or
                // on a grid of 8 s, where judgements made exactly the horizon before a
                // clean-up are common.
                now += if coarse {
                    (step as Time % 3) * 8 * NS_PER_S
                } else if step < 5 {
                    70 * NS_PER_S
                } else {
                    (step as Time % 40) * ms
                };
                match kind {
                    0 => {
                        s.on_retransmit(now, seq, held);
                        reference.on_retransmit(now, seq, held);
                        made.push(now);
                    }
                    1 => {
                        s.on_timeout(now, seq, held);
                        reference.on_timeout(now, seq, held);
                        made.push(now);
                    }
                    _ => {
                        // A copy sent at a time a judgement was made at (often that very
                        // retransmission) or at the original's, or at any earlier time.
                        let sent_at = if kind != 5 {
                            *pick.get(&made)
                        } else {
                            pick.index(now as usize + 1) as Time
                        };
                        s.on_arrival(now, seq, sent_at, rcv_nxt);
                        reference.on_arrival(now, seq, sent_at, rcv_nxt);
                    }
                }
                prop_assert_eq!(
                    (
                        s.spurious_retransmissions,
                        s.spurious_timeouts,
                        s.spurious_timeouts_not_lost,
                        s.spurious_timeouts_lost_repaired,
                        s.pending(),
                    ),
                    (
                        reference.spurious_retransmissions,
                        reference.spurious_timeouts,
                        reference.spurious_timeouts_not_lost,
                        reference.spurious_timeouts_lost_repaired,
                        reference.pending(),
                    )
                );
            }
        }
    }

    #[test]
    fn backed_off_timeouts_of_one_delayed_segment_each_count() {
        // Segment 0 sent at 0; timeouts (and retransmissions) at 100 and 300 ms; the original
        // arrives at 568 ms; the third timeout at 700 ms finds it held.
        let ms = 1_000_000;
        let mut s = SpuriousTracker::default();
        for t in [100, 300] {
            s.on_timeout(t * ms, 0, false);
            s.on_retransmit(t * ms, 0, false);
        }
        s.on_arrival(568 * ms, 0, 0, 0);
        s.on_timeout(700 * ms, 0, true);
        s.on_retransmit(700 * ms, 0, true);
        assert_eq!((s.spurious_timeouts, s.spurious_retransmissions), (3, 3));
        assert_eq!(
            s.spurious_timeouts_not_lost, 3,
            "the original was only delayed"
        );
        assert_eq!(s.pending(), 0);
    }

    #[test]
    fn a_retransmission_that_overtakes_the_original_is_still_spurious() {
        let ms = 1_000_000;
        let mut s = SpuriousTracker::default();
        s.on_timeout(1000 * ms, 0, false);
        s.on_retransmit(1000 * ms, 0, false);
        // The retransmission arrives first: nothing is decided yet.
        s.on_arrival(1080 * ms, 0, 1000 * ms, 0);
        assert_eq!((s.spurious_timeouts, s.spurious_retransmissions), (0, 0));
        // Then the original, sent at 0.
        s.on_arrival(2030 * ms, 0, 0, 1);
        assert_eq!((s.spurious_timeouts, s.spurious_retransmissions), (1, 1));
        assert_eq!(s.spurious_timeouts_not_lost, 1);
    }

    #[test]
    fn needed_retransmissions_are_not_counted_and_are_forgotten() {
        let ms = 1_000_000;
        let mut s = SpuriousTracker::default();
        s.on_retransmit(100 * ms, 0, false);
        s.on_arrival(200 * ms, 0, 100 * ms, 0);
        assert_eq!(s.spurious_retransmissions, 0);
        assert_eq!(s.pending(), 1, "waits for an earlier copy");
        // Much later, with the segment delivered, the pending judgement is dropped.
        for i in 0..1024u64 {
            s.on_arrival(100_000 * ms, 10 + i, 100_000 * ms, 1);
        }
        assert_eq!(s.pending(), 0);
        assert_eq!(s.spurious_retransmissions, 0);
    }

    #[test]
    fn already_held_counts_at_once() {
        let mut s = SpuriousTracker::default();
        s.on_retransmit(5, 0, true);
        s.on_timeout(5, 0, true);
        assert_eq!((s.spurious_timeouts, s.spurious_retransmissions), (1, 1));
        assert_eq!(s.pending(), 0);
    }

    /// RFC 6582 §3.2 step 5 ("Impatient"): the timer runs from the first partial ACK, so with
    /// many holes it expires while the partial-ACK retransmission of SND.UNA is on its way.
    /// The timeout's copy was needless (spurious), but the segment had been lost: counted as
    /// "lost, repair delivered", not "not lost".
    #[test]
    fn a_timeout_while_the_repair_is_in_flight_is_lost_repaired() {
        let ms = 1_000_000;
        let mut s = SpuriousTracker::default();
        // Segment 7: original sent at 0 and lost; the partial-ACK retransmission at 1080 ms;
        // the timeout at 1120 ms (first partial ACK at 120 ms + RTO 1 s) resends it.
        s.on_retransmit(1080 * ms, 7, false);
        s.on_timeout(1120 * ms, 7, false);
        s.on_retransmit(1120 * ms, 7, false);
        // The partial-ACK retransmission arrives after the timeout.
        s.on_arrival(1140 * ms, 7, 1080 * ms, 7);
        assert_eq!((s.spurious_timeouts, s.spurious_retransmissions), (1, 1));
        assert_eq!(
            (
                s.spurious_timeouts_not_lost,
                s.spurious_timeouts_lost_repaired
            ),
            (0, 1)
        );
        // The timeout's own copy arrives later: a duplicate, nothing more to judge.
        s.on_arrival(1180 * ms, 7, 1120 * ms, 8);
        assert_eq!(s.spurious_timeouts, 1);
    }

    #[test]
    fn a_repair_held_at_the_timeout_is_lost_repaired_and_a_delivered_original_not_lost() {
        let ms = 1_000_000;
        let mut s = SpuriousTracker::default();
        // Segment 3: original lost, fast retransmission at 500 ms arrives at 560 ms; the
        // timeout at 590 ms finds it held (its ACK is still on the way).
        s.on_retransmit(500 * ms, 3, false);
        s.on_arrival(560 * ms, 3, 500 * ms, 3);
        s.on_timeout(590 * ms, 3, true);
        assert_eq!(
            (
                s.spurious_timeouts_not_lost,
                s.spurious_timeouts_lost_repaired
            ),
            (0, 1)
        );
        // Segment 9: only the original was sent; it arrived, its ACKs are stalled.
        s.on_arrival(600 * ms, 9, 100 * ms, 9);
        s.on_timeout(900 * ms, 9, true);
        assert_eq!(
            (
                s.spurious_timeouts_not_lost,
                s.spurious_timeouts_lost_repaired
            ),
            (1, 1)
        );
        assert_eq!(s.spurious_timeouts, 2);
    }

    #[test]
    fn a_timeout_after_every_copy_was_lost_is_needed() {
        let ms = 1_000_000;
        let mut s = SpuriousTracker::default();
        s.on_retransmit(500 * ms, 3, false);
        s.on_timeout(1500 * ms, 3, false);
        s.on_retransmit(1500 * ms, 3, false);
        s.on_arrival(1560 * ms, 3, 1500 * ms, 3);
        assert_eq!(s.spurious_timeouts, 0);
        assert_eq!(
            s.spurious_timeouts_not_lost + s.spurious_timeouts_lost_repaired,
            0
        );
    }
}
