import math

import numpy as np
import pytest

import radiotcp
from radiotcp.errors import ConfigError

from .reference_metrics import flatten_metrics


def _raw():
    """A hand-made core result: two flows, one link in both directions."""
    flow = {
        "flow": 0,
        "start_s": 0.0,
        "bytes_delivered": 1000,
        "goodput_kbps": 100.0,
        "delay_mean_ms": 10.0,
        "delay_p50_ms": 9.0,
        "delay_p95_ms": 20.0,
        "delay_p99_ms": 30.0,
        "delay_samples": 1,
        "segments_sent": 10,
        "retransmissions": 1,
        "fast_retransmits": 1,
        "timeouts": 0,
        "acks_sent": 5,
        "acks_received": 5,
        "final_cwnd_bytes": 2920,
        "final_srtt_ms": 50.0,
    }
    f1 = dict(flow, flow=1, goodput_kbps=300.0, delay_mean_ms=30.0, delay_p95_ms=40.0)
    f1.update(delay_samples=3, retransmissions=2, timeouts=1)
    return {
        "seed": 1,
        "run_index": 0,
        "duration_s": 10.0,
        "measured_s": 10.0,
        "events": 1234,
        "flows": [flow, f1],
        "links": [
            {
                "link": 0,
                "name": "access",
                "direction": "data",
                "packets_sent": 9,
                "bytes_sent": 9000,
                "max_queue_packets": 4,
                "drops": {"queue_full": 2, "random_loss": 1},
            },
            {
                "link": 0,
                "name": "access",
                "direction": "ack",
                "packets_sent": 5,
                "bytes_sent": 200,
                "max_queue_packets": 0,
                "drops": {"queue_full": 0, "random_loss": 4},
            },
        ],
    }


def test_flatten_metrics_by_hand():
    m = flatten_metrics(_raw())
    assert m["goodput_kbps"] == 400.0
    assert m["goodput_kbps_per_flow"] == 200.0
    # Jain: (100 + 300)^2 / (2 * (100^2 + 300^2)) = 160000 / 200000
    assert m["fairness_jain"] == pytest.approx(0.8)
    # Weighted by delay_samples (1 and 3): (10 + 3 * 30) / 4
    assert m["delay_mean_ms"] == pytest.approx(25.0)
    assert m["delay_p95_ms"] == pytest.approx((20 + 3 * 40) / 4)
    assert m["retransmissions"] == 3 and m["timeouts"] == 1 and m["acks_sent"] == 10
    assert m["drops"] == 7
    assert m["drops.access.data.queue_full"] == 2
    assert m["drops.access.ack.random_loss"] == 4
    assert m["links.access.data.max_queue_packets"] == 4
    assert m["events"] == 1234
    assert m["flows.1.goodput_kbps"] == 300.0
    assert m["flows.0.final_srtt_ms"] == 50.0
    assert "flows.0.flow" not in m
    assert all(isinstance(v, float) for v in m.values())


def test_flatten_metrics_undefined_values_are_nan():
    raw = _raw()
    for f in raw["flows"]:
        f.update(goodput_kbps=0.0, delay_samples=0, delay_mean_ms=float("nan"))
    m = flatten_metrics(raw)
    assert math.isnan(m["fairness_jain"])
    assert math.isnan(m["delay_mean_ms"])
    empty = flatten_metrics({"flows": [], "links": []})
    assert empty["goodput_kbps"] == 0.0 and math.isnan(empty["goodput_kbps_per_flow"])


def test_run_shapes(short_lossy):
    res = radiotcp.run(short_lossy, seed=3, runs=3)
    assert len(res.runs) == len(res.raw) == 3
    assert [r["run_index"] for r in res.raw] == [0, 1, 2]
    assert all(r["seed"] == 3 for r in res.raw)
    assert res.traces is None
    assert res.wall_time_s > 0
    mean, _half, n = res.summary["goodput_kbps"]
    assert n == 3
    assert mean == pytest.approx(np.mean(res.metric("goodput_kbps")))
    assert set(res.summary) == set(res.runs[0])
    assert "drops.access.data.random_loss" in res.summary


def test_progress_callback(short_lossy):
    seen = []
    radiotcp.run(short_lossy, runs=2, progress=lambda d, t: seen.append((d, t)))
    assert seen == [(1, 2), (2, 2)]


def test_same_seed_same_results(short_lossy):
    a = radiotcp.run(short_lossy, seed=11, runs=2)
    b = radiotcp.run(short_lossy, seed=11, runs=2)
    assert a.runs == b.runs
    assert a.raw == b.raw


def test_different_run_index_different_results(short_lossy):
    res = radiotcp.run(short_lossy, seed=11, runs=2)
    assert res.raw[0]["flows"], "the simulation produced no flows"
    assert res.runs[0]["drops"] > 0, "the lossy scenario lost nothing"
    assert res.runs[0] != res.runs[1]


def test_different_seed_different_results(short_lossy):
    a = radiotcp.run(short_lossy, seed=1)
    b = radiotcp.run(short_lossy, seed=2)
    assert a.runs[0] != b.runs[0]


def test_flows_are_simulated(preset):
    res = radiotcp.run(preset, overrides=["flows.count=4", "simulation.duration_s=30"])
    m = res.runs[0]
    assert [f["flow"] for f in res.raw[0]["flows"]] == [0, 1, 2, 3]
    # The 384 kb/s access link bounds the total goodput.
    assert 0 < m["goodput_kbps"] <= 384.0
    assert 0 < m["fairness_jain"] <= 1.0


def test_traces_per_run(short_lossy):
    res = radiotcp.run(short_lossy, runs=2, traces=True)
    assert res.traces is not None and len(res.traces) == 2
    cwnd = res.traces[0]["cwnd"]
    assert cwnd["time_s"].dtype == np.float64 and len(cwnd["time_s"]) > 0
    assert set(np.unique(cwnd["id"])) <= {0, 1}


@pytest.mark.parametrize("bad", [{"runs": 0}, {"seed": -1}, {"runs": 1.5}])
def test_bad_run_arguments(bad):
    with pytest.raises(ValueError):
        radiotcp.run({}, **bad)


def test_run_accepts_a_model():
    cfg = radiotcp.load(None, ["simulation.duration_s=5"])
    res = radiotcp.run(cfg)
    assert res.config == cfg
    assert res.raw[0]["duration_s"] == 5.0


def test_run_reports_config_errors():
    with pytest.raises(radiotcp.ConfigError) as ei:
        radiotcp.run({"links": [{"name": "a", "rate_kbps": 0}]})
    assert ei.value.key == "links.0.rate_kbps"


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize(
    "overrides",
    [
        ["flows.count=4"],
        ["flows.count=1", "links.1.loss_rate=0.02", "simulation.duration_s=5"],
        ["flows.start_times_s=[0, 59.9]", "flows.count=2"],
    ],
)
def test_core_metrics_equal_the_reference_reduction(overrides):
    from radiotcp import _core
    from radiotcp.config import load, to_core_json

    doc = to_core_json(load("scenarios/wired-384k.toml", overrides))
    raw = _core.simulate(doc, 3, 0)
    core = raw.pop("metrics")
    ref = flatten_metrics(raw)
    assert list(core) == list(ref), "same keys in the same order"
    for k in ref:
        assert _same(core[k], ref[k]), k
    text, _ = _core.simulate_metrics(doc, 3, 0)
    import json

    from_json = json.loads(text)
    assert list(from_json) == list(ref)
    assert all(_same(from_json[k], ref[k]) for k in ref)


def test_a_thread_s_last_configuration_is_reused_only_for_the_same_document():
    """The binding keeps the configuration it parsed last (a sweep's replications share it):
    a different document is parsed anew, and the first one again gives its own results."""
    from radiotcp import _core
    from radiotcp.config import load, to_core_json

    a = to_core_json(load("scenarios/wired-384k.toml", ["simulation.duration_s=20"]))
    b = to_core_json(
        load("scenarios/wired-384k.toml", ["simulation.duration_s=20", "flows.count=3"])
    )
    first, _ = _core.simulate_metrics(a, 5, 0)
    other, _ = _core.simulate_metrics(b, 5, 0)
    again, _ = _core.simulate_metrics(a, 5, 0)
    assert other != first and again == first
    assert _core.simulate_metrics(b, 5, 0)[0] == other
    with pytest.raises(ConfigError):
        _core.simulate_metrics(a.replace('"duration_s": 20.0', '"duration_s": -1.0'), 5, 0)
