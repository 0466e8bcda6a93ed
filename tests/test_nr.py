"""The NR cell from Python (issue 25): configuration errors name the key and what is
allowed, the preset runs from the CLI with per-UE metrics under `nr.`, the cell's and the
UEs' numbers add up, and results are deterministic."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from radiotcp import _core
from radiotcp.cli import main
from radiotcp.config import load, to_core_json
from radiotcp.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent
NR = ROOT / "scenarios" / "nr-ohta.toml"
SHORT = ["access.ues=4", "simulation.duration_s=2", "simulation.warmup_s=0.5"]


def run(overrides: list[str], seed: int = 1) -> dict:
    return _core.simulate(to_core_json(load(NR, [*SHORT, *overrides])), seed, 0)


@pytest.mark.parametrize(
    ("override", "key", "allowed"),
    [
        ("access.scs_khz=45", "access.scs_khz", "15"),
        ("access.bandwidth_mhz=55", "access.bandwidth_mhz", "100"),
        ("access.carrier_ghz=10.0", "access.carrier_ghz", "FR1"),
        ('access.tdd_pattern="DDDSUUU"', "access.tdd_pattern", "period"),
        ('access.special_slot="10:2:3"', "access.special_slot", "14"),
        ("access.timing.k0=2", "access.timing.k0", "0"),
        ("access.timing.k2=0", "access.timing.k2", "1..=32"),
        ("access.uplink.sr_period_slots=8", "access.uplink.sr_period_slots", "multiple"),
        ("access.uplink.retx_bsr_ms=100", "access.uplink.retx_bsr_ms", "80"),
        ("access.uplink.min_prb=254", "access.uplink.min_prb", "1..=253"),
        ("access.pdcch.coreset_prb=50", "access.pdcch.coreset_prb", "multiple of 6"),
        ("access.configured_grant.enabled=true", None, None),
        (
            "access.configured_grant.mcs=28",
            None,
            None,
        ),
        ('access.mcs_table="qam1024"', "access.mcs_table", "qam256"),
        ("access.rlc.sn_bits=10", "access.rlc.sn_bits", "18"),
        ("access.rlc.t_reassembly_ms=17", "access.rlc.t_reassembly_ms", "steps of 5"),
        ("access.cqi_delay_tti=4", "access.cqi_delay_tti", "cqi_delay_slots"),
        ('access.harq.adaptive="sometimes"', "access.harq.adaptive", "true or false"),
        ("access.harq.processes=17", "access.harq.processes", "1..=16"),
    ],
)
def test_bad_nr_values_name_the_key(override: str, key: str | None, allowed: str | None) -> None:
    if key is None:
        load(NR, [override])  # accepted (the MCS is only checked when grants are on)
        return
    with pytest.raises(ConfigError) as ei:
        load(NR, [override])
    problem = ei.value.problems[0]
    assert problem.key == key
    assert allowed in str(ei.value)


def test_a_configured_grant_mcs_beyond_the_uplink_table_is_refused() -> None:
    with pytest.raises(ConfigError) as ei:
        load(NR, ["access.configured_grant.enabled=true", "access.configured_grant.mcs=29"])
    assert ei.value.problems[0].key == "access.configured_grant.mcs"
    assert "0..=28" in str(ei.value)


def test_cell_and_per_ue_metrics_add_up() -> None:
    r = run(['access.ack_filter.scheme="hybrid_opt"', "access.configured_grant.enabled=true"])
    cell, ues = r["nr"]["cell"]["cell"], r["nr"]["cell"]["ues"]
    assert len(ues) == 4
    assert math.isclose(cell["goodput_kbps"], sum(u["goodput_kbps"] for u in ues))
    assert math.isclose(cell["goodput_kbps"], sum(f["goodput_kbps"] for f in r["flows"]))
    m = r["metrics"]
    assert m["nr.goodput_kbps"] == cell["goodput_kbps"]
    assert m["nr.ues.3.acks_sent"] == ues[3]["acks_sent"]
    assert m["nr.pdcch_cces"] == 45
    assert m["nr.pusch_prb"] == 253
    assert m["nr.configured_grant_blocks"] > 0
    assert m["nr.srs"] == 0
    assert not any(k.startswith("lte.") for k in m)


def test_same_seed_same_metrics() -> None:
    assert run([], seed=3)["metrics"] == run([], seed=3)["metrics"]


def test_cli_runs_the_preset(capsys: pytest.CaptureFixture[str]) -> None:
    sets = ["access.ues=40", "simulation.duration_s=1", "simulation.warmup_s=0.5"]
    code = main(["run", str(NR), *(f"--set={s}" for s in sets), "--json"])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert "nr.ues.39.goodput_kbps" in json.dumps(doc)


def test_harq_counters_and_the_adaptive_switch() -> None:
    # Every UL retransmission takes a DCI (NR has no PHICH): the UL DCIs are the grants plus
    # them; with adaptation off no retransmission changes width.
    m = run(["simulation.warmup_s=0"])["metrics"]
    assert m["nr.ul_dcis"] == m["nr.grants"] + m["nr.ul_retx_dcis"]
    assert m["nr.ul_retx_dcis"] > 0
    off = run(["simulation.warmup_s=0", "access.harq.adaptive=false"])["metrics"]
    assert off["nr.harq_retx_resized"] == 0
    assert m["nr.harq_retx_resized"] > 0
