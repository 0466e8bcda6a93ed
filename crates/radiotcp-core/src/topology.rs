//! The builder: a scenario's nodes, links and routes ([`crate::net::Net`]) from a validated
//! configuration: a server, a chain of wired links through routers, and at
//! the far end either the client host (wired) or an access node (UMTS bearer, IS-707 RLP link)
//! with its UE host attached to it.
//!
//! ```text
//! server --link 0--> router --link 1--> ... --link n-1--> client            (access = wired)
//! server --link 0--> router --link 1--> ... --link n-1--> access node == UE (umts, rlp)
//! server --link 0--> router --link 1--> ... --link n-1--> LTE site == UE 1, ..., UE N (lte)
//! ```
//!
//! Packets carry their destination host; every node looks the next hop up in the routes
//! `Net` computes once, so a node never knows where in a chain it sits.

use crate::config::{
    link_dir_params, receiver_params, sender_params, DelayDirections, ScenarioConfig,
};
use crate::engine::{secs, stream, EventQueue, RngStream, Time};
use crate::link::delay::VariableDelay;
use crate::link::{Dir, LinkDir};
use crate::net::{host_of_flow, Link, LinkId, Net, NodeId};
use crate::node::{Event, Host, HostEvent, Node, NodeEvent, Router};
use crate::packet::HostId;
use crate::probe::Probe;
use crate::sim::Sim;
use crate::tcp::RtoEstimator;
use crate::RunOptions;

/// Build the simulation of one replication from a validated configuration.
pub fn build(cfg: &ScenarioConfig, seed: u64, run_index: u64, opts: &RunOptions) -> Sim {
    let nflows = cfg.total_flows();
    let per_ue = cfg.flows.count;
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
        let client = host_of_flow(flow, per_ue);
        let ue = client as usize - 1;
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
    let net = Net::new(links, nodes.len(), &hosts, &attached, cfg.flows.count);
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
