"""Mean ranks, Friedman's test and its post-hoc tests (evalkit.metrics.ranks) against Demšar
(2006, JMLR 7), Section 3.2.2 and Tables 5 and 6, and against scipy; the CD diagram
(evalkit.report.cd_diagram) writes its files and keeps its labels apart."""

from __future__ import annotations

import itertools

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalkit.metrics import ranks as rk
from evalkit.metrics.inference import holm
from evalkit.report.cd_diagram import cd_diagram, cd_figure

METHODS = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
#: Demšar's Table 6: AUC of four C4.5 variants on 14 UCI data sets, as printed
AUC = pd.DataFrame(
    [
        [0.763, 0.768, 0.771, 0.798],  # adult (sample)
        [0.599, 0.591, 0.590, 0.569],  # breast cancer
        [0.954, 0.971, 0.968, 0.967],  # breast cancer wisconsin
        [0.628, 0.661, 0.654, 0.657],  # cmc
        [0.882, 0.888, 0.886, 0.898],  # ionosphere
        [0.936, 0.931, 0.916, 0.931],  # iris
        [0.661, 0.668, 0.609, 0.685],  # liver disorders
        [0.583, 0.583, 0.563, 0.625],  # lung cancer
        [0.775, 0.838, 0.866, 0.875],  # lymphography
        [1.000, 1.000, 1.000, 1.000],  # mushroom
        [0.940, 0.962, 0.965, 0.962],  # primary tumor
        [0.619, 0.666, 0.614, 0.669],  # rheum
        [0.972, 0.981, 0.975, 0.975],  # voting
        [0.957, 0.978, 0.946, 0.970],  # wine
    ],
    columns=METHODS,
)
#: the ranks the table prints in parentheses; voting's two 0.975 are ranked 2 and 3, so the
#: paper ranked the unrounded AUCs there (C4.5+cf ahead)
PAPER_RANKS = pd.DataFrame(
    [
        [4, 3, 2, 1],
        [1, 2, 3, 4],
        [4, 1, 2, 3],
        [4, 1, 3, 2],
        [4, 2, 3, 1],
        [1, 2.5, 4, 2.5],
        [3, 2, 4, 1],
        [2.5, 2.5, 4, 1],
        [4, 3, 2, 1],
        [2.5, 2.5, 2.5, 2.5],
        [4, 2.5, 1, 2.5],
        [3, 2, 4, 1],
        [4, 1, 2, 3],
        [3, 1, 4, 2],
    ],
    columns=METHODS,
)
VOTING = 12
#: the paper's numbers: average ranks, chi2_F, F_F, the Nemenyi CDs at .05 and .10
PAPER_MEAN_RANKS = [3.143, 2.000, 2.893, 1.964]
PAPER_CHI2, PAPER_F = 9.28, 3.69
PAPER_CD_05, PAPER_CD_10 = 1.25, 1.12
#: Demšar's Table 5(a): q_alpha of the Nemenyi test for k = 2..10
Q_05 = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
Q_10 = [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920]


def _unrounded() -> pd.DataFrame:
    """Table 6 with voting's C4.5+cf a hair above 0.975, as the paper's ranks say it was."""
    auc = AUC.copy()
    auc.loc[VOTING, "C4.5+cf"] = 0.9751
    return auc


# --- Demšar's worked example ---------------------------------------------------------------


def test_ranks_of_table_6_are_the_printed_ranks():
    ranks = AUC.rank(axis=1, ascending=False, method="average")
    others = ranks.index != VOTING
    pd.testing.assert_frame_equal(ranks[others], PAPER_RANKS[others].astype(float))
    # the printed tie at voting shares ranks 2 and 3
    assert ranks.loc[VOTING].tolist() == [4.0, 1.0, 2.5, 2.5]


@pytest.mark.parametrize("table", ["printed ranks", "unrounded AUC"])
def test_friedman_reproduces_demsar(table):
    # the printed ranks as scores (lower rank = better), or the AUCs the ranks came from
    scores = -PAPER_RANKS if table == "printed ranks" else _unrounded()
    res = rk.friedman(scores)
    assert res.n == 14 and res.k == 4
    assert res.mean_ranks.index.tolist() == METHODS
    np.testing.assert_allclose(res.mean_ranks, PAPER_MEAN_RANKS, atol=5e-4)
    assert res.chi2 == pytest.approx(PAPER_CHI2, abs=5e-3)
    assert res.f == pytest.approx(PAPER_F, abs=5e-3)
    assert res.p == pytest.approx(stats.chi2.sf(res.chi2, 3))
    assert res.p_f == pytest.approx(stats.f.sf(res.f, 3, 39))
    # "the critical value of F(3, 39) for alpha = 0.05 is 2.85, so we reject"
    assert stats.f.ppf(0.95, 3, 39) == pytest.approx(2.85, abs=5e-3)
    assert res.f > 2.85 and res.p_f < 0.05
    # the chi2 form of the test rejects at .05 as well (p = 0.026)
    assert res.p == pytest.approx(0.0258, abs=5e-4)


def test_printed_table_with_its_tie_gives_average_ranks():
    res = rk.friedman(AUC)
    # voting's tie moves half a rank between C4.5+cf and C4.5+m+cf over 14 sets
    np.testing.assert_allclose(res.mean_ranks, [44 / 14, 28 / 14, 41 / 14, 27 / 14])
    assert res.chi2 > PAPER_CHI2


def test_formulas_from_the_printed_average_ranks():
    ranks = pd.Series(PAPER_MEAN_RANKS, index=METHODS)
    chi2, p, f, p_f = rk.friedman_from_ranks(ranks, 14)
    assert chi2 == pytest.approx(PAPER_CHI2, abs=5e-3)
    assert f == pytest.approx(PAPER_F, abs=5e-3)
    assert p == pytest.approx(stats.chi2.sf(chi2, 3))
    assert p_f == pytest.approx(stats.f.sf(f, 3, 39))


def test_nemenyi_cd_of_demsar():
    assert rk.nemenyi_q(4, 0.05) == pytest.approx(2.569, abs=5e-4)
    assert rk.nemenyi_cd(4, 14, 0.05) == pytest.approx(PAPER_CD_05, abs=5e-3)
    assert rk.nemenyi_cd(4, 14, 0.10) == pytest.approx(PAPER_CD_10, abs=5e-3)
    assert rk.nemenyi_cd(4, 14) == rk.nemenyi_cd(4, 14, rk.ALPHA)


@pytest.mark.parametrize(("alpha", "table"), [(0.05, Q_05), (0.10, Q_10)])
def test_nemenyi_q_matches_table_5a(alpha, table):
    # to the third decimal: scipy gives 2.3437 (k=3) and 2.9483 (k=7), which the table prints
    # as 2.343 and 2.949; every other value rounds to the printed one
    for k, q in zip(range(2, 11), table, strict=True):
        assert rk.nemenyi_q(k, alpha) == pytest.approx(q, abs=1e-3), k


def test_nemenyi_pairs_of_demsar():
    scores = _unrounded()
    at_05 = rk.nemenyi(scores, 0.05)
    assert len(at_05) == 6 and not at_05["significant"].any()  # the test is not powerful enough
    at_10 = rk.nemenyi(scores, 0.10)
    told_apart = {frozenset((a, b)) for a, b in at_10.loc[at_10["significant"], ["a", "b"]].values}
    # "the performance of pure C4.5 is significantly worse than that of C4.5+m and C4.5+m+cf"
    assert told_apart == {frozenset({"C4.5", "C4.5+m"}), frozenset({"C4.5", "C4.5+m+cf"})}
    # a is the better-ranked method; the p-value and the CD tell the same story
    assert (at_10["rank_a"] <= at_10["rank_b"]).all()
    assert ((at_10["p"] <= 0.10) == at_10["significant"]).all()
    assert ((at_05["p"] <= 0.05) == at_05["significant"]).all()


def test_cliques_of_demsar_figure_1a():
    ranks = dict(zip(METHODS, PAPER_MEAN_RANKS, strict=True))
    # at p = 0.10 two groups; C4.5+cf belongs to both
    assert rk.cliques(ranks, PAPER_CD_10) == [
        {"C4.5+m+cf", "C4.5+m", "C4.5+cf"},
        {"C4.5+cf", "C4.5"},
    ]
    assert rk.cliques(ranks, PAPER_CD_05) == [set(METHODS)]


# --- scipy and the definitions -------------------------------------------------------------


def test_friedman_equals_scipy_without_ties():
    table = pd.DataFrame(np.random.default_rng(7).random((25, 6)), columns=list("abcdef"))
    res = rk.friedman(table)
    ref = stats.friedmanchisquare(*table.to_numpy().T)
    assert res.chi2 == pytest.approx(ref.statistic) and res.p == pytest.approx(ref.pvalue)
    assert rk.friedman(table, tie_correction=True).chi2 == pytest.approx(ref.statistic)


def test_friedman_with_ties_is_demsar_or_scipy_by_choice():
    table = pd.DataFrame(np.random.default_rng(3).integers(0, 3, (30, 5)), columns=list("abcde"))
    ref = stats.friedmanchisquare(*table.to_numpy().T)
    corrected = rk.friedman(table, tie_correction=True)
    assert corrected.chi2 == pytest.approx(ref.statistic) and corrected.p == pytest.approx(
        ref.pvalue
    )
    plain = rk.friedman(table)  # Demšar's equation: no correction, a smaller statistic
    assert rk.TIE_CORRECTION is False and plain.chi2 < corrected.chi2
    # either way, the mean ranks are those of the rank table scipy ranks
    ranks = stats.rankdata(-table.to_numpy(), axis=1).mean(axis=0)
    np.testing.assert_allclose(plain.mean_ranks, ranks)


def test_ties_share_the_mean_rank():
    table = pd.DataFrame({"a": [0.5, 0.9], "b": [0.5, 0.9], "c": [0.2, 0.9], "d": [0.9, 0.1]})
    ranks = rk.mean_ranks(table)
    # block 1: d 1, a and b share 2 and 3, c 4; block 2: a, b, c share 1..3, d 4
    np.testing.assert_allclose(ranks, [(2.5 + 2) / 2, (2.5 + 2) / 2, (4 + 2) / 2, (1 + 4) / 2])
    assert ranks.sum() == pytest.approx(4 * 5 / 2)
    # lower is better (milliseconds per page): the order turns round
    np.testing.assert_allclose(rk.mean_ranks(table, higher_is_better=False), 5 - ranks)


def test_degenerate_tables():
    same_order = pd.DataFrame({"a": [3.0, 3, 3], "b": [2.0, 2, 2], "c": [1.0, 1, 1]})
    res = rk.friedman(same_order)
    assert res.chi2 == pytest.approx(3 * 2) and res.f == np.inf and res.p_f == 0.0
    all_tied = pd.DataFrame({"a": [1.0, 2], "b": [1.0, 2], "c": [1.0, 2]})
    for correction in (False, True):
        res = rk.friedman(all_tied, tie_correction=correction)
        assert res.chi2 == 0.0 and res.p == pytest.approx(1.0)
        assert res.f == 0.0 and res.p_f == pytest.approx(1.0)


def test_holm_wilcoxon():
    scores = _unrounded()
    out = rk.holm_wilcoxon(scores)
    assert len(out) == 6 and (out["rank_a"] <= out["rank_b"]).all()
    for row in out.itertuples():
        ref = stats.wilcoxon(scores[row.a], scores[row.b], zero_method="zsplit")
        assert row.statistic == pytest.approx(ref.statistic) and row.p == pytest.approx(ref.pvalue)
    np.testing.assert_allclose(out["p_holm"], holm(out["p"]))
    assert (out["significant"] == (out["p_holm"] <= rk.ALPHA)).all()
    assert (out["p_holm"] >= out["p"]).all()
    # identical methods: nothing to test, p = 1
    twins = pd.DataFrame({"a": [0.1, 0.5, 0.7], "b": [0.1, 0.5, 0.7], "c": [0.0, 0.2, 0.3]})
    same = rk.holm_wilcoxon(twins).set_index(["a", "b"]).loc[("a", "b")]
    assert same["p"] == 1.0 and not same["significant"]


def test_blocks_with_a_missing_score_are_dropped():
    table = _unrounded()
    holed = table.copy()
    holed.loc[3, "C4.5+m"] = np.nan
    kept, dropped = rk.complete_blocks(holed)
    assert rk.DROP_INCOMPLETE_BLOCKS and dropped == [3] and len(kept) == 13
    res = rk.friedman(holed)
    assert res.n == 13
    np.testing.assert_allclose(res.mean_ranks, rk.mean_ranks(table.drop(index=3)))
    assert len(rk.nemenyi(holed)) == 6
    # Wilcoxon over the blocks kept (a small table: exhaustive sign flips are quick)
    small = pd.DataFrame({"a": [0.9, 0.8, np.nan, 0.7, 0.6], "b": [0.5, 0.6, 0.1, 0.4, 0.5]})
    ref = stats.wilcoxon(small["a"].dropna(), small["b"].drop(index=2), zero_method="zsplit")
    assert rk.holm_wilcoxon(small)["p"].iloc[0] == pytest.approx(ref.pvalue)


@pytest.mark.parametrize(
    ("scores", "message"),
    [
        (pd.DataFrame({"a": [0.1, 0.2]}), "at least 2 methods"),
        (pd.DataFrame({"a": [0.1], "b": [0.2]}), "at least 2 blocks"),
        (pd.DataFrame({"a": [0.1, np.nan], "b": [0.2, 0.3]}), "1 dropped"),
    ],
)
def test_too_little_to_rank(scores, message):
    for fn in (rk.mean_ranks, rk.friedman, rk.nemenyi, rk.holm_wilcoxon):
        with pytest.raises(ValueError, match=message):
            fn(scores)


def test_bad_arguments():
    with pytest.raises(TypeError):
        rk.friedman([[0.1, 0.2], [0.3, 0.4]])
    with pytest.raises(ValueError, match="at least 2 methods"):
        rk.nemenyi_cd(1, 10)
    with pytest.raises(ValueError, match="at least 2 blocks"):
        rk.nemenyi_cd(3, 1)
    with pytest.raises(ValueError, match="alpha"):
        rk.nemenyi_q(3, 1.5)


def test_cliques_by_hand():
    ranks = {"A": 1.0, "B": 1.5, "C": 3.0, "D": 3.2, "E": 5.0}
    assert rk.cliques(ranks, 1.0) == [{"A", "B"}, {"C", "D"}]  # E stands alone: no bar
    # overlapping runs are each kept; D-E lies inside C-E and is left out
    assert rk.cliques(ranks, 2.1) == [{"A", "B", "C"}, {"B", "C", "D"}, {"C", "D", "E"}]
    # C-D lies inside B-D
    assert rk.cliques(ranks, 1.9) == [{"A", "B"}, {"B", "C", "D"}, {"D", "E"}]
    assert rk.cliques({"A": 1.0, "B": 1.2, "C": 1.4}, 1.0) == [{"A", "B", "C"}]
    # a difference of exactly CD is significant, so the two are not joined
    assert rk.cliques({"A": 1.0, "B": 2.0}, 1.0) == []
    assert rk.cliques(pd.Series(ranks), 10.0) == [set(ranks)]


def test_cliques_agree_with_nemenyi():
    rng = np.random.default_rng(11)
    table = pd.DataFrame(
        np.linspace(0.9, 0.3, 7) + rng.normal(0, 0.2, (30, 7)), columns=list("abcdefg")
    )
    pairs = rk.nemenyi(table)
    groups = rk.cliques(rk.mean_ranks(table), pairs["cd"].iloc[0])
    # no group holds a pair the test tells apart, and every pair not told apart shares a group
    for a, b, sig in pairs[["a", "b", "significant"]].itertuples(index=False):
        together = any({a, b} <= g for g in groups)
        assert together != sig


# --- the diagram ---------------------------------------------------------------------------


def _demsar_at_10():
    ranks = dict(zip(METHODS, PAPER_MEAN_RANKS, strict=True))
    return ranks, PAPER_CD_10, rk.cliques(ranks, PAPER_CD_10)


def test_cd_diagram_writes_png_svg_pdf(tmp_path):
    ranks, cd, groups = _demsar_at_10()
    paths = cd_diagram(ranks, cd, groups, tmp_path / "cd", title="Demšar (2006), Table 6")
    assert sorted(p.suffix for p in paths) == [".pdf", ".png", ".svg"]
    for path in paths:
        assert path.exists() and path.stat().st_size > 1000
    assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _texts(fig):
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    return {t.get_text(): t.get_window_extent(renderer) for t in fig.axes[0].texts}


@pytest.mark.parametrize("k", [2, 4, 7, 12])
def test_cd_diagram_labels_do_not_overlap(k):
    rng = np.random.default_rng(k)
    names = [f"method_{i}" * (1 + i % 3) for i in range(k)]
    table = pd.DataFrame(np.linspace(0.9, 0.5, k) + rng.normal(0, 0.1, (12, k)), columns=names)
    ranks = rk.mean_ranks(table).to_dict()
    cd = rk.nemenyi_cd(k, 12)
    fig = cd_figure(ranks, cd, rk.cliques(ranks, cd), title="t")
    boxes = list(_texts(fig).values())
    assert len(boxes) == k + k + 2  # names, tick numbers, the CD and the title
    for b1, b2 in itertools.combinations(boxes, 2):
        assert not b1.overlaps(b2)
    # every text inside the figure
    full = fig.bbox
    for b in boxes:
        assert full.x0 <= b.x0 and b.x1 <= full.x1 and full.y0 <= b.y0 and b.y1 <= full.y1
    plt.close(fig)


@pytest.mark.parametrize("best", ["right", "left"])
def test_cd_diagram_puts_the_best_on_the_chosen_side(best):
    ranks, cd, groups = _demsar_at_10()
    fig = cd_figure(ranks, cd, groups, best=best)
    texts = _texts(fig)
    best_x = texts["C4.5+m+cf (1.96)"].x0
    worst_x = texts["C4.5 (3.14)"].x0
    assert (best_x > worst_x) == (best == "right")
    assert texts["1"].x0 > texts["4"].x0 if best == "right" else texts["1"].x0 < texts["4"].x0
    plt.close(fig)


def test_cd_diagram_refuses_bad_input(tmp_path):
    ranks, cd, _ = _demsar_at_10()
    with pytest.raises(ValueError, match="without a rank"):
        cd_diagram(ranks, cd, [{"C4.5", "J48"}], tmp_path / "x")
    with pytest.raises(ValueError, match="at least 2"):
        cd_diagram({"C4.5": 1.0}, cd, [], tmp_path / "x")
    with pytest.raises(ValueError, match="best"):
        cd_diagram(ranks, cd, [], tmp_path / "x", best="top")
