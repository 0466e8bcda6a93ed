//! LTE RLC (3GPP TS 36.322), acknowledged and unacknowledged mode, sans-IO, as a byte-stream
//! abstraction (docs/models/lte-rlc.md).
//!
//! One [`LteRlcEntity`] is one end of a radio bearer: a transmitter for the SDUs it is given
//! and a receiver for the peer's PDUs. The cell driver moves SDUs in with
//! [`LteRlcEntity::offer_sdu`], asks [`LteRlcEntity::buffer_status`] what a grant should hold,
//! fills a grant with [`LteRlcEntity::poll_transmit`], hands the peer's decoded transport blocks to
//! [`LteRlcEntity::on_chunks`], runs [`LteRlcEntity::handle_timeout`] at
//! [`LteRlcEntity::poll_timeout`] and collects SDUs with [`LteRlcEntity::drain_delivered`].
//!
//! The octets of the transmitter's SDUs (each with its PDCP header) are numbered as one
//! stream. A data PDU (SN = VT(S), §5.1.3.1.1) covers a contiguous stream range: segments of
//! one or more SDUs (segmentation and concatenation, §4.2.1.3, byte-granular). A
//! retransmission re-sends byte ranges of a PDU (an AMD PDU segment with its SO, §5.2.1),
//! re-segmented to what the grant leaves. A STATUS PDU carries the receiver's ack point and
//! the missing ranges below it (ACK_SN, NACK_SN with SOstart/SOend, §6.2.2.1). The receiver
//! keeps the received ranges (sorted, coalesced) and delivers SDUs strictly in order once all
//! their octets are in; the chunk that carries an SDU's last octet carries the SDU's packet,
//! which tells the receiver where the SDU starts (its length is known).
//!
//! The same entity is NR RLC (3GPP TS 38.322) when its parameters say so
//! (`concatenation: false`, built by `radio::nr::rlc::NrRlcConfig::params`; docs/models/nr-rlc.md):
//! every data PDU then carries one SDU or one SDU segment, with the SN of its SDU, an SO only
//! on non-first segments and a MAC subheader of its own, counted in the grant; STATUS PDUs
//! carry NR's NACK entries (SOstart/SOend, NACK range). The `nr_*` methods hold the
//! differences; the LTE paths do not run them.
//!
//! What goes over the air is a sequence of [`Chunk`]s appended to a caller-provided vector:
//! nothing allocates per call once the internal queues have grown to their working size.
//!
//! Simplifications (docs/models/lte-rlc.md): SNs are unbounded (no modulo 1024) and there is
//! no receiving window (the transmitting window of 512 PDUs is kept); SDUs leave the transmit
//! buffer in order, when the ack point passes their last octet; LIs cost a fixed size each and
//! an SDU piece may exceed the 11-bit LI range; maxRetxThreshold discards SDUs and tells the
//! receiver ("discard below", our substitute for radio link failure) instead of failing the
//! link; the receiver knows an SDU it lost only once the SDU's last octet has arrived.

use std::cell::Cell;
use std::collections::VecDeque;

use crate::engine::{Time, NS_PER_MS};
use crate::error::ParamError;
use crate::packet::Packet;
use crate::radio::TxOpportunity;

/// AM_Window_Size for the 10-bit SN (36.322 §7.2): no new AMD PDU with SN >= VT(A) + 512.
/// The default of `LteRlcParams::am_window_size`.
pub const AM_WINDOW_SIZE: u32 = 512;
/// Octets of a STATUS PDU without NACKs: D/C, CPT, ACK_SN (10 bits) and E1 (§6.2.1.6). The
/// default of `LteRlcParams::status_header_bytes`.
pub const STATUS_HEADER_BYTES: u32 = 2;
/// Octets of our "discard below" notice (not in 36.322; sized like a control PDU header and
/// a 2-octet position field).
pub const DISCARD_NOTICE_BYTES: u32 = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RlcMode {
    /// Acknowledged mode: ARQ with STATUS reports, polling, retransmissions.
    Am,
    /// Unacknowledged mode: segmentation, reordering and in-order delivery only.
    Um,
}

/// Parameters of one RLC entity (both ends of a bearer use the same set). Times in ns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LteRlcParams {
    pub mode: RlcMode,
    /// PDCP data PDU header, counted into each SDU (2 with a 12-bit PDCP SN, 36.323 §6.2.3).
    /// NR: the PDCP header (2 or 3, 38.323 §6.2.2), the MAC-I if integrity protected (4) and
    /// the SDAP header (0 or 1, 37.324 §6.2.2).
    pub pdcp_header_bytes: u32,
    /// Fixed header of a data PDU (AMD / UMD with a 10-bit SN: 2, 36.322 §6.2.1.3-4).
    /// NR: the header of a PDU carrying a complete SDU (SI = 00): AMD 2 or 3 (12- or 18-bit
    /// SN), UMD 1 (no SN, 38.322 §6.2.2.3).
    pub rlc_header_bytes: u32,
    /// Octets per additional SDU piece in a PDU: E + 11-bit LI = 1.5 octets, rounded up
    /// (§6.2.2.5, .7).
    pub li_bytes: u32,
    /// Header of an AMD PDU segment: the fixed 2 octets + LSF and 15-bit SO (§6.2.1.5).
    /// NR: the header of a PDU carrying an SDU's first segment (SI = 01: SN, no SO): AMD 2
    /// or 3, UMD 1 or 2 (6- or 12-bit SN); middle and last segments add `so_bytes`.
    pub segment_header_bytes: u32,
    /// Octets per missing range in a STATUS PDU: NACK_SN, E1, E2, SOstart, SOend = 42 bits,
    /// rounded up (§6.2.1.6). NR: NACK_SN, E1, E2, E3 and R, 2 or 3 octets (12- or 18-bit
    /// SN); SOstart/SOend (`nack_so_bytes`) and NACK range (`nack_range_bytes`) as needed.
    pub nack_bytes: u32,
    /// t-PollRetransmit (§7.3), AM.
    pub t_poll_retransmit: Time,
    /// t-Reordering (§7.3), AM and UM; 0 reports or skips a gap at once. NR: t-Reassembly
    /// (38.322 §5.2.3.2.4, §7.3), which runs on the same gap rule (docs/models/nr-rlc.md).
    pub t_reordering: Time,
    /// t-StatusProhibit (§7.3), AM; 0 disables it.
    pub t_status_prohibit: Time,
    /// pollPDU: poll at least every this many new PDUs (u32::MAX = infinity).
    pub poll_pdu: u32,
    /// pollByte: poll at least every this many new data octets (u64::MAX = infinity).
    pub poll_byte: u64,
    /// maxRetxThreshold: a PDU considered for retransmission again after this many
    /// retransmissions makes its SDUs discarded (§5.2.1; radio link failure in real LTE).
    pub max_retx: u32,
    // ---- the flavour: LTE (36.322) or NR (38.322); radio/nr/rlc.rs builds the NR set ----
    /// Concatenation of SDUs into one data PDU (36.322 §4.2.1.2.2, §5.1.3.1.1): true is the
    /// LTE flavour. False is the NR flavour: NR RLC has "segmentation and re-segmentation"
    /// but no concatenation (38.322 §4.2.1.3), so every data PDU carries one SDU or one SDU
    /// segment with its own header (no LIs) and its own MAC subheader (38.321 §6.1.2), and
    /// the NR rules below apply (SO only on non-first segments, NR STATUS fields).
    pub concatenation: bool,
    /// NR: the SO field a PDU carrying a middle or last SDU segment adds to
    /// `segment_header_bytes` (SI = 11 / 10, 38.322 §6.2.2.3-4, §6.2.3): 2. Unused in LTE,
    /// whose `segment_header_bytes` already holds its SO.
    pub so_bytes: u32,
    /// NR: the MAC subheader in front of each RLC PDU (data or STATUS) of at most 255
    /// octets: R/F/LCID/L with an 8-bit L, 2 octets (38.321 §6.1.2). 0 in LTE, where the cell
    /// counts one MAC header per transport block.
    pub mac_subheader_bytes: u32,
    /// NR: the same with a 16-bit L, for an RLC PDU of more than 255 octets: 3.
    pub mac_subheader_long_bytes: u32,
    /// Octets of a STATUS PDU without NACKs: D/C, CPT, ACK_SN and E1. LTE: 2 with the 10-bit
    /// ACK_SN (36.322 §6.2.1.6); NR: 3 with a 12- or 18-bit ACK_SN (38.322 §6.2.2.5).
    pub status_header_bytes: u32,
    /// NR: SOstart and SOend of a NACK entry whose E2 is set (16 bits each, 38.322
    /// §6.2.3): 4. Unused in LTE, whose `nack_bytes` already holds them.
    pub nack_so_bytes: u32,
    /// NR: the NACK range field of a NACK entry whose E3 is set (8 bits, 38.322 §6.2.3): 1.
    pub nack_range_bytes: u32,
    /// AM_Window_Size (§7.2): no new SN at or above VT(A) + this. LTE 512 (10-bit SN); NR
    /// 2^(SN bits - 1): 2048 (12-bit) or 131072 (18-bit).
    pub am_window_size: u32,
}

impl Default for LteRlcParams {
    /// AM with the header sizes of 36.322 (10-bit SN) and 36.323 (12-bit PDCP SN);
    /// t-PollRetransmit 45 ms, t-Reordering 35 ms, t-StatusProhibit 10 ms, pollPDU 4,
    /// pollByte 25 kB, maxRetxThreshold 32 (sources in docs/models/lte-rlc.md).
    fn default() -> Self {
        Self {
            mode: RlcMode::Am,
            pdcp_header_bytes: 2,
            rlc_header_bytes: 2,
            li_bytes: 2,
            segment_header_bytes: 4,
            nack_bytes: 6,
            t_poll_retransmit: 45 * NS_PER_MS,
            t_reordering: 35 * NS_PER_MS,
            t_status_prohibit: 10 * NS_PER_MS,
            poll_pdu: 4,
            poll_byte: 25_000,
            max_retx: 32,
            concatenation: true,
            so_bytes: 0,
            mac_subheader_bytes: 0,
            mac_subheader_long_bytes: 0,
            status_header_bytes: STATUS_HEADER_BYTES,
            nack_so_bytes: 0,
            nack_range_bytes: 0,
            am_window_size: AM_WINDOW_SIZE,
        }
    }
}

impl LteRlcParams {
    /// Octets one more complete SDU of `packet_size` octets adds to a grant that carries it
    /// as new data, for a driver that estimates what SDUs queued in front of the entity will
    /// need: LTE, the packet, its PDCP header and one LI (it joins the grant's one new PDU);
    /// NR, the packet, its PDCP header and a PDU of its own (header and MAC subheader).
    pub fn sdu_cost(&self, packet_size: u32) -> u64 {
        let sdu = (packet_size as u64 + self.pdcp_header_bytes as u64).max(1);
        if self.concatenation {
            sdu + self.li_bytes as u64
        } else {
            let pdu = sdu + self.rlc_header_bytes as u64;
            pdu + if pdu <= 255 {
                self.mac_subheader_bytes
            } else {
                self.mac_subheader_long_bytes
            } as u64
        }
    }

    pub fn validate(&self) -> Result<(), ParamError> {
        if self.rlc_header_bytes == 0 {
            return Err(ParamError::new(
                "rlc_header_bytes",
                self.rlc_header_bytes,
                "at least 1 octet",
            ));
        }
        if self.segment_header_bytes < self.rlc_header_bytes {
            return Err(ParamError::new(
                "segment_header_bytes",
                self.segment_header_bytes,
                "at least rlc_header_bytes (a segment header adds the SO to the PDU header)",
            ));
        }
        if self.nack_bytes == 0 {
            return Err(ParamError::new(
                "nack_bytes",
                self.nack_bytes,
                "at least 1 octet",
            ));
        }
        if self.t_poll_retransmit == 0 {
            return Err(ParamError::new(
                "t_poll_retransmit",
                self.t_poll_retransmit,
                "a positive time (36.331: 5..=500 ms)",
            ));
        }
        if self.poll_pdu == 0 {
            return Err(ParamError::new(
                "poll_pdu",
                self.poll_pdu,
                "at least 1 PDU (36.331: 4..=256 or infinity)",
            ));
        }
        if self.poll_byte == 0 {
            return Err(ParamError::new(
                "poll_byte",
                self.poll_byte,
                "at least 1 octet (36.331: 25 kB..=3000 kB or infinity)",
            ));
        }
        if !(1..=32).contains(&self.max_retx) {
            return Err(ParamError::new(
                "max_retx",
                self.max_retx,
                "1..=32 (36.331 maxRetxThreshold t1..t32)",
            ));
        }
        if self.status_header_bytes == 0 {
            return Err(ParamError::new(
                "status_header_bytes",
                self.status_header_bytes,
                "at least 1 octet",
            ));
        }
        if self.am_window_size == 0 {
            return Err(ParamError::new(
                "am_window_size",
                self.am_window_size,
                "at least 1 SN",
            ));
        }
        if self.concatenation {
            // LTE: the cell counts the MAC header once per transport block.
            if self.mac_subheader_bytes != 0 || self.mac_subheader_long_bytes != 0 {
                return Err(ParamError::new(
                    "mac_subheader_bytes",
                    self.mac_subheader_bytes.max(self.mac_subheader_long_bytes),
                    "0 with concatenation (LTE: one MAC header per transport block, the cell's)",
                ));
            }
        } else if self.mac_subheader_long_bytes < self.mac_subheader_bytes {
            return Err(ParamError::new(
                "mac_subheader_long_bytes",
                self.mac_subheader_long_bytes,
                "at least mac_subheader_bytes (a 16-bit L instead of an 8-bit one)",
            ));
        }
        Ok(())
    }
}

/// One piece of what an entity sends in a grant. The chunks appended by one
/// [`LteRlcEntity::poll_transmit`] call travel together in one transport block and must be handed
/// to the peer's [`LteRlcEntity::on_chunks`] together, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chunk {
    /// Stream octets [start, start + len) of one SDU (or a piece of it), in the data PDU `sn`
    /// (new, or retransmitted as an AMD PDU segment when `retx`). `sdu_end` is Some(packet)
    /// iff the chunk carries the SDU's last octet. `poll` is the P bit of the PDU (set on its
    /// last chunk).
    Data {
        sn: u32,
        start: u64,
        len: u32,
        sdu_end: Option<Packet>,
        poll: bool,
        retx: bool,
    },
    /// A STATUS PDU (AM): every octet below `ack` is received except the `nacks` ranges
    /// listed in the `Nack` chunks that immediately follow (ACK_SN and NACK_SN/SOstart/SOend
    /// of §6.2.2.1). Split this way, a STATUS of any length needs no allocation and keeps
    /// `Chunk` small.
    Status { ack: u64, nacks: u32 },
    /// A missing range [start, end) of the STATUS PDU before it.
    Nack { start: u64, end: u64 },
    /// Our substitute for radio link failure (not in 36.322): the transmitter discarded every
    /// SDU below stream octet `below` (an SDU end) after maxRetxThreshold; the receiver
    /// delivers what is complete below it, drops the rest and continues from `below`.
    Discard { below: u64 },
}

#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct LteRlcStats {
    /// New data PDUs sent (AMD or UMD).
    pub pdus_sent: u64,
    /// Retransmissions: AMD PDUs or AMD PDU segments (one per SN piece re-sent).
    pub pdus_retransmitted: u64,
    /// SDU octets (PDCP headers included) sent for the first time.
    pub bytes_sent: u64,
    /// SDU octets retransmitted.
    pub bytes_retransmitted: u64,
    /// Every octet `poll_transmit` used: data, RLC headers, STATUS and discard notices.
    pub octets_used: u64,
    pub status_sent: u64,
    pub polls_sent: u64,
    pub poll_retransmit_expiries: u64,
    /// maxRetxThreshold reached (each a discard in place of a radio link failure).
    pub max_retx_reached: u64,
    pub discard_notices_sent: u64,
    /// Own SDUs discarded after maxRetxThreshold (returned by `drain_dropped`).
    pub sdus_discarded: u64,
    /// The peer's SDUs delivered in order.
    pub sdus_delivered: u64,
    /// The peer's SDUs the receiver dropped incomplete: skipped by a UM t-Reordering expiry
    /// or by a discard notice (counted when the receiver knows them: their last octet came).
    pub rx_sdus_lost: u64,
    /// Octets received that were already received or already passed by the receiver.
    pub duplicates_received: u64,
    pub t_reordering_expiries: u64,
}

/// Sorted, non-overlapping, coalesced ranges [start, end) of stream octets.
#[derive(Debug, Clone, Default)]
struct RangeSet {
    r: VecDeque<(u64, u64)>,
}

impl RangeSet {
    fn is_empty(&self) -> bool {
        self.r.is_empty()
    }

    fn first(&self) -> Option<(u64, u64)> {
        self.r.front().copied()
    }

    /// Index of the first range ending after `x`.
    fn idx_after(&self, x: u64) -> usize {
        self.r.partition_point(|&(_, e)| e <= x)
    }

    /// Add [a, b); returns the octets that were not in the set.
    // Inlined for its in-order fast path: the receiver calls it once per data chunk.
    #[inline(always)]
    fn insert(&mut self, a: u64, b: u64) -> u64 {
        if a >= b {
            return 0;
        }
        // In-order arrivals land at or past the last range: append or grow it without the
        // general search, insert and drain (the same result: a range starting at or after
        // the last one's start can touch no other).
        match self.r.back_mut() {
            None => {
                self.r.push_back((a, b));
                return b - a;
            }
            Some(last) if last.1 < a => {
                self.r.push_back((a, b));
                return b - a;
            }
            Some(last) if last.0 <= a => {
                let covered = last.1.min(b) - a;
                last.1 = last.1.max(b);
                return (b - a) - covered;
            }
            Some(_) => {}
        }
        self.insert_general(a, b)
    }

    /// `insert` of a range starting before the last one's start (a < b).
    #[inline(never)]
    fn insert_general(&mut self, a: u64, b: u64) -> u64 {
        // Ranges ending before `a` stay apart; those touching or overlapping [a, b) merge.
        let i = self.r.partition_point(|&(_, e)| e < a);
        let (mut lo, mut hi, mut covered) = (a, b, 0);
        let mut j = i;
        while j < self.r.len() && self.r[j].0 <= b {
            let (s, e) = self.r[j];
            covered += e.min(b).saturating_sub(s.max(a));
            lo = lo.min(s);
            hi = hi.max(e);
            j += 1;
        }
        if j == i {
            self.r.insert(i, (a, b));
        } else {
            self.r[i] = (lo, hi);
            self.r.drain(i + 1..j);
        }
        (b - a) - covered
    }

    /// Remove [a, b).
    fn remove(&mut self, a: u64, b: u64) {
        if a >= b {
            return;
        }
        let mut i = self.idx_after(a);
        while i < self.r.len() {
            let (s, e) = self.r[i];
            if s >= b {
                break;
            }
            if s < a && e > b {
                self.r[i].1 = a;
                self.r.insert(i + 1, (b, e));
                return;
            }
            if s < a {
                self.r[i].1 = a;
                i += 1;
            } else if e > b {
                self.r[i].0 = b;
                return;
            } else {
                self.r.remove(i);
            }
        }
    }

    #[inline]
    fn remove_below(&mut self, x: u64) {
        while self.r.front().is_some_and(|&(_, e)| e <= x) {
            self.r.pop_front();
        }
        if let Some(f) = self.r.front_mut() {
            f.0 = f.0.max(x);
        }
    }

    #[inline]
    fn contains(&self, a: u64, b: u64) -> bool {
        a >= b
            || self
                .r
                .get(self.idx_after_front(a))
                .is_some_and(|&(s, e)| s <= a && e >= b)
    }

    /// [`RangeSet::idx_after`], first trying the front range: the receiver asks about the
    /// delivery point, which the first range usually holds.
    #[inline]
    fn idx_after_front(&self, x: u64) -> usize {
        match self.r.front() {
            Some(&(_, e)) if e > x => 0,
            _ => self.idx_after(x),
        }
    }

    /// The first octet at or after `x` not in the set.
    #[inline]
    fn first_missing_from(&self, x: u64) -> u64 {
        match self.r.get(self.idx_after_front(x)) {
            Some(&(s, e)) if s <= x => e,
            _ => x,
        }
    }

    /// The start of the first range starting after `x` (u64::MAX if none).
    fn next_start_after(&self, x: u64) -> u64 {
        let i = self.r.partition_point(|&(s, _)| s <= x);
        self.r.get(i).map_or(u64::MAX, |&(s, _)| s)
    }
}

#[derive(Debug, Clone, Copy)]
struct TxSdu {
    start: u64,
    end: u64,
    packet: Packet,
}

/// A data PDU sent and not yet passed by the ack point (AM): its SN and stream range.
#[derive(Debug, Clone, Copy)]
struct TxPdu {
    sn: u32,
    start: u64,
    end: u64,
    /// RETX_COUNT (§5.2.1): None until first considered for retransmission.
    retx_count: Option<u32>,
}

#[derive(Debug, Clone, Copy)]
struct DiscardNotice {
    below: u64,
    /// To be (re)sent at the next opportunity.
    send: bool,
}

/// One end of an LTE RLC bearer.
///
/// The fields are laid out by use, in cache lines (`repr(C)`, aligned to a line): the cell
/// asks every entity it touched, every TTI, for its buffer status, its timers and whether
/// it has anything to send (`after_rlc`), and those answers come from the first two lines;
/// the receiver's, the transmitter's and the rarely read fields follow. Rust's own order
/// spread those answers over six lines of the 664-byte entity, and the simulated D1 misses
/// of the cell moved by a percent with each field added.
#[derive(Debug, Clone)]
#[repr(C, align(64))]
pub struct LteRlcEntity {
    // ---- line 0: what the cell asks about every TTI ----
    /// `buffer_status()` as last computed; `BO_STALE` after any change to the entity. The
    /// schedulers ask for it every TTI for every UE with data, and it changes only when the
    /// entity is acted on (an SDU, a grant, a block, a timer).
    bo: Cell<u64>,
    /// First stream octet never sent.
    next_new: u64,
    /// End of the last SDU offered.
    stream_end: u64,
    poll_retransmit_at: Option<Time>,
    status_prohibit_until: Option<Time>,
    /// `p.mode == RlcMode::Am`, here so that the questions above need not read `p`.
    am: bool,
    status_triggered: bool,
    /// A poll is due on the next data PDU (t-PollRetransmit expired, §5.2.2.3).
    poll_triggered: bool,
    // ---- line 1: the rest of those questions ----
    /// t-Reordering: (deadline, VR(X) as an octet).
    reordering: Option<(Time, u64)>,
    discard: Option<DiscardNotice>,
    dropped: Vec<Packet>,
    // ---- line 2: the retransmissions pending (asked about too), the receiver ----
    /// AM: octets considered for retransmission and not yet re-sent.
    retx: RangeSet,
    /// Octets received at or above `rx_next`.
    received: RangeSet,
    /// Delivery point: every octet below is delivered or given up.
    rx_next: u64,
    /// One past the highest octet received (VR(H) / VR(UH)).
    rx_h: u64,
    /// AM: VR(MS), the lowest octet a STATUS may not yet report as missing.
    rx_ms: u64,
    /// VT(S) (AM) / VT(US) (UM): the SN of the next new PDU.
    vt_s: u32,
    pdu_without_poll: u32,
    /// Index in `sdus` of the SDU holding `next_new` (sdus.len() when all is sent).
    unsent_idx: usize,
    /// NR: what the SDUs of which nothing is sent yet add to the buffer status (a PDU each,
    /// header and MAC subheader included), kept as they come and go so that the buffer
    /// status does not read every queued SDU, each a likely cache miss.
    nr_unstarted_cost: u64,
    /// NR: the end of the SDU that `next_new` lies inside once its first segment is sent
    /// (then `next_new` < this); at or below `next_new` otherwise.
    nr_seg_end: u64,
    byte_without_poll: u64,
    // ---- the transmitter's queues ----
    /// SDUs from the oldest not fully acknowledged (AM) / not fully sent (UM).
    sdus: VecDeque<TxSdu>,
    /// AM: PDUs in [VT(A), VT(S)), in SN order; their ranges tile the stream up to next_new.
    pdus: VecDeque<TxPdu>,
    /// Range of the PDU POLL_SN = VT(S) - 1 when the last poll went out.
    poll_range: (u64, u64),
    /// A poll waits until VR(MS) passes this octet (§5.2.3).
    delayed_poll: Option<u64>,
    /// AM: octets positively acknowledged above `ack_floor`.
    acked: RangeSet,
    /// SDU ends known above `rx_next` (their last octet arrived), sorted by end.
    ends: VecDeque<(u64, Packet)>,
    delivered: Vec<Packet>,
    /// AM: the SN of `pdus.front()` (VT(A)) while `pdus` is not empty. Kept beside the deque
    /// because the window check of every new PDU needs it and the oldest record is long out
    /// of cache by then (perf put 14 % of the NR new-PDU path on that one load).
    front_sn: u32,
    /// AM: every octet below is positively acknowledged (or discarded).
    ack_floor: u64,
    p: LteRlcParams,
    stats: LteRlcStats,
}

/// `LteRlcEntity::bo` when it must be recomputed.
const BO_STALE: u64 = u64::MAX;

impl LteRlcEntity {
    /// Panics on invalid parameters (the configuration layer validates them first).
    pub fn new(p: LteRlcParams) -> Self {
        if let Err(e) = p.validate() {
            panic!("invalid LTE RLC parameters: {e:?}");
        }
        Self {
            am: p.mode == RlcMode::Am,
            p,
            stats: LteRlcStats::default(),
            sdus: VecDeque::new(),
            unsent_idx: 0,
            next_new: 0,
            stream_end: 0,
            vt_s: 0,
            nr_unstarted_cost: 0,
            nr_seg_end: 0,
            pdus: VecDeque::new(),
            front_sn: 0,
            ack_floor: 0,
            acked: RangeSet::default(),
            retx: RangeSet::default(),
            pdu_without_poll: 0,
            byte_without_poll: 0,
            poll_triggered: false,
            poll_range: (0, 0),
            poll_retransmit_at: None,
            discard: None,
            dropped: Vec::new(),
            rx_next: 0,
            rx_h: 0,
            rx_ms: 0,
            received: RangeSet::default(),
            ends: VecDeque::new(),
            reordering: None,
            status_triggered: false,
            delayed_poll: None,
            status_prohibit_until: None,
            delivered: Vec::new(),
            bo: Cell::new(BO_STALE),
        }
    }

    pub fn params(&self) -> &LteRlcParams {
        &self.p
    }

    pub fn stats(&self) -> &LteRlcStats {
        &self.stats
    }

    fn am(&self) -> bool {
        self.am
    }

    /// Octets an SDU occupies in the stream: the packet and its PDCP header (at least one, so
    /// that every SDU has a last octet to carry its end).
    fn sdu_octets(&self, pkt: &Packet) -> u64 {
        (pkt.size as u64 + self.p.pdcp_header_bytes as u64).max(1)
    }

    // ------------------------------------------------------------------------------------
    // Upper-layer side
    // ------------------------------------------------------------------------------------

    /// Take an SDU (a PDCP PDU: the packet and its PDCP header) into the transmission buffer.
    /// The buffer is unbounded: limits and disciplines are the caller's.
    pub fn offer_sdu(&mut self, _now: Time, pkt: Packet) {
        self.offer_sdu_ref(&pkt);
    }

    /// `offer_sdu` with the packet by reference, for a driver moving SDUs in from a queue of
    /// its own (copied once, into the transmitter's queue, not through the stack first);
    /// returns `LteRlcParams::sdu_cost` of the SDU, which that driver counts against its
    /// grant and which the NR flavour adds to its buffer status anyway: computed once.
    #[inline]
    pub fn offer_sdu_ref(&mut self, pkt: &Packet) -> u64 {
        self.bo.set(BO_STALE);
        let start = self.stream_end;
        let octets = self.sdu_octets(pkt);
        let end = start + octets;
        let cost = if self.p.concatenation {
            octets + self.p.li_bytes as u64
        } else {
            let c = self.nr_pdu_cost(self.p.rlc_header_bytes, octets);
            self.nr_unstarted_cost += c;
            c
        };
        debug_assert_eq!(cost, self.p.sdu_cost(pkt.size));
        self.sdus.push_back(TxSdu {
            start,
            end,
            packet: *pkt,
        });
        self.stream_end = end;
        cost
    }

    /// SDUs held by the transmitter: not yet fully acknowledged (AM) or not fully sent (UM).
    pub fn sdus_queued(&self) -> usize {
        self.sdus.len()
    }

    /// Octets of SDU data (PDCP headers included) never sent.
    pub fn new_data_bytes(&self) -> u64 {
        self.stream_end - self.next_new
    }

    /// Buffer occupancy (36.322 §4.5): the octets a grant needs to send everything pending in
    /// one go, headers included: a STATUS PDU if one is due and t-StatusProhibit is not
    /// running, a discard notice, the retransmissions (one AMD PDU or segment per SN piece,
    /// with their LIs) and one new PDU with all new data. `poll_transmit` with a grant of this size
    /// uses exactly this many octets (unless the transmitting window stalls).
    #[inline]
    pub fn buffer_status(&self) -> u64 {
        let bo = self.bo.get();
        if bo != BO_STALE {
            debug_assert_eq!(bo, self.compute_buffer_status(), "stale buffer status");
            return bo;
        }
        // The flavour is told here, where `compute_buffer_status` would tell it anyway: each
        // recomputation is then one call.
        if self.p.concatenation {
            self.refresh_buffer_status()
        } else {
            self.nr_refresh_buffer_status()
        }
    }

    /// The cache miss of `buffer_status`, out of line so that the hit inlines into the
    /// callers that ask every TTI.
    #[inline(never)]
    fn refresh_buffer_status(&self) -> u64 {
        let n = self.compute_buffer_status();
        self.bo.set(n);
        n
    }

    /// `refresh_buffer_status` in the NR flavour, with `nr_buffer_status` inlined: one call
    /// per recomputation instead of two, and the LTE path keeps its own frame.
    #[inline(never)]
    fn nr_refresh_buffer_status(&self) -> u64 {
        let n = self.nr_buffer_status();
        self.bo.set(n);
        n
    }

    fn compute_buffer_status(&self) -> u64 {
        if !self.p.concatenation {
            return self.nr_buffer_status();
        }
        let mut n = 0u64;
        if self.am() {
            if self.status_due() {
                n += self.p.status_header_bytes as u64
                    + self.p.nack_bytes as u64 * self.status_hole_count() as u64;
            }
            if self.discard.is_some_and(|d| d.send) {
                n += DISCARD_NOTICE_BYTES as u64;
            }
            // Usually nothing to retransmit: the deque's iterator is not even set up.
            if !self.retx.is_empty() {
                for &(a, b) in &self.retx.r {
                    let mut x = a;
                    let mut pi = self.pdu_index(x);
                    while x < b {
                        let pdu = self.pdus[pi];
                        let ue = b.min(pdu.end);
                        n += self.unit_cost(x, ue, self.retx_header(x, ue, &pdu));
                        x = ue;
                        pi += 1;
                    }
                }
            }
        }
        if self.next_new < self.stream_end {
            let pieces = (self.sdus.len() - self.unsent_idx) as u64;
            n += self.p.rlc_header_bytes as u64
                + (self.stream_end - self.next_new)
                + self.p.li_bytes as u64 * (pieces - 1);
        }
        n
    }

    /// In-order SDUs delivered since the last call (appended to `out`).
    pub fn drain_delivered(&mut self, out: &mut Vec<Packet>) {
        if out.is_empty() {
            // The driver's usual case (it empties `out` first): the buffers change hands
            // instead of every packet being copied.
            std::mem::swap(out, &mut self.delivered);
        } else {
            out.extend_from_slice(&self.delivered);
            self.delivered.clear();
        }
    }

    /// Whether `drain_dropped` has anything to hand over: the driver asks after every block,
    /// grant and SDU, and a discard is rare.
    #[inline]
    pub fn has_dropped(&self) -> bool {
        !self.dropped.is_empty()
    }

    /// SDUs this transmitter discarded after maxRetxThreshold since the last call.
    pub fn drain_dropped(&mut self, out: &mut Vec<Packet>) {
        out.extend_from_slice(&self.dropped);
        self.dropped.clear();
    }

    /// The earliest running timer that has something to do: t-PollRetransmit, t-Reordering,
    /// and t-StatusProhibit while a STATUS waits for it.
    pub fn poll_timeout(&self) -> Option<Time> {
        // The minimum taken by hand: the driver asks after every block, grant and SDU.
        let min = |a: Option<Time>, b: Time| Some(a.map_or(b, |a| a.min(b)));
        let mut t = self.poll_retransmit_at;
        if let Some((r, _)) = self.reordering {
            t = min(t, r);
        }
        if let Some(p) = self.status_prohibit_until.filter(|_| self.status_triggered) {
            t = min(t, p);
        }
        t
    }

    /// Nothing to send, nothing unacknowledged, no timer with work to do.
    /// Whether a grant now would carry anything: `buffer_status() > 0` in O(1), for a driver
    /// that asks every TTI.
    pub fn has_data_to_send(&self) -> bool {
        // New data first: usually there is some, and the rest need not be read.
        self.next_new < self.stream_end
            || (self.am()
                && (self.status_due()
                    || self.discard.is_some_and(|d| d.send)
                    || !self.retx.r.is_empty()))
    }

    pub fn is_idle(&self) -> bool {
        self.sdus.is_empty()
            && self.retx.is_empty()
            && self.discard.is_none()
            && self.poll_retransmit_at.is_none()
            && !self.status_triggered
            && self.delayed_poll.is_none()
            && self.reordering.is_none()
    }

    // ------------------------------------------------------------------------------------
    // Timers
    // ------------------------------------------------------------------------------------

    /// Run every timer due at `now` (those restarted by an expiry and due again too).
    #[inline]
    pub fn handle_timeout(&mut self, now: Time) {
        // Usually none is: the entity calls this on every block and grant. The buffer status
        // stays valid when none is.
        let due = |t: Option<Time>| t.is_some_and(|t| t <= now);
        if due(self.poll_retransmit_at)
            || due(self.reordering.map(|(t, _)| t))
            || due(self.status_prohibit_until)
        {
            self.run_timers(now);
        }
    }

    #[inline(never)]
    fn run_timers(&mut self, now: Time) {
        self.bo.set(BO_STALE);
        loop {
            let mut fired = false;
            if self.poll_retransmit_at.is_some_and(|t| t <= now) {
                self.poll_retransmit_at = None;
                self.expire_poll_retransmit();
                fired = true;
            }
            if let Some((t, x)) = self.reordering.filter(|&(t, _)| t <= now) {
                self.reordering = None;
                self.expire_reordering(t, x);
                fired = true;
            }
            if self.status_prohibit_until.is_some_and(|t| t <= now) {
                self.status_prohibit_until = None;
            }
            if !fired {
                break;
            }
        }
    }

    /// t-PollRetransmit expired (§5.2.2.3).
    fn expire_poll_retransmit(&mut self) {
        self.stats.poll_retransmit_expiries += 1;
        if let Some(d) = self.discard.as_mut() {
            // The discard notice or the STATUS confirming it was lost: send it again.
            d.send = true;
        }
        if self.sdus.is_empty() {
            return;
        }
        self.poll_triggered = true;
        if (self.retx.is_empty() && self.next_new == self.stream_end) || self.window_stalled() {
            // "consider the AMD PDU with SN = VT(S) - 1 for retransmission; or consider any
            // AMD PDU which has not been positively acknowledged for retransmission".
            let unacked = |p: &TxPdu| {
                let s = p.start.max(self.ack_floor);
                s < p.end && !self.acked.contains(s, p.end)
            };
            let pick = match self.pdus.back() {
                Some(last) if unacked(last) => Some(*last),
                _ => self.pdus.iter().find(|p| unacked(p)).copied(),
            };
            if let Some(p) = pick {
                let mut counted = None;
                let mut failed = None;
                self.consider_for_retx(
                    p.start.max(self.ack_floor),
                    p.end,
                    &mut counted,
                    &mut failed,
                );
                if let Some(end) = failed {
                    self.discard_through(end);
                }
            }
        }
    }

    /// t-Reordering expired (AM §5.1.3.2.4, UM §5.1.2.2.4).
    fn expire_reordering(&mut self, t: Time, x: u64) {
        self.stats.t_reordering_expiries += 1;
        let x = x.max(self.rx_next);
        if self.am() {
            // VR(MS) := the first octet at or above VR(X) not received; the gaps below it
            // may now be reported as missing.
            self.rx_ms = self.rx_ms.max(self.received.first_missing_from(x));
            if self.rx_h > self.rx_ms {
                self.reordering = Some((t + self.p.t_reordering, self.rx_h));
            }
            self.status_triggered = true;
            self.check_delayed_poll();
        } else {
            // VR(UR) := the first octet at or above VR(UX) not received: SDUs below it are
            // delivered if complete, discarded otherwise.
            let p = self.received.first_missing_from(x);
            self.skip_to(p);
            if self.rx_h > p {
                self.reordering = Some((t + self.p.t_reordering, self.rx_h));
            }
        }
    }

    // ------------------------------------------------------------------------------------
    // Transmitter
    // ------------------------------------------------------------------------------------

    /// Fill a grant of `op` octets (`TxOpportunity::Bytes`): a STATUS PDU first, then (our addition) a discard
    /// notice, then retransmissions lowest octet first, then one new PDU (§5.1.3.1.1: control
    /// PDUs before retransmissions before new PDUs). The chunks are appended to `out` (never
    /// cleared); returns the octets used, never more than the grant. Poll bits follow §5.2.2.1.
    pub fn poll_transmit(&mut self, now: Time, op: TxOpportunity, out: &mut Vec<Chunk>) -> u32 {
        if !self.p.concatenation {
            return self.nr_poll_transmit(now, op, out);
        }
        self.bo.set(BO_STALE);
        self.handle_timeout(now);
        let grant_bytes = op.octets();
        let mut room = grant_bytes;
        if self.am() {
            if self.status_due() {
                room -= self.build_status(now, room, out);
            }
            room -= self.discard_notice(now, room, DISCARD_NOTICE_BYTES, out);
            if !self.retx.is_empty() {
                room -= self.build_retx(now, room, out);
            }
        }
        room -= self.build_new(now, room, out);
        if self.sdus.is_empty() {
            // Nothing unacknowledged: nothing to poll about.
            self.poll_triggered = false;
        }
        let used = grant_bytes - room;
        self.stats.octets_used += used as u64;
        used
    }

    /// Our discard notice, if one is to be sent and `cost` octets fit: returns the octets used.
    #[inline]
    fn discard_notice(&mut self, now: Time, room: u32, cost: u32, out: &mut Vec<Chunk>) -> u32 {
        let Some(d) = self.discard.filter(|d| d.send) else {
            return 0;
        };
        if room < cost {
            return 0;
        }
        out.push(Chunk::Discard { below: d.below });
        self.discard = Some(DiscardNotice {
            below: d.below,
            send: false,
        });
        self.stats.discard_notices_sent += 1;
        // t-PollRetransmit guards the notice too: if neither it nor a STATUS confirming it
        // arrives, it is sent again at the expiry.
        if self.poll_retransmit_at.is_none() {
            self.poll_retransmit_at = Some(now + self.p.t_poll_retransmit);
        }
        cost
    }

    /// VT(A): the SN of the oldest PDU not yet passed by the ack point.
    fn vt_a(&self) -> u32 {
        if self.pdus.is_empty() {
            self.vt_s
        } else {
            debug_assert_eq!(Some(self.front_sn), self.pdus.front().map(|p| p.sn));
            self.front_sn
        }
    }

    fn window_stalled(&self) -> bool {
        self.am() && self.vt_s >= self.vt_a() + self.p.am_window_size
    }

    fn sdu_index(&self, x: u64) -> usize {
        self.sdus.partition_point(|s| s.end <= x)
    }

    fn pdu_index(&self, x: u64) -> usize {
        self.pdus.partition_point(|p| p.end <= x)
    }

    /// Octets of a unit (a PDU or a PDU segment) carrying stream octets [a, b) with header
    /// `hdr`: one LI per SDU boundary inside.
    fn unit_cost(&self, a: u64, b: u64, hdr: u32) -> u64 {
        let pieces = (self.sdu_index(b - 1) - self.sdu_index(a) + 1) as u64;
        hdr as u64 + (b - a) + self.p.li_bytes as u64 * (pieces - 1)
    }

    /// A retransmission of the whole PDU goes as an AMD PDU; a part as an AMD PDU segment
    /// with its SO (§5.2.1, §6.2.1.5).
    fn retx_header(&self, a: u64, b: u64, pdu: &TxPdu) -> u32 {
        if a == pdu.start && b == pdu.end {
            self.p.rlc_header_bytes
        } else {
            self.p.segment_header_bytes
        }
    }

    /// Append the chunks of one unit of PDU `sn`: stream octets from `range.0` up to at most
    /// `range.1`, one chunk per SDU piece, each further SDU piece costing an LI, within
    /// `room` (> hdr). `i` is `sdu_index(range.0)`. Returns the octets used, the end `x` of
    /// the octets taken and `sdu_index(x)`.
    #[allow(clippy::too_many_arguments)]
    fn emit_unit(
        &self,
        sn: u32,
        range: (u64, u64),
        mut i: usize,
        hdr: u32,
        room: u32,
        retx: bool,
        out: &mut Vec<Chunk>,
    ) -> (u32, u64, usize) {
        debug_assert!(room > hdr);
        let (a, b) = range;
        debug_assert_eq!(i, self.sdu_index(a));
        let mut space = room - hdr;
        let mut used = hdr;
        let mut x = a;
        loop {
            let s = &self.sdus[i];
            let take = (s.end.min(b) - x).min(space as u64);
            let end = x + take;
            // The packet is written into the pushed chunk (a chunk built with it would be
            // copied once more).
            out.push(Chunk::Data {
                sn,
                start: x,
                len: take as u32,
                sdu_end: None,
                poll: false,
                retx,
            });
            if end == s.end {
                if let Some(Chunk::Data { sdu_end, .. }) = out.last_mut() {
                    *sdu_end = Some(s.packet);
                }
            }
            used += take as u32;
            space -= take as u32;
            x = end;
            // The next SDU's piece needs its LI and at least one octet.
            if x >= b || space <= self.p.li_bytes {
                // The SDU holding `x`: this one unless its last octet went.
                let next = if x == s.end { i + 1 } else { i };
                return (used, x, next);
            }
            space -= self.p.li_bytes;
            used += self.p.li_bytes;
            i += 1;
        }
    }

    /// Retransmissions, lowest octet first, one AMD PDU or segment per SN piece, re-segmented
    /// to the room left (§5.2.1).
    fn build_retx(&mut self, now: Time, room: u32, out: &mut Vec<Chunk>) -> u32 {
        let mut used = 0;
        while let Some((a, b)) = self.retx.first() {
            let left = room - used;
            let pdu = self.pdus[self.pdu_index(a)];
            let ue = b.min(pdu.end);
            let hdr = self.retx_header(a, ue, &pdu);
            let fits = self.unit_cost(a, ue, hdr) <= left as u64;
            let hdr = if fits {
                hdr
            } else {
                self.p.segment_header_bytes
            };
            if left <= hdr {
                break;
            }
            let i = self.sdu_index(a);
            let (u, x, _) = self.emit_unit(pdu.sn, (a, ue), i, hdr, left, true, out);
            used += u;
            self.retx.remove(a, x);
            self.stats.pdus_retransmitted += 1;
            self.stats.bytes_retransmitted += x - a;
            self.poll_check(now, None, out);
            if x < ue {
                break;
            }
        }
        used
    }

    /// One new PDU with as much new data as the room holds (§5.1.3.1.1, §5.1.2.1.1).
    fn build_new(&mut self, now: Time, room: u32, out: &mut Vec<Chunk>) -> u32 {
        let hdr = self.p.rlc_header_bytes;
        if self.next_new >= self.stream_end || room <= hdr {
            return 0;
        }
        // The window's end, kept for the poll check below: the PDU this builds leaves VT(A)
        // as it is (the oldest PDU stays, or this one, whose SN is VT(S) = VT(A), becomes it).
        let window_end = self.vt_a() + self.p.am_window_size;
        let am = self.am();
        if am && self.vt_s >= window_end {
            return 0;
        }
        let sn = self.vt_s;
        self.vt_s += 1;
        let a = self.next_new;
        // `unsent_idx` is `sdu_index(next_new)`, kept so by every change to either.
        let i = self.unsent_idx;
        let (used, x, next) = self.emit_unit(sn, (a, self.stream_end), i, hdr, room, false, out);
        self.next_new = x;
        self.stats.pdus_sent += 1;
        self.stats.bytes_sent += x - a;
        if am {
            if self.pdus.is_empty() {
                self.front_sn = sn;
            }
            self.pdus.push_back(TxPdu {
                sn,
                start: a,
                end: x,
                retx_count: None,
            });
            let stalled = self.vt_s >= window_end;
            debug_assert_eq!(stalled, self.window_stalled());
            self.poll_check_stalled(now, Some(x - a), stalled, out);
        } else {
            // UM: an SDU leaves the buffer once sent.
            while self.sdus.front().is_some_and(|s| s.end <= x) {
                self.sdus.pop_front();
            }
        }
        self.unsent_idx = if am {
            // The SDUs stay: the index found by `emit_unit` holds.
            next
        } else {
            self.sdu_index(self.next_new)
        };
        debug_assert_eq!(self.unsent_idx, self.sdu_index(self.next_new));
        used
    }

    /// §5.2.2.1: decide the P bit of the unit just appended to `out` (a new PDU with
    /// `new_bytes` data octets, or a retransmission).
    // Inlined into the LTE paths as it was before the NR flavour added two more callers
    // (a measurable share of the LTE cell's instructions otherwise).
    #[inline(always)]
    fn poll_check(&mut self, now: Time, new_bytes: Option<u64>, out: &mut [Chunk]) {
        let stalled = self.window_stalled();
        self.poll_check_stalled(now, new_bytes, stalled, out);
    }

    /// `poll_check` with `window_stalled()` given by a caller that tracks it.
    #[inline(always)]
    fn poll_check_stalled(
        &mut self,
        now: Time,
        new_bytes: Option<u64>,
        stalled: bool,
        out: &mut [Chunk],
    ) {
        let mut poll = self.poll_triggered;
        if let Some(bytes) = new_bytes {
            self.pdu_without_poll += 1;
            self.byte_without_poll += bytes;
            poll |= self.pdu_without_poll >= self.p.poll_pdu
                || self.byte_without_poll >= self.p.poll_byte;
        }
        // "both the transmission buffer and the retransmission buffer becomes empty", or "no
        // new RLC data PDU can be transmitted" (window stalling).
        poll |= self.retx.is_empty() && self.next_new == self.stream_end;
        poll |= stalled;
        if !poll {
            return;
        }
        if let Some(Chunk::Data { poll, .. }) = out.last_mut() {
            *poll = true;
        }
        self.pdu_without_poll = 0;
        self.byte_without_poll = 0;
        self.poll_triggered = false;
        // POLL_SN = VT(S) - 1; t-PollRetransmit started or restarted.
        if let Some(last) = self.pdus.back() {
            self.poll_range = (last.start, last.end);
        }
        self.poll_retransmit_at = Some(now + self.p.t_poll_retransmit);
        self.stats.polls_sent += 1;
    }

    /// Queue the octets of [s, e) that are neither acknowledged nor already pending, and
    /// count RETX_COUNT once per PDU and event (§5.2.1: "if it ... is not pending for
    /// retransmission already"). `counted` is the highest SN counted in this event; `failed`
    /// collects the end of the last PDU that reached maxRetxThreshold.
    fn consider_for_retx(
        &mut self,
        s: u64,
        e: u64,
        counted: &mut Option<u32>,
        failed: &mut Option<u64>,
    ) {
        let mut x = s;
        while x < e {
            let y = self
                .acked
                .first_missing_from(x)
                .max(self.retx.first_missing_from(x));
            if y > x {
                x = y;
                continue;
            }
            let z = e
                .min(self.acked.next_start_after(x))
                .min(self.retx.next_start_after(x));
            self.retx.insert(x, z);
            let mut pi = self.pdu_index(x);
            while pi < self.pdus.len() && self.pdus[pi].start < z {
                let p = &mut self.pdus[pi];
                if counted.is_none_or(|c| p.sn > c) {
                    // First consideration: RETX_COUNT = 0; then one more each time.
                    let n = p.retx_count.map_or(0, |n| n + 1);
                    p.retx_count = Some(n);
                    if n >= self.p.max_retx {
                        *failed = Some(failed.map_or(p.end, |f| f.max(p.end)));
                    }
                    *counted = Some(p.sn);
                }
                pi += 1;
            }
            x = z;
        }
    }

    /// Move the ack point over acknowledged octets; release the PDUs and SDUs below it.
    /// `unsent_idx` must be `sdu_index(next_new)` on entry.
    fn advance_ack_floor(&mut self) {
        while let Some((s, e)) = self.acked.first() {
            if s > self.ack_floor {
                break;
            }
            self.ack_floor = self.ack_floor.max(e);
            self.acked.r.pop_front();
        }
        self.retx.remove_below(self.ack_floor);
        // A STATUS releases tens of PDUs and SDUs at once: found by a search and dropped in one
        // go (the elements are `Copy`: the drain only moves the deque's head), instead of
        // copying each out with `pop_front`. The ack point never passes `next_new` (a STATUS
        // acknowledges no more than was sent, a discard moves both); when it reaches it, every
        // PDU and every SDU below `unsent_idx` goes, without the searches, whose probes miss
        // the cache.
        debug_assert!(self.ack_floor <= self.next_new);
        let all = self.ack_floor >= self.next_new;
        let k = if all {
            self.pdus.len()
        } else {
            self.pdu_index(self.ack_floor)
        };
        self.pdus.drain(..k);
        if let Some(p) = self.pdus.front() {
            self.front_sn = p.sn;
        }
        // §5.1.3.1.1: an SDU is delivered once all its octets are acknowledged; here it leaves
        // the buffer when the ack point passes it (in order).
        debug_assert_eq!(self.unsent_idx, self.sdu_index(self.next_new));
        let k = if all {
            self.unsent_idx
        } else {
            self.sdu_index(self.ack_floor)
        };
        self.sdus.drain(..k);
        // The SDUs left keep their order: the one holding `next_new` moved down by `k`.
        self.unsent_idx -= k;
        debug_assert_eq!(self.unsent_idx, self.sdu_index(self.next_new));
    }

    /// maxRetxThreshold reached for the PDU ending at `pdu_end`. Real LTE declares radio link
    /// failure (§5.2.1, 36.331 §5.3.11.3); we discard every SDU from the oldest unacknowledged
    /// through the one holding the PDU's last octet, and tell the receiver to skip them.
    fn discard_through(&mut self, pdu_end: u64) {
        self.stats.max_retx_reached += 1;
        let i = self.sdu_index(pdu_end - 1);
        let x = self.sdus.get(i).map_or(self.ack_floor, |s| s.end);
        while let Some(s) = self.sdus.front().copied() {
            if s.end > x {
                break;
            }
            // An SDU whose every octet is acknowledged was received: not lost.
            let acked =
                s.end <= self.ack_floor || self.acked.contains(s.start.max(self.ack_floor), s.end);
            if !acked {
                self.dropped.push(s.packet);
                self.stats.sdus_discarded += 1;
            }
            self.sdus.pop_front();
        }
        self.ack_floor = self.ack_floor.max(x);
        self.acked.remove_below(x);
        // The unsent rest of the last discarded SDU is never sent.
        self.next_new = self.next_new.max(x);
        self.unsent_idx = self.sdu_index(self.next_new);
        self.advance_ack_floor();
        let below = self.discard.map_or(x, |d| d.below.max(x));
        self.discard = Some(DiscardNotice { below, send: true });
    }

    /// A STATUS PDU from the peer's receiver (§5.2.1, §5.2.2.2). `nacks` are its Nack chunks.
    fn on_status(&mut self, ack: u64, nacks: &[Chunk]) {
        let ranges = nacks.iter().filter_map(|c| match *c {
            Chunk::Nack { start, end } => Some((start, end)),
            _ => None,
        });
        let ack = ack.min(self.next_new);
        // Positive acknowledgements: everything below ACK_SN not listed as missing. Only ever
        // added, so a STATUS overtaken by a newer one cannot undo an acknowledgement.
        let mut x = self.ack_floor;
        for (s, e) in ranges.clone() {
            let s = s.min(ack);
            if s > x {
                self.acked.insert(x, s);
            }
            x = x.max(e.min(ack));
        }
        if ack > x {
            self.acked.insert(x, ack);
        }
        self.advance_ack_floor();
        for &(s, e) in &self.acked.r {
            self.retx.remove(s, e);
        }
        // Negative acknowledgements: consider the missing octets for retransmission once.
        let mut counted = None;
        let mut failed = None;
        for (s, e) in ranges.clone() {
            let s = s.max(self.ack_floor);
            let e = e.min(self.next_new);
            if s < e {
                self.consider_for_retx(s, e, &mut counted, &mut failed);
            }
        }
        // The receiver has skipped once it reports nothing missing below the discard point.
        if let Some(d) = self.discard {
            if ack >= d.below && ranges.clone().all(|(s, _)| s >= d.below) {
                self.discard = None;
            }
        }
        // t-PollRetransmit stops when the STATUS reports on POLL_SN (positively or not) and no
        // discard notice waits for its confirmation.
        if self.poll_retransmit_at.is_some() && self.discard.is_none() {
            let (ps, pe) = self.poll_range;
            let reported = ack >= pe || ranges.clone().any(|(s, e)| s < pe && e > ps);
            if reported || self.sdus.is_empty() {
                self.poll_retransmit_at = None;
            }
        }
        if let Some(end) = failed {
            self.discard_through(end);
        }
    }

    // ------------------------------------------------------------------------------------
    // Receiver
    // ------------------------------------------------------------------------------------

    /// The peer's chunks of one decoded transport block, in order.
    pub fn on_chunks(&mut self, now: Time, chunks: &[Chunk]) {
        self.handle_timeout(now);
        // The buffer status depends on the receiver only through a due STATUS (whether one
        // is, and its NACKs); data chunks change nothing else it counts. A block of data
        // alone with no STATUS due before or after keeps it (the usual case).
        let mut stale = self.status_due();
        let mut i = 0;
        while i < chunks.len() {
            match chunks[i] {
                Chunk::Data {
                    start,
                    len,
                    ref sdu_end,
                    poll,
                    ..
                } => self.on_data(start, len, sdu_end, poll),
                Chunk::Status { ack, nacks } => {
                    stale = true;
                    let from = (i + 1).min(chunks.len());
                    let to = (from + nacks as usize).min(chunks.len());
                    if self.am() {
                        self.on_status(ack, &chunks[from..to]);
                    }
                    i = to - 1;
                }
                Chunk::Nack { .. } => {}
                Chunk::Discard { below } => {
                    stale = true;
                    if self.am() {
                        self.skip_to(below);
                        // The peer waits for a STATUS acknowledging the skip.
                        self.status_triggered = true;
                    }
                }
            }
            i += 1;
        }
        self.after_reception(now);
        if stale || self.status_due() {
            self.bo.set(BO_STALE);
        }
        self.handle_timeout(now);
    }

    // `sdu_end` by reference: the packet is copied once, into where it goes.
    #[inline(always)]
    fn on_data(&mut self, start: u64, len: u32, sdu_end: &Option<Packet>, poll: bool) {
        let end = start + len as u64;
        if let Some(pkt) = sdu_end {
            if start == self.rx_next
                && end.saturating_sub(self.sdu_octets(pkt)) == start
                && self.received.is_empty()
                && self.ends.is_empty()
            {
                // A whole SDU at the delivery point with nothing else pending (the usual
                // case): what the general path below does, without adding its octets to
                // `received` only to drop them again. `len` > 0 (an SDU has at least one
                // octet), so all of it is new.
                self.rx_h = self.rx_h.max(end);
                self.deliver_in_order(pkt, end);
                if poll && self.am() {
                    self.delayed_poll = Some(self.delayed_poll.map_or(end, |d| d.max(end)));
                }
                return;
            }
        }
        let a = start.max(self.rx_next);
        let new = if a < end {
            self.received.insert(a, end)
        } else {
            0
        };
        self.stats.duplicates_received += len as u64 - new;
        if end > self.rx_next {
            self.rx_h = self.rx_h.max(end);
            if let Some(pkt) = sdu_end {
                let s = end.saturating_sub(self.sdu_octets(pkt));
                if self.ends.is_empty()
                    && s == self.rx_next
                    && self
                        .received
                        .first()
                        .is_some_and(|(a, b)| a <= s && b >= end)
                {
                    // In order and complete (the usual case): delivered at once, as `deliver`
                    // would after the block with this the only known end, without the trip
                    // through `ends`.
                    self.deliver_in_order(pkt, end);
                    self.received.remove_below(end);
                } else if self.ends.back().is_none_or(|&(e, _)| e < end) {
                    // In order: past every known end, appended without a search.
                    self.ends.push_back((end, *pkt));
                } else {
                    let pos = self.ends.partition_point(|&(e, _)| e < end);
                    if self.ends.get(pos).is_none_or(|&(e, _)| e != end) {
                        self.ends.insert(pos, (end, *pkt));
                    }
                }
            }
        }
        if poll && self.am() {
            // §5.2.3: a poll on a PDU to be discarded (a duplicate) triggers a STATUS at once;
            // otherwise once VR(MS) has passed the polled data (no report of a gap that
            // HARQ may still fill).
            if new == 0 {
                self.status_triggered = true;
            } else {
                self.delayed_poll = Some(self.delayed_poll.map_or(end, |d| d.max(end)));
            }
        }
    }

    /// Deliver the SDU `pkt` ending at `end`, which starts at the delivery point and is
    /// complete: the delivery point moves past it.
    #[inline(always)]
    fn deliver_in_order(&mut self, pkt: &Packet, end: u64) {
        self.delivered.push(*pkt);
        self.stats.sdus_delivered += 1;
        self.rx_next = end;
    }

    /// After a transport block: deliver, update VR(MS), run the t-Reordering start/stop rules
    /// (AM §5.1.3.2.3, UM §5.1.2.2.3) and the delayed poll.
    fn after_reception(&mut self, now: Time) {
        self.deliver();
        let c = self.received.first_missing_from(self.rx_next);
        if self.am() {
            // Every octet in [rx_next, c) is in and c is not: from any point there the first
            // missing octet is c (the usual case, no second search).
            let x = self.rx_ms.max(self.rx_next);
            self.rx_ms = if x <= c {
                c
            } else {
                self.received.first_missing_from(x)
            };
        }
        // Stop when every octet below VR(X) is in; start when a gap lies below VR(H).
        if self.reordering.is_some_and(|(_, x)| x <= c) {
            self.reordering = None;
        }
        if self.reordering.is_none() && self.rx_h > c {
            self.reordering = Some((now + self.p.t_reordering, self.rx_h));
        }
        self.check_delayed_poll();
    }

    fn check_delayed_poll(&mut self) {
        if self.delayed_poll.is_some_and(|d| d <= self.rx_ms) {
            self.delayed_poll = None;
            self.status_triggered = true;
        }
    }

    /// Deliver complete SDUs at the delivery point, in order (§5.1.3.2.3 / §5.1.2.2.3
    /// "reassemble RLC SDUs ... and deliver to upper layer in ascending order").
    #[inline]
    fn deliver(&mut self) {
        // Usually nothing waits: in-order SDUs went up in `on_data`.
        if !self.ends.is_empty() {
            self.deliver_waiting();
        }
    }

    #[inline(never)]
    fn deliver_waiting(&mut self) {
        let from = self.rx_next;
        // The octets received without a gap from the delivery point end at `upto`, and the
        // set does not change below: an SDU starting at the delivery point is complete iff
        // it ends there or below (what `received.contains` would say, without a search per
        // SDU).
        let mut upto = self.received.first_missing_from(self.rx_next);
        while let Some(&(e, ref pkt)) = self.ends.front() {
            let s = e.saturating_sub(self.sdu_octets(pkt));
            if s < self.rx_next {
                // Its head was skipped by a t-Reordering expiry: incomplete for good.
                self.stats.rx_sdus_lost += 1;
                if e > upto {
                    // The delivery point jumps past the run: find the next one.
                    upto = self.received.first_missing_from(e);
                }
            } else if s == self.rx_next && e <= upto {
                self.delivered.push(*pkt);
                self.stats.sdus_delivered += 1;
            } else {
                break;
            }
            self.ends.pop_front();
            self.rx_next = e;
        }
        // Once for the whole run of SDUs: dropping the octets below each in turn ends in the
        // same set, and `contains` above never looks below the delivery point.
        if self.rx_next != from {
            self.received.remove_below(self.rx_next);
        }
    }

    /// Give up every octet below `p`: SDUs ending at or below it are delivered if complete and
    /// dropped otherwise (UM t-Reordering expiry; AM discard notice).
    fn skip_to(&mut self, p: u64) {
        if p <= self.rx_next {
            return;
        }
        while let Some(&(e, pkt)) = self.ends.front() {
            if e > p {
                break;
            }
            let s = e.saturating_sub(self.sdu_octets(&pkt));
            if s >= self.rx_next && self.received.contains(s, e) {
                self.delivered.push(pkt);
                self.stats.sdus_delivered += 1;
            } else {
                self.stats.rx_sdus_lost += 1;
            }
            self.ends.pop_front();
            self.rx_next = e;
        }
        self.rx_next = p;
        self.received.remove_below(p);
        self.rx_h = self.rx_h.max(p);
        self.rx_ms = self.rx_ms.max(p);
        self.deliver();
    }

    fn status_due(&self) -> bool {
        self.status_triggered && self.status_prohibit_until.is_none()
    }

    /// Whether a STATUS would report any gap: the first missing octet lies below VR(MS).
    /// Usually it does not (VR(MS) is the first missing octet), and the buffer status, which
    /// counts the NACKs of a due STATUS, then need not set up the walk of `status_holes`.
    #[inline]
    fn has_status_holes(&self) -> bool {
        self.received.first_missing_from(self.rx_next) < self.rx_ms
    }

    /// `status_holes().count()`, without the walk when there is no gap.
    #[inline]
    fn status_hole_count(&self) -> usize {
        if self.has_status_holes() {
            self.status_holes().count()
        } else {
            0
        }
    }

    /// The gaps a STATUS reports: missing ranges from the first missing octet up to VR(MS).
    fn status_holes(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let mut x = self.received.first_missing_from(self.rx_next);
        std::iter::from_fn(move || {
            if x >= self.rx_ms {
                return None;
            }
            let e = self.received.next_start_after(x).min(self.rx_ms);
            let hole = (x, e);
            x = self.received.first_missing_from(e);
            Some(hole)
        })
    }

    /// Build a STATUS PDU within `room` (§5.3.3, §6.2.2.1): ACK_SN = VR(MS), or the first
    /// missing octet that no longer fits when the grant is too small for every NACK.
    fn build_status(&mut self, now: Time, room: u32, out: &mut Vec<Chunk>) -> u32 {
        if room < self.p.status_header_bytes {
            return 0;
        }
        let k = out.len();
        out.push(Chunk::Status { ack: 0, nacks: 0 });
        let mut used = self.p.status_header_bytes;
        let mut nacks = 0;
        let mut ack = self.rx_ms;
        for (s, e) in self.status_holes() {
            if used + self.p.nack_bytes > room {
                ack = s;
                break;
            }
            out.push(Chunk::Nack { start: s, end: e });
            used += self.p.nack_bytes;
            nacks += 1;
        }
        out[k] = Chunk::Status { ack, nacks };
        self.status_sent(now);
        used
    }

    /// A STATUS PDU went to the lower layer.
    #[inline]
    fn status_sent(&mut self, now: Time) {
        self.status_triggered = false;
        // §5.3.3: t-StatusProhibit starts when a STATUS PDU is delivered to lower layer.
        if self.p.t_status_prohibit > 0 {
            self.status_prohibit_until = Some(now + self.p.t_status_prohibit);
        }
        self.stats.status_sent += 1;
    }

    // ------------------------------------------------------------------------------------
    // NR flavour (concatenation = false): one SDU or SDU segment per PDU, 38.322
    // ------------------------------------------------------------------------------------

    /// `poll_transmit` in the NR flavour: the same order (STATUS, discard notice,
    /// retransmissions, new data; 38.322 §5.3.3.3 and §5.3.4 for the STATUS first), with
    /// every RLC PDU behind a MAC subheader of its own.
    #[inline(never)]
    fn nr_poll_transmit(&mut self, now: Time, op: TxOpportunity, out: &mut Vec<Chunk>) -> u32 {
        self.bo.set(BO_STALE);
        self.handle_timeout(now);
        let grant_bytes = op.octets();
        let mut room = grant_bytes;
        if self.am() {
            if self.status_due() {
                room -= self.nr_build_status(now, room, out);
            }
            let cost = self.nr_pdu_cost(DISCARD_NOTICE_BYTES, 0) as u32;
            room -= self.discard_notice(now, room, cost, out);
            if !self.retx.is_empty() {
                room -= self.nr_build_retx(now, room, out);
            }
        }
        room -= self.nr_build_new(now, room, out);
        if self.sdus.is_empty() {
            self.poll_triggered = false;
        }
        let used = grant_bytes - room;
        self.stats.octets_used += used as u64;
        used
    }

    /// NR STATUS PDU (38.322 §5.3.4, §6.2.2.5) within `room`, its MAC subheader included:
    /// ACK_SN and one NACK entry per missing range, cut like the LTE one when the room is
    /// short.
    fn nr_build_status(&mut self, now: Time, room: u32, out: &mut Vec<Chunk>) -> u32 {
        let hdr = self.p.status_header_bytes;
        let with_mac = |n: u32| n + self.mac_subheader(n as u64);
        if room < with_mac(hdr) {
            return 0;
        }
        let k = out.len();
        out.push(Chunk::Status { ack: 0, nacks: 0 });
        let mut used = hdr;
        let mut nacks = 0;
        let mut ack = self.rx_ms;
        for (s, e) in self.status_holes() {
            let entry = self.nr_nack_entry_bytes(s, e);
            if with_mac(used + entry) > room {
                ack = s;
                break;
            }
            out.push(Chunk::Nack { start: s, end: e });
            used += entry;
            nacks += 1;
        }
        let used = with_mac(used);
        out[k] = Chunk::Status { ack, nacks };
        self.status_sent(now);
        used
    }

    /// Octets of the NR NACK entry for the missing range [s, e) (38.322 §6.2.2.5): NACK_SN
    /// with E1/E2/E3 (`nack_bytes`), SOstart/SOend (E2) unless the range is whole SDUs, and
    /// a NACK range (E3) unless it lies within one SDU. The receiver judges both from what it
    /// knows: the delivery point and every SDU end it received are SDU boundaries, and an
    /// SDU whose end arrived is known from its start. What it cannot tell (a range that is
    /// exactly one whole SDU, or the head of an SDU whose end is missing) costs the NACK
    /// range octet too.
    fn nr_nack_entry_bytes(&self, s: u64, e: u64) -> u32 {
        let after = self.ends.partition_point(|&(x, _)| x <= e);
        // The SDU holding octet e, if its end (hence its start) is known.
        let next = self
            .ends
            .get(after)
            .map(|&(x, pkt)| x - self.sdu_octets(&pkt));
        let starts_sdu =
            s == self.rx_next || self.ends.binary_search_by_key(&s, |&(x, _)| x).is_ok();
        let ends_sdu = next == Some(e);
        let within_one = next.is_some_and(|start| start <= s);
        let mut n = self.p.nack_bytes;
        if !(starts_sdu && ends_sdu) {
            n += self.p.nack_so_bytes;
        }
        if !within_one {
            n += self.p.nack_range_bytes;
        }
        n
    }

    /// The MAC subheader in front of an RLC PDU of `len` octets (38.321 §6.1.2): an 8-bit L
    /// up to 255 octets, a 16-bit L above. 0 in the LTE flavour.
    #[inline]
    fn mac_subheader(&self, len: u64) -> u32 {
        if len <= 255 {
            self.p.mac_subheader_bytes
        } else {
            self.p.mac_subheader_long_bytes
        }
    }

    /// The longest RLC PDU that fits in `room` octets with its MAC subheader.
    fn nr_max_pdu(&self, room: u32) -> u32 {
        let long = room.saturating_sub(self.p.mac_subheader_long_bytes);
        if long > 255 {
            long
        } else {
            room.saturating_sub(self.p.mac_subheader_bytes).min(255)
        }
    }

    /// NR data PDU header by its SI (38.322 §6.2.2.3-4, §6.2.3): a complete SDU (SI = 00),
    /// a first segment (01: SN, no SO), a middle or last segment (11 / 10: SN and SO).
    #[inline]
    fn nr_header(&self, first: bool, last: bool) -> u32 {
        match (first, last) {
            (true, true) => self.p.rlc_header_bytes,
            (true, false) => self.p.segment_header_bytes,
            (false, _) => self.p.segment_header_bytes + self.p.so_bytes,
        }
    }

    /// Octets of one NR PDU carrying `len` data octets behind header `hdr`, MAC subheader
    /// included.
    #[inline]
    fn nr_pdu_cost(&self, hdr: u32, len: u64) -> u64 {
        let pdu = hdr as u64 + len;
        pdu + self.mac_subheader(pdu) as u64
    }

    /// `buffer_status` in the NR flavour: a STATUS PDU (header, its NACK entries, MAC
    /// subheader), the discard notice, one PDU per retransmitted piece of an SN, and one PDU
    /// per SDU not yet (fully) sent, each with its header and MAC subheader.
    #[inline(always)]
    fn nr_buffer_status(&self) -> u64 {
        let mut n = 0u64;
        if self.am() {
            if self.status_due() {
                let mut len = self.p.status_header_bytes as u64;
                if self.has_status_holes() {
                    len += self
                        .status_holes()
                        .map(|(s, e)| self.nr_nack_entry_bytes(s, e) as u64)
                        .sum::<u64>();
                }
                n += len + self.mac_subheader(len) as u64;
            }
            if self.discard.is_some_and(|d| d.send) {
                n += self.nr_pdu_cost(DISCARD_NOTICE_BYTES, 0);
            }
            // Usually nothing to retransmit: the deque's iterator is not even set up.
            if !self.retx.is_empty() {
                for &(a, b) in &self.retx.r {
                    let mut x = a;
                    let mut pi = self.pdu_index(x);
                    while x < b {
                        let pdu = self.pdus[pi];
                        let ue = b.min(pdu.end);
                        let sdu = self.sdus[self.sdu_index(x)];
                        let hdr = self.nr_header(x == sdu.start, ue == sdu.end);
                        n += self.nr_pdu_cost(hdr, ue - x);
                        x = ue;
                        pi += 1;
                    }
                }
            }
        }
        // The rest of an SDU begun, then the SDUs not begun.
        if self.next_new < self.nr_seg_end {
            n += self.nr_pdu_cost(self.nr_header(false, true), self.nr_seg_end - self.next_new);
        }
        n += self.nr_unstarted_cost;
        debug_assert_eq!(
            self.nr_unstarted_cost,
            (self.unsent_idx..self.sdus.len())
                .map(|i| &self.sdus[i])
                .filter(|s| s.start >= self.next_new)
                .map(|s| self.nr_pdu_cost(self.p.rlc_header_bytes, s.end - s.start))
                .sum::<u64>()
        );
        debug_assert_eq!(
            self.next_new < self.nr_seg_end,
            self.sdus
                .get(self.unsent_idx)
                .is_some_and(|s| s.start < self.next_new)
        );
        n
    }

    /// NR: new data, one PDU per SDU or SDU segment, as many as the room holds (38.322
    /// §5.2.2.1 and §5.2.3.1.1: an SDU that does not fit is segmented, the segment gets the
    /// SN of its SDU and, unless it is the first, an SO). A new SN is taken only for an SDU's
    /// first piece, and only within the transmitting window (§5.2.3.1.1: TX_Next_Ack <= SN <
    /// TX_Next_Ack + AM_Window_Size); the rest of an SDU already numbered may always go.
    #[inline(never)]
    fn nr_build_new(&mut self, now: Time, room: u32, out: &mut Vec<Chunk>) -> u32 {
        let mut used = 0;
        // `window_stalled()` without reading the oldest PDU twice per PDU: VT(A) + the window
        // size while PDUs are outstanding (only this loop adds one, at the back); with none,
        // VT(A) = VT(S) and the window (at least one SN) is open: the end is then u32::MAX,
        // which no SN reaches, as in UM, which has no window (one comparison per PDU, no flag
        // to test), until the first PDU pushed sets it.
        let am = self.am();
        let w = self.p.am_window_size;
        let mut window_end = if am && !self.pdus.is_empty() {
            self.front_sn + w
        } else {
            u32::MAX
        };
        let stalled = |vt_s: u32, end: u32| vt_s >= end;
        while self.next_new < self.stream_end {
            let s = &self.sdus[self.unsent_idx];
            let (s_start, s_end) = (s.start, s.end);
            let a = self.next_new;
            let first = a == s_start;
            if first && stalled(self.vt_s, window_end) {
                break;
            }
            let left = room - used;
            let rest = s_end - a;
            let whole = self.nr_header(first, true);
            let whole_cost = self.nr_pdu_cost(whole, rest);
            let (take, cost) = if whole_cost <= left as u64 {
                (rest, whole_cost)
            } else {
                let hdr = self.nr_header(first, false);
                let max = self.nr_max_pdu(left);
                if max <= hdr {
                    break;
                }
                let take = ((max - hdr) as u64).min(rest);
                (take, self.nr_pdu_cost(hdr, take))
            };
            // TX_Next (AM) / the UM SN: one per SDU; its segments share it.
            let sn = if first { self.vt_s } else { self.vt_s - 1 };
            let x = a + take;
            // Pushed while `s` is at hand: the SDU is looked up once per piece. The packet is
            // written into the pushed chunk, not built into a chunk on the stack and copied.
            out.push(Chunk::Data {
                sn,
                start: a,
                len: take as u32,
                sdu_end: None,
                poll: false,
                retx: false,
            });
            if x == s_end {
                if let Some(Chunk::Data { sdu_end, .. }) = out.last_mut() {
                    *sdu_end = Some(s.packet);
                }
            }
            if first {
                self.vt_s += 1;
                // A complete SDU's PDU here: what `offer_sdu` counted.
                self.nr_unstarted_cost -= whole_cost;
            }
            used += cost as u32;
            self.next_new = x;
            self.stats.pdus_sent += 1;
            self.stats.bytes_sent += take;
            // `am`, not `self.am()`: the compiler reads the field again after the stores into
            // `out`, which it cannot tell apart from `self`.
            if am {
                // One record per SN, grown by the SDU's later segments (a new record when the
                // ack point already passed the earlier part). A first piece has a new SN: no
                // record to grow, and the last one need not be read.
                // The test of `first` comes before the deque is touched: computing where its
                // last record lies costs a dozen instructions per PDU.
                let mut grown = false;
                if !first {
                    if let Some(p) = self.pdus.back_mut().filter(|p| p.sn == sn && p.end == a) {
                        p.end = x;
                        grown = true;
                    }
                }
                if !grown {
                    // Only this loop adds PDUs: the deque is empty exactly when the window's
                    // end is still unset.
                    if self.pdus.is_empty() {
                        self.front_sn = sn;
                        window_end = sn + w;
                    }
                    self.pdus.push_back(TxPdu {
                        sn,
                        start: a,
                        end: x,
                        retx_count: None,
                    });
                }
                debug_assert_eq!(stalled(self.vt_s, window_end), self.window_stalled());
                self.poll_check_stalled(now, Some(take), stalled(self.vt_s, window_end), out);
                // The SDUs stay (until acknowledged): the next one follows at the next index,
                // found without a search.
                if x == s_end {
                    self.unsent_idx += 1;
                }
            } else {
                while self.sdus.front().is_some_and(|s| s.end <= x) {
                    self.sdus.pop_front();
                }
                self.unsent_idx = self.sdu_index(self.next_new);
            }
            if x < s_end {
                // The grant is full; the SDU is begun.
                self.nr_seg_end = s_end;
                break;
            }
        }
        used
    }

    /// NR: retransmissions, lowest octet first, one PDU per piece of an SN, re-segmented to
    /// the room left (§5.3.2: "segment the RLC SDU or the RLC SDU segment"); the header
    /// follows the piece's place in its SDU, not whether it was sent whole before.
    #[inline(never)]
    fn nr_build_retx(&mut self, now: Time, room: u32, out: &mut Vec<Chunk>) -> u32 {
        let mut used = 0;
        while let Some((a, b)) = self.retx.first() {
            let left = room - used;
            let pdu = self.pdus[self.pdu_index(a)];
            let ue = b.min(pdu.end);
            let sdu = self.sdus[self.sdu_index(a)];
            let first = a == sdu.start;
            let whole = self.nr_header(first, ue == sdu.end);
            let (hdr, take) = if self.nr_pdu_cost(whole, ue - a) <= left as u64 {
                (whole, ue - a)
            } else {
                let hdr = self.nr_header(first, false);
                let max = self.nr_max_pdu(left);
                if max <= hdr {
                    break;
                }
                (hdr, ((max - hdr) as u64).min(ue - a))
            };
            let x = a + take;
            out.push(Chunk::Data {
                sn: pdu.sn,
                start: a,
                len: take as u32,
                sdu_end: (x == sdu.end).then_some(sdu.packet),
                poll: false,
                retx: true,
            });
            used += self.nr_pdu_cost(hdr, take) as u32;
            self.retx.remove(a, x);
            self.stats.pdus_retransmitted += 1;
            self.stats.bytes_retransmitted += take;
            self.poll_check(now, None, out);
            if x < ue {
                break;
            }
        }
        used
    }

    #[cfg(test)]
    fn retx_count(&self, sn: u32) -> Option<u32> {
        self.pdus
            .iter()
            .find(|p| p.sn == sn)
            .and_then(|p| p.retx_count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketKind;
    use proptest::prelude::*;

    const MS: Time = NS_PER_MS;

    fn pkt(seq: u64, size: u32) -> Packet {
        Packet {
            flow: 0,
            kind: PacketKind::Data,
            dst: 1,
            seq,
            len: size.saturating_sub(40),
            size,
            rwnd: 0,
            sent_at: 0,
            opt: Default::default(),
        }
    }

    fn am() -> LteRlcEntity {
        LteRlcEntity::new(LteRlcParams::default())
    }

    fn with(p: LteRlcParams) -> LteRlcEntity {
        LteRlcEntity::new(p)
    }

    /// The octets a list of chunks costs on the air, as (lowest, highest) over the header a
    /// retransmission may use (an AMD PDU when it is the whole PDU, a segment otherwise).
    fn cost_bounds(p: &LteRlcParams, chunks: &[Chunk]) -> (u64, u64) {
        if !p.concatenation {
            return nr_cost_bounds(p, chunks);
        }
        let (mut lo, mut hi) = (0u64, 0u64);
        let mut prev: Option<(u32, bool, u64)> = None;
        for c in chunks {
            match *c {
                Chunk::Data {
                    sn,
                    start,
                    len,
                    retx,
                    ..
                } => {
                    if prev == Some((sn, retx, start)) {
                        lo += p.li_bytes as u64;
                        hi += p.li_bytes as u64;
                    } else {
                        lo += p.rlc_header_bytes as u64;
                        hi += if retx {
                            p.segment_header_bytes
                        } else {
                            p.rlc_header_bytes
                        } as u64;
                    }
                    lo += len as u64;
                    hi += len as u64;
                    prev = Some((sn, retx, start + len as u64));
                }
                Chunk::Status { .. } => {
                    lo += p.status_header_bytes as u64;
                    hi += p.status_header_bytes as u64;
                    prev = None;
                }
                Chunk::Nack { .. } => {
                    lo += p.nack_bytes as u64;
                    hi += p.nack_bytes as u64;
                }
                Chunk::Discard { .. } => {
                    lo += DISCARD_NOTICE_BYTES as u64;
                    hi += DISCARD_NOTICE_BYTES as u64;
                    prev = None;
                }
            }
        }
        (lo, hi)
    }

    /// The MAC subheader of an NR PDU of `len` octets, as the entity counts it.
    fn mac_of(p: &LteRlcParams, len: u64) -> u64 {
        if len <= 255 {
            p.mac_subheader_bytes as u64
        } else {
            p.mac_subheader_long_bytes as u64
        }
    }

    /// `cost_bounds` for the NR flavour: every chunk is a PDU of its own with its MAC
    /// subheader; a header between the first-segment one and the one with an SO; a NACK
    /// entry between NACK_SN alone and NACK_SN with SOs and a NACK range.
    fn nr_cost_bounds(p: &LteRlcParams, chunks: &[Chunk]) -> (u64, u64) {
        let (mut lo, mut hi) = (0u64, 0u64);
        let mut add = |l: u64, h: u64| {
            lo += l + mac_of(p, l);
            hi += h + mac_of(p, h);
        };
        for c in chunks {
            match *c {
                Chunk::Data { len, .. } => {
                    let min_hdr = p.rlc_header_bytes.min(p.segment_header_bytes) as u64;
                    let max_hdr = (p.segment_header_bytes + p.so_bytes) as u64;
                    add(min_hdr + len as u64, max_hdr + len as u64);
                }
                Chunk::Status { nacks, .. } => {
                    let n = nacks as u64;
                    let h = p.status_header_bytes as u64;
                    let entry = (p.nack_bytes + p.nack_so_bytes + p.nack_range_bytes) as u64;
                    add(h + n * p.nack_bytes as u64, h + n * entry);
                }
                Chunk::Nack { .. } => {}
                Chunk::Discard { .. } => {
                    add(DISCARD_NOTICE_BYTES as u64, DISCARD_NOTICE_BYTES as u64);
                }
            }
        }
        (lo, hi)
    }

    /// Fill a grant; checks the octets used against the grant and the chunks.
    fn send(e: &mut LteRlcEntity, now: Time, grant: u32) -> (u32, Vec<Chunk>) {
        let mut out = Vec::new();
        assert_eq!(
            e.has_data_to_send(),
            e.buffer_status() > 0,
            "before the grant"
        );
        let used = e.poll_transmit(now, TxOpportunity::Bytes(grant), &mut out);
        assert_eq!(
            e.has_data_to_send(),
            e.buffer_status() > 0,
            "after the grant"
        );
        assert!(used <= grant, "used {used} > grant {grant}");
        let (lo, hi) = cost_bounds(e.params(), &out);
        assert!(
            lo <= used as u64 && used as u64 <= hi,
            "{used} outside [{lo}, {hi}]: {out:?}"
        );
        (used, out)
    }

    fn seqs(pkts: &[Packet]) -> Vec<u64> {
        pkts.iter().map(|p| p.seq).collect()
    }

    fn data(sn: u32, start: u64, len: u32, end: Option<Packet>, poll: bool, retx: bool) -> Chunk {
        Chunk::Data {
            sn,
            start,
            len,
            sdu_end: end,
            poll,
            retx,
        }
    }

    /// Both ends exchange every TTI without loss until both are idle.
    fn settle(a: &mut LteRlcEntity, b: &mut LteRlcEntity, from: Time, grant: u32) -> Time {
        let mut t = from;
        for _ in 0..10_000 {
            if a.is_idle() && b.is_idle() {
                return t;
            }
            a.handle_timeout(t);
            b.handle_timeout(t);
            let (_, ca) = send(a, t, grant);
            let (_, cb) = send(b, t, grant);
            b.on_chunks(t, &ca);
            a.on_chunks(t, &cb);
            t += MS;
        }
        panic!("no quiescence: a {a:?}\nb {b:?}");
    }

    #[test]
    fn a_1500_byte_sdu_over_100_byte_grants_arrives_intact() {
        let (mut a, mut b) = (am(), am());
        a.offer_sdu(0, pkt(0, 1500));
        assert_eq!(
            a.new_data_bytes(),
            1502,
            "the PDCP header is part of the SDU"
        );
        assert_eq!(a.buffer_status(), 1504);
        let mut polls = Vec::new();
        let mut got = Vec::new();
        for t in 0..16u64 {
            let (used, c) = send(&mut a, t * MS, 100);
            // 98 octets per PDU after the 2-octet header; the 16th carries the last 32.
            let len = if t < 15 { 98 } else { 32 };
            assert_eq!(used, len + 2);
            let Chunk::Data {
                sn,
                start,
                len: l,
                sdu_end,
                poll,
                retx,
            } = c[0]
            else {
                panic!("{c:?}")
            };
            assert_eq!(c.len(), 1);
            assert_eq!((sn, start, l, retx), (t as u32, 98 * t, len, false));
            assert_eq!(sdu_end, (t == 15).then_some(pkt(0, 1500)));
            if poll {
                polls.push(sn);
            }
            b.on_chunks(t * MS, &c);
            b.drain_delivered(&mut got);
            assert_eq!(got.len(), (t == 15) as usize);
        }
        // pollPDU = 4, and the PDU that empties the buffer.
        assert_eq!(polls, vec![3, 7, 11, 15]);
        assert_eq!(got, vec![pkt(0, 1500)]);
        assert_eq!(a.sdus_queued(), 1, "held until acknowledged");
        settle(&mut a, &mut b, 16 * MS, 100);
        assert_eq!(a.sdus_queued(), 0);
        assert_eq!(a.stats().pdus_sent, 16);
        assert_eq!(a.stats().pdus_retransmitted, 0);
        assert_eq!(b.stats().sdus_delivered, 1);
    }

    #[test]
    fn three_54_byte_sdus_concatenate_into_one_200_byte_grant() {
        let mut a = am();
        for i in 0..3 {
            a.offer_sdu(0, pkt(i, 54));
        }
        // 2 (header) + 3 x 56 (54 + PDCP 2) + 2 LIs of 2.
        assert_eq!(a.buffer_status(), 174);
        let (used, c) = send(&mut a, 0, 200);
        assert_eq!(used, 174);
        assert_eq!(
            c,
            vec![
                data(0, 0, 56, Some(pkt(0, 54)), false, false),
                data(0, 56, 56, Some(pkt(1, 54)), false, false),
                data(0, 112, 56, Some(pkt(2, 54)), true, false),
            ]
        );
        assert_eq!(a.buffer_status(), 0);

        // One octet less: the third SDU is segmented, 173 - 2 - 56 - 2 - 56 - 2 = 55 octets.
        let mut a = am();
        for i in 0..3 {
            a.offer_sdu(0, pkt(i, 54));
        }
        let (used, c) = send(&mut a, 0, 173);
        assert_eq!(used, 173);
        assert_eq!(c[2], data(0, 112, 55, None, false, false));
        assert_eq!(a.new_data_bytes(), 1);
        assert_eq!(a.buffer_status(), 3);
        let mut b = am();
        b.on_chunks(0, &c);
        let mut got = Vec::new();
        b.drain_delivered(&mut got);
        assert_eq!(seqs(&got), vec![0, 1]);

        // Room for the first SDU and its successor's LI but no octet of it: the LI is not sent.
        let mut a = am();
        for i in 0..3 {
            a.offer_sdu(0, pkt(i, 54));
        }
        let (used, c) = send(&mut a, 0, 60);
        assert_eq!((used, c.len()), (58, 1));
    }

    /// "Drop chunk set 3": PDU 2 is lost, the receiver reports it after t-Reordering, and its
    /// retransmission is re-segmented into smaller grants.
    #[test]
    fn a_lost_pdu_is_nacked_and_retransmitted_resegmented_then_delivered_in_order() {
        let (mut a, mut b) = (am(), am());
        a.offer_sdu(0, pkt(0, 1000)); // 1002 octets: 10 PDUs of 98 and one of 22
        for t in 0..11u64 {
            let (_, c) = send(&mut a, t * MS, 100);
            if t != 2 {
                b.on_chunks(t * MS, &c);
            }
        }
        // A gap below the highest octet: t-Reordering from the arrival of PDU 3. The polls
        // (PDUs 3, 7, 10) wait: HARQ may still fill the gap.
        assert_eq!(b.poll_timeout(), Some(38 * MS));
        assert_eq!(b.buffer_status(), 0);
        b.handle_timeout(38 * MS);
        assert_eq!(b.stats().t_reordering_expiries, 1);
        let (used, st) = send(&mut b, 38 * MS, 100);
        assert_eq!(used, 8);
        assert_eq!(
            st,
            vec![
                Chunk::Status {
                    ack: 1002,
                    nacks: 1
                },
                Chunk::Nack {
                    start: 196,
                    end: 294
                }
            ]
        );
        a.on_chunks(39 * MS, &st);
        // The whole PDU 2 again: an AMD PDU with its 2-octet header.
        assert_eq!(a.buffer_status(), 100);
        assert_eq!(a.poll_timeout(), None, "the STATUS reported POLL_SN");
        let (used, c1) = send(&mut a, 39 * MS, 60);
        assert_eq!(used, 60);
        assert_eq!(c1, vec![data(2, 196, 56, None, false, true)]);
        assert_eq!(
            a.buffer_status(),
            4 + 42,
            "the rest as a segment with its SO"
        );
        let (used, c2) = send(&mut a, 40 * MS, 60);
        assert_eq!(used, 46);
        assert_eq!(c2, vec![data(2, 252, 42, None, true, true)]);
        let mut got = Vec::new();
        b.on_chunks(40 * MS, &c1);
        b.drain_delivered(&mut got);
        assert!(got.is_empty());
        b.on_chunks(41 * MS, &c2);
        b.drain_delivered(&mut got);
        assert_eq!(got, vec![pkt(0, 1000)]);
        // The poll's STATUS waits for t-StatusProhibit, started at 38 ms.
        assert_eq!(b.buffer_status(), 0);
        assert_eq!(b.poll_timeout(), Some(48 * MS));
        b.handle_timeout(48 * MS);
        let (_, st) = send(&mut b, 48 * MS, 100);
        assert_eq!(
            st,
            vec![Chunk::Status {
                ack: 1002,
                nacks: 0
            }]
        );
        a.on_chunks(48 * MS, &st);
        assert!(a.is_idle() && b.is_idle());
        assert_eq!(a.stats().pdus_retransmitted, 2);
        assert_eq!(a.stats().bytes_retransmitted, 98);
        assert_eq!(b.stats().duplicates_received, 0);
    }

    fn polls_of(p: LteRlcParams) -> Vec<u32> {
        let mut a = with(p);
        a.offer_sdu(0, pkt(0, 978)); // 980 octets: 10 PDUs of 98
        let mut polls = Vec::new();
        for t in 0..10 {
            for c in send(&mut a, t * MS, 100).1 {
                if let Chunk::Data { sn, poll: true, .. } = c {
                    polls.push(sn);
                }
            }
        }
        assert_eq!(a.new_data_bytes(), 0);
        polls
    }

    #[test]
    fn polls_follow_poll_pdu_poll_byte_and_the_last_data_in_the_buffer() {
        let d = LteRlcParams::default;
        assert_eq!(polls_of(d()), vec![3, 7, 9]);
        let bytes = LteRlcParams {
            poll_pdu: u32::MAX,
            poll_byte: 200,
            ..d()
        };
        assert_eq!(polls_of(bytes), vec![2, 5, 8, 9]);
        let last_only = LteRlcParams {
            poll_pdu: u32::MAX,
            poll_byte: u64::MAX,
            ..d()
        };
        assert_eq!(polls_of(last_only), vec![9]);
    }

    #[test]
    fn the_transmitting_window_stalls_at_512_pdus_and_polls() {
        let p = LteRlcParams {
            poll_pdu: u32::MAX,
            poll_byte: u64::MAX,
            ..LteRlcParams::default()
        };
        let (mut a, mut b) = (with(p.clone()), with(p));
        a.offer_sdu(0, pkt(0, 1000)); // one octet per PDU at a grant of 3
        let mut all = Vec::new();
        for t in 0..AM_WINDOW_SIZE as u64 {
            let (used, c) = send(&mut a, t * MS, 3);
            assert_eq!(used, 3);
            all.extend(c);
        }
        // VT(S) = VT(A) + 512: the PDU after which no new PDU can go carries a poll.
        let polled: Vec<usize> = (0..all.len())
            .filter(|&i| matches!(all[i], Chunk::Data { poll: true, .. }))
            .collect();
        assert_eq!(polled, vec![511]);
        assert_eq!(send(&mut a, 512 * MS, 3).0, 0, "window stalled");
        b.on_chunks(513 * MS, &all);
        let (_, st) = send(&mut b, 513 * MS, 10);
        assert_eq!(st, vec![Chunk::Status { ack: 512, nacks: 0 }]);
        a.on_chunks(514 * MS, &st);
        let (_, c) = send(&mut a, 514 * MS, 3);
        assert_eq!(c, vec![data(512, 512, 1, None, false, false)]);
    }

    #[test]
    fn t_poll_retransmit_expiry_retransmits_the_last_pdu_with_a_poll() {
        let (mut a, mut b) = (am(), am());
        a.offer_sdu(0, pkt(0, 100));
        let (_, lost) = send(&mut a, 0, 200);
        assert_eq!(lost, vec![data(0, 0, 102, Some(pkt(0, 100)), true, false)]);
        assert_eq!(a.poll_timeout(), Some(45 * MS));
        a.handle_timeout(44 * MS);
        assert_eq!(a.buffer_status(), 0);
        a.handle_timeout(45 * MS);
        assert_eq!(a.stats().poll_retransmit_expiries, 1);
        assert_eq!(a.buffer_status(), 104);
        let (used, c) = send(&mut a, 45 * MS, 200);
        assert_eq!(used, 104);
        assert_eq!(c, vec![data(0, 0, 102, Some(pkt(0, 100)), true, true)]);
        assert_eq!(a.retx_count(0), Some(0));
        assert_eq!(a.poll_timeout(), Some(90 * MS));
        b.on_chunks(46 * MS, &c);
        let (_, st) = send(&mut b, 46 * MS, 100);
        assert_eq!(st, vec![Chunk::Status { ack: 102, nacks: 0 }]);
        a.on_chunks(47 * MS, &st);
        assert!(a.is_idle());
        assert_eq!(a.stats().polls_sent, 2);
    }

    #[test]
    fn t_status_prohibit_delays_a_second_status() {
        let (mut a, mut b) = (am(), am());
        a.offer_sdu(0, pkt(0, 100));
        let (_, c) = send(&mut a, 0, 200);
        b.on_chunks(0, &c);
        let (_, st) = send(&mut b, MS, 200);
        assert_eq!(st, vec![Chunk::Status { ack: 102, nacks: 0 }]);
        a.on_chunks(MS, &st);
        assert!(a.is_idle());
        a.offer_sdu(2 * MS, pkt(1, 100));
        let (_, c) = send(&mut a, 2 * MS, 200);
        b.on_chunks(3 * MS, &c);
        // Triggered by the poll, held until t-StatusProhibit (1 + 10 ms) expires.
        let (used, none) = send(&mut b, 3 * MS, 200);
        assert_eq!((used, none.len()), (0, 0));
        assert_eq!(b.buffer_status(), 0);
        assert_eq!(b.poll_timeout(), Some(11 * MS));
        b.handle_timeout(11 * MS);
        assert_eq!(b.buffer_status(), 2);
        let (_, st) = send(&mut b, 11 * MS, 200);
        assert_eq!(st, vec![Chunk::Status { ack: 204, nacks: 0 }]);
        assert_eq!(b.stats().status_sent, 2);
    }

    #[test]
    fn a_gap_filled_before_t_reordering_expires_sends_no_status() {
        let (mut a, mut b) = (am(), am());
        for i in 0..3 {
            a.offer_sdu(0, pkt(i, 100));
        }
        let (_, c0) = send(&mut a, 0, 104);
        let (_, c1) = send(&mut a, MS, 104);
        assert!(c0
            .iter()
            .chain(&c1)
            .all(|c| matches!(c, Chunk::Data { poll: false, .. })));
        // HARQ delivers PDU 1 before PDU 0.
        b.on_chunks(2 * MS, &c1);
        assert_eq!(b.poll_timeout(), Some(37 * MS));
        b.on_chunks(3 * MS, &c0);
        let mut got = Vec::new();
        b.drain_delivered(&mut got);
        assert_eq!(seqs(&got), vec![0, 1]);
        assert_eq!(b.poll_timeout(), None, "t-Reordering stopped");
        b.handle_timeout(40 * MS);
        assert_eq!(b.buffer_status(), 0);
        assert!(b.is_idle());
        assert_eq!(b.stats().t_reordering_expiries, 0);
        assert_eq!(b.stats().status_sent, 0);
    }

    #[test]
    fn a_nack_for_octets_already_queued_is_not_counted_again() {
        let (mut a, mut b) = (am(), am());
        for i in 0..2 {
            a.offer_sdu(0, pkt(i, 100));
        }
        let _lost = send(&mut a, 0, 104);
        let (_, c1) = send(&mut a, MS, 104);
        b.on_chunks(MS, &c1);
        b.handle_timeout(36 * MS);
        let (_, st) = send(&mut b, 36 * MS, 100);
        assert_eq!(st.len(), 2);
        a.on_chunks(37 * MS, &st);
        a.on_chunks(38 * MS, &st);
        assert_eq!(a.retx_count(0), Some(0));
        assert_eq!(a.buffer_status(), 104, "queued once");
        let _lost_again = send(&mut a, 39 * MS, 104);
        // The same NACK again (a STATUS overtaken by the retransmission): not pending any
        // more, so it is queued and counted once more.
        a.on_chunks(40 * MS, &st);
        assert_eq!(a.retx_count(0), Some(1));
        assert_eq!(a.buffer_status(), 104);
    }

    #[test]
    fn a_status_too_big_for_the_grant_acknowledges_only_below_its_last_nack() {
        let (mut a, mut b) = (am(), am());
        for i in 0..6 {
            a.offer_sdu(0, pkt(i, 100));
        }
        // PDUs 1, 3 and 5 arrive together (PDUs 0, 2 and 4 lost): three gaps below VR(X).
        let mut arrived = Vec::new();
        for t in 0..6u64 {
            let (_, c) = send(&mut a, t * MS, 104);
            if t % 2 == 1 {
                arrived.extend(c);
            }
        }
        b.on_chunks(6 * MS, &arrived);
        b.handle_timeout(41 * MS);
        // Three holes need 2 + 3 x 6 octets.
        assert_eq!(b.buffer_status(), 20);
        let (used, st) = send(&mut b, 41 * MS, 14);
        assert_eq!(used, 14);
        assert_eq!(
            st,
            vec![
                Chunk::Status { ack: 408, nacks: 2 },
                Chunk::Nack { start: 0, end: 102 },
                Chunk::Nack {
                    start: 204,
                    end: 306
                },
            ]
        );
        a.on_chunks(42 * MS, &st);
        // PDUs 0 and 2 again; PDU 4 is neither acknowledged nor NACKed yet.
        assert_eq!(a.buffer_status(), 2 * 104);
        assert_eq!(a.retx_count(4), None);
    }

    /// maxRetxThreshold 1: PDU 0 (SDU 0) and its one retransmission are lost, the second NACK
    /// discards SDU 0. Returns both ends, the discard notice and PDU 2 (with a poll).
    fn discard_sdu_0() -> (LteRlcEntity, LteRlcEntity, Vec<Chunk>, Vec<Chunk>) {
        let p = LteRlcParams {
            max_retx: 1,
            ..LteRlcParams::default()
        };
        let (mut a, mut b) = (with(p.clone()), with(p));
        a.offer_sdu(0, pkt(0, 100));
        a.offer_sdu(0, pkt(1, 100));
        let _lost = send(&mut a, 0, 104);
        let (_, c1) = send(&mut a, MS, 104);
        b.on_chunks(MS, &c1);
        b.handle_timeout(36 * MS);
        let (_, st) = send(&mut b, 36 * MS, 100);
        assert_eq!(st[1], Chunk::Nack { start: 0, end: 102 });
        a.on_chunks(36 * MS, &st);
        assert_eq!(a.retx_count(0), Some(0));
        // The one retransmission allowed is lost too.
        let (_, retx) = send(&mut a, 37 * MS, 104);
        assert_eq!(retx, vec![data(0, 0, 102, Some(pkt(0, 100)), true, true)]);
        a.offer_sdu(38 * MS, pkt(2, 100));
        let (_, c2) = send(&mut a, 38 * MS, 104);
        b.on_chunks(38 * MS, &c2);
        // The gap is still there: t-Reordering again, and the second NACK of PDU 0.
        b.handle_timeout(73 * MS);
        let (_, st) = send(&mut b, 73 * MS, 100);
        assert_eq!(
            st,
            vec![
                Chunk::Status { ack: 306, nacks: 1 },
                Chunk::Nack { start: 0, end: 102 }
            ]
        );
        a.on_chunks(73 * MS, &st);
        let mut dropped = Vec::new();
        a.drain_dropped(&mut dropped);
        assert_eq!(dropped, vec![pkt(0, 100)]);
        assert_eq!(a.stats().max_retx_reached, 1);
        assert_eq!(a.stats().sdus_discarded, 1);
        assert_eq!(a.sdus_queued(), 0, "SDUs 1 and 2 were acknowledged");
        assert_eq!(a.buffer_status(), DISCARD_NOTICE_BYTES as u64);
        let (_, notice) = send(&mut a, 74 * MS, 100);
        assert_eq!(notice, vec![Chunk::Discard { below: 102 }]);
        (a, b, notice, c2)
    }

    #[test]
    fn max_retx_discards_the_sdu_and_the_receiver_skips_to_the_next() {
        let (mut a, mut b, notice, _) = discard_sdu_0();
        b.on_chunks(74 * MS, &notice);
        let mut got = Vec::new();
        b.drain_delivered(&mut got);
        assert_eq!(seqs(&got), vec![1, 2]);
        // The receiver confirms with a STATUS (after t-StatusProhibit, started at 73 ms).
        b.handle_timeout(83 * MS);
        let (_, st) = send(&mut b, 83 * MS, 100);
        assert_eq!(st, vec![Chunk::Status { ack: 306, nacks: 0 }]);
        a.on_chunks(83 * MS, &st);
        assert!(a.is_idle() && b.is_idle());
        assert_eq!(
            b.stats().rx_sdus_lost,
            0,
            "SDU 0's last octet never arrived"
        );
    }

    /// A STATUS with ACK_SN above the discard point that still NACKs below it comes from a
    /// receiver that has not skipped: the notice stays unconfirmed and is sent again.
    #[test]
    fn a_lost_discard_notice_is_sent_again_until_a_status_shows_the_skip() {
        let (mut a, mut b, _lost, c2) = discard_sdu_0();
        // A duplicate poll makes the receiver report its old gap (t-StatusProhibit ran to 83).
        b.on_chunks(84 * MS, &c2);
        let (_, st) = send(&mut b, 84 * MS, 100);
        assert_eq!(
            st,
            vec![
                Chunk::Status { ack: 306, nacks: 1 },
                Chunk::Nack { start: 0, end: 102 }
            ]
        );
        a.on_chunks(84 * MS, &st);
        assert!(!a.is_idle());
        assert_eq!(a.buffer_status(), 0);
        // t-PollRetransmit, started with the notice at 74 ms, sends it again.
        assert_eq!(a.poll_timeout(), Some(119 * MS));
        a.handle_timeout(119 * MS);
        let (_, notice) = send(&mut a, 119 * MS, 100);
        assert_eq!(notice, vec![Chunk::Discard { below: 102 }]);
        b.on_chunks(119 * MS, &notice);
        let mut got = Vec::new();
        b.drain_delivered(&mut got);
        assert_eq!(seqs(&got), vec![1, 2]);
        let (_, st) = send(&mut b, 119 * MS, 100);
        assert_eq!(st, vec![Chunk::Status { ack: 306, nacks: 0 }]);
        a.on_chunks(120 * MS, &st);
        assert!(a.is_idle() && b.is_idle());
        assert_eq!(a.stats().discard_notices_sent, 2);
    }

    #[test]
    fn um_skips_a_gap_after_t_reordering_and_delivers_what_follows() {
        let p = LteRlcParams {
            mode: RlcMode::Um,
            ..LteRlcParams::default()
        };
        let (mut a, mut b) = (with(p.clone()), with(p));
        for i in 0..3 {
            a.offer_sdu(0, pkt(i, 200)); // 202 octets: two PDUs of 101 each at grant 103
        }
        assert_eq!(a.sdus_queued(), 3);
        let mut got = Vec::new();
        for t in 0..6u64 {
            let (used, c) = send(&mut a, t * MS, 103);
            assert_eq!(used, 103);
            assert!(c
                .iter()
                .all(|c| matches!(c, Chunk::Data { poll: false, .. })));
            if t != 2 {
                b.on_chunks(t * MS, &c);
            }
        }
        assert!(a.is_idle(), "UM keeps nothing once sent");
        b.drain_delivered(&mut got);
        assert_eq!(seqs(&got), vec![0]);
        assert_eq!(b.poll_timeout(), Some(38 * MS));
        b.handle_timeout(38 * MS);
        b.drain_delivered(&mut got);
        assert_eq!(seqs(&got), vec![0, 2]);
        assert_eq!(b.stats().rx_sdus_lost, 1);
        assert_eq!(b.stats().t_reordering_expiries, 1);
        assert_eq!(b.buffer_status(), 0, "no STATUS in UM");
        assert!(b.is_idle());
    }

    #[test]
    fn buffer_status_is_exactly_what_a_grant_needs_to_empty_the_entity() {
        let (mut a, mut b) = (am(), am());
        a.offer_sdu(0, pkt(0, 100));
        a.offer_sdu(0, pkt(1, 100));
        b.offer_sdu(0, pkt(10, 100));
        b.offer_sdu(0, pkt(11, 100));
        let _ = send(&mut a, 0, 104);
        let _ = send(&mut b, 0, 104);
        let (_, ca) = send(&mut a, MS, 104);
        let (_, cb) = send(&mut b, MS, 104);
        b.on_chunks(MS, &ca);
        a.on_chunks(MS, &cb);
        b.handle_timeout(36 * MS);
        let (used, st) = send(&mut b, 36 * MS, 8);
        assert_eq!((used, st.len()), (8, 2));
        a.on_chunks(36 * MS, &st);
        a.offer_sdu(36 * MS, pkt(2, 300));
        // a's STATUS (its t-Reordering expired too) + PDU 0 again + one new PDU.
        assert_eq!(a.buffer_status(), 8 + 104 + 304);
        let mut short = a.clone();
        let (used, _) = send(&mut short, 36 * MS, 415);
        assert!(used <= 415);
        assert!(short.buffer_status() > 0);
        let (used, c) = send(&mut a, 36 * MS, 416);
        assert_eq!(used, 416);
        assert_eq!(a.buffer_status(), 0);
        assert_eq!(
            c,
            vec![
                Chunk::Status { ack: 204, nacks: 1 },
                Chunk::Nack { start: 0, end: 102 },
                data(0, 0, 102, Some(pkt(0, 100)), false, true),
                data(2, 204, 302, Some(pkt(2, 300)), true, false),
            ]
        );
    }

    #[test]
    fn parameters_are_checked() {
        let d = LteRlcParams::default;
        assert!(d().validate().is_ok());
        let bad = |p: LteRlcParams| p.validate().unwrap_err().field;
        assert_eq!(bad(LteRlcParams { max_retx: 0, ..d() }), "max_retx");
        assert_eq!(
            bad(LteRlcParams {
                max_retx: 33,
                ..d()
            }),
            "max_retx"
        );
        assert_eq!(bad(LteRlcParams { poll_pdu: 0, ..d() }), "poll_pdu");
        assert_eq!(
            bad(LteRlcParams {
                poll_byte: 0,
                ..d()
            }),
            "poll_byte"
        );
        assert_eq!(
            bad(LteRlcParams {
                t_poll_retransmit: 0,
                ..d()
            }),
            "t_poll_retransmit"
        );
        assert_eq!(
            bad(LteRlcParams {
                rlc_header_bytes: 0,
                ..d()
            }),
            "rlc_header_bytes"
        );
        assert_eq!(
            bad(LteRlcParams {
                segment_header_bytes: 1,
                ..d()
            }),
            "segment_header_bytes"
        );
        assert_eq!(
            bad(LteRlcParams {
                nack_bytes: 0,
                ..d()
            }),
            "nack_bytes"
        );
    }

    // ---------------------------------------------------------------------------------------
    // NR flavour (38.322): scripted per rule.
    // ---------------------------------------------------------------------------------------

    /// NR AM (or UM) with RLC and PDCP SNs of `sn_bits` (12 or 18), 38.331 values otherwise
    /// OpenAirInterface's DRB defaults (t-Reassembly 15 ms, t-StatusProhibit 15 ms).
    fn nr(mode: RlcMode, sn_bits: u32) -> LteRlcParams {
        crate::radio::nr::rlc::NrRlcConfig {
            mode,
            sn_bits,
            pdcp_sn_bits: if sn_bits == 6 { 12 } else { sn_bits },
            ..Default::default()
        }
        .params()
        .unwrap()
    }

    #[test]
    fn nr_a_grant_with_three_small_sdus_carries_three_pdus_each_with_header_and_subheader() {
        let p = nr(RlcMode::Am, 18);
        let mut a = with(p.clone());
        for i in 0..3 {
            a.offer_sdu(0, pkt(i, 54));
        }
        // Each SDU: 54 + PDCP 3 = 57; its own AMD PDU (3-octet header, 18-bit SN) behind a
        // 2-octet MAC subheader: 62, three times (LTE: 174 in one PDU with two LIs).
        assert_eq!(a.buffer_status(), 3 * 62);
        assert_eq!(p.sdu_cost(54), 62);
        let (used, c) = send(&mut a, 0, 200);
        assert_eq!(used, 186);
        assert_eq!(
            c,
            vec![
                data(0, 0, 57, Some(pkt(0, 54)), false, false),
                data(1, 57, 57, Some(pkt(1, 54)), false, false),
                data(2, 114, 57, Some(pkt(2, 54)), true, false),
            ]
        );
        assert_eq!(a.stats().pdus_sent, 3);
        assert_eq!(a.stats().octets_used, 186, "MAC subheaders are counted");

        // One octet short: the third SDU's first segment (SN 2, no SO) takes what is left,
        // 185 - 124 - 3 - 2 = 56 octets; its last octet goes later with an SO (3 + 2).
        let mut a = with(p.clone());
        for i in 0..3 {
            a.offer_sdu(0, pkt(i, 54));
        }
        let (used, c) = send(&mut a, 0, 185);
        assert_eq!(used, 185);
        assert_eq!(c[2], data(2, 114, 56, None, false, false));
        assert_eq!(a.buffer_status(), 5 + 1 + 2);
        let (used, c2) = send(&mut a, MS, 100);
        assert_eq!(used, 8);
        assert_eq!(c2, vec![data(2, 170, 1, Some(pkt(2, 54)), true, false)]);
        let mut b = with(p.clone());
        b.on_chunks(MS, &c);
        b.on_chunks(MS, &c2);
        let mut got = Vec::new();
        b.drain_delivered(&mut got);
        assert_eq!(seqs(&got), vec![0, 1, 2]);

        // A PDU over 255 octets needs the 16-bit L: a 3-octet subheader.
        let mut a = with(p.clone());
        a.offer_sdu(0, pkt(0, 300));
        assert_eq!(a.buffer_status(), 303 + 3 + 3);
        assert_eq!(p.sdu_cost(300), 309);
        // With 258 octets the longest PDU with an 8-bit L is 255 (257 with its subheader);
        // a 256-octet PDU would need 259.
        let (used, c) = send(&mut a, 0, 258);
        assert_eq!((used, c), (257, vec![data(0, 0, 252, None, false, false)]));
    }

    #[test]
    fn nr_um_complete_sdus_carry_no_sn_and_segments_carry_an_so_after_the_first() {
        let p = nr(RlcMode::Um, 12);
        assert_eq!((p.rlc_header_bytes, p.segment_header_bytes), (1, 2));
        let (mut a, mut b) = (with(p.clone()), with(p));
        a.offer_sdu(0, pkt(0, 98)); // 100 octets with the 12-bit PDCP header
        a.offer_sdu(0, pkt(1, 98));
        // The first SDU whole: 1 + 100 + 2; the second as a first segment of 40 (2 + 40 + 2)
        // and a last segment of 60 with its SO (2 + 2 + 60 + 2).
        let (used, c1) = send(&mut a, 0, 103 + 44);
        assert_eq!(used, 147);
        assert_eq!(
            c1,
            vec![
                data(0, 0, 100, Some(pkt(0, 98)), false, false),
                data(1, 100, 40, None, false, false),
            ]
        );
        assert_eq!(a.buffer_status(), 66);
        let (used, c2) = send(&mut a, MS, 1000);
        assert_eq!(used, 66);
        assert_eq!(c2, vec![data(1, 140, 60, Some(pkt(1, 98)), false, false)]);
        assert!(a.is_idle());
        b.on_chunks(MS, &c1);
        b.on_chunks(2 * MS, &c2);
        let mut got = Vec::new();
        b.drain_delivered(&mut got);
        assert_eq!(seqs(&got), vec![0, 1]);
    }

    /// 12-bit NR AM: SDUs of 100 octets (98 + PDCP 2) offered at once; PDU k is cut and lost
    /// as scripted, then t-Reassembly reports four holes of four kinds.
    #[test]
    fn nr_status_sizes_its_nack_entries_with_so_and_nack_range() {
        let p = nr(RlcMode::Am, 12);
        let (mut a, mut b) = (with(p.clone()), with(p.clone()));
        for i in 0..8 {
            a.offer_sdu(0, pkt(i, 98));
        }
        // (grant, arrives): whole SDUs cost 2 + 100 + 2; a first segment of n costs n + 4,
        // a middle or last one n + 6.
        let script = [
            (104, true),  // SDU 0
            (104, false), // SDU 1
            (104, false), // SDU 2
            (104, true),  // SDU 3
            (44, true),   // SDU 4 [400, 440)
            (36, false),  // SDU 4 [440, 470)
            (36, true),   // SDU 4 [470, 500)
            (54, false),  // SDU 5 [500, 550)
            (56, true),   // SDU 5 [550, 600)
            (54, true),   // SDU 6 [600, 650)
            (56, false),  // SDU 6 [650, 700)
            (54, false),  // SDU 7 [700, 750)
            (56, true),   // SDU 7 [750, 800)
        ];
        let mut arrived = Vec::new();
        for (t, &(grant, arrives)) in script.iter().enumerate() {
            let (used, c) = send(&mut a, t as u64 * MS, grant);
            assert_eq!((used, c.len()), (grant, 1), "PDU {t}: {c:?}");
            if arrives {
                arrived.extend(c);
            }
        }
        // All that arrives comes at once, so that one t-Reassembly expiry sees every hole.
        b.on_chunks(3 * MS, &arrived);
        let mut got = Vec::new();
        b.drain_delivered(&mut got);
        assert_eq!(seqs(&got), vec![0]);
        assert_eq!(b.poll_timeout(), Some(18 * MS), "t-Reassembly, 15 ms");
        b.handle_timeout(18 * MS);
        // Whole SDUs 1-2: NACK_SN + NACK range (2 + 1). Inside SDU 4: NACK_SN + SOs (2 + 4).
        // The head of SDU 5: 2 + 4. The tail of SDU 6 and the head of SDU 7: 2 + 4 + 1.
        // STATUS header 3, MAC subheader 2.
        assert_eq!(b.buffer_status(), 3 + 3 + 6 + 6 + 7 + 2);
        let mut short = b.clone();
        let (used, st) = send(&mut short, 18 * MS, 3 + 3 + 6 + 2 + 5);
        assert_eq!(used, 14, "two entries fit, the third does not");
        assert_eq!(st[0], Chunk::Status { ack: 500, nacks: 2 });
        let (used, st) = send(&mut b, 18 * MS, 100);
        assert_eq!(used, 27);
        assert_eq!(
            st,
            vec![
                Chunk::Status { ack: 800, nacks: 4 },
                Chunk::Nack {
                    start: 100,
                    end: 300
                },
                Chunk::Nack {
                    start: 440,
                    end: 470
                },
                Chunk::Nack {
                    start: 500,
                    end: 550
                },
                Chunk::Nack {
                    start: 650,
                    end: 750
                },
            ]
        );
        // The transmitter resends each piece of an SN as a PDU whose header follows the
        // piece's place in its SDU: SDUs 1 and 2 whole (104 each), a middle segment of SDU 4
        // (2 + 2 + 30 + 2), a first segment of SDU 5 (2 + 50 + 2), the last segment of SDU 6
        // (2 + 2 + 50 + 2), the first of SDU 7 (2 + 50 + 2).
        a.on_chunks(19 * MS, &st);
        assert_eq!(a.buffer_status(), 208 + 36 + 54 + 56 + 54);
        let (used, c) = send(&mut a, 19 * MS, 1000);
        assert_eq!(used, 408);
        assert_eq!(
            c.iter()
                .map(|c| match *c {
                    Chunk::Data { sn, start, len, .. } => (sn, start, len),
                    _ => panic!("{c:?}"),
                })
                .collect::<Vec<_>>(),
            vec![
                (1, 100, 100),
                (2, 200, 100),
                (4, 440, 30),
                (5, 500, 50),
                (6, 650, 50),
                (7, 700, 50)
            ]
        );
        b.on_chunks(20 * MS, &c);
        b.drain_delivered(&mut got);
        assert_eq!(seqs(&got), (0..8).collect::<Vec<_>>());
        assert_eq!(a.stats().pdus_retransmitted, 6);
    }

    #[test]
    fn nr_a_lost_segment_is_resegmented_with_its_so() {
        let p = nr(RlcMode::Am, 18);
        let (mut a, mut b) = (with(p.clone()), with(p.clone()));
        a.offer_sdu(0, pkt(0, 997)); // 1000 octets with the 18-bit PDCP header
                                     // First segment: 100 - 3 - 2 = 95 octets; then 100 - 5 - 2 = 93 per segment.
        let mut at = Vec::new();
        for t in 0..11u64 {
            let (used, c) = send(&mut a, t * MS, 100);
            let Chunk::Data { start, len, .. } = c[0] else {
                panic!()
            };
            at.push((start, len));
            assert!(used <= 100);
            if t != 3 {
                b.on_chunks(t * MS, &c);
            }
        }
        assert_eq!(at[0], (0, 95));
        assert_eq!(at[1], (95, 93));
        assert_eq!(at[10], (95 + 9 * 93, 1000 - 95 - 9 * 93));
        b.handle_timeout(19 * MS);
        let (_, st) = send(&mut b, 19 * MS, 100);
        // Inside one SDU whose end arrived: NACK_SN (3) + SOs (4), no NACK range.
        assert_eq!(
            st,
            vec![
                Chunk::Status {
                    ack: 1000,
                    nacks: 1
                },
                Chunk::Nack {
                    start: 281,
                    end: 374
                }
            ]
        );
        assert_eq!(b.stats().octets_used, 3 + 7 + 2);
        a.on_chunks(20 * MS, &st);
        // A middle segment again, cut in two: 40 - 7 = 33 octets, then 60.
        assert_eq!(a.buffer_status(), 5 + 93 + 2);
        let (_, c1) = send(&mut a, 20 * MS, 40);
        assert_eq!(c1, vec![data(0, 281, 33, None, false, true)]);
        let (used, c2) = send(&mut a, 21 * MS, 100);
        assert_eq!(used, 5 + 60 + 2);
        assert_eq!(c2, vec![data(0, 314, 60, None, true, true)]);
        b.on_chunks(21 * MS, &c1);
        b.on_chunks(21 * MS, &c2);
        let mut got = Vec::new();
        b.drain_delivered(&mut got);
        assert_eq!(got, vec![pkt(0, 997)]);
    }

    #[test]
    fn nr_the_transmitting_window_is_2048_or_131072_sns() {
        for sn_bits in [12, 18] {
            let p = LteRlcParams {
                poll_pdu: u32::MAX,
                poll_byte: u64::MAX,
                ..nr(RlcMode::Am, sn_bits)
            };
            let w = 1u32 << (sn_bits - 1);
            assert_eq!(p.am_window_size, w);
            let (mut a, mut b) = (with(p.clone()), with(p.clone()));
            // Empty packets: SDUs of the PDCP header alone, one SN each.
            for i in 0..=w as u64 {
                a.offer_sdu(0, pkt(i, 0));
            }
            let cost = p.sdu_cost(0);
            let (used, c) = send(&mut a, 0, (cost * (w as u64 + 1)) as u32);
            assert_eq!(used as u64, cost * w as u64, "SN {w} is outside the window");
            assert_eq!(c.len(), w as usize);
            assert!(matches!(c[w as usize - 1], Chunk::Data { sn, poll: true, .. } if sn == w - 1));
            assert_eq!(send(&mut a, MS, 1000).0, 0, "window stalled");
            b.on_chunks(MS, &c);
            let (_, st) = send(&mut b, MS, 100);
            a.on_chunks(2 * MS, &st);
            let (_, c) = send(&mut a, 2 * MS, 1000);
            assert!(matches!(c[..], [Chunk::Data { sn, .. }] if sn == w));
        }
    }

    #[test]
    fn nr_parameters_must_keep_mac_subheaders_out_of_the_lte_flavour() {
        let bad = LteRlcParams {
            mac_subheader_bytes: 2,
            ..LteRlcParams::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, "mac_subheader_bytes");
        let bad = LteRlcParams {
            mac_subheader_long_bytes: 1,
            ..nr(RlcMode::Am, 18)
        };
        assert_eq!(
            bad.validate().unwrap_err().field,
            "mac_subheader_long_bytes"
        );
    }

    #[test]
    fn the_fields_the_cell_asks_about_every_tti_share_the_first_two_cache_lines() {
        use std::mem::{align_of, offset_of};
        assert_eq!(align_of::<LteRlcEntity>(), 64);
        let line = |o: usize| o / 64;
        for o in [
            offset_of!(LteRlcEntity, bo),
            offset_of!(LteRlcEntity, next_new),
            offset_of!(LteRlcEntity, stream_end),
            offset_of!(LteRlcEntity, poll_retransmit_at),
            offset_of!(LteRlcEntity, status_prohibit_until),
            offset_of!(LteRlcEntity, am),
            offset_of!(LteRlcEntity, status_triggered),
        ] {
            assert_eq!(line(o), 0);
        }
        for o in [
            offset_of!(LteRlcEntity, reordering),
            offset_of!(LteRlcEntity, discard),
            offset_of!(LteRlcEntity, dropped),
        ] {
            assert_eq!(line(o), 1);
        }
    }

    #[test]
    fn range_set_inserts_coalesce_and_removals_split() {
        let mut s = RangeSet::default();
        assert_eq!(s.insert(10, 20), 10);
        assert_eq!(s.insert(30, 40), 10);
        assert_eq!(s.insert(15, 35), 10);
        assert_eq!(s.r, VecDeque::from(vec![(10, 40)]));
        assert_eq!(s.insert(40, 45), 5, "touching ranges merge");
        assert_eq!(s.r, VecDeque::from(vec![(10, 45)]));
        s.remove(20, 25);
        assert_eq!(s.r, VecDeque::from(vec![(10, 20), (25, 45)]));
        assert!(s.contains(26, 45) && !s.contains(19, 21));
        assert_eq!(s.first_missing_from(12), 20);
        assert_eq!(s.first_missing_from(22), 22);
        assert_eq!(s.next_start_after(20), 25);
        s.remove_below(30);
        assert_eq!(s.r, VecDeque::from(vec![(30, 45)]));
    }

    // ---------------------------------------------------------------------------------------
    // Property tests: two ends over a lossy, reordering channel, driven TTI by TTI.
    // ---------------------------------------------------------------------------------------

    /// SplitMix64: the harness's own deterministic draws.
    struct Draw(u64);

    impl Draw {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        fn chance(&mut self, p: f64) -> bool {
            ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
        }
    }

    #[derive(Debug, Clone)]
    struct Scenario {
        seed: u64,
        /// SDU sizes a -> b (the downlink's data) and b -> a (ACK-like traffic).
        ab: Vec<u32>,
        ba: Vec<u32>,
        grant_lo: u32,
        grant_hi: u32,
        /// Probability that a transport block is lost (HARQ gave up).
        loss: f64,
        /// Delivery 1..=1 + max_delay TTIs after sending: HARQ retransmissions reorder blocks.
        max_delay: u64,
        /// TTIs between SDU arrivals, at most.
        gap: u64,
    }

    fn scenario() -> impl Strategy<Value = Scenario> {
        (
            any::<u64>(),
            prop::collection::vec(40u32..3000, 1..16),
            prop::collection::vec(40u32..3000, 0..6),
            // A third of the cases with grants of at most 200 octets: heavy segmentation,
            // truncated STATUS PDUs, retransmissions re-segmented many times.
            prop_oneof![10u32..200, 10u32..8000, 10u32..8000],
            prop_oneof![10u32..200, 10u32..8000, 10u32..8000],
            prop_oneof![Just(0.0), 0.0f64..0.3, 0.0f64..0.3],
            0u64..10,
            0u64..6,
        )
            .prop_map(|(seed, ab, ba, g1, g2, loss, max_delay, gap)| Scenario {
                seed,
                ab,
                ba,
                grant_lo: g1.min(g2),
                grant_hi: g1.max(g2),
                loss,
                max_delay,
                gap,
            })
    }

    #[derive(Debug, Default)]
    struct Outcome {
        /// SDU seqs delivered at b (from a) and at a (from b), and dropped by a and by b.
        at_b: Vec<u64>,
        at_a: Vec<u64>,
        dropped_by_a: Vec<u64>,
        dropped_by_b: Vec<u64>,
    }

    /// One end's transmission in one TTI, with the octet checks; returns the chunks.
    fn tti_tx(e: &mut LteRlcEntity, now: Time, grant: u32) -> Vec<Chunk> {
        let bs = e.buffer_status();
        let stalled = e.window_stalled();
        let (used, out) = send(e, now, grant);
        if grant as u64 >= bs && !stalled {
            assert_eq!(used as u64, bs, "buffer_status must be what the grant uses");
            assert_eq!(
                e.buffer_status(),
                0,
                "a grant of buffer_status sends everything"
            );
        }
        out
    }

    fn run(p: &LteRlcParams, sc: &Scenario) -> Outcome {
        run_on(with(p.clone()), with(p.clone()), sc)
    }

    /// An entity that never gives up on retransmissions: maxRetxThreshold past what the
    /// configuration allows (1..=32), set after the checked construction.
    fn without_retx_limit(p: &LteRlcParams) -> LteRlcEntity {
        let mut e = with(p.clone());
        e.p.max_retx = u32::MAX;
        e
    }

    fn run_on(mut a: LteRlcEntity, mut b: LteRlcEntity, sc: &Scenario) -> Outcome {
        let mut d = Draw(sc.seed);
        let offer_times = |d: &mut Draw, n: usize| -> Vec<u64> {
            let mut t = 0;
            (0..n)
                .map(|_| {
                    t += d.below(sc.gap + 1);
                    t
                })
                .collect()
        };
        let ta = offer_times(&mut d, sc.ab.len());
        let tb = offer_times(&mut d, sc.ba.len());
        let (mut ia, mut ib) = (0, 0);
        // (arrival TTI, send order, towards b, chunks)
        let mut air: Vec<(u64, u64, bool, Vec<Chunk>)> = Vec::new();
        let mut order = 0;
        let mut o = Outcome::default();
        let (mut got, mut dropped) = (Vec::new(), Vec::new());
        let mut tti = 0u64;
        loop {
            assert!(tti < 2_000_000, "no quiescence: {sc:?}");
            let now = tti * MS;
            while ia < ta.len() && ta[ia] <= tti {
                a.offer_sdu(now, pkt(ia as u64, sc.ab[ia]));
                ia += 1;
            }
            while ib < tb.len() && tb[ib] <= tti {
                b.offer_sdu(now, pkt(ib as u64, sc.ba[ib]));
                ib += 1;
            }
            air.sort_by_key(|x| (x.0, x.1));
            let due = air.iter().take_while(|x| x.0 <= tti).count();
            for (_, _, to_b, c) in air.drain(..due) {
                if to_b {
                    b.on_chunks(now, &c);
                } else {
                    a.on_chunks(now, &c);
                }
            }
            a.handle_timeout(now);
            b.handle_timeout(now);
            for to_b in [true, false] {
                let grant = sc.grant_lo + d.below((sc.grant_hi - sc.grant_lo + 1) as u64) as u32;
                let e = if to_b { &mut a } else { &mut b };
                let c = tti_tx(e, now, grant);
                if !c.is_empty() && !d.chance(sc.loss) {
                    let at = tti + 1 + d.below(sc.max_delay + 1);
                    air.push((at, order, to_b, c));
                    order += 1;
                }
            }
            b.drain_delivered(&mut got);
            o.at_b.extend(seqs(&got));
            got.clear();
            a.drain_delivered(&mut got);
            o.at_a.extend(seqs(&got));
            got.clear();
            a.drain_dropped(&mut dropped);
            o.dropped_by_a.extend(seqs(&dropped));
            dropped.clear();
            b.drain_dropped(&mut dropped);
            o.dropped_by_b.extend(seqs(&dropped));
            dropped.clear();
            let offered = ia == ta.len() && ib == tb.len();
            if offered && air.is_empty() && a.is_idle() && b.is_idle() {
                return o;
            }
            // Nothing on the air and nothing to send: jump to the next timer or arrival.
            tti += 1;
            if air.is_empty() && a.buffer_status() == 0 && b.buffer_status() == 0 {
                let next = [
                    a.poll_timeout().map(|t| t.div_ceil(MS)),
                    b.poll_timeout().map(|t| t.div_ceil(MS)),
                    ta.get(ia).copied(),
                    tb.get(ib).copied(),
                ]
                .into_iter()
                .flatten()
                .min();
                if let Some(n) = next {
                    tti = tti.max(n);
                }
            }
        }
    }

    fn in_order_without_duplicates(v: &[u64]) -> bool {
        v.windows(2).all(|w| w[0] < w[1])
    }

    // The two "every SDU" properties run without a retransmission limit. With grants of 10-20
    // octets an SDU of 3,000 is cut into hundreds of segments, and in NR they all share its
    // SN: every STATUS that NACKs a segment not yet pending counts once more against that
    // SN's RETX_COUNT (38.322 §5.3.2), so at 20 % loss maxRetxThreshold = 32 is reached and
    // the SDU is rightly given up (a case found by this test with the limit at 32). Giving up
    // at the limit is the `small_max_retx` properties' subject.
    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        #[test]
        fn am_delivers_every_sdu_exactly_once_and_in_order(sc in scenario()) {
            let p = LteRlcParams::default();
            let o = run_on(without_retx_limit(&p), without_retx_limit(&p), &sc);
            let all = |n: usize| (0..n as u64).collect::<Vec<_>>();
            prop_assert_eq!(&o.at_b, &all(sc.ab.len()));
            prop_assert_eq!(&o.at_a, &all(sc.ba.len()));
            prop_assert!(o.dropped_by_a.is_empty() && o.dropped_by_b.is_empty());
        }

        #[test]
        fn um_delivers_an_in_order_subsequence_without_duplicates(sc in scenario()) {
            let p = LteRlcParams { mode: RlcMode::Um, ..LteRlcParams::default() };
            let o = run(&p, &sc);
            prop_assert!(in_order_without_duplicates(&o.at_b));
            prop_assert!(in_order_without_duplicates(&o.at_a));
            prop_assert!(o.at_b.iter().all(|&s| s < sc.ab.len() as u64));
            if sc.loss == 0.0 {
                // Reordering alone (up to 10 TTIs) never outlasts t-Reordering: nothing lost.
                prop_assert_eq!(o.at_b.len(), sc.ab.len());
                prop_assert_eq!(o.at_a.len(), sc.ba.len());
            }
        }

        #[test]
        fn nr_am_delivers_every_sdu_exactly_once_and_in_order(sc in scenario(), long in any::<bool>()) {
            let p = nr(RlcMode::Am, if long { 18 } else { 12 });
            let o = run_on(without_retx_limit(&p), without_retx_limit(&p), &sc);
            let all = |n: usize| (0..n as u64).collect::<Vec<_>>();
            prop_assert_eq!(&o.at_b, &all(sc.ab.len()));
            prop_assert_eq!(&o.at_a, &all(sc.ba.len()));
            prop_assert!(o.dropped_by_a.is_empty() && o.dropped_by_b.is_empty());
        }

        #[test]
        fn nr_um_delivers_an_in_order_subsequence_without_duplicates(sc in scenario(), long in any::<bool>()) {
            let o = run(&nr(RlcMode::Um, if long { 12 } else { 6 }), &sc);
            prop_assert!(in_order_without_duplicates(&o.at_b));
            prop_assert!(in_order_without_duplicates(&o.at_a));
            prop_assert!(o.at_b.iter().all(|&s| s < sc.ab.len() as u64));
            if sc.loss == 0.0 {
                // HARQ reordering (up to 10 TTIs) stays within t-Reassembly (15 ms).
                prop_assert_eq!(o.at_b.len(), sc.ab.len());
                prop_assert_eq!(o.at_a.len(), sc.ba.len());
            }
        }

        #[test]
        fn nr_am_with_a_small_max_retx_delivers_in_order_or_discards_and_both_ends_settle(
            sc in scenario(),
            max_retx in prop::sample::select(vec![1u32, 2, 3]),
        ) {
            let p = LteRlcParams { max_retx, ..nr(RlcMode::Am, 18) };
            let sc = Scenario { loss: sc.loss * 2.0, ..sc };
            let o = run(&p, &sc);
            prop_assert!(in_order_without_duplicates(&o.at_b));
            prop_assert!(in_order_without_duplicates(&o.at_a));
            for s in 0..sc.ab.len() as u64 {
                prop_assert!(o.at_b.contains(&s) || o.dropped_by_a.contains(&s), "SDU {} vanished", s);
            }
            for s in 0..sc.ba.len() as u64 {
                prop_assert!(o.at_a.contains(&s) || o.dropped_by_b.contains(&s), "SDU {} vanished", s);
            }
        }

        #[test]
        fn am_with_a_small_max_retx_delivers_in_order_or_discards_and_both_ends_settle(
            sc in scenario(),
            max_retx in 1u32..4,
        ) {
            let p = LteRlcParams { max_retx, ..LteRlcParams::default() };
            let sc = Scenario { loss: sc.loss * 2.0, ..sc };
            let o = run(&p, &sc);
            prop_assert!(in_order_without_duplicates(&o.at_b));
            prop_assert!(in_order_without_duplicates(&o.at_a));
            for s in 0..sc.ab.len() as u64 {
                prop_assert!(o.at_b.contains(&s) || o.dropped_by_a.contains(&s), "SDU {} vanished", s);
            }
            for s in 0..sc.ba.len() as u64 {
                prop_assert!(o.at_a.contains(&s) || o.dropped_by_b.contains(&s), "SDU {} vanished", s);
            }
        }
    }
}
