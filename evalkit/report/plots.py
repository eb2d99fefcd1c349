"""Figures from run files: grouped P/R/F1 bars with confidence intervals, pages-correct curves,
paired-difference matrices.

Every figure has axis labels, units where there are any, a legend, and
confidence bars or bands; each is saved as PNG (for reports) and SVG (for papers).

Drawing a figure twice (PNG, SVG) costs more than every number of a summary; inside
:func:`in_background` a figure is saved by a forked copy of the process while the run goes
on (:func:`save`), the same bytes on a spare core.
"""

from __future__ import annotations

import contextlib
import gc
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
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from evalkit.report.filenames import with_ext

__all__ = ["bar_prf", "difference_matrix", "in_background", "pages_correct_curve", "prf_figure",
           "save"]

_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
_LINESTYLES = ("-", "--", "-.", ":")


def save(fig, stem: str | os.PathLike) -> list[Path]:
    """Save ``stem.png`` (150 dpi) and ``stem.svg``; close the figure.

    Inside :func:`in_background` the files are written by a forked child process and the
    figure is closed when the block ends; they exist once it has ended.
    """
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [with_ext(stem, ".png"), with_ext(stem, ".svg")]  # v1.0 keeps its dot
    if _BACKGROUND is not None and _can_fork():
        _BACKGROUND.start(fig, paths)
        return paths
    _write(fig, paths)
    plt.close(fig)
    return paths


def _write(fig, paths: list[Path]) -> None:
    for path in paths:
        svg = path.suffix == ".svg"
        # a fixed salt makes the SVG's clip-path ids, hence its bytes, the same on every run
        with plt.rc_context({"svg.hashsalt": "evalkit"}):
            fig.savefig(path, dpi=150, bbox_inches="tight",
                        metadata={"Date": None} if svg else None)


#: a child drawing one figure that has not ended after this long is stuck (a lock held
#: by another thread when it was forked): it is killed and the figure drawn here instead
CHILD_TIMEOUT = 120.0
#: figures drawn by children at once at most
MAX_CHILDREN = 8


def _can_fork() -> bool:
    # Linux only (fork is unsafe with macOS system frameworks) and only for the headless
    # backend: a notebook's figures stay in the notebook's process
    return (sys.platform.startswith("linux") and hasattr(os, "fork")
            and matplotlib.get_backend().lower() == "agg")


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


def bar_prf(summary: pd.DataFrame, stem, dataset: str,
            metrics: tuple[str, ...] = ("shingle_precision", "shingle_recall", "shingle_f1"),
            labels: tuple[str, ...] = ("precision", "recall", "F1"), title: str = "",
            methods: list[str] | None = None, xlabel: str = "method") -> list[Path]:
    """Grouped bars: one group per method, one bar per metric, error bars = the CI."""
    return save(prf_figure(summary, dataset, metrics, labels, title, methods, xlabel), stem)


def prf_figure(summary: pd.DataFrame, dataset: str,
               metrics: tuple[str, ...] = ("shingle_precision", "shingle_recall", "shingle_f1"),
               labels: tuple[str, ...] = ("precision", "recall", "F1"), title: str = "",
               methods: list[str] | None = None, xlabel: str = "method"):
    """The figure of :func:`bar_prf`, not saved (evalkit.shell.api's ``Result.plot``)."""
    df = summary[(summary["dataset"] == dataset) & summary["metric"].isin(metrics)]
    methods = methods or list(dict.fromkeys(df["method"]))
    x = np.arange(len(methods))
    width = 0.8 / len(metrics)
    fig, ax = plt.subplots(figsize=(max(6.0, 1.1 * len(methods) + 2), 4.2))
    for j, (metric, label) in enumerate(zip(metrics, labels)):
        rows = df[df["metric"] == metric].set_index("method").reindex(methods)
        vals = rows["value"].to_numpy(dtype=float)
        err = np.vstack([np.clip(vals - rows["ci_low"].to_numpy(dtype=float), 0, None),
                         np.clip(rows["ci_high"].to_numpy(dtype=float) - vals, 0, None)])
        ax.bar(x + (j - (len(metrics) - 1) / 2) * width, vals, width, yerr=np.nan_to_num(err),
               capsize=3, label=label)
    ax.set_xticks(x, methods, rotation=30, ha="right")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("score (0-1, 95% bootstrap CI)")
    ax.set_xlabel(xlabel)
    ax.set_title(title or f"{dataset}: {metrics[0].split('_')[0]} precision / recall / F1")
    # outside the axes, so no bar is ever hidden behind it
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    return fig


def pages_correct_curve(per_page: pd.DataFrame, stem, dataset: str, metric: str = "shingle_f1",
                        thresholds: np.ndarray | None = None, n_boot: int = 200,
                        seed: int = 0, methods: list[str] | None = None) -> list[Path]:
    """Share of pages whose per-page ``metric`` reaches each threshold, with a bootstrap band."""
    from evalkit.metrics import BootstrapBatch

    thresholds = np.linspace(0, 1, 21) if thresholds is None else thresholds
    # the pages with a score: a failed page scored as empty (runner.on_failure=empty) counts
    scored = per_page[metric].notna() if metric in per_page else False
    df = per_page[(per_page["dataset"] == dataset) & scored]
    methods = methods or list(dict.fromkeys(df["method"]))
    # every band from one set of draws: bootstrap_ci's numbers for each method and threshold
    batch = BootstrapBatch(n_boot=n_boot, seed=seed)
    curves = []
    for i, m in enumerate(methods):
        f1 = df.loc[df["method"] == m, metric].to_numpy(dtype=float)
        if f1.size:
            curves.append((i, m, [(f1 >= t).mean() for t in thresholds],
                           [batch.add_mean((f1 >= t).astype(float)) for t in thresholds]))
    bands = batch.intervals()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    # more than ten methods would repeat tab10's colours: tab20; line styles and markers vary
    # too, so that near-identical curves (a method and its ablation) both stay visible
    colours = plt.get_cmap("tab20" if len(methods) > 10 else "tab10").colors
    for i, m, share, slots in curves:
        lo, hi = zip(*(bands[slot] for slot in slots))
        line, = ax.plot(thresholds, share, label=m, color=colours[i % len(colours)],
                        marker=_MARKERS[i % len(_MARKERS)], markersize=3.5,
                        linestyle=_LINESTYLES[i % len(_LINESTYLES)])
        ax.fill_between(thresholds, lo, hi, color=line.get_color(), alpha=0.15)
    ax.set_xlabel(f"threshold on per-page {metric.replace('_', ' ')}")
    ax.set_ylabel("share of pages at or above (95% CI band)")
    ax.set_ylim(0, 1.02)
    ax.set_title(f"{dataset}: pages correctly extracted")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return save(fig, stem)


def difference_matrix(panels: list[tuple[str, list[str], np.ndarray, np.ndarray]], stem,
                      dataset: str, alpha: float = 0.05) -> list[Path]:
    """Heatmaps of paired differences, one panel per score: ``(score, methods, diff, p)``
    with ``diff[i, j]`` the mean per-page difference row − column and ``p`` its Holm
    p-value; each cell is annotated with the difference and ``*`` when p < ``alpha``.

    The colour scale is centred on 0 and symmetric (blue: the row method scores higher),
    shared by the panels so that equal colours mean equal differences.
    """
    vmax = max([float(np.nanmax(np.abs(d))) for _, _, d, _ in panels
                if np.isfinite(d).any()] or [1.0]) or 1.0
    k = max(len(m) for _, m, _, _ in panels)
    side = max(3.2, 0.62 * k + 1.6)
    # constrained layout: a panel's method names never run into its neighbour
    fig, axes = plt.subplots(1, len(panels), figsize=(side * len(panels) + 1.2, side + 0.6),
                             squeeze=False, layout="constrained")
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
            ax.text(j, i, f"{diff[i, j]:+.2f}{mark}", ha="center", va="center", fontsize=7,
                    color="white" if strong else "black")
    fig.colorbar(image, ax=axes[0].tolist(), shrink=0.8,
                 label="mean per-page difference (row \u2212 column)")
    fig.suptitle(f"{dataset}: paired differences between methods "
                 f"(* Holm-adjusted p < {alpha:g})", fontsize=10)
    return save(fig, stem)
