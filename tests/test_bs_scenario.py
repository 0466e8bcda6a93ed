"""The base-station ACK controller and the variable-delay link as a user drives them:
presets, errors naming the key, and the slides' end-to-end effects."""

from __future__ import annotations

import pytest

import radiotcp
from radiotcp.config import load

from .conftest import REPO

VARIATION = REPO / "scenarios" / "bs-delay-variation.toml"
SPIKE = REPO / "scenarios" / "bs-delay-spike.toml"


def test_presets_are_the_slides_scenarios():
    cfg = load(VARIATION)
    wired, wireless = cfg.links
    assert (wired.rate_kbps, wired.delay_ms) == (250.0, 5.0)
    assert wireless.rate_kbps == 250.0
    v = wireless.variable_delay
    assert v is not None and v.mean_ms == 190.0 and v.start_s == 0.5 and not v.fifo
    assert cfg.tcp.variant == "reno" and cfg.tcp.packet_size_bytes == 1040
    assert cfg.simulation.duration_s == 20.0
    assert not cfg.bs_ack.enabled and cfg.bs_ack.link == "wireless"
    spike = load(SPIKE).links[1].variable_delay
    assert spike is not None and len(spike.spikes) == 1
    assert (spike.spikes[0].start_s, spike.spikes[0].duration_s) == (5.0, 6.0)


@pytest.mark.parametrize(
    ("override", "key"),
    [
        ('bs_ack.link="wired"', "bs_ack.link"),
        ('bs_ack.link="nowhere"', "bs_ack.link"),
        ("bs_ack.g=0", "bs_ack.g"),
        ("bs_ack.dup_ack_thresh=0", "bs_ack.dup_ack_thresh"),
        ("links.1.variable_delay.half_width_ms=300", "links.1.variable_delay.half_width_ms"),
        ('links.1.variable_delay.process="markov"', "links.1.variable_delay.levels"),
        ('links.1.variable_delay.process="gamma"', "links.1.variable_delay.process"),
        (
            "links.1.variable_delay.spikes=[{duration_s = 0}]",
            "links.1.variable_delay.spikes.0.duration_s",
        ),
    ],
)
def test_bad_values_name_the_key(override, key):
    extra = ["bs_ack.enabled=true"] if override.startswith("bs_ack") else []
    with pytest.raises(radiotcp.ConfigError) as e:
        load(VARIATION, [*extra, override])
    assert e.value.key == key


def test_same_seed_same_result():
    over = ["bs_ack.enabled=true"]
    a = radiotcp.run(VARIATION, runs=2, overrides=over)
    b = radiotcp.run(VARIATION, runs=2, overrides=over)
    assert a.runs == b.runs
    assert a.runs[0]["goodput_kbps"] != a.runs[1]["goodput_kbps"]


def _mean(res, key):
    return sum(r[key] for r in res.runs) / len(res.runs)


def test_controller_cuts_spurious_fast_retransmits_and_raises_goodput():
    # Reordering delay variation makes the MH send duplicate ACKs for packets that are only
    # late; with dupAckThresh 5 the BS keeps them from the FH.
    off = radiotcp.run(VARIATION, runs=10)
    on = radiotcp.run(VARIATION, runs=10, overrides=["bs_ack.enabled=true"])
    assert _mean(off, "fast_retransmits") >= 1.0
    assert _mean(on, "fast_retransmits") < 0.25 * _mean(off, "fast_retransmits")
    assert _mean(on, "goodput_kbps") > 1.2 * _mean(off, "goodput_kbps")
    assert _mean(on, "bs.dup_acks_held") > 0
    # Nothing is lost on these links, so every retransmission is spurious, and the receiver
    # (which counts copies it already held, independently of the sender-side oracle) sees one
    # duplicate per retransmission.
    for r in off.runs:
        assert r["drops"] == 0
        assert r["retransmissions"] == r["spurious_retransmissions"] == r["duplicate_arrivals"]
    assert _mean(off, "retransmissions") >= 1.0


def test_spurious_and_needed_retransmissions_are_told_apart_under_loss_and_reordering():
    # 2 % of the data packets lost on the reordering link: both kinds occur. A needed
    # retransmission follows the loss of every earlier copy, so there are no more of them
    # than drops; a spurious one gives the receiver a duplicate unless it is lost itself.
    res = radiotcp.run(VARIATION, runs=10, overrides=["links.1.loss_rate=0.02"])
    needed = spurious = drops = 0.0
    for r in res.runs:
        n = r["retransmissions"] - r["spurious_retransmissions"]
        assert 0 <= n <= r["drops.wireless.data.random_loss"] == r["drops"]
        assert r["duplicate_arrivals"] <= r["spurious_retransmissions"]
        needed += n
        spurious += r["spurious_retransmissions"]
        drops += r["drops"]
    assert spurious >= 5 and needed >= 0.75 * drops > 0


def test_controller_cuts_the_retransmission_chain_after_a_spike():
    off = radiotcp.run(SPIKE, runs=10)
    on = radiotcp.run(SPIKE, runs=10, overrides=["bs_ack.enabled=true"])
    # The spike makes the FH time out although nothing is lost.
    assert _mean(off, "spurious_timeouts") >= 1.0
    # The BS drops retransmissions of data the MH already acknowledged and keeps the
    # duplicate ACKs they would cause from triggering fast retransmits.
    assert _mean(on, "drops.bs.already_acked") > 0
    assert _mean(on, "fast_retransmits") < 0.6 * _mean(off, "fast_retransmits")


def test_variable_delay_reorders_only_when_allowed():
    free = radiotcp.run(VARIATION, runs=1).runs[0]
    fifo = radiotcp.run(VARIATION, runs=1, overrides=["links.1.variable_delay.fifo=true"]).runs[0]
    assert free["links.wireless.data.reordered"] > 10
    assert fifo["links.wireless.data.reordered"] == 0
    assert fifo["fast_retransmits"] == 0
