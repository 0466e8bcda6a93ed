"""Small real applications for emulations (docs/emulation.md): a bulk TCP sender and a
receiver that reports what it got, so that an emulation needs nothing installed.

    python -m radiotcp.emutools send ADDR PORT (--seconds S | --bytes N) [--cc NAME]
    python -m radiotcp.emutools recv ADDR PORT        # prints: bytes sha256 seconds kb/s

The sender listens on ADDR:PORT, accepts one connection and sends a deterministic byte
pattern for S seconds or N bytes, then closes (with ``--cc``, the connection's congestion
control is NAME, e.g. cubic or bbr, instead of the system's default); the receiver connects,
reads to the end and prints what it received on one line.
"""

from __future__ import annotations

import argparse
import hashlib
import socket
import sys
import time
from collections.abc import Sequence

CHUNK = 65536


def pattern(offset: int, n: int) -> bytes:
    """Bytes [offset, offset + n) of the sender's pattern (period 251)."""
    return bytes((i * 7 + 3) % 251 for i in range(offset, offset + n))


def send(
    addr: str, port: int, seconds: float | None, nbytes: int | None, cc: str | None = None
) -> int:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if cc:
        # Inherited by the accepted connection (Linux, tcp(7) TCP_CONGESTION).
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    s.bind((addr, port))
    s.listen(1)
    s.settimeout(120)
    conn, _ = s.accept()
    block = pattern(0, 251 * 261)  # a whole number of periods: any slice continues it
    sent = 0
    t0 = time.monotonic()
    while True:
        if nbytes is not None and sent >= nbytes:
            break
        if seconds is not None and time.monotonic() - t0 >= seconds:
            break
        n = len(block) if nbytes is None else min(len(block), nbytes - sent)
        start = sent % 251
        conn.sendall((block[start:] + block[:start])[:n])
        sent += n
    conn.close()
    s.close()
    return 0


def recv(addr: str, port: int) -> int:
    t0 = time.monotonic()
    s = socket.create_connection((addr, port), timeout=120)
    h = hashlib.sha256()
    total = 0
    while chunk := s.recv(CHUNK):
        h.update(chunk)
        total += len(chunk)
    dt = time.monotonic() - t0
    print(f"{total} {h.hexdigest()} {dt:.3f} {total * 8 / dt / 1000 if dt > 0 else 0:.1f}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m radiotcp.emutools")
    sub = ap.add_subparsers(dest="what", required=True)
    ps = sub.add_parser("send")
    ps.add_argument("addr")
    ps.add_argument("port", type=int)
    g = ps.add_mutually_exclusive_group(required=True)
    g.add_argument("--seconds", type=float)
    g.add_argument("--bytes", type=int)
    ps.add_argument("--cc", help="congestion control of the connection (default: the system's)")
    pr = sub.add_parser("recv")
    pr.add_argument("addr")
    pr.add_argument("port", type=int)
    a = ap.parse_args(argv)
    if a.what == "send":
        return send(a.addr, a.port, a.seconds, a.bytes, a.cc)
    return recv(a.addr, a.port)


if __name__ == "__main__":
    sys.exit(main())
