//! IS-707 Radio Link Protocol (RLP Type 1/2, the NAK-based ARQ of cdmaOne packet data;
//! model-specs §3) as modelled by Bai, Ogielski & Wu, "Interactions of TCP and radio link ARQ
//! protocol" (VTC'99-Fall), sans-IO.
//!
//! One [`RlpEntity`] is one end of the radio link: a transmitter for the IP packets it is
//! given and a receiver for the peer's frames. The scenario calls [`RlpEntity::poll_transmit`] once
//! per 20 ms traffic-channel frame slot, hands the peer's intact frames to
//! [`RlpEntity::on_frames`], and collects the reassembled packets with
//! [`RlpEntity::take_delivered`]. IS-707 counts its timers in 20 ms frames, so every timer is a
//! deadline checked at the start of `poll_transmit`: the entity needs no timer events.
//!
//! The NAK procedure follows the paper's "retransmission cycles": round i (i = 1..n) sends i NAK
//! frames for a missing frame, one per slot, and starts a timer when the round's last NAK has
//! been sent; rounds 1..n-1 run the NAK retransmission timer T_ret, the last round runs the NAK
//! abort timer T_abort ("after this cycle, a NAK abort timer is initiated ... two cycles of frame
//! error recovery, controlled by the retransmission timer and abort timer", Bai et al. §III).
//! For IS-707 (n = 2): 1 NAK + T_ret, then 2 NAKs + T_abort, then abort. Each NAK makes the
//! sender queue one copy of each named frame, except that by default a frame already waiting
//! in the retransmission queue is not queued twice ([`RlpEntity::set_coalesce_retx`]).
//!
//! Simplifications (docs/models/rlp.md): sequence numbers are unbounded instead of modulo 256
//! (at 16 frames per slot 256 frames span only 320 ms, less than a recovery; real multi-frame
//! RLP widens the sequence number instead); packet boundaries travel as metadata on the frame
//! that carries each packet's last octet (standing in for PPP framing and its FCS); with no
//! positive ACKs the sender's retransmission buffer is pruned by age (never below the last 256
//! frames, the 8-bit sequence space).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::engine::{millis, Time, NS_PER_S};
use crate::packet::Packet;
use crate::radio::TxOpportunity;

/// The sender always keeps at least this many most recent frames, whatever their age: the
/// IS-707 sequence space (8-bit SEQ), which is what a real RLP Type 1/2 sender can still
/// retransmit (model-specs §3.1).
pub const MIN_HELD_FRAMES: u64 = 256;

/// Added to the worst-case NAK procedure length when pruning the retransmission buffer by age.
/// It covers the detection delay (a gap is only seen when a later frame or an idle frame gets
/// through, which a fade can postpone) and the slots the NAKs themselves take.
pub const TX_HOLD_MARGIN: Time = 2 * NS_PER_S;

/// Parameters of one RLP entity (both ends normally use the same set).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RlpParams {
    /// Octets of new data per data frame (19 for Rate Set 1 at 9600 bit/s, 30 for Rate Set 2;
    /// model-specs §3.1). Must be at least 1.
    pub frame_payload_bytes: u32,
    /// Frames per 20 ms slot (1; 16 for the paper's 16 x 9600 bit/s case). Must be at least 1.
    pub frames_per_slot: u32,
    /// Retransmission cycles n >= 1: round i sends i NAKs (IS-707: 2; Bai et al. explore
    /// 1..10). Total NAKs per missing frame n(n+1)/2.
    pub nak_rounds: u32,
    /// NAK retransmission timer, run after each of rounds 1..n-1.
    pub t_ret: Time,
    /// NAK abort timer, run after the last round.
    pub t_abort: Time,
    /// Idle frames (carrying L_V(S)) sent after the data runs out, one per otherwise empty
    /// slot, so that a lost tail frame is detected (Bai et al. [6]); 0 = none.
    pub idle_frames: u32,
}

impl RlpParams {
    /// IS-707 at 9600 bit/s (Rate Set 1) with the model-specs §3.3 timer defaults: 19 octets
    /// per frame, one frame per slot, 2 rounds, T_ret = T_abort = 200 ms, no idle frames.
    pub fn is707_9600() -> Self {
        Self {
            frame_payload_bytes: 19,
            frames_per_slot: 1,
            nak_rounds: 2,
            t_ret: millis(200.0),
            t_abort: millis(200.0),
            idle_frames: 0,
        }
    }
}

/// A packet whose last octet is carried by a frame: where it starts in the octet stream and
/// the packet itself. Simulation metadata standing in for PPP framing: the receiver cuts the
/// stream here and keeps the packet only if every octet in [start, start + size) arrived
/// (PPP's FCS discards a damaged frame).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacketEnd {
    /// Stream offset of the packet's first octet.
    pub start: u64,
    pub packet: Packet,
}

/// What travels over the air: one RLP frame in one frame position of a 20 ms slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// Data frame SEQ = `seq` with stream octets [start, start + len); `retx` marks a
    /// retransmission (same content as the original); `ends`: the packets whose last octet it
    /// carries, in stream order.
    Data {
        seq: u64,
        retx: bool,
        start: u64,
        len: u32,
        ends: Vec<PacketEnd>,
    },
    /// NAK control frame asking for frames FIRST..=LAST.
    Nak { first: u64, last: u64 },
    /// Idle frame carrying the sender's L_V(S): frames below `next_seq` exist.
    Idle { next_seq: u64 },
}

impl Frame {
    pub fn is_data(&self) -> bool {
        matches!(self, Frame::Data { .. })
    }

    /// Control frames (NAKs) go first in a slot (model-specs §3.1).
    pub fn is_control(&self) -> bool {
        matches!(self, Frame::Nak { .. })
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RlpStats {
    // ---- transmitter ----
    /// New data frames (first transmissions).
    pub data_frames_sent: u64,
    /// Retransmitted data frames (one per NAK naming a frame still held).
    pub retx_frames_sent: u64,
    pub naks_sent: u64,
    pub idle_frames_sent: u64,
    /// Frames named by a received NAK that the sender no longer held (pruned by age) or never
    /// sent: no retransmission follows.
    pub naks_unanswerable: u64,
    /// Frames named by a received NAK while their retransmission was already queued
    /// (`coalesce_retx`): no extra copy.
    pub naks_coalesced: u64,
    // ---- receiver ----
    /// Every frame handed to `on_frames` (data, NAK, idle).
    pub frames_received: u64,
    /// Data frames dropped as copies of a frame already received or already passed by L_V(N)
    /// (a late copy of an aborted frame below L_V(N) is counted here too).
    pub duplicates_dropped: u64,
    /// Copies of a frame that the receiver had aborted while L_V(N) still waits for an older
    /// gap: dropped (an abort is final).
    pub late_frames_dropped: u64,
    /// Missing frames that arrived during the NAK procedure.
    pub frames_recovered: u64,
    /// Missing frames given up after the last round's abort timer.
    pub frames_aborted: u64,
    /// Stream octets skipped over aborted frames (seen when the data behind the gap is
    /// delivered).
    pub bytes_lost_to_abort: u64,
    pub packets_delivered: u64,
    /// Packets whose end arrived but which overlap an aborted frame (discarded). A packet whose
    /// end was in the aborted frame is invisible to the receiver and not counted.
    pub packets_lost_to_abort: u64,
}

/// A packet whose last octet has not yet been framed.
#[derive(Debug, Clone, Copy)]
struct TxPacket {
    start: u64,
    packet: Packet,
}

/// A data frame kept for retransmission (no positive ACKs: kept until pruned by age).
#[derive(Debug, Clone)]
struct SentFrame {
    start: u64,
    len: u32,
    ends: Vec<PacketEnd>,
    first_sent_at: Time,
}

/// A received data frame held behind a gap.
#[derive(Debug, Clone)]
struct RxFrame {
    start: u64,
    len: u32,
    ends: Vec<PacketEnd>,
}

/// NAK-list entry of a missing frame (model-specs §3.2).
#[derive(Debug, Clone, Copy)]
struct NakEntry {
    /// Current round (retransmission cycle), 1..=n.
    round: u32,
    /// NAKs of this round still to send, at most one per slot, so round i spans i slots
    /// (time diversity against reverse-link fades).
    naks_left: u32,
    /// The round's timer (T_ret, or T_abort in the last round), started when the round's last
    /// NAK has been sent.
    deadline: Option<Time>,
}

/// One end of an IS-707 RLP link.
#[derive(Debug, Clone)]
pub struct RlpEntity {
    p: RlpParams,
    // ---- transmitter ----
    /// Packets whose last octet has not been framed, in stream order.
    tx_pkts: VecDeque<TxPacket>,
    /// Next stream octet to frame, and one past the last octet offered.
    tx_next_byte: u64,
    tx_end_byte: u64,
    /// L_V(S): SEQ of the next new data frame.
    l_vs: u64,
    /// Sent frames [sent_base, L_V(S)), oldest first.
    sent: VecDeque<SentFrame>,
    sent_base: u64,
    /// Retransmissions to send, in the order the NAKs named them: one entry per (NAK, named
    /// frame), or per frame not already queued when coalescing.
    retx: VecDeque<u64>,
    /// See [`Self::set_coalesce_retx`].
    coalesce_retx: bool,
    /// With `coalesce_retx`: the frames in `retx`.
    retx_queued: BTreeSet<u64>,
    /// Idle frames still to send since the last new data frame.
    idle_left: u32,
    // ---- receiver ----
    /// L_V(R): next new frame expected.
    l_vr: u64,
    /// L_V(N): first frame needed for in-order delivery.
    l_vn: u64,
    /// Every SEQ in [L_V(N), L_V(R)) is in exactly one of these three.
    rx_frames: BTreeMap<u64, RxFrame>,
    nak_list: BTreeMap<u64, NakEntry>,
    aborted: BTreeSet<u64>,
    /// Stream octets below this have been passed to reassembly (delivered or skipped).
    rx_next_byte: u64,
    /// End of the latest hole (aborted octets): a packet starting below it is damaged.
    rx_hole_end: u64,
    delivered: Vec<Packet>,
    stats: RlpStats,
}

impl RlpEntity {
    pub fn new(p: RlpParams) -> Self {
        assert!(p.frame_payload_bytes >= 1, "RLP frame payload must be >= 1");
        assert!(p.frames_per_slot >= 1, "RLP needs >= 1 frame per slot");
        assert!(p.nak_rounds >= 1, "RLP needs >= 1 retransmission cycle");
        Self {
            p,
            tx_pkts: VecDeque::new(),
            tx_next_byte: 0,
            tx_end_byte: 0,
            l_vs: 0,
            sent: VecDeque::new(),
            sent_base: 0,
            retx: VecDeque::new(),
            coalesce_retx: true,
            retx_queued: BTreeSet::new(),
            idle_left: 0,
            l_vr: 0,
            l_vn: 0,
            rx_frames: BTreeMap::new(),
            nak_list: BTreeMap::new(),
            aborted: BTreeSet::new(),
            rx_next_byte: 0,
            rx_hole_end: 0,
            delivered: Vec::new(),
            stats: RlpStats::default(),
        }
    }

    /// On (the default): a NAK naming a frame whose retransmission is still waiting in the
    /// queue adds no second copy. Off: every NAK queues one copy of each named frame (the
    /// literal reading of model-specs §3.2). Without a backlog the two agree: a copy leaves in
    /// the slot its NAK arrives, before the round's next NAK, so round i still yields i
    /// copies. With a backlog (a range NAK for a burst at one frame per slot, or T_ret close
    /// to the RLP round trip) literal queuing piles up stale copies that delay the needed ones
    /// past T_ret; later rounds then add more, and at high FER with many rounds the
    /// retransmission queue grows without bound (docs/models/rlp.md). Set before use.
    pub fn set_coalesce_retx(&mut self, on: bool) {
        self.coalesce_retx = on;
    }

    pub fn params(&self) -> &RlpParams {
        &self.p
    }

    pub fn stats(&self) -> &RlpStats {
        &self.stats
    }

    /// L_V(S): SEQ of the next new data frame.
    pub fn l_vs(&self) -> u64 {
        self.l_vs
    }

    /// L_V(R): next new frame the receiver expects.
    pub fn l_vr(&self) -> u64 {
        self.l_vr
    }

    /// L_V(N): first frame the receiver needs for in-order delivery.
    pub fn l_vn(&self) -> u64 {
        self.l_vn
    }

    /// Frames on the receiver's NAK list (missing, procedure running).
    pub fn missing_frames(&self) -> usize {
        self.nak_list.len()
    }

    /// Frames the sender still holds for retransmission.
    pub fn held_frames(&self) -> usize {
        self.sent.len()
    }

    /// How long a sent frame is kept (beyond the last [`MIN_HELD_FRAMES`]): the worst-case NAK
    /// procedure n * T_ret + T_abort plus [`TX_HOLD_MARGIN`].
    pub fn hold_time(&self) -> Time {
        self.p
            .t_ret
            .saturating_mul(self.p.nak_rounds as u64)
            .saturating_add(self.p.t_abort)
            .saturating_add(TX_HOLD_MARGIN)
    }

    /// Take an IP packet from the upper layer (the IAP interface): its `size` octets are
    /// appended to the octet stream. Admission (buffer limits) is the caller's decision.
    pub fn offer_packet(&mut self, _now: Time, pkt: Packet) {
        self.tx_pkts.push_back(TxPacket {
            start: self.tx_end_byte,
            packet: pkt,
        });
        self.tx_end_byte += pkt.size as u64;
    }

    /// Packets whose last octet has not yet been put into a frame: the IAP buffer occupancy.
    /// A packet leaves it when the frame with its last octet is first sent (no positive ACKs,
    /// so nothing later tells the sender it arrived).
    pub fn queued_packets(&self) -> usize {
        self.tx_pkts.len()
    }

    /// Octets offered but not yet framed.
    pub fn queued_bytes(&self) -> u64 {
        self.tx_end_byte - self.tx_next_byte
    }

    /// Packets reassembled in order since the last call.
    pub fn take_delivered(&mut self) -> Vec<Packet> {
        std::mem::take(&mut self.delivered)
    }

    /// Nothing to send (no queued data, retransmission or idle frame) and nothing pending at
    /// the receiver (no NAK procedure running, nothing held behind a gap).
    pub fn is_idle(&self) -> bool {
        self.tx_pkts.is_empty()
            && self.retx.is_empty()
            && self.idle_left == 0
            && self.nak_list.is_empty()
            && self.aborted.is_empty()
            && self.rx_frames.is_empty()
    }

    // ------------------------------------------------------------------------------------
    // Slot
    // ------------------------------------------------------------------------------------

    /// The frames this end sends in the 20 ms slot starting at `now`, as many as `op` holds
    /// ([`Self::slot_opportunity`]: `frames_per_slot`; `Bytes(b)` holds b / frame payload
    /// octets), in priority order: NAKs, retransmissions, new data, idle (model-specs §3.1).
    /// Timers are checked first, so a round that expires now sends its NAKs in this slot.
    /// Call it once per slot, after handing in the frames that arrived by `now`.
    pub fn poll_transmit(&mut self, now: Time, op: TxOpportunity) -> Vec<Frame> {
        self.handle_timeout(now);
        self.prune_sent(now);
        let cap = op.pdus(self.p.frame_payload_bytes);
        let mut out = Vec::with_capacity(cap.min(16));
        // 1. Control: NAKs.
        self.build_naks(now, cap, &mut out);
        // 2. Retransmissions, in the order the NAKs named them.
        while out.len() < cap {
            let Some(seq) = self.retx.pop_front() else {
                break;
            };
            self.retx_queued.remove(&seq);
            match self.sent_frame(seq) {
                Some(f) => {
                    out.push(Frame::Data {
                        seq,
                        retx: true,
                        start: f.start,
                        len: f.len,
                        ends: f.ends.clone(),
                    });
                    self.stats.retx_frames_sent += 1;
                }
                // Pruned since the NAK arrived.
                None => self.stats.naks_unanswerable += 1,
            }
        }
        // 3. New data. A short frame when the queue empties: RLP does not wait for more.
        while out.len() < cap && !self.tx_pkts.is_empty() {
            out.push(self.new_data_frame(now));
            self.idle_left = self.p.idle_frames;
        }
        // 4. Idle: one per slot that carries no data frame, after the data has run out.
        if out.len() < cap && self.idle_left > 0 && !out.iter().any(Frame::is_data) {
            out.push(Frame::Idle {
                next_seq: self.l_vs,
            });
            self.idle_left -= 1;
            self.stats.idle_frames_sent += 1;
        }
        out
    }

    // ------------------------------------------------------------------------------------
    // Transmitter
    // ------------------------------------------------------------------------------------

    fn sent_frame(&self, seq: u64) -> Option<&SentFrame> {
        if seq < self.sent_base {
            return None;
        }
        self.sent.get((seq - self.sent_base) as usize)
    }

    /// Frame the next octets of the stream (up to `frame_payload_bytes`) as L_V(S).
    fn new_data_frame(&mut self, now: Time) -> Frame {
        let seq = self.l_vs;
        self.l_vs += 1;
        let start = self.tx_next_byte;
        let len = (self.tx_end_byte - start).min(self.p.frame_payload_bytes as u64);
        let end = start + len;
        let mut ends = Vec::new();
        // Packets ending in this frame (a zero-size packet at the tail ends in a frame of
        // length 0, so it is still carried).
        while let Some(t) = self.tx_pkts.front() {
            if t.start + t.packet.size as u64 > end {
                break;
            }
            ends.push(PacketEnd {
                start: t.start,
                packet: t.packet,
            });
            self.tx_pkts.pop_front();
        }
        self.tx_next_byte = end;
        let len = len as u32;
        self.sent.push_back(SentFrame {
            start,
            len,
            ends: ends.clone(),
            first_sent_at: now,
        });
        self.stats.data_frames_sent += 1;
        Frame::Data {
            seq,
            retx: false,
            start,
            len,
            ends,
        }
    }

    /// No positive ACKs (model-specs §3.1): the sender cannot know when a frame is safe to
    /// drop, so it keeps the last [`MIN_HELD_FRAMES`] frames and anything younger than
    /// [`Self::hold_time`].
    fn prune_sent(&mut self, now: Time) {
        let hold = self.hold_time();
        while let Some(f) = self.sent.front() {
            let held = self.l_vs - self.sent_base;
            if held <= MIN_HELD_FRAMES || now.saturating_sub(f.first_sent_at) <= hold {
                break;
            }
            self.sent.pop_front();
            self.sent_base += 1;
        }
    }

    /// A NAK from the peer's receiver: one retransmission of each named frame still held, at
    /// the next opportunity (model-specs §3.2, sender).
    fn on_nak(&mut self, first: u64, last: u64) {
        if self.l_vs == 0 {
            return;
        }
        let last = last.min(self.l_vs - 1);
        for seq in first..=last {
            if self.sent_frame(seq).is_some() {
                if self.coalesce_retx && !self.retx_queued.insert(seq) {
                    // Already waiting: this NAK is answered by that copy.
                    self.stats.naks_coalesced += 1;
                    continue;
                }
                self.retx.push_back(seq);
            } else {
                self.stats.naks_unanswerable += 1;
            }
        }
    }

    // ------------------------------------------------------------------------------------
    // Receiver
    // ------------------------------------------------------------------------------------

    /// The timer a round runs once its NAKs are out: T_ret for rounds 1..n-1, T_abort for the
    /// last (Bai et al. §III; see the module doc).
    fn round_timer(&self, round: u32) -> Time {
        if round < self.p.nak_rounds {
            self.p.t_ret
        } else {
            self.p.t_abort
        }
    }

    /// Expired timers: the next round (i + 1 NAKs) or, after the last round, abort.
    /// Run the NAK timers due at `now`: T_ret starts the next round, T_abort after the last
    /// round gives the frame up (model-specs §3.1). [`Self::poll_transmit`] runs this first.
    pub fn handle_timeout(&mut self, now: Time) {
        let n = self.p.nak_rounds;
        let mut aborted_any = false;
        let mut abort = Vec::new();
        for (&seq, e) in self.nak_list.iter_mut() {
            if e.deadline.is_some_and(|d| now >= d) {
                if e.round < n {
                    e.round += 1;
                    e.naks_left = e.round;
                    e.deadline = None;
                } else {
                    abort.push(seq);
                }
            }
        }
        for seq in abort {
            self.nak_list.remove(&seq);
            self.aborted.insert(seq);
            self.stats.frames_aborted += 1;
            aborted_any = true;
        }
        if aborted_any {
            self.advance_l_vn();
        }
    }

    /// The earliest running NAK timer (T_ret or T_abort).
    pub fn poll_timeout(&self) -> Option<Time> {
        self.nak_list.values().filter_map(|e| e.deadline).min()
    }

    /// A 20 ms slot's opportunity: `frames_per_slot` frames.
    pub fn slot_opportunity(&self) -> TxOpportunity {
        TxOpportunity::Pdus(self.p.frames_per_slot)
    }

    /// NAK frames for this slot: consecutive missing frames in the same state share one NAK
    /// (FIRST..LAST); one pass over the NAK list, so each missing frame gets at most one NAK
    /// per slot; lowest SEQ first.
    fn build_naks(&mut self, now: Time, cap: usize, out: &mut Vec<Frame>) {
        if self.nak_list.is_empty() || out.len() >= cap {
            return;
        }
        let mut ranges: Vec<(u64, u64)> = Vec::new();
        let mut prev: Option<(u64, u32, u32)> = None;
        for (&seq, e) in &self.nak_list {
            if e.naks_left == 0 {
                prev = None;
                continue;
            }
            let key = (e.round, e.naks_left);
            match (prev, ranges.last_mut()) {
                (Some((p, r, k)), Some(last)) if p + 1 == seq && (r, k) == key => last.1 = seq,
                _ => {
                    if out.len() + ranges.len() >= cap {
                        break;
                    }
                    ranges.push((seq, seq));
                }
            }
            prev = Some((seq, key.0, key.1));
        }
        for (first, last) in ranges {
            let timer = self.round_timer(self.nak_list[&first].round);
            for (_, e) in self.nak_list.range_mut(first..=last) {
                e.naks_left -= 1;
                if e.naks_left == 0 {
                    // The round's timer runs from the slot of its last NAK (a range shares
                    // one round, so one timer value).
                    e.deadline = Some(now + timer);
                }
            }
            out.push(Frame::Nak { first, last });
            self.stats.naks_sent += 1;
        }
    }

    /// Frames [L_V(R), upto) are missing: NAK-list entries in round 1 (model-specs §3.2).
    fn detect_gap(&mut self, upto: u64) {
        for seq in self.l_vr..upto {
            self.nak_list.insert(
                seq,
                NakEntry {
                    round: 1,
                    naks_left: 1,
                    deadline: None,
                },
            );
        }
        self.l_vr = self.l_vr.max(upto);
    }

    /// The peer's frames that survived the channel, in transmission order.
    pub fn on_frames(&mut self, _now: Time, frames: Vec<Frame>) {
        for f in frames {
            self.stats.frames_received += 1;
            match f {
                Frame::Data {
                    seq,
                    start,
                    len,
                    ends,
                    retx: _,
                } => self.on_data(seq, start, len, ends),
                Frame::Nak { first, last } => self.on_nak(first, last),
                Frame::Idle { next_seq } => {
                    // An idle frame reveals frames sent after the last one received (tail
                    // losses).
                    if next_seq > self.l_vr {
                        self.detect_gap(next_seq);
                    }
                }
            }
        }
    }

    fn on_data(&mut self, seq: u64, start: u64, len: u32, ends: Vec<PacketEnd>) {
        if seq < self.l_vn || self.rx_frames.contains_key(&seq) {
            self.stats.duplicates_dropped += 1;
            return;
        }
        if seq >= self.l_vr {
            self.detect_gap(seq);
            self.l_vr = seq + 1;
        } else if self.nak_list.remove(&seq).is_some() {
            self.stats.frames_recovered += 1;
        } else {
            debug_assert!(self.aborted.contains(&seq));
            self.stats.late_frames_dropped += 1;
            return;
        }
        self.rx_frames.insert(seq, RxFrame { start, len, ends });
        self.advance_l_vn();
    }

    /// Move L_V(N) over received and aborted frames, delivering the packets that end in the
    /// received ones if all their octets arrived.
    fn advance_l_vn(&mut self) {
        while self.l_vn < self.l_vr {
            if let Some(f) = self.rx_frames.remove(&self.l_vn) {
                self.reassemble(f);
            } else if !self.aborted.remove(&self.l_vn) {
                break; // still on the NAK list
            }
            self.l_vn += 1;
        }
    }

    /// Cut the stream at the packet ends of the next in-order frame. Octets between the last
    /// frame passed and this one belong to aborted frames: PPP would drop every packet
    /// overlapping them, i.e. every packet that starts before the hole's end.
    fn reassemble(&mut self, f: RxFrame) {
        if f.start > self.rx_next_byte {
            self.stats.bytes_lost_to_abort += f.start - self.rx_next_byte;
            self.rx_hole_end = f.start;
        }
        for e in f.ends {
            if e.start >= self.rx_hole_end {
                self.delivered.push(e.packet);
                self.stats.packets_delivered += 1;
            } else {
                self.stats.packets_lost_to_abort += 1;
            }
        }
        // Frames are contiguous in the stream: the next one starts where this one ends, unless
        // frames between them are aborted.
        self.rx_next_byte = f.start + f.len as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketKind;

    const SLOT: Time = 20_000_000;

    fn pkt(seq: u64, size: u32) -> Packet {
        Packet {
            flow: 0,
            kind: PacketKind::Data,
            dst: 0,
            seq,
            len: size,
            size,
            rwnd: 0,
            sent_at: 0,
            opt: Default::default(),
        }
    }

    fn params(fps: u32, rounds: u32) -> RlpParams {
        RlpParams {
            frame_payload_bytes: 10,
            frames_per_slot: fps,
            nak_rounds: rounds,
            t_ret: 5 * SLOT,
            t_abort: 3 * SLOT,
            idle_frames: 0,
        }
    }

    fn data(seq: u64, start: u64, len: u32, ends: Vec<PacketEnd>) -> Frame {
        Frame::Data {
            seq,
            retx: false,
            start,
            len,
            ends,
        }
    }

    #[test]
    fn stream_is_cut_into_frames_with_a_short_frame_at_the_end() {
        let mut e = RlpEntity::new(params(4, 2));
        e.offer_packet(0, pkt(0, 15));
        e.offer_packet(0, pkt(1, 8));
        assert_eq!(e.queued_packets(), 2);
        assert_eq!(e.queued_bytes(), 23);
        let f = e.poll_transmit(0, e.slot_opportunity());
        // 23 octets: 10 + 10 + 3 (short frame, no waiting for more data).
        let spans: Vec<(u64, u64, u32, Vec<u64>)> = f
            .iter()
            .map(|f| match f {
                Frame::Data {
                    seq,
                    start,
                    len,
                    ends,
                    ..
                } => (
                    *seq,
                    *start,
                    *len,
                    ends.iter().map(|e| e.packet.seq).collect(),
                ),
                _ => panic!("{f:?}"),
            })
            .collect();
        assert_eq!(
            spans,
            vec![
                (0, 0, 10, vec![]),
                (1, 10, 10, vec![0]),
                (2, 20, 3, vec![1])
            ]
        );
        assert_eq!(e.queued_packets(), 0);
        assert_eq!(e.queued_bytes(), 0);
        assert_eq!(e.l_vs(), 3);
        // The packet ending in frame 1 starts at 0; the one ending in frame 2 at 15.
        if let Frame::Data { ends, .. } = &f[2] {
            assert_eq!(ends[0].start, 15);
        }
        // A packet that ends mid-frame leaves the queue; one that only started stays.
        e.offer_packet(SLOT, pkt(2, 25));
        e.offer_packet(SLOT, pkt(3, 5));
        let f = e.poll_transmit(SLOT, e.slot_opportunity());
        assert_eq!(f.len(), 3);
        assert!(e.is_idle());
    }

    /// Round 1: one NAK, T_ret from its slot; round 2: two NAKs in two slots, T_abort from the
    /// second; then abort and delivery of what was held.
    #[test]
    fn rounds_send_one_then_two_naks_then_abort() {
        let mut rx = RlpEntity::new(params(3, 2));
        let p0 = PacketEnd {
            start: 0,
            packet: pkt(0, 10),
        };
        let p2 = PacketEnd {
            start: 20,
            packet: pkt(2, 10),
        };
        rx.on_frames(0, vec![data(0, 0, 10, vec![p0]), data(2, 20, 10, vec![p2])]);
        assert_eq!(rx.take_delivered(), vec![pkt(0, 10)]);
        assert_eq!((rx.l_vn(), rx.l_vr()), (1, 3));
        let mut naks = Vec::new();
        for k in 0..20 {
            for f in rx.poll_transmit(k * SLOT, rx.slot_opportunity()) {
                naks.push((k, f));
            }
            if rx.is_idle() {
                break;
            }
        }
        let nak = |first, last| Frame::Nak { first, last };
        // Round 1 at slot 0; T_ret (5 slots) expires at slot 5: round 2 in slots 5 and 6 (one
        // NAK per frame per slot); T_abort (3 slots) from slot 6 expires at slot 9.
        assert_eq!(naks, vec![(0, nak(1, 1)), (5, nak(1, 1)), (6, nak(1, 1))]);
        assert_eq!(rx.stats().frames_aborted, 1);
        assert!(rx.is_idle());
        // Packet 2 started after the hole: delivered at the abort.
        assert_eq!(rx.take_delivered(), vec![pkt(2, 10)]);
        assert_eq!(rx.stats().bytes_lost_to_abort, 10);
        assert_eq!(rx.l_vn(), 3);
    }

    #[test]
    fn one_round_means_one_nak_then_the_abort_timer() {
        let mut rx = RlpEntity::new(params(1, 1));
        rx.on_frames(0, vec![data(1, 10, 10, vec![])]);
        let mut sent = Vec::new();
        let mut k = 0;
        while !rx.is_idle() {
            for f in rx.poll_transmit(k * SLOT, rx.slot_opportunity()) {
                sent.push((k, f));
            }
            k += 1;
        }
        assert_eq!(sent, vec![(0, Frame::Nak { first: 0, last: 0 })]);
        // Aborted when T_abort (3 slots) expires.
        assert_eq!(k, 4);
        assert_eq!(rx.stats().frames_aborted, 1);
    }

    /// The entity vocabulary: `poll_timeout` names T_abort's expiry once the last round's
    /// NAK is out; `handle_timeout` before it changes nothing, at it aborts the frame.
    #[test]
    fn poll_timeout_names_the_nak_timer_and_handle_timeout_runs_it() {
        let mut rx = RlpEntity::new(params(1, 1));
        rx.on_frames(0, vec![data(1, 10, 10, vec![])]);
        assert_eq!(rx.poll_timeout(), None, "no timer before the NAK is sent");
        rx.poll_transmit(0, rx.slot_opportunity());
        let due = rx
            .poll_timeout()
            .expect("T_abort runs after the last round");
        assert_eq!(due, 3 * SLOT);
        rx.handle_timeout(due - 1);
        assert_eq!(rx.stats().frames_aborted, 0);
        rx.handle_timeout(due);
        assert_eq!(rx.stats().frames_aborted, 1);
        assert_eq!(rx.poll_timeout(), None);
    }

    #[test]
    fn consecutive_missing_frames_share_a_nak_and_the_last_round_runs_t_abort() {
        let mut p = params(2, 3);
        p.t_abort = 7 * SLOT;
        let mut rx = RlpEntity::new(p);
        rx.on_frames(0, vec![data(0, 0, 10, vec![]), data(5, 50, 10, vec![])]);
        // An idle frame reveals 6..8 (tail losses).
        rx.on_frames(0, vec![Frame::Idle { next_seq: 9 }]);
        assert_eq!(rx.missing_frames(), 7);
        let f = rx.poll_transmit(0, rx.slot_opportunity());
        assert_eq!(
            f,
            vec![
                Frame::Nak { first: 1, last: 4 },
                Frame::Nak { first: 6, last: 8 }
            ],
            "one NAK per run of consecutive missing frames"
        );
        let mut per_slot = Vec::new();
        for k in 1..40 {
            let f = rx.poll_transmit(k * SLOT, rx.slot_opportunity());
            if !f.is_empty() {
                assert!(f.iter().all(Frame::is_control));
                per_slot.push((k, f.len()));
            }
            if k == 19 {
                assert_eq!(rx.stats().frames_aborted, 0, "T_abort still running");
            }
        }
        // Round 2 at slots 5, 6; round 3 (the last) at 11, 12, 13; T_abort (not T_ret) from
        // 13: abort at 20.
        assert_eq!(per_slot, vec![(5, 2), (6, 2), (11, 2), (12, 2), (13, 2)]);
        assert_eq!(rx.stats().naks_sent, 12);
        assert_eq!(rx.stats().frames_aborted, 7);
        assert!(rx.is_idle());
    }

    #[test]
    fn a_recovered_frame_leaves_the_nak_list_mid_round() {
        let mut rx = RlpEntity::new(params(1, 3));
        rx.on_frames(0, vec![data(1, 10, 10, vec![])]);
        for k in 0..6 {
            rx.poll_transmit(k * SLOT, rx.slot_opportunity()); // round 1 NAK at 0, round 2's first NAK at 5
        }
        assert_eq!(rx.stats().naks_sent, 2);
        rx.on_frames(6 * SLOT, vec![data(0, 0, 10, vec![])]);
        assert!(
            rx.poll_transmit(6 * SLOT, rx.slot_opportunity()).is_empty(),
            "no second NAK of round 2"
        );
        assert_eq!(rx.stats().frames_recovered, 1);
        assert!(rx.is_idle());
    }

    #[test]
    fn sender_holds_recent_frames_and_prunes_old_ones() {
        let mut e = RlpEntity::new(params(16, 2));
        for i in 0..200 {
            e.offer_packet(0, pkt(i, 100));
        }
        let hold = e.hold_time();
        assert_eq!(hold, 2 * 5 * SLOT + 3 * SLOT + TX_HOLD_MARGIN);
        let mut k = 0;
        while e.queued_packets() > 0 {
            e.poll_transmit(k * SLOT, e.slot_opportunity());
            k += 1;
        }
        // 20 000 octets in 2000 frames over 125 slots (2.5 s): all younger than the hold time
        // except the first slots.
        e.poll_transmit(k * SLOT, e.slot_opportunity());
        let held = e.held_frames() as u64;
        assert!((MIN_HELD_FRAMES..2_000).contains(&held), "{held}");
        // Long after, only the last MIN_HELD_FRAMES remain (the 8-bit sequence space).
        e.poll_transmit(k * SLOT + 10 * NS_PER_S, e.slot_opportunity());
        assert_eq!(e.held_frames() as u64, MIN_HELD_FRAMES);
        // A NAK for a pruned frame gets no retransmission; one for a held frame does.
        e.on_frames(0, vec![Frame::Nak { first: 0, last: 0 }]);
        e.on_frames(
            0,
            vec![Frame::Nak {
                first: 1_999,
                last: 1_999,
            }],
        );
        let f = e.poll_transmit((k + 1) * SLOT + 10 * NS_PER_S, e.slot_opportunity());
        assert_eq!(f.len(), 1);
        assert!(matches!(
            f[0],
            Frame::Data {
                seq: 1_999,
                retx: true,
                ..
            }
        ));
        assert_eq!(e.stats().naks_unanswerable, 1);
    }

    #[test]
    fn zero_size_packet_is_carried_and_delivered() {
        let mut tx = RlpEntity::new(params(1, 2));
        let mut rx = RlpEntity::new(params(1, 2));
        tx.offer_packet(0, pkt(0, 10));
        tx.offer_packet(0, pkt(1, 0));
        for k in 0..3 {
            let f = tx.poll_transmit(k * SLOT, tx.slot_opportunity());
            rx.on_frames(k * SLOT, f);
        }
        let got: Vec<u64> = rx.take_delivered().iter().map(|p| p.seq).collect();
        assert_eq!(got, vec![0, 1]);
        assert!(tx.is_idle() && rx.is_idle());
    }
}
