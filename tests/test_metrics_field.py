"""The field's metrics (issue 18): ROUGE-LSum, ROUGE-N, token F1, edit similarity; CJK tokens;
choosing metrics per run. Every expected value is worked by hand in the comments."""

from __future__ import annotations

import math
from collections import Counter
from itertools import chain

import pandas as pd
import pytest
from fuzz import scaled  # beside the tests
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Indel

from evalkit import metrics as M
from evalkit.core.page import Extraction, Gold, Page
from evalkit.core.text import CJK, words
from evalkit.experiments import extraction as X
from evalkit.harness import scoring
from evalkit.metrics.rouge import lsum_text

nan = math.nan


def _isnan(x) -> bool:
    return isinstance(x, float) and math.isnan(x)


# ---------------------------------------------------------------- the definition, written out


def _table(ref, can):
    # L[i][j] = LCS length of ref[:i] and can[:j]
    t = [[0] * (len(can) + 1) for _ in range(len(ref) + 1)]
    for i in range(1, len(ref) + 1):
        for j in range(1, len(can) + 1):
            t[i][j] = (
                t[i - 1][j - 1] + 1 if ref[i - 1] == can[j - 1] else max(t[i - 1][j], t[i][j - 1])
            )
    return t


def _traced(ref, can):
    # rouge-score's traceback, from the end: a match is taken; else the candidate's token is
    # dropped only when that keeps strictly more LCS than dropping the reference's
    t, i, j, out = _table(ref, can), len(ref), len(can), set()
    while i > 0 and j > 0:
        if ref[i - 1] == can[j - 1]:
            out.add(i - 1)
            i, j = i - 1, j - 1
        elif t[i][j - 1] > t[i - 1][j]:
            j -= 1
        else:
            i -= 1
    return out


def _lsum_hits_by_definition(gold_sents, pred_sents):
    left_g = Counter(t for s in gold_sents for t in s)
    left_p = Counter(t for s in pred_sents for t in s)
    hits = 0
    for r in gold_sents:
        for i in sorted(set().union(*(_traced(r, c) for c in pred_sents))):
            if left_p[r[i]] > 0 and left_g[r[i]] > 0:
                hits += 1
                left_p[r[i]] -= 1
                left_g[r[i]] -= 1
    return hits


_sents = st.lists(st.lists(st.sampled_from("abcd"), max_size=9), max_size=5)


@settings(max_examples=scaled(400), deadline=None)
@given(_sents, _sents)
def test_rouge_lsum_union_equals_the_table_and_traceback_definition(gold, pred):
    tp, fp, fn = M.rouge_lsum_counts(pred, gold)
    assert tp == _lsum_hits_by_definition(gold, pred)
    assert (tp + fp, tp + fn) == (sum(map(len, pred)), sum(map(len, gold)))


@settings(max_examples=scaled(60), deadline=None)
@given(
    st.lists(st.lists(st.sampled_from("abcdefg"), min_size=30, max_size=80), max_size=3),
    st.lists(st.lists(st.sampled_from("abcdefg"), min_size=30, max_size=80), max_size=3),
)
def test_rouge_lsum_long_sentences_equal_the_definition(gold, pred):
    # sentences wider than a few bits: the per-segment search runs several doubling steps
    assert M.rouge_lsum_counts(pred, gold)[0] == _lsum_hits_by_definition(gold, pred)


# ---------------------------------------------------------------- ROUGE-LSum by hand


def test_rouge_lsum_by_hand_union_over_two_sentences():
    gold = "the cat sat on the mat."
    pred = "on the mat. the cat sat on it."
    # gold: one sentence, the0 cat1 sat2 on3 the4 mat.5; pred: [on the mat.] [the cat sat on it.]
    # LCS with [on the mat.] = on3 the4 mat.5; with [the cat sat on it.] = the0 cat1 sat2 on3
    # union = all 6 positions; the pred has every token as often: hits 6
    # P = 6/8, R = 6/6, F1 = 2*6/(8+6) = 6/7
    assert M.sentence_tokens(pred) == [["on", "the", "mat."], ["the", "cat", "sat", "on", "it."]]
    assert M.rouge_lsum_counts(pred, gold) == (6, 2, 0)
    p, r, f = M.rouge_lsum_prf(pred, gold)
    assert (p, r, f) == pytest.approx((6 / 8, 1.0, 6 / 7))
    # the plain LCS of the whole texts is only "the cat sat on": 4 of 6
    assert M.lcs_prf(pred, gold).recall == pytest.approx(4 / 6)


def test_rouge_lsum_takes_rouge_scores_lcs_when_several_exist():
    # gold sentence x0 y1 x2; pred sentences [x] and [y x]. rouge-score's traceback meets the
    # match x2 first (from the end), so [x] gives {2}; [y x] gives {1, 2}: union {1, 2} ->
    # hits 2 (taking x0 for [x] would give 3). P = 2/3, R = 2/3
    assert M.rouge_lsum_counts([["x"], ["y", "x"]], [["x", "y", "x"]]) == (2, 1, 1)


def test_rouge_lsum_counts_a_token_while_both_texts_have_a_copy():
    # gold sentences [a b] [a b]; pred [a b]: each gold sentence's union is a, b (4 tokens),
    # but the pred has one a and one b: hits 2, P = 2/2, R = 2/4
    assert M.rouge_lsum_counts([["a", "b"]], [["a", "b"], ["a", "b"]]) == (2, 0, 2)


def test_sentences_end_after_stops_not_at_line_breaks():
    text = 'He said "Go." Then left!\nHome page\nNews? Yes。然后'
    assert M.sentences(text) == [
        'He said "Go."',
        " Then left!",
        "\nHome page\nNews?",
        " Yes。",
        "然后",
    ]
    # the sentences' tokens are the text's words
    assert list(chain.from_iterable(M.sentence_tokens(text))) == words(text)
    assert M.sentences("") == [] and M.sentences(None) == [] and M.sentences(" \n") == []


@given(st.text(alphabet=st.sampled_from("ab .!?\n\"')東。"), max_size=40))
def test_sentence_tokens_are_the_words(text):
    assert list(chain.from_iterable(M.sentence_tokens(text))) == words(text)
    # the sentences ROUGE-LSum splits from the words already counted are the same
    assert lsum_text(text).sents == M.sentence_tokens(text)


def test_rouge_lsum_empty_sides():
    # empty extraction: P undefined, R 0, F1 0; empty gold: R undefined; both: F1 1
    assert M.rouge_lsum_counts("", "a b.") == (0, 0, 2)
    p, r, f = M.rouge_lsum_prf("", "a b.")
    assert _isnan(p) and (r, f) == (0.0, 0.0)
    p, r, f = M.rouge_lsum_prf("a b.", None)
    assert p == 0.0 and _isnan(r) and f == 0.0
    p, r, f = M.rouge_lsum_prf(" ", "")
    assert _isnan(p) and _isnan(r) and f == 1.0


# ---------------------------------------------------------------- ROUGE-N, token F1, edit


def test_rouge_2_by_hand():
    # pred bigrams: the-cat cat-sat sat-on on-the the-mat; gold: the-cat cat-lay lay-on
    # on-the the-mat; common: the-cat on-the the-mat = 3 of 5 each: P = R = F1 = 0.6
    assert M.rouge_n_counts("the cat sat on the mat", "the cat lay on the mat") == (3, 2, 2)
    assert tuple(
        M.rouge_n_prf("the cat sat on the mat", "the cat lay on the mat")
    ) == pytest.approx((0.6, 0.6, 0.6))
    # n = 3: the-cat-sat ... 4 trigrams each, common only on-the-mat: 1/4
    assert M.rouge_n_counts("the cat sat on the mat", "the cat lay on the mat", 3) == (1, 3, 3)


def test_rouge_n_short_and_empty_texts():
    # fewer than n tokens: no n-grams; both sides without any: F1 1, P and R undefined
    p, r, f = M.rouge_n_prf("a", "a", 2)
    assert _isnan(p) and _isnan(r) and f == 1.0
    p, r, f = M.rouge_n_prf("", "a b", 2)  # gold has one bigram, the extraction none
    assert _isnan(p) and (r, f) == (0.0, 0.0)
    with pytest.raises(ValueError, match="n >= 1"):
        M.rouge_n_counts("a", "a", 0)


def test_token_f1_is_rouge_1_and_the_word_metric():
    # Bevendorff et al.'s bag-of-words token F1 = ROUGE-1 F1 = the `word` family:
    # pred 6 tokens, gold 6, common the cat on the mat = 5: F1 = 10/12
    p, g = "the cat sat on the mat", "the cat lay on the mat"
    assert tuple(M.rouge_n_prf(p, g, 1)) == tuple(M.word_prf(p, g))
    assert M.word_prf(p, g).f1 == pytest.approx(10 / 12)


def test_edit_similarity_by_hand():
    # gold the cat lay on mat (5 words), pred the cat sat on the mat (6): sat -> lay and
    # one deleted "the": distance 2, similarity 1 - 2/max(6, 5) = 2/3
    assert M.edit_similarity("the cat sat on the mat", "the cat lay on mat") == pytest.approx(2 / 3)
    assert M.edit_similarity("", "") == 1.0
    assert M.edit_similarity("a", "") == 0.0 and M.edit_similarity(None or "", "a b") == 0.0
    # words, not characters: "cat" and "cut" are one substitution of one word
    assert M.edit_similarity("a cat", "a cut") == 0.5


def test_bevendorff_levenshtein_ratio_is_the_lcs_f1():
    # their "Levenshtein" score is Levenshtein.ratio on white-space tokens: the InDel
    # similarity 1 - (m + n - 2 LCS) / (m + n) = 2 LCS / (m + n), the lcs F1 of a page
    p, g = ["a", "b", "c", "d", "e"], ["a", "c", "b", "d", "f", "e"]
    assert Indel.normalized_similarity(p, g) == pytest.approx(M.lcs_prf(p, g).f1)


# ---------------------------------------------------------------- CJK


def test_words_split_han_kana_per_character_and_nothing_else():
    assert words("東京タワー is tall.") == ["東", "京", "タ", "ワ", "ー", "is", "tall."]
    # Hangul words are spaced already: kept whole
    assert words("한국어 문장") == ["한국어", "문장"]
    assert words("iPhone手机") == ["iPhone", "手", "机"]


@given(st.text(max_size=60).filter(lambda t: not CJK.search(t)))
def test_words_without_cjk_are_the_white_space_split(text):
    assert words(text) == text.split()


CJK_HTML = ("<html><body><nav>ホーム</nav><p>東京は大きい。</p></body></html>").encode()


def _cjk_page():
    return Page(id="jp", dataset="t", raw=CJK_HTML, gold=Gold(text="東京は大きい。"))


def test_a_cjk_page_by_hand():
    # gold 東 京 は 大 き い 。 (7 tokens), output 東 京 は 小 さ い 。 (7)
    rec = scoring.score_extraction(_cjk_page(), "m", Extraction(text="東京は小さい。"))
    # common tokens 東 京 は い 。 = 5 (bag and subsequence alike): 5/7
    for key in (
        "word_precision",
        "word_recall",
        "lcs_f1",
        "rouge_lsum_precision",
        "rouge_lsum_recall",
        "rouge_lsum_f1",
    ):
        assert rec[key] == pytest.approx(5 / 7), key
    # bigrams 東京 京は は大 大き きい い。 vs 東京 京は は小 小さ さい い。: 3 of 6 each
    assert rec["rouge2_f1"] == pytest.approx(0.5)
    # two substitutions (大 -> 小, き -> さ) in 7: 1 - 2/7
    assert rec["edit_similarity"] == pytest.approx(5 / 7)
    # the page's visible words: ホ ー ム + the gold's 7; Kaur's TN = the menu's 3
    assert rec["kaur_tn"] == 3.0
    # shingle keeps the benchmark's tokens (\w+ runs): one token each side, different
    assert rec["shingle_f1"] == 0.0


# ---------------------------------------------------------------- choosing metrics per run


def _html_page(pid, gold):
    return Page(
        id=pid,
        dataset="d",
        raw=f"<html><body><p>{gold}</p></body></html>".encode(),
        gold=Gold(text=gold),
    )


def test_extraction_metrics_chooses_the_families():
    page = _html_page("p", "the cat sat.")
    rec = scoring.score_extraction(
        page, "m", Extraction(text="the cat sat."), metrics=["rouge_lsum"]
    )
    # shingle always (the headline); nothing else than what was asked
    scores = {
        k
        for k in rec
        if k.split("_")[0] in ("shingle", "word", "lcs", "kaur", "unit", "rouge", "rouge2", "edit")
    }
    assert scores == {
        "shingle_precision",
        "shingle_recall",
        "shingle_f1",
        "rouge_lsum_precision",
        "rouge_lsum_recall",
        "rouge_lsum_f1",
    }
    rec = scoring.score_extraction(page, "m", Extraction(text="the cat sat."), rouge_n=1)
    assert rec["rouge1_f1"] == 1.0 and "rouge2_f1" not in rec
    with pytest.raises(ValueError, match="unknown metric rouge_l; known: shingle, word"):
        X.scorer_options({"metrics": ["rouge_l"]})
    assert X.scorer_options({"metrics": ["edit", "shingle"], "rouge_n": 3}) == {
        "shingle_n": 4,
        "unit_min_share": 0.5,
        "metrics": ["shingle", "edit"],
        "rouge_n": 3,
    }


def test_the_extraction_summary_has_the_field_rows():
    pages = [_html_page("p1", "the cat sat on the mat."), _html_page("p2", "a b c d.")]
    outs = {"p1": "the cat sat on the mat.", "p2": "a b x d."}
    frame = pd.DataFrame(
        [scoring.score_extraction(p, "m", Extraction(text=outs[p.id])) for p in pages]
    )
    s = X.summarize(frame, "d", {"n_boot": 50}, 0).set_index("metric")["value"]
    # p1 is exact (1 everywhere); p2: a b x d. vs a b c d.: 3 of 4 tokens in order,
    # bigrams a-b only of 3, one substitution in 4 words
    assert s["rouge_lsum_f1"] == pytest.approx((1 + 3 / 4) / 2)
    assert s["rouge_lsum_precision"] == pytest.approx((1 + 3 / 4) / 2)
    assert s["rouge2_recall"] == pytest.approx((1 + 1 / 3) / 2)
    assert s["edit_similarity"] == pytest.approx((1 + 3 / 4) / 2)
    order = [m for m in s.index if m.startswith(("rouge", "edit"))]
    assert order == [
        "rouge_lsum_precision",
        "rouge_lsum_recall",
        "rouge_lsum_f1",
        "rouge2_precision",
        "rouge2_recall",
        "rouge2_f1",
        "edit_similarity",
    ]
