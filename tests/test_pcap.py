"""pcap export (`radiotcp run --pcap DIR`): files read back with dpkt, headers and checksums
checked, packet counts equal to the run's own counters, and no effect on the run."""

from __future__ import annotations

import socket
import struct
from pathlib import Path

import dpkt
import pytest

from radiotcp import run
from radiotcp.cli import main

WIRED = "scenarios/wired-384k.toml"
# The Linux stack (SYN, SACK, timestamps, window scaling) over the wired preset with random
# loss on the bottleneck, so that SACK blocks appear.
LINUX_LOSSY = [
    "tcp.profile=linux",
    "flows.count=2",
    "links.1.loss_rate=0.01",
    "simulation.duration_s=30",
]


def _read(path: Path) -> list[tuple[float, bytes]]:
    with path.open("rb") as f:
        r = dpkt.pcap.Reader(f)
        assert r.datalink() == dpkt.pcap.DLT_RAW or r.datalink() == 101
        return list(r)


def _sum16(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def _checksums_ok(buf: bytes) -> bool:
    """IPv4 header and TCP checksums, the TCP one over the headers plus the uncaptured
    payload taken as zeros (which adds nothing to the sum but the length)."""
    ihl = (buf[0] & 0x0F) * 4
    total = struct.unpack("!H", buf[2:4])[0]
    if _sum16(buf[:ihl]) != 0xFFFF:
        return False
    tcp_len = total - ihl
    doff = (buf[ihl + 12] >> 4) * 4
    header = buf[ihl : ihl + doff]
    pseudo = buf[12:20] + struct.pack("!BBH", 0, 6, tcp_len)
    return _sum16(pseudo + header) == 0xFFFF


@pytest.fixture(scope="module")
def capture(tmp_path_factory) -> tuple[Path, dict, dict]:
    d = tmp_path_factory.mktemp("pcap")
    res = run(WIRED, overrides=LINUX_LOSSY, pcap=d, pcap_points=["server", "ue", "access"])
    return d, res.runs[0], res.raw[0]


def test_files_are_listed_with_their_packet_counts(capture):
    d, _m, raw = capture
    files = {f["point"]: f for f in raw["pcap"]}
    assert set(files) == {"server", "ue", "link-access"}
    for f in files.values():
        assert Path(f["path"]).parent == d
        assert len(_read(Path(f["path"]))) == f["packets"] > 0


def test_counts_equal_the_runs_own_counters(capture):
    d, m, _raw = capture
    server = _read(d / "server-run0.pcap")
    # The server sends every segment (SYNs included) and receives every ACK (SYN-ACKs too).
    assert len(server) == m["segments_sent"] + m["acks_received"]
    ue = [dpkt.ip.IP(b) for _t, b in _read(d / "ue-run0.pcap")]
    from_ue = [ip for ip in ue if socket.inet_ntoa(ip.src).startswith("10.1.")]
    assert len(from_ue) == m["acks_sent"]
    # The bottleneck's transmitter: every packet put on the wire (one may still be in
    # serialisation when the run ends).
    link = [dpkt.ip.IP(b) for _t, b in _read(d / "link-access-run0.pcap")]
    data = sum(1 for ip in link if socket.inet_ntoa(ip.src) == "10.0.0.1")
    sent = m["links.access.data.packets_sent"]
    assert sent <= data <= sent + 1
    assert m["drops.access.data.random_loss"] > 0


def test_headers_checksums_and_options(capture):
    d, _m, _raw = capture
    records = _read(d / "server-run0.pcap")
    times = [t for t, _b in records]
    assert times == sorted(times) and times[-1] <= 30.0
    assert all(_checksums_ok(b) for _t, b in records)
    ips = [dpkt.ip.IP(b) for _t, b in records]
    # The first packet of each flow is its SYN: MSS 1448, SACK permitted, timestamps, window
    # scale 7 (a 6 MiB buffer).
    first: dict[int, dpkt.tcp.TCP] = {}
    for ip in ips:
        tcp = ip.data
        port = tcp.dport if tcp.sport == 5001 else tcp.sport
        first.setdefault(port, tcp)
    assert sorted(first) == [40000, 40001]
    for tcp in first.values():
        assert tcp.flags == dpkt.tcp.TH_SYN
        opts = dict(dpkt.tcp.parse_opts(tcp.opts))
        assert struct.unpack("!H", opts[dpkt.tcp.TCP_OPT_MSS])[0] == 1448
        assert dpkt.tcp.TCP_OPT_SACKOK in opts and dpkt.tcp.TCP_OPT_TIMESTAMP in opts
        assert opts[dpkt.tcp.TCP_OPT_WSCALE] == b"\x07"
    # Data: full segments of 1448 bytes in 1500-byte packets, every one with timestamps,
    # sequence numbers one MSS apart from the SYN's plus one.
    data = [ip for ip in ips if ip.data.sport == 5001 and not ip.data.flags & dpkt.tcp.TH_SYN]
    assert all(ip.len == 1500 for ip in data)
    for ip in data[:50]:
        tcp = ip.data
        syn = first[tcp.dport]
        assert (tcp.seq - syn.seq - 1) % 2**32 % 1448 == 0
        assert dpkt.tcp.TCP_OPT_TIMESTAMP in dict(dpkt.tcp.parse_opts(tcp.opts))
    # ACKs with loss carry SACK blocks above their acknowledgement number.
    acks = [ip.data for ip in ips if ip.data.dport == 5001]
    sacks = 0
    for tcp in acks:
        opts = dict(dpkt.tcp.parse_opts(tcp.opts))
        if dpkt.tcp.TCP_OPT_SACK in opts:
            sacks += 1
            blocks = struct.unpack(f"!{len(opts[dpkt.tcp.TCP_OPT_SACK]) // 4}I", opts[5])
            for left, right in zip(blocks[::2], blocks[1::2], strict=True):
                assert 0 < (left - tcp.ack) % 2**32 < 2**31
                assert 0 < (right - left) % 2**32 < 2**31
    assert sacks > 10


def test_capture_does_not_change_the_run(tmp_path):
    plain = run(WIRED, overrides=LINUX_LOSSY, seed=3)
    captured = run(WIRED, overrides=LINUX_LOSSY, seed=3, pcap=tmp_path, pcap_points=["ue"])
    assert plain.runs == captured.runs


def test_cli_writes_and_names_the_files(tmp_path, capsys):
    code = main(["run", WIRED, "--set", "simulation.duration_s=5", "--pcap", str(tmp_path / "c")])
    assert code == 0
    assert "pcap written to" in capsys.readouterr().out
    assert (tmp_path / "c" / "server-run0.pcap").exists()


def test_cli_rejects_unknown_points_and_points_without_a_directory(tmp_path, capsys):
    assert main(["run", WIRED, "--pcap", str(tmp_path), "--pcap-at", "nowhere"]) == 2
    err = capsys.readouterr().err
    assert "--pcap-at" in err and "'access'" in err and "'server'" in err
    assert main(["run", WIRED, "--pcap-at", "ue"]) == 2
    assert "--pcap DIR" in capsys.readouterr().err


def test_an_unwritable_directory_is_a_clear_error(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["run", WIRED, "--pcap", str(blocker / "sub")]) == 2
    err = capsys.readouterr().err
    assert "--pcap" in err and "writable" in err
