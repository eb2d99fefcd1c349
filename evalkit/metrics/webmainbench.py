"""WebMainBench's text metrics: ROUGE-N with N = 5 on jieba tokens, and character edit similarity.

WebMainBench (OpenDataLab, 2025; GitHub ``opendatalab/WebMainBench``,
``webmainbench/metrics/text_metrics.py``) scores an extraction, converted to Markdown, against
its gold Markdown. Its headline is ROUGE-N with ``ngram = 5``:

* **Tokens**: ``jieba.lcut`` of each whole text (jieba's default accurate mode with HMM; on
  Latin text jieba keeps words and emits spaces and punctuation as tokens of their own).
* **ROUGE-5**: the 5-gram multisets (``rouge-score``'s ``_create_ngrams``), overlap = Σ min
  of the two counts; precision = overlap / max(output 5-grams, 1), recall = overlap /
  max(gold 5-grams, 1), F1 = 2PR / (P + R), 0 when both are 0. Both texts blank after
  ``strip()``: 1/1/1. One blank: its 5-grams are none, so 0/0/0.
* **Edit similarity** (``EditDistanceMetric``): 1 - Levenshtein distance of the two strings
  in characters / the longer string's length (``rapidfuzz.distance.Levenshtein``); both
  empty is an error there, NaN here (no page value). Not evalkit's ``edit`` family, which
  counts words.

jieba (MIT) is an optional dependency (extra ``bench``); the family raises one line naming
it when it is missing. The conversion to Markdown is the tool's or the data set's, not this
module's: it scores the texts it is given.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from typing import NamedTuple

__all__ = [
    "NGRAM",
    "PREFIX",
    "WmbGold",
    "char_edit_similarity",
    "jieba_tokens",
    "prepare",
    "rouge_n_jieba",
    "score",
]

#: the family's column prefix (evalkit.metrics.families)
PREFIX = "wmb_"
#: WebMainBench's default n of ROUGE-N (``TextRougeNgramMetric``, ``ngram``)
NGRAM = 5


@functools.cache
def _jieba():
    try:
        import jieba
    except ImportError as exc:
        raise ImportError(
            "the webmainbench metric needs the package 'jieba' (pip install 'evalkit[bench]')"
        ) from exc
    jieba.setLogLevel(60)  # its "Building prefix dict" lines are not ours to print
    return jieba


def jieba_tokens(text: str) -> list[str]:
    """``jieba.lcut`` of the whole text."""
    return _jieba().lcut(text)


def _ngrams(tokens: list[str], n: int) -> Counter:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


class WmbGold(NamedTuple):
    """The gold side, prepared once per page: the text, blank or not, its 5-grams."""

    text: str
    blank: bool
    ngrams: Counter


def prepare(gold: str | None, n: int = NGRAM) -> WmbGold:
    """The gold's n-grams of jieba tokens (the family's ``prepare``)."""
    gold = gold or ""
    return WmbGold(gold, not gold.strip(), _ngrams(jieba_tokens(gold), n))


def rouge_n_jieba(pred: str | None, gold: WmbGold, n: int = NGRAM) -> tuple[float, float, float]:
    """(precision, recall, F1) of ROUGE-N on jieba tokens (module docstring)."""
    pred = pred or ""
    if gold.blank and not pred.strip():
        return 1.0, 1.0, 1.0
    p_ng = _ngrams(jieba_tokens(pred), n)
    overlap = sum(min(c, gold.ngrams.get(g, 0)) for g, c in p_ng.items())
    p = overlap / max(sum(p_ng.values()), 1)
    r = overlap / max(sum(gold.ngrams.values()), 1)
    return p, r, (2 * p * r / (p + r) if p + r > 0 else 0.0)


def char_edit_similarity(pred: str | None, gold: str | None) -> float:
    """1 - character Levenshtein distance / longer length; NaN when both are empty."""
    from rapidfuzz.distance import Levenshtein

    pred, gold = pred or "", gold or ""
    longest = max(len(pred), len(gold))
    if longest == 0:
        return math.nan
    return 1.0 - Levenshtein.distance(pred, gold) / longest


def score(pred: str | None, gold: WmbGold) -> dict[str, float]:
    """The family's columns: ``wmb_rouge5_{precision,recall,f1}`` and ``wmb_edit_similarity``."""
    p, r, f = rouge_n_jieba(pred, gold)
    return {
        f"{PREFIX}rouge5_precision": p,
        f"{PREFIX}rouge5_recall": r,
        f"{PREFIX}rouge5_f1": f,
        f"{PREFIX}edit_similarity": char_edit_similarity(pred, gold.text),
    }
