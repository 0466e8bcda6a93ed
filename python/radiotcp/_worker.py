"""What a sweep worker (a thread of the local pool or a Dask worker) runs: a chunk of
replications.

Kept apart from the driver so a Dask worker imports only the core, which also reduces each run
to its flat metrics and encodes them (the driver, the one serial part of a sweep, only stores
text).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from radiotcp._core import StopFlag

# (run key, resolved config JSON, seed, run index)
Task = tuple[str, str, int, int]
# (run key, flat metrics as JSON, wall time of the simulation proper, CPU seconds of the run in
# the worker: the thread's, so neither the machine's load nor the worker's other threads count)
Done = tuple[str, str, float, float]


def run_chunk(tasks: Sequence[Task], stop: StopFlag | None = None) -> list[Done]:
    """Run each task with the Rust core and reduce its result to flat metrics, the whole chunk
    with the GIL released (``_core.simulate_chunk``). ``stop`` set (the local pool's driver
    ending early) ends the chunk with ``KeyboardInterrupt``: the run in progress within a
    few thousand events. On the main thread the runs also stop for Ctrl-C."""
    from radiotcp import _core

    main = threading.current_thread() is threading.main_thread()
    return _core.simulate_chunk(list(tasks), stop, main)
