"""Behaviour guard: every preset and a set of recipe points give bit-identical flat metrics
(and traces) to the snapshot in tests/golden/snapshot.json (see tests/golden.py)."""

from __future__ import annotations

import json

import pytest

from tests.golden import SNAPSHOT, compute


@pytest.fixture(scope="module")
def current() -> dict:
    return compute()


def test_snapshot_covers_every_point(current: dict) -> None:
    stored = json.loads(SNAPSHOT.read_text())
    assert sorted(current) == sorted(stored)


def test_metrics_and_traces_are_bit_identical(current: dict) -> None:
    stored = json.loads(SNAPSHOT.read_text())
    diffs: list[str] = []
    for point, want in stored.items():
        got = current.get(point)
        if got is None:
            continue
        names = sorted(set(want["metrics"]) | set(got["metrics"]))
        for k in names:
            a, b = want["metrics"].get(k), got["metrics"].get(k)
            if a != b:
                diffs.append(f"{point}: {k}: snapshot {a!r}, now {b!r}")
        if want.get("traces") != got.get("traces"):
            diffs.append(f"{point}: traces {want.get('traces')} != {got.get('traces')}")
    assert not diffs, f"{len(diffs)} differences:\n" + "\n".join(diffs[:40])
