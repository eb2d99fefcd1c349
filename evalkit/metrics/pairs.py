"""Near-duplicate detection scored on pairs: pair P/R/F1 and exact-set accuracy.

Definitions in docs/metrics.md, "Near-duplicate pairs".
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence

from evalkit.metrics.scores import PRF, prf_from_counts


def _pair(a, b) -> tuple:
    if a == b:
        raise ValueError(f"a pair needs two different items, got ({a!r}, {b!r})")
    return (a, b) if a < b else (b, a)


def pairs_from_groups(groups: Iterable[Iterable[Hashable]]) -> set[tuple]:
    """All unordered pairs ``(i, j)`` with i < j inside each duplicate group
    (a group of k items gives k(k-1)/2 pairs; singletons give none)."""
    out: set[tuple] = set()
    for group in groups:
        items = sorted(set(group))
        for x in range(len(items)):
            for y in range(x + 1, len(items)):
                out.add((items[x], items[y]))
    return out


def pair_prf(pred_pairs: Iterable[Sequence], true_pairs: Iterable[Sequence]) -> PRF:
    """Precision, recall and F1 of predicted against true duplicate pairs.

    Pairs are unordered ((a, b) == (b, a)) and counted once; empty rules of
    :func:`prf_from_counts` (no true and no predicted pairs gives F1 = 1).
    """
    pred = {_pair(*p) for p in pred_pairs}
    true = {_pair(*p) for p in true_pairs}
    tp = len(pred & true)
    return prf_from_counts(tp, len(pred) - tp, len(true) - tp)


def exact_set_accuracy(
    pred_pairs: Iterable[Sequence], true_pairs: Iterable[Sequence], items: Iterable[Hashable] | int
) -> float:
    """Share of items whose set of duplicates is exactly right.

    For each item (``items``, or ``range(items)`` for an int), its duplicate
    set is the other members of the pairs it is in; an item counts as right
    when the predicted and true sets are equal (both empty included).
    """
    universe = list(range(items)) if isinstance(items, int) else list(items)
    if not universe:
        return math.nan

    def neighbours(pairs):
        nb: dict[Hashable, set] = {}
        for a, b in (_pair(*p) for p in pairs):
            nb.setdefault(a, set()).add(b)
            nb.setdefault(b, set()).add(a)
        return nb

    pred, true = neighbours(pred_pairs), neighbours(true_pairs)
    known = set(universe)
    stray = (set(pred) | set(true)) - known
    if stray:
        raise ValueError(f"pairs name items outside the item list: {sorted(stray, key=repr)[:5]}")
    empty: set = set()
    return sum(pred.get(i, empty) == true.get(i, empty) for i in universe) / len(universe)
