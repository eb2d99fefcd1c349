"""Text overlap of one page's extraction with its gold: shingles, words, LCS, Kaur's counts.

Sources and where this code departs from them (definitions in docs/metrics.md,
"shingle", "word", "lcs" and "kaur"):

* Shingle P/R/F1 follows the ScrapingHub (Zyte) article-extraction-benchmark's
  ``evaluate.py`` (docs/metrics.md, "shingle"): ``\\w+`` tokens, case kept,
  4-gram shingle multisets (a text of fewer than four tokens is one shorter
  shingle), per-page P and R, P averaged over the
  pages with a non-empty prediction and R over the pages with a non-empty
  truth, F1 of the two averages. The benchmark's per-page function returns
  1 for "both empty" and 0 for "empty prediction", but those values never
  reach its averages (they are filtered out); here they are NaN instead, which
  gives the same averages and makes the skipping explicit. The benchmark's
  confidence interval is 1.96 bootstrap standard deviations with an unseeded
  generator; here intervals are seeded percentile intervals
  (:func:`~evalkit.metrics.inference.bootstrap_ci_pages`).
* The word-count confusion follows Kaur (2017, dissertation, §4.1,
  Tables 4-1..4-4): TP, FP, TN, FN counted in words, precision
  ``TP/(TP+FP)``, recall ``TP/(TP+FN)``, F1 their harmonic mean, accuracy
  ``(TP+TN)/(TP+TN+FP+FN)``. The dissertation does not say how words are
  matched; here they are matched as multisets (a word counts as often as it
  occurs), and TN are the page's words that are neither gold nor predicted.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain, repeat

import numpy as np
from rapidfuzz.distance import Levenshtein

from evalkit.core.text import has_cjk, words
from evalkit.metrics.aeb_exact import TOKEN as _AEB_TOKEN
from evalkit.metrics.families import BY_NAME, KNOWN_TEXT_FAMILIES, TEXT_FAMILIES
from evalkit.metrics.lcs import lcs_length, lcs_length_ids
from evalkit.metrics.rouge import ROUGE_N, LsumText, lsum_hits, lsum_text, ngram_counts
from evalkit.metrics.scores import (
    PRF,
    Confusion,
    confusion_scores,
    mean_defined,
    mean_defined_rows,
    prf_from_counts,
)

SHINGLE_N = 4  # the benchmark's shingle length

# \w+ runs; re.IGNORECASE in the benchmark does not change what \w matches

Tokens = str | Sequence[str]


def _multiset_counts(pred: Counter, gold: Counter) -> tuple[int, int, int]:
    tp = _common(pred, gold)
    return tp, pred.total() - tp, gold.total() - tp


def _tokens(text: Tokens) -> list[str]:
    # a string is split on white space (evalkit.core.text.words); a sequence is taken as tokens
    return words(text) if isinstance(text, str) else list(text)


# ---------------------------------------------------------------- shingles (AEB)


def aeb_tokens(text: str | None) -> list[str]:
    """The benchmark's tokens: ``\\w+`` runs, case kept; ``None`` counts as empty."""
    return _AEB_TOKEN.findall(text or "")


# the memo is emptied when it grows past this many tokens (a few MB per process at most)
_AEB_MEMO_MAX = 50_000


class _AebMemo(dict):
    """White-space token -> its ``\\w+`` runs, each distinct token worked out once per
    process: a page's outputs repeat the same words, and a looked-up token costs one dict
    probe in C where the regular expression walks every character."""

    def __missing__(self, tok: str) -> tuple[str, ...]:
        if len(self) > _AEB_MEMO_MAX:
            self.clear()
        v = self[tok] = tuple(_AEB_TOKEN.findall(tok))
        return v


_aeb_of_token = _AebMemo().__getitem__


def _aeb_of_split(split: list[str]) -> list[str]:
    # aeb_tokens of a text from its white-space tokens: a \w+ run never holds white space
    # (no character is both), so the text's runs are its tokens' runs, in order
    return list(chain.from_iterable(map(_aeb_of_token, split)))


def shingle_counts(pred: str | None, gold: str | None, n: int = SHINGLE_N) -> tuple[int, int, int]:
    """(tp, fp, fn) over the multisets of token n-gram shingles of two texts.

    tp = sum over shingles of min(pred count, gold count); fp and fn are the
    surplus counts of each side. A text with 1..n-1 tokens is a single
    shorter shingle; a text without tokens has none.
    """
    if n < 1:
        raise ValueError(f"shingle length n must be >= 1, got {n}")
    return _multiset_counts(
        _shingle_multiset(aeb_tokens(pred), n), _shingle_multiset(aeb_tokens(gold), n)
    )


def _shingle_multiset(tokens: list[str], n: int) -> Counter:
    # same multiset as evalkit.core.text.shingles, built with zip because it is about twice as fast
    if len(tokens) < n:
        return Counter([tuple(tokens)]) if tokens else Counter()
    return Counter(zip(*(tokens[i:] for i in range(n))))


def shingle_prf(pred: str | None, gold: str | None, n: int = SHINGLE_N) -> PRF:
    """Per-page shingle precision, recall and F1 (the benchmark's per-page step).

    Precision is NaN when the prediction has no tokens, recall is NaN when the
    gold has none; the benchmark leaves exactly those pages out of its
    averages. Average pages with :func:`aggregate_prf`.
    """
    return prf_from_counts(*shingle_counts(pred, gold, n))


def aggregate_prf(precisions: Iterable[float], recalls: Iterable[float]) -> dict[str, float]:
    """The benchmark's page aggregate: mean precision over pages where it is
    defined, mean recall likewise, and f1 = 2PR/(P+R) of the two means.

    f1 is 0 when both means are 0 and NaN when either mean is undefined
    (no page has it).
    """
    p = mean_defined(precisions)
    r = mean_defined(recalls)
    if math.isnan(p) or math.isnan(r):
        f1 = math.nan
    else:
        f1 = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return {"precision": p, "recall": r, "f1": f1}


def aggregate_prf_rows(precisions: np.ndarray, recalls: np.ndarray) -> np.ndarray:
    """:func:`aggregate_prf` of each row of two (k, n) arrays (pages resampled k times), bit
    for bit: a (k, 3) array of precision, recall and f1 (:class:`BootstrapBatch` intervals
    of the benchmark's aggregate, one call per block of resamples)."""
    p, r = mean_defined_rows(precisions), mean_defined_rows(recalls)
    with np.errstate(divide="ignore", invalid="ignore"):
        f1 = np.where(p + r > 0, 2 * p * r / (p + r), 0.0)
    f1[np.isnan(p) | np.isnan(r)] = math.nan
    return np.column_stack([p, r, f1])


# ---------------------------------------------------------------- words and LCS


def word_counts(pred: Tokens, gold: Tokens) -> tuple[int, int, int]:
    """(tp, fp, fn) of the word multisets (bag of words, case kept).

    Strings are split on white space; pass token lists to tokenise otherwise.
    """
    return _multiset_counts(Counter(_tokens(pred)), Counter(_tokens(gold)))


def word_prf(pred: Tokens, gold: Tokens) -> PRF:
    """Bag-of-words precision, recall, F1 of one page (empty rules of :func:`prf_from_counts`)."""
    return prf_from_counts(*word_counts(pred, gold))


def edit_similarity(pred: Tokens, gold: Tokens) -> float:
    """Normalised edit similarity of two word sequences: 1 - d / max(len(pred), len(gold)),
    d the Levenshtein distance counted in words (insertions, deletions and substitutions of
    one word cost 1; rapidfuzz, compiled); 1 when both are empty, 0 when one is.

    WebMainBench's normalisation (it counts characters; words here: docs/metrics.md#edit).
    """
    p_tok, g_tok = _tokens(pred), _tokens(gold)
    ids: dict[str, int] = {}
    g_ids = [ids.setdefault(w, len(ids)) for w in g_tok]
    return _edit_similarity(list(map(ids.get, p_tok, repeat(-1))), g_ids)


def _edit_similarity(p_ids: list[int], g_ids: list[int]) -> float:
    # words are numbered (equal words, equal ints): rapidfuzz compares other objects by hash
    return float(Levenshtein.normalized_similarity(p_ids, g_ids))


def lcs_prf(pred: Tokens, gold: Tokens) -> PRF:
    """Longest-common-word-subsequence precision, recall, F1 of one page.

    tp = LCS length of the two token sequences (order matters, case kept),
    fp = len(pred) - tp, fn = len(gold) - tp; empty rules of :func:`prf_from_counts`.
    """
    p_tok, g_tok = _tokens(pred), _tokens(gold)
    tp = lcs_length(p_tok, g_tok)
    return prf_from_counts(tp, len(p_tok) - tp, len(g_tok) - tp)


# ---------------------------------------------------------------- Kaur 2017 word counts


def word_confusion(pred: Tokens, gold: Tokens, all_words: Tokens) -> Confusion:
    """Kaur (2017) word-count confusion of one page, in words.

    With A, G, P the word multisets of the whole visible page, the gold text
    and the prediction: TP = |P ∩ G| (gold words extracted), FP = |P − G|
    (extracted words that are not gold), FN = |G − P| (gold words missed),
    TN = |A − (G ∪ P)| (page words that are noise and were left out), where ∩
    and ∪ take the minimum and maximum count per word. When A contains G and
    P, TP + FP + FN + TN = |A|. Score with :func:`confusion_scores`.
    """
    p, g, a = Counter(_tokens(pred)), Counter(_tokens(gold)), Counter(_tokens(all_words))
    tp, fp, fn = _multiset_counts(p, g)
    tn = sum((a - (p | g)).values())
    return Confusion(tp, fp, fn, tn)


# ---------------------------------------------------------------- one page, gold once


@dataclass(frozen=True)
class GoldText:
    """The gold side of every text metric of one page, computed once and shared by every
    method scored on the page (:func:`prepare_gold`); :func:`text_metrics` takes it.

    ``vocab`` numbers the distinct gold words, so the LCS runs on integers (a
    prediction's word outside it can match nothing and becomes -1): exact, where
    hashing the strings could collide. ``rest`` is the page's surplus over the gold,
    ``A - G`` (word -> count > 0), with its size ``n_rest``: Kaur's TN is
    ``|A - (P ∪ G)| = |A - G| - |min(A - G, P - G)|`` per word, so a prediction only
    walks its own distinct words.
    """

    n: int
    words: list[str]
    word_counts: Counter
    vocab: dict[str, int]
    word_ids: list[int]
    shingles: Counter
    rest: dict[str, int] | None
    n_rest: int
    #: the families :func:`text_metrics` computes against this gold
    families: tuple[str, ...] = TEXT_FAMILIES
    rouge_n: int = ROUGE_N
    ngrams: tuple | None = None  # the gold's word n-grams (rouge_n): :func:`_ngram_table`
    lsum: LsumText | None = None  # the gold's sentences (rouge_lsum)
    #: the gold's shingle tokens numbered, and its shingles as a :func:`_ngram_table` of
    #: them: None when the gold has fewer than ``n`` tokens (its one shingle is shorter)
    aeb_vocab: dict[str, int] | None = None
    shingle_table: tuple | None = None
    #: the state each family added later prepared from the gold (evalkit.metrics.families)
    plugged: dict = field(default_factory=dict)


def prepare_gold(
    gold: str | None,
    all_words: Tokens | None = None,
    n: int = SHINGLE_N,
    rouge_n: int = ROUGE_N,
    families: Iterable[str] = TEXT_FAMILIES,
) -> GoldText:
    """:class:`GoldText` of one page: gold words, their counts and ids, the gold's
    shingle multiset and, when ``all_words`` (the visible page) is given, Kaur's surplus;
    its n-grams and sentences when ``families`` has ``rouge_n`` and ``rouge_lsum``."""
    if n < 1:
        raise ValueError(f"shingle length n must be >= 1, got {n}")
    families = check_families(families)
    g_words = _tokens(gold or "")
    counts = Counter(g_words)
    vocab = {w: i for i, w in enumerate(counts)}
    rest, n_rest = None, 0
    if all_words is not None and "kaur" in families:
        get = counts.get
        rest = {w: c - get(w, 0) for w, c in Counter(_tokens(all_words)).items() if c > get(w, 0)}
        n_rest = sum(rest.values())
    ngrams = None
    if "rouge_n" in families:
        if rouge_n < 1:
            raise ValueError(f"ROUGE-N needs n >= 1, got {rouge_n}")
        ngrams = _ngram_table([vocab[w] for w in g_words], rouge_n, len(vocab))
    lsum = lsum_text(gold, counts, g_words) if "rouge_lsum" in families else None
    g_aeb = aeb_tokens(gold)
    aeb_vocab = shingle_table = None
    if "shingle" in families and len(g_aeb) >= n:
        aeb_vocab = {w: i for i, w in enumerate(dict.fromkeys(g_aeb))}
        shingle_table = _ngram_table(list(map(aeb_vocab.__getitem__, g_aeb)), n, len(aeb_vocab))
    plugged = {
        name: BY_NAME[name].prepare(gold or "")
        for name in families
        if BY_NAME[name].prepare is not None
    }
    return GoldText(
        n,
        g_words,
        counts,
        vocab,
        [vocab[w] for w in g_words],
        _shingle_multiset(g_aeb, n),
        rest,
        n_rest,
        families,
        rouge_n,
        ngrams,
        lsum,
        aeb_vocab,
        shingle_table,
        plugged,
    )


def _ngram_keys(ids: np.ndarray, n: int, base: int) -> np.ndarray:
    # each n-gram of word ids as one integer (its ids as base-`base` digits); n-grams with an
    # id of -1 (a word the gold lacks: it matches no gold n-gram) are left out
    m = len(ids) - n + 1
    if m <= 0:
        return np.zeros(0, np.int64)
    keys = np.zeros(m, np.int64)
    ok = np.ones(m, bool)
    for i in range(n):
        part = ids[i : i + m]
        keys = keys * base + part
        ok &= part >= 0
    return keys[ok]


def _ngram_table(g_ids: list[int], n: int, vocab: int) -> tuple:
    """The gold's n-grams as (n, base, sorted distinct keys, their counts, n-gram total);
    base 0 when the keys would not fit in 63 bits (then n-gram tuples are counted)."""
    base = vocab + 1
    total = max(len(g_ids) - n + 1, 0)
    if base**n >= 2**62:
        return (n, 0, ngram_counts(g_ids, n), None, total)
    keys, counts = np.unique(_ngram_keys(np.array(g_ids, np.int64), n, base), return_counts=True)
    return (n, base, keys, counts, total)


def _ngram_overlap(p_ids: list[int], table: tuple) -> tuple[int, int, int]:
    """(common n-grams, extraction n-grams, gold n-grams) of the extraction's word ids
    against the gold's :func:`_ngram_table` (ROUGE-N, shingles): the n-gram multisets
    intersected as sorted integer keys (numpy) instead of tuples."""
    n, base, g_keys, g_counts, g_total = table
    p_total = max(len(p_ids) - n + 1, 0)
    if base == 0:
        return _common(ngram_counts(p_ids, n), g_keys), p_total, g_total
    if not len(g_keys) or not p_total:
        return 0, p_total, g_total
    keys = _ngram_keys(np.array(p_ids, np.int64), n, base)
    keys.sort()
    # each gold n-gram's count in the extraction: the width of its run among the sorted keys
    counts = np.searchsorted(keys, g_keys, "right") - np.searchsorted(keys, g_keys, "left")
    return int(np.minimum(counts, g_counts).sum()), p_total, g_total


def check_families(families: Iterable[str]) -> tuple[str, ...]:
    """``families`` as a tuple in :data:`TEXT_FAMILIES` order; an unknown name raises,
    listing the known ones."""
    families = tuple(families)
    unknown = sorted(set(families) - set(KNOWN_TEXT_FAMILIES))
    if unknown:
        raise ValueError(
            f"unknown text metric {', '.join(unknown)}; known: {', '.join(KNOWN_TEXT_FAMILIES)}"
        )
    return tuple(f for f in KNOWN_TEXT_FAMILIES if f in families)


def _common(pred: Counter, gold: Counter) -> int:
    # sum over pred's words of min(pred count, gold count): |P ∩ G|, walked in C
    return sum(map(min, pred.values(), map(gold.get, pred, repeat(0))))


def text_metrics(
    pred: str | None, gold: GoldText, split: list[str] | None = None
) -> dict[str, float]:
    """:func:`page_text_metrics` of a prediction against a prepared gold (same keys, values),
    for the families the gold was prepared for (``gold.families``). ``split``:
    ``pred.split()``, when the caller has it already."""
    pred = pred or ""
    if split is None:
        split = pred.split()
    out: dict[str, float] = {}
    fams = gold.families
    scores: list[tuple[str, PRF]] = []
    if "shingle" in fams:
        p_aeb = _aeb_of_split(split)
        if gold.shingle_table is not None and len(p_aeb) >= gold.n:
            # both texts have full-length shingles only: the same multisets as numbered
            # n-grams, a token the gold lacks -1 (it matches no gold shingle)
            tp, n_pred, n_gold = _ngram_overlap(
                list(map(gold.aeb_vocab.get, p_aeb, repeat(-1))), gold.shingle_table
            )
        else:
            p_sh = _shingle_multiset(p_aeb, gold.n)
            tp, n_pred, n_gold = _common(p_sh, gold.shingles), p_sh.total(), gold.shingles.total()
        scores.append(("shingle", prf_from_counts(tp, n_pred - tp, n_gold - tp)))
    # evalkit.core.text.words: the white-space split unless the text has a CJK character
    p_words = words(pred) if has_cjk(pred) else split
    p_counts = Counter(p_words)
    tp = _common(p_counts, gold.word_counts)
    fp, fn = len(p_words) - tp, len(gold.words) - tp
    if "word" in fams:
        scores.append(("word", prf_from_counts(tp, fp, fn)))
    p_ids = None
    if "lcs" in fams or "edit" in fams:
        p_ids = list(map(gold.vocab.get, p_words, repeat(-1)))
    if "lcs" in fams:
        lcs = lcs_length_ids(p_ids, gold.word_ids)
        scores.append(("lcs", prf_from_counts(lcs, len(p_words) - lcs, len(gold.words) - lcs)))
    for name, prf in scores:
        out.update({f"{name}_{k}": v for k, v in prf._asdict().items()})
    if gold.rest is not None:
        rest, g_get = gold.rest, gold.word_counts.get
        # per word, min(A - G, P - G): the surplus words the prediction took
        taken = 0
        for w, c in p_counts.items():
            r = rest.get(w)
            if r is not None:
                extra = c - g_get(w, 0)
                if extra > 0:
                    taken += min(r, extra)
        conf = Confusion(tp, fp, fn, gold.n_rest - taken)
        out.update({f"kaur_{k}": float(v) for k, v in conf._asdict().items()})
        out.update({f"kaur_{k}": v for k, v in confusion_scores(*conf).items()})
    # the field's metrics come after the older ones, so older columns keep their places
    scores = []
    if "rouge_lsum" in fams:
        hits = lsum_hits(lsum_text(pred, p_counts, p_words), gold.lsum)
        scores.append(
            ("rouge_lsum", prf_from_counts(hits, len(p_words) - hits, len(gold.words) - hits))
        )
    if "rouge_n" in fams:
        if p_ids is None:
            p_ids = list(map(gold.vocab.get, p_words, repeat(-1)))
        ntp, n_pred, n_gold = _ngram_overlap(p_ids, gold.ngrams)
        scores.append((f"rouge{gold.rouge_n}", prf_from_counts(ntp, n_pred - ntp, n_gold - ntp)))
    for name, prf in scores:
        out.update({f"{name}_{k}": v for k, v in prf._asdict().items()})
    if "edit" in fams:
        out["edit_similarity"] = _edit_similarity(p_ids, gold.word_ids)
    for name, state in gold.plugged.items():  # families added later, in table order
        out.update(BY_NAME[name].score(pred, state))
    return out


def page_text_metrics(
    pred: str | None,
    gold: str | None,
    all_words: Tokens | None = None,
    n: int = SHINGLE_N,
    rouge_n: int = ROUGE_N,
    families: Iterable[str] = TEXT_FAMILIES,
) -> dict[str, float]:
    """Every text metric of one page in one flat dict (a per-page record).

    Keys: ``shingle_{precision,recall,f1}``, ``word_{...}``, ``lcs_{...}``,
    ``rouge_lsum_{...}``, ``rouge<n>_{...}`` (``rouge2_f1``), ``edit_similarity`` and,
    when ``all_words`` (the visible page text) is given, ``kaur_{tp,fp,fn,tn,
    precision,recall,f1,accuracy}``; only those of ``families``. ``None`` texts count as
    empty. Scoring many predictions of one page: :func:`prepare_gold` once, then
    :func:`text_metrics`.
    """
    return text_metrics(pred, prepare_gold(gold, all_words, n, rouge_n, families))
