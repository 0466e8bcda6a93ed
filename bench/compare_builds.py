"""Speed of this checkout against an earlier commit, on the presets (`make bench-compare`).

Builds the extension of a baseline commit (``--base REF``; `make bench-compare` passes the
last commit before the topology redesign) in a git worktree under ``results/bench/baseline/``,
then times the simulation proper (the wall time the core measures around its event loop) of
the same runs with both builds. Each side loads its own Python package (its own config loader
and preset files, so a renamed key is no obstacle) in its own process; the sides alternate
round by round so that a busy machine slows both alike. Prints, per case, the median wall
time of each side and the ratio current / baseline with a bootstrap 90% interval of the ratio
of medians, and checks that both sides produce the same metrics, over the names both report
(a restructuring must not change them; a newer build may add metrics). Presets the baseline
does not have are skipped. Writes results/bench/compare.json.

    python bench/compare_builds.py --base REF [--rounds N] [--only TEXT] [--allow-changed]

Without ``--allow-changed`` it exits 1 when a case's metrics differ (a restructuring must not
change them); ``make bench`` passes it, since its baseline predates model changes made on
purpose (the TCP profiles of the BS and IS-707 presets, the 50 ms UMTS loop).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "bench" / "compare.json"
BASE_DIR = ROOT / "results" / "bench" / "baseline"

# (label, preset, overrides): the wired, UMTS, RLP and BS presets, long enough (0.1 s and more
# of wall time) that the clock's resolution does not matter.
CASES = [
    ("wired 1 flow 6000 s", "wired-384k.toml", ["simulation.duration_s=6000"]),
    ("wired 4 flows 6000 s", "wired-384k.toml", ["simulation.duration_s=6000", "flows.count=4"]),
    ("umts 1 flow 600 s", "umts-384k.toml", ["simulation.duration_s=600"]),
    ("umts 4 flows 600 s", "umts-384k.toml", ["simulation.duration_s=600", "flows.count=4"]),
    ("is707-9600 6000 s", "is707-9600.toml", ["simulation.duration_s=6000"]),
    ("is707-16x9600 1800 s", "is707-16x9600.toml", ["simulation.duration_s=1800"]),
    ("bs-delay-variation 3000 s", "bs-delay-variation.toml", ["simulation.duration_s=3000"]),
    ("bs-delay-spike 3000 s", "bs-delay-spike.toml", ["simulation.duration_s=3000"]),
    ("lte 60 UEs 20 s", "lte-ohta.toml", ["access.ues=60", "simulation.duration_s=20"]),
]

# Runs by the worker: one call per case, seed 1, run 0.
WORKER = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from radiotcp import _core
from radiotcp.config import load, to_core_json
out = []
for preset, overrides in json.loads(sys.argv[2]):
    r = _core.simulate(to_core_json(load(preset, overrides)), 1, 0)
    out.append({"wall_time_s": r["wall_time_s"], "events": r["events"],
                "metrics": {k: v for k, v in r["metrics"].items() if k != "wall_time_s"}})
print(json.dumps(out))
"""


def sh(cmd: list[str], cwd: Path, env: dict | None = None) -> str:
    r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{r.stdout}\n{r.stderr}")
    return r.stdout.strip()


def build_baseline(ref: str) -> Path:
    """The baseline's python/ directory, with its extension built (cached per commit)."""
    commit = sh(["git", "rev-parse", "--verify", f"{ref}^{{commit}}"], ROOT)
    tree = BASE_DIR / commit[:12]
    ext = tree / "python" / "radiotcp" / "_core.abi3.so"
    if ext.exists():
        return tree / "python"
    BASE_DIR.mkdir(parents=True, exist_ok=True)
    if not tree.exists():
        sh(["git", "worktree", "add", "--detach", str(tree), commit], ROOT)
    env = {**os.environ, "PYO3_PYTHON": sys.executable}
    print(f"building the baseline extension of {commit[:12]} (cargo build --release) ...")
    sh(["cargo", "build", "--release", "-p", "radiotcp-py"], tree, env)
    ext.write_bytes((tree / "target" / "release" / "lib_core.so").read_bytes())
    return tree / "python"


def run_side(pydir: Path, scenarios: Path, cases: list[tuple]) -> list[dict]:
    todo = [[str(scenarios / preset), overrides] for _label, preset, overrides in cases]
    out = sh([sys.executable, "-c", WORKER, str(pydir), json.dumps(todo)], ROOT)
    return json.loads(out.splitlines()[-1])


def common_metrics(a: dict, b: dict) -> tuple[str, str]:
    """Both sides' metrics restricted to the names both report (a newer build may add
    metrics), as JSON text: NaN metrics compare equal to themselves."""
    keys = sorted(set(a) & set(b))
    return (
        json.dumps({k: a[k] for k in keys}),
        json.dumps({k: b[k] for k in keys}),
    )


def ratio_interval(cur: list[float], base: list[float], n: int = 2000) -> tuple[float, float]:
    """Bootstrap 90% interval of median(cur) / median(base)."""
    rng = random.Random(1)
    rs = sorted(
        statistics.median(rng.choices(cur, k=len(cur)))
        / statistics.median(rng.choices(base, k=len(base)))
        for _ in range(n)
    )
    return rs[int(0.05 * n)], rs[int(0.95 * n) - 1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, help="baseline git ref (a commit, tag or branch)")
    ap.add_argument("--rounds", type=int, default=7, help="alternating rounds (default: 7)")
    ap.add_argument(
        "--allow-changed",
        action="store_true",
        help="report cases whose metrics differ (models changed on purpose since the "
        "baseline: their ratio compares different work) without failing",
    )
    ap.add_argument(
        "--only",
        default="",
        help="run only the cases whose label contains this text (e.g. 'lte')",
    )
    args = ap.parse_args(argv)

    base_py = build_baseline(args.base)
    sides = {"baseline": (base_py, base_py.parent / "scenarios")}
    sides["current"] = (ROOT / "python", ROOT / "scenarios")
    # A preset the baseline does not have yet (the LTE cell before it existed) is skipped.
    chosen = [c for c in CASES if args.only in c[0]]
    if not chosen:
        ap.error(f"--only {args.only!r} matches no case; the cases: {[c[0] for c in CASES]}")
    cases = [c for c in chosen if all((d / c[1]).exists() for _p, d in sides.values())]
    for label, preset, _o in chosen:
        if (label, preset, _o) not in cases:
            print(f"skipped (no {preset} in the baseline): {label}", file=sys.stderr)
    walls: dict[str, list[list[float]]] = {s: [[] for _ in cases] for s in sides}
    metrics: dict[str, list[dict]] = {}
    for k in range(args.rounds):
        order = list(sides) if k % 2 == 0 else list(reversed(sides))
        for side in order:
            res = run_side(*sides[side], cases)
            metrics[side] = [r["metrics"] for r in res]
            for i, r in enumerate(res):
                walls[side][i].append(r["wall_time_s"])
        print(f"round {k + 1}/{args.rounds} done", file=sys.stderr)

    table = Table(title=f"current vs {args.base} (median wall time of the simulation proper)")
    for col in ("case", "baseline s", "current s", "ratio", "90% CI", "same metrics"):
        table.add_column(col, justify="left" if col == "case" else "right")
    rows = []
    for i, (label, preset, overrides) in enumerate(cases):
        b, c = walls["baseline"][i], walls["current"][i]
        lo, hi = ratio_interval(c, b)
        mb, mc = common_metrics(metrics["baseline"][i], metrics["current"][i])
        same = mb == mc
        ratio = statistics.median(c) / statistics.median(b)
        rows.append(
            {
                "case": label,
                "preset": preset,
                "overrides": overrides,
                "baseline_s": b,
                "current_s": c,
                "ratio": ratio,
                "ratio_ci90": [lo, hi],
                "same_metrics": same,
            }
        )
        table.add_row(
            label,
            f"{statistics.median(b):.3f}",
            f"{statistics.median(c):.3f}",
            f"{ratio:.3f}",
            f"{lo:.3f}-{hi:.3f}",
            "yes" if same else ("changed" if args.allow_changed else "NO"),
        )
    Console().print(table)
    if args.allow_changed and not all(r["same_metrics"] for r in rows):
        print(
            "changed: the model of that preset changed on purpose since the baseline (see "
            "CHANGELOG.md); its ratio compares different runs"
        )
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"base": args.base, "rounds": args.rounds, "cases": rows}, indent=1))
    print(f"written: {OUT}")
    return 0 if args.allow_changed or all(r["same_metrics"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
