"""The language of a text, by py3langid (Lui and Baldwin 2012's langid.py; its model ships in
the package, nothing is downloaded).

Used where a study breaks its scores down by language (``study=leaderboard``) and where a
comparison without gold reports the language of each method's output (``experiment=crawl``).

Settings and their reasons:

* :data:`MIN_LETTERS`: a text with fewer letters than this gets no language (:data:`UNKNOWN`):
  langid.py's guess on a handful of characters is noise (the empty text comes out as Serbian).
* :data:`MAX_CHARS`: only the text's first characters are read; the identifier's time grows
  with the text, its answer on a page of prose settles within a few hundred words.
* :data:`MIN_PROBABILITY`: a guess the identifier gives less than this normalised probability
  is :data:`UNKNOWN` too (mixed-language or boilerplate-only text).

Install: ``pip install "evalkit[lang]"`` (part of ``dev``).
"""

from __future__ import annotations

import functools

__all__ = ["MAX_CHARS", "MIN_LETTERS", "MIN_PROBABILITY", "UNKNOWN", "identify", "language_of"]

#: the label of a text whose language is not decided
UNKNOWN = "und"
#: fewer letters than this: :data:`UNKNOWN`
MIN_LETTERS = 20
#: characters of a text read by the identifier
MAX_CHARS = 5000
#: least normalised probability of a guess that is kept
MIN_PROBABILITY = 0.5


@functools.cache
def _identifier():
    try:
        from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier
    except ImportError as exc:  # pragma: no cover - the extra is part of dev
        raise ImportError(
            'language identification needs py3langid: pip install "evalkit[lang]"'
        ) from exc
    return LanguageIdentifier.from_modelpath(MODEL_DIR / MODEL_FILE, norm_probs=True)


def identify(
    text: str | None,
    *,
    min_letters: int = MIN_LETTERS,
    max_chars: int = MAX_CHARS,
    min_probability: float = MIN_PROBABILITY,
) -> tuple[str, float]:
    """``(ISO 639-1 code, probability)`` of ``text``'s language; ``(UNKNOWN, nan)`` for a
    text with fewer than ``min_letters`` letters, ``(UNKNOWN, p)`` for a guess below
    ``min_probability``."""
    head = (text or "")[:max_chars]
    if sum(ch.isalpha() for ch in head) < min_letters:
        return UNKNOWN, float("nan")
    lang, prob = _identifier().classify(head)
    prob = float(prob)
    return (str(lang), prob) if prob >= min_probability else (UNKNOWN, prob)


def language_of(text: str | None) -> str:
    """:func:`identify`'s code alone, with the default settings."""
    return identify(text)[0]
