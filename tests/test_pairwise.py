"""Paired differences between every pair of methods (evalkit/harness/pairwise.py), worked by hand.

docs/metrics.md, "Every pair of methods".
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from evalkit import metrics
from evalkit.harness.pairwise import PAIRWISE_COLUMNS, page_scores, pairwise_matrix, pairwise_rows


def test_holm_on_a_hand_worked_example():
    # sorted: 0.005 (x4 = 0.02), 0.01 (x3 = 0.03), 0.03 (x2 = 0.06), 0.04 (x1 = 0.04, but
    # never below the step before: 0.06); back in input order
    got = metrics.holm([0.01, 0.04, 0.03, 0.005])
    assert got == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_holm_caps_at_one_and_skips_nan():
    # m = 2 defined values: 0.01 x2 = 0.02, 0.04 x1 = 0.04; NaN stays NaN
    got = metrics.holm([0.01, math.nan, 0.04])
    assert got[0] == pytest.approx(0.02) and math.isnan(got[1]) and got[2] == pytest.approx(0.04)
    assert list(metrics.holm([0.6, 0.7])) == [1.0, 1.0]  # 1.2 capped; 0.7 raised to the cap


def _per_page(rows):
    """per_page records from (page, method, shingle_f1, error) tuples."""
    return pd.DataFrame(
        [{"page_id": p, "method": m, "shingle_f1": f, "error": e} for p, m, f, e in rows]
    )


#: A, B, C on four pages; C failed on page 2 and was dropped (no score)
HAND = _per_page(
    [(f"p{i + 1}", "A", f, None) for i, f in enumerate([0.9, 0.8, 0.7, 0.6])]
    + [(f"p{i + 1}", "B", f, None) for i, f in enumerate([0.5, 0.6, 0.7, 0.2])]
    + [
        ("p1", "C", 0.9, None),
        ("p2", "C", math.nan, "boom"),
        ("p3", "C", 0.7, None),
        ("p4", "C", 0.6, None),
    ]
)


def test_paired_differences_on_hand_made_scores():
    rows = pairwise_rows(HAND, "hand", "shingle_f1", n_boot=500, alpha=0.05, seed=3)
    assert list(rows.columns) == PAIRWISE_COLUMNS
    assert list(zip(rows["method_a"], rows["method_b"])) == [("A", "B"), ("A", "C"), ("B", "C")]
    ab, ac, bc = (rows.iloc[i] for i in range(3))
    # A - B = [0.4, 0.2, 0.0, 0.4]: mean 0.25 over 4 pages; means 0.75 and 0.5
    assert (ab["n_pages"], ab["mean_a"], ab["mean_b"]) == (
        4,
        pytest.approx(0.75),
        pytest.approx(0.5),
    )
    assert ab["diff"] == pytest.approx(0.25)
    # exact sign-flip p: |sum| of +-0.4 +-0.2 +-0.4 reaches 1.0 in 2 of 8 sign patterns
    assert ab["p_value"] == pytest.approx(0.25, abs=0.02)
    # the interval is the seeded bootstrap of the differences, inside their range
    assert [ab["ci_low"], ab["ci_high"]] == pytest.approx(
        metrics.bootstrap_ci([0.4, 0.2, 0.0, 0.4], n_boot=500, alpha=0.05, seed=3)
    )
    assert 0.0 <= ab["ci_low"] < 0.25 < ab["ci_high"] <= 0.4
    # A - C over the 3 pages both scored: all 0, so p = 1 and the interval is [0, 0]
    assert (ac["n_pages"], ac["diff"], ac["p_value"]) == (3, 0.0, 1.0)
    assert (ac["ci_low"], ac["ci_high"]) == (0.0, 0.0)
    # B - C = [-0.4, 0, -0.4]: mean -0.2667; |sum| 0.8 in 2 of 4 patterns: p = 0.5
    assert bc["diff"] == pytest.approx(-0.8 / 3)
    assert bc["p_value"] == pytest.approx(0.5, abs=0.02)
    # Holm over the three pairs: 0.25 x3 = 0.75, then max(0.75, 0.5 x2 = 1.0), then 1.0
    assert list(rows["p_holm"]) == pytest.approx([0.75, 1.0, 1.0], abs=0.06)
    assert list(rows["p_holm"]) == list(metrics.holm(rows["p_value"]))


def test_a_page_scored_as_empty_after_a_failure_counts():
    # runner.on_failure=empty: the failed page keeps its error and has a score (0)
    per_page = _per_page(
        [
            ("p1", "A", 1.0, None),
            ("p2", "A", 1.0, None),
            ("p1", "B", 0.5, None),
            ("p2", "B", 0.0, "timeout"),
        ]
    )
    row = pairwise_rows(per_page, "d", "shingle_f1", n_boot=100, alpha=0.05, seed=0).iloc[0]
    assert (row["n_pages"], row["diff"]) == (2, pytest.approx(0.75))


def test_same_seed_same_numbers():
    a = pairwise_rows(HAND, "hand", "shingle_f1", n_boot=300, alpha=0.05, seed=1)
    b = pairwise_rows(HAND, "hand", "shingle_f1", n_boot=300, alpha=0.05, seed=1)
    pd.testing.assert_frame_equal(a, b)


def test_one_method_or_no_such_score_gives_no_rows():
    one = HAND[HAND["method"] == "A"]
    rows = pairwise_rows(one, "hand", "shingle_f1", n_boot=10, alpha=0.05, seed=0)
    assert rows.empty and list(rows.columns) == PAIRWISE_COLUMNS
    assert pairwise_rows(HAND, "hand", "rouge_lsum_f1", n_boot=10, alpha=0.05, seed=0).empty


def test_unit_f1_is_each_page_s_unit_f1_from_its_counts():
    per_page = pd.DataFrame(
        [
            # tp 3, fp 1, fn 0: F1 = 2*3 / (2*3 + 1 + 0) = 6/7
            {
                "page_id": "p1",
                "method": "A",
                "unit_tp": 3,
                "unit_fp": 1,
                "unit_fn": 0,
                "unit_tn": 5,
            },
            # tp 1, fp 0, fn 1: F1 = 2 / (2 + 0 + 1) = 2/3
            {
                "page_id": "p1",
                "method": "B",
                "unit_tp": 1,
                "unit_fp": 0,
                "unit_fn": 1,
                "unit_tn": 7,
            },
            # no units (a failed page under drop): no score
            {
                "page_id": "p2",
                "method": "A",
                "unit_tp": np.nan,
                "unit_fp": np.nan,
                "unit_fn": np.nan,
                "unit_tn": np.nan,
            },
        ]
    )
    wide = page_scores(per_page, "unit_f1")
    assert list(wide.columns) == ["A", "B"] and list(wide.index) == ["p1"]
    assert wide.loc["p1", "A"] == pytest.approx(6 / 7)
    assert wide.loc["p1", "B"] == pytest.approx(2 / 3)


def test_matrix_mirrors_the_pairs_and_marks_holm_significance():
    rows = pd.DataFrame(
        [
            {"method_a": "A", "method_b": "B", "diff": 0.25, "p_holm": 0.01},
            {"method_a": "A", "method_b": "C", "diff": 0.0, "p_holm": 1.0},
            {"method_a": "B", "method_b": "C", "diff": -0.1234, "p_holm": 0.2},
        ]
    )
    table, diff, p = pairwise_matrix(rows, alpha=0.05)
    assert table.to_dict("records") == [
        {"method": "A", "A": "-", "B": "+0.250*", "C": "0.000"},  # a zero has no sign
        {"method": "B", "A": "-0.250*", "B": "-", "C": "-0.123"},
        {"method": "C", "A": "0.000", "B": "+0.123", "C": "-"},
    ]
    assert diff[1, 0] == -0.25 and math.isnan(diff[2, 2]) and p[2, 1] == 0.2
