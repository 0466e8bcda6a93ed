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
use super::rtt::RttEstimator;
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
    /// A fast retransmit or partial-ACK retransmission of SND.UNA is due.
    retransmit_pending: bool,
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
            rtt: RttEstimator::new(p.initial_rto, p.min_rto, p.max_rto, p.granularity),
            rwnd: u64::MAX,
            started: false,
            snd_una: 0,
            snd_nxt: 0,
            high_tx: 0,
            dupacks: 0,
            in_recovery: false,
            recover: None,
            partial_ack_seen: false,
            retransmit_pending: false,
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
            if len == 0 || self.flight_size() + mss > wnd {
                return None;
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
            self.restart_or_stop_timer(now);
        } else if ack == self.snd_una && self.snd_una < self.high_tx {
            self.on_dupack(ack);
        }
        // ack < SND.UNA: an old ACK, reordered or duplicated in the network; ignored.
    }

    fn on_dupack(&mut self, ack: u64) {
        self.dupacks += 1;
        // RFC 6582 §3.2 step 2: enter only if the cumulative ACK covers more than `recover`.
        // Duplicates of exactly HighTx-at-RTO come from go-back-N copies of data the receiver
        // already holds; they must not start a second, spurious recovery.
        if !self.in_recovery
            && self.dupacks == 3
            && self.p.variant == TcpVariant::NewReno
            && self.recover.is_some_and(|r| ack <= r)
        {
            return;
        }
        let flight = self.flight_size();
        if self.cc.on_dup_ack(self.dupacks, self.in_recovery, flight) {
            self.recover = Some(self.high_tx);
            self.in_recovery = true;
            self.partial_ack_seen = false;
            self.schedule_retransmit_una();
            self.stats.fast_retransmits += 1;
            self.stats.cwnd_reductions += 1;
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
        if covers_retransmission {
            return;
        }
        self.rtt.on_sample(now - r.sent_at);
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
        let cwnd_cut = self.cc.on_rto(self.flight_size(), first);
        if cwnd_cut {
            self.stats.cwnd_reductions += 1;
        }
        // RFC 6582 §3.2 step 4 (RTO sets recover) and go-back-N from SND.UNA.
        self.recover = Some(self.high_tx);
        self.in_recovery = false;
        self.dupacks = 0;
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
