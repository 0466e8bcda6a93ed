"""``radiotcp emulate | emulate-compare``: real applications over the modelled network, and
real Linux TCP against the simulated ``linux`` profile (docs/emulation.md).

The emulator, the configuration models, numpy and rich are imported by the commands, not
with this module (``radiotcp --help`` builds these parsers).
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from .common import (
    EXIT_OK,
    EXIT_USAGE,
    MAX_RUNS,
    SET_HELP,
    Flag,
    add_config_args,
    check_count,
    check_output_dir,
    check_output_file,
)

if TYPE_CHECKING:
    from rich.console import Console

    from ..emulate import EmulationReport

EMULATE_EPILOG = """\
The command after `--` runs in a network namespace of its own (the UE); the server side is
the caller's namespace. `{server}` and `{ue}` in the commands become the two addresses, which
are also in the environment as RADIOTCP_SERVER and RADIOTCP_UE.

examples:
  radiotcp emulate scenarios/umts-384k.toml --server "iperf3 -s -1 -B {server}" \
      -- iperf3 -c {server} -t 20
  radiotcp emulate scenarios/umts-384k.toml --set access.ack_control.mode=rate \
      -- curl -o /dev/null http://{server}:8000/file
  radiotcp emulate scenarios/bs-delay-variation.toml --set bs_ack.enabled=true --pcap out/ -- ...

Needs Linux, root (TUN devices and a network namespace), /dev/net/tun and iproute2.
The exit status is the command's; 2 for a usage error or a machine that cannot emulate.
"""


EMULATE_COMPARE_DESCRIPTION = """\
The simulated Linux TCP (tcp.profile = "linux") against the real one over the same
model: one download of a fixed size through a scenario's network, emulated with this
machine's Linux TCP (radiotcp emulate, the sender's congestion control set to --cc)
and simulated (flows.size_bytes), side by side (docs/emulation.md).

    radiotcp emulate-compare [SCENARIO.toml] [--bytes 1000000] [--emulated 5] [--simulated 20]

Prints the completion time (from the connection's first packet to its last byte at the UE),
the goodput it implies, the mean one-way delay of the data packets, buffer overflows and the
mean buffer occupancy during the transfer (mean ± 90 % half-width over the runs), and writes
results/emulate-compare/NAME.json (or DIR/NAME.json with -o DIR). Needs what `radiotcp
emulate` needs; each emulated run takes its transfer's time in real time.
"""


def add_commands(sub: Any) -> None:
    """Register ``emulate`` and ``emulate-compare`` on the main parser's subparsers."""
    p = sub.add_parser(
        "emulate",
        help="run a real command over the scenario's network (real-time emulation)",
        description="Carry the packets of real applications through the scenario's modelled "
        "network (wired links, UMTS RLC, RLP, BS ACK controller) in real time, run COMMAND "
        "on the UE side and report.",
        epilog=EMULATE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_config_args(
        p,
        scenario=True,
        overrides=SET_HELP,
        seed=Flag("seed of the models' random streams (default 1)", default=1, metavar="S"),
        json="print the report as JSON",
        output=Flag("also write the JSON report", metavar="FILE.json"),
    )
    p.add_argument(
        "--server",
        metavar="CMD",
        help="a command to run on the server side first (one string, split like a shell "
        "would), stopped when COMMAND exits",
    )
    p.add_argument(
        "--server-wait",
        type=float,
        default=0.5,
        metavar="S",
        help="seconds to give the server command before COMMAND starts (default 0.5)",
    )
    p.add_argument(
        "--max-duration",
        type=float,
        metavar="S",
        help="end the emulation (and stop COMMAND) after S seconds",
    )
    p.add_argument("--pcap", type=Path, metavar="DIR", help="write DIR/server.pcap and DIR/ue.pcap")
    p.add_argument(
        "--traces",
        type=Path,
        metavar="FILE.npz",
        help="record the models' traces (buffer occupancy, link queues) into FILE.npz",
    )
    p.add_argument("ue_command", nargs="*", metavar="-- COMMAND", help="command for the UE side")
    p.set_defaults(func=cmd_emulate)

    c = sub.add_parser(
        "emulate-compare",
        help="real Linux TCP against the simulated linux profile over the same model",
        description=EMULATE_COMPARE_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    # The defaults of SCENARIO.toml and --output (in the checkout: radiotcp.emucompare) are
    # filled in by the command.
    c.add_argument(
        "scenario",
        nargs="?",
        type=Path,
        metavar="SCENARIO.toml",
        help="scenario file (default scenarios/umts-384k.toml)",
    )
    add_config_args(
        c,
        overrides="override one setting in both (repeatable)",
        output=Flag("where NAME.json goes (default results/emulate-compare)", metavar="DIR"),
        out_alias=True,
    )
    c.add_argument("--bytes", type=int, default=1_000_000, help="transfer size (default 1 MB)")
    c.add_argument(
        "--emulated", type=int, default=5, help="emulated runs, real time each (default 5)"
    )
    c.add_argument("--simulated", type=int, default=20, help="simulated runs (default 20)")
    c.add_argument(
        "--cc", default="cubic", help="the real sender's congestion control (default cubic)"
    )
    c.set_defaults(func=cmd_emulate_compare)


def _clean(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items() if k != "traces"}
    if isinstance(x, list | tuple):
        return [_clean(v) for v in x]
    return x


def payload(r: EmulationReport, scenario: str) -> dict[str, Any]:
    """The report as JSON-ready data (NaN as null, no traces)."""
    return {
        "scenario": scenario,
        "returncode": r.returncode,
        "server_returncode": r.server_returncode,
        "server_address": r.server_address,
        "ue_address": r.ue_address,
        "wall_s": r.wall_s,
        "notes": r.notes,
        "warnings": r.warnings,
        "lag_exceeded": bool(r.report["lag"].get("exceeded", False)),
        **_clean(r.report),
    }


def _fmt(v: float, spec: str = ".1f") -> str:
    return "-" if v is None or not math.isfinite(v) else format(v, spec)


def print_report(r: EmulationReport, out: Console) -> None:
    from rich.table import Table

    rep = r.report
    t = Table(title=f"emulation: {rep['duration_s']:.1f} s, command exit status {r.returncode}")
    for col in [
        "direction",
        "packets in",
        "delivered",
        "payload MB",
        "goodput kb/s",
        "delay mean / p95 / max ms",
    ]:
        t.add_column(col, justify="right" if col != "direction" else "left")
    for name, key in [("down (server -> UE)", "down"), ("up (UE -> server)", "up")]:
        d = rep[key]
        dl = d["delay"]
        t.add_row(
            name,
            str(d["packets_in"]),
            str(d["packets_out"]),
            f"{d['payload_out'] / 1e6:.3f}",
            _fmt(d["goodput_kbps"]),
            " / ".join(_fmt(dl[k], ".0f") for k in ("mean_ms", "p95_ms", "max_ms")),
        )
    out.print(t)
    if rep["flows"]:
        f = Table(title="connections")
        for col in ["proto", "server", "ue", "down goodput kb/s", "down delay ms", "up packets"]:
            f.add_column(col)
        for fl in rep["flows"]:
            f.add_row(
                fl["proto"],
                fl["server"],
                fl["ue"],
                _fmt(fl["down"]["goodput_kbps"]),
                _fmt(fl["down"]["delay"]["mean_ms"], ".0f"),
                str(fl["up"]["packets_in"]),
            )
        out.print(f)
    m = rep["metrics"]
    model = Table(title="the models")
    model.add_column("metric")
    model.add_column("value", justify="right")
    for k, v in m.items():
        if k.startswith("drops") and v:
            model.add_row(k, _fmt(v, ".0f"))
    for k in [
        "bearer.mean_buffer_sdus",
        "bearer.max_buffer_sdus",
        "bearer.dl_fer",
        "bearer.acks_delayed",
        "rlp.mean_iap_packets",
    ]:
        if k in m:
            model.add_row(k, _fmt(m[k], ".3g"))
    model.add_row("undelivered packets (dropped or in flight)", str(rep["undelivered"]))
    lag = rep["lag"]
    model.add_row(
        "clock lag p50 / p99 / max µs",
        " / ".join(_fmt(lag[k], ".0f") for k in ("p50_us", "p99_us", "max_us")),
    )
    out.print(model)
    for p in rep["pcap"]:
        out.print(f"pcap: {p['path']} ({p['packets']} packets, {p['side']} side)")
    for note in r.notes:
        out.print(f"note: {note}")
    for w in r.warnings:
        out.print(f"warning: {w}", highlight=False, soft_wrap=True)


def cmd_emulate(args: argparse.Namespace, out: Console, err: Console) -> int:
    from ..config import load
    from ..emulate import EmulationUnavailable, emulate

    command = list(args.ue_command)
    if not command:
        raise ConfigError("COMMAND", "", "a command after `--` to run on the UE side")
    if args.max_duration is not None and not (
        math.isfinite(args.max_duration) and args.max_duration > 0
    ):
        raise ConfigError("--max-duration", str(args.max_duration), "a number of seconds > 0")
    if not 0 <= args.seed < 2**64:
        raise ConfigError("--seed", str(args.seed), "an integer in [0, 2**64)")
    if not (math.isfinite(args.server_wait) and args.server_wait >= 0):
        raise ConfigError("--server-wait", str(args.server_wait), "a number of seconds >= 0")
    if args.output is not None:
        check_output_file("--output", args.output)
    if args.traces is not None:
        check_output_file("--traces", args.traces)
    if args.pcap is not None:
        check_output_dir("--pcap", args.pcap)
    cfg = load(Path(args.scenario), args.overrides)
    server = shlex.split(args.server) if args.server else None
    try:
        r = emulate(
            cfg,
            command,
            server_command=server,
            server_wait_s=args.server_wait,
            seed=args.seed,
            traces=args.traces is not None,
            pcap_dir=args.pcap,
            max_seconds=args.max_duration,
        )
    except EmulationUnavailable as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except FileNotFoundError as e:
        raise ConfigError("COMMAND", e.filename or command[0], "a program on PATH") from None
    data = payload(r, args.scenario)
    if args.output is not None:
        try:
            args.output.parent.mkdir(parents=True, exist_ok=True)
            args.output.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        except OSError as e:
            raise ConfigError("--output", str(args.output), f"a writable file ({e})") from None
    if args.traces is not None and r.report.get("traces"):
        import numpy as np

        arrays = {
            f"{name}.{k}": np.asarray(v)
            for name, tr in r.report["traces"].items()
            for k, v in tr.items()
        }
        try:
            args.traces.parent.mkdir(parents=True, exist_ok=True)
            np.savez_compressed(args.traces, allow_pickle=False, **arrays)
        except OSError as e:
            raise ConfigError("--traces", str(args.traces), f"a writable file ({e})") from None
    if args.json:
        print(json.dumps(data, indent=2))
        for w in r.warnings:
            print(f"warning: {w}", file=sys.stderr)
    else:
        print_report(r, out)
    return r.returncode


def _check_compare(a: argparse.Namespace) -> None:
    """Every bad argument of ``emulate-compare``, named, before the first (slow) emulated run."""
    from ..emucompare import available_cc

    problems = []
    if not 1 <= a.bytes <= 2**31:
        problems.append(ConfigError("--bytes", str(a.bytes), "an integer in [1, 2**31]"))
    for flag, n in (("--emulated", a.emulated), ("--simulated", a.simulated)):
        try:
            check_count(flag, n, maximum=MAX_RUNS)
        except ConfigError as e:
            problems.append(e)
    available = available_cc()
    if available is not None and a.cc not in available:
        problems.append(
            ConfigError(
                "--cc",
                a.cc,
                "one of the kernel's available congestion controls: " + ", ".join(available),
            )
        )
    if problems:
        raise ConfigError.from_problems(problems)


def cmd_emulate_compare(a: argparse.Namespace, out: Console, err: Console) -> int:
    """Run the comparison, print it and write its JSON; the exit status."""
    from rich.table import Table

    from .. import emucompare
    from ..config import load
    from ..emulate import EmulationUnavailable

    _check_compare(a)
    scenario: Path = a.scenario or emucompare.DEFAULT_SCENARIO
    dest: Path = a.output or emucompare.DEFAULT_OUT
    check_output_dir("--output", dest)
    # Both configurations first: a bad scenario or --set fails now, not after the runs.
    emu_cfg = load(scenario, a.overrides)
    sim_cfg = emucompare.simulated_config(scenario, a.bytes, a.overrides)
    try:
        emu = emucompare.emulated_runs(
            emu_cfg,
            a.bytes,
            a.emulated,
            a.cc,
            progress=lambda i, row: out.print(
                f"emulated run {i + 1}/{a.emulated}: {row['completion_s']:.1f} s, "
                f"{row['goodput_kbps']:.0f} kb/s"
            ),
        )
    except EmulationUnavailable as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    out.print(f"simulating {a.simulated} runs with the linux profile")
    sim = emucompare.simulated_runs(sim_cfg, a.bytes, a.simulated)
    result = emucompare.summary(scenario, a.bytes, a.overrides, a.cc, emu, sim)
    keys = emucompare.KEYS
    t = Table(title=f"{scenario.name}: one download of {a.bytes:,} bytes")
    t.add_column("")
    labels = ["completion s", "goodput kb/s", "delay ms", "overflows", "buffer SDUs"]
    for label in labels:
        t.add_column(label, justify="right")
    for name in ("emulated", "simulated"):
        t.add_row(
            f"{name} ({f'Linux {a.cc}' if name == 'emulated' else 'linux profile'})",
            *(f"{result[name][k]['mean']:.1f} ± {result[name][k]['ci90']:.1f}" for k in keys),
        )
    out.print(t)
    out.print(f"largest p99 clock lag of the emulated runs: {result['lag_p99_us_max']:.0f} µs")
    if result["lag_exceeded_runs"]:
        out.print(
            f"warning: in {result['lag_exceeded_runs']} of {a.emulated} emulated runs the "
            "real-time clock lagged beyond its documented bound (lag_exceeded in the JSON): "
            "their numbers are not those of the scenario",
            highlight=False,
            soft_wrap=True,
        )
    try:
        dest.mkdir(parents=True, exist_ok=True)
        path = dest / f"{scenario.stem}.json"
        path.write_text(json.dumps(result, indent=2))
    except OSError as e:
        raise ConfigError("--output", str(dest), f"a writable directory ({e})") from None
    out.print(f"results: {path}")
    return EXIT_OK
