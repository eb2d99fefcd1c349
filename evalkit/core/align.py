"""Gold units and projection: labelling evaluation units from a text.

See docs/architecture.md#the-data-contract.

Two jobs share one algorithm.

* **Gold units.** L3S-GN1 labels every atomic text block directly (``unit_source
  = "spans"``). Every other set only gives the main-content *text*; its units
  are the page's own atomic text blocks (:func:`evalkit.core.units.segment`),
  labelled content when :func:`align` finds them in the gold text
  (``unit_source = "aligned"``).
* **Projection.** Any method's output text, even a peer library's that never
  saw evalkit's DOM, becomes a kept/dropped decision per gold unit the same
  way, so unit-level precision and recall work for every method.

The alignment
-------------
Words are compared after lower-casing and removing every non-alphanumeric
character (``"Ki-moon's"`` and ``"Ki-moon?s"`` both become ``kimoons``; a token
that is only punctuation disappears). The words of all units, concatenated in
document order, are aligned *globally* against the words of the text by a
longest common subsequence: one monotone matching, so a word of the text can
vouch for at most one unit word and the order of the text matters (a headline
repeated in a footer is not matched twice). A unit is kept when more than
``min_share`` of its words are matched.

The LCS is computed with the bit-parallel recurrence of Allison & Dix (1986)
in the form given by Hyyrö (2004): the units' words are bit positions of one
Python integer ``V``; for each text word ``w`` with match mask ``M[w]``,
``U = V & M[w]`` and ``V <- (V + U) | (V - U)``. After text word ``j`` the zero
bits of ``V_j`` mark the columns where row ``j`` of the LCS table steps up, so
``L[j][i]`` = number of zero bits of ``V_j`` below bit ``i``. The forward pass
costs ``n`` big-integer operations of ``m`` bits (a 20,000 x 20,000-word
page takes well under a second).

The traceback walks ``j`` from ``n`` down with a column bound ``i``: if
``L[j][i] == L[j-1][i]`` text word ``j`` is not needed; otherwise it is matched
to the unit word just below the highest zero bit of ``V_j`` under ``i`` (the
first column where row ``j`` reaches ``L[j][i]``, which can only be reached
diagonally through a match). To bound memory the forward pass keeps only every
``_CHECKPOINT``-th ``V`` and the traceback recomputes one block of rows at a
time, so memory is ``O(m (K + n / K))`` bits instead of ``O(m n)``.

That is the definition, and the code for pages above ``_RAPIDFUZZ_MAX_CELLS``.
Below it the same recurrence and the same traceback choices run compiled in
rapidfuzz (``LCSseq.editops`` with the text as its first sequence; see
:func:`_align_rapidfuzz`), holding the whole ``m x n`` bit matrix. Words are
numbered first (:func:`unit_words`, once per page for the gold units), so the
LCS compares integers; :func:`align_units` hands them to rapidfuzz as one
character per number (:func:`_found_rapidfuzz`), which it reads without hashing
an object per word.

Units with no alignable word (only punctuation, e.g. ``"|"`` or ``"»"``)
cannot be judged by share; such a unit is kept when the nearest units with
words on both sides are kept, so a lone dash inside an article follows the
article and a separator between links follows the links.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, repeat

import lxml.html
import numpy as np
from rapidfuzz.distance import LCSseq

from evalkit.core.page import CONTENT, NOISE, Page, Unit
from evalkit.core.units import DEFAULT_CONTENT_CLASSES, segment, span_units
from evalkit.metrics import position_masks

__all__ = [
    "DEFAULT_CONTENT_CLASSES",
    "DEFAULT_MIN_SHARE",
    "UnitWords",
    "align",
    "align_units",
    "align_words",
    "gold_unit_words",
    "gold_units",
    "norm_words",
    "project",
    "unit_words",
]

#: a unit is kept when strictly more than this share of its words are found in order
DEFAULT_MIN_SHARE = 0.5
# rows of the LCS table kept per recomputed block during the traceback
_CHECKPOINT = 256
# above this many cells (unit words x text words) a common prefix/suffix is matched first
_TRIM_ABOVE = 50_000_000
# above this many cells rapidfuzz's traceback matrix (a bit per cell) would pass 50 MB:
# the checkpointed traceback in Python takes over
_RAPIDFUZZ_MAX_CELLS = 400_000_000
_NON_ALNUM = re.compile(r"[\W_]+", re.UNICODE)
# ASCII characters _NON_ALNUM removes that do not separate tokens either
_ASCII_NON_ALNUM = str.maketrans(
    {chr(i): None for i in range(128) if not (chr(i).isalnum() or chr(i).isspace())}
)
# the memo is emptied when it grows past this many tokens: a few MB at most over a long run
# (a page holds a few thousand distinct words; refilling the common ones costs little)
_NORM_MEMO_MAX = 50_000


class _NormMemo(dict):
    """Lower-cased token -> the token without its non-alphanumeric characters (``""``
    when none is left), each distinct token worked out once per process: a page's
    units and every method's output on it repeat the same words, and a looked-up
    token costs one dict probe in C."""

    def __missing__(self, w: str) -> str:
        if len(self) > _NORM_MEMO_MAX:
            self.clear()
        # [\W_] matches exactly the characters str.isalnum() rejects: most words skip re
        v = self[w] = w if w.isalnum() else _NON_ALNUM.sub("", w)
        return v


_norm_token = _NormMemo().__getitem__


def norm_words(text: str) -> list[str]:
    """Whitespace tokens, lower-cased, with every non-alphanumeric character removed.

    Tokens that become empty (pure punctuation) are dropped.
    """
    if text.isascii():
        # the same in C: lower-casing ASCII is per character, and deleting the characters
        # that are neither alphanumeric nor white space leaves the tokens' boundaries alone
        return text.lower().translate(_ASCII_NON_ALNUM).split()
    # lower-casing the whole text lower-cases each token as on its own (the one rule with
    # a context, Greek final sigma, stops at white space)
    return list(filter(None, map(_norm_token, text.lower().split())))


def align_words(a: Sequence[str], b: Sequence[str]) -> list[bool]:
    """For each word of ``a``, whether one longest common subsequence with ``b`` uses it.

    Exact LCS; see the module docstring for which one. ``sum(result)`` is the LCS length.
    """
    ids: dict[str, int] = {}
    a_ids = [ids.setdefault(w, len(ids)) for w in a]
    return _align_ids(a_ids, list(map(ids.get, b, repeat(-1))))


def _align_ids(a: list[int], b: list[int]) -> list[bool]:
    """:func:`align_words` on numbered words: ``a`` >= 0, a word of ``b`` that ``a`` lacks -1."""
    m = len(a)
    if m == 0 or not b:
        return [False] * m
    if m * len(b) > _TRIM_ABOVE:
        # long pages: match the common prefix and suffix first (they belong to some
        # LCS), so a method that returns most of a huge page costs no bit loop
        head = 0
        while head < min(m, len(b)) and a[head] == b[head]:
            head += 1
        tail = 0
        while tail < min(m, len(b)) - head and a[m - 1 - tail] == b[len(b) - 1 - tail]:
            tail += 1
        if head or tail:
            inner = _align_ids(a[head : m - tail], b[head : len(b) - tail])
            return [True] * head + inner + [True] * tail
    # text words absent from the units match nothing and leave the traceback's choices alone;
    # after a trim, words of the trimmed prefix or suffix may be absent from ``a`` too
    present = set(a)
    b = [x for x in b if x in present]
    if not b:
        return [False] * m
    if m * len(b) <= _RAPIDFUZZ_MAX_CELLS:
        return _align_rapidfuzz(a, b)
    return _align_checkpointed(a, b)


def _align_rapidfuzz(a: list[int], b: list[int]) -> list[bool]:
    """The LCS of the module docstring by rapidfuzz's compiled traceback.

    With the text as rapidfuzz's first sequence, its traceback (skip text words
    while the LCS allows, then unit words, then match) picks the same matching as
    :func:`_align_checkpointed`. Distinct sentinels at both ends stop rapidfuzz from
    matching a common prefix or suffix first, which would pick another LCS when a
    word repeats.
    """
    matched = [False] * len(a)
    ops = LCSseq.editops([-2, *b, -3], [-4, *a, -5])
    for block in ops.as_matching_blocks():
        start = block.b - 1  # the sentinel shifts every unit word by one
        matched[start : start + block.size] = [True] * block.size
    return matched


def _align_checkpointed(a: list[int], b: list[int]) -> list[bool]:
    """The LCS of the module docstring in Python, in ``O(m (K + n / K))`` bits of memory.

    Hand-written because rapidfuzz's traceback holds the whole ``m x n`` bit matrix
    (a 100,000-word page against a 100,000-word output: 1.25 GB); used above
    :data:`_RAPIDFUZZ_MAX_CELLS`. ``b`` holds only words of ``a``.
    """
    m = len(a)
    matched = [False] * m
    masks = position_masks(a)
    full = (1 << m) - 1
    seq = [masks[w] for w in b]
    n = len(seq)

    def advance(v: int, start: int, stop: int, keep: list[int] | None) -> int:
        for j in range(start, stop):
            u = v & seq[j]
            v = ((v + u) | (v - u)) & full
            if keep is not None:
                keep.append(v)
        return v

    checkpoints = [full]  # V_0, V_K, V_2K, ... (V_j = state after j text words)
    v = full
    for start in range(0, n, _CHECKPOINT):
        v = advance(v, start, min(start + _CHECKPOINT, n), None)
        checkpoints.append(v)

    i, j = m, n
    block_start, rows = -1, []  # rows[k] = V_(block_start + k)
    while i > 0 and j > 0:
        if not block_start <= j - 1 < block_start + len(rows) - 1:
            block_start = ((j - 1) // _CHECKPOINT) * _CHECKPOINT
            rows = [checkpoints[block_start // _CHECKPOINT]]
            advance(rows[0], block_start, min(block_start + _CHECKPOINT, n), rows)
        low = (1 << i) - 1
        vj, vprev = rows[j - block_start], rows[j - 1 - block_start]
        # L[j][i] - L[j-1][i] = ones(V_(j-1) below i) - ones(V_j below i)
        if (vj & low).bit_count() != (vprev & low).bit_count():
            p = ((~vj) & low).bit_length() - 1
            matched[p] = True
            i = p
        j -= 1
    return matched


@dataclass(frozen=True)
class UnitWords:
    """The normalised words of a page's units, numbered, once per page: the unit side
    of every projection of a text onto them (:func:`align_units`).

    ``vocab`` numbers the distinct words, ``ids`` are all units' words in document
    order, ``ends[k]`` is where unit ``k``'s words end in ``ids`` and ``lengths[k]``
    how many it has. ``chars`` maps each word to the character ``chr(number)`` and
    ``text`` is ``ids`` as those characters (None when the numbers would not all be code
    points): rapidfuzz compares two strings code point by code point, where a list of
    ints costs it a hash per item.
    """

    vocab: dict[str, int]
    ids: list[int]
    ends: np.ndarray
    lengths: np.ndarray
    chars: dict[str, str] | None = None
    text: str | None = None


def unit_words(units: Sequence[Unit]) -> UnitWords:
    """:class:`UnitWords` of ``units``."""
    per_unit = [norm_words(u.text) for u in units]
    flat = list(chain.from_iterable(per_unit))
    # words numbered in order of first occurrence
    vocab = {w: i for i, w in enumerate(dict.fromkeys(flat))}
    n = np.fromiter(map(len, per_unit), dtype=np.int64, count=len(per_unit))
    ids = list(map(vocab.__getitem__, flat))
    chars = text = None
    if len(vocab) + 4 <= sys.maxunicode + 1:  # the words' characters and four sentinels
        chars = {w: chr(i) for w, i in vocab.items()}
        text = "".join(map(chr, ids))
    return UnitWords(vocab, ids, np.cumsum(n), n, chars, text)


def align_units(words: UnitWords, text: str, min_share: float = DEFAULT_MIN_SHARE) -> list[bool]:
    """:func:`align` with the units' words prepared once (:func:`unit_words`)."""
    if not 0.0 <= min_share < 1.0:
        raise ValueError(f"min_share must be in [0, 1), got {min_share!r}")
    if len(words.lengths) == 0:
        return []
    b = norm_words(text or "")
    m = len(words.ids)
    if words.text is not None and m * len(b) <= _TRIM_ABOVE:
        found = _found_rapidfuzz(words, b)
    else:
        hits = _align_ids(words.ids, list(map(words.vocab.get, b, repeat(-1))))
        found = np.concatenate(([0], np.cumsum(hits, dtype=np.int64)))
    n = words.lengths
    counts = found[words.ends] - found[words.ends - n]
    # the same double product and comparison as sum(hits) > min_share * k in Python
    return _fill_wordless(counts > min_share * n, n > 0)


def _found_rapidfuzz(words: UnitWords, b: list[str]) -> np.ndarray:
    """``found[i]``: how many of the first ``i`` unit words :func:`_align_ids` matches to the
    text words ``b``, on a page small enough for it to take :func:`_align_rapidfuzz`.

    The same call on the words as characters (:class:`UnitWords`): a text word the units
    lack becomes ``""`` (dropped, as ``_align_ids`` drops it), and four characters past
    the words' are the distinct sentinels. rapidfuzz's result depends only on which items
    are equal, so the matching is the same.
    """
    found = np.zeros(len(words.ids) + 1, np.int64)
    t = "".join(map(words.chars.get, b, repeat("")))
    if t and words.ids:
        v = len(words.vocab)
        ops = LCSseq.editops(f"{chr(v)}{t}{chr(v + 1)}", f"{chr(v + 2)}{words.text}{chr(v + 3)}")
        for block in ops.as_matching_blocks():
            # the sentinel shifts every unit word by one: block.b is found's index already
            found[block.b : block.b + block.size] = 1
        np.cumsum(found, out=found)
    return found


def align(units: Sequence[Unit], text: str, min_share: float = DEFAULT_MIN_SHARE) -> list[bool]:
    """Kept mask: a unit is kept when > ``min_share`` of its words are found, in order, in ``text``.

    One global word alignment (LCS) of all units' words against the text's
    words; see the module docstring for the normalisation and for units made
    only of punctuation.
    """
    if not 0.0 <= min_share < 1.0:
        raise ValueError(f"min_share must be in [0, 1), got {min_share!r}")
    return align_units(unit_words(units), text, min_share)


def _fill_wordless(kept: np.ndarray, decided: np.ndarray) -> list[bool]:
    """Decide units with no alignable word (``decided`` False) from their nearest
    decided neighbours: kept when the nearest on both sides are kept."""
    n = len(kept)
    idx = np.arange(n)
    last = np.maximum.accumulate(np.where(decided, idx, -1))
    before = (last >= 0) & kept[np.maximum(last, 0)]
    nxt = np.minimum.accumulate(np.where(decided, idx, n)[::-1])[::-1]
    after = (nxt < n) & kept[np.minimum(nxt, n - 1)]
    return np.where(decided, kept, before & after).tolist()


def gold_units(
    page: Page,
    content_classes: Sequence[str] | None = None,
    min_share: float = DEFAULT_MIN_SHARE,
    tree: lxml.html.HtmlElement | None = None,
) -> list[Unit]:
    """The page's labelled evaluation units (cached on ``page.gold``).

    Returns ``page.gold.units`` when already set. Pages with an annotated copy
    (``gold.annotation``, L3S-GN1) are labelled from their spans, with
    ``content_classes`` defaulting to the classes the reader used for the gold
    text (``gold.annotation.content_classes``), else sel1+sel2; every other page
    is segmented from its raw HTML (``tree``, when the caller has parsed it already;
    segmenting does not change it) and labelled by aligning the units with ``gold.text``.
    """
    return _gold_units(page, content_classes, min_share, tree)[0]


def gold_unit_words(
    page: Page, tree: lxml.html.HtmlElement | None = None, visible: list[str] | None = None
) -> tuple[list[Unit], UnitWords]:
    """:func:`gold_units` (default classes and share) and their :func:`unit_words`, which
    labelling the units from the gold text computes on the way.

    ``visible``: when the units are segmented from the page here, the walk also appends
    the page's visible text pieces to it (:func:`evalkit.core.units.segment`); else it stays
    as it is.
    """
    units, words = _gold_units(page, None, DEFAULT_MIN_SHARE, tree, visible)
    return units, words if words is not None else unit_words(units)


def _gold_units(
    page: Page,
    content_classes: Sequence[str] | None,
    min_share: float,
    tree: lxml.html.HtmlElement | None,
    visible: list[str] | None = None,
) -> tuple[list[Unit], UnitWords | None]:
    gold = page.gold
    if gold.units is not None:
        return gold.units, None
    words = None
    annotation = gold.annotation
    if annotation is not None:
        if content_classes is None:
            content_classes = annotation.content_classes or DEFAULT_CONTENT_CLASSES
        units = span_units(
            annotation.html,
            content_classes=content_classes,
            source=annotation.source or page.source or page.id,
        )
        source = "spans"
    else:
        units = segment(page.tree() if tree is None else tree, visible=visible)
        words = unit_words(units)
        for unit, keep in zip(units, align_units(words, gold.text, min_share=min_share)):
            unit.label = CONTENT if keep else NOISE
        source = "aligned"
    gold.units, gold.unit_source = units, source
    return units, words


def project(page: Page, text: str, min_share: float = DEFAULT_MIN_SHARE) -> list[bool]:
    """Kept mask over the page's gold units for a method's output ``text``."""
    return align(gold_units(page), text, min_share=min_share)
