"""Longest common subsequence of two token sequences, bit-parallel.

LCS length is the bit-parallel algorithm of Allison & Dix (1986) in the form
of Hyyrö (2004), on Python integers used as bit vectors (docs/metrics.md,
"lcs"). :func:`position_masks` builds the match masks; the alignment of gold
text to units (:mod:`evalkit.align`) uses them too.
"""

from __future__ import annotations

from collections.abc import Container, Hashable, Sequence


def lcs_length(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Length of the longest common subsequence of two token sequences.

    Bit-parallel (Allison & Dix 1986; Hyyrö 2004): bit i of V is 0 where the
    LCS table's column steps up at row i; for each token y of the other
    sequence, U = V & M[y] and V = (V + U) | (V - U), where M[y] has bit i set
    where the first sequence holds y. The answer is the number of zero bits.
    Time O(len(a) * len(b) / word size); the shorter sequence drives the Python
    loop and the longer one is the bit vector.
    """
    if len(a) < len(b):
        a, b = b, a
    # a common prefix and suffix belong to some LCS: count them without the bit loop
    head = 0
    while head < len(b) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < len(b) - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
    a, b = a[head:len(a) - tail], b[head:len(b) - tail]
    m = len(a)
    if m == 0 or not b:
        return head + tail
    match = position_masks(a, only=set(b))
    full = (1 << m) - 1
    v = full
    for y in b:
        mask = match.get(y)
        if mask is None:
            continue  # U = 0 leaves V unchanged
        u = v & mask
        v = ((v + u) | (v - u)) & full
    return head + tail + m - v.bit_count()


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

