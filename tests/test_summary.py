"""The summary step of the extraction experiment, worked by hand.

A per-page frame of three methods on five pages, one of them failed, goes through
``extraction.summarize``; every number the summary prints is written out here from the
frame: failure counts, means, the percentile interval at the configured level, the paired
permutation p-values and their Holm adjustment.

How the random parts are worked:

* Intervals: with ``n_boot = 41`` resamples the percentile interval at level 1 - alpha is
  read off the sorted resample statistics at positions alpha/2 * 40 and (1 - alpha/2) * 40
  (numpy's linear quantile): the 2nd smallest and 2nd largest at 95 %, the 3rd at 90 %.
  The resamples are the page indices ``default_rng(seed).integers(0, n, (41, n))``, drawn
  here again (every interval of one method draws the same indices: same seed, same n).
* p-values: with five pages the sign-flip test has 2^5 = 32 sign patterns; the exact
  p-value is counted over all of them here, and the implementation's 10,000 seeded draws
  must land within 0.02 of it (4 standard errors); the draws are also repeated here, so the
  value is checked exactly too.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from evalkit import metrics
from evalkit.experiments import extraction as X
from evalkit.harness.config import plain, register_resolvers
from evalkit.shell.cli import CONFIG_DIR

register_resolvers()
nan = math.nan

SEED = 7
N_BOOT = 41
PAGES = ["p1", "p2", "p3", "p4", "p5"]
# (shingle precision, recall, F1) per page; F1 = 2PR/(P+R) on every page. Dyadic values so
# that the paired differences and their sign flips are exact in floating point.
SHINGLE = {
    "proposed": [
        (1.0, 1.0, 1.0),
        (1.0, 0.6, 0.75),
        (0.5, 0.5, 0.5),
        (0.875, 0.875, 0.875),
        (0.625, 0.625, 0.625),
    ],
    # p3: an empty output (no error): precision undefined, recall 0, F1 0
    "cetd": [
        (0.5, 0.5, 0.5),
        (0.375, 0.375, 0.375),
        (nan, 0.0, 0.0),
        (0.4375, 0.4375, 0.4375),
        (0.3125, 0.3125, 0.3125),
    ],
    # p5: the method raised; under on_failure=empty it has the scores of an empty output
    "pab": [
        (1.0, 0.6, 0.75),
        (1.0, 1.0, 1.0),
        (0.75, 0.75, 0.75),
        (0.875, 0.875, 0.875),
        (nan, 0.0, 0.0),
    ],
}
# word-weighted unit counts (tp, fp, fn, tn); gold content/noise words per page:
# p1 10/10, p2 8/4, p3 6/2, p4 4/4, p5 2/6
UNITS = {
    "proposed": [(10, 0, 0, 10), (8, 2, 0, 2), (3, 0, 3, 2), (4, 4, 0, 0), (2, 1, 0, 5)],
    "cetd": [(5, 0, 5, 10), (4, 0, 4, 4), (0, 0, 6, 2), (2, 2, 2, 2), (1, 0, 1, 6)],
    "pab": [(10, 10, 0, 0), (8, 0, 0, 4), (6, 2, 0, 0), (2, 0, 2, 4), (0, 0, 2, 6)],
}
FAILED = ("pab", "p5")
SCORE_COLUMNS = [
    "shingle_precision",
    "shingle_recall",
    "shingle_f1",
    "word_precision",
    "word_recall",
    "word_f1",
    "lcs_f1",
    "kaur_accuracy",
    "unit_tp",
    "unit_fp",
    "unit_fn",
    "unit_tn",
]


def _frame(on_failure: str = "empty") -> pd.DataFrame:
    rows = []
    for method, shingle in SHINGLE.items():
        for page, (p, r, f), unit in zip(PAGES, shingle, UNITS[method]):
            failed = (method, page) == FAILED
            row = {
                "dataset": "d",
                "page_id": page,
                "method": method,
                "error": "ValueError: boom" if failed else None,
                "shingle_precision": p,
                "shingle_recall": r,
                "shingle_f1": f,
                # the word scores equal the shingle ones on this frame
                "word_precision": p,
                "word_recall": r,
                "word_f1": f,
                "lcs_f1": f,
                "kaur_accuracy": 1 - f / 2,
                **dict(zip(["unit_tp", "unit_fp", "unit_fn", "unit_tn"], map(float, unit))),
            }
            if failed and on_failure == "drop":
                row.update({c: nan for c in SCORE_COLUMNS})  # drop: no scores at all
            rows.append(row)
    return pd.DataFrame(rows)


def _opts(**over) -> dict:
    """The extraction section of the composed config, with few resamples."""
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(config_name="config", overrides=["experiment=extraction"])
    opts = plain(cfg.extraction)
    opts.update({"n_boot": N_BOOT, "pages_correct_threshold": 0.75}, **over)
    return opts


def _summary(frame=None, **over) -> pd.DataFrame:
    frame = _frame() if frame is None else frame
    return X.summarize(frame, "d", _opts(**over), SEED).set_index(["method", "metric"])


def _order_stats(stats: list[float], alpha: float) -> tuple[float, float]:
    """Percentile bounds of 41 resample statistics: alpha=0.05 -> 2nd smallest and largest."""
    s = sorted(stats)
    assert len(s) == N_BOOT and not any(math.isnan(x) for x in s)
    k = round(alpha / 2 * (N_BOOT - 1))  # 1 at 95 %, 2 at 90 %
    return s[k], s[N_BOOT - 1 - k]


def _resamples(n: int) -> np.ndarray:
    return np.random.default_rng(SEED).integers(0, n, size=(N_BOOT, n))


def _column(method: str, i: int) -> np.ndarray:
    return np.array([t[i] for t in SHINGLE[method]])


# ---------------------------------------------------------------- the level


def test_configured_level_is_95_percent():
    assert _opts()["alpha"] == 0.05
    assert metrics.ALPHA == 0.05
    # the table caption says the level the intervals were made at
    assert X.ci_label(_opts()) == "95% bootstrap CI"
    assert X.ci_label(_opts(alpha=0.1)) == "90% bootstrap CI"
    assert X.ci_label({}) == "95% bootstrap CI"


# ---------------------------------------------------------------- failures and means


def test_failures_count_and_every_method_has_the_same_pages():
    s = _summary()
    assert s.loc[("proposed", "failures"), "value"] == 0
    assert s.loc[("cetd", "failures"), "value"] == 0  # an empty output is not a failure
    assert s.loc[("pab", "failures"), "value"] == 1
    scored = s.drop(index="failures", level="metric")
    assert set(scored["n_pages"]) == {5}  # the failed page counts, as an empty extraction
    assert set(s.xs("failures", level="metric")["n_pages"]) == {5}


def test_shingle_means_by_hand():
    s = _summary()["value"]
    # proposed: P = (1 + 1 + .5 + .875 + .625)/5 = .8, R = (1 + .6 + .5 + .875 + .625)/5 = .72
    assert s["proposed", "shingle_precision"] == pytest.approx(0.8)
    assert s["proposed", "shingle_recall"] == pytest.approx(0.72)
    assert s["proposed", "shingle_f1"] == pytest.approx(2 * 0.8 * 0.72 / 1.52)
    # cetd: P skips the empty page p3: 1.625/4; R counts it as 0: 1.625/5
    assert s["cetd", "shingle_precision"] == pytest.approx(0.40625)
    assert s["cetd", "shingle_recall"] == pytest.approx(0.325)
    assert s["cetd", "shingle_f1"] == pytest.approx(2 * 0.40625 * 0.325 / 0.73125)
    # pab: the failed page has no precision and recall 0: P = 3.625/4, R = 3.225/5
    assert s["pab", "shingle_precision"] == pytest.approx(0.90625)
    assert s["pab", "shingle_recall"] == pytest.approx(0.645)
    assert s["pab", "shingle_f1"] == pytest.approx(2 * 0.90625 * 0.645 / 1.55125)
    # word means skip undefined pages as the shingle ones do (the value is not NaN)
    assert s["cetd", "word_precision"] == pytest.approx(0.40625)
    assert s["pab", "word_f1"] == pytest.approx((0.75 + 1 + 0.75 + 0.875 + 0) / 5)
    # every column of the word, LCS and Kaur families present in the frame gets its row
    assert s["pab", "word_recall"] == pytest.approx(0.645)
    assert s["pab", "lcs_f1"] == pytest.approx(3.375 / 5)
    assert s["pab", "kaur_accuracy"] == pytest.approx(1 - 3.375 / 10)
    assert ("pab", "lcs_precision") not in s.index  # no such column in the frame


def test_pages_correct_counts_a_page_at_the_threshold():
    s = _summary()["value"]
    # threshold 0.75: proposed 1, .75, .875 reach it (p2 exactly) -> 3/5
    assert s["proposed", "pages_correct"] == pytest.approx(0.6)
    assert s["cetd", "pages_correct"] == 0.0
    # pab .75, 1, .75, .875 -> 4/5; the failed page is not correct
    assert s["pab", "pages_correct"] == pytest.approx(0.8)


def test_unit_scores_by_hand():
    s = _summary()["value"]
    # proposed summed: TP 27, FP 7, FN 3, TN 19
    assert s["proposed", "unit_precision_micro_words"] == pytest.approx(27 / 34)
    assert s["proposed", "unit_recall_micro_words"] == pytest.approx(0.9)
    assert s["proposed", "unit_f1_micro_words"] == pytest.approx(54 / 64)
    assert s["proposed", "unit_accuracy_micro_words"] == pytest.approx(46 / 56)
    # per-page F1 1, 16/18, 6/9, 8/12, 4/5
    assert s["proposed", "unit_f1_macro_pages"] == pytest.approx(
        (1 + 16 / 18 + 6 / 9 + 8 / 12 + 4 / 5) / 5
    )
    # pab summed: TP 26, FP 12, FN 4, TN 14; the failed page keeps nothing: its precision is
    # undefined and left out of the macro mean (.5, 1, .75, 1)
    assert s["pab", "unit_f1_micro_words"] == pytest.approx(52 / 68)
    assert s["pab", "unit_precision_macro_pages"] == pytest.approx(3.25 / 4)
    assert s["pab", "unit_recall_macro_pages"] == pytest.approx((1 + 1 + 1 + 0.5 + 0) / 5)
    # cetd summed: TP 12, FP 2, FN 18, TN 24
    assert s["cetd", "unit_f1_micro_words"] == pytest.approx(24 / 44)


# ---------------------------------------------------------------- intervals


@pytest.mark.parametrize("alpha", [0.05, 0.10])
def test_intervals_are_the_percentiles_of_the_seeded_resamples(alpha):
    s = _summary(alpha=alpha)
    idx = _resamples(5)

    def check(method, metric, stats):
        want = _order_stats(stats, alpha)
        got = tuple(s.loc[(method, metric), ["ci_low", "ci_high"]])
        assert got == pytest.approx(want, rel=1e-9), (method, metric)

    for method in SHINGLE:
        f1 = _column(method, 2)
        check(method, "word_f1", [f1[row].mean() for row in idx])
        check(method, "pages_correct", [(f1[row] >= 0.75).mean() for row in idx])
        p, r = _column(method, 0), _column(method, 1)
        for key in ("precision", "recall", "f1"):
            check(
                method,
                f"shingle_{key}",
                [metrics.aggregate_prf(p[row], r[row])[key] for row in idx],
            )
        u = np.array(UNITS[method], dtype=float)
        for key in ("f1", "accuracy"):
            check(
                method,
                f"unit_{key}_micro_words",
                [metrics.confusion_scores(*u[row].sum(axis=0))[key] for row in idx],
            )
            per_page = np.array([metrics.confusion_scores(*c)[key] for c in u])
            check(method, f"unit_{key}_macro_pages", [per_page[row].mean() for row in idx])


def test_a_90_percent_interval_is_not_a_95_percent_one():
    wide = _summary(alpha=0.05)
    narrow = _summary(alpha=0.10)
    f1 = _column("cetd", 2)
    stats = sorted(f1[row].mean() for row in _resamples(5))
    # on this seed the 41 means of cetd's F1 run .125, .1375, .1625, ... .4, .4, .4375, .45
    assert stats[1:3] == pytest.approx([0.1375, 0.1625])
    assert stats[38:40] == pytest.approx([0.4, 0.4375])
    assert tuple(wide.loc[("cetd", "word_f1"), ["ci_low", "ci_high"]]) == pytest.approx(
        (0.1375, 0.4375)
    )
    assert tuple(narrow.loc[("cetd", "word_f1"), ["ci_low", "ci_high"]]) == pytest.approx(
        (0.1625, 0.4)
    )


def test_an_interval_skips_undefined_pages():
    # cetd's word precision is undefined on p3: resample the four other pages
    s = _summary()
    p = np.array([0.5, 0.375, 0.4375, 0.3125])
    want = _order_stats([p[row].mean() for row in _resamples(4)], 0.05)
    assert tuple(s.loc[("cetd", "word_precision"), ["ci_low", "ci_high"]]) == pytest.approx(want)


def test_rows_keep_the_data_set_and_the_methods_order():
    s = X.summarize(_frame(), "cleaneval", _opts(), SEED)
    assert list(s.columns) == [
        "dataset",
        "method",
        "metric",
        "value",
        "ci_low",
        "ci_high",
        "n_pages",
    ]
    assert set(s["dataset"]) == {"cleaneval"}
    assert list(dict.fromkeys(s["method"])) == ["proposed", "cetd", "pab"]  # as in the frame
    failures = s[s["metric"] == "failures"]
    assert failures[["ci_low", "ci_high"]].isna().all().all()


def test_defaults_are_the_configured_values():
    # summarize called without options gives what the composed config gives
    configured = X.summarize(
        _frame(), "d", {**_opts(), "n_boot": 1000, "pages_correct_threshold": 0.8}, SEED
    )
    bare = X.summarize(_frame(), "d", {}, SEED)
    pd.testing.assert_frame_equal(bare, configured)


def test_a_method_without_scores_does_not_hide_the_next_ones():
    frame = _frame("drop")
    frame.loc[frame["method"] == "proposed", "error"] = "ValueError: boom"
    frame.loc[frame["method"] == "proposed", SCORE_COLUMNS] = nan
    s = X.summarize(frame, "d", _opts(), SEED).set_index(["method", "metric"])
    assert s.loc[("proposed", "failures"), "value"] == 5
    assert ("cetd", "shingle_f1") in s.index and ("pab", "unit_f1_micro_words") in s.index


def test_one_page_is_summarised():
    frame = _frame()
    s = X.summarize(frame[frame["page_id"] == "p1"], "d", _opts(), SEED)
    s = s.set_index(["method", "metric"])
    # proposed on p1: TP 10, FP 0, FN 0, TN 10; every resample is that page
    assert tuple(
        s.loc[("proposed", "unit_f1_micro_words"), ["value", "ci_low", "ci_high", "n_pages"]]
    ) == (1.0, 1.0, 1.0, 1)
    assert s.loc[("proposed", "unit_accuracy_macro_pages"), "value"] == 1.0


# ---------------------------------------------------------------- paired tests


def _exact_p(d: list[float]) -> float:
    """Sign-flip p-value over all 2^n sign patterns."""
    observed = abs(sum(d))
    hits = sum(
        abs(sum(s * x for s, x in zip(signs, d))) >= observed
        for signs in itertools.product((1, -1), repeat=len(d))
    )
    return hits / 2 ** len(d)


def _seeded_p(d: list[float], n_perm: int = metrics.N_PERM, chunk: int = 1000) -> float:
    """The implementation's Monte Carlo p-value, drawn again: (1 + hits)/(n_perm + 1)."""
    rng = np.random.default_rng(SEED)
    d = np.asarray(d)
    observed = abs(d.mean())
    hits = 0
    for start in range(0, n_perm, chunk):
        signs = rng.integers(0, 2, (min(chunk, n_perm - start), d.size)) * 2 - 1
        hits += int(((np.abs((signs * d).mean(axis=1))) >= observed - 1e-12).sum())
    return (1 + hits) / (n_perm + 1)


def test_paired_differences_p_values_and_holm_by_hand():
    s = _summary()
    # cetd - proposed per page: -.5, -.375, -.5, -.4375, -.3125: all one sign, so only the
    # two patterns with all signs equal reach |mean|: exact p = 2/32
    d_cetd = [-0.5, -0.375, -0.5, -0.4375, -0.3125]
    assert _exact_p(d_cetd) == 2 / 32
    # pab - proposed: -.25, .25, .25, 0, -.625 (the failed page scores 0 against .625);
    # |sum| = .375 is reached by 14 of the 16 patterns of the four non-zero differences
    d_pab = [-0.25, 0.25, 0.25, 0.0, -0.625]
    assert _exact_p(d_pab) == 28 / 32
    v, n = s["value"], s["n_pages"]
    assert v["cetd", "f1_diff_vs_proposed"] == pytest.approx(-2.125 / 5)
    assert v["pab", "f1_diff_vs_proposed"] == pytest.approx(-0.375 / 5)
    assert n["cetd", "p_holm_vs_proposed"] == n["pab", "p_holm_vs_proposed"] == 5
    # Holm with m = 2: the smaller p doubles; the larger is max(that, itself)
    raw_cetd, raw_pab = _seeded_p(d_cetd), _seeded_p(d_pab)
    assert raw_cetd == pytest.approx(2 / 32, abs=0.02)
    assert raw_pab == pytest.approx(28 / 32, abs=0.02)
    assert v["cetd", "p_holm_vs_proposed"] == pytest.approx(2 * raw_cetd, rel=1e-12)
    assert v["pab", "p_holm_vs_proposed"] == pytest.approx(max(2 * raw_cetd, raw_pab), rel=1e-12)
    assert v["cetd", "p_holm_vs_proposed"] == pytest.approx(2 * 2 / 32, abs=0.04)
    assert ("proposed", "p_holm_vs_proposed") not in v.index


def test_reference_method_is_the_configured_one():
    s = _summary(reference="cetd")["value"]
    # proposed - cetd is the mirror of cetd - proposed; pab - cetd = .25, .625, .75, .4375, -.3125
    assert s["proposed", "f1_diff_vs_cetd"] == pytest.approx(2.125 / 5)
    d = [0.25, 0.625, 0.75, 0.4375, -0.3125]
    assert s["pab", "f1_diff_vs_cetd"] == pytest.approx(sum(d) / 5)
    # exact p: flipping a set F of differences gives sum 1.75 - 2 sum(F), which reaches
    # |1.75| iff sum(F) <= 0 or >= 1.75: F = {}, {-.3125}, {.25, -.3125} and their
    # complements, 6 of 32 patterns
    assert _exact_p(d) == 6 / 32
    raw = sorted([_seeded_p([0.5, 0.375, 0.5, 0.4375, 0.3125]), _seeded_p(d)])
    holm = [min(1, 2 * raw[0]), max(min(1, 2 * raw[0]), raw[1])]
    got = sorted([s["proposed", "p_holm_vs_cetd"], s["pab", "p_holm_vs_cetd"]])
    assert got == pytest.approx(holm, rel=1e-12)


# ---------------------------------------------------------------- on_failure=drop


def test_drop_shape_leaves_the_failed_page_out_and_counts_it():
    s = _summary(_frame("drop"))
    v, n = s["value"], s["n_pages"]
    assert v["pab", "failures"] == 1 and n["pab", "failures"] == 5
    assert n["pab", "shingle_f1"] == 4 and n["proposed", "shingle_f1"] == 5
    # pab over p1..p4: P = 3.625/4, R = 3.225/4
    assert v["pab", "shingle_precision"] == pytest.approx(0.90625)
    assert v["pab", "shingle_recall"] == pytest.approx(0.80625)
    assert v["pab", "pages_correct"] == 1.0
    # paired over the four shared pages: d = -.25, .25, .25, 0: every pattern reaches
    # |sum| = .25, p = 1 whatever the draws; Holm keeps it at 1
    assert _exact_p([-0.25, 0.25, 0.25, 0.0]) == 1.0
    assert n["pab", "p_holm_vs_proposed"] == 4
    assert v["pab", "p_holm_vs_proposed"] == 1.0
    assert v["pab", "f1_diff_vs_proposed"] == pytest.approx(0.25 / 4)


def test_no_score_columns_at_all():
    # every page failed under drop: the records carry no metric keys, the frame no columns
    frame = _frame("drop").drop(columns=SCORE_COLUMNS).assign(error="ValueError: boom")
    s = X.summarize(frame, "d", _opts(), SEED)
    assert s[["method", "metric", "value", "n_pages"]].values.tolist() == [
        [m, "failures", 5.0, 5] for m in ("proposed", "cetd", "pab")
    ]


def test_a_method_that_failed_everywhere_under_drop_has_only_its_failure_row():
    frame = _frame("drop")
    frame = frame[frame["method"] == "pab"].assign(error="ValueError: boom")
    frame[SCORE_COLUMNS] = nan
    s = X.summarize(frame, "d", _opts(), SEED)
    assert s[["method", "metric", "value", "n_pages"]].values.tolist() == [
        ["pab", "failures", 5.0, 5]
    ]
