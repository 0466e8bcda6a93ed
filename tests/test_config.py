import json
import math
import tomllib

import pytest
from hypothesis import given
from hypothesis import strategies as st

import radiotcp
from radiotcp import _core
from radiotcp.config import (
    apply_overrides,
    config_schema,
    format_value,
    load,
    parse_override,
    parse_value,
    to_core_json,
    to_dict,
    to_toml,
)
from radiotcp.errors import ConfigError

from .conftest import REPO


def problems(source, overrides=None) -> list[ConfigError]:
    with pytest.raises(ConfigError) as ei:
        load(source, overrides)
    return ei.value.problems


# --- defaults and presets -------------------------------------------------------------------


def test_an_empty_document_resolves_to_the_core_defaults():
    rust = json.loads(_core.default_config_json())
    assert to_dict(load(None)) == rust
    # Same key order too, so dumps are comparable by eye.
    assert list(to_dict(load(None))["tcp"]) == list(rust["tcp"])


def test_every_key_has_help_text():
    schema = config_schema()
    tables = [schema, *schema["$defs"].values()]
    for access in schema["$defs"]["AccessConfig"]["oneOf"]:
        tables.append(access)
    for table in tables:
        for name, prop in table.get("properties", {}).items():
            if name != "kind":
                assert prop.get("description"), f"{table.get('title')}.{name} has no help text"


def test_preset_is_valid_and_matches_defaults(preset):
    cfg = load(preset)
    assert cfg == load(None)
    assert [link.name for link in cfg.links] == ["wan", "access"]
    assert cfg.links[1].rate_kbps == 384.0 and cfg.links[1].queue.limit_packets == 50
    assert cfg.tcp.variant == "newreno" and cfg.flows.count == 1


def test_preset_with_four_flows(preset):
    cfg = load(preset, ["flows.count=4"])
    assert cfg.flows.count == 4


def test_partial_file_gets_defaults(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text("[simulation]\nduration_s = 10\n[[links]]\nname = 'only'\nrate_kbps = 64\n")
    cfg = load(p)
    assert cfg.simulation.duration_s == 10.0
    assert isinstance(cfg.simulation.duration_s, float)
    assert len(cfg.links) == 1
    assert cfg.links[0].delay_ms == 10.0  # LinkConfig default
    assert cfg.links[0].queue.limit_packets == 100
    assert cfg.tcp.rwnd_bytes == 65535


def test_core_json_is_accepted_by_the_core():
    cfg = load(None, ["flows.count=3", "links.1.loss_rate=0.01", "tcp.variant=reno"])
    doc = json.loads(to_core_json(cfg))
    assert doc["flows"]["count"] == 3 and doc["tcp"]["variant"] == "reno"
    out = _core.simulate(to_core_json(cfg), 1, 0)
    assert out["seed"] == 1


def test_toml_dump_round_trips():
    cfg = load(None, ["flows.start_times_s=[0, 1.5]", "flows.count=2", "tcp.delack_count=1"])
    again = load(tomllib.loads(to_toml(cfg)))
    assert again == cfg


PRESETS = sorted((REPO / "scenarios").glob("*.toml"))


@pytest.mark.parametrize("path", PRESETS, ids=lambda p: p.stem)
def test_toml_dump_of_every_preset_round_trips(path):
    cfg = load(path)
    text = to_toml(cfg)
    assert load(tomllib.loads(text)) == cfg
    # Every section the resolved configuration has is written.
    doc = tomllib.loads(text)
    for section, value in to_dict(cfg).items():
        assert (section in doc) == (value is not None), section


def test_toml_dump_lists_unset_keys_and_writes_new_sections():
    cfg = load(None, ["rlp={}", "links.1.variable_delay={}", "links.1.variable_delay.spikes=[{}]"])
    text = to_toml(cfg)
    assert text.startswith("# unset: ")
    assert "tcp.initial_ssthresh_bytes" in text.split("\n\n")[0]
    doc = tomllib.loads(text)
    assert doc["access"]["kind"] == "rlp"
    assert doc["access"]["forward"]["fd_t"] == 0.1
    assert "reverse" not in doc["access"]
    assert doc["links"][1]["variable_delay"]["spikes"][0]["stall"] is False
    assert load(doc) == cfg


# --- user errors: one clear line per problem ----------------------------------------------


def test_wrong_type_names_key_value_and_type():
    (p,) = problems({"simulation": {"duration_s": "sixty"}})
    assert p.key == "simulation.duration_s"
    assert p.value == '"sixty"'
    assert p.allowed == "a number"
    assert str(p) == 'simulation.duration_s = "sixty": expected a number'


def test_float_for_integer_is_rejected():
    (p,) = problems({"flows": {"count": 2.5}})
    assert (p.key, p.allowed) == ("flows.count", "an integer")


def test_unknown_key_names_key_and_suggests():
    (p,) = problems({"tcp": {"varient": "reno"}})
    assert p.key == "tcp.varient"
    assert "unknown key" in str(p)
    assert "did you mean tcp.variant?" in str(p)
    assert "\n" not in str(p)


def test_unknown_top_level_key():
    (p,) = problems({"simulaton": {}})
    assert p.key == "simulaton"
    assert "did you mean simulation?" in str(p)


def test_negative_rate():
    (p,) = problems({"links": [{"name": "a", "rate_kbps": -5}]})
    assert p.key == "links.0.rate_kbps"
    assert p.value == "-5"
    assert p.allowed == "a rate in [0.001, 1e9] kb/s (1 bit/s to 1 Tbit/s)"
    assert str(p) == (
        "links.0.rate_kbps = -5: expected a rate in [0.001, 1e9] kb/s (1 bit/s to 1 Tbit/s)"
    )


@pytest.mark.parametrize(
    ("overrides", "key", "allowed_part"),
    [
        (["links.1.loss_rate=1.0"], "links.1.loss_rate", "[0, 1)"),
        (["links.0.ack_loss_rate=-0.1"], "links.0.ack_loss_rate", "[0, 1)"),
        (["simulation.warmup_s=60"], "simulation.warmup_s", "less than simulation.duration_s"),
        (["flows.count=0"], "flows.count", "1..=10000"),
        (["flows.count=2", "flows.start_times_s=[0.0]"], "flows.start_times_s", "exactly"),
        (["tcp.variant=cubic"], "tcp.variant", "'reno', 'newreno' or 'sack'"),
        (["tcp.header_bytes=10"], "tcp.header_bytes", ">= 20"),
        (["tcp.packet_size_bytes=40"], "tcp.packet_size_bytes", "greater than tcp.header_bytes"),
        (["tcp.initial_ssthresh_bytes=100"], "tcp.initial_ssthresh_bytes", "2 MSS"),
        (["tcp.max_rto_ms=10"], "tcp.max_rto_ms", "at least tcp.min_rto_ms"),
        (["links.0.queue.limit_bytes=100"], "links.0.queue.limit_bytes", "packet_size_bytes"),
        (["links.1.name=wan"], "links.1.name", "not used by another link"),
        (["links.0.delay_ms=nan"], "links.0.delay_ms", "finite"),
        (["links=[]"], "links", "at least one link"),
    ],
)
def test_constraints(overrides, key, allowed_part):
    ps = problems(None, overrides)
    assert [p.key for p in ps] == [key]
    assert allowed_part in ps[0].allowed


def test_every_problem_is_reported():
    ps = problems(
        {"simulation": {"duration_s": "x"}, "links": [{"name": "a", "rate_kbps": -1}]},
        ["tcp.varient=reno", "flows.count=abc"],
    )
    keys = {p.key for p in ps}
    assert keys == {"simulation.duration_s", "links.0.rate_kbps", "tcp.varient", "flows.count"}
    err = ConfigError.from_problems(ps)
    assert len(str(err).splitlines()) == 4


def test_missing_file(tmp_path):
    (p,) = problems(tmp_path / "nope.toml")
    assert p.key.endswith("nope.toml")
    assert "not found" in str(p)


def test_bad_toml(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text("[simulation]\nduration_s = = 3\n")
    (p,) = problems(f)
    assert "invalid TOML" in p.allowed
    assert "line 2" in p.allowed


def test_config_error_is_a_value_error():
    assert issubclass(radiotcp.ConfigError, ValueError)
    e = ConfigError("a.b", "1", "a number > 1")
    assert (e.key, e.value, e.allowed) == ("a.b", "1", "a number > 1")
    assert str(e) == "a.b = 1: expected a number > 1"


# --- --set parsing ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("item", "key", "value"),
    [
        ("flows.count=4", "flows.count", 4),
        ("links.1.queue.limit_packets=20", "links.1.queue.limit_packets", 20),
        ("simulation.duration_s=1.5", "simulation.duration_s", 1.5),
        ("tcp.variant=reno", "tcp.variant", "reno"),
        ('tcp.variant="newreno"', "tcp.variant", "newreno"),
        ("flows.start_times_s=[0, 1.5]", "flows.start_times_s", [0, 1.5]),
        ("tcp.initial_ssthresh_bytes=null", "tcp.initial_ssthresh_bytes", None),
        ("links.0.name=a=b", "links.0.name", "a=b"),
        (" flows.count = 4 ", "flows.count", 4),
    ],
)
def test_parse_override(item, key, value):
    assert parse_override(item) == (key, value)


def test_parse_override_needs_equals():
    with pytest.raises(ConfigError) as ei:
        parse_override("flows.count")
    assert ei.value.key == "--set"
    assert "KEY.PATH=VALUE" in ei.value.allowed


def test_set_indexes_lists():
    cfg = load(None, ["links.1.queue.limit_packets=20", "links.0.delay_ms=5"])
    assert cfg.links[1].queue.limit_packets == 20
    assert cfg.links[0].delay_ms == 5.0
    assert cfg.links[0].queue.limit_packets == 1000  # untouched


def test_set_whole_list_gets_defaults():
    cfg = load(None, ['links=[{name = "x", rate_kbps = 64}]'])
    assert len(cfg.links) == 1
    assert cfg.links[0].rate_kbps == 64.0 and cfg.links[0].delay_ms == 10.0


def test_set_unset_optional():
    cfg = load({"tcp": {"initial_ssthresh_bytes": 65535}}, ["tcp.initial_ssthresh_bytes=null"])
    assert cfg.tcp.initial_ssthresh_bytes is None


@pytest.mark.parametrize(
    ("item", "key"),
    [
        ("tcp.varient=reno", "tcp.varient"),
        ("nosuch=1", "nosuch"),
        ("links.5.rate_kbps=3", "links.5.rate_kbps"),
        ("links.x.rate_kbps=3", "links.x.rate_kbps"),
        ("simulation.duration_s.more=1", "simulation.duration_s.more"),
    ],
)
def test_set_unknown_path_is_an_error_naming_the_key(item, key):
    with pytest.raises(ConfigError) as ei:
        apply_overrides({}, [item])
    (p,) = ei.value.problems
    assert p.key == key
    assert p.unknown_key
    assert str(p).startswith(f"{key} = ")


def test_set_accepts_a_mapping():
    cfg = load(None, {"flows.count": 3, "tcp.variant": "reno"})
    assert (cfg.flows.count, cfg.tcp.variant) == (3, "reno")


@given(st.one_of(st.integers(-(10**12), 10**12), st.floats(allow_nan=False, allow_infinity=False)))
def test_numbers_round_trip_through_set(x):
    key, v = parse_override(f"simulation.duration_s={format_value(x)}")
    assert key == "simulation.duration_s"
    assert v == x and type(v) is type(x)


@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=0x2FF), max_size=20))
def test_quoted_strings_round_trip(s):
    assert parse_value(format_value(s)) == s


def test_nan_is_not_accepted_for_positive_rate():
    (p,) = problems(None, ["links.0.rate_kbps=nan"])
    assert p.key == "links.0.rate_kbps"
    assert math.isnan(float(p.value))


# --- values the core would reject ----------------------------------------------------------


TIMER = "a timer in [0.001, 86400000] ms (1 us to 1 day)"
PERIOD = "a period in [0.1, 1000] ms"
DELAY = "a delay in [0, 86400000] ms (at most 1 day)"
RATE = "a rate in [0.001, 1e9] kb/s (1 bit/s to 1 Tbit/s)"


@pytest.mark.parametrize(
    ("overrides", "key", "allowed"),
    [
        # The runs that never ended (issue reports): now errors before the run.
        (["simulation.duration_s=1e9"], "simulation.duration_s", "(0, 1e7] s"),
        (["tcp.initial_rto_ms=1e-9"], "tcp.initial_rto_ms", TIMER),
        (["tcp.min_rto_ms=1e-9", "tcp.max_rto_ms=1"], "tcp.min_rto_ms", TIMER),
        (["access.kind=umts", "access.tti_ms=1e-5"], "access.tti_ms", PERIOD),
        (["access.kind=umts", "access.tti_ms=1e-9"], "access.tti_ms", PERIOD),
        (
            ["access.kind=umts", "access.buffer.pie.t_update_ms=1e-9"],
            "access.buffer.pie.t_update_ms",
            TIMER,
        ),
        # Durations that would round to 0 ns, and the upper bounds.
        (["rlp={}", "access.slot_ms=1e-12"], "access.slot_ms", PERIOD),
        (["rlp={}", "access.slot_ms=1001"], "access.slot_ms", PERIOD),
        (["rlp={}", "access.t_abort_ms=4e-7"], "access.t_abort_ms", TIMER),
        (["bs_ack.enabled=true", "bs_ack.max_ack_wait_ms=1e-9"], "bs_ack.max_ack_wait_ms", TIMER),
        (["tcp.max_rto_ms=1e12"], "tcp.max_rto_ms", TIMER),
        (
            ["access.kind=umts", "access.rlc.status_prohibit_ms=1e-4"],
            "access.rlc.status_prohibit_ms",
            "0 (off) or " + TIMER,
        ),
        (["links.0.delay_ms=1e9"], "links.0.delay_ms", DELAY),
        (["links.0.rate_kbps=1e-4"], "links.0.rate_kbps", RATE),
        (["links.0.rate_kbps=2e9"], "links.0.rate_kbps", RATE),
        (
            ["links.1.variable_delay={}", "links.1.variable_delay.spikes=[{duration_s=1e-12}]"],
            "links.1.variable_delay.spikes.0.duration_s",
            "[1e-06, 86400] s",
        ),
    ],
)
def test_times_and_rates_out_of_physical_bounds_are_rejected(overrides, key, allowed):
    (p,) = problems(None, overrides)
    assert p.key == key
    assert allowed in p.allowed
    # The core has the same bound, with the same words.
    doc = apply_overrides({}, overrides)
    with pytest.raises(ConfigError) as e:
        _core.check_config(json.dumps(doc))
    assert e.value.problems[0].key == key
    assert allowed in e.value.problems[0].allowed


@pytest.mark.parametrize(
    "overrides",
    [
        ["rlp={}", "access.slot_ms=0.1"],
        ["rlp={}", "access.slot_ms=1000"],
        ["access.kind=umts", "access.tti_ms=0.1", "access.rlc.status_prohibit_ms=0"],
        ["tcp.min_rto_ms=0.001", "tcp.initial_rto_ms=0.001", "tcp.max_rto_ms=86400000"],
        ["links.0.rate_kbps=0.001", "links.1.rate_kbps=1e9", "links.0.delay_ms=86400000"],
        ["simulation.duration_s=1e7"],
    ],
)
def test_the_bounds_themselves_are_accepted_by_both_layers(overrides):
    _core.check_config(to_core_json(load(None, overrides)))


def test_delay_trace_is_read_from_toml_arrays():
    text = """
[[links]]
name = "wan"
[links.variable_delay]
process = "trace"
trace = [[0, 190.0], [2.5, 400.0]]
"""
    cfg = load(tomllib.loads(text))
    assert cfg.links[0].variable_delay.trace == [[0.0, 190.0], [2.5, 400.0]]
    _core.check_config(to_core_json(cfg))
    (p,) = problems(tomllib.loads(text.replace("[2.5, 400.0]", "[2.5, 400.0, 1.0]")))
    assert p.key == "links.0.variable_delay.trace.1"


# --- 0.2 scenario files: [radio] / [rlp] tables and keys are read as [access] -------------


def test_a_0_2_radio_table_is_read_as_the_umts_access(tmp_path):
    text = (REPO / "scenarios" / "umts-384k.toml").read_text()
    old = text.replace('[access]\nkind = "umts"', "[radio]").replace("[access.", "[radio.")
    assert "[radio]" in old and "[access" not in old
    p = tmp_path / "old.toml"
    p.write_text(old)
    assert load(p) == load(REPO / "scenarios" / "umts-384k.toml")
    # 0.2 override paths still reach the same keys.
    assert load(p, ["radio.buffer.limit_sdus=20"]).access.buffer.limit_sdus == 20


def test_a_0_2_file_with_both_radio_and_rlp_is_an_error():
    with pytest.raises(ConfigError) as e:
        load({"radio": {}, "rlp": {}})
    assert e.value.key in ("radio", "rlp", "access")
    assert "one" in str(e.value)


# --- TCP profiles ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        ("rfc", {"variant": "newreno", "rto_estimator": "rfc6298", "awnd_segments": None}),
        ("ns2-2.26", {"awnd_segments": 20, "initial_window_segments": 2, "syn": True}),
        ("ns2-1999", {"packet_size_bytes": 1000, "clock_granularity_ms": 100.0, "syn": False}),
        ("linux", {"congestion_control": "cubic", "header_bytes": 52, "quickack_segments": 16}),
    ],
)
def test_a_tcp_profile_gives_the_defaults_of_the_tcp_keys(profile, expected):
    tcp = to_dict(load({"tcp": {"profile": profile}}).tcp)
    assert tcp["profile"] == profile
    assert {k: tcp[k] for k in expected} == expected


def test_tcp_profile_keys_set_explicitly_override_the_profile():
    cfg = load(None, ["tcp.profile=ns2-2.26", "tcp.min_rto_ms=200", "tcp.variant=reno"])
    assert cfg.tcp.profile == "ns2-2.26"
    assert cfg.tcp.min_rto_ms == 200.0  # the scenario's
    assert cfg.tcp.initial_rto_ms == 6000.0 and cfg.tcp.rto_estimator == "ns2"  # the profile's
    assert cfg.tcp.variant == "reno"


def test_a_profile_in_the_file_keeps_the_files_other_tcp_keys(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('[tcp]\nprofile = "linux"\nprr = false\ninitial_window_segments = 4\n')
    cfg = load(path)
    assert (cfg.tcp.prr, cfg.tcp.initial_window_segments) == (False, 4)
    assert cfg.tcp.congestion_control == "cubic" and cfg.tcp.timestamps


def test_a_profile_set_on_the_command_line_swaps_the_whole_stack():
    # The UMTS preset writes down the papers' Reno (40-byte headers, IW 1, min RTO 1 s):
    # --set tcp.profile=linux replaces all of it, but keys --set alongside still apply.
    cfg = load("scenarios/umts-384k.toml", ["tcp.profile=linux"])
    assert cfg.tcp.variant == "sack" and cfg.tcp.header_bytes == 52
    assert cfg.tcp.min_rto_ms == 200.0 and cfg.tcp.initial_window_segments == 10
    cfg = load("scenarios/umts-384k.toml", ["tcp.profile=linux", "tcp.min_rto_ms=1000"])
    assert cfg.tcp.min_rto_ms == 1000.0 and cfg.tcp.congestion_control == "cubic"
    # Set before the profile in the same call: still applies.
    cfg = load("scenarios/umts-384k.toml", ["tcp.prr=false", "tcp.profile=linux"])
    assert cfg.tcp.prr is False


def test_timestamps_need_room_for_the_option_in_the_headers():
    with pytest.raises(ConfigError) as ei:
        load(None, ["tcp.timestamps=true"])
    assert ei.value.key == "tcp.header_bytes" and "52" in str(ei.value)
    with pytest.raises(ConfigError) as ei:
        load(None, ["tcp.prr=true"])
    assert ei.value.key == "tcp.prr" and "sack" in str(ei.value)
    # The linux profile with NewReno recovery must turn PRR off too.
    with pytest.raises(ConfigError) as ei:
        load(None, ["tcp.profile=linux", "tcp.variant=newreno"])
    assert ei.value.key == "tcp.prr"


def test_none_on_the_command_line_is_the_value_none_where_a_choice_has_it():
    cfg = load("scenarios/umts-384k.toml", ["access.downlink.model=none"])
    assert cfg.access.downlink.model == "none"
    cfg = load("scenarios/umts-384k.toml", ["access.ack_control.mode=None"])
    assert cfg.access.ack_control.mode == "none"
    # An optional key is still reset by none.
    cfg = load("scenarios/umts-384k.toml", ["access.uplink={model = 'iid'}", "access.uplink=none"])
    assert cfg.access.uplink is None


def test_unknown_tcp_profile_names_the_allowed_ones():
    with pytest.raises(ConfigError) as ei:
        load(None, ["tcp.profile=ns3"])
    text = str(ei.value)
    assert "tcp.profile" in text and "ns2-2.26" in text and '"ns3"' in text
