"""Hostile command lines (issue 24 item 1): every option and path is checked before any work.

A corpus of bad invocations, each run as a user would (a subprocess with a timeout): the
command ends quickly with exit 1 (a failure while working, e.g. an unreachable cluster) or 2
(a usage error), exactly one line starting with ``error:`` on stderr, and no traceback. Paths
that are not regular files (a FIFO, a device, a folder) never block. Also: the help of every
option, the output of tables through a pipe, and the sweep-name and Ctrl-C rules.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from radiotcp.cli import build_parser

from .conftest import PRESET, REPO, run_cli

SHORT = ["--set", "simulation.duration_s=2"]
LONG = ["--set", "simulation.duration_s=60000"]
RECIPE = REPO / "recipes" / "wired-buffer.toml"


def _cli(args: list[str], cwd: Path, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, timeout=timeout, cwd=cwd)


@pytest.fixture
def place(tmp_path: Path) -> dict[str, str]:
    """The things a hostile command line points at, in a fresh folder."""
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder\n")
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(
        f'name = "s"\nbase = "{PRESET.as_posix()}"\nruns = 2\n'
        '[set]\n"simulation.duration_s" = 2.0\n'
    )
    typo = tmp_path / "typo.toml"
    typo.write_text('name = "t"\nrun = 2\n')
    empty_grid = tmp_path / "empty-grid.toml"
    empty_grid.write_text('name = "e"\n[grid]\n"flows.count" = []\n')
    return {
        "tmp": str(tmp_path),
        "fifo": str(fifo),
        "file": str(a_file),
        "under_file": str(a_file / "x.json"),
        "sweep": str(sweep),
        "typo": str(typo),
        "empty_grid": str(empty_grid),
        "store": str(tmp_path / "store.sqlite"),
        "unwritable": "/proc/radiotcp-no-such-folder/out",
    }


S = str(PRESET)
# (case id, argv with {placeholders} from `place`, what stderr's error line must contain)
CASES: list[tuple[str, list[str], str]] = [
    ("run-fifo", ["run", "{fifo}"], "FIFO"),
    ("validate-fifo", ["validate", "{fifo}"], "FIFO"),
    ("run-dev-null", ["run", "/dev/null"], "device"),
    ("validate-dev-zero", ["validate", "/dev/zero"], "device"),
    ("run-directory", ["run", "{tmp}"], "directory"),
    ("run-missing", ["run", "{tmp}/nope.toml"], "not found"),
    ("run-huge-runs", ["run", S, "--runs", "1000000000"], "100000"),
    (
        "run-too-much-work",
        ["run", S, "--runs", "100000", "--set", "simulation.duration_s=600"],
        "--yes",
    ),
    ("run-zero-runs", ["run", S, "--runs", "0"], "--runs"),
    ("run-negative-runs", ["run", S, "--runs", "-3"], "--runs"),
    ("run-negative-seed", ["run", S, "--seed", "-1"], "--seed"),
    ("run-text-runs", ["run", S, "--runs", "abc"], "--runs"),
    ("run-unknown-option", ["run", S, "--bogus"], "--bogus"),
    ("unknown-command", ["frobnicate"], "frobnicate"),
    ("run-unknown-format", ["run", S, "--format", "xml"], "--format"),
    ("run-json-and-csv", ["run", S, *SHORT, "--json", "--format", "csv"], "--format"),
    ("run-output-under-file", ["run", S, *SHORT, "-o", "{under_file}"], "--output"),
    ("run-output-is-folder", ["run", S, *SHORT, "-o", "{tmp}"], "--output"),
    ("run-output-unwritable", ["run", S, *SHORT, "-o", "{unwritable}/r.json"], "--output"),
    ("run-traces-under-file", ["run", S, *SHORT, "--traces", "{under_file}"], "--traces"),
    ("run-pcap-is-file", ["run", S, *SHORT, "--pcap", "{file}"], "--pcap"),
    ("sweep-fifo", ["sweep", "{fifo}", "--store", "{store}"], "FIFO"),
    ("sweep-recipe", ["sweep", str(RECIPE), "--store", "{store}"], "radiotcp reproduce"),
    ("sweep-key-typo", ["sweep", "{typo}", "--store", "{store}"], "did you mean runs"),
    ("sweep-empty-grid", ["sweep", "{empty_grid}", "--store", "{store}"], "grid.flows.count"),
    ("sweep-output-is-file", ["sweep", "{sweep}", "--store", "{store}", "-o", "{file}"], "folder"),
    (
        "sweep-output-unwritable",
        ["sweep", "{sweep}", "--store", "{store}", "-o", "{unwritable}"],
        "--output",
    ),
    ("sweep-cluster-malformed", ["sweep", "{sweep}", "--cluster", "no-port"], "--cluster"),
    ("sweep-cluster-bad-port", ["sweep", "{sweep}", "--cluster", "tcp://h:99999"], "--cluster"),
    ("sweep-cluster-scheme", ["sweep", "{sweep}", "--cluster", "http://h:80"], "--cluster"),
    ("sweep-cluster-unreachable", ["sweep", "{sweep}", "--cluster", "127.0.0.1:1"], "--cluster"),
    ("sweep-huge-runs", ["sweep", "{sweep}", "--runs", "10000000"], "100000"),
    (
        "sweep-too-much-work",
        ["sweep", "{sweep}", "--runs", "100000", *LONG, "--store", "{store}"],
        "--yes",
    ),
    ("sweep-zero-jobs", ["sweep", "{sweep}", "--jobs", "0", "--store", "{store}"], "--jobs"),
    ("sweep-store-is-folder", ["sweep", "{sweep}", "--store", "{tmp}"], "--store"),
    ("sweep-negative-seed", ["sweep", "{sweep}", "--seed", "-2"], "--seed"),
    ("plot-unknown-extension", ["plot", "s", "--x", "k", "-o", "{tmp}/f.xyz"], ".xyz"),
    ("plot-no-extension", ["plot", "s", "--x", "k", "-o", "{tmp}/figure"], "--output"),
    (
        "plot-no-store",
        ["plot", "s", "--x", "k", "-o", "{tmp}/f.png", "--store", "{store}"],
        "store",
    ),
    ("reproduce-unknown", ["reproduce", "no-such-recipe", "--store", "{store}"], "recipe"),
    ("reproduce-output-is-file", ["reproduce", "wired-buffer", "-o", "{file}"], "--output"),
    ("reproduce-old-out-is-file", ["reproduce", "wired-buffer", "--out", "{file}"], "--output"),
    ("reproduce-zero-runs", ["reproduce", "wired-buffer", "--runs", "0"], "--runs"),
    (
        "reproduce-too-much-work",
        ["reproduce", "ackrate-maxd", "--runs", "100000", "-o", "{tmp}/r", "--store", "{store}"],
        "--yes",
    ),
    ("export-under-file", ["results", "export", "s", "-o", "{under_file}"], "--output"),
    ("export-bad-format", ["results", "export", "s", "--format", "json"], "--format"),
    ("compare-fifo", ["emulate-compare", "{fifo}"], "FIFO"),
    ("compare-output-is-file", ["emulate-compare", "-o", "{file}"], "--output"),
    ("compare-zero-runs", ["emulate-compare", "--emulated", "0"], "--emulated"),
    ("emulate-output-under-file", ["emulate", S, "-o", "{under_file}", "--", "true"], "--output"),
]


@pytest.mark.parametrize(("argv", "named"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_bad_invocation_is_one_error_line(argv, named, place):
    assert len(CASES) >= 25
    args = [a.format(**place) for a in argv]
    r = _cli(args, cwd=Path(place["tmp"]))
    assert r.returncode in (1, 2), (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr + r.stdout, r.stderr
    errors = [line for line in r.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, r.stderr
    assert named in errors[0], errors[0]
    # Nothing was started: no progress bar, no store created by a refused command.
    assert "runs/s" not in r.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_output_folder_is_refused_before_the_runs(tmp_path, place):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        r = _cli(
            ["sweep", place["sweep"], "--store", place["store"], "-o", str(ro / "out")], tmp_path
        )
    finally:
        ro.chmod(0o755)
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("error:") == 1 and "--output" in r.stderr, r.stderr
    assert not Path(place["store"]).exists()


def test_a_sweep_name_reused_with_other_points_is_refused(tmp_path, place):
    first = _cli(["sweep", place["sweep"], "--store", place["store"], "--no-progress"], tmp_path)
    assert first.returncode == 0, first.stderr
    other = tmp_path / "other.toml"
    other.write_text(
        Path(place["sweep"]).read_text() + '[grid]\n"flows.count" = [1, 2]\n', encoding="utf-8"
    )
    r = _cli(["sweep", str(other), "--store", place["store"], "--no-progress"], tmp_path)
    assert r.returncode == 2, r.stderr
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith('error: name = "s"') and "grid" in line and "--replace" in line
    # More replications of the same points resume the sweep; --replace allows the new grid.
    more = _cli(["sweep", place["sweep"], "--store", place["store"], "--runs", "3"], tmp_path)
    assert more.returncode == 0, more.stderr
    r = _cli(["sweep", str(other), "--store", place["store"], "--replace", "--json"], tmp_path)
    assert r.returncode == 0, r.stderr


SERIAL = ["--jobs", "1", "--no-progress"]


def test_ctrl_c_in_a_sweep_says_once_that_the_finished_runs_are_kept(tmp_path):
    sweep = tmp_path / "long.toml"
    sweep.write_text(
        f'name = "long"\nbase = "{PRESET.as_posix()}"\nruns = 100000\n'
        '[set]\n"simulation.duration_s" = 120.0\n'
    )
    store = tmp_path / "store.sqlite"
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    p = subprocess.Popen(
        [sys.executable, "-m", "radiotcp", "sweep", str(sweep), "--store", str(store), *SERIAL],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    deadline = time.monotonic() + 60
    while not store.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1.5)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert "Traceback" not in err
    assert err.count("interrupted") == 1, err
    assert "kept" in err and "resume" in err and "nothing was written" not in err, err


def _walk(parser: argparse.ArgumentParser, name: str = "radiotcp"):
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                yield from _walk(sub, f"{name} {sub_name}")


def test_every_option_has_help_and_no_markup():
    for name, parser in _walk(build_parser()):
        texts = [parser.description or "", parser.epilog or ""]
        for action in parser._actions:
            if action.help == argparse.SUPPRESS:
                continue
            what = f"{name}: {'/'.join(action.option_strings) or action.dest}"
            assert action.help and action.help.strip(), f"{what} has no help"
            texts.append(action.help)
        for text in texts:
            assert "``" not in text and ":mod:" not in text and ":func:" not in text, (name, text)


def test_every_output_is_dash_o_and_out_is_a_hidden_alias():
    for name, parser in _walk(build_parser()):
        for action in parser._actions:
            if action.dest == "output" and action.help != argparse.SUPPRESS:
                assert "-o" in action.option_strings and "--output" in action.option_strings, name
            if "--out" in action.option_strings:
                assert action.help == argparse.SUPPRESS and action.dest == "output", name


def test_tables_through_a_pipe_are_never_cut(tmp_path):
    """stdout a pipe, no COLUMNS: the table is printed in full (long names and numbers)."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["PYTHONPATH"] = str(REPO / "python")
    umts = REPO / "scenarios" / "umts-384k.toml"
    r = subprocess.run(
        [sys.executable, "-m", "radiotcp", "run", str(umts), *SHORT, "--all"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    assert "…" not in r.stdout
    names = [line.split("│")[1].strip() for line in r.stdout.splitlines() if line.count("│") > 2]
    longest = max(names, key=len)
    assert len(longest) > 30 and longest in r.stdout


@pytest.mark.parametrize("fmt", ["markdown", "csv", "json"])
def test_run_prints_its_table_in_the_format_asked(fmt):
    r = run_cli("run", str(PRESET), *SHORT, "--runs", "2", "--format", fmt)
    assert r.returncode == 0, r.stderr
    if fmt == "markdown":
        assert "| goodput_kbps |" in r.stdout and "|---|" in r.stdout
    elif fmt == "csv":
        assert r.stdout.splitlines()[0] == "metric,mean,ci90_half_width,n"
        assert any(line.startswith("goodput_kbps,") for line in r.stdout.splitlines())
    else:
        import json

        assert json.loads(r.stdout)["runs"] == 2


def test_a_store_that_fills_up_is_one_line_saying_what_is_kept(
    tmp_path, place, monkeypatch, capsys
):
    import sqlite3

    from radiotcp.cli import main
    from radiotcp.store import Store

    def full(self, rows):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(Store, "put_runs", full)
    code = main(
        ["sweep", place["sweep"], "--store", place["store"], "--no-progress", "--jobs", "1"]
    )
    err = capsys.readouterr().err
    assert code == 1, err
    (line,) = err.strip().splitlines()
    assert line.startswith("error: the sweep stopped: database or disk is full")
    assert "kept" in line and "run the same command again" in line
