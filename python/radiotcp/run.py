"""Run replications of a scenario and reduce them to flat per-run metrics and a summary."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import _core
from .config import ScenarioConfig, load, to_core_json
from .stats import mean_ci

__all__ = ["Results", "flatten_metrics", "run"]

# Per-flow result fields reported as `flows.<i>.<field>` (everything numeric but the ids).
_FLOW_SKIP = {"flow", "start_s"}
# Flow counters summed over flows into a top-level metric of the same name.
_FLOW_SUMS = (
    "bytes_delivered",
    "segments_sent",
    "retransmissions",
    "fast_retransmits",
    "timeouts",
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


def _align(runs: list[dict[str, float]]) -> None:
    """Give every run the same metric keys: a drop reason absent from a run counted 0 there."""
    keys: dict[str, None] = {}
    for r in runs:
        keys.update(dict.fromkeys(r))
    for r in runs:
        for k in keys:
            if k not in r and k.startswith("drops."):
                r[k] = 0.0


@dataclass
class Results:
    """What :func:`run` returns. Plain Python and numpy objects only.

    - ``runs``: one dict of flat scalar metrics per run (see :func:`flatten_metrics`).
    - ``raw``: the dicts returned by the core, one per run (``traces`` removed).
    - ``summary``: metric -> ``(mean, ci90_half_width, n)`` over the runs whose value is finite
      (the half-width is NaN for n < 2).
    - ``traces``: None unless traces were requested; then one dict per run,
      name -> {"time_s", "id", "value"} numpy arrays.
    - ``wall_time_s``: sum over runs of the core's wall time of the simulation proper.
    - ``config``: the resolved :class:`ScenarioConfig`; ``seed``: the base seed.
    """

    config: ScenarioConfig
    seed: int
    runs: list[dict[str, float]] = field(default_factory=list)
    raw: list[dict[str, Any]] = field(default_factory=list)
    summary: dict[str, tuple[float, float, int]] = field(default_factory=dict)
    traces: list[dict[str, dict[str, np.ndarray]]] | None = None
    wall_time_s: float = 0.0

    def metric(self, name: str) -> np.ndarray:
        """Values of one metric over the runs (NaN where a run lacks it)."""
        return np.array([r.get(name, math.nan) for r in self.runs], dtype=np.float64)


def run(
    config: str | Path | Mapping[str, Any] | ScenarioConfig,
    seed: int = 1,
    runs: int = 1,
    traces: bool = False,
    *,
    overrides: Sequence[str] | Mapping[str, Any] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Results:
    """Run ``runs`` independent replications of a scenario.

    ``config`` is a TOML path, a TOML-like dict or a :class:`ScenarioConfig`; ``overrides``
    are ``--set`` style (``["flows.count=4"]`` or ``{"flows.count": 4}``). Run ``i`` uses the
    core's ``(seed, run_index=i)``, so the same seed gives the same results and runs of one
    call are independent. ``progress(done, total)`` is called after every run.

    Raises :class:`radiotcp.ConfigError` for an unusable configuration and
    ``KeyboardInterrupt`` if interrupted (Ctrl-C).
    """
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise ValueError(f"runs must be an integer >= 1, not {runs!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be an integer in [0, 2**64), not {seed!r}")
    cfg = load(config, overrides)
    doc = to_core_json(cfg)
    res = Results(config=cfg, seed=seed, traces=[] if traces else None)
    for i in range(runs):
        out = _core.simulate(doc, seed, i, traces)
        tr = out.pop("traces", None)
        res.wall_time_s += float(out.pop("wall_time_s", 0.0))
        res.raw.append(out)
        res.runs.append(flatten_metrics(out))
        if res.traces is not None:
            res.traces.append(tr or {})
        if progress is not None:
            progress(i + 1, runs)
    _align(res.runs)
    names: dict[str, None] = {}
    for r in res.runs:
        names.update(dict.fromkeys(r))
    res.summary = {k: mean_ci(res.metric(k)) for k in names}
    return res
