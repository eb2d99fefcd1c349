"""Figures from run files: grouped P/R/F1 bars with confidence intervals, pages-correct curves,
paired-difference matrices.

Every figure has axis labels, units where there are any, a legend, and
confidence bars or bands; each is saved as PNG (for reports), SVG (for report.html) and PDF
(for papers); a method keeps its colour, marker and line style in every figure (evalkit.report.style).

Drawing a figure twice (PNG, SVG) costs more than every number of a summary; inside
:func:`in_background` a figure is saved by a forked copy of the process while the run goes
on (:func:`save`), the same bytes on a spare core.
"""

from __future__ import annotations

import contextlib
import gc
import io
import os
import signal
import sys
import time
import warnings
from pathlib import Path

import matplotlib

# headless: figures are files, never windows; a backend the user chose is kept (a notebook's
# inline backend: ipykernel sets MPLBACKEND; switching would close the notebook's figures)
if "MPLBACKEND" not in os.environ and "matplotlib.pyplot" not in sys.modules:
    matplotlib.use("Agg")
import matplotlib.patches
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from evalkit.core.files import temp_beside
from evalkit.report.filenames import with_ext

__all__ = [
    "bar_prf",
    "difference_matrix",
    "in_background",
    "pages_correct_curve",
    "prf_figure",
    "save",
]


def save(fig, stem: str | os.PathLike) -> list[Path]:
    """Save ``stem.png`` (150 dpi), ``stem.svg`` and ``stem.pdf``; close the figure.

    Inside :func:`in_background` the files are written by a forked child process and the
    figure is closed when the block ends; they exist once it has ended.
    """
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [
        with_ext(stem, ".png"),
        with_ext(stem, ".svg"),
        with_ext(stem, ".pdf"),
    ]  # v1.0 keeps its dot
    if _BACKGROUND is not None and _can_fork():
        _BACKGROUND.start(fig, paths)
        return paths
    _write(fig, paths)
    plt.close(fig)
    return paths


def _write(fig, paths: list[Path]) -> None:
    for path in paths:
        if path.suffix == ".pdf":
            _write_pdf(fig, path)
            continue
        svg = path.suffix == ".svg"
        # a fixed salt makes the SVG's clip-path ids, hence its bytes, the same on every run
        # written whole or not at all: a temporary file beside it, renamed into place
        fd, tmp = temp_beside(path)
        try:
            with plt.rc_context({"svg.hashsalt": "evalkit"}), os.fdopen(fd, "wb") as fh:
                fig.savefig(
                    fh,
                    format=path.suffix[1:],
                    dpi=150,
                    bbox_inches="tight",
                    metadata={"Date": None} if svg else None,
                )
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def _write_pdf(fig, path: Path) -> None:
    """The PDF, without a creation date (the same bytes on every run), written whole or not
    at all (a temporary file renamed into place)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="pdf", bbox_inches="tight", metadata={"CreationDate": None})
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(buf.getvalue())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


#: a child drawing one figure that has not ended after this long is stuck (a lock held
#: by another thread when it was forked): it is killed and the figure drawn here instead
CHILD_TIMEOUT = 120.0
#: figures drawn by children at once at most
MAX_CHILDREN = 8


def _can_fork() -> bool:
    # Linux only (fork is unsafe with macOS system frameworks) and only for the headless
    # backend: a notebook's figures stay in the notebook's process
    return (
        sys.platform.startswith("linux")
        and hasattr(os, "fork")
        and matplotlib.get_backend().lower() == "agg"
    )


#: the signals held back while a figure child is forked
_INTERRUPTS = {signal.SIGINT, signal.SIGTERM}


def _hold_interrupts():
    if not hasattr(signal, "pthread_sigmask"):
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)


def _release_interrupts(held) -> None:
    if held is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


class _Children:
    """Figures being saved by forked children: (pid, figure, paths, start time)."""

    def __init__(self):
        self.running: list[tuple[int, object, list[Path], float]] = []
        # a bound on memory only: one data set's figures (six) run together, so the run's
        # process never waits for a core while a child draws (the block's end waits for all)
        self.limit = MAX_CHILDREN

    def start(self, fig, paths: list[Path]) -> None:
        while len(self.running) >= self.limit:
            self._finish(self.running.pop(0))
        # Ctrl-C held back over the fork: a KeyboardInterrupt raised in the handlers Python
        # runs around fork() (logging's lock release) is printed and dropped, and the run then
        # went on to finish with exit status 0; the child keeps it blocked (the parent ends it)
        held = _hold_interrupts()
        try:
            with warnings.catch_warnings():
                # Python >= 3.12 warns of fork() beside other threads (a progress bar's
                # monitor): the child only draws and writes its files, and a stuck one is
                # handled (_finish)
                warnings.simplefilter("ignore", DeprecationWarning)
                pid = os.fork()
        except OSError:  # no process to be had (memory, process limit): draw it here
            _release_interrupts(held)
            _write(fig, paths)
            plt.close(fig)
            return
        if pid == 0:  # the child: write the files and leave, running none of the parent's
            code = 1  # exit handlers (they would stop its page worker, flush its buffers)
            # no garbage collection in a child that lives a second: a collection touches
            # every object of the run's heap, copying its pages from the parent
            gc.disable()
            try:
                _write(fig, paths)
                code = 0
            finally:
                os._exit(code)
        self.running.append((pid, fig, paths, time.monotonic()))
        _release_interrupts(held)  # a Ctrl-C that came meanwhile is raised here

    def _finish(self, child) -> None:
        """Wait for one child; a child that failed or got stuck is redone here, so that a
        figure's error is raised as a plain save would raise it."""
        pid, fig, paths, started = child
        status = None
        while status is None:
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:
                status = code
            elif time.monotonic() - started > CHILD_TIMEOUT:
                os.kill(pid, signal.SIGKILL)
                status = os.waitpid(pid, 0)[1]
            else:
                time.sleep(0.005)
        try:
            if not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):
                _write(fig, paths)
        finally:
            plt.close(fig)

    def finish_all(self) -> None:
        try:
            while self.running:
                self._finish(self.running.pop(0))
        except BaseException:
            self.abort()
            raise

    def abort(self) -> None:
        """End every child at once (the run is failing: its figures do not matter)."""
        for pid, fig, _, _ in self.running:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            plt.close(fig)
        self.running.clear()


_BACKGROUND: _Children | None = None


def _warm() -> None:
    # what each child would otherwise load for itself, once here: the SVG writer, PIL's PNG
    # writer and the default font
    import matplotlib.backends.backend_svg  # noqa: F401
    import PIL.PngImagePlugin  # noqa: F401

    fig = plt.figure(figsize=(1, 1))
    fig.text(0.5, 0.5, "0.5")
    fig.canvas.draw()
    plt.close(fig)


@contextlib.contextmanager
def in_background():
    """Within the block, :func:`save` writes each figure from a forked child process (at
    most :data:`MAX_CHILDREN` at a time) and returns at once; leaving the block waits for every
    figure (the files then exist, byte for byte those :func:`save` writes in process) and
    raises a figure's error. A child that fails or hangs is redone in this process. Off
    Linux, with a backend other than Agg, or nested, figures are saved in process."""
    global _BACKGROUND
    if _BACKGROUND is not None:  # nested: the outer block waits
        yield
        return
    if _can_fork():
        _warm()
    _BACKGROUND = children = _Children()
    try:
        yield
    except BaseException:
        _BACKGROUND = None
        children.abort()
        raise
    _BACKGROUND = None
    children.finish_all()


def bar_prf(
    summary: pd.DataFrame,
    stem,
    dataset: str,
    metrics: tuple[str, ...] = ("shingle_precision", "shingle_recall", "shingle_f1"),
    labels: tuple[str, ...] = ("precision", "recall", "F1"),
    title: str = "",
    methods: list[str] | None = None,
    xlabel: str = "method",
    order: str | None = None,
) -> list[Path]:
    """Grouped bars: one group per method, one bar per metric, error bars = the CI."""
    return save(prf_figure(summary, dataset, metrics, labels, title, methods, xlabel, order), stem)


#: one column of a two-column paper, in inches (3.33 in; a little less for the margins)
COLUMN_INCHES = 3.3
#: the font size of the figures' text in points: readable at one column width
FONT_PT = 7
#: how the bars of one method tell its metrics apart: the shade (alpha) by metric, in the same
#: order top to bottom in every group, the last metric solid; page types, and any bars past
#: four (shades then cannot be told apart), are categories, each in its own colour
#: (evalkit.report.style.category_style), a hatch past eleven
_METRIC_ALPHAS = (0.3, 0.6, 0.45, 0.75)


def _metric_look(j: int, n: int) -> tuple[float, str]:
    return (1.0, "") if j == n - 1 else (_METRIC_ALPHAS[j % len(_METRIC_ALPHAS)], "")


def _by_category(labels: tuple[str, ...]) -> bool:
    """Whether the bars of a group are coloured by their own category, not by shade: when they
    are categories (page types: evalkit.report.style.CATEGORIES) or more than four."""
    from evalkit.report.style import CATEGORIES

    return len(labels) > len(_METRIC_ALPHAS) or all(label in CATEGORIES for label in labels)


def prf_figure(
    summary: pd.DataFrame,
    dataset: str,
    metrics: tuple[str, ...] = ("shingle_precision", "shingle_recall", "shingle_f1"),
    labels: tuple[str, ...] = ("precision", "recall", "F1"),
    title: str = "",
    methods: list[str] | None = None,
    xlabel: str = "method",
    order: str | None = None,
):
    """The figure of :func:`bar_prf`, not saved (evalkit.shell.api's ``Result.plot``).

    Horizontal bars, one column wide: a row of bars per method, in the method's own colour
    (evalkit.report.style), best last metric first (``order="score"``, the default when
    ``methods`` is not given; ``"config"`` keeps the given order); each bar carries its
    interval, and a metric is told apart by its shade (legend above); past four metrics (page
    types) each is a category in its own colour (evalkit.report.style.category_style).
    """
    from evalkit.report.style import category_style, default_order, method_order, method_style

    df = summary[(summary["dataset"] == dataset) & summary["metric"].isin(metrics)]
    order = order or (default_order() if methods is None else "config")
    methods = method_order(df, metrics[-1], methods, order)
    n, k = len(methods), len(metrics)
    height = 0.8 / k
    fig, ax = plt.subplots(
        figsize=(COLUMN_INCHES, 0.9 + n * (0.1 * k + 0.08)), layout="constrained"
    )
    y = np.arange(n)[::-1].astype(float)  # the first method at the top
    by_category = _by_category(tuple(labels))
    has_ci = False
    for j, metric in enumerate(metrics):
        rows = df[df["metric"] == metric].drop_duplicates("method").set_index("method")
        rows = rows.reindex(methods)
        vals = rows["value"].to_numpy(dtype=float)
        err = np.vstack(
            [
                np.clip(vals - rows["ci_low"].to_numpy(dtype=float), 0, None),
                np.clip(rows["ci_high"].to_numpy(dtype=float) - vals, 0, None),
            ]
        )
        pos = y + ((k - 1) / 2 - j) * height
        if by_category:  # a page type in its own colour whichever method the row is
            look = category_style(labels[j])
            ax.barh(
                pos,
                np.nan_to_num(vals),
                height,
                color=look.colour,
                hatch=look.hatch,
                edgecolor="0.25",
                linewidth=0.3,
            )
        else:  # the method's colour, the metric's shade; a second round's hatch
            alpha = _metric_look(j, k)[0]
            for i, m in enumerate(methods):
                look = method_style(m)
                ax.barh(
                    pos[i],
                    np.nan_to_num(vals[i]),
                    height,
                    color=look.colour,
                    alpha=alpha,
                    hatch=look.hatch,
                    edgecolor="0.25",
                    linewidth=0.3,
                )
        if np.isfinite(err).any():  # a mean with its interval; a pooled figure has none
            ax.errorbar(
                np.nan_to_num(vals),
                pos,
                xerr=np.nan_to_num(err),
                fmt="none",
                ecolor="black",
                elinewidth=0.6,
                capsize=1.5,
                capthick=0.6,
            )
            has_ci = True
    ax.set_yticks(y, methods, fontsize=FONT_PT)
    ax.set_ylim(-0.6, n - 0.4)
    ax.set_xlim(0, 1.0)
    ax.tick_params(axis="x", labelsize=FONT_PT)
    # the axis says what the whiskers are only when there are some
    ax.set_xlabel(
        "score (0-1), bars: 95% bootstrap CI" if has_ci else "score (0-1)", fontsize=FONT_PT
    )
    ax.set_ylabel(xlabel, fontsize=FONT_PT)
    ax.set_title(
        title or f"{dataset}: {metrics[0].split('_')[0]} precision / recall / F1",
        fontsize=FONT_PT + 1,
    )
    if by_category:
        handles = [
            matplotlib.patches.Patch(
                facecolor=category_style(label).colour,
                hatch=category_style(label).hatch,
                edgecolor="0.25",
                label=label,
            )
            for label in labels
        ]
    else:
        handles = [
            matplotlib.patches.Patch(
                facecolor="0.45", alpha=_metric_look(j, k)[0], edgecolor="0.25", label=label
            )
            for j, label in enumerate(labels)
        ]
    long = max(len(str(label)) for label in labels) > 12
    ncol = 1 if long else (k if k <= 4 else -(-k // 2))
    fig.legend(
        handles=handles,
        loc="outside upper center",
        ncol=ncol,
        fontsize=FONT_PT - 0.5,
        frameon=False,
    )
    ax.grid(axis="x", alpha=0.3)
    return fig


def pages_correct_curve(
    per_page: pd.DataFrame | dict[str, np.ndarray],
    stem,
    dataset: str,
    metric: str = "shingle_f1",
    thresholds: np.ndarray | None = None,
    n_boot: int = 200,
    seed: int = 0,
    methods: list[str] | None = None,
    order: str | None = None,
) -> list[Path]:
    """Share of pages whose per-page ``metric`` reaches each threshold, with a bootstrap band.

    Each method in its own colour, marker and line style (evalkit.report.style); the legend,
    below the axes, lists the methods by their mean ``metric``, best first (``order``).
    ``per_page``: the records (their rows of ``dataset`` are drawn), or each method's
    defined scores in record order, the methods in the order of their first score."""
    from evalkit.metrics import BootstrapBatch
    from evalkit.report.style import default_order, method_order, method_style

    thresholds = np.linspace(0, 1, 21) if thresholds is None else thresholds
    scores = (
        _scores_of(per_page, dataset, metric) if isinstance(per_page, pd.DataFrame) else per_page
    )
    order = order or (default_order() if methods is None else "config")
    means = pd.DataFrame(
        # groupby's mean, as of a frame of all the methods' scores (each group alone)
        [
            {"method": m, "value": pd.Series(f1).groupby(np.zeros(f1.size, int)).mean().iloc[0]}
            for m, f1 in scores.items()
        ],
        columns=["method", "value"],
    ).assign(metric=metric)
    methods = method_order(means, metric, methods or list(scores), order)
    # every band from one set of draws: bootstrap_ci's numbers for each method and threshold
    batch = BootstrapBatch(n_boot=n_boot, seed=seed)
    curves = []
    for m in methods:
        f1 = np.asarray(scores.get(m, ()), dtype=float)
        if f1.size:
            curves.append(
                (
                    m,
                    [(f1 >= t).mean() for t in thresholds],
                    [batch.add_mean((f1 >= t).astype(float)) for t in thresholds],
                )
            )
    bands = batch.intervals()
    rows = -(-len(curves) // 2)
    fig, ax = plt.subplots(figsize=(COLUMN_INCHES, 2.4 + 0.13 * rows), layout="constrained")
    for m, share, slots in curves:
        lo, hi = zip(*(bands[slot] for slot in slots))
        style = method_style(m)
        ax.plot(thresholds, share, label=m, markersize=3, linewidth=1.0, **style.line())
        ax.fill_between(thresholds, lo, hi, color=style.colour, alpha=0.12, linewidth=0)
    ax.set_xlabel(f"threshold on per-page {metric.replace('_', ' ')}", fontsize=FONT_PT)
    ax.set_ylabel("share of pages at or above\n(95% CI band)", fontsize=FONT_PT)
    ax.tick_params(labelsize=FONT_PT)
    ax.set_ylim(0, 1.02)
    ax.set_title(f"{dataset}: pages correctly extracted", fontsize=FONT_PT + 1)
    ax.grid(alpha=0.3)
    if curves:
        fig.legend(loc="outside lower center", ncol=2, fontsize=FONT_PT - 1, frameon=False)
    return save(fig, stem)


def _scores_of(per_page: pd.DataFrame, dataset: str, metric: str) -> dict[str, np.ndarray]:
    # the pages with a score: a failed page scored as empty (runner.on_failure=empty) counts
    scored = per_page[metric].notna() if metric in per_page else False
    df = per_page[(per_page["dataset"] == dataset) & scored]
    return {
        m: df.loc[df["method"] == m, metric].to_numpy(float) for m in dict.fromkeys(df["method"])
    }


def difference_matrix(
    panels: list[tuple[str, list[str], np.ndarray, np.ndarray]],
    stem,
    dataset: str,
    alpha: float = 0.05,
) -> list[Path]:
    """Heatmaps of paired differences, one panel per score: ``(score, methods, diff, p)``
    with ``diff[i, j]`` the mean per-page difference row − column and ``p`` its Holm
    p-value; each cell is annotated with the difference and ``*`` when p < ``alpha``.

    The colour scale is centred on 0 and symmetric (blue: the row method scores higher),
    shared by the panels so that equal colours mean equal differences.
    """
    vmax = (
        max([float(np.nanmax(np.abs(d))) for _, _, d, _ in panels if np.isfinite(d).any()] or [1.0])
        or 1.0
    )
    k = max(len(m) for _, m, _, _ in panels)
    side = max(3.2, 0.62 * k + 1.6)
    # constrained layout: a panel's method names never run into its neighbour
    fig, axes = plt.subplots(
        1,
        len(panels),
        figsize=(side * len(panels) + 1.2, side + 0.6),
        squeeze=False,
        layout="constrained",
    )
    cmap = plt.get_cmap("RdBu").with_extremes(bad="0.88")  # grey: diagonal, no shared page
    image = None
    for ax, (score, methods, diff, p) in zip(axes[0], panels):
        image = ax.imshow(diff, cmap=cmap, vmin=-vmax, vmax=vmax)
        ax.set_xticks(range(len(methods)), methods, rotation=40, ha="right", fontsize=8)
        ax.set_yticks(range(len(methods)), methods, fontsize=8)
        ax.set_xlabel("column method")
        ax.set_ylabel("row method")
        ax.set_title(f"{score}: row \u2212 column", fontsize=9)
        for i, j in np.ndindex(diff.shape):
            if i == j or not np.isfinite(diff[i, j]):
                continue
            mark = "*" if np.isfinite(p[i, j]) and p[i, j] < alpha else ""
            strong = abs(diff[i, j]) > 0.6 * vmax  # white text on the dark cells
            ax.text(
                j,
                i,
                f"{diff[i, j]:+.2f}{mark}",
                ha="center",
                va="center",
                fontsize=7,
                color="white" if strong else "black",
            )
    fig.colorbar(
        image, ax=axes[0].tolist(), shrink=0.8, label="mean per-page difference (row \u2212 column)"
    )
    fig.suptitle(
        f"{dataset}: paired differences between methods (* Holm-adjusted p < {alpha:g})",
        fontsize=10,
    )
    return save(fig, stem)
