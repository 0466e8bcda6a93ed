"""radiotcp: packet-level discrete-event simulation of TCP over cellular and wired links.

Quick start::

    import radiotcp
    res = radiotcp.run("scenarios/wired-384k.toml", seed=1, runs=5,
                       overrides=["flows.count=4"])
    mean, ci90, n = res.summary["goodput_kbps"]

The simulation runs in the Rust core (``radiotcp._core``); this package validates the
configuration (:mod:`radiotcp.config`), runs replications (:mod:`radiotcp.run`), computes
statistics (:mod:`radiotcp.stats`) and provides the ``radiotcp`` command (:mod:`radiotcp.cli`).
"""

from __future__ import annotations

from . import _core
from .config import ScenarioConfig, load
from .errors import ConfigError, SimulationError
from .run import Results, run

__version__ = _core.version()

__all__ = [
    "ConfigError",
    "Results",
    "ScenarioConfig",
    "SimulationError",
    "__version__",
    "load",
    "run",
]
