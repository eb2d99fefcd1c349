"""The ScrapingHub benchmark's exact-match accuracy: a page is right when the output's
tokens are the gold's, token for token.

Source: the ScrapingHub article-extraction-benchmark, ``evaluate.py`` (its ``get_accuracy``
and the ``accuracy`` column of its table and README). Per page: the ``\\w+`` runs of each text
(case kept, the tokens of its shingle metric, :func:`evalkit.metrics.overlap.aeb_tokens`)
compared as sequences, 1.0 when equal and 0.0 otherwise; a missing text has no tokens, so
two texts without tokens match. The data set's figure is the plain mean over all pages
(every page counts, failed extractions as empty). White space, punctuation and markup never
decide a match; one word more or less does.
"""

from __future__ import annotations

__all__ = ["PREFIX", "prepare", "score"]

#: the family's column prefix (evalkit.metrics.families)
PREFIX = "aeb_exact_"


def prepare(gold: str | None) -> tuple[str, ...]:
    """The gold's token sequence (the family's ``prepare``, once per page)."""
    from evalkit.metrics.overlap import aeb_tokens  # overlap reads the family table

    return tuple(aeb_tokens(gold))


def score(text: str | None, gold: tuple[str, ...]) -> dict[str, float]:
    """``{"aeb_exact_accuracy": 1.0 or 0.0}`` of one page (the family's ``score``)."""
    from evalkit.metrics.overlap import aeb_tokens

    return {f"{PREFIX}accuracy": float(tuple(aeb_tokens(text)) == gold)}
