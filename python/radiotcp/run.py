"""Run replications of a scenario and reduce them to flat per-run metrics and a summary."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _core

if TYPE_CHECKING:
    import numpy as np

    from .config import ScenarioConfig

# numpy and the configuration are imported by the functions that use them:
# `import radiotcp` (and so `radiotcp --help`) does not load them.

__all__ = ["Replication", "Replications", "Results", "Summary", "replications", "run"]


def _align(runs: list[dict[str, float]]) -> None:
    """Give every run the same metric keys: a drop reason absent from a run counted 0 there."""
    keys: dict[str, None] = {}
    for r in runs:
        keys.update(dict.fromkeys(r))
    for r in runs:
        for k in keys:
            if k not in r and k.startswith("drops."):
                r[k] = 0.0


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def same_metrics(a: Mapping[str, float], b: Mapping[str, float]) -> bool:
    """Whether two runs gave the same metrics: the same keys (a drop reason absent from one
    counts 0 there) and equal values (NaN equal to NaN)."""
    if {k for k in a if not k.startswith("drops.")} != {k for k in b if not k.startswith("drops.")}:
        return False
    return all(_same(v, b.get(k, 0.0)) for k, v in a.items()) and all(
        _same(v, a.get(k, 0.0)) for k, v in b.items() if k not in a
    )


class Summary:
    """Running aggregates of the runs' metrics, in memory that does not grow with the number
    of runs: per metric the mean, the 90 % Student-t half-width and n (:class:`MeanCI`),
    whether every run so far gave the same metrics, the core's wall time, and which runs
    ended early by their budget. :func:`run` and ``radiotcp run`` both summarise with it.

    A drop reason absent from a run counts 0 there (also in the runs before it first
    appears); any other metric absent from a run is left out of its n, as a NaN is.
    """

    def __init__(self, seed: int = 1) -> None:
        from .stats import MeanCI

        self._new = MeanCI
        self.seed = seed
        self.n_runs = 0
        self.wall_time_s = 0.0
        # Run index -> why it ended early (only the runs that did: each took a budget's worth).
        self.halted: dict[int, str] = {}
        self._acc: dict[str, MeanCI] = {}
        self._first: dict[str, float] | None = None
        self._identical = True

    def add(
        self,
        metrics: Mapping[str, float],
        wall_time_s: float = 0.0,
        halted: str | None = None,
    ) -> None:
        acc = self._acc
        for k, v in metrics.items():
            a = acc.get(k)
            if a is None:
                a = acc[k] = self._new()
                if k.startswith("drops."):
                    a.add_zeros(self.n_runs)
            a.add(float(v))
        if len(metrics) < len(acc):
            for k, a in acc.items():
                if k not in metrics and k.startswith("drops."):
                    a.add_zeros(1)
        if self._first is None:
            self._first = dict(metrics)
        elif self._identical:
            self._identical = same_metrics(self._first, metrics)
        if halted is not None:
            self.halted[self.n_runs] = halted
        self.wall_time_s += wall_time_s
        self.n_runs += 1

    @property
    def summary(self) -> dict[str, tuple[float, float, int]]:
        """metric -> ``(mean, ci90_half_width, n)``, as :func:`radiotcp.stats.mean_ci`."""
        return {k: a.result() for k, a in self._acc.items()}

    @property
    def identical(self) -> bool:
        """Two runs or more, all with the same metrics (see :attr:`Results.identical`)."""
        return self.n_runs >= 2 and self._identical

    @property
    def partial(self) -> bool:
        return bool(self.halted)


@dataclass
class Replication:
    """One finished run, as :class:`Replications` yields it: its index, its flat metrics, what
    else the core returned (``raw``: without metrics, traces and timing), its traces (when
    asked for), why it ended early (None: it did not) and the core's wall time."""

    index: int
    metrics: dict[str, float]
    raw: dict[str, Any]
    traces: dict[str, dict[str, np.ndarray]] | None
    halted: str | None
    wall_time_s: float


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

    It keeps every run; :func:`replications` with a :class:`Summary` gives the same summary
    in memory that does not grow with the number of runs.
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
    def n_runs(self) -> int:
        return len(self.runs)

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
        first = self.runs[0]
        return all(same_metrics(first, r) for r in self.runs[1:])

    def metric(self, name: str) -> np.ndarray:
        """Values of one metric over the runs (NaN where a run lacks it)."""
        import numpy as np

        return np.array([r.get(name, math.nan) for r in self.runs], dtype=np.float64)


class Replications:
    """The runs of a scenario, one :class:`Replication` at a time as each finishes (made by
    :func:`replications`, which checks the configuration before any run). Nothing of a run
    is kept once it has been yielded."""

    def __init__(
        self,
        config: ScenarioConfig,
        seed: int,
        runs: int,
        traces: bool,
        options: dict[str, Any],
        sim_progress: Callable[[int, float, int], None] | None,
    ) -> None:
        from .config import to_core_json

        self.config = config
        self.seed = seed
        self.runs = runs
        self._traces = traces
        self._options = options
        self._sim_progress = sim_progress
        self._doc = to_core_json(config)

    def __len__(self) -> int:
        return self.runs

    def __iter__(self) -> Iterator[Replication]:
        sim_progress = self._sim_progress
        for i in range(self.runs):
            report = None
            if sim_progress is not None:

                def report(t: float, events: int, i: int = i) -> None:
                    sim_progress(i, t, events)

            out = _core.simulate(
                self._doc, self.seed, i, self._traces, progress=report, **self._options
            )
            halted = out.pop("halted", None)
            tr = out.pop("traces", None)
            wall = float(out.pop("wall_time_s", 0.0))
            metrics = out.pop("metrics")
            yield Replication(i, metrics, out, (tr or {}) if self._traces else None, halted, wall)


def _check_counts(runs: int, seed: int) -> None:
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise ValueError(f"runs must be an integer >= 1, not {runs!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be an integer in [0, 2**64), not {seed!r}")


def replications(
    config: str | Path | Mapping[str, Any] | ScenarioConfig,
    seed: int = 1,
    runs: int = 1,
    traces: bool = False,
    *,
    overrides: Sequence[str] | Mapping[str, Any] | None = None,
    max_events: int | None = None,
    max_wall_s: float | None = None,
    sim_progress: Callable[[int, float, int], None] | None = None,
    pcap: str | Path | None = None,
    pcap_points: Sequence[str] = ("server",),
) -> Replications:
    """The runs of :func:`run`, as an iterable that yields each run as it finishes and keeps
    none: for many runs, fold them into a :class:`Summary` (and write what else is needed
    as they come) instead of holding them all. The arguments are :func:`run`'s; the
    configuration is checked here, before any run.
    """
    from .config import load

    _check_counts(runs, seed)
    cfg = load(config, overrides)
    options = {
        "max_events": max_events,
        "max_wall_s": max_wall_s,
        "pcap_dir": None if pcap is None else str(pcap),
        "pcap_points": list(pcap_points),
    }
    return Replications(cfg, seed, runs, traces, options, sim_progress)


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

    The result keeps every run (about 60 KB each with the core's per-flow detail); for very
    many runs use :func:`replications` with a :class:`Summary`, as ``radiotcp run`` does.

    Raises :class:`radiotcp.ConfigError` for an unusable configuration and
    ``KeyboardInterrupt`` if interrupted (Ctrl-C).
    """
    reps = replications(
        config,
        seed,
        runs,
        traces,
        overrides=overrides,
        max_events=max_events,
        max_wall_s=max_wall_s,
        sim_progress=sim_progress,
        pcap=pcap,
        pcap_points=pcap_points,
    )
    res = Results(config=reps.config, seed=seed, traces=[] if traces else None)
    acc = Summary(seed)
    for rep in reps:
        acc.add(rep.metrics, rep.wall_time_s, rep.halted)
        res.halted.append(rep.halted)
        res.raw.append(rep.raw)
        res.runs.append(rep.metrics)
        if res.traces is not None:
            res.traces.append(rep.traces or {})
        if progress is not None:
            progress(rep.index + 1, runs)
    _align(res.runs)
    res.summary = acc.summary
    res.wall_time_s = acc.wall_time_s
    return res
