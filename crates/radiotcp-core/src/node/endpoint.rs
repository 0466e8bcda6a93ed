//! Endpoint nodes: a server or a UE with the TCP senders and receivers of its flows. A host
//! sends towards its peers through its routes (a link for a server or a wired client, the
//! access node for a UE) and records per-flow goodput, delay and traces.

use crate::engine::{to_millis, to_secs, Time, TimerSlot};
use crate::packet::{HostId, Packet, PacketKind, TcpOpts};
use crate::results::{FlowStats, RunResult, Trace, Traces};
use crate::tcp::{ReceiverParams, SenderParams, TcpReceiver, TcpSender, SSTHRESH_INFINITE};

use super::{Ctx, NodeEvent};

#[derive(Debug, Clone)]
pub enum HostEvent {
    /// The application of `flow` opens its connection.
    FlowStart(u32),
    SenderTimer {
        flow: u32,
        generation: u32,
    },
    ReceiverTimer {
        flow: u32,
        generation: u32,
    },
}

/// The sending end of one flow.
struct TxFlow {
    flow: u32,
    peer: HostId,
    sender: TcpSender,
    timer: TimerSlot,
    start: Time,
    header_bytes: u32,
    /// Segments carry the timestamps option (RFC 7323).
    timestamps: bool,
    /// Last values written to the traces, to record changes only.
    traced: (u64, u64),
    traced_window: u64,
    traced_rto: Time,
    traced_cuts: u64,
}

/// The receiving end of one flow.
struct RxFlow {
    flow: u32,
    peer: HostId,
    receiver: TcpReceiver,
    timer: TimerSlot,
    ack_size: u32,
    bytes_delivered: u64,
    /// One-way delays (ns) of data segments arriving in the measured interval.
    delays: Vec<Time>,
    duplicate_arrivals: u64,
    /// A finite transfer: its size, and when its last byte was delivered.
    expect: Option<u64>,
    completed_at: Option<Time>,
}

/// A host: the TCP ends of the flows it terminates.
pub struct Host {
    pub id: HostId,
    tx: Vec<TxFlow>,
    rx: Vec<RxFlow>,
    /// flow -> index into `tx` or `rx` (flows are numbered across the scenario).
    local: Vec<u32>,
}

const ABSENT: u32 = u32::MAX;

/// Delay samples a receiver has room for from the start (32 KiB). Grown from empty, the
/// vector went through a dozen reallocations, each a malloc, a copy and a free that sent
/// glibc consolidating its free lists: half a percent of a 600 s wired run. Room for 65,536
/// saved all of them in instructions, but a block that size is mapped by glibc (above its
/// 128 KiB threshold), one system call and a page fault per page touched that callgrind does
/// not count: a 60 s 4-flow run, 0.4 ms, took some 0.1 ms longer. 4,096 stays on the heap and
/// saves the first nine reallocations.
const DELAYS_RESERVED: usize = 1 << 12;

impl Host {
    pub fn new(id: HostId, flows: usize) -> Self {
        Self {
            id,
            tx: Vec::new(),
            rx: Vec::new(),
            local: vec![ABSENT; flows],
        }
    }

    /// This host sends `flow` to `peer`, starting at `start` (the caller schedules
    /// [`HostEvent::FlowStart`]).
    pub fn add_sender(
        &mut self,
        flow: u32,
        peer: HostId,
        p: SenderParams,
        header_bytes: u32,
        start: Time,
    ) {
        self.local[flow as usize] = self.tx.len() as u32;
        let timestamps = p.timestamps;
        self.tx.push(TxFlow {
            flow,
            peer,
            sender: TcpSender::new(p),
            timer: TimerSlot::default(),
            start,
            header_bytes,
            timestamps,
            traced: (0, 0),
            traced_window: 0,
            traced_rto: 0,
            traced_cuts: 0,
        });
    }

    /// This host receives `flow` from `peer`, acknowledging with `ack_size`-byte ACKs.
    pub fn add_receiver(&mut self, flow: u32, peer: HostId, p: ReceiverParams, ack_size: u32) {
        self.local[flow as usize] = self.rx.len() as u32;
        self.rx.push(RxFlow {
            flow,
            peer,
            receiver: TcpReceiver::new(p),
            timer: TimerSlot::default(),
            ack_size,
            bytes_delivered: 0,
            delays: Vec::with_capacity(DELAYS_RESERVED),
            duplicate_arrivals: 0,
            expect: None,
            completed_at: None,
        });
    }

    /// Make `flow`'s transfer finite: its application offers `bytes` in all (the scenario's
    /// flows are unlimited bulk transfers; tests use this to check that a transfer completes).
    /// Panics if this host does not send `flow`.
    pub fn set_app_limit(&mut self, flow: u32, bytes: u64) {
        let i = self.index(flow);
        let f = &mut self.tx[i];
        assert_eq!(f.flow, flow, "host {} does not send flow {flow}", self.id);
        f.sender.set_app_limit(bytes);
    }

    /// `flow`, received here, is a transfer of `bytes`: its completion time is recorded.
    /// Panics if this host does not receive `flow`.
    pub fn expect_bytes(&mut self, flow: u32, bytes: u64) {
        let i = self.index(flow);
        let f = &mut self.rx[i];
        assert_eq!(
            f.flow, flow,
            "host {} does not receive flow {flow}",
            self.id
        );
        f.expect = Some(bytes);
    }

    /// The TCP sender of `flow`, if this host sends it.
    pub fn sender(&self, flow: u32) -> Option<&TcpSender> {
        let f = self.tx.get(*self.local.get(flow as usize)? as usize)?;
        (f.flow == flow).then_some(&f.sender)
    }

    /// The TCP receiver of `flow`, if this host receives it.
    pub fn receiver(&self, flow: u32) -> Option<&TcpReceiver> {
        let f = self.rx.get(*self.local.get(flow as usize)? as usize)?;
        (f.flow == flow).then_some(&f.receiver)
    }

    #[inline]
    fn index(&self, flow: u32) -> usize {
        self.local[flow as usize] as usize
    }

    pub fn handle(&mut self, ctx: &mut Ctx, ev: HostEvent) {
        let now = ctx.now;
        match ev {
            HostEvent::FlowStart(f) => {
                let i = self.index(f);
                self.tx[i].sender.start();
                self.drain(ctx, i);
            }
            HostEvent::SenderTimer { flow, generation } => {
                let i = self.index(flow);
                let f = &mut self.tx[i];
                if f.timer.fire(generation) {
                    // The slot may fire before the sender's deadline (it moved later): then
                    // nothing expired. A timeout is spurious if the oldest outstanding segment
                    // already arrived, or arrives later in a copy sent before now.
                    if let Some(t) = f.sender.handle_timeout(now) {
                        ctx.probe.on_timeout(now, flow, t.una);
                    }
                    self.drain(ctx, i);
                }
            }
            HostEvent::ReceiverTimer { flow, generation } => {
                let i = self.index(flow);
                let f = &mut self.rx[i];
                if f.timer.fire(generation) {
                    let ack = f.receiver.handle_timeout(now);
                    self.after_receiver(ctx, i, ack);
                }
            }
        }
    }

    /// A packet for this host: data for one of its receivers or an ACK for one of its
    /// senders. Inlined into the node's dispatch, so each kind goes straight to its own
    /// handler: as one function, an ACK paid this frame and then the drain's (the two
    /// kinds share no work but the capture).
    #[inline(always)]
    pub fn receive(&mut self, ctx: &mut Ctx, pkt: &Packet) {
        // Each handler checks that the packet is this host's (the event loop calls them
        // directly too).
        match pkt.kind {
            PacketKind::Data => self.deliver_data(ctx, pkt),
            PacketKind::Ack => self.deliver_ack(ctx, pkt),
        }
    }

    /// An ACK reaches the sender of its flow; the sender's drain is inlined here (its one
    /// frame per ACK).
    #[inline(never)]
    pub(crate) fn deliver_ack(&mut self, ctx: &mut Ctx, pkt: &Packet) {
        debug_assert_eq!(pkt.dst, self.id, "routed to the wrong host");
        if let Some(c) = ctx.probe.capture.as_mut() {
            c.at_host(ctx.now, self.id, pkt);
            c.sender_got_ack(pkt.flow, pkt);
        }
        let now = ctx.now;
        if let Some(t) = ctx.probe.traces.as_mut() {
            trace(&mut t.ack_received, now, pkt.flow, pkt.seq as f64);
        }
        let i = self.index(pkt.flow);
        self.tx[i]
            .sender
            .on_ack_opts(now, pkt.seq, pkt.rwnd, &pkt.opt);
        self.after_sender(ctx, i);
    }

    /// [`Self::after_sender`] out of line, for the timers and the start (rarer than ACKs).
    #[inline(never)]
    fn drain(&mut self, ctx: &mut Ctx, i: usize) {
        self.after_sender(ctx, i);
    }

    /// Drain the sender's transmit queue into the network and keep its timer event in step.
    #[inline(always)]
    fn after_sender(&mut self, ctx: &mut Ctx, i: usize) {
        let now = ctx.now;
        let f = &mut self.tx[i];
        if f.sender.poll_syn(now) {
            // A header-only segment (seq 0 carries no data: the SYN's sequence number is
            // below the data's in the pcap export, not here).
            send(
                ctx,
                self.id,
                &Packet {
                    flow: f.flow,
                    kind: PacketKind::Data,
                    dst: f.peer,
                    seq: 0,
                    len: 0,
                    size: f.header_bytes,
                    rwnd: 0,
                    sent_at: now,
                    opt: TcpOpts {
                        syn: true,
                        ts: f.timestamps,
                        ..TcpOpts::default()
                    },
                },
            );
        }
        while let Some(seg) = f.sender.poll_transmit(now) {
            let pkt = Packet {
                flow: f.flow,
                kind: PacketKind::Data,
                dst: f.peer,
                seq: seg.seq,
                len: seg.len,
                size: seg.len + f.header_bytes,
                rwnd: 0,
                sent_at: now,
                opt: TcpOpts {
                    ts: f.timestamps,
                    ..TcpOpts::default()
                },
            };
            if let Some(t) = ctx.probe.traces.as_mut() {
                trace(&mut t.seq_sent, now, f.flow, seg.seq as f64);
            }
            if seg.retransmission {
                ctx.probe.on_retransmit(now, f.flow, seg.seq, seg.len);
            }
            send(ctx, self.id, &pkt);
        }
        let flow = f.flow;
        ctx.sync(&mut f.timer, f.sender.poll_timeout(), |generation| {
            NodeEvent::Host(HostEvent::SenderTimer { flow, generation })
        });
        if let Some(t) = ctx.probe.traces.as_mut() {
            trace_sender(t, now, f);
        }
    }

    /// A data segment (or the SYN) reaches the receiver of its flow.
    #[inline(never)]
    pub(crate) fn deliver_data(&mut self, ctx: &mut Ctx, pkt: &Packet) {
        debug_assert_eq!(pkt.dst, self.id, "routed to the wrong host");
        if let Some(c) = ctx.probe.capture.as_mut() {
            c.at_host(ctx.now, self.id, pkt);
        }
        let now = ctx.now;
        let measuring = now >= ctx.probe.measure_from;
        let i = self.index(pkt.flow);
        let f = &mut self.rx[i];
        if pkt.opt.syn {
            let a = f.receiver.on_syn(pkt.opt.ts.then(|| pkt.ts_val()));
            self.after_receiver(ctx, i, Some(a));
            return;
        }
        if measuring {
            f.delays.push(now - pkt.sent_at);
        }
        ctx.probe.on_arrival(now, pkt);
        let ts = pkt.opt.ts.then(|| pkt.ts_val());
        let arrival = f.receiver.on_segment_ts(now, pkt.seq, pkt.len, ts);
        // The receiver tells a duplicate from its own comparisons with RCV.NXT: asking
        // `has` first cost a second lookup per segment.
        f.duplicate_arrivals += arrival.duplicate as u64;
        if measuring {
            f.bytes_delivered += arrival.delivered;
        }
        if let Some(size) = f.expect {
            if f.completed_at.is_none() && f.receiver.rcv_nxt() >= size {
                f.completed_at = Some(now);
            }
        }
        if let Some(t) = ctx.probe.traces.as_mut() {
            if arrival.delivered > 0 {
                trace(&mut t.delivered, now, pkt.flow, f.receiver.rcv_nxt() as f64);
            }
            trace(&mut t.seq_received, now, pkt.flow, pkt.seq as f64);
        }
        self.after_receiver(ctx, i, arrival.ack);
    }

    /// Send the receiver's ACK (if any) towards the sender and keep its timer in step.
    /// Always inlined: out of line, every data arrival paid a call and its frame (some 16
    /// instructions) on top of the ACK's work.
    #[inline(always)]
    fn after_receiver(&mut self, ctx: &mut Ctx, i: usize, ack: Option<crate::tcp::Ack>) {
        let f = &mut self.rx[i];
        let flow = f.flow;
        ctx.sync(&mut f.timer, f.receiver.poll_timeout(), |generation| {
            NodeEvent::Host(HostEvent::ReceiverTimer { flow, generation })
        });
        if let Some(a) = ack {
            let opt = a.opt;
            send(
                ctx,
                self.id,
                &Packet {
                    flow,
                    kind: PacketKind::Ack,
                    dst: f.peer,
                    seq: a.ack,
                    len: 0,
                    // SACK blocks lengthen the ACK on the wire (RFC 2018 §3).
                    size: f.ack_size + opt.sack_option_bytes(),
                    rwnd: a.rwnd,
                    sent_at: ctx.now,
                    opt,
                },
            );
        }
    }

    /// Fill this host's side of the per-flow records (created by the caller, one per flow).
    pub fn finish(&mut self, r: &mut RunResult, _measure_from: Time) {
        let measured_s = r.measured_s;
        for f in &self.tx {
            let s = &f.sender.stats;
            let out = &mut r.flows[f.flow as usize];
            out.start_s = to_secs(f.start);
            out.m.segments_sent = s.segments_sent;
            out.m.retransmissions = s.retransmissions;
            out.m.fast_retransmits = s.fast_retransmits;
            out.m.timeouts = s.timeouts;
            out.m.cwnd_reductions = s.cwnd_reductions;
            out.m.acks_received = s.acks_received;
            out.m.final_cwnd_bytes = f.sender.cwnd();
            out.m.final_srtt_ms = f.sender.srtt().map_or(f64::NAN, to_millis);
        }
        for f in &mut self.rx {
            let (mean, p50, p95, p99) = delay_summary(&mut f.delays);
            let out: &mut FlowStats = &mut r.flows[f.flow as usize];
            out.m.bytes_delivered = f.bytes_delivered;
            out.m.goodput_kbps = f.bytes_delivered as f64 * 8.0 / measured_s / 1000.0;
            out.m.delay_mean_ms = mean;
            out.m.delay_p50_ms = p50;
            out.m.delay_p95_ms = p95;
            out.m.delay_p99_ms = p99;
            out.m.delay_samples = f.delays.len() as u64;
            out.m.duplicate_arrivals = f.duplicate_arrivals;
            if f.expect.is_some() {
                out.completed_at_s = Some(f.completed_at.map_or(f64::NAN, to_secs));
            }
            out.m.acks_sent = f.receiver.acks_sent;
        }
    }
}

/// Put a packet this host sends on its way, through the capture if one is running. By
/// reference and always inlined: out of line, each packet was copied once more into its
/// frame before the port's copy.
#[inline(always)]
fn send(ctx: &mut Ctx, host: HostId, pkt: &Packet) {
    if let Some(c) = ctx.probe.capture.as_mut() {
        c.at_host(ctx.now, host, pkt);
    }
    ctx.forward(pkt);
}

/// A point of a trace. Out of line and cold: traces are off in the runs that are timed, and
/// inlined, the time's conversion to seconds was hoisted to the top of the sender's drain
/// loop and paid on every ACK whether or not a trace was recorded.
#[cold]
#[inline(never)]
fn trace(series: &mut Trace, now: Time, flow: u32, value: f64) {
    series.push(to_secs(now), flow, value);
}

/// The sender's state traces after an ACK or a timer, each on change (out of line and cold
/// like [`trace`]).
#[cold]
#[inline(never)]
fn trace_sender(t: &mut Traces, now: Time, f: &mut TxFlow) {
    let (time, flow) = (to_secs(now), f.flow);
    let cur = (f.sender.cwnd(), f.sender.ssthresh());
    if cur.0 != f.traced.0 {
        t.cwnd.push(time, flow, cur.0 as f64);
    }
    if cur.1 != f.traced.1 {
        t.ssthresh.push(time, flow, ssthresh_value(cur.1));
    }
    f.traced = cur;
    let window = f.sender.send_window();
    if window != f.traced_window {
        t.window.push(time, flow, window as f64);
        f.traced_window = window;
    }
    let rto = f.sender.rto();
    if rto != f.traced_rto {
        t.rto.push(time, flow, to_millis(rto));
        f.traced_rto = rto;
    }
    let cuts = f.sender.stats.cwnd_reductions;
    if cuts != f.traced_cuts {
        t.cwnd_reductions.push(time, flow, cuts as f64);
        f.traced_cuts = cuts;
    }
}

/// ssthresh for traces: the "arbitrarily high" initial value is shown as +inf.
fn ssthresh_value(ssthresh: u64) -> f64 {
    if ssthresh >= SSTHRESH_INFINITE {
        f64::INFINITY
    } else {
        ssthresh as f64
    }
}

/// Mean and the 50th/95th/99th percentiles in ms (linear interpolation between order
/// statistics, numpy's default). NaN when there are no samples.
///
/// The six order statistics are selected (`select_nth_unstable`, linear) rather than the
/// samples sorted: the sort was most of the cost of collecting a wired run's result (143 k
/// instructions for the 4-flow 60 s preset, whose event loop takes 5.3 M). The mean is the
/// integer sum divided once: while the sum is below 2^53 every partial sum of the samples
/// as f64 is exact whatever their order, so it equals the sum in sorted order bit for bit;
/// above that (never seen: it takes some 10^7 samples of a second), the samples are sorted
/// and summed as they were.
fn delay_summary(d: &mut [Time]) -> (f64, f64, f64, f64) {
    if d.is_empty() {
        return (f64::NAN, f64::NAN, f64::NAN, f64::NAN);
    }
    let total: u128 = d.iter().map(|&x| x as u128).sum();
    let mean = if total < 1 << f64::MANTISSA_DIGITS {
        total as f64 / d.len() as f64
    } else {
        d.sort_unstable();
        d.iter().map(|&x| x as f64).sum::<f64>() / d.len() as f64
    };
    let last = d.len() - 1;
    // The statistics are asked for in ascending order: each selection works on what lies
    // above the previous one, and one asked for twice (lo = hi) is already in place.
    let mut from = 0;
    let mut stat = |k: usize| {
        if k >= from {
            d[from..].select_nth_unstable(k - from);
            from = k + 1;
        }
        d[k]
    };
    let mut pct = |q: f64| {
        let pos = q * last as f64;
        let lo = pos.floor() as usize;
        let hi = pos.ceil() as usize;
        let frac = pos - lo as f64;
        let (a, b) = (stat(lo), stat(hi));
        to_millis(a) * (1.0 - frac) + to_millis(b) * frac
    };
    let (p50, p95, p99) = (pct(0.50), pct(0.95), pct(0.99));
    (mean / crate::engine::NS_PER_MS as f64, p50, p95, p99)
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

    #[test]
    fn selected_statistics_match_the_sorted_ones_bit_for_bit() {
        // The sort-based summary it replaced, as the reference.
        fn sorted(d: &mut [u64]) -> (f64, f64, f64, f64) {
            d.sort_unstable();
            let mean = d.iter().map(|&x| x as f64).sum::<f64>() / d.len() as f64;
            let pct = |q: f64| {
                let pos = q * (d.len() - 1) as f64;
                let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
                let frac = pos - lo as f64;
                crate::engine::to_millis(d[lo]) * (1.0 - frac)
                    + crate::engine::to_millis(d[hi]) * frac
            };
            (mean / 1e6, pct(0.50), pct(0.95), pct(0.99))
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for n in (1..=40).chain([97, 100, 101, 1000, 4099]) {
            let mut d: Vec<u64> = (0..n)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    // Repeated values too: delays of one path often coincide.
                    (x >> 40) % 50_000_000
                })
                .collect();
            let want = sorted(&mut d.clone());
            let got = delay_summary(&mut d);
            for (g, w) in [
                (got.0, want.0),
                (got.1, want.1),
                (got.2, want.2),
                (got.3, want.3),
            ] {
                assert_eq!(g.to_bits(), w.to_bits(), "n = {n}");
            }
        }
    }
}
