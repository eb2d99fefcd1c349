"""Page complexity and its buckets: how much of a page is boilerplate, in thirds per data set.

After Bevendorff et al. (2023, "An Empirical Comparison of Web Content Extraction
Algorithms", their ``complexity.py``): a page's complexity is
``1 - min(1, gold words / visible words)``, the share of the page's visible text that is
*not* gold. 0 is a page that is all main content (easy), values near 1 a page that is
mostly boilerplate (hard). The gold share is ``1 - complexity``.

Departures from theirs (docs/metrics.md, "Page complexity buckets"):

* words are the word metrics' tokens (:func:`evalkit.core.text.words`: white-space tokens, a
  Chinese or Japanese character one token) of the gold text and of
  :func:`evalkit.core.visible.visible_text` (theirs: ``\\w+`` tokens of the body text without
  ``script`` and ``style``);
* buckets are cut at quantiles of *each data set's* pages (default: terciles, 1/3 and 2/3;
  theirs: the 0.25 and 0.75 quantiles of all sets pooled, ``extraction.complexity_quantiles
  =[0.25,0.75]`` gives their cut points per set), and each page falls in exactly one bucket
  (theirs are closed on both ends, so a page at a cut point counts in two).

Pure functions of counts and arrays; numpy only (this runs in the scoring workers).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["BUCKETS", "TERCILES", "bucket_cuts", "complexity_buckets", "page_complexity"]

#: bucket names, from least to most complex (Bevendorff et al.'s names)
BUCKETS = ("low", "medium", "high")
#: the default cut points: thirds of each data set's pages
TERCILES = (1 / 3, 2 / 3)


def page_complexity(n_words_gold: int, n_words_visible: int) -> float:
    """``1 - min(1, n_words_gold / n_words_visible)``; NaN when the page shows no words
    (nothing to compare the gold with). Gold longer than the visible text (text taken from
    attributes, or gold that is not on the page) is capped: complexity 0."""
    if n_words_visible <= 0:
        return math.nan
    return 1.0 - min(1.0, n_words_gold / n_words_visible)


def bucket_cuts(
    values: Sequence[float], quantiles: Sequence[float] = TERCILES
) -> tuple[float, float]:
    """The two cut points: ``numpy.quantile`` (linear interpolation) of the defined values
    at ``quantiles``; (NaN, NaN) when no value is defined."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if len(quantiles) != len(BUCKETS) - 1:
        raise ValueError(f"need {len(BUCKETS) - 1} quantiles, got {list(quantiles)}")
    if x.size == 0:
        return math.nan, math.nan
    low, high = np.quantile(x, list(quantiles))
    return float(low), float(high)


def complexity_buckets(
    values: Sequence[float], quantiles: Sequence[float] = TERCILES
) -> tuple[list[str | None], tuple[float, float]]:
    """Bucket name of each value and the cut points ``(c1, c2)``.

    ``low``: value <= c1; ``medium``: c1 < value <= c2; ``high``: value > c2; None for NaN
    (a page with no visible words belongs to no bucket). Cuts are values, not ranks, so
    pages with the same complexity always share a bucket: with ties at a cut point the
    buckets are unequal and one may be empty (all pages equal: all ``low``).
    """
    c1, c2 = bucket_cuts(values, quantiles)
    out: list[str | None] = []
    for v in np.asarray(values, dtype=float):
        if math.isnan(v):
            out.append(None)
        elif v <= c1:
            out.append(BUCKETS[0])
        elif v <= c2:
            out.append(BUCKETS[1])
        else:
            out.append(BUCKETS[2])
    return out, (c1, c2)
