"""Charikar's simhash of a weighted term set, and the Hamming distance between two.

Shared by the proposed detector (``evalkit.proposed.dedup``: TWC-PFM weights) and
the plain simhash baseline (``baselines.simhash``: term frequencies), so that the
two differ only in the weight (docs/floors.md: a method imports core, never
another method). A term is hashed with xxHash seed 0 (XXH64 for 64 bits, XXH32
for 32, XXH3-128 for 128); its weight is added to the counter of every bit that
is 1 in the hash and subtracted from every bit that is 0; the fingerprint bit k
is 1 iff counter k ends positive (a counter of exactly 0 gives bit 0). Bit k of
the fingerprint is bit k, least significant first, of the hash.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from itertools import repeat

import numpy as np
import xxhash

__all__ = [
    "DEFAULT_BITS",
    "SUPPORTED_BITS",
    "checked_hamming",
    "fingerprint",
    "hamming",
    "term_hash",
    "within",
]

#: fingerprint width; 32 and 128 use XXH32 and XXH3-128
DEFAULT_BITS = 64
SUPPORTED_BITS = (32, 64, 128)


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


# row b: the signs of the 8 bits of byte value b, least significant first (+1 for 1, -1 for 0)
_BYTE_SIGNS = np.where(np.arange(256)[:, None] >> np.arange(8) & 1, 1.0, -1.0)


def _bit_signs(hashes: list[int], bits: int) -> np.ndarray:
    """(terms x bits) matrix of +1 (hash bit k is 1) and -1 (bit k is 0)."""
    n = len(hashes)
    if bits == 128:
        lo = np.fromiter((h & 0xFFFFFFFFFFFFFFFF for h in hashes), dtype="<u8", count=n)
        hi = np.fromiter((h >> 64 for h in hashes), dtype="<u8", count=n)
        words = np.stack([lo, hi], axis=1)
    else:
        words = np.fromiter(hashes, dtype="<u8" if bits == 64 else "<u4", count=n)
    # the little-endian bytes of each hash in order: bit k lands in column k
    return np.take(_BYTE_SIGNS, words.view(np.uint8), axis=0).reshape(n, bits)


def _weighted_bits(weights: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """The simhash counters: one matrix-vector product, as every fingerprint has summed them."""
    return weights @ signs


def _as_int(positive: np.ndarray) -> int:
    """The fingerprint whose bit k is ``positive[k]``."""
    return int.from_bytes(np.packbits(positive, bitorder="little").tobytes(), "little")


def fingerprint(weights: dict[str, float], bits: int = DEFAULT_BITS) -> int:
    """Weighted simhash of a block: bit k is 1 iff sum of +w (hash bit 1) / -w (bit 0) > 0.

    Terms are hashed with :func:`term_hash`; an empty block gives 0.
    """
    if bits not in SUPPORTED_BITS:
        raise ValueError(f"bits must be one of {SUPPORTED_BITS}, got {bits!r}")
    if not weights:
        return 0
    w = np.fromiter(weights.values(), dtype=np.float64, count=len(weights))
    signs = _bit_signs(list(map(term_hash, weights, repeat(bits))), bits)
    return _as_int(_weighted_bits(w, signs) > 0)


def hamming(a: int, b: int) -> int:
    """Number of differing bits between two fingerprints."""
    return (a ^ b).bit_count()


def checked_hamming(a, b, bits: int, who: str) -> int:
    """:func:`hamming` of two fingerprints a ``bits``-wide detector made; anything else (not a
    non-negative int, or wider) is a ValueError naming the detector ``who``."""
    for sig in (a, b):
        if not isinstance(sig, int) or isinstance(sig, bool) or sig < 0:
            raise ValueError(f"{who} compares integer fingerprints, got {sig!r}")
        if sig.bit_length() > bits:
            raise ValueError(
                f"fingerprint has {sig.bit_length()} bits; this detector makes {bits}-bit ones"
            )
    return hamming(a, b)


def within(k: int) -> Callable[[int, int], bool]:
    """The near-duplicate rule of fingerprints, written once: two are near duplicates when they
    differ in at most ``k`` bits (a closure, so the hot loops call one function per pair)."""

    def near(a: int, b: int) -> bool:
        return (a ^ b).bit_count() <= k

    return near
