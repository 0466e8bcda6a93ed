"""Memory bounded by design (issue 24, item 2): `run --runs N` summarises and writes each run
as it finishes and keeps none; a sweep lists its runs as it reaches them; too much work is
refused before it starts; identical runs of a sweep's point are flagged; a Ctrl-C says
truthfully what was written. None of these tests is timed."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
import weakref
from pathlib import Path

import pytest

from radiotcp import _core, cli
from radiotcp.cli import single
from radiotcp.run import Summary, _align, replications
from radiotcp.stats import mean_ci
from radiotcp.store import Store
from radiotcp.sweep import SweepSpec, run_sweep

from .conftest import PRESET, REPO, run_cli


class _Bulk:
    """Stands for the core's per-run detail (about 60 KB a run): only weak references to it
    are kept by the test, so the live ones are those the runner still holds."""

    def __init__(self) -> None:
        self.payload = bytearray(60_000)


def _fake_simulate(live: weakref.WeakSet, most: list[int]):
    """A stand-in for `_core.simulate`: a varying metric, a drop reason seen in some runs only,
    and a bulky per-run part; it records how many earlier results are still alive."""

    def simulate(doc, seed, run_index, traces=False, **kw):
        most[0] = max(most[0], len(live))
        bulk = _Bulk()
        live.add(bulk)
        metrics = {"goodput_kbps": 100.0 + run_index % 7, "delay_mean_ms": 50.0}
        if run_index % 3 == 0:
            metrics["drops.access.data.queue_full"] = 1.0
        return {
            "metrics": metrics,
            "flows": [bulk],
            "duration_s": 60.0,
            "wall_time_s": 1e-3,
        }

    return simulate


def test_run_keeps_no_run_and_summarises_them_all(monkeypatch, capsys, tmp_path):
    live: weakref.WeakSet = weakref.WeakSet()
    most = [0]
    monkeypatch.setattr(_core, "simulate", _fake_simulate(live, most))
    n = 2000
    out = tmp_path / "r.json"
    assert cli.main(["run", str(PRESET), "--runs", str(n), "--json", "-o", str(out)]) == 0
    # When each run starts, at most the one before it is still referenced (by the loop).
    assert most[0] <= 1
    doc = json.loads(capsys.readouterr().out)
    assert doc == json.loads(out.read_text())
    assert doc["runs"] == n and len(doc["per_run"]) == n and doc["halted"] == [None] * n
    values = [100.0 + i % 7 for i in range(n)]
    m, h, k = mean_ci(values)
    assert doc["metrics"]["goodput_kbps"] == {"mean": m, "ci90_half_width": h, "n": k}
    # A drop reason absent from a run counts 0 there.
    drops = doc["metrics"]["drops.access.data.queue_full"]
    assert drops["n"] == n and drops["mean"] == pytest.approx(len(range(0, n, 3)) / n)
    assert doc["identical_runs"] is False


MEMORY_SCRIPT = """
import resource, sys, os, contextlib
from radiotcp import _core, cli

def simulate(doc, seed, run_index, traces=False, **kw):
    bulk = bytearray(60_000)  # the core's per-run detail, about 60 KB
    return {"metrics": {"goodput_kbps": float(run_index % 5), "delay_mean_ms": 1.0},
            "flows": [bulk], "duration_s": 60.0, "wall_time_s": 0.0}

_core.simulate = simulate
with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
    code = cli.main(["run", sys.argv[1], "--runs", sys.argv[2], "--json", "-o", sys.argv[3]])
assert code == 0, code
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _peak_rss_kb(runs: int, tmp_path: Path) -> int:
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    r = subprocess.run(
        [sys.executable, "-c", MEMORY_SCRIPT, str(PRESET), str(runs), str(tmp_path / "r.json")],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
    )
    return int(r.stdout.split()[-1])


def test_run_memory_is_flat_in_the_number_of_runs(tmp_path):
    """Peak RSS (resource) of `run --runs N --json -o FILE` with a fake core whose runs hold
    60 KB each: keeping 4,000 runs would take 240 MB more than keeping 400."""
    few = _peak_rss_kb(400, tmp_path)
    many = _peak_rss_kb(4000, tmp_path)
    assert many - few < 20_000, (few, many)


def test_summary_is_the_summary_of_the_kept_runs():
    """The running Summary gives what the lists did: drop reasons aligned (0 where absent,
    also before they first appear), other missing metrics left out, identical runs seen."""
    runs = [
        {"a": 1.0, "b": 2.0},
        {"a": 3.0, "drops.x": 2.0},
        {"a": math.nan, "b": 5.0, "drops.y": 1.0},
        {"a": 0.1, "b": 0.2, "drops.x": 0.0},
    ]
    acc = Summary()
    for r in runs:
        acc.add(r)
    kept = [dict(r) for r in runs]
    _align(kept)
    names = dict.fromkeys(k for r in kept for k in r)
    assert list(acc.summary) == list(names)
    for k in names:
        want = mean_ci(r.get(k, math.nan) for r in kept)
        got = acc.summary[k]
        assert got[2] == want[2]
        for x, y in zip(got[:2], want[:2], strict=True):
            assert (math.isnan(x) and math.isnan(y)) or x == pytest.approx(y, rel=1e-15)
    assert acc.n_runs == 4 and not acc.identical
    same = Summary()
    for _ in range(3):
        same.add({"a": 0.1, "b": math.nan})
    same.add({"a": 0.1, "b": math.nan, "drops.z": 0.0})
    assert same.identical and same.summary["a"] == (0.1, 0.0, 4)
    other = Summary()
    other.add({"a": 0.1})
    other.add({"a": 0.1, "c": 1.0})
    assert not other.identical


def test_replications_check_the_configuration_before_any_run():
    from radiotcp.errors import ConfigError

    with pytest.raises(ConfigError):
        replications(PRESET, overrides=["links.1.rate_kbps=-1"])


def test_a_run_of_too_much_work_is_refused_with_the_estimate_and_the_flag():
    r = run_cli(
        "run", str(PRESET), "--runs", "100000",
        "--set", "simulation.duration_s=600", "--set", "flows.count=4",
    )  # fmt: skip
    assert r.returncode == 2, r.stderr
    [line] = r.stderr.splitlines()
    assert line.startswith("error: estimated work = ")
    assert "events (100,000 runs, about" in line and "at most 1e+10 events" in line
    assert "--yes" in line


def test_a_sweep_of_too_much_work_is_refused_before_the_store_is_written(tmp_path):
    sweep = tmp_path / "big.toml"
    sweep.write_text(
        textwrap.dedent(
            f"""
            name = "big"
            base = "{PRESET}"
            runs = 100000
            [set]
            "simulation.duration_s" = 600.0
            [grid]
            "flows.count" = [1, 2, 3, 4]
            """
        )
    )
    store = tmp_path / "s.sqlite"
    r = run_cli("sweep", str(sweep), "--store", str(store), "--no-progress")
    assert r.returncode == 2, r.stderr
    [line] = r.stderr.splitlines()
    assert "4 points x 100,000 runs" in line and "--yes" in line
    assert not store.exists()  # refused before the store is opened


def _small_sweep(tmp_path: Path, runs: int = 3, jitter: str = "[0.0, 1.0]") -> Path:
    f = tmp_path / "small.toml"
    f.write_text(
        textwrap.dedent(
            f"""
            name = "small"
            base = "{PRESET}"
            runs = {runs}
            [set]
            "simulation.duration_s" = 10.0
            "flows.count" = 2
            [grid]
            "flows.start_jitter_s" = {jitter}
            """
        )
    )
    return f


def test_a_sweep_flags_points_whose_runs_are_identical(tmp_path, capsys):
    f = _small_sweep(tmp_path)
    store = tmp_path / "s.sqlite"
    args = ["sweep", str(f), "--store", str(store), "--no-progress", "--jobs", "1"]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    no_jitter, jitter = [line for line in out.splitlines() if line.startswith("│")]
    assert "3 =" in no_jitter and "3 =" not in jitter
    assert "the runs of 1 of 2 points are identical" in out
    assert cli.main([*args, "--format", "json"]) == 0
    points = json.loads(capsys.readouterr().out)["points"]
    assert [p["identical"] for p in points] == [True, False]
    assert cli.main([*args, "--format", "csv"]) == 0
    header, first, second = capsys.readouterr().out.splitlines()
    assert header.split(",")[:3] == ["flows.start_jitter_s", "runs", "identical"]
    assert first.split(",")[2] == "True" and second.split(",")[2] == "False"


def test_ctrl_c_while_the_tables_are_written_says_what_was_written(tmp_path, monkeypatch, capsys):
    import radiotcp.sweep

    f = _small_sweep(tmp_path, runs=2)
    store, out = tmp_path / "s.sqlite", tmp_path / "out"
    real = radiotcp.sweep.write_csv
    calls = []

    def write_csv(path, rows):
        calls.append(path)
        if len(calls) == 2:
            raise KeyboardInterrupt
        real(path, rows)

    monkeypatch.setattr(radiotcp.sweep, "write_csv", write_csv)
    code = cli.main(["sweep", str(f), "--store", str(store), "--no-progress", "-o", str(out)])
    assert code == 130
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("interrupted (Ctrl-C) after the sweep: its 4 runs are stored in")
    assert f"written: {out / 'runs.csv'}" in line
    assert f"not written: {out / 'points.csv'}" in line
    assert "nothing was written" not in line
    assert sorted(p.name for p in out.iterdir()) == ["runs.csv"]  # no partial file


def test_ctrl_c_during_runs_says_what_was_written(tmp_path, monkeypatch, capsys):
    real = single.replications

    def two_then_stop(*a, **k):
        reps = real(*a, **k)

        def gen():
            it = iter(reps)
            yield next(it)
            yield next(it)
            raise KeyboardInterrupt

        return gen()

    monkeypatch.setattr(single, "replications", two_then_stop)
    out = tmp_path / "r.json"
    code = cli.main(["run", str(PRESET), "--runs", "5", "--json", "-o", str(out)])
    assert code == 130
    err = capsys.readouterr().err.strip()
    assert err == (
        "interrupted (Ctrl-C) after 2 of 5 runs: the runs were stopped; the JSON on stdout is "
        "incomplete; --output not written"
    )
    assert list(tmp_path.iterdir()) == []  # no partial --output left behind
    pcap = tmp_path / "caps"
    code = cli.main(["run", str(PRESET), "--runs", "5", "--pcap", str(pcap)])
    assert code == 130
    err = capsys.readouterr().err.strip()
    assert err.endswith(f"the pcap files of the 2 finished runs are in {pcap}")
    assert sorted(p.name for p in pcap.iterdir()) == ["server-run0.pcap", "server-run1.pcap"]


class _Stop(Exception):
    pass


def test_a_sweep_lists_its_runs_as_it_reaches_them(tmp_path):
    """A billion runs per point: progress comes at once and after the first chunk, with the
    store holding the members of the runs reached only (nothing listed ahead)."""
    spec = SweepSpec.model_validate(
        {
            "name": "huge",
            "base": str(PRESET),
            "runs": 10**9,
            "set": {"simulation.duration_s": 1.0},
            "grid": {"flows.count": [1, 2]},
        }
    )
    seen: list[tuple[int, int]] = []

    def progress(done: int, total: int) -> None:
        seen.append((done, total))
        if len(seen) == 2:
            raise _Stop

    with Store(tmp_path / "s.sqlite") as st:
        with pytest.raises(_Stop):
            run_sweep(spec, REPO, st, jobs=1, progress=progress)
        [info] = st.sweeps()
        assert info["expected"] == 2 * 10**9
        # One chunk done (at most CHUNK_MAX_S of estimated work), its runs and the batch
        # being listed its only members.
        done = st.count_runs()
        assert 1 <= done <= 20_000 and info["done"] == done
        members = st._db.execute("SELECT COUNT(*) FROM members").fetchone()[0]
        assert members <= done + 500
    assert seen == [(0, 2 * 10**9), (done, 2 * 10**9)]


def test_membership_follows_the_runs_and_survives_a_resume(tmp_path):
    spec3 = SweepSpec.model_validate(
        {
            "name": "m",
            "base": str(PRESET),
            "runs": 3,
            "set": {"simulation.duration_s": 5.0, "flows.start_jitter_s": 1.0},
            "grid": {"flows.count": [1, 2]},
        }
    )
    spec2 = spec3.model_copy(update={"runs": 2})
    with Store(tmp_path / "s.sqlite") as st:
        first = run_sweep(spec3, REPO, st, jobs=1)
        assert (first.computed, len(first.records), first.expected) == (6, 6, 6)
        again = run_sweep(spec3, REPO, st, jobs=1)
        assert (again.computed, len(again.records)) == (0, 6)
        fewer = run_sweep(spec2, REPO, st, jobs=1)
        assert (fewer.computed, len(fewer.records), fewer.expected) == (0, 4, 4)
        assert [s["done"] for s in st.sweeps()] == [4]
        assert {(r.point, r.run_index): r.metrics for r in fewer.records} == {
            (r.point, r.run_index): r.metrics for r in first.records if r.run_index < 2
        }
