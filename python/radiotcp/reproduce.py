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

import csv
import math
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from . import _core
from .config import load, load_toml, to_core_json
from .errors import ConfigError
from .store import Store
from .sweep import SweepResult, SweepSpec, run_sweep

__all__ = ["Recipe", "find_recipe", "list_recipes", "recipe_dirs", "reproduce"]


class Figure(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["metric", "goodput_delay", "traces"]
    file: str = Field(pattern=r"^[A-Za-z0-9_.-]+$", description="File name without extension.")
    title: str | None = None
    x: str | None = Field(None, description="Sweep key on the x axis (metric, goodput_delay).")
    metric: str | None = Field(None, description="Metric on the y axis (kind = metric).")
    group: str | None = Field(None, description="Sweep key giving one line per value.")
    set: dict[str, Any] = Field(
        default_factory=dict, description="traces: settings of the single traced run."
    )
    flow: int = Field(0, ge=0, description="traces: the flow whose cwnd and sequence to show.")
    seed: int = Field(1, ge=0, description="traces: seed of the traced run.")


class Report(BaseModel):
    model_config = ConfigDict(extra="forbid")

    metrics: list[str] = Field(
        default_factory=lambda: ["goodput_kbps", "delay_mean_ms", "drops", "timeouts"]
    )


class Recipe(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    title: str
    description: str = ""
    sweep: dict[str, Any]
    figures: list[Figure] = Field(default_factory=list)
    report: Report = Field(default_factory=Report)


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
        raw = tomllib.loads(path.read_text())
        return Recipe.model_validate(raw), path.resolve().parent
    except (tomllib.TOMLDecodeError, ValidationError) as e:
        raise ConfigError("<recipe>", str(path), f"a valid recipe ({e})") from None


def find_recipe(name: str, dirs: Sequence[Path] | None = None) -> tuple[Recipe, Path]:
    """The recipe called `name`, or a file path to one."""
    p = Path(name)
    if p.suffix == ".toml" and p.is_file():
        return load_recipe(p)
    recipes = list_recipes(dirs)
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


def _plot_points(res: SweepResult, metrics: Sequence[str]) -> list[dict[str, Any]]:
    """Points in the form the plotting functions take: metric -> {mean, ci90_half_width, n}."""
    out = []
    for row in res.points():
        p: dict[str, Any] = {k: row[k] for k in res.param_names()}
        for m in metrics:
            p[m] = {
                "mean": row.get(m, math.nan),
                "ci90_half_width": row.get(f"{m}.ci90", math.nan),
                "n": row.get(f"{m}.n", 0),
            }
        out.append(p)
    return out


def _write_csv(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    cols: dict[str, None] = {}
    for r in rows:
        cols.update(dict.fromkeys(r))
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(cols))
        w.writeheader()
        w.writerows(rows)


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
        f"Recipe `{r.name}`, radiotcp {_core.version()}: {len(res.points())} points x {runs} "
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
    lines += ["", "Files: `runs.csv` (one row per run), `points.csv` (one row per point).", ""]
    return "\n".join(lines)


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
) -> Reproduction:
    """Run a recipe and write its figures, CSV files and report into `out`.

    ``runs`` replaces the recipe's replications (a quicker, less precise reproduction; the
    sweep is then stored under ``<name>-runs<N>`` so it never mixes with the full one).
    """
    from . import plots

    recipe, rdir = find_recipe(name, dirs)
    sweep_raw = dict(recipe.sweep)
    sweep_raw.setdefault("name", recipe.name)
    if runs is not None:
        sweep_raw["runs"] = runs
        sweep_raw["name"] = f"{recipe.name}-runs{runs}"
    try:
        spec = SweepSpec.model_validate(sweep_raw)
    except ValidationError as e:
        raise ConfigError("sweep", recipe.name, f"a valid sweep table ({e})") from None
    result = run_sweep(spec, rdir, store, jobs=jobs, cluster=cluster, progress=progress)
    out.mkdir(parents=True, exist_ok=True)
    rep = Reproduction(recipe, out, result)
    _write_csv(out / "runs.csv", result.rows())
    _write_csv(out / "points.csv", result.points())
    rep.files += [out / "runs.csv", out / "points.csv"]

    figs: list[tuple[str, Path]] = []
    for f in recipe.figures:
        if f.kind == "traces":
            base = load_toml(rdir / spec.base) if spec.base else None
            cfg = load(base, {**spec.set, **f.set})
            raw = _core.simulate(to_core_json(cfg), f.seed, 0, True)
            fig = plots.plot_traces(raw["traces"], flow=f.flow)
        elif f.kind == "goodput_delay":
            fig = plots.plot_goodput_delay(
                _plot_points(result, ["goodput_kbps", "delay_mean_ms"]), f.x, f.group
            )
        else:
            if f.metric is None or f.x is None:
                raise ConfigError(f"figures.{f.file}", f.kind, "x and metric for kind = metric")
            fig = plots.plot_metric_vs_param(
                _plot_points(result, [f.metric]), f.x, f.metric, f.group, title=f.title
            )
        if f.title and f.kind != "metric":
            fig.suptitle(f.title)
        for ext in ("png", "svg"):
            rep.files.append(plots.save(fig, out / f"{f.file}.{ext}"))
        figs.append((f.title or f.file, out / f"{f.file}.png"))

    (out / "report.md").write_text(_report(rep, figs))
    rep.files.append(out / "report.md")
    return rep
