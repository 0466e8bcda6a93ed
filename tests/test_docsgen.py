"""The scenario-key table in docs/usage.md is generated from the models and stays in sync."""

from __future__ import annotations

import re
import types
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

import pytest
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from radiotcp import docsgen
from radiotcp.config import ChannelConfig, RlpConfig, ScenarioConfig
from radiotcp.config import variants as variants_of

DOC = Path(__file__).resolve().parents[1] / "docs" / "usage.md"
REGENERATE = "run `python -m radiotcp.docsgen` to regenerate the table in docs/usage.md"


def _doc_table() -> str:
    text = DOC.read_text(encoding="utf-8")
    assert text.count(docsgen.BEGIN_MARKER) == 1, f"one begin marker expected in {DOC}"
    assert text.count(docsgen.END_MARKER) == 1, f"one end marker expected in {DOC}"
    inner = text.split(docsgen.BEGIN_MARKER, 1)[1].split(docsgen.END_MARKER, 1)[0]
    return inner.strip("\n")


def _rows(table: str) -> list[list[str]]:
    rows = []
    for line in table.splitlines()[2:]:  # skip header and separator
        assert line.startswith("| `") and line.endswith(" |"), line
        # Cells are separated by " | "; a "|" inside a cell is escaped as "\|".
        cells = [c.strip() for c in line[2:-2].replace("\\|", "\0").split(" | ")]
        assert len(cells) == 4, line
        rows.append([c.replace("\0", "|") for c in cells])
    return rows


def _unwrap(ann: Any) -> Any:
    """Strip ``| None`` and ``list[...]`` of a model down to the model (or the scalar)."""
    if get_origin(ann) in (Union, types.UnionType):
        rest = [a for a in get_args(ann) if a is not type(None)]
        if len(rest) == 1:
            ann = rest[0]
    if get_origin(ann) is list and isinstance(get_args(ann)[0], type):
        inner = get_args(ann)[0]
        if issubclass(inner, BaseModel):
            return inner
    return ann


def _is_model(ann: Any) -> bool:
    return isinstance(ann, type) and issubclass(ann, BaseModel)


def _scope(meaning: str) -> tuple[str | None, str]:
    """(kind, meaning without the kind prefix) of a row."""
    m = re.match(r'\[kind = "(\w+)"\] ', meaning)
    return (m.group(1), meaning[m.end() :]) if m else (None, meaning)


def _resolve(key: str, kind: str | None = None) -> FieldInfo:
    """The model field a dotted table key names (``<i>`` indexes a list of tables; a tagged
    choice takes the model of ``kind``)."""
    model: Any = ScenarioConfig
    field: FieldInfo | None = None
    parts = key.split(".")
    i = 0
    while i < len(parts):
        assert _is_model(model), f"{key}: {'.'.join(parts[:i])} is not a table"
        name = parts[i]
        assert name in model.model_fields, f"{key}: no field {name!r} in {model.__name__}"
        field = model.model_fields[name]
        inner = _unwrap(field.annotation)
        i += 1
        if get_origin(field.annotation) is list and _is_model(inner) and i < len(parts):
            assert parts[i] == "<i>", f"{key}: a list of tables is addressed as <i>"
            i += 1
        variants = variants_of(field.annotation)
        if variants:
            if parts[i:] == ["kind"]:
                return field  # `access.kind` is the choice itself: its row is the field's
            inner = variants[kind]
        model = inner
    assert field is not None
    return field


def _leaf_keys(model: type[BaseModel], prefix: str = "", kind: str | None = None) -> set:
    """Every non-table key with the kind it belongs to, with ``<i>`` for list elements."""
    out = set()
    for name, field in model.model_fields.items():
        inner = _unwrap(field.annotation)
        key = f"{prefix}{name}"
        variants = variants_of(field.annotation)
        if variants:
            out.add((f"{key}.kind", kind))
            for k, cls in variants.items():
                out |= {x for x in _leaf_keys(cls, f"{key}.", k) if x[0] != f"{key}.kind"}
        elif _is_model(inner):
            if get_origin(field.annotation) is list:
                key += ".<i>"
            out |= _leaf_keys(inner, f"{key}.", kind)
        else:
            out.add((key, kind))
    return out


def _keyed_rows() -> dict[tuple[str, str | None], list[str]]:
    rows = {}
    for row in _rows(docsgen.keys_table()):
        key = (row[0].strip("`"), _scope(row[3])[0])
        assert key not in rows, f"two rows for {key}"
        rows[key] = row
    return rows


def test_docs_table_is_generated_from_the_models() -> None:
    assert _doc_table() == docsgen.keys_table(), (
        f"the scenario-key table in docs/usage.md is out of date with radiotcp.config: {REGENERATE}"
    )


def test_check_mode_passes_on_the_committed_doc() -> None:
    assert docsgen.main(["--check", str(DOC)]) == 0, REGENERATE


def test_check_mode_reports_a_stale_table_without_writing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stale = tmp_path / "usage.md"
    original = (
        f"intro\n\n{docsgen.BEGIN_MARKER}\n| key | type | default | meaning |\n"
        f"{docsgen.END_MARKER}\n\noutro\n"
    )
    stale.write_text(original, encoding="utf-8")
    assert docsgen.main(["--check", str(stale)]) == 1
    assert "python -m radiotcp.docsgen" in capsys.readouterr().err
    assert stale.read_text(encoding="utf-8") == original
    assert docsgen.main([str(stale)]) == 0
    regenerated = stale.read_text(encoding="utf-8")
    assert regenerated == (
        f"intro\n\n{docsgen.BEGIN_MARKER}\n{docsgen.keys_table()}\n{docsgen.END_MARKER}\n\noutro\n"
    )
    assert docsgen.main(["--check", str(stale)]) == 0


def test_every_row_names_a_model_field() -> None:
    for (key, kind), row in _keyed_rows().items():
        field = _resolve(key, kind)
        if key != "links":
            assert _scope(row[3])[1] == " ".join((field.description or "").split()), key


def test_every_model_field_has_a_row() -> None:
    rows = _keyed_rows()
    missing = [k for k in _leaf_keys(ScenarioConfig) if k not in rows]
    assert not missing, f"keys missing from the table: {missing}; {REGENERATE}"
    # Optional tables and the links list have a row of their own.
    for key in [("links", None), ("access.uplink", "umts"), ("access.reverse", "rlp")]:
        assert key in rows
    # A key two kinds share has a row per kind, with that kind's default.
    assert rows[("access.one_way_delay_ms", "umts")][2] == "25.0"
    assert rows[("access.one_way_delay_ms", "rlp")][2] == "40.0"


def test_literal_types_list_every_allowed_value() -> None:
    for (key, kind), row in _keyed_rows().items():
        ann = _unwrap(_resolve(key, kind).annotation)
        if get_origin(ann) is Literal:
            for value in get_args(ann):
                # Strings are shown as TOML strings, integers (T_SR in ms, MHz) bare.
                shown = f'"{value}"' if isinstance(value, str) else str(value)
                allowed = row[1].removesuffix(" or unset").split(" / ")
                assert shown in allowed, f"{key}: {value!r} missing from {row[1]!r}"


def test_defaults_are_those_of_the_parent_default_instance() -> None:
    rows = _keyed_rows()
    # access.forward is built by a default_factory that differs from ChannelConfig's defaults.
    assert RlpConfig().forward.fd_t != ChannelConfig().fd_t
    assert rows[("access.forward.fd_t", "rlp")][2] == repr(RlpConfig().forward.fd_t)
    assert rows[("links", None)][2] == "wan + access (wired-384k)"
    assert rows[("access.kind", None)][1:3] == ['"wired" / "umts" / "rlp" / "lte"', '"wired"']
    assert rows[("access.uplink", "umts")][1:3] == ["table or unset", "unset"]
    assert rows[("tcp.initial_ssthresh_bytes", None)][1:3] == ["int or unset", "unset"]
    assert rows[("tcp.variant", None)][2] == '"newreno"'
