"""Shared-draw intervals and tests give exactly the numbers of one call per statistic.

BootstrapBatch, paired_permutation_tests and the row-wise metric helpers exist for speed
only: every interval and p-value must be bit-identical to the generic path (one
bootstrap_ci / bootstrap_ci_pages / paired_permutation_test call with a Python statistic
per resample), on real-looking numbers with undefined (NaN) pages, over several blocks of
draws (n > 262 pages: more than one block of 1000 resamples).
"""

import math

import numpy as np
import pandas as pd
import pytest

from evalkit import metrics
from evalkit.experiments import extraction as X
from evalkit.harness.summary import SummaryRows, shingle_rows

SEED = 11


def _scores(rng, n, nan_share):
    x = rng.random(n)
    x[rng.random(n) < nan_share] = math.nan
    return x


@pytest.mark.parametrize("n", [1, 7, 130, 600])
def test_mean_defined_rows_is_mean_defined_of_each_row(n):
    rng = np.random.default_rng(n)
    sample = _scores(rng, n, 0.3)[rng.integers(0, n, (200, n))]
    sample[0] = math.nan  # a resample without a defined page: NaN
    got = metrics.mean_defined_rows(sample)
    want = [metrics.mean_defined(row) for row in sample]
    assert math.isnan(got[0])
    assert [float(v) for v in got[1:]] == want[1:]  # exact, not approx


def test_confusion_scores_rows_is_confusion_scores_of_each_tuple():
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 4, (300, 4)).astype(float) * rng.choice([1.0, 0.37], (300, 1))
    counts[:3] = [[0, 0, 0, 0], [0, 2, 0, 1], [0, 0, 3, 0]]  # the empty rules
    got = metrics.confusion_scores_rows(*counts.T)
    for i, c in enumerate(counts):
        want = metrics.confusion_scores(*c)
        assert [float(got[k][i]) for k in want] == pytest.approx(
            list(want.values()), rel=0, abs=0, nan_ok=True
        )
    # hand-worked: tp 2, fp 1, fn 1, tn 4 -> P = R = F1 = 2/3, accuracy 6/8
    one = metrics.confusion_scores_rows([2.0], [1.0], [1.0], [4.0])
    assert [float(one[k][0]) for k in ("precision", "recall", "f1", "accuracy")] == [
        2 / 3,
        2 / 3,
        4 / 6,
        0.75,
    ]


@pytest.mark.parametrize("n", [5, 360, 600])
def test_batch_means_equal_bootstrap_ci(n):
    rng = np.random.default_rng(n)
    columns = [_scores(rng, n, share) for share in (0.0, 0.0, 0.1, 0.5)]
    columns.append(np.full(n, math.nan))  # no defined page: (NaN, NaN)
    batch = metrics.BootstrapBatch(n_boot=1000, alpha=0.05, seed=SEED)
    slots = [batch.add_mean(c) for c in columns]
    cis = batch.intervals()
    for c, slot in zip(columns[:-1], slots):
        assert cis[slot] == metrics.bootstrap_ci(c, n_boot=1000, alpha=0.05, seed=SEED)
    assert all(math.isnan(v) for v in cis[slots[-1]])


@pytest.mark.parametrize("n,nan_share", [(6, 0.4), (360, 0.05), (600, 0.2)])
def test_shingle_rows_equal_the_generic_page_bootstrap(n, nan_share):
    rng = np.random.default_rng(n)
    p, r = _scores(rng, n, nan_share), _scores(rng, n, nan_share / 2)
    rows = shingle_rows("d", "m", p, r, n_boot=1000, alpha=0.1, seed=SEED)
    for row, key in zip(rows, ("precision", "recall", "f1")):
        want = metrics.bootstrap_ci_pages(
            [p, r],
            lambda a, b, key=key: metrics.aggregate_prf(a, b)[key],
            n_boot=1000,
            alpha=0.1,
            seed=SEED,
        )
        assert (row["ci_low"], row["ci_high"]) == want
        assert row["value"] == metrics.aggregate_prf(p, r)[key]


@pytest.mark.parametrize("weights", [False, True])
def test_unit_micro_intervals_equal_the_generic_page_bootstrap(weights):
    rng = np.random.default_rng(5)
    counts = rng.integers(0, 40, (450, 4)).astype(float)
    if weights:  # sums of non-integer counts depend on the order of addition
        counts *= rng.random((450, 1))
    ok = pd.DataFrame(counts, columns=["unit_tp", "unit_fp", "unit_fn", "unit_tn"])
    out = SummaryRows(1000, 0.05, SEED)
    X._unit_rows(out, list(ok.columns), lambda c: ok[c].to_numpy(float), "d", "m")
    rows = {row["metric"]: row for row in out.rows()}
    for name in metrics.UNIT_METRICS:
        micro = rows[f"unit_{name}_micro_words"]
        want = metrics.bootstrap_ci_pages(
            counts.T,
            lambda *c, name=name: metrics.confusion_scores(*(x.sum() for x in c))[name],
            n_boot=1000,
            alpha=0.05,
            seed=SEED,
        )
        assert (micro["ci_low"], micro["ci_high"]) == want
        macro = rows[f"unit_{name}_macro_pages"]
        per_page = [metrics.confusion_scores(*c)[name] for c in counts]
        assert (macro["ci_low"], macro["ci_high"]) == metrics.bootstrap_ci(
            per_page, n_boot=1000, alpha=0.05, seed=SEED
        )


def test_batch_of_a_vectorised_statistic_equals_bootstrap_ci_pages():
    rng = np.random.default_rng(2)
    x = rng.random(300)
    batch = metrics.BootstrapBatch(n_boot=500, alpha=0.05, seed=SEED)
    (slot,) = batch.add(300, lambda idx: np.median(x[idx], axis=1))
    assert batch.intervals()[slot] == metrics.bootstrap_ci_pages(
        [x], np.median, n_boot=500, seed=SEED
    )
    # one page: every resample is that page
    one = metrics.BootstrapBatch(seed=SEED)
    assert one.intervals() == []
    slot = one.add_mean([0.25, math.nan])
    assert one.intervals()[slot] == (0.25, 0.25)


def _one_permutation_test(a, b, n_perm, seed):
    # the test as one call computed it before tests shared their draws (the definition)
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    d = d[~np.isnan(d)]
    if d.size == 0:
        return math.nan
    observed = abs(d.mean())
    if observed == 0:
        return 1.0
    rng, hits, done = np.random.default_rng(seed), 0, 0
    rows = max(1, min(1000, (1 << 18) // d.size))
    while done < n_perm:
        size = min(rows, n_perm - done)
        signs = rng.integers(0, 2, (size, d.size)) * 2 - 1
        hits += int(
            np.count_nonzero(
                np.abs((signs * d).mean(axis=1)) >= observed - 1e-12 * max(1.0, observed)
            )
        )
        done += size
    return (1 + hits) / (n_perm + 1)


def test_paired_permutation_tests_equal_one_test_per_pair():
    rng = np.random.default_rng(9)
    base = rng.random(400)
    pairs = [
        (base + rng.normal(0, 0.05, 400), base),  # 400 shared pages
        (base + 0.01 + rng.normal(0, 0.05, 400), base),
        (base[:50] + rng.normal(0, 0.1, 50), base[:50]),  # another page count
        (base, base),  # no difference: 1.0
        ([math.nan], [1.0]),
    ]  # no shared page: NaN
    got = metrics.paired_permutation_tests(pairs, n_perm=2000, seed=SEED)
    for (a, b), p in zip(pairs, got):
        want = _one_permutation_test(a, b, 2000, SEED)
        assert p == want or (math.isnan(p) and math.isnan(want))
        assert metrics.paired_permutation_test(a, b, n_perm=2000, seed=SEED) == p or math.isnan(p)
    assert got[3] == 1.0 and math.isnan(got[4])
    with pytest.raises(ValueError, match="differ in length"):
        metrics.paired_permutation_tests([([1.0, 2.0], [1.0])])


@pytest.mark.parametrize("max_bytes", [0, 3000, None])
def test_a_batch_split_by_its_memory_budget_gives_the_intervals_of_one_batch(max_bytes):
    # a draw depends only on (seed, n_boot, n): flushing between statistics repeats the
    # draws and changes no interval; several page counts, a width-3 statistic, n = 0
    rng = np.random.default_rng(5)
    columns = [_scores(rng, n, 0.2) for n in (300, 40, 300, 0, 40, 700)]
    p, r = rng.random(300), rng.random(300)

    def fill(batch):
        slots = [batch.add_mean(c) for c in columns]
        slots += batch.add(300, lambda idx: metrics.aggregate_prf_rows(p[idx], r[idx]), 3)
        return [batch.intervals()[s] for s in slots]

    whole = fill(metrics.BootstrapBatch(n_boot=120, seed=SEED, max_bytes=None))
    split = metrics.BootstrapBatch(n_boot=120, seed=SEED, max_bytes=max_bytes)
    got = fill(split)
    assert got == whole  # exact; NaN pairs compare equal as the same objects would not
    assert [math.isnan(lo) for lo, _ in got] == [math.isnan(lo) for lo, _ in whole]
    assert split.n_draws() == 0  # everything drawn


def test_a_flushed_batch_lets_its_values_go():
    batch = metrics.BootstrapBatch(n_boot=10, seed=0, max_bytes=8 * 100)
    batch.add_mean(np.ones(50))
    assert batch.n_draws() == 10  # 400 bytes held: below the budget, nothing drawn yet
    batch.add_mean(np.ones(60))  # 880 bytes: drawn now
    assert batch.n_draws() == 0 and batch._held == 0 and not batch._stats
    assert batch.intervals() == [(1.0, 1.0), (1.0, 1.0)]


def test_paired_permutation_tests_split_into_calls_give_the_same_p_values():
    rng = np.random.default_rng(3)
    pairs = [(rng.random(n), rng.random(n)) for n in (50, 80, 50, 80)]
    whole = metrics.paired_permutation_tests(pairs, n_perm=500, seed=SEED)
    split = [metrics.paired_permutation_tests([p], n_perm=500, seed=SEED)[0] for p in pairs]
    assert split == whole


def test_unit_scores_of_an_array_are_those_of_its_tuples():
    rng = np.random.default_rng(2)
    counts = rng.integers(0, 5, (300, 4)).astype(float)
    counts[:20] = 0.0  # pages with nothing kept and nothing to find: NaN precision, recall
    want = metrics.unit_scores([tuple(c) for c in counts])
    got = metrics.unit_scores(counts)
    assert got.keys() == want.keys()
    assert all(got[k] == want[k] or (math.isnan(got[k]) and math.isnan(want[k])) for k in got)
