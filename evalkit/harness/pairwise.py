"""Paired differences between every pair of methods: mean, interval, p-value, Holm over pairs.

For one data set and one per-page score (``shingle_f1``, ``unit_f1``, any per-page column
of ``per_page.csv``), every pair (A, B) of methods, A before B in run order, is compared
on the pages both have a score for (a page a method failed on counts when
``runner.on_failure=empty`` scored it as empty, as in the comparison with the reference
method): the mean of the per-page differences A − B, its seeded percentile bootstrap
interval over pages (:func:`evalkit.metrics.bootstrap_ci` of the differences: pages are
resampled with both methods' scores, a paired bootstrap), the two-sided sign-flip
permutation p-value (:func:`evalkit.metrics.paired_permutation_test`), and that p-value
Holm-adjusted over all pairs of the data set and score (:func:`evalkit.metrics.holm`).
docs/metrics.md, "Every pair of methods".
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from evalkit import metrics
from evalkit.harness.page_columns import PageColumns, as_columns, by_page, paired
from evalkit.report.cells import Cell

__all__ = [
    "PAIRWISE_COLUMNS",
    "method_scores",
    "page_scores",
    "pairwise_matrix",
    "pairwise_rows",
]

#: the columns of ``pairwise.csv``
PAIRWISE_COLUMNS = [
    "dataset",
    "metric",
    "method_a",
    "method_b",
    "n_pages",
    "mean_a",
    "mean_b",
    "diff",
    "ci_low",
    "ci_high",
    "p_value",
    "p_holm",
]

_UNIT_COUNTS = ["unit_tp", "unit_fp", "unit_fn", "unit_tn"]


def page_scores(per_page: pd.DataFrame, metric: str) -> pd.DataFrame | None:
    """Per-page ``metric`` as a page_id x method table (methods in run order); None when
    ``per_page`` has no such score.

    ``unit_f1`` is each page's word-weighted unit F1 from its unit counts (the pages whose
    mean is ``unit_f1_macro_pages``) when the table has no ``unit_f1`` column.
    """
    df = per_page
    if metric == "unit_f1" and metric not in df and set(_UNIT_COUNTS) <= set(df.columns):
        df = df.assign(unit_f1=_unit_f1([df[c].to_numpy(float) for c in _UNIT_COUNTS]))
    if metric not in df:
        return None
    ok = df[df[metric].notna()]
    methods = [m for m in dict.fromkeys(per_page["method"]) if m in set(ok["method"])]
    if not methods:
        return None
    wide = ok.pivot_table(index="page_id", columns="method", values=metric)
    return wide[methods]


def _unit_f1(counts: list[np.ndarray]) -> np.ndarray:
    # each record's unit F1 from its counts (confusion_scores' numbers); NaN without counts
    f1 = metrics.confusion_scores_rows(*counts)["f1"]
    return np.where(np.isnan(np.column_stack(counts)).any(axis=1), math.nan, f1)


def method_scores(cols: PageColumns, metric: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per method (run order) with a score in ``metric``: its pages and scores by page
    number (:func:`evalkit.harness.page_columns.by_page`), the columns of
    :func:`page_scores`; ``unit_f1`` from the unit counts as there."""
    derive = metric == "unit_f1" and metric not in cols.columns
    if derive and not set(_UNIT_COUNTS) <= set(cols.columns):
        return {}
    if not derive and metric not in cols.columns:
        return {}
    out = {}
    for m in cols.methods:
        if derive:
            values = _unit_f1([cols.values(m, c) for c in _UNIT_COUNTS])
        else:
            values = cols.values(m, metric)
        pages, values = by_page(cols.page(m), values)
        if len(values):
            out[m] = (pages, values)
    return out


def pairwise_rows(
    per_page: pd.DataFrame | PageColumns,
    dataset: str,
    metric: str,
    *,
    n_boot: int,
    alpha: float,
    seed: int,
    n_perm: int = metrics.N_PERM,
) -> pd.DataFrame:
    """One ``pairwise.csv`` row per pair of methods with a score in ``metric``.

    Empty (with the columns) when the score is absent or fewer than two methods have it.
    Every pair's interval and test draw from ``seed``, so the same records and seed give
    the same bytes.
    """
    scores = method_scores(as_columns(per_page), metric)
    rows, pairs, slots = [], [], []
    # the pairs share their draws (one BootstrapBatch, one set of sign flips per page count):
    # each interval and p-value is the one its own call gives
    batch = metrics.BootstrapBatch(n_boot=n_boot, alpha=alpha, seed=seed)
    for a, b in itertools.combinations(scores, 2):
        x, y = paired(scores[a], scores[b])
        d = x - y
        n = len(d)
        pairs.append((x, y))
        slots.append(batch.add_mean(d))
        rows.append(
            {
                "dataset": dataset,
                "metric": metric,
                "method_a": a,
                "method_b": b,
                "n_pages": n,
                "mean_a": float(x.mean()) if n else math.nan,
                "mean_b": float(y.mean()) if n else math.nan,
                "diff": float(d.mean()) if n else math.nan,
            }
        )
    # the family is every pair of this data set and score
    return tested_rows(rows, slots, pairs, batch, n_perm, seed, PAIRWISE_COLUMNS)


def tested_rows(rows, slots, pairs, batch, n_perm: int, seed: int, columns) -> pd.DataFrame:
    """``rows`` as a frame of ``columns``, each with its interval (its slot of ``batch``), its
    paired permutation p-value (``pairs``: the two sides of each row) and Holm's adjustment
    over every row (the family)."""
    cis = batch.intervals()
    pvals = metrics.paired_permutation_tests(pairs, n_perm=n_perm, seed=seed)
    for row, slot, p in zip(rows, slots, pvals):
        row.update(ci_low=cis[slot][0], ci_high=cis[slot][1], p_value=p)
    out = pd.DataFrame(rows, columns=columns)
    out["p_holm"] = metrics.holm(out["p_value"].to_numpy(float)) if rows else []
    return out


def pairwise_matrix(
    rows: pd.DataFrame, alpha: float = metrics.ALPHA, digits: int = 3
) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """The methods x methods view of one (data set, score)'s rows.

    Returns the display table (cell = mean difference row − column, ``*`` when its Holm p
    is below ``alpha``, ``-`` on the diagonal and where a pair shares no page), the matrix
    of differences (NaN on the diagonal) and the matrix of Holm p-values. The lower
    triangle mirrors the upper: B − A = −(A − B), with the same p.
    """
    methods = list(dict.fromkeys([*rows["method_a"], *rows["method_b"]]))
    k = len(methods)
    diff = np.full((k, k), math.nan)
    p = np.full((k, k), math.nan)
    at = {m: i for i, m in enumerate(methods)}
    for r in rows.itertuples():
        i, j = at[r.method_a], at[r.method_b]
        diff[i, j], diff[j, i] = r.diff, -r.diff
        p[i, j] = p[j, i] = r.p_holm
    cells = [[_cell(diff[i, j], p[i, j], alpha, digits) for j in range(k)] for i in range(k)]
    table = pd.DataFrame(cells, columns=methods)
    table.insert(0, "method", methods)
    return table, diff, p


def _cell(d: float, p: float, alpha: float, digits: int) -> Cell:
    # a Cell shows as before (+0.012*) and keeps the number for the table's csv
    return Cell(
        d,
        digits=digits,
        signed=True,
        mark="*" if not math.isnan(d) and not math.isnan(p) and p < alpha else "",
    )
