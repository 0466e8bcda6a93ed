"""The IS-707 RLP link as a user drives it: presets, errors naming the key, the normalised
goodput bound across a sweep, determinism."""

from __future__ import annotations

import pytest

import radiotcp
from radiotcp.config import load
from radiotcp.store import Store
from radiotcp.sweep import load_sweep, run_sweep

from .conftest import REPO, run_cli

IS707 = REPO / "scenarios" / "is707-9600.toml"
IS707_16X = REPO / "scenarios" / "is707-16x9600.toml"


def test_preset_is_the_papers_setting():
    cfg = load(IS707)
    r = cfg.access
    assert r.kind == "rlp"
    assert (cfg.tcp.variant, cfg.tcp.packet_size_bytes - cfg.tcp.header_bytes) == ("reno", 536)
    assert cfg.tcp.ack_size_bytes == 40 and cfg.tcp.awnd_segments == 1024
    assert (cfg.links[0].rate_kbps, cfg.links[0].delay_ms) == (1500.0, 200.0)
    assert (r.slot_ms, r.frame_payload_bytes, r.frames_per_slot) == (20.0, 19, 1)
    assert r.nak_rounds == 2 and r.forward.model == "markov"
    # Every [rlp] key of the preset equals the model's default: the preset documents them.
    assert r == load(None, ["access.kind=rlp"]).access
    assert load(IS707_16X).access.frames_per_slot == 16


@pytest.mark.parametrize(
    ("override", "key"),
    [
        ("access.nak_rounds=0", "access.nak_rounds"),
        ("access.forward.fer=1.5", "access.forward.fer"),
        ("access.frames_per_slot=0", "access.frames_per_slot"),
        ("access.t_ret_ms=0", "access.t_ret_ms"),
        ("access.iap_buffer_packets=0", "access.iap_buffer_packets"),
        ("access.kind=wimax", "access.kind"),
    ],
)
def test_bad_rlp_values_name_the_key(override, key):
    with pytest.raises(radiotcp.ConfigError) as e:
        load(IS707, [override])
    assert e.value.key == key


def test_unknown_rlp_key_is_an_error_in_the_cli():
    # The 0.2 path `rlp.x` is read as `access.x`; the error names the key as it now is.
    for key in ("access.nak_round", "rlp.nak_round"):
        r = run_cli("validate", str(IS707), "--set", f"{key}=3")
        assert r.returncode == 2
        assert "access.nak_round " in r.stderr and "access.nak_rounds?" in r.stderr
        assert 'kind = "rlp"' in r.stderr and "Traceback" not in r.stderr


def test_same_seed_same_result_and_runs_differ():
    a = radiotcp.run(IS707, runs=2, overrides=["simulation.duration_s=120"])
    b = radiotcp.run(IS707, runs=2, overrides=["simulation.duration_s=120"])
    assert a.runs == b.runs
    assert a.runs[0]["goodput_kbps"] != a.runs[1]["goodput_kbps"]


def test_error_free_link_reaches_the_payload_rate():
    # No frame errors: the normalised goodput approaches 1 (slow start and the last frames in
    # flight cost a little), and nothing is retransmitted.
    res = radiotcp.run(IS707, runs=1, overrides=['access.forward.model="none"'])
    m = res.runs[0]
    assert 0.97 < m["normalised_goodput"] <= 1.0
    assert m["rlp.fwd_retx_frames"] == 0 and m["retransmissions"] == 0


@pytest.mark.parametrize("preset", [IS707, IS707_16X])
def test_normalised_goodput_never_exceeds_one_minus_pe_across_a_sweep(tmp_path, preset):
    # Bai et al.'s normalisation: goodput / maximum TCP goodput of the link. A lost slot
    # carries nothing, so the realised fraction of good slots bounds it exactly; against the
    # nominal P_e the bound holds up to the channel's estimation noise.
    sweep = tmp_path / "s.toml"
    sweep.write_text(
        f"""
name = "bound"
base = "{preset}"
runs = 3
[set]
"simulation.duration_s" = 300.0
"tcp.awnd_segments" = 16
[grid]
"access.forward.fer" = [0.01, 0.1, 0.3]
"access.forward.fd_t" = [0.01, 1.0]
"""
    )
    spec, base_dir = load_sweep(sweep)
    with Store(tmp_path / "s.sqlite") as store:
        rows = run_sweep(spec, base_dir, store, jobs=1).rows()
    assert len(rows) == 18
    for run in rows:
        g = run["normalised_goodput"]
        assert 0.0 <= g <= 1.0 - run["rlp.fwd_fer"] + 1e-9
        assert g <= 1.0 - run["access.forward.fer"] + 0.05
    # The bound is not trivially met: at P_e = 0.01 the link is nearly full.
    assert max(r["normalised_goodput"] for r in rows if r["access.forward.fer"] == 0.01) > 0.9
