//! ACK controller at the base station (Zeng, "TCP ACK control for wireless networks", SFU CNL
//! slides; `docs/models/bs-ack-controller.md`). The BS sits between the fixed host (FH, the TCP
//! sender) and the mobile host (MH, the receiver) and changes nothing in either TCP. It
//!
//! - records (seqno, arrival time) of every data packet from the FH ("Implementation:
//!   receiving data packet", the `PacketInfo` struct) and times the BS-MH round trip from it;
//! - keeps sRTT = (1 - g) sRTT + g sampleRTT over non-duplicate ACKs from the MH ("Proposed
//!   algorithm: spurious fast retransmission");
//! - filters duplicate ACKs with a link-specific threshold dupAckThresh ("redefine 3-dup ACK
//!   for wireless link"): below it duplicates are held, at it the FH is given its three;
//! - paces the ACKs returned to the FH from a txTimer at a rate derived from sRTT ("based on
//!   sRTT, control ACK returning rate to FH"; "When txTimer expires: send ACK packet and
//!   reschedule next ACK packet to send"), through an ACK queue in the BS;
//! - drops retransmissions of data the MH has already acknowledged and answers them with an
//!   ACK of its own, never producing three consecutive duplicates ("Proposed algorithm:
//!   spurious timeouts", case 3).
//!
//! g and dupAckThresh are "global for the wireless link between BS and MH, connection
//! independent": one controller serves one BS-MH link and every flow through it; flows keep
//! separate sequence state, and share the link's sRTT, ACK queue and txTimer.
//!
//! Sans-IO: the caller reports data ([`BsAckController::on_data`]) and ACK
//! ([`BsAckController::on_ack`]) arrivals, sends what [`BsAckController::poll`] returns to the
//! FH, and calls `poll` again at [`BsAckController::poll_timeout`] (the txTimer).

use std::collections::{BTreeMap, VecDeque};

use crate::engine::{secs, Time};
use crate::error::ParamError;
use crate::packet::{Packet, PacketKind};

/// Duplicate ACKs that make a standard TCP sender fast-retransmit (RFC 5681 §3.2): the FH's
/// "3-dup ACK" that the slides redefine for the wireless link only.
pub const FH_DUPACK_THRESHOLD: u32 = 3;

/// How the txTimer interval is derived from sRTT (the slides only say "based on sRTT").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacingRule {
    /// interval = pace_factor x sRTT / W, where W is the number of data packets the BS has
    /// forwarded to the MH whose ACK it has not yet sent to the FH (all flows, at least 1).
    /// W is the share of the FH's windows downstream of the BS, so sRTT / W is the time the
    /// wireless path takes per packet: ACKs leave no faster than the data they acknowledge
    /// was delivered, which is what undoing ACK compression needs. W includes the packets
    /// covered by ACKs waiting in the queue, so a growing queue shortens the interval and
    /// drains itself (in steady state, by Little's law, sRTT / W is at most the time per
    /// packet). After a delay spike sRTT lags and overestimates the time per packet, so the
    /// queue holds ACKs longer than needed; `pace_factor` < 1 and `max_ack_wait` limit that.
    SrttPerWindow,
    /// interval = pace_factor x sRTT: a fixed fraction of the round trip, whatever the load.
    SrttFraction,
}

/// Parameters of one BS-MH link's controller.
#[derive(Debug, Clone, PartialEq)]
pub struct BsAckParams {
    /// EWMA gain of sRTT, in (0, 1]. Slides: "for some g"; RFC 6298 uses 1/8.
    pub g: f64,
    /// Duplicate ACKs from the MH that signal a loss on this link (slides: 3, 5, 8).
    pub dup_ack_thresh: u32,
    /// Pace the ACKs to the FH with the txTimer; off, they leave as soon as they are queued
    /// (the duplicate filter and case 3 still work).
    pub pacing: bool,
    pub pacing_rule: PacingRule,
    /// Multiplies the interval of `pacing_rule`: 1.0 paces at the estimated delivery rate,
    /// 0.5 (the default) allows twice that, which smooths bursts of ACKs but lets a queue
    /// drain quickly once sRTT has absorbed a delay spike (see the doc page's measurements).
    pub pace_factor: f64,
    /// sRTT before the first sample; `None`: no pacing until the first sample, which then
    /// initialises sRTT (as RFC 6298 §2.2). `Some(x)`: sRTT starts at x and the first sample
    /// is averaged in.
    pub initial_srtt: Option<Time>,
    /// No ACK waits in the queue longer than this: the head leaves when it has waited this
    /// long even if the txTimer has not expired (ACKs that reach the bound together leave
    /// together). Not in the slides; a guard against the BS itself causing FH timeouts when
    /// sRTT has absorbed a delay spike. `None` (default): no bound.
    pub max_ack_wait: Option<Time>,
    /// A BS-generated reply (case 3) that would be the FH's third consecutive duplicate is
    /// withheld. The count restarts when no ACK went to the flow's FH for this long: a
    /// retransmission of acknowledged data that long after the last ACK means the FH never
    /// got that ACK (the reply is new data for it, not a duplicate) or has timed out (which
    /// restarts its own duplicate count). Without the restart a FH whose ACKs are lost on the
    /// wire would never be answered. Default 1 s, RFC 6298's minimum RTO.
    pub reply_reset_after: Time,
}

impl Default for BsAckParams {
    fn default() -> Self {
        Self {
            g: 0.125,
            dup_ack_thresh: 5,
            pacing: true,
            pacing_rule: PacingRule::SrttPerWindow,
            pace_factor: 0.5,
            initial_srtt: None,
            max_ack_wait: None,
            reply_reset_after: secs(1.0),
        }
    }
}

impl BsAckParams {
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(self.g > 0.0 && self.g <= 1.0) {
            return Err(ParamError::new("g", self.g, "a gain in (0, 1]"));
        }
        if self.dup_ack_thresh == 0 {
            return Err(ParamError::new("dup_ack_thresh", 0, "at least 1"));
        }
        if !(self.pace_factor.is_finite() && self.pace_factor > 0.0) {
            return Err(ParamError::new(
                "pace_factor",
                self.pace_factor,
                "a positive number",
            ));
        }
        if self.reply_reset_after == 0 {
            return Err(ParamError::new("reply_reset_after", 0, "a positive time"));
        }
        Ok(())
    }
}

/// What to do with a data packet from the FH.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataVerdict {
    /// Pass it on to the MH.
    Forward,
    /// The MH already has it (case 3): discard it, and send `reply` to the FH if there is one.
    Drop { reply: Option<Packet> },
}

/// Counters for the whole run. Every duplicate from the MH ends up forwarded, dropped or
/// still held: `dup_acks_in = dup_acks_forwarded + dup_acks_dropped + held now`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BsAckStats {
    /// Data packets from the FH.
    pub data_in: u64,
    pub data_forwarded: u64,
    /// Forwarded packets that start below the highest byte the BS had seen (case 2).
    pub data_retransmissions_forwarded: u64,
    /// Retransmissions of data the MH has acknowledged, dropped at the BS (case 3).
    pub data_dropped_already_acked: u64,
    /// ACKs from the MH.
    pub acks_in: u64,
    /// ACKs from the MH queued towards the FH (new ones and forwarded duplicates).
    pub acks_forwarded: u64,
    /// ACKs that left the queue for the FH.
    pub acks_sent: u64,
    pub dup_acks_in: u64,
    /// Duplicates held on arrival because they were below the threshold.
    pub dup_acks_held: u64,
    /// Duplicates sent on to the FH: those released at the threshold and every later one.
    pub dup_acks_forwarded: u64,
    /// Duplicates never sent: superseded by a new ACK, or held beyond the three the FH needs.
    pub dup_acks_dropped: u64,
    /// ACKs older than one already received (reordered on the uplink), dropped: the FH would
    /// ignore them.
    pub stale_acks_dropped: u64,
    /// ACKs the BS generated in reply to case-3 retransmissions.
    pub acks_generated: u64,
    /// Case-3 replies withheld because they would have been the FH's third consecutive
    /// duplicate.
    pub replies_suppressed: u64,
    pub rtt_samples: u64,
    /// New ACKs that gave no sample: they cover a packet the BS forwarded twice (Karn), or
    /// nothing the BS recorded.
    pub rtt_samples_skipped: u64,
    /// ACKs that waited in the queue, and the sum of their waits (ns).
    pub acks_delayed: u64,
    pub total_ack_delay: u128,
    /// Largest [`BsAckController::ack_queue_len`] seen.
    pub max_ack_queue: usize,
}

/// The slides' `PacketInfo`: one forwarded data packet.
#[derive(Debug, Clone, Copy)]
struct Record {
    end: u64,
    /// When it reached the BS (first copy).
    arrived: Time,
    /// The BS forwarded this segment more than once: a sample from it would be ambiguous.
    forwarded_twice: bool,
}

#[derive(Debug, Clone, Default)]
struct FlowState {
    /// Forwarded data not yet acknowledged to the FH, by first byte.
    records: BTreeMap<u64, Record>,
    /// One past the highest byte seen from the FH.
    high_seen: u64,
    /// Highest cumulative ACK received from the MH.
    ack_in: Option<u64>,
    /// Consecutive duplicates of `ack_in` received.
    dup_in: u32,
    /// Of those, held now.
    held: u32,
    /// Consecutive duplicates of the latest ACK number committed towards the FH (queued or
    /// sent); the FH's duplicate counter as far as the BS can tell.
    dup_out: u32,
    /// ACKs of this flow in the queue.
    queued: usize,
    /// The last ACK that left for the FH: its number is lastAckSent, and it is the template
    /// of a reply.
    last_sent: Option<Packet>,
    last_sent_at: Time,
}

/// The ACK controller of one BS-MH link.
#[derive(Debug, Clone)]
pub struct BsAckController {
    p: BsAckParams,
    flows: BTreeMap<u32, FlowState>,
    srtt: Option<f64>,
    /// The ACK queue: (time queued, ACK), FIFO across flows.
    queue: VecDeque<(Time, Packet)>,
    /// txTimer: the next ACK may leave at this time.
    next_tx: Time,
    stats: BsAckStats,
}

impl BsAckController {
    /// # Panics
    /// If `p.validate()` fails (configuration layers validate first).
    pub fn new(p: BsAckParams) -> Self {
        if let Err(e) = p.validate() {
            panic!("invalid BsAckParams: {e}");
        }
        Self {
            srtt: p.initial_srtt.map(|t| t as f64),
            p,
            flows: BTreeMap::new(),
            queue: VecDeque::new(),
            next_tx: 0,
            stats: BsAckStats::default(),
        }
    }

    pub fn params(&self) -> &BsAckParams {
        &self.p
    }

    pub fn stats(&self) -> &BsAckStats {
        &self.stats
    }

    /// The link's smoothed BS-MH round trip, rounded to the nanosecond.
    pub fn srtt(&self) -> Option<Time> {
        self.srtt.map(|s| s.round() as Time)
    }

    /// The slides' ACK queue: ACKs waiting for the txTimer plus duplicates held below the
    /// threshold (what grows with dupAckThresh in the slides' "ACK queue" plot).
    pub fn ack_queue_len(&self) -> usize {
        self.queue.len() + self.held_dup_acks()
    }

    /// ACKs waiting for the txTimer only.
    pub fn departure_queue_len(&self) -> usize {
        self.queue.len()
    }

    /// Duplicates held below the threshold, all flows.
    pub fn held_dup_acks(&self) -> usize {
        self.flows.values().map(|f| f.held as usize).sum()
    }

    /// W of [`PacingRule::SrttPerWindow`]: data packets forwarded whose ACK has not left the
    /// BS, all flows.
    pub fn window(&self) -> usize {
        self.flows.values().map(|f| f.records.len()).sum()
    }

    /// The lastAckSent of a flow.
    pub fn last_ack_sent(&self, flow: u32) -> Option<u64> {
        self.flows.get(&flow)?.last_sent.map(|p| p.seq)
    }

    /// The txTimer interval the next departure would set, from the current state.
    pub fn pacing_interval(&self) -> Time {
        if !self.p.pacing {
            return 0;
        }
        let Some(srtt) = self.srtt else { return 0 };
        let base = self.p.pace_factor * srtt;
        let iv = match self.p.pacing_rule {
            PacingRule::SrttPerWindow => base / self.window().max(1) as f64,
            PacingRule::SrttFraction => base,
        };
        iv.ceil() as Time
    }

    /// When `poll` has something to send: the txTimer if it is later than the head ACK's
    /// arrival, else that arrival (due at once). `None` with an empty queue. After
    /// `poll_transmit(now)` this is `None` or later than `now`.
    pub fn poll_timeout(&self) -> Option<Time> {
        self.queue.front().map(|&(t, _)| self.due(t))
    }

    /// When an ACK queued at `queued_at` may leave if it is at the head.
    fn due(&self, queued_at: Time) -> Time {
        let timer = match self.p.max_ack_wait {
            Some(w) => self.next_tx.min(queued_at.saturating_add(w)),
            None => self.next_tx,
        };
        queued_at.max(timer)
    }

    /// A data packet from the FH on its way to the MH arrived at the BS.
    pub fn on_data(&mut self, now: Time, pkt: Packet) -> DataVerdict {
        debug_assert_eq!(pkt.kind, PacketKind::Data);
        self.stats.data_in += 1;
        let end = pkt.seq + pkt.len as u64;
        let reset = self.p.reply_reset_after;
        let st = self.flows.entry(pkt.flow).or_default();
        // Case 3: the MH's cumulative ACK already covers it, so the MH has every byte and the
        // copy would only cost radio time and draw a duplicate ACK (the start of the chain
        // the slides break). The slides compare with lastAckSent; an ACK from the MH that is
        // still in the queue proves the same, so we drop those too, silently: the queued ACK
        // is the answer.
        if pkt.len > 0 && st.ack_in.is_some_and(|a| end <= a) {
            self.stats.data_dropped_already_acked += 1;
            let mut reply = None;
            if let Some(last) = st.last_sent.filter(|l| end <= l.seq && st.queued == 0) {
                // "To consider the case when ACK packet is really lost on wireline link, send
                // an ACK from BS instead, but do not send 3 consecutive ACKs".
                if now.saturating_sub(st.last_sent_at) >= reset {
                    st.dup_out = 0;
                }
                if st.dup_out + 1 < FH_DUPACK_THRESHOLD {
                    st.dup_out += 1;
                    st.last_sent_at = now;
                    self.stats.acks_generated += 1;
                    reply = Some(Packet {
                        sent_at: now,
                        ..last
                    });
                } else {
                    self.stats.replies_suppressed += 1;
                }
            }
            return DataVerdict::Drop { reply };
        }
        // Case 1 (new) or 2 (retransmission not yet acknowledged): forward and record.
        self.stats.data_forwarded += 1;
        if pkt.seq < st.high_seen {
            self.stats.data_retransmissions_forwarded += 1;
        }
        st.high_seen = st.high_seen.max(end);
        if pkt.len > 0 {
            st.records
                .entry(pkt.seq)
                .and_modify(|r| r.forwarded_twice = true)
                .or_insert(Record {
                    end,
                    arrived: now,
                    forwarded_twice: false,
                });
        }
        DataVerdict::Forward
    }

    /// An ACK from the MH on its way to the FH arrived at the BS. It is queued, held or
    /// dropped; `poll` hands out what may leave.
    pub fn on_ack(&mut self, now: Time, ack: Packet) {
        debug_assert_eq!(ack.kind, PacketKind::Ack);
        self.stats.acks_in += 1;
        let thresh = self.p.dup_ack_thresh;
        let st = self.flows.entry(ack.flow).or_default();
        match st.ack_in {
            Some(a) if ack.seq < a => {
                self.stats.stale_acks_dropped += 1;
            }
            Some(a) if ack.seq == a => {
                // The duplicate filter: "redefine 3-dup ACK for wireless link".
                self.stats.dup_acks_in += 1;
                st.dup_in += 1;
                if st.dup_in < thresh {
                    // Reordering on the wireless link produces short runs of duplicates that
                    // a later new ACK resolves; hold them so the FH never sees them.
                    st.held += 1;
                    self.stats.dup_acks_held += 1;
                } else if st.dup_in == thresh {
                    // The link's loss signal: give the FH exactly what completes its own
                    // 3-dup ACK (fewer if replies already sent it some), no more: the
                    // remaining held ones would only inflate its window. The BS never invents
                    // duplicates the MH did not send, so a threshold below 3 forwards the
                    // first duplicates as they come.
                    let pool = st.held + 1;
                    let give = FH_DUPACK_THRESHOLD.saturating_sub(st.dup_out).min(pool);
                    st.held = 0;
                    self.stats.dup_acks_dropped += (pool - give) as u64;
                    self.stats.dup_acks_forwarded += give as u64;
                    for _ in 0..give {
                        Self::commit(&mut self.queue, &mut self.stats, st, now, ack, true);
                    }
                } else {
                    // Beyond the threshold the FH is in fast recovery: each duplicate means a
                    // packet left the network and may inflate its window.
                    self.stats.dup_acks_forwarded += 1;
                    Self::commit(&mut self.queue, &mut self.stats, st, now, ack, true);
                }
            }
            prev => {
                // A new ACK: "for each received ACK (non-dup ACK), update smoothed RTT".
                let sample = Self::rtt_sample(st, prev.unwrap_or(0), ack.seq, now);
                self.stats.dup_acks_dropped += st.held as u64;
                st.held = 0;
                st.dup_in = 0;
                st.ack_in = Some(ack.seq);
                Self::commit(&mut self.queue, &mut self.stats, st, now, ack, false);
                match sample {
                    Some(s) => {
                        self.stats.rtt_samples += 1;
                        let g = self.p.g;
                        self.srtt = Some(match self.srtt {
                            None => s as f64,
                            Some(srtt) => (1.0 - g) * srtt + g * s as f64,
                        });
                    }
                    None => self.stats.rtt_samples_skipped += 1,
                }
            }
        }
        self.stats.max_ack_queue = self.stats.max_ack_queue.max(self.ack_queue_len());
    }

    /// The BS-MH RTT sample of a new ACK moving the MH's cumulative ACK from `prev` to `ack`:
    /// now minus the BS arrival of the newest packet it newly covers (end <= ack). That packet
    /// is, in order, the one whose arrival at the MH triggered the ACK (a delayed ACK covers
    /// two, and the first waited for the second), so the sample excludes the MH's delayed-ACK
    /// wait; the FH's own sampling (`tcp.rs`) takes the same one. Karn, at the BS: no sample
    /// if any newly covered packet went through the BS twice. A FH retransmission the BS saw
    /// only once times fine: the BS-MH round trip is unambiguous.
    fn rtt_sample(st: &FlowState, prev: u64, ack: u64, now: Time) -> Option<Time> {
        let mut newest: Option<&Record> = None;
        for r in st.records.range(prev..ack).map(|(_, r)| r) {
            if r.end > ack {
                continue;
            }
            if r.forwarded_twice {
                return None;
            }
            if newest.is_none_or(|n| r.end > n.end) {
                newest = Some(r);
            }
        }
        newest.map(|r| now.saturating_sub(r.arrived))
    }

    fn commit(
        queue: &mut VecDeque<(Time, Packet)>,
        stats: &mut BsAckStats,
        st: &mut FlowState,
        now: Time,
        ack: Packet,
        dup: bool,
    ) {
        st.dup_out = if dup { st.dup_out + 1 } else { 0 };
        st.queued += 1;
        stats.acks_forwarded += 1;
        queue.push_back((now, ack));
    }

    /// The ACKs to send to the FH now. Without pacing, everything queued; with pacing, the
    /// head ACK if the txTimer allows, after which the timer is set one interval on (the
    /// slides' "send ACK packet and reschedule next ACK packet to send"). The interval is
    /// fixed at each departure from the state then, so a late call never sends a burst.
    pub fn poll_transmit(&mut self, now: Time) -> Vec<Packet> {
        let mut out = Vec::new();
        while let Some(&(queued_at, pkt)) = self.queue.front() {
            if now < self.due(queued_at) {
                break;
            }
            self.queue.pop_front();
            let st = self
                .flows
                .get_mut(&pkt.flow)
                .expect("queued ACK of a known flow");
            st.queued -= 1;
            st.last_sent = Some(pkt);
            st.last_sent_at = now;
            // The FH is told: these packets leave W.
            while let Some((_, r)) = st.records.first_key_value() {
                if r.end > pkt.seq {
                    break;
                }
                st.records.pop_first();
            }
            self.stats.acks_sent += 1;
            if now > queued_at {
                self.stats.acks_delayed += 1;
                self.stats.total_ack_delay += (now - queued_at) as u128;
            }
            out.push(pkt);
            self.next_tx = now + self.pacing_interval();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TcpConfig;
    use crate::tcp::TcpSender;

    const MS: Time = 1_000_000;
    const SEG: u64 = 1000;

    fn data(flow: u32, i: u64) -> Packet {
        Packet {
            flow,
            kind: PacketKind::Data,
            dst: 0,
            seq: i * SEG,
            len: SEG as u32,
            size: 1040,
            rwnd: 0,
            sent_at: 0,
            opt: Default::default(),
        }
    }

    fn ack(flow: u32, n: u64) -> Packet {
        Packet {
            flow,
            kind: PacketKind::Ack,
            dst: 0,
            seq: n,
            len: 0,
            size: 40,
            rwnd: 65535,
            sent_at: 0,
            opt: Default::default(),
        }
    }

    fn ctl(thresh: u32, pacing: bool) -> BsAckController {
        BsAckController::new(BsAckParams {
            dup_ack_thresh: thresh,
            pacing,
            ..BsAckParams::default()
        })
    }

    /// Forward segments `0..n` of `flow` at time `t`.
    fn forward(c: &mut BsAckController, flow: u32, n: u64, t: Time) {
        for i in 0..n {
            assert_eq!(c.on_data(t, data(flow, i)), DataVerdict::Forward);
        }
    }

    /// ACK numbers that leave for the FH at `t` after the MH's ACK `n`.
    fn ack_out(c: &mut BsAckController, t: Time, n: u64) -> Vec<u64> {
        c.on_ack(t, ack(0, n));
        c.poll_transmit(t).iter().map(|p| p.seq).collect()
    }

    #[test]
    fn duplicates_below_the_threshold_are_not_forwarded() {
        let mut c = ctl(5, false);
        forward(&mut c, 0, 10, 0);
        assert_eq!(ack_out(&mut c, MS, 1000), vec![1000]);
        for k in 1..5 {
            assert!(
                ack_out(&mut c, MS + k, 1000).is_empty(),
                "dup {k} forwarded"
            );
        }
        assert_eq!(c.stats().dup_acks_held, 4);
        assert_eq!(c.held_dup_acks(), 4);
        assert_eq!(
            c.ack_queue_len(),
            4,
            "held duplicates count in the ACK queue"
        );
        // Reordering resolved: the new ACK goes, the held duplicates never do.
        assert_eq!(ack_out(&mut c, 2 * MS, 3000), vec![3000]);
        assert_eq!(c.held_dup_acks(), 0);
        assert_eq!(c.stats().dup_acks_dropped, 4);
        assert_eq!(c.stats().dup_acks_forwarded, 0);
        assert_eq!(c.poll_timeout(), None);
    }

    #[test]
    fn the_threshold_th_duplicate_gives_the_fh_its_third() {
        for thresh in [3, 5, 8] {
            let mut c = ctl(thresh, false);
            forward(&mut c, 0, 20, 0);
            let mut fh = ack_out(&mut c, MS, 1000);
            for k in 1..thresh {
                fh.extend(ack_out(&mut c, MS + k as Time, 1000));
            }
            assert_eq!(
                fh,
                vec![1000],
                "thresh {thresh}: nothing before the threshold"
            );
            // The threshold-th: the FH gets exactly its three duplicates, at once.
            let out = ack_out(&mut c, 2 * MS, 1000);
            assert_eq!(out, vec![1000; 3], "thresh {thresh}");
            // Later ones are forwarded one for one (fast recovery inflation).
            assert_eq!(ack_out(&mut c, 3 * MS, 1000), vec![1000]);
            let s = c.stats();
            assert_eq!(s.dup_acks_in, thresh as u64 + 1);
            assert_eq!(s.dup_acks_forwarded, 4);
            assert_eq!(s.dup_acks_dropped, thresh as u64 - 3);
        }
        // Below 3 the BS invents nothing: each duplicate from the threshold on is forwarded.
        let mut c = ctl(1, false);
        forward(&mut c, 0, 20, 0);
        ack_out(&mut c, MS, 1000);
        for k in 1..=4 {
            assert_eq!(ack_out(&mut c, MS + k, 1000), vec![1000]);
        }
    }

    #[test]
    fn a_real_sender_fast_retransmits_at_the_threshold_th_duplicate() {
        let cfg = TcpConfig {
            packet_size_bytes: 1040,
            initial_window_segments: 10,
            ..TcpConfig::default()
        };
        let mut snd = TcpSender::new(crate::config::sender_params(&cfg));
        snd.start();
        let mut c = ctl(5, false);
        while let Some(s) = snd.poll_transmit(0) {
            let pkt = Packet {
                seq: s.seq,
                ..data(0, 0)
            };
            assert_eq!(c.on_data(0, pkt), DataVerdict::Forward);
        }
        // Segment 1 lost on the radio: the MH acknowledges 1000, then duplicates.
        let feed = |c: &mut BsAckController, snd: &mut TcpSender, t: Time| {
            c.on_ack(t, ack(0, 1000));
            for a in c.poll_transmit(t) {
                snd.on_ack(t, a.seq, a.rwnd);
            }
        };
        feed(&mut c, &mut snd, MS);
        for k in 1..5 {
            feed(&mut c, &mut snd, MS + k);
            assert_eq!(snd.stats.fast_retransmits, 0, "after MH duplicate {k}");
        }
        feed(&mut c, &mut snd, 2 * MS);
        assert_eq!(snd.stats.fast_retransmits, 1);
        assert!(snd.in_recovery());
    }

    #[test]
    fn an_acknowledged_retransmission_is_dropped_and_answered_without_three_duplicates() {
        let mut c = ctl(5, false);
        forward(&mut c, 0, 5, 0);
        assert_eq!(ack_out(&mut c, 400 * MS, 5000), vec![5000]);
        assert_eq!(c.last_ack_sent(0), Some(5000));
        // Case 2: not acknowledged yet, forwarded.
        assert_eq!(c.on_data(401 * MS, data(0, 6)), DataVerdict::Forward);
        assert_eq!(c.on_data(402 * MS, data(0, 5)), DataVerdict::Forward);
        assert_eq!(c.on_data(403 * MS, data(0, 5)), DataVerdict::Forward);
        assert_eq!(c.stats().data_retransmissions_forwarded, 2);
        // Case 3: three acknowledged retransmissions in a row (go-back-N after a spurious
        // timeout). The FH sees its original 5000 plus at most two copies.
        let mut fh = vec![5000];
        for (k, i) in [1u64, 2, 3].iter().enumerate() {
            match c.on_data(410 * MS + k as Time, data(0, *i)) {
                DataVerdict::Drop { reply } => fh.extend(reply.map(|r| {
                    assert_eq!((r.flow, r.kind, r.size), (0, PacketKind::Ack, 40));
                    assert_eq!(r.sent_at, 410 * MS + k as Time);
                    r.seq
                })),
                DataVerdict::Forward => panic!("acknowledged data forwarded"),
            }
        }
        assert_eq!(
            fh,
            vec![5000; 3],
            "original + 2 replies, the third withheld"
        );
        let s = c.stats();
        assert_eq!(s.data_dropped_already_acked, 3);
        assert_eq!((s.acks_generated, s.replies_suppressed), (2, 1));
        // Long after the last ACK to the FH, the FH has evidently not got 5000 (or timed out):
        // the count restarts and the BS answers again.
        let later = 410 * MS + 2 + secs(1.0);
        assert!(matches!(
            c.on_data(later, data(0, 0)),
            DataVerdict::Drop { reply: Some(r) } if r.seq == 5000
        ));
        // A new ACK from the MH resets the count too.
        assert_eq!(ack_out(&mut c, later + MS, 7000), vec![7000]);
        assert!(matches!(
            c.on_data(later + 2 * MS, data(0, 4)),
            DataVerdict::Drop { reply: Some(r) } if r.seq == 7000
        ));
    }

    #[test]
    fn a_retransmission_covered_by_a_queued_ack_is_dropped_silently() {
        let mut c = BsAckController::new(BsAckParams {
            pacing_rule: PacingRule::SrttFraction,
            initial_srtt: Some(100 * MS),
            ..BsAckParams::default()
        });
        forward(&mut c, 0, 4, 0);
        assert_eq!(ack_out(&mut c, 10 * MS, 1000), vec![1000]);
        c.on_ack(11 * MS, ack(0, 4000));
        assert!(c.poll_transmit(11 * MS).is_empty(), "paced");
        // The MH has 0..4000 but the FH has only 1000: a retransmission of segment 2 is
        // answered by the queued ACK, not by a copy of 1000.
        assert_eq!(
            c.on_data(12 * MS, data(0, 2)),
            DataVerdict::Drop { reply: None }
        );
        assert_eq!(c.stats().acks_generated, 0);
        // Segment 0 is covered by lastAckSent, but an ACK is waiting: still no reply.
        assert_eq!(
            c.on_data(13 * MS, data(0, 0)),
            DataVerdict::Drop { reply: None }
        );
    }

    #[test]
    fn srtt_follows_the_ewma() {
        let g = 0.25;
        let mut c = BsAckController::new(BsAckParams {
            g,
            pacing: false,
            ..BsAckParams::default()
        });
        // Segment i reaches the BS at 10 i ms.
        for i in 0..12 {
            c.on_data(10 * i * MS, data(0, i));
        }
        // (ACK number, time): samples from the newest segment each ACK covers.
        let script = [
            (1000, 200 * MS), // seg 0 at 0 ms: 200 ms
            (3000, 260 * MS), // segs 1-2, newest at 20 ms: 240 ms
            (4000, 300 * MS), // seg 3 at 30 ms: 270 ms
            (8000, 400 * MS), // segs 4-7, newest at 70 ms: 330 ms
            (9000, 409 * MS), // seg 8 at 80 ms: 329 ms
        ];
        let samples = [200.0, 240.0, 270.0, 330.0, 329.0].map(|m| m * MS as f64);
        let mut expect: Option<f64> = None;
        for ((n, t), s) in script.iter().zip(samples) {
            // Duplicates and stale ACKs give no sample.
            c.on_ack(*t, ack(0, *n));
            c.on_ack(*t, ack(0, *n));
            c.on_ack(*t, ack(0, n - 1000));
            expect = Some(match expect {
                None => s,
                Some(e) => (1.0 - g) * e + g * s,
            });
            assert_eq!(c.srtt(), Some(expect.unwrap().round() as Time));
        }
        assert_eq!(c.stats().rtt_samples, 5);
        // Karn: segment 9 forwarded twice gives no sample; segment 10 (once) does.
        c.on_data(500 * MS, data(0, 9));
        let before = c.srtt();
        c.on_ack(600 * MS, ack(0, 10_000));
        assert_eq!(c.srtt(), before);
        assert_eq!(c.stats().rtt_samples_skipped, 1);
        c.on_ack(700 * MS, ack(0, 11_000));
        let e = (1.0 - g) * expect.unwrap() + g * (600.0 * MS as f64);
        assert_eq!(c.srtt(), Some(e.round() as Time));
    }

    #[test]
    fn initial_srtt_starts_the_average() {
        let mut c = BsAckController::new(BsAckParams {
            g: 0.5,
            initial_srtt: Some(100 * MS),
            ..BsAckParams::default()
        });
        assert_eq!(c.srtt(), Some(100 * MS));
        c.on_data(0, data(0, 0));
        c.on_ack(300 * MS, ack(0, 1000));
        assert_eq!(c.srtt(), Some(200 * MS));
    }

    /// Run the txTimer: poll at every deadline until the queue is empty.
    fn drain(c: &mut BsAckController) -> Vec<(Time, u64)> {
        let mut out = Vec::new();
        while let Some(t) = c.poll_timeout() {
            // Polling a little before the deadline sends nothing.
            if t > 0 {
                assert!(c.poll_transmit(t - 1).is_empty());
            }
            let sent = c.poll_transmit(t);
            assert_eq!(sent.len(), 1, "one ACK per txTimer expiry");
            out.push((t, sent[0].seq));
        }
        out
    }

    #[test]
    fn paced_acks_leave_no_faster_than_the_configured_rate() {
        // Fixed fraction: 0.5 x 100 ms.
        let mut c = BsAckController::new(BsAckParams {
            pacing_rule: PacingRule::SrttFraction,
            pace_factor: 0.5,
            initial_srtt: Some(100 * MS),
            ..BsAckParams::default()
        });
        for n in 1..=10 {
            c.on_ack(0, ack(0, n * 1000));
        }
        let d = drain(&mut c);
        assert_eq!(
            d,
            (0..10)
                .map(|i| (i * 50 * MS, (i + 1) * 1000))
                .collect::<Vec<_>>()
        );
        // A poll long after the deadline still sends one ACK, not a catch-up burst.
        c.on_ack(10_000 * MS, ack(0, 20_000));
        c.on_ack(10_000 * MS, ack(0, 21_000));
        assert_eq!(c.poll_transmit(20_000 * MS).len(), 1);
        assert_eq!(c.poll_timeout(), Some(20_050 * MS));
        // Nine of the first burst waited, and the one the late poll sent.
        assert_eq!(c.stats().acks_delayed, 10);

        // sRTT / W: 10 packets downstream of the BS, sRTT 200 ms; a compressed burst of 10
        // ACKs at 200 ms. After each departure W falls by one, so the gaps are 200/9 ms,
        // 200/8 ms, ... 200/1 ms: never faster than the wireless path delivered the data.
        let mut c = BsAckController::new(BsAckParams {
            pace_factor: 1.0,
            initial_srtt: Some(200 * MS),
            ..BsAckParams::default()
        });
        forward(&mut c, 0, 10, 0);
        for n in 1..=10 {
            c.on_ack(200 * MS, ack(0, n * 1000));
        }
        assert_eq!(c.srtt(), Some(200 * MS), "every sample is 200 ms");
        let d = drain(&mut c);
        let mut t = 200 * MS;
        for (i, &(at, n)) in d.iter().enumerate() {
            assert_eq!((at, n), (t, (i as u64 + 1) * 1000));
            let w = 9 - i as u64;
            t += (200 * MS).div_ceil(w.max(1));
        }
        assert_eq!(c.window(), 0);
    }

    #[test]
    fn max_ack_wait_bounds_the_hold() {
        let mut c = BsAckController::new(BsAckParams {
            pacing_rule: PacingRule::SrttFraction,
            pace_factor: 1.0,
            initial_srtt: Some(1000 * MS),
            max_ack_wait: Some(300 * MS),
            ..BsAckParams::default()
        });
        for n in 1..=3 {
            c.on_ack(0, ack(0, n * 1000));
        }
        // The txTimer says 1 s apart; the bound lets each leave 300 ms after it arrived, so
        // the two that waited leave together: the bound beats pacing.
        assert_eq!(c.poll_transmit(0).len(), 1);
        assert_eq!(c.poll_timeout(), Some(300 * MS));
        assert!(c.poll_transmit(300 * MS - 1).is_empty());
        assert_eq!(c.poll_transmit(300 * MS).len(), 2);
        assert_eq!(c.poll_timeout(), None);
        // An ACK arriving with the txTimer far off leaves at its bound.
        c.on_ack(400 * MS, ack(0, 4000));
        assert_eq!(c.poll_timeout(), Some(700 * MS));
    }

    #[test]
    fn pacing_off_forwards_at_once() {
        let mut c = ctl(5, false);
        forward(&mut c, 0, 10, 0);
        for n in 1..=10 {
            c.on_ack(5 * MS, ack(0, n * 1000));
        }
        assert_eq!(c.poll_timeout(), Some(5 * MS), "due now");
        assert_eq!(c.poll_transmit(5 * MS).len(), 10);
        assert_eq!(c.poll_timeout(), None);
        assert_eq!(c.stats().acks_delayed, 0);
    }

    #[test]
    fn acks_leave_in_order() {
        let mut rng = crate::engine::RngStream::new(3, 0, 0);
        let mut c = BsAckController::new(BsAckParams {
            dup_ack_thresh: 3,
            initial_srtt: Some(50 * MS),
            ..BsAckParams::default()
        });
        let mut next = [0u64; 3];
        let mut sent: Vec<Packet> = Vec::new();
        let mut t = 0;
        for _ in 0..5000 {
            t += (rng.uniform() * 5.0 * MS as f64) as Time;
            let f = (rng.uniform() * 3.0) as u32;
            let u = rng.uniform();
            if u < 0.3 {
                next[f as usize] += 1;
                c.on_data(t, data(f, next[f as usize]));
            } else {
                // New, duplicate or stale ACK numbers around the flow's progress.
                let hi = next[f as usize] * SEG;
                let n = hi.saturating_sub((rng.uniform() * 4.0) as u64 * SEG);
                c.on_ack(t, ack(f, n));
            }
            sent.extend(c.poll_transmit(t));
        }
        while let Some(d) = c.poll_timeout() {
            sent.extend(c.poll_transmit(d));
        }
        for f in 0..3 {
            let seqs: Vec<u64> = sent.iter().filter(|p| p.flow == f).map(|p| p.seq).collect();
            assert!(seqs.len() > 100);
            assert!(seqs.windows(2).all(|w| w[0] <= w[1]), "flow {f} reordered");
        }
        let s = c.stats();
        assert!(s.stale_acks_dropped > 0 && s.dup_acks_in > 0);
        assert_eq!(
            s.dup_acks_in,
            s.dup_acks_forwarded + s.dup_acks_dropped + c.held_dup_acks() as u64
        );
        assert_eq!(s.acks_sent, s.acks_forwarded);
    }

    #[test]
    fn flows_share_parameters_but_keep_separate_state() {
        let mut c = ctl(5, false);
        forward(&mut c, 0, 10, 0);
        forward(&mut c, 1, 10, 0);
        c.on_ack(MS, ack(0, 1000));
        c.on_ack(MS, ack(1, 1000));
        assert_eq!(c.poll_transmit(MS).len(), 2);
        // Four duplicates each: eight in all, but each flow is below its threshold.
        for _ in 0..4 {
            c.on_ack(2 * MS, ack(0, 1000));
            c.on_ack(2 * MS, ack(1, 1000));
        }
        assert!(c.poll_transmit(2 * MS).is_empty());
        assert_eq!(c.held_dup_acks(), 8);
        // Flow 0's fifth releases flow 0's three only.
        c.on_ack(3 * MS, ack(0, 1000));
        let out = c.poll_transmit(3 * MS);
        assert_eq!(out.len(), 3);
        assert!(out.iter().all(|p| p.flow == 0));
        assert_eq!(c.held_dup_acks(), 4);
        // lastAckSent is per flow: 5000 for flow 1 does not cover flow 0's segment 3.
        c.on_ack(4 * MS, ack(1, 5000));
        c.poll_transmit(4 * MS);
        assert_eq!(c.on_data(5 * MS, data(0, 3)), DataVerdict::Forward);
        assert!(matches!(
            c.on_data(5 * MS, data(1, 3)),
            DataVerdict::Drop { reply: Some(r) } if r.flow == 1 && r.seq == 5000
        ));
    }

    #[test]
    fn stale_acks_are_dropped() {
        let mut c = ctl(3, false);
        forward(&mut c, 0, 5, 0);
        assert_eq!(ack_out(&mut c, MS, 3000), vec![3000]);
        assert!(ack_out(&mut c, MS, 2000).is_empty());
        assert_eq!(c.stats().stale_acks_dropped, 1);
        assert_eq!(c.stats().dup_acks_in, 0);
    }

    #[test]
    fn validation() {
        let ok = BsAckParams::default();
        assert!(ok.validate().is_ok());
        for bad in [
            BsAckParams {
                g: 0.0,
                ..ok.clone()
            },
            BsAckParams {
                g: 1.5,
                ..ok.clone()
            },
            BsAckParams {
                dup_ack_thresh: 0,
                ..ok.clone()
            },
            BsAckParams {
                pace_factor: f64::NAN,
                ..ok.clone()
            },
            BsAckParams {
                reply_reset_after: 0,
                ..ok.clone()
            },
        ] {
            assert!(bad.validate().is_err(), "{bad:?}");
        }
    }
}
