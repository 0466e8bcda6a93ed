import json
import re

import numpy as np
import pytest

import radiotcp
from radiotcp import _core
from radiotcp.config import load, to_core_json, to_dict

TRACE_NAMES = {
    "cwnd",
    "ssthresh",
    "seq_sent",
    "seq_received",
    "seq_dropped",
    "queue",
    "buffer",
    "rto",
    "window",
    "ack_received",
    "cwnd_reductions",
    "delivered",
    "ack_queue",
}


def test_version():
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", _core.version())
    assert radiotcp.__version__ == _core.version()


def test_simulate_returns_plain_result():
    out = _core.simulate(to_core_json(load(None)), 7, 3)
    assert isinstance(out, dict)
    for key in ("seed", "run_index", "duration_s", "measured_s", "events", "flows", "links"):
        assert key in out
    assert (out["seed"], out["run_index"]) == (7, 3)
    assert out["traces"] is None
    assert isinstance(out["wall_time_s"], float) and out["wall_time_s"] >= 0
    assert isinstance(out["flows"], list) and isinstance(out["links"], list)
    # The whole result (but traces) is plain data.
    json.dumps({k: v for k, v in out.items() if k != "traces"})


def test_traces_are_numpy_arrays():
    out = _core.simulate(to_core_json(load(None)), 1, 0, traces=True)
    tr = out["traces"]
    assert set(tr) == TRACE_NAMES
    for cols in tr.values():
        assert set(cols) == {"time_s", "id", "value"}
        assert cols["time_s"].dtype == np.float64
        assert cols["id"].dtype == np.uint32
        assert cols["value"].dtype == np.float64
        assert len(cols["time_s"]) == len(cols["id"]) == len(cols["value"])


def test_core_config_error_becomes_radiotcp_config_error():
    doc = to_dict(load(None))
    doc["links"][1]["rate_kbps"] = -3.0  # bypasses the Python validation on purpose
    with pytest.raises(radiotcp.ConfigError) as ei:
        _core.simulate(json.dumps(doc), 1, 0)
    e = ei.value
    assert isinstance(e, ValueError)
    assert e.key == "links.1.rate_kbps"
    assert e.value == "-3.0"  # as the document writes it
    assert e.allowed == "a rate in [0.001, 1e9] kb/s (1 bit/s to 1 Tbit/s)"


def test_core_rejects_unknown_keys():
    doc = to_dict(load(None))
    doc["tcp"]["bogus"] = 1
    with pytest.raises(radiotcp.ConfigError) as ei:
        _core.simulate(json.dumps(doc), 1, 0)
    assert ei.value.key == "tcp.bogus" and ei.value.unknown_key
    assert "keys under tcp: profile, variant" in ei.value.allowed


def test_negative_seed_is_rejected():
    with pytest.raises(OverflowError):
        _core.simulate(to_core_json(load(None)), -1, 0)


def test_store_key_changes_with_the_core_source():
    from radiotcp.sweep import build_version

    h = _core.source_hash()
    assert re.fullmatch(r"[0-9a-f]{16}", h)
    assert build_version() == f"{_core.version()}+{h}"


# --- the configuration schema and the resolution of partial documents -----------------------


def test_resolve_config_fills_every_default():
    doc = json.loads(_core.resolve_config("{}"))
    assert doc == json.loads(_core.default_config_json())
    doc = json.loads(
        _core.resolve_config('{"access": {"kind": "umts"}, "tcp": {"profile": "linux"}}')
    )
    assert doc["access"]["kind"] == "umts" and doc["access"]["buffer"]["limit_sdus"] == 50
    assert doc["tcp"]["congestion_control"] == "cubic"


def test_resolve_config_reports_every_problem_at_once():
    text = json.dumps(
        {"simulation": {"duration_s": "x"}, "tcp": {"varient": "reno"}, "flows": {"count": 0}}
    )
    with pytest.raises(radiotcp.ConfigError) as ei:
        _core.resolve_config(text)
    lines = str(ei.value).splitlines()
    assert lines[0] == 'simulation.duration_s = "x": expected a number'
    assert lines[1].startswith('tcp.varient = "reno": unknown key; did you mean tcp.variant?')
    assert ei.value.problems[1].unknown_key
    assert lines[2] == "flows.count = 0: expected an integer in 1..=10000"


def test_fill_config_defaults_checks_nothing():
    doc = json.loads(_core.fill_config_defaults('{"tcp": {"bogus": [1]}, "flows": {"count": -1}}'))
    assert doc["tcp"]["bogus"] == [1] and doc["flows"]["count"] == -1
    assert doc["tcp"]["variant"] == "newreno"


def test_config_schema_declares_every_key():
    schema = json.loads(_core.config_schema())
    tcp = schema["$defs"]["TcpConfig"]["properties"]
    assert tcp["rwnd_bytes"]["default"] == 65535
    assert "RFC 6582" in tcp["variant"]["description"]
    assert list(schema["properties"]) == list(json.loads(_core.default_config_json()))
