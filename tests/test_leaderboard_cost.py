"""The leaderboard's costs (evalkit.experiments.leaderboard.cost) and the Pareto front and figure
(evalkit.report.pareto): fronts worked by hand, a short measurement on synthetic pages."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from evalkit.core.page import Gold, Page
from evalkit.experiments.leaderboard.cost import COLUMNS, measure_costs, timing_columns
from evalkit.experiments.speed import summarize
from evalkit.harness.runner import Runner
from evalkit.harness.specs import MethodSpec
from evalkit.readers.synthetic import SyntheticDataset
from evalkit.report.pareto import _nice_below, pareto_figure, pareto_front

NAN = float("nan")


# ------------------------------------------------------------------ pareto_front


def test_pareto_front_by_hand():
    # a: fastest; b: slower and better; c: dominated by b (slower, worse); d: slowest and best;
    # e: as fast as a but worse (dominated by a)
    x = [1.0, 2.0, 3.0, 10.0, 1.0]
    y = [0.5, 0.7, 0.6, 0.9, 0.4]
    assert pareto_front(x, y) == [True, True, False, True, False]


def test_pareto_front_ties_and_nan():
    # two equal points dominate neither: both on the front; a third equal in x and worse is not
    assert pareto_front([1, 1, 1], [0.5, 0.5, 0.4]) == [True, True, False]
    # equal y, slower: dominated; equal x, better: dominates
    assert pareto_front([1, 2], [0.5, 0.5]) == [True, False]
    assert pareto_front([1, 1], [0.5, 0.6]) == [False, True]
    # NaN is never on the front and dominates nothing: without it b would be dominated by a
    assert pareto_front([NAN, 1, 2, 3], [0.9, 0.5, 0.4, NAN]) == [False, True, False, False]
    assert pareto_front([NAN], [NAN]) == [False]
    assert pareto_front([], []) == []
    with pytest.raises(ValueError):
        pareto_front([1, 2], [1])


def test_pareto_front_returns_plain_bools():
    front = pareto_front(np.array([1.0, 2.0]), pd.Series([0.1, 0.2]))
    assert front == [True, True] and all(type(v) is bool for v in front)


def test_nice_reference_sizes():
    assert [_nice_below(v) for v in (1.0, 1.9, 2.0, 4.99, 5.0, 99.0, 0.3)] == [
        1.0,
        1.0,
        2.0,
        2.0,
        5.0,
        50.0,
        0.2,
    ]


# ------------------------------------------------------------------ timing_columns


def test_timing_columns_match_the_speed_summary():
    # two pages, fulltext fails on the second; "nope" could not be built (NaN ms on every page)
    rows = []
    for i, (parse, ms) in enumerate([(1.0, 3.0), (2.0, 5.0), (4.0, 6.0)]):
        rows.append(("p", f"p{i}", "fulltext", ms, parse, "boom" if i == 2 else None))
        rows.append(("p", f"p{i}", "nope", NAN, parse, "UnknownNameError: no"))
    per_page = pd.DataFrame(
        [
            {"dataset": d, "page_id": p, "site": None, "method": m, "n_bytes": 100 * (k + 1),
             "ms": ms, "parse_ms": parse, "walk_ms": NAN, "error": e}
            for k, (d, p, m, ms, parse, e) in enumerate(rows)
        ]
    )  # fmt: skip
    got = timing_columns(per_page, ["fulltext", "nope"]).set_index("method")
    # over the pages fulltext did not fail on: ms 3, 5 -> median 4; parse 1, 2 -> median 1.5
    assert got.loc["fulltext", "ms_median"] == 4.0
    assert got.loc["fulltext", "parse_ms_median"] == 1.5
    assert got.loc["fulltext", "ratio_to_parse"] == pytest.approx(4.0 / 1.5)
    assert got.loc["fulltext", "ms_p90"] == pytest.approx(4.8)  # 3 + 0.9 * (5 - 3)
    assert got.loc["fulltext", "failures"] == 1 and got.loc["fulltext", "error"] is None
    assert got.loc["nope", "failures"] == 3 and np.isnan(got.loc["nope", "ms_median"])
    assert got.loc["nope", "error"] == "UnknownNameError: no"
    # the speed experiment's own numbers on the same timings
    ref = summarize(per_page, "p", targets={}, n_boot=10).set_index(["method", "metric"])
    for column in ("ms_median", "ms_p90", "ratio_to_parse", "failures"):
        assert got.loc["fulltext", column] == pytest.approx(ref.loc[("fulltext", column), "value"])


# ------------------------------------------------------------------ measure_costs


def _pages(n: int = 4) -> list[Page]:
    return list(SyntheticDataset(n_sites=2, pages_per_site=2).pages())[:n]


def test_measure_costs_on_synthetic_pages():
    pages = _pages()
    specs = [MethodSpec("fulltext", "fulltext"), MethodSpec("cetd", "cetd")]
    frame = measure_costs(pages, specs)
    assert list(frame.columns) == COLUMNS
    assert list(frame["method"]) == ["fulltext", "cetd"]
    assert (frame["n_pages"] == len(pages)).all() and (frame["failures"] == 0).all()
    for column in ("ms_median", "ms_p90", "parse_ms_median", "ratio_to_parse"):
        assert (frame[column] > 0).all(), column
    assert (frame["ms_p90"] >= frame["ms_median"]).all()
    # one floor for all; memory is noisy: only what must hold
    assert frame["floor_mb"].nunique() == 1 and frame["floor_mb"].iloc[0] > 0
    assert (frame["peak_mb"] > 0).all() and np.isfinite(frame["mb_over_floor"]).all()
    assert (frame["mb_over_floor"] == frame["peak_mb"] - frame["floor_mb"]).all()
    assert frame["error"].isna().all()


def test_measure_costs_a_method_that_cannot_be_built_and_no_memory():
    pages = _pages(3)
    specs = [MethodSpec("fulltext", "fulltext"), MethodSpec("nope", "no_such_method")]
    frame = measure_costs(pages, specs, clock="wall").set_index("method")
    assert frame.loc["nope", "error"].startswith("UnknownNameError")
    assert np.isnan(frame.loc["nope", "ms_median"]) and np.isnan(frame.loc["nope", "peak_mb"])
    assert frame.loc["nope", "failures"] == 3 and frame.loc["fulltext", "error"] is None
    assert frame.loc["fulltext", "peak_mb"] > 0
    off = measure_costs(pages, specs[:1], memory=False)
    assert off[["peak_mb", "floor_mb", "mb_over_floor"]].isna().all().all()
    assert off["ms_median"].iloc[0] > 0
    with pytest.raises(ValueError, match="clock"):
        measure_costs(pages, specs, clock="sundial")


def test_measure_costs_through_a_runner_and_a_function_sent_by_value():
    # a lambda travels to the memory process by value (cloudpickle); what it prints does not
    # spoil the process's answer
    pages = _pages(2)
    shout = MethodSpec.from_object("shout", lambda html: print("noise") or html[:100])
    with Runner(progress=False) as runner:
        frame = measure_costs(pages, [shout], runner=runner)
    row = frame.iloc[0]
    assert row["method"] == "shout" and row["error"] is None, row["error"]
    assert row["ms_median"] > 0 and row["peak_mb"] > 0 and math.isfinite(row["mb_over_floor"])


def test_pages_pickle():
    import pickle

    page = Page(id="p", dataset="d", raw=b"<p>x</p>", gold=Gold(text="x"), site="s")
    twin = pickle.loads(pickle.dumps(page))
    assert (twin.id, twin.html, twin.site, twin.gold.text) == ("p", page.html, "s", "x")


# ------------------------------------------------------------------ pareto_figure


def test_pareto_figure_writes_the_files(tmp_path):
    frame = pd.DataFrame(
        {
            "method": ["fulltext", "cetd", "trafilatura", "proposed", "resiliparse", "broken"],
            "ms_median": [0.9, 1.1, 5.0, 2.4, 0.7, NAN],
            "f1": [0.55, 0.71, 0.79, 0.77, 0.76, 0.5],
            "peak_mb": [0.1, 1.0, 19.9, 4.0, NAN, 1.0],
        }
    )
    png = pareto_figure(frame, tmp_path / "pareto", y="f1", ylabel="word F1", floor=0.5)
    assert png == tmp_path / "pareto.png"
    for ext in (".png", ".svg", ".pdf"):
        assert (tmp_path / f"pareto{ext}").stat().st_size > 0
    with Image.open(png) as im:
        assert im.width > 400 and im.height > 300
    # a figure of one method, all memory unknown, and no memory column at all: still drawn
    one = frame.iloc[[1]].assign(peak_mb=NAN)
    assert pareto_figure(one, tmp_path / "one", y="f1").exists()
    assert pareto_figure(frame.drop(columns="peak_mb"), tmp_path / "bare", y="f1").exists()
    # nothing to draw: an empty figure that names what it left out
    nothing = frame.assign(ms_median=NAN)
    assert pareto_figure(nothing, tmp_path / "nothing", y="f1").exists()
    with pytest.raises(KeyError, match="no column"):
        pareto_figure(frame, tmp_path / "x", y="rouge")
