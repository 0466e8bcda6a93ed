//! Delayed-ACK receiver with an always-reading application, sans-IO (RFC 1122 §4.2.3.2,
//! RFC 5681 §4.2), and the reassembly set it keeps.

use std::collections::BTreeMap;

use crate::engine::Time;

/// Which bytes of a stream have arrived: everything below RCV.NXT, plus out-of-order
/// intervals above it. The receiver keeps one; observers that must know what a receiver holds
/// without reaching into it (the spurious-retransmission oracle) keep their own.
#[derive(Debug, Clone, Default)]
pub struct Reassembly {
    /// RCV.NXT: next byte expected in order.
    rcv_nxt: u64,
    /// Out-of-order data held: start -> end, non-overlapping, non-adjacent.
    ooo: BTreeMap<u64, u64>,
}

impl Reassembly {
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

    pub fn has_gap(&self) -> bool {
        !self.ooo.is_empty()
    }

    /// Record the arrival of `[seq, end)`; returns the bytes newly delivered in order.
    pub fn insert(&mut self, seq: u64, end: u64) -> u64 {
        if end <= self.rcv_nxt {
            return 0;
        }
        if seq > self.rcv_nxt {
            self.insert_ooo(seq, end);
            return 0;
        }
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
        self.rcv_nxt - before
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
    data: Reassembly,
    /// In-order segments received since the last ACK.
    unacked_segments: u32,
    delack_deadline: Option<Time>,
    pub acks_sent: u64,
}

impl TcpReceiver {
    pub fn new(p: ReceiverParams) -> Self {
        Self {
            p,
            data: Reassembly::default(),
            unacked_segments: 0,
            delack_deadline: None,
            acks_sent: 0,
        }
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.data.rcv_nxt()
    }

    /// Whether every byte of `[seq, seq + len)` has arrived (in order or held out of order).
    pub fn has(&self, seq: u64, len: u32) -> bool {
        self.data.has(seq, len)
    }

    /// Bytes held out of order.
    pub fn ooo_bytes(&self) -> u64 {
        self.data.ooo_bytes()
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
            ack: self.data.rcv_nxt(),
            rwnd: self.rwnd(),
        }
    }

    /// A data segment `[seq, seq + len)` arrived.
    pub fn on_segment(&mut self, now: Time, seq: u64, len: u32) -> Arrival {
        let end = seq + len as u64;
        if end <= self.data.rcv_nxt() {
            // Entirely old: the ACK that covered it was probably lost; re-ACK at once.
            return Arrival {
                delivered: 0,
                ack: Some(self.send_ack()),
            };
        }
        if seq > self.data.rcv_nxt() {
            // RFC 5681 §4.2: an out-of-order segment triggers an immediate duplicate ACK.
            self.data.insert(seq, end);
            return Arrival {
                delivered: 0,
                ack: Some(self.send_ack()),
            };
        }
        let had_gap = self.data.has_gap();
        let delivered = self.data.insert(seq, end);
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

    /// The delayed-ACK timer; returns the ACK if it is due.
    pub fn on_timeout(&mut self, now: Time) -> Option<Ack> {
        match self.delack_deadline {
            Some(d) if d <= now => Some(self.send_ack()),
            _ => None,
        }
    }
}
