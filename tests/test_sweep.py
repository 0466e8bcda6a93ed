"""Sweeps: expansion, seeds, the results store, resumption after kill -9, local vs Dask."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import astuple
from pathlib import Path

import pytest

from radiotcp.errors import ConfigError
from radiotcp.store import Store, run_key
from radiotcp.sweep import (
    SweepSpec,
    build_version,
    derive_seed,
    expand_points,
    load_sweep,
    plan,
    plan_points,
    read_sweep,
    run_sweep,
    run_sweeps,
    stored_result,
)

from .conftest import PRESET, REPO


def spec(**kw) -> SweepSpec:
    base = {
        "name": "t",
        "base": str(PRESET),
        "runs": 3,
        "set": {"flows.start_jitter_s": 1.0, "simulation.duration_s": 20.0},
        "grid": {"links.1.queue.limit_packets": [10, 40], "flows.count": [1, 3]},
    }
    base.update(kw)
    return SweepSpec.model_validate(base)


def by_key(res) -> dict[tuple, dict]:
    return {(r.point, r.run_index): r.metrics for r in res.records}


def test_grid_is_cartesian_and_zip_advances_together():
    s = spec(zip={"tcp.min_rto_ms": [200, 1000], "tcp.max_rto_ms": [60000, 120000]})
    pts = expand_points(s)
    assert len(pts) == 2 * 2 * 2
    assert {(p["tcp.min_rto_ms"], p["tcp.max_rto_ms"]) for p in pts} == {
        (200, 60000),
        (1000, 120000),
    }
    assert pts[0] == {
        "links.1.queue.limit_packets": 10,
        "flows.count": 1,
        "tcp.min_rto_ms": 200,
        "tcp.max_rto_ms": 60000,
    }
    assert expand_points(spec(grid={})) == [{}]


@pytest.mark.parametrize(
    "bad",
    [
        {"zip": {"a.b": [1, 2], "c.d": [1]}},
        {"grid": {"flows.count": []}},
        {"name": "has space"},
        {"runs": 0},
        {"bogus": 1},
    ],
)
def test_bad_sweep_files_are_errors(bad):
    with pytest.raises(ConfigError):
        load_sweep({"name": "t", **bad})


def test_bad_point_value_names_key_and_point(tmp_path):
    s = spec(grid={"links.1.rate_kbps": [384.0, -1.0]})
    with pytest.raises(ConfigError) as e:
        plan(s, tmp_path)
    assert e.value.key == "links.1.rate_kbps"
    assert "point 1" in e.value.allowed


def test_seeds_depend_on_the_configuration_not_on_the_grid_or_the_names():
    c = {"flows": {"count": 3}, "links": [{"queue": {"limit_packets": 40}}]}
    assert derive_seed(1, c) == derive_seed(1, dict(reversed(list(c.items()))))
    assert derive_seed(1, c) != derive_seed(2, c)
    assert derive_seed(1, c) != derive_seed(1, {**c, "flows": {"count": 1}})
    assert 0 <= derive_seed(1, c) < 2**63
    small = {r.key: r.seed for r in plan(spec(grid={"flows.count": [3]}), REPO)}
    big = {r.key: r.seed for r in plan(spec(grid={"flows.count": [1, 3]}), REPO)}
    assert set(small.items()) <= set(big.items())
    # The same configuration through `set`, or a zip with a label: the same seeds.
    s = {"flows.start_jitter_s": 1.0, "simulation.duration_s": 20.0}
    via_set = plan(spec(set={**s, "flows.count": 3}, grid={}), REPO)
    via_zip = plan(spec(set=s, grid={}, zip={"_name": ["three"], "flows.count": [3]}), REPO)
    seeds = {r.seed for r in via_set} | {r.seed for r in via_zip} | set(small.values())
    assert len(seeds) == 1
    assert [r.key for r in via_set] == [r.key for r in via_zip] == list(small)
    other = plan(spec(set={**s, "flows.count": 2}, grid={}), REPO)
    assert other[0].seed not in seeds


def test_zips_cross_each_other_and_labels_are_not_settings(tmp_path):
    s = spec(
        grid={"flows.count": [1, 2]},
        zip={"links.1.queue.limit_packets": [10, 40]},
        zips=[{"_name": ["slow", "fast"], "links.1.rate_kbps": [500.0, 2000.0]}],
    )
    pts = expand_points(s)
    assert len(pts) == 2 * 2 * 2
    pairs = {(p["_name"], p["links.1.rate_kbps"]) for p in pts}
    assert pairs == {("slow", 500.0), ("fast", 2000.0)}
    runs = plan(s, REPO)
    assert all("_name" not in r.config for r in runs)
    with pytest.raises(ValueError, match="keys on two axes"):
        spec(zip={"flows.count": [1]}, zips=[])
    with pytest.raises(ValueError, match="same length"):
        spec(zips=[{"_a": [1, 2], "flows.count": [1]}])


def test_run_key_covers_config_seed_index_and_version():
    cfg = {"a": 1}
    k = run_key(cfg, 1, 0, "0.1.0")
    assert k == run_key({"a": 1}, 1, 0, "0.1.0")
    assert (
        len(
            {
                k,
                run_key({"a": 2}, 1, 0, "0.1.0"),
                run_key(cfg, 2, 0, "0.1.0"),
                run_key(cfg, 1, 1, "0.1.0"),
                run_key(cfg, 1, 0, "0.2.0"),
            }
        )
        == 5
    )


def test_sweep_is_reproducible_and_rerun_computes_nothing(tmp_path):
    s = spec()
    with Store(tmp_path / "a.sqlite") as a, Store(tmp_path / "b.sqlite") as b:
        ra = run_sweep(s, REPO, a, jobs=2)
        rb = run_sweep(s, REPO, b, jobs=1)
        assert ra.computed == rb.computed == 12 == len(ra.records)
        assert by_key(ra) == by_key(rb), "the pool and one thread give the same runs"
        again = run_sweep(s, REPO, a, jobs=2)
        assert again.computed == 0
        assert by_key(again) == by_key(ra)
    # Replications differ through the start jitter: three competing flows never coincide.
    g = [r.metrics["goodput_kbps"] for r in ra.records if r.params["flows.count"] == 3]
    assert len(set(g)) == len(g) == 6


def test_points_aggregate_with_student_t(tmp_path):
    from scipy import stats

    with Store(tmp_path / "s.sqlite") as st:
        res = run_sweep(spec(), REPO, st, jobs=1)
    rows = res.points()
    assert len(rows) == 4
    vals = [r.metrics["goodput_kbps"] for r in res.records if r.point == 2]
    mean = sum(vals) / 3
    half = stats.t.ppf(0.95, 2) * stats.tstd(vals) / 3**0.5
    assert rows[2]["goodput_kbps"] == pytest.approx(mean, rel=1e-12)
    assert rows[2]["goodput_kbps.ci90"] == pytest.approx(half, rel=1e-9)
    assert rows[2]["goodput_kbps.n"] == 3
    assert len(res.rows()) == 12


def test_more_replications_reuse_the_first_ones(tmp_path):
    with Store(tmp_path / "s.sqlite") as st:
        r3 = run_sweep(spec(runs=3), REPO, st, jobs=1)
        r5 = run_sweep(spec(runs=5), REPO, st, jobs=1)
    assert r5.computed == 8
    assert {k: v for k, v in by_key(r5).items() if k[1] < 3} == by_key(r3)


SLOW_SWEEP = """
name = "slow"
base = "{preset}"
runs = 6
[set]
"simulation.duration_s" = 3000.0
"flows.start_jitter_s" = 1.0
[grid]
"flows.count" = [1, 2, 3, 4]
"""


def _start_slow_sweep(tmp_path, jobs: int) -> tuple[list[str], Path, subprocess.Popen]:
    """Start the slow sweep in a subprocess and return once it has stored its first run."""
    sweep_file = tmp_path / "slow.toml"
    sweep_file.write_text(SLOW_SWEEP.format(preset=PRESET))
    store = tmp_path / "store.sqlite"
    cmd = [
        sys.executable,
        "-m",
        "radiotcp",
        "sweep",
        str(sweep_file),
        "--store",
        str(store),
        "--jobs",
        str(jobs),
        "--no-progress",
    ]
    proc = subprocess.Popen(
        cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.time() + 60
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
        try:
            with sqlite3.connect(store) as db:
                if db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] >= 1:
                    break
        except sqlite3.Error:
            continue
    if proc.poll() is not None:
        pytest.fail("the sweep finished before it could be interrupted")
    return cmd, store, proc


def test_kill_9_mid_sweep_then_resume_gives_exactly_one_row_per_run(tmp_path):
    cmd, store, proc = _start_slow_sweep(tmp_path, jobs=1)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=10)
    with Store(store) as st:
        partial = st.count_runs()
    assert 1 <= partial < 24
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(store) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 24
        assert db.execute("SELECT COUNT(DISTINCT key) FROM runs").fetchone()[0] == 24
    spec_, base_dir = load_sweep(tmp_path / "slow.toml")
    with Store(store) as st, Store(tmp_path / "clean.sqlite") as clean:
        resumed = run_sweep(spec_, base_dir, st, jobs=1)
        assert resumed.computed == 0
        fresh = run_sweep(spec_, base_dir, clean, jobs=2)
    assert by_key(resumed) == by_key(fresh)


def test_dask_local_cluster_gives_the_local_results(tmp_path):
    distributed = pytest.importorskip("distributed")
    s = spec()
    with Store(tmp_path / "local.sqlite") as st:
        local = run_sweep(s, REPO, st, jobs=1)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
        Store(tmp_path / "dask.sqlite") as st,
    ):
        remote = run_sweep(s, REPO, st, cluster=client)
    assert remote.computed == 12
    assert by_key(remote) == by_key(local)


def test_ctrl_c_stops_a_sweep_cleanly_and_keeps_finished_runs(tmp_path):
    _, store, proc = _start_slow_sweep(tmp_path, jobs=2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130
    assert "Traceback" not in err
    assert "run the same command again to resume" in err
    with Store(store) as st:
        assert 1 <= st.count_runs() < 24


def _children(pid: int) -> set[int]:
    """Process ids whose parent is ``pid`` (from /proc)."""
    out = set()
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.add(int(d.name))
    return out


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie, dead but not yet reaped by its new parent,
    holds nothing and counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


needs_linux = pytest.mark.skipif(
    sys.platform != "linux", reason="reads /proc; PR_SET_PDEATHSIG is Linux's"
)

# Busy for tens of seconds on two cores: it is killed long before the end.
BUSY_SWEEP = SLOW_SWEEP.replace("runs = 6", "runs = 60")


def _start_busy_sweep(tmp_path) -> tuple[subprocess.Popen, Path]:
    """A sweep on a pool of two cores (``--jobs 2``: the driver and a worker thread) in a
    subprocess, returned once a first run is stored."""
    sweep_file = tmp_path / "busy.toml"
    sweep_file.write_text(BUSY_SWEEP.format(preset=PRESET))
    store = tmp_path / "store.sqlite"
    cmd = [sys.executable, "-m", "radiotcp", "sweep", str(sweep_file), "--store", str(store)]
    proc = subprocess.Popen(
        [*cmd, "--jobs", "2", "--no-progress"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + 60
    started = False
    while time.time() < deadline and proc.poll() is None and not started:
        time.sleep(0.05)
        try:
            with sqlite3.connect(store) as db:
                started = db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] >= 1
        except sqlite3.Error:
            continue
    if proc.poll() is not None or not started:
        proc.kill()
        pytest.fail("the sweep ended, or stored nothing, before it could be killed")
    return proc, store


def _assert_gone(pids: set[int], within_s: float = 10.0) -> None:
    deadline = time.time() + within_s
    while time.time() < deadline and any(_running(p) for p in pids):
        time.sleep(0.05)
    assert not [p for p in pids if _running(p)], "processes of the sweep outlived it"


def _assert_exact_runs(tmp_path, store: Path) -> int:
    """The store opens, is intact, and each stored run is the run computed again now."""
    from radiotcp._worker import run_chunk

    with sqlite3.connect(store) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    spec_, base_dir = load_sweep(tmp_path / "busy.toml")
    planned = {p.key: p for p in plan(spec_, base_dir)}
    with Store(store) as st:
        stored = {r.key: r.metrics_json for r in st.sweep_runs("slow")}
    assert 1 <= len(stored) < len(planned)
    # Two of them (each a few tenths of a second): the first and the last stored.
    for key in (min(stored), max(stored)):
        p = planned[key]
        [(_, metrics, _, _)] = run_chunk([(p.key, p.config_json, p.seed, p.run_index)])
        assert metrics == stored[key]
    return len(stored)


@needs_linux
def test_sigterm_ends_a_sweep_and_its_workers_and_says_what_is_stored(tmp_path):
    proc, store = _start_busy_sweep(tmp_path)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signal.SIGTERM
    assert "Traceback" not in err
    n = _assert_exact_runs(tmp_path, store)
    line = f"terminated by SIGTERM: {n} of 240 runs of sweep slow are stored in {store}"
    assert err.strip().splitlines() == [f"{line}; run the same command again to compute the rest"]


@needs_linux
def test_sigkill_on_a_sweep_leaves_an_intact_store_of_exact_runs(tmp_path):
    proc, store = _start_busy_sweep(tmp_path)
    proc.kill()
    proc.communicate(timeout=30)
    _assert_exact_runs(tmp_path, store)


def test_canonical_key_shortcut_matches_the_dict_form():
    from radiotcp.store import canonical

    cfg = {"b": [1, 2.5, None], "a": {"x": "y"}}
    assert run_key(canonical(cfg), 3, 4, "0.1.0") == run_key(cfg, 3, 4, "0.1.0")


def test_planned_keys_and_documents_are_the_store_s_and_the_core_s(tmp_path):
    """The sweep's shortcuts (each point's part of the run key hashed once, the core's JSON
    made from the configuration dict) give what `run_key` and `to_core_json` give."""
    from radiotcp.config import ScenarioConfig, to_core_json

    s = spec(zip={"_name": ["a", "b"], "tcp.min_rto_ms": [200, 1000]})
    runs = plan(s, REPO)
    assert len(runs) == 8 * 3
    for r in runs:
        assert r.key == run_key(r.config, r.seed, r.run_index, build_version())
        assert r.config_json == to_core_json(ScenarioConfig.from_dict(r.config))


def test_results_are_the_same_whatever_the_chunking_and_the_store_read_back(tmp_path, monkeypatch):
    """Chunks of one run each, of the default sizes, in one process or on the pool: the same
    runs; and the result a fresh sweep returns (kept as its runs were stored) is what the
    store gives back for it, record for record."""
    import radiotcp.sweep as sweep_mod

    s = spec()
    with Store(tmp_path / "default.sqlite") as st:
        default = run_sweep(s, REPO, st, jobs=2)
        stored = read_sweep(st, "t")
    assert default.records == stored.records
    assert default.expected == stored.expected == 12
    assert default.rows() == stored.rows() and default.points() == stored.points()
    # One run per chunk: no chunk may hold more than a run's worth of work, and handing a
    # chunk out is free.
    monkeypatch.setattr(sweep_mod, "CHUNK_MAX_S", 1e-12)
    monkeypatch.setattr(sweep_mod, "LOCAL_TASK_S", 0.0)
    sizes: list[int] = []
    chunks = sweep_mod._chunks

    def recorded(*a, **k):
        for c in chunks(*a, **k):
            sizes.append(len(c))
            yield c

    monkeypatch.setattr(sweep_mod, "_chunks", recorded)
    for jobs in (1, 2):
        with Store(tmp_path / f"single-{jobs}.sqlite") as st:
            single = run_sweep(s, REPO, st, jobs=jobs)
        assert by_key(single) == by_key(default)
        assert [r.metrics_json for r in single.records] == [r.metrics_json for r in default.records]
    assert sizes == [1] * 24


def test_several_sweeps_share_one_pool_and_a_shared_run_is_computed_once(tmp_path, local_pools):
    """run_sweeps: one pool for all the sweeps, a run two sweeps share computed once, each
    sweep's result (stored_result) record for record what run_sweep gives it alone, and the
    store's sweeps as if run one by one."""
    a = spec(name="a")
    # Shares the points of `a` with flows.count = 1 (same configurations: same keys).
    b = spec(name="b", grid={"links.1.queue.limit_packets": [10, 40, 80]}, runs=2)
    plans = [plan_points(a, REPO), plan_points(b, REPO)]
    pools = local_pools
    completed: list[int] = []

    def complete(i: int) -> None:
        # Called as the sweep's last run is stored: all of it can be read back.
        assert len(stored_result(plans[i], st).records) == plans[i].runs
        completed.append(i)

    with Store(tmp_path / "one.sqlite") as st:
        done = run_sweeps(plans, st, jobs=2, complete=complete)
        together = [stored_result(sp, st) for sp in plans]
        assert st.count_runs() == done.computed
        sweeps_one = {s["name"]: s for s in st.sweeps()}
    assert pools == [2] and sorted(completed) == [0, 1]
    assert (done.runs, done.stored, done.computed) == (12 + 1 * 2, 0, 14)
    with Store(tmp_path / "apart.sqlite") as st:
        apart = [run_sweep(sp.spec, REPO, st, jobs=2) for sp in plans]
        sweeps_apart = {s["name"]: s for s in st.sweeps()}
        completed.clear()
        again = run_sweeps(plans, st, jobs=2, complete=complete)
    assert (again.stored, again.computed) == (14, 0) and completed == [0, 1]
    for t, s in zip(together, apart, strict=True):
        # Record for record but the simulations' wall times (each sweep computed its own).
        assert [(*astuple(r)[:6],) for r in t.records] == [(*astuple(r)[:6],) for r in s.records]
        assert t.expected == s.expected and t.points() == s.points()
    for name in ("a", "b"):
        assert {k: v for k, v in sweeps_one[name].items() if k != "updated"} == {
            k: v for k, v in sweeps_apart[name].items() if k != "updated"
        }


def test_chunks_by_cost_take_the_runs_in_order_and_shrink_towards_the_end():
    from radiotcp.sweep import _chunks_by_cost, _Scale

    costs = [1.0] * 4 + [0.1] * 40 + [0.01] * 200
    tasks = [((f"k{i}", "{}", 1, i), c) for i, c in enumerate(costs)]
    chunks = list(_chunks_by_cost(tasks, 2, _Scale(), 0.0005))
    assert [t for c in chunks for t in c] == [t for t, _ in tasks]
    work = [sum(costs[int(t[0][1:])] for t in c) for c in chunks]
    # A quarter of the work left, at most CHUNK_MAX_S, at least one run; the last chunks small.
    assert all(len(c) == 1 or w <= 2.0 + 1e-9 for c, w in zip(chunks, work, strict=True))
    assert work[-1] <= 0.01 + 1e-9 and len(chunks) < len(tasks)
    # Runs measured 4x cheaper than estimated: a chunk of at most CHUNK_MAX_S holds more.
    scale = _Scale()
    scale.add(1.0, 0.25)
    even = [((f"k{i}", "{}", 1, i), 0.1) for i in range(200)]
    assert len(next(_chunks_by_cost(even, 2, _Scale(), 0.0005))) == 20
    assert len(next(_chunks_by_cost(even, 2, scale, 0.0005))) == 50


def test_the_last_chunks_are_an_equal_share_each_once_the_floor_exceeds_it():
    """The floor of 10 x a dispatch's cost (on Dask, 90 runs of 0.56 ms here) does not leave
    the end of a sweep to one worker: once it exceeds an equal share of what is left, what
    is left goes as one chunk per worker (before: 90 and 33, one worker idle meanwhile)."""
    from radiotcp.sweep import _chunks, _chunks_by_cost, _RunTime, _Scale

    sizes = [len(c) for c in _chunks(iter(range(720)), 720, 2, _RunTime(0.00056), 0.005)]
    assert sizes == [180, 135, 102, 90, 90, 62, 61]
    # Guided sizes above the floor (90) and CHUNK_MAX_S (3,571 runs) are untouched.
    assert [len(c) for c in _chunks(iter(range(720)), 720, 2, _RunTime(0.00056), 0.0005)][:4] == [
        180,
        135,
        102,
        76,
    ]
    # By cost: 200 runs of 1 ms, floor 80 ms: 80, then 60 and 60 (before: 80, 80, 40).
    tasks = [((f"k{i}", "{}", 1, i), 0.001) for i in range(200)]
    assert [len(c) for c in _chunks_by_cost(tasks, 2, _Scale(), 0.008)] == [80, 60, 60]


def test_points_of_some_metrics_are_those_of_all_metrics(tmp_path):
    with Store(tmp_path / "s.sqlite") as st:
        res = run_sweep(spec(runs=2), REPO, st, jobs=1)
    some = {"goodput_kbps", "delay_mean_ms", "no such metric"}
    left_out = {
        f"{m}{suffix}" for m in res.metrics if m not in some for suffix in ("", ".ci90", ".n")
    }
    for part, full in zip(res.points(some), res.points(), strict=True):
        assert set(part) == set(full) - left_out and "goodput_kbps.ci90" in part
        assert all(repr(part[k]) == repr(full[k]) for k in part)


def test_a_local_pool_stopped_at_any_of_its_results_ends_its_workers(monkeypatch):
    """Closing the pool's result stream before its end (Ctrl-C while a chunk's results are
    stored) stops the workers rather than waiting for their chunks, at whichever result it
    stops: a worker's or the driver's own."""
    import radiotcp.sweep as sweep_mod

    stopped: list[int] = []
    stop_workers = sweep_mod._stop_workers
    monkeypatch.setattr(
        sweep_mod, "_stop_workers", lambda ev: (stopped.append(1), stop_workers(ev))
    )
    sp = plan_points(spec(runs=2), REPO)
    tasks = [(p.key(r, sp.version), p.config_json, p.seed, r) for p in sp.points for r in (0, 1)]
    for stop in (1, 2, 3):
        stopped.clear()
        results = sweep_mod._run_local(iter([tasks[:1], *[tasks] * 6]), 2)
        for _ in range(stop):
            next(results)
        results.close()
        assert stopped, f"closed at result {stop}"
        assert not _sweep_threads()


def _sweep_threads() -> list[threading.Thread]:
    from radiotcp.sweep import WORKER_THREAD

    return [t for t in threading.enumerate() if t.name.startswith(WORKER_THREAD)]


# A run of several hundred thousand events (the stop flag is checked every 65,536).
LONG_RUN = {"simulation": {"duration_s": 2000.0}, "flows": {"count": 2}}
# One run of some seconds (wired, 4 flows, 2 x 10^6 s).
VERY_LONG_RUN = {"simulation": {"duration_s": 2e6}, "flows": {"count": 4}}


def test_a_worker_thread_s_run_in_progress_stops_when_the_pool_is_closed(monkeypatch):
    """The worker thread's one run of some seconds is in progress when the driver's own
    one-run chunk (about 0.1 s) returns and the consumer stops: it ends there, inside the
    run (the core reads the stop flag every 65,536 events), and the chunk queued behind it
    never starts. Without the in-run check `close` would wait for the whole run."""
    import radiotcp.sweep as sweep_mod
    from radiotcp.config import load, to_core_json

    long_chunk = [("k", to_core_json(load(PRESET, overrides=VERY_LONG_RUN)), 1, 0)]
    # About 0.1 s: the worker thread has long entered its run when this one ends.
    short = to_core_json(load(PRESET, overrides={"simulation": {"duration_s": 30000.0}}))
    outcomes: list[str] = []
    real = sweep_mod.run_chunk

    def recording(tasks, stop=None):
        try:
            out = real(tasks, stop)
        except KeyboardInterrupt:
            outcomes.append("stopped")
            raise
        outcomes.append("done")
        return out

    monkeypatch.setattr(sweep_mod, "run_chunk", recording)
    # The first two chunks go to the one worker thread, the third is the driver's own.
    results = sweep_mod._run_local(iter([long_chunk, long_chunk, [("s", short, 1, 0)]]), 2)
    assert len(next(results)) == 1
    results.close()
    assert outcomes == ["done", "stopped"]  # the driver's chunk, then the worker's
    assert not _sweep_threads()


def test_a_set_stop_flag_interrupts_a_run_and_a_chunk():
    """``simulate_chunk`` reads the flag every 65,536 events of a run and before each run,
    and ends with KeyboardInterrupt; unset, the chunk runs (same results as one by one)."""
    from radiotcp import _core
    from radiotcp.config import load, to_core_json

    doc = to_core_json(load(PRESET, overrides=LONG_RUN))
    flag = _core.StopFlag()
    assert not flag.is_set()
    [(key, metrics, wall, cpu)] = _core.simulate_chunk([("k", doc, 1, 0)], flag)
    assert key == "k" and wall > 0 and cpu > 0
    assert metrics == _core.simulate_metrics(doc, 1, 0)[0]
    assert json.loads(metrics.replace("NaN", "null"))["events"] > 3 * 65536
    flag.set()
    assert flag.is_set()
    with pytest.raises(KeyboardInterrupt):
        _core.simulate_chunk([("k", doc, 1, 0)], flag)
    with pytest.raises(KeyboardInterrupt):
        _core.simulate_chunk([("k", "not even JSON", 1, 0)], flag)


def test_a_chunk_s_failing_run_raises_as_one_run_does():
    from radiotcp import _core
    from radiotcp.config import load, to_core_json

    doc = to_core_json(load(PRESET, overrides={"simulation": {"duration_s": 10.0}}))
    bad = doc.replace('"duration_s": 10.0', '"duration_s": -1.0')
    with pytest.raises(ConfigError) as one:
        _core.simulate_metrics(bad, 1, 0)
    with pytest.raises(ConfigError) as chunk:
        _core.simulate_chunk([("a", doc, 1, 0), ("b", bad, 1, 0)])
    assert str(chunk.value) == str(one.value)


@needs_linux
def test_no_local_worker_is_left_when_a_sweep_returns(tmp_path):
    """The pool's worker threads have ended and no process was started by the time
    run_sweep returns: none outlives the call."""
    children = Path(f"/proc/self/task/{os.getpid()}/children")
    before = set(children.read_text().split())  # other tests' processes, if any
    with Store(tmp_path / "s.sqlite") as st:
        run_sweep(spec(), REPO, st, jobs=2)
        assert set(children.read_text().split()) <= before
        assert not _sweep_threads()
