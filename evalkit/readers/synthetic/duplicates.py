"""Duplicate and near-duplicate content blocks planted inside a page.

The *secondary* noise of Saravanan & Sathya Bama (2020, docs/papers.md#saravanan2020,
section 3.3): inside a page, one content block may be repeated verbatim and
one repeated with a few single-word substitutions, each copy placed after its
original. Near copies differ by word substitutions only (no insertions or
deletions), so "differs by k words" is a position-wise count.
"""

from __future__ import annotations

import random

from evalkit.readers.synthetic.article import _Article, _Para
from evalkit.readers.synthetic.topics import _VOCAB

# Each page independently gets an exact copy and a near copy with these odds,
# so some pages have no duplicates and "exactly right" has a negative case.
EXACT_COPY_RATE = 0.8
NEAR_COPY_RATE = 0.8
NEAR_EDITS = (1, 3)  # inclusive range of word substitutions in a near copy


def _near_copy(paras: list[_Para], topic: str, rng: random.Random) -> tuple[list[_Para], int]:
    """The paragraphs with 1-3 single-word substitutions; returns (copy, number of edits)."""
    spots = [
        (i, j)
        for i, p in enumerate(paras)
        for j, t in enumerate(p.tokens)
        if t.isalpha() and t.islower() and len(t) > 3
    ]
    n = min(rng.randint(*NEAR_EDITS), len(spots))
    out = [_Para(list(p.tokens), p.link, p.href) for p in paras]
    pool = _VOCAB[topic]["N"] + _VOCAB[topic]["A"]
    for i, j in rng.sample(spots, n):
        old = out[i].tokens[j]
        out[i].tokens[j] = rng.choice([w for w in pool if w != old])
    return out, n


def _plant_copies(art: _Article, rng: random.Random) -> list[tuple[str, int, list[_Para], int]]:
    """The article's blocks in page order as ``(fine, original block index, paragraphs,
    edits)``, with an exact and a near copy (each at its rate) placed after its original."""
    n = len(art.blocks)
    sequence: list[tuple[str, int, list[_Para], int]] = [
        ("content", i, b, 0) for i, b in enumerate(art.blocks)
    ]
    for rate, near in ((EXACT_COPY_RATE, False), (NEAR_COPY_RATE, True)):
        if rng.random() >= rate:
            continue
        orig = rng.randrange(n)
        paras, edits = (
            _near_copy(art.blocks[orig], art.topic, rng) if near else (art.blocks[orig], 0)
        )
        pos_orig = next(k for k, x in enumerate(sequence) if x[0] == "content" and x[1] == orig)
        at = rng.randint(pos_orig + 1, len(sequence))
        sequence.insert(at, ("duplicate", orig, paras, edits))
    return sequence
