//! `radiotcp._core.Emulation`: the real-time emulator between two TUN devices, run on a
//! thread of its own while Python runs the real applications (`radiotcp.emulate`).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use pyo3::exceptions::{PyOSError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

#[cfg(target_os = "linux")]
use radiotcp_core::emulate::realtime::{RealTime, RealTimeReport};
#[cfg(target_os = "linux")]
use radiotcp_core::emulate::{tun::Tun, Emulator};

use crate::config_error;

#[cfg(not(target_os = "linux"))]
struct RealTimeReport;
#[cfg(not(target_os = "linux"))]
struct Tun;

type Outcome = std::io::Result<RealTimeReport>;

/// What the emulator's thread builds the emulation from (the model holds state that stays on
/// one thread, so it is made there).
struct Pending {
    cfg: radiotcp_core::ScenarioConfig,
    seed: u64,
    traces: bool,
    server: Tun,
    ue: Tun,
    pcap_dir: Option<PathBuf>,
}

/// The emulated network between a server-side and a UE-side TUN device.
///
/// `Emulation(config_json, server_tun, ue_tun, seed=1, traces=False, pcap_dir=None)` creates
/// both devices (in the caller's network namespace; move the UE's with `ip link set ... netns`)
/// and the emulator of the scenario's network; `start(max_seconds=None)` runs it on a thread;
/// `stop()` ends it and returns the report (a dict: `down`, `up`, `flows`, `lag`, `model`,
/// `metrics`, `traces`, `pcap`, ...). OSError if the devices cannot be created (no
/// `/dev/net/tun`, no CAP_NET_ADMIN, a name taken); ConfigError for a scenario the emulation
/// cannot carry.
#[pyclass(module = "radiotcp._core")]
pub struct Emulation {
    pending: Option<Pending>,
    thread: Option<JoinHandle<Outcome>>,
    stop: Arc<AtomicBool>,
}

#[pymethods]
impl Emulation {
    #[new]
    #[pyo3(signature = (config_json, server_tun, ue_tun, seed = 1, traces = false, pcap_dir = None))]
    fn new(
        py: Python<'_>,
        config_json: &str,
        server_tun: &str,
        ue_tun: &str,
        seed: u64,
        traces: bool,
        pcap_dir: Option<PathBuf>,
    ) -> PyResult<Self> {
        #[cfg(target_os = "linux")]
        {
            let cfg = radiotcp_core::ScenarioConfig::from_json(config_json)
                .map_err(|e| config_error(py, &e))?;
            // Built once here for its errors; the thread builds its own.
            Emulator::new(&cfg, seed, traces).map_err(|e| config_error(py, &e))?;
            if let Some(dir) = &pcap_dir {
                std::fs::create_dir_all(dir).map_err(|e| {
                    PyOSError::new_err(format!("pcap export: {}: {e}", dir.display()))
                })?;
            }
            let server = Tun::create(server_tun).map_err(|e| PyOSError::new_err(e.to_string()))?;
            let ue = Tun::create(ue_tun).map_err(|e| PyOSError::new_err(e.to_string()))?;
            Ok(Emulation {
                pending: Some(Pending {
                    cfg,
                    seed,
                    traces,
                    server,
                    ue,
                    pcap_dir,
                }),
                thread: None,
                stop: Arc::new(AtomicBool::new(false)),
            })
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (
                py,
                config_json,
                server_tun,
                ue_tun,
                seed,
                traces,
                pcap_dir,
                config_error,
            );
            Err(PyOSError::new_err(
                "emulation needs Linux (TUN devices and network namespaces)",
            ))
        }
    }

    /// Start the emulator's thread; it runs until `stop()` or for `max_seconds` at most.
    #[pyo3(signature = (max_seconds = None))]
    fn start(&mut self, max_seconds: Option<f64>) -> PyResult<()> {
        let p = self
            .pending
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("the emulation has already been started"))?;
        let stop = Arc::clone(&self.stop);
        let max = max_seconds.map(std::time::Duration::from_secs_f64);
        #[cfg(target_os = "linux")]
        let run = move || -> Outcome {
            let emu = Emulator::new(&p.cfg, p.seed, p.traces)
                .map_err(|e| std::io::Error::other(format!("{}: {}", e.key, e.allowed)))?;
            RealTime::new(emu, p.server, p.ue, p.pcap_dir.as_deref())?.run(&stop, max)
        };
        #[cfg(not(target_os = "linux"))]
        let run = move || -> Outcome {
            let _ = (p, stop, max);
            unreachable!()
        };
        self.thread = Some(
            std::thread::Builder::new()
                .name("radiotcp-emulate".into())
                .spawn(run)
                .map_err(|e| PyOSError::new_err(e.to_string()))?,
        );
        Ok(())
    }

    /// Whether the emulator's thread is still running.
    fn running(&self) -> bool {
        self.thread.as_ref().is_some_and(|t| !t.is_finished())
    }

    /// End the emulation and return its report.
    fn stop<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let thread = self
            .thread
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("the emulation is not running"))?;
        self.stop.store(true, Ordering::Relaxed);
        let outcome = py
            .detach(|| thread.join())
            .map_err(|_| PyRuntimeError::new_err("the emulator's thread panicked"))?;
        let report = outcome.map_err(|e| PyOSError::new_err(format!("emulation: {e}")))?;
        report_to_py(py, report)
    }
}

impl Drop for Emulation {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(target_os = "linux")]
fn report_to_py(py: Python<'_>, mut report: RealTimeReport) -> PyResult<Bound<'_, PyDict>> {
    // `RunResult::traces` is not serialised: the traces go out as numpy arrays.
    let out = serde_pyobject::to_pyobject(py, &report)?.cast_into::<PyDict>()?;
    crate::add_metrics_and_traces(py, &out, &mut report.emulation.model)?;
    Ok(out)
}

#[cfg(not(target_os = "linux"))]
fn report_to_py(_py: Python<'_>, _report: RealTimeReport) -> PyResult<Bound<'_, PyDict>> {
    unreachable!("no emulation starts off Linux")
}
