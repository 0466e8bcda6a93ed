"""``radiotcp emulate``: real applications over the modelled network (docs/emulation.md)."""

from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from . import emucompare
from .config import load
from .emulate import EmulationReport, EmulationUnavailable, emulate
from .errors import ConfigError

EXIT_USAGE = 2

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


def add_command(sub: Any) -> None:
    p = sub.add_parser(
        "emulate",
        help="run a real command over the scenario's network (real-time emulation)",
        description="Carry the packets of real applications through the scenario's modelled "
        "network (wired links, UMTS RLC, RLP, BS ACK controller) in real time, run COMMAND "
        "on the UE side and report.",
        epilog=EMULATE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file (TOML)")
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY.PATH=VALUE",
        help="override one setting (repeatable)",
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
        "--seed",
        type=int,
        default=1,
        metavar="S",
        help="seed of the models' random streams (default 1)",
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
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument(
        "-o", "--output", type=Path, metavar="FILE.json", help="also write the JSON report"
    )
    p.add_argument("ue_command", nargs="*", metavar="-- COMMAND", help="command for the UE side")
    p.set_defaults(func=cmd_emulate)

    c = sub.add_parser(
        "emulate-compare",
        help="real Linux TCP against the simulated linux profile over the same model",
        description=emucompare.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    emucompare.add_arguments(c)
    c.set_defaults(func=lambda args, out, err: emucompare.compare(args, out))


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
        **_clean(r.report),
    }


def _fmt(v: float, spec: str = ".1f") -> str:
    return "-" if v is None or not math.isfinite(v) else format(v, spec)


def print_report(r: EmulationReport, out: Console) -> None:
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


def cmd_emulate(args: argparse.Namespace, out: Console, err: Console) -> int:
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
        arrays = {
            f"{name}.{k}": np.asarray(v)
            for name, tr in r.report["traces"].items()
            for k, v in tr.items()
        }
        try:
            args.traces.parent.mkdir(parents=True, exist_ok=True)
            np.savez_compressed(args.traces, **arrays)
        except OSError as e:
            raise ConfigError("--traces", str(args.traces), f"a writable file ({e})") from None
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print_report(r, out)
    return r.returncode
