"""Shared helpers for the radiotcp tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PRESET = REPO / "scenarios" / "wired-384k.toml"


def run_cli(*args: str, timeout: float = 120, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    """Run ``python -m radiotcp ARGS`` in a subprocess, as a user would, from ``cwd`` (this
    checkout's package first on the path, so any folder works)."""
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO / "python"), *filter(None, [env.get("PYTHONPATH")])]
    )
    return subprocess.run(
        [sys.executable, "-m", "radiotcp", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=env,
        check=False,
    )


@pytest.fixture
def local_pools(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The local pools the sweeps open, by their `jobs` (one entry per pool)."""
    import radiotcp.sweep as sweep_mod

    pools: list[int] = []
    run_local = sweep_mod._run_local

    def counted(chunks, jobs):
        pools.append(jobs)
        yield from run_local(chunks, jobs)

    monkeypatch.setattr(sweep_mod, "_run_local", counted)
    return pools


@pytest.fixture
def preset() -> Path:
    return PRESET


@pytest.fixture
def short_lossy() -> dict:
    """A short scenario with random losses: results depend on the random stream."""
    return {
        "simulation": {"duration_s": 20.0},
        "flows": {"count": 2},
        "links": [
            {
                "name": "wan",
                "rate_kbps": 1000.0,
                "delay_ms": 100.0,
                "queue": {"limit_packets": 1000},
            },
            {
                "name": "access",
                "rate_kbps": 384.0,
                "delay_ms": 25.0,
                "loss_rate": 0.02,
                "queue": {"limit_packets": 50},
            },
        ],
    }
