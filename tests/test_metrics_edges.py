"""Edge cases of ``evalkit.metrics`` that mutation testing found unguarded (docs/mutation.md).

Each test names the rule it pins; every expected value is worked by hand or, for the
seeded resampling, drawn again here from ``numpy.random.default_rng(seed)``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from evalkit import metrics as M
from evalkit.metrics import inference

nan = math.nan


def _isnan(x) -> bool:
    return isinstance(x, float) and math.isnan(x)


# ---------------------------------------------------------------- counts and scores


def test_confusion_scores_defaults_and_small_totals():
    # tn defaults to 0: one of each of tp, fp, fn -> accuracy 1/3
    assert M.confusion_scores(1, 1, 1)["accuracy"] == pytest.approx(1 / 3)
    # a total of one word is still a ratio, not "everything empty"
    assert M.confusion_scores(0, 1, 0)["accuracy"] == 0.0
    assert M.confusion_scores(0, 0, 0, 0)["accuracy"] == 1.0


def test_aggregate_prf_when_recall_exceeds_precision():
    # P = .5, R = 1: F1 = 2 * .5 / 1.5 = 2/3 (the guard is P + R > 0, not P > R)
    assert M.aggregate_prf([0.5], [1.0])["f1"] == pytest.approx(2 / 3)
    assert M.aggregate_prf([0.0], [0.0])["f1"] == 0.0


def test_shingle_length_is_passed_through():
    # bigrams: pred {a b, b c}, gold {a b, b c, c d}: tp 2, fp 0, fn 1
    assert M.shingle_prf("a b c", "a b c d", n=2) == pytest.approx((1.0, 2 / 3, 0.8))
    out = M.page_text_metrics("a b c", "a b c d", n=2)
    assert (out["shingle_precision"], out["shingle_recall"]) == pytest.approx((1.0, 2 / 3))


def test_page_text_metrics_treats_none_and_empty_as_empty():
    for pred in (None, ""):
        out = M.page_text_metrics(pred, "a b c d")
        assert _isnan(out["shingle_precision"]) and out["shingle_recall"] == 0.0
        assert out["shingle_f1"] == 0.0 and out["word_f1"] == 0.0 and out["lcs_f1"] == 0.0
    out = M.page_text_metrics("a b c d", None)
    assert out["shingle_precision"] == 0.0 and _isnan(out["shingle_recall"])


def test_position_masks_without_a_restriction():
    assert M.position_masks(["a", "b", "a"]) == {"a": 0b101, "b": 0b010}
    assert M.position_masks(["a", "b", "a"], only={"b"}) == {"b": 0b010}


def test_unit_confusion_accepts_0_1_labels():
    # gold 1,0,1; kept 1,1,0; weights 2,3,4: TP 2, FP 3, FN 4, TN 0
    assert M.unit_confusion([1, 0, 1], [1, 1, 0], [2, 3, 4]) == (2.0, 3.0, 4.0, 0.0)


# ---------------------------------------------------------------- single values and none


def test_one_page_is_a_page():
    assert M.pages_correct([0.9], 0.8) == 1.0
    assert M.pages_correct_curve([0.9], [0.5, 0.95]).tolist() == [1.0, 0.0]
    assert M.mean_std([0.4]) == (0.4, pytest.approx(nan, nan_ok=True))
    assert M.bootstrap_ci([0.5]) == (0.5, 0.5)  # every resample of one page is that page
    # one resample: both bounds are its mean
    x = np.array([0.2, 0.4])
    only = x[np.random.default_rng(0).integers(0, 2, (1, 2))[0]].mean()
    assert M.bootstrap_ci(x, n_boot=1) == pytest.approx((only, only))
    assert M.bootstrap_ci_pages(
        [[0.5], [1.0]], lambda p, r: M.aggregate_prf(p, r)["f1"]
    ) == pytest.approx((2 / 3, 2 / 3))
    assert M.holm([0.3]).tolist() == [0.3]  # one test: nothing to adjust
    # a single page: the two sign flips of d = .5 both reach |.5|, p = 1
    assert M.paired_permutation_test([1.0], [0.5]) == 1.0


def test_no_pages():
    curve = M.pages_correct_curve([], [0.5, 0.8])
    assert curve.shape == (2,) and curve.dtype == float and np.isnan(curve).all()
    assert _isnan(M.pages_correct([], 0.8))
    assert all(_isnan(v) for v in M.bootstrap_ci_pages([], lambda: 0.0))
    assert all(_isnan(v) for v in M.bootstrap_ci_pages([[], []], lambda p, r: 0.0))


def test_standard_error_of_two_values():
    # 1 and 3: sample std sqrt(2), over sqrt(2) -> 1
    assert M.standard_error([1.0, 3.0]) == pytest.approx(1.0)


def test_exact_set_accuracy_compares_the_partners():
    # pred pairs 0-1, true pairs 0-2: item 0 has partner {1} against {2}, item 1 {0} against
    # {}, item 2 {} against {0}: none is right
    assert M.exact_set_accuracy([(0, 1)], [(0, 2)], 3) == 0.0
    assert M.exact_set_accuracy([(0, 1)], [(1, 0)], 3) == 1.0


# ---------------------------------------------------------------- seeded resampling


def test_draws_come_in_chunks_of_1000():
    sizes = [
        len(b)
        for b in itertools.islice(
            inference._rng_batches(0, 2500, 3, inference._resample_indices), 6
        )
    ]
    assert sizes == [1000, 1000, 500]
    one = inference._rng_batches(0, 1000, 3, inference._resample_indices)
    assert [len(b) for b in one] == [1000]


def test_bootstrap_defaults_seed_0_and_more_than_one_chunk():
    x = np.array([0.1, 0.4, 0.35, 0.8, 0.55])
    assert M.bootstrap_ci(x) == M.bootstrap_ci(x, seed=0)
    assert M.bootstrap_ci_pages([x], np.mean) == M.bootstrap_ci_pages([x], np.mean, seed=0)
    # 2,500 resamples: 1000 + 1000 + 500 rows from one generator, then the percentiles
    rng = np.random.default_rng(3)
    means = np.concatenate([x[rng.integers(0, 5, (k, 5))].mean(axis=1) for k in (1000, 1000, 500)])
    want = tuple(np.quantile(means, [0.025, 0.975]))
    assert M.bootstrap_ci(x, n_boot=2500, seed=3) == pytest.approx(want, rel=1e-12)
    # lists are taken as well as arrays
    assert M.bootstrap_ci_pages([list(x)], np.mean, n_boot=2500, seed=3) == pytest.approx(
        want, rel=1e-12
    )


def test_bootstrap_with_another_statistic_uses_it():
    x = np.array([0.0, 0.0, 1.0, 5.0, 9.0])
    rng = np.random.default_rng(1)
    medians = [float(np.median(x[row])) for row in rng.integers(0, 5, (41, 5))]
    s = sorted(medians)
    assert M.bootstrap_ci(x, stat=np.median, n_boot=41, seed=1) == pytest.approx((s[1], s[39]))


@pytest.mark.parametrize("alpha", [0.0, 1.0, 1.5, -0.1])
def test_alpha_outside_0_1_is_refused(alpha):
    with pytest.raises(ValueError, match=r"alpha must be in \(0, 1\), got"):
        M.bootstrap_ci([0.5, 0.6], alpha=alpha)


def test_permutation_test_defaults_and_a_mean_difference_of_one():
    a, b = [1.0] * 8, [0.0] * 8
    # every difference is 1: |mean| = 1 only when all eight signs agree, exact p = 2/256
    p = M.paired_permutation_test(a, b)
    assert p == M.paired_permutation_test(a, b, seed=0)
    assert p == pytest.approx(2 / 256, abs=0.004)


# ---------------------------------------------------------------- paired bootstrap test


def _paired_bootstrap_by_hand(d_a, d_b, stat, n_boot, seed):
    """(1 + hits) / (valid + 1) over the seeded resamples, NaN deltas left out."""
    a, b = np.asarray(d_a, dtype=float), np.asarray(d_b, dtype=float)
    observed = stat(a) - stat(b)
    hits = valid = 0
    for row in np.random.default_rng(seed).integers(0, len(a), (n_boot, len(a))):
        delta = stat(a[row]) - stat(b[row])
        if math.isnan(delta):
            continue
        valid += 1
        hits += abs(delta - observed) >= abs(observed)
    return (1 + hits) / (valid + 1)


def test_paired_bootstrap_counts_ties_and_skips_undefined_resamples():
    # d = 1, 0: observed .5; resampled means 0, .5, 1; both 0 and 1 are |.5| away (ties count)
    a, b = [1.0, 0.0], [0.0, 0.0]
    got = M.paired_bootstrap_test([a], [b], np.mean, n_boot=20, seed=4)
    draws = np.random.default_rng(4).integers(0, 2, (20, 2))
    off = sum(1 for row in draws if tuple(sorted(row)) != (0, 1))  # resample mean 0 or 1
    assert got == pytest.approx((1 + off) / 21)
    # the same differences from non-zero scores: observed is A - B, not A + B
    assert M.paired_bootstrap_test(
        [[1.5, 0.5]], [[0.5, 0.5]], np.mean, n_boot=20, seed=4
    ) == pytest.approx(got)
    assert M.paired_bootstrap_test([a], [b], np.mean, n_boot=20) == M.paired_bootstrap_test(
        [a], [b], np.mean, n_boot=20, seed=0
    )  # seed 0 by default

    # a statistic undefined on some resamples (those that repeat one page): left out of both
    # counts
    def stat(x):
        return float(x.mean()) if len(set(x.tolist())) > 1 else nan

    a, b = [0.5, 1.0, 2.0], [0.0, 0.5, 1.0]
    draws = np.random.default_rng(9).integers(0, 3, (30, 3))
    assert 0 < sum(len(set(r.tolist())) == 1 for r in draws) < 30
    want = _paired_bootstrap_by_hand(a, b, stat, 30, 9)
    assert M.paired_bootstrap_test([a], [b], stat, n_boot=30, seed=9) == pytest.approx(want)


def test_paired_bootstrap_with_a_difference_of_one():
    # every resample differs by exactly 1 = observed: no hit, p = 1/(n_boot + 1)
    assert M.paired_bootstrap_test([[1.0, 1.0]], [[0.0, 0.0]], np.mean, n_boot=9) == 0.1
    # one page: resamples are that page; the difference 0 is no evidence, p = 1
    assert M.paired_bootstrap_test([[0.3]], [[0.3]], np.mean, n_boot=9) == 1.0
    assert M.paired_bootstrap_test([[0.7]], [[0.3]], np.mean, n_boot=9) == 0.1


# ---------------------------------------------------------------- messages


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: M.shingle_counts("a", "a", n=0), "shingle length n must be >= 1, got 0"),
        (
            lambda: M.unit_confusion([True], [True, False]),
            r"gold, kept and weights must be 1-D and the same length; got \(1,\), \(2,\), \(1,\)",
        ),
        (lambda: M.pair_prf([(1, 1)], []), r"a pair needs two different items, got \(1, 1\)"),
        (
            lambda: M.exact_set_accuracy([(0, 7)], [], 3),
            r"pairs name items outside the item list: \[7\]",
        ),
        (lambda: M.accuracy([1, 2], [1]), r"y_true and y_pred differ in length: \(2,\) vs \(1,\)"),
        (
            lambda: M.bootstrap_ci_pages([[1, 2], [1]], np.mean),
            r"per-page columns differ in length: \[1, 2\]",
        ),
        (
            lambda: M.paired_permutation_test([1, 2], [1]),
            r"paired scores differ in length: \(2,\) vs \(1,\)",
        ),
    ],
)
def test_bad_input_messages(call, message):
    with pytest.raises(ValueError, match=f"^{message}$"):
        call()


def test_stray_items_are_listed_by_repr_up_to_five():
    # sorted by repr, so that items of mixed types can be listed: "10" < "100" < ... < "9"
    with pytest.raises(ValueError, match=r"\[10, 100, 1000, 20, 3\]$"):
        M.exact_set_accuracy([(0, i) for i in (9, 10, 100, 1000, 20, 3)], [], 3)
