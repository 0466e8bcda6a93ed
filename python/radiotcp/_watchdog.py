"""The keeper of an emulation's processes for the case where the emulation is killed outright.

``PR_SET_PDEATHSIG`` (radiotcp._lifetime) ends an emulation's direct children when it dies,
but not what they started: a server command run through a shell, a UE command that forks a
daemon. The emulation therefore starts this small process first (:class:`Watchdog`) and tells
it, over a pipe, the process groups and the network namespace it creates. When the pipe
closes without a final ``done`` line, whatever the cause (SIGKILL, the OOM killer, a crash of
the interpreter), the emulation is gone: the keeper kills those process groups and every
process left in the namespace, deletes the namespace, and exits. A normal end says ``done``
first, after its own clean-up, and the keeper exits doing nothing.

The protocol is one line per message on the keeper's stdin: ``group PGID``, ``netns NAME``,
``done``. The keeper runs in a process group of its own, so that the terminal's Ctrl-C, which
the emulation handles, does not end it first.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import IO

__all__ = ["Watchdog", "kill_namespace_processes", "main"]


class Watchdog:
    """The parent's side: start the keeper, register what it must clean up, release it."""

    def __init__(self) -> None:
        # The keeper imports only this module: it must find the package this process runs.
        package_root = str(Path(__file__).resolve().parent.parent)
        path = os.environ.get("PYTHONPATH")
        env = {**os.environ, "PYTHONPATH": package_root + (os.pathsep + path if path else "")}
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "radiotcp._watchdog"],
            stdin=subprocess.PIPE,
            env=env,
            process_group=0,
        )
        assert self._proc.stdin is not None
        self._pipe: IO[bytes] = self._proc.stdin

    def _tell(self, line: str) -> None:
        self._pipe.write(line.encode() + b"\n")
        self._pipe.flush()

    def guard_group(self, pgid: int) -> None:
        """Kill process group ``pgid`` if this process dies before :meth:`release`."""
        self._tell(f"group {pgid}")

    def guard_namespace(self, name: str) -> None:
        """Kill every process in network namespace ``name`` and delete it if this process
        dies before :meth:`release`."""
        self._tell(f"netns {name}")

    def release(self) -> None:
        """The emulation cleaned up after itself: the keeper exits without acting."""
        with contextlib.suppress(OSError):
            self._tell("done")
            self._pipe.close()
        self._proc.wait()


def kill_namespace_processes(name: str) -> None:
    """SIGKILL every process in network namespace ``name``."""
    pids = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True).stdout
    for pid in pids.split():
        with contextlib.suppress(ProcessLookupError, PermissionError, ValueError):
            os.kill(int(pid), signal.SIGKILL)


def main() -> int:
    # A terminal's SIGHUP or a stray SIGINT must not end the keeper before the emulation.
    for s in (signal.SIGINT, signal.SIGHUP):
        signal.signal(s, signal.SIG_IGN)
    groups: list[int] = []
    namespaces: list[str] = []
    for raw in sys.stdin.buffer:
        kind, _, arg = raw.decode(errors="replace").strip().partition(" ")
        if kind == "done":
            return 0
        if kind == "group" and arg.isdigit():
            groups.append(int(arg))
        elif kind == "netns" and arg:
            namespaces.append(arg)
    # End of input without `done`: the emulation died.
    for g in groups:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(g, signal.SIGKILL)
    for name in namespaces:
        kill_namespace_processes(name)
        subprocess.run(["ip", "netns", "del", name], capture_output=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
