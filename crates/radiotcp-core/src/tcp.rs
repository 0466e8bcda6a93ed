//! TCP Reno/NewReno bulk sender and delayed-ACK receiver, sans-IO.
//!
//! Neither entity owns a clock, a socket or a scheduler: handlers take `now` and update state,
//! [`TcpSender::poll_transmit`] hands out segments to put on the wire and `poll_timeout` tells
//! the caller when to call `on_timeout`. Timers are deadlines kept as data, so nothing has to be
//! cancelled. Sequence numbers are 64-bit byte offsets starting at 0 (no SYN, no wrap-around):
//! the connection is taken as established when the flow starts, as in ns-2's one-way TCP.
//!
//! Specs: RFC 5681 (congestion control), RFC 6582 (NewReno), RFC 6298 (RTO), RFC 1122 and
//! RFC 5681 §4.2 (delayed ACKs); model-specs §5.

use std::collections::{BTreeMap, VecDeque};

use crate::config::{TcpConfig, TcpVariant};
use crate::engine::{millis, Time};

/// The "arbitrarily high" initial ssthresh (RFC 5681 §3.1): larger than any window we reach.
pub const SSTHRESH_INFINITE: u64 = u64::MAX / 4;

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

impl SenderParams {
    pub fn from_config(c: &TcpConfig) -> Self {
        let mss = c.packet_size_bytes - c.header_bytes;
        Self {
            variant: c.variant,
            mss,
            initial_window: c.initial_window_segments as u64 * mss as u64,
            initial_ssthresh: c.initial_ssthresh_bytes.unwrap_or(SSTHRESH_INFINITE),
            initial_rto: millis(c.initial_rto_ms),
            min_rto: millis(c.min_rto_ms),
            max_rto: millis(c.max_rto_ms),
            granularity: millis(c.clock_granularity_ms),
        }
    }
}

/// Counters kept by the sender for the whole run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub retransmissions: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub acks_received: u64,
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
    cwnd: u64,
    ssthresh: u64,
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
    srtt: Option<Time>,
    rttvar: Time,
    /// Current RTO including backoff.
    rto: Time,
    /// Consecutive expiries without a valid RTT sample since (RFC 6298 §5.5, Karn).
    backoffs: u32,
    rto_deadline: Option<Time>,
    sent: VecDeque<SentRecord>,
    /// Total bytes the application offers; `None` for an endless bulk transfer.
    app_limit: Option<u64>,
    pub stats: SenderStats,
}

impl TcpSender {
    pub fn new(p: SenderParams) -> Self {
        Self {
            cwnd: p.initial_window,
            ssthresh: p.initial_ssthresh,
            rto: p.initial_rto,
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
            srtt: None,
            rttvar: 0,
            backoffs: 0,
            rto_deadline: None,
            sent: VecDeque::new(),
            app_limit: None,
            stats: SenderStats::default(),
            p,
        }
    }

    pub fn cwnd(&self) -> u64 {
        self.cwnd
    }
    pub fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    /// The window the sender may have outstanding: min(cwnd, the peer's advertised window).
    pub fn send_window(&self) -> u64 {
        self.cwnd.min(self.rwnd)
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
        self.rto
    }
    pub fn srtt(&self) -> Option<Time> {
        self.srtt
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
            let wnd = self.cwnd.min(self.rwnd);
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
            self.rto_deadline = Some(now + self.rto);
        }
        Some(seg)
    }

    /// An ACK arrived carrying cumulative acknowledgement `ack` and window `rwnd`.
    pub fn on_ack(&mut self, now: Time, ack: u64, rwnd: u32) {
        self.stats.acks_received += 1;
        self.rwnd = rwnd as u64;
        let mss = self.p.mss as u64;
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
                // Full ACK (NewReno) or first new ACK (Reno): deflate the window
                // (RFC 5681 §3.2 step 6, RFC 6582 §3.2 step 3 option "ssthresh").
                self.cwnd = self.ssthresh;
                self.in_recovery = false;
            } else if self.cwnd < self.ssthresh {
                // Slow start, RFC 5681 eq. (2) with the byte-counting limit L = 1 SMSS.
                self.cwnd += newly_acked.min(mss);
            } else {
                // Congestion avoidance, RFC 5681 eq. (3).
                self.cwnd += (mss * mss / self.cwnd).max(1);
            }
            self.dupacks = 0;
            self.restart_or_stop_timer(now);
        } else if ack == self.snd_una && self.snd_una < self.high_tx {
            self.on_dupack(ack);
        }
        // ack < SND.UNA: an old ACK, reordered or duplicated in the network; ignored.
    }

    fn on_dupack(&mut self, ack: u64) {
        let mss = self.p.mss as u64;
        self.dupacks += 1;
        if self.in_recovery {
            // RFC 5681 §3.2 step 4: each further duplicate inflates the window.
            self.cwnd += mss;
        } else if self.dupacks == 3 {
            // RFC 6582 §3.2 step 2: enter only if the cumulative ACK covers more than
            // `recover`. Duplicates of exactly HighTx-at-RTO come from go-back-N copies of data
            // the receiver already holds; they must not start a second, spurious recovery.
            if self.p.variant == TcpVariant::NewReno && self.recover.is_some_and(|r| ack <= r) {
                return;
            }
            self.ssthresh = (self.flight_size() / 2).max(2 * mss);
            self.recover = Some(self.high_tx);
            self.in_recovery = true;
            self.partial_ack_seen = false;
            self.cwnd = self.ssthresh + 3 * mss;
            self.schedule_retransmit_una();
            self.stats.fast_retransmits += 1;
        }
    }

    /// RFC 6582 §3.2 step 5.
    fn on_partial_ack(&mut self, now: Time, newly_acked: u64) {
        let mss = self.p.mss as u64;
        self.schedule_retransmit_una();
        // Deflate by the amount acknowledged, add back one SMSS if at least one was acked.
        self.cwnd = self.cwnd.saturating_sub(newly_acked);
        if newly_acked >= mss {
            self.cwnd += mss;
        }
        self.cwnd = self.cwnd.max(mss);
        if !self.partial_ack_seen {
            self.partial_ack_seen = true;
            self.rto_deadline = Some(now + self.rto);
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
            Some(now + self.rto)
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
        let sample = now - r.sent_at;
        match self.srtt {
            None => {
                // RFC 6298 §2.2.
                self.srtt = Some(sample);
                self.rttvar = sample / 2;
            }
            Some(srtt) => {
                // RFC 6298 §2.3, beta = 1/4 then alpha = 1/8, in that order.
                let err = srtt.abs_diff(sample);
                self.rttvar = (3 * self.rttvar + err) / 4;
                self.srtt = Some((7 * srtt + sample) / 8);
            }
        }
        // A valid sample ends any backoff (RFC 6298 §5.7 and Karn).
        self.backoffs = 0;
        let srtt = self.srtt.unwrap_or(sample);
        let rto = srtt + self.p.granularity.max(4 * self.rttvar);
        // §2.4 lower bound, §2.5 upper bound.
        self.rto = rto.clamp(self.p.min_rto, self.p.max_rto);
    }

    /// Called at (or after) the deadline from `poll_timeout`. A deadline that has moved later
    /// makes this a no-op, so a stale wake-up is harmless.
    pub fn on_timeout(&mut self, now: Time) {
        match self.rto_deadline {
            Some(d) if d <= now => {}
            _ => return,
        }
        let mss = self.p.mss as u64;
        self.stats.timeouts += 1;
        // RFC 5681 §3.1 eq. (4); on later expiries for the same segment ssthresh is held.
        if self.backoffs == 0 {
            self.ssthresh = (self.flight_size() / 2).max(2 * mss);
        }
        self.cwnd = mss;
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
        self.backoffs += 1;
        self.rto = (self.rto * 2).min(self.p.max_rto);
        self.rto_deadline = Some(now + self.rto);
    }
}

/// Receiver parameters.
#[derive(Debug, Clone)]
pub struct ReceiverParams {
    pub rcv_buf: u32,
    /// RFC 7323 window scaling: the advertised window may exceed the 16-bit field's 65 535.
    pub window_scaling: bool,
    pub delack_count: u32,
    pub delack_timeout: Time,
}

impl ReceiverParams {
    pub fn from_config(c: &TcpConfig) -> Self {
        Self {
            rcv_buf: c.receive_buffer_bytes(),
            window_scaling: c.window_scaling,
            delack_count: c.delack_count,
            delack_timeout: millis(c.delack_timeout_ms),
        }
    }
}

/// An ACK the receiver wants to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ack {
    pub ack: u64,
    pub rwnd: u32,
}

/// What a data arrival produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Arrival {
    /// Bytes newly delivered in order to the application.
    pub delivered: u64,
    pub ack: Option<Ack>,
}

/// Receiver with an always-reading application, out-of-order buffering and delayed ACKs.
#[derive(Debug, Clone)]
pub struct TcpReceiver {
    p: ReceiverParams,
    /// RCV.NXT: next byte expected in order.
    rcv_nxt: u64,
    /// Out-of-order data held: start -> end, non-overlapping, non-adjacent.
    ooo: BTreeMap<u64, u64>,
    /// In-order segments received since the last ACK.
    unacked_segments: u32,
    delack_deadline: Option<Time>,
    pub acks_sent: u64,
}

impl TcpReceiver {
    pub fn new(p: ReceiverParams) -> Self {
        Self {
            p,
            rcv_nxt: 0,
            ooo: BTreeMap::new(),
            unacked_segments: 0,
            delack_deadline: None,
            acks_sent: 0,
        }
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// Whether every byte of `[seq, seq + len)` has arrived (in order or held out of order).
    pub fn has(&self, seq: u64, len: u32) -> bool {
        let end = seq + len as u64;
        if end <= self.rcv_nxt {
            return true;
        }
        let from = seq.max(self.rcv_nxt);
        self.ooo
            .range(..=from)
            .next_back()
            .is_some_and(|(_, &e)| e >= end)
    }

    /// Bytes held out of order.
    pub fn ooo_bytes(&self) -> u64 {
        self.ooo.iter().map(|(s, e)| e - s).sum()
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        self.delack_deadline
    }

    /// The advertised window. Out-of-order bytes lie inside the window that starts at RCV.NXT,
    /// and the application reads in-order data at once, so the window is the whole buffer (as
    /// in BSD-derived stacks and ns-3), capped by the 16-bit field without window scaling.
    fn rwnd(&self) -> u32 {
        if self.p.window_scaling {
            self.p.rcv_buf
        } else {
            self.p.rcv_buf.min(65_535)
        }
    }

    fn send_ack(&mut self) -> Ack {
        self.unacked_segments = 0;
        self.delack_deadline = None;
        self.acks_sent += 1;
        Ack {
            ack: self.rcv_nxt,
            rwnd: self.rwnd(),
        }
    }

    /// A data segment `[seq, seq + len)` arrived.
    pub fn on_segment(&mut self, now: Time, seq: u64, len: u32) -> Arrival {
        let end = seq + len as u64;
        if end <= self.rcv_nxt {
            // Entirely old: the ACK that covered it was probably lost; re-ACK at once.
            return Arrival {
                delivered: 0,
                ack: Some(self.send_ack()),
            };
        }
        if seq > self.rcv_nxt {
            // RFC 5681 §4.2: an out-of-order segment triggers an immediate duplicate ACK.
            self.insert_ooo(seq, end);
            return Arrival {
                delivered: 0,
                ack: Some(self.send_ack()),
            };
        }
        let had_gap = !self.ooo.is_empty();
        let before = self.rcv_nxt;
        self.rcv_nxt = end;
        // Pull in any held data that is now contiguous.
        while let Some((&s, &e)) = self.ooo.first_key_value() {
            if s > self.rcv_nxt {
                break;
            }
            self.ooo.pop_first();
            self.rcv_nxt = self.rcv_nxt.max(e);
        }
        let delivered = self.rcv_nxt - before;
        let ack = if had_gap {
            // RFC 5681 §4.2: a segment that fills a gap, wholly or in part, is ACKed at once.
            Some(self.send_ack())
        } else {
            self.unacked_segments += 1;
            if self.unacked_segments >= self.p.delack_count {
                Some(self.send_ack())
            } else {
                if self.delack_deadline.is_none() {
                    self.delack_deadline = Some(now + self.p.delack_timeout);
                }
                None
            }
        };
        Arrival { delivered, ack }
    }

    fn insert_ooo(&mut self, mut start: u64, mut end: u64) {
        // Merge with any overlapping or adjacent intervals so the map stays canonical.
        if let Some((&s, &e)) = self.ooo.range(..=start).next_back() {
            if e >= start {
                start = s;
                end = end.max(e);
                self.ooo.remove(&s);
            }
        }
        while let Some((&s, &e)) = self.ooo.range(start..).next() {
            if s > end {
                break;
            }
            end = end.max(e);
            self.ooo.remove(&s);
        }
        self.ooo.insert(start, end);
    }

    /// The delayed-ACK timer; returns the ACK if it is due.
    pub fn on_timeout(&mut self, now: Time) -> Option<Ack> {
        match self.delack_deadline {
            Some(d) if d <= now => Some(self.send_ack()),
            _ => None,
        }
    }
}
