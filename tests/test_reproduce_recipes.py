"""Recipe features used by the paper reproductions: point selection, baselines, trade-off and
t_id figures, and the validity of every recipe shipped in recipes/."""

from __future__ import annotations

import pytest

from radiotcp import _core
from radiotcp.config import load, to_core_json
from radiotcp.errors import ConfigError
from radiotcp.reproduce import _select, find_recipe, list_recipes, reproduce
from radiotcp.store import Store
from radiotcp.sweep import SweepSpec, expand_points

UMTS = "scenarios/umts-384k.toml"


def test_every_shipped_recipe_loads_and_expands():
    recipes = list_recipes()
    names = {r[0] for r in recipes}
    for needed in (
        "sbd-tr",
        "red-params",
        "aqm-traces",
        "ackrate-maxd",
        "ackrate-alpha",
        "ackrate-table",
        "mechanisms",
    ):
        assert needed in names
    for name, _, _ in recipes:
        recipe, _ = find_recipe(name)
        spec = SweepSpec.model_validate({"name": name, **recipe.sweep})
        points = expand_points(spec)
        assert points
        for f in recipe.figures:
            # Every figure's selection must match at least one point of the sweep.
            if f.kind in ("metric", "goodput_delay", "tradeoff"):
                assert _select(points, f.where), (name, f.file)


def test_select_compares_numbers_by_value_and_skips_missing_keys():
    pts = [{"a": 1, "b": "x"}, {"a": 2.0, "b": "y"}, {"b": "x"}]
    assert _select(pts, {"a": 1.0}) == [pts[0], pts[2]]
    assert _select(pts, {"a": 2, "b": "y"}) == [pts[1]]
    assert _select(pts, {"b": True}) == []


def test_t_id_binding_matches_the_paper_function():
    cfg = load(
        UMTS,
        [
            "radio.ack_control.mode=rate",
            "radio.ack_control.minth_sdus=10",
            "radio.ack_control.maxth_sdus=50",
            "radio.ack_control.mind_ms=20",
            "radio.ack_control.maxd_ms=200",
            "radio.ack_control.alpha=2",
        ],
    )
    bo = [0.0, 9.9, 10.0, 30.0, 50.0, 80.0]
    t = _core.ack_t_id_ms(to_core_json(cfg), bo)
    assert t == pytest.approx([0, 0, 20, 65, 200, 200])
    delay = load(UMTS, ["radio.ack_control.mode=delay", "radio.ack_control.maxd_ms=300"])
    assert _core.ack_t_id_ms(to_core_json(delay), [19.0, 20.0, 45.0]) == [0, 300, 300]
    off = load(UMTS, [])
    assert _core.ack_t_id_ms(to_core_json(off), [0.0, 49.0]) == [0, 0]


RECIPE = """
name = "mini"
title = "mini"
[sweep]
base = "{base}"
runs = 2
[sweep.set]
"simulation.duration_s" = 5.0
"radio.buffer.limit_sdus" = 30
[sweep.grid]
"flows.count" = [1, 2]
[sweep.zip]
"radio.buffer.discipline" = ["red", "sbd"]
"radio.ack_control.mode" = ["none", "rate"]
[[baselines]]
label = "dt"
set = {{ "radio.buffer.discipline" = "droptail", "radio.ack_control.mode" = "none" }}
grid = {{ "flows.count" = [1, 2] }}
[[figures]]
kind = "goodput_delay"
x = "flows.count"
where = {{ "radio.buffer.discipline" = "red" }}
baseline = "dt"
file = "gd"
[[figures]]
kind = "tradeoff"
label = ["radio.buffer.discipline"]
panel = "flows.count"
file = "to"
[[figures]]
kind = "ack_tid"
curves = [{{ "radio.ack_control.mode" = "rate", "radio.ack_control.alpha" = 0.5 }}]
file = "tid"
[[figures]]
kind = "trace_compare"
traces = ["cwnd", "rto", "delivered"]
panels = [{{ label = "red", "radio.buffer.discipline" = "red" }}, {{ "flows.count" = 2 }}]
file = "cmp"
[[figures]]
kind = "trace_histogram"
trace = "rto"
runs = 1
panels = [{{ "flows.count" = 1 }}]
file = "hist"
"""


def test_recipe_with_baseline_tradeoff_and_tid(tmp_path):
    from pathlib import Path

    path = tmp_path / "mini.toml"
    path.write_text(RECIPE.format(base=Path(UMTS).resolve()))
    with Store(tmp_path / "s.sqlite") as store:
        rep = reproduce(str(path), tmp_path / "out", store, jobs=1)
    assert len(rep.result.points()) == 4
    assert len(rep.baselines["dt"].points()) == 2
    for name in ("gd", "to", "tid", "cmp", "hist"):
        assert (tmp_path / "out" / f"{name}.png").stat().st_size > 5000
    report = (tmp_path / "out" / "report.md").read_text()
    assert "Baseline `dt`" in report
    assert (tmp_path / "out" / "baseline-dt.csv").is_file()


def test_recipe_errors_name_the_figure(tmp_path):
    bad = RECIPE.replace('baseline = "dt"', 'baseline = "nope"')
    path = tmp_path / "bad.toml"
    path.write_text(bad.format(base="x.toml"))
    with pytest.raises(ConfigError, match="baseline"):
        find_recipe(str(path))
