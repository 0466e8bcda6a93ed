"""The tour (`radiotcp reproduce tour`, `make demo`): its stops name real recipes, figures and
grid keys; a stop runs its recipe reduced and the report links every figure."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from radiotcp.errors import ConfigError
from radiotcp.reproduce import find_recipe
from radiotcp.store import Store
from radiotcp.tour import load_tour, run_tour, tour_file

ROOT = Path(__file__).resolve().parent.parent


def test_every_stop_names_a_recipe_figure_and_grid_keys_it_has():
    path = tour_file([ROOT / "recipes"])
    assert path is not None
    tour = load_tour(path)
    assert len(tour.stops) == 5, "one stop per system"
    for stop in tour.stops:
        recipe, _ = find_recipe(stop.recipe, [ROOT / "recipes"])
        assert stop.figure in [f.file for f in recipe.figures]
        assert set(stop.grid) <= set(recipe.sweep.get("grid", {}))
        assert stop.runs < recipe.sweep.get("runs", 20), "a tour stop is a reduced run"


def _tour_dir(tmp_path: Path, stop: str) -> Path:
    d = tmp_path / "recipes"
    (d / "tour").mkdir(parents=True)
    shutil.copy(ROOT / "recipes" / "wired-buffer.toml", d / "wired-buffer.toml")
    (d / "tour" / "tour.toml").write_text(
        'name = "tour"\ntitle = "A test tour"\n[[stops]]\n' + stop
    )
    return d


def test_a_stop_runs_its_recipe_reduced_and_the_report_links_the_figure(tmp_path):
    d = _tour_dir(
        tmp_path,
        'system = "wired"\nrecipe = "wired-buffer"\nfigure = "drops-vs-buffer"\nruns = 2\n'
        'grid = { "links.1.queue.limit_packets" = [5, 40], "flows.count" = [2] }\n'
        'paper = "none"\nclaim = "a claim"\n',
    )
    # The recipe folder's base paths are relative to it: point the copy at the real presets.
    text = (d / "wired-buffer.toml").read_text().replace("../scenarios/", f"{ROOT}/scenarios/")
    (d / "wired-buffer.toml").write_text(text)
    out = tmp_path / "out"
    with Store(tmp_path / "s.sqlite") as store:
        res = run_tour(out, store, jobs=1, dirs=[d])
    (rep,) = res.stops
    assert len(rep.result.points()) == 2 and res.runs == 4
    assert [f.file for f in rep.recipe.figures] == ["drops-vs-buffer"]
    assert (out / "wired-buffer" / "drops-vs-buffer.png").is_file()
    report = res.report.read_text()
    assert "](wired-buffer/drops-vs-buffer.png)" in report
    assert "`radiotcp reproduce wired-buffer`" in report
    assert "2 points x 2 runs" in report
    # Stored under its own sweep name: never mixed with the full recipe's runs.
    with Store(tmp_path / "s.sqlite") as store:
        again = run_tour(out, store, jobs=1, dirs=[d])
    assert again.computed == 0


@pytest.mark.parametrize(
    "stop, key",
    [
        ('figure = "nope"\nruns = 2\n', "stops.0.figure"),
        ('figure = "drops-vs-buffer"\nruns = 2\ngrid = { "flows.cnt" = [1] }\n', "stops.0.grid"),
    ],
)
def test_a_stop_naming_what_its_recipe_lacks_is_one_error(tmp_path, stop, key):
    d = _tour_dir(
        tmp_path,
        f'system = "wired"\nrecipe = "wired-buffer"\n{stop}paper = "p"\nclaim = "c"\n',
    )
    with Store(tmp_path / "s.sqlite") as store, pytest.raises(ConfigError) as e:
        run_tour(tmp_path / "out", store, jobs=1, dirs=[d])
    assert e.value.key == key
