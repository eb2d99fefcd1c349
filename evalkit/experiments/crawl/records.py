"""The per-(page, method) record of ``experiment=crawl``: what a method kept, in which
language, and how far it agrees with the methods scored before it on the same page.

Nothing here reads a gold. The page pipeline (evalkit.harness.pipeline) scores a page's
methods one after another, in run order, in one thread, before it scores the next page; so
the scorer keeps the current page's tokens of each method it has scored (one page per
thread, dropped when the next page comes) and, on method *j*'s record, writes its
agreement with each method *i < j* (``agree_<i>``): every pair once, in the later method's
record. When the last method of ``crawl.union`` is scored, its record also holds the page's
union and intersection yield (``union_tokens``, ``intersection_tokens``).

Because a record depends on the page's other outputs, it must never come from the score
cache (evalkit.harness.score_cache keys a record by its own extraction only):
:func:`page_scorer` returns a closure, which the score cache leaves uncached
(``scorer_key`` is None for a ``<locals>`` function); extractions are still cached.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

from evalkit.core.page import Extraction, Page
from evalkit.core.text import words
from evalkit.harness.scoring import page_record
from evalkit.metrics import wcxb as wcxb_metric
from evalkit.metrics import word_counts
from evalkit.metrics.language import UNKNOWN, identify

__all__ = [
    "AGREE",
    "AGREEMENT_METRICS",
    "UND",
    "CrawlScorer",
    "agreement",
    "page_scorer",
    "union_intersection",
]

#: the prefix of a record's agreement columns: ``agree_<earlier method>``
AGREE = "agree_"
#: the language of an output too short or too mixed to tell
UND = UNKNOWN
#: ``crawl.agreement_metric`` -> the tokens its bag of words is made of
AGREEMENT_METRICS: dict[str, Callable[[str], list[str]]] = {
    # the ``word`` family (evalkit.metrics.word_prf): white-space tokens, case kept, every
    # Han/Kana character a token of its own (evalkit.core.text.words)
    "word": words,
    # WCXB's page metric (evalkit.metrics.wcxb): lower-cased \w+ runs
    "wcxb": wcxb_metric.tokens,
}


def agreement(a: list[str] | None, b: list[str] | None) -> float:
    """The bag-of-words F1 of tokens ``a`` against ``b`` as gold: ``2 |a ∩ b| / (|a| + |b|)``
    with ``∩`` the multiset intersection (:func:`evalkit.metrics.word_counts`), the same
    either way round. NaN when both are empty or either is None (a failed output under
    ``runner.on_failure=drop``); 0 when one is empty."""
    if a is None or b is None or (not a and not b):
        return math.nan
    tp, fp, fn = word_counts(a, b)
    return 2 * tp / (2 * tp + fp + fn)


def union_intersection(token_lists: list[list[str] | None]) -> tuple[int, int]:
    """Tokens in the multiset union (each token as often as in the output holding it most)
    and in the multiset intersection (as often as in the output holding it least) of the
    outputs; a failed output (None) counts as empty."""
    bags = [Counter(t or ()) for t in token_lists]
    if not bags:
        return 0, 0
    union, common = Counter(), bags[0].copy()
    for bag in bags:
        union |= bag
        common &= bag
    return union.total(), common.total()


class _Open:
    """The page being scored in one thread: its tokens per method scored so far."""

    __slots__ = ("page", "tokens")

    def __init__(self, page: Page):
        self.page = page
        self.tokens: dict[str, list[str] | None] = {}


class CrawlScorer:
    """``scorer(page, method, ext) -> record`` (module docstring); a failed extraction
    (``ext.error``, only under ``runner.on_failure=drop``) gets no output columns."""

    def __init__(
        self,
        *,
        min_words: int = 1,
        metric: str = "word",
        union: tuple[str, ...] = (),
    ):
        if metric not in AGREEMENT_METRICS:
            raise ValueError(
                f"crawl.agreement_metric={metric}: must be one of {', '.join(AGREEMENT_METRICS)}"
            )
        self.min_words, self.metric, self.union = min_words, metric, tuple(union)
        self._open: dict[int, _Open] = {}

    def __getstate__(self) -> dict[str, Any]:  # the open pages stay with this process
        return {k: v for k, v in self.__dict__.items() if k != "_open"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, _open={})

    def _page_state(self, page: Page) -> _Open:
        # the page object itself, held until the next page: its methods share it
        thread = threading.get_ident()
        state = self._open.get(thread)
        if state is None or state.page is not page:
            state = self._open[thread] = _Open(page)
        return state

    def __call__(self, page: Page, method: str, ext: Extraction) -> dict[str, Any]:
        rec: dict[str, Any] = {**page_record(page, method, ext), "n_bytes": len(page.raw)}
        state = self._page_state(page)
        text = (ext.text or "") if ext.error is None else None
        tokens = AGREEMENT_METRICS[self.metric](text) if text is not None else None
        if text is not None:
            n_words = len(text.split())
            lang, prob = identify(text)
            rec.update(
                n_words_out=n_words,
                has_output=int(n_words >= self.min_words),
                n_tokens=len(tokens),
                language=lang,
                language_prob=prob,
            )
        else:
            rec.update(
                n_words_out=math.nan,
                has_output=math.nan,
                n_tokens=math.nan,
                language=None,
                language_prob=math.nan,
            )
        for other, theirs in state.tokens.items():
            if other != method:  # a method scored again (as empty, after its scoring failed)
                rec[f"{AGREE}{other}"] = agreement(tokens, theirs)
        state.tokens[method] = tokens
        if method in self.union and all(m in state.tokens for m in self.union):
            rec["union_tokens"], rec["intersection_tokens"] = union_intersection(
                [state.tokens[m] for m in self.union]
            )
        return rec


def page_scorer(*, min_words: int, metric: str, union: tuple[str, ...]) -> Callable:
    """The run's scorer: a :class:`CrawlScorer` behind a closure, so that its records are
    never read from the score cache (module docstring)."""
    scorer = CrawlScorer(min_words=min_words, metric=metric, union=union)

    def score(page: Page, method: str, ext: Extraction) -> dict[str, Any]:
        return scorer(page, method, ext)

    return score
