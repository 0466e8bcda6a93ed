"""Tests of radiotcp.plots: labels, line counts and files written in every format."""

from __future__ import annotations

import math
import struct
from pathlib import Path

import numpy as np
import pytest
from matplotlib.figure import Figure

from radiotcp import _core, plots
from radiotcp.config import load, to_core_json
from radiotcp.plots import label_for

from .conftest import PRESET

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) in pixels from the IHDR chunk of a PNG file."""
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def check_png(fig: Figure, path: Path) -> None:
    """``path`` is a non-empty PNG whose pixel size is the figure size at 150 dpi."""
    assert path.is_file() and path.stat().st_size > 1000
    w_in, h_in = fig.get_size_inches()
    assert png_size(path) == (round(w_in * plots.PNG_DPI), round(h_in * plots.PNG_DPI))


def sweep_points() -> list[dict]:
    """A queue-limit x flow-count sweep, listed out of order, with one NaN half-width."""
    pts = []
    for flows in (4, 1, 2):
        for limit in (50, 10, 20, 5):
            hw = math.nan if (flows, limit) == (1, 5) else 2.0 + limit / 10
            pts.append(
                {
                    "links.1.queue.limit_packets": limit,
                    "flows.count": flows,
                    "goodput_kbps": {"mean": 300.0 + limit - 5 * flows, "ci90_half_width": hw},
                    "delay_mean_ms": {"mean": 100.0 + 12.0 * limit, "ci90_half_width": hw},
                }
            )
    return pts


@pytest.fixture(scope="module")
def traces() -> dict:
    cfg = to_core_json(load(PRESET, ["flows.count=2"]))
    return _core.simulate(cfg, 1, 0, True)["traces"]


@pytest.mark.parametrize(
    ("key", "label"),
    [
        ("goodput_kbps", "goodput (kb/s)"),
        ("delay_mean_ms", "mean delay (ms)"),
        ("delay_p95_ms", "95th-percentile delay (ms)"),
        ("links.1.queue.limit_packets", "queue limit (packets)"),
        ("links.0.rate_kbps", "link rate (kb/s)"),
        ("simulation.duration_s", "simulation duration (s)"),
        ("bytes_delivered_bytes", "bytes delivered (bytes)"),
        ("flows.count", "number of flows"),
        ("retransmissions", "retransmissions"),
        ("fast_retransmits", "fast retransmits"),
        ("", ""),
    ],
)
def test_label_for(key: str, label: str) -> None:
    assert label_for(key) == label


def test_metric_vs_param_one_line_per_group(tmp_path: Path) -> None:
    fig = plots.plot_metric_vs_param(
        sweep_points(), "links.1.queue.limit_packets", "goodput_kbps", "flows.count"
    )
    ax = fig.axes[0]
    labelled = [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]
    # Readable legend labels (issue 24 item 5), not the raw keys.
    assert [ln.get_label() for ln in labelled] == [
        "number of flows = 1",
        "number of flows = 2",
        "number of flows = 4",
    ]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "number of flows = 1",
        "number of flows = 2",
        "number of flows = 4",
    ]
    # x sorted within each line
    for ln in labelled:
        assert list(ln.get_xdata()) == [5, 10, 20, 50]
    assert ax.get_xlabel() == "queue limit (packets)"
    assert ax.get_ylabel() == "goodput (kb/s)"
    # error bars: 4 points per group, minus the NaN half-width of (1 flow, limit 5)
    bars = sum(len(c.get_segments()) for c in ax.collections)
    assert bars == 3 * 4 - 1
    path = plots.save(fig, tmp_path / "metric.png")
    check_png(fig, path)


def test_metric_vs_param_without_group_and_custom_labels(tmp_path: Path) -> None:
    pts = [{"x_ms": x, "goodput_kbps": 10.0 * x} for x in (3, 1, 2)]
    fig = plots.plot_metric_vs_param(pts, "x_ms", "goodput_kbps", ylabel="rate", title="T")
    ax = fig.axes[0]
    assert len(ax.get_lines()) == 1
    assert list(ax.get_lines()[0].get_ydata()) == [10.0, 20.0, 30.0]
    assert ax.get_legend() is None
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == ("x (ms)", "rate", "T")
    check_png(fig, plots.save(fig, tmp_path / "plain.png"))


def test_metric_vs_param_into_given_axes() -> None:
    fig = Figure()
    ax = fig.add_subplot()
    out = plots.plot_metric_vs_param(sweep_points(), "flows.count", "delay_mean_ms", ax=ax)
    assert out is fig
    assert ax.get_xlabel() == "number of flows"


def test_goodput_delay_two_panels(tmp_path: Path) -> None:
    fig = plots.plot_goodput_delay(sweep_points(), "links.1.queue.limit_packets", "flows.count")
    ax_g, ax_d = fig.axes
    assert ax_g.get_ylabel() == "goodput (kb/s)"
    assert ax_d.get_ylabel() == "mean delay (ms)"
    assert ax_g.get_xlabel() == ax_d.get_xlabel() == "queue limit (packets)"
    for ax in (ax_g, ax_d):
        assert len([ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]) == 3
    check_png(fig, plots.save(fig, tmp_path / "gd.png"))


def test_traces_three_panels(traces: dict, tmp_path: Path) -> None:
    fig = plots.plot_traces(traces, flow=0)
    ax_q, ax_w, ax_s = fig.axes
    # default link: the bottleneck (access link 1, whose queue fills to its limit)
    assert ax_q.get_title().startswith("link 1")
    assert ax_q.get_ylabel() == "queue length (packets)"
    assert ax_q.get_lines()[0].get_ydata().max() == 50
    assert ax_w.get_ylabel() == "window (KB)"
    labels = {ln.get_label(): ln for ln in ax_w.get_lines()}
    assert set(labels) == {"cwnd", "ssthresh"}
    assert not np.isinf(np.asarray(labels["ssthresh"].get_ydata(), dtype=float)).any()
    seq = {ln.get_label(): ln for ln in ax_s.get_lines()}
    assert set(seq) == {"sent", "received", "ACK at sender", "dropped"}
    n_drops = int(np.sum(traces["seq_dropped"]["id"] == 0))
    assert n_drops > 0 and len(seq["dropped"].get_xdata()) == n_drops
    assert seq["dropped"].get_color() == "red"
    # shared time axis
    assert ax_q.get_xlim() == ax_s.get_xlim()
    check_png(fig, plots.save(fig, tmp_path / "traces.png"))


def test_traces_explicit_link_and_flow(traces: dict) -> None:
    fig = plots.plot_traces(traces, flow=1, link=0)
    ax_q, ax_w, _ = fig.axes
    assert ax_q.get_title().startswith("link 0")
    assert ax_w.get_title().startswith("flow 1")


@pytest.mark.parametrize("ext", ["svg", "pdf"])
def test_save_vector_formats_create_dirs(traces: dict, tmp_path: Path, ext: str) -> None:
    head = {"svg": b"<?xml", "pdf": b"%PDF"}[ext]
    for name, fig in (
        ("metric", plots.plot_metric_vs_param(sweep_points(), "flows.count", "goodput_kbps")),
        ("gd", plots.plot_goodput_delay(sweep_points(), "flows.count")),
        ("traces", plots.plot_traces(traces)),
    ):
        path = plots.save(fig, tmp_path / "a" / "b" / f"{name}.{ext}")
        assert path.is_file() and path.stat().st_size > 1000
        assert path.read_bytes()[:8].startswith(head)


def test_save_rejects_unknown_extension(tmp_path: Path) -> None:
    fig = plots.plot_metric_vs_param(sweep_points(), "flows.count", "goodput_kbps")
    with pytest.raises(ValueError, match="unsupported"):
        plots.save(fig, tmp_path / "fig.jpg")


def test_baseline_lines_take_the_group_colour(tmp_path: Path) -> None:
    base = [
        {"flows.count": f, "goodput_kbps": {"mean": 250.0 + f, "ci90_half_width": 1.0}}
        for f in (1, 2, 4)
    ]
    fig = plots.plot_metric_vs_param(
        sweep_points(),
        "links.1.queue.limit_packets",
        "goodput_kbps",
        "flows.count",
        baseline=base,
        baseline_label="drop-tail",
    )
    ax = fig.axes[0]
    dashed = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert sorted(ln.get_ydata()[0] for ln in dashed) == [251.0, 252.0, 254.0]
    solid = {
        ln.get_label(): ln.get_color()
        for ln in ax.get_lines()
        if ln.get_linestyle() == "-" and not ln.get_label().startswith("_")
    }
    for ln in dashed:
        flows = ln.get_label().rsplit("= ", 1)[1]
        assert ln.get_color() == solid[f"number of flows = {flows}"]
    check_png(fig, plots.save(fig, tmp_path / "base.png"))


def test_tradeoff_one_marker_per_point_and_panel(tmp_path: Path) -> None:
    pts = [
        {
            "flows.count": f,
            "radio.buffer.discipline": d,
            "goodput_kbps": {"mean": g, "ci90_half_width": 3.0},
            "delay_mean_ms": {"mean": 100.0 * i + f, "ci90_half_width": 5.0},
        }
        for f in (1, 4)
        for i, (d, g) in enumerate([("droptail", 260.0), ("red", 270.0), ("codel", 250.0)])
    ]
    fig = plots.plot_tradeoff(pts, ["radio.buffer.discipline"], "flows.count", names={"red": "RED"})
    assert len(fig.axes) == 2
    for ax, f in zip(fig.axes, (1, 4), strict=True):
        assert ax.get_title() == f"number of flows = {f}"
        assert ax.get_xlabel() == "mean delay (ms)"
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert labels == ["droptail", "RED", "codel"]
    check_png(fig, plots.save(fig, tmp_path / "tradeoff.png"))


def test_curves_plot(tmp_path: Path) -> None:
    fig = plots.plot_curves([("a", [0, 1, 2], [0, 1, 4]), ("b", [0, 2], [1, 1])], "x", "y")
    ax = fig.axes[0]
    assert [ln.get_label() for ln in ax.get_lines()] == ["a", "b"]
    check_png(fig, plots.save(fig, tmp_path / "curves.png"))


def test_trace_compare_lists_every_run_once(traces: dict, tmp_path: Path) -> None:
    empty = {k: {"time_s": np.empty(0), "id": np.empty(0), "value": np.empty(0)} for k in traces}
    fig = plots.plot_trace_compare(
        [("with data", traces), ("nothing", empty)], ["queue", "cwnd", "delivered", "rto"]
    )
    assert len(fig.axes) == 4
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["with data", "nothing"]
    assert fig.axes[2].get_ylabel() == "goodput (kb/s, 1 s bins)"
    check_png(fig, plots.save(fig, tmp_path / "compare.png"))


def test_figures_state_their_error_bars_and_runs(tmp_path: Path) -> None:
    """Issue 24 item 5: every figure with error bars says what they are and over how many
    runs, under the plot."""
    pts = [
        {"x_ms": x, "goodput_kbps": {"mean": 1.0 * x, "ci90_half_width": 0.5, "n": n}}
        for x, n in ((1, 5), (2, 5), (3, 4))
    ]
    fig = plots.plot_metric_vs_param(pts, "x_ms", "goodput_kbps")
    note = fig.get_supxlabel()
    assert note == "error bars: 90 % Student-t confidence intervals over n = 4-5 runs per point"
    same = [dict(p, goodput_kbps={**p["goodput_kbps"], "n": 5}) for p in pts]
    assert plots.ci_note(same, ["goodput_kbps"]).endswith("over n = 5 runs per point")
    # No run count known: no claim made.
    assert plots.ci_note([{"goodput_kbps": 3.0}], ["goodput_kbps"]) == ""
    check_png(fig, plots.save(fig, tmp_path / "note.png"))
