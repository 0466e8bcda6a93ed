"""The scenario-key table in docs/usage.md is generated from the core's schema and stays in sync."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from radiotcp import docsgen
from radiotcp.config import choices_of, config_schema, deref, nullable, variants_of

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


def _scope(meaning: str) -> tuple[str | None, str]:
    """(kind, meaning without the kind prefix) of a row."""
    m = re.match(r'\[kind = "(\w+)"\] ', meaning)
    return (m.group(1), meaning[m.end() :]) if m else (None, meaning)


def _table(s: Mapping[str, Any]) -> Mapping[str, Any]:
    """The table schema behind a property (through ``$ref``, ``| None`` and lists)."""
    t = deref(nullable(s)[1])
    if t.get("type") in ("array", ["array", "null"]) and "properties" in deref(t.get("items", {})):
        return deref(t["items"])
    return t


def _resolve(key: str, kind: str | None = None) -> Mapping[str, Any]:
    """The schema of the key a dotted table key names (``<i>`` indexes a list of tables; a
    tagged choice takes the table of ``kind``)."""
    table: Mapping[str, Any] = config_schema()
    prop: Mapping[str, Any] | None = None
    parts = key.split(".")
    i = 0
    while i < len(parts):
        props = table.get("properties")
        assert props is not None, f"{key}: {'.'.join(parts[:i])} is not a table"
        name = parts[i]
        assert name in props, f"{key}: no key {name!r} in the table"
        prop = props[name]
        inner = _table(prop)
        i += 1
        if inner is not deref(nullable(prop)[1]) and i < len(parts):
            assert parts[i] == "<i>", f"{key}: a list of tables is addressed as <i>"
            i += 1
        choices = variants_of(inner)
        if choices:
            if parts[i:] == ["kind"]:
                return prop  # `access.kind` is the choice itself: its row is the field's
            inner = choices[str(kind)]
        table = inner
    assert prop is not None
    return prop


def _leaf_keys(table: Mapping[str, Any], prefix: str = "", kind: str | None = None) -> set:
    """Every non-table key with the kind it belongs to, with ``<i>`` for list elements."""
    out = set()
    for name, prop in table.get("properties", {}).items():
        key = f"{prefix}{name}"
        inner = _table(prop)
        choices = variants_of(inner)
        if choices:
            out.add((f"{key}.kind", kind))
            for k, variant in choices.items():
                out |= {x for x in _leaf_keys(variant, f"{key}.", k) if x[0] != f"{key}.kind"}
        elif "properties" in inner:
            if inner is not deref(nullable(prop)[1]):
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


def test_every_row_names_a_key_of_the_schema() -> None:
    for (key, kind), row in _keyed_rows().items():
        prop = _resolve(key, kind)
        if key != "links":
            assert _scope(row[3])[1] == " ".join(str(prop.get("description", "")).split()), key


def test_every_key_of_the_schema_has_a_row() -> None:
    rows = _keyed_rows()
    missing = [k for k in _leaf_keys(config_schema()) if k not in rows]
    assert not missing, f"keys missing from the table: {missing}; {REGENERATE}"
    # Optional tables and the links list have a row of their own.
    for key in [("links", None), ("access.uplink", "umts"), ("access.reverse", "rlp")]:
        assert key in rows
    # A key two kinds share has a row per kind, with that kind's default.
    assert rows[("access.one_way_delay_ms", "umts")][2] == "25.0"
    assert rows[("access.one_way_delay_ms", "rlp")][2] == "40.0"


def test_choices_list_every_allowed_value() -> None:
    for (key, kind), row in _keyed_rows().items():
        t = deref(nullable(_resolve(key, kind))[1])
        for value in choices_of(t):
            if value is None:
                continue
            # Strings are shown as TOML strings, numbers (T_SR in ms, MHz) bare.
            shown = f'"{value}"' if isinstance(value, str) else repr(value)
            allowed = row[1].removesuffix(" or unset").split(" / ")
            assert shown in allowed, f"{key}: {value!r} missing from {row[1]!r}"
    assert _keyed_rows()[("access.bandwidth_mhz", "lte")][1] == "5 / 10 / 20"


def test_defaults_are_those_of_the_parent_default_table() -> None:
    rows = _keyed_rows()
    # The RLP forward channel's default differs from a channel table given empty.
    rlp = variants_of(deref(config_schema()["properties"]["access"]))["rlp"]
    forward = rlp["properties"]["forward"]["default"]["fd_t"]
    channel = config_schema()["$defs"]["ChannelConfig"]["properties"]["fd_t"]["default"]
    assert forward != channel
    assert rows[("access.forward.fd_t", "rlp")][2] == repr(forward)
    assert rows[("links", None)][2] == "wan + access (wired-384k)"
    kinds = '"wired" / "umts" / "rlp" / "lte" / "nr"'
    assert rows[("access.kind", None)][1:3] == [kinds, '"wired"']
    assert rows[("access.uplink", "umts")][1:3] == ["table or unset", "unset"]
    assert rows[("tcp.initial_ssthresh_bytes", None)][1:3] == ["int or unset", "unset"]
    assert rows[("tcp.variant", None)][2] == '"newreno"'
