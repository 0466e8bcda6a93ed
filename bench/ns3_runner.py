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
    python bench/ns3_runner.py --lte --ues 10 --duration 10  # one LTE cell (RLC AM)
    python bench/ns3_runner.py --lte --rlc um --ues 40 --duration 10 --drop heterogeneous
    python bench/ns3_runner.py --lte --rlc um --dl-sinr 15 --fading epa  # EPA 3 km/h

With ``--lte`` the printed JSON is the program's line plus the summary of
``summarize_lte`` (``cell_goodput_mbps``, ``goodput_mbps`` per UE, ``wall_s``,
``dl_bler``, ``dl_padding_share``, ...).
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


RLC_MODES = ("am", "um")
LTE_DROPS = ("homogeneous", "heterogeneous")
# LENA's DL MCS is GetMcsFromCqi(CQI): 28, 26, 24, 22, 20, 18, 16, 14, 12, ... Measured
# with lte.cc --dlSinr on a 0.5 dB grid (no fading, PF, 100 PRB), a UE's wideband SINR
# gives MCS 28 from 20 dB, 26 in [19, 20), 24 in [17, 19), 22 in [15.5, 17), 12 in
# [6.5, 8) dB. The SINRs below sit inside those bands, clear of the edges.
LENA_SINR_FOR_MCS = {28: 22.0, 26: 19.5, 24: 18.0, 22: 16.25, 12: 7.25}
# The heterogeneous drop: MCS 24..28 and one low-MCS group, cycled over the UEs
# (10 UEs: exactly this list; 40 UEs: four times).
LENA_HET_MCS = (28, 28, 28, 26, 26, 26, 24, 24, 12, 12)


def lte_drop_sinr(drop: str) -> list[float] | None:
    """The ``--dlSinr`` list of a named drop (None: lte.cc's random annulus, all MCS 28)."""
    if drop not in LTE_DROPS:
        raise ValueError(f"drop must be one of {', '.join(LTE_DROPS)}")
    if drop == "homogeneous":
        return None
    return [LENA_SINR_FOR_MCS[m] for m in LENA_HET_MCS]


FADING_SCRIPT = BENCH_DIR / "ns3" / "fading_trace.py"
# The 3 km/h traces for LENA's TraceFadingLossModel (10 s x 100 RB, 1 ms), written by
# bench/ns3/fading_trace.py (git-ignored, like the binaries): "epa", the 7 EPA taps, and
# "flat", one tap (every RB the same gain, as radiotcp's wideband Jakes).
FADING_PROFILES = ("epa", "flat")
FADING_TRACE_S = 10.0


def fading_trace_path(profile: str) -> Path:
    return BENCH_DIR / "build" / f"fading_trace_{profile}_3kmph.fad"


def ensure_fading_trace(profile: str = "epa") -> Path:
    """Write the 3 km/h fading trace ``profile`` (bench/ns3/fading_trace.py, seed 1, needs
    numpy) if it is missing or older than its generator."""
    if profile not in FADING_PROFILES:
        raise ValueError(f"fading must be one of {', '.join(FADING_PROFILES)}")
    path = fading_trace_path(profile)
    stale = not path.exists() or FADING_SCRIPT.stat().st_mtime > path.stat().st_mtime
    if stale:
        cmd = [sys.executable, str(FADING_SCRIPT), str(path)]
        cmd += ["--seconds", repr(FADING_TRACE_S), "--profile", profile]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0 or not path.exists():
            raise Ns3BenchError(
                f"{FADING_SCRIPT} failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}"
            )
    return path


def run_ns3_lte(
    ues: int,
    duration_s: float,
    warmup_s: float = 1.0,
    mss: int = 1448,
    radius_m: float = 250.0,
    internet_delay_ms: float = 20.0,
    run: int = 1,
    *,
    rlc: str = "am",
    dl_sinr_db: list[float] | None = None,
    distances_m: list[float] | None = None,
    fading: str | None = None,
    ul_closed_loop: bool = True,
) -> dict:
    """Run one LTE cell (LENA) with a bulk TCP download per UE and return its result.

    1 eNB, 20 MHz, PF scheduler, RLC ``rlc`` ("am" or "um"), ideal RRC, UEs
    static and uniform in the annulus 35 m .. ``radius_m`` (positions drawn
    from ``run``) unless ``distances_m`` (per UE, cyclic) or ``dl_sinr_db``
    (per-UE DL SINR, cyclic, set through the UE noise figure; UEs at 1 km) is
    given, a remote host ``internet_delay_ms`` one way behind the PGW; see
    bench/ns3/lte.cc. ``fading`` ("epa" or "flat") installs TraceFadingLossModel (DL and
    UL) with that 3 km/h trace (``ensure_fading_trace``); None: no fading. With the
    defaults the command line is the historical one. ``ul_closed_loop`` False turns
    LteUePowerControl's closed loop off (open-loop PUSCH power control).
    The returned dict is the program's JSON line (per-UE lists ``goodput_kbps``,
    ``ul_acks``, ``ul_acks_after_warmup``, ``dl_mcs_mean``, ``dl_tbs_mean_bytes``,
    ``dl_dcis``, ``distance_m``, ``bearer_ready_s``; totals
    ``goodput_kbps_total``, ``ul_acks_total``, ``ul_acks_after_warmup_total``;
    ``jain_index``, ``wall_time_s``, ``events``, ``ns3_version`` and the
    parameters) plus ``process_wall_s``. Goodput, ``ul_acks_after_warmup`` and
    the MCS/TBS means cover ``warmup_s`` .. ``duration_s``, and so do the
    counters (``dl_tb_bytes``, ``dl_rlc_bytes``, ``dl_small_pdu_tbs``,
    ``dl_rx_tbs``, ``dl_rx_failed``, ``dl_harq_retx``, the ``ul_`` ones,
    ``ul_pdcp_delay_ms_mean``, ``dl_sinr_db_mean``, ``ul_mcs_mean``,
    ``ul_tb_bytes_mean``, ``pusch_tx_power_dbm_mean``, ``ul_srs_sinr_db_mean``);
    ``dl_path_loss_db`` / ``ul_path_loss_db`` are Friis at each carrier.
    ``summarize_lte`` adds the cell figures.
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
    if rlc not in RLC_MODES:
        raise ValueError(f"rlc must be one of {', '.join(RLC_MODES)}")
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
    if rlc != "am":
        cmd.append(f"--rlc={rlc}")
    if distances_m:
        cmd.append("--distances=" + ",".join(repr(float(d)) for d in distances_m))
    if dl_sinr_db:
        cmd.append("--dlSinr=" + ",".join(repr(float(s)) for s in dl_sinr_db))
    if fading is not None:
        cmd.append(f"--fadingTrace={ensure_fading_trace(fading)}")
        cmd.append(f"--fadingTraceS={FADING_TRACE_S!r}")
    if not ul_closed_loop:
        cmd.append("--ulClosedLoop=0")
    return _run_binary(cmd)


def _ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


def summarize_lte(result: dict) -> dict:
    """Cell and per-UE figures of an ``ns3-lte`` result, under names shared with the
    radiotcp side of the bench: goodputs in Mb/s, BLERs (failed / received transport
    blocks, all transmissions), HARQ retransmissions, UL ACKs and their delay, padding."""
    n = result["ues"]
    measured_s = result["duration_s"] - result["warmup_s"]
    tb = sum(result["dl_tb_bytes"])
    rlc = sum(result["dl_rlc_bytes"])
    new_tbs = sum(result["dl_new_tbs"])
    delivered = result["goodput_kbps_total"] * 1e3 / 8 * measured_s
    ul_pdus = [
        d
        for d, a in zip(
            result["ul_pdcp_delay_ms_mean"], result["ul_acks_after_warmup"], strict=True
        )
        if a
    ]
    return {
        "cell_goodput_mbps": result["goodput_kbps_total"] / 1e3,
        "goodput_mbps": [g / 1e3 for g in result["goodput_kbps"]],
        "wall_s": result["wall_time_s"],
        "dl_mcs": result["dl_mcs_mean"],
        "dl_mcs_cell_mean": _ratio(
            sum(m * d for m, d in zip(result["dl_mcs_mean"], result["dl_dcis"], strict=True)),
            sum(result["dl_dcis"]),
        ),
        "dl_bler": [
            _ratio(f, r) for f, r in zip(result["dl_rx_failed"], result["dl_rx_tbs"], strict=True)
        ],
        "dl_bler_cell": _ratio(sum(result["dl_rx_failed"]), sum(result["dl_rx_tbs"])),
        "dl_harq_retx": sum(result["dl_harq_retx"]),
        "ul_bler_cell": _ratio(sum(result["ul_rx_failed"]), sum(result["ul_rx_tbs"])),
        "ul_harq_retx": sum(result["ul_harq_retx"]),
        # Whole run, as radiotcp's acks_sent (``ul_acks_after_warmup_total`` is in the result).
        "ul_acks": result["ul_acks_total"],
        "ul_ack_delay_ms": sum(ul_pdus) / len(ul_pdus) if ul_pdus else 0.0,
        # Octets of new-data DL blocks that carried no RLC PDU, and the TCP payload share.
        "dl_padding_share": 1.0 - _ratio(rlc, tb),
        "dl_payload_share": _ratio(delivered, tb),
        "dl_small_pdu_tb_share": _ratio(sum(result["dl_small_pdu_tbs"]), new_tbs),
        # Per UE, uplink (absent from results of an older lte.cc).
        "ul_mcs": result.get("ul_mcs_mean", []),
        "ul_bler": [
            _ratio(f, r) for f, r in zip(result["ul_rx_failed"], result["ul_rx_tbs"], strict=True)
        ],
        "ul_harq_retx_ue": result["ul_harq_retx"],
        "ul_acks_ue": result["ul_acks"],
        "ul_ack_delay_ms_ue": result["ul_pdcp_delay_ms_mean"],
        "ul_tb_bytes": result.get("ul_tb_bytes_mean", []),
        "pusch_tx_power_dbm": result.get("pusch_tx_power_dbm_mean", []),
        "ul_srs_sinr_db": result.get("ul_srs_sinr_db_mean", []),
        "ul_path_loss_db": result.get("ul_path_loss_db", []),
        "ues": n,
    }


def _floats(text: str) -> list[float]:
    return [float(x) for x in text.split(",") if x.strip()]


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
    lte.add_argument("--rlc", choices=RLC_MODES, default="am", help="RLC mode of the bearers")
    lte.add_argument(
        "--drop",
        choices=LTE_DROPS,
        default="homogeneous",
        help="homogeneous: the random annulus (every UE at MCS 28); heterogeneous: "
        "MCS 28/26/24 and a low group at 12 (LENA_HET_MCS), set by per-UE DL SINR",
    )
    lte.add_argument("--dl-sinr", type=_floats, default=None, help="per-UE DL SINR dB, a,b,..")
    lte.add_argument("--distances", type=_floats, default=None, help="per-UE metres, a,b,..")
    lte.add_argument(
        "--ul-open-loop",
        action="store_true",
        help="LteUePowerControl::ClosedLoop false (open-loop PUSCH power control)",
    )
    lte.add_argument(
        "--fading",
        choices=FADING_PROFILES,
        default=None,
        help="3 km/h TraceFadingLossModel trace on DL and UL (epa: 7 taps; flat: one tap)",
    )
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
                rlc=args.rlc,
                dl_sinr_db=args.dl_sinr or lte_drop_sinr(args.drop),
                distances_m=args.distances,
                fading=args.fading,
                ul_closed_loop=not args.ul_open_loop,
            )
            result.update(summarize_lte(result))
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
