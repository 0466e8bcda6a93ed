"""The typed scenario classes (python/radiotcp/_schema.py) are generated from the core's
configuration schema and stay in sync with it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from radiotcp import _core, _schema, schemagen
from radiotcp.config import load, to_dict

REGENERATE = "run `make schema` (python -m radiotcp.schemagen) to regenerate it"


def test_the_generated_module_is_up_to_date() -> None:
    assert schemagen.main(["--check"]) == 0, f"python/radiotcp/_schema.py is stale: {REGENERATE}"


def test_check_mode_reports_a_stale_file_without_writing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stale = tmp_path / "_schema.py"
    stale.write_text("# old\n", encoding="utf-8")
    assert schemagen.main(["--check", str(stale)]) == 1
    assert "make schema" in capsys.readouterr().err
    assert stale.read_text(encoding="utf-8") == "# old\n"
    assert schemagen.main([str(stale)]) == 0
    assert schemagen.main(["--check", str(stale)]) == 0


def test_every_key_of_the_schema_is_a_field_in_declaration_order() -> None:
    schema = json.loads(_core.config_schema())
    fields = list(_schema.ScenarioConfig.__slots__)
    assert fields == list(schema["properties"])
    for name, cls in [("TcpConfig", _schema.TcpConfig), ("LinkConfig", _schema.LinkConfig)]:
        assert list(cls.__slots__) == list(schema["$defs"][name]["properties"])


def test_a_resolved_scenario_reads_back_as_the_core_wrote_it() -> None:
    for kind in ("wired", "umts", "rlp", "lte"):
        resolved = _core.resolve_config(json.dumps({"access": {"kind": kind}}))
        cfg = _schema.ScenarioConfig.from_dict(json.loads(resolved))
        assert type(cfg.access).__name__.lower().startswith(kind)
        # Every value and the key order survive the typed classes.
        assert json.dumps(to_dict(cfg), separators=(",", ":")) == resolved
        assert cfg == load({"access": {"kind": kind}})
