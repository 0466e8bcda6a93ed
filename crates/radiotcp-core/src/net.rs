//! The runtime network: links and the routes between nodes, what a node needs to send a
//! packet on its way. Below the nodes (which send through it) and above the links; the
//! builder that fills it from a configuration is `crate::topology`.

use std::collections::VecDeque;

use crate::engine::{to_secs, EventQueue, Packed, Time};
use crate::link::delay::VariableDelay;
use crate::link::{Dir, Enqueued, LinkDir, OnWire};
use crate::packet::{HostId, Packet};
use crate::probe::Probe;

pub type NodeId = u32;
pub type LinkId = u32;

/// Where a node sends a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Port {
    /// Onto a link, in a direction.
    Link(LinkId, Dir),
    /// To a node attached without a link (an access node and its UEs).
    Attached(NodeId),
}

/// A wired link: one transmitter, queue and propagation per direction. `Dir::Data` runs from
/// the server side to the UE side.
pub struct Link {
    pub name: String,
    /// The node each direction delivers to.
    pub to: [NodeId; 2],
    pub dirs: [LinkDir; 2],
    /// Per direction: a per-packet delay process instead of the constant delay.
    pub delay: [Option<VariableDelay>; 2],
}

/// Links and routes: what a node needs to send.
pub struct Net {
    pub links: Vec<Link>,
    /// routes[node * hosts + host]: the port towards that host. One flat table: every packet
    /// sent looks its port up, and a vector per node cost a second bounds check and load.
    routes: Vec<Port>,
    /// Flows per UE host (see [`host_of_flow`]).
    flows_per_ue: u32,
    /// hosts[h]: the node of host h (the server is host 0, the UEs 1, 2, ...).
    hosts: Vec<NodeId>,
}

/// A link direction's event. An arrival names where its packet waits on the wire
/// ([`LinkDir::take_arrival`]): events stay small (a timer's size), which every event's trip
/// through the queue pays for.
#[derive(Debug, Clone, Copy)]
pub enum LinkEvent {
    /// The packet in service finished serialisation.
    TxDone,
    /// A packet reached the far end.
    Arrive(OnWire),
}

/// The host that receives flow `flow`: flows are numbered UE by UE, `flows_per_ue` each, and
/// the UE hosts are 1, 2, ... after the server (host 0). The one place that says so.
#[inline]
pub fn host_of_flow(flow: u32, flows_per_ue: u32) -> HostId {
    1 + flow / flows_per_ue.max(1)
}

impl Net {
    /// The links, and the routes between `nodes` nodes for the hosts placed at `hosts` (host
    /// h at node hosts[h]), with `attached` node pairs joined without a link.
    pub fn new(
        links: Vec<Link>,
        nodes: usize,
        hosts: &[NodeId],
        attached: &[(NodeId, NodeId)],
        flows_per_ue: u32,
    ) -> Self {
        let mut net = Self {
            links,
            routes: Vec::new(),
            flows_per_ue,
            hosts: hosts.to_vec(),
        };
        net.compute_routes(nodes, hosts, attached);
        net
    }

    /// The node of host `host` (the server is host 0, UE u is host u + 1): what a driver asks
    /// instead of counting on a node numbering.
    #[inline]
    pub fn node_of_host(&self, host: HostId) -> NodeId {
        self.hosts[host as usize]
    }

    /// The host that receives flow `flow` ([`host_of_flow`]).
    #[inline]
    pub fn host_of_flow(&self, flow: u32) -> HostId {
        host_of_flow(flow, self.flows_per_ue)
    }

    #[inline]
    pub fn route(&self, from: NodeId, dst: HostId) -> Port {
        debug_assert!((dst as usize) < self.hosts.len(), "no such host {dst}");
        self.routes[from as usize * self.hosts.len() + dst as usize]
    }

    /// Offer a packet to a link direction at `now` (by reference: the direction copies it
    /// once, into its queue).
    #[inline]
    pub fn send_on<E: From<(LinkId, Dir, LinkEvent)> + Packed>(
        &mut self,
        q: &mut EventQueue<E>,
        probe: &mut Probe,
        now: Time,
        link: LinkId,
        dir: Dir,
        pkt: &Packet,
    ) {
        let ld = &mut self.links[link as usize].dirs[dir as usize];
        match ld.enqueue(now, pkt) {
            Enqueued::StartedTx(done) => {
                if let Some(c) = probe.capture.as_mut() {
                    c.on_link(now, link, pkt);
                }
                q.schedule(done, E::from((link, dir, LinkEvent::TxDone)))
            }
            Enqueued::Queued => self.trace_queue(probe, now, link, dir),
            Enqueued::Dropped => probe.drop(now, pkt),
        }
    }

    /// The data-direction queue length, for the `queue` trace.
    #[inline]
    pub fn trace_queue(&self, probe: &mut Probe, now: Time, link: LinkId, dir: Dir) {
        if dir != Dir::Data {
            return;
        }
        if let Some(t) = probe.traces.as_mut() {
            let len = self.links[link as usize].dirs[dir as usize].queue_len();
            t.queue.push(to_secs(now), link, len as f64);
        }
    }

    /// Routes for every (node, host) pair by breadth-first search from each host over links
    /// (both directions) and attachments.
    fn compute_routes(&mut self, nodes: usize, hosts: &[NodeId], attached: &[(NodeId, NodeId)]) {
        let mut adj: Vec<Vec<(Port, NodeId)>> = vec![Vec::new(); nodes];
        for (i, l) in self.links.iter().enumerate() {
            let (down, up) = (l.to[Dir::Data as usize], l.to[Dir::Ack as usize]);
            adj[up as usize].push((Port::Link(i as LinkId, Dir::Data), down));
            adj[down as usize].push((Port::Link(i as LinkId, Dir::Ack), up));
        }
        for &(a, b) in attached {
            adj[a as usize].push((Port::Attached(b), b));
            adj[b as usize].push((Port::Attached(a), a));
        }
        // Unreachable pairs keep a self-attachment that no packet ever uses.
        self.routes = (0..nodes)
            .flat_map(|n| std::iter::repeat_n(Port::Attached(n as NodeId), hosts.len()))
            .collect();
        for (h, &dst) in hosts.iter().enumerate() {
            let mut seen = vec![false; nodes];
            seen[dst as usize] = true;
            let mut queue = VecDeque::from([dst]);
            while let Some(u) = queue.pop_front() {
                for &(_, v) in &adj[u as usize] {
                    if seen[v as usize] {
                        continue;
                    }
                    seen[v as usize] = true;
                    // v reaches dst through u: v's port towards u.
                    let port = adj[v as usize]
                        .iter()
                        .find(|(_, w)| *w == u)
                        .map(|(p, _)| *p)
                        .expect("links and attachments are symmetric");
                    self.routes[v as usize * hosts.len() + h] = port;
                    queue.push_back(v);
                }
            }
        }
    }
}
