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
    "terms_many",
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


# The suffixes each step of Porter (1980) can act on, in the original algorithm. A step
# leaves a word that ends in none of its suffixes unchanged, so NLTK's step is called only
# when one matches: the same stems at about a third of the cost of ``PorterStemmer.stem``.
_PORTER_STEPS = (
    ("_step1a", ("s",)),
    ("_step1b", ("ed", "ing")),  # eed, ed, ing
    ("_step1c", ("y",)),
    ("_step2", ("ational", "tional", "enci", "anci", "izer", "abli", "alli", "entli", "eli",
                "ousli", "ization", "ation", "ator", "alism", "iveness", "fulness", "ousness",
                "aliti", "iviti", "biliti")),
    ("_step3", ("icate", "ative", "alize", "iciti", "ical", "ful", "ness")),
    ("_step4", ("al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
                "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize")),
    ("_step5a", ("e",)),
    ("_step5b", ("ll",)),
)


@lru_cache(maxsize=1)
def _porter_steps() -> tuple:
    p = _porter()
    return tuple((getattr(p, name), suffixes) for name, suffixes in _PORTER_STEPS)


@lru_cache(maxsize=200_000)
def _stem_porter(word: str) -> str:
    # NLTK's stem() in ORIGINAL_ALGORITHM mode runs the eight steps on every word
    for step, suffixes in _porter_steps():
        if word.endswith(suffixes):
            word = step(word)
    return word


def stem(word: str, stemmer: str = "porter") -> str:
    """Stem one lowercase word with ``porter`` (original 1980 algorithm) or ``none``."""
    if stemmer == "porter":
        return _stem_porter(word)
    if stemmer == "none":
        return word
    raise ValueError(f"unknown stemmer {stemmer!r}; known: ['porter', 'none']")


# (stoplist, stemmer) -> {lowercase \w+ token: its term, or None when it is dropped}
_TERM_MAPS: dict[tuple[str, str], dict[str, str | None]] = {}
# a map is emptied when it grows past this many tokens (bounded memory over a long run)
_TERM_MAP_MAX = 200_000


def _term_map(stoplist: str, stemmer: str) -> dict[str, str | None]:
    m = _TERM_MAPS.get((stoplist, stemmer))
    if m is None:
        stopwords(stoplist)  # an unknown stop list raises here, as on every call before
        m = _TERM_MAPS[stoplist, stemmer] = {}
    return m


def _add_tokens(m: dict[str, str | None], tokens: list[str], stoplist: str,
                stemmer: str) -> None:
    """Enter the tokens ``m`` lacks: None for a stop word or a token without a letter."""
    if len(m) > _TERM_MAP_MAX:
        m.clear()
    stop = stopwords(stoplist)
    for w in tokens:
        if w not in m:
            m[w] = None if w in stop or not _HAS_LETTER.search(w) else stem(w, stemmer)


def terms(text: str, stoplist: str = "english", stemmer: str = "porter") -> list[str]:
    """Index terms of a text, in order: lowercase ``\\w+`` words holding a letter,
    stop words dropped, then stemmed (METHODS §1.3).

    Every token is decided once per process (:func:`_add_tokens`); after that a
    token costs one dict lookup.
    """
    m = _term_map(stoplist, stemmer)
    tokens = _WORD.findall(text.lower())
    try:
        return [t for t in map(m.__getitem__, tokens) if t is not None]
    except KeyError:
        _add_tokens(m, tokens, stoplist, stemmer)
        return [t for t in map(m.__getitem__, tokens) if t is not None]


def terms_many(texts: list[str], stoplist: str = "english",
               stemmer: str = "porter") -> list[list[str]]:
    """``[terms(t, stoplist, stemmer) for t in texts]``."""
    m = _term_map(stoplist, stemmer)
    get = m.__getitem__
    out = []
    for text in texts:
        tokens = _WORD.findall(text.lower())
        try:
            out.append([t for t in map(get, tokens) if t is not None])
        except KeyError:
            _add_tokens(m, tokens, stoplist, stemmer)
            out.append([t for t in map(m.__getitem__, tokens) if t is not None])
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
