//! Emulation: real hosts' packets through the modelled network. The scenario's topology is
//! built as for a simulation, but its server and its UE are *external* nodes: the packets a
//! real server and a real UE send (read from TUN devices by the real-time driver,
//! `realtime`) are injected at those nodes, cross the same link, RLC, buffer-discipline and
//! ACK-mechanism code as simulated packets, and whatever reaches the other external node is
//! handed back to be written to the other TUN device. The same entity code, another driver.
//!
//! [`Emulator`] is sans-IO: it is told when a packet arrived and what time it is, and it says
//! which packets leave and when the next event is due, so tests run it on a virtual clock.
//! The TUN devices (`tun`) and the real-time driver (`realtime`) are built only with the
//! crate's `emulation-io` feature, on Linux.
//!
//! The models see packets as they see simulated ones ([`Packet`]): a TCP segment with payload
//! (or SYN/FIN/RST) is a data packet whose `seq` is its sequence number, a pure ACK is an ACK
//! packet whose `seq` is its acknowledgement number (both unwrapped to 64 bits per connection
//! and direction), with its TSecr and SACK blocks; other protocols are data packets of their
//! size. Each packet's bytes wait in a store keyed by its arrival stamp (`Packet::sent_at`,
//! unique: one nanosecond apart at least), so nothing about the packet is faked on the way.
//! Packets the models make themselves (the base station's own ACKs, Zeng's controller) have
//! no bytes: an ACK is written from the connection's last real ACK with the new number
//! ([`packets::ack_from_template`]), anything else is counted and not delivered. Packets are
//! read and written with `crate::wire` ([`packets`]).

pub mod packets;

// Device I/O only with the `emulation-io` feature: the core crate alone stays sans-IO.
#[cfg(all(feature = "emulation-io", target_os = "linux"))]
pub mod realtime;
#[cfg(all(feature = "emulation-io", target_os = "linux"))]
pub mod tun;

use std::collections::HashMap;

use serde::Serialize;

use crate::config::{AccessConfig, ScenarioConfig};
use crate::engine::{to_millis, to_secs, Time, NS_PER_S};
use crate::error::ConfigError;
use crate::net::NodeId;
use crate::packet::{HostId, Packet, PacketKind, TcpOpts, MAX_SACK_BLOCKS};
use crate::results::RunResult;
use crate::sim::Sim;
use crate::wire::{FIN, RST, SYN};
use crate::RunOptions;
use packets::{FiveTuple, Parsed};

/// Which real host a packet comes from or goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The server side (host 0 of the topology): downlink traffic starts here.
    Server = 0,
    /// The UE (host 1).
    Ue = 1,
}

impl Side {
    fn other(self) -> Side {
        match self {
            Side::Server => Side::Ue,
            Side::Ue => Side::Server,
        }
    }
}

/// Stored bytes older than this are forgotten (their packet was lost in the model): no model
/// holds a packet this long (an IS-707 IAP queue of a thousand packets drains in minutes).
const STORE_HORIZON: Time = 30 * 60 * NS_PER_S;
/// How often (in packets injected) the store is swept.
const SWEEP_EVERY: u64 = 8192;

/// 32-bit TCP numbers made monotone 64-bit ones (RFC 9293 sequence arithmetic): each value
/// is taken as the nearest to the last one seen.
#[derive(Debug, Clone, Copy, Default)]
struct Unwrap {
    last: Option<u64>,
}

impl Unwrap {
    fn unwrap(&mut self, v: u32) -> u64 {
        match self.last {
            // Start one wrap up, so that values slightly below the first stay positive.
            None => {
                let x = v as u64 + (1 << 32);
                self.last = Some(x);
                x
            }
            Some(last) => {
                let diff = v.wrapping_sub(last as u32) as i32 as i64;
                let x = (last as i64 + diff) as u64;
                if diff > 0 {
                    self.last = Some(x);
                }
                x
            }
        }
    }
}

/// Counters of one direction of a connection (or of all of them).
#[derive(Debug, Clone, Default, Serialize)]
pub struct DirStats {
    /// Packets and bytes (IP, on the wire) the real sender handed to the emulation.
    pub packets_in: u64,
    pub bytes_in: u64,
    /// Packets and bytes the emulation delivered to the other side.
    pub packets_out: u64,
    pub bytes_out: u64,
    /// Transport payload bytes delivered (TCP/UDP payload).
    pub payload_out: u64,
    /// Delivered packets the models made (the base station's ACKs), included above.
    pub synthesized: u64,
    #[serde(skip)]
    delays_ms: Vec<f32>,
    #[serde(skip)]
    first_in: Option<Time>,
    #[serde(skip)]
    last_out: Time,
}

/// The delay summary of one direction.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DelaySummary {
    pub mean_ms: f64,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

fn summarize(delays: &mut [f32]) -> DelaySummary {
    if delays.is_empty() {
        return DelaySummary {
            mean_ms: f64::NAN,
            p50_ms: f64::NAN,
            p95_ms: f64::NAN,
            p99_ms: f64::NAN,
            max_ms: f64::NAN,
        };
    }
    delays.sort_by(|a, b| a.total_cmp(b));
    let q = |p: f64| delays[((delays.len() - 1) as f64 * p).round() as usize] as f64;
    DelaySummary {
        mean_ms: delays.iter().map(|&d| d as f64).sum::<f64>() / delays.len() as f64,
        p50_ms: q(0.5),
        p95_ms: q(0.95),
        p99_ms: q(0.99),
        max_ms: *delays.last().unwrap() as f64,
    }
}

/// One direction in the report.
#[derive(Debug, Clone, Serialize)]
pub struct DirReport {
    #[serde(flatten)]
    pub counts: DirStats,
    /// Payload bits delivered per second, over the emulation (all traffic) or from the
    /// connection's first packet to its last delivery (one connection).
    pub goodput_kbps: f64,
    pub delay: DelaySummary,
}

/// One connection (5-tuple) in the report.
#[derive(Debug, Clone, Serialize)]
pub struct FlowReport {
    /// The flow number the models saw (`Packet::flow`).
    pub flow: u32,
    /// "tcp", "udp", "icmp", a protocol number, or "other" (IPv6, fragments).
    pub proto: String,
    /// Address:port on the server side and on the UE side.
    pub server: String,
    pub ue: String,
    /// Server -> UE.
    pub down: DirReport,
    /// UE -> server.
    pub up: DirReport,
}

/// What an emulation did.
#[derive(Debug, Serialize)]
pub struct EmulationResult {
    /// From the first instant to the end, seconds.
    pub duration_s: f64,
    pub down: DirReport,
    pub up: DirReport,
    pub flows: Vec<FlowReport>,
    /// Packets read that are not IP (dropped).
    pub unparsed: u64,
    /// Packets the models made that have no bytes and could not be written (not delivered).
    pub unbacked: u64,
    /// Packets injected and not delivered: dropped by a model (`model` says where and why)
    /// or still in flight when the emulation ended.
    pub undelivered: u64,
    /// The models' own statistics (the same result a simulation returns; its TCP flows are
    /// empty: the real hosts run TCP).
    pub model: RunResult,
}

struct Flow {
    tuple: Option<FiveTuple>,
    /// Per direction (0 down, 1 up): data sequence numbers, acknowledgement numbers.
    seq: [Unwrap; 2],
    ack: [Unwrap; 2],
    /// Per direction: bytes counter for protocols without sequence numbers.
    bytes: [u64; 2],
    /// The last pure ACK from the UE (its bytes): template of synthesized ACKs.
    ack_template: Option<Vec<u8>>,
    stats: [DirStats; 2],
}

struct Stored {
    bytes: Vec<u8>,
    flow: u32,
    dir: usize,
    payload: u32,
    kind: PacketKind,
    seq: u64,
}

/// The emulated network between two real hosts (sans-IO).
pub struct Emulator {
    sim: Sim,
    /// The external nodes: server, UE.
    nodes: [NodeId; 2],
    flows: Vec<Flow>,
    index: HashMap<Option<FiveTuple>, u32>,
    store: HashMap<Time, Stored>,
    last_stamp: Time,
    injected: u64,
    forgotten: u64,
    unparsed: u64,
    unbacked: u64,
    out: Vec<(Side, Vec<u8>)>,
    start: Option<Time>,
}

impl Emulator {
    /// The network of `cfg` between two real hosts. Its `tcp` and `flows` settings do not
    /// apply (the real hosts run TCP); the access network is wired, a UMTS bearer, an IS-707
    /// RLP link, or an LTE cell with one UE.
    pub fn new(cfg: &ScenarioConfig, seed: u64, traces: bool) -> Result<Self, ConfigError> {
        cfg.validate()?;
        if let AccessConfig::Lte(_) = cfg.access {
            if cfg.access.ue_count() != 1 {
                return Err(ConfigError {
                    key: "access.ues".into(),
                    value: cfg.access.ue_count().to_string(),
                    allowed: "1 (the emulation carries one UE)".into(),
                    unknown_key: false,
                });
            }
        }
        let mut c = cfg.clone();
        c.flows.count = 0;
        let opts = RunOptions {
            traces,
            ..RunOptions::default()
        };
        let mut sim = crate::topology::build(&c, seed, 0, &opts);
        // The server is node 0 and the UE the last node (`topology::build`).
        let nodes = [0, sim.node_count() as NodeId - 1];
        sim.set_external(&nodes);
        sim.set_end(Time::MAX);
        Ok(Emulator {
            sim,
            nodes,
            flows: Vec::new(),
            index: HashMap::new(),
            store: HashMap::new(),
            last_stamp: 0,
            injected: 0,
            forgotten: 0,
            unparsed: 0,
            unbacked: 0,
            out: Vec::new(),
            start: None,
        })
    }

    /// The time of the next model event, if any: the driver must call [`Emulator::advance`]
    /// then.
    pub fn next_event_time(&self) -> Option<Time> {
        self.sim.next_event_time()
    }

    /// Process the next model event if it is due at `now`; its time, or None if none is due.
    pub fn step(&mut self, now: Time) -> Option<Time> {
        let t = self.sim.next_event_time().filter(|&t| t <= now)?;
        self.sim.step(t);
        self.collect();
        Some(t)
    }

    /// Process every model event due at `now`.
    pub fn advance(&mut self, now: Time) {
        while self.step(now).is_some() {}
    }

    /// Packets to write since the last call: (the side to write to, the IP packet).
    pub fn take_output(&mut self) -> std::vec::Drain<'_, (Side, Vec<u8>)> {
        self.out.drain(..)
    }

    /// A packet read from `from`'s side at `now` (not before the last call's time).
    pub fn receive(&mut self, now: Time, from: Side, bytes: Vec<u8>) {
        self.start.get_or_insert(now);
        let Some(p) = packets::parse(&bytes) else {
            self.unparsed += 1;
            return;
        };
        // Arrival stamps are unique: the key of the packet's bytes.
        let stamp = now.max(self.last_stamp + 1);
        self.last_stamp = stamp;
        let dir = from as usize;
        let key = match from {
            Side::Server => p.tuple,
            Side::Ue => p.tuple.map(|t| t.reversed()),
        };
        let id = match self.index.get(&key) {
            Some(&id) => id,
            None => {
                let id = self.flows.len() as u32;
                self.index.insert(key, id);
                self.flows.push(Flow {
                    tuple: key,
                    seq: Default::default(),
                    ack: Default::default(),
                    bytes: [0; 2],
                    ack_template: None,
                    stats: Default::default(),
                });
                id
            }
        };
        let flow = &mut self.flows[id as usize];
        let pkt = to_packet(flow, id, dir, &p, stamp, from.other());
        if pkt.kind == PacketKind::Ack && from == Side::Ue && p.tcp.is_some() {
            flow.ack_template = Some(bytes.clone());
        }
        let st = &mut flow.stats[dir];
        st.packets_in += 1;
        st.bytes_in += p.total_len as u64;
        st.first_in.get_or_insert(stamp);
        self.store.insert(
            stamp,
            Stored {
                bytes,
                flow: id,
                dir,
                payload: p.payload_len,
                kind: pkt.kind,
                seq: pkt.seq,
            },
        );
        self.sim.inject(stamp, self.nodes[dir], pkt);
        self.collect();
        self.injected += 1;
        if self.injected % SWEEP_EVERY == 0 {
            let old = stamp.saturating_sub(STORE_HORIZON);
            let before = self.store.len();
            self.store.retain(|&t, _| t >= old);
            self.forgotten += (before - self.store.len()) as u64;
        }
    }

    /// Move what reached the external nodes to the output, with its bytes.
    fn collect(&mut self) {
        for (now, node, pkt) in self.sim.take_outbox() {
            let to = if node == self.nodes[0] {
                Side::Server
            } else {
                Side::Ue
            };
            let dir = to.other() as usize;
            let matches = |s: &Stored| s.flow == pkt.flow && s.kind == pkt.kind && s.seq == pkt.seq;
            let (bytes, payload, synthesized) = match self.store.get(&pkt.sent_at) {
                Some(s) if matches(s) => {
                    let s = self.store.remove(&pkt.sent_at).expect("just found");
                    debug_assert_eq!(s.dir, dir);
                    (s.bytes, s.payload, false)
                }
                _ => match self.synthesize(&pkt, to) {
                    Some(b) => (b, 0, true),
                    None => {
                        self.unbacked += 1;
                        continue;
                    }
                },
            };
            let st = &mut self.flows[pkt.flow as usize].stats[dir];
            st.packets_out += 1;
            st.bytes_out += bytes.len() as u64;
            st.payload_out += payload as u64;
            st.synthesized += synthesized as u64;
            st.last_out = now;
            if !synthesized {
                st.delays_ms.push(to_millis(now - pkt.sent_at) as f32);
            }
            self.out.push((to, bytes));
        }
    }

    /// The bytes of a packet a model made: an ACK towards the server, written from the
    /// connection's last real ACK.
    fn synthesize(&self, pkt: &Packet, to: Side) -> Option<Vec<u8>> {
        if pkt.kind != PacketKind::Ack || to != Side::Server {
            return None;
        }
        let tpl = self.flows.get(pkt.flow as usize)?.ack_template.as_ref()?;
        packets::ack_from_template(tpl, pkt.seq as u32)
    }

    /// End the emulation at `now` and report.
    pub fn finish(mut self, now: Time) -> EmulationResult {
        let start = self.start.unwrap_or(0);
        let end = now.max(start);
        self.sim.set_end(end);
        let undelivered = self.store.len() as u64 + self.forgotten;
        let duration = to_secs(end - start);
        let mut all = [DirStats::default(), DirStats::default()];
        let mut flows = Vec::with_capacity(self.flows.len());
        for (id, f) in self.flows.iter_mut().enumerate() {
            let mut dirs = f.stats.clone();
            for d in 0..2 {
                let a = &mut all[d];
                let s = &dirs[d];
                a.packets_in += s.packets_in;
                a.bytes_in += s.bytes_in;
                a.packets_out += s.packets_out;
                a.bytes_out += s.bytes_out;
                a.payload_out += s.payload_out;
                a.synthesized += s.synthesized;
                a.delays_ms.extend_from_slice(&s.delays_ms);
            }
            let [down, up] = dirs.each_mut().map(|s| {
                let span = s.first_in.map_or(0, |t| s.last_out.saturating_sub(t));
                let goodput = if span > 0 {
                    s.payload_out as f64 * 8.0 / to_secs(span) / 1000.0
                } else {
                    f64::NAN
                };
                let delay = summarize(&mut s.delays_ms);
                DirReport {
                    counts: std::mem::take(s),
                    goodput_kbps: goodput,
                    delay,
                }
            });
            let (proto, server, ue) = describe(f.tuple);
            flows.push(FlowReport {
                flow: id as u32,
                proto,
                server,
                ue,
                down,
                up,
            });
        }
        let [down, up] = all.map(|mut s| {
            let goodput = if duration > 0.0 {
                s.payload_out as f64 * 8.0 / duration / 1000.0
            } else {
                f64::NAN
            };
            let delay = summarize(&mut s.delays_ms);
            DirReport {
                counts: s,
                goodput_kbps: goodput,
                delay,
            }
        });
        EmulationResult {
            duration_s: duration,
            down,
            up,
            flows,
            unparsed: self.unparsed,
            unbacked: self.unbacked,
            undelivered,
            model: self.sim.finish(),
        }
    }
}

/// The models' view of a real packet.
fn to_packet(flow: &mut Flow, id: u32, dir: usize, p: &Parsed, stamp: Time, to: Side) -> Packet {
    let mut pkt = Packet {
        flow: id,
        kind: PacketKind::Data,
        dst: to as HostId,
        seq: 0,
        len: p.payload_len,
        size: p.total_len,
        rwnd: 0,
        sent_at: stamp,
        opt: TcpOpts::default(),
    };
    match p.tcp {
        Some(t) => {
            let control = t.flags & (SYN | FIN | RST) != 0;
            pkt.opt.syn = t.flags & SYN != 0;
            if let Some((_, ecr)) = t.options.timestamps {
                pkt.opt.ts = true;
                pkt.opt.ts_ecr = ecr;
            }
            if p.payload_len > 0 || control {
                pkt.seq = flow.seq[dir].unwrap(t.seq);
            } else {
                pkt.kind = PacketKind::Ack;
                pkt.seq = flow.ack[dir].unwrap(t.ack);
                pkt.rwnd = t.window as u32;
                // SACK blocks as offsets above the cumulative ACK (`TcpOpts`), those that
                // lie above it.
                let mut n = 0;
                for &(l, r) in t.options.sack.as_slice() {
                    let (lo, hi) = (l.wrapping_sub(t.ack), r.wrapping_sub(t.ack));
                    if n < MAX_SACK_BLOCKS && lo < hi && hi < 1 << 30 {
                        pkt.opt.sack[n] = (lo, hi);
                        n += 1;
                    }
                }
                pkt.opt.nsack = n as u8;
            }
        }
        None => {
            pkt.seq = flow.bytes[dir];
            flow.bytes[dir] += p.payload_len as u64;
        }
    }
    pkt
}

fn describe(t: Option<FiveTuple>) -> (String, String, String) {
    let Some(t) = t else {
        return ("other".into(), String::new(), String::new());
    };
    let ip = |a: [u8; 4]| format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3]);
    let proto = match t.proto {
        6 => "tcp".to_string(),
        17 => "udp".to_string(),
        1 => "icmp".to_string(),
        n => n.to_string(),
    };
    let ends = if matches!(t.proto, 6 | 17 | 136) {
        (
            format!("{}:{}", ip(t.src), t.sport),
            format!("{}:{}", ip(t.dst), t.dport),
        )
    } else {
        (ip(t.src), ip(t.dst))
    };
    (proto, ends.0, ends.1)
}
