"""A summary mean skips the pages where its metric is undefined, as its interval does.

Worked by hand: word precision is undefined (NaN) on a page where a method kept
nothing; the reference summary of l3s_gn1 printed an empty value beside a
non-empty interval for word, LCS and Kaur precision before this was fixed.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from evalkit.experiments.extraction import summarize


def test_word_precision_is_the_mean_of_the_defined_pages():
    nan = math.nan
    # pages: (word_precision, word_recall); p3 kept nothing, so its precision is undefined
    rows = [("m", "p1", 1.0, 0.5), ("m", "p2", 0.5, 1.0), ("m", "p3", nan, 0.0)]
    df = pd.DataFrame(rows, columns=["method", "page_id", "word_precision", "word_recall"])
    df["error"] = None
    df["shingle_precision"] = df["word_precision"]
    df["shingle_recall"] = df["word_recall"]
    df["shingle_f1"] = [2 / 3, 2 / 3, 0.0]
    s = summarize(df, "d", {"n_boot": 200}, seed=0).set_index("metric")
    assert s.loc["word_precision", "value"] == pytest.approx(0.75)  # (1 + 0.5) / 2
    assert s.loc["word_recall", "value"] == pytest.approx(0.5)  # (0.5 + 1 + 0) / 3
    lo, hi = s.loc["word_precision", ["ci_low", "ci_high"]]
    assert 0.5 <= lo <= 0.75 <= hi <= 1.0
    assert s.loc["word_precision", "n_pages"] == 3
