//! The UMTS access node: a 384 kbit/s-class dedicated channel between the RNC and one UE.
//! Network side: the per-user downlink buffer (the RNC's RLC AM transmitter, with a queue
//! discipline) and the ACK rate/delay control on the ACKs leaving the RLC; radio: one
//! block-error channel per direction, one state per TTI; UE side: the UE's RLC AM entity,
//! fed by the UE host's ACKs (model-specs §1, §2; docs/models/rlc-am.md).
//!
//! ```text
//! wired --> [RNC: buffer + RLC AM] ~~DCH~~> [UE RLC AM] --> UE host (TCP receivers)
//! wired <-- [ACK control] <-- RLC AM rx <~~DCH~~ [UE RLC AM] <-- UE host's ACKs
//! ```

use crate::ack::AckRateControl;
use crate::config::{self, ScenarioConfig, UmtsConfig};
use crate::engine::{mean_wait_ms, millis, to_secs, RngStream, Time, TimerSlot};
use crate::packet::{HostId, Packet};
use crate::probe::Occupancy;
use crate::queue::{BufferDiscipline, BufferDrop, Verdict};
use crate::radio::channel::Channel;
use crate::radio::rlc_am::{Pdu, RlcAmEntity, RlcAmParams};
use crate::radio::TxOpportunity;
use crate::results::{AccessStats, BearerStats, RunResult};

use super::{Ctx, NodeEvent};

#[derive(Debug, Clone)]
pub enum UmtsEvent {
    /// A transmission time interval begins (the RNC's; the UE's too when the grids are
    /// aligned).
    Tti,
    /// The UE's transmission time interval, when its grid is offset from the RNC's.
    UeTti,
    /// PDUs of one TTI reach the UE (`to_ue`) or the RNC.
    RadioArrive { to_ue: bool, pdus: Vec<Pdu> },
    /// The ACK rate control's id_timer.
    AckTimer { generation: u32 },
}

/// Everything the node is built from (resolved by the configuration layer).
pub struct UmtsParams {
    pub rlc: RlcAmParams,
    pub tti: Time,
    pub pdus_per_tti: u32,
    pub one_way_delay: Time,
    /// The UE's TTIs begin this long after the RNC's (0: the same grid).
    pub ue_tti_offset: Time,
}

pub struct UmtsNode {
    /// The UE host this bearer serves.
    ue: HostId,
    rnc: RlcAmEntity,
    ue_rlc: RlcAmEntity,
    dl: Channel,
    ul: Channel,
    tti: Time,
    /// Offset of the UE's TTI grid from the RNC's (0: one grid).
    ue_offset: Time,
    /// The DCH's grant every TTI: a fixed number of PDUs (the transport format).
    grant: TxOpportunity,
    delay: Time,
    discipline: BufferDiscipline,
    ack_ctrl: Option<AckRateControl>,
    ack_timer: TimerSlot,
    /// Buffer drops, indexed by `BufferDrop`.
    buffer_drops: [u64; BufferDrop::ALL.len()],
    dl_ttis_lost: u64,
    ul_ttis_lost: u64,
    /// Downlink TTIs over the measured interval, and those whose frame the channel lost
    /// (whether or not they carried PDUs): the realised FER.
    dl_ttis_measured: u64,
    dl_frames_lost_measured: u64,
    /// BO statistics over the measured interval.
    occupancy: Occupancy,
    /// Emptied PDU lists of past TTIs, handed to the RLC entities again: a TTI's PDUs travel
    /// in their own list (the radio event's), and reusing the lists saves an allocation and a
    /// free per TTI and direction.
    pdu_lists: Vec<Vec<Pdu>>,
    /// The ACKs leaving the RNC in one step (`forward_acks` sends and empties it), a list
    /// kept for its allocation.
    acks_out: Vec<Packet>,
}

impl UmtsNode {
    /// The bearer a configuration describes, serving host `ue`; `rng(sub)` is the node's
    /// random stream `sub` (0 downlink channel, 1 uplink channel, 2 buffer discipline).
    pub fn from_config(
        cfg: &ScenarioConfig,
        r: &UmtsConfig,
        ue: HostId,
        rng: &dyn Fn(u64) -> RngStream,
    ) -> Self {
        let tti = millis(r.tti_ms);
        let ul_cfg = r.uplink.as_ref().unwrap_or(&r.downlink);
        Self::new(
            ue,
            UmtsParams {
                rlc: config::rlc_am_params(r),
                tti,
                pdus_per_tti: r.pdus_per_tti,
                one_way_delay: millis(r.one_way_delay_ms),
                ue_tti_offset: config::ue_tti_offset(r),
            },
            Channel::new(config::channel_model(&r.downlink), rng(0)),
            Channel::new(config::channel_model(ul_cfg), rng(1)),
            config::buffer_discipline(&r.buffer, cfg.tcp.packet_size_bytes, tti, rng(2)),
            config::ack_rate_params(&r.ack_control, tti).map(AckRateControl::new),
        )
    }

    pub fn new(
        ue: HostId,
        p: UmtsParams,
        dl: Channel,
        ul: Channel,
        discipline: BufferDiscipline,
        ack_ctrl: Option<AckRateControl>,
    ) -> Self {
        Self {
            ue,
            rnc: RlcAmEntity::new(p.rlc.clone()),
            ue_rlc: RlcAmEntity::new(p.rlc),
            dl,
            ul,
            tti: p.tti,
            ue_offset: p.ue_tti_offset,
            grant: TxOpportunity::Pdus(p.pdus_per_tti),
            delay: p.one_way_delay,
            discipline,
            ack_ctrl,
            ack_timer: TimerSlot::default(),
            buffer_drops: [0; BufferDrop::ALL.len()],
            dl_ttis_lost: 0,
            ul_ttis_lost: 0,
            dl_ttis_measured: 0,
            dl_frames_lost_measured: 0,
            occupancy: Occupancy::default(),
            pdu_lists: Vec::new(),
            acks_out: Vec::new(),
        }
    }

    /// The first TTI, at time 0 (and the UE's first, at its offset).
    pub fn start(&self, ctx: &mut Ctx) {
        ctx.schedule(0, NodeEvent::Umts(UmtsEvent::Tti));
        if self.ue_offset > 0 {
            ctx.schedule(self.ue_offset, NodeEvent::Umts(UmtsEvent::UeTti));
        }
    }

    pub fn handle(&mut self, ctx: &mut Ctx, ev: UmtsEvent) {
        match ev {
            UmtsEvent::Tti => self.on_tti(ctx),
            UmtsEvent::UeTti => self.on_ue_tti(ctx),
            UmtsEvent::RadioArrive { to_ue, pdus } => self.on_radio_arrive(ctx, to_ue, pdus),
            UmtsEvent::AckTimer { generation } => {
                if self.ack_timer.fire(generation) {
                    let now = ctx.now;
                    let bo = self.rnc.buffer_occupancy() as f64;
                    if let Some(c) = self.ack_ctrl.as_mut() {
                        c.handle_timeout_into(now, bo, &mut self.acks_out);
                    }
                    self.forward_acks(ctx);
                }
            }
        }
    }

    /// Data for the UE enters the RNC's buffer; anything else comes from the UE host.
    pub fn receive(&mut self, ctx: &mut Ctx, pkt: Packet) {
        if pkt.dst == self.ue {
            self.rnc_offer(ctx, pkt);
        } else {
            // The UE's uplink buffer is not limited: ACKs are small and few.
            self.ue_rlc.offer_sdu(ctx.now, pkt);
        }
    }

    /// One TTI: both channels advance whether or not anything is sent (model-specs §1.3), each
    /// RLC entity fills its PDU slots, and a lost TTI loses all its PDUs. With the UE's TTIs
    /// offset (`ue_tti_offset` > 0) this is the RNC's TTI only; the UE's is [`Self::on_ue_tti`].
    fn on_tti(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        let aligned = self.ue_offset == 0;
        let dl_lost = self.dl.advance();
        if now >= ctx.probe.measure_from {
            self.dl_ttis_measured += 1;
            self.dl_frames_lost_measured += u64::from(dl_lost);
        }
        self.discipline
            .advance(now, self.rnc.buffer_bytes() as f64 * 8.0);
        let discipline = &mut self.discipline;
        let mut dequeue_drops = [0u64; BufferDrop::ALL.len()];
        let mut dl = self.pdu_lists.pop().unwrap_or_default();
        self.rnc.poll_transmit_into(
            now,
            self.grant,
            &mut |sojourn, queued| match discipline.on_dequeue(now, sojourn, queued) {
                Some(reason) => {
                    dequeue_drops[reason as usize] += 1;
                    true
                }
                None => false,
            },
            &mut dl,
        );
        for (total, n) in self.buffer_drops.iter_mut().zip(dequeue_drops) {
            *total += n;
        }
        let dropped = self.rnc.take_dropped();
        // Aligned grids: the UE's TTI is this one (the order of the steps and of the events
        // scheduled is that of the single-grid model, kept bit for bit).
        let ul = aligned.then(|| self.ue_poll(now));
        self.send_radio(ctx, true, dl, dl_lost);
        if let Some((ul, ul_lost)) = ul {
            self.send_radio(ctx, false, ul, ul_lost);
        }
        ctx.schedule(now + self.tti, NodeEvent::Umts(UmtsEvent::Tti));
        // A TTI is an event of the ACK rate control too (access.ack_control.release).
        let bo = self.rnc.buffer_occupancy() as f64;
        // Even when it releases nothing: a TTI may set the control's timer (the next ACK's
        // spacing, ack/rate.rs), which only `forward_acks` puts on the event queue. Left to a
        // later call, that deadline was scheduled in the past and the clock ran backwards.
        if let Some(c) = self.ack_ctrl.as_mut() {
            c.on_tti_into(now, bo, &mut self.acks_out);
            self.forward_acks(ctx);
        }
        // CoDel drops at dequeue and MaxDAT discards, for the drop trace.
        for pkt in dropped {
            ctx.probe.drop(now, &pkt);
        }
    }

    /// The UE's TTI when its grid is offset from the RNC's.
    fn on_ue_tti(&mut self, ctx: &mut Ctx) {
        let (ul, ul_lost) = self.ue_poll(ctx.now);
        self.send_radio(ctx, false, ul, ul_lost);
        ctx.schedule(ctx.now + self.tti, NodeEvent::Umts(UmtsEvent::UeTti));
    }

    /// The UE side of a TTI: the uplink channel's state, and the PDUs its RLC sends.
    fn ue_poll(&mut self, now: Time) -> (Vec<Pdu>, bool) {
        let ul_lost = self.ul.advance();
        self.ue_rlc.take_dropped();
        let mut ul = self.pdu_lists.pop().unwrap_or_default();
        self.ue_rlc
            .poll_transmit_into(now, self.grant, &mut |_, _| false, &mut ul);
        (ul, ul_lost)
    }

    /// PDUs sent in a TTI reach the other end one way later, unless the TTI is lost.
    fn send_radio(&mut self, ctx: &mut Ctx, to_ue: bool, mut pdus: Vec<Pdu>, lost: bool) {
        if pdus.is_empty() {
            self.pdu_lists.push(pdus);
            return;
        }
        if lost {
            if to_ue {
                self.dl_ttis_lost += 1;
            } else {
                self.ul_ttis_lost += 1;
            }
            pdus.clear();
            self.pdu_lists.push(pdus);
            return;
        }
        let ev = UmtsEvent::RadioArrive { to_ue, pdus };
        ctx.schedule(ctx.now + self.delay, NodeEvent::Umts(ev));
    }

    fn on_radio_arrive(&mut self, ctx: &mut Ctx, to_ue: bool, mut pdus: Vec<Pdu>) {
        let now = ctx.now;
        if to_ue {
            self.ue_rlc.on_pdus_drain(&mut pdus);
            for pkt in self.ue_rlc.drain_delivered() {
                ctx.send(pkt);
            }
        } else {
            self.discipline
                .advance(now, self.rnc.buffer_bytes() as f64 * 8.0);
            self.rnc.on_pdus_drain(&mut pdus);
            let bo = self.rnc.buffer_occupancy() as f64;
            match self.ack_ctrl.as_mut() {
                None => self.acks_out.extend(self.rnc.drain_delivered()),
                Some(c) => {
                    for a in self.rnc.drain_delivered() {
                        c.on_ack_into(now, a, bo, &mut self.acks_out);
                    }
                }
            }
            self.forward_acks(ctx);
            // STATUS reports free SDUs from the downlink buffer.
            self.trace_buffer(ctx);
        }
        self.pdu_lists.push(pdus);
    }

    /// The ACKs in `acks_out` leave the RNC towards the server (the list is left empty);
    /// keeps the ACK control's timer in step.
    fn forward_acks(&mut self, ctx: &mut Ctx) {
        if let Some(c) = self.ack_ctrl.as_ref() {
            ctx.sync(&mut self.ack_timer, c.poll_timeout(), |generation| {
                NodeEvent::Umts(UmtsEvent::AckTimer { generation })
            });
        }
        for pkt in self.acks_out.drain(..) {
            ctx.send(pkt);
        }
    }

    /// A data packet reached the RNC: the buffer's discipline admits or drops it.
    fn rnc_offer(&mut self, ctx: &mut Ctx, pkt: Packet) {
        let now = ctx.now;
        let bo_bits = self.rnc.buffer_bytes() as f64 * 8.0;
        self.discipline.advance(now, bo_bits);
        let verdict = self.discipline.on_arrival(
            now,
            self.rnc.buffer_occupancy(),
            bo_bits,
            pkt.size as f64 * 8.0,
        );
        let dropped = match verdict {
            Verdict::Admit => {
                self.rnc.offer_sdu(now, pkt);
                None
            }
            Verdict::Drop(reason) => {
                self.buffer_drops[reason as usize] += 1;
                Some(pkt)
            }
            Verdict::AdmitDropFirstUnsent(reason) => {
                self.rnc.offer_sdu(now, pkt);
                let victim = self.rnc.drop_first_unsent();
                if victim.is_some() {
                    self.buffer_drops[reason as usize] += 1;
                }
                victim
            }
        };
        if let Some(p) = dropped {
            ctx.probe.drop(now, &p);
        }
        self.trace_buffer(ctx);
    }

    /// Keep BO statistics (max, time average over the measured interval) and the trace.
    fn trace_buffer(&mut self, ctx: &mut Ctx) {
        let bo = self.rnc.buffer_occupancy();
        if self.occupancy.update(ctx.now, ctx.probe.measure_from, bo) {
            if let Some(t) = ctx.probe.traces.as_mut() {
                t.buffer.push(to_secs(ctx.now), 0, bo as f64);
            }
        }
    }

    pub fn finish(&mut self, r: &mut RunResult, end: Time, measure_from: Time) {
        let ack = self.ack_ctrl.as_ref().map(|c| &c.stats);
        r.access = Some(AccessStats::Umts(BearerStats {
            drops: BufferDrop::ALL
                .iter()
                .map(|d| (d.name().to_string(), self.buffer_drops[*d as usize]))
                .chain([("rlc_maxdat".to_string(), self.rnc.stats.sdus_discarded)])
                .collect(),
            mean_buffer_sdus: self.occupancy.mean(end, measure_from),
            max_buffer_sdus: self.occupancy.max as u32,
            dl_ttis_lost: self.dl_ttis_lost,
            ul_ttis_lost: self.ul_ttis_lost,
            dl_fer: self.dl_frames_lost_measured as f64 / self.dl_ttis_measured.max(1) as f64,
            dl_data_pdus_sent: self.rnc.stats.data_pdus_sent,
            dl_data_pdus_retransmitted: self.rnc.stats.data_pdus_retransmitted,
            ul_data_pdus_sent: self.ue_rlc.stats.data_pdus_sent,
            dl_status_pdus: self.ue_rlc.stats.status_pdus_sent,
            ul_status_pdus: self.rnc.stats.status_pdus_sent,
            dl_polls: self.rnc.stats.polls_sent,
            mrw_procedures: self.rnc.stats.mrw_sent,
            acks_delayed: ack.map_or(0, |s| s.acks_delayed),
            ack_delay_mean_ms: ack.map_or(0.0, |s| mean_wait_ms(s.total_delay, s.acks_delayed)),
        }));
    }
}
