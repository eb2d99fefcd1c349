"""TWC-PFM: the term weights of the proposed method's modified simhash (stage 1.3).

Saravanan & Sathya Bama (2020), §3.3, Algorithm 1; specification in
docs/methods/proposed.md#33-secondary-noise-removal. The fingerprint that uses these weights is in
:mod:`evalkit.proposed.dedup`.

The paper: every distinct term of a block gets a weight that mixes its
frequency with its *proximity* to the other terms. For each ordered term pair
(t_i, t_j) two pointers walk the position lists, and whenever an occurrence of
t_j falls between an occurrence of t_i and the next occurrence of t_i, the term
proximity 1/(p_j - p_i) is added to t_i's sum. The weight is (frequency +
proximity sum) / 2 / N_t, N_t the number of distinct terms.

Our reading:

* For an occurrence p of term a, each distinct other term b contributes once,
  at its *first* occurrence q after p, and only when q comes before the next
  occurrence of a. After the last occurrence of a the window runs to the end
  of the block (the pseudocode's ``*ptr_{i+1}`` past the end of the list is
  treated as +infinity). Pairs of a term with itself are not counted.
* The pseudocode divides by 2 and by N_t; Eq. 3 only by N_t. We keep both, as
  the pseudocode does. Neither can change a fingerprint: both scale every
  weight of a block by the same positive constant, and the sign of each bit
  counter is invariant under a positive scaling.

Another reading (``proximity="nearest"``, :func:`twc_pfm_nearest`): the prose says
"When more than one t_j occurs near t_i or more than one t_i occurs near t_j, the one
with the smallest distance is taken into account for computing the proximity score".
Read for each occurrence p of t_i on its own, every other term b that occurs after p
counts once, at its nearest (first) occurrence q after p, *whether or not t_i occurs
again before q*: the pseudocode's window test ``*ptr_(i+1) > *ptr_j`` is dropped. On
the paper's block ``a b c d a b a c a b d`` this adds, for a, 1/3 + 1/6 (p = 5: c at 8,
d at 11) and 1/3 + 1/4 (p = 7: b at 10, d at 11), for b 1/5 (p = 6: d at 11).

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
"""

from __future__ import annotations

import numpy as np

__all__ = ["PROXIMITY", "twc_pfm", "twc_pfm_nearest"]

#: the readings of "the one with the smallest distance" (``ModifiedSimhash(proximity=...)``)
PROXIMITY = ("pointer", "nearest")

# below this many terms the pure-Python pass beats numpy's fixed costs
_PAIRS_MIN_TERMS = 24
# from here the FFT + chunked path (it rounds differently from the two exact paths below it)
_NUMPY_MIN_TERMS = 200
# _gap_weights gives up (None) when the gaps between a term's occurrences hold more
# positions than this (arrays past 256 KB cost more in page faults than _fft_weights)
_GAP_MAX_PAIRS = 1 << 15
# chunk length of the vectorised pair enumeration (measured best of 16/32/64)
_CHUNK = 32
# pairs made at a time by ``_pair_sums`` (256 KB per work array)
_PAIR_BATCH = 1 << 15
# (q, chunk) items made at a time by ``_twc_pfm_numpy``
_ITEM_BATCH = 1 << 13


def twc_pfm(terms: list[str], proximity: str = "pointer") -> dict[str, float]:
    """TWC-PFM weight of every distinct term of a block (Algorithm 1).

    ``proximity="nearest"`` is the other reading of the pair rule
    (:func:`twc_pfm_nearest`); the rest of this docstring is the pointer rule's.

    ``w(a) = (f(a) + sum of 1/(q - p)) / 2 / N_t`` where, for every
    occurrence p of a and every other term b, q is b's first occurrence
    after p, counted only when it comes before a's next occurrence.

    A pair of positions (p, q), p < q, contributes 1/(q - p) to the term at p
    exactly when ``prev[q] < p`` and ``q < next[p]`` (prev/next: the previous
    and next occurrence of the same term; -1 and N when there is none). The
    work is the number of such pairs, not the paper's O(N_t^2 N) pointer walk.
    """
    if proximity != "pointer":
        if proximity == "nearest":
            return twc_pfm_nearest(terms)
        raise ValueError(f"proximity must be one of {PROXIMITY}, got {proximity!r}")
    if len(terms) < _PAIRS_MIN_TERMS:
        return _twc_pfm_small(terms)
    if len(terms) < _NUMPY_MIN_TERMS:
        return _twc_pfm_pairs(terms)
    return _twc_pfm_numpy(terms)


def twc_pfm_nearest(terms: list[str]) -> dict[str, float]:
    """TWC-PFM weights under the "nearest" reading: ``w(a) = (f(a) + sum of 1/(q - p)) / 2
    / N_t`` where, for every occurrence p of a and every other term b that occurs after
    p, q is b's first occurrence after p (no window up to a's next occurrence).

    One vectorised pass per distinct term b (its next occurrence after every position,
    by binary search): O(N_t * N) work, simpler and slower than the pointer rule's
    paths, and rounded its own way (a reading of its own, not a copy of the reference).
    """
    if not terms:
        return {}
    distinct, tid = _intern(terms)
    n, n_t = len(tid), len(distinct)
    pos = np.arange(n, dtype=np.int64)
    order = np.argsort(tid, kind="stable")  # positions grouped by term, increasing
    freq = np.bincount(tid, minlength=n_t)
    starts = freq.cumsum() - freq
    sums = np.zeros(n_t)
    for b in range(n_t):
        occ = order[starts[b] : starts[b] + freq[b]]
        k = np.searchsorted(occ, pos, side="right")  # b's first occurrence after each p
        ok = (k < len(occ)) & (tid != b)
        p = pos[ok]
        sums += np.bincount(tid[ok], weights=1.0 / (occ[k[ok]] - p), minlength=n_t)
    return dict(zip(distinct, ((freq + sums) / 2.0 / n_t).tolist()))


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
    weights = _exact_weights(
        tid, np.zeros(len(terms), dtype=np.int64), np.full(n_t, n_t, dtype=np.int64)
    )
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
    return (
        np.empty(cap, np.int64),
        np.empty(cap, np.int64),
        np.empty(cap, np.int64),
        np.empty(cap),
        np.empty(cap, bool),
    )


def _pair_sums(
    q: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    p_at: np.ndarray | None,
    out: np.ndarray,
    bufs: tuple[np.ndarray, ...],
    keep=None,
) -> np.ndarray:
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
        heads = bounds[k0 : k1 - 1] - done  # where ranges 2.. begin in the batch
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


def _pair_sums_direct(
    q: np.ndarray, start: np.ndarray, end: np.ndarray, p_at: np.ndarray | None, n: int, keep=None
) -> np.ndarray:
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


def _fft_weights(
    tid: np.ndarray, n_t: int, links: tuple[np.ndarray, np.ndarray] | None = None
) -> np.ndarray:
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


def _gap_weights(tid: np.ndarray, n_t: int, prev: np.ndarray, nxt: np.ndarray) -> np.ndarray | None:
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
        kernel[1 : size // 2] = 1.0 / np.arange(1, size // 2)
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


def _exact_twc_pfm(terms: list[str]) -> dict[str, float]:
    """The weights of the pure-Python pass, bit for bit (numpy for mid-sized blocks)."""
    if _PAIRS_MIN_TERMS <= len(terms) <= 2000:
        return _twc_pfm_pairs(terms)
    return _twc_pfm_small(terms)
