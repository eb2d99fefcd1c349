"""Inference over pages: seeded bootstrap intervals, paired tests and Holm's correction.

Bootstrap intervals are percentile intervals over pages (Efron & Tibshirani
1993); the paired test is a sign-flip permutation test of the mean per-page
difference, or a centred paired bootstrap for statistics that are not page
means; multiple tests are adjusted with Holm (1979). Every draw comes from
``numpy.random.default_rng(seed)`` in fixed chunks, so the same inputs and
seed give the same numbers (docs/metrics.md, "Intervals and tests").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

import numpy as np

N_BOOT = 1000  # bootstrap resamples
ALPHA = 0.05  # 1 - confidence level of intervals
N_PERM = 10_000  # sign flips in the paired permutation test
_CHUNK = 1000  # resamples drawn at once at most
#: index cells drawn at once at most (2 MB of int64): resamples of n pages come
#: max(1, _CELLS // n) at a time, so memory is O(n_draws + n), not O(n_draws x n)
_CELLS = 1 << 18


def _rng_batches(seed: int, n_draws: int, n: int, draw: Callable):
    # one generator, consumed in row order: a (k, n) draw then a (m, n) draw yields the
    # same numbers as one (k + m, n) draw, so the chunk size never changes a result
    rng = np.random.default_rng(seed)
    rows = max(1, min(_CHUNK, _CELLS // max(n, 1)))
    done = 0
    while done < n_draws:
        size = min(rows, n_draws - done)
        yield draw(rng, size, n)
        done += size


def _resample_indices(rng, size, n):
    return rng.integers(0, n, size=(size, n))


def _percentile_interval(stats: np.ndarray, alpha: float) -> tuple[float, float]:
    stats = stats[~np.isnan(stats)]
    if stats.size == 0:
        return math.nan, math.nan
    low, high = np.quantile(stats, [alpha / 2, 1 - alpha / 2])
    return float(low), float(high)


def _check_alpha(alpha: float) -> None:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")


def bootstrap_ci(
    values: Iterable[float],
    stat: Callable[[np.ndarray], float] = np.mean,
    n_boot: int = N_BOOT,
    alpha: float = ALPHA,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap interval (1 - alpha) of ``stat`` over pages.

    NaN values (pages where the metric is undefined) are dropped first, as the
    averages drop them. Pages are resampled with replacement ``n_boot`` times
    from ``numpy.random.default_rng(seed)``; the same inputs and seed give the
    same interval. No values gives (NaN, NaN).
    """
    _check_alpha(alpha)
    x = np.asarray(list(values) if not isinstance(values, np.ndarray) else values, dtype=float)
    x = x[~np.isnan(x)]
    if x.size == 0:
        return math.nan, math.nan
    parts = []
    for idx in _rng_batches(seed, n_boot, x.size, _resample_indices):
        sample = x[idx]
        if stat is np.mean:
            parts.append(sample.mean(axis=1))
        else:
            parts.append(np.array([stat(row) for row in sample], dtype=float))
    return _percentile_interval(np.concatenate(parts), alpha)


def bootstrap_ci_pages(
    columns: Sequence[Iterable[float]],
    stat: Callable[..., float],
    n_boot: int = N_BOOT,
    alpha: float = ALPHA,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap interval for a statistic of several per-page columns.

    Pages (rows) are resampled jointly and ``stat(*resampled_columns)`` is
    recomputed, e.g. the benchmark's F1 of averaged P and R::

        bootstrap_ci_pages([ps, rs], lambda p, r: aggregate_prf(p, r)["f1"])

    NaNs are kept (``stat`` decides); resamples where ``stat`` is NaN are left
    out of the percentiles.
    """
    _check_alpha(alpha)
    cols = [
        np.asarray(list(c) if not isinstance(c, np.ndarray) else c, dtype=float) for c in columns
    ]
    n = _common_length(cols)
    if n == 0:
        return math.nan, math.nan
    stats = [
        stat(*(c[row] for c in cols))
        for idx in _rng_batches(seed, n_boot, n, _resample_indices)
        for row in idx
    ]
    return _percentile_interval(np.asarray(stats, dtype=float), alpha)


def _common_length(cols: Sequence[np.ndarray]) -> int:
    lengths = {c.shape[0] for c in cols}
    if len(lengths) > 1:
        raise ValueError(f"per-page columns differ in length: {sorted(lengths)}")
    return lengths.pop() if lengths else 0


def paired_permutation_test(
    a: Iterable[float], b: Iterable[float], n_perm: int = N_PERM, seed: int = 0
) -> float:
    """Two-sided p-value that two methods have the same mean per-page score.

    Sign-flip permutation test on the per-page differences d = a - b over the
    pages where both are defined: each draw flips the sign of every d at random
    and p = (1 + #{|mean(flipped)| >= |mean(d)|}) / (n_perm + 1). Returns 1.0
    when all differences are zero and NaN when no page is shared.
    """
    x, y = np.asarray(list(a), dtype=float), np.asarray(list(b), dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"paired scores differ in length: {x.shape} vs {y.shape}")
    d = x - y
    d = d[~np.isnan(d)]
    if d.size == 0:
        return math.nan
    observed = abs(d.mean())
    if observed == 0:
        return 1.0
    tol = 1e-12 * max(1.0, observed)  # equal-looking means must count as ties
    hits = 0
    for signs in _rng_batches(
        seed, n_perm, d.size, lambda rng, size, n: rng.integers(0, 2, (size, n)) * 2 - 1
    ):
        hits += int(np.count_nonzero(np.abs((signs * d).mean(axis=1)) >= observed - tol))
    return (1 + hits) / (n_perm + 1)


def paired_bootstrap_test(
    a_columns: Sequence[Iterable[float]],
    b_columns: Sequence[Iterable[float]],
    stat: Callable[..., float],
    n_boot: int = N_BOOT,
    seed: int = 0,
) -> float:
    """Two-sided p-value for ``stat(A) == stat(B)`` on the same pages.

    For statistics that are not page means (e.g. F1 of averaged P and R).
    Pages are resampled jointly for both methods; with delta* the resampled
    difference and delta the observed one, the null is imitated by centring:
    p = (1 + #{|delta* - delta| >= |delta|}) / (n_boot + 1).
    """
    a_cols = [np.asarray(list(c), dtype=float) for c in a_columns]
    b_cols = [np.asarray(list(c), dtype=float) for c in b_columns]
    n = _common_length(a_cols + b_cols)
    if n == 0:
        return math.nan
    observed = stat(*a_cols) - stat(*b_cols)
    if observed == 0:
        return 1.0
    hits = valid = 0
    for idx in _rng_batches(seed, n_boot, n, _resample_indices):
        for row in idx:
            delta = stat(*(c[row] for c in a_cols)) - stat(*(c[row] for c in b_cols))
            if math.isnan(delta):
                continue
            valid += 1
            hits += abs(delta - observed) >= abs(observed)
    return (1 + hits) / (valid + 1)


def holm(pvalues: Iterable[float]) -> np.ndarray:
    """Holm (1979) step-down adjusted p-values, in the input order.

    With the m non-NaN p-values sorted ascending p(1) <= ... <= p(m), the
    adjusted p(i) = max over j <= i of min(1, (m - j + 1) p(j)). NaN stays NaN.
    """
    p = np.asarray(list(pvalues), dtype=float)
    out = np.full(p.shape, math.nan)
    ok = np.flatnonzero(~np.isnan(p))
    m = ok.size
    if m == 0:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out[order] = np.maximum.accumulate(scaled)
    return out