"""Figures of sweep results and of one run's traces (matplotlib, Agg, no pyplot state).

Every function returns a :class:`matplotlib.figure.Figure` built with the object-oriented API,
so nothing here touches pyplot's global figure manager or needs a display. Write a figure with
:func:`save`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = [
    "label_for",
    "plot_curves",
    "plot_goodput_delay",
    "plot_histograms",
    "plot_metric_vs_param",
    "plot_per_ue",
    "plot_trace_compare",
    "plot_traces",
    "plot_tradeoff",
    "plot_ue_map",
    "save",
]

PNG_DPI = 150

# Unit suffixes of metric and parameter keys -> readable unit (longest suffix tried first).
_UNITS: dict[str, str] = {
    "_packets": "packets",
    "_bytes": "bytes",
    "_kbps": "kb/s",
    "_sdus": "SDUs",
    "_ms": "ms",
    "_s": "s",
}

# Statistic qualifiers that read better in front of the quantity ("delay_mean" -> "mean delay").
_QUALIFIERS: dict[str, str] = {
    "mean": "mean",
    "min": "min",
    "max": "max",
    "p50": "median",
    "p95": "95th-percentile",
    "p99": "99th-percentile",
}

# Whole keys whose generic rendering would read badly.
_KNOWN: dict[str, str] = {
    "flows.count": "number of flows",
    "access.ues": "UEs in the cell",
    "access.ack_filter.scheme": "ACK filter",
    "lte.goodput_kbps": "cell goodput (kb/s)",
}

# Leading sections that name where a key lives, not what it is ("access.buffer.limit_sdus"
# reads "buffer limit (SDUs)").
_SECTIONS = ("access.",)

# Dotted prefixes of list-valued configuration sections and the singular of their name.
_COLLECTIONS: dict[str, str] = {"links": "link", "flows": "flow"}


def label_for(key: str) -> str:
    """Readable axis label of a metric or parameter key, with its unit in parentheses.

    ``goodput_kbps`` -> "goodput (kb/s)", ``delay_mean_ms`` -> "mean delay (ms)",
    ``links.1.queue.limit_packets`` -> "queue limit (packets)", ``links.0.rate_kbps`` ->
    "link rate (kb/s)". Keys without a known unit suffix get their underscores and dots turned
    into spaces.
    """
    if key in _KNOWN:
        return _KNOWN[key]
    for section in _SECTIONS:
        if key.startswith(section) and len(key) > len(section):
            key = key[len(section) :]
    parts = [p for p in key.split(".") if p]
    if not parts:
        return key
    collection = None
    if len(parts) >= 2 and parts[0] in _COLLECTIONS:
        collection = _COLLECTIONS[parts[0]]
        parts = parts[1:]
    parts = [p for p in parts if not p.isdigit()]
    if not parts:
        return key
    last = parts[-1]
    unit = None
    for suffix in sorted(_UNITS, key=len, reverse=True):
        if last.endswith(suffix) and len(last) > len(suffix):
            unit = _UNITS[suffix]
            last = last[: -len(suffix)]
            break
    words = [w for w in last.split("_") if w]
    if not words:
        return key
    qualifiers = [_QUALIFIERS[w] for w in words[1:] if w in _QUALIFIERS]
    words = [words[0]] + [w for w in words[1:] if w not in _QUALIFIERS]
    name = " ".join(qualifiers + words)
    if len(parts) > 1:
        name = " ".join(p.replace("_", " ") for p in parts[:-1]) + " " + name
    elif collection is not None:
        name = f"{collection} {name}"
    return f"{name} ({unit})" if unit else name


def _mean_and_half_width(value: Any) -> tuple[float, float]:
    """``(mean, ci90 half-width)`` of a metric value: a summary dict, a tuple or a number."""
    if value is None:
        return math.nan, math.nan
    if isinstance(value, Mapping):
        mean = value.get("mean", math.nan)
        hw = value.get("ci90_half_width", math.nan)
    elif isinstance(value, Sequence) and not isinstance(value, str):
        mean = value[0] if len(value) > 0 else math.nan
        hw = value[1] if len(value) > 1 else math.nan
    else:
        mean, hw = value, math.nan
    mean = math.nan if mean is None else float(mean)
    hw = math.nan if hw is None else float(hw)
    return mean, hw


def _n_of(value: Any) -> int | None:
    """Runs behind a metric value: a summary dict's ``n`` or a tuple's third entry."""
    if isinstance(value, Mapping):
        n = value.get("n")
    elif isinstance(value, Sequence) and not isinstance(value, str) and len(value) > 2:
        n = value[2]
    else:
        n = None
    # n = 0: no run had the metric (nothing drawn, nothing to state).
    if isinstance(n, int | float) and not isinstance(n, bool) and n > 0:
        return int(n)
    return None


def ci_note(points: Sequence[Mapping[str, Any]], metrics: Sequence[str]) -> str:
    """What the error bars are, with the runs behind them: "error bars: 90 % Student-t
    confidence intervals over n = 5 runs per point" (a range when points differ); "" when no
    point says how many runs it has."""
    ns = {n for p in points for m in metrics if (n := _n_of(p.get(m))) is not None}
    if not ns:
        return ""
    runs = f"{min(ns)}" if len(ns) == 1 else f"{min(ns)}-{max(ns)}"
    return f"error bars: 90 % Student-t confidence intervals over n = {runs} runs per point"


def _caption(fig: Figure, note: str) -> None:
    """The error-bar statement under the figure."""
    if note:
        fig.supxlabel(note, fontsize="x-small", color="0.35")


def _sort_key(v: Any) -> tuple[int, Any]:
    """Numbers before everything else, numbers by value, the rest by their text."""
    if isinstance(v, int | float) and not isinstance(v, bool):
        return (0, float(v))
    return (1, str(v))


def _draw_metric(
    ax: Axes,
    points: Sequence[Mapping[str, Any]],
    x: str,
    metric: str,
    group: str | None,
    baseline: Sequence[Mapping[str, Any]] = (),
    baseline_label: str = "reference",
) -> int:
    """Draw one line (with CI error bars) per group value into ``ax``; returns the line count.

    ``baseline`` points (e.g. the same scenario with drop-tail) are drawn as dashed horizontal
    lines, each in the colour of the group whose value it shares (or grey without a group)."""
    groups: dict[Any, list[Mapping[str, Any]]] = {}
    for p in points:
        if x not in p or metric not in p:
            continue
        g = p.get(group) if group is not None else None
        groups.setdefault(g, []).append(p)
    order = sorted(groups, key=_sort_key)
    for b in baseline:
        if metric not in b:
            continue
        mean, _ = _mean_and_half_width(b[metric])
        if not math.isfinite(mean):
            continue
        # A baseline without the group key (the same for every line) is one grey line.
        color, label = "0.4", baseline_label
        if group is not None and group in b:
            g = b[group]
            if g in order:
                color = f"C{order.index(g) % 10}"
            label = f"{baseline_label}, {label_for(group)} = {g}"
        ax.axhline(mean, color=color, linestyle="--", linewidth=1.0, alpha=0.8, label=label)
    for i, g in enumerate(order):
        pts = sorted(groups[g], key=lambda p: _sort_key(p[x]))
        xs = [p[x] for p in pts]
        stats = [_mean_and_half_width(p[metric]) for p in pts]
        ys = np.array([s[0] for s in stats], dtype=np.float64)
        hws = np.array([s[1] for s in stats], dtype=np.float64)
        label = f"{label_for(group)} = {g}" if group is not None else label_for(metric)
        color = f"C{i % 10}"
        ax.plot(xs, ys, marker="o", markersize=4, color=color, label=label)
        has_bar = np.isfinite(hws) & np.isfinite(ys)
        if has_bar.any():
            ax.errorbar(
                [xv for xv, b in zip(xs, has_bar, strict=True) if b],
                ys[has_bar],
                yerr=hws[has_bar],
                fmt="none",
                ecolor=color,
                elinewidth=1.0,
                capsize=3,
                label="_nolegend_",
            )
    ax.grid(True, alpha=0.3)
    return len(groups)


def plot_metric_vs_param(
    points: Sequence[Mapping[str, Any]],
    x: str,
    metric: str,
    group: str | None = None,
    *,
    ax: Axes | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    baseline: Sequence[Mapping[str, Any]] = (),
    baseline_label: str = "reference",
) -> Figure:
    """One metric against one parameter, one line per value of ``group``; ``baseline`` points
    as dashed horizontal lines.

    ``points`` are dicts holding the parameter values by key and the metric as a summary dict
    ``{"mean", "ci90_half_width", "n"}`` (a ``(mean, half_width, n)`` tuple or a plain number
    also works). Error bars are the 90 % confidence half-widths; a NaN half-width draws no bar.
    Draws into ``ax`` when given and returns its figure.
    """
    own = ax is None
    if ax is None:
        fig = Figure(figsize=(6.4, 4.4), layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
    else:
        root = ax.get_figure(root=True)
        assert root is not None, "an Axes drawn into belongs to a figure"
        fig = root
    n_groups = _draw_metric(ax, points, x, metric, group, baseline, baseline_label)
    ax.set_xlabel(xlabel if xlabel is not None else label_for(x))
    ax.set_ylabel(ylabel if ylabel is not None else label_for(metric))
    if title is not None:
        ax.set_title(title)
    if (group is not None and n_groups > 0) or baseline:
        ax.legend(fontsize="small", framealpha=0.85)
    if own:
        _caption(fig, ci_note(points, [metric]))
    return fig


def plot_per_ue(
    points: Sequence[Mapping[str, Any]],
    field: str,
    group: str | None = None,
    *,
    title: str | None = None,
) -> Figure:
    """A per-UE quantity of the LTE cell as grouped bars: one bar per UE and value of ``group``
    (e.g. the ACK filter), with 90 % CI error bars. ``points`` hold ``lte.ues.<i>.<field>``
    summaries (see :func:`plot_metric_vs_param`); UEs are numbered from 1 as in the paper."""
    fig = Figure(
        figsize=(max(6.4, 0.32 * _ue_count(points, field) + 2.5), 4.2), layout="constrained"
    )
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    n_ues = _ue_count(points, field)
    groups = sorted({p.get(group) if group is not None else None for p in points}, key=_sort_key)
    width = 0.8 / max(1, len(groups))
    xs = np.arange(n_ues, dtype=np.float64)
    for k, g in enumerate(groups):
        pts = [p for p in points if group is None or p.get(group) == g]
        if not pts:
            continue
        stats = [
            _mean_and_half_width(pts[0].get(f"lte.ues.{i}.{field}", math.nan)) for i in range(n_ues)
        ]
        ys = np.array([s[0] for s in stats], dtype=np.float64)
        hws = np.array([s[1] for s in stats], dtype=np.float64)
        label = f"{label_for(group)} = {g}" if group is not None else label_for(field)
        ax.bar(
            xs + (k - (len(groups) - 1) / 2) * width,
            ys,
            width,
            yerr=np.where(np.isfinite(hws), hws, 0.0),
            capsize=2,
            color=f"C{k % 10}",
            label=label,
        )
    ax.set_xticks(xs, [str(i + 1) for i in range(n_ues)], fontsize="small")
    ax.set_xlabel("UE")
    ax.set_ylabel(label_for(field))
    ax.grid(True, axis="y", alpha=0.3)
    if title is not None:
        ax.set_title(title)
    if group is not None:
        ax.legend(fontsize="small", framealpha=0.85)
    _caption(fig, ci_note(points, [f"lte.ues.{i}.{field}" for i in range(n_ues)]))
    return fig


def _ue_count(points: Sequence[Mapping[str, Any]], field: str) -> int:
    n = 0
    for p in points:
        while f"lte.ues.{n}.{field}" in p:
            n += 1
    return n


def plot_ue_map(
    point: Mapping[str, Any],
    isd_m: float = 500.0,
    label_field: str | None = "goodput_kbps",
    *,
    title: str | None = None,
) -> Figure:
    """The UEs of one LTE drop (``lte.ues.<i>.x_m`` / ``y_m`` of ``point``) in the centre
    site's hexagon, coloured by serving sector and numbered from 1, with ``label_field``
    (e.g. goodput) next to each."""
    fig = Figure(figsize=(6.0, 5.6), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    r = isd_m / math.sqrt(3.0)
    hexagon = [
        (r * math.cos(math.radians(60 * k)), r * math.sin(math.radians(60 * k))) for k in range(7)
    ]
    ax.plot([h[0] for h in hexagon], [h[1] for h in hexagon], color="0.5", linewidth=1.0)
    ax.plot([0.0], [0.0], marker="^", color="k", markersize=9)
    i = 0
    while f"lte.ues.{i}.x_m" in point:
        x, _ = _mean_and_half_width(point[f"lte.ues.{i}.x_m"])
        y, _ = _mean_and_half_width(point[f"lte.ues.{i}.y_m"])
        sec, _ = _mean_and_half_width(point.get(f"lte.ues.{i}.sector", 0.0))
        if math.isfinite(x) and math.isfinite(y):
            ax.plot([x], [y], marker="o", color=f"C{int(sec) % 10}", markersize=6)
            text = f"{i + 1}"
            if label_field is not None:
                v, _ = _mean_and_half_width(point.get(f"lte.ues.{i}.{label_field}", math.nan))
                if math.isfinite(v):
                    text += f" ({v:.3g})"
            ax.annotate(text, (x, y), textcoords="offset points", xytext=(4, 3), fontsize=7)
        i += 1
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.grid(True, alpha=0.3)
    ax.set_title(
        title
        or "UEs of the drop (colour = sector"
        + (f", label = {label_field})" if label_field else ")")
    )
    return fig


def plot_goodput_delay(
    points: Sequence[Mapping[str, Any]],
    x: str,
    group: str | None = None,
    goodput: str = "goodput_kbps",
    delay: str = "delay_mean_ms",
    baseline: Sequence[Mapping[str, Any]] = (),
    baseline_label: str = "reference",
) -> Figure:
    """Goodput (left) and delay (right) against the same parameter, side by side; ``baseline``
    points as dashed horizontal lines."""
    fig = Figure(figsize=(11.0, 4.2), layout="constrained")
    FigureCanvasAgg(fig)
    ax_g, ax_d = fig.subplots(1, 2)
    n_groups = _draw_metric(ax_g, points, x, goodput, group, baseline, baseline_label)
    _draw_metric(ax_d, points, x, delay, group, baseline, baseline_label)
    for ax, metric in ((ax_g, goodput), (ax_d, delay)):
        ax.set_xlabel(label_for(x))
        ax.set_ylabel(label_for(metric))
        ax.set_ylim(bottom=0)
    if (group is not None and n_groups > 0) or baseline:
        ax_g.legend(fontsize="small", framealpha=0.85)
    _caption(fig, ci_note(points, [goodput, delay]))
    return fig


def plot_tradeoff(
    points: Sequence[Mapping[str, Any]],
    label: Sequence[str],
    panel: str | None = None,
    goodput: str = "goodput_kbps",
    delay: str = "delay_mean_ms",
    names: Mapping[str, str] | None = None,
) -> Figure:
    """Goodput against delay, one marker (with both 90 % CI bars) per point, named by the
    values of the ``label`` keys joined by spaces (``names`` maps such a string to a display
    name); one panel per value of ``panel``. Up and to the left is better: the figure compares
    mechanisms on the trade-off the papers optimise."""
    names = names or {}

    def name_of(p: Mapping[str, Any]) -> str:
        raw = " ".join(str(p.get(k, "")) for k in label)
        return names.get(raw, raw)

    panels: dict[Any, list[Mapping[str, Any]]] = {}
    for p in points:
        panels.setdefault(p.get(panel) if panel is not None else None, []).append(p)
    keys = sorted(panels, key=_sort_key)
    fig = Figure(figsize=(5.6 * max(len(keys), 1), 4.6), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, max(len(keys), 1), squeeze=False)[0]
    order: list[str] = []
    for p in points:
        if name_of(p) not in order:
            order.append(name_of(p))
    markers = "osD^vP*Xh<>"
    for ax, k in zip(axes, keys, strict=False):
        for p in panels[k]:
            name = name_of(p)
            i = order.index(name)
            gx, gh = _mean_and_half_width(p.get(goodput))
            dx, dh = _mean_and_half_width(p.get(delay))
            ax.errorbar(
                [dx],
                [gx],
                xerr=[dh] if math.isfinite(dh) else None,
                yerr=[gh] if math.isfinite(gh) else None,
                marker=markers[i % len(markers)],
                markersize=7,
                color=f"C{i % 10}",
                capsize=3,
                linestyle="none",
                label=name,
            )
        ax.set_xlabel(label_for(delay))
        ax.set_ylabel(label_for(goodput))
        if panel is not None:
            ax.set_title(f"{label_for(panel)} = {k}", fontsize="medium")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small", framealpha=0.85)
    _caption(fig, ci_note(points, [goodput, delay]))
    return fig


# How plot_trace_compare draws each trace: axis label and a transform of (time, value).
_COMPARE: dict[str, tuple[str, str]] = {
    "cwnd": ("cwnd (KB)", "kb"),
    "ssthresh": ("ssthresh (KB)", "kb"),
    "rto": ("RTO (s)", "ms_to_s"),
    "ack_queue": ("ACKs queued at the BS", "step"),
    "cwnd_reductions": ("cwnd reductions (cumulative)", "step"),
    "delivered": ("goodput (kb/s, 1 s bins)", "rate"),
    "buffer": ("buffer occupancy", "step"),
    "queue": ("queue length (packets)", "step"),
}


def _rate_kbps(t: np.ndarray, v: np.ndarray, t_end: float, bin_s: float = 1.0):
    """Goodput per bin from a cumulative byte count sampled at deliveries."""
    if t.size == 0:
        return np.empty(0), np.empty(0)
    edges = np.arange(0.0, max(t_end, bin_s) + bin_s, bin_s)
    # Bytes delivered by each edge: the last sample at or before it (0 before the first).
    idx = np.searchsorted(t, edges, side="right") - 1
    cum = np.where(idx >= 0, v[np.clip(idx, 0, None)], 0.0)
    return edges[1:], np.diff(cum) * 8.0 / bin_s / 1000.0


def plot_trace_compare(
    runs: Sequence[tuple[str, Mapping[str, Mapping[str, np.ndarray]]]],
    names: Sequence[str],
    flow: int = 0,
) -> Figure:
    """Stacked panels, one per trace name, each with one line per labelled run: e.g. the
    cwnd, the BS ACK queue, the cumulative cwnd reductions, goodput over time and the RTO of
    the same scenario with and without a mechanism. ``runs`` are ``(label, traces)``."""
    t_end = 0.0
    for _, traces in runs:
        for tr in traces.values():
            if len(tr["time_s"]) > 0:
                t_end = max(t_end, float(np.max(tr["time_s"])))
    fig = Figure(figsize=(8.0, 1.9 * max(len(names), 1) + 0.8), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(max(len(names), 1), 1, sharex=True, squeeze=False)[:, 0]
    for ax, name in zip(axes, names, strict=False):
        label, how = _COMPARE.get(name, (name, "step"))
        for i, (run_label, traces) in enumerate(runs):
            entity = 0 if name in ("ack_queue", "buffer") else flow
            t, v = _series(traces, name, entity)
            style = {"color": f"C{i % 10}", "linewidth": 1.0, "label": run_label}
            if how == "rate":
                x, y = _rate_kbps(t, v, t_end)
                ax.step(x, y, where="pre", **style)
                continue
            if how in ("kb", "ms_to_s"):
                v = v / 1000.0
            _step_to_end(ax, t, v, t_end, **style)
        ax.set_ylabel(label)
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
    # One entry per run, even if a run has no samples in the first panel (e.g. no BS queue
    # without the controller).
    handles: dict[str, Any] = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(lab, h)
    order = [lab for lab, _ in runs if lab in handles]
    axes[0].legend(
        [handles[lab] for lab in order], order, fontsize="small", framealpha=0.85, loc="upper left"
    )
    axes[-1].set_xlabel("time (s)")
    axes[-1].set_xlim(0.0, t_end if t_end > 0 else None)
    return fig


def plot_histograms(
    panels: Sequence[tuple[str, Sequence[float]]],
    xlabel: str,
    bins: int = 40,
) -> Figure:
    """One histogram per ``(title, values)`` panel, stacked with a shared x axis and the same
    bins, each annotated with its sample count, mean and standard deviation (e.g. the TCP RTO
    values of several RLP configurations, Bai et al. Fig. 12)."""
    fig = Figure(figsize=(6.4, 2.2 * max(len(panels), 1) + 0.6), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(max(len(panels), 1), 1, sharex=True, squeeze=False)[:, 0]
    finite = [np.asarray(v, dtype=np.float64) for _, v in panels]
    finite = [v[np.isfinite(v)] for v in finite]
    allv = np.concatenate(finite) if finite else np.empty(0)
    edges = np.histogram_bin_edges(allv, bins=bins) if allv.size else np.linspace(0, 1, bins + 1)
    for i, (ax, (title, _), v) in enumerate(zip(axes, panels, finite, strict=False)):
        ax.hist(v, bins=edges, color=f"C{i % 10}", alpha=0.85)
        text = f"n = {v.size}"
        if v.size:
            text += f", mean {v.mean():.0f}, sd {v.std():.0f}"
        ax.set_title(f"{title} ({text})", fontsize="medium")
        ax.set_ylabel("samples")
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel(xlabel)
    return fig


def plot_curves(
    curves: Sequence[tuple[str, Sequence[float], Sequence[float]]],
    xlabel: str,
    ylabel: str,
    title: str | None = None,
) -> Figure:
    """Plain functions, one line per ``(label, xs, ys)``: e.g. the ACK rate control's
    t_id = f(BO) for several parameter sets."""
    fig = Figure(figsize=(6.4, 4.4), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for i, (name, xs, ys) in enumerate(curves):
        ax.plot(xs, ys, color=f"C{i % 10}", linewidth=1.5, label=name)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title is not None:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.set_ylim(bottom=0)
    if curves:
        ax.legend(fontsize="small", framealpha=0.85)
    return fig


def _series(traces: Mapping[str, Mapping[str, np.ndarray]], name: str, entity: int):
    """``(time_s, value)`` of one entity's samples in trace ``name`` (empty if absent)."""
    tr = traces.get(name)
    if tr is None:
        return np.empty(0), np.empty(0)
    t = np.asarray(tr["time_s"], dtype=np.float64)
    ids = np.asarray(tr["id"])
    v = np.asarray(tr["value"], dtype=np.float64)
    sel = ids == entity
    return t[sel], v[sel]


def _busiest_link(traces: Mapping[str, Mapping[str, np.ndarray]]) -> int:
    """Id of the link whose queue trace reaches the largest length (lowest id on ties)."""
    tr = traces.get("queue")
    if tr is None or len(tr["id"]) == 0:
        return 0
    ids = np.asarray(tr["id"])
    v = np.asarray(tr["value"], dtype=np.float64)
    best, best_max = 0, -math.inf
    for link in np.unique(ids):
        m = float(v[ids == link].max())
        if m > best_max:
            best, best_max = int(link), m
    return best


def _step_to_end(ax: Axes, t: np.ndarray, v: np.ndarray, t_end: float, **kwargs: Any) -> None:
    """Step plot holding each value until the next sample, the last one until ``t_end``."""
    if t.size == 0:
        return
    if t_end > t[-1]:
        t = np.append(t, t_end)
        v = np.append(v, v[-1])
    ax.step(t, v, where="post", **kwargs)


def plot_traces(
    traces: Mapping[str, Mapping[str, np.ndarray]],
    flow: int = 0,
    link: int | None = None,
) -> Figure:
    """Three stacked panels of one run's traces sharing the time axis.

    Top: with a radio bearer, the RLC downlink buffer occupancy in SDUs (the papers' BO);
    otherwise packets in the data-direction queue of ``link`` (default: the link whose queue
    grows longest). Middle: cwnd and ssthresh of ``flow`` in KB (an infinite ssthresh is not
    drawn); when cwnd outgrows the receiver's window, min(cwnd, rwnd) is the main line.
    Bottom: first byte (in KB) of every data segment of ``flow`` sent and received, drops
    marked with a red x. ``traces`` is ``simulate(..., traces=True)["traces"]``.
    """
    if link is None:
        link = _busiest_link(traces)
    t_end = 0.0
    for tr in traces.values():
        if len(tr["time_s"]) > 0:
            t_end = max(t_end, float(np.max(tr["time_s"])))

    fig = Figure(figsize=(8.0, 8.0), layout="constrained")
    FigureCanvasAgg(fig)
    ax_q, ax_w, ax_s = fig.subplots(3, 1, sharex=True)

    tb, bo = _series(traces, "buffer", 0)
    if tb.size > 0:
        _step_to_end(ax_q, tb, bo, t_end, color="C0", linewidth=0.9)
        ax_q.set_ylabel("buffer occupancy (SDUs)")
        ax_q.set_title("RLC downlink buffer", fontsize="medium")
    else:
        tq, q = _series(traces, "queue", link)
        _step_to_end(ax_q, tq, q, t_end, color="C0", linewidth=0.9)
        ax_q.set_ylabel("queue length (packets)")
        ax_q.set_title(f"link {link}: data-direction queue", fontsize="medium")
    ax_q.set_ylim(bottom=0)

    tw, w = _series(traces, "cwnd", flow)
    tv, v = _series(traces, "window", flow)
    ts, s = _series(traces, "ssthresh", flow)
    finite = np.isfinite(s)
    # RFC 5681 lets cwnd grow while the receiver's window limits the sender, so cwnd alone can
    # climb far above anything in flight. When it does, draw the send window min(cwnd, rwnd)
    # as the main line and scale the axis to it, cwnd being partly off the scale.
    capped = v.size > 0 and w.size > 0 and float(w.max()) > 1.5 * float(v.max())
    if capped:
        _step_to_end(
            ax_w, tv, v / 1000.0, t_end, color="C0", linewidth=1.0, label="min(cwnd, rwnd)"
        )
        _step_to_end(
            ax_w, tw, w / 1000.0, t_end, color="C2", linewidth=0.8, linestyle=":", label="cwnd"
        )
    else:
        _step_to_end(ax_w, tw, w / 1000.0, t_end, color="C0", linewidth=1.0, label="cwnd")
    if finite.any():
        # Hold each finite ssthresh until the next change; an infinite one is left blank.
        s_kb = np.where(finite, s / 1000.0, np.nan)
        _step_to_end(
            ax_w, ts, s_kb, t_end, color="C1", linestyle="--", linewidth=1.0, label="ssthresh"
        )
    ax_w.set_ylabel("window (KB)")
    ax_w.set_title(f"flow {flow}: congestion window", fontsize="medium")
    if capped:
        top = float(v.max())
        if finite.any():
            top = max(top, float(np.nanmax(np.where(finite, s, np.nan))))
        ax_w.set_ylim(0, 1.25 * top / 1000.0)
        ax_w.set_title(
            f"flow {flow}: window (cwnd grows above the receiver's window, off the scale)",
            fontsize="medium",
        )
    else:
        ax_w.set_ylim(bottom=0)
    ax_w.legend(loc="best", fontsize="small", framealpha=0.85)

    t_sent, seq_sent = _series(traces, "seq_sent", flow)
    t_recv, seq_recv = _series(traces, "seq_received", flow)
    t_drop, seq_drop = _series(traces, "seq_dropped", flow)
    ax_s.plot(
        t_sent,
        seq_sent / 1000.0,
        linestyle="none",
        marker=".",
        markersize=2.5,
        color="C0",
        label="sent",
    )
    ax_s.plot(
        t_recv,
        seq_recv / 1000.0,
        linestyle="none",
        marker=".",
        markersize=1.5,
        color="C2",
        label="received",
    )
    t_ack, seq_ack = _series(traces, "ack_received", flow)
    if t_ack.size:
        ax_s.plot(
            t_ack,
            seq_ack / 1000.0,
            linestyle="none",
            marker=".",
            markersize=1.5,
            color="C4",
            label="ACK at sender",
        )
    ax_s.plot(
        t_drop,
        seq_drop / 1000.0,
        linestyle="none",
        marker="x",
        markersize=6,
        markeredgewidth=1.3,
        color="red",
        label="dropped",
    )
    ax_s.set_ylabel("sequence number (KB)")
    ax_s.set_xlabel("time (s)")
    ax_s.set_title(f"flow {flow}: data segments", fontsize="medium")
    legend = ax_s.legend(loc="upper left", fontsize="small", framealpha=0.85)
    for handle in legend.legend_handles:  # the dots are tiny in the plot; readable in the key
        handle.set_markersize(6)

    for ax in (ax_q, ax_w, ax_s):
        ax.grid(True, alpha=0.3)
    ax_s.set_xlim(0.0, t_end if t_end > 0 else None)
    return fig


def save(fig: Figure, path: str | Path) -> Path:
    """Write ``fig`` to ``path`` (PNG, PDF or SVG by extension), creating parent directories.

    PNGs are rendered at 150 dpi. Returns the path written.
    """
    p = Path(path)
    ext = p.suffix.lower().lstrip(".")
    if ext not in ("png", "pdf", "svg"):
        raise ValueError(f"unsupported figure format {p.suffix!r}: use .png, .pdf or .svg")
    p.parent.mkdir(parents=True, exist_ok=True)
    kwargs: dict[str, Any] = {"format": ext}
    if ext == "png":
        kwargs["dpi"] = PNG_DPI
    fig.savefig(p, **kwargs)
    return p
