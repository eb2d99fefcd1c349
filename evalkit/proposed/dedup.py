"""Stage 1.3 of the proposed method: secondary noise removal with a modified simhash.

Saravanan & Sathya Bama (2020), §3.3 (docs/papers.md#saravanan2020);
specification in docs/methods/proposed.md#33-secondary-noise-removal.

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

Our reading (docs/methods/proposed.md#33-secondary-noise-removal):

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

Departures: none in the arithmetic. The paper's pairwise pointer walk costs
O(N_t^2 * N); :func:`twc_pfm` computes the same sums from each position's
previous and next occurrence (a recency-list pass for short blocks, the same
sums vectorised bit for bit from 24 terms, an FFT plus the pairs inside the
gaps between a term's occurrences from 200, or an FFT plus a chunked pair
enumeration when those gaps are long; see ``_twc_pfm_numpy``).
The long-block path rounds differently (about 1e-15 relative), which can
only flip a fingerprint bit whose counter is within that of zero. The pairs
are made in batches of 32,768 in work arrays allocated once per call
(``_pair_sums``): at 5,000 terms the 0.9 million pairs as whole, freshly
allocated arrays cost more in page faults than in arithmetic; fewer pairs are
made at once (``_pair_sums_direct``), with the same sums.

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
from evalkit.fingerprint import DEFAULT_BITS, SUPPORTED_BITS, fingerprint, hamming, term_hash
from evalkit.method import Detector
from evalkit.text import STEMMERS, STOPLISTS
from evalkit.text import terms as text_terms
from evalkit.validate import check_choice, check_int

__all__ = [
    "DEFAULT_BITS",
    "DEFAULT_K",
    "SUPPORTED_BITS",
    "ModifiedSimhash",
    "fingerprint",
    "fingerprints",
    "hamming",
    "term_hash",
    "twc_pfm",
]

#: near duplicate iff Hamming distance <= k (the paper's k = 3, after Manku et al. 2007)
DEFAULT_K = 3
# below this many terms the pure-Python pass beats numpy's fixed costs
_PAIRS_MIN_TERMS = 24
# from here the FFT + chunked path (it rounds differently from the two exact paths below it)
_NUMPY_MIN_TERMS = 200
# fingerprints(): from here a block's weights come from _gap_weights, unless its gaps hold
# more positions than the next (arrays past 256 KB cost more in page faults than _fft_weights)
_GAP_MIN_TERMS = 160
_GAP_MAX_PAIRS = 1 << 15
# chunk length of the vectorised pair enumeration (measured best of 16/32/64)
_CHUNK = 32
# pairs made at a time by ``_pair_sums`` (256 KB per work array)
_PAIR_BATCH = 1 << 15
# (q, chunk) items made at a time by ``_twc_pfm_numpy``
_ITEM_BATCH = 1 << 13


def twc_pfm(terms: list[str]) -> dict[str, float]:
    """TWC-PFM weight of every distinct term of a block (Algorithm 1).

    ``w(a) = (f(a) + sum of 1/(q - p)) / 2 / N_t`` where, for every
    occurrence p of a and every other term b, q is b's first occurrence
    after p, counted only when it comes before a's next occurrence.

    A pair of positions (p, q), p < q, contributes 1/(q - p) to the term at p
    exactly when ``prev[q] < p`` and ``q < next[p]`` (prev/next: the previous
    and next occurrence of the same term; -1 and N when there is none). The
    work is the number of such pairs, not the paper's O(N_t^2 N) pointer walk.
    """
    if len(terms) < _PAIRS_MIN_TERMS:
        return _twc_pfm_small(terms)
    if len(terms) < _NUMPY_MIN_TERMS:
        return _twc_pfm_pairs(terms)
    return _twc_pfm_numpy(terms)


def _twc_pfm_small(terms: list[str]) -> dict[str, float]:
    """One left-to-right pass with the distinct terms kept in order of latest occurrence.

    At position q (term b) the terms seen more recently than b's previous
    occurrence are exactly those whose current occurrence p pairs with q.
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


def _intern(terms: list[str]) -> tuple[list[str], np.ndarray]:
    """The distinct terms in order of first appearance, and each position's index among them."""
    distinct = list(dict.fromkeys(terms))
    index = dict(zip(distinct, range(len(distinct))))
    return distinct, np.fromiter(map(index.__getitem__, terms), dtype=np.int64, count=len(terms))


def _links(tid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The previous and next position of the same term id (-1 / len(tid) when there is none)."""
    order = np.argsort(tid, kind="stable")
    return _linked(order, tid[order[1:]] == tid[order[:-1]])


def _linked(order: np.ndarray, same: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Previous and next positions from a stable sort ``order`` of the positions by term and
    ``same`` (neighbours in that order hold the same term); -1 / n where there is none."""
    n = len(order)
    before, after = order[:-1][same], order[1:][same]
    prev = np.empty(n, dtype=np.int64)
    prev.fill(-1)
    nxt = np.empty(n, dtype=np.int64)
    nxt.fill(n)
    prev[after] = before
    nxt[before] = after
    return prev, nxt


def _twc_pfm_pairs(terms: list[str]) -> dict[str, float]:
    """:func:`_twc_pfm_small` in numpy, bit for bit (see :func:`_exact_weights`)."""
    distinct, tid = _intern(terms)
    n_t = len(distinct)
    weights = _exact_weights(tid, np.zeros(len(terms), dtype=np.int64),
                             np.full(n_t, n_t, dtype=np.int64))
    return dict(zip(distinct, weights.tolist()))


def _exact_weights(tid: np.ndarray, start: np.ndarray, n_t: np.ndarray) -> np.ndarray:
    """TWC-PFM weights of one or many blocks laid end to end, bit for bit those of
    :func:`_twc_pfm_small` on each block.

    ``tid``: each position's term id, ids distinct between blocks and numbered
    0, 1, ... in order of first appearance; ``start``: the first position of
    each position's block; ``n_t``: each id's block's number of distinct terms.
    Every candidate p in (prev[q], q) (from the block's start for a first
    occurrence) is enumerated, and ``np.bincount`` adds each term's 1/(q - p)
    in increasing q, the order of the pure-Python pass (at most one p of a term
    pairs with a q). The candidates grow as N^2/2 per block.
    """
    prev, nxt = _links(tid)
    q, p = _ranges(np.maximum(prev + 1, start), np.arange(len(tid), dtype=np.int64))
    # a pair that does not count (next[p] < q) adds +0.0, which changes no sum
    sums = np.bincount(tid[p], weights=(nxt[p] > q) / (q - p), minlength=len(n_t))
    return (np.bincount(tid, minlength=len(n_t)) + sums) / 2.0 / n_t


def _ranges(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Concatenated ``arange(lo[i], hi[i])`` (empty when hi <= lo) and, for each element, its ``i``."""
    lens = np.maximum(hi - lo, 0)
    owner = np.arange(len(lo)).repeat(lens)
    starts = lens.cumsum() - lens
    idx = np.arange(int(lens.sum())) - (starts - lo).repeat(lens)
    return owner, idx


def _pair_buffers() -> tuple[np.ndarray, ...]:
    """Work arrays for :func:`_pair_sums`, allocated once per TWC-PFM call and reused."""
    cap = _PAIR_BATCH + _CHUNK  # a batch may overrun by one range, at most _CHUNK long
    return (np.empty(cap, np.int64), np.empty(cap, np.int64), np.empty(cap, np.int64),
            np.empty(cap), np.empty(cap, bool))


def _pair_sums(q: np.ndarray, start: np.ndarray, end: np.ndarray, p_at: np.ndarray | None,
               out: np.ndarray, bufs: tuple[np.ndarray, ...], keep=None) -> np.ndarray:
    """Add 1/(q[k] - p) to ``out[p]`` for p = p_at[j], start[k] <= j < end[k] (ranges of at
    most ``_CHUNK``, every p < q[k]; p = j when ``p_at`` is None); ``keep(q, p, mask)``
    fills ``mask`` with the pairs that count (the others add +0.0, which changes no sum).

    The pairs are made ``_PAIR_BATCH`` at a time in the reused ``bufs``: arrays of
    millions of pairs, freshly allocated, cost more in page faults than in arithmetic.
    ``np.add.at`` adds in pair order, so the sums are bit for bit those of one
    ``np.bincount`` over all pairs.
    """
    lens = end - start
    ok = lens > 0
    if not ok.all():
        q, start, lens = q[ok], start[ok], lens[ok]
    if not len(lens):
        return out
    bounds = np.cumsum(lens)
    buf_j, buf_q, buf_p, buf_w, buf_m = bufs
    k0, done, m = 0, 0, len(lens)
    while k0 < m:
        k1 = max(int(np.searchsorted(bounds, done + _PAIR_BATCH, "right")), k0 + 1)
        total = int(bounds[k1 - 1]) - done
        seg_len, seg_start, seg_q = lens[k0:k1], start[k0:k1], q[k0:k1]
        heads = bounds[k0:k1 - 1] - done  # where ranges 2.. begin in the batch
        j, qq = buf_j[:total], buf_q[:total]
        # j runs start[k], start[k] + 1, ...: ones with a jump at each range head, summed up
        j.fill(1)
        j[0] = seg_start[0]
        j[heads] = seg_start[1:] - seg_start[:-1] - seg_len[:-1] + 1
        np.cumsum(j, out=j)
        qq.fill(0)
        qq[0] = seg_q[0]
        qq[heads] = np.diff(seg_q)
        np.cumsum(qq, out=qq)
        p = j if p_at is None else np.take(p_at, j, out=buf_p[:total])
        w = buf_w[:total]
        np.subtract(qq, p, out=w)
        np.divide(1.0, w, out=w)
        if keep is not None:
            mask = buf_m[:total]
            keep(qq, p, mask)
            w *= mask
        np.add.at(out, p, w)
        done += total
        k0 = k1
    return out


def _pair_sums_direct(q: np.ndarray, start: np.ndarray, end: np.ndarray, p_at: np.ndarray | None,
                      n: int, keep=None) -> np.ndarray:
    """:func:`_pair_sums` into zeros of length ``n`` with all pairs made at once (for few
    pairs: one ``np.bincount`` adds in the same order as the batches' ``np.add.at``)."""
    owner, j = _ranges(start, end)
    qq = q[owner]
    p = j if p_at is None else p_at[j]
    w = 1.0 / (qq - p)
    if keep is not None:
        mask = np.empty(len(p), dtype=bool)
        keep(qq, p, mask)
        w *= mask
    return np.bincount(p, weights=w, minlength=n)


def _twc_pfm_numpy(terms: list[str]) -> dict[str, float]:
    """The same sums, vectorised; the work is bounded by the pairs that are not all-pairs.

    Pairs are grouped by q. (A) When p is its term's last occurrence and q a
    term's first occurrence, every p < q pairs, so those sums are one
    correlation of the first-occurrence indicator with 1/d, done by FFT
    (this is the bulk on text with many rare words, and all of it when every
    term is distinct). (B) Every other pair has p in (prev[q], q) with
    next[p] > q: positions are cut into chunks of ``_CHUNK`` and sorted by
    next[p] inside each chunk, so for the chunks that lie wholly inside the
    range the qualifying p are a suffix found by binary search (enumerated
    exactly), and only the two partial chunks at the ends are filtered
    (:func:`_fft_weights`). While the gaps between a term's occurrences hold
    few positions, :func:`_gap_weights` enumerates (B) through them instead.
    Rounding differs from the direct sums by about 1e-15 relative.
    """
    distinct, tid = _intern(terms)
    links = _links(tid)
    weights = _gap_weights(tid, len(distinct), *links)
    if weights is None:
        weights = _fft_weights(tid, len(distinct), links)
    return dict(zip(distinct, weights.tolist()))


def _fft_weights(tid: np.ndarray, n_t: int,
                 links: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """:func:`_twc_pfm_numpy` on term ids (distinct terms numbered 0, 1, ... in order of first
    appearance): the weights in that order. ``links``: ``_links(tid)`` when already made."""
    n = len(tid)
    prev, nxt = _links(tid) if links is None else links
    pos = np.arange(n, dtype=np.int64)
    is_first, is_last = prev < 0, nxt == n
    contrib = np.zeros(n)
    # (A) sum over first occurrences q > p of 1/(q - p), for every p; kept for last occurrences
    size = 1 << (2 * n - 1).bit_length()
    kernel = np.zeros(size)
    kernel[1:n] = 1.0 / np.arange(1, n)
    first = np.zeros(size)
    first[:n] = is_first
    corr = np.fft.irfft(np.fft.rfft(first) * np.conj(np.fft.rfft(kernel)), size)[:n]
    contrib[is_last] += corr[is_last]
    # (B) p in [prev[q] + 1, q) with next[p] > q, minus the (A) pairs
    key = (pos // _CHUNK) * (n + 1) + nxt
    by_key = np.argsort(key, kind="stable")
    sorted_key = key[by_key]
    lo, hi = prev + 1, pos
    c_lo, c_hi = -(-lo // _CHUNK), hi // _CHUNK  # chunks wholly inside [lo, hi)
    full = c_lo < c_hi
    c_first, c_stop = np.where(full, c_lo, 0), np.where(full, c_hi, 0)
    n_last = np.bincount(pos[is_last] // _CHUNK, minlength=-(-n // _CHUNK))
    bufs = None

    def pair_sums(q, start, end, p_at, keep=None):  # into fresh zeros, at once when few
        nonlocal bufs
        if int(np.maximum(end - start, 0).sum()) <= _PAIR_BATCH:
            return _pair_sums_direct(q, start, end, p_at, n, keep)
        if bufs is None:
            bufs = _pair_buffers()
        return _pair_sums(q, start, end, p_at, np.zeros(n), bufs, keep)

    def items(q0, q1):  # the whole chunks of q0 <= q < q1: their qualifying ranges in by_key
        owner, chunk = _ranges(c_first[q0:q1], c_stop[q0:q1])
        qi = owner + q0
        start = np.searchsorted(sorted_key, chunk * (n + 1) + qi, "right")  # next[p] > q
        # a chunk's last occurrences (next = n) close its sorted run: skip them for (A)'s q
        c_end = np.minimum((chunk + 1) * _CHUNK, n)
        return qi, start, np.where(is_first[qi], c_end - n_last[chunk], c_end)

    bounds = np.cumsum(c_stop - c_first)
    if int(bounds[-1]) <= _ITEM_BATCH:
        contrib += pair_sums(*items(0, n), by_key)
    else:
        # the (q, chunk) items a few thousand at a time, in q order (bounded memory, same sums)
        cuts = np.searchsorted(bounds, np.arange(_ITEM_BATCH, int(bounds[-1]), _ITEM_BATCH)) + 1
        bufs = _pair_buffers()
        whole = np.zeros(n)
        for q0, q1 in zip([0, *cuts.tolist()], [*cuts.tolist(), n]):
            if q1 > q0:
                _pair_sums(*items(q0, q1), by_key, whole, bufs)
        contrib += whole

    def keep(q, p, mask):  # next[p] > q, and not an (A) pair
        np.greater(nxt[p], q, out=mask)
        mask &= ~(is_first[q] & is_last[p])

    for a, b in ((lo, np.where(full, c_lo * _CHUNK, hi)), (np.where(full, c_hi * _CHUNK, hi), hi)):
        contrib += pair_sums(pos, a, np.minimum(b, hi), None, keep)
    sums = np.bincount(tid, weights=contrib, minlength=n_t)
    freq = np.bincount(tid, minlength=n_t)
    return (freq + sums) / 2.0 / n_t


# conj(rfft) of the kernel 1/d, d = 1 .. size/2 - 1, by FFT size (see _gap_weights)
_SPECTRA: dict[int, np.ndarray] = {}


def _gap_weights(tid: np.ndarray, n_t: int, prev: np.ndarray,
                 nxt: np.ndarray) -> np.ndarray | None:
    """:func:`_fft_weights` for blocks of a few hundred terms, given each position's previous
    and next occurrence (negative / at least ``len(tid)`` when there is none); None when
    the gaps hold more than ``_GAP_MAX_PAIRS`` positions.

    A pair (p, q) counts when ``prev[q] < p < q < next[p]``. (A) p a last and q a first
    occurrence: every p < q, one FFT correlation (as in :func:`_fft_weights`). Every other
    pair has q inside a gap (r, s) of a term, between two of its consecutive occurrences:
    (B) q = s, p = m inside the gap, counting iff next[m] > s; (C) p = r, q = m inside the
    gap, counting iff m is a first occurrence. So the work is the gaps' length, without
    the chunked search of :func:`_fft_weights` (its fixed cost dominates at these sizes;
    the gaps grow faster with the length). Rounding differs from the exact sums by about
    1e-15 relative.
    """
    n = len(tid)
    is_first, is_last = prev < 0, nxt >= n
    r = (~is_last).nonzero()[0]
    s = nxt[r]
    lens = s - r - 1
    inner = lens > 0
    r, s, lens = r[inner], s[inner], lens[inner]
    ends = lens.cumsum()
    if len(ends) and ends[-1] > _GAP_MAX_PAIRS:
        return None
    size = 1 << (2 * n - 1).bit_length()
    spectrum = _SPECTRA.get(size)
    if spectrum is None:
        # 1/d for 0 < d < size/2 and 0 beyond: for n <= size/2 no q <= p wraps onto a 1/d
        kernel = np.zeros(size)
        kernel[1:size // 2] = 1.0 / np.arange(1, size // 2)
        spectrum = _SPECTRA[size] = np.conj(np.fft.rfft(kernel))
    contrib = np.fft.irfft(np.fft.rfft(is_first, size) * spectrum, size)[:n]
    contrib[~is_last] = 0.0
    if len(ends):
        # m runs r + 1 .. s - 1 gap after gap: ones, with a jump at each gap's head, summed up
        m = np.empty(int(ends[-1]), dtype=np.int64)
        m.fill(1)
        m[0] = r[0] + 1
        m[ends[:-1]] = r[1:] - s[:-1] + 2
        m.cumsum(out=m)
        s_m = s.repeat(lens)
        contrib += np.bincount(m, weights=(nxt[m] > s_m) / (s_m - m), minlength=n)
        contrib[r] += np.add.reduceat(is_first[m] / (m - r.repeat(lens)), ends - lens)
    sums = np.bincount(tid, weights=contrib, minlength=n_t)
    return (np.bincount(tid, minlength=n_t) + sums) / 2.0 / n_t


# row v: the signs of the 4 bits of nibble value v, least significant first (+1 for 1, -1 for 0)
_NIBBLE_SIGNS = np.where(np.arange(16)[:, None] >> np.arange(4) & 1, 1.0, -1.0)

# a counter within this share (times the block's distinct terms) of the block's weight
# mass of zero may have its sign decided by rounding: such blocks are redone by the reference
_TIE_TOL = 2.0 ** -32
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
                rows[:hi - len(new)] = self.rows[:hi - len(new)]
                self.rows = rows
            self.rows[hi - len(new):hi] = data
        return ids


_TABLES: dict[int, _HashTable] = {}


def _hash_bytes(terms: list[str], bits: int) -> np.ndarray:
    """:func:`term_hash` of each term (uncached) as a row of its little-endian bytes."""
    if bits == 128:
        data = b"".join([h.to_bytes(16, "little") for h in map(term_hash.__wrapped__, terms,
                                                                 repeat(128))])
        return np.frombuffer(data, np.uint8).reshape(-1, 16)
    digest, dtype = (xxhash.xxh64_intdigest, "<u8") if bits == 64 else (xxhash.xxh32_intdigest, "<u4")
    words = np.fromiter(map(digest, map(str.encode, terms)), dtype=dtype, count=len(terms))
    return words.view(np.uint8).reshape(-1, bits // 8)


def _exact_twc_pfm(terms: list[str]) -> dict[str, float]:
    """The weights of the pure-Python pass, bit for bit (numpy for mid-sized blocks)."""
    if _PAIRS_MIN_TERMS <= len(terms) <= 2000:
        return _twc_pfm_pairs(terms)
    return _twc_pfm_small(terms)


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
        weights[lo:lo + n_b] = _fft_weights(tid[o:o_end] - lo, n_b) if w is None else w
    # the counters: each block's weight mass on each value of each 4-bit nibble of the hash,
    # times the values' bit signs (nibble j holds bits 4j .. 4j + 3)
    rows = table.rows[id_key - id_block * span]
    n_nib = bits // 4
    nibbles = np.empty((n_ids, n_nib), dtype=np.intp)
    np.bitwise_and(rows, 15, out=nibbles[:, 0::2])
    np.right_shift(rows, 4, out=nibbles[:, 1::2])
    nibbles += (id_block * (n_nib * 16))[:, None] + np.arange(0, n_nib * 16, 16)
    mass = np.bincount(nibbles.ravel(), weights=weights.repeat(n_nib),
                       minlength=len(blocks) * n_nib * 16)
    counters = (mass.reshape(-1, 16) @ _NIBBLE_SIGNS).reshape(len(blocks), bits)
    close = np.abs(counters) <= (np.add.reduceat(weights, id_start) * distinct * _TIE_TOL)[:, None]
    n_bytes = bits // 8
    packed = np.packbits(counters > 0, axis=1, bitorder="little").tobytes()
    found = [int.from_bytes(packed[i:i + n_bytes], "little") for i in range(0, len(packed), n_bytes)]
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
        Preprocessing (``evalkit.text.terms``): ``"english"`` and ``"porter"``.

    ``fingerprint(text)`` is None for a text without terms, and such texts are
    never compared. Fingerprints of different widths are not comparable:
    ``similar`` raises ValueError when one does not fit in ``bits``.
    """

    name = "modified_simhash"

    def __init__(self, bits: int = DEFAULT_BITS, k: int = DEFAULT_K,
                 stoplist: str = "english", stemmer: str = "porter"):
        self.bits = bits
        self.k = k
        self.stoplist = stoplist
        self.stemmer = stemmer

    def _validate(self) -> None:
        # cheap: it runs before every fingerprint
        check_choice("bits", self.bits, SUPPORTED_BITS)
        check_int("k", self.k, low=0)

    def validate(self) -> ModifiedSimhash:
        """:meth:`_validate` plus the preprocessing names (checked once, when built)."""
        self._validate()
        check_choice("stoplist", self.stoplist, STOPLISTS)
        check_choice("stemmer", self.stemmer, STEMMERS)
        return self

    def terms(self, text: str) -> list[str]:
        return text_terms(text, self.stoplist, self.stemmer)

    def fingerprint_terms(self, block_terms: list[str]) -> int | None:
        """Fingerprint of an already preprocessed term sequence (None when empty)."""
        self._validate()
        if not block_terms:
            return None
        if len(block_terms) < _NUMPY_MIN_TERMS:  # exact weights: the reference itself
            return fingerprint(twc_pfm(block_terms), self.bits)
        return fingerprints([block_terms], self.bits)[0]  # with the check for near ties

    def fingerprint_many(self, term_lists: list[list[str]]) -> list[int | None]:
        """``[self.fingerprint_terms(t) for t in term_lists]``, all blocks of a page at once
        (:func:`fingerprints`)."""
        self._validate()
        return fingerprints(term_lists, self.bits)

    def fingerprint(self, text: str) -> int | None:
        return self.fingerprint_terms(self.terms(text))

    def match_fingerprints(self, fps: list[int | None],
                           seen: list[Any] | None = None) -> list[int | None]:
        """:meth:`match_signatures` with the page's own fingerprints compared without
        re-validating them (they are this detector's, so always valid)."""
        k = self.k
        return self.match_signatures(fps, seen, same=lambda a, b: (a ^ b).bit_count() <= k)

    def distance(self, a: int, b: int) -> int:
        for x in (a, b):
            if not isinstance(x, int) or x < 0 or x.bit_length() > self.bits:
                raise ValueError(f"{x!r} is not a {self.bits}-bit modified simhash fingerprint")
        return hamming(a, b)

    def similar(self, a: Any, b: Any) -> bool:
        return self.distance(a, b) <= self.k

    def versions(self) -> dict[str, str]:
        return {"xxhash": xxhash.VERSION}
