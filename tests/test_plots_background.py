"""Figures saved by forked children (plots.in_background) are the bytes a plain save writes,
and a child that fails is redone in the run's process, raising what a plain save raises."""

import os
import sys

import matplotlib
import pandas as pd
import pytest

from evalkit.report import plots

pytestmark = pytest.mark.skipif(
    not (sys.platform.startswith("linux") and matplotlib.get_backend().lower() == "agg"),
    reason="figures are saved in forked children only on Linux with the Agg backend",
)

SUMMARY = pd.DataFrame(
    [
        {
            "dataset": "d",
            "method": m,
            "metric": f"shingle_{k}",
            "value": v,
            "ci_low": v - 0.05,
            "ci_high": v + 0.04,
        }
        for m, base in (("a", 0.8), ("b", 0.6))
        for k, v in (("precision", base), ("recall", base - 0.1), ("f1", base - 0.05))
    ]
)


def _bytes(stem):
    return {ext: stem.with_suffix(f".{ext}").read_bytes() for ext in ("png", "svg")}


def test_background_figures_are_the_bytes_of_a_plain_save(tmp_path, monkeypatch):
    # figures another test left open are not this test's: only its own must be closed
    before = set(plots.plt.get_fignums())
    plots.bar_prf(SUMMARY, tmp_path / "plain", "d")
    monkeypatch.setattr(plots, "MAX_CHILDREN", 2)
    with plots.in_background():
        paths = plots.bar_prf(SUMMARY, tmp_path / "forked", "d")
        plots.bar_prf(SUMMARY, tmp_path / "forked2", "d")
        plots.bar_prf(SUMMARY, tmp_path / "forked3", "d")  # waits for a child to end
    assert [p.name for p in paths] == ["forked.png", "forked.svg", "forked.pdf"]
    want = _bytes(tmp_path / "plain")
    for stem in ("forked", "forked2", "forked3"):
        assert _bytes(tmp_path / stem) == want
    assert set(plots.plt.get_fignums()) == before  # every figure of the block closed


def test_a_figure_a_child_failed_on_is_saved_here(tmp_path, monkeypatch):
    parent, write = os.getpid(), plots._write

    def fails_in_children(fig, paths):
        if os.getpid() != parent:
            raise RuntimeError("child")
        write(fig, paths)

    plots.bar_prf(SUMMARY, tmp_path / "plain", "d")
    monkeypatch.setattr(plots, "_write", fails_in_children)
    with plots.in_background():
        plots.bar_prf(SUMMARY, tmp_path / "redone", "d")
    assert _bytes(tmp_path / "redone") == _bytes(tmp_path / "plain")


def test_a_figure_that_cannot_be_saved_raises_when_the_block_ends(tmp_path, monkeypatch):
    def broken(fig, paths):
        raise ValueError("no room on the disk")

    monkeypatch.setattr(plots, "_write", broken)
    before = set(plots.plt.get_fignums())
    with pytest.raises(ValueError, match="no room"), plots.in_background():
        plots.bar_prf(SUMMARY, tmp_path / "x", "d")
    assert plots._BACKGROUND is None and set(plots.plt.get_fignums()) == before


def test_without_a_process_to_fork_the_figure_is_saved_here(tmp_path, monkeypatch):
    def no_fork():
        raise OSError("Resource temporarily unavailable")

    plots.bar_prf(SUMMARY, tmp_path / "plain", "d")
    monkeypatch.setattr(plots.os, "fork", no_fork)
    with plots.in_background():
        plots.bar_prf(SUMMARY, tmp_path / "here", "d")
        assert plots._BACKGROUND.running == []  # saved at once, no child waited for
    assert _bytes(tmp_path / "here") == _bytes(tmp_path / "plain")
