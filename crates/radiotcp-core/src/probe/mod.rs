//! Observation without interference: the optional traces, the spurious-retransmission oracle
//! (which sees both ends of every flow) and the occupancy statistics of buffers. Nodes report
//! what happened here; nothing here feeds back into the model.

pub mod capture;
pub mod spurious;

use crate::engine::{to_secs, Time};
use crate::packet::{Packet, PacketKind};
use crate::results::Traces;
use crate::tcp::Reassembly;
use spurious::SpuriousTracker;

/// Per-flow observer state.
#[derive(Debug, Default)]
pub struct FlowProbe {
    pub spurious: SpuriousTracker,
    /// What the flow's receiver holds, mirrored from the arrivals at it: the sender's node
    /// asks whether a retransmitted segment had already arrived without reaching into the
    /// receiver's node.
    held: Reassembly,
}

pub struct Probe {
    pub traces: Option<Traces>,
    /// Metrics count only what happens from here on (`simulation.warmup_s`).
    pub measure_from: Time,
    pub flows: Vec<FlowProbe>,
    /// The pcap export, when asked for (`RunOptions::pcap`).
    pub capture: Option<capture::Capture>,
}

impl Probe {
    pub fn new(flows: usize, measure_from: Time, traces: bool) -> Self {
        Self {
            traces: traces.then(Traces::default),
            measure_from,
            flows: (0..flows).map(|_| FlowProbe::default()).collect(),
            capture: None,
        }
    }

    /// Whether the receiver of `flow` holds every byte of `[seq, seq + len)`.
    #[inline]
    pub fn held(&self, flow: u32, seq: u64, len: u32) -> bool {
        self.flows[flow as usize].held.has(seq, len)
    }

    /// The sender of `flow` retransmits `[seq, seq + len)` at `now`.
    #[inline]
    pub fn on_retransmit(&mut self, now: Time, flow: u32, seq: u64, len: u32) {
        let f = &mut self.flows[flow as usize];
        let held = f.held.has(seq, len);
        f.spurious.on_retransmit(now, seq, held);
    }

    /// The retransmission timer of `flow` expired at `now` with SND.UNA = `una`.
    #[inline]
    pub fn on_timeout(&mut self, now: Time, flow: u32, una: u64) {
        let f = &mut self.flows[flow as usize];
        let held = f.held.has(una, 1);
        f.spurious.on_timeout(now, una, held);
    }

    /// A data segment of `flow` sent at `sent_at` reaches its receiver at `now`.
    #[inline]
    pub fn on_arrival(&mut self, now: Time, pkt: &Packet) {
        let f = &mut self.flows[pkt.flow as usize];
        f.spurious
            .on_arrival(now, pkt.seq, pkt.sent_at, f.held.rcv_nxt());
        f.held.insert(pkt.seq, pkt.seq + pkt.len as u64);
    }

    /// A data packet was dropped anywhere (the `seq_dropped` trace).
    #[inline]
    pub fn drop(&mut self, now: Time, pkt: &Packet) {
        if pkt.kind == PacketKind::Data && !pkt.opt.syn {
            if let Some(t) = self.traces.as_mut() {
                t.seq_dropped.push(to_secs(now), pkt.flow, pkt.seq as f64);
            }
        }
    }
}

/// Time-average and maximum of a buffer occupancy over the measured interval.
#[derive(Debug, Default)]
pub struct Occupancy {
    pub max: usize,
    /// Integral of the occupancy (units * ns) and the time of the last change.
    area: f64,
    since: Time,
    last: usize,
}

impl Occupancy {
    /// Record a new value at `now`; returns whether it changed.
    pub fn update(&mut self, now: Time, measure_from: Time, value: usize) -> bool {
        if value == self.last {
            return false;
        }
        let from = self.since.max(measure_from);
        if now > from {
            // Through i64: one instruction each on baseline x86-64, where u64 -> f64 is a
            // branchy sequence (the LTE cell updates an occupancy per downlink SDU). The same
            // value: a count and a span of ns are far below 2^63.
            self.area += self.last as i64 as f64 * (now - from) as i64 as f64;
        }
        self.since = now;
        self.last = value;
        self.max = self.max.max(value);
        true
    }

    /// The time average over `[measure_from, end]`, closing the integral at `end`.
    pub fn mean(&mut self, end: Time, measure_from: Time) -> f64 {
        let from = self.since.max(measure_from);
        if end > from {
            self.area += self.last as f64 * (end - from) as f64;
            self.since = end;
        }
        self.area / (end - measure_from) as f64
    }
}
