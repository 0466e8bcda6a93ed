import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from radiotcp import cli
from radiotcp.cli import single
from radiotcp.config import load, to_dict

from .conftest import PRESET, REPO, run_cli

SHORT = ["--set", "simulation.duration_s=10"]


def test_help_lists_commands_and_examples():
    r = run_cli("--help")
    assert r.returncode == 0
    assert "run" in r.stdout and "validate" in r.stdout and "examples:" in r.stdout
    r = run_cli("run", "--help")
    assert r.returncode == 0
    for opt in ("--set", "--runs", "--seed", "--json", "--show-config", "--traces"):
        assert opt in r.stdout
    assert "flows.count=4" in r.stdout


# What the commands import when they run, never for their help.
HEAVY = ("numpy", "pydantic", "rich", "scipy", "matplotlib", "dask", "distributed", "pyarrow")
COMMANDS = ("run", "validate", "sweep", "results", "plot", "reproduce", "emulate")


@pytest.mark.parametrize("command", [(), *[(c,) for c in COMMANDS], ("emulate-compare",)])
def test_help_imports_no_heavy_library(command):
    """`radiotcp --help` and `radiotcp COMMAND --help` import none of the libraries the
    commands need (-X importtime lists every module imported)."""
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
    r = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "radiotcp", *command, "--help"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    imported = {
        line.rsplit("|", 1)[-1].strip().split(".")[0]
        for line in r.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "radiotcp" in imported  # the listing is there
    assert sorted(imported & set(HEAVY)) == []


def test_validate_preset():
    r = run_cli("validate", str(PRESET))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("OK:")
    assert "2 links" in r.stdout


def test_validate_show_config_is_toml():
    import tomllib

    r = run_cli("validate", str(PRESET), "--set", "flows.count=4", "--show-config")
    assert r.returncode == 0
    # stdout is the TOML alone; the status line goes to stderr.
    assert "OK:" not in r.stdout and r.stderr.startswith("OK:")
    doc = tomllib.loads(r.stdout)
    assert doc["flows"]["count"] == 4
    assert len(doc["links"]) == 2


def test_show_config_includes_the_radio_section():
    import tomllib

    r = run_cli("validate", str(REPO / "scenarios" / "umts-384k.toml"), "--show-config")
    assert r.returncode == 0, r.stderr
    assert "[access]" in r.stdout and "[access.rlc]" in r.stdout and "[bs_ack]" in r.stdout
    doc = tomllib.loads(r.stdout)
    assert doc["access"]["kind"] == "umts"
    assert doc["access"]["downlink"]["fer"] == 0.1


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["--set", "simulation.duration_s=sixty"],
            'simulation.duration_s = "sixty": expected a number',
        ),
        (["--set", "tcp.varient=reno"], "tcp.varient"),
        (["--set", "links.0.rate_kbps=-5"], "links.0.rate_kbps = -5: expected a rate in [0.001"),
        (["--set", "links.7.rate_kbps=5"], "links.7.rate_kbps"),
        (["--set", "flows.count"], "KEY.PATH=VALUE"),
    ],
)
@pytest.mark.parametrize("command", ["run", "validate"])
def test_user_errors_exit_2_without_traceback(command, args, expected):
    r = run_cli(command, str(PRESET), *args)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("error: ")
    assert expected in lines[0]


def test_several_errors_one_line_each():
    r = run_cli(
        "run", str(PRESET), "--set", "tcp.varient=x", "--set", "links.0.rate_kbps=-1",
        "--set", "flows.count=abc",
    )  # fmt: skip
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 3
    assert {ln.split(" = ")[0] for ln in lines} == {
        "error: tcp.varient",
        "error: links.0.rate_kbps",
        "error: flows.count",
    }


def test_missing_file_and_bad_toml(tmp_path):
    r = run_cli("run", str(tmp_path / "missing.toml"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "not found" in r.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text("[tcp\nvariant = 'reno'\n")
    r = run_cli("validate", str(bad))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "invalid TOML" in r.stderr


def test_bad_runs_argument():
    r = run_cli("run", str(PRESET), "--runs", "0")
    assert r.returncode == 2 and "--runs" in r.stderr and "Traceback" not in r.stderr


def test_run_json_shape():
    r = run_cli("run", str(PRESET), *SHORT, "--set", "flows.count=2", "--runs", "2", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)  # stdout holds the JSON document only
    assert set(doc) >= {"metrics", "wall_time_s", "runs", "seed", "config"}
    assert doc["runs"] == 2 and doc["seed"] == 1
    assert doc["config"]["flows"]["count"] == 2
    assert doc["config"]["simulation"]["duration_s"] == 10.0
    for name in ("goodput_kbps", "fairness_jain", "delay_mean_ms", "drops", "events"):
        m = doc["metrics"][name]
        assert set(m) == {"mean", "ci90_half_width", "n"}
        assert m["n"] == 2
    assert doc["metrics"]["goodput_kbps"]["mean"] > 0
    assert len(doc["per_run"]) == 2
    assert isinstance(doc["wall_time_s"], float)


def test_run_json_single_run_has_null_half_width():
    r = run_cli("run", str(PRESET), *SHORT, "--json")
    doc = json.loads(r.stdout)
    assert doc["metrics"]["goodput_kbps"]["ci90_half_width"] is None
    assert doc["metrics"]["goodput_kbps"]["n"] == 1


def test_run_table_and_outputs(tmp_path):
    out = tmp_path / "res" / "r.json"
    npz = tmp_path / "t.npz"
    r = run_cli(
        "run", str(PRESET), *SHORT, "--runs", "2", "--output", str(out), "--traces", str(npz),
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "goodput_kbps" in r.stdout and "±90% CI" in r.stdout
    assert "wall time" in r.stdout
    assert json.loads(out.read_text())["runs"] == 2
    with np.load(npz) as z:
        assert "run1.cwnd.time_s" in z.files
        assert z["run0.cwnd.id"].dtype == np.uint32


def test_cli_interrupt_in_process(monkeypatch, capsys):
    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(single, "replications", boom)
    code = cli.main(["run", str(PRESET)])
    assert code == 130
    err = capsys.readouterr().err
    assert err.strip() == "interrupted (Ctrl-C): the run was stopped, nothing was written"


def test_ctrl_c_interrupts_a_long_run():
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "radiotcp",
            "run",
            str(PRESET),
            "--set",
            "simulation.duration_s=1e7",
            "--max-events",
            "0",
            "--max-wall-s",
            "0",
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        time.sleep(2.0)  # imports done, the core is simulating
        assert proc.poll() is None, "the long run ended before it could be interrupted"
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=20)
        elapsed = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err
    assert err.strip() == "interrupted (Ctrl-C): the run was stopped, nothing was written"
    assert "Traceback" not in err
    # Within a second (the core checks every 65,536 events), plus the interpreter's exit.
    assert elapsed < 2.0


def test_results_payload_cleans_nan():
    import radiotcp

    res = radiotcp.run({"simulation": {"duration_s": 5.0}})
    doc = single.results_payload(res, "x.toml")
    json.dumps(doc, allow_nan=False)
    assert doc["metrics"]["goodput_kbps"]["ci90_half_width"] is None
    assert doc["config"] == to_dict(load({"simulation": {"duration_s": 5.0}}))


def test_unwritable_output_is_a_clean_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = run_cli("run", str(PRESET), *SHORT, "--output", str(blocker / "sub" / "r.json"))
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert r.stderr.startswith("error: --output = ")


@pytest.mark.parametrize(
    "preset", sorted((REPO / "scenarios").glob("*.toml")), ids=lambda p: p.stem
)
@pytest.mark.parametrize("command", ["validate", "run"])
def test_show_config_output_of_every_preset_loads_back(preset, command, tmp_path):
    """`radiotcp validate|run PRESET --show-config > f.toml` writes TOML alone (run prints it
    and stops without simulating), and the saved file loads to the same configuration."""
    r = run_cli(command, str(preset), "--show-config")
    assert r.returncode == 0, r.stderr
    saved = tmp_path / "resolved.toml"
    saved.write_text(r.stdout)
    assert load(saved) == load(preset)
    if command == "run":
        assert "goodput" not in r.stdout and "wall time" not in r.stdout


def test_identical_runs_are_called_so(capsys):
    """Issue 24 item 5: a scenario with no random element gives identical runs; the table and
    the JSON say so instead of showing a 0 interval as a result."""
    assert cli.main(["run", str(PRESET), "--runs", "3"]) == 0
    assert "3 runs identical" in capsys.readouterr().out
    assert cli.main(["run", str(PRESET), "--runs", "3", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["identical_runs"] is True and "no random element" in doc["note"]
    jitter = ["--set", "flows.count=2", "--set", "flows.start_jitter_s=1"]
    assert cli.main(["run", str(PRESET), "--runs", "3", "--json", *jitter]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["identical_runs"] is False and doc["note"] is None
