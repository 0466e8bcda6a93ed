"""Run the ns-3 side of the wired benchmark and return its JSON result.

The ns-3 program (bench/ns3/wired.cc) is built by bench/ns3/setup.sh into
bench/build/ns3-wired; this module builds it on first use and runs it as a
subprocess. Timing of interest is the program's own ``wall_time_s`` (around
``Simulator::Run`` only); ``process_wall_s`` adds process start-up, library
loading and topology set-up.

Usage from the command line::

    python bench/ns3_runner.py --flows 4 --duration 600
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
SETUP_SCRIPT = BENCH_DIR / "ns3" / "setup.sh"
SOURCE = BENCH_DIR / "ns3" / "wired.cc"
BINARY = BENCH_DIR / "build" / "ns3-wired"


class Ns3BenchError(RuntimeError):
    """The ns-3 program could not be built or did not produce a result."""


def ensure_binary() -> Path:
    """Build the ns-3 program if it is missing or older than its source."""
    stale = not BINARY.exists() or (
        SOURCE.exists() and SOURCE.stat().st_mtime > BINARY.stat().st_mtime
    )
    if stale:
        proc = subprocess.run(
            ["bash", str(SETUP_SCRIPT)],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0 or not BINARY.exists():
            raise Ns3BenchError(
                f"{SETUP_SCRIPT} failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}"
            )
    return BINARY


def _parse_result(stdout: str) -> dict:
    for line in reversed(stdout.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            return json.loads(line)
    raise Ns3BenchError(f"no JSON line in the ns-3 output:\n{stdout[-2000:]}")


def run_ns3(
    flows: int,
    duration_s: float,
    queue_packets: int = 50,
    min_rto_ms: float = 1000,
    run: int = 1,
) -> dict:
    """Run the wired scenario in ns-3 and return its result.

    ``queue_packets`` counts packets waiting at the bottleneck, excluding the
    one being serialised (radiotcp's convention). The returned dict is the
    program's JSON line (flows, duration_s, goodput_kbps, goodput_kbps_total,
    wall_time_s, events, drops_queue, and diagnostics) plus ``process_wall_s``,
    the wall-clock time of the whole subprocess.
    """
    if flows < 1:
        raise ValueError("flows must be >= 1")
    if duration_s <= 0:
        raise ValueError("duration_s must be > 0")
    if queue_packets < 1:
        raise ValueError("queue_packets must be >= 1")
    binary = ensure_binary()
    cmd = [
        str(binary),
        f"--flows={flows}",
        f"--duration={float(duration_s)!r}",
        f"--queue={queue_packets}",
        f"--minRto={float(min_rto_ms)!r}",
        f"--run={run}",
    ]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise Ns3BenchError(
            f"{' '.join(cmd)} exited with {proc.returncode}:\n{proc.stderr[-4000:]}"
        )
    result = _parse_result(proc.stdout)
    result["process_wall_s"] = elapsed
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flows", type=int, default=1)
    parser.add_argument("--duration", type=float, default=60.0, help="simulated seconds")
    parser.add_argument("--queue", type=int, default=50, help="bottleneck packets waiting")
    parser.add_argument("--min-rto-ms", type=float, default=1000.0)
    parser.add_argument("--run", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        result = run_ns3(args.flows, args.duration, args.queue, args.min_rto_ms, args.run)
    except Ns3BenchError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
