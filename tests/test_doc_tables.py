"""The tables of docs/reproductions.md are generated from the recipes' results
(radiotcp.doctables): the rendering, the rewriting, and a check that the document holds what
the quick recipes produce now (the whole document: `make reproduce-check`)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from radiotcp.doctables import DEFAULT_DOC, blocks, compute, compute_one_by_one, render, update
from radiotcp.errors import ConfigError
from radiotcp.reproduce import DocTable, find_recipe
from radiotcp.store import Store

# Recipes whose sweeps take seconds: checked on every `make test`.
QUICK = [
    "bs-variation",
    "bs-spike",
    "modern-tcp-bs",
    "is707-cycles",
    "umts-trace",
    "sbd-fig2",
    "aqm-traces",
]

POINTS = [
    {"a": 1, "b": True, "m": 1.234, "m.ci90": 0.1},
    {"a": 1, "b": False, "m": 2.0, "m.ci90": math.nan},
    {"a": 2, "b": True, "m": math.nan, "m.ci90": math.nan},
]


def test_pivot_tables_name_rows_and_columns_and_print_nan_as_a_dash():
    t = DocTable(
        id="t",
        rows=["a"],
        row_header="a",
        row_names={"1": "one"},
        cols=["b"],
        col_names={"true": "on", "false": "off"},
        col_order=["true", "false"],
        cell="{m|.1f} ± {m.ci90|.2f}",
    )
    assert render(t, POINTS) == (
        "| a | on | off |\n|---|---|---|\n| one | 1.2 ± 0.10 | 2.0 ± - |\n| 2 | - ± - | - |\n"
    )


def test_column_tables_follow_row_order_and_where():
    t = DocTable(
        id="t",
        rows=["a", "b"],
        row_order=["1 false", "1 true"],
        columns=[("m", "{m|.2f}")],
        where={"a": 1},
    )
    assert render(t, POINTS) == "|  | m |\n|---|---|\n| 1 false | 2.00 |\n| 1 true | 1.23 |\n"
    with pytest.raises(ConfigError):
        render(DocTable(id="t", rows=["a"], row_order=["3"], columns=[("m", "{m|g}")]), POINTS)


def test_scaled_fields_per_ue_rows_and_a_baseline_last():
    pts = [
        {"s": "basic", "g": 2500.0, "lte.ues.0.goodput": 1000.0, "lte.ues.1.goodput": 1500.0},
        {"s": "opt", "g": 3000.0, "lte.ues.0.goodput": 1200.0, "lte.ues.1.goodput": 1800.0},
    ]
    t = DocTable(id="t", rows=["ue"], cols=["s"], cell="{goodput*0.001|.1f}", per_ue=True)
    assert render(t, pts) == (
        "|  | basic | opt |\n|---|---|---|\n| 1 | 1.0 | 1.2 |\n| 2 | 1.5 | 1.8 |\n"
    )
    t = DocTable(
        id="t",
        rows=["s"],
        columns=[("Mb/s", "{g*1e-3|.2f}")],
        prepend_baseline="b",
        baseline_name="ref",
        baseline_last=True,
    )
    assert render(t, pts, [{"g": 1000.0}]) == (
        "|  | Mb/s |\n|---|---|\n| basic | 2.50 |\n| opt | 3.00 |\n| ref | 1.00 |\n"
    )


def test_update_rewrites_only_the_blocks_it_has_and_reports_changes():
    doc = (
        "text\n<!-- table r/x (generated) -->\n| old |\n<!-- end table -->\nmore\n"
        "<!-- table q/y (generated) -->\n| kept |\n<!-- end table -->\n"
    )
    assert blocks(doc) == [("r", "x"), ("q", "y")]
    new, changed = update(doc, {("r", "x"): "| new |\n"})
    assert changed == ["r/x"]
    assert "| new |" in new and "| old |" not in new and "| kept |" in new
    assert update(new, {("r", "x"): "| new |\n"})[1] == []
    with pytest.raises(ConfigError):
        update(doc, {("r", "z"): "| other |\n"})


def test_every_table_block_names_a_table_its_recipe_defines():
    for recipe, tid in blocks(DEFAULT_DOC.read_text(encoding="utf-8")):
        r, _ = find_recipe(recipe)
        assert tid in [t.id for t in r.tables], f"{recipe}/{tid}"


def test_the_document_holds_what_the_quick_recipes_produce(tmp_path: Path):
    with Store(tmp_path / "store.sqlite") as store:
        tables = compute(QUICK, store, jobs=1)
    _new, changed = update(DEFAULT_DOC.read_text(encoding="utf-8"), tables)
    assert changed == [], f"run `make doc-tables`: {changed}"


def test_one_pool_serves_several_recipes_with_the_tables_of_one_by_one(tmp_path, local_pools):
    """compute runs every recipe's sweeps and baselines through one pool; the tables are those
    of the recipes run one by one (each sweep with its own pool), character for character."""
    names = ["umts-trace", "bs-spike", "sbd-fig2"]
    pools = local_pools
    seen: list[tuple[int, int]] = []
    with Store(tmp_path / "one.sqlite") as store:
        together = compute(names, store, jobs=2, progress=lambda d, t: seen.append((d, t)))
    assert pools == [2]
    assert seen[0][0] == 0 and seen[-1][0] == seen[-1][1] > 0
    pools.clear()
    with Store(tmp_path / "apart.sqlite") as store:
        apart = compute_one_by_one(names, store, jobs=2)
    assert len(pools) > 1
    assert list(together) == list(apart) and together == apart


def test_only_the_metrics_the_tables_read_are_aggregated():
    from radiotcp.doctables import _Read

    plain = DocTable(id="a", rows=["x"], columns=[("g", "{goodput_kbps.ci90*2|.1f}")])
    ue = DocTable(id="b", rows=["ue"], cols=["s"], cell="{sector|d} {mcs|.1f}", per_ue=True)
    read = _Read([plain, ue])
    assert all(m in read for m in ["goodput_kbps", "x", "s", "lte.ues.3.sector", "lte.ues.0.mcs"])
    assert "delay_mean_ms" not in read and "lte.ues.0.cqi" not in read
    assert "lte.ues.0.sector" not in _Read([plain])
