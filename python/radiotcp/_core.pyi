"""Type stub of the compiled binding ``radiotcp._core`` (crates/radiotcp-py)."""

from collections.abc import Callable
from typing import Any

def simulate(
    config_json: str,
    seed: int,
    run_index: int,
    traces: bool = False,
    *,
    max_events: int | None = None,
    max_wall_s: float | None = None,
    progress: Callable[[float, int], None] | None = None,
) -> dict[str, Any]:
    """Run one replication of a fully resolved configuration (JSON).

    Returns the core's RunResult as plain data: ``seed``, ``run_index``, ``duration_s``,
    ``measured_s``, ``events``, ``flows`` (list of per-flow dicts), ``links`` (list of
    per-link-and-direction dicts), ``metrics`` (flat scalar metrics), plus ``traces`` (None,
    or name -> {"time_s": float64 array, "id": uint32 array, "value": float64 array}) and
    ``wall_time_s`` (wall time of the simulation proper). Raises ``radiotcp.ConfigError`` for
    an unusable configuration and ``KeyboardInterrupt`` on Ctrl-C.

    Budget: ``max_events`` / ``max_wall_s`` end the run early with the statistics so far and
    ``halted`` = "max_events" / "max_wall_time" (the key is absent for a complete run);
    ``progress(simulated_s, events)`` is called at most every 0.2 s of wall time. A panic in
    the core raises ``radiotcp.SimulationError``.
    """

def simulate_metrics(config_json: str, seed: int, run_index: int) -> tuple[str, float]:
    """Run one replication; return its flat metrics as JSON text (NaN as ``NaN``) and the
    wall time of the simulation proper. Raises like :func:`simulate`."""

def default_config_json() -> str:
    """JSON of the core's default configuration (the wired-384k preset with one flow)."""

def default_section_json(name: str) -> str:
    """JSON of the Rust ``Default`` of one configuration section type, by name: "scenario",
    "simulation", "tcp", "flows", "link", "queue", "variable_delay", "delay_level", "spike",
    "wired", "umts", "channel", "rlc", "buffer", "red", "sbd", "codel", "pie", "ack_control",
    "rlp" or "bs_ack" ("wired", "umts" and "rlp" are access tables, with their ``kind``).
    Raises ``ValueError`` for another name."""

def check_config(config_json: str) -> None:
    """Parse and validate a resolved configuration (JSON) as :func:`simulate` does, without
    running it. Raises ``radiotcp.ConfigError`` naming the first problem."""

def lte_mcs_sinr_db(mcs: int) -> float:
    """SINR (dB) at which downlink MCS `mcs` (0..=28) reaches 10 % BLER."""

def version() -> str:
    """Version of the Rust core crate."""

def _panic_for_test(config_json: str, seed: int, run_index: int) -> None:
    """Run like :func:`simulate` but panic inside the run: always raises
    ``radiotcp.SimulationError`` (the test that a core panic becomes that exception)."""
