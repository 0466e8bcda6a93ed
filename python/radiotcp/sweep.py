"""Parameter sweeps with replications: expansion, seeds, execution, resumption, aggregation.

A sweep is a base scenario, fixed settings (``set``), a cartesian grid (``grid``), zipped
lists (``zip`` and ``zips``, axes whose lists advance together), and ``runs`` replications per
point. Run ``r`` of a point uses the seed derived from (base seed, the point's resolved
configuration) and run index ``r``: the same configuration gets the same seeds whatever grid,
sweep or recipe it appears in, so it gives the same numbers everywhere. Every run is stored
in the results store under a key of its full configuration, so a repeated or interrupted
sweep computes only what is missing.

Execution is local (a pool of threads over all cores by default, the core releasing the GIL
for each chunk of runs, or in-process with ``jobs=1``) or on a Dask cluster (``cluster=`` a
scheduler address or a ``Client``); the results are identical because every run is a pure
function of its configuration and seed.
"""

from __future__ import annotations

import csv
import hashlib
import itertools
import json
import math
import os
import tomllib
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from . import _core
from ._lifetime import termination_raises
from ._worker import Done, Task, run_chunk
from .config import (
    load,
    load_toml,
    parse_override,
    read_toml_text,
    to_dict,
)
from .errors import ConfigError
from .fileerrors import file_problems
from .stats import mean_ci
from .store import RunRecord, Store, canonical

__all__ = [
    "PlannedPoint",
    "PlannedRun",
    "SweepPlan",
    "SweepResult",
    "SweepSpec",
    "build_version",
    "derive_seed",
    "expand_points",
    "iter_points",
    "load_sweep",
    "plan",
    "plan_points",
    "run_sweep",
    "write_csv",
]


class SweepSpec(BaseModel):
    """A sweep file (TOML). Paths are relative to the file that names them."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(
        pattern=r"^[A-Za-z0-9_.-]+$",
        description="Name of the sweep in the results store (letters, digits, '_', '-', '.').",
    )
    base: str | None = Field(
        None, description="Scenario TOML the sweep starts from; unset = built-in defaults."
    )
    runs: int = Field(20, ge=1, description="Replications per point.")
    seed: int = Field(1, ge=0, lt=2**64, description="Base seed; point seeds derive from it.")
    set: dict[str, Any] = Field(
        default_factory=dict, description="Settings applied to every point (dotted keys)."
    )
    grid: dict[str, list[Any]] = Field(
        default_factory=dict, description="Cartesian product of these value lists."
    )
    zip: dict[str, list[Any]] = Field(
        default_factory=dict,
        description="Lists of equal length taken together as one more axis of the grid.",
    )
    zips: list[dict[str, list[Any]]] = Field(
        default_factory=list,
        description="More zipped axes, each like `zip` (e.g. configurations x one factor at a "
        "time). In any axis a key starting with '_' is a label of the point, not a setting.",
    )

    @model_validator(mode="after")
    def _axes(self) -> SweepSpec:
        for k, v in self.grid.items():
            if not v:
                raise ValueError(f"grid.{k}: expected a non-empty list of values")
        seen = set(self.grid)
        for name, z in [("zip", self.zip)] + [(f"zips.{i}", z) for i, z in enumerate(self.zips)]:
            lengths = {k: len(v) for k, v in z.items()}
            if len(set(lengths.values())) > 1:
                raise ValueError(f"{name}: all lists must have the same length, got {lengths}")
            if z and not next(iter(lengths.values())):
                raise ValueError(f"{name}: lists must not be empty")
            both = seen & set(z)
            if both:
                raise ValueError(f"keys on two axes ({name}): {sorted(both)}")
            seen |= set(z)
        return self


def load_sweep(
    source: str | Path | Mapping[str, Any],
    *,
    runs: int | None = None,
    seed: int | None = None,
    overrides: Sequence[str] = (),
) -> tuple[SweepSpec, Path]:
    """Read and validate a sweep file (or dict); returns the spec and the folder that relative
    paths start from. ``runs``/``seed`` replace the file's; ``overrides`` (``key=value``) are
    added to its ``set``."""
    if isinstance(source, Mapping):
        raw, base_dir = dict(source), Path.cwd()
    else:
        path = Path(source)
        try:
            raw = tomllib.loads(read_toml_text(path, "sweep"))
        except tomllib.TOMLDecodeError as e:
            raise ConfigError("<file>", str(path), f"valid TOML ({e})") from None
        base_dir = path.resolve().parent
    if runs is not None:
        raw["runs"] = runs
    if seed is not None:
        raw["seed"] = seed
    if overrides:
        raw["set"] = {**raw.get("set", {}), **dict(parse_override(o) for o in overrides)}
    try:
        spec = SweepSpec.model_validate(raw)
    except ValidationError as e:
        where = "" if isinstance(source, Mapping) else str(source)
        raise file_problems(e, SweepSpec, raw, where, "sweep") from None
    return spec, base_dir


def _axes(spec: SweepSpec) -> list[list[dict[str, Any]]]:
    axes: list[list[dict[str, Any]]] = [[{k: v} for v in vals] for k, vals in spec.grid.items()]
    for z in [spec.zip, *spec.zips]:
        if z:
            n = len(next(iter(z.values())))
            axes.append([{k: vals[i] for k, vals in z.items()} for i in range(n)])
    return axes


def count_points(spec: SweepSpec) -> int:
    """The number of points of the sweep, without listing them."""
    return math.prod(len(axis) for axis in _axes(spec))


def iter_points(spec: SweepSpec) -> Iterator[dict[str, Any]]:
    """The sweep's points one at a time: the cartesian product of the grid axes (in file
    order), the zip axis and the `zips` axes, each point a dict of dotted key -> value. No
    axes: one point with no parameters."""
    for combo in itertools.product(*_axes(spec)):
        p: dict[str, Any] = {}
        for part in combo:
            p.update(part)
        yield p


def expand_points(spec: SweepSpec) -> list[dict[str, Any]]:
    """The sweep's points as a list (see :func:`iter_points`)."""
    return list(iter_points(spec))


def build_version() -> str:
    """The version that keys stored runs: the release plus the core's source fingerprint, so
    results computed by a different model are never reused (``0.2.0+1f3a...``)."""
    return f"{_core.version()}+{_core.source_hash()}"


def derive_seed(base_seed: int, config: Mapping[str, Any]) -> int:
    """A point's seed: 63 bits of SHA-256 over (base seed, the point's resolved configuration).

    The configuration, not the sweep's parameter names: a configuration reached through
    different keys, grids or recipes (a baseline in two recipes, a `_label`ed row) gets the
    same seeds and so the same results, and documents quoting it cannot disagree."""
    doc = json.dumps({"seed": base_seed, "config": config}, sort_keys=True, default=str)
    return int.from_bytes(hashlib.sha256(doc.encode()).digest()[:8], "big") >> 1


@dataclass(frozen=True)
class PlannedRun:
    key: str
    point: int
    params: dict[str, Any]
    config: dict[str, Any]
    config_json: str
    seed: int
    run_index: int


@dataclass(frozen=True)
class PlannedPoint:
    """One point of a sweep, resolved: its parameters, configuration (as a dict, as the core's
    JSON and in the canonical form hashed into run keys) and seed. Its runs are derived from
    it when they are needed (:meth:`key`), never listed ahead."""

    point: int
    params: dict[str, Any]
    config: dict[str, Any]
    config_json: str
    canon: str
    seed: int

    @cached_property
    def _key_head(self) -> Any:
        # SHA-256 of the run key's document up to the run index (the configuration, a few KB,
        # is the same for every run of the point): hashed once, copied for each run.
        return hashlib.sha256(f'{{"config":{self.canon},"run_index":'.encode())

    def key(self, run_index: int, version: str) -> str:
        """The run's key: :func:`radiotcp.store.run_key` of (configuration, seed, run index,
        version), the point's part hashed once."""
        h = self._key_head.copy()
        h.update(
            f'{int(run_index)},"seed":{int(self.seed)},"version":{json.dumps(version)}}}'.encode()
        )
        return h.hexdigest()


@dataclass(frozen=True)
class SweepPlan:
    """A sweep with every point resolved and checked, and its runs not yet listed: what
    :func:`run_sweep` works from. ``points`` are the distinct points: a point whose resolved
    configuration an earlier point already has shares that point's runs and is left out
    (its parameters differ only in labels)."""

    spec: SweepSpec
    points: list[PlannedPoint]
    version: str

    @property
    def runs(self) -> int:
        """Runs of the whole sweep (points x replications)."""
        return len(self.points) * self.spec.runs

    def estimate(self) -> tuple[float, float]:
        """The work of every run of the sweep, as the core estimates it (``radiotcp.cost``):
        (events, wall time in seconds on one core of the reference machine)."""
        return self._estimate

    @cached_property
    def _estimate(self) -> tuple[float, float]:
        # Once per plan: the work limit (`check`) and the chunk sizes both ask.
        events = wall = 0.0
        for p in self.points:
            e, w = _core.estimate_cost(p.config_json)
            events += e * self.spec.runs
            wall += w * self.spec.runs
        return events, wall

    def fingerprint(self) -> str:
        """What the sweep's run keys depend on (every point's configuration, seed and
        parameters, the build and the replications): equal fingerprints, equal members."""
        h = hashlib.sha256(f"{self.version}\n{self.spec.runs}\n".encode())
        for p in self.points:
            h.update(f"{p.point}\n{canonical(p.params)}\n{p.seed}\n{p.canon}\n".encode())
        return h.hexdigest()

    def iter_runs(self) -> Iterator[PlannedRun]:
        """Every run, point by point (the whole list is points x runs long: iterate it)."""
        for p in self.points:
            for r in range(self.spec.runs):
                yield PlannedRun(
                    p.key(r, self.version), p.point, p.params, p.config, p.config_json, p.seed, r
                )


def plan_points(spec: SweepSpec, base_dir: Path) -> SweepPlan:
    """Resolve and validate every point (all problems of all points reported together); the
    runs are not listed (memory in the number of points, not of runs)."""
    base: Any = None
    if spec.base is not None:
        base = load_toml(base_dir / spec.base)
    points: list[PlannedPoint] = []
    seen: set[tuple[str, int]] = set()
    problems: list[ConfigError] = []
    for i, params in enumerate(iter_points(spec)):
        try:
            # Keys starting with "_" label a point (names for tables and figures); they are
            # parameters of the point (and of its seed) but not settings.
            settings = {k: v for k, v in params.items() if not k.startswith("_")}
            cfg = load(base, {**spec.set, **settings})
        except ConfigError as e:
            where = ", ".join(f"{k}={v!r}" for k, v in params.items()) or "the base"
            problems.extend(
                ConfigError(p.key, p.value, f"{p.allowed} (point {i}: {where})") for p in e.problems
            )
            continue
        config = to_dict(cfg)
        canon = canonical(config)
        seed = derive_seed(spec.seed, config)
        if (canon, seed) in seen:
            continue
        seen.add((canon, seed))
        # The core's document is the configuration dict as JSON (`to_core_json`, without
        # converting the resolved scenario to a dict a second time).
        points.append(
            PlannedPoint(i, params, config, json.dumps(config, allow_nan=False), canon, seed)
        )
    if problems:
        raise ConfigError.from_problems(problems)
    return SweepPlan(spec, points, build_version())


def plan(spec: SweepSpec, base_dir: Path) -> list[PlannedRun]:
    """Resolve and validate every point and list every run of the sweep (points x runs
    entries; :func:`run_sweep` iterates them from :func:`plan_points` instead)."""
    return list(plan_points(spec, base_dir).iter_runs())


# ----------------------------------------------------------------------------------------------
# Results of a sweep
# ----------------------------------------------------------------------------------------------


def _metric_names(records: Sequence[RunRecord]) -> list[str]:
    names: dict[str, None] = {}
    for r in records:
        names.update(dict.fromkeys(r.metrics))
    return list(names)


@dataclass
class SweepResult:
    """The stored runs of a sweep: ``rows()`` one per run, ``points()`` one per point."""

    name: str
    records: list[RunRecord]
    expected: int
    computed: int = 0
    wall_time_s: float = 0.0
    # Of the runs computed now: CPU seconds of their simulations (each run's thread time in
    # its worker, however busy the machine) and the chunks they were sent in.
    cpu_time_s: float = 0.0
    chunks: int = 0

    @cached_property
    def metrics(self) -> list[str]:
        """Every metric name found in the runs (parsing them on first use)."""
        return _metric_names(self.records)

    def _value(self, r: RunRecord, m: str) -> float:
        # A drop reason that never occurred in a run is 0 there, not missing.
        return float(r.metrics.get(m, 0.0 if m.startswith("drops.") else math.nan))

    def rows(self) -> list[dict[str, Any]]:
        """One flat row per run: point, parameters, seed, run_index, every metric."""
        out = []
        for r in self.records:
            row: dict[str, Any] = {"point": r.point, **r.params}
            row.update(seed=r.seed, run_index=r.run_index)
            row.update({m: self._value(r, m) for m in self.metrics})
            out.append(row)
        return out

    def points(self, metrics: Container[str] | None = None) -> list[dict[str, Any]]:
        """One row per point: parameters, ``runs``, ``identical`` (two runs or more, all with
        the same metrics: the point draws nothing at random, so its interval of 0 says
        nothing, as ``Results.identical``), and ``<metric>``, ``<metric>.ci90``,
        ``<metric>.n`` (mean, 90% Student-t half-width, finite samples) for every metric,
        or only for those in ``metrics`` (the same values: each metric is aggregated alone).

        Computed once (a report or a document asks several times, and a sweep of thousands of
        runs and a hundred metrics takes seconds); each call returns fresh row dicts. Rows of
        some metrics are computed at each call (a document's tables read a few of the
        hundreds of metrics an LTE run gives)."""
        if metrics is not None:
            return self._aggregate([m for m in self.metrics if m in metrics])
        return [dict(row) for row in self._points]

    @cached_property
    def _points(self) -> list[dict[str, Any]]:
        return self._aggregate(self.metrics)

    def _aggregate(self, names: Sequence[str]) -> list[dict[str, Any]]:
        from .run import same_metrics

        by_point: dict[int, list[RunRecord]] = {}
        for r in self.records:
            by_point.setdefault(r.point, []).append(r)
        # As `_value` (a drop reason that never occurred in a run is 0 there, not missing),
        # with the default of each metric found once rather than once per run.
        metrics = [(m, 0.0 if m.startswith("drops.") else math.nan) for m in names]
        out = []
        for p, recs in sorted(by_point.items()):
            first = recs[0]
            identical = len(recs) >= 2 and all(
                r.metrics_json == first.metrics_json or same_metrics(first.metrics, r.metrics)
                for r in recs[1:]
            )
            row: dict[str, Any] = {
                "point": p,
                **first.params,
                "runs": len(recs),
                "identical": identical,
            }
            runs = [r.metrics for r in recs]
            for m, default in metrics:
                mean, half, n = mean_ci([float(r.get(m, default)) for r in runs])
                row[m] = mean
                row[f"{m}.ci90"] = half
                row[f"{m}.n"] = n
            out.append(row)
        return out

    def param_names(self) -> list[str]:
        names: dict[str, None] = {}
        for r in self.records:
            names.update(dict.fromkeys(r.params))
        return list(names)

    def plot_points(self, metrics: Sequence[str]) -> list[dict[str, Any]]:
        """The points in the form the plotting functions (:mod:`radiotcp.plots`) take: the
        parameters, and metric -> {mean, ci90_half_width, n} for each of ``metrics``."""
        out = []
        for row in self.points():
            p: dict[str, Any] = {k: row[k] for k in self.param_names()}
            for m in metrics:
                p[m] = {
                    "mean": row.get(m, math.nan),
                    "ci90_half_width": row.get(f"{m}.ci90", math.nan),
                    "n": row.get(f"{m}.n", 0),
                }
            out.append(p)
        return out


def write_csv(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    """Write ``rows`` (``SweepResult.rows()`` or ``points()``) as CSV; the columns are every
    key of the rows, in the order first seen."""
    cols: dict[str, None] = {}
    for r in rows:
        cols.update(dict.fromkeys(r))
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(cols))
        w.writeheader()
        w.writerows(rows)


def read_sweep(store: Store, name: str) -> SweepResult:
    """The sweep as stored (possibly incomplete)."""
    records = list(store.sweep_runs(name))
    info = next((s for s in store.sweeps() if s["name"] == name), None)
    if info is None:
        known = ", ".join(s["name"] for s in store.sweeps()) or "none"
        raise ConfigError("sweep", name, f"a sweep in the store {store.path} (known: {known})")
    return SweepResult(name=name, records=records, expected=int(info["expected"]))


# ----------------------------------------------------------------------------------------------
# Execution
# ----------------------------------------------------------------------------------------------


# What handing a chunk to a worker costs (CPU seconds, driver and worker together), measured on
# the 2-core reference machine: a local pool's queue and the commit of its results, and Dask's
# scheduler, client and worker (4-5 ms on each side per task when the machine is busy).
LOCAL_TASK_S = 0.0005
DASK_TASK_S = 0.005
# The most work (estimated seconds) in one chunk: the progress moves and an interruption
# loses at most this much per chunk in flight.
CHUNK_MAX_S = 2.0
# What a run costs besides its simulation (the binding, its metrics as JSON, its store row),
# added to the core's estimate, which counts the simulation only.
RUN_OVERHEAD_S = 0.0002


class _RunTime:
    """A run's cost as the chunks are sized: the core's estimate of its wall time until runs
    have finished, then the CPU time they took in the workers (plus RUN_OVERHEAD_S), which
    the machine's load does not change as it does wall time. The estimate is only meant to
    be right within a factor of 3 (it is 3-4x high for the wired presets and 5-10x for UMTS on
    the reference machine): chunks sized by it alone were several times smaller than their
    lower bound, and so more numerous (on Dask, 15 tasks for the 200-run UMTS sweep where
    10 do)."""

    def __init__(self, estimate_s: float) -> None:
        self.estimate_s = max(estimate_s, 1e-6)
        self.runs = 0
        self.cpu_s = 0.0

    def add(self, cpu_s: Iterable[float]) -> None:
        for c in cpu_s:
            self.runs += 1
            self.cpu_s += c

    @property
    def seconds(self) -> float:
        if not self.runs:
            return self.estimate_s
        return max(self.cpu_s / self.runs + RUN_OVERHEAD_S, 1e-6)


def _chunks(
    tasks: Iterable[Task], total: int, workers: int, run_s: _RunTime, task_s: float
) -> Iterator[list[Task]]:
    """``tasks`` (at most ``total`` of them) in chunks taken from the iterable as they are
    needed, each 1/(2 x workers) of what is left (guided self-scheduling): big chunks first,
    ever smaller ones towards the end, so that no worker is left alone with a big chunk
    while the others idle. ``run_s`` is a run's cost (estimated, then measured: read as
    each chunk is made) and ``task_s`` what a chunk costs to hand out: a chunk holds at
    least 10 x ``task_s`` of work (its dispatch then costs at most a tenth) and at most
    CHUNK_MAX_S. Once that floor exceeds an equal share of what is left, what is left goes
    in equal chunks, one per worker."""
    it = iter(tasks)
    left = total
    workers = max(1, workers)
    final = 0
    while True:
        one = run_s.seconds
        smallest = max(1, math.ceil(10 * task_s / one))
        largest = max(smallest, math.floor(CHUNK_MAX_S / one))
        # Near the end the floor made one big last chunk: in the 720-run wired sweep on a
        # Dask cluster of 2 workers (floor 89 runs, some 40 ms), the last 95 runs went as 89
        # and 6, and one worker idled for 30 ms, a seventh of the sweep, while the other ran
        # the 89. Split into one chunk per worker (48 and 47), they take as many dispatches
        # and end together.
        if not final and left <= workers * smallest:
            final = max(1, math.ceil(left / workers))
        size = final or min(largest, max(smallest, math.ceil(left / (2 * workers))))
        chunk = list(itertools.islice(it, size))
        if not chunk:
            return
        left -= len(chunk)
        yield chunk


def _run_local(chunks: Iterable[list[Task]], jobs: int) -> Iterator[list[Done]]:
    """Run the chunks on `jobs` cores: `jobs - 1` worker threads plus this thread, which runs
    chunks itself whenever no worker result is waiting. The core releases the GIL for a whole
    chunk (``_core.simulate_chunk``), so the threads' runs proceed in parallel and a worker
    takes the GIL only to start and end a chunk. Threads rather than processes: nothing is
    forked, pickled or sent through a pipe, and nothing outlives the driver, whatever ends it
    (the 720-run wired sweep: 79 -> 87-89 % of 2 cores, docs/experiments.md). The driver's
    own work (storing results) shares a core with its simulations instead of competing with
    `jobs` workers for `jobs` cores."""
    if jobs <= 1:
        for c in chunks:
            yield run_chunk(c)
        return
    todo = iter(chunks)
    # Set when the sweep ends early (Ctrl-C, SIGTERM: see run_sweep; an error; the consumer
    # closing this generator): the workers' runs stop within a few thousand events, rather
    # than the driver waiting for their chunks.
    stop = _core.StopFlag()
    pool = ThreadPoolExecutor(max_workers=jobs - 1, thread_name_prefix=WORKER_THREAD)
    finished = False
    try:
        # Two chunks queued per worker keep it busy while the driver stores results.
        pending = {pool.submit(run_chunk, c, stop) for c in itertools.islice(todo, 2 * (jobs - 1))}
        local = next(todo, None)
        while pending or local is not None:
            # `ready`, not `finished`: a non-empty set would read as a normal end in the
            # `finally` below if the consumer stopped at a yield (Ctrl-C while a chunk's
            # results were stored), which then waited for the workers' chunks.
            ready = {f for f in pending if f.done()}
            if not ready and local is None:
                ready, _ = wait(pending, return_when=FIRST_COMPLETED)
            for f in ready:
                pending.discard(f)
                nxt = next(todo, None)
                if nxt is not None:
                    pending.add(pool.submit(run_chunk, nxt, stop))
                yield f.result()
            if not ready and local is not None:
                yield run_chunk(local)
                local = next(todo, None)
        finished = True
    finally:
        if not finished:
            _stop_workers(stop)
        pool.shutdown(wait=True, cancel_futures=True)


# The name of the local pool's worker threads (with a number).
WORKER_THREAD = "radiotcp-sweep"


def _stop_workers(stop: _core.StopFlag) -> None:
    """End the worker threads' chunks: their runs in progress stop at their next check (a few
    thousand events), their queued chunks do not start, nothing of them is stored."""
    stop.set()


def _run_dask(
    chunks_for: Callable[[int], Iterable[list[Task]]], cluster: Any
) -> Iterator[list[Done]]:
    """Run chunks on a Dask cluster: ``chunks_for(threads)`` makes them for the cluster's
    worker threads; three per thread are in flight at a time, the next submitted as each
    finishes, so the work list is never all in memory, here or on the scheduler."""
    from distributed import Client, as_completed

    client = cluster if isinstance(cluster, Client) else Client(cluster)
    try:
        threads = max(1, sum(client.nthreads().values()))
        todo = iter(chunks_for(threads))
        pending = {
            client.submit(run_chunk, c, pure=False) for c in itertools.islice(todo, 3 * threads)
        }
        done = as_completed(pending)
        try:
            for fut in done:
                pending.discard(fut)
                nxt = next(todo, None)
                if nxt is not None:
                    new = client.submit(run_chunk, nxt, pure=False)
                    pending.add(new)
                    done.add(new)
                yield fut.result()
        finally:
            if pending:
                client.cancel(list(pending))
    finally:
        if client is not cluster:
            client.close()


# Runs whose keys are made, recorded as members and looked up in the store at once, as the
# work list reaches them.
_BATCH = 500


class _Pending:
    """The runs of a sweep that the store lacks, found in order as they are needed: each batch
    of run keys is recorded as members of the sweep and looked up in the store, and the
    missing runs are yielded as tasks. ``stored`` counts the runs found already done."""

    def __init__(self, sp: SweepPlan, store: Store) -> None:
        self.sp = sp
        self.store = store
        self.stored = 0
        # The tasks handed out and not yet finished: key -> (point, run index, config hash).
        self.by_key: dict[str, tuple[PlannedPoint, int, str]] = {}
        # The runs computed, as the sweep's result, while no run was found stored (reading
        # them back from the store at the end took 8 ms of the 720-run wired sweep, with one
        # core idle).
        self.records: list[RunRecord] | None = []
        self._params: dict[int, dict[str, Any]] = {}

    def _runs(self) -> Iterator[tuple[PlannedPoint, int]]:
        for p in self.sp.points:
            for r in range(self.sp.spec.runs):
                yield p, r

    def __iter__(self) -> Iterator[Task]:
        sp, name = self.sp, self.sp.spec.name
        config_hash: dict[int, str] = {}
        runs = self._runs()
        # Batches across points: a sweep of a few runs per point costs a few transactions.
        while batch := list(itertools.islice(runs, _BATCH)):
            keyed = [(p, r, p.key(r, sp.version)) for p, r in batch]
            self.store.add_members(
                name, ((k, p.point, p.params) for p, _, k in keyed), replace=False
            )
            have = self.store.existing(k for _, _, k in keyed)
            self.stored += len(have)
            if have:
                self.records = None
            todo = [(p, r, k) for p, r, k in keyed if k not in have]
            # The configurations of the batch's points, stored in one transaction (a commit
            # each was 36 of the 55 commits of the 720-run wired sweep on 2 cores).
            new = {p.point: p for p, _, _ in todo if p.point not in config_hash}
            hashes = self.store.put_configs(p.config_json for p in new.values())
            config_hash.update(zip(new, hashes, strict=True))
            for p, r, key in todo:
                self.by_key[key] = (p, r, config_hash[p.point])
                yield (key, p.config_json, p.seed, r)

    def row(self, done: Done) -> tuple[str, str, int, int, str, str, float]:
        """The store row of a finished run (its task forgotten)."""
        key, metrics, wall, _cpu = done
        p, r, config_hash = self.by_key.pop(key)
        if self.records is not None:
            params = self._params.get(p.point)
            if params is None:
                # As the store gives them back: its canonical JSON, parsed.
                params = self._params[p.point] = json.loads(canonical(p.params))
            self.records.append(RunRecord(key, p.point, params, p.seed, r, metrics, wall))
        return (key, config_hash, p.seed, r, self.sp.version, metrics, wall)

    def result(self) -> SweepResult:
        """The sweep's runs: when none was in the store before, those computed now (kept as
        they were stored, so the store need not be read back), else the store's."""
        if self.records is None or self.stored:
            return read_sweep(self.store, self.sp.spec.name)
        records = sorted(self.records, key=lambda r: (r.point, r.run_index))
        return SweepResult(name=self.sp.spec.name, records=records, expected=self.sp.runs)


def run_sweep(
    spec: SweepSpec,
    base_dir: Path,
    store: Store,
    *,
    jobs: int | None = None,
    cluster: Any = None,
    progress: Callable[[int, int], None] | None = None,
    check: Callable[[SweepPlan], None] | None = None,
    planned: SweepPlan | None = None,
) -> SweepResult:
    """Run what the store lacks of a sweep and return all of it.

    ``jobs``: cores of the local pool (default: all; 1 = in this thread only). ``cluster``: a
    Dask scheduler address or ``distributed.Client`` instead of the local pool.
    ``check(plan)`` is called once every point is resolved, before the store is written or a
    run starts (``radiotcp reproduce`` refuses too much work there). ``planned``: the spec's
    points already resolved (:func:`plan_points`), not resolved again.
    ``progress(done, total)`` is called at once and as chunks finish: ``total`` is every run
    of the sweep, ``done`` those in the store (found there or computed now).

    The work list is made as the workers need it (runs keyed, recorded as members of the
    sweep and looked up in the store 500 at a time), so that memory and the time to the first
    run do not grow with points x runs. Each finished chunk
    is committed before the next is awaited, so an interruption loses at most the chunks in
    flight. No worker outlives the call: Ctrl-C (``KeyboardInterrupt``), SIGTERM or SIGHUP
    (:class:`radiotcp._lifetime.Terminated`, raised here when the signal's handling was the
    default) stop the pool's threads and propagate; the local workers are threads of this
    process, so they end with it whatever kills it.
    """
    sp = planned if planned is not None else plan_points(spec, base_dir)
    if check is not None:
        check(sp)
    # The stored membership is kept when the sweep is the same (same points, configurations,
    # build and replications: a resumed sweep); otherwise it is rebuilt as the runs are reached.
    store.register_sweep(
        spec.name,
        {**spec.model_dump(mode="json"), "plan": sp.fingerprint()},
        len(sp.points),
        spec.runs,
    )
    jobs = jobs or os.cpu_count() or 1
    pending = _Pending(sp, store)
    run_s = _RunTime(sp.estimate()[1] / max(1, sp.runs) + RUN_OVERHEAD_S)
    results: Iterable[list[Done]] = (
        _run_dask(lambda n: _chunks(pending, sp.runs, n, run_s, DASK_TASK_S), cluster)
        if cluster is not None
        else _run_local(_chunks(pending, sp.runs, jobs, run_s, LOCAL_TASK_S), jobs)
    )
    done = chunks = 0
    wall = cpu = 0.0
    if progress is not None:
        progress(0, sp.runs)
    with termination_raises():
        try:
            for batch in results:
                store.put_runs([pending.row(d) for d in batch])
                cpus = [c for *_, c in batch]
                run_s.add(cpus)
                cpu += sum(cpus)
                wall += sum(w for _, _, w, _ in batch)
                done += len(batch)
                chunks += 1
                if progress is not None:
                    progress(pending.stored + done, sp.runs)
        finally:
            # Now, not when the generator is collected: its cleanup ends the workers.
            close = getattr(results, "close", None)
            if close is not None:
                close()
    if progress is not None:
        progress(pending.stored + done, sp.runs)
    res = pending.result()
    res.computed = done
    res.wall_time_s = wall
    res.cpu_time_s = cpu
    res.chunks = chunks
    return res


# ----------------------------------------------------------------------------------------------
# Several sweeps through one pool
# ----------------------------------------------------------------------------------------------


@dataclass
class SweepsRun:
    """What :func:`run_sweeps` did: distinct runs of all the sweeps, those found in the store,
    those computed now (a run that several sweeps share counts once), their simulations' CPU
    seconds and the chunks they were sent in."""

    runs: int = 0
    stored: int = 0
    computed: int = 0
    cpu_time_s: float = 0.0
    chunks: int = 0


class _Scale:
    """Measured CPU per run over estimated cost, of the runs finished so far (1 before any):
    what turns the costs the runs were ordered by into seconds when the chunks are sized. The
    core's estimate is 3-10x high (see :class:`_RunTime`); stored run times are about right."""

    def __init__(self) -> None:
        self.estimated = 0.0
        self.measured = 0.0

    def add(self, estimated: float, measured: float) -> None:
        self.estimated += estimated
        self.measured += measured

    @property
    def factor(self) -> float:
        if self.estimated <= 0.0 or self.measured <= 0.0:
            return 1.0
        return self.measured / self.estimated


def _chunks_by_cost(
    tasks: Sequence[tuple[Task, float]], workers: int, scale: _Scale, task_s: float
) -> Iterator[list[Task]]:
    """``tasks`` (each with its estimated cost, longest first) in chunks of 1/(2 x workers)
    of the estimated work left (guided self-scheduling by cost rather than by count, since
    the runs of several sweeps differ a hundredfold): big chunks of the long runs first,
    ever smaller ones towards the end, of at least 10 x ``task_s`` and at most CHUNK_MAX_S
    of work (as :func:`_chunks`; a run longer than that is a chunk alone), the costs
    converted to seconds by ``scale`` as each chunk is made; the last ones an equal share of
    what is left each, once the floor exceeds it (as :func:`_chunks`)."""
    left = sum(c for _, c in tasks)
    i, n = 0, len(tasks)
    workers = max(1, workers)
    final = 0.0
    while i < n:
        f = scale.factor
        if not final and f * left <= workers * 10 * task_s:
            final = f * left / workers
        target = final or min(CHUNK_MAX_S, max(10 * task_s, f * left / (2 * workers)))
        chunk: list[Task] = []
        work = 0.0
        # At most the target (a relative 1e-9 allowed for rounding), at least one run.
        while i < n and (not chunk or work + f * tasks[i][1] <= target * (1 + 1e-9)):
            task, cost = tasks[i]
            chunk.append(task)
            work += f * cost
            left -= cost
            i += 1
        yield chunk


def run_sweeps(
    plans: Sequence[SweepPlan],
    store: Store,
    *,
    jobs: int | None = None,
    cluster: Any = None,
    progress: Callable[[int, int], None] | None = None,
    complete: Callable[[int], None] | None = None,
) -> SweepsRun:
    """Run what the store lacks of several sweeps through ONE pool (or cluster), longest
    runs first, so that no core idles at the end of one sweep while the next is planned or
    its pool starts; read each sweep's results afterwards with :func:`stored_result`.

    Each sweep is registered and its runs recorded as its members as :func:`run_sweep` does
    (in the order of ``plans``), so the store ends as if they had been run one by one. A run
    that several sweeps share (the same configuration, seed and run index: a baseline in two
    recipes) is computed once. A run's cost, for the order and the chunk sizes, is the mean
    time of the stored runs of its configuration (from any build), else the core's estimate.
    ``progress(done, total)`` counts distinct runs: ``done`` those in the store.
    ``complete(i)`` is called once every run of ``plans[i]`` is in the store (at once for a
    sweep found complete, else as its last run is stored, while the pool works on): what
    reads the sweep back can then overlap the other sweeps' runs rather than follow them.
    """
    todo: dict[str, tuple[PlannedPoint, int, str]] = {}
    seen: set[str] = set()
    # The plans each missing run belongs to, and how many missing runs each plan has.
    needed_by: dict[str, list[int]] = {}
    missing = [0] * len(plans)
    out = SweepsRun()
    for i, sp in enumerate(plans):
        spec = sp.spec
        store.register_sweep(
            spec.name,
            {**spec.model_dump(mode="json"), "plan": sp.fingerprint()},
            len(sp.points),
            spec.runs,
        )
        runs = ((p, r) for p in sp.points for r in range(spec.runs))
        while batch := list(itertools.islice(runs, _BATCH)):
            keyed = [(p, r, p.key(r, sp.version)) for p, r in batch]
            store.add_members(
                spec.name, ((k, p.point, p.params) for p, _, k in keyed), replace=False
            )
            for _, _, k in keyed:
                if k in needed_by:  # missing, found in an earlier plan or batch
                    needed_by[k].append(i)
                    missing[i] += 1
            new = [(p, r, k) for p, r, k in keyed if k not in seen]
            seen.update(k for _, _, k in new)
            have = store.existing(k for _, _, k in new)
            out.stored += len(have)
            for p, r, k in new:
                if k not in have:
                    todo[k] = (p, r, sp.version)
                    needed_by[k] = [i]
                    missing[i] += 1
    out.runs = out.stored + len(todo)
    if progress is not None:
        progress(out.stored, out.runs)
    if complete is not None:
        for i, n in enumerate(missing):
            if n == 0:
                complete(i)
    if not todo:
        return out

    # Per distinct configuration: its hash in the store (stored once) and a run's cost.
    history = store.run_times()
    docs = list(dict.fromkeys(p.config_json for p, _, _ in todo.values()))
    # One transaction for them all, not a commit each.
    config_hash = dict(zip(docs, store.put_configs(docs), strict=True))
    cost = {doc: history.get(config_hash[doc]) or _core.estimate_cost(doc)[1] for doc in docs}
    # Longest first (stable: a point's runs stay together and in order).
    order = sorted(todo.items(), key=lambda kv: -cost[kv[1][0].config_json])
    tasks = [
        ((k, p.config_json, p.seed, r), cost[p.config_json] + RUN_OVERHEAD_S)
        for k, (p, r, _) in order
    ]
    estimated = {t[0]: c for t, c in tasks}
    scale = _Scale()
    jobs = jobs or os.cpu_count() or 1
    results: Iterable[list[Done]] = (
        _run_dask(lambda n: _chunks_by_cost(tasks, n, scale, DASK_TASK_S), cluster)
        if cluster is not None
        else _run_local(_chunks_by_cost(tasks, jobs, scale, LOCAL_TASK_S), jobs)
    )
    with termination_raises():
        try:
            for finished in results:
                rows = []
                for key, metrics, wall, cpu in finished:
                    p, r, version = todo[key]
                    h = config_hash[p.config_json]
                    rows.append((key, h, p.seed, r, version, metrics, wall))
                    scale.add(estimated[key], cpu + RUN_OVERHEAD_S)
                    out.cpu_time_s += cpu
                store.put_runs(rows)
                out.computed += len(finished)
                out.chunks += 1
                if progress is not None:
                    progress(out.stored + out.computed, out.runs)
                if complete is not None:
                    for key, *_ in finished:
                        for i in needed_by[key]:
                            missing[i] -= 1
                            if missing[i] == 0:
                                complete(i)
        finally:
            # Now, not when the generator is collected: its cleanup ends the workers.
            close = getattr(results, "close", None)
            if close is not None:
                close()
    return out


def stored_result(sp: SweepPlan, store: Store) -> SweepResult:
    """The runs of a planned sweep as the store holds them (by their keys, point then run
    index: as :func:`read_sweep` gives a complete sweep); runs it lacks are left out."""
    keyed = [(p, r, p.key(r, sp.version)) for p in sp.points for r in range(sp.spec.runs)]
    found = store.run_results(k for _, _, k in keyed)
    params: dict[int, dict[str, Any]] = {}
    records = []
    for p, r, k in keyed:
        got = found.get(k)
        if got is None:
            continue
        ps = params.get(p.point)
        if ps is None:
            # As the store gives them back: its canonical JSON, parsed.
            ps = params[p.point] = json.loads(canonical(p.params))
        records.append(RunRecord(k, p.point, ps, p.seed, r, got[0], got[1]))
    return SweepResult(name=sp.spec.name, records=records, expected=sp.runs)
