"""Method styles (evalkit.report.style) and the figures that use them (evalkit.report.plots)."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib.colors as mcolors
import pandas as pd
import pytest

from evalkit.report.plots import prf_figure
from evalkit.report.style import (
    CATEGORIES,
    KNOWN,
    PALETTE,
    category_style,
    method_order,
    method_style,
)

ROOT = Path(__file__).resolve().parents[1]


def _summary(values: dict[str, float]) -> pd.DataFrame:
    rows = []
    for m, f1 in values.items():
        for metric, v in (
            ("shingle_precision", f1 + 0.05),
            ("shingle_recall", f1 - 0.05),
            ("shingle_f1", f1),
        ):
            rows.append(("extraction", "d", m, metric, v, v - 0.02, v + 0.03, 10))
    return pd.DataFrame(
        rows,
        columns=[
            "experiment",
            "dataset",
            "method",
            "metric",
            "value",
            "ci_low",
            "ci_high",
            "n_pages",
        ],
    )


def test_every_known_method_has_its_own_colour_and_marker():
    looks = {(method_style(m).colour, method_style(m).marker) for m in KNOWN}
    assert len(KNOWN) >= 25 and len(looks) == len(KNOWN)
    bars = {(method_style(m).colour, method_style(m).hatch) for m in KNOWN}
    assert len(bars) == len(KNOWN)  # bars too: a colour that comes round again is hatched
    assert {method_style(m).colour for m in KNOWN} == set(PALETTE) and len(PALETTE) == 12


def test_a_style_depends_on_the_name_alone():
    # slot 0 (proposed): black, round 0 -> marker (0 + 0) mod 8 = "o", line "-"
    assert method_style("proposed").line() == {"color": "#000000", "marker": "o", "linestyle": "-"}
    # slot 18 (fulltext): colour 18 mod 12 = 6 (vermillion), round 1 -> marker (1 + 18) mod 8
    assert method_style("fulltext").line() == {"color": "#D55E00", "marker": "D", "linestyle": "--"}
    assert method_style("fulltext").hatch == "///"
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


def _labels() -> dict[str, str]:
    """configs/method/<file>.yaml -> the method label it adds (its first key)."""
    out = {}
    for path in (ROOT / "configs" / "method").glob("*.yaml"):
        key = next(
            line.split(":")[0]
            for line in path.read_text().splitlines()
            if re.match(r"^[\w@]+:", line)
        )
        out[path.stem] = key
    return out


def _configured_sets() -> dict[str, list[str]]:
    """The method labels each configured run draws: the default set and each study's."""
    labels = _labels()
    sets = {}
    for path in [
        ROOT / "configs" / "config.yaml",
        *sorted((ROOT / "configs" / "study").glob("*.yaml")),
    ]:
        text = path.read_text()
        m = re.search(r"^\s*- (?:override /)?method: \[([^\]]*)\]", text, re.MULTILINE)
        if not m:
            continue
        names = [labels[n.strip()] for n in m.group(1).split(",") if n.strip()]
        names += re.findall(r"^  ([\w]+@[\w]+):", text, re.MULTILINE)  # entries a study adds
        sets[path.stem] = names
    return sets


def test_every_configured_set_draws_each_method_in_a_colour_of_its_own():
    sets = _configured_sets()
    assert {"config", "saravanan2020", "trafilatura_eval", "wcxb", "kabir2015"} <= set(sets)
    for name, methods in sets.items():
        styles = [method_style(m) for m in methods]
        colours = [st.colour for st in styles]
        if len(methods) <= len(PALETTE):
            assert len(set(colours)) == len(methods), (name, methods, colours)
        else:  # more methods than colours (the leaderboard's 17): colour and marker together
            looks = {(st.colour, st.marker) for st in styles}
            assert len(looks) == len(methods), (name, methods, looks)
    # the repeats the issue saw: proposed = justext_style, proposed@primary = fulltext
    assert method_style("proposed").colour != method_style("justext_style").colour
    assert method_style("proposed@primary").colour != method_style("fulltext").colour


def _row_colours(fig) -> dict[str, list[tuple]]:
    """method -> the (colour, hatch) of each of its bars, top to bottom."""
    ax = fig.axes[0]
    names = [t.get_text() for t in ax.get_yticklabels()]
    ys = list(ax.get_yticks())
    out: dict[str, list] = {}
    for patch in sorted(ax.patches, key=lambda p: -p.get_y()):
        y = patch.get_y() + patch.get_height() / 2
        nearest = min(range(len(ys)), key=lambda i: abs(ys[i] - y))
        out.setdefault(names[nearest], []).append(
            (mcolors.to_hex(patch.get_facecolor(), keep_alpha=True), patch.get_hatch())
        )
    return out


@pytest.mark.parametrize("types", [CATEGORIES, ("article", "documentation", "service")])
def test_each_wcxb_page_type_has_a_colour_of_its_own_in_every_figure(types):
    import matplotlib.pyplot as plt

    rows = [
        ("wcxb", "d", m, f"wcxb_f1_{t}", 0.5 + 0.05 * i, float("nan"), float("nan"), 9)
        for m in ("trafilatura", "goose3")
        for i, t in enumerate(types)
    ]
    summary = pd.DataFrame(
        rows,
        columns=[
            "experiment",
            "dataset",
            "method",
            "metric",
            "value",
            "ci_low",
            "ci_high",
            "n_pages",
        ],
    )
    fig = prf_figure(summary, "d", metrics=tuple(f"wcxb_f1_{t}" for t in types), labels=types)
    bars = _row_colours(fig)
    legend = [
        mcolors.to_hex(h.get_facecolor(), keep_alpha=True) for h in fig.legends[0].legend_handles
    ]
    plt.close(fig)
    for method, looks in bars.items():
        assert len(set(looks)) == len(types), (method, looks)  # article != listing, ...
        # a page type is the same colour in every row, and the legend's
        assert [c for c, _ in looks] == legend
    assert legend == [mcolors.to_hex(category_style(t).colour, keep_alpha=True) for t in types]
    assert len({category_style(t).colour for t in CATEGORIES}) == len(CATEGORIES) == 7
