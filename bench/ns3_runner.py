"""Run the ns-3 side of the benchmarks and return their JSON results.

The ns-3 programs (bench/ns3/wired.cc, bench/ns3/lte.cc) are built by
bench/ns3/setup.sh into bench/build/ns3-wired and bench/build/ns3-lte; this
module builds each on first use and runs it as a subprocess. Timing of
interest is the program's own ``wall_time_s`` (around ``Simulator::Run``
only); ``process_wall_s`` adds process start-up, library loading and topology
set-up.

Usage from the command line::

    python bench/ns3_runner.py --flows 4 --duration 600      # wired scenario
    python bench/ns3_runner.py --flows 4 --duration 600 --sack --cc cubic
    python bench/ns3_runner.py --lte --ues 10 --duration 10  # one LTE cell
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
# Programs setup.sh knows, by name: bench/ns3/<name>.cc -> bench/build/ns3-<name>.
PROGRAMS = ("wired", "lte")


class Ns3BenchError(RuntimeError):
    """The ns-3 program could not be built or did not produce a result."""


def ensure_binary(program: str = "wired") -> Path:
    """Build the ns-3 program ``program`` if it is missing or older than its source."""
    if program not in PROGRAMS:
        raise ValueError(f"unknown ns-3 program {program!r} (known: {', '.join(PROGRAMS)})")
    source = BENCH_DIR / "ns3" / f"{program}.cc"
    binary = BENCH_DIR / "build" / f"ns3-{program}"
    stale = not binary.exists() or (
        source.exists() and source.stat().st_mtime > binary.stat().st_mtime
    )
    if stale:
        proc = subprocess.run(
            ["bash", str(SETUP_SCRIPT), program],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0 or not binary.exists():
            raise Ns3BenchError(
                f"{SETUP_SCRIPT} failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}"
            )
    return binary


def _run_binary(cmd: list[str]) -> dict:
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


def _parse_result(stdout: str) -> dict:
    for line in reversed(stdout.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            return json.loads(line)
    raise Ns3BenchError(f"no JSON line in the ns-3 output:\n{stdout[-2000:]}")


CONGESTION_CONTROLS = ("newreno", "cubic", "linuxreno")
RECOVERIES = ("classic", "prr")


def _flag(value: bool) -> str:
    return "1" if value else "0"


def run_ns3(
    flows: int,
    duration_s: float,
    queue_packets: int = 50,
    min_rto_ms: float = 1000,
    run: int = 1,
    *,
    sack: bool = False,
    cc: str = "newreno",
    recovery: str = "classic",
    timestamps: bool = False,
    limited_transmit: bool = False,
    iw: int = 1,
    hystart: bool = False,
    cubic_beta: float = 0.7,
    cubic_c: float = 0.4,
    counters: bool = False,
) -> dict:
    """Run the wired scenario in ns-3 and return its result.

    ``queue_packets`` counts packets waiting at the bottleneck, excluding the
    one being serialised (radiotcp's convention). The TCP keywords map to
    ``ns3-wired`` options: ``sack`` (TcpSocketBase::Sack), ``cc`` ("newreno",
    "cubic" or "linuxreno": the socket type), ``recovery`` ("classic" or
    "prr"), ``timestamps`` (the segment size drops to 1448 so that data packets
    stay 1500 bytes), ``limited_transmit`` (RFC 3042), ``iw`` (initial cwnd in
    segments) and, for CUBIC, ``hystart``, ``cubic_beta`` and ``cubic_c``. The
    defaults are the plain NewReno set-up of docs/ns3-comparison.md; with them
    the command line is exactly the one used before these keywords existed.
    ``counters`` adds the per-flow loss-recovery counters (timeouts,
    fast_retransmits, retransmissions, dup_segments_rx, ...).

    The returned dict is the program's JSON line (flows, duration_s,
    goodput_kbps, goodput_kbps_total, wall_time_s, events, drops_queue, the TCP
    options, and diagnostics) plus ``process_wall_s``, the wall-clock time of
    the whole subprocess.
    """
    if flows < 1:
        raise ValueError("flows must be >= 1")
    if duration_s <= 0:
        raise ValueError("duration_s must be > 0")
    if queue_packets < 1:
        raise ValueError("queue_packets must be >= 1")
    if cc not in CONGESTION_CONTROLS:
        raise ValueError(f"cc must be one of {', '.join(CONGESTION_CONTROLS)}")
    if recovery not in RECOVERIES:
        raise ValueError(f"recovery must be one of {', '.join(RECOVERIES)}")
    if iw < 1:
        raise ValueError("iw must be >= 1")
    binary = ensure_binary("wired")
    cmd = [
        str(binary),
        f"--flows={flows}",
        f"--duration={float(duration_s)!r}",
        f"--queue={queue_packets}",
        f"--minRto={float(min_rto_ms)!r}",
        f"--run={run}",
    ]
    # Only options that differ from the program's defaults, so that the default call is
    # the historical command line.
    if sack:
        cmd.append("--sack=1")
    if cc != "newreno":
        cmd.append(f"--cc={cc}")
    if recovery != "classic":
        cmd.append(f"--recovery={recovery}")
    if timestamps:
        cmd.append("--timestamps=1")
    if limited_transmit:
        cmd.append("--limitedTransmit=1")
    if iw != 1:
        cmd.append(f"--iw={iw}")
    if cc == "cubic":
        cmd += [
            f"--hystart={_flag(hystart)}",
            f"--cubicBeta={float(cubic_beta)!r}",
            f"--cubicC={float(cubic_c)!r}",
        ]
    if counters:
        cmd.append("--counters=1")
    return _run_binary(cmd)


def run_ns3_lte(
    ues: int,
    duration_s: float,
    warmup_s: float = 1.0,
    mss: int = 1448,
    radius_m: float = 250.0,
    internet_delay_ms: float = 20.0,
    run: int = 1,
) -> dict:
    """Run one LTE cell (LENA) with a bulk TCP download per UE and return its result.

    1 eNB, 20 MHz, PF scheduler, RLC AM, ideal RRC, UEs static and uniform in
    the annulus 35 m .. ``radius_m`` (positions drawn from ``run``), a remote
    host ``internet_delay_ms`` one way behind the PGW; see bench/ns3/lte.cc.
    The returned dict is the program's JSON line (per-UE lists ``goodput_kbps``,
    ``ul_acks``, ``ul_acks_after_warmup``, ``dl_mcs_mean``, ``dl_tbs_mean_bytes``,
    ``dl_dcis``, ``distance_m``, ``bearer_ready_s``; totals
    ``goodput_kbps_total``, ``ul_acks_total``, ``ul_acks_after_warmup_total``;
    ``jain_index``, ``wall_time_s``, ``events``, ``ns3_version`` and the
    parameters) plus ``process_wall_s``. Goodput, ``ul_acks_after_warmup`` and
    the MCS/TBS means cover ``warmup_s`` .. ``duration_s``.
    """
    if ues < 1:
        raise ValueError("ues must be >= 1")
    if duration_s <= 0:
        raise ValueError("duration_s must be > 0")
    if not 0 <= warmup_s < duration_s:
        raise ValueError("warmup_s must be >= 0 and < duration_s")
    if mss < 1:
        raise ValueError("mss must be >= 1")
    if radius_m <= 35.0:
        raise ValueError("radius_m must be > 35 (the annulus starts at 35 m)")
    if internet_delay_ms < 0:
        raise ValueError("internet_delay_ms must be >= 0")
    binary = ensure_binary("lte")
    cmd = [
        str(binary),
        f"--ues={ues}",
        f"--duration={float(duration_s)!r}",
        f"--warmup={float(warmup_s)!r}",
        f"--mss={mss}",
        f"--radius={float(radius_m)!r}",
        f"--internetDelay={float(internet_delay_ms)!r}",
        f"--run={run}",
    ]
    return _run_binary(cmd)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lte", action="store_true", help="run the LTE cell instead")
    parser.add_argument("--duration", type=float, default=None, help="simulated seconds")
    parser.add_argument("--run", type=int, default=1)
    wired = parser.add_argument_group("wired scenario (default, duration 60 s)")
    wired.add_argument("--flows", type=int, default=1)
    wired.add_argument("--queue", type=int, default=50, help="bottleneck packets waiting")
    wired.add_argument("--min-rto-ms", type=float, default=1000.0)
    wired.add_argument("--sack", action="store_true", help="SACK (RFC 2018/6675)")
    wired.add_argument("--cc", choices=CONGESTION_CONTROLS, default="newreno")
    wired.add_argument("--recovery", choices=RECOVERIES, default="classic")
    wired.add_argument("--timestamps", action="store_true", help="RFC 7323 timestamps")
    wired.add_argument("--limited-transmit", action="store_true", help="RFC 3042")
    wired.add_argument("--iw", type=int, default=1, help="initial cwnd, segments")
    wired.add_argument("--hystart", action="store_true", help="CUBIC: ns-3's HyStart")
    wired.add_argument("--counters", action="store_true", help="loss-recovery counters")
    lte = parser.add_argument_group("LTE cell (--lte, duration 10 s)")
    lte.add_argument("--ues", type=int, default=10)
    lte.add_argument("--warmup", type=float, default=1.0, help="seconds excluded")
    lte.add_argument("--mss", type=int, default=1448)
    lte.add_argument("--radius", type=float, default=250.0, help="metres")
    lte.add_argument("--internet-delay-ms", type=float, default=20.0)
    args = parser.parse_args(argv)
    try:
        if args.lte:
            result = run_ns3_lte(
                args.ues,
                10.0 if args.duration is None else args.duration,
                warmup_s=args.warmup,
                mss=args.mss,
                radius_m=args.radius,
                internet_delay_ms=args.internet_delay_ms,
                run=args.run,
            )
        else:
            duration = 60.0 if args.duration is None else args.duration
            result = run_ns3(
                args.flows,
                duration,
                args.queue,
                args.min_rto_ms,
                args.run,
                sack=args.sack,
                cc=args.cc,
                recovery=args.recovery,
                timestamps=args.timestamps,
                limited_transmit=args.limited_transmit,
                iw=args.iw,
                hystart=args.hystart,
                counters=args.counters,
            )
    except (Ns3BenchError, ValueError) as exc:
        print(exc, file=sys.stderr)
        return 1
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
