"""Per-page scoring of one extraction: every metric family of docs/metrics.md in one record.

Runs inside worker processes; all arithmetic lives in :mod:`evalkit.metrics`,
this module only gathers the inputs (gold text, gold units, the page's
visible words) and names the columns of ``per_page.csv``.

What belongs to the page, not to a method (the gold's words, counts and
shingles, the gold units' numbered words, the visible words, and the one parse
they need) is prepared once per page in a :class:`PageScoring` and shared by
every method scored on it: the runner scores a page's methods one after the
other, so the scorer keeps the last page's context.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

from evalkit import metrics
from evalkit.page import Extraction, Page, PageError

__all__ = ["PageScoring", "page_all_words", "score_extraction", "scoring_context"]


def page_all_words(page: Page, tree=None) -> list[str]:
    """Words of the page's visible text (the Kaur 2017 confusion needs them); cached per page.

    ``tree``: the page already parsed (reading it changes nothing).
    """
    cached = page.gold.visible_words
    if cached is None:
        from evalkit.visible import visible_text

        try:
            cached = visible_text(page.tree() if tree is None else tree).split()
        except PageError:
            cached = []
        page.gold.visible_words = cached
    return cached


@dataclass(frozen=True)
class PageScoring:
    """The gold side of one page's scores, built once (:func:`scoring_context`).

    ``text``: the prepared gold text (:func:`evalkit.metrics.prepare_gold`);
    ``units``: the gold units' numbered words (:func:`evalkit.align.unit_words`), None
    when the page has no labelled units; ``unit_content`` and ``unit_weights`` their
    labels and word counts; ``n_words_gold`` the gold's whitespace words.
    """

    shingle_n: int
    text: metrics.GoldText
    units: Any  # evalkit.align.UnitWords, imported lazily with lxml
    unit_content: list[bool]
    unit_weights: list[int]
    n_words_gold: int


def scoring_context(page: Page, shingle_n: int = metrics.SHINGLE_N) -> PageScoring:
    """Everything the scores of ``page`` need from the page and its gold, computed once."""
    from evalkit.align import gold_unit_words

    gold = page.gold
    tree = None
    if gold.visible_words is None or (gold.units is None and gold.annotation is None):
        try:
            # one parse for the visible words and the units; plain lxml.etree elements
            # (neither reader needs lxml.html's) are cheaper to visit
            tree = page.tree(plain=True)
        except PageError:
            pass  # each user below meets the same error again and records it as before
    all_words = page_all_words(page, tree)
    try:
        units, words = gold_unit_words(page, tree=tree)
    except PageError:
        units, words = [], None
    labelled = bool(units) and any(u.label is not None for u in units)
    return PageScoring(
        shingle_n=shingle_n,
        text=metrics.prepare_gold(gold.text, all_words, shingle_n),
        units=words if labelled else None,
        unit_content=[u.is_content for u in units] if labelled else [],
        unit_weights=[u.n_words for u in units] if labelled else [],
        n_words_gold=len(gold.text.split()),
    )


# the last page scored and its context: a page's methods are scored one after the other
_last: tuple[weakref.ref, PageScoring] | None = None


def _context(page: Page, shingle_n: int) -> PageScoring:
    global _last
    last = _last  # one read: another thread may replace it
    if last is not None and last[0]() is page and last[1].shingle_n == shingle_n:
        return last[1]
    ctx = scoring_context(page, shingle_n)
    _last = (weakref.ref(page), ctx)
    return ctx


def _unit_counts(ctx: PageScoring, text: str, min_share: float) -> dict[str, float]:
    from evalkit.align import align_units

    if ctx.units is None:
        return {}
    kept = align_units(ctx.units, text, min_share=min_share)
    conf = metrics.unit_confusion(ctx.unit_content, kept, ctx.unit_weights)
    return {k: float(v) for k, v in conf._asdict().items()}


def score_extraction(page: Page, method: str, ext: Extraction, *, shingle_n: int = 4,
                     unit_min_share: float = 0.5,
                     context: PageScoring | None = None) -> dict[str, Any]:
    """One ``per_page.csv`` record for (page, method).

    ``context``: the page's :class:`PageScoring` (built here, once per page, when not given).
    """
    ctx = context if context is not None else _context(page, shingle_n)
    rec: dict[str, Any] = {
        "dataset": page.dataset, "page_id": page.id, "site": page.site,
        "category": page.category, "method": method, "error": ext.error,
        "seconds": ext.seconds, "n_bytes": len(page.raw),
        "n_words_gold": ctx.n_words_gold, "n_words_out": len(ext.text.split()),
    }
    if ext.error is None:
        rec.update(metrics.text_metrics(ext.text, ctx.text))
        for key, v in _unit_counts(ctx, ext.text, unit_min_share).items():
            rec[f"unit_{key}"] = v
    return _with_info(rec, ext)


def _with_info(rec: dict[str, Any], ext: Extraction) -> dict[str, Any]:
    for key, v in ext.info.items():
        if isinstance(v, (int, float, bool)) or v is None:
            rec[f"info_{key}"] = v
    return rec
