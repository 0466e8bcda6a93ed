"""Real applications over the modelled network: the emulation mode.

``emulate(cfg, command)`` creates two TUN devices joined by the scenario's network (its wired
links, and its UMTS bearer, IS-707 RLP link or variable-delay link with the base station's
ACK controller), puts the UE's device in a network namespace of its own, and runs
``command`` there; the server side stays in the caller's namespace, so a server started
there (``server_command``, or one already running) is reached at ``{server}``. Every packet
between them is carried by the models on the real-time clock (``radiotcp._core.Emulation``,
docs/emulation.md). When the command exits the emulation stops and reports: goodput and
delay per direction and per connection, the models' statistics (drops by reason, buffer
occupancy), the real-time clock's lag, and pcap files of both sides if asked.

It needs Linux, root (CAP_NET_ADMIN and CAP_SYS_ADMIN: TUN devices, namespaces), the TUN
driver (``/dev/net/tun``) and iproute2 (``ip``); :func:`preflight` says what is missing.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import _core
from ._lifetime import die_with_parent_preexec, termination_raises
from ._watchdog import Watchdog, kill_namespace_processes
from .config import ScenarioConfig, to_core_json

__all__ = [
    "LAG_MAX_BOUND_US",
    "LAG_P99_BOUND_US",
    "EmulationReport",
    "EmulationUnavailable",
    "check_lag",
    "emulate",
    "preflight",
]

# The real-time clock's documented bounds (docs/emulation.md, "Measured"): the p99 lag within
# 1 ms (the target), no event later than 10 ms (one TTI, the model's coarsest time scale). A
# run beyond either was carried late: its report says so (``lag.exceeded``, a warning).
LAG_P99_BOUND_US = 1_000.0
LAG_MAX_BOUND_US = 10_000.0

# /30 blocks of 10.64.0.0/16, one per emulation (by process id and a counter), so that
# emulations running at the same time do not share addresses.
_BLOCKS = ipaddress.ip_network("10.64.0.0/16")
_counter = 0
_counter_lock = threading.Lock()


class EmulationUnavailable(RuntimeError):
    """The machine cannot run an emulation; the message says what is missing and how to get
    it."""


@dataclass
class EmulationReport:
    """What an emulation did: ``report`` is the emulator's dict (``down``, ``up``: counts,
    ``goodput_kbps`` and ``delay``; ``flows``; ``lag``: the real-time clock's lag in µs;
    ``model`` and ``metrics``: the models' statistics as a simulation reports them;
    ``traces``; ``pcap``), ``returncode`` the command's exit status. ``warnings``: what makes
    the run's numbers doubtful (the clock lag beyond its bounds, :func:`check_lag`)."""

    report: dict[str, Any]
    returncode: int
    server_address: str
    ue_address: str
    namespace: str
    wall_s: float
    server_returncode: int | None = None
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def check_lag(lag: dict[str, Any]) -> str | None:
    """Judge the clock lag of a report (``report["lag"]``: ``p99_us``, ``max_us``) against
    the documented bounds: adds ``p99_bound_us``, ``max_bound_us``, ``p99_exceeded``,
    ``max_exceeded`` and ``exceeded`` to it, and returns a one-line warning if a bound was
    exceeded (else None)."""
    p99, mx = float(lag.get("p99_us", 0.0)), float(lag.get("max_us", 0.0))
    lag["p99_bound_us"] = LAG_P99_BOUND_US
    lag["max_bound_us"] = LAG_MAX_BOUND_US
    lag["p99_exceeded"] = p99 > LAG_P99_BOUND_US
    lag["max_exceeded"] = mx > LAG_MAX_BOUND_US
    lag["exceeded"] = lag["p99_exceeded"] or lag["max_exceeded"]
    if not lag["exceeded"]:
        return None
    over = [
        f"{name} {v / 1000:.3g} ms > {bound / 1000:.3g} ms"
        for name, v, bound, hit in [
            ("p99", p99, LAG_P99_BOUND_US, lag["p99_exceeded"]),
            ("max", mx, LAG_MAX_BOUND_US, lag["max_exceeded"]),
        ]
        if hit
    ]
    return (
        f"the real-time clock lagged beyond its documented bound ({', '.join(over)}): "
        "the models ran late, so delays and rates are not those of the scenario (a busy "
        "machine?)"
    )


def preflight() -> None:
    """Raise :class:`EmulationUnavailable` naming every missing requirement."""
    problems = []
    if sys.platform != "linux":
        raise EmulationUnavailable(
            f"emulation needs Linux (TUN devices and network namespaces); this is {sys.platform}"
        )
    if os.geteuid() != 0:
        problems.append(
            "root privileges (CAP_NET_ADMIN to create TUN devices and CAP_SYS_ADMIN for a "
            "network namespace): run as root, e.g. with sudo"
        )
    if not os.path.exists("/dev/net/tun"):
        problems.append("the TUN driver: /dev/net/tun is missing (modprobe tun)")
    if shutil.which("ip") is None:
        problems.append("iproute2's `ip` command (apt-get install iproute2)")
    if problems:
        raise EmulationUnavailable("emulation needs " + "; ".join(problems))


def _names() -> tuple[str, str, str, str, str]:
    """TUN names, namespace name and the two addresses of a new emulation."""
    global _counter
    with _counter_lock:
        _counter += 1
        k = (os.getpid() * 7 + _counter) % (_BLOCKS.num_addresses // 4)
    block = ipaddress.ip_network(f"{_BLOCKS.network_address + 4 * k}/30")
    server, ue = (str(a) for a in list(block.hosts())[:2])
    tag = f"{os.getpid() % 100000}{_counter % 100}"
    # The namespace carries the whole process id so that a later emulation can tell whether
    # its owner is still alive (see _remove_stale_namespaces); TUN names must stay under 16
    # characters.
    return f"rtcp{tag}s", f"rtcp{tag}u", f"radiotcp-{os.getpid()}-{_counter}", server, ue


_NETNS_DIR = Path("/var/run/netns")
_OURS = re.compile(r"radiotcp-(\d+)-\d+")


def _remove_stale_namespaces() -> list[str]:
    """Delete the namespaces left by emulations whose process is gone (killed with SIGKILL,
    or a machine that lost power mid-run: no ``finally`` ran). Their TUN devices went with
    the process's file descriptors; only the namespace's mount point stays. A namespace whose
    process id is alive is kept, even if the id was reused: never touch a running one."""
    removed = []
    with contextlib.suppress(OSError):
        for entry in sorted(_NETNS_DIR.iterdir()):
            m = _OURS.fullmatch(entry.name)
            if m is None or _alive(int(m.group(1))):
                continue
            r = subprocess.run(["ip", "netns", "del", entry.name], capture_output=True)
            if r.returncode == 0:
                removed.append(entry.name)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _ip(*args: str) -> None:
    r = subprocess.run(["ip", *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise EmulationUnavailable(
            f"`ip {' '.join(args)}` failed: {r.stderr.strip() or r.stdout.strip()}"
        )


def _disable_ipv6(device: str, namespace: str | None) -> None:
    """Keep the kernel's IPv6 chatter (router solicitations) off the emulated link; best
    effort."""
    path = f"/proc/sys/net/ipv6/conf/{device}/disable_ipv6"
    if namespace is None:
        with contextlib.suppress(OSError):
            Path(path).write_text("1")
    else:
        subprocess.run(
            ["ip", "netns", "exec", namespace, "sh", "-c", f"echo 1 > {path}"],
            capture_output=True,
        )


def _substitute(command: Sequence[str], values: Mapping[str, str]) -> list[str]:
    out = []
    for arg in command:
        for k, v in values.items():
            arg = arg.replace("{" + k + "}", v)
        out.append(arg)
    return out


def emulate(
    cfg: ScenarioConfig,
    command: Sequence[str],
    *,
    server_command: Sequence[str] | None = None,
    server_wait_s: float = 0.5,
    seed: int = 1,
    traces: bool = False,
    pcap_dir: Path | None = None,
    max_seconds: float | None = None,
    on_ready: Callable[[str, str], None] | None = None,
    stdout: Any = None,
    stderr: Any = None,
) -> EmulationReport:
    """Run ``command`` in the UE's namespace with its traffic carried by the scenario's
    network, and report. ``{server}`` and ``{ue}`` in the commands become the two addresses
    (also in the environment as ``RADIOTCP_SERVER`` and ``RADIOTCP_UE``).
    ``server_command`` runs on the server side first (given ``server_wait_s`` to start) and is
    stopped when ``command`` exits. ``max_seconds`` ends the emulation (and the command) after
    that long. ``on_ready(server, ue)`` is called once the network is up, before the
    commands start."""
    preflight()
    if not command:
        raise ValueError("emulate: a command to run on the UE side is needed")
    stale = _remove_stale_namespaces()
    server_tun, ue_tun, ns, server, ue = _names()
    core_json = to_core_json(cfg)
    values = {"server": server, "ue": ue}
    env = {**os.environ, "RADIOTCP_SERVER": server, "RADIOTCP_UE": ue}
    emu = _core.Emulation(
        core_json,
        server_tun,
        ue_tun,
        seed=seed,
        traces=traces,
        pcap_dir=str(pcap_dir) if pcap_dir is not None else None,
    )
    started = False
    ns_made = False
    # Kills what the commands start, and the namespace, if this process is killed outright
    # (the kernel's death signal reaches only the commands themselves).
    watchdog = Watchdog()
    server_proc: subprocess.Popen[Any] | None = None
    t0 = time.monotonic()
    client: subprocess.Popen[Any] | None = None
    # SIGTERM / SIGHUP raise Terminated inside, so that the `finally` ends the commands and
    # deletes the namespace.
    with termination_raises():
        try:
            _disable_ipv6(server_tun, None)
            _ip("addr", "add", f"{server}/32", "peer", f"{ue}/32", "dev", server_tun)
            _ip("link", "set", server_tun, "up")
            _ip("netns", "add", ns)
            ns_made = True
            watchdog.guard_namespace(ns)
            _ip("link", "set", ue_tun, "netns", ns)
            _disable_ipv6(ue_tun, ns)
            _ip("-n", ns, "addr", "add", f"{ue}/32", "peer", f"{server}/32", "dev", ue_tun)
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("-n", ns, "link", "set", ue_tun, "up")
            _ip("-n", ns, "route", "add", "default", "dev", ue_tun)
            emu.start(max_seconds)
            started = True
            if on_ready is not None:
                on_ready(server, ue)
            if server_command:
                # A process group of its own, so that what it starts is stopped with it; and
                # killed by the kernel if this process dies outright.
                server_proc = subprocess.Popen(
                    _substitute(server_command, values),
                    env=env,
                    stdout=stdout,
                    stderr=stderr,
                    process_group=0,
                    preexec_fn=die_with_parent_preexec(),
                )
                watchdog.guard_group(server_proc.pid)
                time.sleep(server_wait_s)
            timeout = (
                None if max_seconds is None else max(0.0, max_seconds - (time.monotonic() - t0))
            )
            # The UE's command stays in the caller's process group (the terminal's Ctrl-C reaches
            # it, an interactive shell can read the terminal); the kernel kills it if this
            # process dies outright, and the `finally` below otherwise.
            client = subprocess.Popen(
                ["ip", "netns", "exec", ns, *_substitute(command, values)],
                env=env,
                stdout=stdout,
                stderr=stderr,
                preexec_fn=die_with_parent_preexec(),
            )
            try:
                returncode = client.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                client.terminate()
                returncode = client.wait()
            client = None
            server_rc = None
            if server_proc is not None:
                _signal_group(server_proc, signal.SIGTERM)
                try:
                    server_proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    _signal_group(server_proc, signal.SIGKILL)
                server_rc = server_proc.wait()
                _signal_group(server_proc, signal.SIGKILL)  # what it left running
                server_proc = None
            report = emu.stop()
            started = False
            lag_warning = check_lag(report["lag"])
            return EmulationReport(
                report=report,
                returncode=returncode,
                server_address=server,
                ue_address=ue,
                namespace=ns,
                wall_s=time.monotonic() - t0,
                server_returncode=server_rc,
                notes=[
                    f"removed namespace {n}, left by an emulation that was killed" for n in stale
                ],
                warnings=[lag_warning] if lag_warning else [],
            )
        finally:
            # An error, Ctrl-C or SIGTERM (Terminated): end the commands first.
            if client is not None and client.poll() is None:
                client.terminate()
                try:
                    client.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    client.kill()
                    client.wait()
            if server_proc is not None:
                _signal_group(server_proc, signal.SIGKILL)
                server_proc.wait()
            if started:
                # Cleaning up after another error: that one is the one to report.
                with contextlib.suppress(Exception):
                    emu.stop()
            del emu  # closes the TUN devices: the server side's address goes with them
            if ns_made:
                # What the UE's command left running (a daemon it forked).
                kill_namespace_processes(ns)
                subprocess.run(["ip", "netns", "del", ns], capture_output=True)
            watchdog.release()


def _signal_group(proc: subprocess.Popen[Any], sig: int) -> None:
    """Send ``sig`` to the process group that ``proc`` leads (started with
    ``process_group=0``), if any of it is left."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)
