"""Errors a user can cause. Every problem names the key path, the value and what is allowed."""

from __future__ import annotations

__all__ = ["ConfigError", "SimulationError"]


class ConfigError(ValueError):
    """A configuration value that cannot be used.

    One instance describes one or more problems. ``key`` (dotted path mirroring the TOML
    structure, e.g. ``links.1.rate_kbps``), ``value`` (the value as given, rendered as text)
    and ``allowed`` (what would have been accepted) describe the first problem; ``problems``
    lists every problem as ``ConfigError`` instances with a single problem each. ``str(err)``
    is one line per problem, ``key = value: expected allowed`` (or ``key: allowed`` when
    there is no value to show), the same form the Rust core uses; an unknown key reads
    ``key = value: unknown key; <known keys>``.
    """

    def __init__(
        self,
        key: str,
        value: str = "",
        allowed: str = "",
        *,
        problems: list[ConfigError] | None = None,
        unknown_key: bool = False,
    ) -> None:
        self.key = str(key)
        self.value = str(value)
        self.allowed = str(allowed)
        self.unknown_key = unknown_key
        self.problems: list[ConfigError] = list(problems) if problems else [self]
        super().__init__(self.key, self.value, self.allowed)

    @classmethod
    def from_problems(cls, problems: list[ConfigError]) -> ConfigError:
        """Bundle several single problems into one exception (at least one problem)."""
        if not problems:
            raise ValueError("from_problems needs at least one problem")
        first = problems[0]
        return cls(
            first.key, first.value, first.allowed, problems=problems, unknown_key=first.unknown_key
        )

    def line(self) -> str:
        """This problem (the first one, for a bundle) as one line."""
        if self.unknown_key:
            return f"{self.key} = {self.value}: unknown key; {self.allowed}"
        if self.value == "":
            return f"{self.key}: {self.allowed}"
        return f"{self.key} = {self.value}: expected {self.allowed}"

    def lines(self) -> list[str]:
        """One line per problem."""
        return [p.line() for p in self.problems]

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def __repr__(self) -> str:
        return f"ConfigError({self.key!r}, {self.value!r}, {self.allowed!r})"


class SimulationError(RuntimeError):
    """The simulator failed on a configuration it had accepted: a bug in radiotcp, never the
    user's fault. ``seed`` and ``run_index`` with ``config_json`` (the resolved configuration)
    reproduce it: ``radiotcp._core.simulate(err.config_json, err.seed, err.run_index)``."""

    def __init__(self, message: str, seed: int, run_index: int, config_json: str) -> None:
        self.message = str(message)
        self.seed = int(seed)
        self.run_index = int(run_index)
        self.config_json = str(config_json)
        # All four in args: the exception survives pickling (a sweep worker raises it).
        super().__init__(self.message, self.seed, self.run_index, self.config_json)

    def __str__(self) -> str:
        return (
            f"the simulator failed (a bug in radiotcp): {self.message}; it is reproduced by "
            f"seed {self.seed}, run index {self.run_index} and the resolved configuration "
            "(SimulationError.config_json)"
        )
