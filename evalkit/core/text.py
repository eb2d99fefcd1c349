"""Text processing shared by every method and metric: tokens, stop words, stemming, shingles.

One place for these so that two methods never differ by accident in how they
split words. Stemming is the *original* Porter (1980) algorithm, as the
Saravanan & Sathya Bama (2020) paper names it, with the stems of NLTK's
``PorterStemmer(mode=ORIGINAL_ALGORITHM)`` (written out here, about 10x cheaper
on a new word; the tests compare the two).
"""

from __future__ import annotations

import importlib
import re
from collections import Counter
from functools import lru_cache, partial

from evalkit.core.stoplists import STOPLIST_INSTALL, STOPLIST_MODULES

__all__ = [
    "CJK",
    "STOPLISTS",
    "bag_f1",
    "has_cjk",
    "normalize_space",
    "shingles",
    "stem",
    "stopwords",
    "strip_cleaneval_markup",
    "terms",
    "terms_many",
    "words",
]

_SPACE = re.compile(r"\s+")
# \w+ runs; terms additionally need one letter (docs/methods/proposed.md#33-secondary-noise-removal)
_WORD = re.compile(r"\w+", re.UNICODE)
# on ASCII, \w is [A-Za-z0-9_]: lower case it and make every other character a space
_ASCII_WORDS = str.maketrans(
    {chr(i): chr(i).lower() if chr(i).isalnum() or chr(i) == "_" else " " for i in range(128)}
)
_CLEANEVAL_MARK = re.compile(r"^\s*<(?:p|h|l)>\s*", re.IGNORECASE | re.MULTILINE)


def normalize_space(text: str) -> str:
    """Collapse every run of white space to one space and strip the ends."""
    return _SPACE.sub(" ", text).strip()


# Han (CJK Unified Ideographs, Extension A, compatibility ideographs, Extensions B-F and the
# supplement), Hiragana, Katakana (with its phonetic extensions and the half-width forms):
# the scripts written without spaces between words. Hangul is not among them: Korean puts
# spaces between words (eojeol), so its white-space tokens are words already.
_CJK_RANGES = (
    "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\uff66-\uff9f\U00020000-\U0002fa1f"
)
#: one character of a script written without spaces (docs/metrics.md#tokens)
CJK = re.compile(f"[{_CJK_RANGES}]")
# one CJK character, or a run of anything else that is not white space
_CJK_OR_RUN = re.compile(f"[{_CJK_RANGES}]|[^\\s{_CJK_RANGES}]+")


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a character of :data:`CJK`."""
    return not text.isascii() and CJK.search(text) is not None


def words(text: str) -> list[str]:
    """Tokens as the word-level metrics count them: white-space tokens, except that every
    Han, Hiragana or Katakana character is a token of its own (Chinese and Japanese put no
    spaces between words; a run of them would otherwise be one "word").

    ``"東京タワー is tall."`` -> ``["東", "京", "タ", "ワ", "ー", "is", "tall."]``; a text
    without such characters gives exactly ``text.split()``.
    """
    if text.isascii() or CJK.search(text) is None:
        return text.split()
    return _CJK_OR_RUN.findall(text)


@lru_cache(maxsize=8)
def _stopset(name: str) -> frozenset[str]:
    if name == "english":
        # the Glasgow IR group list that scikit-learn ships (318 words)
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

        return frozenset(ENGLISH_STOP_WORDS)
    if name in STOPLIST_MODULES:
        # imported by name, never by an import statement: the cache key of a method that
        # asks for this list follows the module through its runtime_modules (stoplist_modules),
        # and the keys of methods that never ask for it do not depend on it being installed
        module = STOPLIST_MODULES[name]
        try:
            lib = importlib.import_module(module)
        except ImportError as exc:
            raise ImportError(
                f"stop list {name!r} needs the {module} package, which is not "
                f"installed: {STOPLIST_INSTALL}"
            ) from exc
        return frozenset(w.lower() for w in lib.get_stoplist("English"))
    if name == "none":
        return frozenset()
    raise ValueError(f"unknown stop list {name!r}; known: {sorted(STOPLISTS)}")


STOPLISTS = ("english", "justext_english", "none")

#: stemmers :func:`stem` knows
STEMMERS = ("porter", "none")


def stopwords(name: str = "english") -> frozenset[str]:
    """A named stop list: ``english`` (shipped), ``justext_english`` (needs justext), ``none``."""
    return _stopset(name)


# Porter (1980), the original algorithm, as NLTK's PorterStemmer(mode=ORIGINAL_ALGORITHM)
# runs it (the tests compare the two on every rule): about 10x cheaper than NLTK's stem()
# on a new word, which a page of new words pays for.

# c (consonant) or v (vowel) of each ASCII character; y is settled by what precedes it
_CV_ASCII = str.maketrans(
    {chr(i): "v" if chr(i) in "aeiou" else "y" if chr(i) == "y" else "c" for i in range(128)}
)


def _cv(word: str) -> str:
    """The word as c and v (Porter's [C](VC){m}[V] form): a, e, i, o, u are vowels; y is a
    vowel after a consonant and a consonant first or after a vowel; all else consonants.
    The measure m is ``_cv(stem).count("vc")``."""
    if word.isascii():
        cv = word.translate(_CV_ASCII)
    else:
        cv = "".join(["v" if ch in "aeiou" else "y" if ch == "y" else "c" for ch in word])
    if "y" not in cv:
        return cv
    out = list(cv)
    for i, ch in enumerate(out):
        if ch == "y":
            out[i] = "v" if i and out[i - 1] == "c" else "c"
    return "".join(out)


# (suffix, replacement) in the order a step tries them: the first suffix the word ends with
# decides, whether or not its condition holds (so -ational is never retried as -tional)
_STEP2 = (
    ("ational", "ate"),
    ("tional", "tion"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("izer", "ize"),
    ("abli", "able"),
    ("alli", "al"),
    ("entli", "ent"),
    ("eli", "e"),
    ("ousli", "ous"),
    ("ization", "ize"),
    ("ation", "ate"),
    ("ator", "ate"),
    ("alism", "al"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("aliti", "al"),
    ("iviti", "ive"),
    ("biliti", "ble"),
)
_STEP3 = (
    ("icate", "ic"),
    ("ative", ""),
    ("alize", "al"),
    ("iciti", "ic"),
    ("ical", "ic"),
    ("ful", ""),
    ("ness", ""),
)
_STEP4 = (
    "al",
    "ance",
    "ence",
    "er",
    "ic",
    "able",
    "ible",
    "ant",
    "ement",
    "ment",
    "ent",
    "ion",
    "ou",
    "ism",
    "ate",
    "iti",
    "ous",
    "ive",
    "ize",
)
_STEP2_ENDS = tuple(s for s, _ in _STEP2)
_STEP3_ENDS = tuple(s for s, _ in _STEP3)
_STEP2_LAST = frozenset(s[-1] for s in _STEP2_ENDS)
_STEP3_LAST = frozenset(s[-1] for s in _STEP3_ENDS)
_STEP4_LAST = frozenset(s[-1] for s in _STEP4)
# every step leaves a word ending in none of these as it is
_ANY_LAST = frozenset("sdgyel") | _STEP2_LAST | _STEP3_LAST | _STEP4_LAST


def _porter_original(w: str) -> str:
    """Porter's (1980) steps 1a to 5b on one lowercase word."""
    last = w[-1:]
    if last not in _ANY_LAST:
        return w
    # 1a: sses -> ss, ies -> i, ss -> ss, s -> ''
    if last == "s":
        if w.endswith(("sses", "ies")):
            w = w[:-2]
        elif not w.endswith("ss"):
            w = w[:-1]
        last = w[-1:]
    # 1b: (m > 0) eed -> ee; (*v*) ed -> ''; (*v*) ing -> '', then the tidying rules
    if last == "d" or last == "g":
        if w.endswith("eed"):
            if "vc" in _cv(w[:-3]):
                w = w[:-1]
        elif w.endswith(("ed", "ing")):
            stem = w[:-2] if last == "d" else w[:-3]
            cv = _cv(stem)
            if "v" in cv:
                w = stem
                if w.endswith(("at", "bl", "iz")):
                    w += "e"
                elif len(w) >= 2 and w[-1] == w[-2] and cv[-1] == "c":  # *d
                    if w[-1] not in "lsz":
                        w = w[:-1]
                elif cv.count("vc") == 1 and cv.endswith("cvc") and w[-1] not in "wxy":  # *o
                    w += "e"
        last = w[-1:]
    # 1c: (*v*) y -> i
    if last == "y" and "v" in _cv(w[:-1]):
        w, last = w[:-1] + "i", "i"
    # 2 and 3: (m > 0)
    for lasts, ends, rules in (
        (_STEP2_LAST, _STEP2_ENDS, _STEP2),
        (_STEP3_LAST, _STEP3_ENDS, _STEP3),
    ):
        if last in lasts and w.endswith(ends):
            for suffix, repl in rules:
                if w.endswith(suffix):
                    stem = w[: -len(suffix)]
                    if "vc" in _cv(stem):
                        w = stem + repl
                        last = w[-1:]
                    break
    # 4: (m > 1); ion also needs s or t before it
    if last in _STEP4_LAST and w.endswith(_STEP4):
        for suffix in _STEP4:
            if w.endswith(suffix):
                stem = w[: -len(suffix)]
                if _cv(stem).count("vc") > 1 and (suffix != "ion" or stem[-1] in "st"):
                    w = stem
                    last = w[-1:]
                break
    # 5a: (m > 1) e -> ''; (m = 1 and not *o) e -> ''
    if last == "e":
        cv = _cv(w[:-1])
        m = cv.count("vc")
        if m > 1 or (m == 1 and not (cv.endswith("cvc") and w[-2] not in "wxy")):
            w = w[:-1]
            last = w[-1:]
    # 5b: (m > 1 and *d and *L) -> single letter
    if last == "l" and w.endswith("ll") and _cv(w[:-1]).count("vc") > 1:
        w = w[:-1]
    return w


@lru_cache(maxsize=200_000)
def _stem_porter(word: str) -> str:
    return _porter_original(word)


def stem(word: str, stemmer: str = "porter") -> str:
    """Stem one lowercase word with ``porter`` (original 1980 algorithm) or ``none``."""
    if stemmer == "porter":
        return _stem_porter(word)
    if stemmer == "none":
        return word
    raise ValueError(f"unknown stemmer {stemmer!r}; known: {list(STEMMERS)}")


# (stoplist, stemmer) -> {lowercase \w+ token: its term, or None when it is dropped}
_TERM_MAPS: dict[tuple[str, str], _TermMap] = {}
# a map is emptied when it grows past this many tokens (bounded memory over a long run)
_TERM_MAP_MAX = 200_000


class _TermMap(dict):
    """Lowercase ``\\w+`` token -> its term, or None when it is dropped (a stop word or a
    token without a letter). A token is decided the first time it is looked up
    (``__missing__``), so looking up a text's tokens is one pass whatever they are."""

    def __init__(self, stoplist: str, stemmer: str):
        super().__init__()
        self.stop = stopwords(stoplist)  # an unknown stop list raises here
        # an unknown stemmer raises when a token first needs it
        self.stem = _porter_original if stemmer == "porter" else partial(stem, stemmer=stemmer)

    def __missing__(self, w: str) -> str | None:
        if len(self) > _TERM_MAP_MAX:
            self.clear()
        # w is all \w: it holds a letter ([^\W\d_]) unless it is all decimal digits and _
        digits = w.replace("_", "") if "_" in w else w
        term = None if w in self.stop or not digits or digits.isdecimal() else self.stem(w)
        self[w] = term
        return term


def _term_map(stoplist: str, stemmer: str) -> _TermMap:
    m = _TERM_MAPS.get((stoplist, stemmer))
    if m is None:
        m = _TERM_MAPS[stoplist, stemmer] = _TermMap(stoplist, stemmer)
    return m


def _tokens(text: str) -> list[str]:
    """``\\w+`` runs of the lower-cased text (an ASCII text by a translation and a split)."""
    if text.isascii():
        return text.translate(_ASCII_WORDS).split()
    return _WORD.findall(text.lower())


def terms(text: str, stoplist: str = "english", stemmer: str = "porter") -> list[str]:
    """Index terms of a text, in order: lowercase ``\\w+`` words holding a letter,
    stop words dropped, then stemmed (docs/methods/proposed.md#33-secondary-noise-removal).

    Every token is decided once per process (:class:`_TermMap`); after that a
    token costs one dict lookup.
    """
    return [
        t for t in map(_term_map(stoplist, stemmer).__getitem__, _tokens(text)) if t is not None
    ]


def terms_many(
    texts: list[str], stoplist: str = "english", stemmer: str = "porter"
) -> list[list[str]]:
    """``[terms(t, stoplist, stemmer) for t in texts]``."""
    get = _term_map(stoplist, stemmer).__getitem__
    return [[t for t in map(get, _tokens(text)) if t is not None] for text in texts]


def shingles(tokens: list[str], n: int = 4) -> Counter:
    """Multiset of token n-grams; a text shorter than n gives one shorter shingle."""
    if not tokens:
        return Counter()
    if len(tokens) < n:
        return Counter([tuple(tokens)])
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def strip_cleaneval_markup(text: str) -> str:
    """Drop a leading ``URL:`` line and the ``<p>``, ``<h>``, ``<l>`` line markers."""
    lines = text.splitlines()
    if lines and lines[0].startswith("URL:"):
        lines = lines[1:]
    return _CLEANEVAL_MARK.sub("", "\n".join(lines)).strip()


def bag_f1(got: Counter, gold: Counter) -> float:
    """F1 of two bags of words: the shared count (multiset intersection) over each bag's size;
    0.0 when they share nothing. V-Wrapper's training labels and the entity-template author
    pick the block closest to the gold with it."""
    common = sum((got & gold).values())
    if not common:
        return 0.0
    p, r = common / sum(got.values()), common / sum(gold.values())
    return 2 * p * r / (p + r)
