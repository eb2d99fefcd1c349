"""Index terms (evalkit.core.text): the cached token map and the own Porter stemmer give exactly
what the plain computations (regular expressions, NLTK's original-algorithm stemmer) give."""

from __future__ import annotations

import random
import re
import sys

import pytest
from nltk.stem.porter import PorterStemmer

from evalkit.core import text
from evalkit.core.text import stem, stopwords, terms, terms_many

NLTK_PORTER = PorterStemmer(mode=PorterStemmer.ORIGINAL_ALGORITHM)

TEXTS = [
    "Data mining finds patterns, trends and rules in large data sets of web pages.",
    "THE Caresses, ponies, ties; caress cats: feed agreed plastered bled motoring sing.",
    "conflated troubled sized hopping tanned falling hissing fizzed failing filing",
    "relational conditional rational valenci hesitanci digitizer conformabli radicalli",
    "trekking 2020 x_1 _ __init__ 3rd 42 née Ärger İstanbul ΣΊΣΥΦΟΣ straße ﬁne",
    "",
    "   \n\t ",
    "the of and a an",  # stop words only
    "généralement über-cool e-mail co-operation naïve façade",
]


def plain_terms(s: str, stoplist: str = "english", stemmer: str = "porter") -> list[str]:
    """The straightforward definition: every token tested and stemmed on its own."""
    stop = stopwords(stoplist)
    out = []
    for w in re.findall(r"\w+", s.lower()):
        if w in stop or not re.search(r"[^\W\d_]", w):
            continue
        out.append(NLTK_PORTER.stem(w, to_lowercase=False) if stemmer == "porter" else w)
    return out


def suffix_words() -> list[str]:
    """Words built to reach every rule of every Porter step, and the conditions around them."""
    suffixes = [
        "",
        "s",
        "sses",
        "ies",
        "ss",
        "eed",
        "ed",
        "ing",
        "y",
        "ational",
        "tional",
        "enci",
        "anci",
        "izer",
        "abli",
        "bli",
        "alli",
        "entli",
        "eli",
        "ousli",
        "ization",
        "ation",
        "ator",
        "alism",
        "iveness",
        "fulness",
        "ousness",
        "aliti",
        "iviti",
        "biliti",
        "logi",
        "icate",
        "ative",
        "alize",
        "iciti",
        "ical",
        "ful",
        "ness",
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
        "sion",
        "tion",
        "ou",
        "ism",
        "ate",
        "iti",
        "ous",
        "ive",
        "ize",
        "e",
        "ll",
        "at",
        "bl",
        "iz",
    ]
    roots = [
        "",
        "a",
        "y",
        "by",
        "tr",
        "hop",
        "fil",
        "feed",
        "relat",
        "condit",
        "sens",
        "control",
        "cat",
        "pony",
        "happ",
        "oat",
        "tree",
        "troubl",
        "wil",
        "yyy",
        "xy",
    ]
    return [r + a + b for r in roots for a in suffixes for b in suffixes]


def test_stem_is_nltk_original_porter():
    words = suffix_words() + ["trekking", "generalizations", "oscillators", "s", "", "é"]
    for w in words:
        assert stem(w) == NLTK_PORTER.stem(w, to_lowercase=False), w
    assert stem("Caresses", "none") == "Caresses"
    with pytest.raises(ValueError, match="stemmer"):
        stem("word", "snowball")


@pytest.mark.parametrize("seed", range(3))
def test_own_porter_is_nltk_original_on_random_words(seed):
    # roots of any letters (y runs, w/x endings, non-ASCII, digits) with suffix chains
    rng = random.Random(seed)
    pieces = [
        "",
        "s",
        "ss",
        "ies",
        "eed",
        "ed",
        "ing",
        "y",
        "ational",
        "ization",
        "abli",
        "entli",
        "ousli",
        "iveness",
        "biliti",
        "icate",
        "ical",
        "ness",
        "ance",
        "ement",
        "ion",
        "ou",
        "iti",
        "ize",
        "e",
        "ll",
        "at",
        "bl",
        "iz",
        "yy",
        "wy",
        "xe",
    ]
    letters = "abcdefghijklmnopqrstuvwxyzyyaeiouéñ_0Y"
    for _ in range(20_000):
        root = "".join(rng.choice(letters) for _ in range(rng.randint(0, 7)))
        w = root + "".join(rng.choice(pieces) for _ in range(rng.randint(0, 3)))
        assert text._porter_original(w) == NLTK_PORTER.stem(w, to_lowercase=False), w


def test_letter_test_is_the_regex_on_every_word_character():
    # a \w token holds a letter iff some character is neither a decimal digit nor _
    word = re.compile(r"\w")
    chars = [chr(i) for i in range(sys.maxunicode + 1) if word.match(chr(i))]
    for c in chars + ["_", "__", "1_2", "a_1", "²", "٣", "x"]:
        assert terms(c, "none", "none") == plain_terms(c, "none", "none"), c


def test_ascii_tokens_are_the_regex_tokens():
    rng = random.Random(4)
    ascii_chars = "".join(map(chr, range(128)))
    texts = [ascii_chars, ascii_chars[::-1], "Hello_World 12ab,CD;x\x1cy\x1fz\x0b"] + [
        "".join(rng.choices(ascii_chars + "aaaeeeAZz09_   ", k=rng.randint(0, 200)))
        for _ in range(500)
    ]
    for s in texts + ["naïve Ünïcode ﬁne", "’quoted’ text"]:
        assert text._tokens(s) == re.findall(r"\w+", s.lower()), s


@pytest.mark.parametrize("stoplist", ["english", "none"])
@pytest.mark.parametrize("stemmer", ["porter", "none"])
def test_terms_match_the_plain_definition(stoplist, stemmer):
    rng = random.Random(5)
    vocab = suffix_words()[::7] + sorted(stopwords("english"))[:60] + ["2020", "x1", "_", "a_b"]
    texts = TEXTS + [" ".join(rng.choices(vocab, k=rng.randint(0, 80))).title() for _ in range(40)]
    for s in texts:
        assert terms(s, stoplist, stemmer) == plain_terms(s, stoplist, stemmer), s
        assert terms(s, stoplist, stemmer) == plain_terms(s, stoplist, stemmer)  # cached now
    assert terms_many(texts, stoplist, stemmer) == [terms(s, stoplist, stemmer) for s in texts]


def test_a_word_can_stem_to_the_empty_term():
    # 's' is no stop word and Porter's step 1a strips it: the term is '' and is kept
    assert terms("s") == [""] == plain_terms("s")
    assert terms_many(["s s", ""]) == [["", ""], []]


def test_term_map_is_bounded(monkeypatch):
    monkeypatch.setattr(text, "_TERM_MAP_MAX", 50)
    monkeypatch.setattr(text, "_TERM_MAPS", {})
    words = suffix_words()[:400]
    for k in range(0, len(words), 20):
        s = " ".join(words[k : k + 20])
        assert terms(s) == plain_terms(s)
        assert len(text._TERM_MAPS["english", "porter"]) <= 50 + 20
    assert terms_many([" ".join(words[:30])] * 3) == [plain_terms(" ".join(words[:30]))] * 3


def test_unknown_names_raise_as_before():
    with pytest.raises(ValueError, match="stop list"):
        terms("", stoplist="klingon")
    with pytest.raises(ValueError, match="stop list"):
        terms_many(["word"], stoplist="klingon")
    with pytest.raises(ValueError, match="stemmer"):
        terms("word", stemmer="snowball")
    assert terms("the 2020", stemmer="snowball") == []  # no token needed the stemmer
