"""What a run will cost, before it starts: events and wall time from the configuration.

The estimate is the core's (``config/cost.rs``: each access kind says what it adds: its
capacity, delay, clock period and measured cost per event), so this module names no access
kind. It decides whether `radiotcp run` shows a progress bar for a single run and warns when a
run will reach ``--max-events``; it is checked against real event counts of every preset
within a factor of 3 (tests/test_budget.py), which is all it is for.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import _core

if TYPE_CHECKING:
    from .config import ScenarioConfig

__all__ = ["Cost", "estimate"]


@dataclass(frozen=True)
class Cost:
    """Estimated events of one run and its wall time on the reference machine."""

    events: float
    wall_s: float


def estimate(cfg: ScenarioConfig) -> Cost:
    from .config import to_core_json

    events, wall_s = _core.estimate_cost(to_core_json(cfg))
    return Cost(events=events, wall_s=wall_s)
