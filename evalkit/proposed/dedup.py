"""Stage 1.3 of the proposed method: secondary noise removal with a modified simhash.

Saravanan & Sathya Bama (2020), §3.3 (docs/papers.md#saravanan2020);
specification in docs/methods/proposed.md#33-secondary-noise-removal.

The paper, in short: each block is reduced to index terms (lower case, stop
words removed, Porter stems). Every distinct term gets its TWC-PFM weight, a
mix of its frequency and its proximity to the other terms
(:mod:`evalkit.proposed.term_weights`). Each distinct term is hashed with 64-bit
xxHash; the weight is added to the counter of every bit that is 1 and
subtracted from every bit that is 0, and the fingerprint bit is 1 iff its
counter ends positive (Charikar's simhash with the TWC-PFM weight in place of
the frequency). Blocks whose fingerprints are close are duplicates or near
duplicates and are removed.

Our reading (docs/methods/proposed.md#33-secondary-noise-removal):

* Hash: XXH64 (seed 0) of the UTF-8 term for 64 bits, XXH32 for 32 bits,
  XXH3-128 for 128 bits. Bit k of the fingerprint is bit k (least significant
  first) of the hash. A counter of exactly 0 gives bit 0, as in the paper.
* Near duplicate: Hamming distance <= ``k`` (default 3; the paper does not
  state its threshold). Blocks are taken in document order and a block close
  to an earlier *kept* block is the duplicate (the paper drops b7, the later
  copy of b2). A block without terms has no fingerprint and is never compared.

Other readings, each a setting of the dedup stage (docs/readings.md): the TWC-PFM
pair rule (``proximity``: the pseudocode's pointer walk or the prose's "the one with
the smallest distance", :func:`evalkit.proposed.term_weights.twc_pfm_nearest`); which
member of a near-duplicate pair goes and what a block is compared with
(:func:`match_ordered`: ``duplicate_keeps`` first, last or longest; ``compare_with``
kept or all blocks).

Departures: none in the arithmetic (the weights' fast paths are described in
:mod:`evalkit.proposed.term_weights`).

A page's blocks are fingerprinted together (:func:`fingerprints`,
``ModifiedSimhash.fingerprint_many``): one exact pass gives the weights of all
the blocks below 160 terms, a gap pass (``_gap_weights``: the FFT part, then
only the pairs inside the gaps between two occurrences of a term) each longer
one, and all the counters are summed at once (by 4-bit nibble of the hash).
Summation order and the long path's rounding can only decide a bit whose
counter lies within rounding of zero; a block with a counter that close (exact
ties included) is redone by the pure-Python reference, so every fingerprint is
bit for bit the reference's: the weights of ``_twc_pfm_small`` summed as
:func:`fingerprint` sums them.
"""

from __future__ import annotations

from itertools import chain, repeat
from typing import Any

import numpy as np
import xxhash

# the simhash sum and term hashing are core, shared with baselines.simhash (docs/floors.md)
from evalkit.core.fingerprint import (
    DEFAULT_BITS,
    SUPPORTED_BITS,
    fingerprint,
    hamming,
    term_hash,
    within,
)
from evalkit.core.method import Detector
from evalkit.core.text import STEMMERS, STOPLISTS
from evalkit.core.text import terms as text_terms
from evalkit.core.validate import check_choice, check_int
from evalkit.proposed.term_weights import (
    _NUMPY_MIN_TERMS,
    PROXIMITY,
    _exact_twc_pfm,
    _fft_weights,
    _gap_weights,
    _linked,
    _ranges,
    twc_pfm,
)

__all__ = [
    "COMPARE_WITH",
    "DEFAULT_BITS",
    "DEFAULT_K",
    "DUPLICATE_KEEPS",
    "PROXIMITY",
    "SUPPORTED_BITS",
    "ModifiedSimhash",
    "fingerprint",
    "fingerprints",
    "hamming",
    "match_ordered",
    "term_hash",
]

#: near duplicate iff Hamming distance <= k (the paper's k = 3, after Manku et al. 2007)
DEFAULT_K = 3
#: which member of a near-duplicate pair stays (``duplicate_keeps``), and what a block is
#: compared with (``compare_with``): the first value of each is the default reading
DUPLICATE_KEEPS = ("first", "last", "longest")
COMPARE_WITH = ("kept", "all")
# fingerprints(): from here a block's weights come from _gap_weights, unless its gaps hold
# more positions than the next (arrays past 256 KB cost more in page faults than _fft_weights)
_GAP_MIN_TERMS = 160


# row v: the signs of the 4 bits of nibble value v, least significant first (+1 for 1, -1 for 0)
_NIBBLE_SIGNS = np.where(np.arange(16)[:, None] >> np.arange(4) & 1, 1.0, -1.0)
# a counter within this share (times the block's distinct terms) of the block's weight
# mass of zero may have its sign decided by rounding: such blocks are redone by the reference
_TIE_TOL = 2.0**-32
# the term table of :func:`fingerprints` is emptied when it grows past this many terms
_TABLE_MAX = 400_000


class _HashTable(dict):
    """Ids of the terms :func:`fingerprints` has seen, kept across calls (term -> id), and
    each id's hash as its little-endian bytes (row ``id`` of ``rows``: bit k is bit k % 8
    of byte k // 8). A new term gets the next id when it is first looked up; its hash is
    made after the lookup pass, with the other new terms'."""

    def __init__(self, bits: int):
        super().__init__()
        self.bits = bits
        self.rows = np.empty((1024, bits // 8), np.uint8)
        self.new: list[str] = []

    def __missing__(self, term: str) -> int:
        self[term] = i = len(self)
        self.new.append(term)
        return i

    def lookup(self, blocks: list[list[str]]) -> np.ndarray:
        """The id of every term of the blocks, one after the other."""
        if len(self) > _TABLE_MAX:
            self.clear()
            self.new.clear()
        ids = np.fromiter(map(self.__getitem__, chain.from_iterable(blocks)), np.int64)
        if self.new:
            new, self.new = self.new, []
            try:
                data = _hash_bytes(new, self.bits)
            except BaseException:  # e.g. a term UTF-8 cannot encode: forget the new ids
                for term in new:
                    del self[term]
                raise
            hi, n_bytes = len(self), self.bits // 8
            if hi > len(self.rows):
                rows = np.empty((max(hi, 2 * len(self.rows)), n_bytes), np.uint8)
                rows[: hi - len(new)] = self.rows[: hi - len(new)]
                self.rows = rows
            self.rows[hi - len(new) : hi] = data
        return ids


_TABLES: dict[int, _HashTable] = {}


def _hash_bytes(terms: list[str], bits: int) -> np.ndarray:
    """:func:`term_hash` of each term (uncached) as a row of its little-endian bytes."""
    if bits == 128:
        data = b"".join(
            [h.to_bytes(16, "little") for h in map(term_hash.__wrapped__, terms, repeat(128))]
        )
        return np.frombuffer(data, np.uint8).reshape(-1, 16)
    digest, dtype = (
        (xxhash.xxh64_intdigest, "<u8") if bits == 64 else (xxhash.xxh32_intdigest, "<u4")
    )
    words = np.fromiter(map(digest, map(str.encode, terms)), dtype=dtype, count=len(terms))
    return words.view(np.uint8).reshape(-1, bits // 8)


def fingerprints(term_lists: list[list[str]], bits: int = DEFAULT_BITS) -> list[int | None]:
    """``fingerprint(twc_pfm(t), bits)`` of every term sequence (None for an empty one), for
    all the blocks of a page at once, bit for bit the exact reference: the pure-Python
    TWC-PFM weights (:func:`_twc_pfm_small`) summed as :func:`fingerprint` sums them.

    Every token gets a page-wide id of its block's term (one stable sort of block and
    table id), which also links each position to its term's previous and next one. The
    blocks below ``_GAP_MIN_TERMS`` terms get their weights in one exact pass over all
    of them (as :func:`_exact_weights`), the longer ones one :func:`_gap_weights` pass
    each (:func:`_fft_weights` when its gaps are too long). All counters are summed at
    once: the weight mass of each block on each value of each 4-bit nibble of the hash
    (one bincount), times the 16 values' bit signs: another order than the per-block
    matrix-vector product of :func:`fingerprint`. The order (and the long paths'
    rounding, about 1e-15) can only decide a bit whose counter is within rounding of
    zero, so a block with a counter that close (``_TIE_TOL``, far above either error)
    is redone by the reference itself. Exact ties (a counter of exactly 0 gives bit 0)
    are among them.
    """
    if bits not in SUPPORTED_BITS:
        raise ValueError(f"bits must be one of {SUPPORTED_BITS}, got {bits!r}")
    blocks = [b for b in term_lists if b]
    if not blocks:
        return [None] * len(term_lists)
    table = _TABLES.get(bits) or _TABLES.setdefault(bits, _HashTable(bits))
    gid = table.lookup(blocks)
    n, span = len(gid), len(table)
    sizes = np.fromiter(map(len, blocks), np.int64, len(blocks))
    tok_start = sizes.cumsum() - sizes
    # ids of (block, term): sorted by block then table id; a stable sort keeps positions in order
    key = (np.arange(len(blocks)) * span).repeat(sizes) + gid
    order = key.argsort(kind="stable")
    sorted_key = key[order]
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(sorted_key[1:], sorted_key[:-1], out=new[1:])
    tid = np.empty(n, dtype=np.int64)
    tid[order] = new.cumsum() - 1
    prev, nxt = _linked(order, ~new[1:])
    id_key = sorted_key[new]
    id_block = id_key // span
    distinct = np.bincount(id_block, minlength=len(blocks))
    id_start = distinct.cumsum() - distinct
    n_t = distinct[id_block]
    n_ids = len(id_key)
    # the exact pass over the short blocks' positions q (see _exact_weights)
    long = (sizes >= _GAP_MIN_TERMS).nonzero()[0].tolist()
    start = tok_start.repeat(sizes)
    if long:
        q_at = (sizes < _GAP_MIN_TERMS).repeat(sizes).nonzero()[0]
        owner, p = _ranges(np.maximum(prev[q_at] + 1, start[q_at]), q_at)
        q = q_at[owner]
    else:
        q, p = _ranges(np.maximum(prev + 1, start), np.arange(n, dtype=np.int64))
    sums = np.bincount(tid[p], weights=(nxt[p] > q) / (q - p), minlength=n_ids)
    weights = (np.bincount(tid, minlength=n_ids) + sums) / 2.0 / n_t
    for b in long:
        lo, n_b = int(id_start[b]), int(distinct[b])
        o, o_end = int(tok_start[b]), int(tok_start[b] + sizes[b])
        w = _gap_weights(tid[o:o_end] - lo, n_b, prev[o:o_end] - o, nxt[o:o_end] - o)
        weights[lo : lo + n_b] = _fft_weights(tid[o:o_end] - lo, n_b) if w is None else w
    # the counters: each block's weight mass on each value of each 4-bit nibble of the hash,
    # times the values' bit signs (nibble j holds bits 4j .. 4j + 3)
    rows = table.rows[id_key - id_block * span]
    n_nib = bits // 4
    nibbles = np.empty((n_ids, n_nib), dtype=np.intp)
    np.bitwise_and(rows, 15, out=nibbles[:, 0::2])
    np.right_shift(rows, 4, out=nibbles[:, 1::2])
    nibbles += (id_block * (n_nib * 16))[:, None] + np.arange(0, n_nib * 16, 16)
    mass = np.bincount(
        nibbles.ravel(), weights=weights.repeat(n_nib), minlength=len(blocks) * n_nib * 16
    )
    counters = (mass.reshape(-1, 16) @ _NIBBLE_SIGNS).reshape(len(blocks), bits)
    close = np.abs(counters) <= (np.add.reduceat(weights, id_start) * distinct * _TIE_TOL)[:, None]
    n_bytes = bits // 8
    packed = np.packbits(counters > 0, axis=1, bitorder="little").tobytes()
    found = [
        int.from_bytes(packed[i : i + n_bytes], "little") for i in range(0, len(packed), n_bytes)
    ]
    for b in close.any(axis=1).nonzero()[0].tolist():
        found[b] = fingerprint(_exact_twc_pfm(blocks[b]), bits)
    it = iter(found)
    return [next(it) if b else None for b in term_lists]


class ModifiedSimhash(Detector):
    """The proposed near-duplicate detector: simhash over TWC-PFM weights.

    See docs/methods/proposed.md#33-secondary-noise-removal.

    Parameters
    ----------
    bits : int
        Fingerprint width: 32, 64 (XXH64, the paper's) or 128.
    k : int
        Near duplicate iff the fingerprints differ in at most ``k`` bits.
    stoplist, stemmer : str
        Preprocessing (``evalkit.core.text.terms``): ``"english"`` and ``"porter"``.
    proximity : {"pointer", "nearest"}
        The TWC-PFM pair rule. The paper: "When more than one t_j occurs near t_i or
        more than one t_i occurs near t_j, the one with the smallest distance is taken
        into account for computing the proximity score", and Algorithm 1's pointer walk
        "If ((*ptr_i < *ptr_j) and (*ptr_(i+1) > *ptr_j))". ``pointer`` (default): an
        occurrence of t_j counts for the nearest t_i before it only while t_i does not
        recur (:func:`~evalkit.proposed.term_weights.twc_pfm`); ``nearest``: every
        occurrence of t_i counts its nearest following t_j
        (:func:`~evalkit.proposed.term_weights.twc_pfm_nearest`, a slower path).

    ``fingerprint(text)`` is None for a text without terms, and such texts are
    never compared. Fingerprints of different widths are not comparable:
    ``similar`` raises ValueError when one does not fit in ``bits``.
    """

    name = "modified_simhash"

    def __init__(
        self,
        bits: int = DEFAULT_BITS,
        k: int = DEFAULT_K,
        stoplist: str = "english",
        stemmer: str = "porter",
        proximity: str = "pointer",
    ):
        self.bits = bits
        self.k = k
        self.stoplist = stoplist
        self.stemmer = stemmer
        self.proximity = proximity

    def _validate(self) -> None:
        # cheap: it runs before every fingerprint
        check_choice("bits", self.bits, SUPPORTED_BITS)
        check_int("k", self.k, low=0)

    def validate(self) -> ModifiedSimhash:
        """:meth:`_validate` plus the preprocessing names (checked once, when built)."""
        self._validate()
        check_choice("stoplist", self.stoplist, STOPLISTS)
        check_choice("stemmer", self.stemmer, STEMMERS)
        check_choice("proximity", self.proximity, PROXIMITY)
        return self

    def terms(self, text: str) -> list[str]:
        return text_terms(text, self.stoplist, self.stemmer)

    def fingerprint_terms(self, block_terms: list[str]) -> int | None:
        """Fingerprint of an already preprocessed term sequence (None when empty)."""
        self._validate()
        if not block_terms:
            return None
        if self.proximity != "pointer":  # another reading: the plain path
            return fingerprint(twc_pfm(block_terms, self.proximity), self.bits)
        if len(block_terms) < _NUMPY_MIN_TERMS:  # exact weights: the reference itself
            return fingerprint(twc_pfm(block_terms), self.bits)
        return fingerprints([block_terms], self.bits)[0]  # with the check for near ties

    def fingerprint_many(self, term_lists: list[list[str]]) -> list[int | None]:
        """``[self.fingerprint_terms(t) for t in term_lists]``, all blocks of a page at once
        (:func:`fingerprints`)."""
        self._validate()
        if self.proximity != "pointer":
            return [self.fingerprint_terms(t) for t in term_lists]
        return fingerprints(term_lists, self.bits)

    def fingerprint(self, text: str) -> int | None:
        return self.fingerprint_terms(self.terms(text))

    def match_fingerprints(
        self, fps: list[int | None], seen: list[Any] | None = None
    ) -> list[int | None]:
        """:meth:`match_signatures` with the page's own fingerprints compared without
        re-validating them (they are this detector's, so always valid)."""
        k = self.k
        return self.match_signatures(fps, seen, same=within(k))

    def distance(self, a: int, b: int) -> int:
        for x in (a, b):
            if not isinstance(x, int) or x < 0 or x.bit_length() > self.bits:
                raise ValueError(f"{x!r} is not a {self.bits}-bit modified simhash fingerprint")
        return hamming(a, b)

    def similar(self, a: Any, b: Any) -> bool:
        return self.distance(a, b) <= self.k

    def versions(self) -> dict[str, str]:
        return {"xxhash": xxhash.VERSION}


def match_ordered(
    sigs: list[Any],
    same,
    *,
    order: list[int],
    compare_with: str = "kept",
    seen: list[Any] | None = None,
    similar=None,
) -> list[int | None]:
    """For each signature, the index of the block it duplicates, else None, with the blocks
    taken in ``order`` (indices into ``sigs``): the readings of "one of the block is
    considered as the near duplicate and can be eliminated" that ``Detector.match_signatures``
    (document order, kept blocks only) does not cover.

    A block is compared, in ``order``, with the blocks taken before it: those kept
    (``compare_with="kept"``) or all of them, duplicates too (``"all"``: of a chain
    A~B~C with A and C apart, C goes as B's duplicate). The first match in ``order``
    is the one reported. A block with no match on the page is compared with ``seen``
    (signatures kept on earlier pages, site scope; reported as ``-1 - i``) by
    ``similar``. A None signature is never compared and never matched.
    """
    if compare_with not in COMPARE_WITH:
        raise ValueError(f"compare_with must be one of {COMPARE_WITH}, got {compare_with!r}")
    out: list[int | None] = [None] * len(sigs)
    before: list[int] = []  # blocks a later one is compared with, in order
    prior = list(seen or [])
    for i in order:
        sig = sigs[i]
        if sig is None:
            continue
        match = next((j for j in before if same(sig, sigs[j])), None)
        if match is None and prior:
            match = next((-1 - j for j, other in enumerate(prior) if similar(sig, other)), None)
        out[i] = match
        if match is None or compare_with == "all":
            before.append(i)
    return out
