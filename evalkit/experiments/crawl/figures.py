"""The figures of ``experiment=crawl``: the agreement heatmap and the yield bars.

Drawn with evalkit.report.plots' ``save`` (PNG, SVG, PDF; the same bytes on every run) in the
methods' own colours (evalkit.report.style.method_style).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["agreement_heatmap", "yield_bars"]


def agreement_heatmap(
    methods: list[str], matrix: np.ndarray, stem: Path, dataset: str, metric: str
) -> None:
    """Mean pairwise agreement F1, row x column (symmetric), each cell annotated; the
    diagonal and pairs without a defined page are grey."""
    import matplotlib.pyplot as plt

    from evalkit.report.plots import save

    side = max(3.2, 0.62 * len(methods) + 1.6)
    fig, ax = plt.subplots(figsize=(side + 1.0, side + 0.4), layout="constrained")
    cmap = plt.get_cmap("viridis").with_extremes(bad="0.88")
    image = ax.imshow(np.ma.masked_invalid(matrix), cmap=cmap, vmin=0.0, vmax=1.0)
    ax.set_xticks(range(len(methods)), methods, rotation=40, ha="right", fontsize=8)
    ax.set_yticks(range(len(methods)), methods, fontsize=8)
    ax.set_xlabel("method")
    ax.set_ylabel("method")
    for i, j in np.ndindex(matrix.shape):
        if np.isfinite(matrix[i, j]):
            dark = matrix[i, j] < 0.6  # white text on the dark end of viridis
            ax.text(
                j,
                i,
                f"{matrix[i, j]:.2f}",
                ha="center",
                va="center",
                fontsize=7,
                color="white" if dark else "black",
            )
    fig.colorbar(image, ax=ax, shrink=0.8, label=f"mean per-page agreement ({metric} F1)")
    ax.set_title(f"{dataset}: agreement between methods", fontsize=9)
    save(fig, stem)


def yield_bars(
    methods: list[str],
    share: list[float],
    mean: list[float],
    median: list[float],
    stem: Path,
    dataset: str,
) -> None:
    """Two panels, a bar per method in its colour: the share of pages with output, and the
    words kept per page (bar: mean; black tick: median)."""
    import matplotlib.pyplot as plt
    from matplotlib import patheffects
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    from evalkit.report.plots import save
    from evalkit.report.style import method_style

    colours = [method_style(m).colour for m in methods]
    y = np.arange(len(methods))
    height = max(2.4, 0.38 * len(methods) + 1.2)
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(7.0, height), sharey=True, layout="constrained"
    )
    left.barh(y, share, color=colours)
    left.set_xlim(0, 1)
    left.set_xlabel("share of pages with output")
    left.set_yticks(y, methods, fontsize=8)
    left.invert_yaxis()
    right.barh(y, mean, color=colours)
    # a white halo keeps the tick visible on a dark bar (proposed's is black)
    halo = [patheffects.withStroke(linewidth=4, foreground="white")]
    right.scatter(median, y, marker="|", s=120, color="black", zorder=3, path_effects=halo)
    right.set_xlabel("words kept per page")
    right.legend(  # the bars' colours are the methods': the legend says what bar and tick are
        handles=[
            Patch(facecolor="0.6", label="mean (bar)"),
            Line2D([], [], marker="|", markersize=10, color="black", ls="none", label="median"),
        ],
        fontsize=7,
        loc="lower right",
    )
    fig.suptitle(f"{dataset}: yield per method", fontsize=10)
    save(fig, stem)
