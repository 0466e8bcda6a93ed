"""One source of truth for defaults and validation: the pydantic models of radiotcp.config and
the Rust core (crates/radiotcp-core/src/config/mod.rs) must agree.

- Every section type has the same defaults on both sides (``_core.default_section_json``).
- For random override sets on the presets (1 to 3 key paths, values from a set of edge cases),
  pydantic accepts a document exactly when the core's own check (``_core.check_config``) does.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from radiotcp import _core
from radiotcp import config as C
from radiotcp.config import ConfigError, apply_overrides, load_toml, validate_dict

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"

# --------------------------------------------------------------------------------------------
# a. Defaults of every section type
# --------------------------------------------------------------------------------------------

SECTIONS: dict[str, type[BaseModel]] = {
    "scenario": C.ScenarioConfig,
    "simulation": C.SimulationConfig,
    "tcp": C.TcpConfig,
    "flows": C.FlowsConfig,
    "link": C.LinkConfig,
    "queue": C.QueueConfig,
    "variable_delay": C.VariableDelayConfig,
    "delay_level": C.DelayLevelConfig,
    "spike": C.SpikeConfig,
    "wired": C.WiredAccess,
    "umts": C.UmtsConfig,
    "channel": C.ChannelConfig,
    "rlc": C.RlcConfig,
    "buffer": C.BufferConfig,
    "red": C.RedConfig,
    "sbd": C.SbdConfig,
    "codel": C.CodelConfig,
    "pie": C.PieConfig,
    "ack_control": C.AckControlConfig,
    "rlp": C.RlpConfig,
    "bs_ack": C.BsAckConfig,
    "lte": C.LteConfig,
    "lte_cell": C.LteCellConfig,
    "lte_fading": C.LteFadingConfig,
    "lte_harq": C.LteHarqConfig,
    "lte_uplink": C.LteUplinkConfig,
    "lte_pdcch": C.LtePdcchConfig,
    "lte_rlc": C.LteRlcConfig,
    "ack_filter": C.AckFilterConfig,
}


def _models(cls: type[BaseModel]) -> Iterator[type[BaseModel]]:
    yield cls
    for f in cls.model_fields.values():
        for variant in C.variants(f.annotation).values():
            yield from _models(variant)
        _kind, sub = C._sub_model(f.annotation)
        if sub is not None:
            yield from _models(sub)


@pytest.mark.parametrize("name", list(SECTIONS))
def test_section_defaults_equal_rust_defaults(name):
    rust = json.loads(_core.default_section_json(name))
    assert SECTIONS[name]().model_dump(mode="json") == rust


def test_every_section_type_is_compared():
    assert set(_models(C.ScenarioConfig)) <= set(SECTIONS.values())


def test_lte_buffer_default_is_its_own():
    # On purpose: an LTE UE's downlink buffer holds 1000 SDUs (a 100-PRB cell drains fast).
    assert C.LteConfig().buffer.model_dump(mode="json") == json.loads(
        _core.default_section_json("lte_buffer")
    )


def test_rlp_forward_channel_has_its_own_default():
    # On purpose: the RLP forward channel is faster fading than the generic channel.
    rlp = json.loads(_core.default_section_json("rlp"))
    channel = json.loads(_core.default_section_json("channel"))
    assert rlp["forward"]["fd_t"] == 0.1 and channel["fd_t"] == 0.01


def test_unknown_section_name_is_a_value_error():
    with pytest.raises(ValueError, match="known: scenario"):
        _core.default_section_json("radios")


def test_check_config_accepts_presets_and_rejects_with_config_error():
    for path in sorted(SCENARIOS.glob("*.toml")):
        _core.check_config(C.to_core_json(C.load(path)))
    doc = C.to_dict(C.load(None))
    doc["links"][0]["rate_kbps"] = 0
    with pytest.raises(ConfigError) as ei:
        _core.check_config(json.dumps(doc))
    assert ei.value.problems[0].key == "links.0.rate_kbps"
    with pytest.raises(ConfigError):
        _core.check_config("{")


# --------------------------------------------------------------------------------------------
# b. Validation verdicts on random override sets
# --------------------------------------------------------------------------------------------

# (key path, prerequisite overrides that make the path exist, extra values worth trying: the
# field's default, the choices of a Literal, sample lists)
Leaf = tuple[str, tuple[tuple[str, Any], ...], tuple[Any, ...]]


def _extras(ann: Any) -> tuple[Any, ...]:
    """Values of a field's own type worth trying: the choices of a Literal, sample lists."""
    for a in (ann, *get_args(ann)):
        if get_origin(a) is Literal:
            return get_args(a)
        if get_origin(a) is list:
            return ([{}], [[0.0, 1.0], [0.5, 2.0]], [[1.0, 1.0], [0.5, 2.0]], [0.0], [0.0, 1.0])
    return ()


def _leaves(cls: type[BaseModel], prefix: str, setup: tuple[tuple[str, Any], ...]) -> list[Leaf]:
    out: list[Leaf] = []
    for name, f in cls.model_fields.items():
        path = f"{prefix}{name}"
        kind, sub = C._sub_model(f.annotation)
        default = f.get_default(call_default_factory=True)
        own = (default,) if isinstance(default, int | float | str) else ()
        out.append((path, setup, own + _extras(f.annotation)))
        variants = C.variants(f.annotation)
        if variants:
            # A tagged choice: the keys of every kind, with the kind set first.
            for kind, model in variants.items():
                leaves = _leaves(model, f"{path}.", (*setup, (f"{path}.kind", kind)))
                out += [leaf for leaf in leaves if leaf[0] != f"{path}.kind"]
            continue
        if sub is None:
            continue
        if kind == "model":
            optional = type(None) in get_args(f.annotation)
            inner = (*setup, (path, {})) if optional else setup
            out += _leaves(sub, f"{path}.", inner)
        elif name == "links":  # the presets have one or two links
            for i in (0, 1):
                out += _leaves(sub, f"{path}.{i}.", setup)
        else:  # a list of tables (levels, spikes): one element
            out += _leaves(sub, f"{path}.0.", (*setup, (path, [{}])))
    return out


LEAVES = _leaves(C.ScenarioConfig, "", ())
VALUES: tuple[Any, ...] = (
    0,
    -1,
    1,
    2,
    0.5,
    1e-12,
    1e9,
    2**32,
    2**64,
    math.inf,
    -math.inf,
    math.nan,
    True,
    False,
    "x",
    "",
    [],
    {},
    None,
)
PRESETS = {name: load_toml(SCENARIOS / f"{name}.toml") for name in ("wired-384k", "umts-384k")}


def _get(doc: Any, path: str) -> Any:
    for part in path.split("."):
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    return doc


def build(preset: str, chosen: list[tuple[Leaf, Any]]) -> dict[str, Any] | None:
    """The preset with the chosen overrides (and what they need) applied; None if a chosen
    path does not exist in it (a third link, an element of a list another override replaced)."""
    doc = apply_overrides(PRESETS[preset], None)
    overrides: dict[str, Any] = {}
    for (_path, setup, _extra), _value in chosen:
        for key, value in setup:
            try:
                present = _get(doc, key)
            except (KeyError, IndexError, TypeError):
                present = None
            # A kind is set when it differs (the preset's access may be another kind).
            missing = present in (None, []) or (key.endswith(".kind") and present != value)
            if missing and key not in overrides:
                overrides[key] = value
    for (path, _setup, _extra), value in chosen:
        overrides.pop(path, None)
        overrides[path] = value
    try:
        return apply_overrides(doc, overrides)
    except ConfigError:
        return None


def verdicts(doc: dict[str, Any]) -> tuple[list[str] | None, str | None]:
    """(pydantic's problems, the core's problem); None = accepted."""
    try:
        validate_dict(doc)
        py = None
    except ConfigError as e:
        py = [str(p) for p in e.problems]
    try:
        _core.check_config(json.dumps(doc, allow_nan=True))
        rust = None
    except ConfigError as e:
        rust = str(e.problems[0])
    return py, rust


@settings(max_examples=300, deadline=None, derandomize=True)
@given(data=st.data())
def test_pydantic_and_core_agree_on_validity(data):
    preset = data.draw(st.sampled_from(sorted(PRESETS)), label="preset")
    n = data.draw(st.integers(1, 3), label="n")
    chosen = []
    for _ in range(n):
        leaf = data.draw(st.sampled_from(LEAVES), label="path")
        value = data.draw(st.sampled_from(VALUES + leaf[2]), label=leaf[0])
        chosen.append((leaf, value))
    doc = build(preset, chosen)
    if doc is None:
        return
    py, rust = verdicts(doc)
    assert (py is None) == (rust is None), f"pydantic: {py or 'accepts'}; core: {rust or 'accepts'}"


@pytest.mark.parametrize(
    "overrides",
    [
        {"links.0.name": ""},
        {"bs_ack.g": 0},
        {"access.kind": "umts", "access.downlink.model": "none", "access.downlink.fer": 2},
        {"access.kind": "rlp", "access.forward.model": "iid", "access.forward.fd_t": 0},
        {"links.1.variable_delay": {}, "links.1.variable_delay.std_ms": -1},
        {
            "links.1.variable_delay": {"process": "markov"},
            "links.1.variable_delay.levels": [[190.0, 1000.0]],
        },
    ],
)
def test_the_core_rejects_what_it_once_let_through(overrides):
    """The cases the core used to accept and pydantic reject (an unused channel or delay value,
    a disabled controller's settings, an empty link name, a table written as an array): the
    core checks them now, so both layers reject them."""
    py, rust = verdicts(apply_overrides(PRESETS["wired-384k"], overrides))
    assert py is not None and rust is not None


@pytest.mark.parametrize(
    "overrides",
    [
        {"rlp": {}, "rlp.slot_ms": 1e-12},
        {"bs_ack.enabled": True, "bs_ack.reply_reset_after_ms": 1e-12},
        {"links.0.variable_delay": {}, "links.0.variable_delay.spikes": [{"duration_s": 1e-12}]},
        {"links.0.variable_delay": {"process": "trace", "trace": [[0.0, 1.0, 2.0]]}},
        {"links.0.variable_delay": {"process": "trace", "trace": [[1.0, 1.0], [0.5, 2.0]]}},
    ],
)
def test_both_reject(overrides):
    py, rust = verdicts(apply_overrides(PRESETS["wired-384k"], overrides))
    assert py is not None and rust is not None


def test_both_accept_a_delay_trace_written_as_toml_arrays():
    doc = apply_overrides(
        PRESETS["wired-384k"],
        {"links.1.variable_delay": {"process": "trace", "trace": [[0, 100.0], [2.5, 300.0]]}},
    )
    assert verdicts(doc) == (None, None)
