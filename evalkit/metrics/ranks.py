"""Ranks of methods over blocks (data sets or pages): Friedman's test and its post-hoc tests.

After Demšar (2006), "Statistical Comparisons of Classifiers over Multiple Data Sets", JMLR 7,
1-30, Section 3.2.2. A table has N rows (blocks: data sets, or pages) and k columns (methods);
each cell is a score, **higher is better** unless the caller says otherwise.

* **Ranks.** Within each block the methods are ranked, 1 = best; tied scores share the mean
  of the ranks they span (Demšar: "in case of ties, average ranks are assigned"). R_j is the
  mean rank of method j over the N blocks (:func:`mean_ranks`).
* **Friedman.** chi2_F = 12 N / (k (k + 1)) * [sum_j R_j^2 - k (k + 1)^2 / 4], referred to
  chi2 with k - 1 degrees of freedom. Demšar's equation has no correction for ties, and
  neither has this module by default (:data:`TIE_CORRECTION`); with the correction chi2_F is
  divided by 1 - sum_blocks sum_ties (t^3 - t) / (N k (k^2 - 1)), as
  ``scipy.stats.friedmanchisquare`` does (equal without ties).
* **Iman-Davenport.** F_F = (N - 1) chi2_F / (N (k - 1) - chi2_F), referred to F with k - 1
  and (k - 1)(N - 1) degrees of freedom; Demšar recommends it over chi2_F, which is
  "undesirably conservative" (:func:`friedman` returns both).
* **Nemenyi.** Two methods differ when their mean ranks differ by at least the critical
  difference CD = q_alpha sqrt(k (k + 1) / (6 N)), q_alpha the studentized range quantile
  (infinite degrees of freedom) divided by sqrt(2) (Demšar's Table 5a; :func:`nemenyi_q`,
  :func:`nemenyi_cd`, :func:`nemenyi`). Groups of methods not told apart are the maximal runs
  of methods, in rank order, whose rank range is below CD (:func:`cliques`: the bars of the
  critical-difference diagram, evalkit.report.cd_diagram).
* **Wilcoxon-Holm.** The alternative post-hoc: each pair's Wilcoxon signed-rank test over the
  blocks (Demšar's test for two classifiers), the k (k - 1) / 2 p-values adjusted with Holm
  (1979) (:func:`holm_wilcoxon`; :func:`evalkit.metrics.inference.holm`).

Assumptions, each a named constant: blocks are independent and each is scored by every method;
a block without a score for some method is dropped whole (:data:`DROP_INCOMPLETE_BLOCKS`; the
result's N counts the blocks kept); fewer than :data:`MIN_METHODS` methods or
:data:`MIN_BLOCKS` complete blocks raise ``ValueError``; the level of every test is
:data:`ALPHA` unless given.
"""

from __future__ import annotations

import itertools
import math
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import stats

from evalkit.metrics.inference import holm

__all__ = [
    "ALPHA",
    "DROP_INCOMPLETE_BLOCKS",
    "MIN_BLOCKS",
    "MIN_METHODS",
    "TIE_CORRECTION",
    "WILCOXON_METHOD",
    "WILCOXON_ZERO_METHOD",
    "Friedman",
    "cliques",
    "complete_blocks",
    "friedman",
    "friedman_from_ranks",
    "holm_wilcoxon",
    "mean_ranks",
    "nemenyi",
    "nemenyi_cd",
    "nemenyi_q",
]

#: the level of the tests, and of the CD, when a caller gives none
ALPHA = 0.05
#: a block (row) with NaN for any method is left out whole: the Friedman test needs every
#: method ranked in every block. False raises ``ValueError`` on a NaN instead
DROP_INCOMPLETE_BLOCKS = True
#: fewer methods or complete blocks than these raise ``ValueError``
MIN_METHODS = 2
MIN_BLOCKS = 2
#: Demšar's chi2_F has no tie correction; True divides it by scipy's correction factor
TIE_CORRECTION = False
#: Wilcoxon with zero differences: Demšar splits their ranks evenly between the two sums
#: (he drops one when their count is odd; scipy's "zsplit" keeps it)
WILCOXON_ZERO_METHOD = "zsplit"
#: scipy's choice of null distribution: exact for N <= 50 blocks without ties or zeros, with
#: them every sign flip for N <= 13 (2^N: about a second a pair at N = 13), else normal
WILCOXON_METHOD = "auto"


class Friedman(NamedTuple):
    """Friedman's test on a table (module docstring): ``chi2`` (chi2_F) and its ``p``, the
    Iman-Davenport ``f`` (F_F) and its ``p_f``, the ``mean_ranks`` (a Series, the table's
    column order, 1 = best), ``n`` blocks used and ``k`` methods."""

    chi2: float
    p: float
    f: float
    p_f: float
    mean_ranks: pd.Series
    n: int
    k: int


def complete_blocks(scores: pd.DataFrame) -> tuple[pd.DataFrame, list]:
    """The table as floats without the blocks that miss a score (:data:`DROP_INCOMPLETE_BLOCKS`),
    and the labels of the blocks dropped; ``ValueError`` when too few methods or blocks stay."""
    if not isinstance(scores, pd.DataFrame):
        raise TypeError("scores must be a DataFrame: rows = blocks, columns = methods")
    if scores.columns.has_duplicates:
        raise ValueError(
            f"method names repeat: {list(scores.columns[scores.columns.duplicated()])}"
        )
    if scores.shape[1] < MIN_METHODS:
        raise ValueError(f"ranks need at least {MIN_METHODS} methods, got {scores.shape[1]}")
    table = scores.apply(pd.to_numeric, errors="raise").astype(float)
    missing = table.isna().any(axis=1)
    if missing.any() and not DROP_INCOMPLETE_BLOCKS:
        raise ValueError(f"{int(missing.sum())} blocks miss a score for some method")
    kept = table[~missing]
    if len(kept) < MIN_BLOCKS:
        raise ValueError(
            f"ranks need at least {MIN_BLOCKS} blocks scored by every method, got {len(kept)}"
            f" ({int(missing.sum())} dropped for a missing score)"
        )
    return kept, list(table.index[missing])


def _ranks(table: pd.DataFrame, higher_is_better: bool) -> pd.DataFrame:
    # per block, 1 = best, ties share the mean of the ranks they span
    return table.rank(axis=1, ascending=not higher_is_better, method="average")


def mean_ranks(scores: pd.DataFrame, higher_is_better: bool = True) -> pd.Series:
    """Each method's mean rank over the complete blocks (1 = best, ties averaged), in the
    table's column order."""
    table, _ = complete_blocks(scores)
    return _ranks(table, higher_is_better).mean(axis=0)


def _tie_factor(ranks: pd.DataFrame) -> float:
    """1 - sum (t^3 - t) / (N k (k^2 - 1)) over every group of t tied ranks in a block."""
    n, k = ranks.shape
    ties = 0.0
    for row in ranks.to_numpy():
        _, counts = np.unique(row, return_counts=True)
        ties += float((counts**3 - counts).sum())
    return 1.0 - ties / (n * k * (k * k - 1))


def friedman_from_ranks(
    ranks: pd.Series, n: int, tie_factor: float = 1.0
) -> tuple[float, float, float, float]:
    """chi2_F, its p, F_F and its p from mean ranks over ``n`` blocks (Demšar's equations);
    ``tie_factor`` divides chi2_F (1 = none)."""
    k = len(ranks)
    r = np.asarray(ranks, dtype=float)
    chi2 = 12.0 * n / (k * (k + 1)) * (float((r**2).sum()) - k * (k + 1) ** 2 / 4.0)
    chi2 = max(chi2, 0.0)  # rounding below zero when every rank is (k + 1) / 2
    if tie_factor <= 0.0:  # every block one tie: no ordering at all
        chi2 = 0.0
    else:
        chi2 /= tie_factor
    p = float(stats.chi2.sf(chi2, k - 1))
    denominator = n * (k - 1) - chi2
    if denominator <= 0.0:  # every block ranks the methods alike: F_F is unbounded
        return chi2, p, math.inf, 0.0
    f = (n - 1) * chi2 / denominator
    return chi2, p, f, float(stats.f.sf(f, k - 1, (k - 1) * (n - 1)))


def friedman(
    scores: pd.DataFrame,
    higher_is_better: bool = True,
    tie_correction: bool = TIE_CORRECTION,
) -> Friedman:
    """Friedman's chi2_F and Iman-Davenport's F_F with their p-values, the mean ranks, N and k
    (module docstring); blocks with a missing score are dropped."""
    table, _ = complete_blocks(scores)
    ranks = _ranks(table, higher_is_better)
    n, k = ranks.shape
    factor = _tie_factor(ranks) if tie_correction else 1.0
    chi2, p, f, p_f = friedman_from_ranks(ranks.mean(axis=0), n, factor)
    return Friedman(chi2, p, f, p_f, ranks.mean(axis=0), n, k)


def nemenyi_q(k: int, alpha: float = ALPHA) -> float:
    """q_alpha of the two-tailed Nemenyi test for ``k`` methods: the studentized range's
    1 - alpha quantile with infinite degrees of freedom, divided by sqrt(2) (Table 5a)."""
    if k < MIN_METHODS:
        raise ValueError(f"the Nemenyi test needs at least {MIN_METHODS} methods, got {k}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf)) / math.sqrt(2.0)


def _rank_se(k: int, n: int) -> float:
    # the standard error of a difference of two mean ranks under the null hypothesis
    return math.sqrt(k * (k + 1) / (6.0 * n))


def nemenyi_cd(k: int, n: int, alpha: float = ALPHA) -> float:
    """Nemenyi's critical difference of mean ranks: q_alpha sqrt(k (k + 1) / (6 N))."""
    if n < MIN_BLOCKS:
        raise ValueError(f"the Nemenyi test needs at least {MIN_BLOCKS} blocks, got {n}")
    return nemenyi_q(k, alpha) * _rank_se(k, n)


def nemenyi(
    scores: pd.DataFrame, alpha: float = ALPHA, higher_is_better: bool = True
) -> pd.DataFrame:
    """Every pair of methods (``a`` ranked better or equal), their mean ranks, the
    ``difference``, the ``cd``, the Nemenyi ``p`` and ``significant`` (difference >= CD, as
    p <= alpha); the pairs told apart are the rows with ``significant``."""
    table, _ = complete_blocks(scores)
    ranks = _ranks(table, higher_is_better).mean(axis=0)
    n, k = table.shape
    cd, se = nemenyi_cd(k, n, alpha), _rank_se(k, n)
    rows = []
    for a, b in itertools.combinations(ranks.index, 2):
        if ranks[b] < ranks[a]:
            a, b = b, a
        diff = float(ranks[b] - ranks[a])
        p = float(stats.studentized_range.sf(diff / se * math.sqrt(2.0), k, np.inf))
        rows.append((a, b, float(ranks[a]), float(ranks[b]), diff, cd, min(p, 1.0), diff >= cd))
    columns = ["a", "b", "rank_a", "rank_b", "difference", "cd", "p", "significant"]
    return pd.DataFrame(rows, columns=columns)


def _wilcoxon_p(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    if np.all(x == y):  # no difference on any block: nothing to test
        return 0.0, 1.0
    res = stats.wilcoxon(x, y, zero_method=WILCOXON_ZERO_METHOD, method=WILCOXON_METHOD)
    return float(res.statistic), float(res.pvalue)


def holm_wilcoxon(
    scores: pd.DataFrame, alpha: float = ALPHA, higher_is_better: bool = True
) -> pd.DataFrame:
    """Every pair of methods (``a`` of the better mean rank first), the Wilcoxon signed-rank
    ``statistic`` and ``p`` over the complete blocks, ``p_holm`` (Holm over the k (k - 1) / 2
    pairs) and ``significant`` (p_holm <= alpha)."""
    table, _ = complete_blocks(scores)
    ranks = _ranks(table, higher_is_better).mean(axis=0)
    rows = []
    for a, b in itertools.combinations(table.columns, 2):
        if ranks[b] < ranks[a]:
            a, b = b, a
        stat, p = _wilcoxon_p(table[a].to_numpy(), table[b].to_numpy())
        rows.append((a, b, float(ranks[a]), float(ranks[b]), stat, p))
    out = pd.DataFrame(rows, columns=["a", "b", "rank_a", "rank_b", "statistic", "p"])
    out["p_holm"] = holm(out["p"])
    out["significant"] = out["p_holm"] <= alpha
    return out


def cliques(mean_ranks: dict[str, float] | pd.Series, cd: float) -> list[set[str]]:
    """The groups the critical-difference diagram joins with a bar: with the methods in rank
    order, each maximal run whose rank range (worst - best) is below ``cd``, of two methods or
    more; runs inside another are left out. Best-ranked group first."""
    items = sorted(dict(mean_ranks).items(), key=lambda kv: (kv[1], str(kv[0])))
    names = [name for name, _ in items]
    ranks = [float(r) for _, r in items]
    spans: list[tuple[int, int]] = []
    for i in range(len(ranks)):
        j = i
        while j + 1 < len(ranks) and ranks[j + 1] - ranks[i] < cd:
            j += 1
        # a run ending where the previous one ended lies inside it
        if j > i and (not spans or j > spans[-1][1]):
            spans.append((i, j))
    return [set(names[i : j + 1]) for i, j in spans]
