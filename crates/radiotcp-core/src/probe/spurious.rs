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

use std::collections::BTreeMap;

use crate::engine::{Time, NS_PER_S};

/// How long a pending judgement waits for an earlier copy once the segment is delivered.
pub const HORIZON: Time = 64 * NS_PER_S;

#[derive(Debug, Clone, Default)]
pub struct SpuriousTracker {
    /// seq -> send times of retransmissions not yet shown to be spurious.
    retx: BTreeMap<u64, Vec<Time>>,
    /// seq -> times of timeouts (with seq oldest outstanding) not yet shown to be spurious.
    rto: BTreeMap<u64, Vec<Time>>,
    pub spurious_retransmissions: u64,
    pub spurious_timeouts: u64,
    arrivals: u64,
}

impl SpuriousTracker {
    /// Segment `seq` is retransmitted at `now`; `held`: the receiver already has it.
    pub fn on_retransmit(&mut self, now: Time, seq: u64, held: bool) {
        if held {
            self.spurious_retransmissions += 1;
        } else {
            self.retx.entry(seq).or_default().push(now);
        }
    }

    /// A timeout at `now` with `una` the oldest outstanding segment; `held`: the receiver
    /// already has it.
    pub fn on_timeout(&mut self, now: Time, una: u64, held: bool) {
        if held {
            self.spurious_timeouts += 1;
        } else {
            self.rto.entry(una).or_default().push(now);
        }
    }

    /// A copy of segment `seq` sent at `sent_at` reached the receiver at `now`, whose RCV.NXT
    /// (before this arrival) is `rcv_nxt`.
    pub fn on_arrival(&mut self, now: Time, seq: u64, sent_at: Time, rcv_nxt: u64) {
        self.spurious_retransmissions += judge(&mut self.retx, seq, sent_at);
        self.spurious_timeouts += judge(&mut self.rto, seq, sent_at);
        self.arrivals += 1;
        if self.arrivals % 1024 == 0 {
            let old = now.saturating_sub(HORIZON);
            for map in [&mut self.retx, &mut self.rto] {
                map.retain(|&s, times| s >= rcv_nxt || times.iter().any(|&t| t >= old));
            }
        }
    }

    /// Judgements still waiting for an earlier copy.
    pub fn pending(&self) -> usize {
        self.retx
            .values()
            .chain(self.rto.values())
            .map(Vec::len)
            .sum()
    }
}

/// Count (and forget) the entries of `seq` made after `sent_at`: that copy predates them.
#[inline]
fn judge(map: &mut BTreeMap<u64, Vec<Time>>, seq: u64, sent_at: Time) -> u64 {
    if map.is_empty() {
        return 0;
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
