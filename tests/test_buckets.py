"""Page complexity, its buckets (evalkit/harness/complexity.py) and the extraction report's
pairwise matrix and bucket tables on a small synthetic run.

docs/metrics.md, "Page complexity buckets" and "Every pair of methods".
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from evalkit.experiments import run_experiment
from evalkit.experiments.extraction import BUCKET_COLUMNS, bucket_rows
from evalkit.harness.complexity import bucket_cuts, complexity_buckets, page_complexity
from evalkit.harness.config import CONFIG_DIR, register_resolvers

register_resolvers()


def test_page_complexity_is_the_share_of_visible_words_not_in_the_gold():
    assert page_complexity(30, 100) == pytest.approx(0.7)
    assert page_complexity(0, 50) == 1.0  # nothing of the page is gold
    assert page_complexity(120, 100) == 0.0  # gold longer than the page: capped
    assert math.isnan(page_complexity(5, 0))  # no visible words: undefined


def test_terciles_of_nine_distinct_values():
    values = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    names, (c1, c2) = complexity_buckets(values)
    # numpy's linear quantile: position 8/3 -> 0.3 + 2/3 * 0.1; position 16/3 -> 0.6 + 1/3 * 0.1
    assert (c1, c2) == (pytest.approx(0.3 + 0.2 / 3), pytest.approx(0.6 + 0.1 / 3))
    assert names == ["low"] * 3 + ["medium"] * 3 + ["high"] * 3


def test_tied_pages_share_a_bucket_even_if_one_stays_empty():
    # cuts at positions 1 and 2 of [0.5, 0.5, 0.5, 0.9]: both 0.5
    names, cuts = complexity_buckets([0.5, 0.9, 0.5, 0.5])
    assert cuts == (0.5, 0.5)
    assert names == ["low", "high", "low", "low"]  # no medium page
    assert complexity_buckets([0.4, 0.4])[0] == ["low", "low"]  # all equal: all low


def test_a_page_without_complexity_is_in_no_bucket():
    # cuts from [0.2, 0.4, 0.6] alone: 0.2 + 2/3 * 0.2 and 0.4 + 1/3 * 0.2
    names, (c1, c2) = complexity_buckets([math.nan, 0.2, 0.4, 0.6])
    assert names == [None, "low", "medium", "high"]
    assert (c1, c2) == (pytest.approx(0.2 + 0.4 / 3), pytest.approx(0.4 + 0.2 / 3))
    assert all(math.isnan(c) for c in bucket_cuts([math.nan]))


def test_other_cut_points_bevendorff_s_quartiles():
    names, cuts = complexity_buckets([0.0, 0.25, 0.5, 0.75, 1.0], quantiles=(0.25, 0.75))
    assert cuts == (0.25, 0.75)
    assert names == ["low", "low", "medium", "medium", "high"]


def test_bucket_rows_summarise_each_bucket_s_pages():
    # six pages, complexities 0.1 .. 0.6: two pages per tercile; word_f1 by hand
    rows = []
    for i, c in enumerate([0.1, 0.2, 0.3, 0.4, 0.5, 0.6]):
        for method, f in (("A", 1.0 - c), ("B", 0.5)):
            rows.append(
                {
                    "page_id": f"p{i}",
                    "method": method,
                    "error": None,
                    "complexity": c,
                    "shingle_precision": f,
                    "shingle_recall": f,
                    "shingle_f1": f,
                    "word_f1": f,
                }
            )
    out, info = bucket_rows(pd.DataFrame(rows), "hand", {"n_boot": 50}, seed=0)
    assert list(out.columns) == BUCKET_COLUMNS
    assert info["pages"] == {"low": 2, "medium": 2, "high": 2} and info["unbucketed"] == 0
    word = out[out["metric"] == "word_f1"].set_index(["bucket", "method"])
    # A: mean of 1 - c over the bucket's two pages; B: 0.5 everywhere
    assert word.loc[("low", "A"), "value"] == pytest.approx(0.85)
    assert word.loc[("medium", "A"), "value"] == pytest.approx(0.65)
    assert word.loc[("high", "A"), "value"] == pytest.approx(0.45)
    assert word.loc[("high", "B"), "value"] == pytest.approx(0.5)
    assert word.loc[("medium", "A"), "n_pages"] == 2
    low = out[out["bucket"] == "low"].iloc[0]
    assert (low["complexity_min"], low["complexity_max"]) == (0.1, 0.2)


def _run(tmp: Path, methods: str, *extra: str) -> Path:
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(
            config_name="config",
            overrides=[
                "experiment=extraction",
                "dataset=synthetic",
                "dataset.synthetic.n_sites=2",
                f"method={methods}",
                "extraction.n_boot=50",
                "runner.n_jobs=1",
                "runner.progress=false",
                "runner.cache=false",
                f"paths.results={tmp}",
                *extra,
            ],
        )
    return run_experiment(cfg, tmp / "run")


@pytest.fixture(scope="module")
def two_methods(tmp_path_factory):
    return _run(tmp_path_factory.mktemp("pairs"), "[proposed,html_text]")


def test_the_report_holds_the_matrix_and_the_bucket_table(two_methods):
    report = (two_methods / "report.md").read_text()
    pairs = pd.read_csv(two_methods / "pairwise.csv")
    row = pairs[pairs["metric"] == "shingle_f1"].iloc[0]
    assert (row["method_a"], row["method_b"]) == ("proposed", "html_text")
    # the matrix: row proposed, column html_text holds the signed mean difference
    mark = "*" if row["p_holm"] < 0.05 else ""
    assert f"| proposed | - | {row['diff']:+.3f}{mark} |" in report
    assert f"| html_text | {-row['diff']:+.3f}{mark} | - |" in report
    assert "![pairwise differences](figures/extraction_synthetic_pairwise.png)" in report
    assert (two_methods / "figures" / "extraction_synthetic_pairwise.png").is_file()
    # the bucket table: one column per bucket, the summary value of each
    buckets = pd.read_csv(two_methods / "buckets.csv")
    assert set(buckets["bucket"]) == {"low", "medium", "high"}
    assert "### By page complexity on synthetic" in report
    cell = buckets[
        (buckets["bucket"] == "high")
        & (buckets["method"] == "proposed")
        & (buckets["metric"] == "shingle_f1")
    ].iloc[0]
    line = next(
        x
        for x in report.splitlines()
        if x.startswith("| proposed |") and "[" in x and x.count("|") == 5
    )
    assert f"{cell['value']:.3f} [{cell['ci_low']:.3f}, {cell['ci_high']:.3f}]" in line
    assert (two_methods / "figures" / "extraction_synthetic_buckets_shingle_f1.png").is_file()
    per_page = pd.read_csv(two_methods / "per_page.csv")
    assert per_page["complexity"].between(0, 1).all()


def test_one_method_says_there_are_no_pairs(tmp_path):
    run = _run(tmp_path, "[html_text]")
    assert "One method (html_text): no pairs to compare." in (run / "report.md").read_text()
    pairs = pd.read_csv(run / "pairwise.csv")
    assert pairs.empty and "p_holm" in pairs.columns


def test_more_methods_than_the_pairwise_cap_are_not_compared_two_by_two(tmp_path, capsys):
    # issue 37 item 14: a glob of 200 stored tools made 19,900 pairs, each bootstrapped
    run = _run(tmp_path, "[html_text,fulltext,cetd]", "extraction.pairwise_max_methods=2")
    line = (
        "synthetic: 3 methods, 3 pairs, not compared two by two "
        "(extraction.pairwise_max_methods=2); the comparison with extraction.reference is in "
        "the summary"
    )
    assert line + "." in (run / "report.md").read_text()
    assert f"evalkit: {line}" in capsys.readouterr().err
    pairs = pd.read_csv(run / "pairwise.csv")
    assert pairs.empty and "p_holm" in pairs.columns
    assert not (run / "figures" / "extraction_synthetic_pairwise.png").exists()
    # the summary (and its buckets) are made as without the cap
    assert set(pd.read_csv(run / "summary.csv")["method"]) == {"html_text", "fulltext", "cetd"}
