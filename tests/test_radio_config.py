"""The radio bearer's configuration: preset, defaults, errors naming the key."""

from __future__ import annotations

import pytest

import radiotcp
from radiotcp.config import load

from .conftest import REPO, run_cli

UMTS = REPO / "scenarios" / "umts-384k.toml"


def test_umts_preset_is_the_papers_table_1():
    cfg = load(UMTS)
    r = cfg.access
    assert r.kind == "umts"
    assert (r.tti_ms, r.pdus_per_tti, r.pdu_payload_bytes) == (10.0, 12, 40)
    assert (r.downlink.model, r.downlink.fer, r.downlink.fd_t) == ("markov", 0.1, 0.01)
    assert (r.rlc.window_pdus, r.rlc.max_dat, r.rlc.poll_timer_ms) == (1024, 10, 60.0)
    assert (r.rlc.status_prohibit_ms, r.rlc.poll_window_pct) == (60.0, 50.0)
    assert r.rlc.poll_last_pdu and r.rlc.poll_last_retransmitted and r.rlc.missing_pdu_indicator
    assert r.buffer.limit_sdus == 50
    assert r.one_way_delay_ms * 2 == 50.0
    assert cfg.tcp.variant == "reno" and cfg.tcp.rwnd_bytes == 65535
    assert cfg.links[0].rate_kbps == 1000.0 and cfg.links[0].delay_ms * 2 == 200.0
    # Every key of the preset equals the model's default: the preset documents the defaults.
    assert r == load(None, ["access.kind=umts"]).access


@pytest.mark.parametrize("override", ["access.kind=umts", 'access={kind="umts"}', "radio={}"])
def test_radio_access_can_be_chosen_with_defaults(override):
    # `radio = {}` is the 0.2 spelling of the same choice.
    cfg = load(REPO / "scenarios" / "wired-384k.toml", [override])
    assert cfg.access == load(None, ["access.kind=umts"]).access


@pytest.mark.parametrize(
    ("override", "key"),
    [
        ("access.buffer.limit_sdus=0", "access.buffer.limit_sdus"),
        ("access.downlink.fer=1.5", "access.downlink.fer"),
        ("access.rlc.max_dat=1", "access.rlc.max_dat"),
        ("access.rlc.window_pdus=4096", "access.rlc.window_pdus"),
        ("access.downlink.model=rayleigh", "access.downlink.model"),
    ],
)
def test_bad_radio_values_name_the_key(override, key):
    with pytest.raises(radiotcp.ConfigError) as e:
        load(UMTS, [override])
    assert e.value.key == key


def test_unknown_radio_key_is_an_error_in_the_cli():
    r = run_cli("validate", str(UMTS), "--set", "access.rlc.polltimer_ms=10")
    assert r.returncode == 2
    assert "access.rlc.polltimer_ms" in r.stderr and "Traceback" not in r.stderr
    assert "poll_timer_ms" in r.stderr, "the closest known key is suggested"


def test_umts_run_reports_bearer_metrics():
    res = radiotcp.run(
        UMTS, runs=2, overrides=["simulation.duration_s=10", "access.downlink.model=iid"]
    )
    m = res.runs[0]
    assert m["bearer.max_buffer_sdus"] <= 50
    assert m["bearer.dl_data_pdus_sent"] > 0
    assert "drops.bearer.buffer_full" in m and "drops.bearer.rlc_maxdat" in m
    assert res.runs[0]["goodput_kbps"] != res.runs[1]["goodput_kbps"]


@pytest.mark.parametrize(
    ("overrides", "key"),
    [
        (["access.buffer.red.max_th_sdus=10"], "access.buffer.red.max_th_sdus"),
        (["access.buffer.red.max_p=0"], "access.buffer.red.max_p"),
        (
            ["access.buffer.discipline=sbd", "access.buffer.sbd.min_th_sdus=60"],
            "access.buffer.sbd.min_th_sdus",
        ),
        (["access.buffer.sbd.t_r_ms=-1"], "access.buffer.sbd.t_r_ms"),
        (["access.buffer.discipline=fq_codel"], "access.buffer.discipline"),
        (["access.buffer.pie.alpha=-1"], "access.buffer.pie.alpha"),
        (["access.buffer.codel.target_ms=0"], "access.buffer.codel.target_ms"),
    ],
)
def test_bad_aqm_values_name_the_key(overrides, key):
    with pytest.raises(radiotcp.ConfigError) as e:
        load(UMTS, overrides)
    assert e.value.key == key


def test_sbd_thresholds_matter_only_for_sbd():
    cfg = load(UMTS, ["access.buffer.limit_sdus=10"])
    assert cfg.access.buffer.sbd.min_th_sdus == 25.0


def test_red_and_sbd_drop_with_their_own_reasons():
    base = ["simulation.duration_s=30", "flows.count=4", "access.buffer.limit_sdus=40"]
    red = radiotcp.run(UMTS, runs=2, overrides=[*base, "access.buffer.discipline=red"])
    assert red.summary["drops.bearer.red_early"][0] > 0
    assert red.summary["drops.bearer.sbd"][0] == 0
    sbd = radiotcp.run(
        UMTS,
        runs=2,
        overrides=[*base, "access.buffer.discipline=sbd", "access.buffer.sbd.t_r_ms=100"],
    )
    assert sbd.summary["drops.bearer.sbd"][0] > 0
    assert sbd.summary["drops.bearer.red_early"][0] == 0
    codel = radiotcp.run(UMTS, runs=2, overrides=[*base, "access.buffer.discipline=codel"])
    assert codel.summary["drops.bearer.codel"][0] > 0
    assert codel.summary["drops.bearer.sbd"][0] == 0
    pie = radiotcp.run(UMTS, runs=2, overrides=[*base, "access.buffer.discipline=pie"])
    assert pie.summary["drops.bearer.pie"][0] > 0
    assert pie.summary["drops.bearer.codel"][0] == 0


def test_ack_control_modes_and_errors():
    base = ["simulation.duration_s=30", "flows.count=4"]
    off = radiotcp.run(UMTS, runs=1, overrides=base)
    assert off.summary["bearer.acks_delayed"][0] == 0
    rate = radiotcp.run(
        UMTS,
        runs=1,
        overrides=[*base, "access.ack_control.mode=rate", "access.ack_control.minth_sdus=10"],
    )
    assert rate.summary["bearer.acks_delayed"][0] > 0
    delay = radiotcp.run(UMTS, runs=1, overrides=[*base, "access.ack_control.mode=delay"])
    assert delay.summary["bearer.ack_delay_mean_ms"][0] > 0
    for bad, key in [
        ("access.ack_control.maxth_sdus=5", "access.ack_control.maxth_sdus"),
        ("access.ack_control.mode=filter", "access.ack_control.mode"),
        ("access.ack_control.alpha=-1", "access.ack_control.alpha"),
    ]:
        with pytest.raises(radiotcp.ConfigError) as e:
            load(UMTS, [bad])
        assert e.value.key == key


@pytest.mark.parametrize("discipline", ["codel", "sbd", "red"])
def test_every_buffer_drop_is_in_the_drop_trace(discipline):
    # CoDel drops at dequeue, SBD drops the first unsent SDU, RED on arrival; MaxDAT discards
    # happen inside the RLC. All of them must appear in seq_dropped (the papers' trace figures).
    from radiotcp import _core
    from radiotcp.config import to_core_json

    cfg = load(
        UMTS,
        [
            "simulation.duration_s=30",
            "flows.count=4",
            "access.buffer.limit_sdus=40",
            f"access.buffer.discipline={discipline}",
            "access.rlc.max_dat=3",
        ],
    )
    out = _core.simulate(to_core_json(cfg), 1, 0, True)
    m = out["metrics"]
    traced = len(out["traces"]["seq_dropped"]["value"])
    assert m[f"drops.bearer.{'red_early' if discipline == 'red' else discipline}"] > 0
    assert m["drops.bearer.rlc_maxdat"] > 0
    assert traced == m["drops"]
