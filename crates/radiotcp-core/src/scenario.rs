//! The scenario: K bulk flows from one server through a chain of links to one client, ACKs
//! back through the same links in the other direction; optionally a UMTS radio bearer (RLC AM
//! over a block-error channel) between the end of the chain (the RNC) and the client (the UE).
//!
//! ```text
//! server (K senders) --link 0--> ... --link n-1--> [RNC: buffer + RLC AM] ~~DCH~~ UE (K receivers)
//!                    <--link 0--  ...  <--link n-1--  RLC AM rx <~~DCH~~ RLC AM tx (ACKs)
//! ```
//!
//! The scenario owns the event queue and all entities, and is the only place that turns what a
//! sans-IO entity asks for (a segment, an ACK, a deadline) into events.

use crate::ack::{AckRateControl, AckRateParams};
use crate::bs_ack::{BsAckController, DataVerdict};
use crate::config::{
    ChannelConfig, ChannelKind, DelayDirections, RadioConfig, RlpConfig, ScenarioConfig, TcpConfig,
};
use crate::delay::VariableDelay;
use crate::engine::{
    millis, secs, stream, to_millis, to_secs, EventQueue, RngStream, Time, TimerSlot, NS_PER_MS,
};
use crate::error::RunError;
use crate::link::{Dir, DropReason, Enqueued, LinkDir, Packet, PacketKind};
use crate::queue::{BufferDiscipline, BufferDrop, Verdict};
use crate::radio::channel::{Channel, ChannelModel, MarkovParams};
use crate::radio::rlc_am::{Pdu, RlcAmEntity, RlcAmParams};
use crate::radio::rlp::{Frame, RlpEntity, RlpParams};
use crate::results::{
    BearerStats, BsAckResult, FlowStats, LinkStats, RlpLinkStats, RunResult, Traces,
};
use crate::spurious::SpuriousTracker;
use crate::tcp::{Ack, ReceiverParams, SenderParams, TcpReceiver, TcpSender};
use crate::RunOptions;

/// How often (in events) the caller's stop check runs: rare enough to cost nothing, frequent
/// enough that Ctrl-C answers within milliseconds.
const STOP_CHECK_EVERY: u64 = 1 << 16;

#[derive(Debug, Clone)]
enum Event {
    FlowStart(u32),
    /// The packet in service on (link, dir) finished serialisation.
    TxDone {
        link: u32,
        dir: Dir,
    },
    /// A packet reached the far end of (link, dir).
    Arrive {
        link: u32,
        dir: Dir,
        pkt: Packet,
    },
    SenderTimer {
        flow: u32,
        generation: u32,
    },
    ReceiverTimer {
        flow: u32,
        generation: u32,
    },
    /// A transmission time interval of the radio bearer begins.
    Tti,
    /// PDUs of one TTI reach the UE (`to_ue`) or the RNC.
    RadioArrive {
        to_ue: bool,
        pdus: Vec<Pdu>,
    },
    /// The ACK rate control's id_timer.
    AckTimer {
        generation: u32,
    },
    /// The base-station ACK controller's txTimer.
    BsTimer {
        generation: u32,
    },
    /// A 20 ms frame slot of the IS-707 RLP link begins.
    RlpSlot,
    /// The frames of one slot reach the mobile host (`to_mh`) or the IAP.
    RlpArrive {
        to_mh: bool,
        frames: Vec<Frame>,
    },
}

fn channel_model(c: &ChannelConfig) -> ChannelModel {
    match c.model {
        ChannelKind::None => ChannelModel::ErrorFree,
        ChannelKind::Iid => ChannelModel::Iid { fer: c.fer },
        ChannelKind::Markov => ChannelModel::Markov(
            MarkovParams::from_fer_doppler(c.fer, c.fd_t)
                .expect("channel parameters validated with the configuration"),
        ),
    }
}

/// The radio bearer: the RNC's RLC entity (whose transmitter is the per-user buffer), the
/// UE's, and one channel per direction.
struct Bearer {
    rnc: RlcAmEntity,
    ue: RlcAmEntity,
    dl: Channel,
    ul: Channel,
    tti: Time,
    slots: u32,
    delay: Time,
    discipline: BufferDiscipline,
    ack_ctrl: Option<AckRateControl>,
    ack_timer: TimerSlot,
    /// Buffer drops, indexed by `BufferDrop`.
    buffer_drops: [u64; BufferDrop::ALL.len()],
    dl_ttis_lost: u64,
    ul_ttis_lost: u64,
    /// BO statistics over the measured interval.
    occupancy: Occupancy,
}

impl Bearer {
    fn new(r: &RadioConfig, sdu_bytes: u32, seed: u64, run_index: u64) -> Self {
        let p = RlcAmParams {
            pdu_payload_bytes: r.pdu_payload_bytes,
            li_bytes: r.li_bytes,
            window_pdus: r.rlc.window_pdus,
            max_dat: r.rlc.max_dat,
            timer_poll: millis(r.rlc.poll_timer_ms),
            timer_poll_prohibit: millis(r.rlc.poll_prohibit_ms),
            timer_status_prohibit: millis(r.rlc.status_prohibit_ms),
            poll_window_pct: r.rlc.poll_window_pct,
            poll_last_pdu: r.rlc.poll_last_pdu,
            poll_last_retransmitted: r.rlc.poll_last_retransmitted,
            missing_pdu_indicator: r.rlc.missing_pdu_indicator,
            timer_mrw: millis(r.rlc.mrw_timer_ms),
        };
        let ul_cfg = r.uplink.as_ref().unwrap_or(&r.downlink);
        Self {
            rnc: RlcAmEntity::new(p.clone()),
            ue: RlcAmEntity::new(p),
            dl: Channel::new(
                channel_model(&r.downlink),
                RngStream::new(seed, run_index, stream::RADIO_BASE),
            ),
            ul: Channel::new(
                channel_model(ul_cfg),
                RngStream::new(seed, run_index, stream::RADIO_BASE + 1),
            ),
            tti: millis(r.tti_ms),
            slots: r.pdus_per_tti,
            delay: millis(r.one_way_delay_ms),
            ack_ctrl: AckRateParams::from_config(&r.ack_control, millis(r.tti_ms))
                .map(AckRateControl::new),
            ack_timer: TimerSlot::default(),
            discipline: BufferDiscipline::from_config(
                &r.buffer,
                sdu_bytes,
                millis(r.tti_ms),
                RngStream::new(seed, run_index, stream::RADIO_BASE + 2),
            ),
            buffer_drops: [0; BufferDrop::ALL.len()],
            dl_ttis_lost: 0,
            ul_ttis_lost: 0,
            occupancy: Occupancy::default(),
        }
    }
}

/// The IS-707 RLP link: the IAP's RLP entity (fed by the IAP buffer), the mobile host's, and
/// one frame-error channel per direction, one state per slot (model-specs §1.3, §3).
struct RlpLink {
    iap: RlpEntity,
    mh: RlpEntity,
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

impl RlpLink {
    fn new(c: &RlpConfig, tcp: &TcpConfig, seed: u64, run_index: u64) -> Self {
        let p = RlpParams {
            frame_payload_bytes: c.frame_payload_bytes,
            frames_per_slot: c.frames_per_slot,
            nak_rounds: c.nak_rounds,
            t_ret: millis(c.t_ret_ms),
            t_abort: millis(c.t_abort_ms),
            idle_frames: c.idle_frames,
        };
        let rev_cfg = c.reverse.as_ref().unwrap_or(&c.forward);
        // Bai et al. normalise by the link's maximum net payload rate; counted in TCP payload
        // (MSS of every packet_size octets) so that an error-free link reaches 1.
        let stream_kbps = c.frame_payload_bytes as f64 * c.frames_per_slot as f64 * 8.0 / c.slot_ms;
        let mss = (tcp.packet_size_bytes - tcp.header_bytes) as f64;
        Self {
            iap: RlpEntity::new(p.clone()),
            mh: RlpEntity::new(p),
            fwd: Channel::new(
                channel_model(&c.forward),
                RngStream::new(seed, run_index, stream::RLP_BASE),
            ),
            rev: Channel::new(
                channel_model(rev_cfg),
                RngStream::new(seed, run_index, stream::RLP_BASE + 1),
            ),
            slot: millis(c.slot_ms),
            delay: millis(c.one_way_delay_ms),
            iap_limit: c.iap_buffer_packets as usize,
            iap_drops: 0,
            fwd_slots_lost: 0,
            rev_slots_lost: 0,
            slots: 0,
            max_goodput_kbps: stream_kbps * mss / tcp.packet_size_bytes as f64,
            occupancy: Occupancy::default(),
        }
    }
}

/// Time-average and maximum of a buffer occupancy over the measured interval.
#[derive(Default)]
struct Occupancy {
    max: usize,
    /// Integral of the occupancy (units * ns) and the time of the last change.
    area: f64,
    since: Time,
    last: usize,
}

impl Occupancy {
    /// Record a new value at `now`; returns whether it changed.
    fn update(&mut self, now: Time, measure_from: Time, value: usize) -> bool {
        if value == self.last {
            return false;
        }
        let from = self.since.max(measure_from);
        if now > from {
            self.area += self.last as f64 * (now - from) as f64;
        }
        self.since = now;
        self.last = value;
        self.max = self.max.max(value);
        true
    }

    fn mean(&mut self, end: Time, measure_from: Time) -> f64 {
        let from = self.since.max(measure_from);
        if end > from {
            self.area += self.last as f64 * (end - from) as f64;
            self.since = end;
        }
        self.area / (end - measure_from) as f64
    }
}

/// The base-station ACK controller at the node before link `link` (the BS -> MH link).
struct BaseStation {
    link: u32,
    ctrl: BsAckController,
    timer: TimerSlot,
}

struct Flow {
    sender: TcpSender,
    receiver: TcpReceiver,
    snd_timer: TimerSlot,
    rcv_timer: TimerSlot,
    start: Time,
    bytes_delivered: u64,
    /// One-way delays (ns) of data segments arriving in the measured interval.
    delays: Vec<Time>,
    header_bytes: u32,
    ack_size: u32,
    /// Last cwnd/ssthresh written to the trace, to record changes only.
    traced: (u64, u64),
    traced_window: u64,
    traced_rto: Time,
    traced_cuts: u64,
    spurious: SpuriousTracker,
    /// Fast retransmits, and timeouts that found cwnd above one segment.
    cwnd_reductions: u64,
    duplicate_arrivals: u64,
}

pub struct WiredScenario {
    q: EventQueue<Event>,
    flows: Vec<Flow>,
    /// links[i][dir]
    links: Vec<[LinkDir; 2]>,
    /// Per link and direction: a per-packet delay process instead of the constant delay.
    delays: Vec<[Option<VariableDelay>; 2]>,
    link_names: Vec<String>,
    bs: Option<BaseStation>,
    bearer: Option<Bearer>,
    rlp: Option<RlpLink>,
    seed: u64,
    run_index: u64,
    end: Time,
    measure_from: Time,
    traces: Option<Traces>,
}

impl WiredScenario {
    pub fn new(cfg: &ScenarioConfig, seed: u64, run_index: u64, opts: &RunOptions) -> Self {
        let sp = SenderParams::from_config(&cfg.tcp);
        let rp = ReceiverParams::from_config(&cfg.tcp);
        let mut q = EventQueue::new();
        let flows = cfg
            .flow_start_times_s()
            .into_iter()
            .enumerate()
            .map(|(i, start_s)| {
                let jitter = cfg.flows.start_jitter_s;
                let start_s = if jitter > 0.0 {
                    let mut rng = RngStream::new(seed, run_index, stream::FLOW_BASE + i as u64);
                    start_s + jitter * rng.uniform()
                } else {
                    start_s
                };
                let start = secs(start_s);
                q.schedule(start, Event::FlowStart(i as u32));
                Flow {
                    sender: TcpSender::new(sp.clone()),
                    receiver: TcpReceiver::new(rp.clone()),
                    snd_timer: TimerSlot::default(),
                    rcv_timer: TimerSlot::default(),
                    start,
                    bytes_delivered: 0,
                    delays: Vec::new(),
                    header_bytes: cfg.tcp.header_bytes,
                    ack_size: cfg.tcp.ack_size_bytes,
                    traced: (0, 0),
                    traced_window: 0,
                    traced_rto: 0,
                    traced_cuts: 0,
                    spurious: SpuriousTracker::default(),
                    cwnd_reductions: 0,
                    duplicate_arrivals: 0,
                }
            })
            .collect();
        let links = cfg
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let id = stream::LINK_BASE + 2 * i as u64;
                [
                    LinkDir::from_config(l, Dir::Data, RngStream::new(seed, run_index, id)),
                    LinkDir::from_config(l, Dir::Ack, RngStream::new(seed, run_index, id + 1)),
                ]
            })
            .collect();
        let bearer = cfg.radio.as_ref().map(|r| {
            q.schedule(0, Event::Tti);
            Bearer::new(r, cfg.tcp.packet_size_bytes, seed, run_index)
        });
        let delays = cfg
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let make = |d: Dir| {
                    let v = l.variable_delay.as_ref()?;
                    let on = match v.directions {
                        DelayDirections::Both => true,
                        DelayDirections::Data => d == Dir::Data,
                        DelayDirections::Ack => d == Dir::Ack,
                    };
                    let p = v
                        .params(&format!("links.{i}.variable_delay"))
                        .expect("validated with the configuration");
                    let id = stream::DELAY_BASE + 2 * i as u64 + d as u64;
                    on.then(|| VariableDelay::new(p, RngStream::new(seed, run_index, id)))
                };
                [make(Dir::Data), make(Dir::Ack)]
            })
            .collect();
        let bs = cfg.bs_ack.params().map(|p| BaseStation {
            link: cfg
                .bs_ack
                .link_index(&cfg.links)
                .expect("validated with the configuration") as u32,
            ctrl: BsAckController::new(p),
            timer: TimerSlot::default(),
        });
        let rlp = cfg.rlp.as_ref().map(|c| {
            q.schedule(0, Event::RlpSlot);
            RlpLink::new(c, &cfg.tcp, seed, run_index)
        });
        Self {
            q,
            flows,
            links,
            delays,
            link_names: cfg.links.iter().map(|l| l.name.clone()).collect(),
            bs,
            bearer,
            rlp,
            seed,
            run_index,
            end: secs(cfg.simulation.duration_s),
            measure_from: secs(cfg.simulation.warmup_s),
            traces: opts.traces.then(Traces::default),
        }
    }

    /// Process events up to the configured duration.
    pub fn run(mut self, stop: &mut dyn FnMut() -> bool) -> Result<RunResult, RunError> {
        while let Some((now, ev)) = self.q.pop_until(self.end) {
            self.handle(now, ev);
            if self.q.popped() % STOP_CHECK_EVERY == 0 && stop() {
                return Err(RunError::Interrupted);
            }
        }
        Ok(self.finish())
    }

    fn handle(&mut self, now: Time, ev: Event) {
        match ev {
            Event::FlowStart(f) => {
                self.flows[f as usize].sender.start();
                self.after_sender(now, f);
            }
            Event::TxDone { link, dir } => self.on_tx_done(now, link, dir),
            Event::Arrive { link, dir, pkt } => self.on_arrive(now, link, dir, pkt),
            Event::SenderTimer { flow, generation } => {
                let fl = &mut self.flows[flow as usize];
                if fl.snd_timer.fire(generation) {
                    // Spurious if the oldest outstanding segment already arrived, or arrives
                    // later in a copy sent before now (checked in deliver_data).
                    let una = fl.sender.snd_una();
                    let before = fl.sender.stats.timeouts;
                    let cwnd = fl.sender.cwnd();
                    fl.sender.on_timeout(now);
                    // The slot may fire before the sender's deadline (it moved later).
                    if fl.sender.stats.timeouts > before {
                        let held = fl.receiver.has(una, 1);
                        fl.spurious.on_timeout(now, una, held);
                        // A backed-off timeout finds cwnd at one segment: no reduction.
                        if cwnd > fl.sender.cwnd() {
                            fl.cwnd_reductions += 1;
                        }
                    }
                    self.after_sender(now, flow);
                }
            }
            Event::ReceiverTimer { flow, generation } => {
                let fl = &mut self.flows[flow as usize];
                if fl.rcv_timer.fire(generation) {
                    let ack = fl.receiver.on_timeout(now);
                    self.after_receiver(now, flow, ack);
                }
            }
            Event::Tti => self.on_tti(now),
            Event::RlpSlot => self.on_rlp_slot(now),
            Event::BsTimer { generation } => {
                if self.bs.as_mut().is_some_and(|b| b.timer.fire(generation)) {
                    self.bs_release(now);
                }
            }
            Event::RlpArrive { to_mh, frames } => self.on_rlp_arrive(now, to_mh, frames),
            Event::RadioArrive { to_ue, pdus } => self.on_radio_arrive(now, to_ue, pdus),
            Event::AckTimer { generation } => {
                let Some(b) = self.bearer.as_mut() else {
                    return;
                };
                if b.ack_timer.fire(generation) {
                    let bo = b.rnc.buffer_occupancy() as f64;
                    let out = b.ack_ctrl.as_mut().map(|c| c.on_timeout(now, bo));
                    self.forward_acks(now, out.unwrap_or_default());
                }
            }
        }
    }

    /// One TTI: both channels advance whether or not anything is sent (model-specs §1.3), each
    /// RLC entity fills its PDU slots, and a lost TTI loses all its PDUs.
    fn on_tti(&mut self, now: Time) {
        let Some(b) = self.bearer.as_mut() else {
            return;
        };
        let dl_lost = b.dl.advance();
        let ul_lost = b.ul.advance();
        b.discipline.advance(now, b.rnc.buffer_bytes() as f64 * 8.0);
        let discipline = &mut b.discipline;
        let mut dequeue_drops = [0u64; BufferDrop::ALL.len()];
        let dl = b
            .rnc
            .poll_tti_with(now, b.slots, &mut |sojourn, queued| match discipline
                .on_dequeue(now, sojourn, queued)
            {
                Some(reason) => {
                    dequeue_drops[reason as usize] += 1;
                    true
                }
                None => false,
            });
        for (total, n) in b.buffer_drops.iter_mut().zip(dequeue_drops) {
            *total += n;
        }
        let dropped = b.rnc.take_dropped();
        b.ue.take_dropped();
        let ul = b.ue.poll_tti(now, b.slots);
        let arrive = now + b.delay;
        if !dl.is_empty() {
            if dl_lost {
                b.dl_ttis_lost += 1;
            } else {
                self.q.schedule(
                    arrive,
                    Event::RadioArrive {
                        to_ue: true,
                        pdus: dl,
                    },
                );
            }
        }
        if !ul.is_empty() {
            if ul_lost {
                b.ul_ttis_lost += 1;
            } else {
                self.q.schedule(
                    arrive,
                    Event::RadioArrive {
                        to_ue: false,
                        pdus: ul,
                    },
                );
            }
        }
        let next = now + b.tti;
        self.q.schedule(next, Event::Tti);
        // A TTI is an event of the ACK rate control too (radio.ack_control.release).
        let bo = b.rnc.buffer_occupancy() as f64;
        let acks = b.ack_ctrl.as_mut().map(|c| c.on_tti(now, bo));
        if let Some(acks) = acks.filter(|a| !a.is_empty()) {
            self.forward_acks(now, acks);
        }
        // CoDel drops at dequeue and MaxDAT discards, for the drop trace.
        for pkt in dropped {
            self.trace_drop(now, &pkt);
        }
    }

    /// One RLP frame slot: both channels advance (one Markov step per 20 ms frame, model-specs
    /// §1.3), each entity fills the slot (NAKs, retransmissions, new data, idle frames), and a
    /// lost slot loses all its frames. Frames arriving at this instant were handed in first
    /// (their events were scheduled earlier), as the entity expects.
    fn on_rlp_slot(&mut self, now: Time) {
        let Some(l) = self.rlp.as_mut() else {
            return;
        };
        l.slots += 1;
        let fwd_lost = l.fwd.advance();
        let rev_lost = l.rev.advance();
        let fwd = l.iap.poll_slot(now);
        let rev = l.mh.poll_slot(now);
        let arrive = now + l.delay;
        for (frames, lost, to_mh) in [(fwd, fwd_lost, true), (rev, rev_lost, false)] {
            if lost {
                if to_mh {
                    l.fwd_slots_lost += 1;
                } else {
                    l.rev_slots_lost += 1;
                }
            } else if !frames.is_empty() {
                self.q.schedule(arrive, Event::RlpArrive { to_mh, frames });
            }
        }
        self.q.schedule(now + l.slot, Event::RlpSlot);
        // An abort in poll_slot releases the data held behind the gap.
        let data = l.mh.take_delivered();
        let acks = l.iap.take_delivered();
        for pkt in data {
            self.deliver_data(now, pkt);
        }
        self.forward_acks(now, acks);
        // Framing took packets out of the IAP buffer.
        self.trace_iap(now);
    }

    fn on_rlp_arrive(&mut self, now: Time, to_mh: bool, frames: Vec<Frame>) {
        let Some(l) = self.rlp.as_mut() else {
            return;
        };
        if to_mh {
            l.mh.on_frames(now, frames);
            for pkt in l.mh.take_delivered() {
                self.deliver_data(now, pkt);
            }
        } else {
            l.iap.on_frames(now, frames);
            let acks = l.iap.take_delivered();
            self.forward_acks(now, acks);
        }
    }

    /// A data packet reached the IAP: drop-tail on the IAP buffer (packets not yet framed).
    fn iap_offer(&mut self, now: Time, pkt: Packet) {
        let Some(l) = self.rlp.as_mut() else {
            return;
        };
        if l.iap.queued_packets() >= l.iap_limit {
            l.iap_drops += 1;
            self.trace_drop(now, &pkt);
        } else {
            l.iap.offer_packet(now, pkt);
            self.trace_iap(now);
        }
    }

    fn trace_iap(&mut self, now: Time) {
        let Some(l) = self.rlp.as_mut() else {
            return;
        };
        let n = l.iap.queued_packets();
        if l.occupancy.update(now, self.measure_from, n) {
            if let Some(t) = self.traces.as_mut() {
                t.buffer.push(to_secs(now), 0, n as f64);
            }
        }
    }

    fn on_radio_arrive(&mut self, now: Time, to_ue: bool, pdus: Vec<Pdu>) {
        let Some(b) = self.bearer.as_mut() else {
            return;
        };
        if to_ue {
            b.ue.on_pdus(pdus);
            for pkt in b.ue.take_delivered() {
                self.deliver_data(now, pkt);
            }
        } else {
            b.discipline.advance(now, b.rnc.buffer_bytes() as f64 * 8.0);
            b.rnc.on_pdus(pdus);
            let acks = b.rnc.take_delivered();
            let bo = b.rnc.buffer_occupancy() as f64;
            let out = match b.ack_ctrl.as_mut() {
                None => acks,
                Some(c) => acks
                    .into_iter()
                    .flat_map(|a| c.on_ack(now, a, bo))
                    .collect(),
            };
            self.forward_acks(now, out);
            // STATUS reports free SDUs from the downlink buffer.
            self.trace_buffer(now);
        }
    }

    /// ACKs leaving the RNC towards the server; keeps the ACK control's timer in step.
    fn forward_acks(&mut self, now: Time, acks: Vec<Packet>) {
        if let Some(b) = self.bearer.as_mut() {
            if let Some(c) = b.ack_ctrl.as_ref() {
                b.ack_timer
                    .sync(&mut self.q, c.poll_timeout(), |generation| {
                        Event::AckTimer { generation }
                    });
            }
        }
        let last = self.links.len() as u32 - 1;
        for pkt in acks {
            self.send_on(now, last, Dir::Ack, pkt);
        }
    }

    /// A data packet reached the RNC: the buffer's discipline admits or drops it.
    fn rnc_offer(&mut self, now: Time, pkt: Packet) {
        let Some(b) = self.bearer.as_mut() else {
            return;
        };
        let bo_bits = b.rnc.buffer_bytes() as f64 * 8.0;
        b.discipline.advance(now, bo_bits);
        let verdict = b.discipline.on_arrival(
            now,
            b.rnc.buffer_occupancy(),
            bo_bits,
            pkt.size as f64 * 8.0,
        );
        let dropped = match verdict {
            Verdict::Admit => {
                b.rnc.offer_sdu(now, pkt);
                None
            }
            Verdict::Drop(reason) => {
                b.buffer_drops[reason as usize] += 1;
                Some(pkt)
            }
            Verdict::AdmitDropFirstUnsent(reason) => {
                b.rnc.offer_sdu(now, pkt);
                let victim = b.rnc.drop_first_unsent();
                if victim.is_some() {
                    b.buffer_drops[reason as usize] += 1;
                }
                victim
            }
        };
        if let Some(p) = dropped {
            self.trace_drop(now, &p);
        }
        self.trace_buffer(now);
    }

    /// Keep BO statistics (max, time average over the measured interval) and the trace.
    fn trace_buffer(&mut self, now: Time) {
        let Some(b) = self.bearer.as_mut() else {
            return;
        };
        let bo = b.rnc.buffer_occupancy();
        if b.occupancy.update(now, self.measure_from, bo) {
            if let Some(t) = self.traces.as_mut() {
                t.buffer.push(to_secs(now), 0, bo as f64);
            }
        }
    }

    /// Drain the sender's transmit queue into link 0 and keep its timer event in step.
    fn after_sender(&mut self, now: Time, f: u32) {
        let header = self.flows[f as usize].header_bytes;
        while let Some(seg) = self.flows[f as usize].sender.poll_transmit(now) {
            let pkt = Packet {
                flow: f,
                kind: PacketKind::Data,
                seq: seg.seq,
                len: seg.len,
                size: seg.len + header,
                rwnd: 0,
                sent_at: now,
            };
            if let Some(t) = self.traces.as_mut() {
                t.seq_sent.push(to_secs(now), f, seg.seq as f64);
            }
            if seg.retransmission {
                let fl = &mut self.flows[f as usize];
                let held = fl.receiver.has(seg.seq, seg.len);
                fl.spurious.on_retransmit(now, seg.seq, held);
            }
            self.send_on(now, 0, Dir::Data, pkt);
        }
        let fl = &mut self.flows[f as usize];
        fl.snd_timer
            .sync(&mut self.q, fl.sender.poll_timeout(), |generation| {
                Event::SenderTimer {
                    flow: f,
                    generation,
                }
            });
        if let Some(t) = self.traces.as_mut() {
            let cur = (fl.sender.cwnd(), fl.sender.ssthresh());
            if cur.0 != fl.traced.0 {
                t.cwnd.push(to_secs(now), f, cur.0 as f64);
            }
            if cur.1 != fl.traced.1 {
                t.ssthresh.push(to_secs(now), f, ssthresh_value(cur.1));
            }
            fl.traced = cur;
            let window = fl.sender.send_window();
            if window != fl.traced_window {
                t.window.push(to_secs(now), f, window as f64);
                fl.traced_window = window;
            }
            let rto = fl.sender.rto();
            if rto != fl.traced_rto {
                t.rto.push(to_secs(now), f, to_millis(rto));
                fl.traced_rto = rto;
            }
            let cuts = fl.cwnd_reductions;
            if cuts != fl.traced_cuts {
                t.cwnd_reductions.push(to_secs(now), f, cuts as f64);
                fl.traced_cuts = cuts;
            }
        }
    }

    /// Send the receiver's ACK (if any) towards the server and keep its timer in step.
    fn after_receiver(&mut self, now: Time, f: u32, ack: Option<Ack>) {
        let fl = &mut self.flows[f as usize];
        fl.rcv_timer
            .sync(&mut self.q, fl.receiver.poll_timeout(), |generation| {
                Event::ReceiverTimer {
                    flow: f,
                    generation,
                }
            });
        if let Some(a) = ack {
            let pkt = Packet {
                flow: f,
                kind: PacketKind::Ack,
                seq: a.ack,
                len: 0,
                size: fl.ack_size,
                rwnd: a.rwnd,
                sent_at: now,
            };
            if let Some(b) = self.bearer.as_mut() {
                // The UE's uplink buffer is not limited: ACKs are small and few.
                b.ue.offer_sdu(now, pkt);
            } else if let Some(l) = self.rlp.as_mut() {
                l.mh.offer_packet(now, pkt);
            } else {
                let last = self.links.len() as u32 - 1;
                self.send_on(now, last, Dir::Ack, pkt);
            }
        }
    }

    fn send_on(&mut self, now: Time, link: u32, dir: Dir, pkt: Packet) {
        let ld = &mut self.links[link as usize][dir as usize];
        match ld.enqueue(now, pkt) {
            Enqueued::StartedTx(done) => self.q.schedule(done, Event::TxDone { link, dir }),
            Enqueued::Queued => self.trace_queue(now, link, dir),
            Enqueued::Dropped => self.trace_drop(now, &pkt),
        }
    }

    fn on_tx_done(&mut self, now: Time, link: u32, dir: Dir) {
        let ld = &mut self.links[link as usize][dir as usize];
        let (out, next) = ld.on_tx_done(now);
        let prop = ld.prop_delay();
        let arrive_at = match (&out, &mut self.delays[link as usize][dir as usize]) {
            (Ok(_), Some(v)) => v.arrival_time(now),
            _ => now + prop,
        };
        if let Some(done) = next {
            self.q.schedule(done, Event::TxDone { link, dir });
            self.trace_queue(now, link, dir);
        }
        match out {
            Ok(pkt) => self.q.schedule(arrive_at, Event::Arrive { link, dir, pkt }),
            Err((pkt, DropReason::RandomLoss | DropReason::QueueFull)) => {
                self.trace_drop(now, &pkt)
            }
        }
    }

    fn on_arrive(&mut self, now: Time, link: u32, dir: Dir, pkt: Packet) {
        match dir {
            Dir::Data if (link as usize) + 1 < self.links.len() => {
                match self.bs.as_mut() {
                    Some(b) if b.link == link + 1 => match b.ctrl.on_data(now, pkt) {
                        DataVerdict::Forward => self.send_on(now, link + 1, Dir::Data, pkt),
                        DataVerdict::Drop { reply } => {
                            // Already acknowledged by the MH: not forwarded (Zeng, case 3).
                            self.trace_drop(now, &pkt);
                            if let Some(r) = reply {
                                self.send_on(now, link, Dir::Ack, r);
                            }
                        }
                    },
                    _ => self.send_on(now, link + 1, Dir::Data, pkt),
                }
            }
            Dir::Ack if self.bs.as_ref().is_some_and(|b| b.link == link) => {
                if let Some(b) = self.bs.as_mut() {
                    b.ctrl.on_ack(now, pkt);
                }
                self.bs_release(now);
            }
            Dir::Ack if link > 0 => self.send_on(now, link - 1, Dir::Ack, pkt),
            Dir::Data if self.bearer.is_some() => self.rnc_offer(now, pkt),
            Dir::Data if self.rlp.is_some() => self.iap_offer(now, pkt),
            Dir::Data => self.deliver_data(now, pkt),
            Dir::Ack => {
                if let Some(t) = self.traces.as_mut() {
                    t.ack_received.push(to_secs(now), pkt.flow, pkt.seq as f64);
                }
                let fl = &mut self.flows[pkt.flow as usize];
                let fast = fl.sender.stats.fast_retransmits;
                fl.sender.on_ack(now, pkt.seq, pkt.rwnd);
                fl.cwnd_reductions += fl.sender.stats.fast_retransmits - fast;
                self.after_sender(now, pkt.flow);
            }
        }
    }

    /// Send what the BS controller releases towards the FH and keep its txTimer in step.
    fn bs_release(&mut self, now: Time) {
        let Some(b) = self.bs.as_mut() else {
            return;
        };
        let out = b.ctrl.poll(now);
        b.timer
            .sync(&mut self.q, b.ctrl.next_deadline(), |generation| {
                Event::BsTimer { generation }
            });
        let queued = b.ctrl.ack_queue_len() as f64;
        let link = b.link;
        if let Some(t) = self.traces.as_mut() {
            if t.ack_queue.value.last() != Some(&queued) {
                t.ack_queue.push(to_secs(now), 0, queued);
            }
        }
        for pkt in out {
            self.send_on(now, link - 1, Dir::Ack, pkt);
        }
    }

    fn deliver_data(&mut self, now: Time, pkt: Packet) {
        let measuring = now >= self.measure_from;
        let fl = &mut self.flows[pkt.flow as usize];
        if measuring {
            fl.delays.push(now - pkt.sent_at);
        }
        if fl.receiver.has(pkt.seq, pkt.len) {
            fl.duplicate_arrivals += 1;
        }
        fl.spurious
            .on_arrival(now, pkt.seq, pkt.sent_at, fl.receiver.rcv_nxt());
        let arrival = fl.receiver.on_segment(now, pkt.seq, pkt.len);
        if measuring {
            fl.bytes_delivered += arrival.delivered;
        }
        if arrival.delivered > 0 {
            if let Some(t) = self.traces.as_mut() {
                t.delivered
                    .push(to_secs(now), pkt.flow, fl.receiver.rcv_nxt() as f64);
            }
        }
        if let Some(t) = self.traces.as_mut() {
            t.seq_received.push(to_secs(now), pkt.flow, pkt.seq as f64);
        }
        self.after_receiver(now, pkt.flow, arrival.ack);
    }

    fn trace_queue(&mut self, now: Time, link: u32, dir: Dir) {
        if dir != Dir::Data {
            return;
        }
        if let Some(t) = self.traces.as_mut() {
            let len = self.links[link as usize][dir as usize].queue_len();
            t.queue.push(to_secs(now), link, len as f64);
        }
    }

    fn trace_drop(&mut self, now: Time, pkt: &Packet) {
        if pkt.kind == PacketKind::Data {
            if let Some(t) = self.traces.as_mut() {
                t.seq_dropped.push(to_secs(now), pkt.flow, pkt.seq as f64);
            }
        }
    }

    fn finish(mut self) -> RunResult {
        let end = self.end;
        let measure_from = self.measure_from;
        // Close the BO integral at the end of the run.
        let mean_bo = self
            .bearer
            .as_mut()
            .map_or(0.0, |b| b.occupancy.mean(end, measure_from));
        let measured = self.end - self.measure_from;
        let bearer = self.bearer.as_ref().map(|b| BearerStats {
            drops: BufferDrop::ALL
                .iter()
                .map(|r| (r.name().to_string(), b.buffer_drops[*r as usize]))
                .chain([("rlc_maxdat".to_string(), b.rnc.stats.sdus_discarded)])
                .collect(),
            sdus_discarded_maxdat: b.rnc.stats.sdus_discarded,
            max_buffer_sdus: b.occupancy.max as u32,
            mean_buffer_sdus: mean_bo,
            dl_ttis_lost: b.dl_ttis_lost,
            ul_ttis_lost: b.ul_ttis_lost,
            dl_data_pdus_sent: b.rnc.stats.data_pdus_sent,
            dl_data_pdus_retransmitted: b.rnc.stats.data_pdus_retransmitted,
            ul_data_pdus_sent: b.ue.stats.data_pdus_sent,
            dl_status_pdus: b.ue.stats.status_pdus_sent,
            ul_status_pdus: b.rnc.stats.status_pdus_sent,
            dl_polls: b.rnc.stats.polls_sent,
            mrw_procedures: b.rnc.stats.mrw_sent,
            acks_delayed: b.ack_ctrl.as_ref().map_or(0, |c| c.stats.acks_delayed),
            ack_delay_mean_ms: b.ack_ctrl.as_ref().map_or(0.0, |c| {
                mean_wait_ms(c.stats.total_delay, c.stats.acks_delayed)
            }),
        });
        let rlp = self.rlp.as_mut().map(|l| {
            let fwd = l.iap.stats();
            let rx = l.mh.stats();
            RlpLinkStats {
                iap_drops: l.iap_drops,
                max_iap_packets: l.occupancy.max as u32,
                mean_iap_packets: l.occupancy.mean(end, measure_from),
                fwd_slots_lost: l.fwd_slots_lost,
                rev_slots_lost: l.rev_slots_lost,
                slots: l.slots,
                fwd_data_frames: fwd.data_frames_sent,
                fwd_retx_frames: fwd.retx_frames_sent,
                fwd_idle_frames: fwd.idle_frames_sent,
                fwd_naks: rx.naks_sent,
                fwd_frames_recovered: rx.frames_recovered,
                fwd_frames_aborted: rx.frames_aborted,
                fwd_duplicates: rx.duplicates_dropped,
                fwd_packets_lost_to_abort: rx.packets_lost_to_abort,
                rev_frames_aborted: fwd.frames_aborted,
                rev_packets_lost_to_abort: fwd.packets_lost_to_abort,
                max_goodput_kbps: l.max_goodput_kbps,
            }
        });
        let bs_ack = self.bs.as_ref().map(|b| {
            let st = b.ctrl.stats();
            BsAckResult {
                link: self.link_names[b.link as usize].clone(),
                data_in: st.data_in,
                data_forwarded: st.data_forwarded,
                data_dropped_already_acked: st.data_dropped_already_acked,
                acks_in: st.acks_in,
                acks_sent: st.acks_sent,
                dup_acks_in: st.dup_acks_in,
                dup_acks_held: st.dup_acks_held,
                dup_acks_forwarded: st.dup_acks_forwarded,
                dup_acks_dropped: st.dup_acks_dropped,
                acks_generated: st.acks_generated,
                replies_suppressed: st.replies_suppressed,
                rtt_samples: st.rtt_samples,
                acks_delayed: st.acks_delayed,
                ack_delay_mean_ms: mean_wait_ms(st.total_ack_delay, st.acks_delayed),
                max_ack_queue: st.max_ack_queue as u64,
                final_srtt_ms: b.ctrl.srtt().map_or(f64::NAN, to_millis),
            }
        });
        let measured_s = to_secs(measured);
        let flows = self
            .flows
            .into_iter()
            .enumerate()
            .map(|(i, mut fl)| {
                let (mean, p50, p95, p99) = delay_summary(&mut fl.delays);
                let s = &fl.sender.stats;
                FlowStats {
                    flow: i as u32,
                    start_s: to_secs(fl.start),
                    bytes_delivered: fl.bytes_delivered,
                    goodput_kbps: fl.bytes_delivered as f64 * 8.0 / measured_s / 1000.0,
                    delay_mean_ms: mean,
                    delay_p50_ms: p50,
                    delay_p95_ms: p95,
                    delay_p99_ms: p99,
                    delay_samples: fl.delays.len() as u64,
                    segments_sent: s.segments_sent,
                    retransmissions: s.retransmissions,
                    fast_retransmits: s.fast_retransmits,
                    timeouts: s.timeouts,
                    spurious_retransmissions: fl.spurious.spurious_retransmissions,
                    spurious_timeouts: fl.spurious.spurious_timeouts,
                    cwnd_reductions: fl.cwnd_reductions,
                    duplicate_arrivals: fl.duplicate_arrivals,
                    acks_sent: fl.receiver.acks_sent,
                    acks_received: s.acks_received,
                    final_cwnd_bytes: fl.sender.cwnd(),
                    final_srtt_ms: fl.sender.srtt().map_or(f64::NAN, to_millis),
                }
            })
            .collect();
        let mut links = Vec::new();
        for (i, dirs) in self.links.iter().enumerate() {
            for (d, dir) in [Dir::Data, Dir::Ack].into_iter().enumerate() {
                let st = &dirs[d].stats;
                let reordered = self.delays[i][d].as_ref().map(|v| v.stats.reordered);
                links.push(LinkStats {
                    reordered,
                    link: i as u32,
                    name: self.link_names[i].clone(),
                    direction: dir.name(),
                    packets_sent: st.packets_sent,
                    bytes_sent: st.bytes_sent,
                    max_queue_packets: st.max_queue_packets,
                    drops: DropReason::ALL
                        .iter()
                        .map(|r| (r.name().to_string(), st.drops[*r as usize]))
                        .collect(),
                });
            }
        }
        RunResult {
            seed: self.seed,
            run_index: self.run_index,
            duration_s: to_secs(self.end),
            measured_s,
            events: self.q.popped(),
            flows,
            links,
            bearer,
            rlp,
            bs_ack,
            traces: self.traces,
        }
    }
}

/// Mean of `n` waits summing to `total` ns, in ms; 0 when nothing waited.
fn mean_wait_ms(total: u128, n: u64) -> f64 {
    if n == 0 {
        0.0
    } else {
        total as f64 / n as f64 / NS_PER_MS as f64
    }
}

/// ssthresh for traces: the "arbitrarily high" initial value is shown as +inf.
fn ssthresh_value(ssthresh: u64) -> f64 {
    if ssthresh >= crate::tcp::SSTHRESH_INFINITE {
        f64::INFINITY
    } else {
        ssthresh as f64
    }
}

/// Mean and the 50th/95th/99th percentiles in ms (linear interpolation between order
/// statistics, numpy's default). NaN when there are no samples.
fn delay_summary(d: &mut [Time]) -> (f64, f64, f64, f64) {
    if d.is_empty() {
        return (f64::NAN, f64::NAN, f64::NAN, f64::NAN);
    }
    d.sort_unstable();
    let mean = d.iter().map(|&x| x as f64).sum::<f64>() / d.len() as f64;
    let pct = |q: f64| {
        let pos = q * (d.len() - 1) as f64;
        let lo = pos.floor() as usize;
        let hi = pos.ceil() as usize;
        let frac = pos - lo as f64;
        to_millis(d[lo]) * (1.0 - frac) + to_millis(d[hi]) * frac
    };
    (mean / NS_PER_MS as f64, pct(0.50), pct(0.95), pct(0.99))
}

#[cfg(test)]
mod tests {
    use super::delay_summary;

    #[test]
    fn percentiles_interpolate_like_numpy() {
        // numpy.percentile([1,2,3,4] ms, [50, 95, 99]) = 2.5, 3.85, 3.97
        let mut d = vec![4_000_000, 1_000_000, 3_000_000, 2_000_000];
        let (mean, p50, p95, p99) = delay_summary(&mut d);
        assert!((mean - 2.5).abs() < 1e-12);
        assert!((p50 - 2.5).abs() < 1e-12);
        assert!((p95 - 3.85).abs() < 1e-12);
        assert!((p99 - 3.97).abs() < 1e-12);
    }
}
