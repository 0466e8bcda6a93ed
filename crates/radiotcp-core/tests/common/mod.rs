//! A two-node test network built by the real wiring: a server and a client [`Host`] joined by
//! one link (`topology::build` of a one-link scenario), run event by event by the simulation
//! loop. The link's data direction serialises a segment in `per_segment` and delays it by
//! `one_way`; the ACK direction only delays. A [`Tap`] on each direction logs what the hosts
//! send and loses what the test scripts ("drop segment 3", "drop the 7th ACK") before it
//! reaches the queue. Sender invariants are checked after every event.
//!
//! [`Host`]: radiotcp_core::node::Host
//! [`Tap`]: radiotcp_core::link::Tap

#![allow(dead_code)]

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use radiotcp_core::config::{
    LinkConfig, QueueConfig, ScenarioConfig, SimulationConfig, TcpConfig, TcpVariant,
    VariableDelayConfig,
};
use radiotcp_core::engine::{millis, tx_time, RngStream, Time};
use radiotcp_core::link::{Dir, LinkDir, LinkDirParams};
use radiotcp_core::node::Node;
use radiotcp_core::sim::Sim;
use radiotcp_core::tcp::{Ack, Segment, TcpReceiver, TcpSender};
use radiotcp_core::{topology, RunOptions};

pub type DataDrop = Box<dyn FnMut(&Segment, u32) -> bool>;
pub type AckDrop = Box<dyn FnMut(u64, &Ack) -> bool>;

/// Hosts of a one-link topology: the server sends flow 0 to the client.
const SERVER: u32 = 0;
const CLIENT: u32 = 1;

/// What the taps saw since the harness last collected it.
#[derive(Default)]
struct Log {
    sent: Vec<(Time, Segment)>,
    acks: Vec<(Time, Ack)>,
    /// A data segment beyond everything sent before went out.
    new_data_sent: bool,
}

pub struct Harness {
    cfg: TcpConfig,
    /// A per-packet delay process on the link (reordering), instead of `one_way`'s constant.
    pub variable_delay: Option<VariableDelayConfig>,
    sim: Option<Sim>,
    app_limit: Option<u64>,
    pub one_way: Time,
    /// Serialisation time of one data segment on the link (0: infinitely fast).
    pub per_segment: Time,
    /// Drop a data segment given it and its transmission number for that seq (1 = original).
    pub drop_data: DataDrop,
    /// Drop the n-th ACK (0-based) sent by the receiver.
    pub drop_ack: AckDrop,
    log: Rc<RefCell<Log>>,
    pub sent: Vec<(Time, Segment)>,
    pub acks: Vec<(Time, Ack)>,
    pub violations: Vec<String>,
}

pub fn tcp_config(variant: TcpVariant, delack_count: u32) -> TcpConfig {
    TcpConfig {
        variant,
        packet_size_bytes: 1040,
        header_bytes: 40,
        delack_count,
        ..TcpConfig::default()
    }
}

pub const MSS: u64 = 1000;

impl Harness {
    /// Sender and receiver from `cfg`, `one_way_ms` apart, no drops.
    pub fn new(cfg: &TcpConfig, one_way_ms: f64) -> Self {
        Self {
            cfg: cfg.clone(),
            variable_delay: None,
            sim: None,
            app_limit: None,
            one_way: millis(one_way_ms),
            per_segment: 0,
            drop_data: Box::new(|_, _| false),
            drop_ack: Box::new(|_, _| false),
            log: Rc::default(),
            sent: Vec::new(),
            acks: Vec::new(),
            violations: Vec::new(),
        }
    }

    /// Drop the original transmission of the segments with these indices (seq / MSS).
    pub fn drop_segments(mut self, idx: &'static [u64]) -> Self {
        self.drop_data = Box::new(move |s, n| n == 1 && idx.contains(&(s.seq / MSS)));
        self
    }

    /// Make the transfer finite (before `start`).
    pub fn set_app_limit(&mut self, bytes: u64) {
        assert!(self.sim.is_none(), "set before start");
        self.app_limit = Some(bytes);
    }

    /// Build the network; the flow opens at time 0, when the first `run_ms` begins.
    pub fn start(&mut self) {
        let link = LinkConfig {
            name: "pipe".into(),
            delay_ms: 0.0,
            variable_delay: self.variable_delay.clone(),
            queue: QueueConfig {
                limit_packets: u32::MAX,
                ..QueueConfig::default()
            },
            ..LinkConfig::default()
        };
        let scenario = ScenarioConfig {
            simulation: SimulationConfig {
                duration_s: 0.0,
                warmup_s: 0.0,
            },
            tcp: self.cfg.clone(),
            links: vec![link],
            ..ScenarioConfig::default()
        };
        let mut sim = topology::build(&scenario, 0, 0, &RunOptions::default());
        if let Some(b) = self.app_limit {
            self.server_mut(&mut sim).set_app_limit(0, b);
        }
        let size = self.cfg.packet_size_bytes;
        let rate_bps = if self.per_segment == 0 {
            f64::INFINITY
        } else {
            size as f64 * 8.0 * 1e9 / self.per_segment as f64
        };
        assert_eq!(tx_time(size, rate_bps), self.per_segment, "rate not exact");
        let dir = |rate_bps| {
            LinkDir::new(
                &LinkDirParams {
                    rate_bps,
                    prop_delay: self.one_way,
                    loss_rate: 0.0,
                    limit_packets: usize::MAX,
                    limit_bytes: None,
                },
                RngStream::new(0, 0, 0),
            )
        };
        let mut data = dir(rate_bps);
        let mut ack = dir(f64::INFINITY);
        let (log, mut drop_data) = (
            self.log.clone(),
            std::mem::replace(&mut self.drop_data, Box::new(|_, _| false)),
        );
        let mut tx_count: HashMap<u64, u32> = HashMap::new();
        let mut high = 0u64;
        data.set_tap(Box::new(move |now, p| {
            let n = tx_count.entry(p.seq).or_insert(0);
            *n += 1;
            let seg = Segment {
                seq: p.seq,
                len: p.len,
                retransmission: p.seq < high,
            };
            high = high.max(p.seq + p.len as u64);
            let mut l = log.borrow_mut();
            l.sent.push((now, seg));
            l.new_data_sent |= !seg.retransmission;
            drop_data(&seg, *n)
        }));
        let (log, mut drop_ack) = (
            self.log.clone(),
            std::mem::replace(&mut self.drop_ack, Box::new(|_, _| false)),
        );
        let mut acks = 0u64;
        ack.set_tap(Box::new(move |now, p| {
            let a = Ack {
                ack: p.seq,
                rwnd: p.rwnd,
                opt: p.opt,
            };
            log.borrow_mut().acks.push((now, a));
            acks += 1;
            drop_ack(acks - 1, &a)
        }));
        let l = &mut sim.net_mut().links[0];
        l.dirs[Dir::Data as usize] = data;
        l.dirs[Dir::Ack as usize] = ack;
        self.sim = Some(sim);
    }

    fn server_mut<'a>(&self, sim: &'a mut Sim) -> &'a mut radiotcp_core::node::Host {
        match sim.node_mut(sim.net().node_of_host(SERVER)) {
            Node::Host(h) => h,
            _ => unreachable!("host 0 is the server"),
        }
    }

    fn sim(&self) -> &Sim {
        self.sim.as_ref().expect("started")
    }

    pub fn snd(&self) -> &TcpSender {
        match self.sim().node(self.sim().net().node_of_host(SERVER)) {
            Node::Host(h) => h.sender(0).unwrap(),
            _ => unreachable!(),
        }
    }

    pub fn rcv(&self) -> &TcpReceiver {
        match self.sim().node(self.sim().net().node_of_host(CLIENT)) {
            Node::Host(h) => h.receiver(0).unwrap(),
            _ => unreachable!(),
        }
    }

    /// The spurious-retransmission oracle's view of flow 0 so far.
    pub fn spurious(&self) -> &radiotcp_core::probe::spurious::SpuriousTracker {
        &self.sim().probe().flows[0].spurious
    }

    /// Bytes delivered to the client application: the receiver delivers in order only, so
    /// this is RCV.NXT.
    pub fn delivered(&self) -> u64 {
        self.rcv().rcv_nxt()
    }

    /// Run until `until_ms` or until no event is left.
    pub fn run_ms(&mut self, until_ms: f64) {
        let until = millis(until_ms);
        while self.sim.as_mut().expect("started").step(until) {
            self.check();
        }
        let mut l = self.log.borrow_mut();
        self.sent.append(&mut l.sent);
        self.acks.append(&mut l.acks);
    }

    /// After every event: cwnd >= 1 MSS, and new data sent outside recovery never took the
    /// flight size above min(cwnd, rwnd). The sender sends all it may at the end of an event,
    /// so the flight after the event is the largest any of its segments saw.
    fn check(&mut self) {
        let new_data = std::mem::take(&mut self.log.borrow_mut().new_data_sent);
        let s = self.snd();
        let mss = s.mss() as u64;
        let mut v = Vec::new();
        if s.cwnd() < mss {
            v.push(format!("cwnd {} < MSS", s.cwnd()));
        }
        let rwnd = self.cfg.receive_buffer_bytes() as u64;
        let rwnd = if self.cfg.window_scaling {
            rwnd
        } else {
            rwnd.min(65_535)
        };
        // SACKed data has left the network: a SACK sender counts only the rest against cwnd
        // (the receiver's buffer still holds it, so rwnd bounds the whole flight).
        if new_data && !s.in_recovery() && (s.in_flight() > s.cwnd() || s.flight_size() > rwnd) {
            v.push(format!(
                "in flight {} (flight {}) > cwnd {} or rwnd {} after sending new data",
                s.in_flight(),
                s.flight_size(),
                s.cwnd(),
                rwnd
            ));
        }
        self.violations.append(&mut v);
    }

    /// Times at which the segment with index `i` was sent.
    pub fn sends_of(&self, i: u64) -> Vec<Time> {
        self.sent
            .iter()
            .filter(|(_, s)| s.seq == i * MSS)
            .map(|(t, _)| *t)
            .collect()
    }

    pub fn assert_no_violations(&self) {
        assert!(
            self.violations.is_empty(),
            "{:?}",
            &self.violations[..self.violations.len().min(5)]
        );
    }
}
