"""Reference implementation of the flat per-run metrics, in plain Python.

The core computes the metrics (``radiotcp_core::metrics``, returned as ``metrics`` by
``_core.simulate``) because sweeps reduce every run this way; this independent version is the
oracle the tests hold the core to.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

# Per-flow result fields reported as `flows.<i>.<field>` (everything numeric but the ids).
_FLOW_SKIP = {"flow", "start_s"}
# Flow counters summed over flows into a top-level metric of the same name.
_FLOW_SUMS = (
    "bytes_delivered",
    "segments_sent",
    "retransmissions",
    "fast_retransmits",
    "timeouts",
    "spurious_retransmissions",
    "spurious_timeouts",
    "spurious_timeouts_not_lost",
    "spurious_timeouts_lost_repaired",
    "cwnd_reductions",
    "duplicate_arrivals",
    "acks_sent",
    "acks_received",
    "delay_samples",
)
# Delay statistics averaged over flows, weighted by each flow's delay_samples.
_FLOW_DELAYS = ("delay_mean_ms", "delay_p50_ms", "delay_p95_ms", "delay_p99_ms")


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _weighted(values: Sequence[float], weights: Sequence[float]) -> float:
    pairs = [(v, w) for v, w in zip(values, weights, strict=True) if w > 0 and math.isfinite(v)]
    total = sum(w for _, w in pairs)
    if total <= 0:
        return math.nan
    return sum(v * w for v, w in pairs) / total


def _jain(x: Sequence[float]) -> float:
    if not x:
        return math.nan
    s2 = sum(v * v for v in x)
    if s2 <= 0:
        return math.nan
    return sum(x) ** 2 / (len(x) * s2)


def flatten_metrics(raw: Mapping[str, Any]) -> dict[str, float]:
    """Reduce one run's result (as returned by ``_core.simulate``) to flat scalar metrics.

    Aggregates over flows:

    - ``goodput_kbps``: sum over flows (total goodput); ``goodput_kbps_per_flow``: mean.
    - ``fairness_jain``: Jain's index of the per-flow goodputs (NaN if all are zero).
    - ``delay_mean_ms``: mean one-way delay over all delay samples of all flows (the per-flow
      means weighted by ``delay_samples``), i.e. exactly the pooled mean.
    - ``delay_p50_ms``, ``delay_p95_ms``, ``delay_p99_ms``: per-flow percentiles averaged with
      ``delay_samples`` as weights. The pooled percentile cannot be rebuilt from per-flow
      ones; this weighted average equals it when the flows see the same delay distribution
      (they share the bottleneck queue) and, unlike the max over flows, is not biased upwards
      by the number of flows. Per-flow values are under ``flows.<i>.delay_p95_ms``.
    - ``retransmissions``, ``fast_retransmits``, ``timeouts``, ``acks_sent``,
      ``acks_received``, ``segments_sent``, ``bytes_delivered``, ``delay_samples``: sums.

    Links: ``drops`` (all drops, every link and direction), ``drops.<link>.<direction>.<reason>``
    and ``links.<link>.<direction>.{packets_sent,bytes_sent,max_queue_packets}``.

    Run: ``events``, ``measured_s``. Per flow: ``flows.<i>.<field>`` for every numeric field
    of the core's FlowStats (``goodput_kbps``, ``delay_mean_ms``, ``final_cwnd_bytes``, ...).
    A metric that is undefined for a run (no delay sample, no flow) is NaN.
    """
    out: dict[str, float] = {}
    flows = list(raw.get("flows") or [])
    links = list(raw.get("links") or [])

    goodputs = [float(f.get("goodput_kbps", math.nan)) for f in flows]
    out["goodput_kbps"] = float(sum(goodputs))
    out["goodput_kbps_per_flow"] = float(np.mean(goodputs)) if goodputs else math.nan
    out["fairness_jain"] = _jain(goodputs)

    weights = [float(f.get("delay_samples", 0)) for f in flows]
    for key in _FLOW_DELAYS:
        out[key] = _weighted([float(f.get(key, math.nan)) for f in flows], weights)

    for key in _FLOW_SUMS:
        if flows and all(key in f for f in flows):
            out[key] = float(sum(f[key] for f in flows))

    total_drops = 0.0
    for link in links:
        prefix = f"{link.get('name', link.get('link'))}.{link.get('direction', '?')}"
        for reason, count in sorted((link.get("drops") or {}).items()):
            out[f"drops.{prefix}.{reason}"] = float(count)
            total_drops += float(count)
        for key in ("packets_sent", "bytes_sent", "max_queue_packets"):
            if _is_num(link.get(key)):
                out[f"links.{prefix}.{key}"] = float(link[key])
    out["drops"] = total_drops

    for key in ("events", "measured_s"):
        if _is_num(raw.get(key)):
            out[key] = float(raw[key])

    for i, f in enumerate(flows):
        for key, v in f.items():
            if key not in _FLOW_SKIP and _is_num(v):
                out[f"flows.{i}.{key}"] = float(v)
    return out
