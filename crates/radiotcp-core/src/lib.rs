//! radiotcp-core: a packet-level discrete-event simulator of TCP over wired and (later) radio
//! links. Pure Rust, no Python; the `radiotcp-py` crate is a thin binding over [`run`].
//!
//! Layout follows the layers of `docs/design.md`. Entities, sans-IO: [`tcp`], [`link`]
//! (wired link directions, delay processes), [`queue`] (buffer disciplines), [`ack`] (ACK
//! policies), [`radio`] (channels, RLC AM, RLP). Wiring: [`packet`], [`node`] (the drivers of
//! each node kind), [`topology`] (nodes, links, routes, built from a [`ScenarioConfig`]),
//! [`sim`] (the event loop), [`probe`] (traces and oracles). Around them: [`engine`] (time,
//! event queue, timers, RNG streams), [`config`], [`results`], [`metrics`].

pub mod ack;
pub mod config;
pub mod emulate;
pub mod engine;
pub mod error;
pub mod flatten;
mod headvec;
pub mod link;
pub mod metrics;
pub mod net;
pub mod node;
pub mod packet;
pub mod pcap;
pub mod probe;
pub mod queue;
pub mod radio;
pub mod results;
pub mod sim;
pub mod tcp;
pub mod topology;
pub mod wire;

pub use config::ScenarioConfig;
pub use error::{ConfigError, ParamError, RunError};
pub use results::{FlowMetrics, FlowStats, Halt, LinkStats, RunResult, Trace, Traces};
pub use sim::{Check, Progress};

/// Crate version, part of the results-store key.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Fingerprint of this build's simulator source (`build.rs`), also part of the results-store
/// key: a model changed without a version bump does not reuse stored runs.
pub const SOURCE_HASH: &str = env!("RADIOTCP_SOURCE_HASH");

/// What to record besides the always-on counters, and the run's budget.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Record cwnd, ssthresh, sequence-number and queue traces.
    pub traces: bool,
    /// End the run after this many events, with the statistics so far marked as halted
    /// ([`RunResult::halted`]); None: no limit.
    pub max_events: Option<u64>,
    /// Write pcap files of what passes the chosen points ([`probe::capture`]).
    pub pcap: Option<probe::capture::CaptureSpec>,
}

/// Run one replication. Same `(cfg, seed, run_index)` gives the same result, bit for bit.
pub fn run(
    cfg: &ScenarioConfig,
    seed: u64,
    run_index: u64,
    opts: &RunOptions,
) -> Result<RunResult, ConfigError> {
    match run_with_stop(cfg, seed, run_index, opts, &mut || false) {
        Ok(r) => Ok(r),
        Err(RunError::Config(e)) => Err(e),
        Err(RunError::Interrupted) => unreachable!("the stop check never fires"),
        // Only the pcap export writes files; its failure names the option.
        Err(RunError::Io(e)) => Err(ConfigError {
            key: "pcap".into(),
            value: e,
            allowed: "a directory the run can write to".into(),
            unknown_key: false,
        }),
    }
}

/// Like [`run`], but calls `stop` every few thousand events and ends the run with
/// [`RunError::Interrupted`] when it returns true (Ctrl-C from Python).
pub fn run_with_stop(
    cfg: &ScenarioConfig,
    seed: u64,
    run_index: u64,
    opts: &RunOptions,
    stop: &mut dyn FnMut() -> bool,
) -> Result<RunResult, RunError> {
    run_checked(cfg, seed, run_index, opts, &mut |_| {
        if stop() {
            Check::Interrupt
        } else {
            Check::Continue
        }
    })
}

/// Like [`run_with_stop`], with the run's budget: `opts.max_events`, and `check`, called every
/// few tens of thousands of events with the progress so far, which may interrupt the run or
/// halt it with the statistics so far (a wall-time budget, a progress display).
pub fn run_checked(
    cfg: &ScenarioConfig,
    seed: u64,
    run_index: u64,
    opts: &RunOptions,
    check: &mut dyn FnMut(Progress) -> Check,
) -> Result<RunResult, RunError> {
    cfg.validate()?;
    let mut sim = topology::build(cfg, seed, run_index, opts);
    if let Some(spec) = &opts.pcap {
        sim.set_capture(open_capture(cfg, spec, run_index)?);
    }
    sim.run_checked(opts.max_events, check)
}

/// The pcap export of one run: every point's file opened, the encoder told the scenario's TCP.
fn open_capture(
    cfg: &ScenarioConfig,
    spec: &probe::capture::CaptureSpec,
    run_index: u64,
) -> Result<probe::capture::Capture, RunError> {
    use probe::capture::{wscale_for, Capture, CapturePoint, WireParams};
    let names: Vec<String> = cfg.links.iter().map(|l| l.name.clone()).collect();
    for p in &spec.points {
        if let CapturePoint::Link(n) = p {
            if !names.contains(n) {
                return Err(RunError::Config(ConfigError {
                    key: "pcap point".into(),
                    value: format!("{n:?}"),
                    allowed: format!("\"server\", \"ue\" or a link name ({})", names.join(", ")),
                    unknown_key: false,
                }));
            }
        }
    }
    let t = &cfg.tcp;
    let rcv_buf = t.receive_buffer_bytes();
    let wire = WireParams {
        mss: t.mss().min(u16::MAX as u32) as u16,
        sack: t.variant == config::TcpVariant::Sack,
        timestamps: t.timestamps,
        wscale: t.window_scaling.then(|| wscale_for(rcv_buf)),
        rcv_buf,
    };
    let flow_client = (0..cfg.total_flows() as u32)
        .map(|f| net::host_of_flow(f, cfg.flows.count))
        .collect();
    let hosts = 1 + cfg.access.ue_count() as usize;
    Capture::open(spec, run_index, wire, flow_client, hosts, &names)
        .map_err(|e| RunError::Io(format!("pcap export to {}: {e}", spec.dir.display())))
}
