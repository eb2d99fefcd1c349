"""The bounds on scoring one (page, method): a word limit, a time limit, and a score record
that cannot be written.

Several metric families are quadratic in the words of a page (the LCS, ROUGE-LSum's
summary-level LCS, edit similarity and the unit alignment are all ``O(n * m / 64)``
machine words, ``n`` and ``m`` the two texts' words): two texts of 300,000 words each take
minutes and gigabytes. :class:`evalkit.harness.pipeline.PagePipeline` therefore

* records a page whose gold holds more than ``runner.max_score_words`` whitespace words as a
  ``too long to score`` failure of every method (never scored, like a page over
  ``runner.max_page_bytes``), and an output over it as that method's failure, scored as
  empty under ``runner.on_failure=empty`` (:func:`too_long_to_score`);
* scores each (page, method) within ``runner.page_timeout`` seconds, as the method's own
  extraction is bounded (an output whose scoring fails is then scored as empty, in a limit
  of its own: at most twice the limit per (page, method), and a page whose own side fails is
  not scored again for its other methods) (:func:`score_within`; the timer is a ``SIGALRM`` interval timer, so
  it works where the scoring runs in a process's main thread: in process and in the local
  runner's workers; a Dask worker's threads score without it and rely on the word limit);
* scores a method's record on a page whose own side failed (its gold too long, its gold or
  units unscorable) as an empty extraction under ``runner.on_failure=empty``, so the page
  counts against every method instead of leaving their means (:func:`empty_record`);
* stops the run with one line when a score record cannot be written
  (:class:`ScoreWriteError`, e.g. a full disk), instead of a ``scoring failed`` per page.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from typing import Any

from evalkit.core.page import Extraction, Gold, Page
from evalkit.harness.errors import RunnerError

__all__ = [
    "DEFAULT_MAX_SCORE_WORDS",
    "TOO_LONG",
    "TOO_LONG_OUTPUT",
    "ScoreWriteError",
    "ScoringTimeout",
    "empty_record",
    "score_within",
    "too_long_to_score",
]

#: the default of ``runner.max_score_words``: 4.6 times the most words of any page's units
#: in the shared sets (21,586, cleaneval-dev page 33), and at about a second per quadratic
#: family and method on this machine at the bound
DEFAULT_MAX_SCORE_WORDS = 100_000
#: start of the error of a record whose gold or output is over ``runner.max_score_words``
TOO_LONG = "too long to score: "
#: start of the error of an output over ``runner.max_output_chars`` (never cached or scored)
TOO_LONG_OUTPUT = "output too long: "


class ScoringTimeout(Exception):
    """Scoring one (page, method) ran over ``runner.page_timeout``."""


class ScoreWriteError(RunnerError):
    """A score record could not be written (a full or read-only disk): the run stops with
    this one line (exit 2) rather than record every page as ``scoring failed``."""


def too_long_to_score(page: Page, ext: Extraction | None, max_words: int | None) -> str | None:
    """The ``too long to score`` error of the page's gold (``ext`` None) or of an output over
    ``max_words`` whitespace words; None when within it (or ``max_words`` is None)."""
    if max_words is None:
        return None
    text, what = (page.gold.text, "gold") if ext is None else (ext.text, "output")
    # a text of at most max_words characters cannot hold more words: no split needed
    if text is None or len(text) <= max_words:
        return None
    n = len(text.split())
    return f"{TOO_LONG}{n} {what} words > runner.max_score_words" if n > max_words else None


def _expired(signum, frame):  # the SIGALRM handler while a scorer runs
    raise ScoringTimeout("scoring ran over runner.page_timeout")


def score_within(
    timeout: float | None,
    score: Callable[..., dict[str, Any]],
    page: Page,
    label: str,
    ext: Extraction,
) -> dict[str, Any]:
    """``score(page, label, ext)``, raising :class:`ScoringTimeout` after ``timeout`` seconds
    (None or 0: no limit; outside a main thread: no limit, see the module docstring). A
    compiled kernel is interrupted when it returns to Python; the word limit bounds them."""
    if not timeout or threading.current_thread() is not threading.main_thread():
        return score(page, label, ext)
    previous = signal.signal(signal.SIGALRM, _expired)
    signal.setitimer(signal.ITIMER_REAL, float(timeout))
    try:
        return score(page, label, ext)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


#: a stand-in page's gold: one word, so an empty output scores what it scores on any page
_STAND_IN = Gold(text="x")
#: record columns counted from the gold or the page (not the output's score): unknown
_GOLD_COUNTS = ("n_words_gold", "complexity")


def empty_record(
    score: Callable[[Page, str, Extraction], dict[str, Any]],
    page: Page,
    label: str,
    ext: Extraction,
) -> dict[str, Any]:
    """The record of an empty extraction of ``page`` by ``label``, when ``page``'s own side
    cannot be scored: ``score`` run on a stand-in page of one gold word (what an empty output
    scores: recall and F1 0, precision undefined), then the columns the real page's gold
    would give (its word counts, confusion counts) set to NaN. Issue 37 item 3: without it,
    under ``on_failure=empty`` such a page left every method's means."""
    import math

    stand_in = Page(
        id=page.id,
        dataset=page.dataset,
        raw=b"<p>x</p>",
        gold=_STAND_IN,
        url=page.url,
        site=page.site,
    )
    rec = score(stand_in, label, Extraction(seconds=ext.seconds))
    for key in list(rec):
        if key in _GOLD_COUNTS or key.endswith(("_tp", "_fp", "_fn", "_tn")):
            rec[key] = math.nan
    if "n_bytes" in rec:
        rec["n_bytes"] = len(page.raw)
    return rec
