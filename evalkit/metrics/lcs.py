"""Longest common subsequence of two token sequences, bit-parallel.

LCS length is the bit-parallel algorithm of Allison & Dix (1986) in the form
of Hyyrö (2004) (docs/metrics.md, "lcs"), compiled in rapidfuzz.
:func:`position_masks` builds match masks on Python integers used as bit
vectors, for the alignment of text to units (:mod:`evalkit.core.align`) on pages too
large for rapidfuzz's full traceback matrix.
"""

from __future__ import annotations

from collections.abc import Container, Hashable, Sequence
from itertools import repeat

from rapidfuzz.distance import LCSseq


def lcs_length(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Length of the longest common subsequence of two token sequences.

    rapidfuzz's compiled bit-parallel LCS (``LCSseq.similarity``; Allison & Dix
    1986, Hyyrö 2004), O(len(a) * len(b) / 64). Tokens are numbered first (equal
    tokens, equal numbers): rapidfuzz compares other objects by their hash, and two
    different words with one hash would count as a match.
    """
    if not a or not b:
        return 0
    ids: dict[Hashable, int] = {}
    a_ids = [ids.setdefault(x, len(ids)) for x in a]
    # a token of b that a lacks can match nothing: -1 for all of them
    return lcs_length_ids(a_ids, list(map(ids.get, b, repeat(-1))))


def lcs_length_ids(a: list[int], b: list[int]) -> int:
    """:func:`lcs_length` of two sequences already numbered (equal tokens, equal ints)."""
    return int(LCSseq.similarity(a, b)) if a and b else 0


def position_masks(seq: Sequence[Hashable], only: Container | None = None) -> dict[Hashable, int]:
    """Bit-parallel match masks: for each token, an int with bit ``i`` set where ``seq[i]`` is it.

    ``only`` restricts the tokens (tokens of the other sequence are the only ones
    an LCS can use). Built from position lists through a byte buffer, in time
    linear in ``len(seq)`` plus the masks' sizes; OR-ing ``1 << i`` into an int
    would copy the growing mask at every position, quadratic on long pages.
    """
    positions: dict[Hashable, list[int]] = {}
    for i, x in enumerate(seq):
        if only is None or x in only:
            positions.setdefault(x, []).append(i)
    masks = {}
    for x, pos in positions.items():
        buf = bytearray(pos[-1] // 8 + 1)
        for i in pos:
            buf[i >> 3] |= 1 << (i & 7)
        masks[x] = int.from_bytes(buf, "little")
    return masks
