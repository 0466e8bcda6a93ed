"""Bad input never hangs, never crashes and valid input is never refused.

- A checked-in corpus of broken or extreme scenario files (tests/corpus/bad) and of ``--set``
  values: each ends in a clear error (a ConfigError naming the key; exit 2 and no traceback
  from the CLI) or loads.
- Hypothesis over ``--set`` strings (known and unknown key paths, arbitrary value text): the
  loader answers with a ConfigError, or with a configuration that the core accepts and runs to
  a normal result within a budget of 5,000 events; nothing else. (The Rust side has the same
  over generated configurations: crates/radiotcp-core/tests/budget_fuzz.rs.)
"""

from __future__ import annotations

import json
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from radiotcp import SimulationError, _core
from radiotcp.config import (
    ConfigError,
    config_schema,
    decode_toml_bytes,
    deref,
    load,
    nullable,
    to_core_json,
    variants_of,
)

from .conftest import PRESET, REPO, run_cli

CORPUS = REPO / "tests" / "corpus" / "bad"
# Files of the corpus that are valid scenarios (the rest must be refused).
VALID = {"bom.toml", "empty.toml", "only-comments.toml"}
# What the error must name for some of them (the key, or the file for unreadable files).
EXPECTED_KEY = {
    "huge-duration.toml": "simulation.duration_s",
    "tiny-rto.toml": "tcp.initial_rto_ms",
    "tiny-tti.toml": "access.tti_ms",
    "tiny-pie-update.toml": "access.buffer.pie.t_update_ms",
    "access-no-kind.toml": "access.tti_ms",
    "access-unknown-kind.toml": "access.kind",
    "trace-bad-point.toml": "links.0.variable_delay.trace.0",
    "nan-rate.toml": "links.0.rate_kbps",
    "lte-bad-filter.toml": "access.ack_filter.rounding",
}


def _corpus() -> list[str]:
    names = sorted(p.name for p in CORPUS.glob("*.toml"))
    assert len(names) >= 25, "the corpus is checked in"
    return names


@pytest.mark.parametrize("name", _corpus())
def test_every_corpus_file_loads_or_gives_a_clear_error(name):
    path = CORPUS / name
    if name in VALID:
        cfg = load(path)
        _core.check_config(to_core_json(cfg))
        return
    with pytest.raises(ConfigError) as e:
        load(path)
    for p in e.value.problems:
        assert p.key and p.allowed, p
        line = str(p)
        assert "\n" not in line and len(line) < 600, line
        assert "Traceback" not in line and "pydantic" not in line.lower(), line
    if name in EXPECTED_KEY:
        assert e.value.problems[0].key == EXPECTED_KEY[name]
    if name.startswith(("utf16", "latin1", "binary")):
        assert "save the file as UTF-8" in str(e.value) or "NUL bytes" in str(e.value)


@pytest.mark.parametrize(
    "name", ["utf16.toml", "deep-nesting.toml", "radio-and-rlp.toml", "tiny-tti.toml"]
)
def test_the_cli_exits_2_with_one_line_per_problem(name):
    r = run_cli("validate", str(CORPUS / name))
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert lines and all(line.startswith("error: ") for line in lines), r.stderr
    # One problem, reported once (a 0.2 clash is not also an unknown key).
    assert len(lines) == 1, r.stderr


def test_a_utf8_byte_order_mark_is_accepted():
    assert decode_toml_bytes(b"\xef\xbb\xbfa = 1\n", "f") == "a = 1\n"
    assert load(CORPUS / "bom.toml").simulation.duration_s == 10.0


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ("a = 1\n".encode("utf-16"), "this one is UTF-16"),
        ("a = 1\n".encode("utf-16-be"), "NUL bytes"),
        ('a = "\xe9"\n'.encode("latin-1"), "byte 0xe9 at offset 5"),
    ],
)
def test_other_encodings_say_how_to_fix_the_file(data, says):
    with pytest.raises(ConfigError) as e:
        decode_toml_bytes(data, "f.toml")
    assert says in str(e.value) and e.value.key == "f.toml"


# The reported runs that never ended: each is now an error before anything runs.
NEVER_ENDED = [
    (["simulation.duration_s=1e9"], "simulation.duration_s"),
    (["tcp.min_rto_ms=1e-9", "tcp.initial_rto_ms=1e-9"], "tcp.initial_rto_ms"),
    (["access.kind=umts", "access.tti_ms=1e-5"], "access.tti_ms"),
    (["access.kind=umts", "access.tti_ms=1e-9"], "access.tti_ms"),
    (["access.kind=umts", "access.buffer.pie.t_update_ms=1e-9"], "access.buffer.pie.t_update_ms"),
]


@pytest.mark.parametrize(("overrides", "key"), NEVER_ENDED)
def test_runs_that_never_ended_are_refused_up_front(overrides, key):
    args = [a for o in overrides for a in ("--set", o)]
    r = run_cli("run", str(PRESET), *args, timeout=30)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"error: {key} = " in r.stderr


def test_an_unknown_recipe_draws_no_progress_bar(tmp_path):
    r = run_cli("reproduce", "NO-SUCH-RECIPE", "--store", str(tmp_path / "s.sqlite"))
    assert r.returncode == 2
    assert r.stderr.startswith("error: recipe = NO-SUCH-RECIPE"), r.stderr
    assert "runs" not in r.stderr.split("error:")[0]
    assert not (tmp_path / "s.sqlite").exists()


# --- hypothesis: arbitrary --set strings ------------------------------------------------------


def _key_paths(table, prefix: str = "") -> list[str]:
    """Every key path of the scenario schema (every kind's keys; links 0 and 1, the first
    element of other lists of tables)."""
    out = []
    for name, prop in table.get("properties", {}).items():
        path = f"{prefix}{name}"
        out.append(path)
        t = deref(nullable(prop)[1])
        choices = variants_of(t)
        if choices:
            for variant in choices.values():
                out += [p for p in _key_paths(variant, f"{path}.") if p not in out]
        elif "properties" in t:
            out += _key_paths(t, f"{path}.")
        elif t.get("type") == "array" and "properties" in deref(t.get("items", {})):
            item = deref(t["items"])
            for i in (0, 1) if name == "links" else (0,):
                out += _key_paths(item, f"{path}.{i}.")
    return out


KEYS = st.one_of(
    st.sampled_from(_key_paths(config_schema())),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz_.0123456789-", min_size=1, max_size=30),
)
VALUE_TEXT = st.one_of(
    st.sampled_from(
        ["1e308", "-0", "nan", "inf", "[]", "{}", "[{}]", '"x"', "true", "0x10", "1_000", ""]
    ),
    st.text(max_size=40),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(sets=st.lists(st.tuples(KEYS, VALUE_TEXT), min_size=1, max_size=3))
def test_any_set_string_loads_or_gives_a_config_error(sets):
    overrides = [f"{k}={v}" for k, v in sets]
    try:
        cfg = load(PRESET, overrides)
    except ConfigError as e:
        assert all(p.key and p.allowed for p in e.problems)
        return
    # Accepted: the core's check of a resolved document accepts it too, and runs it to a
    # normal result within a small budget.
    doc = to_core_json(cfg)
    _core.check_config(doc)
    out = _core.simulate(doc, 1, 0, max_events=5_000)
    assert out["events"] <= 5_000
    assert out.get("halted") in (None, "max_events")


def test_a_delay_trace_can_be_given_with_set():
    cfg = load(
        PRESET,
        [
            'links.1.variable_delay={process="trace"}',
            "links.1.variable_delay.trace=[[0.0, 100.0], [5.0, 50.0]]",
        ],
    )
    assert cfg.links[1].variable_delay.trace == [[0.0, 100.0], [5.0, 50.0]]


# --- a panic in the core --------------------------------------------------------------------


def test_a_panic_in_the_core_is_a_simulation_error_with_what_reproduces_it():
    doc = _core.default_config_json()
    with pytest.raises(SimulationError) as e:
        _core._panic_for_test(doc, 3, 4)
    err = e.value
    assert isinstance(err, RuntimeError)
    assert (err.seed, err.run_index, err.config_json) == (3, 4, doc)
    assert "deliberate panic" in str(err) and "seed 3, run index 4" in str(err)
    # It crosses process boundaries (sweep workers) intact.
    back = pickle.loads(pickle.dumps(err))
    assert (back.seed, back.run_index, back.config_json, str(back)) == (3, 4, doc, str(err))
    # The interpreter and the module are still usable afterwards.
    assert _core.simulate(doc, 1, 0)["events"] > 0


def test_the_cli_reports_a_simulation_error_and_writes_the_configuration(
    monkeypatch, capsys, tmp_path
):
    from radiotcp import cli
    from radiotcp.cli import single

    def failing_run(cfg, **_kw):
        raise SimulationError("boom", 7, 2, to_core_json(cfg))

    monkeypatch.setattr(single, "replications", failing_run)
    monkeypatch.setattr(cli.tempfile, "gettempdir", lambda: str(tmp_path))
    assert cli.main(["run", str(PRESET)]) == cli.EXIT_BUG
    err = capsys.readouterr().err
    assert "a bug in radiotcp" in err and "seed 7, run index 2" in err and "Traceback" not in err
    dumped = tmp_path / "radiotcp-failure-seed7-run2.json"
    assert str(dumped) in err
    assert load(json.loads(dumped.read_text())) == load(PRESET)
