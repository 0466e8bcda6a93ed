"""What the commands share: the exit codes and the flags every command that has them declares
the same way (:func:`add_config_args`).

Nothing here imports more than the standard library: ``radiotcp --help`` builds every
command's parser.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
# A failure of the simulator itself (sysexits' EX_SOFTWARE): a bug to report, not bad input.
EXIT_BUG = 70

SET_HELP = "override one setting (repeatable)"

SHOW_CONFIG_HELP = (
    "print the fully resolved configuration (TOML, every default filled in) on "
    "stdout, alone, so that it can be saved and loaded again (status lines go to stderr; "
    "`run` stops there); with --json the configuration is part of the document instead"
)


@dataclass(frozen=True)
class Flag:
    """One of the shared flags as a command declares it: its help text, default and metavar
    (None: argparse's own, the flag's name in capitals), and whether it is required."""

    help: str | None = None
    default: Any = None
    metavar: str | None = None
    required: bool = False

    def kwargs(self) -> dict[str, Any]:
        out: dict[str, Any] = {"default": self.default, "help": self.help}
        if self.metavar is not None:
            out["metavar"] = self.metavar
        if self.required:
            out["required"] = True
        return out


def add_config_args(
    p: argparse.ArgumentParser,
    *,
    scenario: bool = False,
    overrides: str | None = None,
    overrides_metavar: str = "KEY.PATH=VALUE",
    show_config: bool = False,
    runs: Flag | None = None,
    seed: Flag | None = None,
    json: str | None = None,
    output: Flag | None = None,
    output_flags: tuple[str, ...] = ("-o", "--output"),
) -> None:
    """Declare the configuration and output flags a command has, in this order:

    - ``scenario``: the positional ``SCENARIO.toml`` (``args.scenario``, a string);
    - ``overrides``: ``--set KEY.PATH=VALUE`` (repeatable, ``args.overrides``, a list), with
      this help text;
    - ``show_config``: ``--show-config``;
    - ``runs`` / ``seed``: ``--runs N`` / ``--seed S`` (integers);
    - ``json``: ``--json``, with this help text;
    - ``output``: the output path (``args.output``, a :class:`~pathlib.Path`), named
      ``output_flags`` (``-o``/``--output``, or ``--out`` for an output folder).

    A flag left at None is not declared.
    """
    if scenario:
        p.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file (TOML)")
    if overrides is not None:
        p.add_argument(
            "--set",
            dest="overrides",
            action="append",
            default=[],
            metavar=overrides_metavar,
            help=overrides,
        )
    if show_config:
        p.add_argument("--show-config", action="store_true", help=SHOW_CONFIG_HELP)
    if runs is not None:
        p.add_argument("--runs", type=int, **runs.kwargs())
    if seed is not None:
        p.add_argument("--seed", type=int, **seed.kwargs())
    if json is not None:
        p.add_argument("--json", action="store_true", help=json)
    if output is not None:
        p.add_argument(*output_flags, dest="output", type=Path, **output.kwargs())
