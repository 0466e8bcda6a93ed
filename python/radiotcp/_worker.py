"""What a sweep worker (a local process or a Dask worker) runs: a chunk of replications.

Kept apart from the driver so a worker imports only the core, which also reduces each run to
its flat metrics and encodes them (the driver, the one serial part of a sweep, only stores
text).
"""

from __future__ import annotations

from collections.abc import Sequence

# (run key, resolved config JSON, seed, run index)
Task = tuple[str, str, int, int]
# (run key, flat metrics as JSON, wall time of the simulation proper)
Done = tuple[str, str, float]


def run_chunk(tasks: Sequence[Task]) -> list[Done]:
    """Run each task with the Rust core and reduce its result to flat metrics."""
    from radiotcp import _core

    out: list[Done] = []
    for key, doc, seed, run_index in tasks:
        metrics, wall = _core.simulate_metrics(doc, seed, run_index)
        out.append((key, metrics, wall))
    return out
