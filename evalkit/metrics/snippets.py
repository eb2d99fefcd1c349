"""trafilatura's evaluation metric: snippets that must or must not appear, micro-summed.

Barbaresi's trafilatura evaluation (GitHub ``adbar/trafilatura``, ``tests/evaldata.json``,
``tests/eval_common.py``; the table in ``docs/evaluation.rst``). Each document lists ``with``
segments (text of the main content) and ``without`` segments (boilerplate). Per document,
white space is normalised on both sides (every run of white space becomes one space, ends
stripped) and a segment counts as found when it is a substring of the output:

* a ``with`` segment found is a true positive, missed a false negative;
* a ``without`` segment found is a false positive, absent a true negative;
* a tool that raised (no output at all) finds nothing: every ``with`` segment a false
  negative, every ``without`` a true negative. An empty output is scored the same way by
  the substring rule.

The counts are **summed over all documents** (micro) before the scores:
precision = tp / (tp + fp), recall = tp / (tp + fn), accuracy = (tp + tn) / all,
F-score = 2tp / (2tp + fp + fn); each is 0 when its denominator is 0 (the benchmark's
rule, not evalkit's NaN).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

__all__ = ["PREFIX", "SnippetCounts", "count_snippets", "micro_scores", "normalize"]

#: per-page column prefix of the counts (``traf_tp`` ...)
PREFIX = "traf_"
_SPACE = re.compile(r"\s+")


def normalize(text: str) -> str:
    """Every run of white space one space, the ends stripped."""
    return _SPACE.sub(" ", text).strip()


class SnippetCounts(NamedTuple):
    """One document's (or a sum of documents') counts."""

    tp: int
    fp: int
    fn: int
    tn: int


def count_snippets(pred: str | None, with_: Sequence[str], without: Sequence[str]) -> SnippetCounts:
    """The counts of one document; ``pred`` None: the tool raised (nothing found)."""
    if pred is None:
        return SnippetCounts(0, 0, len(with_), len(without))
    text = normalize(pred)
    tp = sum(1 for s in with_ if normalize(s) in text)
    fp = sum(1 for s in without if normalize(s) in text)
    return SnippetCounts(tp, fp, len(with_) - tp, len(without) - fp)


def micro_scores(counts: Iterable[SnippetCounts]) -> dict[str, float]:
    """precision, recall, accuracy, f_score (and the summed counts) of many documents."""
    tp = fp = fn = tn = 0
    for c in counts:
        tp, fp, fn, tn = tp + c.tp, fp + c.fp, fn + c.fn, tn + c.tn
    total = tp + fp + fn + tn
    return {
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
        "precision": tp / (tp + fp) if tp + fp else 0.0,
        "recall": tp / (tp + fn) if tp + fn else 0.0,
        "accuracy": (tp + tn) / total if total else 0.0,
        "f_score": 2 * tp / (2 * tp + fp + fn) if 2 * tp + fp + fn else 0.0,
    }
