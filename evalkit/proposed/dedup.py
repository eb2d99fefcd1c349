"""Stage 1.3 of the proposed method: secondary noise removal with a modified simhash.

Saravanan & Sathya Bama (2020), §3.3 (``/work/shared/papers/000_...txt``);
specification in METHODS.md §1.3.

The paper, in short: each block is reduced to index terms (lower case, stop
words removed, Porter stems). Every distinct term gets a weight that mixes its
frequency with its *proximity* to the other terms (TWC-PFM, Algorithm 1): for
each ordered term pair (t_i, t_j) two pointers walk the position lists, and
whenever an occurrence of t_j falls between an occurrence of t_i and the next
occurrence of t_i, the term proximity 1/(p_j - p_i) is added to t_i's sum.
The weight is (frequency + proximity sum) / 2 / N_t, N_t the number of
distinct terms. Each distinct term is hashed with 64-bit xxHash; the weight is
added to the counter of every bit that is 1 and subtracted from every bit that
is 0, and the fingerprint bit is 1 iff its counter ends positive (Charikar's
simhash with the TWC-PFM weight in place of the frequency). Blocks whose
fingerprints are close are duplicates or near duplicates and are removed.

Our reading (METHODS §1.3):

* For an occurrence p of term a, each distinct other term b contributes once,
  at its *first* occurrence q after p, and only when q comes before the next
  occurrence of a. After the last occurrence of a the window runs to the end
  of the block (the pseudocode's ``*ptr_{i+1}`` past the end of the list is
  treated as +infinity). Pairs of a term with itself are not counted.
* The pseudocode divides by 2 and by N_t; Eq. 3 only by N_t. We keep both, as
  the pseudocode does. Neither can change a fingerprint: both scale every
  weight of a block by the same positive constant, and the sign of each bit
  counter is invariant under a positive scaling.
* Hash: XXH64 (seed 0) of the UTF-8 term for 64 bits, XXH32 for 32 bits,
  XXH3-128 for 128 bits. Bit k of the fingerprint is bit k (least significant
  first) of the hash. A counter of exactly 0 gives bit 0, as in the paper.
* Near duplicate: Hamming distance <= ``k`` (default 3; the paper does not
  state its threshold). Blocks are taken in document order and a block close
  to an earlier *kept* block is the duplicate (the paper drops b7, the later
  copy of b2). A block without terms has no fingerprint and is never compared.

Departures: none in the arithmetic. The speed-up (one pass over positions
with a recency list, see :func:`twc_pfm`) computes exactly the same sums as
the paper's pairwise pointer walk, which is O(N_t^2 * N).
"""

from __future__ import annotations

from functools import lru_cache

import xxhash

__all__ = [
    "twc_pfm",
    "term_hash",
    "fingerprint",
    "hamming",
    "DEFAULT_BITS",
    "DEFAULT_K",
    "SUPPORTED_BITS",
]

DEFAULT_BITS = 64
DEFAULT_K = 3
SUPPORTED_BITS = (32, 64, 128)


def twc_pfm(terms: list[str]) -> dict[str, float]:
    """TWC-PFM weight of every distinct term of a block (Algorithm 1).

    ``w(a) = (f(a) + sum of 1/(q - p)) / 2 / N_t`` where, for every
    occurrence p of a and every other term b, q is b's first occurrence
    after p, counted only when it comes before a's next occurrence.

    One pass from left to right: keep the distinct terms in order of their
    latest occurrence. At position q (term b) the terms seen more recently
    than b's previous occurrence are exactly those whose current occurrence p
    has q as the first b after it, before their own next occurrence; each of
    them gets 1/(q - p). The work is the number of contributing pairs.
    """
    if not terms:
        return {}
    sums: dict[str, float] = {}
    freq: dict[str, int] = {}
    last: dict[str, int] = {}  # term -> latest position; dict order = recency
    for q, b in enumerate(terms):
        before = last.pop(b, -1)
        for a in reversed(last):
            p = last[a]
            if p < before:
                break
            sums[a] = sums.get(a, 0.0) + 1.0 / (q - p)
        last[b] = q
        freq[b] = freq.get(b, 0) + 1
    n_t = len(freq)
    return {t: (f + sums.get(t, 0.0)) / 2.0 / n_t for t, f in freq.items()}


@lru_cache(maxsize=400_000)
def term_hash(term: str, bits: int = DEFAULT_BITS) -> int:
    """The xxHash of a term as an unsigned integer of ``bits`` bits (cached)."""
    data = term.encode("utf-8")
    if bits == 64:
        return xxhash.xxh64_intdigest(data, seed=0)
    if bits == 32:
        return xxhash.xxh32_intdigest(data, seed=0)
    if bits == 128:
        return xxhash.xxh3_128_intdigest(data, seed=0)
    raise ValueError(f"bits must be one of {SUPPORTED_BITS}, got {bits!r}")


def fingerprint(weights: dict[str, float], bits: int = DEFAULT_BITS) -> int:
    """Weighted simhash of a block: bit k is 1 iff sum of +w (hash bit 1) / -w (bit 0) > 0."""
    if bits not in SUPPORTED_BITS:
        raise ValueError(f"bits must be one of {SUPPORTED_BITS}, got {bits!r}")
    counters = [0.0] * bits
    for term, w in weights.items():
        h = term_hash(term, bits)
        for k in range(bits):
            if (h >> k) & 1:
                counters[k] += w
            else:
                counters[k] -= w
    out = 0
    for k, v in enumerate(counters):
        if v > 0:
            out |= 1 << k
    return out


def hamming(a: int, b: int) -> int:
    """Number of differing bits between two fingerprints."""
    return (a ^ b).bit_count()
