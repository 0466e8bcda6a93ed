"""``radiotcp run | validate``: one scenario, checked or run with replications.

The configuration models, numpy and rich are imported by the commands, not with this module
(``radiotcp --help`` builds this parser).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from .. import _core
from ..errors import ConfigError
from ..run import replications
from .common import (
    ALLOW_MANY_HELP,
    EXIT_INTERRUPTED,
    EXIT_OK,
    MAX_RUNS,
    SET_HELP,
    YES_HELP,
    Flag,
    add_config_args,
    check_count,
    check_output_dir,
    check_output_file,
    check_work,
    emit_table,
)

if TYPE_CHECKING:
    from rich.console import Console

    from ..config import ScenarioConfig
    from ..run import Replication, Results, Summary

RUN_EPILOG = """\
examples:
  radiotcp run scenarios/wired-384k.toml
  radiotcp run scenarios/wired-384k.toml --set flows.count=4 --runs 5
  radiotcp run scenarios/wired-384k.toml --set links.1.queue.limit_packets=20 \\
      --set tcp.variant=reno --json > results.json
  radiotcp run scenarios/wired-384k.toml --runs 3 --traces traces.npz
  radiotcp run scenarios/umts-384k.toml --set tcp.profile=linux --pcap caps --pcap-at ue

--set KEY.PATH=VALUE mirrors the TOML structure; integer segments index lists
(links.0 is the first [[links]] table). VALUE is read as a TOML value (4, 0.5, true,
[0, 1.5], "text"), falling back to a plain string (tcp.variant=reno); null unsets an
optional key. Run i uses (seed, run index i); the same seed gives the same results.
The table shows the mean over runs and the half-width of the 90% Student-t
confidence interval of the mean (empty for a single run).

A run estimated to take more than 2 s shows its simulated time and an ETA. Each run has a
budget: --max-events (default 1e9) and --max-wall-s (default 3600); a run that reaches one
stops and its metrics, covering the simulated time it reached, are marked partial (0 = no
limit). Ctrl-C stops a run within a second. Work estimated above 1e10 events in all (runs x
the core's estimate per run) is refused unless --yes.

Runs are summarised as they finish and not kept: memory does not grow with --runs. The JSON
document (--json, --output) then lists per_run first and the summary after it.
"""

# A run's default budget (docs/usage.md): about 2 to 30 minutes of work, depending on the
# access network; a user who needs more raises them or sets 0.
DEFAULT_MAX_EVENTS = 1_000_000_000
DEFAULT_MAX_WALL_S = 3600.0
# Estimated wall time (s) of all runs above which `run` shows the simulated-time progress.
PROGRESS_ABOVE_S = 2.0

VALIDATE_EPILOG = """\
examples:
  radiotcp validate scenarios/wired-384k.toml
  radiotcp validate scenarios/wired-384k.toml --set flows.count=4 --show-config
"""

SCENARIO_SET_HELP = f"{SET_HELP}, e.g. --set flows.count=4"


def add_commands(sub: Any) -> None:
    """Register ``run`` and ``validate`` on the main parser's subparsers."""
    p_run = sub.add_parser(
        "run",
        help="run replications of a scenario and print mean and 90%% CI of every metric",
        description="Run replications of a scenario and summarise the metrics over the runs.",
        epilog=RUN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_config_args(
        p_run,
        scenario=True,
        overrides=SCENARIO_SET_HELP,
        show_config=True,
        runs=Flag(
            f"independent replications (default 1, at most {MAX_RUNS:,})", default=1, metavar="N"
        ),
        seed=Flag("base seed of the runs (default 1)", default=1, metavar="S"),
        json="print machine-readable JSON on stdout instead of the table (same as --format json)",
        formats=("table", "markdown", "csv", "json"),
        output=Flag("also write the JSON results to FILE.json", metavar="FILE.json"),
    )
    p_run.add_argument("--allow-many-runs", action="store_true", help=ALLOW_MANY_HELP)
    p_run.add_argument("--yes", action="store_true", help=YES_HELP)
    p_run.add_argument(
        "--traces",
        type=Path,
        metavar="FILE.npz",
        help="record cwnd, ssthresh, sequence and queue traces and save them to FILE.npz "
        "(arrays named run<i>.<trace>.<time_s|id|value>)",
    )
    p_run.add_argument(
        "--pcap",
        type=Path,
        metavar="DIR",
        help="write pcap files of every run into DIR: <point>-run<i>.pcap, IPv4/TCP headers "
        "in simulated time, for Wireshark, tshark or tcptrace (docs/usage.md, 'pcap export')",
    )
    p_run.add_argument(
        "--pcap-at",
        action="append",
        metavar="POINT",
        help="where to capture with --pcap: 'server' (default), 'ue', or a link's name; "
        "repeat for several",
    )
    p_run.add_argument(
        "--all",
        action="store_true",
        help="show per-flow and per-link metrics in the table too (--json always has them)",
    )
    p_run.add_argument(
        "--max-events",
        type=int,
        default=DEFAULT_MAX_EVENTS,
        metavar="N",
        help="stop a run after N events, keeping its metrics marked partial "
        "(default %(default)d; 0 = no limit)",
    )
    p_run.add_argument(
        "--max-wall-s",
        type=float,
        default=DEFAULT_MAX_WALL_S,
        metavar="S",
        help="stop a run after S seconds of wall time, keeping its metrics marked partial "
        "(default %(default)g; 0 = no limit)",
    )
    p_run.set_defaults(func=cmd_run)

    p_val = sub.add_parser(
        "validate",
        help="check a scenario file and the overrides; print OK or every problem",
        description="Check a scenario file (and --set overrides) without running it. "
        "Exits 0 when valid, 2 otherwise.",
        epilog=VALIDATE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_config_args(p_val, scenario=True, overrides=SCENARIO_SET_HELP, show_config=True)
    p_val.set_defaults(func=cmd_validate)


# --------------------------------------------------------------------------------------------


def _clean(x: Any) -> Any:
    """JSON-safe copy: NaN and infinities become null."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    return x


def _payload_summary(
    acc: Results | Summary, cfg: ScenarioConfig, scenario: str | None
) -> dict[str, Any]:
    """The keys of the ``run --json`` document that summarise the runs (see
    :func:`results_payload`)."""
    from ..config import to_dict
    from ..stats import CONFIDENCE

    return _clean(
        {
            "metrics": {
                k: {"mean": m, "ci90_half_width": h, "n": n} for k, (m, h, n) in acc.summary.items()
            },
            "wall_time_s": acc.wall_time_s,
            "runs": acc.n_runs,
            "seed": acc.seed,
            "confidence": CONFIDENCE,
            "scenario": scenario,
            "version": _core.version(),
            "config": to_dict(cfg),
            "partial": acc.partial,
            "identical_runs": acc.identical,
            "note": identical_note(acc),
        }
    )


def results_payload(res: Results, scenario: str | None = None) -> dict[str, Any]:
    """The document printed by ``run --json`` (NaN written as null).

    ``metrics``: name -> {"mean", "ci90_half_width", "n"}; ``per_run``: the flat metrics of
    every run; ``partial`` / ``halted``: whether and why runs ended early by their budget
    (``Results.halted``); ``runs``: number of runs; ``seed``; ``wall_time_s``; ``config``:
    the resolved configuration; ``scenario``: the file; ``version``: the core's version;
    ``identical_runs`` / ``note``: whether every run gave the same metrics; ``pcap``: the
    files written. ``radiotcp run`` writes the same document as the runs finish
    (:class:`_JsonDocument`).
    """
    return {
        **_payload_summary(res, res.config, scenario),
        "per_run": _clean(res.runs),
        "halted": res.halted,
        "pcap": [f for raw in res.raw for f in raw.get("pcap", [])],
    }


def identical_note(res: Results | Summary) -> str | None:
    """What to say when every run gave the same metrics (None otherwise)."""
    if not res.identical:
        return None
    return (
        f"{res.n_runs} runs identical: the scenario has no random element, so the interval "
        "of 0 says nothing; set a loss rate or a start jitter (flows.start_jitter_s)"
    )


def _fmt(x: float) -> str:
    if not math.isfinite(x):
        return ""
    if float(x).is_integer() and abs(x) < 1e15:
        return f"{x:,.0f}"
    if abs(x) >= 1000:
        return f"{x:,.1f}"
    return f"{x:.4g}"


def _is_detail(name: str) -> bool:
    return name.startswith(("flows.", "links.", "lte.ues."))


def print_table(
    console: Console, res: Results | Summary, show_all: bool, fmt: str | None = None
) -> None:
    """The summary as a table (``fmt`` None or table: rich; markdown; csv with the numbers
    unrounded, every metric)."""
    from ..stats import CONFIDENCE

    n_runs = res.n_runs
    ci = f"±{round(CONFIDENCE * 100)}% CI"
    cells: list[list[str]] = []
    raw: list[list[Any]] = []
    hidden = 0
    for name, (mean, half, n) in res.summary.items():
        if _is_detail(name) and not show_all and fmt != "csv":
            hidden += 1
            continue
        # A spread below floating-point noise (identical runs) reads as 0.
        if math.isfinite(half) and half <= 1e-12 * max(1.0, abs(mean)):
            half = 0.0
        cells.append([name, _fmt(mean), _fmt(half), str(n)])
        raw.append([name, mean, half, n])
    if fmt == "csv":
        emit_table(console, "csv", "", ["metric", "mean", "ci90_half_width", "n"], [], raw)
        return
    title = f"{n_runs} run{'s' if n_runs != 1 else ''}, seed {res.seed}"
    emit_table(console, fmt, title, ["metric", "mean", ci, "n"], cells, right=(1, 2, 3))
    note = identical_note(res)
    if note and fmt == "markdown":
        print(f"note: {note}", file=sys.stderr)
    elif note:
        console.print(f"[yellow]note:[/yellow] {note}", highlight=False)
    if hidden and fmt == "markdown":
        print(f"{hidden} per-flow/per-link/per-UE metrics not shown (--all)", file=sys.stderr)
    elif hidden:
        console.print(
            f"[dim]{hidden} per-flow/per-link/per-UE metrics not shown (--all or --json)[/dim]"
        )


def _resolve(args: argparse.Namespace) -> ScenarioConfig:
    from ..config import load

    return load(Path(args.scenario), args.overrides)


def cmd_validate(args: argparse.Namespace, out: Console, err: Console) -> int:
    from ..config import to_toml

    cfg = _resolve(args)
    if args.show_config:
        out.print(to_toml(cfg), markup=False, highlight=False, soft_wrap=True)
    # With the configuration on stdout, the status goes to stderr: stdout stays loadable TOML.
    (err if args.show_config else out).print(
        f"OK: {args.scenario} ({cfg.flows.count} flow{'s' if cfg.flows.count != 1 else ''}, "
        f"{len(cfg.links)} link{'s' if len(cfg.links) != 1 else ''}, "
        f"{cfg.simulation.duration_s:g} s, {cfg.tcp.variant})",
        markup=False,
        highlight=False,
    )
    return EXIT_OK


class _JsonDocument:
    """The ``run --json`` document (:func:`results_payload`), written to each of ``streams``
    as the runs finish: ``per_run`` first, one run at a time, then the summary, ``halted``
    and ``pcap`` once every run is done. Nothing of a run is kept."""

    def __init__(self, streams: list[IO[str]]) -> None:
        self.streams = streams
        self.n = 0
        self._write('{\n  "per_run": [')

    def _write(self, text: str) -> None:
        for s in self.streams:
            s.write(text)

    def add(self, metrics: dict[str, float]) -> None:
        text = json.dumps(_clean(metrics), indent=2).replace("\n", "\n    ")
        self._write(("," if self.n else "") + "\n    " + text)
        self.n += 1

    def finish(self, summary: dict[str, Any], lists: dict[str, Iterable[Any]]) -> None:
        self._write("\n  ]" if self.n else "]")
        for key, value in summary.items():
            text = json.dumps(value, indent=2).replace("\n", "\n  ")
            self._write(f",\n  {json.dumps(key)}: {text}")
        for key, items in lists.items():
            self._write(f",\n  {json.dumps(key)}: [")
            first = True
            for item in items:
                text = json.dumps(_clean(item), indent=2).replace("\n", "\n    ")
                self._write(("" if first else ",") + "\n    " + text)
                first = False
            self._write("]" if first else "\n  ]")
        self._write("\n}\n")


def _temporary_beside(path: Path) -> Path:
    """A file name in ``path``'s folder for writing it whole before renaming it into place
    (created by its writer, with the permissions any new file gets)."""
    import secrets

    return path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.part")


class _TraceWriter:
    """``--traces FILE.npz``, written run by run (the arrays of ``np.savez_compressed``, named
    ``run<i>.<trace>.<column>``) into a temporary file renamed into place at the end."""

    def __init__(self, path: Path) -> None:
        import zipfile

        self.path = path
        self.tmp = _temporary_beside(path)
        self.zip = zipfile.ZipFile(self.tmp, "w", compression=zipfile.ZIP_DEFLATED)

    def add(self, index: int, traces: dict[str, dict[str, Any]]) -> None:
        import numpy as np

        for name, cols in traces.items():
            for col, arr in cols.items():
                with self.zip.open(f"run{index}.{name}.{col}.npy", "w", force_zip64=True) as f:
                    np.lib.format.write_array(f, np.asanyarray(arr), allow_pickle=False)

    def finish(self) -> None:
        self.zip.close()
        os.replace(self.tmp, self.path)

    def abort(self) -> None:
        self.zip.close()
        self.tmp.unlink(missing_ok=True)


class _Spool:
    """Items (JSON values) kept in a temporary file rather than in memory, read back in order."""

    def __init__(self) -> None:
        # Closed (and so removed) when the spool is collected.
        self.file = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115
        self.count = 0

    def add(self, item: Any) -> None:
        self.file.write(json.dumps(item) + "\n")
        self.count += 1

    def __iter__(self) -> Iterator[Any]:
        self.file.flush()
        self.file.seek(0)
        for line in self.file:
            yield json.loads(line)


@dataclass
class _Display:
    """What the run loop reports to: the runs done, the simulated time of the current run,
    and warnings (printed above a progress display when one is drawn)."""

    on_run: Callable[[int, int], None] | None = None
    on_sim: Callable[[int, float, int], None] | None = None
    warn: Callable[[str], None] = lambda line: print(line, file=sys.stderr)


@contextmanager
def _display(cfg: ScenarioConfig, runs: int, err: Console, enabled: bool) -> Iterator[_Display]:
    """A progress display on stderr (when ``enabled``): the runs done (several runs) and the
    simulated time of the current run with an ETA."""
    if not enabled:
        yield _Display()
        return
    from rich.progress import (
        BarColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    duration = cfg.simulation.duration_s
    progress = Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[shown]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    )
    with progress:
        runs_task = None
        if runs > 1:
            runs_task = progress.add_task("runs", total=runs, shown=f"0/{runs}")
        sim_task = progress.add_task("simulated", total=duration, shown="")

        def on_sim(i: int, t: float, events: int) -> None:
            shown = f"{t:,.1f} of {duration:g} s, {events:,} events"
            progress.update(sim_task, completed=t, shown=shown)

        def on_run(done: int, total: int) -> None:
            if runs_task is not None:
                progress.update(runs_task, completed=done, shown=f"{done}/{total}")
            progress.reset(sim_task, total=duration, shown="")

        def warn(line: str) -> None:
            progress.console.print(line, markup=False, highlight=False, soft_wrap=True)

        yield _Display(on_run, on_sim, warn)


class _Outputs:
    """Where ``radiotcp run`` writes each run as it finishes: the JSON document (stdout with
    --json, the --output file), the --traces archive and the list of pcap files; the files
    are written under temporary names and renamed into place by :meth:`finish`."""

    def __init__(self, args: argparse.Namespace, fmt: str | None) -> None:
        self.stdout_json = fmt == "json"
        self.output: Path | None = args.output
        self.output_tmp: Path | None = None
        self.output_file: IO[str] | None = None
        self.traces: _TraceWriter | None = None
        self.pcap = _Spool()
        self.halted: _Spool = _Spool()
        streams: list[IO[str]] = []
        flag = "--output"
        try:
            if self.output is not None:
                self.output_tmp = _temporary_beside(self.output)
                self.output_file = self.output_tmp.open("w", encoding="utf-8")
                streams.append(self.output_file)
            flag = "--traces"
            if args.traces is not None:
                self.traces = _TraceWriter(args.traces)
        except OSError as e:
            self.abort()
            value = args.output if flag == "--output" else args.traces
            raise ConfigError(flag, str(value), f"a writable file ({e})") from None
        if self.stdout_json:
            streams.append(sys.stdout)
        self.json = _JsonDocument(streams) if streams else None

    def add(self, rep: Replication) -> None:
        if self.json is not None:
            self.json.add(rep.metrics)
        if self.traces is not None:
            self.traces.add(rep.index, rep.traces or {})
        for f in rep.raw.get("pcap", []):
            self.pcap.add(f)
        if rep.halted is not None:
            self.halted.add([rep.index, rep.halted])

    def _halted(self, n: int) -> Iterator[str | None]:
        marks = iter(self.halted)
        nxt = next(marks, None)
        for i in range(n):
            if nxt is not None and nxt[0] == i:
                yield nxt[1]
                nxt = next(marks, None)
            else:
                yield None

    def finish(self, summary: dict[str, Any], n: int) -> None:
        if self.json is not None:
            self.json.finish(summary, {"halted": self._halted(n), "pcap": self.pcap})
        if self.output_file is not None and self.output_tmp is not None and self.output:
            self.output_file.close()
            os.replace(self.output_tmp, self.output)
            self.output_tmp = None
        if self.traces is not None:
            self.traces.finish()
            self.traces = None

    def abort(self) -> None:
        """Remove the files not yet complete (on an interruption or a failure)."""
        if self.output_file is not None:
            self.output_file.close()
        if self.output_tmp is not None:
            self.output_tmp.unlink(missing_ok=True)
        if self.traces is not None:
            self.traces.abort()


def _interrupted_line(done: int, runs: int, outputs: _Outputs, pcap_dir: Path | None) -> str:
    """The Ctrl-C line of ``radiotcp run``: what was stopped and what, truthfully, was
    written (the core writes pcap files as a run goes: the stopped run's are cut short)."""
    head = "interrupted (Ctrl-C): the run was stopped"
    if runs > 1 and done:
        head = f"interrupted (Ctrl-C) after {done} of {runs} runs: the runs were stopped"
    said = []
    if outputs.stdout_json and done:
        said.append("the JSON on stdout is incomplete")
    if pcap_dir is not None:
        if done:
            s = "s" if done != 1 else ""
            said.append(f"the pcap files of the {done} finished run{s} are in {pcap_dir}")
        cut = sorted(pcap_dir.glob(f"*-run{done}.pcap"))
        if cut:
            files = ", ".join(map(str, cut))
            said.append(f"the pcap files of run {done}, cut short where it stopped: {files}")
    if not said:
        return f"{head}, nothing was written"
    others = [f for f, v in (("--output", outputs.output), ("--traces", outputs.traces)) if v]
    if others:
        said.append(f"{' and '.join(others)} not written")
    return f"{head}; {'; '.join(said)}"


def cmd_run(args: argparse.Namespace, out: Console, err: Console) -> int:
    from ..config import to_toml
    from ..cost import estimate
    from ..run import Summary

    fmt = args.format
    if args.json:
        if fmt not in (None, "json"):
            raise ConfigError("--format", fmt, "json or no --format with --json")
        fmt = "json"
    limit = None if args.allow_many_runs else MAX_RUNS
    check_count("--runs", args.runs, maximum=limit, allow_flag="--allow-many-runs")
    if not 0 <= args.seed < 2**64:
        raise ConfigError("--seed", str(args.seed), "an integer in [0, 2**64)")
    # Every output checked before the first run: hours of runs never end in 'cannot write'.
    if args.output is not None:
        check_output_file("--output", args.output)
    if args.traces is not None:
        check_output_file("--traces", args.traces)
    if args.pcap is not None:
        check_output_dir("--pcap", args.pcap)
    cfg = _resolve(args)
    if args.show_config and fmt != "json":
        # Only the configuration, then stop: `run FILE --show-config > resolved.toml` gives a
        # file that loads, as `validate --show-config` does.
        out.print(to_toml(cfg), markup=False, highlight=False, soft_wrap=True)
        return EXIT_OK

    if args.max_events < 0:
        raise ConfigError("--max-events", str(args.max_events), "an integer >= 0 (0 = no limit)")
    if not (math.isfinite(args.max_wall_s) and args.max_wall_s >= 0):
        raise ConfigError("--max-wall-s", str(args.max_wall_s), "a number >= 0 (0 = no limit)")
    budget: dict[str, Any] = {
        "max_events": args.max_events or None,
        "max_wall_s": args.max_wall_s or None,
    }
    cost = estimate(cfg)
    runs_text = f"{args.runs:,} run{'s' if args.runs != 1 else ''}"
    check_work(cost.events * args.runs, cost.wall_s * args.runs, runs_text, args.yes)
    if budget["max_events"] is not None and cost.events > budget["max_events"]:
        print(
            f"warning: a run is estimated at {cost.events:.2g} events, above --max-events "
            f"{args.max_events}: it will stop early with partial metrics "
            "(raise --max-events, or 0 = no limit)",
            file=sys.stderr,
        )

    want_traces = args.traces is not None
    capture = _capture_options(args, cfg)
    # The display is for a person at a terminal; logs and pipes get the final lines only.
    shown = err.is_terminal and (args.runs > 1 or cost.wall_s * args.runs > PROGRESS_ABOVE_S)
    acc = Summary(args.seed)
    outputs = _Outputs(args, fmt)
    duration = cfg.simulation.duration_s
    try:
        with _display(cfg, args.runs, err, shown) as show:
            reps = iter(
                replications(
                    cfg,
                    seed=args.seed,
                    runs=args.runs,
                    traces=want_traces,
                    sim_progress=show.on_sim,
                    **budget,
                    **capture,
                )
            )
            while True:
                try:
                    rep = next(reps, None)
                except OSError as e:
                    raise ConfigError(
                        "--pcap", str(args.pcap), f"a writable directory ({e})"
                    ) from None
                if rep is None:
                    break
                acc.add(rep.metrics, rep.wall_time_s, rep.halted)
                outputs.add(rep)
                if rep.halted is not None:
                    reached = rep.raw["duration_s"]
                    show.warn(
                        f"warning: run {rep.index} stopped at {rep.halted.replace('_', ' ')} "
                        f"(simulated {reached:.6g} s of {duration:g} s): its metrics are "
                        f"partial, over [0, {reached:.6g}] s"
                    )
                if show.on_run is not None:
                    show.on_run(rep.index + 1, args.runs)
        outputs.finish(_payload_summary(acc, cfg, args.scenario), acc.n_runs)
    except KeyboardInterrupt:
        outputs.abort()
        print(_interrupted_line(acc.n_runs, args.runs, outputs, args.pcap), file=sys.stderr)
        return EXIT_INTERRUPTED
    except BaseException:
        outputs.abort()
        raise
    if fmt == "json":
        sys.stdout.flush()
        return EXIT_OK
    print_table(out, acc, args.all, fmt)
    if fmt in ("markdown", "csv"):
        # stdout holds the table alone; what was written is said on stderr.
        out = err
    out.print(
        f"wall time {acc.wall_time_s:.3f} s (simulation in the core, {runs_text})",
        highlight=False,
    )
    if args.output is not None:
        out.print(f"results written to {args.output}", highlight=False)
    if want_traces:
        out.print(f"traces written to {args.traces}", highlight=False)
    for f in outputs.pcap:
        out.print(f"pcap written to {f['path']} ({f['packets']:,} packets)", highlight=False)
    return EXIT_OK


def _capture_options(args: argparse.Namespace, cfg: ScenarioConfig) -> dict[str, Any]:
    """The pcap export's arguments of :func:`radiotcp.run`, the points checked against the
    scenario's links."""
    if args.pcap is None:
        if args.pcap_at:
            raise ConfigError("--pcap-at", args.pcap_at[0], "used with --pcap DIR")
        return {}
    links = [link.name for link in cfg.links]
    points = list(dict.fromkeys(args.pcap_at or ["server"]))
    for p in points:
        if p not in ("server", "ue", *links):
            allowed = ", ".join(["'server'", "'ue'", *(f"'{n}'" for n in links)])
            raise ConfigError("--pcap-at", p, f"one of {allowed}")
    return {"pcap": args.pcap, "pcap_points": points}
