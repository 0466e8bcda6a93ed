//! radiotcp-core: a packet-level discrete-event simulator of TCP over wired and (later) radio
//! links. Pure Rust, no Python; the `radiotcp-py` crate is a thin binding over [`run`].
//!
//! Layout follows the layers of `docs/design.md`: [`engine`] (time, event queue, timers, RNG
//! streams), [`tcp`] (sans-IO sender and receiver), [`link`] (wired links and queues),
//! [`scenario`] (builds a topology from a [`ScenarioConfig`] and drives it), [`results`].

pub mod ack;
pub mod bs_ack;
pub mod config;
pub mod delay;
pub mod engine;
pub mod error;
pub mod link;
pub mod metrics;
pub mod queue;
pub mod radio;
pub mod results;
pub mod scenario;
pub mod spurious;
pub mod tcp;

pub use config::ScenarioConfig;
pub use error::{ConfigError, RunError};
pub use results::{FlowStats, LinkStats, RunResult, Trace, Traces};

/// Crate version, part of the results-store key.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Fingerprint of this build's simulator source (`build.rs`), also part of the results-store
/// key: a model changed without a version bump does not reuse stored runs.
pub const SOURCE_HASH: &str = env!("RADIOTCP_SOURCE_HASH");

/// What to record besides the always-on counters.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Record cwnd, ssthresh, sequence-number and queue traces.
    pub traces: bool,
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
    cfg.validate()?;
    scenario::WiredScenario::new(cfg, seed, run_index, opts).run(stop)
}
