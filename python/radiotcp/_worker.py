"""What a sweep worker (a local process or a Dask worker) runs: a chunk of replications.

Kept apart from the driver so a worker imports only the core, which also reduces each run to
its flat metrics and encodes them (the driver, the one serial part of a sweep, only stores
text).
"""

from __future__ import annotations

import signal
import time
from collections.abc import Sequence

# (run key, resolved config JSON, seed, run index)
Task = tuple[str, str, int, int]
# (run key, flat metrics as JSON, wall time of the simulation proper, CPU seconds of the run in
# the worker: the thread's, so neither the machine's load nor the worker's other threads count)
Done = tuple[str, str, float, float]


def run_chunk(tasks: Sequence[Task]) -> list[Done]:
    """Run each task with the Rust core and reduce its result to flat metrics."""
    from radiotcp import _core

    out: list[Done] = []
    cpu = time.thread_time
    for key, doc, seed, run_index in tasks:
        c0 = cpu()
        metrics, wall = _core.simulate_metrics(doc, seed, run_index)
        out.append((key, metrics, wall, cpu() - c0))
    return out


def init_local_worker(driver_pid: int) -> None:
    """Initializer of a local pool worker: it dies with its driver. The kernel kills it when
    the driver dies, however (SIGKILL, the OOM killer: ``PR_SET_PDEATHSIG``); SIGTERM and
    SIGHUP end it (the driver's handlers, inherited through fork, are reset); Ctrl-C is the
    driver's to handle, which then ends the pool."""
    from radiotcp._lifetime import die_with_parent

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(driver_pid)
