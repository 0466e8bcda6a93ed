//! `radiotcp._core`: a thin PyO3 binding over `radiotcp_core::run_with_stop`.
//!
//! Everything user-facing (TOML, validation messages, statistics, CLI) lives in the Python
//! package `radiotcp`; this module only turns a resolved JSON configuration into a run result.

mod emulation;

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use numpy::IntoPyArray;
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use radiotcp_core::ack::AckRateControl;
use radiotcp_core::engine::to_secs;
use radiotcp_core::probe::capture::{CapturePoint, CaptureSpec};
use radiotcp_core::{
    Check, ConfigError, Halt, Progress, RunError, RunOptions, RunResult, ScenarioConfig,
};

/// Build a `radiotcp.ConfigError` (defined in Python, a `ValueError` subclass) from the core's.
pub(crate) fn config_error(py: Python<'_>, e: &ConfigError) -> PyErr {
    config_errors(py, std::slice::from_ref(e))
}

/// The scenario a JSON document describes (keys left out at their defaults), or
/// `radiotcp.ConfigError` naming every problem of the document.
fn parse_config(py: Python<'_>, config_json: &str) -> PyResult<ScenarioConfig> {
    ScenarioConfig::from_partial_json(config_json).map_err(|p| config_errors(py, &p))
}

/// One `radiotcp.ConfigError` carrying every problem (one line each).
fn config_errors(py: Python<'_>, problems: &[ConfigError]) -> PyErr {
    let make = || -> PyResult<PyErr> {
        let cls = py.import("radiotcp.errors")?.getattr("ConfigError")?;
        let mut each = Vec::with_capacity(problems.len());
        for e in problems {
            let kwargs = PyDict::new(py);
            kwargs.set_item("unknown_key", e.unknown_key)?;
            each.push(cls.call(
                (e.key.as_str(), e.value.as_str(), e.allowed.as_str()),
                Some(&kwargs),
            )?);
        }
        let inst = cls.call_method1("from_problems", (each,))?;
        Ok(PyErr::from_value(inst))
    };
    make().unwrap_or_else(|err| err)
}

/// Build a `radiotcp.SimulationError` (a `RuntimeError` subclass) for a panic in the core:
/// the panic message and what reproduces it.
fn simulation_error(
    py: Python<'_>,
    payload: Box<dyn std::any::Any + Send>,
    seed: u64,
    run_index: u64,
    config_json: &str,
) -> PyErr {
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string());
    let make = || -> PyResult<PyErr> {
        let cls = py.import("radiotcp.errors")?.getattr("SimulationError")?;
        let inst = cls.call1((message.as_str(), seed, run_index, config_json))?;
        Ok(PyErr::from_value(inst))
    };
    make().unwrap_or_else(|err| err)
}

thread_local! {
    /// The configuration this thread parsed last, with its text. A sweep runs a point's
    /// replications one after another with the same document, so each is parsed once: 35 of
    /// the 270 us a 60 s wired run takes.
    static LAST_CONFIG: RefCell<Option<(String, Rc<ScenarioConfig>)>> = const { RefCell::new(None) };
}

/// [`ScenarioConfig::from_partial_json`] of `text`, or this thread's last result for the same
/// text (parsing is a pure function of the text, and a run only reads its configuration).
fn parse_cached(text: &str) -> Result<Rc<ScenarioConfig>, Vec<ConfigError>> {
    LAST_CONFIG.with(|last| {
        if let Some((t, cfg)) = &*last.borrow() {
            if t == text {
                return Ok(Rc::clone(cfg));
            }
        }
        let cfg = Rc::new(ScenarioConfig::from_partial_json(text)?);
        *last.borrow_mut() = Some((text.to_owned(), Rc::clone(&cfg)));
        Ok(cfg)
    })
}

/// Why a run returned no result, kept until the GIL is held to make the Python exception.
enum Failed {
    /// The document is not a valid configuration.
    Parse(Vec<ConfigError>),
    Run(RunError),
    /// A panic in the core (its state is dropped with the run; nothing is reused).
    Panic(Box<dyn std::any::Any + Send>),
}

impl Failed {
    /// The Python exception: `radiotcp.ConfigError`, `SimulationError` (a panic), OSError,
    /// or for an interrupted run what interrupted it (`pending`: Ctrl-C's KeyboardInterrupt,
    /// a progress callback's exception), else KeyboardInterrupt (a stop flag).
    fn into_pyerr(
        self,
        py: Python<'_>,
        pending: Option<PyErr>,
        config_json: &str,
        seed: u64,
        run_index: u64,
    ) -> PyErr {
        match self {
            Failed::Parse(problems) => config_errors(py, &problems),
            Failed::Panic(p) => simulation_error(py, p, seed, run_index, config_json),
            Failed::Run(RunError::Config(e)) => config_error(py, &e),
            Failed::Run(RunError::Interrupted) => {
                pending.unwrap_or_else(|| PyKeyboardInterrupt::new_err("run interrupted"))
            }
            Failed::Run(RunError::Io(e)) => PyOSError::new_err(e),
        }
    }
}

/// Parse `config_json` (cached per thread), run it and `finish` the result, without touching
/// Python (called with the GIL released). The wall time is that of the simulation proper.
fn run_detached<T>(
    config_json: &str,
    seed: u64,
    run_index: u64,
    opts: &RunOptions,
    inject_panic: bool,
    check: &mut dyn FnMut(Progress) -> Check,
    finish: impl FnOnce(RunResult) -> T,
) -> Result<(T, f64), Failed> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let cfg = parse_cached(config_json).map_err(Failed::Parse)?;
        let t0 = Instant::now();
        if inject_panic {
            panic!("deliberate panic (test of the guard)");
        }
        let r =
            radiotcp_core::run_checked(&cfg, seed, run_index, opts, check).map_err(Failed::Run)?;
        let wall = t0.elapsed().as_secs_f64();
        Ok((finish(r), wall))
    }))
    .unwrap_or_else(|p| Err(Failed::Panic(p)))
}

/// Run the core with the GIL released, checking for Ctrl-C every few thousand events, and
/// `finish` the result there too. The configuration is parsed with the GIL released as well.
/// Returns what `finish` made and the wall time of the simulation proper.
#[allow(clippy::too_many_arguments)]
fn run_core<T: Send>(
    py: Python<'_>,
    config_json: &str,
    seed: u64,
    run_index: u64,
    traces: bool,
    budget: Budget,
    inject_panic: bool,
    finish: impl FnOnce(RunResult) -> T + Send,
) -> PyResult<(T, f64)> {
    let Budget {
        max_events,
        max_wall_s,
        progress,
        pcap,
    } = budget;
    let opts = RunOptions {
        traces,
        max_events,
        pcap,
    };

    let (outcome, pending) = py.detach(|| {
        let mut pending: Option<PyErr> = None;
        let t0 = Instant::now();
        let mut last_report = t0;
        // Called every 65,536 events (a few ms of work): Ctrl-C, the progress display (at most
        // every PROGRESS_EVERY), the wall-time budget.
        let mut check = |p: Progress| -> Check {
            Python::attach(|py| {
                if let Err(e) = py.check_signals() {
                    pending = Some(e);
                    return Check::Interrupt;
                }
                if let Some(cb) = &progress {
                    if last_report.elapsed() >= PROGRESS_EVERY {
                        last_report = Instant::now();
                        if let Err(e) = cb.call1(py, (to_secs(p.now), p.events)) {
                            pending = Some(e);
                            return Check::Interrupt;
                        }
                    }
                }
                match max_wall_s {
                    Some(w) if t0.elapsed().as_secs_f64() >= w => Check::Halt(Halt::MaxWallTime),
                    _ => Check::Continue,
                }
            })
        };
        let outcome = run_detached(
            config_json,
            seed,
            run_index,
            &opts,
            inject_panic,
            &mut check,
            finish,
        );
        (outcome, pending)
    });
    outcome.map_err(|f| f.into_pyerr(py, pending, config_json, seed, run_index))
}

/// A flag that stops the runs of [`simulate_chunk`] (a sweep's worker threads) when set: an
/// atomic the core reads without the GIL, every 65,536 events and before each run.
#[pyclass(module = "radiotcp._core", frozen)]
#[derive(Default)]
struct StopFlag {
    set: AtomicBool,
}

#[pymethods]
impl StopFlag {
    #[new]
    fn new() -> Self {
        Self::default()
    }

    /// Stop the runs that watch this flag.
    fn set(&self) {
        self.set.store(true, Ordering::Relaxed);
    }

    fn is_set(&self) -> bool {
        self.set.load(Ordering::Relaxed)
    }
}

/// The CPU time this thread has used, in seconds (`CLOCK_THREAD_CPUTIME_ID`).
fn thread_cpu_s() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write; the clock id is a constant Linux provides.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// A sweep's chunk: `tasks` of (key, resolved configuration JSON, seed, run index), each run
/// and reduced to `(key, flat metrics as JSON, wall time of the simulation proper, the
/// thread's CPU seconds for the run)`, the whole chunk with the GIL released. A worker thread
/// then needs the GIL twice per chunk, not several times per run: each of those waited while
/// the driver ran Python (up to the interpreter's 5 ms switch interval, 18x slower runs in a
/// test of 60 s wired runs). `stop` set ends the chunk (KeyboardInterrupt), checked before
/// each run and every 65,536 events without the GIL; `signals` (the main thread only) also
/// checks for Ctrl-C there, which takes the GIL. The first failing run raises as
/// [`simulate`] does, and the chunk's other results are dropped.
#[pyfunction]
#[pyo3(signature = (tasks, stop=None, signals=false))]
fn simulate_chunk(
    py: Python<'_>,
    tasks: Vec<(String, String, u64, u64)>,
    stop: Option<Py<StopFlag>>,
    signals: bool,
) -> PyResult<Vec<(String, String, f64, f64)>> {
    let opts = RunOptions::default();
    let stop = stop.as_ref().map(|s| s.get());
    let stopped = || stop.is_some_and(|s| s.is_set());
    let (done, failure) = py.detach(|| {
        let mut done = Vec::with_capacity(tasks.len());
        let mut pending: Option<PyErr> = None;
        for (i, (key, doc, seed, run_index)) in tasks.iter().enumerate() {
            if stopped() {
                return (done, Some((i, Failed::Run(RunError::Interrupted), pending)));
            }
            let mut check = |_: Progress| -> Check {
                if stopped() {
                    return Check::Interrupt;
                }
                if signals {
                    if let Err(e) = Python::attach(|py| py.check_signals()) {
                        pending = Some(e);
                        return Check::Interrupt;
                    }
                }
                Check::Continue
            };
            let c0 = thread_cpu_s();
            let run = run_detached(doc, *seed, *run_index, &opts, false, &mut check, |r| {
                radiotcp_core::metrics::flat_metrics_json(&r)
            });
            match run {
                Ok((metrics, wall)) => {
                    done.push((key.clone(), metrics, wall, thread_cpu_s() - c0));
                }
                Err(f) => return (done, Some((i, f, pending))),
            }
        }
        (done, None)
    });
    match failure {
        None => Ok(done),
        Some((i, f, pending)) => {
            let (_, doc, seed, run_index) = &tasks[i];
            Err(f.into_pyerr(py, pending, doc, *seed, *run_index))
        }
    }
}

/// How often at most a run calls its progress callback.
const PROGRESS_EVERY: Duration = Duration::from_millis(200);

/// A run's budget and progress display (all optional).
#[derive(Default)]
struct Budget {
    max_events: Option<u64>,
    max_wall_s: Option<f64>,
    /// Called with (simulated time s, events) during the run.
    progress: Option<Py<PyAny>>,
    /// The pcap export.
    pcap: Option<CaptureSpec>,
}

/// Run one replication of the scenario described by `config_json` (the fully resolved
/// configuration, as `radiotcp.config.to_core_json` produces it).
///
/// Returns the core's `RunResult` as plain dicts and lists, plus `metrics` (the flat scalar
/// metrics, `radiotcp_core::metrics`), `traces` (None, or a dict name -> {"time_s": float64[],
/// "id": uint32[], "value": float64[]}) and `wall_time_s` (wall time of the simulation
/// proper). The GIL is released during the run; Ctrl-C raises KeyboardInterrupt.
///
/// Budget: `max_events` ends the run after that many events and `max_wall_s` after that much
/// wall time, each returning the statistics so far with `halted` set to "max_events" /
/// "max_wall_time" (None for a complete run); `progress(sim_time_s, events)` is called at
/// most every 0.2 s during the run (an exception it raises interrupts the run).
///
/// pcap export: `pcap_dir` and `pcap_points` ("server", "ue", or a link's name) write
/// `<pcap_dir>/<point>-run<run_index>.pcap` per point, headers of `pcap_snaplen` bytes at
/// most; the result's `pcap` lists the files and their packet counts. OSError if a file
/// cannot be written.
#[pyfunction]
#[pyo3(signature = (
    config_json, seed, run_index, traces = false, *, max_events = None, max_wall_s = None,
    progress = None, pcap_dir = None, pcap_points = None, pcap_snaplen = 128
))]
#[allow(clippy::too_many_arguments)]
fn simulate<'py>(
    py: Python<'py>,
    config_json: &str,
    seed: u64,
    run_index: u64,
    traces: bool,
    max_events: Option<u64>,
    max_wall_s: Option<f64>,
    progress: Option<Py<PyAny>>,
    pcap_dir: Option<std::path::PathBuf>,
    pcap_points: Option<Vec<String>>,
    pcap_snaplen: u32,
) -> PyResult<Bound<'py, PyDict>> {
    let pcap = pcap_dir.map(|dir| CaptureSpec {
        dir,
        points: pcap_points
            .unwrap_or_else(|| vec!["server".into()])
            .into_iter()
            .map(|p| match p.as_str() {
                "server" => CapturePoint::Server,
                "ue" => CapturePoint::Ue,
                _ => CapturePoint::Link(p),
            })
            .collect(),
        snaplen: pcap_snaplen,
    });
    let budget = Budget {
        max_events,
        max_wall_s,
        progress,
        pcap,
    };
    let (mut result, wall) = run_core(
        py,
        config_json,
        seed,
        run_index,
        traces,
        budget,
        false,
        |r| r,
    )?;
    let out = serde_pyobject::to_pyobject(py, &result)?.cast_into::<PyDict>()?;
    add_metrics_and_traces(py, &out, &mut result)?;
    out.set_item("wall_time_s", wall)?;
    Ok(out)
}

/// Set `metrics` (the flat scalar metrics) and `traces` (None, or name -> {"time_s",
/// "id", "value"} numpy arrays, taken out of the result) on a result's dict.
pub(crate) fn add_metrics_and_traces(
    py: Python<'_>,
    out: &Bound<'_, PyDict>,
    result: &mut RunResult,
) -> PyResult<()> {
    let metrics = PyDict::new(py);
    for (k, v) in radiotcp_core::metrics::flat_metrics(result) {
        metrics.set_item(k, v)?;
    }
    out.set_item("metrics", metrics)?;
    match result.traces.take() {
        None => out.set_item("traces", py.None())?,
        Some(t) => {
            let all = PyDict::new(py);
            for (name, trace) in t.into_named() {
                let d = PyDict::new(py);
                d.set_item("time_s", trace.time_s.into_pyarray(py))?;
                d.set_item("id", trace.id.into_pyarray(py))?;
                d.set_item("value", trace.value.into_pyarray(py))?;
                all.set_item(name, d)?;
            }
            out.set_item("traces", all)?;
        }
    }
    Ok(())
}

/// Run one replication and return only `(metrics_json, wall_time_s)`: the flat metrics as a
/// JSON object (NaN written as `NaN`), encoded with the GIL released, beside the run.
#[pyfunction]
fn simulate_metrics(
    py: Python<'_>,
    config_json: &str,
    seed: u64,
    run_index: u64,
) -> PyResult<(String, f64)> {
    run_core(
        py,
        config_json,
        seed,
        run_index,
        false,
        Budget::default(),
        false,
        |r| radiotcp_core::metrics::flat_metrics_json(&r),
    )
}

/// The SINR (dB) at which downlink MCS `mcs` (0..=28) reaches 10 % BLER: the LTE cell's
/// link-adaptation threshold, for placing a UE at a given MCS (`access.cell.ue_sinr_db`).
#[pyfunction]
fn lte_mcs_sinr_db(mcs: u8) -> PyResult<f64> {
    radiotcp_core::radio::lte::amc::MCS_SINR_10PCT_DB
        .get(mcs as usize)
        .copied()
        .ok_or_else(|| PyValueError::new_err(format!("mcs = {mcs}: expected an MCS in 0..=28")))
}

/// The ACK rate control's inter-departure time t_id (ms) at each buffer occupancy in `bo`
/// (SDUs), for the `access.ack_control` settings of `config_json`: the function the simulator
/// uses, for plotting it (the papers' Figs. 5 and 9). All zeros when the mode is `none`.
#[pyfunction]
fn ack_t_id_ms(py: Python<'_>, config_json: &str, bo: Vec<f64>) -> PyResult<Vec<f64>> {
    let cfg = parse_config(py, config_json)?;
    cfg.validate().map_err(|e| config_error(py, &e))?;
    let Some(radio) = cfg.access.umts() else {
        return Err(config_error(
            py,
            &ConfigError {
                key: "access.kind".into(),
                value: format!("{:?}", cfg.access.kind()),
                allowed: "\"umts\" (ACK control lives at the RNC)".into(),
                unknown_key: false,
            },
        ));
    };
    let tti = radiotcp_core::engine::millis(radio.tti_ms);
    Ok(
        match radiotcp_core::config::ack_rate_params(&radio.ack_control, tti) {
            None => vec![0.0; bo.len()],
            Some(p) => {
                let c = AckRateControl::new(p);
                bo.iter()
                    .map(|&b| radiotcp_core::engine::to_millis(c.t_id(b)))
                    .collect()
            }
        },
    )
}

/// JSON of the core's default configuration (`ScenarioConfig::default()`).
/// Events and wall time of one run estimated from a configuration (`config::cost`): the
/// front end's cost estimate, which asks each access kind for its own terms.
#[pyfunction]
fn estimate_cost(py: Python<'_>, config_json: &str) -> PyResult<(f64, f64)> {
    let cfg = parse_config(py, config_json)?;
    let c = cfg.estimate_cost();
    Ok((c.events, c.wall_s))
}

#[pyfunction]
fn default_config_json() -> PyResult<String> {
    to_json(&ScenarioConfig::default())
}

fn to_json<T: serde::Serialize>(value: &T) -> PyResult<String> {
    serde_json::to_string(value).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// Parse and validate a resolved JSON configuration exactly as `simulate` does, without
/// running it (keys left out take their defaults): returns None, or raises
/// `radiotcp.ConfigError` naming every problem.
#[pyfunction]
fn check_config(py: Python<'_>, config_json: &str) -> PyResult<()> {
    ScenarioConfig::from_partial_json(config_json)
        .map(|_| ())
        .map_err(|p| config_errors(py, &p))
}

/// The JSON Schema of a scenario document (`config::resolve::config_schema`): every key with
/// its type, default, allowed values and help text.
#[pyfunction]
fn config_schema() -> PyResult<String> {
    to_json(&radiotcp_core::config::resolve::config_schema())
}

/// Resolve a partial scenario document (JSON): the fully resolved document `simulate` reads,
/// every key left out at its default (a TCP profile's for the `tcp` keys), or
/// `radiotcp.ConfigError` listing every problem of the document.
#[pyfunction]
fn resolve_config(py: Python<'_>, config_json: &str) -> PyResult<String> {
    match ScenarioConfig::from_partial_json(config_json) {
        Ok(cfg) => to_json(&cfg),
        Err(problems) => Err(config_errors(py, &problems)),
    }
}

/// A partial scenario document (JSON) with every key it leaves out at its default and nothing
/// checked: unknown keys and wrong values are kept as written.
#[pyfunction]
fn fill_config_defaults(config_json: &str) -> PyResult<String> {
    let doc: serde_json::Value =
        serde_json::from_str(config_json).map_err(|e| PyValueError::new_err(e.to_string()))?;
    to_json(&radiotcp_core::config::resolve::fill_defaults(&doc))
}

/// Version of the core crate.
#[pyfunction]
fn version() -> &'static str {
    radiotcp_core::VERSION
}

/// Fingerprint of the core's source this extension was built from (16 hex digits).
#[pyfunction]
fn source_hash() -> &'static str {
    radiotcp_core::SOURCE_HASH
}

/// Run `config_json` the way `simulate` does, but panic inside the run: the test that a panic
/// in the core becomes `radiotcp.SimulationError` with the seed and configuration.
#[pyfunction]
fn _panic_for_test(py: Python<'_>, config_json: &str, seed: u64, run_index: u64) -> PyResult<()> {
    run_core(
        py,
        config_json,
        seed,
        run_index,
        false,
        Budget::default(),
        true,
        |_| (),
    )
    .map(|_| ())
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(simulate_metrics, m)?)?;
    m.add_function(wrap_pyfunction!(simulate_chunk, m)?)?;
    m.add_function(wrap_pyfunction!(estimate_cost, m)?)?;
    m.add_function(wrap_pyfunction!(default_config_json, m)?)?;
    m.add_function(wrap_pyfunction!(check_config, m)?)?;
    m.add_function(wrap_pyfunction!(config_schema, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_config, m)?)?;
    m.add_function(wrap_pyfunction!(fill_config_defaults, m)?)?;
    m.add_function(wrap_pyfunction!(ack_t_id_ms, m)?)?;
    m.add_function(wrap_pyfunction!(lte_mcs_sinr_db, m)?)?;
    m.add_function(wrap_pyfunction!(source_hash, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_class::<emulation::Emulation>()?;
    m.add_class::<StopFlag>()?;
    Ok(())
}
