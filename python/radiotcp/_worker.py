"""What a sweep worker (a thread of the local pool or a Dask worker) runs: a chunk of
replications.

Kept apart from the driver so a Dask worker imports only the core, which also reduces each run
to its flat metrics and encodes them (the driver, the one serial part of a sweep, only stores
text).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

# (run key, resolved config JSON, seed, run index)
Task = tuple[str, str, int, int]
# (run key, flat metrics as JSON, wall time of the simulation proper, CPU seconds of the run in
# the worker: the thread's, so neither the machine's load nor the worker's other threads count)
Done = tuple[str, str, float, float]


def run_chunk(tasks: Sequence[Task], stop: threading.Event | None = None) -> list[Done]:
    """Run each task with the Rust core and reduce its result to flat metrics. ``stop`` set
    (the local pool's driver ending early) ends the chunk: the run in progress within a few
    thousand events, with ``KeyboardInterrupt``."""
    from radiotcp import _core

    out: list[Done] = []
    cpu = time.thread_time
    for key, doc, seed, run_index in tasks:
        if stop is not None and stop.is_set():
            raise KeyboardInterrupt("sweep stopped")
        c0 = cpu()
        metrics, wall = _core.simulate_metrics(doc, seed, run_index, stop)
        out.append((key, metrics, wall, cpu() - c0))
    return out
