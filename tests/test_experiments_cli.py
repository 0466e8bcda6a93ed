"""The experiment commands as a user runs them: sweep, results, plot, reproduce."""

from __future__ import annotations

import csv

import pyarrow.parquet as pq

from .conftest import PRESET, run_cli

SWEEP = """
name = "cli"
base = "{preset}"
runs = 2
[set]
"simulation.duration_s" = 10.0
"flows.start_jitter_s" = 0.5
[grid]
"links.1.queue.limit_packets" = [10, 30]
"flows.count" = [1, 2]
"""


def test_sweep_results_plot_round_trip(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text(SWEEP.format(preset=PRESET))
    store = str(tmp_path / "store.sqlite")
    r = run_cli("sweep", str(f), "--store", store, "--output", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    assert "8 runs computed now" in r.stdout
    assert "goodput_kbps" in r.stdout
    with (tmp_path / "out" / "points.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 4 and {"goodput_kbps", "goodput_kbps.ci90", "goodput_kbps.n"} <= set(
        rows[0]
    )
    again = run_cli("sweep", str(f), "--store", store)
    assert "0 runs computed now" in again.stdout

    ls = run_cli("results", "list", "--store", store)
    assert ls.returncode == 0 and "cli" in ls.stdout and "8 runs stored" in ls.stdout
    pq_out = tmp_path / "runs.parquet"
    ex = run_cli(
        "results", "export", "cli", "--format", "parquet", "-o", str(pq_out), "--store", store
    )
    assert ex.returncode == 0, ex.stderr
    table = pq.read_table(pq_out)
    assert table.num_rows == 8 and "goodput_kbps" in table.column_names

    png = tmp_path / "fig.png"
    p = run_cli(
        "plot",
        "cli",
        "--x",
        "links.1.queue.limit_packets",
        "--group",
        "flows.count",
        "-o",
        str(png),
        "--store",
        store,
    )
    assert p.returncode == 0, p.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = run_cli("plot", "cli", "--x", "nope", "-o", str(png), "--store", store)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "--x = nope" in bad.stderr


def test_sweep_file_errors_are_one_line_each(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('name = "x"\n[grid]\n"links.1.rate_kbps" = [-5]\n')
    r = run_cli("sweep", str(f), "--store", str(tmp_path / "s.sqlite"))
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert "links.1.rate_kbps = -5" in r.stderr and "point 0" in r.stderr
    missing = run_cli("sweep", str(tmp_path / "nope.toml"))
    assert missing.returncode == 2 and "Traceback" not in missing.stderr


def test_reproduce_lists_and_writes_report(tmp_path):
    ls = run_cli("reproduce", "--list")
    assert ls.returncode == 0 and "wired-buffer" in ls.stdout
    out = tmp_path / "rep"
    r = run_cli(
        "reproduce",
        "wired-buffer",
        "--runs",
        "2",
        "--out",
        str(out),
        "--store",
        str(tmp_path / "s.sqlite"),
        "--no-progress",
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    report = (out / "report.md").read_text()
    assert report.startswith("# Wired 384 kb/s")
    assert report.count("\n| ") >= 1 + 9 * 4, "a table row per point"
    for name in ("goodput-delay-vs-buffer", "drops-vs-buffer", "trace-2flows-buffer20"):
        assert (out / f"{name}.png").stat().st_size > 10_000
        assert (out / f"{name}.svg").stat().st_size > 10_000
        assert f"({name}.png)" in report
    with (out / "runs.csv").open() as fh:
        assert sum(1 for _ in csv.DictReader(fh)) == 9 * 4 * 2
    unknown = run_cli("reproduce", "no-such-recipe")
    assert unknown.returncode == 2 and "wired-buffer" in unknown.stderr
