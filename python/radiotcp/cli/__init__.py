"""The ``radiotcp`` command: the top-level parser and :func:`main`; one module per family of
commands, each registering its subcommands (``add_commands``):

- :mod:`radiotcp.cli.single`: ``run``, ``validate``;
- :mod:`radiotcp.cli.experiments`: ``sweep``, ``results``, ``plot``, ``reproduce``;
- :mod:`radiotcp.cli.emulate`: ``emulate``, ``emulate-compare``;
- :mod:`radiotcp.cli.common`: the exit codes and the shared flags (``add_config_args``).

The commands import what they need (the configuration models, numpy, rich, matplotlib, dask)
when they run: ``radiotcp --help`` and ``radiotcp COMMAND --help`` load none of it.

Exit codes: 0 success, 1 a failure while working (a store or folder that cannot be written,
an unreachable cluster: one line saying what is safe), 2 unusable configuration or command
line (one line per problem, no traceback), 70 a failure of the simulator itself (a bug to
report), 130 interrupted (Ctrl-C), 143 (129) terminated by SIGTERM (SIGHUP) during a
sweep or an emulation.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from .. import _core
from .._lifetime import Terminated
from ..errors import ConfigError, SimulationError
from . import emulate, experiments, single
from .common import (
    EXIT_BUG,
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    CommandFailed,
    wide_console,
)

__all__ = [
    "EXIT_BUG",
    "EXIT_FAILURE",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "build_parser",
    "main",
]

MAIN_EPILOG = """\
examples:
  radiotcp run scenarios/wired-384k.toml --set flows.count=4 --runs 5
  radiotcp validate my-scenario.toml
  radiotcp sweep my-sweep.toml --output results/my-sweep
  radiotcp reproduce --list
  radiotcp reproduce wired-buffer
  radiotcp results list
  radiotcp run --help
"""


class Parser(argparse.ArgumentParser):
    """argparse's parser with its usage errors in the form of every other error: the usage,
    then one line starting with ``error:`` (exit 2)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="radiotcp",
        description="Packet-level discrete-event simulation of TCP (Reno, NewReno or SACK "
        "loss recovery; Reno-style or CUBIC congestion control) over wired and cellular links "
        "(UMTS, CDMA2000 RLP, LTE).",
        epilog=MAIN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"radiotcp {_core.version()} (core)")
    sub = parser.add_subparsers(
        dest="command", metavar="COMMAND", help="what to do (radiotcp COMMAND --help)"
    )
    sub.required = True
    single.add_commands(sub)
    experiments.add_commands(sub)
    emulate.add_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``radiotcp`` command; returns the exit code."""
    try:
        parser = build_parser()
        argv = list(sys.argv[1:] if argv is None else argv)
        # `radiotcp emulate ... -- COMMAND ...`: what follows `--` is the command, untouched
        # (argparse would take it for the main parser's arguments).
        tail: list[str] | None = None
        if "emulate" in argv and "--" in argv and argv.index("emulate") < argv.index("--"):
            cut = argv.index("--")
            argv, tail = argv[:cut], argv[cut + 1 :]
        args = parser.parse_args(argv)
        if tail is not None:
            args.ue_command = list(getattr(args, "ue_command", None) or []) + tail
        # rich only once a command runs: `--help` and usage errors are argparse's.
        return int(args.func(args, wide_console(), wide_console(stderr=True)))
    except ConfigError as e:
        # Plain writes: one physical line per problem, never wrapped to the terminal width.
        for line in e.lines():
            print(f"error: {line}", file=sys.stderr)
        return EXIT_USAGE
    except SimulationError as e:
        path = Path(tempfile.gettempdir()) / f"radiotcp-failure-seed{e.seed}-run{e.run_index}.json"
        try:
            path.write_text(e.config_json, encoding="utf-8")
            where = f"the resolved configuration is in {path}"
        except OSError:
            where = "the resolved configuration could not be written"
        print(f"error: {e}", file=sys.stderr)
        print(f"error: {where}; please report the message above with that file", file=sys.stderr)
        return EXIT_BUG
    except KeyboardInterrupt:
        print("interrupted (Ctrl-C): the run was stopped, nothing was written", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Terminated as e:  # SIGTERM / SIGHUP where a command turns them into an exception
        print(f"{e}: stopped; nothing it started is left running", file=sys.stderr)
        return e.exit_status
    except BrokenPipeError:  # e.g. `radiotcp run ... --json | head`
        return EXIT_OK
    except CommandFailed as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_FAILURE
    except OSError as e:  # a disk that fills up, a folder removed while the command works
        where = f" ({e.filename})" if e.filename else ""
        print(f"error: {e.strerror or e}{where}", file=sys.stderr)
        return EXIT_FAILURE
    except Exception as e:
        sqlite3 = sys.modules.get("sqlite3")
        if sqlite3 is not None and isinstance(e, sqlite3.Error):
            print(
                f"error: the results store cannot be used ({e}); the runs already stored are "
                "kept: run the command again to resume",
                file=sys.stderr,
            )
            return EXIT_FAILURE
        raise
