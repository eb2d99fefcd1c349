"""Per-page scoring of one extraction: every metric family of docs/metrics.md in one record.

Runs inside worker processes; all arithmetic lives in :mod:`evalkit.metrics`,
this module only gathers the inputs (gold text, gold units, the page's
visible words) and names the columns of ``per_page.csv``.

What belongs to the page, not to a method (the gold's words, counts and
shingles, the gold units' numbered words, the visible words, and the one parse
they need) is prepared once per page in a :class:`PageScoring` and shared by
every method scored on it: the runner scores a page's methods one after the
other, so the scorer keeps the last page's context. When the units are segmented
from the page, that one walk of the tree also gives the visible words.
"""

from __future__ import annotations

import functools
import math
import weakref
from dataclasses import dataclass, field
from typing import Any

from evalkit import metrics
from evalkit.core.page import Extraction, Page, PageError
from evalkit.core.text import words
from evalkit.harness.complexity import page_complexity
from evalkit.metrics import text_metrics  # score_extraction's `metrics` names the families
from evalkit.metrics.families import BY_NAME

__all__ = [
    "BASE_FAMILIES",
    "DEFAULT_FAMILIES",
    "FAMILIES",
    "GOLD_SIDES",
    "PageScoring",
    "apply_gold_side",
    "check_metrics",
    "gold_needs",
    "gold_side",
    "page_all_words",
    "page_context",
    "page_record",
    "prepare_gold_side",
    "score_extraction",
    "scoring_context",
    "unprepared",
]


def page_all_words(page: Page, tree=None) -> list[str]:
    """Words of the page's visible text (the Kaur 2017 confusion needs them); cached per page.

    ``tree``: the page already parsed (reading it changes nothing).
    """
    cached = page.gold.visible_words
    if cached is None:
        from evalkit.core.visible import visible_text

        try:
            # tokens as the text metrics count them (a CJK character is one)
            cached = words(visible_text(page.tree() if tree is None else tree))
        except PageError:
            cached = []
        page.gold.visible_words = cached
    return cached


#: every metric family a record can hold, in record order (evalkit.metrics.families)
FAMILIES = tuple(f.name for f in metrics.FAMILIES)
#: the families scored when ``metrics`` names none (the opt-in ones left out)
DEFAULT_FAMILIES = tuple(f.name for f in metrics.FAMILIES if not f.opt_in)
#: the families before the field's metrics (ROUGE, edit similarity) came: what the paper
#: studies score, so their records and costs stay as they were
BASE_FAMILIES = ("shingle", "word", "lcs", "kaur", "unit")


def check_metrics(names) -> tuple[str, ...]:
    """``extraction.metrics`` as a tuple of known families (:data:`FAMILIES`, in that order);
    ``shingle`` is always among them (the headline, pages correct and the paired tests
    read it). An unknown name raises one line listing the known ones."""
    names = tuple(names)
    unknown = [n for n in names if n not in FAMILIES]
    if unknown:
        raise ValueError(
            f"extraction.metrics: unknown metric {', '.join(unknown)}; known: {', '.join(FAMILIES)}"
        )
    return tuple(f for f in FAMILIES if f in names or f == "shingle")


@dataclass(frozen=True)
class PageScoring:
    """The gold side of one page's scores, built once (:func:`scoring_context`).

    ``text``: the prepared gold text (:func:`evalkit.metrics.prepare_gold`);
    ``units``: the gold units' numbered words (:func:`evalkit.core.align.unit_words`), None
    when the page has no labelled units; ``unit_content`` and ``unit_weights`` their
    labels and word counts; ``n_words_gold`` the gold's whitespace words; ``complexity``
    the share of the visible words that is not gold (:func:`evalkit.harness.complexity.page_complexity`).
    """

    shingle_n: int
    text: metrics.GoldText  # its ``families`` and ``rouge_n`` are the metrics chosen
    units: Any  # evalkit.core.align.UnitWords, imported lazily with lxml
    unit_content: list[bool]
    unit_weights: list[int]
    n_words_gold: int
    complexity: float = math.nan
    families: tuple[str, ...] = DEFAULT_FAMILIES
    #: the gold side of each family that reads whole records (structure, metadata)
    records: dict[str, Any] = field(default_factory=dict)


def prepare_gold_side(page: Page, unit: bool) -> tuple[list, Any]:
    """The part of a page's scoring that parses it: its visible words (``gold.visible_words``)
    and, with ``unit``, its gold units (``gold.units``); returns the units and their words.
    A page worker runs it under ``runner.page_timeout`` (:func:`gold_side`), so the parse is
    bounded as a method's is; what it finds stays on the gold, and a later call parses nothing."""
    from evalkit.core.align import gold_unit_words

    gold = page.gold
    tree = None
    if gold.visible_words is None or (unit and gold.units is None and gold.annotation is None):
        try:
            # one parse for the visible words and the units; plain lxml.etree elements
            # (neither reader needs lxml.html's) are cheaper to visit
            tree = page.tree(plain=True)
        except PageError:
            pass  # each user below meets the same error again and records it as before
    units, unit_words = [], None
    if unit:
        # segmenting the units walks the tree as the visible text does: one walk gives both
        pieces = [] if tree is not None and gold.visible_words is None else None
        try:
            units, unit_words = gold_unit_words(page, tree=tree, visible=pieces)
        except PageError:
            pass
        if pieces:
            # tokens as the text metrics count them (a CJK character is one)
            gold.visible_words = words("".join(pieces))
    page_all_words(page, tree)  # cached on the gold
    return units, unit_words


#: what :func:`gold_side` prepares: the visible words, or those and the gold units
GOLD_SIDES = ("words", "units")


def gold_side(page: Page, need: str) -> tuple[Any, ...]:
    """:func:`prepare_gold_side` in a page worker: ``(visible words, units, unit source)`` to
    set on the parent's copy of the page (:func:`apply_gold_side`)."""
    prepare_gold_side(page, need == "units")
    gold = page.gold
    return gold.visible_words, gold.units, gold.unit_source


def unprepared(page: Page, need: str) -> bool:
    """Whether scoring ``page`` would still parse something for ``need`` (:data:`GOLD_SIDES`):
    its visible words, or its gold units (from the page or from its annotated copy)."""
    gold = page.gold
    if gold is None:
        return False
    return gold.visible_words is None or (need == "units" and gold.units is None)


def apply_gold_side(page: Page, side: tuple[Any, ...]) -> None:
    """Set what :func:`gold_side` found on ``page``'s gold (what it could not make stays unset)."""
    words, units, source = side
    gold = page.gold
    if words is not None:
        gold.visible_words = words
    if units is not None and gold.units is None:
        gold.units, gold.unit_source = units, source


def gold_needs(score: Any) -> str | None:
    """What of a page's own side the scorer ``score`` parses for (:data:`GOLD_SIDES`), so a
    page worker can prepare it: :func:`score_extraction` (through ``functools.partial``) by its
    families, another scorer by its ``gold_side`` attribute; None: nothing is prepared."""
    kwargs: dict[str, Any] = {}
    while isinstance(score, functools.partial):
        kwargs = {**score.keywords, **kwargs}
        score = score.func
    if score is score_extraction:
        names = kwargs.get("metrics")
        families = DEFAULT_FAMILIES if names is None else check_metrics(names)
        return "units" if "unit" in families else "words"
    need = getattr(score, "gold_side", None)
    return need if need in GOLD_SIDES else None


def scoring_context(
    page: Page,
    shingle_n: int = metrics.SHINGLE_N,
    families: tuple[str, ...] = DEFAULT_FAMILIES,
    rouge_n: int = metrics.ROUGE_N,
) -> PageScoring:
    """Everything the scores of ``page`` need from the page and its gold, computed once,
    for the metric ``families`` chosen."""
    unit = "unit" in families
    units, unit_words = prepare_gold_side(page, unit)
    gold = page.gold
    # the visible words: Kaur's TN needs them (and what the page holds besides the gold)
    all_words = page_all_words(page)
    labelled = bool(units) and any(u.label is not None for u in units)
    n_words_gold = len(gold.text.split())
    text = metrics.prepare_gold(
        gold.text,
        all_words if "kaur" in families else None,
        shingle_n,
        rouge_n,
        [f for f in families if BY_NAME[f].text],
    )
    return PageScoring(
        shingle_n=shingle_n,
        text=text,
        units=unit_words if labelled else None,
        unit_content=[u.is_content for u in units] if labelled else [],
        unit_weights=[u.n_words for u in units] if labelled else [],
        n_words_gold=n_words_gold,
        # gold and visible words counted alike (a CJK character is one word on both sides):
        # the gold's tokens are the ones prepare_gold already made
        complexity=page_complexity(len(text.words), len(all_words)),
        families=families,
        records={f: BY_NAME[f].prepare(gold) for f in families if BY_NAME[f].reads == "record"},
    )


# the last page scored and its context: a page's methods are scored one after the other
_last: tuple[weakref.ref, PageScoring] | None = None


def _context(
    page: Page,
    shingle_n: int,
    families: tuple[str, ...] = DEFAULT_FAMILIES,
    rouge_n: int = metrics.ROUGE_N,
) -> PageScoring:
    global _last
    last = _last  # one read: another thread may replace it
    if (
        last is not None
        and last[0]() is page
        and last[1].shingle_n == shingle_n
        and last[1].families == families
        and last[1].text.rouge_n == rouge_n
    ):
        return last[1]
    ctx = scoring_context(page, shingle_n, families, rouge_n)
    _last = (weakref.ref(page), ctx)
    return ctx


def page_context(
    page: Page, metrics: tuple[str, ...] | list[str] | None = None, shingle_n: int = 4
) -> PageScoring:
    """The gold side of ``page`` for the families ``metrics`` (None: the default ones), the one
    :func:`score_extraction` uses: made once per page and shared by its methods' records."""
    families = DEFAULT_FAMILIES if metrics is None else check_metrics(metrics)
    return _context(page, shingle_n, families)


def _unit_counts(ctx: PageScoring, text: str, min_share: float) -> dict[str, float]:
    from evalkit.core.align import align_units

    if ctx.units is None:
        return {}
    kept = align_units(ctx.units, text, min_share=min_share)
    conf = metrics.unit_confusion(ctx.unit_content, kept, ctx.unit_weights)
    return {k: float(v) for k, v in conf._asdict().items()}


def page_record(page: Page, method: str, ext: Extraction) -> dict[str, Any]:
    """The columns every per-page record starts with: the page, the method, its error and
    seconds."""
    return {
        "dataset": page.dataset,
        "page_id": page.id,
        "site": page.site,
        "category": page.category,
        "method": method,
        "error": ext.error,
        "seconds": ext.seconds,
    }


def score_extraction(
    page: Page,
    method: str,
    ext: Extraction,
    *,
    shingle_n: int = 4,
    unit_min_share: float = 0.5,
    context: PageScoring | None = None,
    metrics: tuple[str, ...] | list[str] | None = None,
    rouge_n: int = metrics.ROUGE_N,
) -> dict[str, Any]:
    """One ``per_page.csv`` record for (page, method).

    ``context``: the page's :class:`PageScoring` (built here, once per page, when not given);
    ``metrics``: the families to score (``extraction.metrics``; None: all of :data:`FAMILIES`);
    ``rouge_n``: the n of ROUGE-N (``extraction.rouge_n``).
    """
    families = DEFAULT_FAMILIES if metrics is None else check_metrics(metrics)
    ctx = context if context is not None else _context(page, shingle_n, families, rouge_n)
    split = ext.text.split()
    rec: dict[str, Any] = {
        **page_record(page, method, ext),
        "n_bytes": len(page.raw),
        "n_words_gold": ctx.n_words_gold,
        "n_words_out": len(split),
        "complexity": ctx.complexity,
    }
    if ext.error is None:
        rec.update(text_metrics(ext.text, ctx.text, split))
        for name, state in ctx.records.items():  # structure, metadata: in table order
            rec.update(BY_NAME[name].score(ext, state))
        if "unit" in ctx.families:
            for key, v in _unit_counts(ctx, ext.text, unit_min_share).items():
                rec[f"unit_{key}"] = v
    return _with_info(rec, ext)


def _with_info(rec: dict[str, Any], ext: Extraction) -> dict[str, Any]:
    for key, v in ext.info.items():
        if isinstance(v, (int, float, bool)) or v is None:
            rec[f"info_{key}"] = v
    return rec
