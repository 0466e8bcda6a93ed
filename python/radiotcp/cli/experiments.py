"""``radiotcp sweep | results | plot | reproduce``: experiments at scale from the command line.

The sweep machinery (pydantic, dask), the plots (matplotlib) and rich are imported by the
commands, not with this module (``radiotcp --help`` builds these parsers).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..store import DEFAULT_STORE
from .common import EXIT_OK, Flag, add_config_args

if TYPE_CHECKING:
    from rich.console import Console

    from ..store import Store
    from ..sweep import SweepResult

SWEEP_EPILOG = """\
A sweep file names a base scenario and the keys to vary:

  name = "buffer"                      # name in the results store
  base = "scenarios/wired-384k.toml"   # relative to the sweep file
  runs = 20                            # replications per point
  seed = 1
  [set]                                # applied to every point
  "flows.start_jitter_s" = 1.0
  [grid]                               # cartesian product
  "links.1.queue.limit_packets" = [10, 20, 50]
  "flows.count" = [1, 4]
  [zip]                                # lists that advance together (one more axis)
  "tcp.min_rto_ms" = [200, 1000]
  "tcp.max_rto_ms" = [60000, 120000]

Runs already in the store (same configuration, seed, run index and version) are not run
again: an interrupted sweep resumes where it stopped. Run r of a point uses the seed derived
from (seed, the point's parameters) and run index r.

examples:
  radiotcp sweep my-sweep.toml
  radiotcp sweep my-sweep.toml --runs 5 --jobs 1 --output results/my-sweep
  radiotcp sweep my-sweep.toml --cluster tcp://scheduler:8786
"""

REPRODUCE_EPILOG = """\
examples:
  radiotcp reproduce --list
  radiotcp reproduce wired-buffer                  # figures, CSV and report.md
  radiotcp reproduce wired-buffer --runs 5 --out /tmp/quick
"""


@contextmanager
def _progress(err: Console, enabled: bool) -> Iterator[Callable[[int, int], None] | None]:
    if not enabled:
        yield None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        Task,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class RateColumn(ProgressColumn):
        """Runs per second, as rich estimates it."""

        def render(self, task: Task) -> Text:
            speed = task.finished_speed or task.speed
            shown = "" if speed is None else f"{speed:,.0f} runs/s"
            return Text(shown, style="progress.data.speed")

    progress = Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=err,
        transient=False,
    )
    with progress:
        task = progress.add_task("runs", total=None)

        def update(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        yield update


def _store(args: argparse.Namespace) -> Store:
    from ..store import Store

    try:
        return Store(args.store)
    except Exception as e:
        raise ConfigError("--store", str(args.store), f"a writable SQLite file ({e})") from None


def _add_run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--store", type=Path, default=DEFAULT_STORE, help=f"results store ({DEFAULT_STORE})"
    )
    p.add_argument(
        "--jobs", type=int, default=None, help="local worker processes (default: all cores)"
    )
    p.add_argument(
        "--cluster",
        default=None,
        metavar="ADDRESS",
        help="run on this Dask scheduler (tcp://host:8786) instead of locally",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _fmt(mean: float, half: float) -> str:
    if not math.isfinite(mean):
        return ""
    s = f"{mean:,.1f}" if abs(mean) >= 10 else f"{mean:.3g}"
    if math.isfinite(half) and half > 1e-12 * max(1.0, abs(mean)):
        s += f" ± {half:.2g}"
    return s


def _short(key: str) -> str:
    """A column header for a dotted key: its last part (``maxd_ms``); the full keys are in the
    CSV files."""
    return key.rsplit(".", 1)[-1]


def _print_points(
    out: Console, res: SweepResult, metrics: list[str], limit: int | None = None
) -> None:
    """The points as a table (at most `limit` rows: a big sweep's table belongs in its CSV)."""
    from rich.table import Table

    params = res.param_names()
    points = res.points()
    t = Table(
        title=f"sweep {res.name}: {len(res.records)}/{res.expected} runs; mean ± 90% CI",
        title_justify="left",
    )
    for p in params:
        t.add_column(_short(p), justify="right", no_wrap=True)
    t.add_column("n", justify="right", no_wrap=True, min_width=2)
    shown = [m for m in metrics if m in res.metrics]
    for m in shown:
        t.add_column(m, justify="right", no_wrap=True)
    for row in points[:limit]:
        t.add_row(
            *[str(row[p]) for p in params],
            str(row["runs"]),
            *[_fmt(row[m], row[f"{m}.ci90"]) for m in shown],
        )
    out.print(t)
    if limit is not None and len(points) > limit:
        out.print(
            f"... and {len(points) - limit} more points (all of them in points.csv and the report)",
            highlight=False,
        )


def _write_tables(res: SweepResult, folder: Path) -> list[Path]:
    from ..sweep import write_csv

    folder.mkdir(parents=True, exist_ok=True)
    write_csv(folder / "runs.csv", res.rows())
    write_csv(folder / "points.csv", res.points())
    return [folder / "runs.csv", folder / "points.csv"]


MAIN_METRICS = ["goodput_kbps", "delay_mean_ms", "drops", "timeouts"]


def cmd_sweep(args: argparse.Namespace, out: Console, err: Console) -> int:
    from .._lifetime import Terminated
    from ..sweep import load_sweep, run_sweep

    spec, base_dir = load_sweep(
        args.sweep, runs=args.runs, seed=args.seed, overrides=args.overrides
    )
    with _store(args) as store, _progress(err, not (args.no_progress or args.json)) as prog:
        try:
            res = run_sweep(
                spec, base_dir, store, jobs=args.jobs, cluster=args.cluster, progress=prog
            )
        except KeyboardInterrupt:
            print(
                f"interrupted: finished runs are in {store.path}; run the same command again "
                "to resume",
                file=sys.stderr,
            )
            raise
        except Terminated as e:
            # The pool is gone and every finished chunk committed: say what the store holds.
            info = next((s for s in store.sweeps() if s["name"] == spec.name), None)
            held = f"{info['done']} of {info['expected']}" if info else "none of the"
            print(
                f"{e}: {held} runs of sweep {spec.name} are stored in {store.path}; run the "
                "same command again to compute the rest",
                file=sys.stderr,
            )
            return e.exit_status
    files = _write_tables(res, args.output) if args.output else []
    if args.json:
        sys.stdout.write(
            json.dumps(
                {
                    "sweep": res.name,
                    "expected": res.expected,
                    "computed": res.computed,
                    "points": res.points(),
                },
                indent=2,
                default=str,
            )
            + "\n"
        )
        return EXIT_OK
    _print_points(out, res, MAIN_METRICS)
    out.print(
        f"{res.computed} runs computed now ({res.wall_time_s:.2f} s in the core), "
        f"{len(res.records) - res.computed} taken from {args.store}",
        highlight=False,
    )
    for f in files:
        out.print(f"written: {f}", highlight=False)
    return EXIT_OK


def cmd_results(args: argparse.Namespace, out: Console, err: Console) -> int:
    from rich.table import Table

    from ..sweep import read_sweep, write_csv

    with _store(args) as store:
        if args.action == "list":
            t = Table(title=f"sweeps in {store.path}", title_justify="left")
            for c in ("sweep", "points", "runs/point", "stored", "expected"):
                t.add_column(c, justify="right" if c != "sweep" else "left")
            for s in store.sweeps():
                t.add_row(
                    s["name"], str(s["points"]), str(s["runs"]), str(s["done"]), str(s["expected"])
                )
            out.print(t)
            out.print(f"{store.count_runs()} runs stored in all", highlight=False)
            return EXIT_OK
        if not args.name:
            raise ConfigError("SWEEP", "", "the name of a sweep to export (see `results list`)")
        res = read_sweep(store, args.name)
    rows = res.points() if args.points else res.rows()
    dest: Path = args.output or Path(
        f"{args.name}-{'points' if args.points else 'runs'}.{args.format}"
    )
    dest.parent.mkdir(parents=True, exist_ok=True)
    if args.format == "csv":
        write_csv(dest, rows)
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(rows), dest)
    out.print(f"{len(rows)} rows written to {dest}", highlight=False)
    return EXIT_OK


def cmd_plot(args: argparse.Namespace, out: Console, err: Console) -> int:
    from .. import plots
    from ..sweep import read_sweep

    with _store(args) as store:
        res = read_sweep(store, args.name)
    for key in (args.x, args.group):
        if key is not None and key not in res.param_names():
            raise ConfigError(
                "--x" if key == args.x else "--group",
                key,
                f"a swept key of {args.name}: {', '.join(res.param_names())}",
            )
    if args.metric is None:
        fig = plots.plot_goodput_delay(
            res.plot_points(["goodput_kbps", "delay_mean_ms"]), args.x, args.group
        )
    else:
        if args.metric not in res.metrics:
            raise ConfigError("--metric", args.metric, "a metric of the sweep (see results export)")
        fig = plots.plot_metric_vs_param(
            res.plot_points([args.metric]), args.x, args.metric, args.group
        )
    path = plots.save(fig, args.output)
    out.print(f"figure written to {path}", highlight=False)
    return EXIT_OK


def cmd_reproduce(args: argparse.Namespace, out: Console, err: Console) -> int:
    from rich.table import Table

    from ..reproduce import find_recipe, list_recipes, reproduce

    if args.list or not args.name:
        t = Table(title="recipes (radiotcp reproduce NAME)", title_justify="left")
        t.add_column("name")
        t.add_column("what it reproduces")
        t.add_row("tour", "one headline figure of each of the five systems, reduced runs")
        for name, title, _ in list_recipes():
            t.add_row(name, title)
        out.print(t)
        return EXIT_OK
    if args.name == "tour":
        return _cmd_tour(args, out, err)
    # An unknown recipe is an error before the store is opened or a progress bar is drawn.
    find_recipe(args.name)
    dest = args.output or Path("results") / "reproduce" / args.name
    with _store(args) as store, _progress(err, not args.no_progress) as prog:
        rep = reproduce(
            args.name,
            dest,
            store,
            runs=args.runs,
            jobs=args.jobs,
            cluster=args.cluster,
            progress=prog,
        )
    res = rep.result
    _print_points(out, res, rep.recipe.report.metrics[:4], limit=40)
    out.print(
        f"{res.computed} runs computed now, {len(res.records) - res.computed} from the "
        f"store {args.store}",
        highlight=False,
    )
    out.print(f"report: {(dest / 'report.md').resolve()}", highlight=False)
    out.print(f"figures and CSV: {dest.resolve()}", highlight=False)
    return EXIT_OK


def _cmd_tour(args: argparse.Namespace, out: Console, err: Console) -> int:
    """`reproduce tour`: the stops of recipes/tour/tour.toml (radiotcp.tour)."""
    from ..tour import NAME, run_tour

    if args.runs is not None:
        raise ConfigError(
            "--runs", str(args.runs), "no --runs with the tour (each stop sets its own)"
        )
    dest = args.output or Path("results") / "reproduce" / NAME
    with _store(args) as store, _progress(err, not args.no_progress) as prog:
        res = run_tour(dest, store, jobs=args.jobs, cluster=args.cluster, progress=prog)
    for stop, rep in zip(res.tour.stops, res.stops, strict=True):
        fig = rep.out / f"{rep.recipe.figures[0].file}.png"
        out.print(f"{stop.system}: {fig.resolve()}", highlight=False)
    out.print(
        f"{res.computed} runs computed now, {res.runs - res.computed} from the store {args.store}",
        highlight=False,
    )
    out.print(f"tour report: {res.report.resolve()}", highlight=False)
    return EXIT_OK


def add_commands(sub: Any) -> None:
    """Register the experiment commands on the main parser's subparsers."""
    fmt = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser(
        "sweep",
        help="run a parameter sweep with replications (resumable)",
        description="Run every point of a sweep file, N replications each, "
        "storing each run in the results store.",
        epilog=SWEEP_EPILOG,
        formatter_class=fmt,
    )
    p.add_argument("sweep", type=Path, help="sweep TOML file")
    add_config_args(
        p,
        overrides="add a setting to every point (repeatable)",
        overrides_metavar="KEY=VALUE",
        runs=Flag("replications per point (overrides the file)"),
        seed=Flag("base seed (overrides the file)"),
        json="print the points as JSON",
        output=Flag("also write runs.csv and points.csv into DIR", metavar="DIR"),
    )
    _add_run_options(p)
    p.set_defaults(func=cmd_sweep)

    p = sub.add_parser(
        "results",
        help="list or export what the results store holds",
        description="List the sweeps in the results store, or export one.",
        epilog="examples:\n  radiotcp results list\n"
        "  radiotcp results export wired-buffer --format parquet -o runs.parquet\n"
        "  radiotcp results export wired-buffer --points -o points.csv",
        formatter_class=fmt,
    )
    p.add_argument("action", choices=["list", "export"])
    p.add_argument("name", nargs="?", help="sweep to export")
    p.add_argument("--points", action="store_true", help="one row per point (mean, CI, n)")
    p.add_argument("--format", choices=["csv", "parquet"], default="csv")
    add_config_args(p, output=Flag())
    p.add_argument("--store", type=Path, default=DEFAULT_STORE)
    p.set_defaults(func=cmd_results)

    p = sub.add_parser(
        "plot",
        help="plot a stored sweep (metric vs parameter, with 90%% CIs)",
        description="Plot a metric of a stored sweep against a swept key, one "
        "line per value of another; without --metric, goodput and delay panels.",
        epilog="examples:\n  radiotcp plot wired-buffer --x links.1.queue.limit_packets"
        " --group flows.count -o fig.png\n  radiotcp plot wired-buffer --x "
        "links.1.queue.limit_packets --metric drops -o drops.pdf",
        formatter_class=fmt,
    )
    p.add_argument("name", help="sweep name in the store")
    p.add_argument("--x", required=True, help="swept key on the x axis")
    p.add_argument("--metric", default=None, help="metric (default: goodput and delay panels)")
    p.add_argument("--group", default=None, help="swept key giving one line per value")
    add_config_args(p, output=Flag("PNG, PDF or SVG file", required=True))
    p.add_argument("--store", type=Path, default=DEFAULT_STORE)
    p.set_defaults(func=cmd_plot)

    p = sub.add_parser(
        "reproduce",
        help="run a named reproduction recipe (sweep + figures)",
        description="Run a recipe from recipes/: its sweep, figures (PNG, SVG), "
        "CSV files and a Markdown report with the table of numbers.",
        epilog=REPRODUCE_EPILOG,
        formatter_class=fmt,
    )
    p.add_argument("name", nargs="?", help="recipe name or recipe file")
    p.add_argument("--list", action="store_true", help="list the recipes")
    add_config_args(
        p,
        runs=Flag("replications per point instead of the recipe's (stored separately)"),
        output=Flag("output folder (results/reproduce/NAME)", metavar="OUT"),
        output_flags=("--out",),
    )
    _add_run_options(p)
    p.set_defaults(func=cmd_reproduce)
