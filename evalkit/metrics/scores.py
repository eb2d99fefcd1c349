"""Scores from counts: the P/R/F1 and confusion records, the empty rules, page aggregates.

One convention for the degenerate cases runs through every metric (see
:func:`prf_from_counts` and docs/metrics.md, "Counts and the empty-text
rules"): precision is NaN when nothing was predicted, recall NaN when there
is nothing to find, and averages over pages skip NaN pages; F1 is 0 when
exactly one side is empty and 1 when both are.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import NamedTuple

import numpy as np


class PRF(NamedTuple):
    """Per-page precision, recall and F1 (NaN precision/recall = undefined)."""

    precision: float
    recall: float
    f1: float


class Confusion(NamedTuple):
    """Counts of one page (or a sum of pages): words or weights, content positive."""

    tp: float
    fp: float
    fn: float
    tn: float = 0.0


def prf_from_counts(tp: float, fp: float, fn: float) -> PRF:
    """Precision, recall and F1 from counts, with the module's empty rules.

    precision = tp/(tp+fp), NaN when tp+fp == 0 (nothing predicted);
    recall = tp/(tp+fn), NaN when tp+fn == 0 (nothing to find);
    f1 = 2tp/(2tp+fp+fn), 1.0 when tp = fp = fn = 0.
    """
    predicted, relevant = tp + fp, tp + fn
    precision = tp / predicted if predicted > 0 else math.nan
    recall = tp / relevant if relevant > 0 else math.nan
    denom = 2 * tp + fp + fn
    f1 = 2 * tp / denom if denom > 0 else 1.0
    return PRF(precision, recall, f1)


def confusion_scores(tp: float, fp: float, fn: float, tn: float = 0.0) -> dict[str, float]:
    """``precision, recall, f1`` as in :func:`prf_from_counts`, plus
    accuracy = (tp+tn)/(tp+tn+fp+fn), 1.0 when all four are zero."""
    p, r, f = prf_from_counts(tp, fp, fn)
    total = tp + tn + fp + fn
    acc = (tp + tn) / total if total > 0 else 1.0
    return {"precision": p, "recall": r, "f1": f, "accuracy": acc}


def confusion_scores_rows(
    tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray
) -> dict[str, np.ndarray]:
    """:func:`confusion_scores` of many count tuples at once (arrays of equal shape), the
    same numbers element by element (the same operations in the same order)."""
    tp, fp, fn, tn = (np.asarray(c, dtype=float) for c in (tp, fp, fn, tn))
    predicted, relevant = tp + fp, tp + fn
    denom = 2 * tp + fp + fn
    total = tp + tn + fp + fn
    with np.errstate(divide="ignore", invalid="ignore"):
        return {
            "precision": np.where(predicted > 0, tp / predicted, math.nan),
            "recall": np.where(relevant > 0, tp / relevant, math.nan),
            "f1": np.where(denom > 0, 2 * tp / denom, 1.0),
            "accuracy": np.where(total > 0, (tp + tn) / total, 1.0),
        }


def mean_defined(values: Iterable[float]) -> float:
    """Mean over the pages where a metric is defined (NaN values skipped); NaN when none is."""
    x = np.asarray(list(values) if not isinstance(values, np.ndarray) else values, dtype=float)
    x = x[~np.isnan(x)]
    return float(x.mean()) if x.size else math.nan


def mean_defined_rows(sample: np.ndarray) -> np.ndarray:
    """:func:`mean_defined` of each row of a 2-D array, bit for bit.

    numpy sums a row of a C-ordered array as it sums that row alone (pairwise, along the
    last axis), so the rows with the same number m of defined values are packed into one
    (rows, m) array and averaged at once: each row's defined values, in order, as
    mean_defined sees them. Bootstrap resamples (:class:`evalkit.metrics.BootstrapBatch`)
    are such rows.
    """
    x = np.asarray(sample, dtype=float)
    defined = ~np.isnan(x)
    counts = defined.sum(axis=1)
    if x.shape[1] and (counts == x.shape[1]).all():
        return x.mean(axis=1)  # nothing undefined: the common case
    out = np.full(x.shape[0], math.nan)
    for m in np.unique(counts[counts > 0]):
        rows = counts == m
        out[rows] = x[rows][defined[rows]].reshape(-1, m).mean(axis=1)
    return out


# ---------------------------------------------------------------- pages correct


def pages_correct(f1s: Iterable[float], threshold: float) -> float:
    """Share of pages whose F1 is >= threshold; a NaN F1 (failed page) is not
    correct; NaN when there are no pages."""
    x = np.asarray(list(f1s), dtype=float)
    if x.size == 0:
        return math.nan
    return float(np.mean(x >= threshold))  # NaN >= t is False


def pages_correct_curve(f1s: Iterable[float], thresholds: Iterable[float]) -> np.ndarray:
    """:func:`pages_correct` at each threshold, as an array in the thresholds' order."""
    x = np.asarray(list(f1s), dtype=float)
    t = np.asarray(list(thresholds), dtype=float)
    if x.size == 0:
        return np.full(t.shape, math.nan)
    return (x[None, :] >= t[:, None]).mean(axis=1)
