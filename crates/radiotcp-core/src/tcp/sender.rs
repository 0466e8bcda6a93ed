//! TCP Reno/NewReno bulk sender, sans-IO.
//!
//! Neither entity owns a clock, a socket or a scheduler: handlers take `now` and update state,
//! [`TcpSender::poll_transmit`] hands out segments to put on the wire and `poll_timeout` tells
//! the caller when to call `on_timeout`. Timers are deadlines kept as data, so nothing has to be
//! cancelled. Sequence numbers are 64-bit byte offsets starting at 0 (no SYN, no wrap-around):
//! the connection is taken as established when the flow starts, as in ns-2's one-way TCP.
//!
//! Specs: RFC 5681 (congestion control), RFC 6582 (NewReno), RFC 6298 (RTO), RFC 1122 and
//! RFC 5681 §4.2 (delayed ACKs); model-specs §5.

use std::collections::VecDeque;

use super::cc::{CongestionControl, Reno};
use super::rtt::{RtoEstimator, RttEstimator};
use super::TcpVariant;
use crate::engine::Time;

/// A data segment the sender wants on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    pub seq: u64,
    pub len: u32,
    /// The bytes were sent before (fast retransmit, partial ACK, or go-back-N after an RTO).
    pub retransmission: bool,
}

/// Sender parameters resolved from the configuration into ticks and bytes.
#[derive(Debug, Clone)]
pub struct SenderParams {
    pub variant: TcpVariant,
    pub mss: u32,
    pub initial_window: u64,
    pub initial_ssthresh: u64,
    pub initial_rto: Time,
    pub min_rto: Time,
    pub max_rto: Time,
    pub granularity: Time,
    pub rto_estimator: RtoEstimator,
    /// Which ACKs give RTT samples (`tcp.rtt_sampling`).
    pub rtt_sampling: RttSampling,
    /// RFC 3042 Limited Transmit: a new segment on each of the first two duplicate ACKs.
    pub limited_transmit: bool,
    /// Restart the retransmission timer when fast retransmit sends SND.UNA (ns-2's
    /// `dupack_action` calls `reset_rtx_timer`); RFC 6298 §5.1 leaves a running timer alone.
    pub restart_timer_on_fast_retransmit: bool,
    /// Reno: an RTO sets `recover` = HighTx and duplicate ACKs at or below it start no fast
    /// retransmit (ns-2 with `bugFix_`: go-back-N duplicates are not a new loss). NewReno always
    /// does this (RFC 6582 §3.2 step 4).
    pub reno_recover_after_rto: bool,
    /// Reno: a fast retransmit sets `recover` = HighTx and no second one starts until an ACK
    /// passes it (ns-2 with `bugFix_`); without it Reno may halve again in the same window.
    pub reno_one_recovery_per_window: bool,
    /// ssthresh on an expiry of a timer that had already backed off for the same segment:
    /// held (RFC 5681 §3.1 note, RFC 6298 §5.5) or recomputed from the window (ns-2's
    /// `slowdown()` on every timeout, which brings it to 2 segments).
    pub rto_ssthresh_every_expiry: bool,
    /// What a loss halves (`tcp.ssthresh_basis`).
    pub ssthresh_basis: SsthreshBasis,
    /// Offset of the tick grid of the ns-2 estimator (drawn per flow).
    pub clock_phase: Time,
}

/// What ssthresh is computed from at a fast retransmit or an RTO.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SsthreshBasis {
    /// RFC 5681 eq. (4): FlightSize / 2.
    FlightSize,
    /// ns-2 `slowdown()`: ⌊min(cwnd, receiver window) / 2⌋ in whole segments.
    Window,
}

/// Which segments the sender times for RTT samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RttSampling {
    /// A sample from every ACK that covers new data (the newest segment it covers), as a stack
    /// with timestamps or one that times every segment (RFC 6298 §3 allows either).
    EveryAck,
    /// One segment timed at a time: the next new segment sent while none is timed, its sample
    /// taken when an ACK covers it (BSD and ns-2 without timestamps: one sample per RTT).
    TimedSegment,
}

/// Counters kept by the sender for the whole run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub retransmissions: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub acks_received: u64,
    /// Congestion-window reductions: fast retransmits, and timeouts that found cwnd above
    /// one segment (a backed-off timeout does not reduce it again).
    pub cwnd_reductions: u64,
    /// RTT samples taken (valid under Karn's rule).
    pub rtt_samples: u64,
    /// Segments sent beyond cwnd by Limited Transmit (RFC 3042).
    pub limited_transmits: u64,
}

/// What a retransmission timeout did, for observers (the spurious-timeout oracle).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeout {
    /// SND.UNA when the timer expired: the segment it retransmits.
    pub una: u64,
    /// cwnd fell (it was above one segment).
    pub cwnd_cut: bool,
}

/// One outstanding segment, for RTT sampling under Karn's rule.
#[derive(Debug, Clone, Copy)]
struct SentRecord {
    end: u64,
    sent_at: Time,
    retransmitted: bool,
}

/// A bulk ("FTP") sender that always has data.
#[derive(Debug, Clone)]
pub struct TcpSender {
    p: SenderParams,
    started: bool,
    /// SND.UNA: oldest unacknowledged byte.
    snd_una: u64,
    /// SND.NXT: next byte to send; below `high_tx` after an RTO (go-back-N).
    snd_nxt: u64,
    /// HighTx: one past the highest byte ever sent.
    high_tx: u64,
    cc: CongestionControl,
    /// Peer's advertised window.
    rwnd: u64,
    dupacks: u32,
    in_recovery: bool,
    /// NewReno `recover` (RFC 6582 §3.2): the highest sequence number sent when recovery or
    /// an RTO began, kept here as HighTx then (one past that byte); `None` before any (the
    /// RFC's "initialised to the ISN"). A full ACK has ack >= recover; a new fast retransmit
    /// needs the ACK to cover *more* than recover, i.e. ack > recover.
    recover: Option<u64>,
    /// RFC 6582 §3.2 step 5: only the first partial ACK restarts the timer.
    partial_ack_seen: bool,
    /// What set `recover` last: an RTO (true) or a fast retransmit.
    recover_set_by_rto: bool,
    /// A fast retransmit or partial-ACK retransmission of SND.UNA is due.
    retransmit_pending: bool,
    /// RFC 3042: segments beyond cwnd allowed by the first two duplicate ACKs, and the bytes
    /// sent that way since the last new ACK (left out of FlightSize when halving, RFC 5681
    /// §3.2 step 2).
    lt_allowance: u32,
    lt_bytes: u64,
    /// `RttSampling::TimedSegment`: end of the timed segment and when it was sent.
    timed: Option<(u64, Time)>,
    rtt: RttEstimator,
    rto_deadline: Option<Time>,
    sent: VecDeque<SentRecord>,
    /// Total bytes the application offers; `None` for an endless bulk transfer.
    app_limit: Option<u64>,
    pub stats: SenderStats,
}

impl TcpSender {
    pub fn new(p: SenderParams) -> Self {
        Self {
            cc: CongestionControl::Reno(Reno::new(
                p.mss as u64,
                p.initial_window,
                p.initial_ssthresh,
            )),
            rtt: {
                let mut e = RttEstimator::new(
                    p.rto_estimator,
                    p.initial_rto,
                    p.min_rto,
                    p.max_rto,
                    p.granularity,
                );
                e.set_clock_phase(p.clock_phase);
                e
            },
            rwnd: u64::MAX,
            started: false,
            snd_una: 0,
            snd_nxt: 0,
            high_tx: 0,
            dupacks: 0,
            in_recovery: false,
            recover: None,
            recover_set_by_rto: false,
            partial_ack_seen: false,
            retransmit_pending: false,
            lt_allowance: 0,
            lt_bytes: 0,
            timed: None,
            rto_deadline: None,
            sent: VecDeque::new(),
            app_limit: None,
            stats: SenderStats::default(),
            p,
        }
    }

    pub fn cwnd(&self) -> u64 {
        self.cc.cwnd()
    }
    pub fn ssthresh(&self) -> u64 {
        self.cc.ssthresh()
    }
    /// The window the sender may have outstanding: min(cwnd, the peer's advertised window).
    pub fn send_window(&self) -> u64 {
        self.cwnd().min(self.rwnd)
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    pub fn high_tx(&self) -> u64 {
        self.high_tx
    }
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
    pub fn rto(&self) -> Time {
        self.rtt.rto()
    }
    pub fn srtt(&self) -> Option<Time> {
        self.rtt.srtt()
    }
    pub fn mss(&self) -> u32 {
        self.p.mss
    }
    /// Bytes sent and not yet acknowledged in the current transmission round.
    pub fn flight_size(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }

    /// Make the transfer finite: the application offers `bytes` in all.
    pub fn set_app_limit(&mut self, bytes: u64) {
        self.app_limit = Some(bytes);
    }

    /// Everything the application offered has been acknowledged.
    pub fn is_done(&self) -> bool {
        self.app_limit.is_some_and(|l| self.snd_una >= l)
    }

    /// Length of the segment starting at `seq`: a full MSS except the last one of a finite
    /// transfer. Segment boundaries therefore never change between transmissions.
    fn seg_len(&self, seq: u64) -> u32 {
        match self.app_limit {
            Some(l) => (l.saturating_sub(seq)).min(self.p.mss as u64) as u32,
            None => self.p.mss,
        }
    }

    /// The application opens the connection; data may flow from now on.
    pub fn start(&mut self) {
        self.started = true;
    }

    /// Deadline of the retransmission timer, if running.
    pub fn poll_timeout(&self) -> Option<Time> {
        self.rto_deadline
    }

    /// Next segment to put on the wire, if the window allows one.
    pub fn poll_transmit(&mut self, now: Time) -> Option<Segment> {
        if !self.started {
            return None;
        }
        let mss = self.p.mss as u64;
        let seg = if self.retransmit_pending {
            // RFC 5681 §3.2 step 2 / RFC 6582 §3.2 step 5: the retransmission of SND.UNA goes
            // out regardless of the window.
            self.retransmit_pending = false;
            Segment {
                seq: self.snd_una,
                len: self.seg_len(self.snd_una),
                retransmission: true,
            }
        } else {
            let len = self.seg_len(self.snd_nxt);
            let wnd = self.send_window();
            // Only full-sized segments (but the last): a bulk sender always has a full MSS to
            // send, and sending a runt would be silly-window behaviour (RFC 1122 §4.2.3.4).
            if len == 0 {
                return None;
            }
            if self.flight_size() + mss > wnd {
                // RFC 3042 §2: up to two new segments beyond cwnd (never beyond the
                // receiver's window), cwnd itself unchanged.
                let lt = self.cwnd() + self.lt_allowance as u64 * mss;
                let new_data = self.snd_nxt >= self.high_tx;
                if !(new_data && self.flight_size() + mss <= lt.min(self.rwnd)) {
                    return None;
                }
                self.lt_bytes += len as u64;
                self.stats.limited_transmits += 1;
            }
            let seg = Segment {
                seq: self.snd_nxt,
                len,
                retransmission: self.snd_nxt < self.high_tx,
            };
            self.snd_nxt += len as u64;
            seg
        };
        let end = seg.seq + seg.len as u64;
        if end > self.high_tx {
            self.sent.push_back(SentRecord {
                end,
                sent_at: now,
                retransmitted: false,
            });
            self.high_tx = end;
            if self.p.rtt_sampling == RttSampling::TimedSegment && self.timed.is_none() {
                self.timed = Some((end, now));
            }
        } else {
            self.stats.retransmissions += 1;
        }
        self.stats.segments_sent += 1;
        // RFC 6298 §5.1: start the timer when a segment is sent and it is not running.
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        Some(seg)
    }

    /// An ACK arrived carrying cumulative acknowledgement `ack` and window `rwnd`.
    pub fn on_ack(&mut self, now: Time, ack: u64, rwnd: u32) {
        self.stats.acks_received += 1;
        self.rwnd = rwnd as u64;
        // An ACK beyond anything sent cannot come from our receiver; clamp defensively.
        let ack = ack.min(self.high_tx);
        if ack > self.snd_una {
            let newly_acked = ack - self.snd_una;
            self.take_rtt_sample(now, ack);
            self.snd_una = ack;
            // A retransmission of the old SND.UNA that has not gone out yet is moot now; the
            // partial-ACK path below asks for the new SND.UNA again.
            self.retransmit_pending = false;
            // After go-back-N the receiver may already hold data up to HighTx.
            if self.snd_nxt < ack {
                self.snd_nxt = ack;
            }
            if self.in_recovery {
                if self.p.variant == TcpVariant::NewReno && self.recover.is_some_and(|r| ack < r) {
                    self.on_partial_ack(now, newly_acked);
                    return;
                }
                // Full ACK (NewReno) or first new ACK (Reno): deflate the window.
                self.cc.on_recovery_end();
                self.in_recovery = false;
            } else {
                self.cc.on_ack(newly_acked);
            }
            self.dupacks = 0;
            self.lt_allowance = 0;
            self.lt_bytes = 0;
            self.restart_or_stop_timer(now);
        } else if ack == self.snd_una && self.snd_una < self.high_tx {
            self.on_dupack(now, ack);
        }
        // ack < SND.UNA: an old ACK, reordered or duplicated in the network; ignored.
    }

    fn on_dupack(&mut self, now: Time, ack: u64) {
        self.dupacks += 1;
        if self.p.limited_transmit && !self.in_recovery && self.dupacks <= 2 {
            self.lt_allowance = self.dupacks;
        }
        // RFC 6582 §3.2 step 2: enter only if the cumulative ACK covers more than `recover`.
        // Duplicates of exactly HighTx-at-RTO come from go-back-N copies of data the receiver
        // already holds; they must not start a second, spurious recovery. Reno applies the
        // same guard when its profile asks for it (ns-2's `bugFix_`).
        let guarded = match self.p.variant {
            TcpVariant::NewReno => true,
            TcpVariant::Reno if self.recover_set_by_rto => self.p.reno_recover_after_rto,
            TcpVariant::Reno => self.p.reno_one_recovery_per_window,
        };
        if !self.in_recovery
            && self.dupacks == 3
            && guarded
            && self.recover.is_some_and(|r| ack <= r)
        {
            return;
        }
        // RFC 5681 §3.2 step 2: segments sent by Limited Transmit stay out of FlightSize.
        let flight = self.reduction_basis(self.flight_size().saturating_sub(self.lt_bytes));
        if self.cc.on_dup_ack(self.dupacks, self.in_recovery, flight) {
            self.recover = Some(self.high_tx);
            self.recover_set_by_rto = false;
            self.in_recovery = true;
            self.partial_ack_seen = false;
            self.lt_allowance = 0;
            self.schedule_retransmit_una();
            self.stats.fast_retransmits += 1;
            self.stats.cwnd_reductions += 1;
            if self.p.restart_timer_on_fast_retransmit {
                self.rto_deadline = Some(now + self.rtt.rto());
            }
        }
    }

    /// The amount whose half becomes ssthresh: FlightSize, or ns-2's window in whole segments
    /// (its even part, so that the controller's half is ⌊w/2⌋ segments, as `slowdown()`'s
    /// integer `window()/2`).
    fn reduction_basis(&self, flight: u64) -> u64 {
        match self.p.ssthresh_basis {
            SsthreshBasis::FlightSize => flight,
            SsthreshBasis::Window => {
                let mss = self.p.mss as u64;
                self.send_window() / mss / 2 * 2 * mss
            }
        }
    }

    /// RFC 6582 §3.2 step 5.
    fn on_partial_ack(&mut self, now: Time, newly_acked: u64) {
        self.schedule_retransmit_una();
        self.cc.on_partial_ack(newly_acked);
        if !self.partial_ack_seen {
            self.partial_ack_seen = true;
            self.rto_deadline = Some(now + self.rtt.rto());
        }
    }

    fn schedule_retransmit_una(&mut self) {
        self.retransmit_pending = true;
        // A retransmission ends the timing of a segment (4.4BSD `t_rtt = 0` at fast
        // retransmit, ns-2 `rtt_active_ = 0` in `reset_rtx_timer`): Karn's rule at its
        // simplest.
        self.timed = None;
        if let Some(first) = self.sent.front_mut() {
            first.retransmitted = true;
        }
    }

    /// RFC 6298 §5.2/5.3: stop when everything is acknowledged, else restart with the RTO.
    fn restart_or_stop_timer(&mut self, now: Time) {
        self.rto_deadline = if self.snd_una < self.high_tx {
            Some(now + self.rtt.rto())
        } else {
            None
        };
    }

    /// Sample the RTT from the newest segment this ACK fully covers, unless the ACK covers any
    /// retransmitted segment (Karn's rule, RFC 6298 §3): an ACK that ends a recovery also
    /// covers the retransmitted hole, and timing it from an original sent RTTs earlier would
    /// inflate SRTT (Linux skips such ACKs the same way). One sample per ACK otherwise, as a
    /// stack without timestamps that times every segment; RFC 6298 §3 allows it.
    ///
    /// With `RttSampling::TimedSegment` only the ACK that covers the timed segment gives a
    /// sample, under the same Karn rule; an RTO cancels the timing (ns-2 `rtt_active_ = 0`).
    fn take_rtt_sample(&mut self, now: Time, ack: u64) {
        let mut newest = None;
        let mut covers_retransmission = false;
        while let Some(r) = self.sent.front() {
            if r.end > ack {
                break;
            }
            covers_retransmission |= r.retransmitted;
            newest = Some(*r);
            self.sent.pop_front();
        }
        let Some(r) = newest else { return };
        let sent_at = match self.p.rtt_sampling {
            RttSampling::EveryAck => r.sent_at,
            RttSampling::TimedSegment => match self.timed {
                Some((end, at)) if end <= ack => {
                    self.timed = None;
                    at
                }
                _ => return,
            },
        };
        if covers_retransmission {
            return;
        }
        self.stats.rtt_samples += 1;
        self.rtt.on_sample(sent_at, now);
    }

    /// Called at (or after) the deadline from `poll_timeout`. A deadline that has moved later
    /// makes this a no-op, so a stale wake-up is harmless.
    /// Returns what the expiry did, or `None` if nothing expired.
    pub fn on_timeout(&mut self, now: Time) -> Option<Timeout> {
        match self.rto_deadline {
            Some(d) if d <= now => {}
            _ => return None,
        }
        self.stats.timeouts += 1;
        let una = self.snd_una;
        let first = self.rtt.backoffs() == 0;
        let recompute = first || self.p.rto_ssthresh_every_expiry;
        let cwnd_cut = self
            .cc
            .on_rto(self.reduction_basis(self.flight_size()), recompute);
        if cwnd_cut {
            self.stats.cwnd_reductions += 1;
        }
        // RFC 6582 §3.2 step 4 (RTO sets recover) and go-back-N from SND.UNA.
        self.recover = Some(self.high_tx);
        self.recover_set_by_rto = true;
        self.in_recovery = false;
        self.dupacks = 0;
        self.lt_allowance = 0;
        self.lt_bytes = 0;
        self.timed = None;
        self.retransmit_pending = false;
        self.snd_nxt = self.snd_una;
        for r in self.sent.iter_mut() {
            r.retransmitted = true;
        }
        // RFC 6298 §5.5-5.6: back off and restart.
        self.rtt.on_expiry();
        self.rto_deadline = Some(now + self.rtt.rto());
        Some(Timeout { una, cwnd_cut })
    }
}
