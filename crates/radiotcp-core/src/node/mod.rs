//! Nodes of the topology. Each node kind is a driver: it owns its sans-IO entities, turns
//! what they ask for into events and packets, and reports what happened to the probe. The
//! simulation loop (`sim.rs`) only dispatches; routing is by destination (`net.rs`).
//!
//! Adding an access network means one file here, one variant of [`Node`] and of
//! [`NodeEvent`], and one variant of the configuration's `access` choice (as the LTE cell,
//! `lte.rs`, did).

pub mod endpoint;
pub mod lte;
pub mod rlp;
pub mod router;
pub mod umts;

use crate::config::{AccessConfig, ScenarioConfig};
use crate::engine::{stream, EventQueue, Packed, RngStream, Time, TimerSlot, PACKED_BITS};
use crate::link::{Dir, OnWire};
use crate::net::{LinkEvent, LinkId, Net, NodeId, Port};
use crate::packet::{HostId, Packet};
use crate::probe::Probe;
use crate::results::RunResult;

pub use endpoint::{Host, HostEvent};
pub use lte::{LteEvent, LteNode};
pub use rlp::{RlpEvent, RlpNode};
pub use router::{Router, RouterEvent};
pub use umts::{UmtsEvent, UmtsNode};

/// Every node kind (enum dispatch: no `Box<dyn>` on the hot path).
pub enum Node {
    /// A server or a UE: TCP senders and receivers.
    Host(Host),
    /// Forwards by destination; may run the base-station ACK controller.
    Router(Router),
    /// A UMTS bearer: the RNC's buffer and RLC AM, the DCH, the UE's RLC AM.
    Umts(Box<UmtsNode>),
    /// An IS-707 RLP link: the IAP's buffer and RLP, the traffic channel, the mobile's RLP.
    Rlp(Box<RlpNode>),
    /// An LTE site of three sectors with many UEs.
    Lte(Box<LteNode>),
    /// A host outside the simulation (the emulation's real server or UE): what reaches it is
    /// collected for the driver to write out (`crate::emulate`).
    External(ExternalHost),
}

/// The packets that reached an external host, with their arrival times.
#[derive(Debug, Default)]
pub struct ExternalHost {
    pub outbox: Vec<(Time, Packet)>,
}

/// What the event queue holds: a node's timer or step, or a link direction's event.
#[derive(Debug, Clone)]
pub enum Event {
    Node(NodeId, NodeEvent),
    Link(LinkId, Dir, LinkEvent),
}

/// A link direction's end of serialisation and in-order arrival travel in the queue's heap
/// key: `link << 2 | dir << 1 | arrival`. Node events and arrivals by slot wait in the slab.
impl Packed for Event {
    #[inline(always)]
    fn pack(&self) -> Option<u32> {
        match *self {
            Event::Link(l, d, ev) if l < 1 << (PACKED_BITS - 2) => {
                let arrival = match ev {
                    LinkEvent::TxDone => 0,
                    LinkEvent::Arrive(OnWire::Next) => 1,
                    LinkEvent::Arrive(OnWire::Slot(_)) => return None,
                };
                Some(l << 2 | (d as u32) << 1 | arrival)
            }
            _ => None,
        }
    }

    #[inline(always)]
    fn unpack(bits: u32) -> Self {
        let d = if bits & 2 == 0 { Dir::Data } else { Dir::Ack };
        let ev = if bits & 1 == 0 {
            LinkEvent::TxDone
        } else {
            LinkEvent::Arrive(OnWire::Next)
        };
        Event::Link(bits >> 2, d, ev)
    }

    /// A link direction's in-order arrivals come in time order (the ends of serialisation
    /// do, and a constant delay follows them, or a delay process that keeps the order): the
    /// queue may keep them in a lane per direction, `link << 1 | dir`.
    #[inline(always)]
    fn lane(bits: u32) -> Option<usize> {
        (bits & 1 != 0).then_some((bits >> 1) as usize)
    }
}

impl From<(LinkId, Dir, LinkEvent)> for Event {
    #[inline]
    fn from((link, dir, ev): (LinkId, Dir, LinkEvent)) -> Self {
        Event::Link(link, dir, ev)
    }
}

/// A timer or a scheduled step of one node.
#[derive(Debug, Clone)]
pub enum NodeEvent {
    Host(HostEvent),
    Router(RouterEvent),
    Umts(UmtsEvent),
    Rlp(RlpEvent),
    Lte(LteEvent),
}

impl Node {
    pub fn handle(&mut self, ctx: &mut Ctx, ev: NodeEvent) {
        match (self, ev) {
            (Node::Host(n), NodeEvent::Host(e)) => n.handle(ctx, e),
            (Node::Router(n), NodeEvent::Router(e)) => n.handle(ctx, e),
            (Node::Umts(n), NodeEvent::Umts(e)) => n.handle(ctx, e),
            (Node::Rlp(n), NodeEvent::Rlp(e)) => n.handle(ctx, e),
            (Node::Lte(n), NodeEvent::Lte(e)) => n.handle(ctx, e),
            _ => unreachable!("an event reached a node of another kind"),
        }
    }

    /// The access node `cfg.access` asks for, serving host `ue` (the LTE cell: hosts `ue`,
    /// `ue + 1`, ... one per UE), or None for a wired access (the last link reaches the
    /// host). The one place that maps an access kind to a node; its random streams are keyed
    /// by the kind, node index 0 and the sub-stream (the LTE cell: per UE, `node/lte.rs`).
    pub fn access(cfg: &ScenarioConfig, ue: HostId, seed: u64, run: u64) -> Option<Node> {
        let rng = |kind| move |sub| RngStream::new(seed, run, stream::id(kind, 0, sub));
        match &cfg.access {
            AccessConfig::Wired(_) => None,
            AccessConfig::Umts(c) => Some(Node::Umts(Box::new(UmtsNode::from_config(
                cfg,
                c,
                ue,
                &rng(stream::Kind::Umts),
            )))),
            AccessConfig::Rlp(c) => Some(Node::Rlp(Box::new(RlpNode::from_config(
                cfg,
                c,
                ue,
                &rng(stream::Kind::Rlp),
            )))),
            AccessConfig::Lte(c) => Some(Node::Lte(Box::new(LteNode::from_config(
                cfg,
                c,
                c.rat(),
                ue,
                seed,
                run,
            )))),
            // The NR cell is the LTE cell's model with NR's RAT (config/nr.rs).
            AccessConfig::Nr(c) => Some(Node::Lte(Box::new(LteNode::from_config(
                cfg,
                &c.cell_config(),
                c.rat(),
                ue,
                seed,
                run,
            )))),
        }
    }

    /// A packet reached the node, over `from` (a link and the direction it travelled) or
    /// handed over by an attached node (`None`). Always inlined into the loop: a call here
    /// copied every packet once more on its way to the node (2 % of the wired path). By
    /// reference to the wired nodes, which read it or forward it (each copy of a 72-byte
    /// packet is a dozen instructions).
    #[inline(always)]
    pub fn receive(&mut self, ctx: &mut Ctx, pkt: &Packet, from: Option<(LinkId, Dir)>) {
        match self {
            Node::Host(n) => n.receive(ctx, pkt),
            Node::Router(n) => n.receive(ctx, pkt, from),
            Node::Umts(n) => n.receive(ctx, *pkt),
            Node::Rlp(n) => n.receive(ctx, *pkt),
            Node::Lte(n) => n.receive(ctx, pkt),
            Node::External(x) => x.outbox.push((ctx.now, *pkt)),
        }
    }

    /// The node's first step, at time 0 after the flow starts: an access node's first TTI or
    /// frame slot.
    pub fn start(&mut self, ctx: &mut Ctx) {
        match self {
            Node::Umts(n) => n.start(ctx),
            Node::Rlp(_) => RlpNode::start(ctx),
            Node::Lte(_) => LteNode::start(ctx),
            Node::Host(_) | Node::Router(_) | Node::External(_) => {}
        }
    }

    /// Add this node's statistics to the result (after the last event).
    pub fn finish(&mut self, r: &mut RunResult, net: &Net, end: Time, measure_from: Time) {
        match self {
            Node::Host(n) => n.finish(r, measure_from),
            Node::Router(n) => n.finish(r, net),
            Node::Umts(n) => n.finish(r, end, measure_from),
            Node::Rlp(n) => n.finish(r, end, measure_from),
            Node::Lte(n) => n.finish(r, end, measure_from),
            Node::External(_) => {}
        }
    }
}

/// What a node may touch while it handles an event: the clock, the event queue (for its own
/// events), the network (to send), the probe, and the hand-over list for attached nodes.
pub struct Ctx<'a> {
    pub now: Time,
    /// The node being run: its events are addressed to it.
    pub node: NodeId,
    pub q: &'a mut EventQueue<Event>,
    pub net: &'a mut Net,
    pub probe: &'a mut Probe,
    /// Packets for attached nodes, delivered right after this handler returns, in order.
    pub handoff: &'a mut Vec<(NodeId, Packet)>,
}

impl Ctx<'_> {
    #[inline]
    pub fn schedule(&mut self, at: Time, ev: NodeEvent) {
        self.q.schedule(at, Event::Node(self.node, ev));
    }

    /// Keep a timer slot's event in step with an entity's deadline (see [`TimerSlot`]).
    #[inline(always)]
    pub fn sync(
        &mut self,
        slot: &mut TimerSlot,
        deadline: Option<Time>,
        ev: impl FnOnce(u32) -> NodeEvent,
    ) {
        let node = self.node;
        slot.sync(self.q, deadline, |g| Event::Node(node, ev(g)));
    }

    /// Where this node sends a packet for `pkt.dst`.
    #[inline]
    pub fn route(&self, pkt: &Packet) -> Port {
        self.net.route(self.node, pkt.dst)
    }

    /// Send a packet towards its destination.
    #[inline]
    pub fn send(&mut self, pkt: Packet) {
        self.forward(&pkt);
    }

    /// Send a packet towards its destination, copied where it waits next (a router
    /// forwarding what it received).
    #[inline]
    pub fn forward(&mut self, pkt: &Packet) {
        let port = self.route(pkt);
        self.send_on(port, pkt);
    }

    /// Send a packet out of a given port: onto a link now, or to an attached node once the
    /// current handler returns. The hand-over (a push) is inlined into the caller; the link's
    /// enqueue, with the event queue's insertion, stays out of line: as one function, every
    /// hand-over paid the link path's frame (some 20 instructions of prologue and epilogue).
    #[inline(always)]
    pub fn send_on(&mut self, port: Port, pkt: &Packet) {
        match port {
            Port::Link(link, dir) => self.send_on_link(link, dir, pkt),
            Port::Attached(node) => self.handoff.push((node, *pkt)),
        }
    }

    #[inline(never)]
    fn send_on_link(&mut self, link: LinkId, dir: Dir, pkt: &Packet) {
        self.net
            .send_on(self.q, self.probe, self.now, link, dir, pkt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_events_pack_and_come_back_whole() {
        for l in [0, 1, 7, (1 << (PACKED_BITS - 2)) - 1] {
            for d in [Dir::Data, Dir::Ack] {
                for ev in [LinkEvent::TxDone, LinkEvent::Arrive(OnWire::Next)] {
                    let bits = Event::Link(l, d, ev).pack().expect("a link event packs");
                    assert!(bits < 1 << PACKED_BITS);
                    match Event::unpack(bits) {
                        Event::Link(l2, d2, ev2) => {
                            assert_eq!((l2, d2), (l, d));
                            assert_eq!(format!("{ev2:?}"), format!("{ev:?}"));
                        }
                        other => panic!("{other:?}"),
                    }
                }
            }
        }
        let slot = Event::Link(0, Dir::Data, LinkEvent::Arrive(OnWire::Slot(3)));
        assert!(
            slot.pack().is_none(),
            "an arrival by slot waits in the slab"
        );
        assert!(
            Event::Link(1 << (PACKED_BITS - 2), Dir::Data, LinkEvent::TxDone)
                .pack()
                .is_none()
        );
    }
}
