"""Per-page scoring of one extraction: every metric family of docs/metrics.md in one record.

Runs inside worker processes; all arithmetic lives in :mod:`evalkit.metrics`,
this module only gathers the inputs (gold text, gold units, the page's
visible words) and names the columns of ``per_page.csv``.
"""

from __future__ import annotations

from typing import Any

from evalkit import metrics
from evalkit.page import Extraction, Page, PageError

__all__ = ["page_all_words", "score_extraction"]


def page_all_words(page: Page) -> list[str]:
    """Words of the page's visible text (the Kaur 2017 confusion needs them); cached per page."""
    cached = page.gold.visible_words
    if cached is None:
        from evalkit.visible import visible_text

        try:
            cached = visible_text(page.tree()).split()
        except PageError:
            cached = []
        page.gold.visible_words = cached
    return cached


def _unit_counts(page: Page, text: str, min_share: float) -> dict[str, float]:
    from evalkit.align import gold_units, project

    try:
        units = gold_units(page)
    except PageError:
        units = []
    if not units or all(u.label is None for u in units):
        return {}
    kept = project(page, text, min_share=min_share)
    conf = metrics.unit_confusion([u.is_content for u in units], kept, [u.n_words for u in units])
    return {k: float(v) for k, v in conf._asdict().items()}


def score_extraction(page: Page, method: str, ext: Extraction, *, shingle_n: int = 4,
                     unit_min_share: float = 0.5) -> dict[str, Any]:
    """One ``per_page.csv`` record for (page, method)."""
    rec: dict[str, Any] = {
        "dataset": page.dataset, "page_id": page.id, "site": page.site,
        "category": page.category, "method": method, "error": ext.error,
        "seconds": ext.seconds, "n_bytes": len(page.raw),
        "n_words_gold": len(page.gold.text.split()), "n_words_out": len(ext.text.split()),
    }
    if ext.error is None:
        rec.update(metrics.page_text_metrics(ext.text, page.gold.text, page_all_words(page),
                                             n=shingle_n))
        for key, v in _unit_counts(page, ext.text, unit_min_share).items():
            rec[f"unit_{key}"] = v
    for key, v in ext.info.items():
        if isinstance(v, (int, float, bool)) or v is None:
            rec[f"info_{key}"] = v
    return rec
