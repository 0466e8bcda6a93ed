"""The simulated Linux TCP (``tcp.profile = "linux"``) against the real one over the same
model: one download of a fixed size through a scenario's network, emulated with this
machine's Linux TCP (``radiotcp emulate``, the sender's congestion control set to ``--cc``)
and simulated (``flows.size_bytes``), side by side (docs/emulation.md).

    radiotcp emulate-compare [SCENARIO.toml] [--bytes 1000000] [--emulated 5] [--simulated 20]

(also ``python -m radiotcp.emucompare``.)

Prints the completion time (from the connection's first packet to its last byte at the UE),
the goodput it implies, the mean one-way delay of the data packets, buffer overflows and the
mean buffer occupancy during the transfer (mean ± 90 % half-width over the runs), and writes
results/emulate-compare/NAME.json. Needs what `radiotcp emulate` needs; each emulated run
takes its transfer's time in real time.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from .config import ScenarioConfig, load
from .emulate import EmulationUnavailable, emulate
from .errors import ConfigError
from .run import run
from .stats import mean_ci

ROOT = Path(__file__).resolve().parents[2]
PORT = 5201


def emulated_runs(
    cfg: ScenarioConfig,
    nbytes: int,
    runs: int,
    cc: str = "cubic",
    progress: Callable[[int, dict], None] | None = None,
) -> list[dict]:
    """`runs` emulated downloads of `nbytes` (seeds 1..runs) through `cfg`'s network with the
    kernel's congestion control `cc`: per-run metrics; `progress(i, row)` after each run."""
    out = []
    for i in range(runs):
        with tempfile.TemporaryFile("w+") as f:
            r = emulate(
                cfg,
                [sys.executable, "-m", "radiotcp.emutools", "recv", "{server}", str(PORT + i)],
                server_command=[
                    sys.executable,
                    "-m",
                    "radiotcp.emutools",
                    "send",
                    "{server}",
                    str(PORT + i),
                    "--bytes",
                    str(nbytes),
                    "--cc",
                    cc,
                ],
                seed=1 + i,
                max_seconds=600,
                stdout=f,
            )
            f.seek(0)
            received, _digest, seconds, _kbps = f.read().split()
        if int(received) != nbytes:
            raise RuntimeError(f"emulated run {i}: {received} of {nbytes} bytes arrived")
        rep = r.report
        tcp = [fl for fl in rep["flows"] if fl["proto"] == "tcp"]
        m = rep["metrics"]
        completion = float(seconds)
        out.append(
            {
                "completion_s": completion,
                "goodput_kbps": nbytes * 8 / completion / 1000,
                "delay_mean_ms": tcp[0]["down"]["delay"]["mean_ms"],
                "overflows": m.get("drops.bearer.buffer_full", float("nan")),
                "mean_buffer_sdus": m.get("bearer.mean_buffer_sdus", float("nan")),
                "lag_p99_us": rep["lag"]["p99_us"],
            }
        )
        if progress is not None:
            progress(i, out[-1])
    return out


# Long enough for the download to end; the buffer mean is rescaled to the transfer's time.
SIM_DURATION_S = 600.0


def simulated_config(scenario: Path, nbytes: int, overrides: list[str]) -> ScenarioConfig:
    """The scenario with the linux profile and one flow of `nbytes` from t = 0."""
    return load(
        scenario,
        [
            *overrides,
            "tcp.profile=linux",
            "flows.count=1",
            "flows.start_jitter_s=0",
            f"flows.size_bytes={nbytes}",
            f"simulation.duration_s={SIM_DURATION_S}",
            "simulation.warmup_s=0",
        ],
    )


def simulated_runs(cfg: ScenarioConfig, nbytes: int, runs: int) -> list[dict]:
    """`runs` simulated replications of `cfg` (from :func:`simulated_config`)."""
    res = run(cfg, seed=1, runs=runs)
    out = []
    for r in res.runs:
        completion = r["flows.0.completion_s"]
        out.append(
            {
                "completion_s": completion,
                "goodput_kbps": nbytes * 8 / completion / 1000,
                "delay_mean_ms": r["delay_mean_ms"],
                "overflows": r.get("drops.bearer.buffer_full", float("nan")),
                # The buffer is empty once the transfer is over: its mean during the transfer.
                "mean_buffer_sdus": r.get("bearer.mean_buffer_sdus", float("nan"))
                * SIM_DURATION_S
                / completion,
            }
        )
    return out


def _summary(rows: list[dict], key: str) -> dict[str, float]:
    mean, ci90, n = mean_ci([r[key] for r in rows])
    return {"mean": mean, "ci90": ci90, "n": n}


def add_arguments(ap: argparse.ArgumentParser) -> None:
    """The command's arguments (``radiotcp emulate-compare`` and ``python -m``)."""
    ap.add_argument(
        "scenario",
        nargs="?",
        type=Path,
        default=ROOT / "scenarios" / "umts-384k.toml",
        metavar="SCENARIO.toml",
        help="scenario file (default scenarios/umts-384k.toml)",
    )
    ap.add_argument("--bytes", type=int, default=1_000_000, help="transfer size (default 1 MB)")
    ap.add_argument(
        "--emulated", type=int, default=5, help="emulated runs, real time each (default 5)"
    )
    ap.add_argument("--simulated", type=int, default=20, help="simulated runs (default 20)")
    ap.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY.PATH=VALUE",
        help="override one setting in both (repeatable)",
    )
    ap.add_argument(
        "--cc", default="cubic", help="the real sender's congestion control (default cubic)"
    )
    ap.add_argument(
        "--out",
        type=Path,
        default=ROOT / "results" / "emulate-compare",
        metavar="DIR",
        help="where NAME.json goes (default results/emulate-compare)",
    )


def _available_cc() -> list[str] | None:
    try:
        text = Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text()
    except OSError:
        return None
    return text.split()


def _check(a: argparse.Namespace) -> None:
    """Every bad argument, named, before the first (slow) emulated run."""
    problems = []
    if not 1 <= a.bytes <= 2**31:
        problems.append(ConfigError("--bytes", str(a.bytes), "an integer in [1, 2**31]"))
    if a.emulated < 1:
        problems.append(ConfigError("--emulated", str(a.emulated), "an integer >= 1"))
    if a.simulated < 1:
        problems.append(ConfigError("--simulated", str(a.simulated), "an integer >= 1"))
    available = _available_cc()
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


def compare(a: argparse.Namespace, console: Console) -> int:
    """Run the comparison ``a`` describes, print it and write its JSON; the exit status."""
    _check(a)
    # Both configurations first: a bad scenario or --set fails now, not after the runs.
    emu_cfg = load(a.scenario, a.overrides)
    sim_cfg = simulated_config(a.scenario, a.bytes, a.overrides)
    try:
        emu = emulated_runs(
            emu_cfg,
            a.bytes,
            a.emulated,
            a.cc,
            progress=lambda i, row: console.print(
                f"emulated run {i + 1}/{a.emulated}: {row['completion_s']:.1f} s, "
                f"{row['goodput_kbps']:.0f} kb/s"
            ),
        )
    except EmulationUnavailable as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    console.print(f"simulating {a.simulated} runs with the linux profile")
    sim = simulated_runs(sim_cfg, a.bytes, a.simulated)
    keys = ["completion_s", "goodput_kbps", "delay_mean_ms", "overflows", "mean_buffer_sdus"]
    result: dict[str, Any] = {
        "scenario": str(a.scenario),
        "bytes": a.bytes,
        "overrides": a.overrides,
        "real_congestion_control": a.cc,
        "emulated": {k: _summary(emu, k) for k in keys},
        "simulated": {k: _summary(sim, k) for k in keys},
        "emulated_runs": emu,
        "lag_p99_us_max": max(r["lag_p99_us"] for r in emu),
    }
    t = Table(title=f"{a.scenario.name}: one download of {a.bytes:,} bytes")
    t.add_column("")
    labels = ["completion s", "goodput kb/s", "delay ms", "overflows", "buffer SDUs"]
    for label in labels:
        t.add_column(label, justify="right")
    for name in ("emulated", "simulated"):
        t.add_row(
            f"{name} ({f'Linux {a.cc}' if name == 'emulated' else 'linux profile'})",
            *(f"{result[name][k]['mean']:.1f} ± {result[name][k]['ci90']:.1f}" for k in keys),
        )
    console.print(t)
    console.print(f"largest p99 clock lag of the emulated runs: {result['lag_p99_us_max']:.0f} µs")
    try:
        a.out.mkdir(parents=True, exist_ok=True)
        path = a.out / f"{a.scenario.stem}.json"
        path.write_text(json.dumps(result, indent=2))
    except OSError as e:
        raise ConfigError("--out", str(a.out), f"a writable directory ({e})") from None
    console.print(f"results: {path}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m radiotcp.emucompare", description=__doc__)
    add_arguments(ap)
    try:
        return compare(ap.parse_args(argv), Console())
    except ConfigError as e:
        for line in e.lines():
            print(f"error: {line}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
