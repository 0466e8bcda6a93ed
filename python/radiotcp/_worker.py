"""What a sweep worker (a local process or a Dask worker) runs: a chunk of replications.

Kept apart from the driver so a worker imports only the core and the metric flattening.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# (run key, resolved config JSON, seed, run index)
Task = tuple[str, str, int, int]
# (run key, flat metrics as JSON, wall time of the simulation proper). The worker encodes the
# metrics so that the driver, the one serial part of a sweep, only stores text.
Done = tuple[str, str, float]


def run_chunk(tasks: Sequence[Task]) -> list[Done]:
    """Run each task with the Rust core and reduce its result to flat metrics."""
    import json

    from radiotcp import _core
    from radiotcp.run import flatten_metrics

    out: list[Done] = []
    for key, doc, seed, run_index in tasks:
        raw: dict[str, Any] = _core.simulate(doc, seed, run_index)
        raw.pop("traces", None)
        wall = float(raw.pop("wall_time_s", 0.0))
        metrics = json.dumps(flatten_metrics(raw), separators=(",", ":"))
        out.append((key, metrics, wall))
    return out
