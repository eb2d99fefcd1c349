"""Inference over pages: seeded bootstrap intervals, paired tests and Holm's correction.

Bootstrap intervals are percentile intervals over pages (Efron & Tibshirani
1993); the paired test is a sign-flip permutation test of the mean per-page
difference, or a centred paired bootstrap for statistics that are not page
means; multiple tests are adjusted with Holm (1979). Every draw comes from
``numpy.random.default_rng(seed)`` in fixed chunks, so the same inputs and
seed give the same numbers (docs/metrics.md, "Intervals and tests").

A summary asks for dozens of intervals of the same pages, and each single call draws
the same resamples again (same seed, same page count); :class:`BootstrapBatch` and
:func:`paired_permutation_tests` draw each block once and hand it to every statistic,
with the numbers of the single calls.
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
#: bytes of page values a BootstrapBatch holds before it draws the intervals it has
#: (a million pages: 8 float columns); below it, one draw per page count as before
HELD_BYTES = 64 << 20


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


def _sign_flips(rng, size, n):
    return rng.integers(0, 2, (size, n)) * 2 - 1


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


class BootstrapBatch:
    """Percentile intervals of many statistics of the same pages, from one set of draws.

    Each interval is the one :func:`bootstrap_ci` (:meth:`add_mean`) or
    :func:`bootstrap_ci_pages` (:meth:`add`) gives alone with the same ``n_boot``, ``alpha``
    and ``seed``: both draw the resamples of n pages from ``default_rng(seed)`` in the same
    order whatever they compute, so a batch draws each block of resamples once per page count
    and hands it to every statistic of that count. Statistics are vectorised: one call per
    block, not one per resample. Memory is O(block + n_boot x statistics), as for one call,
    plus the page values the statistics hold until drawn: past ``max_bytes`` of them (None:
    no limit) the batch draws the intervals it has (:meth:`flush`) and lets the values go.
    A draw depends only on (seed, n_boot, n), so the intervals are the same however often
    it flushes; only the draws are repeated.

        batch = BootstrapBatch(n_boot=1000, seed=0)
        f1 = batch.add_mean(f1s)                    # slot of bootstrap_ci(f1s, seed=0)
        low, high = batch.intervals()[f1]
    """

    def __init__(
        self,
        n_boot: int = N_BOOT,
        alpha: float = ALPHA,
        seed: int = 0,
        max_bytes: int | None = HELD_BYTES,
    ):
        _check_alpha(alpha)
        self.n_boot, self.alpha, self.seed = n_boot, alpha, seed
        self.max_bytes = max_bytes
        #: page count -> (statistic, its slots), in the order they were added; not yet drawn
        self._stats: dict[int, list[tuple[Callable[[np.ndarray], np.ndarray], list[int]]]] = {}
        self._held = 0  # bytes of page values the statistics not yet drawn hold
        self._done: dict[int, tuple[float, float]] = {}  # slot -> interval, drawn
        self._n_slots = 0

    def add(
        self, n: int, stat: Callable[[np.ndarray], np.ndarray], width: int = 1, nbytes: int = 0
    ) -> list[int]:
        """The slots of the ``width`` statistics ``stat`` computes of each resample of ``n``
        pages: ``stat(idx)`` gets a (k, n) block of page indices, a resample a row, and
        returns the k resamples' values, shape (k,) or (k, width). Same intervals as
        :func:`bootstrap_ci_pages` of a statistic giving each row's value; no page (n = 0)
        gives (NaN, NaN). ``nbytes``: what ``stat`` holds (counted against ``max_bytes``)."""
        slots = list(range(self._n_slots, self._n_slots + width))
        self._n_slots += width
        self._stats.setdefault(int(n), []).append((stat, slots))
        self._held += nbytes
        if self.max_bytes is not None and self._held > self.max_bytes:
            self.flush()
        return slots

    def add_mean(self, values: Iterable[float]) -> int:
        """The slot of :func:`bootstrap_ci` of ``values`` (the mean; NaN values dropped)."""
        x = np.asarray(list(values) if not isinstance(values, np.ndarray) else values, dtype=float)
        x = x[~np.isnan(x)]
        # the arithmetic of bootstrap_ci's mean: row means of the resampled values
        return self.add(x.size, lambda idx: x[idx].mean(axis=1), nbytes=x.nbytes)[0]

    def n_draws(self) -> int:
        """Resamples :meth:`intervals` still draws: ``n_boot`` per page count not yet drawn
        (no page: none)."""
        return self.n_boot * sum(1 for n in self._stats if n > 0)

    def flush(self, on_draws: Callable[[int], None] | None = None) -> None:
        """Draw the intervals of the statistics added so far and drop the statistics (and the
        page values they hold). ``on_draws(k)`` is told of each block of k resamples done."""
        for n, stats in self._stats.items():
            if n == 0:
                continue
            parts: list[list[np.ndarray]] = [[] for _ in stats]
            for idx in _rng_batches(self.seed, self.n_boot, n, _resample_indices):
                for part, (stat, slots) in zip(parts, stats):
                    part.append(np.asarray(stat(idx), dtype=float).reshape(len(idx), len(slots)))
                if on_draws is not None:
                    on_draws(len(idx))
            for part, (_, slots) in zip(parts, stats):
                values = np.concatenate(part) if part else np.empty((0, len(slots)))
                for j, slot in enumerate(slots):
                    self._done[slot] = _percentile_interval(values[:, j], self.alpha)
        self._stats, self._held = {}, 0

    def intervals(self, on_draws: Callable[[int], None] | None = None) -> list[tuple[float, float]]:
        """Every slot's interval, in slot order. ``on_draws(k)`` is told of each block of k
        resamples done (a progress bar's ``update``; :meth:`n_draws` in all)."""
        self.flush(on_draws)
        return [self._done.get(slot, (math.nan, math.nan)) for slot in range(self._n_slots)]


def paired_permutation_test(
    a: Iterable[float], b: Iterable[float], n_perm: int = N_PERM, seed: int = 0
) -> float:
    """Two-sided p-value that two methods have the same mean per-page score.

    Sign-flip permutation test on the per-page differences d = a - b over the
    pages where both are defined: each draw flips the sign of every d at random
    and p = (1 + #{|mean(flipped)| >= |mean(d)|}) / (n_perm + 1). Returns 1.0
    when all differences are zero and NaN when no page is shared.
    """
    return paired_permutation_tests([(a, b)], n_perm=n_perm, seed=seed)[0]


def paired_permutation_tests(
    pairs: Sequence[tuple[Iterable[float], Iterable[float]]],
    n_perm: int = N_PERM,
    seed: int = 0,
) -> list[float]:
    """:func:`paired_permutation_test` of each ``(a, b)`` in ``pairs``, the same p-values.

    A test's sign flips depend only on the seed and its number of shared pages, so the
    tests with the same number share one draw of each block of flips (every pair of
    methods over the same pages: drawing is most of a test's cost).
    """
    out: list[float] = [math.nan] * len(pairs)
    groups: dict[int, list[tuple[int, np.ndarray, float, float]]] = {}
    for i, (a, b) in enumerate(pairs):
        x, y = np.asarray(list(a), dtype=float), np.asarray(list(b), dtype=float)
        if x.shape != y.shape:
            raise ValueError(f"paired scores differ in length: {x.shape} vs {y.shape}")
        d = x - y
        d = d[~np.isnan(d)]
        if d.size == 0:
            continue  # no shared page: NaN
        observed = abs(d.mean())
        if observed == 0:
            out[i] = 1.0
            continue
        tol = 1e-12 * max(1.0, observed)  # equal-looking means must count as ties
        groups.setdefault(d.size, []).append((i, d, observed, tol))
    for n, tests in groups.items():
        hits = [0] * len(tests)
        for signs in _rng_batches(seed, n_perm, n, _sign_flips):
            flips = signs.astype(float)  # once per block, not once per test
            flipped = np.empty_like(flips)
            for j, (_, d, observed, tol) in enumerate(tests):
                np.multiply(flips, d, out=flipped)
                hits[j] += int(np.count_nonzero(np.abs(flipped.mean(axis=1)) >= observed - tol))
        for (i, *_), h in zip(tests, hits):
            out[i] = (1 + h) / (n_perm + 1)
    return out


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
