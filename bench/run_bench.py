"""Whole-run benchmarks of radiotcp, the side-by-side comparison with ns-3 and sweep
throughput (`make bench`).

For the wired-384k preset with 1 and 4 flows and 60 s and 600 s of simulated time, runs the
radiotcp core (through the Python binding, timing the simulation proper as measured in Rust)
and the equivalent ns-3 C++ program (bench/ns3/wired.cc, timing Simulator::Run only), and
prints both goodputs, both wall times, the speed ratio and events per second. The numbers are
also written to results/bench/wired-vs-ns3.json.

TCP cost: SACK, SACK + PRR, CUBIC and the linux profile against NewReno on a lossy wired run
and a UMTS run, wall time per run (results/bench/tcp-cost.json; target below 1.3x).

SACK and CUBIC: the same preset with 1 and 4 flows for 600 s, radiotcp beside ns-3 set up as
alike as possible for NewReno (the reference), SACK with classic recovery, SACK with PRR, and
CUBIC with SACK; goodput, fast retransmits, timeouts, drops, duplicate deliveries and the
wall-time ratio (results/bench/sack-cubic-vs-ns3.json, docs/ns3-comparison.md).

Sweep throughput: the 720-run wired sweep of the wired-buffer recipe and the 200-run UMTS
sweep of ackrate-table, each into a fresh store, in one process, on the local pool of 2 cores
and on a Dask LocalCluster of 2 workers: runs per second and the parallel efficiency against
one process, target >= 85 %; and the same two sweeps with ten times the replications, for
what a sweep costs per run once a cluster's fixed cost per sweep is a small share of it
(results/bench/sweep.json).

LTE: the lte-lena preset (the cell of bench/ns3/lte.cc) beside ns-3 LENA, RLC UM, 10/40/60 UEs
in a homogeneous (MCS 28) and a heterogeneous drop, plus RLC AM rows with LENA's padding;
the speed ratio at 40 UEs (results/bench/lte-vs-ns3.json); and the paper's preset with 60 UEs
for 60 s.

IS-707: one 600 s run of each RLP preset. BS: the base-station presets with and without the
ACK controller. Recipes: the wall time of every paper-reproduction
recipe (RLC mechanisms; IS-707) from an empty store on all cores (results/bench/recipes.json).

    python bench/run_bench.py [--skip-ns3] [--skip-sweep] [--skip-recipes] [--repeats N]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table

from radiotcp import _core
from radiotcp.config import load, to_core_json
from radiotcp.store import Store
from radiotcp.sweep import SweepSpec, run_sweep

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
PRESET = ROOT / "scenarios" / "wired-384k.toml"
OUT = ROOT / "results" / "bench" / "wired-vs-ns3.json"
OUT_SACK_CUBIC = ROOT / "results" / "bench" / "sack-cubic-vs-ns3.json"
OUT_SWEEP = ROOT / "results" / "bench" / "sweep.json"
OUT_IS707 = ROOT / "results" / "bench" / "is707.json"
OUT_RECIPES = ROOT / "results" / "bench" / "recipes.json"
OUT_BS = ROOT / "results" / "bench" / "bs.json"
BS_VARIATION = ROOT / "scenarios" / "bs-delay-variation.toml"
BS_SPIKE = ROOT / "scenarios" / "bs-delay-spike.toml"
IS707 = ROOT / "scenarios" / "is707-9600.toml"
IS707_16X = ROOT / "scenarios" / "is707-16x9600.toml"
LTE = ROOT / "scenarios" / "lte-ohta.toml"
LTE_LENA = ROOT / "scenarios" / "lte-lena.toml"
OUT_LTE = ROOT / "results" / "bench" / "lte-vs-ns3.json"
OUT_EMULATION = ROOT / "results" / "bench" / "emulation.json"
OUT_STARTUP = ROOT / "results" / "bench" / "startup.json"
LTE_UES = (10, 40, 60)

sys.path.insert(0, str(BENCH_DIR))
from ns3_runner import (  # noqa: E402
    LENA_HET_MCS,
    Ns3BenchError,
    lte_drop_sinr,
    run_ns3,
    run_ns3_lte,
    summarize_lte,
)

CASES = [(1, 60.0), (4, 60.0), (1, 600.0), (4, 600.0)]


# Rounds of the side-by-side: each round times radiotcp, one ns-3 run, radiotcp again.
SIDE_BY_SIDE_ROUNDS = 5


def interleaved(
    ours_once: Callable[[], float],
    theirs_once: Callable[[], dict] | None,
    repeats: int,
    rounds: int = SIDE_BY_SIDE_ROUNDS,
) -> tuple[list[float], list[dict], list[float]]:
    """radiotcp's wall times (`ours_once()` runs once and returns seconds), ns-3's results
    (`theirs_once()` runs once and returns its result, with `wall_time_s`) and the ratio of
    each round: ns-3's wall time over the median of the radiotcp runs just before and after
    it. About `repeats` radiotcp runs in all, spread over `rounds` rounds (all in a row
    without ns-3).

    Why rounds: this 2-vCPU VM's speed swings by up to 2x within minutes for radiotcp's
    code, less for ns-3's (a spin loop stays steady), and radiotcp's runs of a few ms were all
    taken within a fraction of a second, ns-3's later: a ratio of two medians taken seconds
    apart moved between 95x and 198x from one bench run to the next. Within a round both
    sides meet the same machine, and the median of the rounds' ratios keeps the spread out.
    """
    if theirs_once is None:
        return [ours_once() for _ in range(max(1, repeats))], [], []
    rounds = max(1, rounds)
    per_side = max(1, repeats // (2 * rounds))
    ours: list[float] = []
    theirs: list[dict] = []
    ratios: list[float] = []
    for _ in range(rounds):
        around = [ours_once() for _ in range(per_side)]
        t = theirs_once()
        around += [ours_once() for _ in range(per_side)]
        ours += around
        theirs.append(t)
        ratios.append(t["wall_time_s"] / statistics.median(around))
    return ours, theirs, ratios


@contextlib.contextmanager
def one_cpu() -> Iterator[None]:
    """This process, and the ns-3 processes it starts (they inherit it), pinned to the CPU
    it runs on, for the side-by-side: this VM's two vCPUs differ in speed by up to 1.6x for
    radiotcp at times (measured: the same run pinned to vCPU 0 took 6.3 ms and on vCPU 1 4.1
    ms, then the reverse minutes later; a spin loop is the same on both), so two sides
    measured on different vCPUs compare the vCPUs. Does nothing where affinity is unknown."""
    if not hasattr(os, "sched_setaffinity"):
        yield
        return
    before = os.sched_getaffinity(0)
    try:
        # Field 39 of /proc/self/stat: the CPU this process last ran on.
        cpu = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[36])
        os.sched_setaffinity(0, {cpu})
    except (OSError, ValueError, IndexError):
        yield
        return
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def ratio_cells(ratios: Sequence[float]) -> tuple[str, str]:
    """The side-by-side's ratio (median of the rounds) and its range, as table cells."""
    if not ratios:
        return "-", "-"
    return f"{statistics.median(ratios):.0f}x", f"{min(ratios):.0f}-{max(ratios):.0f}"


def bench_radiotcp(
    flows: int,
    duration_s: float,
    repeats: int,
    theirs_once: Callable[[], dict] | None = None,
    rounds: int = SIDE_BY_SIDE_ROUNDS,
) -> tuple[dict, list[dict], list[float]]:
    """radiotcp on the preset (median wall time of the simulation proper, about `repeats`
    runs), interleaved with `theirs_once` (one ns-3 run) over `rounds` rounds as in
    `interleaved`: radiotcp's figures, ns-3's runs and the rounds' ratios."""
    cfg = load(PRESET, [f"flows.count={flows}", f"simulation.duration_s={duration_s}"])
    doc = to_core_json(cfg)
    # A first run for the figures (and to warm up), not timed.
    result = _core.simulate(doc, 1, 0)
    calls: list[float] = []

    def once() -> float:
        t0 = time.perf_counter()
        wall = _core.simulate(doc, 1, 0)["wall_time_s"]
        calls.append(time.perf_counter() - t0)
        return wall

    walls, theirs, ratios = interleaved(once, theirs_once, repeats, rounds)
    ours = {
        "goodput_kbps_total": sum(f["goodput_kbps"] for f in result["flows"]),
        "wall_time_s": statistics.median(walls),
        "call_time_s": statistics.median(calls),
        "events": result["events"],
        "drops_queue": sum(
            link["drops"]["queue_full"]
            for link in result["links"]
            if link["name"] == "access" and link["direction"] == "data"
        ),
        "retransmissions": sum(f["retransmissions"] for f in result["flows"]),
    }
    return ours, theirs, ratios


def ns3_figures(runs: list[dict]) -> dict:
    """The ns-3 side of a NewReno case: the first run's figures, the median wall time."""
    r = runs[0]
    return {
        "goodput_kbps_total": r["goodput_kbps_total"],
        "wall_time_s": statistics.median(x["wall_time_s"] for x in runs),
        "events": r.get("events"),
        "drops_queue": r.get("drops_queue"),
    }


# SACK and CUBIC beside ns-3 (docs/ns3-comparison.md, "SACK and CUBIC beside ns-3"): each
# pair is (key, label, radiotcp overrides on the wired-384k preset, ns3-wired keywords of
# run_ns3). Everything else is the NewReno comparison's set-up: 50-packet buffer, min RTO 1 s,
# delayed ACKs (2 segments, 200 ms), IW 1, 65535-byte window, no timestamps.
SACK_CUBIC_PAIRS: list[tuple[str, str, list[str], dict]] = [
    ("newreno", "NewReno", [], {}),
    ("sack", "SACK", ["tcp.variant=sack"], {"sack": True}),
    (
        "sack-prr",
        "SACK+PRR",
        ["tcp.variant=sack", "tcp.prr=true"],
        {"sack": True, "recovery": "prr"},
    ),
    (
        "cubic-sack",
        "CUBIC+SACK",
        [
            "tcp.variant=sack",
            "tcp.congestion_control=cubic",
            "tcp.cubic_beta=0.7",
            "tcp.cubic_c=0.4",
            # ns-3's HyStart is Linux 2.6's (ACK train + delay), radiotcp's is HyStart++:
            # both off.
            "tcp.hystart=false",
            # ns-3's TcpCubic: ssthresh = beta x cwnd (Linux), not beta x FlightSize.
            "tcp.ssthresh_basis=cwnd",
            # ns-3's TcpCubic grows by the segments an ACK newly delivers (2 with delayed
            # ACKs) in slow start; L = 2 segments gives the same, without letting a stretch
            # ACK over SACKed data inflate cwnd after a timeout.
            "tcp.abc_limit_segments=2",
        ],
        {"sack": True, "cc": "cubic", "hystart": False, "cubic_beta": 0.7, "cubic_c": 0.4},
    ),
]
SACK_CUBIC_FLOWS = (1, 4)
SACK_CUBIC_DURATION_S = 600.0


def sack_cubic_radiotcp(
    flows: int,
    overrides: list[str],
    repeats: int,
    theirs_once: Callable[[], dict] | None = None,
    rounds: int = SIDE_BY_SIDE_ROUNDS,
) -> tuple[dict, list[dict], list[float]]:
    """One pair's radiotcp side: the preset with `overrides`, the loss-recovery counters of
    one run and the median wall time of about `repeats` identical runs (measured in Rust),
    interleaved with `theirs_once` (one plain ns-3 run) as in `interleaved`; with ns-3's runs
    and the rounds' ratios."""
    cfg = load(
        PRESET,
        [f"flows.count={flows}", f"simulation.duration_s={SACK_CUBIC_DURATION_S}", *overrides],
    )
    doc = to_core_json(cfg)
    r = _core.simulate(doc, 1, 0)
    walls, theirs, ratios = interleaved(
        lambda: _core.simulate(doc, 1, 0)["wall_time_s"], theirs_once, repeats, rounds
    )
    m = r["metrics"]
    fl = r["flows"]
    ours = {
        "goodput_kbps_total": m["goodput_kbps"],
        "goodput_kbps": [f["goodput_kbps"] for f in fl],
        "wall_time_s": statistics.median(walls),
        "events": r["events"],
        "drops_queue": int(m["drops.access.data.queue_full"]),
        "fast_retransmits": sum(f["fast_retransmits"] for f in fl),
        "timeouts": sum(f["timeouts"] for f in fl),
        "retransmissions": sum(f["retransmissions"] for f in fl),
        "duplicate_arrivals": sum(f["duplicate_arrivals"] for f in fl),
    }
    return ours, theirs, ratios


def sack_cubic_ns3(flows: int, options: dict, plains: list[dict]) -> dict:
    """One pair's ns-3 side: the plain runs' median wall time (as in the NewReno table) and
    the counters of one more run with --counters=1 (the counters only observe: goodput, drops
    and packet counts are the same in both)."""
    plain = plains[0]
    counted = run_ns3(
        flows, SACK_CUBIC_DURATION_S, queue_packets=50, min_rto_ms=1000, counters=True, **options
    )
    return {
        "goodput_kbps_total": plain["goodput_kbps_total"],
        "goodput_kbps": plain["goodput_kbps"],
        "wall_time_s": statistics.median(p["wall_time_s"] for p in plains),
        "events": plain["events"],
        "drops_queue": plain["drops_queue"],
        "fast_retransmits": sum(counted["fast_retransmits"]),
        "timeouts": sum(counted["timeouts"]),
        "retransmissions": sum(counted["retransmissions"]),
        "duplicate_arrivals": sum(counted["dup_segments_rx"]),
        "options": {
            k: plain[k]
            for k in ("sack", "cc", "recovery", "timestamps", "limited_transmit", "iw")
            if k in plain
        },
    }


def sack_cubic_section(
    console: Console, repeats: int, skip_ns3: bool, ns3_repeats: int = SIDE_BY_SIDE_ROUNDS
) -> bool:
    """SACK and CUBIC beside ns-3: each pair of SACK_CUBIC_PAIRS for 1 and 4 flows, 600 s.
    Prints goodputs, their difference, fast retransmits, timeouts, drops, duplicate deliveries
    and the wall-time ratio; writes results/bench/sack-cubic-vs-ns3.json. Returns skip_ns3
    (set when ns-3 turned out to be unavailable)."""
    rows = []
    for key, label, overrides, options in SACK_CUBIC_PAIRS:
        for flows in SACK_CUBIC_FLOWS:
            theirs_once = None
            if not skip_ns3:

                def theirs_once(flows: int = flows, options: dict = options) -> dict:
                    return run_ns3(
                        flows, SACK_CUBIC_DURATION_S, queue_packets=50, min_rto_ms=1000, **options
                    )

            theirs = None
            try:
                ours, plains, ratios = sack_cubic_radiotcp(
                    flows, overrides, repeats, theirs_once, ns3_repeats
                )
                if plains:
                    theirs = sack_cubic_ns3(flows, options, plains)
            except Ns3BenchError as e:
                console.print(f"[red]ns-3 unavailable:[/red] {e}")
                skip_ns3 = True
                ours, plains, ratios = sack_cubic_radiotcp(flows, overrides, repeats)
            diff = (
                (ours["goodput_kbps_total"] - theirs["goodput_kbps_total"])
                / theirs["goodput_kbps_total"]
                if theirs
                else None
            )
            rows.append(
                {
                    "pair": key,
                    "label": label,
                    "flows": flows,
                    "duration_s": SACK_CUBIC_DURATION_S,
                    "radiotcp_overrides": overrides,
                    "ns3_options": options,
                    "radiotcp": ours,
                    "ns3": theirs,
                    "goodput_diff": diff,
                    "within_5pct": None if diff is None else abs(diff) <= 0.05,
                    "ratio": statistics.median(ratios) if ratios else None,
                    "ratio_rounds": ratios,
                }
            )
    t = Table(
        title=f"SACK and CUBIC, wired-384k, {SACK_CUBIC_DURATION_S:.0f} s: radiotcp (ours) vs "
        "ns-3; goodput kb/s, counters ours/ns-3, wall ours ms, ns-3 s"
    )
    for col in (
        "pair",
        "n",
        "ours",
        "ns-3",
        "diff",
        "fast rtx",
        "RTOs",
        "drops",
        "dup rx",
        "ours",
        "ns-3",
        "ratio",
        "range",
    ):
        t.add_column(col, justify="right")
    for r in rows:
        o, n = r["radiotcp"], r["ns3"]

        def pair(k: str, o: dict = o, n: dict | None = n) -> str:
            return f"{o[k]}/{n[k]}" if n else f"{o[k]}/-"

        t.add_row(
            r["label"],
            str(r["flows"]),
            f"{o['goodput_kbps_total']:.1f}",
            f"{n['goodput_kbps_total']:.1f}" if n else "-",
            f"{100 * r['goodput_diff']:+.1f}%" if n else "-",
            pair("fast_retransmits"),
            pair("timeouts"),
            pair("drops_queue"),
            pair("duplicate_arrivals"),
            f"{o['wall_time_s'] * 1e3:.2f}",
            f"{n['wall_time_s']:.2f}" if n else "-",
            *ratio_cells(r["ratio_rounds"]),
        )
    console.print(t)
    console.print(
        "n = flows; NewReno is the reference set-up. fast rtx, RTOs, dup rx: sums over the "
        "flows (ns-3: --counters=1; RTOs = every timer expiry, dup rx = data segments the "
        "receiver already held). wall = simulation proper (radiotcp: median of about "
        f"{max(1, repeats)} runs; ns-3: Simulator::Run, median of {max(1, ns3_repeats)} runs); "
        "ratio = median over the rounds of ns-3's wall time over radiotcp's runs around it."
    )
    OUT_SACK_CUBIC.parent.mkdir(parents=True, exist_ok=True)
    OUT_SACK_CUBIC.write_text(json.dumps(rows, indent=2))
    console.print(f"results: {OUT_SACK_CUBIC}")
    return skip_ns3


# The cost of the modern TCP machinery per run, against NewReno on the same scenario: each
# variant's wall time over NewReno's, measured alternately (round k runs every variant once)
# so that a drifting machine slows all alike. Target (TCP-profiles issue): below 1.3x.
TCP_COST_VARIANTS: list[tuple[str, list[str]]] = [
    ("NewReno", ["tcp.variant=newreno"]),
    ("SACK", ["tcp.variant=sack"]),
    ("SACK + PRR", ["tcp.variant=sack", "tcp.prr=true"]),
    ("CUBIC + SACK", ["tcp.variant=sack", "tcp.congestion_control=cubic"]),
    ("linux profile", ["tcp.profile=linux"]),
]
TCP_COST_CASES: list[tuple[str, Path, list[str]]] = [
    (
        "wired, 4 flows, 1 % loss, 600 s",
        PRESET,
        ["flows.count=4", "links.1.loss_rate=0.01", "simulation.duration_s=600"],
    ),
    (
        "umts, 4 flows, 600 s",
        ROOT / "scenarios" / "umts-384k.toml",
        ["flows.count=4", "simulation.duration_s=600"],
    ),
]
OUT_TCP_COST = ROOT / "results" / "bench" / "tcp-cost.json"


def tcp_cost_section(console: Console, repeats: int) -> None:
    """Wall time per run of SACK, PRR, CUBIC and the linux profile relative to NewReno."""
    rows = []
    for label, preset, base in TCP_COST_CASES:
        docs = [to_core_json(load(preset, [*base, *over])) for _name, over in TCP_COST_VARIANTS]
        walls: list[list[float]] = [[] for _ in docs]
        events = [0] * len(docs)
        for _ in range(max(3, repeats // 2)):
            for i, doc in enumerate(docs):
                r = _core.simulate(doc, 1, 0)
                walls[i].append(r["wall_time_s"])
                events[i] = r["events"]
        ref = statistics.median(walls[0])
        for (name, over), w, ev in zip(TCP_COST_VARIANTS, walls, events, strict=True):
            med = statistics.median(w)
            rows.append(
                {
                    "case": label,
                    "variant": name,
                    "overrides": over,
                    "wall_time_s": med,
                    "events": ev,
                    "ratio_to_newreno": med / ref,
                    "ns_per_event": med / ev * 1e9,
                }
            )
    t = Table(title="Cost of the TCP variants per run, against NewReno (same runs, alternated)")
    for col in ("case", "variant", "ms per run", "events", "ns/event", "x NewReno"):
        t.add_column(col, justify="left" if col in ("case", "variant") else "right")
    for r in rows:
        t.add_row(
            r["case"],
            r["variant"],
            f"{r['wall_time_s'] * 1e3:.2f}",
            f"{r['events']:,}",
            f"{r['ns_per_event']:.0f}",
            f"{r['ratio_to_newreno']:.2f}",
        )
    console.print(t)
    console.print(
        "x NewReno: median wall time over NewReno's (target below 1.3); a variant that sends "
        "more packets (the linux profile's large window overflows the buffers) has more events."
    )
    OUT_TCP_COST.parent.mkdir(parents=True, exist_ok=True)
    OUT_TCP_COST.write_text(json.dumps(rows, indent=2))
    console.print(f"results: {OUT_TCP_COST}")


UMTS = ROOT / "scenarios" / "umts-384k.toml"
OUT_UMTS = ROOT / "results" / "bench" / "umts.json"


def umts_section(console: Console, repeats: int) -> None:
    """The umts-384k preset: one 60 s run (median of `repeats`) for 1 and 4 flows, and a whole
    20-replication point of the 4-flow preset on one core."""
    rows = []
    for flows in (1, 4):
        doc = to_core_json(load(UMTS, [f"flows.count={flows}"]))
        walls, events = [], 0
        for i in range(repeats):
            r = _core.simulate(doc, 1, i)
            walls.append(r["wall_time_s"])
            events = r["events"]
        wall = statistics.median(walls)
        rows.append(
            {
                "flows": flows,
                "wall_s": wall,
                "events": events,
                "events_per_s": events / wall,
                "sim_s_per_wall_s": 60.0 / wall,
            }
        )
    doc4 = to_core_json(load(UMTS, ["flows.count=4"]))
    t0 = time.perf_counter()
    for i in range(20):
        _core.simulate_metrics(doc4, 1, i)
    point = time.perf_counter() - t0
    t = Table(title="umts-384k (RLC AM over a Markov channel), one 60 s run")
    for col in ("flows", "wall ms", "events", "Mevents/s", "sim s per wall s"):
        t.add_column(col, justify="right")
    for r in rows:
        t.add_row(
            str(r["flows"]),
            f"{1e3 * r['wall_s']:.2f}",
            str(r["events"]),
            f"{r['events_per_s'] / 1e6:.1f}",
            f"{r['sim_s_per_wall_s']:,.0f}",
        )
    console.print(t)
    console.print(
        f"a 20-replication point of the 4-flow preset on one core: {point:.3f} s "
        "(target: under 1 s)"
    )
    costs = []
    mechanisms = [(d, [f"access.buffer.discipline={d}"]) for d in ("droptail", "red", "sbd")]
    mechanisms += [(d, [f"access.buffer.discipline={d}"]) for d in ("codel", "pie")]
    mechanisms += [
        ("ack-rate", ["access.ack_control.mode=rate", "access.ack_control.alpha=0.5"]),
        ("ack-delay", ["access.ack_control.mode=delay", "access.ack_control.maxd_ms=200"]),
    ]
    for name, overrides in mechanisms:
        doc = to_core_json(load(UMTS, ["flows.count=4", *overrides]))
        walls = [_core.simulate(doc, 1, i)["wall_time_s"] for i in range(repeats)]
        costs.append((name, statistics.median(walls)))
    base = costs[0][1]
    console.print(
        "RLC-buffer mechanisms, 4 flows, wall per 60 s run (ratio to drop-tail): "
        + ", ".join(f"{d} {1e3 * w:.2f} ms ({w / base:.2f}x)" for d, w in costs)
    )
    OUT_UMTS.parent.mkdir(parents=True, exist_ok=True)
    OUT_UMTS.write_text(
        json.dumps(
            {"runs": rows, "point_20_runs_s": point, "disciplines_wall_s": dict(costs)}, indent=2
        )
    )


def is707_section(console: Console, repeats: int) -> None:
    """The IS-707 RLP presets: one 600 s run (median of `repeats`), 1 flow, at the preset's
    P_e = 0.1 and at 0.3 with 10 retransmission cycles (the most NAK traffic)."""
    rows = []
    for preset in (IS707, IS707_16X):
        for label, overrides in (
            ("P_e 0.1", []),
            ("P_e 0.3, 10 cycles", ["access.forward.fer=0.3", "access.nak_rounds=10"]),
        ):
            doc = to_core_json(load(preset, overrides))
            runs = [_core.simulate(doc, 1, i) for i in range(repeats)]
            wall = statistics.median(r["wall_time_s"] for r in runs)
            rows.append(
                {
                    "preset": preset.stem,
                    "case": label,
                    "wall_s": wall,
                    "events": runs[0]["events"],
                    "normalised_goodput": runs[0]["metrics"]["normalised_goodput"],
                }
            )
    t = Table(title="IS-707 RLP presets, one 600 s run (target: well under 100 ms)")
    for col in ("preset", "case", "wall ms", "events", "Mevents/s", "norm. goodput"):
        t.add_column(col, justify="right")
    for r in rows:
        t.add_row(
            r["preset"],
            r["case"],
            f"{1e3 * r['wall_s']:.2f}",
            str(r["events"]),
            f"{r['events'] / r['wall_s'] / 1e6:.1f}",
            f"{r['normalised_goodput']:.3f}",
        )
    console.print(t)
    OUT_IS707.parent.mkdir(parents=True, exist_ok=True)
    OUT_IS707.write_text(json.dumps(rows, indent=2))


def bs_section(console: Console, repeats: int) -> None:
    """The base-station presets (20 s, variable delay with reordering): one run with and
    without the ACK controller (median of `repeats`), and the controller's cost."""
    rows = []
    for preset in (BS_VARIATION, BS_SPIKE):
        walls = {}
        for on in (False, True):
            doc = to_core_json(load(preset, [f"bs_ack.enabled={'true' if on else 'false'}"]))
            runs = [_core.simulate(doc, 1, i) for i in range(repeats)]
            walls[on] = statistics.median(r["wall_time_s"] for r in runs)
            rows.append(
                {
                    "preset": preset.stem,
                    "controller": on,
                    "wall_s": walls[on],
                    "events": runs[0]["events"],
                }
            )
        console.print(
            f"{preset.stem}, one 20 s run: {1e3 * walls[False]:.2f} ms without the BS ACK "
            f"controller, {1e3 * walls[True]:.2f} ms with it ({walls[True] / walls[False]:.2f}x)"
        )
    OUT_BS.parent.mkdir(parents=True, exist_ok=True)
    OUT_BS.write_text(json.dumps(rows, indent=2))


# The recipes of the mechanisms issue and of the IS-707 issue, timed from an empty store.
RECIPE_SETS = {
    "RLC mechanisms (SBD, RED, ACK rate control, side by side)": [
        "sbd-tr",
        "red-params",
        "aqm-traces",
        "ackrate-maxd",
        "ackrate-alpha",
        "ackrate-table",
        "mechanisms",
    ],
    "IS-707 RLP": ["is707-awnd", "is707-16x", "is707-cycles"],
    "LTE uplink scarcity and the TCP/buffer ablation": ["lte-uplink", "lte-tcp-buffer"],
    "NR cell: the ACK filters in 5G": ["nr-ack-filter", "nr-tcp-buffer"],
}


def ours_over_lena(o: dict, n: dict | None, key: str, fmt: str) -> str:
    """A table cell "ours/LENA" of `key` (LENA "-" when ns-3 did not run)."""
    return format(o[key], fmt) + "/" + (format(n[key], fmt) if n else "-")


def lena_sinr(mcs: float) -> float:
    """radiotcp's SINR for a UE that LENA ran at ``mcs``: radiotcp's 10 % BLER threshold of
    that MCS + 1 dB for MCS 28, else halfway to the threshold of the next MCS (at most
    1 dB), so that radiotcp picks the same MCS with a margin (scenarios/lte-lena.toml)."""
    m = max(0, min(28, round(mcs)))
    thr = _core.lte_mcs_sinr_db(m)
    if m == 28:
        return round(thr + 1.0, 3)
    return round(thr + min(1.0, (_core.lte_mcs_sinr_db(m + 1) - thr) / 2), 3)


def lte_nominal_mcs(drop: str, ues: int) -> list[int]:
    """The MCS each UE of a named drop gets in LENA (what lte.cc is set up to give)."""
    if drop == "homogeneous":
        return [28] * ues
    return [LENA_HET_MCS[i % len(LENA_HET_MCS)] for i in range(ues)]


def lte_matched(
    ues: int,
    ns3: dict | None,
    duration_s: float,
    warmup_s: float,
    rlc: str = "um",
    drop: str = "homogeneous",
) -> list[str]:
    """Overrides of scenarios/lte-lena.toml (the cell of bench/ns3/lte.cc) for one row: the
    UE count, the RLC mode, the duration, and each UE at the SINR of the mean DL MCS LENA
    gave it (`lena_sinr`; the drop's nominal MCS when ns-3 did not run)."""
    mcs = ns3["dl_mcs"] if ns3 else lte_nominal_mcs(drop, ues)
    sinr = [lena_sinr(m) for m in mcs]
    return [
        f"access.ues={ues}",
        f"access.cell.ue_sinr_db={json.dumps(sinr)}",
        f'access.rlc.mode="{rlc}"',
        f"simulation.duration_s={duration_s}",
        f"simulation.warmup_s={warmup_s}",
    ]


def lte_ours(doc: str, repeats: int) -> dict:
    """radiotcp's figures of one matched cell, under ns3_runner.summarize_lte's names."""
    runs = [_core.simulate(doc, 1, i) for i in range(repeats)]
    cell, ues = runs[0]["lte"]["cell"], runs[0]["lte"]["ues"]
    return {
        "cell_goodput_mbps": cell["goodput_kbps"] / 1e3,
        "goodput_mbps": [u["goodput_kbps"] / 1e3 for u in ues],
        "wall_s": statistics.median(x["wall_time_s"] for x in runs),
        "dl_mcs": [u["dl_mean_mcs"] for u in ues],
        "dl_mcs_cell_mean": cell["dl_mean_mcs"],
        "dl_bler_cell": cell["dl_bler"],
        "dl_harq_retx": cell["dl_harq_retx"],
        "ul_bler_cell": cell["ul_bler"],
        "ul_harq_retx": cell["ul_harq_retx"],
        "ul_acks": cell["acks_sent"],
        "ul_ack_delay_ms": cell["ul_ack_delay_mean_ms"],
        "jain_index": cell["fairness_jain"],
        "events": runs[0]["events"],
    }


def lte_deviation(o: dict, n: dict) -> dict:
    """Cell goodput deviation and the largest per-UE one, radiotcp against LENA, in %."""
    per_ue = [
        abs(a - b) / b * 100 for a, b in zip(o["goodput_mbps"], n["goodput_mbps"], strict=True) if b
    ]
    return {
        "cell_pct": (o["cell_goodput_mbps"] / n["cell_goodput_mbps"] - 1) * 100,
        "per_ue_max_pct": max(per_ue) if per_ue else 0.0,
    }


# The rows of the LTE section: (drop, RLC mode, UEs). RLC UM is the headline (the two RLCs
# then do the same thing); RLC AM stays as a second row for LENA's lone STATUS PDUs.
LTE_ROWS = [
    *(("homogeneous", "um", n) for n in LTE_UES),
    *(("heterogeneous", "um", n) for n in LTE_UES),
    *(("homogeneous", "am", n) for n in (10, 40)),
]
LTE_SPEED_UES = 40

# The fading pair: LENA's TraceFadingLossModel with a 3 km/h trace (DL and UL; "epa": the 7
# EPA taps, frequency-selective; "flat": one tap, every RB the same gain) against radiotcp's
# wideband Jakes at 3 km/h on the same 2.12 GHz carrier, 10 UEs, RLC UM, every UE
# at the same mean SINR (15 dB: LENA's MCS 20 without fading, so the MCS can move both ways).
# LENA reports its CQI every 2 ms (P10 and A30 together, LteUePhy::GenerateCqiRsrpRsrq) and
# the scheduler uses it for the subframe 7 TTIs after the measurement (4 TTIs in the UE PHY's
# control queue, 1 on the air, MacToChannelDelay 2), so radiotcp reports every 2 TTIs and
# uses a report 7 TTIs old here. OLLA is off (LENA has none); the OLLA row is for information.
LTE_FADING_UES = 10
LTE_FADING_SINR_DB = 15.0
LTE_FADING_TRACES = ("epa", "flat")
LTE_FADING_OLLA = (("OLLA off", 0.0), ("OLLA 0.1 dB", 0.1))


def lte_fading_overrides(olla_step_db: float, duration_s: float, warmup_s: float) -> list[str]:
    """Overrides of scenarios/lte-lena.toml for one fading row (Jakes, see LTE_FADING_UES)."""
    return [
        f"access.ues={LTE_FADING_UES}",
        f"access.cell.ue_sinr_db={json.dumps([LTE_FADING_SINR_DB] * LTE_FADING_UES)}",
        'access.rlc.mode="um"',
        'access.fading.model="jakes"',
        "access.fading.speed_kmh=3.0",
        "access.fading.carrier_ghz=2.12",
        "access.cqi_period_tti=2",
        "access.cqi_delay_tti=7",
        f"access.olla_step_db={olla_step_db}",
        f"simulation.duration_s={duration_s}",
        f"simulation.warmup_s={warmup_s}",
    ]


def lte_fading_rows(
    console: Console, repeats: int, skip_ns3: bool, duration: float, warmup: float
) -> list[dict]:
    """The fading pair: radiotcp with Jakes (LTE_FADING_OLLA) against LENA with each trace of
    LTE_FADING_TRACES, every UE at LTE_FADING_SINR_DB."""
    ours = {
        label: lte_ours(
            to_core_json(load(LTE_LENA, lte_fading_overrides(olla, duration, warmup))), repeats
        )
        for label, olla in LTE_FADING_OLLA
    }
    rows = []
    for trace in LTE_FADING_TRACES:
        theirs = None
        if not skip_ns3:
            try:
                raw = run_ns3_lte(
                    LTE_FADING_UES,
                    duration,
                    warmup_s=warmup,
                    rlc="um",
                    dl_sinr_db=[LTE_FADING_SINR_DB],
                    fading=trace,
                )
                theirs = {**summarize_lte(raw), "raw": raw}
            except Ns3BenchError as e:
                console.print(f"[yellow]ns-3 unavailable, LENA fading rows skipped:[/yellow] {e}")
                skip_ns3 = True
        for label, _ in LTE_FADING_OLLA:
            row = {
                "lena_trace": trace,
                "radiotcp_olla": label,
                "sinr_db": LTE_FADING_SINR_DB,
                "radiotcp": ours[label],
                "ns3": theirs,
            }
            if theirs:
                row["deviation"] = lte_deviation(ours[label], theirs)
            rows.append(row)
    t = Table(
        title=f"LTE fading pair, {LTE_FADING_UES} UEs, RLC UM, mean SINR {LTE_FADING_SINR_DB} dB: "
        "radiotcp Jakes 3 km/h vs LENA's 3 km/h trace"
    )
    for col in (
        "LENA trace",
        "radiotcp",
        "Mb/s ours",
        "Mb/s LENA",
        "cell dev",
        "max UE dev",
        "MCS o/n",
        "DL BLER o/n",
        "DL HARQ retx o/n",
        "UL BLER o/n",
        "ACK delay ms o/n",
    ):
        t.add_column(col, justify="right")
    for row in rows:
        o, n, d = row["radiotcp"], row["ns3"], row.get("deviation")

        def pair(key: str, fmt: str, o: dict = o, n: dict | None = n) -> str:
            return ours_over_lena(o, n, key, fmt)

        t.add_row(
            row["lena_trace"],
            row["radiotcp_olla"],
            f"{o['cell_goodput_mbps']:.2f}",
            f"{n['cell_goodput_mbps']:.2f}" if n else "-",
            f"{d['cell_pct']:+.2f}%" if d else "-",
            f"{d['per_ue_max_pct']:.2f}%" if d else "-",
            pair("dl_mcs_cell_mean", ".1f"),
            pair("dl_bler_cell", ".3f"),
            pair("dl_harq_retx", "d"),
            pair("ul_bler_cell", ".3f"),
            pair("ul_ack_delay_ms", ".1f"),
        )
    console.print(t)
    return rows


# The power-control pair: PUSCH power control per grant against LENA's LteUePowerControl.
# lte.cc puts the 10 UEs at these distances (Friis; DL SINR from the distance too), so that
# all but the first two are power-limited on a 3-PRB grant (headroom at one PRB: 103 dB minus
# the DL path loss, 92.9-120.6 dB). radiotcp: lte-lena with power_control = "per_grant" and
# LENA's values (P0 nominal PUSCH -80 dBm, alpha 1, Pcmax 23 dBm, eNB noise figure 5 dB, no
# UL interference in one cell: IoT 0 dB), each UE's coupling loss LENA's UL path loss (Friis
# at 1930 MHz) and its DL SINR `lena_sinr` of LENA's DL MCS. LENA's closed loop is off
# (--ulClosedLoop=0; with PfFfMacScheduler and no FFR its TPC is 0 dB anyway).
LTE_PC_DISTANCES_M = (500, 1000, 2000, 3000, 4000, 5000, 6000, 8000, 10000, 12000)
LTE_PC_NOMINAL_DL_MCS = (28, 28, 28, 28, 28, 28, 28, 28, 26, 24)  # LENA's, measured
LTE_UL_CARRIER_HZ = 1930e6  # lte.cc's UL EARFCN 18100


def lte_pc_loss(ns3: dict | None) -> list[float]:
    """Each UE's UL path loss in LENA (Friis at 1930 MHz), dB, rounded to 1 mdB."""
    if ns3 and ns3["ul_path_loss_db"]:
        return [round(x, 3) for x in ns3["ul_path_loss_db"]]
    return [
        round(20 * math.log10(4 * math.pi * d * LTE_UL_CARRIER_HZ / 299792458.0), 3)
        for d in LTE_PC_DISTANCES_M
    ]


def lte_pc_overrides(ns3: dict | None, duration_s: float, warmup_s: float) -> list[str]:
    """Overrides of scenarios/lte-lena.toml for the power-control pair (LTE_PC_DISTANCES_M)."""
    n = len(LTE_PC_DISTANCES_M)
    mcs = ns3["dl_mcs"] if ns3 else LTE_PC_NOMINAL_DL_MCS
    loss = lte_pc_loss(ns3)
    return [
        *lte_matched(n, {"dl_mcs": list(mcs)}, duration_s, warmup_s, "um"),
        'access.uplink.power_control="per_grant"',
        "access.uplink.p0_dbm=-80.0",
        "access.uplink.alpha=1.0",
        "access.uplink.ue_power_dbm=23.0",
        "access.uplink.enb_noise_figure_db=5.0",
        "access.uplink.iot_db=0.0",
        f"access.cell.ue_coupling_loss_db={json.dumps(loss)}",
    ]


def lte_pc_pair(console: Console, skip_ns3: bool, duration: float, warmup: float) -> dict:
    """The power-control pair (LTE_PC_DISTANCES_M): per UE, radiotcp against LENA."""
    theirs = None
    if not skip_ns3:
        try:
            raw = run_ns3_lte(
                len(LTE_PC_DISTANCES_M),
                duration,
                warmup_s=warmup,
                rlc="um",
                distances_m=list(LTE_PC_DISTANCES_M),
                ul_closed_loop=False,
            )
            theirs = {**summarize_lte(raw), "raw": raw}
        except Ns3BenchError as e:
            console.print(f"[yellow]ns-3 unavailable, LENA power-control row skipped:[/yellow] {e}")
    doc = to_core_json(load(LTE_LENA, lte_pc_overrides(theirs, duration, warmup)))
    r = _core.simulate(doc, 1, 0)
    ues = r["lte"]["ues"]
    ours = {
        **lte_ours(doc, 1),
        "ul_mcs": [u["ul_mean_mcs"] for u in ues],
        "ul_bler": [u["ul_bler"] for u in ues],
        "ul_headroom_db": [u["ul_headroom_db"] for u in ues],
        "ul_power_limited_fraction": [u["ul_power_limited_fraction"] for u in ues],
        "ul_acks_ue": [u["acks_sent"] for u in ues],
        "ul_ack_delay_ms_ue": [u["ul_ack_delay_mean_ms"] for u in ues],
    }
    loss = lte_pc_loss(theirs)
    t = Table(
        title="LTE power-control pair, 10 UEs by distance, RLC UM: radiotcp per-grant power "
        "control vs LENA LteUePowerControl (open loop)"
    )
    for col in (
        "km",
        "UL PL dB",
        "headroom 1 PRB dB",
        "Mb/s o/n",
        "DL MCS o/n",
        "UL MCS o/n",
        "UL BLER o/n",
        "UL ACKs o/n",
        "ACK delay ms o/n",
        "LENA PUSCH dBm",
        "LENA SRS SINR dB",
    ):
        t.add_column(col, justify="right")
    for i, d in enumerate(LTE_PC_DISTANCES_M):
        n = theirs

        def pair(ok: str, nk: str, fmt: str, i: int = i, n: dict | None = n) -> str:
            return format(ours[ok][i], fmt) + "/" + (format(n[nk][i], fmt) if n else "-")

        t.add_row(
            f"{d / 1e3:g}",
            f"{loss[i]:.1f}",
            f"{ours['ul_headroom_db'][i]:.1f}",
            pair("goodput_mbps", "goodput_mbps", ".2f"),
            pair("dl_mcs", "dl_mcs", ".0f"),
            pair("ul_mcs", "ul_mcs", ".1f"),
            pair("ul_bler", "ul_bler", ".3f"),
            pair("ul_acks_ue", "ul_acks_ue", "d"),
            pair("ul_ack_delay_ms_ue", "ul_ack_delay_ms_ue", ".1f"),
            f"{n['pusch_tx_power_dbm'][i]:.1f}" if n else "-",
            f"{n['ul_srs_sinr_db'][i]:.1f}" if n else "-",
        )
    console.print(t)
    row = {"distances_m": list(LTE_PC_DISTANCES_M), "radiotcp": ours, "ns3": theirs}
    if theirs:
        row["deviation"] = lte_deviation(ours, theirs)
        console.print(
            f"power-control pair: cell {ours['cell_goodput_mbps']:.2f} / "
            f"{theirs['cell_goodput_mbps']:.2f} Mb/s ({row['deviation']['cell_pct']:+.2f} %, "
            f"max per UE {row['deviation']['per_ue_max_pct']:.2f} %)"
        )
    return row


def lte_section(console: Console, repeats: int, skip_ns3: bool) -> None:
    """The LTE cell beside ns-3 LENA (bench/ns3/lte.cc; scenarios/lte-lena.toml here), 10 s,
    goodput from 1 s: LTE_ROWS (RLC UM, a homogeneous MCS-28 drop and a heterogeneous one,
    10/40/60 UEs; RLC AM, 10/40 UEs). Per row: cell and per-UE goodput, MCS, BLER, HARQ
    retransmissions, UL ACKs and their delay, LENA's DL padding, and the wall time of the
    simulation proper of each; the fading pair (`lte_fading_rows`); the power-control pair
    (`lte_pc_pair`); then the speed ratio at
    40 UEs (UM, homogeneous) and the paper's preset with 60 UEs for 60 s (target: under 1 s)."""
    duration, warmup = 10.0, 1.0
    rows = []
    for drop, rlc, ues in LTE_ROWS:
        theirs = None
        if not skip_ns3:
            try:
                raw = run_ns3_lte(
                    ues, duration, warmup_s=warmup, rlc=rlc, dl_sinr_db=lte_drop_sinr(drop)
                )
                theirs = {**summarize_lte(raw), "raw": raw}
            except Ns3BenchError as e:
                console.print(f"[yellow]ns-3 unavailable, LENA rows skipped:[/yellow] {e}")
                skip_ns3 = True
        doc = to_core_json(load(LTE_LENA, lte_matched(ues, theirs, duration, warmup, rlc, drop)))
        ours = lte_ours(doc, repeats)
        row = {"drop": drop, "rlc": rlc, "ues": ues, "radiotcp": ours, "ns3": theirs}
        if theirs:
            row["deviation"] = lte_deviation(ours, theirs)
        rows.append(row)
    t = Table(title="LTE cell, 10 s: radiotcp (lte-lena) vs ns-3 LENA (lte.cc), same machine")
    for col in (
        "drop",
        "RLC",
        "UEs",
        "Mb/s ours",
        "Mb/s LENA",
        "cell dev",
        "max UE dev",
        "MCS o/n",
        "BLER o/n",
        "HARQ retx o/n",
        "UL ACKs (10 s) o/n",
        "ACK delay ms o/n",
        "LENA padding",
        "ms ours",
        "s LENA",
    ):
        t.add_column(col, justify="right")
    for row in rows:
        o, n, d = row["radiotcp"], row["ns3"], row.get("deviation")

        def pair(key: str, fmt: str, o: dict = o, n: dict | None = n) -> str:
            return ours_over_lena(o, n, key, fmt)

        t.add_row(
            row["drop"][:3],
            row["rlc"].upper(),
            str(row["ues"]),
            f"{o['cell_goodput_mbps']:.2f}",
            f"{n['cell_goodput_mbps']:.2f}" if n else "-",
            f"{d['cell_pct']:+.2f}%" if d else "-",
            f"{d['per_ue_max_pct']:.2f}%" if d else "-",
            pair("dl_mcs_cell_mean", ".1f"),
            pair("dl_bler_cell", ".3f"),
            pair("dl_harq_retx", "d"),
            pair("ul_acks", "d"),
            pair("ul_ack_delay_ms", ".1f"),
            f"{n['dl_padding_share'] * 100:.1f}%" if n else "-",
            f"{o['wall_s'] * 1e3:.1f}",
            f"{n['wall_s']:.1f}" if n else "-",
        )
    console.print(t)
    fading_rows = lte_fading_rows(console, repeats, skip_ns3, duration, warmup)
    pc_pair = lte_pc_pair(console, skip_ns3, duration, warmup)
    am = [r for r in rows if r["rlc"] == "am" and r["ns3"]]
    for r in am:
        n = r["ns3"]
        console.print(
            f"RLC AM, {r['ues']} UEs: {n['dl_padding_share'] * 100:.1f} % of LENA's new-data DL "
            f"block octets are padding; {n['dl_small_pdu_tb_share'] * 100:.1f} % of its blocks "
            "carry only a STATUS-sized PDU (LteRlcAm::DoNotifyTxOpportunity sends a pending "
            "STATUS PDU alone and returns)."
        )
    speed = next(
        (
            r
            for r in rows
            if (r["drop"], r["rlc"], r["ues"]) == ("homogeneous", "um", LTE_SPEED_UES)
        ),
        None,
    )
    ratio = None
    if speed and speed["ns3"]:
        ratio = speed["ns3"]["wall_s"] / speed["radiotcp"]["wall_s"]
        console.print(
            f"speed, {LTE_SPEED_UES} UEs, 10 s, RLC UM: LENA {speed['ns3']['wall_s']:.1f} s, "
            f"radiotcp {speed['radiotcp']['wall_s'] * 1e3:.1f} ms: {ratio:.0f}x "
            "(target: >= 500x; simulation proper on both sides)"
        )
    # The full preset (three sectors, Jakes fading, RLC AM, SR/BSR, the uplink and PDCCH
    # physics) beside the closest LENA set-up measured above: lte.cc with RLC AM and the same
    # UE count and duration (one cell, no fading, ideal BSR, none of that physics).
    full_ratio = None
    closest = next(
        (r for r in rows if (r["rlc"], r["ues"]) == ("am", LTE_SPEED_UES) and r["ns3"]), None
    )
    doc = to_core_json(
        load(
            LTE,
            [
                f"access.ues={LTE_SPEED_UES}",
                f"simulation.duration_s={duration}",
                f"simulation.warmup_s={warmup}",
            ],
        )
    )
    full_wall = statistics.median(_core.simulate(doc, 1, i)["wall_time_s"] for i in range(repeats))
    if closest:
        full_ratio = closest["ns3"]["wall_s"] / full_wall
        console.print(
            f"speed, full lte-ohta preset, {LTE_SPEED_UES} UEs, 10 s: radiotcp "
            f"{full_wall * 1e3:.1f} ms against LENA's RLC AM cell of the same size "
            f"{closest['ns3']['wall_s']:.1f} s: {full_ratio:.0f}x (target: >= 300x)"
        )
    doc = to_core_json(load(LTE, ["access.ues=60", "simulation.duration_s=60"]))
    walls = [_core.simulate(doc, 1, i)["wall_time_s"] for i in range(max(3, repeats // 4))]
    paper = statistics.median(walls)
    console.print(f"lte-ohta, 60 UEs, 60 s: {paper:.3f} s per run (target: under 1 s)")
    OUT_LTE.parent.mkdir(parents=True, exist_ok=True)
    OUT_LTE.write_text(
        json.dumps(
            {
                "cells": rows,
                "fading": fading_rows,
                "power_control": pc_pair,
                "speed_ratio_40ue": ratio,
                "full_preset_40ue_10s_wall_s": full_wall,
                "speed_ratio_full_preset_vs_lena_am_40ue": full_ratio,
                "ohta_60ue_60s_wall_s": paper,
            },
            indent=2,
        )
    )
    console.print(f"results: {OUT_LTE}")


NR = ROOT / "scenarios" / "nr-ohta.toml"
OUT_NR = ROOT / "results" / "bench" / "nr-cell.json"


def nr_section(console: Console, rounds: int = 5) -> None:
    """The NR cell (issue 25): the 60-UE, 60 s nr-ohta preset (30 kHz: 120,000 slots) beside
    the 60-UE, 60 s lte-ohta preset (60,000 TTIs), alternating round by round so that a busy
    machine slows both alike. Prints the median wall time (target for NR: under 2 s) with the
    fastest and slowest round and the machine's load average before and after (this machine's
    speed swings by up to a third within minutes, so one median says little without them),
    events per second, and the ratio NR / LTE in wall time and per event."""
    docs = {
        "nr-ohta": to_core_json(load(NR, ["access.ues=60", "simulation.duration_s=60"])),
        "lte-ohta": to_core_json(load(LTE, ["access.ues=60", "simulation.duration_s=60"])),
    }
    walls: dict[str, list[float]] = {k: [] for k in docs}
    events: dict[str, float] = {}
    # The same run (seed 1, run 0) every round: other run indices draw other drops and start
    # times, whose event counts differ by about 3 %, and a median over them mixes workloads.
    load_before = os.getloadavg()[0]
    for _ in range(rounds):
        for name, doc in docs.items():
            r = _core.simulate(doc, 1, 0)
            walls[name].append(r["wall_time_s"])
            events[name] = r["events"]
    load_after = os.getloadavg()[0]
    table = Table(title=f"LTE and NR cells, 60 UEs, 60 s (median of {rounds} rounds, same run)")
    for col in ("preset", "wall s", "fastest-slowest", "events", "M events/s"):
        table.add_column(col)
    med = {k: statistics.median(v) for k, v in walls.items()}
    for name in docs:
        table.add_row(
            name,
            f"{med[name]:.3f}",
            f"{min(walls[name]):.3f}-{max(walls[name]):.3f}",
            f"{events[name]:.0f}",
            f"{events[name] / med[name] / 1e6:.2f}",
        )
    console.print(table)
    per_event = (med["nr-ohta"] / events["nr-ohta"]) / (med["lte-ohta"] / events["lte-ohta"])
    met = "met" if med["nr-ohta"] < 2.0 else "missed"
    console.print(
        f"nr-ohta, 60 UEs, 60 s: {med['nr-ohta']:.3f} s per run (target: under 2 s, {met}); "
        f"NR / LTE: {med['nr-ohta'] / med['lte-ohta']:.2f}x the wall time, "
        f"{per_event:.2f}x per event; load average {load_before:.2f} before, "
        f"{load_after:.2f} after"
    )
    OUT_NR.parent.mkdir(parents=True, exist_ok=True)
    OUT_NR.write_text(
        json.dumps(
            {
                "walls_s": walls,
                "events": events,
                "nr_60ue_60s_wall_s": med["nr-ohta"],
                "nr_over_lte_wall": med["nr-ohta"] / med["lte-ohta"],
                "nr_over_lte_per_event": per_event,
                "load_average": [load_before, load_after],
            },
            indent=2,
        )
    )


# The commands a user types, timed as processes against a bare interpreter in the same run
# (issue 26: `--help` <= 8x, `run` of the 60 s UMTS preset <= 20x).
STARTUP = [
    ("radiotcp --help", ["-m", "radiotcp", "--help"], 8.0),
    (
        "radiotcp validate umts-384k",
        ["-m", "radiotcp", "validate", "scenarios/umts-384k.toml"],
        None,
    ),
    ("radiotcp run umts-384k (60 s)", ["-m", "radiotcp", "run", "scenarios/umts-384k.toml"], 20.0),
]


def startup_section(console: Console, rounds: int = 7) -> None:
    """Wall time of each command in STARTUP as a process (best of `rounds`, the commands
    interleaved round by round so that a busy spell slows all alike), as a ratio to
    `python -c pass`."""
    import subprocess

    def wall(argv: list[str]) -> float:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, *argv], cwd=ROOT, capture_output=True, check=True)
        return time.perf_counter() - t0

    cases = [("python -c pass", ["-c", "pass"], None), *STARTUP]
    best = {name: math.inf for name, _a, _t in cases}
    for _ in range(rounds):
        for name, argv, _t in cases:
            best[name] = min(best[name], wall(argv))
    bare = best["python -c pass"]
    t = Table(title=f"start-up: best of {rounds} process runs against a bare interpreter")
    for col in ("command", "wall ms", "x python -c pass", "target"):
        t.add_column(col, justify="right")
    rows = []
    for name, _argv, target in cases:
        ratio = best[name] / bare
        rows.append({"command": name, "wall_s": best[name], "ratio": ratio, "target": target})
        t.add_row(
            name,
            f"{best[name] * 1e3:.0f}",
            f"{ratio:.1f}",
            "" if target is None else f"<= {target:g}x" + ("" if ratio <= target else " (missed)"),
        )
    console.print(t)
    OUT_STARTUP.parent.mkdir(parents=True, exist_ok=True)
    OUT_STARTUP.write_text(json.dumps({"rounds": rounds, "rows": rows}, indent=2) + "\n")


def recipes_section(console: Console) -> None:
    """Wall time of every paper-reproduction recipe, all cores, from an empty store."""
    from radiotcp.reproduce import reproduce

    out: dict[str, dict[str, float]] = {}
    for title, names in RECIPE_SETS.items():
        times: dict[str, float] = {}
        with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "s.sqlite") as store:
            for name in names:
                t0 = time.perf_counter()
                rep = reproduce(name, Path(tmp) / name, store)
                times[name] = time.perf_counter() - t0
                console.print(
                    f"  {name}: {rep.result.computed} runs, {times[name]:.1f} s "
                    "(sweep, figures, report)"
                )
        total = sum(times.values())
        console.print(f"[bold]{title}[/bold]: all recipes {total:.0f} s ({total / 60:.1f} min)")
        out[title] = times
    OUT_RECIPES.parent.mkdir(parents=True, exist_ok=True)
    OUT_RECIPES.write_text(json.dumps(out, indent=2))


# The sweeps of the sweep-throughput section: (label, recipe whose sweep it is).
# (label, recipe, replications x): the two sweeps, whose target the table checks, and
# the same sweeps with ten times the replications. The small ones now take 0.2-0.5 s in one
# process, so a cluster's fixed cost per sweep (its first task's round trip, the last
# result's, its event loops beside two busy workers) is a large share of them; the larger
# ones show what a sweep pays per run once that share is small.
SWEEPS = [
    ("wired, 720 runs", "wired-buffer", 1),
    ("UMTS, 200 runs", "ackrate-table", 1),
    ("wired, 7200 runs", "wired-buffer", 10),
    ("UMTS, 2000 runs", "ackrate-table", 10),
]
# The pool and the cluster of that section: this many workers.
SWEEP_WORKERS = 2


def _recipe_sweep(name: str, scale: int = 1) -> tuple[SweepSpec, Path]:
    """The recipe's sweep (its replications times `scale`) and the folder it resolves from."""
    from radiotcp.reproduce import find_recipe

    recipe, rdir = find_recipe(name)
    spec = SweepSpec.model_validate({**recipe.sweep, "name": f"bench-{name}-x{scale}"})
    return spec.model_copy(update={"runs": spec.runs * scale}), rdir


def _cpu_s(who: int = 0) -> float:
    """CPU seconds (user + system) of this process (`who` 0) or of its reaped children."""
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN if who else resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _timed_sweep(
    spec: SweepSpec, rdir: Path, client: object = None, **how: object
) -> tuple[float, int, float, float, float, int]:
    """One sweep into a fresh store: (wall s, runs computed, core s, CPU s of every process
    that worked on it: this one, the local pool's workers, the Dask workers; CPU s of the
    simulations proper, chunks)."""
    workers = (lambda: sum(client.run(_cpu_s).values())) if client is not None else None
    with tempfile.TemporaryDirectory() as d:
        cpu0 = _cpu_s() + _cpu_s(1) + (workers() if workers else 0.0)
        t0 = time.perf_counter()
        # The store's close is timed too: its last WAL checkpoint is part of the sweep's cost.
        with Store(Path(d) / "s.sqlite") as st:
            res = run_sweep(spec, rdir, st, **how)
        wall = time.perf_counter() - t0
        cpu = _cpu_s() + _cpu_s(1) + (workers() if workers else 0.0) - cpu0
    return wall, res.computed, res.wall_time_s, cpu, res.cpu_time_s, res.chunks


# The cluster's own periodic work, which shares the 2 cores with its workers, made rarer: the
# event loops' tick (blocked-loop detection, every 20 ms), the workers' statistical profiler
# (a stack sample every 10 ms), their memory monitor (100 ms) and the system monitor (500 ms).
# On the reference machine (load about 4) this halved the cluster's CPU besides the
# simulations: workers 0.22 -> 0.11 (wired) and 0.9 -> 0.3 (UMTS) CPU ms per run, driver and
# scheduler 0.25 -> 0.2 and 0.7 -> 0.45. None of them changes what the workers compute.
QUIET_DASK = {
    "distributed.admin.tick.interval": "1s",
    "distributed.worker.profile.enabled": False,
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
}


@contextlib.contextmanager
def _dask_client(sweeps: Sequence[tuple[str, SweepSpec, Path]]) -> Iterator[object]:
    """A Dask LocalCluster of SWEEP_WORKERS single-threaded worker processes and its client,
    the workers warmed up (the core imported, a first task run) before anything is timed, with
    the cluster's periodic work made rarer (QUIET_DASK)."""
    import dask
    import distributed

    with (
        dask.config.set(QUIET_DASK),
        distributed.LocalCluster(
            n_workers=SWEEP_WORKERS,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        for _label, spec, rdir in sweeps:
            _timed_sweep(spec.model_copy(update={"runs": 1}), rdir, cluster=client)
        yield client


def sweep_section(console: Console, rounds: int = 3) -> None:
    """Runs per second of a 720-run wired sweep and a 200-run UMTS sweep (the wired-buffer
    and ackrate-table recipes, fresh stores) in one process, on the local pool with
    SWEEP_WORKERS cores and on a Dask LocalCluster of SWEEP_WORKERS single-threaded worker
    processes; parallel efficiency = runs/s / (workers x runs/s in one process), target
    >= 85 %. The same two sweeps with ten times the replications follow, untargeted
    (SWEEPS). Best of `rounds`, the three interleaved so that a busy spell slows all alike;
    the machine's load average is printed with them.

    The cluster exists only while its own sweeps run: an idle LocalCluster costs about 0.1
    CPU s per second (the scheduler's and each worker's event loop, heartbeats and monitors:
    5 % of the 2 cores), which slowed the one-process and pool runs it was left beside."""
    local: dict[str, dict[str, object]] = {
        "one process": {"jobs": 1},
        f"local pool, {SWEEP_WORKERS} cores": {"jobs": SWEEP_WORKERS},
    }
    dask_mode = f"Dask, {SWEEP_WORKERS} workers"
    modes: dict[str, dict[str, object]] = {**local, dask_mode: {"cluster": True}}
    sweeps = [(label, *_recipe_sweep(name, scale)) for label, name, scale in SWEEPS]
    # The target is the issue's, on its two sweep sizes; the larger sweeps are for scale.
    targeted = {label for label, _, scale in SWEEPS if scale == 1}
    best: dict[tuple[str, str], tuple[float, int, float, float, float, int]] = {}
    # The CPU besides the simulations, per run (every process's CPU less the simulations'
    # own thread time): the sweep's overhead, which the machine's load barely changes.
    # Median of the rounds.
    overhead: dict[tuple[str, str], list[float]] = {}

    def keep(label: str, mode: str, got: tuple[float, int, float, float, float, int]) -> None:
        if (label, mode) not in best or got[0] < best[(label, mode)][0]:
            best[(label, mode)] = got
        overhead.setdefault((label, mode), []).append((got[3] - got[4]) / got[1])

    for _ in range(rounds):
        for label, spec, rdir in sweeps:
            for mode, how in local.items():
                keep(label, mode, _timed_sweep(spec, rdir, **how))
        # Warmed up on the targeted sweeps only: the larger ones run the same configurations.
        with _dask_client([sw for sw in sweeps if sw[0] in targeted]) as client:
            for label, spec, rdir in sweeps:
                keep(label, dask_mode, _timed_sweep(spec, rdir, client, cluster=client))
    load = os.getloadavg()
    t = Table(title=f"sweep throughput: best of {rounds}, fresh stores")
    cols = (
        "sweep",
        "how",
        "wall s",
        "runs/s",
        "core ms/run",
        "CPU s",
        "overhead CPU ms/run",
        "chunks",
        "efficiency",
        "target",
    )
    for col in cols:
        t.add_column(col, justify="right")
    rows = []
    for label, _spec, _rdir in sweeps:
        one_wall, runs, _, one_cpu, _, _ = best[(label, "one process")]
        for mode, how in modes.items():
            wall, runs, core, cpu, sim_cpu, chunks = best[(label, mode)]
            over = statistics.median(overhead[(label, mode)])
            workers = 1 if how.get("jobs") == 1 else SWEEP_WORKERS
            eff = (runs / wall) / (workers * runs / one_wall)
            rows.append(
                {
                    "sweep": label,
                    "how": mode,
                    "workers": workers,
                    "runs": runs,
                    "wall_s": wall,
                    "core_s": core,
                    "runs_per_s": runs / wall,
                    "cpu_s": cpu,
                    "simulation_cpu_s": sim_cpu,
                    "overhead_cpu_ms_per_run": 1e3 * over,
                    "chunks": chunks,
                    "efficiency": eff,
                    "targeted": label in targeted,
                }
            )
            parallel = workers > 1
            t.add_row(
                label,
                mode,
                f"{wall:.2f}",
                f"{runs / wall:.0f}",
                f"{1e3 * core / runs:.2f}",
                f"{cpu:.2f}" + (f" ({cpu / one_cpu:.2f}x)" if parallel else ""),
                f"{1e3 * over:.3f}",
                str(chunks),
                f"{100 * eff:.0f}%" if parallel else "",
                (
                    (("" if eff >= 0.85 else "missed ") + ">= 85%")
                    if label in targeted
                    else "(scale)"
                )
                if parallel
                else "",
            )
    console.print(t)
    console.print(
        "efficiency = runs/s / (workers x runs/s in one process); wall from the call to the "
        "returned result (planning and store writes included); CPU s: "
        "of every process that worked on the sweep (x that of one process: the parallel "
        "overhead, which the load of other sessions changes much less than the wall time); "
        "overhead CPU: that CPU less the simulations' own (their threads' time), per run, "
        "median of the rounds (planning, the store, the pool's or Dask's scheduling and "
        "transfers); chunks: tasks the runs were sent in; "
        f"load average during the section: {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} "
        f"on {os.cpu_count()} cores."
    )
    OUT_SWEEP.parent.mkdir(parents=True, exist_ok=True)
    OUT_SWEEP.write_text(json.dumps({"rounds": rounds, "load": load, "rows": rows}, indent=2))
    console.print(f"results: {OUT_SWEEP}")


# Emulation: one real Linux CUBIC download through the model, the clock's lag measured.
EMULATION_CASES = [
    ("UMTS 384 kbit/s (umts-384k)", "umts-384k.toml", [], 400_000, 384.0 * 1448 / 1501),
    (
        "wired 10 Mbit/s (wired-384k, links at 20 and 10 Mbit/s)",
        "wired-384k.toml",
        ["links.0.rate_kbps=20000", "links.1.rate_kbps=10000", "links.1.queue.limit_packets=100"],
        10_000_000,
        10_000.0 * 1448 / 1500,
    ),
]


def emulation_section(console: Console) -> None:
    """The emulation's real-time clock: lag of every model event behind the wall clock, with
    a real Linux CUBIC download (radiotcp emulate) at 384 kbit/s and at 10 Mbit/s."""
    from radiotcp.emulate import EmulationUnavailable, emulate, preflight

    try:
        preflight()
    except EmulationUnavailable as e:
        console.print(f"[yellow]emulation section skipped:[/yellow] {e}")
        return
    rows = []
    for i, (title, preset, overrides, nbytes, bound_kbps) in enumerate(EMULATION_CASES):
        cfg = load(ROOT / "scenarios" / preset, overrides)
        port = str(5501 + i)
        tools = [sys.executable, "-m", "radiotcp.emutools"]
        send = [*tools, "send", "{server}", port, "--bytes", str(nbytes), "--cc", "cubic"]
        with tempfile.TemporaryFile("w+") as f:
            r = emulate(
                cfg,
                [*tools, "recv", "{server}", port],
                server_command=send,
                max_seconds=300,
                stdout=f,
            )
            f.seek(0)
            got, _digest, seconds, kbps = f.read().split()
        lag = r.report["lag"]
        rows.append(
            {
                "case": title,
                "bytes": int(got),
                "seconds": float(seconds),
                "goodput_kbps": float(kbps),
                "payload_rate_kbps": bound_kbps,
                "lag": lag,
            }
        )
    t = Table(title="emulation: model events' lag behind real time (one real CUBIC download)")
    for col in (
        "case",
        "MB",
        "s",
        "goodput / payload rate",
        "events",
        "p50 µs",
        "p99 µs",
        "max µs",
    ):
        t.add_column(col, justify="right" if col != "case" else "left")
    for row in rows:
        lag = row["lag"]
        t.add_row(
            row["case"],
            f"{row['bytes'] / 1e6:.1f}",
            f"{row['seconds']:.1f}",
            f"{row['goodput_kbps'] / row['payload_rate_kbps']:.2f}",
            str(lag["events"]),
            f"{lag['p50_us']:.0f}",
            f"{lag['p99_us']:.0f}",
            f"{lag['max_us']:.0f}",
        )
    console.print(t)
    console.print(
        "target: p99 lag < 1000 µs; the model's time scales are a 10 ms TTI and, at 10 Mbit/s, "
        "a 1200 µs packet."
    )
    OUT_EMULATION.parent.mkdir(parents=True, exist_ok=True)
    OUT_EMULATION.write_text(json.dumps(rows, indent=2))
    console.print(f"results: {OUT_EMULATION}")


def side_by_side_rows(console: Console, args: argparse.Namespace) -> list[dict]:
    """The NewReno side-by-side's rows (CASES), each measured in rounds (`interleaved`);
    sets args.skip_ns3 if ns-3 turns out to be unavailable."""
    rows = []
    for flows, duration in CASES:
        theirs_once = None
        if not args.skip_ns3:

            def theirs_once(flows: int = flows, duration: float = duration) -> dict:
                return run_ns3(flows, duration, queue_packets=50, min_rto_ms=1000)

        try:
            ours, runs, ratios = bench_radiotcp(
                flows, duration, args.repeats, theirs_once, args.ns3_repeats
            )
        except Ns3BenchError as e:
            console.print(f"[red]ns-3 unavailable:[/red] {e}")
            args.skip_ns3 = True
            ours, runs, ratios = bench_radiotcp(flows, duration, args.repeats)
        rows.append(
            {
                "flows": flows,
                "duration_s": duration,
                "radiotcp": ours,
                "ns3": ns3_figures(runs) if runs else None,
                "ratio": statistics.median(ratios) if ratios else None,
                "ratio_rounds": ratios,
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip-ns3", action="store_true", help="radiotcp only")
    ap.add_argument("--skip-sweep", action="store_true", help="no sweep-throughput section")
    ap.add_argument(
        "--skip-recipes", action="store_true", help="do not time the reproduction recipes"
    )
    ap.add_argument("--repeats", type=int, default=20, help="radiotcp runs per case (median)")
    ap.add_argument(
        "--ns3-repeats",
        type=int,
        default=SIDE_BY_SIDE_ROUNDS,
        help="ns-3 runs per wired case, each a round between radiotcp runs (median ratio)",
    )
    args = ap.parse_args(argv)

    console = Console(width=max(Console().width, 130))
    with one_cpu():
        rows = side_by_side_rows(console, args)
    t = Table(title="wired-384k: radiotcp vs ns-3 (same machine, same run)")
    for col in (
        "flows",
        "sim s",
        "kb/s ours",
        "kb/s ns-3",
        "diff",
        "ms ours",
        "ms ns-3",
        "ns-3/ours",
        "range",
        "Mev/s ours",
        "drops o/n",
    ):
        t.add_column(col, justify="right")
    for r in rows:
        o, n = r["radiotcp"], r["ns3"]
        eps = o["events"] / o["wall_time_s"] / 1e6
        if n:
            diff = (o["goodput_kbps_total"] - n["goodput_kbps_total"]) / n["goodput_kbps_total"]
            cells = [
                f"{n['goodput_kbps_total']:.1f}",
                f"{100 * diff:+.1f}%",
                f"{o['wall_time_s'] * 1e3:.2f}",
                f"{n['wall_time_s'] * 1e3:.1f}",
                *ratio_cells(r["ratio_rounds"]),
            ]
            drops = f"{o['drops_queue']}/{n['drops_queue']}"
        else:
            cells = ["-", "-", f"{o['wall_time_s'] * 1e3:.2f}", "-", "-", "-"]
            drops = f"{o['drops_queue']}/-"
        t.add_row(
            str(r["flows"]),
            f"{r['duration_s']:.0f}",
            f"{o['goodput_kbps_total']:.1f}",
            *cells,
            f"{eps:.1f}",
            drops,
        )
    console.print(t)
    console.print(
        "wall = simulation proper (radiotcp: median of about "
        f"{args.repeats} runs measured in Rust; ns-3: Simulator::Run, median of "
        f"{args.ns3_repeats} runs). ns-3/ours = median over {args.ns3_repeats} rounds "
        "of ns-3's wall time over radiotcp's runs just before and after it (range: the "
        "rounds' lowest and highest). "
        "Python call overhead per run (median): "
        + ", ".join(
            f"{1e6 * (r['radiotcp']['call_time_s'] - r['radiotcp']['wall_time_s']):.0f} us"
            for r in rows
        )
    )
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(rows, indent=2))
    console.print(f"results: {OUT}")
    startup_section(console)
    with one_cpu():
        args.skip_ns3 = sack_cubic_section(console, args.repeats, args.skip_ns3, args.ns3_repeats)
    tcp_cost_section(console, args.repeats)
    umts_section(console, args.repeats)
    is707_section(console, args.repeats)
    bs_section(console, args.repeats)
    lte_section(console, max(3, args.repeats // 4), args.skip_ns3)
    nr_section(console)
    emulation_section(console)
    if not args.skip_sweep:
        sweep_section(console)
    if not args.skip_recipes:
        recipes_section(console)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
