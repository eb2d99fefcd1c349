"""The ScrapingHub benchmark's exact-match accuracy: a page is right when the output's
tokens are the gold's, token for token.

Source: the ScrapingHub article-extraction-benchmark, ``evaluate.py`` (its ``get_accuracy``
and the ``accuracy`` column of its table and README). Per page: the ``\\w+`` runs of each text
(case kept: :data:`TOKEN`, the tokens of its shingle metric too)
compared as sequences, 1.0 when equal and 0.0 otherwise; a missing text has no tokens, so
two texts without tokens match. The data set's figure is the plain mean over all pages
(every page counts, failed extractions as empty). White space, punctuation and markup never
decide a match; one word more or less does.
"""

from __future__ import annotations

import re

__all__ = ["PREFIX", "TOKEN", "prepare", "score"]

#: the family's column prefix (evalkit.metrics.families)
PREFIX = "aeb_exact_"
#: the benchmark's token, for this metric and its shingles alike (evalkit.metrics.overlap)
TOKEN = re.compile(r"\w+", re.UNICODE)


def prepare(gold: str | None) -> tuple[str, ...]:
    """The gold's token sequence (the family's ``prepare``, once per page)."""
    return tuple(TOKEN.findall(gold or ""))


def score(text: str | None, gold: tuple[str, ...]) -> dict[str, float]:
    """``{"aeb_exact_accuracy": 1.0 or 0.0}`` of one page (the family's ``score``)."""
    return {f"{PREFIX}accuracy": float(tuple(TOKEN.findall(text or "")) == gold)}
