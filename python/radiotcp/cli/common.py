"""What the commands share: the exit codes and the flags every command that has them declares
the same way (:func:`add_config_args`).

Nothing here imports more than the standard library: ``radiotcp --help`` builds every
command's parser.
"""

from __future__ import annotations

import argparse
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError

EXIT_OK = 0
# A failure while the command works (a store that cannot be written, a disk that fills up, a
# cluster that cannot be reached): not the command line's fault, but no bug either.
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
# A failure of the simulator itself (sysexits' EX_SOFTWARE): a bug to report, not bad input.
EXIT_BUG = 70

SET_HELP = "override one setting (repeatable)"

# The most replications (per point) a command runs unless --allow-many-runs: a typo such as
# --runs 1000000000 is refused at once instead of queueing years of work.
MAX_RUNS = 100_000
ALLOW_MANY_HELP = f"allow more than {MAX_RUNS:,} replications per point"
# The most work a command starts unless --yes: its runs times the core's estimate of events
# per run (radiotcp.cost). 1e10 events is ten times every recipe of the project together
# (about 1e9 events, 23 minutes of one core on the reference machine); it is about 25 minutes
# of one core for wired runs and 3 to 6 hours for radio bearers (UMTS, LTE), whose events cost
# more. Past it, a typed-in count (--runs 100000 on a large grid) is refused at once with the
# estimate, instead of filling the store for days.
MAX_WORK_EVENTS = 1e10
YES_HELP = (
    f"start even when the work is estimated above {MAX_WORK_EVENTS:.0e} events "
    "(runs x the estimated events of a run)"
)
# How long `--cluster` may take to accept a connection before the sweep gives up.
CLUSTER_TIMEOUT_S = 3.0
FORMAT_HELP = (
    "how to print the results on stdout: table (default; in full when stdout is not a "
    "terminal), markdown, csv or json"
)


class CommandFailed(Exception):
    """A failure while a command works (exit 1): ``str(err)`` is the one line to print after
    ``error:``, saying what happened and what is safe."""


def check_count(
    flag: str,
    value: int | None,
    *,
    minimum: int = 1,
    maximum: int | None = None,
    allow_flag: str | None = None,
) -> None:
    """A count option (``--runs``, ``--jobs``...) within [minimum, maximum]; the limit named in
    the message (with the flag that lifts it, if any)."""
    if value is None:
        return
    if value < minimum:
        raise ConfigError(flag, str(value), f"an integer >= {minimum}")
    if maximum is not None and value > maximum:
        lift = f" (or add {allow_flag})" if allow_flag else ""
        raise ConfigError(flag, str(value), f"an integer in [{minimum}, {maximum}]{lift}")


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    if seconds < 2 * 365 * 86400:
        return f"{seconds / 86400:.1f} days"
    return f"{seconds / (365 * 86400):.2g} years"


def check_work(events: float, wall_s: float, what: str, yes: bool) -> None:
    """Refuse work estimated above :data:`MAX_WORK_EVENTS` events unless ``yes`` (--yes): one
    line with the estimate (``what``: the runs it counts), its time on one core of the
    reference machine, the limit and the flag that lifts it."""
    if yes or events <= MAX_WORK_EVENTS:
        return
    raise ConfigError(
        "estimated work",
        f"{events:.2g} events ({what}, about {_duration(wall_s)} of one core)",
        f"at most {MAX_WORK_EVENTS:.0e} events; add --yes to start it anyway",
    )


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def check_input_file(flag: str, path: str | Path, what: str = "scenario") -> None:
    """An input file that exists, is a regular file (never a FIFO, a device or a directory,
    which could block or never end) and is readable; checked with stat, never opened."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise ConfigError(flag, str(path), f"an existing {what} file (not found)") from None
    except OSError as e:
        raise ConfigError(flag, str(path), f"a readable {what} file ({e.strerror})") from None
    if not stat.S_ISREG(st.st_mode):
        raise ConfigError(flag, str(path), f"a regular {what} file, not {_kind(st.st_mode)}")
    if not os.access(path, os.R_OK):
        raise ConfigError(flag, str(path), f"a readable {what} file (permission denied)")


def check_output_dir(flag: str, path: Path) -> None:
    """An output folder: created (with its parents) and probed with a temporary file, before
    any work, so that hours of runs never end in 'cannot write'."""
    if path.exists() and not path.is_dir():
        raise ConfigError(flag, str(path), "a folder (this is an existing file)")
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as e:
        raise ConfigError(flag, str(path), f"a writable folder ({e.strerror or e})") from None


def check_output_file(flag: str, path: Path) -> None:
    """An output file: not a folder, and its folder writable (created if need be)."""
    if path.is_dir():
        raise ConfigError(flag, str(path), "a file name (this is an existing folder)")
    if path.exists() and not os.access(path, os.W_OK):
        raise ConfigError(flag, str(path), "a writable file (permission denied)")
    parent = path.parent
    if parent.exists() and not parent.is_dir():
        raise ConfigError(flag, str(path), f"a file in a folder ({parent} is a file)")
    try:
        parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=parent):
            pass
    except OSError as e:
        why = e.strerror or str(e)
        raise ConfigError(flag, str(path), f"a file in a writable folder ({why})") from None


def parse_cluster(address: str) -> tuple[str, str, int]:
    """A Dask scheduler address, ``host:port``, ``tcp://host:port`` or ``tls://host:port``
    (``[::1]:8786`` for IPv6): (the address for Dask, host, port)."""
    allowed = "a scheduler address HOST:PORT or tcp://HOST:PORT (port 1-65535)"
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    if scheme not in ("tcp", "tls"):
        raise ConfigError("--cluster", address, allowed)
    host, colon, port_text = rest.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not colon or not host or "/" in rest or not port_text.isdigit():
        raise ConfigError("--cluster", address, allowed)
    port = int(port_text)
    if not 1 <= port <= 65535:
        raise ConfigError("--cluster", address, allowed)
    return f"{scheme}://{rest}", host, port


def connect_cluster(address: str, timeout: float = CLUSTER_TIMEOUT_S) -> str:
    """Parse ``--cluster`` and check that something accepts connections there within
    ``timeout`` seconds; returns the address for Dask. Unreachable: CommandFailed."""
    import socket

    dask_address, host, port = parse_cluster(address)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as e:
        why = "timed out" if isinstance(e, TimeoutError) else (e.strerror or str(e))
        raise CommandFailed(
            f"--cluster = {address}: no Dask scheduler answers there within {timeout:g} s "
            f"({why}); start one (dask scheduler) or run without --cluster"
        ) from None
    return dask_address


def figure_formats() -> list[str]:
    """The figure formats `radiotcp plot` writes: those of :func:`radiotcp.plots.save` that
    this matplotlib supports (matplotlib is imported here, only when a figure is asked for)."""
    from matplotlib.figure import Figure

    supported = Figure().canvas.get_supported_filetypes()
    return [ext for ext in ("png", "pdf", "svg") if ext in supported]


def check_figure_file(flag: str, path: Path) -> None:
    formats = figure_formats()
    ext = path.suffix.lower().lstrip(".")
    if ext not in formats:
        shown = path.suffix or "(none)"
        raise ConfigError(
            flag,
            str(path),
            f"a figure file ending in {', '.join('.' + f for f in formats)} (extension {shown})",
        )
    check_output_file(flag, path)


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
    out_alias: bool = False,
    formats: tuple[str, ...] = (),
) -> None:
    """Declare the configuration and output flags a command has, in this order:

    - ``scenario``: the positional ``SCENARIO.toml`` (``args.scenario``, a string);
    - ``overrides``: ``--set KEY.PATH=VALUE`` (repeatable, ``args.overrides``, a list), with
      this help text;
    - ``show_config``: ``--show-config``;
    - ``runs`` / ``seed``: ``--runs N`` / ``--seed S`` (integers);
    - ``json``: ``--json``, with this help text (with ``formats``, an alias of
      ``--format json``);
    - ``formats``: ``--format {table,markdown,csv,json}`` (``args.format``; None = table);
    - ``output``: the output path (``args.output``, a :class:`~pathlib.Path`), ``-o`` /
      ``--output``; ``out_alias``: ``--out`` too, hidden (the name of earlier releases).

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
    if formats:
        p.add_argument("--format", choices=formats, default=None, help=FORMAT_HELP)
    if output is not None:
        p.add_argument("-o", "--output", dest="output", type=Path, **output.kwargs())
        if out_alias:
            p.add_argument("--out", dest="output", type=Path, help=argparse.SUPPRESS)


def wide_console(stderr: bool = False) -> Any:
    """A rich Console; when its stream is not a terminal (a pipe, a file), one that never
    elides or wraps a table to a terminal's width: what goes into a file is the whole table."""
    from rich.console import Console

    console = Console(stderr=stderr)
    if not console.is_terminal:
        console = Console(stderr=stderr, width=100_000, soft_wrap=True)
    return console


def emit_table(
    out: Any,
    fmt: str | None,
    title: str,
    headers: list[str],
    cells: list[list[str]],
    raw: list[list[Any]] | None = None,
    right: tuple[int, ...] = (),
) -> None:
    """Print a table in ``fmt``: ``table`` (rich; None is table), ``markdown`` (a pipe table),
    ``csv`` or ``json`` (a list of objects). ``cells`` are the shown strings; ``raw``, the
    values for csv and json (default: the cells). ``right``: the right-aligned columns."""
    import sys

    values = raw if raw is not None else cells
    if fmt == "csv":
        import csv
        import math

        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(headers)
        # An undefined number (the interval of a single run) is an empty cell, as in the CSV
        # files a sweep writes.
        w.writerows(
            ["" if isinstance(v, float) and not math.isfinite(v) else v for v in row]
            for row in values
        )
        return
    if fmt == "json":
        import json
        import math

        def clean(v: Any) -> Any:
            return None if isinstance(v, float) and not math.isfinite(v) else v

        doc = [{h: clean(v) for h, v in zip(headers, row, strict=True)} for row in values]
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
        return
    if fmt == "markdown":

        def esc(text: str) -> str:
            return str(text).replace("|", "\\|")

        lines = [f"**{esc(title)}**", ""] if title else []
        lines.append("| " + " | ".join(esc(h) for h in headers) + " |")
        lines.append(
            "|" + "|".join("---:" if i in right else "---" for i in range(len(headers))) + "|"
        )
        lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in cells]
        sys.stdout.write("\n".join(lines) + "\n")
        return
    from rich.table import Table

    t = Table(title=title or None, title_justify="left")
    for i, h in enumerate(headers):
        t.add_column(h, justify="right" if i in right else "left", no_wrap=True)
    for row in cells:
        t.add_row(*row)
    out.print(t)
