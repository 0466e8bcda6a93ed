"""The simulated Linux TCP (``tcp.profile = "linux"``) against the real one over the same
model: one download of a fixed size through a scenario's network, emulated with this
machine's Linux TCP (:func:`radiotcp.emulate.emulate`, the sender's congestion control set
to ``cc``) and simulated (``flows.size_bytes``), side by side (docs/emulation.md).

The command is ``radiotcp emulate-compare`` (:mod:`radiotcp.cli.emulate`); this module holds
its parts: :func:`emulated_runs`, :func:`simulated_config`, :func:`simulated_runs` and
:func:`summary` (the document written to results/emulate-compare/NAME.json).
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .config import ScenarioConfig, load
from .emulate import emulate
from .run import run
from .stats import mean_ci

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_SCENARIO = ROOT / "scenarios" / "umts-384k.toml"
DEFAULT_OUT = ROOT / "results" / "emulate-compare"
PORT = 5201
# The per-run metrics both sides report, in the order of the command's table.
KEYS = ["completion_s", "goodput_kbps", "delay_mean_ms", "overflows", "mean_buffer_sdus"]


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
                "lag_exceeded": bool(rep["lag"].get("exceeded", False)),
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


def _mean_ci(rows: list[dict], key: str) -> dict[str, float]:
    mean, ci90, n = mean_ci([r[key] for r in rows])
    return {"mean": mean, "ci90": ci90, "n": n}


def summary(
    scenario: Path,
    nbytes: int,
    overrides: list[str],
    cc: str,
    emulated: list[dict],
    simulated: list[dict],
) -> dict[str, Any]:
    """The comparison of the rows of :func:`emulated_runs` and :func:`simulated_runs`: for
    each side and each of ``KEYS``, {"mean", "ci90", "n"} (mean and 90 % Student-t
    half-width over the runs), with the emulated runs themselves, their largest p99 clock lag
    and how many of them exceeded the lag's documented bounds."""
    return {
        "scenario": str(scenario),
        "bytes": nbytes,
        "overrides": overrides,
        "real_congestion_control": cc,
        "emulated": {k: _mean_ci(emulated, k) for k in KEYS},
        "simulated": {k: _mean_ci(simulated, k) for k in KEYS},
        "emulated_runs": emulated,
        "lag_p99_us_max": max(r["lag_p99_us"] for r in emulated),
        "lag_exceeded_runs": sum(bool(r.get("lag_exceeded")) for r in emulated),
    }


def available_cc() -> list[str] | None:
    """The kernel's available TCP congestion controls (None where it does not say)."""
    try:
        text = Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text()
    except OSError:
        return None
    return text.split()
