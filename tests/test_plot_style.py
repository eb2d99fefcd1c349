"""Method styles (evalkit.report.style) and the figures that use them (evalkit.report.plots)."""

from __future__ import annotations

import matplotlib.colors as mcolors
import pandas as pd
import pytest

from evalkit.report.plots import prf_figure
from evalkit.report.style import KNOWN, OKABE_ITO, method_order, method_style


def _summary(values: dict[str, float]) -> pd.DataFrame:
    rows = []
    for m, f1 in values.items():
        for metric, v in (("shingle_precision", f1 + 0.05), ("shingle_recall", f1 - 0.05),
                          ("shingle_f1", f1)):
            rows.append(("extraction", "d", m, metric, v, v - 0.02, v + 0.03, 10))
    return pd.DataFrame(rows, columns=["experiment", "dataset", "method", "metric", "value",
                                       "ci_low", "ci_high", "n_pages"])


def test_every_known_method_has_its_own_colour_and_marker():
    looks = {(method_style(m).colour, method_style(m).marker) for m in KNOWN}
    assert len(KNOWN) >= 25 and len(looks) == len(KNOWN)
    assert {method_style(m).colour for m in KNOWN} == set(OKABE_ITO)


def test_a_style_depends_on_the_name_alone():
    # slot 0 (proposed): black, round 0 -> marker (0 + 0) mod 8 = "o", line "-"
    assert method_style("proposed").line() == {"color": "#000000", "marker": "o",
                                               "linestyle": "-"}
    # slot 9 (fulltext): colour 9 mod 8 = 1 (orange), round 1 -> marker (1 + 1) mod 8 = "^"
    assert method_style("fulltext").line() == {"color": "#E69F00", "marker": "^",
                                               "linestyle": "--"}
    # an unknown name: the same look on every call (crc32, not Python's salted hash)
    assert method_style("my_method") == method_style("my_method")


def _bar_colours(fig) -> dict[str, set[str]]:
    """method -> the colours of its bars, from the drawn figure (the top method first)."""
    ax = fig.axes[0]
    names = [t.get_text() for t in ax.get_yticklabels()]
    ys = list(ax.get_yticks())
    out: dict[str, set[str]] = {}
    for patch in ax.patches:
        y = patch.get_y() + patch.get_height() / 2
        nearest = min(range(len(ys)), key=lambda i: abs(ys[i] - y))
        out.setdefault(names[nearest], set()).add(mcolors.to_hex(patch.get_facecolor()[:3]))
    return out


def test_two_runs_of_different_method_subsets_draw_a_method_in_the_same_colour():
    import matplotlib.pyplot as plt

    a = prf_figure(_summary({"proposed": 0.7, "cetd": 0.8, "pab": 0.6}), "d")
    b = prf_figure(_summary({"pab": 0.6, "trafilatura": 0.9}), "d")
    ca, cb = _bar_colours(a), _bar_colours(b)
    plt.close(a)
    plt.close(b)
    assert ca["pab"] == cb["pab"] == {method_style("pab").colour.lower()}
    assert ca["cetd"] != ca["pab"]


def test_figures_order_methods_by_the_headline_metric_unless_told_otherwise():
    import matplotlib.pyplot as plt

    summary = _summary({"proposed": 0.7, "cetd": 0.8, "pab": 0.6})
    fig = prf_figure(summary, "d")
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["cetd", "proposed", "pab"]
    plt.close(fig)
    assert method_order(summary, "shingle_f1", order="config") == ["proposed", "cetd", "pab"]
    with pytest.raises(ValueError, match="report.method_order"):
        method_order(summary, "shingle_f1", order="alphabet")


def test_every_bar_carries_its_interval():
    import matplotlib.pyplot as plt

    fig = prf_figure(_summary({"proposed": 0.7, "cetd": 0.8}), "d")
    ax = fig.axes[0]
    bars = len(ax.patches)
    # one error-bar collection per metric, each with a segment per method
    segments = sum(len(c.get_segments()) for c in ax.collections)
    plt.close(fig)
    assert bars == 6 and segments == 6
