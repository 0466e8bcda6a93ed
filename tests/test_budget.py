"""A run's cost estimate, budget (max events, max wall time) and progress display."""

from __future__ import annotations

import json

import pytest

import radiotcp
from radiotcp import _core
from radiotcp.config import load, to_core_json
from radiotcp.cost import estimate

from .conftest import REPO, run_cli

SCENARIOS = REPO / "scenarios"
UMTS = SCENARIOS / "umts-384k.toml"


@pytest.mark.parametrize("preset", sorted(p.stem for p in SCENARIOS.glob("*.toml")))
@pytest.mark.parametrize("flows", [1, 4])
def test_the_cost_estimate_is_within_a_factor_3_of_the_events(preset, flows):
    cfg = load(SCENARIOS / f"{preset}.toml", [f"flows.count={flows}"])
    events = _core.simulate(to_core_json(cfg), 1, 0)["events"]
    est = estimate(cfg).events
    assert events / 3 <= est <= 3 * events, (events, est)


def test_max_events_halts_a_run_with_partial_metrics_marked():
    full = radiotcp.run(UMTS)
    res = radiotcp.run(UMTS, max_events=10_000)
    assert res.halted == ["max_events"] and res.partial and not full.partial
    assert res.runs[0]["events"] == 10_000
    reached = res.raw[0]["duration_s"]
    assert 0 < reached < 60 and res.runs[0]["measured_s"] == reached
    assert res.runs[0]["segments_sent"] < full.runs[0]["segments_sent"]
    # The same budget gives the same partial run.
    assert radiotcp.run(UMTS, max_events=10_000).runs == res.runs


def test_max_wall_s_halts_a_long_run():
    res = radiotcp.run(UMTS, overrides=["simulation.duration_s=1e6"], max_wall_s=0.2)
    assert res.halted == ["max_wall_time"]
    assert res.raw[0]["duration_s"] < 1e6


def test_progress_reports_the_simulated_time_during_a_run():
    seen = []
    radiotcp.run(
        UMTS,
        overrides=["simulation.duration_s=12000"],
        sim_progress=lambda i, t, events: seen.append((i, t, events)),
    )
    assert seen, "a run of about a second reports at least once"
    assert all(i == 0 for i, _, _ in seen)
    times = [t for _, t, _ in seen]
    assert times == sorted(times) and 0 < times[-1] < 12000


def test_the_cli_warns_stops_and_marks_partial_results():
    r = run_cli("run", str(UMTS), "--max-events", "10000", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["partial"] is True and doc["halted"] == ["max_events"]
    lines = r.stderr.strip().splitlines()
    assert lines[0].startswith("warning: a run is estimated at ")
    assert lines[-1].startswith("warning: run 0 stopped at max events (simulated ")
    assert "partial" in lines[-1]
    # A complete run says nothing of the kind.
    r = run_cli("run", str(UMTS), "--json", "--set", "simulation.duration_s=5")
    assert r.returncode == 0 and r.stderr == ""
    assert json.loads(r.stdout)["partial"] is False


@pytest.mark.parametrize(
    ("flag", "value"), [("--max-events", "-1"), ("--max-wall-s", "-2"), ("--max-wall-s", "nan")]
)
def test_bad_budgets_are_refused(flag, value):
    r = run_cli("run", str(UMTS), flag, value)
    assert r.returncode == 2 and f"error: {flag} = {value}" in r.stderr
