//! UMTS RLC acknowledged mode (3GPP TS 25.322 subset; model-specs §2), sans-IO.
//!
//! One [`RlcAmEntity`] is one end of an AM bearer: a transmitter for the SDUs it is given and a
//! receiver for the peer's PDUs. The MAC (the access node) calls [`RlcAmEntity::poll_transmit`] once
//! per TTI with its transmission opportunity ([`TxOpportunity`]), hands the peer's surviving PDUs to
//! [`RlcAmEntity::on_pdus`], and collects the SDUs delivered in sequence. Timers (Timer_Poll,
//! Timer_Poll_Prohibit, Timer_Status_Prohibit, Timer_MRW) are deadlines checked at each TTI:
//! an entity can only act when MAC gives it a transmission opportunity, so nothing is lost by
//! evaluating them on the TTI grid.
//!
//! Simplifications (docs/models/rlc-am.md): sequence numbers are kept unbounded instead of
//! modulo 4096 (the window, at most 2047, keeps modular and absolute order identical); a STATUS
//! PDU carries every missing SN up to VR(H) (no SUFI capacity limit); SDUs leave the transmit
//! buffer when VT(A) passes their last PDU; the MRW procedure is retried until acknowledged
//! (no MaxMRW / RLC RESET); no piggybacked STATUS.

use std::collections::VecDeque;

use crate::engine::Time;
use crate::packet::Packet;
use crate::radio::TxOpportunity;

/// Octets of the AMD PDU header: D/C, 12-bit SN, P, HE (25.322 §9.2.1.4).
pub const AMD_HEADER_BYTES: u32 = 2;

/// Parameters of one AM entity (both ends use the same set).
#[derive(Debug, Clone)]
pub struct RlcAmParams {
    /// Payload octets of an AMD PDU (40 for the 336-bit PDU with a 16-bit header).
    pub pdu_payload_bytes: u32,
    /// Octets of a length indicator (1 for PDUs up to 126 octets, §2.2).
    pub li_bytes: u32,
    /// Configured_Tx_Window_Size = Configured_Rx_Window_Size, in PDUs.
    pub window_pdus: u32,
    /// A PDU is transmitted at most MaxDAT - 1 times (§2.3, 25.322 §9.6).
    pub max_dat: u32,
    pub timer_poll: Time,
    /// 0 disables Timer_Poll_Prohibit.
    pub timer_poll_prohibit: Time,
    /// 0 disables Timer_Status_Prohibit.
    pub timer_status_prohibit: Time,
    /// Poll when ((VT(S) + 1 - VT(A)) / VT(WS)) * 100 >= poll_window_pct; >100 disables.
    pub poll_window_pct: f64,
    pub poll_last_pdu: bool,
    pub poll_last_retransmitted: bool,
    pub missing_pdu_indicator: bool,
    pub timer_mrw: Time,
}

/// One SDU end inside a PDU: the SDU's id and the packet it carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SduEnd {
    pub sdu: u64,
    pub packet: Packet,
}

/// What travels over the air.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pdu {
    /// AMD PDU. `first_sdu`/`last_sdu`: the SDUs owning its first and last payload octet;
    /// `ends`: the SDUs that end in it (their length indicators).
    Data {
        sn: u32,
        poll: bool,
        first_sdu: u64,
        last_sdu: u64,
        ends: Vec<SduEnd>,
    },
    /// STATUS: every SN below `lsn` is acknowledged except those in `nacks` (ACK + LIST SUFIs).
    Status { lsn: u32, nacks: Vec<u32> },
    /// MRW SUFI: discard PDUs below `sn_mrw` and every SDU with id <= `discard_upto`.
    Mrw { sn_mrw: u32, discard_upto: u64 },
    /// MRW_ACK SUFI with the receiver's new VR(R).
    MrwAck { sn_ack: u32 },
}

impl Pdu {
    pub fn is_control(&self) -> bool {
        !matches!(self, Pdu::Data { .. })
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RlcStats {
    pub data_pdus_sent: u64,
    pub data_pdus_retransmitted: u64,
    pub status_pdus_sent: u64,
    pub polls_sent: u64,
    pub mrw_sent: u64,
    /// SDUs discarded after MaxDAT.
    pub sdus_discarded: u64,
    /// SDUs dropped by the dequeue hook (CoDel) instead of being transmitted.
    pub sdus_dropped_at_dequeue: u64,
    pub sdus_delivered: u64,
    pub duplicate_pdus_received: u64,
}

#[derive(Debug, Clone)]
struct TxSdu {
    id: u64,
    packet: Packet,
    /// When the SDU entered the buffer (sojourn times for CoDel and PIE).
    enqueued_at: Time,
    /// Octets not yet segmented into a PDU.
    unsegmented: u32,
    /// SN of the PDU holding its last octet, once segmented.
    last_pdu: Option<u32>,
}

#[derive(Debug, Clone)]
struct TxPdu {
    first_sdu: u64,
    last_sdu: u64,
    ends: Vec<SduEnd>,
    /// VT(DAT): times scheduled for transmission.
    vt_dat: u32,
    acked: bool,
    /// In the retransmission queue (`RlcAmEntity::retx`): a NACK for a PDU already queued
    /// changes nothing, and a PDU leaving the window leaves the queue only if it is there.
    queued: bool,
}

#[derive(Debug, Clone)]
struct MrwState {
    sn_mrw: u32,
    discard_upto: u64,
    deadline: Time,
    send: bool,
}

#[derive(Debug, Clone)]
struct RxPdu {
    ends: Vec<SduEnd>,
}

/// The PDUs of one side of the entity, keyed by SN, in a ring of slots indexed by SN modulo a
/// power of two at least the window. The SNs held always lie within one window: in
/// [VT(A), VT(S)) with VT(S) <= VT(MS) = VT(A) + VT(WS) for the transmitter, in
/// [VR(R), VR(MR)) for the receiver (the state variables of TS 25.322 §9.4) - the bound that
/// lets the real protocol count SNs modulo 4096. So two SNs held never share a slot, and each
/// access is an index instead of a tree search. Each slot keeps the SN it holds, so a lookup
/// of an SN outside the window finds nothing.
#[derive(Debug, Clone)]
struct SnRing<T> {
    slots: Vec<Option<(u32, T)>>,
    mask: u32,
}

impl<T> SnRing<T> {
    fn new(window: u32) -> Self {
        let cap = window.max(1).next_power_of_two();
        Self {
            slots: (0..cap).map(|_| None).collect(),
            mask: cap - 1,
        }
    }

    #[inline]
    fn slot(&self, sn: u32) -> usize {
        (sn & self.mask) as usize
    }

    #[inline]
    fn get(&self, sn: u32) -> Option<&T> {
        match &self.slots[self.slot(sn)] {
            Some((s, t)) if *s == sn => Some(t),
            _ => None,
        }
    }

    #[inline]
    fn get_mut(&mut self, sn: u32) -> Option<&mut T> {
        let i = self.slot(sn);
        match &mut self.slots[i] {
            Some((s, t)) if *s == sn => Some(t),
            _ => None,
        }
    }

    #[inline]
    fn contains(&self, sn: u32) -> bool {
        self.get(sn).is_some()
    }

    /// Hold `t` under `sn`. Its slot must be free: an SN one capacity apart still held would
    /// mean the window bound was broken.
    #[inline]
    fn insert(&mut self, sn: u32, t: T) {
        let i = self.slot(sn);
        assert!(
            self.slots[i].as_ref().is_none_or(|(s, _)| *s == sn),
            "SN {sn} outside the window of the SNs held"
        );
        self.slots[i] = Some((sn, t));
    }

    /// The SNs held, in slot order (for the invariant checks of debug builds).
    #[cfg(debug_assertions)]
    fn held(&self) -> impl Iterator<Item = u32> + '_ {
        self.slots.iter().flatten().map(|(s, _)| *s)
    }

    #[inline]
    fn remove(&mut self, sn: u32) -> Option<T> {
        let i = self.slot(sn);
        match &self.slots[i] {
            Some((s, _)) if *s == sn => self.slots[i].take().map(|(_, t)| t),
            _ => None,
        }
    }
}

/// SNs of the PDUs awaiting retransmission, ascending, each once.
#[derive(Debug, Clone, Default)]
struct RetxQueue(VecDeque<u32>);

impl RetxQueue {
    #[inline]
    fn insert(&mut self, sn: u32) {
        if self.0.back().is_none_or(|&b| b < sn) {
            self.0.push_back(sn);
        } else if let Err(i) = self.0.binary_search(&sn) {
            self.0.insert(i, sn);
        }
    }

    #[inline]
    fn remove(&mut self, sn: u32) {
        if self.0.front().is_some_and(|&f| f <= sn) {
            if let Ok(i) = self.0.binary_search(&sn) {
                self.0.remove(i);
            }
        }
    }

    #[inline]
    fn pop_first(&mut self) -> Option<u32> {
        self.0.pop_front()
    }

    #[inline]
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Add a PDU to a TTI's list, which holds at most `slots` PDUs: the first one sizes the list
/// for the whole grant (one allocation per TTI that sends anything, not a growth by doubling
/// from one PDU; an idle TTI allocates nothing).
#[inline]
fn push_pdu(out: &mut Vec<Pdu>, slots: usize, pdu: Pdu) {
    if out.capacity() == 0 {
        out.reserve_exact(slots);
    }
    out.push(pdu);
}

/// Whether the Poll_Window trigger fires with `n` = VT(S) + 1 - VT(A) PDUs of the window:
/// ((VT(S) + 1 - VT(A)) / VT(WS)) * 100 >= poll_window_pct, in floating point.
fn poll_window_fires(n: u32, window: u32, pct: f64) -> bool {
    n as f64 / window as f64 * 100.0 >= pct
}

/// The least `n` for which [`poll_window_fires`] holds (`u32::MAX` if none up to the window),
/// so that the per-PDU check is one integer comparison with the same outcome: `n as f64` is
/// exact, and dividing and multiplying by positive constants with rounding to nearest never
/// decrease, so the float test is false below that `n` and true from it on. A NaN percentage
/// never fires, as in the float test.
fn poll_window_threshold(window: u32, pct: f64) -> u32 {
    let (mut lo, mut hi) = (0u32, window.saturating_add(1));
    // Invariant: no n < lo fires; hi fires, or hi = window + 1 (none up to the window).
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if poll_window_fires(mid, window, pct) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    if lo > window {
        u32::MAX
    } else {
        lo
    }
}

/// One end of an RLC AM bearer.
#[derive(Debug, Clone)]
pub struct RlcAmEntity {
    p: RlcAmParams,
    /// The least VT(S) + 1 - VT(A) at which the Poll_Window trigger fires (`u32::MAX`:
    /// never), found once from the trigger's float formula (see `poll_window_threshold`).
    poll_window_n: u32,
    // ---- transmitter ----
    sdus: VecDeque<TxSdu>,
    /// Index in `sdus` of the first SDU with octets left to segment (SDUs are segmented in
    /// order), and the octets left in all: segmentation never rescans the buffer.
    seg_idx: usize,
    unseg_bytes: u64,
    /// Octets of all SDUs held (the buffer occupancy in bytes).
    held_bytes: u64,
    next_sdu_id: u64,
    /// An SDU end whose LI did not fit in the PDU that took its last octet ("previous PDU
    /// exactly filled", §2.2): it is signalled in the next PDU.
    pending_end: Option<(SduEnd, u32)>,
    /// VT(S): next SN sent for the first time.
    vt_s: u32,
    /// VT(A): lower edge of the transmit window.
    vt_a: u32,
    /// PDUs in [VT(A), VT(S)) not discarded, by SN.
    tx: SnRing<TxPdu>,
    /// NACKed PDUs awaiting retransmission, lowest SN first (a sorted set: NACKs mostly
    /// arrive above the SNs already queued, and the queue is served from its front).
    retx: RetxQueue,
    poll_triggered: bool,
    /// Timer_Poll: (deadline, VT(S) when the poll was sent).
    poll_timer: Option<(Time, u32)>,
    poll_prohibit_until: Time,
    mrw: Option<MrwState>,
    // ---- receiver ----
    /// VR(R): next in-sequence SN expected.
    vr_r: u32,
    /// VR(H): one past the highest SN received.
    vr_h: u32,
    /// PDUs received in [VR(R), VR(H)), by SN.
    rx: SnRing<RxPdu>,
    /// SDUs with id <= this were discarded by the peer (MRW) and are never delivered.
    rx_discard_upto: Option<u64>,
    status_triggered: bool,
    status_prohibit_until: Time,
    mrw_ack: Option<u32>,
    delivered: Vec<Packet>,
    /// SDUs this transmitter dropped (dequeue hook, MaxDAT discard) since the last
    /// `take_dropped`, for the caller's drop trace.
    dropped: Vec<Packet>,
    pub stats: RlcStats,
}

impl RlcAmEntity {
    pub fn new(p: RlcAmParams) -> Self {
        Self {
            poll_window_n: poll_window_threshold(p.window_pdus, p.poll_window_pct),
            tx: SnRing::new(p.window_pdus),
            rx: SnRing::new(p.window_pdus),
            p,
            sdus: VecDeque::new(),
            seg_idx: 0,
            unseg_bytes: 0,
            held_bytes: 0,
            next_sdu_id: 0,
            pending_end: None,
            vt_s: 0,
            vt_a: 0,
            retx: RetxQueue::default(),
            poll_triggered: false,
            poll_timer: None,
            poll_prohibit_until: 0,
            mrw: None,
            vr_r: 0,
            vr_h: 0,
            rx_discard_upto: None,
            status_triggered: false,
            status_prohibit_until: 0,
            mrw_ack: None,
            delivered: Vec::new(),
            dropped: Vec::new(),
            stats: RlcStats::default(),
        }
    }

    /// Buffer occupancy: SDUs held by the transmitter (queued, in flight or awaiting
    /// acknowledgement), as the papers count it.
    pub fn buffer_occupancy(&self) -> usize {
        self.sdus.len()
    }

    /// Buffer occupancy in octets.
    pub fn buffer_bytes(&self) -> u64 {
        self.held_bytes
    }

    pub fn vt_a(&self) -> u32 {
        self.vt_a
    }
    pub fn vt_s(&self) -> u32 {
        self.vt_s
    }
    pub fn vr_r(&self) -> u32 {
        self.vr_r
    }
    pub fn vr_h(&self) -> u32 {
        self.vr_h
    }

    /// VT(MS) = VT(A) + VT(WS): no new PDU at or beyond it.
    fn vt_ms(&self) -> u32 {
        self.vt_a + self.p.window_pdus
    }

    /// Take an SDU (an IP packet) from the upper layer. Admission (buffer limits, AQM) is the
    /// caller's decision.
    pub fn offer_sdu(&mut self, now: Time, packet: Packet) {
        self.sdus.push_back(TxSdu {
            id: self.next_sdu_id,
            packet,
            enqueued_at: now,
            unsegmented: packet.size,
            last_pdu: None,
        });
        self.unseg_bytes += packet.size as u64;
        self.held_bytes += packet.size as u64;
        self.next_sdu_id += 1;
    }

    /// Remove the first SDU whose transmission has not started (no octet segmented yet), for
    /// disciplines that drop from the queue rather than at its tail.
    pub fn drop_first_unsent(&mut self) -> Option<Packet> {
        let idx = (self.seg_idx..self.sdus.len())
            .find(|&i| self.sdus[i].unsegmented == self.sdus[i].packet.size)?;
        let s = self.sdus.remove(idx)?;
        self.unseg_bytes -= s.unsegmented as u64;
        self.held_bytes -= s.packet.size as u64;
        Some(s.packet)
    }

    /// SDUs delivered in sequence since the last call.
    pub fn take_delivered(&mut self) -> Vec<Packet> {
        std::mem::take(&mut self.delivered)
    }

    /// [`Self::take_delivered`] keeping the list's allocation for the next deliveries.
    pub fn drain_delivered(&mut self) -> std::vec::Drain<'_, Packet> {
        self.delivered.drain(..)
    }

    fn has_unsegmented(&self) -> bool {
        self.pending_end.is_some() || self.unseg_bytes > 0
    }

    /// Remove the oldest SDU, keeping the segmentation cursor in step.
    /// SDUs dropped by the dequeue hook or discarded after MaxDAT since the last call.
    pub fn take_dropped(&mut self) -> Vec<Packet> {
        std::mem::take(&mut self.dropped)
    }

    fn pop_sdu(&mut self) -> Option<TxSdu> {
        let s = self.sdus.pop_front()?;
        self.unseg_bytes -= s.unsegmented as u64;
        self.held_bytes -= s.packet.size as u64;
        self.seg_idx = self.seg_idx.saturating_sub(1);
        Some(s)
    }

    // ------------------------------------------------------------------------------------
    // Transmitter
    // ------------------------------------------------------------------------------------

    /// Fill the MAC's transmission opportunity for this TTI: control PDUs, then
    /// retransmissions (lowest SN first), then new PDUs while the window allows (§2.4). The
    /// poll bit goes on the last data PDU of the TTI when a trigger fired and polling is not
    /// prohibited (§2.5). PDUs have a fixed size (Rel-99 AM on a DCH), so a grant in octets
    /// holds as many whole PDUs as fit.
    pub fn poll_transmit(&mut self, now: Time, op: TxOpportunity) -> Vec<Pdu> {
        self.poll_transmit_with(now, op, &mut |_, _| false)
    }

    /// Octets of one PDU on the air: the payload and the 16-bit AMD header.
    pub fn pdu_bytes(&self) -> u32 {
        self.p.pdu_payload_bytes + AMD_HEADER_BYTES
    }

    /// [`Self::poll_transmit`] with a dequeue hook: when the transmission of an SDU is about to
    /// start, `dequeue(sojourn, queued_bytes)` is asked whether to drop it instead (CoDel
    /// drops at dequeue); `queued_bytes` counts the octets not yet sent behind it.
    pub fn poll_transmit_with(
        &mut self,
        now: Time,
        op: TxOpportunity,
        dequeue: &mut dyn FnMut(Time, u64) -> bool,
    ) -> Vec<Pdu> {
        let mut out = Vec::new();
        self.poll_transmit_into(now, op, dequeue, &mut out);
        out
    }

    /// [`Self::poll_transmit_with`] into the caller's empty `out`, so that a driver can hand
    /// the same list back TTI after TTI instead of allocating one per TTI.
    pub fn poll_transmit_into(
        &mut self,
        now: Time,
        op: TxOpportunity,
        dequeue: &mut dyn FnMut(Time, u64) -> bool,
        out: &mut Vec<Pdu>,
    ) {
        debug_assert!(out.is_empty());
        self.handle_timeout(now);
        let slots = op.pdus(self.pdu_bytes());
        // Data PDUs in `out`. Control PDUs all come first (step 1), so the data PDUs are the
        // list's last `n_data`: no pass over the list to find or count them.
        let mut n_data = 0usize;
        // 1. Control: STATUS (when not prohibited), MRW_ACK, MRW.
        if self.status_triggered && now >= self.status_prohibit_until && out.len() < slots {
            push_pdu(out, slots, self.build_status());
            self.status_triggered = false;
            self.stats.status_pdus_sent += 1;
            if self.p.timer_status_prohibit > 0 {
                self.status_prohibit_until = now + self.p.timer_status_prohibit;
            }
        }
        if let Some(sn_ack) = self.mrw_ack.take() {
            if out.len() < slots {
                push_pdu(out, slots, Pdu::MrwAck { sn_ack });
            } else {
                self.mrw_ack = Some(sn_ack);
            }
        }
        if let Some(m) = self.mrw.as_mut() {
            if m.send && out.len() < slots {
                push_pdu(
                    out,
                    slots,
                    Pdu::Mrw {
                        sn_mrw: m.sn_mrw,
                        discard_upto: m.discard_upto,
                    },
                );
                m.send = false;
                m.deadline = now + self.p.timer_mrw;
                self.stats.mrw_sent += 1;
            }
        }
        // 2. Retransmissions.
        while out.len() < slots {
            let Some(sn) = self.retx.pop_first() else {
                break;
            };
            if let Some(t) = self.tx.get_mut(sn) {
                t.queued = false;
            }
            if let Some(pdu) = self.schedule_existing(now, sn) {
                if self.retx.is_empty() && self.p.poll_last_retransmitted {
                    self.poll_triggered = true;
                }
                self.stats.data_pdus_retransmitted += 1;
                push_pdu(out, slots, pdu);
                n_data += 1;
            }
        }
        // 3. New PDUs.
        while out.len() < slots && self.vt_s < self.vt_ms() {
            // A middle piece of an SDU already started: the dequeue hook has nothing to ask
            // (only an SDU's start is asked about) and more of the SDU stays unsegmented (no
            // poll for the buffer's last PDU), so only the window's poll check precedes it.
            if self.middle_piece_next(true) {
                self.window_poll_check();
                let pdu = self.cut_middle_piece();
                push_pdu(out, slots, pdu);
                n_data += 1;
                continue;
            }
            let dropped_before = self.stats.sdus_dropped_at_dequeue;
            self.dequeue_at_head(now, dequeue);
            if !self.has_unsegmented() {
                // Drops at dequeue emptied the buffer: the PDU sent last is now the last PDU
                // in the buffer, and it must carry (or a carrier must carry) the poll, or the
                // tail would wait for nothing.
                if self.stats.sdus_dropped_at_dequeue > dropped_before
                    && self.p.poll_last_pdu
                    && self.vt_s > self.vt_a
                {
                    self.poll_triggered = true;
                }
                break;
            }
            self.window_poll_check();
            let pdu = self.segment_new_pdu(now, dequeue);
            if !self.has_unsegmented() && self.p.poll_last_pdu {
                self.poll_triggered = true;
            }
            push_pdu(out, slots, pdu);
            n_data += 1;
        }
        // Timer_Poll expired or a prohibited poll is now allowed, but nothing to carry it:
        // retransmit VT(S) - 1 as the carrier (§2.5).
        // The carrier may be a PDU the receiver already acknowledged: the poll is what matters,
        // and the receiver drops the duplicate but still answers the poll.
        let has_data = n_data > 0;
        if self.poll_triggered
            && !has_data
            && now >= self.poll_prohibit_until
            && out.len() < slots
            && self.vt_s > self.vt_a
        {
            let carrier = self.vt_s - 1;
            let pdu = match self.tx.get(carrier) {
                Some(t) if t.acked => Some(Pdu::Data {
                    sn: carrier,
                    poll: false,
                    first_sdu: t.first_sdu,
                    last_sdu: t.last_sdu,
                    ends: t.ends.clone(),
                }),
                Some(_) => self.schedule_existing(now, carrier),
                None => None,
            };
            if let Some(pdu) = pdu {
                self.unqueue(carrier);
                self.stats.data_pdus_retransmitted += 1;
                push_pdu(out, slots, pdu);
                n_data += 1;
            }
        }
        if self.vt_s == self.vt_a && !self.has_unsegmented() {
            // Nothing outstanding: there is nothing to poll about.
            self.poll_triggered = false;
            self.poll_timer = None;
        }
        // Poll bit on the last data PDU.
        if self.poll_triggered && now >= self.poll_prohibit_until {
            let last_data = if n_data > 0 { out.last_mut() } else { None };
            if let Some(Pdu::Data { poll, .. }) = last_data {
                *poll = true;
                self.poll_triggered = false;
                self.stats.polls_sent += 1;
                self.poll_timer = Some((now + self.p.timer_poll, self.vt_s));
                if self.p.timer_poll_prohibit > 0 {
                    self.poll_prohibit_until = now + self.p.timer_poll_prohibit;
                }
            }
        }
        self.stats.data_pdus_sent += n_data as u64;
        debug_assert_eq!(n_data, out.iter().filter(|p| !p.is_control()).count());
        debug_assert_eq!(
            self.unseg_bytes,
            self.sdus.iter().map(|s| s.unsegmented as u64).sum::<u64>()
        );
        debug_assert!(self
            .sdus
            .iter()
            .skip(self.seg_idx)
            .all(|s| s.unsegmented > 0));
        #[cfg(debug_assertions)]
        self.check_windows();
    }

    /// The bound the SN rings rely on: every PDU held lies in [VT(A), VT(S)) (transmitter)
    /// or [VR(R), VR(H)) (receiver), each within one window.
    #[cfg(debug_assertions)]
    fn check_windows(&self) {
        assert!(self.vt_s - self.vt_a <= self.p.window_pdus);
        assert!(self.tx.held().all(|sn| sn >= self.vt_a && sn < self.vt_s));
        // The retransmission queue: ascending, and exactly the PDUs flagged `queued`.
        assert!(self.retx.0.iter().is_sorted_by(|a, b| a < b));
        assert!(self
            .retx
            .0
            .iter()
            .all(|&sn| self.tx.get(sn).is_some_and(|t| t.queued)));
        assert_eq!(
            self.tx
                .slots
                .iter()
                .flatten()
                .filter(|(_, t)| t.queued)
                .count(),
            self.retx.0.len()
        );
        assert!(self.vr_h <= self.vr_r + self.p.window_pdus);
        assert!(self.rx.held().all(|sn| sn >= self.vr_r && sn < self.vr_h));
    }

    /// Poll_Window trigger, evaluated per new PDU with VT(S) before submission (§2.5).
    fn window_poll_check(&mut self) {
        if self.vt_s + 1 - self.vt_a >= self.poll_window_n {
            self.poll_triggered = true;
        }
    }

    /// Schedule an already-numbered PDU again; applies the VT(DAT) rule and starts the SDU
    /// discard when MaxDAT is reached (§2.3, §2.7).
    fn schedule_existing(&mut self, now: Time, sn: u32) -> Option<Pdu> {
        let t = self.tx.get_mut(sn)?;
        if t.acked {
            return None;
        }
        t.vt_dat += 1;
        if t.vt_dat >= self.p.max_dat {
            self.discard_after_max_dat(now, sn);
            return None;
        }
        Some(Pdu::Data {
            sn,
            poll: false,
            first_sdu: t.first_sdu,
            last_sdu: t.last_sdu,
            ends: t.ends.clone(),
        })
    }

    /// Build the next AMD PDU from the SDU queue: bytewise packing with one LI per SDU end and
    /// concatenation (§2.2).
    /// Ask the dequeue hook about the untouched SDU at `idx`; drop it if told to. `queued` is
    /// the octets not yet sent, this SDU included.
    fn ask_dequeue(
        &mut self,
        now: Time,
        idx: usize,
        queued: u64,
        dequeue: &mut dyn FnMut(Time, u64) -> bool,
    ) -> bool {
        let s = &self.sdus[idx];
        let sojourn = now.saturating_sub(s.enqueued_at);
        let behind = queued - s.unsegmented as u64;
        if !dequeue(sojourn, behind) {
            return false;
        }
        let s = self.sdus.remove(idx).expect("index in range");
        self.unseg_bytes -= s.unsegmented as u64;
        self.held_bytes -= s.packet.size as u64;
        self.stats.sdus_dropped_at_dequeue += 1;
        self.dropped.push(s.packet);
        true
    }

    /// Apply the dequeue hook to the SDUs at the head of the unsent queue before a new PDU is
    /// numbered, so that a PDU is never opened for data that is then dropped.
    fn dequeue_at_head(&mut self, now: Time, dequeue: &mut dyn FnMut(Time, u64) -> bool) {
        while self.seg_idx < self.sdus.len()
            && self.sdus[self.seg_idx].unsegmented == self.sdus[self.seg_idx].packet.size
            && self.ask_dequeue(now, self.seg_idx, self.unseg_bytes, dequeue)
        {}
    }

    /// Whether the next new PDU is a middle piece of the SDU at the segmentation cursor: no
    /// LI pending and more of the SDU left than the PDU holds. Most PDUs are (a 1500-octet
    /// packet spans some 38 PDUs of 40). With `started`, only of an SDU whose transmission
    /// has begun, which the dequeue hook is no longer asked about.
    #[inline]
    fn middle_piece_next(&self, started: bool) -> bool {
        self.pending_end.is_none()
            && self.sdus.get(self.seg_idx).is_some_and(|s| {
                s.unsegmented > self.p.pdu_payload_bytes
                    && !(started && s.unsegmented == s.packet.size)
            })
    }

    /// Cut the middle piece [`Self::middle_piece_next`] found: what the packing loop of
    /// `segment_new_pdu` does then, directly. The PDU takes a whole payload of the SDU,
    /// carries no LI, and the segmentation cursor stays on that SDU.
    // Inlined so that the new-PDU loop writes the PDU into its list without a call and a
    // copy of the PDU returned.
    #[inline(always)]
    fn cut_middle_piece(&mut self) -> Pdu {
        let cap = self.p.pdu_payload_bytes;
        let sn = self.vt_s;
        self.vt_s += 1;
        let s = &mut self.sdus[self.seg_idx];
        s.unsegmented -= cap;
        self.unseg_bytes -= cap as u64;
        let id = s.id;
        self.new_data_pdu(sn, id, id, Vec::new())
    }

    /// A new AMD PDU `sn`, recorded in the transmit window for its first transmission
    /// (VT(DAT) = 1) and returned to be sent.
    #[inline(always)]
    fn new_data_pdu(&mut self, sn: u32, first_sdu: u64, last_sdu: u64, ends: Vec<SduEnd>) -> Pdu {
        self.tx.insert(
            sn,
            TxPdu {
                first_sdu,
                last_sdu,
                ends: ends.clone(),
                vt_dat: 1,
                acked: false,
                queued: false,
            },
        );
        Pdu::Data {
            sn,
            poll: false,
            first_sdu,
            last_sdu,
            ends,
        }
    }

    fn segment_new_pdu(&mut self, now: Time, dequeue: &mut dyn FnMut(Time, u64) -> bool) -> Pdu {
        if self.middle_piece_next(false) {
            return self.cut_middle_piece();
        }
        let cap = self.p.pdu_payload_bytes;
        let li = self.p.li_bytes;
        let sn = self.vt_s;
        self.vt_s += 1;
        let mut space = cap;
        let mut ends = Vec::new();
        let mut first_sdu = None;
        let mut last_sdu = 0;
        if let Some((end, _)) = self.pending_end.take() {
            // The LI of an SDU that exactly filled the previous PDU.
            space -= li;
            first_sdu = Some(end.sdu);
            last_sdu = end.sdu;
            // Its SDU lies before the segmentation cursor, most often just before it; the
            // ids ascend along the queue, so a binary search finds it otherwise.
            let i = self.seg_idx.wrapping_sub(1);
            let at = if self.sdus.get(i).is_some_and(|s| s.id == end.sdu) {
                Some(i)
            } else {
                self.sdus.binary_search_by_key(&end.sdu, |s| s.id).ok()
            };
            if let Some(i) = at {
                self.sdus[i].last_pdu = Some(sn);
            }
            ends.push(end);
        }
        let start = self.seg_idx;
        let mut idx = start;
        while space > 0 && idx < self.sdus.len() {
            // An SDU whose transmission would start here may be dropped at dequeue instead
            // (the first one was asked by `dequeue_at_head` already).
            if idx != start
                && self.sdus[idx].unsegmented == self.sdus[idx].packet.size
                && self.ask_dequeue(now, idx, self.unseg_bytes, dequeue)
            {
                continue;
            }
            let s = &mut self.sdus[idx];
            let had = s.unsegmented as u64;
            first_sdu.get_or_insert(s.id);
            last_sdu = s.id;
            if s.unsegmented + li <= space {
                space -= s.unsegmented + li;
                s.unsegmented = 0;
                s.last_pdu = Some(sn);
                ends.push(SduEnd {
                    sdu: s.id,
                    packet: s.packet,
                });
            } else if s.unsegmented <= space {
                // The SDU fills the PDU exactly (or leaves too little room for its LI): the
                // end is signalled at the start of the next PDU.
                s.unsegmented = 0;
                self.pending_end = Some((
                    SduEnd {
                        sdu: s.id,
                        packet: s.packet,
                    },
                    sn,
                ));
                space = 0;
            } else {
                s.unsegmented -= space;
                space = 0;
            }
            let now_left = s.unsegmented;
            self.unseg_bytes -= had - now_left as u64;
            if now_left == 0 {
                idx += 1;
            }
        }
        while self
            .sdus
            .get(self.seg_idx)
            .is_some_and(|s| s.unsegmented == 0)
        {
            self.seg_idx += 1;
        }
        let first_sdu = first_sdu.unwrap_or(last_sdu);
        self.new_data_pdu(sn, first_sdu, last_sdu, ends)
    }

    /// §2.7: discard every SDU with a segment in PDUs [VT(A), x], remove the PDUs that carry
    /// only discarded data, and start (or extend) the MRW procedure.
    fn discard_after_max_dat(&mut self, now: Time, x: u32) {
        let d = self.tx.get(x).map_or(0, |t| t.last_sdu);
        // The PDU holding the end of SDU d: already segmented, or x if d is cut short here.
        let mut end_pdu = x;
        let mut discarded = 0;
        while let Some(s) = self.sdus.front() {
            if s.id > d {
                break;
            }
            if s.id == d {
                match s.last_pdu {
                    Some(e) if s.unsegmented == 0 => end_pdu = end_pdu.max(e),
                    _ => end_pdu = x,
                }
            }
            if let Some(s) = self.pop_sdu() {
                self.dropped.push(s.packet);
            }
            discarded += 1;
        }
        if let Some((end, _)) = &self.pending_end {
            if end.sdu <= d {
                self.pending_end = None;
            }
        }
        self.stats.sdus_discarded += discarded;
        // Keep the end PDU if it also carries the start of a later SDU.
        let keeps_later = self.tx.get(end_pdu).is_some_and(|t| t.last_sdu > d);
        let sn_mrw = if keeps_later { end_pdu } else { end_pdu + 1 };
        // The PDUs held lie in [VT(A), VT(S)): those below SN_MRW go.
        for k in self.vt_a..sn_mrw.min(self.vt_s) {
            if self.tx.remove(k).is_some_and(|t| t.queued) {
                self.retx.remove(k);
            }
        }
        if sn_mrw > self.vt_s {
            self.vt_s = sn_mrw;
        }
        let (sn_mrw, discard_upto) = match &self.mrw {
            Some(m) => (m.sn_mrw.max(sn_mrw), m.discard_upto.max(d)),
            None => (sn_mrw, d),
        };
        self.mrw = Some(MrwState {
            sn_mrw,
            discard_upto,
            deadline: now + self.p.timer_mrw,
            send: true,
        });
    }

    /// Run the timers due at `now`: Timer_Poll (a poll goes on the next PDU) and the MRW
    /// timer (the MRW is sent again). [`Self::poll_transmit`] runs this first, so a driver
    /// that polls every TTI need not call it.
    pub fn handle_timeout(&mut self, now: Time) {
        if let Some((deadline, _)) = self.poll_timer {
            if now >= deadline {
                // Timer_Poll expired without a STATUS that stops it: poll again.
                self.poll_timer = None;
                self.poll_triggered = true;
            }
        }
        if let Some(m) = self.mrw.as_mut() {
            if !m.send && now >= m.deadline {
                m.send = true;
            }
        }
    }

    /// The earliest running timer: Timer_Poll, or the MRW timer while its MRW waits.
    pub fn poll_timeout(&self) -> Option<Time> {
        let poll = self.poll_timer.map(|(t, _)| t);
        let mrw = self.mrw.as_ref().filter(|m| !m.send).map(|m| m.deadline);
        poll.into_iter().chain(mrw).min()
    }

    /// Apply a STATUS from the peer's receiver (§2.6, sender side).
    fn on_status(&mut self, lsn: u32, nacks: &[u32]) {
        // The receiver lists the missing SNs in ascending order (`build_status`, as the LIST
        // and BITMAP SUFIs of TS 25.322 §9.2.2.11 do): one merged walk with the window's SNs
        // tells the acknowledged ones. Any other order is sorted first.
        let sorted;
        let nacks = if nacks.is_sorted() {
            nacks
        } else {
            sorted = {
                let mut v = nacks.to_vec();
                v.sort_unstable();
                v
            };
            &sorted[..]
        };
        let upper = lsn.min(self.vt_s);
        // The lowest SN below `upper` held and still unacknowledged after this STATUS.
        let mut first_unacked = None;
        // NACKs below VT(A) name PDUs no longer held.
        let mut k = nacks.partition_point(|&n| n < self.vt_a);
        let mut sn = self.vt_a;
        while sn < upper {
            // The SNs before the next NACK in range are acknowledged: a run with no NACK to
            // compare each one with.
            let nack = nacks.get(k).copied().filter(|&n| n < upper);
            for s in sn..nack.unwrap_or(upper) {
                if let Some(t) = self.tx.get_mut(s) {
                    t.acked = true;
                }
            }
            let Some(n) = nack else {
                break;
            };
            if let Some(t) = self.tx.get_mut(n) {
                if !t.acked {
                    first_unacked.get_or_insert(n);
                    if !t.queued {
                        t.queued = true;
                        self.retx.insert(n);
                    }
                }
            }
            // Past this NACK and any repeat of it.
            while nacks.get(k).is_some_and(|&m| m <= n) {
                k += 1;
            }
            sn = n + 1;
        }
        // NACKs at or above LSN (a receiver lists none: its list stops at VR(H)).
        for &sn in &nacks[k..] {
            if sn >= self.vt_a && sn < self.vt_s {
                if let Some(t) = self.tx.get_mut(sn).filter(|t| !t.acked && !t.queued) {
                    t.queued = true;
                    self.retx.insert(sn);
                }
            }
        }
        // Timer_Poll stops on a positive ACK of everything below the polled VT(S), or on a
        // NACK of its last PDU (§2.5).
        if let Some((_, x)) = self.poll_timer {
            let all_acked = first_unacked.is_none_or(|f| f >= x)
                && (upper.max(self.vt_a)..x).all(|sn| self.tx.get(sn).is_none_or(|t| t.acked));
            if all_acked || (x > 0 && nacks.binary_search(&(x - 1)).is_ok()) {
                self.poll_timer = None;
            }
        }
        self.advance_vt_a();
    }

    /// Take `sn` out of the retransmission queue if it is there.
    fn unqueue(&mut self, sn: u32) {
        if let Some(t) = self.tx.get_mut(sn).filter(|t| t.queued) {
            t.queued = false;
            self.retx.remove(sn);
        }
    }

    /// Move VT(A) over acknowledged or discarded PDUs and release the SDUs they complete.
    fn advance_vt_a(&mut self) {
        let floor = self.mrw.as_ref().map(|m| m.sn_mrw);
        while self.vt_a < self.vt_s {
            // One look at VT(A)'s slot, emptied in place (not a lookup and then a removal).
            let i = self.tx.slot(self.vt_a);
            match &self.tx.slots[i] {
                Some((s, t)) if *s == self.vt_a => {
                    if !t.acked {
                        break;
                    }
                    if t.queued {
                        self.retx.remove(self.vt_a);
                    }
                    self.tx.slots[i] = None;
                }
                // Removed by a discard: VT(A) may pass it only once the MRW is acknowledged.
                _ if floor.is_none_or(|f| self.vt_a >= f) => {}
                _ => break,
            }
            self.vt_a += 1;
        }
        while let Some(s) = self.sdus.front() {
            match s.last_pdu {
                Some(e) if s.unsegmented == 0 && e < self.vt_a => {
                    self.pop_sdu();
                }
                _ => break,
            }
        }
    }

    fn on_mrw_ack(&mut self, sn_ack: u32) {
        if let Some(m) = &self.mrw {
            if sn_ack >= m.sn_mrw {
                self.vt_a = self.vt_a.max(m.sn_mrw);
                self.mrw = None;
                self.advance_vt_a();
            }
        }
    }

    // ------------------------------------------------------------------------------------
    // Receiver
    // ------------------------------------------------------------------------------------

    fn build_status(&self) -> Pdu {
        let nacks = (self.vr_r..self.vr_h)
            .filter(|sn| !self.rx.contains(*sn))
            .collect();
        Pdu::Status {
            lsn: self.vr_h,
            nacks,
        }
    }

    /// PDUs from the peer that survived the channel, in transmission order.
    pub fn on_pdus(&mut self, mut pdus: Vec<Pdu>) {
        self.on_pdus_drain(&mut pdus);
    }

    /// [`Self::on_pdus`] emptying the caller's list, whose allocation the caller keeps.
    pub fn on_pdus_drain(&mut self, pdus: &mut Vec<Pdu>) {
        for pdu in pdus.drain(..) {
            match pdu {
                Pdu::Data { sn, poll, ends, .. } => self.on_data(sn, poll, ends),
                Pdu::Status { lsn, nacks } => self.on_status(lsn, &nacks),
                Pdu::Mrw {
                    sn_mrw,
                    discard_upto,
                } => self.on_mrw(sn_mrw, discard_upto),
                Pdu::MrwAck { sn_ack } => self.on_mrw_ack(sn_ack),
            }
        }
        #[cfg(debug_assertions)]
        self.check_windows();
    }

    fn on_data(&mut self, sn: u32, poll: bool, ends: Vec<SduEnd>) {
        if poll {
            self.status_triggered = true;
        }
        // VR(MR) = VR(R) + window: outside [VR(R), VR(MR)) is a duplicate or out of window.
        if sn < self.vr_r || sn >= self.vr_r + self.p.window_pdus || self.rx.contains(sn) {
            self.stats.duplicate_pdus_received += 1;
            return;
        }
        if sn > self.vr_h && self.p.missing_pdu_indicator {
            // VR(H) .. sn-1 are missing (§2.6 "Missing PDU Indicator").
            self.status_triggered = true;
        }
        self.vr_h = self.vr_h.max(sn + 1);
        if sn == self.vr_r {
            // In sequence (the common case): deliver at once instead of holding the PDU in
            // its slot only for `advance_vr_r` to take it out again.
            self.deliver_ends(ends);
            self.vr_r += 1;
            // PDUs are held only in [VR(R), VR(H)): with VR(R) at VR(H) (no hole was filled)
            // there is nothing further to deliver.
            if self.vr_r < self.vr_h {
                self.advance_vr_r();
            }
        } else {
            // Out of sequence: VR(R) is still missing (its slot is empty between calls, as
            // `advance_vr_r` left it), so nothing becomes deliverable.
            self.rx.insert(sn, RxPdu { ends });
        }
        debug_assert!(!self.rx.contains(self.vr_r));
    }

    /// Deliver the SDUs that end in the PDU at VR(R), but those the peer discarded (MRW).
    #[inline]
    fn deliver_ends(&mut self, ends: Vec<SduEnd>) {
        for e in ends {
            if self.rx_discard_upto.is_none_or(|d| e.sdu > d) {
                self.delivered.push(e.packet);
                self.stats.sdus_delivered += 1;
            }
        }
    }

    /// Advance VR(R) over the PDUs held in sequence and deliver the SDUs they complete
    /// (in-sequence delivery, §2.8).
    fn advance_vr_r(&mut self) {
        while let Some(p) = self.rx.remove(self.vr_r) {
            self.deliver_ends(p.ends);
            self.vr_r += 1;
        }
    }

    fn on_mrw(&mut self, sn_mrw: u32, discard_upto: u64) {
        self.rx_discard_upto = Some(
            self.rx_discard_upto
                .map_or(discard_upto, |d| d.max(discard_upto)),
        );
        if sn_mrw > self.vr_r {
            // PDUs below SN_MRW carry only discarded SDUs: drop them without delivery.
            // The PDUs held lie in [VR(R), VR(H)).
            for k in self.vr_r..sn_mrw.min(self.vr_h) {
                self.rx.remove(k);
            }
            self.vr_r = sn_mrw;
        }
        self.advance_vr_r();
        self.vr_h = self.vr_h.max(self.vr_r);
        self.mrw_ack = Some(self.vr_r);
    }

    /// True while anything is left to do: data to send or acknowledge, timers running.
    pub fn is_idle(&self) -> bool {
        self.sdus.is_empty()
            && self.retx.is_empty()
            && self.mrw.is_none()
            && self.mrw_ack.is_none()
            && !self.status_triggered
            && !self.poll_triggered
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The integer threshold gives the float formula's answer for every n of the window.
    #[test]
    fn poll_window_threshold_matches_the_float_test() {
        let pcts = [
            0.0,
            1.0,
            12.5,
            33.3,
            50.0,
            60.0,
            66.7,
            99.9,
            100.0,
            100.1,
            150.0,
            -5.0,
            f64::NAN,
        ];
        for window in [1u32, 2, 3, 7, 10, 64, 100, 127, 333, 1000, 1024, 2047, 4095] {
            for pct in pcts {
                let t = poll_window_threshold(window, pct);
                for n in 1..=window {
                    assert_eq!(
                        n >= t,
                        poll_window_fires(n, window, pct),
                        "window {window} pct {pct} n {n}"
                    );
                }
            }
        }
    }
}
