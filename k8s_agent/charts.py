"""The pictures of the reports, as inline SVG strings: drawn by matplotlib, imported only when drawing.

matplotlib is an optional extra (`pip install 'k8s-agent[charts]'`); without it `available()` is
False and every page shows its plain tables with `NOTE`. Nothing here imports it at module import
time, so importing the CLI costs what it did. Set `K8S_AGENT_NO_CHARTS=1` to draw nothing.

Every chart is self-contained SVG (no fonts, images or scripts fetched) that reads on a light and
a dark page: the background is transparent, text and axes are `currentColor` (the page's text
colour; `standalone()` gives a file of its own a colour for each scheme), and the data colours are
mid-tones that read on white and on near-black. Every data mark carries an id with `mark-` in it
(`mark-turn-`, `mark-call-`, `mark-point-`, `mark-score-`, `mark-floor-`, `mark-pair-`): a test counts them.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

NOTE = "Charts need matplotlib: pip install 'k8s-agent[charts]'"
DISABLE = "K8S_AGENT_NO_CHARTS"

INK = "#010203"
"""The colour text and axes are drawn in; replaced by currentColor in the SVG."""
IMPL_COLOURS = {"handwritten": "#3b82f6", "sdk": "#f08c00"}
KIND_COLOURS = {
    "model": "#3b82f6",
    "executed": "#2f9e44",
    "cached": "#d9a400",
    "rejected": "#e03131",
    "failed": "#e03131",
    "skipped": "#868e96",
    "guardrail": "#ae3ec9",
}
GRID = "#8c8c8c"


def available() -> bool:
    """Whether charts can be drawn: matplotlib imports and K8S_AGENT_NO_CHARTS is not set."""
    if os.environ.get(DISABLE, "").strip() not in ("", "0"):
        return False
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def colour(impl: str) -> str:
    """The data colour of an implementation (grey for one not known)."""
    return IMPL_COLOURS.get(impl, "#868e96")


# -- the SVG -----------------------------------------------------------------------------------------


def _rc() -> Any:
    """The style of every chart (typed loosely: matplotlib types its keys as one Literal)."""
    return {
        "svg.fonttype": "none",  # text stays text: small, selectable, in the page's font
        "svg.hashsalt": "k8s-agent",  # the same chart gives the same SVG
        "font.family": "sans-serif",
        "font.sans-serif": ["DejaVu Sans", "Arial", "Helvetica"],
        "font.size": 8.5,
        "text.color": INK,
        "axes.edgecolor": INK,
        "axes.labelcolor": INK,
        "axes.titlecolor": INK,
        "axes.facecolor": "none",
        "figure.facecolor": "none",
        "xtick.color": INK,
        "ytick.color": INK,
        "xtick.labelcolor": INK,
        "ytick.labelcolor": INK,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": False,
        "grid.color": GRID,
        "grid.alpha": 0.35,
        "grid.linewidth": 0.6,
        "legend.frameon": False,
        "savefig.transparent": True,
    }


def _figure(width: float, height: float, **layout: Any) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout=layout.pop("layout", "constrained"), **layout)


def _svg(figure: Figure, label: str) -> str:
    """The figure as an inline <svg>: ids made unique per chart, ink as currentColor, sized to fit."""
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None}, transparent=True)
    text = buffer.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)
    prefix = "c" + hashlib.sha256(text.encode()).hexdigest()[:8] + "-"
    text = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}{m.group(1)}"', text)
    text = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}{m.group(1)})", text)
    text = re.sub(r'href="#([^"]+)"', lambda m: f'href="#{prefix}{m.group(1)}"', text)
    text = text.replace(INK, "currentColor")
    text = re.sub(r"font: ([^;\"]*?)'DejaVu Sans'", r"font: \1system-ui, 'DejaVu Sans', sans-serif", text)
    width = re.search(r'<svg[^>]*\bwidth="([\d.]+)pt"', text)
    style = f"max-width:{width.group(1)}pt;" if width else ""
    text = re.sub(
        r"<svg\b",
        f'<svg class="k8s-chart" role="img" aria-label="{_attr(label)}" fill="currentColor" '
        f'style="{style}width:100%;height:auto;color:inherit"',
        text,
        count=1,
    )
    text = re.sub(r'(<svg[^>]*?) width="[\d.]+pt" height="[\d.]+pt"', r"\1", text, count=1)
    return text.strip()


def _attr(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def standalone(svg: str) -> str:
    """An inline chart as an .svg file of its own: dark text on light pages, light on dark."""
    style = (
        "<style>.k8s-chart{color:#24292f}"
        "@media (prefers-color-scheme: dark){.k8s-chart{color:#e6edf3}}</style>"
    )
    body = re.sub(r"(<svg\b[^>]*>)", lambda m: m.group(1) + style, svg, count=1)
    return '<?xml version="1.0" encoding="utf-8" standalone="no"?>\n' + body + "\n"


# -- compare: one run's timeline ------------------------------------------------------------------------


@dataclass(frozen=True)
class Span:
    """Something that took time in a run: a model turn or a tool call (seconds from the run's start)."""

    start: float
    end: float
    kind: str
    """"model", or a tool call's outcome ("executed", "cached", "rejected", "failed", "skipped")."""
    label: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class Mark:
    """A moment: a guardrail that fired."""

    at: float
    label: str


def timeline_chart(
    impl: str,
    spans: Sequence[Span],
    marks: Sequence[Mark] = (),
    *,
    until: float,
    tokens_max: int,
    title: str | None = None,
) -> str:
    """One run on a time axis: model turns and tool calls on two lanes, guardrails as ticks, and the
    tokens of each turn (prompt and completion) below. `until` and `tokens_max` are shared by the
    two runs of a scenario, so their pictures line up. Drawn in the implementation's colour, under
    `title` (default: the implementation)."""
    title = title or impl
    import matplotlib

    with matplotlib.rc_context(_rc()):
        figure = _figure(6.2, 2.2)
        lanes, tokens = figure.subplots(2, 1, sharex=True, height_ratios=[1.3, 1])
        scale, unit = (1000.0, "ms") if until < 2 else (1.0, "s")
        turns = [span for span in spans if span.kind == "model"]
        calls = [span for span in spans if span.kind != "model"]
        for number, span in enumerate(turns, 1):
            _bar(lanes, span, 1, scale, f"mark-turn-{number}", KIND_COLOURS["model"])
            lanes.text(
                (span.start + span.end) / 2 * scale, 1, str(number), ha="center", va="center", fontsize=7
            )
        for number, span in enumerate(calls, 1):
            _bar(lanes, span, 0, scale, f"mark-call-{number}", KIND_COLOURS.get(span.kind, "#868e96"))
        for number, mark in enumerate(marks, 1):
            lanes.plot(
                [mark.at * scale],
                [0.5],
                marker="v",
                markersize=6,
                color=KIND_COLOURS["guardrail"],
                gid=f"mark-guardrail-{number}",
                linestyle="none",
            )
        lanes.set_yticks([0, 1], ["tools", "model"])
        lanes.set_ylim(-0.6, 1.6)
        lanes.set_title(title, loc="left", fontsize=9, color=colour(impl), fontweight="bold")
        width = max((until * scale) / 160, 1e-9)
        for number, span in enumerate(turns, 1):
            middle = (span.start + span.end) / 2 * scale
            tokens.bar(
                [middle],
                [span.prompt_tokens],
                width=width * 3,
                color=colour(impl),
                gid=f"mark-tokens-{number}",
            )
            tokens.bar(
                [middle],
                [span.completion_tokens],
                bottom=[span.prompt_tokens],
                width=width * 3,
                color=colour(impl),
                alpha=0.45,
            )
        tokens.set_ylim(0, max(tokens_max, 1) * 1.15)
        tokens.set_ylabel("tokens")
        tokens.set_xlim(0, until * scale * 1.02)
        tokens.set_xlabel(f"time since the run started ({unit}); bars: prompt, pale top: completion")
        tokens.grid(axis="y")
        return _svg(figure, f"timeline of the {title} run: {len(turns)} model turns, {len(calls)} tool calls")


def _bar(axes: Axes, span: Span, lane: int, scale: float, gid: str, colour: str) -> None:
    from matplotlib.patches import Rectangle

    start = span.start * scale
    width = max((span.end - span.start) * scale, 0.0)
    rectangle = Rectangle((start, lane - 0.35), width, 0.7, facecolor=colour, edgecolor=colour, linewidth=1.2)
    rectangle.set_gid(gid)
    axes.add_patch(rectangle)


def timeline_legend() -> str:
    """The key of the timeline charts, as HTML swatches."""
    keys = [
        ("model", "model turn (numbered)"),
        ("executed", "tool call executed"),
        ("cached", "duplicate, answered from cache"),
        ("rejected", "rejected or failed"),
        ("guardrail", "guardrail fired (▼)"),
    ]
    return " ".join(
        f'<span class="swatch" style="background:{KIND_COLOURS[kind]}"></span>{text}' for kind, text in keys
    )


# -- bench --scale ----------------------------------------------------------------------------------


def scale_chart(rows: Sequence[dict[str, Any]], targets: dict[str, int]) -> str:
    """Request size and bytes per run against cluster size: each implementation with the context
    budget and without, log-log, with the targets as dotted lines."""
    import matplotlib
    from matplotlib.ticker import FuncFormatter

    panels = (
        ("largest_request_bytes", "largest request (KB)"),
        ("bytes_sent", "bytes sent per run (KB)"),
    )
    with matplotlib.rc_context(_rc()):
        figure = _figure(7.6, 3.0)
        axes = figure.subplots(1, 2)
        series = sorted({(row["impl"], bool(row["budget"])) for row in rows}, key=lambda s: (not s[1], s[0]))
        for panel, (key, title) in zip(axes, panels, strict=True):
            for impl, budget in series:
                mine = sorted(
                    (row for row in rows if row["impl"] == impl and bool(row["budget"]) == budget),
                    key=lambda row: row["pods"],
                )
                name = f"series-{impl}-{'budget' if budget else 'none'}-{key}"
                (line,) = panel.plot(
                    [row["pods"] for row in mine],
                    [row[key] / 1024 for row in mine],
                    color=colour(impl),
                    linestyle="-" if budget else "--",
                    marker="o" if impl == "handwritten" else "x",
                    markersize=5 if impl == "handwritten" else 6,
                    linewidth=1.4,
                    label=f"{impl}, {'32k budget' if budget else 'no budget'}",
                )
                line.set_gid(name)
            if key in targets:
                panel.axhline(targets[key] / 1024, color=GRID, linestyle=":", linewidth=1)
                panel.annotate(
                    f"target {targets[key] // 1024} KB",
                    (0.02, targets[key] / 1024),
                    xycoords=("axes fraction", "data"),
                    textcoords="offset points",
                    xytext=(0, 3),
                    fontsize=7,
                )
            panel.set_xscale("log")
            panel.set_yscale("log")
            sizes = sorted({row["pods"] for row in rows})
            panel.set_xticks(sizes, [f"{size:,}" if size < 10_000 else f"{size // 1000}k" for size in sizes])
            panel.minorticks_off()
            panel.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.0f}"))
            panel.set_xlabel("cluster size (pods)")
            panel.set_title(title, loc="left", fontsize=9)
            panel.grid(which="major")
        axes[0].legend(fontsize=7, loc="upper left", title="the implementations overlap", title_fontsize=7)
        return _svg(
            figure, "request size and bytes per run against cluster size, with and without the budget"
        )


# -- eval ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Score:
    """One score of one group (implementation and model), with its 95% interval; values in 0-1.
    `floor`: the group is a baseline (a scripted answer), drawn apart as the floor."""

    group: str
    impl: str
    metric: str
    value: float
    low: float
    high: float
    floor: bool = False


FLOOR = "#868e96"
"""The colour of the baselines' points: grey rings, whatever their implementation."""


def scores_chart(scores: Sequence[Score]) -> str:
    """Each score per implementation and model as a dot with its confidence interval as a whisker;
    the baselines (floor) as grey rings below the real models, their marks `mark-floor-N`."""
    import matplotlib

    ordered = [score for score in scores if not score.floor] + [score for score in scores if score.floor]
    metrics = list(dict.fromkeys(score.metric for score in ordered))
    groups = list(dict.fromkeys(score.group for score in ordered))
    impl_of = {score.group: score.impl for score in ordered}
    floors = {score.group for score in ordered if score.floor}
    real = [group for group in groups if group not in floors]

    def tint(group: str) -> str:
        return FLOOR if group in floors else _tint(impl_of[group], real.index(group))

    with matplotlib.rc_context(_rc()):
        figure = _figure(6.4, 0.5 + 0.32 * len(metrics) * max(len(groups), 1) ** 0.6 + 0.6)
        axes = figure.subplots()
        step = 0.7 / max(len(groups), 1)
        numbers = {False: 0, True: 0}
        for score in ordered:
            row = metrics.index(score.metric)
            offset = (groups.index(score.group) - (len(groups) - 1) / 2) * step
            y = row + offset
            colour_of = tint(score.group)
            axes.plot([100 * score.low, 100 * score.high], [y, y], color=colour_of, linewidth=2, alpha=0.6)
            numbers[score.floor] += 1
            (dot,) = axes.plot(
                [100 * score.value],
                [y],
                marker="o",
                markersize=5.5,
                color=colour_of,
                markerfacecolor="none" if score.floor else colour_of,
                linestyle="none",
            )
            dot.set_gid(f"mark-{'floor' if score.floor else 'score'}-{numbers[score.floor]}")
        for group in groups:
            axes.plot(
                [],
                [],
                marker="o",
                color=tint(group),
                markerfacecolor="none" if group in floors else tint(group),
                label=f"floor: {group}" if group in floors else group,
            )
        axes.set_yticks(range(len(metrics)), metrics)
        axes.set_ylim(len(metrics) - 0.5, -0.5)
        axes.set_xlim(-2, 102)
        axes.set_xlabel("score (%), whiskers: 95% confidence interval; rings: baselines (the floor)")
        axes.grid(axis="x")
        axes.legend(fontsize=7, loc="lower left", bbox_to_anchor=(0, 1.0), ncols=min(max(len(groups), 1), 4))
        return _svg(figure, "scores per implementation and model with 95% confidence intervals")


def _tint(impl: str, number: int) -> str:
    """The implementation's colour; a second model of one implementation in another shade."""
    shades = {
        "handwritten": ["#3b82f6", "#15aabf", "#7950f2"],
        "sdk": ["#f08c00", "#e8590c", "#c2255c"],
    }
    choices = shades.get(impl, ["#868e96"])
    return choices[number // 2 % len(choices)] if impl in shades else choices[0]


def pair_chart(first: str, second: str, differences: dict[str, float]) -> str:
    """Per incident: the first implementation's solved rate minus the second's (-100 to +100 points)."""
    import matplotlib

    names = sorted(differences)
    with matplotlib.rc_context(_rc()):
        figure = _figure(6.4, 0.6 + 0.17 * len(names) + 0.5)
        axes = figure.subplots()
        for number, name in enumerate(names, 1):
            value = 100 * differences[name]
            tint = colour(first) if value > 0 else colour(second) if value < 0 else GRID
            axes.barh([number - 1], [value], color=tint, height=0.6)
            (dot,) = axes.plot([value], [number - 1], marker="o", markersize=4, color=tint, linestyle="none")
            dot.set_gid(f"mark-pair-{number}")
        axes.axvline(0, color=INK, linewidth=0.8)
        axes.set_yticks(range(len(names)), names, fontsize=7)
        axes.set_ylim(len(names) - 0.5, -0.5)
        axes.set_xlim(-105, 105)
        axes.set_xlabel(f"solved rate, {first} minus {second} (percentage points); 0: the same")
        axes.text(
            0.99,
            1.0,
            f"{first} better",
            transform=axes.transAxes,
            ha="right",
            va="bottom",
            color=colour(first),
        )
        axes.text(
            0.01,
            1.0,
            f"{second} better",
            transform=axes.transAxes,
            ha="left",
            va="bottom",
            color=colour(second),
        )
        axes.grid(axis="x")
        return _svg(figure, f"per-incident difference in solved rate, {first} minus {second}")
