"""Reproduction recipes: a sweep plus the figures and the table that present it.

A recipe is a TOML file in the repository's ``recipes/`` folder::

    name = "wired-buffer"
    title = "..."
    description = "..."
    [sweep]                 # a sweep (see radiotcp.sweep); paths relative to the recipe
    base = "../scenarios/wired-384k.toml"
    [sweep.grid] ...
    [[figures]]             # kind = "metric" | "goodput_delay" | "traces"
    kind = "goodput_delay"
    x = "links.1.queue.limit_packets"
    group = "flows.count"
    file = "goodput-delay-vs-buffer"
    [report]
    metrics = ["goodput_kbps", "delay_mean_ms"]

``reproduce(name, out)`` runs the sweep (through the results store, so a second call only
reads), writes ``runs.csv`` (one row per run), ``points.csv`` (mean, 90% CI half-width and n
per point), every figure as PNG and SVG, and ``report.md`` with the table of numbers.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from . import _core
from .config import load, load_toml, read_toml_text, to_core_json
from .errors import ConfigError
from .store import Store
from .sweep import SweepPlan, SweepResult, SweepSpec, build_version, run_sweep, write_csv

__all__ = [
    "Recipe",
    "find_recipe",
    "list_recipes",
    "matches",
    "recipe_dirs",
    "recipe_sweeps",
    "reproduce",
]


class Figure(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal[
        "metric",
        "goodput_delay",
        "traces",
        "tradeoff",
        "ack_tid",
        "trace_histogram",
        "trace_compare",
        "per_ue",
        "ue_map",
    ]
    file: str = Field(pattern=r"^[A-Za-z0-9_.-]+$", description="File name without extension.")
    title: str | None = None
    x: str | None = Field(None, description="Sweep key on the x axis (metric, goodput_delay).")
    metric: str | None = Field(
        None,
        description="Metric on the y axis (kind = metric); per_ue: the per-UE field "
        "(`lte.ues.<i>.<metric>`); ue_map: the per-UE field written next to each UE.",
    )
    group: str | None = Field(None, description="Sweep key giving one line per value.")
    where: dict[str, Any] = Field(
        default_factory=dict,
        description="metric, goodput_delay, tradeoff: keep only the points with these "
        "parameter values (one figure per slice of a larger grid).",
    )
    baseline: str | None = Field(
        None,
        description="metric, goodput_delay: label of a [[baselines]] entry drawn as dashed "
        "horizontal lines, one per group value.",
    )
    label: list[str] = Field(
        default_factory=list, description="tradeoff: sweep keys whose values name each marker."
    )
    panel: str | None = Field(None, description="tradeoff: one panel per value of this key.")
    names: dict[str, str] = Field(
        default_factory=dict,
        description="tradeoff: display names for the label values joined by spaces.",
    )
    curves: list[dict[str, Any]] = Field(
        default_factory=list,
        description="ack_tid: one curve per entry, each a table of settings (dotted keys, "
        "e.g. access.ack_control.alpha) applied to the sweep's base.",
    )
    set: dict[str, Any] = Field(
        default_factory=dict, description="traces: settings of the single traced run."
    )
    trace: str = Field("rto", description="trace_histogram: the trace whose values to count.")
    panels: list[dict[str, Any]] = Field(
        default_factory=list,
        description="trace_histogram: one panel per entry, each a table of settings (plus an "
        "optional 'label'); `runs` traced runs of each.",
    )
    runs: int = Field(10, ge=1, description="trace_histogram: traced runs per panel.")
    traces: list[str] = Field(
        default_factory=list,
        description="trace_compare: the traces to stack (cwnd, rto, ack_queue, "
        "cwnd_reductions, delivered, ...); `panels` gives one line per settings table.",
    )
    flow: int = Field(0, ge=0, description="traces: the flow whose cwnd and sequence to show.")
    seed: int = Field(1, ge=0, description="traces: seed of the traced run.")


class Baseline(BaseModel):
    """A reference configuration run beside the sweep (e.g. conventional drop-tail RLC), with
    the sweep's base, seed and replications, its ``set`` plus these settings, over ``grid``."""

    model_config = ConfigDict(extra="forbid")

    label: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    set: dict[str, Any] = Field(default_factory=dict)
    grid: dict[str, list[Any]] = Field(default_factory=dict)


class Report(BaseModel):
    model_config = ConfigDict(extra="forbid")

    metrics: list[str] = Field(
        default_factory=lambda: ["goodput_kbps", "delay_mean_ms", "drops", "timeouts"]
    )
    per_ue: list[str] = Field(
        default_factory=list,
        description="LTE cell: per-UE fields (`lte.ues.<i>.<field>`) tabulated UE by UE for "
        "every point.",
    )


class DocTable(BaseModel):
    """A table of docs/reproductions.md generated from this recipe's results
    (`radiotcp.doctables`): one row per value (or combination) of `rows`, and either one column
    per value of `cols` with the `cell` template, or the `columns` list of (header, template).

    Templates substitute `{metric|spec}` with the point's mean formatted by the format spec
    (`{goodput_kbps|.1f}`), `{metric.ci90|spec}` with its 90% half-width, `{metric*k|spec}`
    with the value times k (`{lte.goodput_kbps*0.001|.1f}` for Mb/s); a NaN prints as "-".
    With `per_ue`, every point of an LTE run becomes one point per UE: the UE's fields
    (`lte.ues.I.FIELD`) as `FIELD`, its number (from 1) as `ue`, and the point's parameters.
    """

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    rows: list[str] = Field(description="Sweep keys whose values identify a row.")
    row_header: str = Field("", description="Header of the row label column.")
    row_names: dict[str, str] = Field(
        default_factory=dict,
        description="Display names of rows, keyed by the key values joined by spaces; rows not "
        "named are shown by their values. With `row_order`, only the listed rows, in order.",
    )
    row_order: list[str] = Field(default_factory=list)
    cols: list[str] = Field(default_factory=list, description="Pivot keys: one column each.")
    col_names: dict[str, str] = Field(
        default_factory=dict, description="Headers of the pivot columns, by joined values."
    )
    col_order: list[str] = Field(default_factory=list)
    cell: str = Field("", description="Template of a pivot cell.")
    columns: list[tuple[str, str]] = Field(
        default_factory=list, description="Without `cols`: (header, template) per column."
    )
    where: dict[str, Any] = Field(default_factory=dict)
    baseline: str | None = Field(
        None, description="Take the points of this [[baselines]] entry instead of the sweep's."
    )
    prepend_baseline: str | None = Field(
        None,
        description="Rows of this [[baselines]] entry first (named by `baseline_name`), then "
        "the sweep's; the baseline's points match pivot columns by the `cols` keys they have.",
    )
    baseline_name: str = "baseline"
    baseline_last: bool = Field(False, description="The `prepend_baseline` rows last, not first.")
    per_ue: bool = Field(False, description="One point per UE of each LTE point (rows `ue`).")

    @model_validator(mode="after")
    def _shape(self) -> DocTable:
        if self.cols and not self.cell:
            raise ValueError(f"tables.{self.id}: `cols` needs `cell`")
        if not self.cols and not self.columns:
            raise ValueError(f"tables.{self.id}: needs `cols` and `cell`, or `columns`")
        return self


class Recipe(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    title: str
    description: str = ""
    sweep: dict[str, Any]
    baselines: list[Baseline] = Field(default_factory=list)
    figures: list[Figure] = Field(default_factory=list)
    report: Report = Field(default_factory=Report)
    tables: list[DocTable] = Field(default_factory=list)

    @model_validator(mode="after")
    def _references(self) -> Recipe:
        labels = [b.label for b in self.baselines]
        for f in self.figures:
            if f.baseline is not None and f.baseline not in labels:
                raise ValueError(
                    f"figures.{f.file}.baseline = {f.baseline!r}: expected one of {labels}"
                )
            if f.kind in ("metric", "goodput_delay") and f.x is None:
                raise ValueError(f"figures.{f.file}: kind = {f.kind} needs x")
            if f.kind == "per_ue" and f.metric is None:
                raise ValueError(f"figure {f.file!r}: kind = 'per_ue' needs `metric`")
            if f.kind == "metric" and f.metric is None:
                raise ValueError(f"figures.{f.file}: kind = metric needs metric")
            if f.kind == "tradeoff" and not f.label:
                raise ValueError(f"figures.{f.file}: kind = tradeoff needs label")
            if f.kind == "ack_tid" and not f.curves:
                raise ValueError(f"figures.{f.file}: kind = ack_tid needs curves")
            if f.kind in ("trace_histogram", "trace_compare") and not f.panels:
                raise ValueError(f"figures.{f.file}: kind = {f.kind} needs panels")
            if f.kind == "trace_compare" and not f.traces:
                raise ValueError(f"figures.{f.file}: kind = trace_compare needs traces")
        for t in self.tables:
            for ref in (t.baseline, t.prepend_baseline):
                if ref is not None and ref not in labels:
                    raise ValueError(f"tables.{t.id}: baseline {ref!r}: expected one of {labels}")
        return self


def recipe_dirs() -> list[Path]:
    """Where recipes are looked up: ./recipes, then the repository's recipes/ folder."""
    dirs = [Path.cwd() / "recipes", Path(__file__).resolve().parents[2] / "recipes"]
    seen: list[Path] = []
    for d in dirs:
        if d.is_dir() and d.resolve() not in seen:
            seen.append(d.resolve())
    return seen


def list_recipes(dirs: Sequence[Path] | None = None) -> list[tuple[str, str, Path]]:
    """(name, title, path) of every recipe, first folder wins on a name clash."""
    found: dict[str, tuple[str, str, Path]] = {}
    for d in dirs if dirs is not None else recipe_dirs():
        for path in sorted(Path(d).glob("*.toml")):
            recipe, _ = load_recipe(path)
            found.setdefault(recipe.name, (recipe.name, recipe.title, path))
    return sorted(found.values())


def load_recipe(path: Path) -> tuple[Recipe, Path]:
    try:
        raw = tomllib.loads(read_toml_text(path, "recipe"))
        return Recipe.model_validate(raw), path.resolve().parent
    except (tomllib.TOMLDecodeError, ValidationError) as e:
        raise ConfigError("<recipe>", str(path), f"a valid recipe ({e})") from None


def find_recipe(
    name: str,
    dirs: Sequence[Path] | None = None,
    *,
    listed: Sequence[tuple[str, str, Path]] | None = None,
) -> tuple[Recipe, Path]:
    """The recipe called `name`, or a file path to one. ``listed``: :func:`list_recipes` of
    `dirs` already made (it reads every recipe: a caller finding many lists them once)."""
    p = Path(name)
    if p.suffix == ".toml" and p.is_file():
        return load_recipe(p)
    recipes = list_recipes(dirs) if listed is None else listed
    for rname, _, path in recipes:
        if rname == name:
            return load_recipe(path)
    known = ", ".join(r[0] for r in recipes) or "none found"
    raise ConfigError("recipe", name, f"a recipe name ({known}) or a recipe file")


@dataclass
class Reproduction:
    recipe: Recipe
    out: Path
    result: SweepResult
    files: list[Path] = field(default_factory=list)
    baselines: dict[str, SweepResult] = field(default_factory=dict)


def _same(a: Any, b: Any) -> bool:
    """Parameter equality as TOML writes it: 1 == 1.0, strings and booleans exactly."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return float(a) == float(b)
    return a == b


def matches(point: Mapping[str, Any], where: Mapping[str, Any]) -> bool:
    """Whether a point's parameters match every ``where`` value, compared as TOML writes them
    (1 == 1.0; strings and booleans exactly). Keys the point lacks are not compared, so a
    baseline over fewer keys still matches."""
    return all(k not in point or _same(point[k], v) for k, v in where.items())


def _select(points: Sequence[dict[str, Any]], where: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The points that :func:`matches` ``where``."""
    return [p for p in points if matches(p, where)]


def _fmt(mean: float, half: float) -> str:
    if not math.isfinite(mean):
        return "–"
    digits = 1 if abs(mean) >= 10 else 3
    if math.isfinite(half):
        return f"{mean:.{digits}f} ± {half:.{digits}f}"
    return f"{mean:.{digits}f}"


def _report(rep: Reproduction, figures: Sequence[tuple[str, Path]]) -> str:
    r, res = rep.recipe, rep.result
    params = res.param_names()
    metrics = [m for m in r.report.metrics if m in res.metrics]
    runs = r.sweep.get("runs", 20)
    lines = [
        f"# {r.title}",
        "",
        r.description.strip(),
        "",
        f"Recipe `{r.name}`, radiotcp {build_version()}: {len(res.points())} points x {runs} "
        f"runs; mean ± half-width of the 90% Student-t confidence interval.",
        "",
    ]
    for title, path in figures:
        lines += [f"![{title}]({path.name})", ""]
    header = [*params, *metrics]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for row in res.points():
        cells = [str(row[p]) for p in params]
        cells += [_fmt(row[m], row[f"{m}.ci90"]) for m in metrics]
        lines.append("| " + " | ".join(cells) + " |")
    for label, bres in rep.baselines.items():
        bparams = bres.param_names()
        bmetrics = [m for m in r.report.metrics if m in bres.metrics]
        lines += ["", f"Baseline `{label}`:", ""]
        header = [*bparams, *bmetrics]
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "---|" * len(header))
        for row in bres.points():
            cells = [str(row[p]) for p in bparams]
            cells += [_fmt(row[m], row[f"{m}.ci90"]) for m in bmetrics]
            lines.append("| " + " | ".join(cells) + " |")
    fields = r.report.per_ue
    for row in res.points() if fields else []:
        n = 0
        while f"lte.ues.{n}.{fields[0]}" in row:
            n += 1
        if n == 0:
            continue
        where = ", ".join(f"{p} = {row[p]}" for p in params)
        lines += ["", f"Per UE ({where or 'all runs'}):", ""]
        lines.append("| UE | " + " | ".join(fields) + " |")
        lines.append("|---|" + "---|" * len(fields))
        for i in range(n):
            cells = [
                _fmt(
                    row.get(f"lte.ues.{i}.{f}", math.nan),
                    row.get(f"lte.ues.{i}.{f}.ci90", math.nan),
                )
                for f in fields
            ]
            lines.append(f"| {i + 1} | " + " | ".join(cells) + " |")
    lines += ["", "Files: `runs.csv` (one row per run), `points.csv` (one row per point).", ""]
    return "\n".join(lines)


def _tid_figure(
    base: Any, common: Mapping[str, Any], curves: Sequence[Mapping[str, Any]], title: str | None
) -> Any:
    """t_id = f(BO) of the ACK rate control for each curve's settings, evaluated by the
    simulator's own function (``_core.ack_t_id_ms``) at every tenth of an SDU up to the
    largest maxth."""
    from . import plots

    drawn = []
    for c in curves:
        cfg = load(base, {**common, **c})
        if cfg.access.kind != "umts":
            raise ConfigError(
                "access.kind",
                cfg.access.kind,
                "'umts' (a scenario with a radio bearer) for ack_tid",
            )
        ac = cfg.access.ack_control
        bo = [i / 10 for i in range(int(10 * ac.maxth_sdus) + 1)]
        t = _core.ack_t_id_ms(to_core_json(cfg), bo)
        name = ", ".join(f"{k.rsplit('.', 1)[-1]} = {v}" for k, v in c.items())
        drawn.append((name, bo, t))
    return plots.plot_curves(drawn, "buffer occupancy BO (SDUs)", "t_id (ms)", title=title)


_TRACE_UNITS = {"rto": "TCP retransmission timeout RTO (ms)", "cwnd": "cwnd (bytes)"}


def _panel(base: Any, common: Mapping[str, Any], entry: Mapping[str, Any]) -> tuple[str, str]:
    """A `panels` entry of a figure: its label (given, or its settings) and the core JSON of
    the base with the recipe's and the entry's settings."""
    settings = {k: v for k, v in entry.items() if k != "label"}
    label = entry.get("label") or ", ".join(f"{k} = {v}" for k, v in settings.items())
    return str(label), to_core_json(load(base, {**common, **settings}))


def _trace_histogram(base: Any, common: Mapping[str, Any], f: Figure) -> Any:
    """Histograms of one trace's values (all flows), one panel per settings table, pooled
    over runs 0..f.runs-1 of seed f.seed."""
    from . import plots

    panels = []
    for entry in f.panels:
        label, doc = _panel(base, common, entry)
        values: list[float] = []
        for r in range(f.runs):
            tr = _core.simulate(doc, f.seed, r, True)["traces"]
            if f.trace not in tr:
                raise ConfigError(f"figures.{f.file}.trace", f.trace, f"one of {sorted(tr)}")
            values.extend(float(x) for x in tr[f.trace]["value"])
        panels.append((label, values))
    return plots.plot_histograms(panels, _TRACE_UNITS.get(f.trace, f.trace))


def recipe_sweeps(recipe: Recipe, *, runs: int | None = None) -> list[tuple[str, SweepSpec]]:
    """The sweeps of a recipe: ("", its sweep), then (label, sweep) of each baseline.

    ``runs`` replaces the recipe's replications (the sweep is then named
    ``<name>-runs<N>`` so it never mixes with the full one in the store).
    """
    sweep_raw = dict(recipe.sweep)
    sweep_raw.setdefault("name", recipe.name)
    if runs is not None:
        sweep_raw["runs"] = runs
        sweep_raw["name"] = f"{recipe.name}-runs{runs}"
    try:
        spec = SweepSpec.model_validate(sweep_raw)
    except ValidationError as e:
        raise ConfigError("sweep", recipe.name, f"a valid sweep table ({e})") from None
    out = [("", spec)]
    for b in recipe.baselines:
        try:
            bspec = SweepSpec.model_validate(
                {
                    **spec.model_dump(),
                    "name": f"{spec.name}--{b.label}",
                    "set": {**spec.set, **b.set},
                    "grid": b.grid,
                    "zip": {},
                    "zips": [],
                }
            )
        except ValidationError as e:
            raise ConfigError(f"baselines.{b.label}", recipe.name, f"a valid sweep ({e})") from None
        out.append((b.label, bspec))
    return out


def run_recipe(
    recipe: Recipe,
    rdir: Path,
    store: Store,
    *,
    runs: int | None = None,
    jobs: int | None = None,
    cluster: Any = None,
    progress: Callable[[int, int], None] | None = None,
    check: Callable[[SweepPlan], None] | None = None,
) -> tuple[SweepSpec, SweepResult, dict[str, SweepResult]]:
    """Run (or read from the store) a recipe's sweep and its baselines.

    ``runs`` replaces the recipe's replications (the sweep is then stored under
    ``<name>-runs<N>`` so it never mixes with the full one).
    """
    (_, spec), *bspecs = recipe_sweeps(recipe, runs=runs)
    result = run_sweep(
        spec, rdir, store, jobs=jobs, cluster=cluster, progress=progress, check=check
    )
    baselines: dict[str, SweepResult] = {}
    for label, bspec in bspecs:
        baselines[label] = run_sweep(
            bspec, rdir, store, jobs=jobs, cluster=cluster, progress=progress, check=check
        )
    return spec, result, baselines


def reproduce(
    name: str,
    out: Path,
    store: Store,
    *,
    runs: int | None = None,
    jobs: int | None = None,
    cluster: Any = None,
    progress: Callable[[int, int], None] | None = None,
    dirs: Sequence[Path] | None = None,
    check: Callable[[SweepPlan], None] | None = None,
) -> Reproduction:
    """Run a recipe and write its figures, CSV files and report into `out`.

    ``runs`` replaces the recipe's replications (a quicker, less precise reproduction; the
    sweep is then stored under ``<name>-runs<N>`` so it never mixes with the full one).
    ``check``: as in :func:`radiotcp.sweep.run_sweep`, for the sweep and each baseline.
    """
    recipe, rdir = find_recipe(name, dirs)
    return reproduce_recipe(
        recipe,
        rdir,
        out,
        store,
        runs=runs,
        jobs=jobs,
        cluster=cluster,
        progress=progress,
        check=check,
    )


def reproduce_recipe(
    recipe: Recipe,
    rdir: Path,
    out: Path,
    store: Store,
    *,
    runs: int | None = None,
    jobs: int | None = None,
    cluster: Any = None,
    progress: Callable[[int, int], None] | None = None,
    check: Callable[[SweepPlan], None] | None = None,
) -> Reproduction:
    """:func:`reproduce` of a loaded recipe (`rdir`: the folder its paths are relative to)."""
    from . import plots

    spec, result, baselines = run_recipe(
        recipe,
        rdir,
        store,
        runs=runs,
        jobs=jobs,
        cluster=cluster,
        progress=progress,
        check=check,
    )
    rep = Reproduction(recipe, out, result, baselines=baselines)
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "runs.csv", result.rows())
    write_csv(out / "points.csv", result.points())
    rep.files += [out / "runs.csv", out / "points.csv"]
    for label, bres in rep.baselines.items():
        write_csv(out / f"baseline-{label}.csv", bres.points())
        rep.files.append(out / f"baseline-{label}.csv")

    base = load_toml(rdir / spec.base) if spec.base else None
    figs: list[tuple[str, Path]] = []
    for f in recipe.figures:

        def points(metrics: list[str], f: Figure = f) -> list[dict[str, Any]]:
            return _select(result.plot_points(metrics), f.where)

        def reference(metrics: list[str], f: Figure = f) -> list[dict[str, Any]]:
            if f.baseline is None:
                return []
            return _select(rep.baselines[f.baseline].plot_points(metrics), f.where)

        if f.kind == "traces":
            cfg = load(base, {**spec.set, **f.set})
            raw = _core.simulate(to_core_json(cfg), f.seed, 0, True)
            fig = plots.plot_traces(raw["traces"], flow=f.flow)
        elif f.kind == "goodput_delay":
            gd = ["goodput_kbps", "delay_mean_ms"]
            assert f.x is not None
            fig = plots.plot_goodput_delay(
                points(gd), f.x, f.group, baseline=reference(gd), baseline_label=f.baseline or ""
            )
        elif f.kind == "tradeoff":
            fig = plots.plot_tradeoff(
                points(["goodput_kbps", "delay_mean_ms"]), f.label, f.panel, names=f.names
            )
        elif f.kind == "ack_tid":
            fig = _tid_figure(base, spec.set, f.curves, title=f.title)
        elif f.kind == "trace_histogram":
            fig = _trace_histogram(base, spec.set, f)
        elif f.kind == "per_ue":
            assert f.metric is not None
            pts = points([m for m in result.metrics if m.startswith("lte.ues.")])
            fig = plots.plot_per_ue(pts, f.metric, f.group, title=f.title)
        elif f.kind == "ue_map":
            pts = points([m for m in result.metrics if m.startswith("lte.ues.")])
            isd = (base or {}).get("access", {}).get("cell", {}).get("isd_m", 500.0)
            fig = plots.plot_ue_map(pts[0], isd, f.metric, title=f.title)
        elif f.kind == "trace_compare":
            runs_traced = []
            for entry in f.panels:
                label, doc = _panel(base, spec.set, entry)
                runs_traced.append((label, _core.simulate(doc, f.seed, 0, True)["traces"]))
            fig = plots.plot_trace_compare(runs_traced, f.traces, flow=f.flow)
        else:
            assert f.x is not None and f.metric is not None
            fig = plots.plot_metric_vs_param(
                points([f.metric]),
                f.x,
                f.metric,
                f.group,
                title=f.title,
                baseline=reference([f.metric]),
                baseline_label=f.baseline or "",
            )
        if f.title and f.kind not in ("metric", "ack_tid", "per_ue", "ue_map"):
            fig.suptitle(f.title)
        for ext in ("png", "svg"):
            rep.files.append(plots.save(fig, out / f"{f.file}.{ext}"))
        figs.append((f.title or f.file, out / f"{f.file}.png"))

    (out / "report.md").write_text(_report(rep, figs))
    rep.files.append(out / "report.md")
    return rep
