//! The IS-707 RLP access node: the IAP's buffer and RLP entity, one frame-error channel per
//! direction with one state per 20 ms slot, and the mobile host's RLP entity, fed by the
//! mobile host's ACKs (model-specs §1.3, §3; docs/models/rlp.md).

use crate::config::{self, RlpConfig, ScenarioConfig};
use crate::engine::{millis, to_secs, RngStream, Time};
use crate::packet::{HostId, Packet};
use crate::probe::Occupancy;
use crate::radio::channel::Channel;
use crate::radio::rlp::{Frame, RlpEntity, RlpParams};
use crate::results::{AccessStats, RlpLinkStats, RunResult};

use super::{Ctx, NodeEvent};

#[derive(Debug, Clone)]
pub enum RlpEvent {
    /// A frame slot begins.
    Slot,
    /// The frames of one slot reach the mobile host (`to_mh`) or the IAP.
    Arrive { to_mh: bool, frames: Vec<Frame> },
}

pub struct RlpNodeParams {
    pub rlp: RlpParams,
    pub slot: Time,
    pub one_way_delay: Time,
    /// IP packets the IAP buffer holds (drop-tail).
    pub iap_limit: usize,
    /// The forward link's maximum TCP goodput, kb/s (the normalised goodput's denominator).
    pub max_goodput_kbps: f64,
}

pub struct RlpNode {
    /// The mobile host this link serves.
    mh: HostId,
    iap: RlpEntity,
    mh_rlp: RlpEntity,
    fwd: Channel,
    rev: Channel,
    slot: Time,
    delay: Time,
    iap_limit: usize,
    iap_drops: u64,
    fwd_slots_lost: u64,
    rev_slots_lost: u64,
    slots: u64,
    max_goodput_kbps: f64,
    occupancy: Occupancy,
}

impl RlpNode {
    /// The RLP link a configuration describes, serving host `mh`; `rng(sub)` is the node's
    /// random stream `sub` (0 forward channel, 1 reverse channel).
    pub fn from_config(
        cfg: &ScenarioConfig,
        c: &RlpConfig,
        mh: HostId,
        rng: &dyn Fn(u64) -> RngStream,
    ) -> Self {
        let rev_cfg = c.reverse.as_ref().unwrap_or(&c.forward);
        // Bai et al. normalise by the link's maximum net payload rate; counted in TCP
        // payload (MSS of every packet_size octets) so that an error-free link reaches 1.
        let stream_kbps = c.frame_payload_bytes as f64 * c.frames_per_slot as f64 * 8.0 / c.slot_ms;
        let mss = (cfg.tcp.packet_size_bytes - cfg.tcp.header_bytes) as f64;
        Self::new(
            mh,
            RlpNodeParams {
                rlp: config::rlp_params(c),
                slot: millis(c.slot_ms),
                one_way_delay: millis(c.one_way_delay_ms),
                iap_limit: c.iap_buffer_packets as usize,
                max_goodput_kbps: stream_kbps * mss / cfg.tcp.packet_size_bytes as f64,
            },
            Channel::new(config::channel_model(&c.forward), rng(0)),
            Channel::new(config::channel_model(rev_cfg), rng(1)),
        )
    }

    pub fn new(mh: HostId, p: RlpNodeParams, fwd: Channel, rev: Channel) -> Self {
        Self {
            mh,
            iap: RlpEntity::new(p.rlp.clone()),
            mh_rlp: RlpEntity::new(p.rlp),
            fwd,
            rev,
            slot: p.slot,
            delay: p.one_way_delay,
            iap_limit: p.iap_limit,
            iap_drops: 0,
            fwd_slots_lost: 0,
            rev_slots_lost: 0,
            slots: 0,
            max_goodput_kbps: p.max_goodput_kbps,
            occupancy: Occupancy::default(),
        }
    }

    /// The first slot, at time 0.
    pub fn start(ctx: &mut Ctx) {
        ctx.schedule(0, NodeEvent::Rlp(RlpEvent::Slot));
    }

    pub fn handle(&mut self, ctx: &mut Ctx, ev: RlpEvent) {
        match ev {
            RlpEvent::Slot => self.on_slot(ctx),
            RlpEvent::Arrive { to_mh, frames } => {
                let now = ctx.now;
                if to_mh {
                    self.mh_rlp.on_frames(now, frames);
                    for pkt in self.mh_rlp.take_delivered() {
                        ctx.send(pkt);
                    }
                } else {
                    self.iap.on_frames(now, frames);
                    for pkt in self.iap.take_delivered() {
                        ctx.send(pkt);
                    }
                }
            }
        }
    }

    /// Data for the mobile host enters the IAP buffer; anything else comes from the mobile.
    pub fn receive(&mut self, ctx: &mut Ctx, pkt: Packet) {
        if pkt.dst != self.mh {
            self.mh_rlp.offer_packet(ctx.now, pkt);
            return;
        }
        // Drop-tail on the IAP buffer (packets not yet framed).
        if self.iap.queued_packets() >= self.iap_limit {
            self.iap_drops += 1;
            ctx.probe.drop(ctx.now, &pkt);
        } else {
            self.iap.offer_packet(ctx.now, pkt);
            self.trace_iap(ctx);
        }
    }

    /// One frame slot: both channels advance (one Markov step per 20 ms frame, model-specs
    /// §1.3), each entity fills the slot (NAKs, retransmissions, new data, idle frames), and a
    /// lost slot loses all its frames. Frames arriving at this instant were handed in first
    /// (their events were scheduled earlier), as the entity expects.
    fn on_slot(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        self.slots += 1;
        let fwd_lost = self.fwd.advance();
        let rev_lost = self.rev.advance();
        let fwd = self.iap.poll_transmit(now, self.iap.slot_opportunity());
        let rev = self
            .mh_rlp
            .poll_transmit(now, self.mh_rlp.slot_opportunity());
        let arrive = now + self.delay;
        for (frames, lost, to_mh) in [(fwd, fwd_lost, true), (rev, rev_lost, false)] {
            if lost {
                if to_mh {
                    self.fwd_slots_lost += 1;
                } else {
                    self.rev_slots_lost += 1;
                }
            } else if !frames.is_empty() {
                ctx.schedule(arrive, NodeEvent::Rlp(RlpEvent::Arrive { to_mh, frames }));
            }
        }
        ctx.schedule(now + self.slot, NodeEvent::Rlp(RlpEvent::Slot));
        // An abort in poll_transmit releases the data held behind the gap.
        for pkt in self.mh_rlp.take_delivered() {
            ctx.send(pkt);
        }
        for pkt in self.iap.take_delivered() {
            ctx.send(pkt);
        }
        // Framing took packets out of the IAP buffer.
        self.trace_iap(ctx);
    }

    fn trace_iap(&mut self, ctx: &mut Ctx) {
        let n = self.iap.queued_packets();
        if self.occupancy.update(ctx.now, ctx.probe.measure_from, n) {
            if let Some(t) = ctx.probe.traces.as_mut() {
                t.buffer.push(to_secs(ctx.now), 0, n as f64);
            }
        }
    }

    pub fn finish(&mut self, r: &mut RunResult, end: Time, measure_from: Time) {
        let fwd = self.iap.stats();
        let rx = self.mh_rlp.stats();
        let slots = self.slots.max(1) as f64;
        r.access = Some(AccessStats::Rlp(RlpLinkStats {
            drops: [
                ("iap_full".to_string(), self.iap_drops),
                ("aborted".to_string(), rx.packets_lost_to_abort),
            ]
            .into(),
            mean_iap_packets: self.occupancy.mean(end, measure_from),
            max_iap_packets: self.occupancy.max as u32,
            fwd_fer: self.fwd_slots_lost as f64 / slots,
            rev_fer: self.rev_slots_lost as f64 / slots,
            fwd_data_frames: fwd.data_frames_sent,
            fwd_retx_frames: fwd.retx_frames_sent,
            fwd_idle_frames: fwd.idle_frames_sent,
            fwd_naks: rx.naks_sent,
            fwd_frames_recovered: rx.frames_recovered,
            fwd_frames_aborted: rx.frames_aborted,
            fwd_duplicates: rx.duplicates_dropped,
            rev_frames_aborted: fwd.frames_aborted,
            rev_packets_lost_to_abort: fwd.packets_lost_to_abort,
            max_goodput_kbps: self.max_goodput_kbps,
        }));
    }
}
