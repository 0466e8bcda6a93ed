"""Run replications of a scenario and reduce them to flat per-run metrics and a summary."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _core

if TYPE_CHECKING:
    import numpy as np

    from .config import ScenarioConfig

# numpy and the configuration are imported by the functions that use them:
# `import radiotcp` (and so `radiotcp --help`) does not load them.

__all__ = ["Results", "run"]


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

    - ``runs``: one dict of flat scalar metrics per run, computed by the core
      (keys in docs/usage.md and ``radiotcp_core::metrics``).
    - ``raw``: the dicts returned by the core, one per run (``traces`` removed).
    - ``summary``: metric -> ``(mean, ci90_half_width, n)`` over the runs whose value is finite
      (the half-width is NaN for n < 2).
    - ``traces``: None unless traces were requested; then one dict per run,
      name -> {"time_s", "id", "value"} numpy arrays.
    - ``wall_time_s``: sum over runs of the core's wall time of the simulation proper.
    - ``config``: the resolved :class:`ScenarioConfig`; ``seed``: the base seed.
    - ``halted``: per run, None for a complete run, or why it ended early by its budget
      ("max_events", "max_wall_time"); such a run's metrics cover ``[0, duration_s]`` with the
      simulated time it reached (``raw[i]["duration_s"]``). ``partial`` is True if any did.
    """

    config: ScenarioConfig
    seed: int
    runs: list[dict[str, float]] = field(default_factory=list)
    raw: list[dict[str, Any]] = field(default_factory=list)
    summary: dict[str, tuple[float, float, int]] = field(default_factory=dict)
    traces: list[dict[str, dict[str, np.ndarray]]] | None = None
    wall_time_s: float = 0.0
    halted: list[str | None] = field(default_factory=list)

    @property
    def partial(self) -> bool:
        return any(h is not None for h in self.halted)

    @property
    def identical(self) -> bool:
        """Two runs or more, all with the same metrics: the scenario draws nothing at random
        (no loss, no fading, no start jitter), so the replications add no information and
        the interval of 0 says nothing about the spread a real network would have."""
        if len(self.runs) < 2:
            return False

        def same(a: float, b: float) -> bool:
            return a == b or (math.isnan(a) and math.isnan(b))

        first = self.runs[0]
        return all(
            r.keys() == first.keys() and all(same(r[k], first[k]) for k in first)
            for r in self.runs[1:]
        )

    def metric(self, name: str) -> np.ndarray:
        """Values of one metric over the runs (NaN where a run lacks it)."""
        import numpy as np

        return np.array([r.get(name, math.nan) for r in self.runs], dtype=np.float64)


def run(
    config: str | Path | Mapping[str, Any] | ScenarioConfig,
    seed: int = 1,
    runs: int = 1,
    traces: bool = False,
    *,
    overrides: Sequence[str] | Mapping[str, Any] | None = None,
    progress: Callable[[int, int], None] | None = None,
    max_events: int | None = None,
    max_wall_s: float | None = None,
    sim_progress: Callable[[int, float, int], None] | None = None,
    pcap: str | Path | None = None,
    pcap_points: Sequence[str] = ("server",),
) -> Results:
    """Run ``runs`` independent replications of a scenario.

    ``config`` is a TOML path, a TOML-like dict or a :class:`ScenarioConfig`; ``overrides``
    are ``--set`` style (``["flows.count=4"]`` or ``{"flows.count": 4}``). Run ``i`` uses the
    core's ``(seed, run_index=i)``, so the same seed gives the same results and runs of one
    call are independent. ``progress(done, total)`` is called after every run.

    Budget, per run: ``max_events`` and ``max_wall_s`` end a run early with the statistics so
    far (``Results.halted`` says which runs and why); None = no limit.
    ``sim_progress(run_index, simulated_s, events)`` is called during each run, at most every
    0.2 s of wall time.

    ``pcap``: a directory; every run writes ``<point>-run<i>.pcap`` there for each of
    ``pcap_points`` ("server", "ue", or a link's name): IPv4/TCP headers of every packet seen
    there, in simulated time (docs/usage.md, "pcap export"). ``raw[i]["pcap"]`` lists the
    files with their packet counts. OSError if a file cannot be written.

    Raises :class:`radiotcp.ConfigError` for an unusable configuration and
    ``KeyboardInterrupt`` if interrupted (Ctrl-C).
    """
    from .config import load, to_core_json
    from .stats import mean_ci

    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise ValueError(f"runs must be an integer >= 1, not {runs!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be an integer in [0, 2**64), not {seed!r}")
    cfg = load(config, overrides)
    doc = to_core_json(cfg)
    res = Results(config=cfg, seed=seed, traces=[] if traces else None)
    for i in range(runs):
        report = None
        if sim_progress is not None:

            def report(t: float, events: int, i: int = i) -> None:
                sim_progress(i, t, events)

        out = _core.simulate(
            doc,
            seed,
            i,
            traces,
            max_events=max_events,
            max_wall_s=max_wall_s,
            progress=report,
            pcap_dir=None if pcap is None else str(pcap),
            pcap_points=list(pcap_points),
        )
        res.halted.append(out.pop("halted", None))
        tr = out.pop("traces", None)
        res.wall_time_s += float(out.pop("wall_time_s", 0.0))
        res.raw.append(out)
        res.runs.append(out.pop("metrics"))
        if res.traces is not None:
            res.traces.append(tr or {})
        if progress is not None:
            progress(i + 1, runs)
    _align(res.runs)
    names: dict[str, None] = {}
    for r in res.runs:
        names.update(dict.fromkeys(r))
    # Plain floats: the summary needs no numpy (`radiotcp run` does not import it).
    res.summary = {k: mean_ci([r.get(k, math.nan) for r in res.runs]) for k in names}
    return res
