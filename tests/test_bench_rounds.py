"""The side-by-side's rounds (bench/run_bench.py `interleaved`): each ns-3 run sits between
radiotcp runs and its round's ratio uses only those."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import run_bench


def test_each_round_puts_one_ns3_run_between_radiotcp_runs():
    calls: list[str] = []
    ours_walls = iter([1.0, 3.0, 10.0, 30.0])
    theirs_walls = iter([200.0, 4000.0])

    def ours() -> float:
        calls.append("o")
        return next(ours_walls)

    def theirs() -> dict:
        calls.append("n")
        return {"wall_time_s": next(theirs_walls)}

    walls, runs, ratios = run_bench.interleaved(ours, theirs, repeats=4, rounds=2)
    assert "".join(calls) == "onoono"
    assert walls == [1.0, 3.0, 10.0, 30.0]
    assert [r["wall_time_s"] for r in runs] == [200.0, 4000.0]
    # Round 1: 200 / median(1, 3) = 100; round 2: 4000 / median(10, 30) = 200. A ratio of
    # the overall medians (2100 / 6.5) would mix the two rounds' machine speeds.
    assert ratios == [100.0, 200.0]
    assert run_bench.ratio_cells(ratios) == ("150x", "100-200")


def test_without_ns3_radiotcp_runs_alone():
    walls, runs, ratios = run_bench.interleaved(lambda: 2.0, None, repeats=3)
    assert (walls, runs, ratios) == ([2.0, 2.0, 2.0], [], [])
    assert run_bench.ratio_cells(ratios) == ("-", "-")
