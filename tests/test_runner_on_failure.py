"""runner.on_failure: a failed page counts (empty) or is left out and said so (drop).

Worked by hand: the runner's records for a failed page under each policy, and the
extraction summary of two methods on two pages, one failed page, under each policy.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from evalkit.core.page import Gold, Page
from evalkit.experiments.extraction import summarize
from evalkit.harness.errors import RunnerError
from evalkit.harness.runner import Runner, run_pages
from evalkit.harness.specs import MethodSpec


def _page(i, html):
    return Page(id=f"p{i}", dataset="t", raw=html.encode(), gold=Gold(text="x"))


def _count(page, method, ext):
    # a score exists only for an extraction without error, as in evalkit.harness.scoring
    return {
        "page_id": page.id,
        "method": method,
        "error": ext.error,
        "n_out": len(ext.text.split()) if ext.error is None else None,
    }


PAGES = [_page(0, "<html><body><p>one two three</p></body></html>"), _page(1, "")]
SPECS = [
    MethodSpec("fulltext", "fulltext"),
    MethodSpec("broken", "pab", {"max_outer_link_share": 5.0}),
]  # cannot be built


def test_empty_scores_a_failed_page_as_an_empty_extraction_and_keeps_its_error():
    recs = run_pages(PAGES, SPECS, score=_count, progress=False, on_failure="empty")
    got = [(r["page_id"], r["method"], r["n_out"]) for r in recs]
    # p1 is empty: fulltext raises on it and is scored as an empty extraction (0 words);
    # the method that cannot be built has no pages at all, so it is never scored
    assert got == [
        ("p0", "fulltext", 3),
        ("p0", "broken", None),
        ("p1", "fulltext", 0),
        ("p1", "broken", None),
    ]
    assert recs[0]["error"] is None
    assert recs[2]["error"].startswith("PageError: p1: empty document")
    assert recs[1]["error"].startswith("method could not be built: ParamError")  # a ValueError


def test_drop_leaves_a_failed_page_unscored():
    recs = run_pages(PAGES, SPECS, score=_count, progress=False, on_failure="drop")
    assert [r["n_out"] for r in recs] == [3, None, None, None]
    assert recs[2]["error"].startswith("PageError: p1: empty document")


def test_a_bad_policy_is_one_line():
    with pytest.raises(
        RunnerError, match="runner.on_failure must be one of empty, drop, got 'skip'"
    ):
        Runner(on_failure="skip")


def _per_page(on_failure):
    # a: p1 P=R=F1=1, p2 P=R=F1=0.5; b: p1 P=1 R=0.5 F1=2/3, p2 failed.
    # Scored as empty against a non-empty gold, p2 of b has P undefined (nothing
    # predicted), R = 0 and F1 = 0 (evalkit.metrics.prf_from_counts).
    nan = math.nan
    b2 = (nan, 0.0, 0.0) if on_failure == "empty" else (nan, nan, nan)
    rows = [
        ("a", "p1", None, 1.0, 1.0, 1.0),
        ("a", "p2", None, 0.5, 0.5, 0.5),
        ("b", "p1", None, 1.0, 0.5, 2 / 3),
        ("b", "p2", "ValueError: boom", *b2),
    ]
    return pd.DataFrame(
        rows,
        columns=["method", "page_id", "error", "shingle_precision", "shingle_recall", "shingle_f1"],
    )


def _values(on_failure):
    s = summarize(_per_page(on_failure), "d", {"n_boot": 50, "reference": "a"}, seed=0)
    return s.set_index(["method", "metric"])[["value", "n_pages"]]


def test_summary_under_empty_counts_the_failed_page_for_every_metric():
    v = _values("empty")
    assert v.loc[("a", "failures")].tolist() == [0.0, 2]
    assert v.loc[("b", "failures")].tolist() == [1.0, 2]
    # b: P = mean of the defined page precisions = 1; R = (0.5 + 0) / 2; F1 of the two
    assert v.loc[("b", "shingle_precision"), "value"] == 1.0
    assert v.loc[("b", "shingle_recall"), "value"] == 0.25
    assert v.loc[("b", "shingle_f1"), "value"] == pytest.approx(2 * 0.25 / 1.25)
    # pages_correct at 0.8: a has p1 only -> 1/2; b has none
    assert v.loc[("a", "pages_correct"), "value"] == 0.5
    assert v.loc[("b", "pages_correct"), "value"] == 0.0
    # paired on both pages: b - a = (2/3 - 1, 0 - 0.5), mean -5/12
    assert v.loc[("b", "f1_diff_vs_a"), "value"] == pytest.approx(-5 / 12)
    # every method of the table has the same n_pages on every row
    assert set(v["n_pages"]) == {2}


def test_summary_under_drop_leaves_the_failed_page_out_and_still_counts_it():
    v = _values("drop")
    assert v.loc[("b", "failures")].tolist() == [1.0, 2]
    assert v.loc[("b", "shingle_recall")].tolist() == [0.5, 1]
    assert v.loc[("b", "shingle_f1"), "value"] == pytest.approx(2 / 3)
    assert v.loc[("b", "f1_diff_vs_a")].tolist() == pytest.approx([2 / 3 - 1, 1])
    assert v.loc[("a", "shingle_f1"), "n_pages"] == 2
    assert not np.isnan(v.loc[("b", "shingle_precision"), "value"])
