"""What a run will cost, before it starts: events and wall time from the configuration.

A run's events come from packets (each data packet is serialised and propagated on every
link, each ACK too, plus timers) and from the access node's clock (a UMTS TTI or an RLP slot
is an event whether or not anything is sent, and radio frames arrive as events). The packet
rate is what TCP can reach: the bottleneck rate, or the flows' receive windows per round trip
when those are smaller. The wall time per event is measured (`make bench`) per kind of access:
a TTI of RLC AM costs more than a wired hop.

The estimate decides whether `radiotcp run` shows a progress bar for a single run and warns
when a run will reach ``--max-events``; it is checked against real event counts of every
preset within a factor of 3 (tests/test_budget.py), which is all it is for.
"""

from __future__ import annotations

from dataclasses import dataclass

from .config import ScenarioConfig

__all__ = ["Cost", "estimate"]

# Wall time per event on the 2-core reference machine, measured once on the presets (release
# build); only the order of magnitude matters here.
NS_PER_EVENT = {"wired": 150.0, "umts": 2000.0, "rlp": 1000.0, "lte": 1100.0}
# What one busy LTE sector carries, kb/s: the preset's cell delivers about 13 Mb/s per
# occupied sector (measured, `make bench`); only the order of magnitude matters.
LTE_SECTOR_KBPS = 13_000.0
# Events per access-node period: the step itself, and radio arrivals in the periods that carry
# frames (measured: 1.0 per TTI when idle, about 2 when busy).
EVENTS_PER_PERIOD = 1.5


@dataclass(frozen=True)
class Cost:
    """Estimated events of one run and its wall time on the reference machine."""

    events: float
    wall_s: float


def estimate(cfg: ScenarioConfig) -> Cost:
    t = cfg.tcp
    access = cfg.access
    duration = cfg.simulation.duration_s
    links = cfg.links
    bottleneck_kbps = min(link.rate_kbps for link in links)
    one_way_ms = sum(link.delay_ms for link in links)
    # Delay spikes (a handoff): their extra delay, averaged over the run, slows a window-bound
    # flow as a longer path would.
    for link in links:
        v = link.variable_delay
        if v is not None:
            for sp in v.spikes:
                overlap = max(0.0, min(sp.start_s + sp.duration_s, duration) - sp.start_s)
                one_way_ms += sp.extra_ms * overlap / duration
    period_ms = None
    if access.kind == "umts":
        bearer_kbps = access.pdus_per_tti * access.pdu_payload_bytes * 8 / access.tti_ms
        bottleneck_kbps = min(bottleneck_kbps, bearer_kbps)
        one_way_ms += access.one_way_delay_ms
        period_ms = access.tti_ms
    elif access.kind == "rlp":
        rlp_kbps = access.frame_payload_bytes * access.frames_per_slot * 8 / access.slot_ms
        bottleneck_kbps = min(bottleneck_kbps, rlp_kbps)
        one_way_ms += access.one_way_delay_ms
        period_ms = access.slot_ms
    elif access.kind == "lte":
        bottleneck_kbps = min(bottleneck_kbps, min(access.ues, 3) * LTE_SECTOR_KBPS)
        period_ms = 1.0
    flows = cfg.flows.count * (access.ues if access.kind == "lte" else 1)
    rate_pps = bottleneck_kbps * 1000 / 8 / t.packet_size_bytes
    window = t.rwnd_bytes if t.awnd_segments is None else t.awnd_segments * t.packet_size_bytes
    rtt_s = max(2 * one_way_ms / 1000, 1e-3)
    window_pps = flows * window / rtt_s / t.packet_size_bytes
    pps = min(rate_pps, window_pps)
    # Per data packet: transmit-done and arrival on every link, the same for its share of
    # ACKs (one per delack_count packets), and the sender's and receiver's timer events.
    hops = len(links)
    per_packet = 2 * hops * (1 + 1 / t.delack_count) + 2
    events = duration * pps * per_packet
    if period_ms is not None:
        events += duration * 1000 / period_ms * EVENTS_PER_PERIOD
    wall = events * NS_PER_EVENT[access.kind] * 1e-9
    return Cost(events=events, wall_s=wall)
