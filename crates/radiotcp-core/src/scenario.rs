//! Temporary stub.
use crate::{config::ScenarioConfig, error::RunError, results::RunResult, RunOptions};
pub struct WiredScenario { seed: u64, run_index: u64, d: f64 }
impl WiredScenario {
    pub fn new(cfg: &ScenarioConfig, seed: u64, run_index: u64, _o: &RunOptions) -> Self { Self { seed, run_index, d: cfg.simulation.duration_s } }
    pub fn run(self, _stop: &mut dyn FnMut() -> bool) -> Result<RunResult, RunError> {
        Ok(RunResult { seed: self.seed, run_index: self.run_index, duration_s: self.d, measured_s: self.d, events: 0, flows: vec![], links: vec![], traces: None })
    }
}
