//! The topology: nodes joined by links, and the routes between them. A scenario is built here
//! from a validated configuration: a server, a chain of wired links through routers, and at
//! the far end either the client host (wired) or an access node (UMTS bearer, IS-707 RLP link)
//! with its UE host attached to it.
//!
//! ```text
//! server --link 0--> router --link 1--> ... --link n-1--> client            (access = wired)
//! server --link 0--> router --link 1--> ... --link n-1--> access node == UE (umts, rlp)
//! server --link 0--> router --link 1--> ... --link n-1--> LTE site == UE 1, ..., UE N (lte)
//! ```
//!
//! Packets carry their destination host; every node looks the next hop up in `routes`,
//! computed once by breadth-first search, so a node never knows where in a chain it sits.

use std::collections::VecDeque;

use crate::config::{
    link_dir_params, receiver_params, sender_params, DelayDirections, ScenarioConfig,
};
use crate::engine::{secs, stream, to_secs, EventQueue, RngStream, Time};
use crate::link::delay::VariableDelay;
use crate::link::{Dir, Enqueued, LinkDir};
use crate::node::{Host, HostEvent, Node, NodeEvent, Router};
use crate::packet::{HostId, Packet};
use crate::probe::Probe;
use crate::sim::{Event, LinkEvent, Sim};
use crate::tcp::RtoEstimator;
use crate::RunOptions;

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
    /// routes[node][host]: the port towards that host.
    routes: Vec<Vec<Port>>,
}

impl Net {
    #[inline]
    pub fn route(&self, from: NodeId, dst: HostId) -> Port {
        self.routes[from as usize][dst as usize]
    }

    /// Offer a packet to a link direction at `now`.
    #[inline]
    pub fn send_on(
        &mut self,
        q: &mut EventQueue<Event>,
        probe: &mut Probe,
        now: Time,
        link: LinkId,
        dir: Dir,
        pkt: Packet,
    ) {
        let ld = &mut self.links[link as usize].dirs[dir as usize];
        match ld.enqueue(now, pkt) {
            Enqueued::StartedTx(done) => {
                if let Some(c) = probe.capture.as_mut() {
                    c.on_link(now, link, &pkt);
                }
                q.schedule(done, Event::Link(link, dir, LinkEvent::TxDone))
            }
            Enqueued::Queued => self.trace_queue(probe, now, link, dir),
            Enqueued::Dropped => probe.drop(now, &pkt),
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
            .map(|n| vec![Port::Attached(n as NodeId); hosts.len()])
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
                    self.routes[v as usize][h] = port;
                    queue.push_back(v);
                }
            }
        }
    }
}

/// Build the simulation of one replication from a validated configuration.
pub fn build(cfg: &ScenarioConfig, seed: u64, run_index: u64, opts: &RunOptions) -> Sim {
    let nflows = cfg.total_flows();
    let per_ue = cfg.flows.count as usize;
    let nues = cfg.access.ue_count() as usize;
    let nlinks = cfg.links.len();
    // Node numbering: the server, a router between consecutive links, then the far end.
    // Hosts: the server is host 0, the UEs (one unless the access is an LTE cell) 1, 2, ...
    const SERVER: HostId = 0;
    let server_node: NodeId = 0;
    let far_node = nlinks as NodeId;
    let mut nodes: Vec<Node> = Vec::with_capacity(nlinks + 2 + nues);
    let mut server = Host::new(SERVER, nflows);
    let mut clients: Vec<Host> = (0..nues)
        .map(|u| Host::new(1 + u as HostId, nflows))
        .collect();
    let sp = sender_params(&cfg.tcp);
    let rp = receiver_params(&cfg.tcp);
    let mut q = EventQueue::new();
    for (i, start_s) in cfg.flow_start_times_s().into_iter().enumerate() {
        let jitter = cfg.flows.start_jitter_s;
        let start_s = if jitter > 0.0 {
            let mut rng =
                RngStream::new(seed, run_index, stream::id(stream::Kind::Flow, i as u64, 0));
            start_s + jitter * rng.uniform()
        } else {
            start_s
        };
        let start = secs(start_s);
        let flow = i as u32;
        // Flows are numbered UE by UE.
        let ue = i / per_ue;
        let client = 1 + ue as HostId;
        q.schedule(
            start,
            Event::Node(server_node, NodeEvent::Host(HostEvent::FlowStart(flow))),
        );
        let mut sp = sp.clone();
        if sp.rto_estimator == RtoEstimator::Ns2 {
            // ns-2 draws each connection's clock phase (`boot_time_`) in one tick.
            let mut rng = RngStream::new(
                seed,
                run_index,
                stream::wide(stream::TCP_CLOCK, i as u64, 0),
            );
            sp.clock_phase = (rng.uniform() * sp.granularity as f64) as Time;
        }
        server.add_sender(flow, client, sp, cfg.tcp.header_bytes, start);
        clients[ue].add_receiver(flow, SERVER, rp.clone(), cfg.tcp.ack_size_bytes);
        if let Some(bytes) = cfg.flows.size_bytes {
            server.set_app_limit(flow, bytes);
            clients[ue].expect_bytes(flow, bytes);
        }
    }
    nodes.push(Node::Host(server));
    let bs_link = cfg.bs_ack.params().map(|p| {
        let link = cfg
            .bs_ack
            .link_index(&cfg.links)
            .expect("validated with the configuration");
        (link, p)
    });
    for i in 1..nlinks {
        nodes.push(Node::Router(match &bs_link {
            Some((link, p)) if *link == i => Router::with_bs_ack(i as LinkId, p.clone()),
            _ => Router::new(),
        }));
    }
    let links = cfg
        .links
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let rng = |d: u64| {
                RngStream::new(seed, run_index, stream::id(stream::Kind::Link, i as u64, d))
            };
            let delay = |d: Dir| {
                let v = l.variable_delay.as_ref()?;
                let on = match v.directions {
                    DelayDirections::Both => true,
                    DelayDirections::Data => d == Dir::Data,
                    DelayDirections::Ack => d == Dir::Ack,
                };
                let p = v
                    .params(&format!("links.{i}.variable_delay"))
                    .expect("validated with the configuration");
                let id = stream::id(stream::Kind::LinkDelay, i as u64, d as u64);
                on.then(|| VariableDelay::new(p, RngStream::new(seed, run_index, id)))
            };
            Link {
                name: l.name.clone(),
                to: [i as NodeId + 1, i as NodeId],
                dirs: [
                    LinkDir::new(&link_dir_params(l, Dir::Data), rng(0)),
                    LinkDir::new(&link_dir_params(l, Dir::Ack), rng(1)),
                ],
                delay: [delay(Dir::Data), delay(Dir::Ack)],
            }
        })
        .collect();
    let mut net = Net {
        links,
        routes: Vec::new(),
    };
    let probe = Probe::new(nflows, secs(cfg.simulation.warmup_s), opts.traces);
    let mut attached = Vec::new();
    let mut hosts = vec![server_node; 1 + nues];
    // The far end: the client itself, or an access node with the UE hosts attached to it.
    match Node::access(cfg, 1, seed, run_index) {
        Some(node) => {
            nodes.push(node);
            for (u, client) in clients.into_iter().enumerate() {
                let ue_node = nodes.len() as NodeId;
                attached.push((far_node, ue_node));
                hosts[1 + u] = ue_node;
                nodes.push(Node::Host(client));
            }
        }
        None => {
            hosts[1] = far_node;
            nodes.extend(clients.into_iter().map(Node::Host));
        }
    }
    net.compute_routes(nodes.len(), &hosts, &attached);
    Sim::new(
        q,
        net,
        nodes,
        probe,
        secs(cfg.simulation.duration_s),
        seed,
        run_index,
    )
}
