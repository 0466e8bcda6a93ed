"""The tour (`radiotcp reproduce tour`, what `make demo` runs): one headline figure of each of
the five systems radiotcp models, each from a reduced run of its full recipe.

The stops are listed in ``recipes/tour/tour.toml``: per stop the recipe, the one figure to
show, fewer runs and (optionally) fewer grid points, the paper and the claim it tests. A stop
runs the recipe's sweep with those changes under the sweep name ``tour-<recipe>`` (never mixed
with the full recipe's runs in the store), draws its figure and writes the recipe's report
into ``<out>/<recipe>/``; ``<out>/report.md`` links every figure to its paper, to the stop's
report and to the command that runs the full recipe.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .config import read_toml_text
from .errors import ConfigError
from .reproduce import Reproduction, find_recipe, recipe_dirs, reproduce_recipe
from .store import Store

NAME = "tour"


class Stop(BaseModel):
    model_config = ConfigDict(extra="forbid")

    system: str
    recipe: str
    figure: str
    # The figure's title when the recipe's names its own run count.
    title: str | None = None
    runs: int = Field(ge=2, description="runs per point (two at least: an interval needs two)")
    grid: dict[str, list[Any]] = Field(default_factory=dict)
    paper: str
    claim: str


class Tour(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    title: str
    description: str = ""
    stops: list[Stop] = Field(min_length=1)


@dataclass
class TourResult:
    tour: Tour
    out: Path
    stops: list[Reproduction] = field(default_factory=list)
    # The full recipes' runs per point, for the report.
    full_runs: list[int] = field(default_factory=list)

    @property
    def report(self) -> Path:
        return self.out / "report.md"

    @property
    def computed(self) -> int:
        return sum(r.result.computed for r in self.stops)

    @property
    def runs(self) -> int:
        return sum(len(r.result.records) for r in self.stops)


def tour_file(dirs: Sequence[Path] | None = None) -> Path | None:
    """``tour/tour.toml`` in the first recipe folder that has one."""
    for d in dirs if dirs is not None else recipe_dirs():
        p = Path(d) / "tour" / "tour.toml"
        if p.is_file():
            return p
    return None


def load_tour(path: Path) -> Tour:
    try:
        return Tour.model_validate(tomllib.loads(read_toml_text(path, "tour")))
    except (tomllib.TOMLDecodeError, ValidationError) as e:
        raise ConfigError("<tour>", str(path), f"a valid tour ({e})") from None


def run_tour(
    out: Path,
    store: Store,
    *,
    jobs: int | None = None,
    cluster: Any = None,
    progress: Callable[[int, int], None] | None = None,
    dirs: Sequence[Path] | None = None,
) -> TourResult:
    """Run every stop of the tour into ``out`` and write ``out/report.md``."""
    path = tour_file(dirs)
    if path is None:
        raise ConfigError("recipe", NAME, "a recipes/tour/tour.toml file")
    tour = load_tour(path)
    res = TourResult(tour, out)
    for i, stop in enumerate(tour.stops):
        recipe, rdir = find_recipe(stop.recipe, dirs)
        figures = [f for f in recipe.figures if f.file == stop.figure]
        if not figures:
            known = [f.file for f in recipe.figures]
            raise ConfigError(
                f"stops.{i}.figure", stop.figure, f"a figure of {recipe.name}: {known}"
            )
        grid = dict(recipe.sweep.get("grid", {}))
        unknown = sorted(set(stop.grid) - set(grid))
        if unknown:
            raise ConfigError(
                f"stops.{i}.grid", unknown[0], f"a grid key of {recipe.name}: {sorted(grid)}"
            )
        grid.update(stop.grid)
        res.full_runs.append(int(recipe.sweep.get("runs", 20)))
        sweep = {**recipe.sweep, "grid": grid, "runs": stop.runs, "name": f"{NAME}-{recipe.name}"}
        if stop.title is not None:
            figures = [f.model_copy(update={"title": stop.title}) for f in figures]
        wanted = {f.baseline for f in figures}
        reduced = recipe.model_copy(
            update={
                "sweep": sweep,
                "figures": figures,
                "baselines": [b for b in recipe.baselines if b.label in wanted],
                "tables": [],
            }
        )
        res.stops.append(
            reproduce_recipe(
                reduced,
                rdir,
                out / recipe.name,
                store,
                jobs=jobs,
                cluster=cluster,
                progress=progress,
            )
        )
    out.mkdir(parents=True, exist_ok=True)
    res.report.write_text(_report(res))
    return res


def _report(res: TourResult) -> str:
    t = res.tour
    lines = [f"# {t.title}", "", t.description.strip(), ""]
    for k, (stop, rep, full_runs) in enumerate(
        zip(t.stops, res.stops, res.full_runs, strict=True), 1
    ):
        full = rep.recipe.name
        fig = rep.recipe.figures[0]
        points = len(rep.result.points())
        lines += [
            f"## {k}. {stop.system}",
            "",
            f"{stop.paper}. The paper's claim: {stop.claim}",
            "",
            f"![{fig.title or fig.file}]({full}/{fig.file}.png)",
            "",
            f"{points} points x {stop.runs} runs (the full recipe: {full_runs} runs per point "
            f"over its whole grid); error bars are 90 % Student-t intervals over the runs. "
            f"Numbers: [{full}/report.md]({full}/report.md). Full recipe: "
            f"`radiotcp reproduce {full}`; whether the claim holds, and why: "
            f"docs/reproductions.md, section `{full}`.",
            "",
        ]
    return "\n".join(lines)
