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
from .common import (
    ALLOW_MANY_HELP,
    EXIT_INTERRUPTED,
    EXIT_OK,
    MAX_RUNS,
    YES_HELP,
    CommandFailed,
    Flag,
    add_config_args,
    check_count,
    check_figure_file,
    check_output_dir,
    check_output_file,
    check_work,
    connect_cluster,
    emit_table,
)

if TYPE_CHECKING:
    from rich.console import Console

    from ..store import Store
    from ..sweep import SweepPlan, SweepResult

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
again: an interrupted sweep resumes where it stopped. A point's seed is derived from the base
seed and the point's fully resolved configuration (not the names of the swept keys), and its
run r uses (that seed, run index r): the same configuration gets the same numbers in every
sweep or recipe. A sweep name already in the store with other points (base, set, grid, zip,
seed) is refused unless --replace; only runs may change (more or fewer replications).
Before any run the work is estimated (points x runs x the core's events per run): above
1e10 events the sweep is refused unless --yes. A point whose runs all gave the same metrics
has its n marked "=" (points.csv: identical).

examples:
  radiotcp sweep my-sweep.toml
  radiotcp sweep my-sweep.toml --runs 5 --jobs 1 --output results/my-sweep
  radiotcp sweep my-sweep.toml --cluster tcp://scheduler:8786
"""

REPRODUCE_EPILOG = """\
examples:
  radiotcp reproduce --list
  radiotcp reproduce wired-buffer                  # figures, CSV and report.md
  radiotcp reproduce wired-buffer --runs 5 -o /tmp/quick
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
    # Drawn on the first report, once the sweep is planned: an invalid point or store is an
    # error line with no bar above it.
    task: list[Any] = []

    def update(done: int, total: int) -> None:
        if not task:
            progress.start()
            task.append(progress.add_task("runs", total=None))
        progress.update(task[0], completed=done, total=total)

    try:
        yield update
    finally:
        if task:
            progress.stop()


def _store(args: argparse.Namespace) -> Store:
    from ..store import Store

    if args.store.is_dir():
        raise ConfigError("--store", str(args.store), "an SQLite file (this is a folder)")
    try:
        return Store(args.store)
    except Exception as e:
        raise ConfigError("--store", str(args.store), f"a writable SQLite file ({e})") from None


# More local workers than this is a typo, not a machine.
MAX_JOBS = 4096


def _check_run_options(args: argparse.Namespace) -> str | None:
    """--runs, --jobs, the output folder and --cluster, before anything is opened or run;
    returns the cluster's address for Dask (None: run locally)."""
    limit = None if args.allow_many_runs else MAX_RUNS
    check_count("--runs", args.runs, maximum=limit, allow_flag="--allow-many-runs")
    check_count("--jobs", args.jobs, maximum=MAX_JOBS)
    if args.output is not None:
        check_output_dir("--output", args.output)
    return connect_cluster(args.cluster) if args.cluster else None


def _interrupted(store: Store) -> int:
    """Ctrl-C during a sweep, a recipe or the tour: the one line that says what is kept."""
    print(
        f"interrupted (Ctrl-C): the runs finished so far are kept in {store.path}; "
        "run the same command again to resume",
        file=sys.stderr,
    )
    return EXIT_INTERRUPTED


def _stopped(store: Store, e: BaseException) -> CommandFailed:
    """A store or disk failure in the middle of a sweep, as the one line to print."""
    return CommandFailed(
        f"the sweep stopped: {e} (results store {store.path}); the runs already stored are "
        "kept: free space or fix the store, then run the same command again to resume"
    )


def _add_store(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--store", type=Path, default=DEFAULT_STORE, help=f"results store ({DEFAULT_STORE})"
    )


def _add_run_options(p: argparse.ArgumentParser) -> None:
    _add_store(p)
    p.add_argument("--jobs", type=int, default=None, help="cores of the local pool (default: all)")
    p.add_argument(
        "--cluster",
        default=None,
        metavar="ADDRESS",
        help="run on this Dask scheduler (tcp://host:8786) instead of locally",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--allow-many-runs", action="store_true", help=ALLOW_MANY_HELP)
    p.add_argument("--yes", action="store_true", help=YES_HELP)


def _work_check(args: argparse.Namespace) -> Callable[[SweepPlan], None]:
    """The check of a sweep's estimated work before it starts (``run_sweep(check=...)``):
    above the limit it is refused unless --yes."""

    def check(sp: SweepPlan) -> None:
        events, wall = sp.estimate()
        what = f"{len(sp.points):,} points x {sp.spec.runs:,} runs"
        check_work(events, wall, what, args.yes)

    return check


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
    out: Console,
    res: SweepResult,
    metrics: list[str],
    limit: int | None = None,
    fmt: str | None = None,
) -> None:
    """The points as a table (at most `limit` rows: a big sweep's table belongs in its CSV);
    ``fmt`` markdown or csv (every point, the full keys; csv with the raw numbers)."""
    params = res.param_names()
    points = res.points()
    shown = [m for m in metrics if m in res.metrics]
    if fmt == "csv":
        headers = [*params, "runs", "identical"] + [c for m in shown for c in (m, f"{m}.ci90")]
        raw = [[row[h] for h in headers] for row in points]
        emit_table(out, "csv", "", headers, [], raw)
        return
    title = f"sweep {res.name}: {len(res.records)}/{res.expected} runs; mean ± 90% CI"
    headers = [*(p if fmt == "markdown" else _short(p) for p in params), "n", *shown]
    cells = [
        [
            *[str(row[p]) for p in params],
            f"{row['runs']}{IDENTICAL_MARK if row['identical'] else ''}",
            *[_fmt(row[m], row[f"{m}.ci90"]) for m in shown],
        ]
        for row in (points if fmt == "markdown" else points[:limit])
    ]
    emit_table(out, fmt, title, headers, cells, right=tuple(range(len(headers))))
    same = sum(1 for row in points if row["identical"])
    note = identical_points_note(same, len(points))
    if note and fmt == "markdown":
        print(f"note: {note}", file=sys.stderr)
    elif note:
        out.print(f"[yellow]note:[/yellow] {note}", highlight=False)
    if fmt == "markdown":
        return
    if limit is not None and len(points) > limit:
        out.print(
            f"... and {len(points) - limit} more points (all of them in points.csv and the report)",
            highlight=False,
        )


# Marks, in a sweep's table, a point whose runs all gave the same metrics.
IDENTICAL_MARK = " ="


def identical_points_note(same: int, points: int) -> str | None:
    """What to say under a sweep's table when points have identical runs (None if none)."""
    if not same:
        return None
    which = "every point" if same == points else f"{same} of {points} points"
    return (
        f"n{IDENTICAL_MARK}: the runs of {which} are identical (no random element in the "
        "scenario), so an interval of 0 says nothing; set a loss rate or a start jitter "
        "(flows.start_jitter_s)"
    )


TABLE_FILES = ("runs.csv", "points.csv")


def _write_tables(res: SweepResult, folder: Path, written: list[Path]) -> None:
    """runs.csv and points.csv into ``folder``, each written whole under a temporary name and
    then renamed: a file named there is complete. ``written`` lists those done so far."""
    import os

    from ..sweep import write_csv

    folder.mkdir(parents=True, exist_ok=True)
    for name, rows in (("runs.csv", res.rows), ("points.csv", res.points)):
        dest = folder / name
        tmp = folder / f".{name}.{os.getpid()}.part"
        try:
            write_csv(tmp, rows())
            os.replace(tmp, dest)
        finally:
            tmp.unlink(missing_ok=True)
        written.append(dest)


def _interrupted_writing(args: argparse.Namespace, res: SweepResult, written: list[Path]) -> int:
    """Ctrl-C once every run is stored, while the tables are written or printed: what is
    stored, which files are complete, and how to get the others."""
    parts = [
        f"interrupted (Ctrl-C) after the sweep: its {len(res.records)} runs are stored in "
        f"{args.store}"
    ]
    if written:
        parts.append(f"written: {', '.join(str(p) for p in written)}")
    missing = [] if args.output is None else [args.output / n for n in TABLE_FILES]
    missing = [p for p in missing if p not in written]
    if missing:
        parts.append(
            f"not written: {', '.join(str(p) for p in missing)} (the same command again "
            "computes nothing and writes them)"
        )
    print("; ".join(parts), file=sys.stderr)
    return EXIT_INTERRUPTED


MAIN_METRICS = ["goodput_kbps", "delay_mean_ms", "drops", "timeouts"]


def _output_format(args: argparse.Namespace) -> str | None:
    """--format, with --json its alias (both given: they must agree)."""
    if args.json:
        if args.format not in (None, "json"):
            raise ConfigError("--format", args.format, "json or no --format with --json")
        return "json"
    return args.format


# What makes a sweep's points: a stored sweep of the same name must agree on all of them.
POINT_KEYS = ("base", "set", "grid", "zip", "zips", "seed")


def _check_same_sweep(store: Store, spec: Any, replace: bool) -> None:
    """Refuse a sweep name that the store holds with other points (a reused name would
    silently replace the stored sweep's membership)."""
    old = store.sweep_spec(spec.name)
    if old is None or replace:
        return
    new = spec.model_dump(mode="json")
    differ = [k for k in POINT_KEYS if k in old and old.get(k) != new.get(k)]
    if differ:
        raise ConfigError(
            "name",
            f'"{spec.name}"',
            f"a sweep name not already used in {store.path} for other points (the stored "
            f"sweep differs in {', '.join(differ)}): rename the sweep, use another --store, "
            "or add --replace",
        )


def cmd_sweep(args: argparse.Namespace, out: Console, err: Console) -> int:
    import sqlite3

    from .._lifetime import Terminated
    from ..sweep import load_sweep, plan_points, run_sweep

    fmt = _output_format(args)
    if args.seed is not None and not 0 <= args.seed < 2**64:
        raise ConfigError("--seed", str(args.seed), "an integer in [0, 2**64)")
    check_count("--runs", args.runs, maximum=None if args.allow_many_runs else MAX_RUNS)
    spec, base_dir = load_sweep(
        args.sweep, runs=args.runs, seed=args.seed, overrides=args.overrides
    )
    if spec.runs > MAX_RUNS and not args.allow_many_runs:
        raise ConfigError(
            "runs", str(spec.runs), f"an integer in [1, {MAX_RUNS}] (or add --allow-many-runs)"
        )
    cluster = _check_run_options(args)
    # Every point resolved and the work checked before the store is opened.
    planned = plan_points(spec, base_dir)
    _work_check(args)(planned)
    with _store(args) as store:
        _check_same_sweep(store, spec, args.replace)
        with _progress(err, not (args.no_progress or fmt == "json")) as prog:
            try:
                res = run_sweep(
                    spec,
                    base_dir,
                    store,
                    jobs=args.jobs,
                    cluster=cluster,
                    progress=prog,
                    planned=planned,
                )
            except KeyboardInterrupt:
                return _interrupted(store)
            except Terminated as e:
                # The pool is gone and every finished chunk committed: say what the store
                # holds.
                info = next((s for s in store.sweeps() if s["name"] == spec.name), None)
                held = f"{info['done']} of {info['expected']}" if info else "none of the"
                print(
                    f"{e}: {held} runs of sweep {spec.name} are stored in {store.path}; run "
                    "the same command again to compute the rest",
                    file=sys.stderr,
                )
                return e.exit_status
            except (sqlite3.Error, OSError) as e:
                raise _stopped(store, e) from None
    written: list[Path] = []
    try:
        if args.output:
            _write_tables(res, args.output, written)
        _show_sweep(out, err, args, res, fmt, written)
    except KeyboardInterrupt:
        return _interrupted_writing(args, res, written)
    return EXIT_OK


def _show_sweep(
    out: Console,
    err: Console,
    args: argparse.Namespace,
    res: SweepResult,
    fmt: str | None,
    files: list[Path],
) -> None:
    """A finished sweep on stdout: its points (table, markdown, csv or json) and, for a
    person, what was computed and written."""
    if fmt == "json":
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
        return
    _print_points(out, res, MAIN_METRICS, fmt=fmt)
    # The summary lines are for a person: with a machine format on stdout they go to stderr.
    note = out if fmt in (None, "table") else err
    note.print(
        f"{res.computed} runs computed now ({res.wall_time_s:.2f} s in the core), "
        f"{len(res.records) - res.computed} taken from {args.store}",
        highlight=False,
    )
    for f in files:
        note.print(f"written: {f}", highlight=False)


LIST_FORMATS = ("table", "markdown", "csv", "json")
EXPORT_FORMATS = ("csv", "parquet")


def cmd_results(args: argparse.Namespace, out: Console, err: Console) -> int:
    from ..sweep import read_sweep, write_csv

    if args.action == "list":
        fmt = "json" if args.json else args.format
        if fmt not in (None, *LIST_FORMATS):
            raise ConfigError("--format", fmt, f"one of {', '.join(LIST_FORMATS)} for list")
    else:
        if args.format not in (None, *EXPORT_FORMATS):
            raise ConfigError("--format", args.format, "csv or parquet for export")
        if not args.name:
            raise ConfigError("SWEEP", "", "the name of a sweep to export (see `results list`)")
        export_format = args.format or "csv"
        dest: Path = args.output or Path(
            f"{args.name}-{'points' if args.points else 'runs'}.{export_format}"
        )
        check_output_file("--output", dest)
        if not args.store.exists():
            raise ConfigError("--store", str(args.store), "an existing results store (not found)")
    with _store(args) as store:
        if args.action == "list":
            headers = ["sweep", "points", "runs/point", "stored", "expected"]
            keys = ["name", "points", "runs", "done", "expected"]
            sweeps = store.sweeps()
            raw = [[s[k] for k in keys] for s in sweeps]
            cells = [[str(v) for v in row] for row in raw]
            emit_table(out, fmt, f"sweeps in {store.path}", headers, cells, raw, right=(1, 2, 3, 4))
            if fmt in (None, "table"):
                out.print(f"{store.count_runs()} runs stored in all", highlight=False)
            return EXIT_OK
        res = read_sweep(store, args.name)
    rows = res.points() if args.points else res.rows()
    if export_format == "csv":
        write_csv(dest, rows)
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(rows), dest)
    out.print(f"{len(rows)} rows written to {dest}", highlight=False)
    return EXIT_OK


def cmd_plot(args: argparse.Namespace, out: Console, err: Console) -> int:
    from ..sweep import read_sweep

    check_figure_file("--output", args.output)
    if not args.store.exists():
        raise ConfigError("--store", str(args.store), "an existing results store (not found)")
    from .. import plots

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
    import sqlite3

    # An unknown recipe, a bad option or an unwritable folder is an error before the store is
    # opened or a progress bar is drawn.
    if args.name == "tour":
        if args.runs is not None:
            raise ConfigError(
                "--runs", str(args.runs), "none with the tour (each stop sets its own)"
            )
    else:
        find_recipe(args.name)
    dest = args.output or Path("results") / "reproduce" / args.name
    args.output = dest
    cluster = _check_run_options(args)
    if args.name == "tour":
        return _cmd_tour(args, out, err, dest, cluster)
    with _store(args) as store, _progress(err, not args.no_progress) as prog:
        try:
            rep = reproduce(
                args.name,
                dest,
                store,
                runs=args.runs,
                jobs=args.jobs,
                cluster=cluster,
                progress=prog,
                check=_work_check(args),
            )
        except KeyboardInterrupt:
            return _interrupted(store)
        except (sqlite3.Error, OSError) as e:
            raise _stopped(store, e) from None
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


def _cmd_tour(
    args: argparse.Namespace, out: Console, err: Console, dest: Path, cluster: Any
) -> int:
    """`reproduce tour`: the stops of recipes/tour/tour.toml (radiotcp.tour), options checked."""
    import sqlite3

    from ..tour import run_tour

    with _store(args) as store, _progress(err, not args.no_progress) as prog:
        try:
            res = run_tour(dest, store, jobs=args.jobs, cluster=cluster, progress=prog)
        except KeyboardInterrupt:
            return _interrupted(store)
        except (sqlite3.Error, OSError) as e:
            raise _stopped(store, e) from None
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
    p.add_argument("sweep", type=Path, metavar="SWEEP.toml", help="sweep TOML file")
    add_config_args(
        p,
        overrides="add a setting to every point (repeatable)",
        overrides_metavar="KEY=VALUE",
        runs=Flag(f"replications per point (overrides the file; at most {MAX_RUNS:,})"),
        seed=Flag("base seed (overrides the file)"),
        json="print the points as JSON (same as --format json)",
        formats=("table", "markdown", "csv", "json"),
        output=Flag("also write runs.csv and points.csv into DIR", metavar="DIR"),
    )
    _add_run_options(p)
    p.add_argument(
        "--replace",
        action="store_true",
        help="reuse a sweep name that the store holds with other points (the old sweep's "
        "membership is replaced; its runs stay in the store)",
    )
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
    p.add_argument(
        "action", choices=["list", "export"], help="list the sweeps, or export one to a file"
    )
    p.add_argument("name", nargs="?", help="sweep to export")
    p.add_argument("--points", action="store_true", help="one row per point (mean, CI, n)")
    p.add_argument(
        "--format",
        choices=[*LIST_FORMATS, "parquet"],
        default=None,
        help="list: table (default), markdown, csv or json on stdout; export: the file's "
        "format, csv (default) or parquet",
    )
    p.add_argument("--json", action="store_true", help="list: same as --format json")
    add_config_args(p, output=Flag("export: the file to write (default NAME-runs.FORMAT)"))
    _add_store(p)
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
    _add_store(p)
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
        output=Flag("output folder (default results/reproduce/NAME)", metavar="DIR"),
        out_alias=True,
    )
    _add_run_options(p)
    p.set_defaults(func=cmd_reproduce)
