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

from typing import TYPE_CHECKING, Any

from . import _core
from .errors import ConfigError, SimulationError
from .run import Results, Summary, replications, run

if TYPE_CHECKING:
    from .config import ScenarioConfig, load

__version__ = _core.version()

# Loaded on first use: the configuration (its generated classes, TOML) is not needed by
# `radiotcp --help` or `import radiotcp` alone.
_FROM_CONFIG = ("ScenarioConfig", "load")


def __getattr__(name: str) -> Any:
    if name in _FROM_CONFIG:
        from . import config

        value = getattr(config, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_FROM_CONFIG})


__all__ = [
    "ConfigError",
    "Results",
    "ScenarioConfig",
    "SimulationError",
    "Summary",
    "__version__",
    "load",
    "replications",
    "run",
]
