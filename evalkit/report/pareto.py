"""Quality against cost: the Pareto front of methods and its figure.

A method is on the front when no other method is at least as fast and at least as good and
strictly better in one of the two (:func:`pareto_front`). The figure (:func:`pareto_figure`)
draws each method at (time per page, quality) on a log time axis, with marker area
proportional to its memory, in the method's own colour (evalkit.report.style), its name beside
it, and the front as a step line: at each time, the best quality any method reaches in that
time or less. Saved as PNG, SVG and PDF (evalkit.report.plots.save).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib.lines
import matplotlib.patheffects
import matplotlib.ticker
import matplotlib.transforms
import numpy as np
import pandas as pd

from evalkit.report.plots import FONT_PT, plt, save
from evalkit.report.style import method_style

__all__ = ["draw_pareto", "pareto_figure", "pareto_front"]

#: marker areas in points^2: the largest memory, the least any marker is drawn at, and a
#: method without a memory figure (drawn hollow)
AREA_MAX = 360.0
AREA_MIN = 10.0
AREA_UNKNOWN = 40.0
#: what the size legend calls the memory columns of evalkit.experiments.leaderboard.cost
SIZE_LABELS = {
    "peak_mb": "peak memory (MiB)",
    "mb_over_floor": "memory over the parse floor (MiB)",
    "floor_mb": "memory floor (MiB)",
}
#: the x axis's name for the time columns of evalkit.experiments.leaderboard.cost
X_LABELS = {
    "ms_median": "median time per page (ms, log scale)",
    "ms_p90": "90th percentile time per page (ms, log scale)",
}
_FIGSIZE = (5.4, 3.4)


def pareto_front(x: Sequence[float], y: Sequence[float]) -> list[bool]:
    """For each point, whether it is on the Pareto front, lower ``x`` and higher ``y`` being
    better: True unless another point has ``x`` no larger and ``y`` no smaller, one of them
    strictly. Equal points do not dominate each other, so all of them are on the front or none.
    A point with a NaN (or infinite) coordinate is never on the front and dominates none."""
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if xs.shape != ys.shape or xs.ndim != 1:
        raise ValueError(f"x and y must be two sequences of one length, got {xs.shape} {ys.shape}")
    ok = np.isfinite(xs) & np.isfinite(ys)
    out = []
    for i in range(len(xs)):
        if not ok[i]:
            out.append(False)
            continue
        no_worse = ok & (xs <= xs[i]) & (ys >= ys[i])
        better = (xs < xs[i]) | (ys > ys[i])
        out.append(not bool((no_worse & better).any()))
    return out


def pareto_figure(frame: pd.DataFrame, path_stem: str | os.PathLike, **settings) -> Path:
    """Draw :func:`draw_pareto` (``settings``: its keywords) and save ``path_stem.png``,
    ``.svg`` and ``.pdf`` (evalkit.report.plots.save); the PNG's path."""
    return save(draw_pareto(frame, **settings), path_stem)[0]


def draw_pareto(
    frame: pd.DataFrame,
    *,
    y: str,
    x: str = "ms_median",
    size: str = "peak_mb",
    label: str = "method",
    title: str | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    floor: float | None = None,
):
    """The figure of :func:`pareto_figure`, not saved: one row of ``frame`` per method.

    ``x`` (ms per page, log axis) against ``y`` (quality, higher is better); marker area
    proportional to ``size`` (MiB; at least :data:`AREA_MIN`, hollow where unknown), with a
    legend of reference sizes; the front (:func:`pareto_front`) as a dashed step line;
    ``floor``: an x (the parse's median ms) drawn as a dotted vertical line. Rows without a
    positive finite ``x`` or a finite ``y`` are not drawn and are named under the axes.
    """
    for column in (x, y, label):
        if column not in frame:
            raise KeyError(f"pareto figure: no column {column!r} in {list(frame.columns)}")
    names = frame[label].astype(str).to_numpy()
    xs = pd.to_numeric(frame[x], errors="coerce").to_numpy(float)
    ys = pd.to_numeric(frame[y], errors="coerce").to_numpy(float)
    mem = (
        pd.to_numeric(frame[size], errors="coerce").to_numpy(float)
        if size in frame
        else np.full(len(frame), np.nan)
    )
    drawn = np.isfinite(xs) & (xs > 0) & np.isfinite(ys)
    front = np.array(pareto_front(np.where(drawn, xs, np.nan), ys), dtype=bool)
    mem_max = float(np.nanmax(mem[drawn])) if np.isfinite(mem[drawn]).any() else float("nan")
    scale = AREA_MAX / mem_max if mem_max > 0 else float("nan")

    def area(m: float) -> float:
        return max(AREA_MIN, m * scale) if np.isfinite(m) and np.isfinite(scale) else AREA_UNKNOWN

    fig, ax = plt.subplots(figsize=_FIGSIZE, layout="constrained")
    ax.set_xscale("log")
    points = []
    for i in np.flatnonzero(drawn):
        colour = method_style(names[i]).colour
        known = np.isfinite(mem[i])
        s = area(mem[i])
        ax.scatter(
            [xs[i]],
            [ys[i]],
            s=s,
            marker="o",
            facecolors=colour if known else "none",
            edgecolors="black" if known else colour,
            linewidths=0.4 if known else 1.2,
            alpha=0.85,
            zorder=3,
        )
        points.append(_Point(names[i], xs[i], ys[i], s, bool(front[i])))
    has_floor = floor is not None and np.isfinite(floor) and floor > 0
    _set_limits(ax, np.append(xs[drawn], floor) if has_floor else xs[drawn], ys[drawn])
    handles = []
    if front.any():
        order = np.argsort(xs[front], kind="stable")
        fx, fy = xs[front][order], ys[front][order]
        # on to the right edge: the limits are set, so the far end is clipped, not shown
        (line,) = ax.step(
            np.append(fx, fx[-1] * 1e6),
            np.append(fy, fy[-1]),
            where="post",
            color="0.35",
            linestyle="--",
            linewidth=0.9,
            zorder=2,
            label="Pareto front (bold: on it)",
        )
        handles.append(line)
    if has_floor:
        handles.append(
            ax.axvline(
                floor, color="0.5", linestyle=":", linewidth=0.9, label="lxml parse (median)"
            )
        )
    sizes = _size_handles(mem_max, scale)
    if (~np.isfinite(mem[drawn])).any():
        sizes.append(
            matplotlib.lines.Line2D(
                [], [], linestyle="none", marker="o", markersize=math.sqrt(AREA_UNKNOWN),
                markerfacecolor="none", markeredgecolor="0.3", label="not measured",
            )
        )  # fmt: skip
    left_out = [str(n) for n in names[~drawn]]
    xlabel = xlabel or X_LABELS.get(x, f"{x.replace('_', ' ')} (log scale)")
    if left_out:
        xlabel += f"\nnot drawn (no time or no {y}): {', '.join(left_out)}"
    ax.set_xlabel(xlabel, fontsize=FONT_PT)
    ax.set_ylabel(ylabel or y.replace("_", " "), fontsize=FONT_PT)
    ax.set_title(
        title or f"{ylabel or y.replace('_', ' ')} against time; marker area: memory",
        fontsize=FONT_PT + 1,
    )
    ax.tick_params(labelsize=FONT_PT)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.grid(alpha=0.3, which="major")
    common = {"fontsize": FONT_PT - 0.5, "frameon": False, "alignment": "left"}
    if handles:
        fig.legend(handles=handles, loc="outside right upper", **common)
    if sizes:
        fig.legend(
            handles=sizes,
            loc="outside right lower",
            title=f"marker area:\n{SIZE_LABELS.get(size, size)}",
            title_fontsize=FONT_PT - 0.5,
            labelspacing=1.3,
            borderpad=0.8,
            handletextpad=1.0,
            **common,
        )
    lo, hi = ax.get_xlim()
    decades = math.log10(hi / lo)
    if decades <= 2.5:  # few decades: 1, 2 and 5 of each are numbered too (under one: all)
        subs = (1.0, 2.0, 5.0) if decades > 1 else tuple(range(1, 10))
        ax.xaxis.set_major_locator(matplotlib.ticker.LogLocator(subs=subs))
    _place_names(fig, ax, points)
    return fig


def _set_limits(ax, xs: np.ndarray, ys: np.ndarray) -> None:
    """Log x from a little left of the least ``xs`` to well right of the largest (room for the
    names); y with a margin of a tenth of the range (or 0.05 where all are equal)."""
    if not xs.size or not ys.size:
        return
    lo, hi = float(xs.min()), float(xs.max())
    span = max(math.log10(hi / lo), 1.0)
    ax.set_xlim(lo / 10 ** (0.12 * span), hi * 10 ** (0.45 * span))
    ylo, yhi = float(ys.min()), float(ys.max())
    pad = 0.1 * (yhi - ylo) if yhi > ylo else 0.05
    ax.set_ylim(ylo - pad, yhi + pad)


def _nice_below(v: float) -> float:
    """The largest 1, 2 or 5 times a power of ten at most ``v`` (> 0)."""
    power = 10.0 ** math.floor(math.log10(v))
    return max(m * power for m in (1, 2, 5) if m * power <= v * (1 + 1e-9))


def _size_handles(mem_max: float, scale: float) -> list:
    """Two or three reference markers of round memory sizes (the largest round size at most
    the largest memory, then about a quarter and a sixteenth of it while they stay larger than
    the least marker), labelled in MiB, grey."""
    if not (np.isfinite(mem_max) and mem_max > 0 and np.isfinite(scale)):
        return []
    refs = [_nice_below(mem_max)]
    for _ in range(2):
        smaller = _nice_below(refs[-1] / 4)
        if smaller * scale < 2 * AREA_MIN:
            break
        refs.append(smaller)
    return [
        matplotlib.lines.Line2D(
            [],
            [],
            linestyle="none",
            marker="o",
            markersize=math.sqrt(r * scale),
            markerfacecolor="0.75",
            markeredgecolor="black",
            markeredgewidth=0.4,
            label=f"{r:g} MiB",
        )
        for r in refs
    ]


def _fit_names(fig, ax, texts: list, renderer, rounds: int = 4) -> None:
    """Widen the axes' limits (x on its log scale) until every name is inside the axes, with
    a few pixels to spare; the figure is drawn again after each widening."""
    spare = 3.0  # pixels
    for _ in range(rounds):
        frame = ax.get_window_extent(renderer)
        boxes = [t.get_window_extent(renderer) for t in texts]
        over = {
            "left": frame.x0 + spare - min(b.x0 for b in boxes),
            "right": max(b.x1 for b in boxes) - frame.x1 + spare,
            "bottom": frame.y0 + spare - min(b.y0 for b in boxes),
            "top": max(b.y1 for b in boxes) - frame.y1 + spare,
        }
        if max(over.values()) <= 0:
            return
        (x0, x1), (y0, y1) = np.log10(ax.get_xlim()), ax.get_ylim()
        # data per pixel now; widening shrinks it, so a round may leave a little to do
        per_x, per_y = (x1 - x0) / frame.width, (y1 - y0) / frame.height
        x0 -= max(over["left"], 0) * per_x
        x1 += max(over["right"], 0) * per_x
        ax.set_xlim(10**x0, 10**x1)
        ax.set_ylim(y0 - max(over["bottom"], 0) * per_y, y1 + max(over["top"], 0) * per_y)
        fig.canvas.draw()


@dataclass(frozen=True)
class _Point:
    """A drawn method: its name, position, marker area (points^2) and whether it is on the
    front."""

    name: str
    x: float
    y: float
    area: float
    front: bool

    @property
    def radius(self) -> float:  # points
        return math.sqrt(self.area) / 2


def _place_names(fig, ax, points: list[_Point], rounds: int = 40) -> None:
    """Write each method's name beside its marker, where it overlaps no other name and no
    other marker, with a thin leader line where it had to move away.

    A name on the front goes up and to the left of its point: nothing is there (a method
    there would be faster and better) and the front's line runs below and to the right. Any
    other name goes to the right of its point. A name that would leave the axes goes to the
    other side. Then, on the laid-out figure, overlaps are undone by moving names vertically:
    of two names the lower steps down and the upper up, by half the overlap each; a name on
    another method's marker steps away from its centre (a name on the front: up), until
    nothing overlaps or ``rounds`` passes have been made."""
    if not points:
        return
    halo = [matplotlib.patheffects.withStroke(linewidth=2, foreground="white")]
    texts = []
    for p in points:
        if p.front:
            d = p.radius * 0.7 + 1.0
            offset, ha, va = (-d, d), "right", "bottom"
        else:
            offset, ha, va = (p.radius + 2.0, 0.0), "left", "center"
        texts.append(
            ax.annotate(
                p.name,
                (p.x, p.y),
                xytext=offset,
                textcoords="offset points",
                ha=ha,
                va=va,
                fontsize=FONT_PT,
                fontweight="bold" if p.front else "normal",
                zorder=4,
                path_effects=halo,  # a line passing behind a name leaves it readable
            )
        )
    fig.canvas.draw()  # lays out the figure: the boxes are where they will be saved
    renderer = fig.canvas.get_renderer()
    _fit_names(fig, ax, texts, renderer)
    starts = [t.xyann for t in texts]
    px = 72.0 / fig.dpi  # points per pixel
    dots = []
    for p in points:
        cx, cy = ax.transData.transform((p.x, p.y))
        r = p.radius / px
        dots.append(matplotlib.transforms.Bbox([[cx - r, cy - r], [cx + r, cy + r]]))

    def nudge(k: int, pixels: float) -> None:
        dx, dy = texts[k].xyann
        texts[k].xyann = (dx, dy + pixels * px)

    def depth(a, b) -> float:
        if a.x1 <= b.x0 or b.x1 <= a.x0 or a.y1 <= b.y0 or b.y1 <= a.y0:
            return 0.0
        return min(a.y1, b.y1) - max(a.y0, b.y0)

    for _ in range(rounds):
        moved = False
        for i in range(len(texts)):
            for j in range(len(texts)):
                a = texts[i].get_window_extent(renderer)
                if j > i:  # two names
                    b = texts[j].get_window_extent(renderer)
                    if (d := depth(a, b)) > 0:
                        up = (a.y0 + a.y1, points[j].name) >= (b.y0 + b.y1, points[i].name)
                        nudge(i, (d / 2 + 0.5) * (1 if up else -1))
                        nudge(j, (d / 2 + 0.5) * (-1 if up else 1))
                        moved = True
                elif j != i and (d := depth(a, dots[j])) > 0:  # a name on a marker
                    up = points[i].front or (a.y0 + a.y1) >= (dots[j].y0 + dots[j].y1)
                    nudge(i, (d + 0.5) * (1 if up else -1))
                    moved = True
        if not moved:
            break
    for p, t, start in zip(points, texts, starts, strict=True):
        if abs(t.xyann[1] - start[1]) > 3.0:  # moved away: a leader line to its point
            ax.annotate(
                "",
                (p.x, p.y),
                xytext=t.xyann,
                textcoords="offset points",
                arrowprops={
                    "arrowstyle": "-",
                    "color": "0.45",
                    "linewidth": 0.4,
                    "shrinkA": 0,
                    "shrinkB": p.radius,
                },
                zorder=2.5,
            )
