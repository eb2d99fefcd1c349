"""A word-level diff of an extraction against its gold, fast on long pages.

The opcodes are those of a longest common subsequence of the two word lists (rapidfuzz's
bit-parallel ``Indel.opcodes`` on word ids). Its cost grows with the product of the lengths,
so a long pair is first cut at anchors, as Bram Cohen's patience diff does: the words that
occur exactly once in each list, in the longest run of them in the same order (patience
sorting), are matched, and only the stretches between them are aligned word by word.
A 50,000-word page then diffs in a fraction of a second (docs/report.md gives the measure).
"""

from __future__ import annotations

import bisect
from collections import Counter

from rapidfuzz.distance import Indel

__all__ = ["WORDS_DIRECT", "word_opcodes"]

#: pairs whose length product is below this are aligned directly (about 0.05 s at the bound)
WORDS_DIRECT = 2_000_000

Opcode = tuple[str, int, int, int, int]


def _ids(a: list[str], b: list[str]) -> tuple[list[int], list[int]]:
    table: dict[str, int] = {}
    return (
        [table.setdefault(w, len(table)) for w in a],
        [table.setdefault(w, len(table)) for w in b],
    )


def _direct(a: list[int], b: list[int], i0: int, j0: int) -> list[Opcode]:
    if not a and not b:
        return []
    if not a:
        return [("insert", i0, i0, j0, j0 + len(b))]
    if not b:
        return [("delete", i0, i0 + len(a), j0, j0)]
    return [
        (op.tag, op.src_start + i0, op.src_end + i0, op.dest_start + j0, op.dest_end + j0)
        for op in Indel.opcodes(a, b)
    ]


def _anchors(a: list[int], b: list[int]) -> list[tuple[int, int]]:
    """Pairs (i, j) of words unique in both lists, the longest run in the same order."""
    ca, cb = Counter(a), Counter(b)
    where_b = {w: j for j, w in enumerate(b) if cb[w] == 1}
    pairs = [(i, where_b[w]) for i, w in enumerate(a) if ca[w] == 1 and w in where_b]
    # longest increasing subsequence of the j's (patience sorting, O(n log n))
    tails: list[int] = []
    tail_at: list[int] = []
    back = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        pos = bisect.bisect_left(tails, j)
        if pos == len(tails):
            tails.append(j)
            tail_at.append(k)
        else:
            tails[pos] = j
            tail_at[pos] = k
        back[k] = tail_at[pos - 1] if pos else -1
    out = []
    k = tail_at[-1] if tail_at else -1
    while k >= 0:
        out.append(pairs[k])
        k = back[k]
    return out[::-1]


def _diff(a: list[int], b: list[int], i0: int, j0: int, depth: int) -> list[Opcode]:
    # the common start and end first: cheap and often most of a page
    start = 0
    while start < len(a) and start < len(b) and a[start] == b[start]:
        start += 1
    end = 0
    while (
        end < len(a) - start and end < len(b) - start and a[len(a) - 1 - end] == b[len(b) - 1 - end]
    ):
        end += 1
    ops: list[Opcode] = []
    if start:
        ops.append(("equal", i0, i0 + start, j0, j0 + start))
    ma, mb = a[start : len(a) - end], b[start : len(b) - end]
    mi, mj = i0 + start, j0 + start
    anchors = _anchors(ma, mb) if len(ma) * len(mb) > WORDS_DIRECT and depth < 8 else []
    if not anchors:
        ops += _direct(ma, mb, mi, mj)
    else:
        pi = pj = 0
        for i, j in anchors:
            ops += _diff(ma[pi:i], mb[pj:j], mi + pi, mj + pj, depth + 1)
            ops.append(("equal", mi + i, mi + i + 1, mj + j, mj + j + 1))
            pi, pj = i + 1, j + 1
        ops += _diff(ma[pi:], mb[pj:], mi + pi, mj + pj, depth + 1)
    if end:
        ops.append(("equal", i0 + len(a) - end, i0 + len(a), j0 + len(b) - end, j0 + len(b)))
    return ops


def _merge(ops: list[Opcode]) -> list[Opcode]:
    """Adjacent opcodes of one kind as one; a delete next to an insert as a replace."""
    out: list[Opcode] = []
    for op in ops:
        if op[1] == op[2] and op[3] == op[4]:
            continue
        if out:
            tag, i1, _, j1, _ = out[-1]
            if op[0] == tag or (tag != "equal" and op[0] != "equal"):
                kind = tag if op[0] == tag else "replace"
                out[-1] = (kind, i1, op[2], j1, op[4])
                continue
        out.append(op)
    return [
        (
            "replace"
            if t != "equal" and i1 < i2 and j1 < j2
            else "delete"
            if t != "equal" and i1 < i2
            else "insert"
            if t != "equal"
            else t,
            i1,
            i2,
            j1,
            j2,
        )
        for t, i1, i2, j1, j2 in out
    ]


def word_opcodes(gold: list[str], text: list[str]) -> list[Opcode]:
    """difflib-style opcodes ``(tag, i1, i2, j1, j2)`` turning ``gold`` into ``text``:
    ``equal``, ``delete`` (gold words the extraction misses), ``insert`` (words it adds) and
    ``replace``; they cover both lists in order."""
    a, b = _ids(gold, text)
    return _merge(_diff(a, b, 0, 0, 0))
