"""The golden snapshot: flat metrics (and trace digests) of every preset and of recipe points.

The snapshot in ``tests/golden/snapshot.json`` guards behaviour across refactors: the test in
``test_golden.py`` reruns every point and requires bit-identical metrics. A change meant to
move a number updates the snapshot in the same commit (``python -m tests.golden --update``)
and says why in its message.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SNAPSHOT = REPO / "tests" / "golden" / "snapshot.json"

_UMTS = "scenarios/umts-384k.toml"
_WIRED = "scenarios/wired-384k.toml"
_BSV = "scenarios/bs-delay-variation.toml"
_BSS = "scenarios/bs-delay-spike.toml"
_IS707 = "scenarios/is707-9600.toml"
_IS707X = "scenarios/is707-16x9600.toml"
_LTE = "scenarios/lte-ohta.toml"

# (name, preset, overrides, [(seed, run_index), ...], traces?)
POINTS: list[tuple[str, str, dict[str, Any], list[tuple[int, int]], bool]] = [
    ("wired-1", _WIRED, {}, [(1, 0), (2, 1)], True),
    ("wired-4", _WIRED, {"flows.count": 4}, [(1, 0), (7, 3)], False),
    (
        "wired-4-loss-reno",
        _WIRED,
        {
            "flows.count": 4,
            "tcp.variant": "reno",
            "links.1.loss_rate": 0.01,
            "links.1.ack_loss_rate": 0.01,
            "flows.start_jitter_s": 1.0,
        },
        [(3, 0), (3, 1)],
        False,
    ),
    (
        "wired-4-loss-sack-prr",
        _WIRED,
        {
            "flows.count": 4,
            "tcp.variant": "sack",
            "tcp.prr": True,
            "links.1.loss_rate": 0.01,
            "links.1.ack_loss_rate": 0.01,
            "flows.start_jitter_s": 1.0,
        },
        [(3, 0)],
        False,
    ),
    (
        "wired-2-linux-loss",
        _WIRED,
        {"tcp.profile": "linux", "flows.count": 2, "links.1.loss_rate": 0.005},
        [(1, 0)],
        True,
    ),
    ("umts-1", _UMTS, {}, [(1, 0), (2, 1)], True),
    # The model's earlier radio loop (one TTI grid: 60 ms), kept as an option.
    (
        "umts-4-aligned-grid",
        _UMTS,
        {"flows.count": 4, "access.ue_tti_offset_ms": 0.0},
        [(1, 0)],
        False,
    ),
    (
        "umts-4-linux-codel",
        _UMTS,
        {"tcp.profile": "linux", "flows.count": 4, "access.buffer.discipline": "codel"},
        [(1, 0)],
        False,
    ),
    ("umts-4", _UMTS, {"flows.count": 4, "flows.start_jitter_s": 1.0}, [(1, 0), (1, 1)], True),
    (
        "umts-4-red",
        _UMTS,
        {"flows.count": 4, "access.buffer.discipline": "red", "access.buffer.limit_sdus": 40},
        [(1, 0), (5, 2)],
        False,
    ),
    (
        "umts-2-sbd",
        _UMTS,
        {"flows.count": 2, "access.buffer.discipline": "sbd", "access.buffer.limit_sdus": 40},
        [(1, 0), (4, 1)],
        True,
    ),
    (
        "umts-4-codel",
        _UMTS,
        {"flows.count": 4, "access.buffer.discipline": "codel", "flows.start_jitter_s": 1.0},
        [(1, 0), (2, 3)],
        False,
    ),
    (
        "umts-4-pie",
        _UMTS,
        {"flows.count": 4, "access.buffer.discipline": "pie", "flows.start_jitter_s": 1.0},
        [(1, 0), (2, 3)],
        False,
    ),
    (
        "umts-4-ackrate-tuned",
        _UMTS,
        {
            "flows.count": 4,
            "flows.start_jitter_s": 1.0,
            "access.buffer.limit_sdus": 40,
            "access.ack_control.mode": "rate",
            "access.ack_control.alpha": 0.5,
            "access.ack_control.minth_sdus": 0,
            "access.ack_control.maxth_sdus": 40,
            "access.ack_control.maxd_ms": 200,
        },
        [(1, 0), (1, 1)],
        True,
    ),
    (
        "umts-1-ackdelay-one-per-event",
        _UMTS,
        {
            "access.ack_control.mode": "delay",
            "access.ack_control.release": "one_per_event",
            "access.ack_control.sync_to_tti": True,
        },
        [(1, 0), (9, 2)],
        False,
    ),
    (
        "umts-1-iid-uplink-while-due",
        _UMTS,
        {
            "access.uplink": {"model": "iid", "fer": 0.05},
            "access.ack_control.mode": "rate",
            "access.ack_control.release": "while_due",
            "access.rlc.max_dat": 3,
        },
        [(1, 0), (2, 0)],
        False,
    ),
    ("is707-9600", _IS707, {}, [(1, 0), (2, 1)], True),
    (
        "is707-9600-awnd8-fast",
        _IS707,
        {"tcp.awnd_segments": 8, "access.forward.fd_t": 1.0, "access.forward.fer": 0.05},
        [(1, 0), (1, 1)],
        False,
    ),
    (
        "is707-9600-cycles",
        _IS707,
        {"access.nak_rounds": 4, "access.forward.fer": 0.3, "simulation.duration_s": 200.0},
        [(1, 0)],
        False,
    ),
    ("is707-16x", _IS707X, {"simulation.duration_s": 120.0}, [(1, 0)], False),
    ("bs-variation", _BSV, {}, [(1, 0), (2, 1)], False),
    (
        "bs-variation-ctrl",
        _BSV,
        {"bs_ack.enabled": True, "bs_ack.dup_ack_thresh": 5},
        [(1, 0), (2, 1)],
        True,
    ),
    ("bs-spike", _BSS, {}, [(1, 0)], False),
    (
        "bs-spike-ctrl",
        _BSS,
        {"bs_ack.enabled": True, "bs_ack.dup_ack_thresh": 8},
        [(1, 0), (3, 2)],
        True,
    ),
    ("lte-10", _LTE, {"simulation.duration_s": 10.0}, [(1, 0)], True),
    (
        "lte-10-opt",
        _LTE,
        {"simulation.duration_s": 10.0, "access.ack_filter.scheme": "hybrid_opt"},
        [(1, 0)],
        False,
    ),
    (
        "lte-20-ns3-mode",
        _LTE,
        {
            "simulation.duration_s": 8.0,
            "access.ues": 20,
            "flows.count": 2,
            "access.uplink.bsr": "ideal",
            "access.uplink.scheduler": "round_robin",
            "access.uplink.min_prb": 3,
            "access.rlc.mode": "um",
            "access.fading.model": "rayleigh",
            "access.buffer.discipline": "codel",
            "access.ack_filter.scheme": "cake",
        },
        [(2, 1)],
        False,
    ),
]


def _digest(trace: dict[str, Any]) -> str:
    h = hashlib.sha256()
    for col in ("time_s", "id", "value"):
        h.update(trace[col].tobytes())
    return h.hexdigest()[:16]


def _encode(v: float) -> float | str:
    """JSON keeps finite floats exactly (repr round-trips); NaN and infinities as strings."""
    return repr(v) if not math.isfinite(v) else v


def compute() -> dict[str, Any]:
    from radiotcp import _core
    from radiotcp.config import load, to_core_json

    out: dict[str, Any] = {}
    for name, preset, overrides, seeds, traces in POINTS:
        doc = to_core_json(load(REPO / preset, overrides))
        for seed, run_index in seeds:
            res = _core.simulate(doc, seed, run_index, traces)
            entry: dict[str, Any] = {
                "metrics": {k: _encode(v) for k, v in res["metrics"].items()},
            }
            if traces:
                entry["traces"] = {k: _digest(t) for k, t in sorted(res["traces"].items())}
            out[f"{name}/{seed}/{run_index}"] = entry
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--update", action="store_true", help="rewrite tests/golden/snapshot.json")
    args = ap.parse_args()
    snap = compute()
    if args.update:
        SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
        SNAPSHOT.write_text(json.dumps(snap, indent=1, sort_keys=True) + "\n")
        print(f"wrote {len(snap)} entries to {SNAPSHOT}")
    else:
        print(json.dumps(snap, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
