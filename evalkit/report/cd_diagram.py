"""The critical-difference diagram of Demšar (2006, JMLR 7, Section 3.2.4 and Figure 1).

The top line is an axis of mean ranks 1..k; as in Demšar's figures the best (lowest) ranks are
on the **right** (:data:`BEST_SIDE`: "we perceive the methods on the right side as better").
Each method has a marker on the axis in its colour and marker (evalkit.report.style) and a
leader line down and out to its name and mean rank: the worse half on the left, the better half
on the right, the method nearest an end on the row nearest the axis, so no two lines cross.
Thick bars under the axis join the groups not significantly different (the cliques of
:func:`evalkit.metrics.ranks.cliques`), and a bar of length CD is drawn above the axis at the
worse end. The figure is one column wide (evalkit.report.plots) unless the names or the number
of ranks need more.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.font_manager import FontProperties
from matplotlib.textpath import TextPath

from evalkit.metrics.ranks import cliques
from evalkit.report.plots import COLUMN_INCHES, FONT_PT, save
from evalkit.report.style import method_style

__all__ = ["BEST_SIDE", "cd_diagram", "cd_figure", "cliques"]

#: where the best (lowest) mean rank sits: "right" as in Demšar's Figure 1, or "left"
BEST_SIDE = "right"
#: the layout in inches: the narrowest rank axis and the least length of one rank on it (so
#: that tick numbers never touch), the gap between a leader line and its name, the step
#: between rows of names and between clique bars
MIN_AXIS_IN = 1.3
MIN_RANK_IN = 0.22
LABEL_GAP_IN = 0.05
ROW_IN = 0.15
CLIQUE_STEP_IN = 0.07
#: the overhang of a clique bar past its end methods, in inches
CLIQUE_PAD_IN = 0.03
#: line widths in points: axis and leader lines, clique bars
LINE_PT = 0.7
CLIQUE_PT = 2.6


def _text_width_in(text: str, size: float) -> float:
    """The width of ``text`` at ``size`` points in inches, without drawing it."""
    path = TextPath((0, 0), text, size=size, prop=FontProperties(size=size))
    return path.get_extents().width / 72.0


def _label(name: str, rank: float) -> str:
    return f"{name} ({rank:.2f})"


def cd_figure(
    mean_ranks: dict[str, float],
    cd: float,
    cliques: Iterable[Iterable[str]],
    title: str | None = None,
    best: str = BEST_SIDE,
    cd_label: str = "CD",
):
    """The diagram as a matplotlib figure (module docstring); ``cliques`` are the groups to
    join with a bar, ``cd_label`` names the critical difference above the axis."""
    if best not in ("left", "right"):
        raise ValueError(f"best must be 'left' or 'right', got {best!r}")
    ranks = {str(name): float(r) for name, r in dict(mean_ranks).items()}
    k = len(ranks)
    if k < 2:
        raise ValueError(f"a CD diagram needs at least 2 methods, got {k}")
    groups = [set(map(str, g)) for g in cliques]
    unknown = set().union(*groups) - set(ranks) if groups else set()
    if unknown:
        raise ValueError(f"cliques name methods without a rank: {sorted(unknown)}")
    lo, hi = 1.0, float(max(k, max(ranks.values())))

    # worst first: the first half goes to the worse side, its outermost method on the top row
    order = sorted(ranks, key=lambda m: (-ranks[m], m))
    half = (k + 1) // 2
    worse, better = order[:half], order[half:][::-1]
    worse_w = max(_text_width_in(_label(m, ranks[m]), FONT_PT) for m in worse)
    better_w = max(_text_width_in(_label(m, ranks[m]), FONT_PT) for m in better)
    left_w, right_w = (worse_w, better_w) if best == "right" else (better_w, worse_w)
    margin_l, margin_r = left_w + 2 * LABEL_GAP_IN + 0.05, right_w + 2 * LABEL_GAP_IN + 0.05
    axis_w = max(MIN_AXIS_IN, MIN_RANK_IN * (hi - lo), COLUMN_INCHES - margin_l - margin_r)
    width = margin_l + axis_w + margin_r

    def x_of(rank: float) -> float:
        frac = (rank - lo) / (hi - lo)
        return margin_l + axis_w * ((1.0 - frac) if best == "right" else frac)

    # rows from the top, in inches: title, CD bar, tick labels, axis, cliques, names
    y = 0.0
    title_y = None
    if title:
        title_y, y = y - 0.1, y - 0.24
    cd_y = y - 0.16
    axis_y = cd_y - 0.26
    bars = sorted(groups, key=lambda g: min(ranks[m] for m in g))
    bar_y = [axis_y - 0.1 - i * CLIQUE_STEP_IN for i in range(len(bars))]
    first_row = (bar_y[-1] if bars else axis_y) - 0.14
    rows = max(len(worse), len(better))
    height = -(first_row - (rows - 1) * ROW_IN) + 0.1

    fig = plt.figure(figsize=(width, height))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(-height, 0)
    ax.set_axis_off()
    line = {"color": "black", "linewidth": LINE_PT, "solid_capstyle": "butt"}

    if title_y is not None:
        ax.text(width / 2, title_y, title, ha="center", va="center", fontsize=FONT_PT + 1)

    # the rank axis: ticks at every integer, short ones at the halves, numbers above
    ax.plot([x_of(lo), x_of(hi)], [axis_y, axis_y], **line)
    for t in range(int(lo), int(hi) + 1):
        ax.plot([x_of(t), x_of(t)], [axis_y, axis_y + 0.06], **line)
        ax.text(x_of(t), axis_y + 0.08, str(t), ha="center", va="bottom", fontsize=FONT_PT)
        if t < hi:
            ax.plot([x_of(t + 0.5)] * 2, [axis_y, axis_y + 0.03], **line)

    # the critical difference, from the worse end of the axis
    x0, x1 = x_of(hi), x_of(hi - cd)
    ax.plot([x0, x1], [cd_y, cd_y], **line)
    for x in (x0, x1):
        ax.plot([x, x], [cd_y - 0.035, cd_y + 0.035], **line)
    ax.text((x0 + x1) / 2, cd_y + 0.05, f"{cd_label} = {cd:.2f}", ha="center", va="bottom",
            fontsize=FONT_PT)  # fmt: skip

    # leader lines and names: worse side then better side, outermost method on the top row
    worse_x = margin_l - LABEL_GAP_IN if best == "right" else width - margin_r + LABEL_GAP_IN
    better_x = width - margin_r + LABEL_GAP_IN if best == "right" else margin_l - LABEL_GAP_IN
    for side, edge in ((worse, worse_x), (better, better_x)):
        ha = "right" if edge < width / 2 else "left"
        for i, m in enumerate(side):
            x, row_y = x_of(ranks[m]), first_row - i * ROW_IN
            ax.plot([x, x, edge], [axis_y, row_y, row_y], **line)
            gap = -LABEL_GAP_IN if ha == "right" else LABEL_GAP_IN
            ax.text(edge + gap, row_y, _label(m, ranks[m]), ha=ha, va="center", fontsize=FONT_PT)
            style = method_style(m)
            ax.plot([x], [axis_y], marker=style.marker, markersize=4, color=style.colour,
                    markeredgecolor="black", markeredgewidth=0.4, zorder=3)  # fmt: skip

    # the cliques: thick bars under the axis, best group first
    for g, gy in zip(bars, bar_y, strict=True):
        xs = [x_of(ranks[m]) for m in g]
        ax.plot([min(xs) - CLIQUE_PAD_IN, max(xs) + CLIQUE_PAD_IN], [gy, gy], color="black",
                linewidth=CLIQUE_PT, solid_capstyle="butt", zorder=2)  # fmt: skip
    return fig


def cd_diagram(
    mean_ranks: dict[str, float],
    cd: float,
    cliques: Iterable[Iterable[str]],
    stem: str | os.PathLike,
    title: str | None = None,
    best: str = BEST_SIDE,
    cd_label: str = "CD",
) -> list[Path]:
    """Draw the critical-difference diagram (:func:`cd_figure`) and save ``stem.png``,
    ``stem.svg`` and ``stem.pdf`` (evalkit.report.plots.save); the paths written."""
    return save(cd_figure(mean_ranks, cd, cliques, title, best, cd_label), stem)
