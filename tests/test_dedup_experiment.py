"""The ``dedup`` experiment: exact candidate filters, a two-page site scored by hand, the
summary arithmetic, and reduced runs on synthetic and real pages."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pandas as pd
import pytest
from omegaconf import OmegaConf

from baselines.jaccard import Jaccard, jaccard
from baselines.minhash import MinHash
from baselines.simhash import Simhash
from evalkit import metrics
from evalkit.experiments import EXPERIMENTS, Context
from evalkit.experiments import dedup as D

REPO = Path(__file__).resolve().parents[1]

T1 = "The council approved the harbour budget after a long debate about ferry fares and wages."
T2 = (
    "Engineers tested the new bridge sensors during the winter storm near the harbour and "
    "published every reading."
)
T3 = "Local bakers sold fresh bread at the autumn market while musicians played near the fountain."
# T2 with one word changed: 11 terms each, 10 shared -> Jaccard 10/12 = 0.833 >= 0.8
T2_NEAR = (
    "Engineers tested the new bridge sensors during the winter storm near the harbour and "
    "published every number."
)
HEADER = "Subscribe to the Harbour Gazette newsletter for morning headlines delivered daily."


def test_registered():
    assert EXPERIMENTS.get("dedup") is D.run


def test_prefix_length_worked_by_hand():
    # |x| = 5, theta 0.8: a partner must share ceil(4.0) = 4 tokens, so 5 - 4 + 1 = 2 prefix tokens
    assert D._prefix_len(5, 0.8) == 2
    assert D._prefix_len(10, 0.8) == 3  # ceil(8) = 8
    assert D._prefix_len(7, 0.8) == 2  # ceil(5.6) = 6
    assert D._prefix_len(4, 1.0) == 1


@pytest.mark.parametrize("theta", [0.3, 0.5, 0.8, 1.0])
def test_set_pairs_equals_brute_force(theta):
    rng = random.Random(7)
    base = [frozenset(rng.sample(range(30), rng.randint(1, 12))) for _ in range(40)]
    # near copies (one element swapped) and exact copies, so pairs exist at every threshold
    sets = (
        base
        + [frozenset(list(s)[1:] + [99]) for s in base[:15]]
        + base[30:33]
        + [None, frozenset()]
    )
    brute = {
        (i, j)
        for i, j in itertools.combinations(range(len(sets)), 2)
        if sets[i] and sets[j] and jaccard(sets[i], sets[j]) >= theta - 1e-12
    }
    assert D.set_pairs(sets, theta) == brute
    assert brute  # the case is not vacuous
    with pytest.raises(ValueError):
        D.set_pairs(sets, 0.0)


def test_integer_fingerprints_equal_brute_force():
    det = Simhash(k=3)
    rng = random.Random(3)
    fps = [rng.getrandbits(64) for _ in range(60)]
    # flip 0..5 bits of some of them: distances straddle k = 3
    fps += [
        f ^ sum(1 << b for b in rng.sample(range(64), n))
        for f, n in zip(fps[:30], itertools.cycle(range(6)))
    ]
    fps.append(None)
    brute = {
        (i, j)
        for i, j in itertools.combinations(range(len(fps)), 2)
        if fps[i] is not None and fps[j] is not None and det.similar(fps[i], fps[j])
    }
    assert D.detector_pairs(det, fps) == brute
    assert len(brute) == 20  # flips of 0..3 bits: 4 of every 6 near copies, 30 -> 20


def test_minhash_numpy_shares_equal_its_own_estimate():
    det = MinHash()
    texts = [T1, T1, T2, T2_NEAR, T3, HEADER, "", T3 + " Extra words about the fountain."]
    fps = [det.fingerprint(t) for t in texts]
    brute = {
        (i, j)
        for i, j in itertools.combinations(range(len(fps)), 2)
        if fps[i] is not None and fps[j] is not None and det.similar(fps[i], fps[j])
    }
    assert D.detector_pairs(det, fps) == brute
    assert (0, 1) in brute


def _site():
    # page 0: T1, T2 and an exact copy of T1 (planted pair (0, 2)); page 1: T3 and a near
    # copy of page 0's T2, which the gold does not call a duplicate (not identical)
    return [
        D.PageBlocks("p0", "s", [T1, T2, T1], {(0, 2)}, "gold", [HEADER]),
        D.PageBlocks("p1", "s", [T3, T2_NEAR], set(), "gold", [HEADER]),
    ]


def test_page_scope_by_hand():
    recs = D.score_site(_site(), Jaccard(), "page")
    assert [
        (r["n_items"], r["pair_tp"], r["pair_fp"], r["pair_fn"], r["exact"], r["blocks_right"])
        for r in recs
    ] == [(3, 1, 0, 0, 1.0, 3), (2, 0, 0, 0, 1.0, 2)]


def test_site_scope_by_hand():
    # items: p0 = T1 (0), T2 (1), T1 (2), HEADER (3); p1 = T3 (4), T2_NEAR (5), HEADER (6).
    # true: (0, 2) on p0 and (3, 6) charged to p1; predicted adds (1, 5), a false pair of p1.
    assert jaccard(Jaccard().fingerprint(T2), Jaccard().fingerprint(T2_NEAR)) == 10 / 12
    recs = D.score_site(_site(), Jaccard(), "site")
    p0, p1 = recs
    assert (p0["n_items"], p0["pair_tp"], p0["pair_fp"], p0["exact"]) == (4, 1, 0, 1.0)
    assert (p1["n_items"], p1["pair_tp"], p1["pair_fp"], p1["pair_fn"], p1["exact"]) == (
        3,
        1,
        1,
        0,
        0.0,
    )
    # T2 (p0) and T2_NEAR (p1) have a wrong duplicate set; everything else is right
    assert (p0["blocks_right"], p1["blocks_right"]) == (3, 2)
    # at a stricter threshold the near copy is no longer a pair and both pages are exact
    strict = D.score_site(_site(), Jaccard(threshold=0.9), "site")
    assert [r["exact"] for r in strict] == [1.0, 1.0]


def test_page_scope_blocks_right_agrees_with_exact_set_accuracy():
    site = _site()
    det = Jaccard(threshold=0.5)
    recs = D.score_site(site, det, "page")
    for pb, rec in zip(site, recs):
        fps = [det.fingerprint(t) for t in pb.texts]
        pred = D.detector_pairs(det, fps)
        share = metrics.exact_set_accuracy(pred, pb.true_pairs, len(pb.texts))
        assert rec["blocks_right"] == round(share * len(pb.texts))


def test_shingle_truth_uses_unstemmed_words_with_stop_words():
    # stop words count: "the cat" vs "a cat" differ although their terms would be equal
    assert D.shingle_set("The cat sat on the mat", 3) == frozenset(
        {("the", "cat", "sat"), ("cat", "sat", "on"), ("sat", "on", "the"), ("on", "the", "mat")}
    )
    assert D.shingle_set("Cats", 3) == frozenset({("cats",)})


def test_summarize_pools_pairs_over_pages():
    per_page = pd.DataFrame(
        [
            {
                "method": "m",
                "scope": "page",
                "pair_tp": 3,
                "pair_fp": 1,
                "pair_fn": 0,
                "exact": 0.0,
                "blocks_right": 4,
                "n_items": 5,
            },
            {
                "method": "m",
                "scope": "page",
                "pair_tp": 1,
                "pair_fp": 0,
                "pair_fn": 2,
                "exact": 0.0,
                "blocks_right": 1,
                "n_items": 3,
            },
            {
                "method": "m",
                "scope": "page",
                "pair_tp": 0,
                "pair_fp": 0,
                "pair_fn": 0,
                "exact": 1.0,
                "blocks_right": 2,
                "n_items": 2,
            },
        ]
    )
    s = D.summarize(per_page, "d", n_boot=200).set_index("metric")["value"]
    assert s["pair_precision_page"] == 4 / 5  # (3 + 1) / (3 + 1 + 1 + 0)
    assert s["pair_recall_page"] == 4 / 6  # (3 + 1) / (3 + 1 + 0 + 2)
    assert s["pair_f1_page"] == pytest.approx(8 / 11)  # 2*4 / (2*4 + 1 + 2)
    assert s["pages_exact_page"] == pytest.approx(1 / 3)
    assert s["blocks_exact_page"] == 7 / 10


def _ctx(tmp_path, datasets, **dedup):
    opts = {
        "scopes": ["page", "site"],
        "truth": "auto",
        "theta": 0.8,
        "shingle": 3,
        "minhash_lsh": True,
        "n_boot": 200,
        "alpha": 0.05,
        **dedup,
    }
    detectors = {
        name: OmegaConf.to_container(
            OmegaConf.load(REPO / "configs" / "detector" / f"{name}.yaml")
        )[name]
        for name in ("modified_simhash", "simhash", "jaccard", "minhash", "hybridhash")
    }
    cfg = OmegaConf.create(
        {"runner": {"n_jobs": 1}, "seed": 0, "dedup": opts, "detector": detectors}
    )
    (tmp_path / "tables").mkdir()
    (tmp_path / "figures").mkdir()
    return Context(cfg=cfg, out=tmp_path, datasets=datasets, specs=[], seed=0)


def test_reduced_run_on_synthetic(tmp_path):
    from evalkit.readers.synthetic import SyntheticDataset

    ctx = _ctx(tmp_path, {"synthetic": SyntheticDataset(limit=20)})
    summary = D.run(ctx)
    wide = summary.pivot(index="method", columns="metric", values="value")
    per_page = ctx.per_page[0]
    # measured on the first 20 pages (2 sites) with seed 0
    page = per_page[(per_page["method"] == "jaccard") & (per_page["scope"] == "page")]
    assert page["n_true_pairs"].sum() == 32 and page["n_items"].sum() == 136
    site = per_page[(per_page["method"] == "jaccard") & (per_page["scope"] == "site")]
    assert site["n_true_pairs"].sum() == 482  # + cross-page template copies
    # planted copies are exact or 1-3 word substitutions: every detector is precise on them
    assert (wide["pair_precision_page"] == 1.0).all()
    assert wide.loc["jaccard", "pair_recall_page"] > wide.loc["simhash", "pair_recall_page"]
    assert (
        (summary["ci_low"] <= summary["value"] + 1e-12)
        & (summary["value"] <= summary["ci_high"] + 1e-12)
    ).all()
    for stem in ("dedup_synthetic_page", "dedup_synthetic_site", "dedup_synthetic_timing"):
        assert (tmp_path / "tables" / f"{stem}.md").is_file()
    assert (tmp_path / "figures" / "dedup_synthetic_site.png").is_file()
    # timing stays out of the summary
    assert not summary["metric"].str.contains("seconds|_ms").any()


def test_reduced_run_on_cleanportaleval(shared, tmp_path):
    from evalkit.readers.cleaneval import CleanEvalDataset

    ds = CleanEvalDataset(
        path=str(shared("cleanportaleval")), limit=6, site_pattern=r"^(?P<site>.+)_\d+$"
    )
    ctx = _ctx(tmp_path, {"cleanportaleval": ds}, scopes=["page", "site"])
    summary = D.run(ctx)
    per_page = ctx.per_page[0]
    assert set(per_page["truth"]) == {"shingles"}
    one = per_page[per_page["method"] == "jaccard"]
    # measured: blocks and shingle-truth pairs of the first six pages
    assert one[one["scope"] == "page"]["n_items"].sum() == MEASURED_CPE_ITEMS
    assert one[one["scope"] == "page"]["n_true_pairs"].sum() == MEASURED_CPE_PAGE_PAIRS
    assert one[one["scope"] == "site"]["n_true_pairs"].sum() == MEASURED_CPE_SITE_PAIRS
    wide = summary.pivot(index="method", columns="metric", values="value")
    assert wide["pair_recall_site"].between(0.9, 1.0).all()
    assert (
        wide.loc["jaccard", "pair_recall_page"] == 1.0
    )  # measured: the 4 shingle pairs are term-set pairs too


MEASURED_CPE_ITEMS = 201  # non-empty stage 1.1 blocks of the first six bbc.co.uk_news pages
MEASURED_CPE_PAGE_PAIRS = 4
MEASURED_CPE_SITE_PAIRS = 211  # the site's template blocks repeat from page to page
