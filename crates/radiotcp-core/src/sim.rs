//! The simulation loop: an event queue and a dispatcher. Events are addressed to a node (its
//! timers and scheduled steps) or to a link direction (end of serialisation, arrival at the
//! far end); a node handles its events with a [`Ctx`] and sends packets through the routes.
//! Packets for an attached node (an access node's UE) are handed over right after the sending
//! handler returns, in order, depth first: the same order as a direct call.

use crate::engine::{to_secs, EventQueue, Packed, Popped, Time};
use crate::error::RunError;
use crate::link::{Dir, OnWire};
use crate::net::{LinkEvent, LinkId, Net, NodeId};
use crate::node::{Ctx, Event, Node, NodeEvent};
use crate::packet::{Packet, PacketKind};
use crate::probe::Probe;
use crate::results::{FlowStats, Halt, LinkStats, RunResult};

/// How often (in events) the caller's stop check runs: rare enough to cost nothing, frequent
/// enough that Ctrl-C answers within milliseconds.
const STOP_CHECK_EVERY: u64 = 1 << 16;

/// How far a run has got, for the caller's periodic check.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    /// Simulated time of the last event processed.
    pub now: Time,
    /// Events processed so far.
    pub events: u64,
}

/// The answer of the caller's periodic check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    Continue,
    /// Stop and return no result (Ctrl-C).
    Interrupt,
    /// Stop and return the statistics so far, marked with the reason.
    Halt(Halt),
}

/// What to run at a node. Packets by reference: the node reads them or copies them where
/// they wait next (a link's ring); copied by value on their way there, 72 bytes each time,
/// they cost 3 % of the wired path's instructions.
enum Call<'p> {
    Event(NodeEvent),
    Receive(&'p Packet, Option<(LinkId, Dir)>),
    /// [`Call::Receive`] of what is most likely a data segment, or an ACK, for a host
    /// ([`Arrive`]).
    HostData(&'p Packet, Option<(LinkId, Dir)>),
    HostAck(&'p Packet, Option<(LinkId, Dir)>),
    Start,
    /// Send a packet from the node as its own (an external host's packet, `Sim::inject`).
    Send(&'p Packet),
}

pub struct Sim {
    q: EventQueue<Event>,
    net: Net,
    nodes: Vec<Node>,
    probe: Probe,
    handoff: Vec<(NodeId, Packet)>,
    end: Time,
    seed: u64,
    run_index: u64,
    /// Nodes whose packets come from and go to outside the simulation (the emulation's real
    /// hosts, [`Node::External`]).
    external: Vec<NodeId>,
    /// What reaches the far end of each link direction ([`Arrive`]), by link and direction.
    arrive: Vec<[Arrive; 2]>,
}

/// What an arrival over a link direction most likely is, from the node at its far end and
/// the direction, so that the event loop jumps once to the handler: a host's data (over a
/// data direction) or ACKs (an ACK direction), or anything else (a router, an access node).
/// Looked up in a table beside the links, where the node's kind took two loads more (the
/// link's far end, then the node) and a host's data and ACKs shared one target, so that with
/// several flows the branch on the packet's kind that followed missed often. A guess only:
/// the handler checks the node and the packet and takes the general path if they differ.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Arrive {
    HostData,
    HostAck,
    Other,
}

impl Sim {
    /// A simulation over `nodes` and `net` with the flow starts already in `q`; every node's
    /// first step (an access node's first TTI or slot) is scheduled after them.
    pub fn new(
        q: EventQueue<Event>,
        net: Net,
        nodes: Vec<Node>,
        probe: Probe,
        end: Time,
        seed: u64,
        run_index: u64,
    ) -> Self {
        let mut sim = Self {
            q,
            net,
            nodes,
            probe,
            handoff: Vec::new(),
            end,
            seed,
            run_index,
            external: Vec::new(),
            arrive: Vec::new(),
        };
        sim.set_arrive();
        for n in 0..sim.nodes.len() {
            sim.at_node(0, n as NodeId, Call::Start);
        }
        sim
    }

    /// Process events up to the configured duration, or until the budget ends the run early:
    /// after `max_events` events, or when `check` (called every few tens of thousands of
    /// events with the progress so far) says so. A run ended by its budget returns the
    /// statistics up to the last event processed, marked with [`RunResult::halted`].
    pub fn run_checked(
        mut self,
        max_events: Option<u64>,
        check: &mut dyn FnMut(Progress) -> Check,
    ) -> Result<RunResult, RunError> {
        let halted = self.advance_checked(max_events, check)?;
        let capture = self.probe.capture.take();
        let mut r = match halted {
            None => self.finish(),
            Some((h, now)) => {
                // The statistics cover what happened up to the last event (not beyond the
                // measured interval's start: a run halted in the warm-up measures nothing).
                self.end = now.max(self.probe.measure_from);
                let mut r = self.finish();
                r.halted = Some(h);
                r
            }
        };
        if let Some(c) = capture {
            r.pcap = c
                .close()
                .map_err(|e| RunError::Io(format!("pcap export: {e}")))?;
        }
        Ok(r)
    }

    /// Start the pcap export of this run (before it runs).
    pub fn set_capture(&mut self, c: crate::probe::capture::Capture) {
        self.probe.capture = Some(c);
    }

    /// Process events up to the configured duration without collecting the result, so that
    /// the nodes' end state can be looked at ([`Sim::node`]) before [`Sim::finish`]; `stop`
    /// is asked every few tens of thousands of events whether to interrupt.
    pub fn advance(&mut self, stop: &mut dyn FnMut() -> bool) -> Result<(), RunError> {
        let mut check = |_| {
            if stop() {
                Check::Interrupt
            } else {
                Check::Continue
            }
        };
        // No event budget and a check that never halts: the run reaches its end.
        self.advance_checked(None, &mut check).map(|_| ())
    }

    /// The event loop: dispatch events up to the configured duration; the halt reason and
    /// the time of the last event if the budget ended it early.
    fn advance_checked(
        &mut self,
        max_events: Option<u64>,
        check: &mut dyn FnMut(Progress) -> Check,
    ) -> Result<Option<(Halt, Time)>, RunError> {
        self.event_loop(self.end, max_events.unwrap_or(u64::MAX), check)
    }

    /// The one event loop: events up to `until`, stopping after the `limit`-th event taken
    /// off the queue (counted from the start of the run) or when `check` says so. Every
    /// caller goes through here, so that `dispatch` and what it calls are inlined into one
    /// loop (a second copy of the dispatch, for stepping, cost 4 % more instructions).
    #[inline(never)]
    fn event_loop(
        &mut self,
        until: Time,
        limit: u64,
        check: &mut dyn FnMut(Progress) -> Check,
    ) -> Result<Option<(Halt, Time)>, RunError> {
        while let Some((now, popped)) = self.q.pop_raw(until) {
            // The packed events (a link's) dispatched inline from their bits in registers;
            // the others (nodes' timers and steps, a few percent of the events) out of line.
            match popped {
                Popped::Packed(bits) => self.dispatch(now, Event::unpack(bits)),
                Popped::Parked(ev) => self.dispatch_parked(now, ev),
            }
            let events = self.q.popped();
            if events >= limit {
                return Ok(Some((Halt::MaxEvents, now)));
            }
            if events % STOP_CHECK_EVERY == 0 {
                match check(Progress { now, events }) {
                    Check::Continue => {}
                    Check::Interrupt => return Err(RunError::Interrupted),
                    Check::Halt(h) => return Ok(Some((h, now))),
                }
            }
        }
        Ok(None)
    }

    /// Process the next event if it is due at or before `until` (which may lie beyond the
    /// configured duration): false when none is. For tests that look at the nodes between
    /// events.
    pub fn step(&mut self, until: Time) -> bool {
        // One event: the loop halts after the next one taken off the queue.
        let limit = self.q.popped() + 1;
        matches!(
            self.event_loop(until, limit, &mut |_| Check::Continue),
            Ok(Some(_))
        )
    }

    #[inline(never)]
    fn dispatch_parked(&mut self, now: Time, ev: Event) {
        self.dispatch(now, ev);
    }

    #[inline(always)]
    fn dispatch(&mut self, now: Time, ev: Event) {
        match ev {
            Event::Node(n, ev) => self.at_node(now, n, Call::Event(ev)),
            Event::Link(l, d, LinkEvent::TxDone) => self.on_tx_done(now, l, d),
            Event::Link(l, d, LinkEvent::Arrive(w)) => {
                let link = &mut self.net.links[l as usize];
                let n = link.to[d as usize];
                let pkt = link.dirs[d as usize].take_arrival(w);
                let from = Some((l, d));
                // Each case a call of its own, inlined: merged into one value, the call
                // was matched a second time in `at_node`.
                match self.arrive[l as usize][d as usize] {
                    Arrive::HostData => self.at_node(now, n, Call::HostData(&pkt, from)),
                    Arrive::HostAck => self.at_node(now, n, Call::HostAck(&pkt, from)),
                    Arrive::Other => self.at_node(now, n, Call::Receive(&pkt, from)),
                }
            }
        }
    }

    /// Make `nodes` external: packets that reach them are collected ([`Sim::take_outbox`])
    /// instead of handled, and [`Sim::inject`] sends packets from them. The emulation's real
    /// hosts (`crate::emulate`).
    pub fn set_external(&mut self, nodes: &[NodeId]) {
        for &n in nodes {
            self.nodes[n as usize] = Node::External(Default::default());
        }
        self.external = nodes.to_vec();
        self.set_arrive();
    }

    /// Fill [`Sim::arrive`] from the links' far ends and the nodes' kinds.
    fn set_arrive(&mut self) {
        let nodes = &self.nodes;
        self.arrive = self
            .net
            .links
            .iter()
            .map(|link| {
                [Dir::Data, Dir::Ack].map(|d| match (&nodes[link.to[d as usize] as usize], d) {
                    (Node::Host(_), Dir::Data) => Arrive::HostData,
                    (Node::Host(_), Dir::Ack) => Arrive::HostAck,
                    _ => Arrive::Other,
                })
            })
            .collect();
    }

    /// Send `pkt` from node `from` at `now` (not before the last event processed), as if the
    /// node had sent it: through its route towards `pkt.dst`.
    pub fn inject(&mut self, now: Time, from: NodeId, pkt: Packet) {
        debug_assert!(now >= self.q.now(), "a packet injected in the past");
        self.at_node(now, from, Call::Send(&pkt));
    }

    /// Packets that reached external nodes since the last call: (time, node, packet), in
    /// the order of the nodes given to [`Sim::set_external`], then of arrival.
    pub fn take_outbox(&mut self) -> Vec<(Time, NodeId, Packet)> {
        let mut out = Vec::new();
        for &n in &self.external {
            if let Node::External(x) = &mut self.nodes[n as usize] {
                out.extend(x.outbox.drain(..).map(|(t, p)| (t, n, p)));
            }
        }
        out
    }

    /// The time of the next pending event, if any.
    pub fn next_event_time(&self) -> Option<Time> {
        self.q.peek_time()
    }

    /// The configured end of the run.
    pub fn end(&self) -> Time {
        self.end
    }

    /// Set the end of the run (the emulation runs for as long as its command does).
    pub fn set_end(&mut self, end: Time) {
        self.end = end;
    }

    /// The links and routes, e.g. to install a [`crate::link::Tap`] before the run.
    pub fn net_mut(&mut self) -> &mut Net {
        &mut self.net
    }

    /// The observer: traces and the spurious-retransmission oracle, as the run goes.
    pub fn probe(&self) -> &Probe {
        &self.probe
    }

    /// The runtime network (links, routes, which node holds which host).
    pub fn net(&self) -> &Net {
        &self.net
    }

    /// A node (`Net::node_of_host` finds a host's).
    pub fn node(&self, n: NodeId) -> &Node {
        &self.nodes[n as usize]
    }

    /// A node, to change its applications before the run (e.g. [`crate::node::Host::set_app_limit`]).
    pub fn node_mut(&mut self, n: NodeId) -> &mut Node {
        &mut self.nodes[n as usize]
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Run `call` at node `n`, then hand its packets for attached nodes over, depth first.
    /// Inlined into the loop (a call, with its frame and the context built in memory, was
    /// some 40 instructions per event); the hand-over, which only access nodes and their
    /// UEs make, is the out-of-line part that recurses.
    #[inline(always)]
    fn at_node(&mut self, now: Time, n: NodeId, call: Call) {
        let mark = self.handoff.len();
        let mut ctx = Ctx {
            now,
            node: n,
            q: &mut self.q,
            net: &mut self.net,
            probe: &mut self.probe,
            handoff: &mut self.handoff,
        };
        let node = &mut self.nodes[n as usize];
        match call {
            Call::Event(ev) => node.handle(&mut ctx, ev),
            Call::Receive(pkt, from) => node.receive(&mut ctx, pkt, from),
            // The guess checked (the branches follow the jump that chose the case, so they
            // are predicted): if the node or the packet is not what it says, the general path.
            Call::HostData(pkt, from) => match node {
                Node::Host(h) if pkt.kind == PacketKind::Data => h.deliver_data(&mut ctx, pkt),
                _ => node.receive(&mut ctx, pkt, from),
            },
            Call::HostAck(pkt, from) => match node {
                Node::Host(h) if pkt.kind == PacketKind::Ack => h.deliver_ack(&mut ctx, pkt),
                _ => node.receive(&mut ctx, pkt, from),
            },
            Call::Start => node.start(&mut ctx),
            Call::Send(pkt) => ctx.forward(pkt),
        }
        if self.handoff.len() > mark {
            self.hand_over(now, mark);
        }
    }

    /// Deliver the packets handed over since `mark` to their attached nodes, in order.
    #[inline(never)]
    fn hand_over(&mut self, now: Time, mark: usize) {
        let end = self.handoff.len();
        for i in mark..end {
            let (to, pkt) = self.handoff[i];
            self.at_node(now, to, Call::Receive(&pkt, None));
        }
        self.handoff.truncate(mark);
    }

    /// A link direction's serialisation ended. Most directions have no delay process and a
    /// lossless wire (every wired preset's): their packet stays on the wire in order and
    /// arrives after the propagation delay, with no outcome to build and match. Inlined into
    /// the event loop now that the other cases are out of line ([`Sim::on_tx_done_any`]): a
    /// call and a six-register frame less per end of serialisation (wired 600 s, 1 %
    /// fewer instructions per event); whole, it cost the loop registers.
    #[inline(always)]
    fn on_tx_done(&mut self, now: Time, l: LinkId, d: Dir) {
        let link = &mut self.net.links[l as usize];
        let ld = &mut link.dirs[d as usize];
        if link.delay[d as usize].is_none() && ld.lossless() {
            let next = ld.on_tx_done_in_order(now);
            let arrive_at = now + ld.prop_delay();
            if let Some(done) = next {
                self.tx_started(now, l, d, done);
            }
            self.q.schedule(
                arrive_at,
                Event::Link(l, d, LinkEvent::Arrive(OnWire::Next)),
            );
        } else {
            self.on_tx_done_any(now, l, d);
        }
    }

    /// The next serialisation on a link direction started at `now` and ends at `done`.
    #[inline(always)]
    fn tx_started(&mut self, now: Time, l: LinkId, d: Dir, done: Time) {
        if let Some(c) = self.probe.capture.as_mut() {
            if let Some(p) = self.net.links[l as usize].dirs[d as usize].in_service() {
                c.on_link(now, l, p);
            }
        }
        self.q.schedule(done, Event::Link(l, d, LinkEvent::TxDone));
        self.net.trace_queue(&mut self.probe, now, l, d);
    }

    /// [`Sim::on_tx_done`] with a delay process or a lossy wire.
    #[inline(never)]
    fn on_tx_done_any(&mut self, now: Time, l: LinkId, d: Dir) {
        let link = &mut self.net.links[l as usize];
        let delay = &mut link.delay[d as usize];
        // Arrivals keep the sending order unless a delay process may reorder them.
        let in_order = delay.as_ref().is_none_or(|v| v.params().fifo);
        let ld = &mut link.dirs[d as usize];
        let (out, next) = ld.on_tx_done(now, in_order);
        let arrive_at = match (&out, delay) {
            (Ok(_), Some(v)) => v.arrival_time(now),
            _ => now + ld.prop_delay(),
        };
        if let Some(done) = next {
            self.tx_started(now, l, d, done);
        }
        match out {
            Ok(w) => self
                .q
                .schedule(arrive_at, Event::Link(l, d, LinkEvent::Arrive(w))),
            Err((pkt, _)) => self.probe.drop(now, &pkt),
        }
    }

    /// Collect the run's result from the nodes, links and probe (after [`Sim::advance`]).
    pub fn finish(mut self) -> RunResult {
        let measure_from = self.probe.measure_from;
        let measured_s = to_secs(self.end - measure_from);
        let mut r = RunResult {
            seed: self.seed,
            run_index: self.run_index,
            duration_s: to_secs(self.end),
            measured_s,
            events: self.q.popped(),
            flows: (0..self.probe.flows.len())
                .map(|i| FlowStats::new(i as u32))
                .collect(),
            links: Vec::new(),
            access: None,
            bs_ack: None,
            traces: None,
            halted: None,
            pcap: Vec::new(),
        };
        for node in &mut self.nodes {
            node.finish(&mut r, &self.net, self.end, measure_from);
        }
        for f in &mut r.flows {
            f.m.completion_s = f.completed_at_s.map(|t| t - f.start_s);
        }
        for (f, p) in r.flows.iter_mut().zip(&self.probe.flows) {
            f.m.spurious_retransmissions = p.spurious.spurious_retransmissions;
            f.m.spurious_timeouts = p.spurious.spurious_timeouts;
            f.m.spurious_timeouts_not_lost = p.spurious.spurious_timeouts_not_lost;
            f.m.spurious_timeouts_lost_repaired = p.spurious.spurious_timeouts_lost_repaired;
        }
        for (i, link) in self.net.links.iter().enumerate() {
            for dir in [Dir::Data, Dir::Ack] {
                let st = &link.dirs[dir as usize].stats;
                let reordered = link.delay[dir as usize].as_ref().map(|v| v.stats.reordered);
                r.links
                    .push(LinkStats::new(i as u32, &link.name, dir, st, reordered));
            }
        }
        if let Some(a) = r.access.as_mut() {
            a.with_flows(&r.flows, |f| self.net.host_of_flow(f));
        }
        r.traces = self.probe.traces.take();
        r
    }
}
