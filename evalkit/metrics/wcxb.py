"""WCXB's page metric: lower-cased ``\\w+`` bag-of-words P/R/F1 and the snippet shares.

Foley (2026), the Web Content eXtraction Benchmark (GitHub
``Murrough-Foley/web-content-extraction-benchmark``, its ``evaluate.py``). Per page:

* **Tokens**: the runs of ``\\w+`` (Python's Unicode word characters) of the lower-cased text.
* **Bag of words**: overlap = Σ over tokens of min(count in the output, count in the gold);
  precision = overlap / output tokens, recall = overlap / gold tokens, F1 their harmonic mean
  (0 when both are 0).
* **Empty cases, as the benchmark scores them** (they differ from evalkit's shared rule,
  :func:`evalkit.metrics.scores.prf_from_counts`, on purpose: the headline is a mean over
  every page): a gold without tokens scores 1/1/1 for an output without tokens and 0/0/0
  otherwise; an output without tokens against a gold with tokens scores 0/0/0. No value is
  ever NaN, so the benchmark's mean over pages is the plain mean.
* **Snippet shares**: ``with`` (3-8 word phrases a right extraction contains) and ``without``
  (boilerplate phrases it must not contain) are looked up lower-cased, as substrings of the
  lower-cased output; the share is found / listed, and **1 when the list is empty** (the
  benchmark's rule, for ``without`` too, where 1 is the worst value).

The data set's headline is the mean of the per-page values over all pages (F1, P and R each
averaged on its own), and per page type the same mean over that type's pages.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

__all__ = ["PREFIX", "WcxbGold", "bag", "prepare", "score", "snippet_share", "tokens"]

#: the family's column prefix (evalkit.metrics.families)
PREFIX = "wcxb_"
_WORD = re.compile(r"\w+")


def tokens(text: str | None) -> list[str]:
    """The benchmark's tokens: ``\\w+`` runs of the lower-cased text."""
    return _WORD.findall(text.lower()) if text else []


class WcxbGold(NamedTuple):
    """The gold side, prepared once per page: its token counts and their total."""

    counts: Counter
    n: int


def prepare(gold: str | None) -> WcxbGold:
    """The gold's token multiset (the family's ``prepare``)."""
    toks = tokens(gold)
    return WcxbGold(Counter(toks), len(toks))


def bag(pred: str | None, gold: WcxbGold) -> tuple[float, float, float]:
    """(precision, recall, F1) of one page under the benchmark's rules (module docstring)."""
    toks = tokens(pred)
    if gold.n == 0:
        return (1.0, 1.0, 1.0) if not toks else (0.0, 0.0, 0.0)
    if not toks:
        return (0.0, 0.0, 0.0)
    counts = Counter(toks)
    overlap = sum(min(c, gold.counts.get(w, 0)) for w, c in counts.items())
    p, r = overlap / len(toks), overlap / gold.n
    return p, r, (2 * p * r / (p + r) if p + r > 0 else 0.0)


def score(pred: str | None, gold: WcxbGold) -> dict[str, float]:
    """The family's columns: ``wcxb_precision``, ``wcxb_recall``, ``wcxb_f1``."""
    p, r, f = bag(pred, gold)
    return {f"{PREFIX}precision": p, f"{PREFIX}recall": r, f"{PREFIX}f1": f}


def snippet_share(pred: str | None, snippets: Sequence[str] | None) -> float:
    """Share of ``snippets`` found, lower-cased, in the lower-cased output; 1 for none."""
    if not snippets:
        return 1.0
    low = (pred or "").lower()
    return sum(1 for s in snippets if s.lower() in low) / len(snippets)
