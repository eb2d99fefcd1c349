"""Text processing shared by every method and metric: tokens, stop words, stemming, shingles.

One place for these so that two methods never differ by accident in how they
split words. Stemming is the *original* Porter (1980) algorithm, as the
Saravanan & Sathya Bama (2020) paper names it, taken from NLTK's
``PorterStemmer(mode=ORIGINAL_ALGORITHM)`` (no corpora are downloaded).
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

__all__ = [
    "normalize_space",
    "words",
    "terms",
    "stem",
    "stopwords",
    "STOPLISTS",
    "shingles",
    "strip_cleaneval_markup",
]

_SPACE = re.compile(r"\s+")
# \w+ runs; terms additionally need one letter (METHODS §1.3)
_WORD = re.compile(r"\w+", re.UNICODE)
_HAS_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
_CLEANEVAL_MARK = re.compile(r"^\s*<(?:p|h|l)>\s*", re.IGNORECASE | re.MULTILINE)


def normalize_space(text: str) -> str:
    """Collapse every run of white space to one space and strip the ends."""
    return _SPACE.sub(" ", text).strip()


def words(text: str) -> list[str]:
    """Whitespace tokens, as the word-level metrics count them."""
    return text.split()


@lru_cache(maxsize=8)
def _stopset(name: str) -> frozenset[str]:
    if name == "english":
        # the Glasgow IR group list that scikit-learn ships (318 words)
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

        return frozenset(ENGLISH_STOP_WORDS)
    if name == "justext_english":
        import justext  # optional peer; a clear ImportError names it

        return frozenset(w.lower() for w in justext.get_stoplist("English"))
    if name == "none":
        return frozenset()
    raise ValueError(f"unknown stop list {name!r}; known: {sorted(STOPLISTS)}")


STOPLISTS = ("english", "justext_english", "none")


def stopwords(name: str = "english") -> frozenset[str]:
    """A named stop list: ``english`` (shipped), ``justext_english`` (needs justext), ``none``."""
    return _stopset(name)


@lru_cache(maxsize=1)
def _porter():
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer(mode=PorterStemmer.ORIGINAL_ALGORITHM)


@lru_cache(maxsize=200_000)
def _stem_porter(word: str) -> str:
    return _porter().stem(word, to_lowercase=False)


def stem(word: str, stemmer: str = "porter") -> str:
    """Stem one lowercase word with ``porter`` (original 1980 algorithm) or ``none``."""
    if stemmer == "porter":
        return _stem_porter(word)
    if stemmer == "none":
        return word
    raise ValueError(f"unknown stemmer {stemmer!r}; known: ['porter', 'none']")


def terms(text: str, stoplist: str = "english", stemmer: str = "porter") -> list[str]:
    """Index terms of a text, in order: lowercase ``\\w+`` words holding a letter,
    stop words dropped, then stemmed (METHODS §1.3)."""
    stop = stopwords(stoplist)
    out = []
    for w in _WORD.findall(text.lower()):
        if w in stop or not _HAS_LETTER.search(w):
            continue
        out.append(stem(w, stemmer))
    return out


def shingles(tokens: list[str], n: int = 4) -> Counter:
    """Multiset of token n-grams; a text shorter than n gives one shorter shingle."""
    if not tokens:
        return Counter()
    if len(tokens) < n:
        return Counter([tuple(tokens)])
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def strip_cleaneval_markup(text: str) -> str:
    """Drop a leading ``URL:`` line and the ``<p>``, ``<h>``, ``<l>`` line markers."""
    lines = text.splitlines()
    if lines and lines[0].startswith("URL:"):
        lines = lines[1:]
    return _CLEANEVAL_MARK.sub("", "\n".join(lines)).strip()
