"""``radiotcp run | validate``: one scenario, checked or run with replications.

The configuration models, numpy and rich are imported by the commands, not with this module
(``radiotcp --help`` builds this parser).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import _core
from ..errors import ConfigError
from ..run import run
from .common import (
    ALLOW_MANY_HELP,
    EXIT_OK,
    MAX_RUNS,
    SET_HELP,
    Flag,
    add_config_args,
    check_count,
    check_output_dir,
    check_output_file,
    emit_table,
)

if TYPE_CHECKING:
    from rich.console import Console

    from ..config import ScenarioConfig
    from ..run import Results

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
limit). Ctrl-C stops a run within a second.
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


def results_payload(res: Results, scenario: str | None = None) -> dict[str, Any]:
    """The document printed by ``run --json`` (NaN written as null).

    ``metrics``: name -> {"mean", "ci90_half_width", "n"}; ``per_run``: the flat metrics of
    every run; ``partial`` / ``halted``: whether and why runs ended early by their budget
    (``Results.halted``); ``runs``: number of runs; ``seed``; ``wall_time_s``; ``config``:
    the resolved configuration; ``scenario``: the file; ``version``: the core's version.
    """
    from ..config import to_dict
    from ..stats import CONFIDENCE

    return _clean(
        {
            "metrics": {
                k: {"mean": m, "ci90_half_width": h, "n": n} for k, (m, h, n) in res.summary.items()
            },
            "wall_time_s": res.wall_time_s,
            "runs": len(res.runs),
            "seed": res.seed,
            "confidence": CONFIDENCE,
            "scenario": scenario,
            "version": _core.version(),
            "config": to_dict(res.config),
            "per_run": res.runs,
            "partial": res.partial,
            "halted": res.halted,
            "identical_runs": res.identical,
            "note": identical_note(res),
            "pcap": [f for raw in res.raw for f in raw.get("pcap", [])],
        }
    )


def identical_note(res: Results) -> str | None:
    """What to say when every run gave the same metrics (None otherwise)."""
    if not res.identical:
        return None
    return (
        f"{len(res.runs)} runs identical: the scenario has no random element, so the interval "
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


def print_table(console: Console, res: Results, show_all: bool, fmt: str | None = None) -> None:
    """The summary as a table (``fmt`` None or table: rich; markdown; csv with the numbers
    unrounded, every metric)."""
    from ..stats import CONFIDENCE

    n_runs = len(res.runs)
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


def _save_traces(path: Path, res: Results) -> None:
    import numpy as np

    arrays: dict[str, Any] = {}
    for i, tr in enumerate(res.traces or []):
        for name, cols in tr.items():
            for col, arr in cols.items():
                arrays[f"run{i}.{name}.{col}"] = arr
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)


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


def _run_with_progress(
    cfg: ScenarioConfig,
    args: argparse.Namespace,
    want_traces: bool,
    budget: dict[str, Any],
    err: Console,
) -> Results:
    """Run with a progress display on stderr: the runs done (several runs) and the simulated
    time of the current run with an ETA."""
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
        if args.runs > 1:
            runs_task = progress.add_task("runs", total=args.runs, shown=f"0/{args.runs}")
        sim_task = progress.add_task("simulated", total=duration, shown="")

        def on_sim(i: int, t: float, events: int) -> None:
            shown = f"{t:,.1f} of {duration:g} s, {events:,} events"
            progress.update(sim_task, completed=t, shown=shown)

        def on_run(done: int, total: int) -> None:
            if runs_task is not None:
                progress.update(runs_task, completed=done, shown=f"{done}/{total}")
            progress.reset(sim_task, total=duration, shown="")

        return run(
            cfg,
            seed=args.seed,
            runs=args.runs,
            traces=want_traces,
            progress=on_run,
            sim_progress=on_sim,
            **budget,
        )


def cmd_run(args: argparse.Namespace, out: Console, err: Console) -> int:
    from ..config import to_toml
    from ..cost import estimate

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
    budget = {
        "max_events": args.max_events or None,
        "max_wall_s": args.max_wall_s or None,
    }
    cost = estimate(cfg)
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
    try:
        if err.is_terminal and (args.runs > 1 or cost.wall_s * args.runs > PROGRESS_ABOVE_S):
            res = _run_with_progress(cfg, args, want_traces, {**budget, **capture}, err)
        else:
            res = run(cfg, seed=args.seed, runs=args.runs, traces=want_traces, **budget, **capture)
    except OSError as e:
        raise ConfigError("--pcap", str(args.pcap), f"a writable directory ({e})") from None
    for i, why in enumerate(res.halted):
        if why is not None:
            reached = res.raw[i]["duration_s"]
            # Plain writes: one physical line, never wrapped to the terminal width.
            print(
                f"warning: run {i} stopped at {why.replace('_', ' ')} (simulated "
                f"{reached:.6g} s of {cfg.simulation.duration_s:g} s): its metrics are partial, "
                f"over [0, {reached:.6g}] s",
                file=sys.stderr,
            )

    payload = results_payload(res, args.scenario)
    if args.output is not None:
        try:
            args.output.parent.mkdir(parents=True, exist_ok=True)
            args.output.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        except OSError as e:
            raise ConfigError("--output", str(args.output), f"a writable file ({e})") from None
    if want_traces:
        try:
            _save_traces(args.traces, res)
        except OSError as e:
            raise ConfigError("--traces", str(args.traces), f"a writable file ({e})") from None

    if fmt == "json":
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
        sys.stdout.flush()
        return EXIT_OK
    print_table(out, res, args.all, fmt)
    if fmt in ("markdown", "csv"):
        # stdout holds the table alone; what was written is said on stderr.
        out = err
    out.print(
        f"wall time {res.wall_time_s:.3f} s (simulation in the core, {len(res.runs)} "
        f"run{'s' if len(res.runs) != 1 else ''})",
        highlight=False,
    )
    if args.output is not None:
        out.print(f"results written to {args.output}", highlight=False)
    if want_traces:
        out.print(f"traces written to {args.traces}", highlight=False)
    for f in payload["pcap"]:
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
