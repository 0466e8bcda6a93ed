//! Delayed-ACK receiver with an always-reading application, sans-IO (RFC 1122 §4.2.3.2,
//! RFC 5681 §4.2), and the reassembly set it keeps; SACK blocks (RFC 2018) and timestamps
//! (RFC 7323) on its ACKs when the connection uses them.

use crate::engine::Time;
use crate::packet::{TcpOpts, MAX_SACK_BLOCKS};

/// Which bytes of a stream have arrived: everything below RCV.NXT, plus out-of-order
/// intervals above it. The receiver keeps one; observers that must know what a receiver holds
/// without reaching into it (the spurious-retransmission oracle) keep their own.
///
/// The intervals are a sorted vector, not a tree: a receiver holds a handful of holes at a
/// time, and a binary search over a few contiguous entries beats pointer chasing (every data
/// arrival queries it twice: the receiver and the oracle's mirror).
#[derive(Debug, Clone, Default)]
pub struct Reassembly {
    /// RCV.NXT: next byte expected in order.
    rcv_nxt: u64,
    /// Out-of-order data held: (start, end), sorted, non-overlapping, non-adjacent.
    ooo: Vec<(u64, u64)>,
}

impl Reassembly {
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// Index of the first interval that ends at or after `seq`.
    #[inline]
    fn at(&self, seq: u64) -> usize {
        self.ooo.partition_point(|&(_, e)| e < seq)
    }

    /// Whether every byte of `[seq, seq + len)` has arrived (in order or held out of order).
    pub fn has(&self, seq: u64, len: u32) -> bool {
        let end = seq + len as u64;
        if end <= self.rcv_nxt {
            return true;
        }
        let from = seq.max(self.rcv_nxt);
        let i = self.ooo.partition_point(|&(_, e)| e <= from);
        self.ooo.get(i).is_some_and(|&(s, e)| s <= from && e >= end)
    }

    /// Bytes held out of order.
    pub fn ooo_bytes(&self) -> u64 {
        self.ooo.iter().map(|(s, e)| e - s).sum()
    }

    pub fn has_gap(&self) -> bool {
        !self.ooo.is_empty()
    }

    /// The out-of-order block holding byte `seq`, if it is held out of order.
    pub fn ooo_block(&self, seq: u64) -> Option<(u64, u64)> {
        if seq < self.rcv_nxt {
            return None;
        }
        let i = self.ooo.partition_point(|&(_, e)| e <= seq);
        self.ooo.get(i).copied().filter(|&(s, _)| s <= seq)
    }

    /// Record the arrival of `[seq, end)`; returns the bytes newly delivered in order.
    #[inline]
    pub fn insert(&mut self, seq: u64, end: u64) -> u64 {
        // Nearly every arrival is in order with no hole held (and each is inserted twice:
        // the receiver and the oracle's mirror): settle it here, inlined, without the
        // searches of the general case.
        if seq <= self.rcv_nxt && self.ooo.is_empty() {
            let before = self.rcv_nxt;
            self.rcv_nxt = before.max(end);
            return self.rcv_nxt - before;
        }
        self.insert_general(seq, end)
    }

    fn insert_general(&mut self, seq: u64, end: u64) -> u64 {
        if end <= self.rcv_nxt {
            return 0;
        }
        if seq > self.rcv_nxt {
            // While a hole waits for its repair, the arrivals go on in order above it: they
            // extend the highest block or start a new one above it, which needs neither
            // search nor merge (each was two searches and a drain, and an NR cell's UEs
            // spend a large part of a run with a hole held).
            match self.ooo.last_mut() {
                Some(last) if seq >= last.0 && seq <= last.1 => last.1 = last.1.max(end),
                Some(&mut (_, e)) if seq > e => self.ooo.push((seq, end)),
                _ => self.insert_ooo(seq, end),
            }
            return 0;
        }
        let before = self.rcv_nxt;
        self.rcv_nxt = end;
        // Pull in any held data that is now contiguous.
        let n = self.ooo.partition_point(|&(s, _)| s <= self.rcv_nxt);
        if n > 0 {
            self.rcv_nxt = self.rcv_nxt.max(self.ooo[n - 1].1);
            self.ooo.drain(..n);
        }
        self.rcv_nxt - before
    }

    fn insert_ooo(&mut self, start: u64, end: u64) {
        // Merge with every interval that overlaps or touches [start, end), so the vector
        // stays canonical.
        let lo = self.at(start);
        let hi = self.ooo.partition_point(|&(s, _)| s <= end);
        if lo < hi {
            let s = start.min(self.ooo[lo].0);
            let e = end.max(self.ooo[hi - 1].1);
            self.ooo[lo] = (s, e);
            self.ooo.drain(lo + 1..hi);
        } else {
            self.ooo.insert(lo, (start, end));
        }
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
    /// Report out-of-order data in SACK blocks (RFC 2018).
    pub sack: bool,
    /// Echo timestamps (RFC 7323 §4.3).
    pub timestamps: bool,
    /// ACK each of the first this many in-order segments at once (Linux's quick-ACK mode at
    /// the first data, `tcp_incr_quickack` with TCP_MAX_QUICKACKS = 16); 0 = off.
    pub quickack_segments: u32,
}

/// An ACK the receiver wants to send. `opt` holds its SACK blocks and TSecr; the caller
/// stamps TSval when it puts the ACK on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ack {
    pub ack: u64,
    pub rwnd: u32,
    pub opt: TcpOpts,
}

/// Points (sequence numbers) of the most recently received out-of-order segments, newest
/// first: the blocks holding them are the ones an ACK reports (RFC 2018 §4). More than
/// `MAX_SACK_BLOCKS` are kept because some may merge into the same block or be delivered.
const RECENT_POINTS: usize = 8;

/// What a data arrival produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Arrival {
    /// Bytes newly delivered in order to the application.
    pub delivered: u64,
    pub ack: Option<Ack>,
    /// Every byte of the segment had arrived before (what [`TcpReceiver::has`] said just
    /// before it): told by the arrival's own comparisons with RCV.NXT, so a caller counting
    /// duplicate arrivals needs no second lookup per segment.
    pub duplicate: bool,
}

/// Receiver with an always-reading application, out-of-order buffering and delayed ACKs.
#[derive(Debug, Clone)]
pub struct TcpReceiver {
    p: ReceiverParams,
    data: Reassembly,
    /// In-order segments received since the last ACK.
    unacked_segments: u32,
    delack_deadline: Option<Time>,
    /// RFC 2018 §4: out-of-order arrivals, newest first (see [`RECENT_POINTS`]).
    recent: [u64; RECENT_POINTS],
    n_recent: usize,
    /// RFC 7323 §4.3: TS.Recent and Last.ACK.sent.
    ts_recent: u32,
    last_ack_sent: u64,
    /// In-order segments still to be ACKed at once (quick-ACK mode).
    quickack_left: u32,
    pub acks_sent: u64,
}

impl TcpReceiver {
    pub fn new(p: ReceiverParams) -> Self {
        Self {
            unacked_segments: 0,
            delack_deadline: None,
            recent: [0; RECENT_POINTS],
            n_recent: 0,
            ts_recent: 0,
            last_ack_sent: 0,
            quickack_left: p.quickack_segments,
            acks_sent: 0,
            data: Reassembly::default(),
            p,
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

    /// Always inlined: out of line, the ACK came back through memory and was copied into the
    /// arrival's result and again into the packet (its 40 octets of options each time).
    #[inline(always)]
    fn send_ack(&mut self) -> Ack {
        self.unacked_segments = 0;
        self.delack_deadline = None;
        self.acks_sent += 1;
        let ack = self.data.rcv_nxt();
        self.last_ack_sent = ack;
        let mut opt = TcpOpts::default();
        if self.p.timestamps {
            opt.ts = true;
            opt.ts_ecr = self.ts_recent;
        }
        if self.p.sack && self.data.has_gap() {
            self.fill_sack(ack, &mut opt);
        } else {
            self.n_recent = 0;
        }
        Ack {
            ack,
            rwnd: self.rwnd(),
            opt,
        }
    }

    /// RFC 2018 §4: the first block holds the segment that triggered the ACK (the newest
    /// out-of-order arrival), then the most recently reported others, none twice.
    fn fill_sack(&mut self, ack: u64, opt: &mut TcpOpts) {
        let mut kept = 0;
        // The blocks reported so far, as absolute ranges.
        let mut found = [(0u64, 0u64); MAX_SACK_BLOCKS];
        let mut n = 0;
        for k in 0..self.n_recent {
            let p = self.recent[k];
            if n == MAX_SACK_BLOCKS {
                // The option is full: keep the older points as they are (no lookup).
                self.recent[kept] = p;
                kept += 1;
                continue;
            }
            if p < ack {
                continue; // delivered in order since
            }
            // Consecutive out-of-order arrivals mostly extend one block, so most points lie
            // in a block already reported: held blocks are maximal, so that block is the
            // one the lookup would find, and the point is kept without one.
            if found[..n].iter().any(|&(s, e)| s <= p && p < e) {
                self.recent[kept] = p;
                kept += 1;
                continue;
            }
            let Some((s, e)) = self.data.ooo_block(p) else {
                continue;
            };
            // Keep the point for later ACKs (compacting the list as we go).
            self.recent[kept] = p;
            kept += 1;
            found[n] = (s, e);
            opt.sack[n] = ((s - ack) as u32, (e - ack) as u32);
            n += 1;
        }
        opt.nsack = n as u8;
        self.n_recent = kept;
    }

    /// Remember an out-of-order arrival at `seq` as the newest (RFC 2018 §4).
    fn note_recent(&mut self, seq: u64) {
        let n = self.n_recent.min(RECENT_POINTS - 1);
        self.recent.copy_within(0..n, 1);
        self.recent[0] = seq;
        self.n_recent = n + 1;
    }

    /// The connection's SYN arrived (again, if its SYN-ACK was lost): answer at once. The
    /// SYN's TSval initialises TS.Recent (RFC 7323 §4.3).
    pub fn on_syn(&mut self, ts_val: Option<u32>) -> Ack {
        if let Some(v) = ts_val {
            self.ts_recent = v;
        }
        let mut a = self.send_ack();
        a.opt.syn = true;
        a
    }

    /// A data segment `[seq, seq + len)` arrived.
    pub fn on_segment(&mut self, now: Time, seq: u64, len: u32) -> Arrival {
        self.on_segment_ts(now, seq, len, None)
    }

    /// A data segment `[seq, seq + len)` arrived carrying TSval `ts_val` (timestamps on).
    pub fn on_segment_ts(&mut self, now: Time, seq: u64, len: u32, ts_val: Option<u32>) -> Arrival {
        if let Some(v) = ts_val {
            // RFC 7323 §4.3 (2): TS.Recent follows a segment that is not newer than the last
            // ACK sent (so a delayed ACK echoes the earliest unacknowledged segment, and a
            // hole's filler sets it), and never moves back (modular comparison).
            if seq <= self.last_ack_sent && v.wrapping_sub(self.ts_recent) as i32 >= 0 {
                self.ts_recent = v;
            }
        }
        let end = seq + len as u64;
        if end <= self.data.rcv_nxt() {
            // Entirely old: the ACK that covered it was probably lost; re-ACK at once.
            return Arrival {
                delivered: 0,
                ack: Some(self.send_ack()),
                duplicate: true,
            };
        }
        if seq > self.data.rcv_nxt() {
            // RFC 5681 §4.2: an out-of-order segment triggers an immediate duplicate ACK.
            let duplicate = self.data.has(seq, len);
            self.data.insert(seq, end);
            if self.p.sack {
                self.note_recent(seq);
            }
            return Arrival {
                delivered: 0,
                ack: Some(self.send_ack()),
                duplicate,
            };
        }
        // seq <= RCV.NXT < end: the byte at RCV.NXT is new (held blocks start above it).
        let had_gap = self.data.has_gap();
        let delivered = self.data.insert(seq, end);
        let ack = if had_gap {
            // RFC 5681 §4.2: a segment that fills a gap, wholly or in part, is ACKed at once.
            Some(self.send_ack())
        } else if self.quickack_left > 0 {
            self.quickack_left -= 1;
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
        Arrival {
            delivered,
            ack,
            duplicate: false,
        }
    }

    /// The delayed-ACK timer; returns the ACK if it is due.
    pub fn handle_timeout(&mut self, now: Time) -> Option<Ack> {
        match self.delack_deadline {
            Some(d) if d <= now => Some(self.send_ack()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The SACK blocks an ACK carries, every recent point looked up (RFC 2018 §4 as the
    /// receiver once did it): the reference for the lookups it skips.
    #[derive(Default)]
    struct PointList(Vec<u64>);

    impl PointList {
        fn note(&mut self, seq: u64) {
            self.0.insert(0, seq);
            self.0.truncate(RECENT_POINTS);
        }

        fn fill(&mut self, ack: u64, data: &Reassembly) -> Vec<(u32, u32)> {
            let mut out: Vec<(u32, u32)> = Vec::new();
            let mut kept = Vec::new();
            for &p in &self.0 {
                if out.len() == MAX_SACK_BLOCKS {
                    kept.push(p);
                    continue;
                }
                if p < ack {
                    continue;
                }
                let Some((s, e)) = data.ooo_block(p) else {
                    continue;
                };
                kept.push(p);
                let block = ((s - ack) as u32, (e - ack) as u32);
                if !out.contains(&block) {
                    out.push(block);
                }
            }
            self.0 = kept;
            out
        }
    }

    /// A SACK receiver with a 64 KiB buffer and delayed ACKs every second segment, as the
    /// property tests below use it.
    fn sack_receiver() -> TcpReceiver {
        TcpReceiver::new(ReceiverParams {
            rcv_buf: 65_535,
            window_scaling: false,
            delack_count: 2,
            delack_timeout: 200,
            sack: true,
            timestamps: false,
            quickack_segments: 0,
        })
    }

    proptest! {
        /// The SACK blocks are those of the point-by-point lookups, on every ACK of any
        /// arrival order (segments of 10 octets, repeats and holes).
        #[test]
        fn sack_blocks_are_those_of_looking_every_point_up(
            arrivals in prop::collection::vec(0u64..40, 0..120),
        ) {
            let mut r = sack_receiver();
            let mut reference = PointList::default();
            for (i, seg) in arrivals.into_iter().enumerate() {
                let seq = seg * 10;
                let ooo = seq > r.rcv_nxt();
                let arrival = r.on_segment(i as Time, seq, 10);
                if ooo {
                    reference.note(seq);
                }
                if let Some(a) = arrival.ack {
                    let want = if r.data.has_gap() {
                        reference.fill(a.ack, &r.data)
                    } else {
                        reference.0.clear();
                        Vec::new()
                    };
                    prop_assert_eq!(&a.opt.sack[..a.opt.nsack as usize], &want[..]);
                }
            }
        }

        /// An arrival says it is a duplicate exactly when the receiver held all of it before
        /// (what `has` answered when the host asked it first), in any arrival order, with
        /// repeats, overlaps and holes.
        #[test]
        fn an_arrival_is_a_duplicate_iff_it_was_held(
            arrivals in prop::collection::vec((0u64..40, 1u32..25), 0..120),
        ) {
            let mut r = sack_receiver();
            for (i, (seg, len)) in arrivals.into_iter().enumerate() {
                let seq = seg * 10;
                let held = r.has(seq, len);
                prop_assert_eq!(r.on_segment(i as Time, seq, len).duplicate, held);
            }
        }

        /// The interval set agrees with a byte-by-byte model under any arrival order.
        #[test]
        fn reassembly_matches_a_bytewise_model(
            arrivals in prop::collection::vec((0u64..60, 1u64..8), 0..80),
        ) {
            let mut r = Reassembly::default();
            let mut held = [false; 80];
            for (seq, len) in arrivals {
                let end = (seq + len).min(80);
                let before = r.rcv_nxt();
                let delivered = r.insert(seq, end);
                for b in &mut held[seq as usize..end as usize] {
                    *b = true;
                }
                let rcv_nxt = held.iter().position(|&b| !b).unwrap_or(80) as u64;
                prop_assert_eq!(r.rcv_nxt(), rcv_nxt);
                prop_assert_eq!(delivered, rcv_nxt - before);
                let ooo = held[rcv_nxt as usize..].iter().filter(|&&b| b).count() as u64;
                prop_assert_eq!(r.ooo_bytes(), ooo);
                prop_assert_eq!(r.has_gap(), ooo > 0);
                for s in 0..79u64 {
                    prop_assert_eq!(r.has(s, 1), held[s as usize]);
                    prop_assert_eq!(r.has(s, 2), held[s as usize] && held[s as usize + 1]);
                    let block = r.ooo_block(s);
                    prop_assert_eq!(block.is_some(), s >= rcv_nxt && held[s as usize]);
                    if let Some((a, b)) = block {
                        prop_assert!(held[a as usize..b as usize].iter().all(|&x| x));
                        prop_assert!(a == 0 || !held[a as usize - 1]);
                        prop_assert!(b == 80 || !held[b as usize]);
                    }
                }
            }
        }
    }
}
