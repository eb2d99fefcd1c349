"""Checks of a data set's gold against its own pages: the pure functions of the ``audit``
experiment (evalkit/experiments/audit.py, docs/audit.md).

Four questions per page, each answered from texts and counts only:

- **coverage**: how much of the gold occurs in the page's visible text. Word share = the
  share of the gold's tokens (the shingle metric's ``\\w+`` tokens, multiset) that the
  visible text also holds; shingle share = the shingle metric's recall of the visible text
  against the gold, i.e. the best shingle recall any extractor that copies page text can
  reach on that page.
- **artefacts**: markup or annotation left in the gold (HTML tags, character entities,
  CleanEval's ``<p>``/``<h>``/``<l>`` markers, a leading ``URL:`` line, UTF-8 read as
  Latin-1, U+FFFD), counted only where the gold holds more of a kind than the visible text
  (a page about HTML shows ``<img>`` as text; its gold may too).
- **truncation**: the gold is far shorter than the main text every one of a few methods
  finds (the shortest of their outputs).
- **duplicates**: pages of one set with identical bytes or gold, or near-identical visible
  text or gold (64-bit simhash of word 3-shingles within a Hamming distance).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence

from evalkit.core.fingerprint import fingerprint, hamming
from evalkit.core.text import normalize_space, shingles, words
from evalkit.metrics import SHINGLE_N, aeb_tokens, shingle_counts

__all__ = [
    "ARTEFACTS",
    "artefacts",
    "coverage",
    "duplicate_of",
    "exact_key",
    "near_pairs",
    "shortest",
    "text_simhash",
    "truncated",
]

# HTML element names a gold may have kept; any other word in angle brackets is text, not
# markup (a placeholder "<noun>.js" in readability's 001, a show title <The Palace> in aeb)
_HTML_NAMES = (
    "a|abbr|b|big|blockquote|body|br|center|code|dd|div|dl|dt|em|font|form|h[1-6]|head|hr|html"
    "|i|iframe|img|input|li|link|meta|ol|p|pre|s|script|small|span|strike|strong|style|sub|sup"
    "|table|tbody|td|th|thead|title|tr|tt|u|ul"
)

#: artefact kind -> pattern; a bare <p> counts as a CleanEval marker, not as an HTML tag
ARTEFACTS: dict[str, re.Pattern] = {
    "annotation_marker": re.compile(r"<[phlPHL]>|\AURL:[ \t]*\S+"),
    "html_tag": re.compile(
        rf"</(?:{_HTML_NAMES})\s*>|<(?:{_HTML_NAMES})(?:\s[^<>]*|\s*/)?>(?<!<p>)", re.IGNORECASE
    ),
    "entity": re.compile(r"&(?:#\d{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,7});"),
    # UTF-8 bytes decoded as Latin-1/cp1252: Ã© for é, Â£ for £, â€™ for ’
    "mojibake": re.compile("[\u00c2\u00c3][\u0080-\u00bf]|\u00e2\u20ac"),
    "replacement_char": re.compile("\ufffd"),
}


def coverage(gold: str, visible: str, n: int = SHINGLE_N) -> tuple[float, float]:
    """(word share, shingle share) of the gold found in the visible text; NaN for both when
    the gold has no tokens.

    Word share = sum over gold tokens t of min(gold count, visible count) / gold tokens;
    shingle share = the same over token ``n``-gram shingles (the shingle metric's recall of
    the visible text). Tokens are the shingle metric's (:func:`evalkit.metrics.aeb_tokens`);
    the word share splits a token holding Chinese or Japanese characters into one per
    character as the word metrics do (:func:`evalkit.core.text.words`), since such a token is a
    whole unspaced run and one differing character would make the whole run count as absent.
    """
    g = Counter(_word_tokens(gold))
    total = g.total()
    if not total:
        return math.nan, math.nan
    v = Counter(_word_tokens(visible))
    word_share = sum(min(c, v[t]) for t, c in g.items()) / total
    tp, _, fn = shingle_counts(visible, gold, n)
    return word_share, tp / (tp + fn)


def _word_tokens(text: str) -> list[str]:
    """The shingle metric's tokens, a CJK character one token (``words`` leaves others whole)."""
    return [t for token in aeb_tokens(text) for t in words(token)]


def artefacts(gold: str, visible: str = "") -> dict[str, int]:
    """Artefact kind -> how many more matches the gold holds than the visible text (kinds
    with none left out)."""
    out = {}
    for kind, pattern in ARTEFACTS.items():
        extra = len(pattern.findall(gold)) - (len(pattern.findall(visible)) if visible else 0)
        if extra > 0:
            out[kind] = extra
    return out


def shortest(words: Mapping[str, int | None]) -> tuple[str | None, int | None]:
    """(method, words) of the shortest output among the methods that gave one (None: failed)."""
    done = [(w, m) for m, w in words.items() if w is not None]
    if not done:
        return None, None
    w, m = min(done)
    return m, w


def truncated(gold_words: int, shortest_words: int | None, fraction: float, min_words: int) -> bool:
    """The gold looks truncated: it has words, the shortest method output has at least
    ``min_words`` and the gold fewer than ``fraction`` of them. An empty gold is not
    "truncated" (the audit flags it apart)."""
    return (
        gold_words > 0
        and shortest_words is not None
        and shortest_words >= min_words
        and gold_words < fraction * shortest_words
    )


def exact_key(text: str) -> str:
    """sha256 of the text with white space collapsed (identical up to layout)."""
    return hashlib.sha256(normalize_space(text).encode("utf-8", "surrogatepass")).hexdigest()


def text_simhash(text: str, n: int = 3) -> int:
    """64-bit simhash (:func:`evalkit.core.fingerprint.fingerprint`) of the multiset of lower-cased
    word ``n``-shingles, each weighted by its count; 0 for a text without tokens."""
    grams = shingles([t.lower() for t in aeb_tokens(text)], n)
    return fingerprint({" ".join(g): c for g, c in grams.items()}) if grams else 0


def near_pairs(fps: Sequence[int | None], k: int, bits: int = 64) -> list[tuple[int, int]]:
    """Index pairs (i < j) whose fingerprints differ in at most ``k`` bits; None is skipped.

    Pigeonhole (Manku et al. 2007): cut the bits into k + 1 bands; two fingerprints within k
    bits agree on at least one band exactly, so only fingerprints sharing a band value are
    compared, not all n^2 pairs.
    """
    bands = k + 1
    edges = [bits * b // bands for b in range(bands + 1)]
    buckets: dict[tuple[int, int], list[int]] = {}
    for i, fp in enumerate(fps):
        if fp is None:
            continue
        for b in range(bands):
            value = (fp >> edges[b]) & ((1 << (edges[b + 1] - edges[b])) - 1)
            buckets.setdefault((b, value), []).append(i)
    pairs = set()
    for members in buckets.values():
        for x, i in enumerate(members):
            for j in members[x + 1 :]:
                if (i, j) not in pairs and hamming(fps[i], fps[j]) <= k:
                    pairs.add((i, j))
    return sorted(pairs)


def duplicate_of(n: int, pairs: Sequence[tuple[int, int]]) -> list[int | None]:
    """For each of ``n`` items, the first item (lowest index) of its group when the pairs
    join it to an earlier one, else None: groups are the connected components."""
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in pairs:
        a, b = root(i), root(j)
        if a != b:
            parent[max(a, b)] = min(a, b)  # the root is always the group's lowest index
    out: list[int | None] = []
    for i in range(n):
        r = root(i)
        out.append(r if r != i else None)
    return out
