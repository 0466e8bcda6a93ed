"""Type stub of the compiled binding ``radiotcp._core`` (crates/radiotcp-py/src/lib.rs and
emulation.rs). tests/test_stub.py checks it against the built extension (mypy.stubtest)."""

from collections.abc import Callable, Sequence
from os import PathLike
from typing import Any, final

# The names the module's __all__ holds (pyo3 lists every function and class it adds).
__all__ = [
    "Emulation",
    "StopFlag",
    "_panic_for_test",
    "ack_t_id_ms",
    "check_config",
    "config_schema",
    "default_config_json",
    "estimate_cost",
    "fill_config_defaults",
    "lte_mcs_sinr_db",
    "resolve_config",
    "simulate",
    "simulate_chunk",
    "simulate_metrics",
    "source_hash",
    "version",
]

def simulate(
    config_json: str,
    seed: int,
    run_index: int,
    traces: bool = False,
    *,
    max_events: int | None = None,
    max_wall_s: float | None = None,
    progress: Callable[[float, int], object] | None = None,
    pcap_dir: str | PathLike[str] | None = None,
    pcap_points: Sequence[str] | None = None,
    pcap_snaplen: int = 128,
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
    ``progress(simulated_s, events)`` is called at most every 0.2 s of wall time (an
    exception it raises interrupts the run). A panic in the core raises
    ``radiotcp.SimulationError``.

    pcap export: ``pcap_dir`` and ``pcap_points`` ("server" by default, "ue", or a link's
    name) write ``<pcap_dir>/<point>-run<run_index>.pcap`` per point, headers of
    ``pcap_snaplen`` bytes at most; the result's ``pcap`` lists the files and their packet
    counts. OSError if a file cannot be written.
    """

def simulate_metrics(config_json: str, seed: int, run_index: int) -> tuple[str, float]:
    """Run one replication; return its flat metrics as JSON text (NaN as ``NaN``) and the
    wall time of the simulation proper. Raises like :func:`simulate`."""

@final
class StopFlag:
    """Set, it stops the runs of :func:`simulate_chunk` that watch it (read without the
    GIL, before each run and every 65,536 events)."""

    def __init__(self) -> None: ...
    def set(self) -> None: ...
    def is_set(self) -> bool: ...

def simulate_chunk(
    tasks: Sequence[tuple[str, str, int, int]],
    stop: StopFlag | None = None,
    signals: bool = False,
) -> list[tuple[str, str, float, float]]:
    """Run a sweep's chunk of (key, configuration JSON, seed, run index) with the GIL
    released; return (key, flat metrics as JSON, wall time of the simulation proper, the
    thread's CPU seconds) per run. ``stop`` set ends it with ``KeyboardInterrupt``;
    ``signals`` also checks for Ctrl-C (main thread). The first failing run raises as
    :func:`simulate` does."""

def lte_mcs_sinr_db(mcs: int) -> float:
    """SINR (dB) at which downlink MCS `mcs` (0..=28) reaches 10 % BLER. ``ValueError`` for
    another MCS."""

def ack_t_id_ms(config_json: str, bo: Sequence[float]) -> list[float]:
    """The ACK rate control's inter-departure time t_id (ms) at each buffer occupancy in
    ``bo`` (SDUs), for the ``access.ack_control`` settings of ``config_json`` (a UMTS
    access; ``radiotcp.ConfigError`` otherwise). All zeros when the mode is ``none``."""

def estimate_cost(config_json: str) -> tuple[float, float]:
    """``(events, wall_s)`` of one run estimated from the configuration (the core's
    ``config::cost``: each access kind adds its own terms); ``radiotcp.ConfigError`` on a
    configuration the core rejects."""

def default_config_json() -> str:
    """JSON of the core's default configuration (the wired-384k preset with one flow)."""

def check_config(config_json: str) -> None:
    """Parse and validate a resolved configuration (JSON) as :func:`simulate` does, without
    running it. Raises ``radiotcp.ConfigError`` naming every problem."""

def config_schema() -> str:
    """The JSON Schema of a scenario document: every key with its type, default, allowed
    values and help text, as the Rust configuration types declare them."""

def resolve_config(config_json: str) -> str:
    """Resolve a partial scenario document (JSON): the fully resolved document
    :func:`simulate` reads, every key left out at its default (a TCP profile's for the ``tcp``
    keys). Raises ``radiotcp.ConfigError`` listing every problem of the document (unknown keys
    with the closest known one, wrong types, choices, bounds and cross-checks)."""

def fill_config_defaults(config_json: str) -> str:
    """A partial scenario document (JSON) with every key it leaves out at its default and
    nothing checked: unknown keys and wrong values are kept as written. ``ValueError`` for text
    that is not JSON."""

def version() -> str:
    """Version of the Rust core crate."""

def source_hash() -> str:
    """Fingerprint of the core's source this extension was built from (16 hex digits)."""

def _panic_for_test(config_json: str, seed: int, run_index: int) -> None:
    """Run like :func:`simulate` but panic inside the run: always raises
    ``radiotcp.SimulationError`` (the test that a core panic becomes that exception)."""

@final
class Emulation:
    """The emulated network between a server-side and a UE-side TUN device.

    Creating it creates both devices (in the caller's network namespace) and the emulator of
    the scenario's network; ``start(max_seconds=None)`` runs it on a thread; ``stop()`` ends
    it and returns the report (a dict: ``down``, ``up``, ``flows``, ``lag``, ``model``,
    ``metrics``, ``traces``, ``pcap``, ...). OSError if the devices cannot be created (no
    ``/dev/net/tun``, no CAP_NET_ADMIN, a name taken); ``radiotcp.ConfigError`` for a
    scenario the emulation cannot carry.
    """

    def __new__(
        cls,
        config_json: str,
        server_tun: str,
        ue_tun: str,
        seed: int = 1,
        traces: bool = False,
        pcap_dir: str | PathLike[str] | None = None,
    ) -> Emulation: ...
    def start(self, max_seconds: float | None = None) -> None:
        """Start the emulator's thread; it runs until ``stop()`` or for ``max_seconds`` at
        most. RuntimeError if it has already been started."""

    def running(self) -> bool:
        """Whether the emulator's thread is still running."""

    def stop(self) -> dict[str, Any]:
        """End the emulation and return its report. RuntimeError if it is not running."""
