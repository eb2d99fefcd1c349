"""Term sets and their Jaccard similarity: the features of the set-based near-duplicate detectors.

The Jaccard baseline (``baselines.jaccard``) computes |A ∩ B| / |A ∪ B| exactly and
the MinHash baseline (``baselines.minhash``) estimates the same quantity; both read
the features here, so that the two differ only in how they measure (docs/floors.md:
a method imports core, never another method). The features of a block are the set
of its index terms, built exactly as the proposed detector builds them
(``evalkit.core.text.terms``: lowercase ``\\w+`` words with a letter, stop words dropped,
original Porter stemming), or, with ``shingle=k > 1``, the set of contiguous k-term
shingles of that term sequence.
"""

from __future__ import annotations

from evalkit.core.text import shingles, terms

__all__ = ["DEFAULT_SHINGLE", "DEFAULT_THRESHOLD", "features", "jaccard"]

#: duplicate iff J >= this (docs/methods/detectors.md)
DEFAULT_THRESHOLD = 0.8
#: 1 = plain term sets; k > 1 = contiguous k-term shingles
DEFAULT_SHINGLE = 1


def features(
    text: str, shingle: int = DEFAULT_SHINGLE, stoplist: str = "english", stemmer: str = "porter"
) -> frozenset[str]:
    """The feature set of a text: its distinct terms, or its distinct k-term shingles.

    Shingles are joined with a space (terms never contain one), so every
    feature is a plain string that can also be hashed by MinHash. A text
    shorter than ``shingle`` terms gives one shorter shingle, as
    ``evalkit.core.text.shingles`` defines.
    """
    seq = terms(text, stoplist, stemmer)
    if shingle == 1:
        return frozenset(seq)
    return frozenset(" ".join(g) for g in shingles(seq, shingle))


def jaccard(a: frozenset, b: frozenset) -> float:
    """|a ∩ b| / |a ∪ b|; two empty sets give 0.0 (nothing in common to speak of)."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0
