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
from evalkit.report.cells import Cell

__all__ = ["PAIRWISE_COLUMNS", "page_scores", "pairwise_matrix", "pairwise_rows"]

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
        counts = df[_UNIT_COUNTS].to_numpy(float)
        f1 = [
            metrics.confusion_scores(*c)["f1"] if not np.isnan(c).any() else math.nan
            for c in counts
        ]
        df = df.assign(unit_f1=f1)
    if metric not in df:
        return None
    ok = df[df[metric].notna()]
    methods = [m for m in dict.fromkeys(per_page["method"]) if m in set(ok["method"])]
    if not methods:
        return None
    wide = ok.pivot_table(index="page_id", columns="method", values=metric)
    return wide[methods]


def pairwise_rows(
    per_page: pd.DataFrame,
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
    wide = page_scores(per_page, metric)
    rows, pairs, slots = [], [], []
    # the pairs share their draws (one BootstrapBatch, one set of sign flips per page count):
    # each interval and p-value is the one its own call gives
    batch = metrics.BootstrapBatch(n_boot=n_boot, alpha=alpha, seed=seed)
    for a, b in itertools.combinations([] if wide is None else list(wide.columns), 2):
        pair = wide[[a, b]].dropna()
        x, y = pair[a].to_numpy(float), pair[b].to_numpy(float)
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
