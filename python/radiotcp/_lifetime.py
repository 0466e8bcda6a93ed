"""Child processes that die with their parent, and termination signals that unwind.

An emulation's commands must not outlive the process that started them, however it ends: on
Linux each child asks the kernel for SIGKILL when its parent dies (``PR_SET_PDEATHSIG``),
which covers SIGKILL and the OOM killer, where no code of the parent runs; and SIGTERM /
SIGHUP (``timeout``, Slurm, ``docker stop``, a closed terminal) are turned into
:class:`Terminated`, so that the ``finally`` blocks that stop the children (or a sweep's
worker threads), finish the store's transaction and delete the namespace do run.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["Terminated", "die_with_parent", "die_with_parent_preexec", "termination_raises"]

_PR_SET_PDEATHSIG = 1
# Signals that ask a process to end and that a handler may turn into an exception.
_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Terminated(BaseException):
    """Raised in the main thread when SIGTERM or SIGHUP arrives inside
    :func:`termination_raises`."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def signal_name(self) -> str:
        return signal.Signals(self.signum).name

    @property
    def exit_status(self) -> int:
        """The shell's convention for a process ended by the signal: 128 + its number."""
        return 128 + self.signum

    def __str__(self) -> str:
        return f"terminated by {self.signal_name}"


def _prctl() -> Callable[..., int] | None:
    if sys.platform != "linux":
        return None
    import ctypes  # here: `radiotcp --help` imports this module, not ctypes

    try:
        fn = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    fn.restype = ctypes.c_int
    return fn


def die_with_parent(parent_pid: int, prctl: Callable[..., int] | None = None) -> None:
    """In a child process: have the kernel send it SIGKILL when its parent dies (Linux; a
    no-op elsewhere), and end it at once if the parent ``parent_pid`` is already gone (it died
    between the fork and here, before the request could take effect)."""
    fn = prctl if prctl is not None else _prctl()
    if fn is not None:
        fn(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:
        os._exit(1)


def die_with_parent_preexec() -> Callable[[], None]:
    """A ``preexec_fn`` for :class:`subprocess.Popen` that applies :func:`die_with_parent` in
    the child before it runs the command (the request survives ``execve``); ``prctl`` is looked
    up here, in the parent."""
    fn, parent = _prctl(), os.getpid()

    def preexec() -> None:
        die_with_parent(parent, fn)

    return preexec


@contextlib.contextmanager
def termination_raises() -> Iterator[None]:
    """While inside, SIGTERM and SIGHUP raise :class:`Terminated` in the main thread (where
    their handling is the default: a signal the program ignores or handles itself is left
    alone). The handler then restores the default, so a second signal during the cleanup ends
    the process at once. Outside the main thread this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous: dict[signal.Signals, Any] = {}

    def handler(signum: int, frame: Any) -> None:
        for s in previous:
            signal.signal(s, signal.SIG_DFL)
        raise Terminated(signum)

    for s in _SIGNALS:
        if signal.getsignal(s) is signal.SIG_DFL:
            previous[s] = signal.signal(s, handler)
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
