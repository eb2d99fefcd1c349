"""Metric functions: inputs in, numbers out, no I/O and no hidden state.

Every function here is pure. Per-page scores are computed from counts, and
one convention for the degenerate cases runs through the whole module (see
:func:`prf_from_counts`):

* precision ``tp / (tp + fp)`` is **undefined (NaN)** when nothing was
  predicted, recall ``tp / (tp + fn)`` is **NaN** when there is nothing to
  find; averages over pages skip NaN pages;
* per-page F1 is ``2 tp / (2 tp + fp + fn)`` (the harmonic mean of P and R
  whenever both exist), **0** when exactly one side is empty and **1** when
  both are empty (nothing to find and nothing claimed is a perfect answer).

Sources and where this code departs from them:

* Shingle P/R/F1 follows the ScrapingHub (Zyte) article-extraction-benchmark
  ``evaluate.py`` (github.com/scrapinghub/article-extraction-benchmark):
  ``\\w+`` tokens, case kept, 4-gram shingle multisets (a text of fewer than
  four tokens is one shorter shingle), per-page P and R, P averaged over the
  pages with a non-empty prediction and R over the pages with a non-empty
  truth, F1 of the two averages. The benchmark's per-page function returns
  1 for "both empty" and 0 for "empty prediction", but those values never
  reach its averages (they are filtered out); here they are NaN instead, which
  gives the same averages and makes the skipping explicit. The benchmark's
  confidence interval is 1.96 bootstrap standard deviations with an unseeded
  generator; here intervals are seeded percentile intervals
  (:func:`bootstrap_ci_pages`).
* The word-count confusion follows Kaur (2017, dissertation, §4.1,
  Tables 4-1..4-4): TP, FP, TN, FN counted in words, precision
  ``TP/(TP+FP)``, recall ``TP/(TP+FN)``, F1 their harmonic mean, accuracy
  ``(TP+TN)/(TP+TN+FP+FN)``. The dissertation does not say how words are
  matched; here they are matched as multisets (a word counts as often as it
  occurs), and TN are the page's words that are neither gold nor predicted.
* LCS length is the bit-parallel algorithm of Allison & Dix (1986) in the
  form of Hyyrö (2004), on Python integers used as bit vectors.
* Kabir et al. (2015) give the standard error of Table 4.4.1 only as "from
  the variance"; their equation is missing from the text. The one reading that
  reproduces their PAB value (0.1496) from Table 4.3.2 is the mean error rate
  over the seven cases; see :func:`kabir_standard_error` for the ENIW value,
  which no reading we tried reproduces.
* Bootstrap intervals are percentile intervals over pages (Efron &
  Tibshirani 1993); the paired test is a sign-flip permutation test of the
  mean per-page difference, or a centred paired bootstrap for statistics that
  are not page means; multiple tests are adjusted with Holm (1979).

Summary-column naming used by :func:`unit_scores`:
``<metric>_<average>_<weight>`` where metric is precision/recall/f1/accuracy,
``micro_words`` means the counts of all pages are summed (every word weighs
the same) and ``macro_pages`` means per-page values are averaged (every page
weighs the same), e.g. ``f1_micro_words``, ``precision_macro_pages``.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Container, Hashable, Iterable, Sequence
from typing import NamedTuple

import numpy as np

from evalkit.text import words

__all__ = [
    "ALPHA",
    "N_BOOT",
    "N_PERM",
    "PRF",
    "SHINGLE_N",
    "UNIT_METRICS",
    "Confusion",
    "accuracy",
    "aeb_tokens",
    "aggregate_prf",
    "bootstrap_ci",
    "bootstrap_ci_pages",
    "confusion_scores",
    "exact_set_accuracy",
    "holm",
    "kabir_standard_error",
    "lcs_length",
    "lcs_prf",
    "mean_defined",
    "mean_std",
    "page_text_metrics",
    "pages_correct",
    "pages_correct_curve",
    "pair_prf",
    "paired_bootstrap_test",
    "paired_permutation_test",
    "pairs_from_groups",
    "position_masks",
    "prf_from_counts",
    "shingle_counts",
    "shingle_prf",
    "standard_error",
    "unit_confusion",
    "unit_scores",
    "word_confusion",
    "word_counts",
    "word_prf",
]

SHINGLE_N = 4  # the benchmark's shingle length
N_BOOT = 1000  # bootstrap resamples
ALPHA = 0.05  # 1 - confidence level of intervals
N_PERM = 10_000  # sign flips in the paired permutation test
_CHUNK = 1000  # resamples drawn at once, to bound memory on large page sets

# \w+ runs; re.IGNORECASE in the benchmark does not change what \w matches
_AEB_TOKEN = re.compile(r"\w+", re.UNICODE)

Tokens = str | Sequence[str]


class PRF(NamedTuple):
    """Per-page precision, recall and F1 (NaN precision/recall = undefined)."""

    precision: float
    recall: float
    f1: float


class Confusion(NamedTuple):
    """Counts of one page (or a sum of pages): words or weights, content positive."""

    tp: float
    fp: float
    fn: float
    tn: float = 0.0


# ---------------------------------------------------------------- basic scores


def prf_from_counts(tp: float, fp: float, fn: float) -> PRF:
    """Precision, recall and F1 from counts, with the module's empty rules.

    precision = tp/(tp+fp), NaN when tp+fp == 0 (nothing predicted);
    recall = tp/(tp+fn), NaN when tp+fn == 0 (nothing to find);
    f1 = 2tp/(2tp+fp+fn), 1.0 when tp = fp = fn = 0.
    """
    predicted, relevant = tp + fp, tp + fn
    precision = tp / predicted if predicted > 0 else math.nan
    recall = tp / relevant if relevant > 0 else math.nan
    denom = 2 * tp + fp + fn
    f1 = 2 * tp / denom if denom > 0 else 1.0
    return PRF(precision, recall, f1)


def confusion_scores(tp: float, fp: float, fn: float, tn: float = 0.0) -> dict[str, float]:
    """``precision, recall, f1`` as in :func:`prf_from_counts`, plus
    accuracy = (tp+tn)/(tp+tn+fp+fn), 1.0 when all four are zero."""
    p, r, f = prf_from_counts(tp, fp, fn)
    total = tp + tn + fp + fn
    acc = (tp + tn) / total if total > 0 else 1.0
    return {"precision": p, "recall": r, "f1": f, "accuracy": acc}


def _multiset_counts(pred: Counter, gold: Counter) -> tuple[int, int, int]:
    tp = sum((pred & gold).values())
    return tp, sum(pred.values()) - tp, sum(gold.values()) - tp


def _tokens(text: Tokens) -> list[str]:
    # a string is split on white space (evalkit.text.words); a sequence is taken as tokens
    return words(text) if isinstance(text, str) else list(text)


# ---------------------------------------------------------------- shingles (AEB)


def aeb_tokens(text: str | None) -> list[str]:
    """The benchmark's tokens: ``\\w+`` runs, case kept; ``None`` counts as empty."""
    return _AEB_TOKEN.findall(text or "")


def shingle_counts(pred: str | None, gold: str | None, n: int = SHINGLE_N) -> tuple[int, int, int]:
    """(tp, fp, fn) over the multisets of token n-gram shingles of two texts.

    tp = sum over shingles of min(pred count, gold count); fp and fn are the
    surplus counts of each side. A text with 1..n-1 tokens is a single
    shorter shingle; a text without tokens has none.
    """
    if n < 1:
        raise ValueError(f"shingle length n must be >= 1, got {n}")
    return _multiset_counts(
        _shingle_multiset(aeb_tokens(pred), n), _shingle_multiset(aeb_tokens(gold), n)
    )


def _shingle_multiset(tokens: list[str], n: int) -> Counter:
    # same multiset as evalkit.text.shingles, built with zip because it is about twice as fast
    if len(tokens) < n:
        return Counter([tuple(tokens)]) if tokens else Counter()
    return Counter(zip(*(tokens[i:] for i in range(n))))


def shingle_prf(pred: str | None, gold: str | None, n: int = SHINGLE_N) -> PRF:
    """Per-page shingle precision, recall and F1 (the benchmark's per-page step).

    Precision is NaN when the prediction has no tokens, recall is NaN when the
    gold has none; the benchmark leaves exactly those pages out of its
    averages. Average pages with :func:`aggregate_prf`.
    """
    return prf_from_counts(*shingle_counts(pred, gold, n))


def aggregate_prf(precisions: Iterable[float], recalls: Iterable[float]) -> dict[str, float]:
    """The benchmark's page aggregate: mean precision over pages where it is
    defined, mean recall likewise, and f1 = 2PR/(P+R) of the two means.

    f1 is 0 when both means are 0 and NaN when either mean is undefined
    (no page has it).
    """
    p = mean_defined(precisions)
    r = mean_defined(recalls)
    if math.isnan(p) or math.isnan(r):
        f1 = math.nan
    else:
        f1 = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return {"precision": p, "recall": r, "f1": f1}


def mean_defined(values: Iterable[float]) -> float:
    """Mean over the pages where a metric is defined (NaN values skipped); NaN when none is."""
    x = np.asarray(list(values) if not isinstance(values, np.ndarray) else values, dtype=float)
    x = x[~np.isnan(x)]
    return float(x.mean()) if x.size else math.nan


# ---------------------------------------------------------------- words and LCS


def word_counts(pred: Tokens, gold: Tokens) -> tuple[int, int, int]:
    """(tp, fp, fn) of the word multisets (bag of words, case kept).

    Strings are split on white space; pass token lists to tokenise otherwise.
    """
    return _multiset_counts(Counter(_tokens(pred)), Counter(_tokens(gold)))


def word_prf(pred: Tokens, gold: Tokens) -> PRF:
    """Bag-of-words precision, recall, F1 of one page (empty rules of :func:`prf_from_counts`)."""
    return prf_from_counts(*word_counts(pred, gold))


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


def lcs_prf(pred: Tokens, gold: Tokens) -> PRF:
    """Longest-common-word-subsequence precision, recall, F1 of one page.

    tp = LCS length of the two token sequences (order matters, case kept),
    fp = len(pred) - tp, fn = len(gold) - tp; empty rules of :func:`prf_from_counts`.
    """
    p_tok, g_tok = _tokens(pred), _tokens(gold)
    tp = lcs_length(p_tok, g_tok)
    return prf_from_counts(tp, len(p_tok) - tp, len(g_tok) - tp)


# ---------------------------------------------------------------- Kaur 2017 word counts


def word_confusion(pred: Tokens, gold: Tokens, all_words: Tokens) -> Confusion:
    """Kaur (2017) word-count confusion of one page, in words.

    With A, G, P the word multisets of the whole visible page, the gold text
    and the prediction: TP = |P ∩ G| (gold words extracted), FP = |P − G|
    (extracted words that are not gold), FN = |G − P| (gold words missed),
    TN = |A − (G ∪ P)| (page words that are noise and were left out), where ∩
    and ∪ take the minimum and maximum count per word. When A contains G and
    P, TP + FP + FN + TN = |A|. Score with :func:`confusion_scores`.
    """
    p, g, a = Counter(_tokens(pred)), Counter(_tokens(gold)), Counter(_tokens(all_words))
    tp, fp, fn = _multiset_counts(p, g)
    tn = sum((a - (p | g)).values())
    return Confusion(tp, fp, fn, tn)


def page_text_metrics(
    pred: str | None, gold: str | None, all_words: Tokens | None = None, n: int = SHINGLE_N
) -> dict[str, float]:
    """Every text metric of one page in one flat dict (a per-page record).

    Keys: ``shingle_{precision,recall,f1}``, ``word_{...}``, ``lcs_{...}``, and,
    when ``all_words`` (the visible page text) is given, ``kaur_{tp,fp,fn,tn,
    precision,recall,f1,accuracy}``. ``None`` texts count as empty.
    """
    pred, gold = pred or "", gold or ""
    out: dict[str, float] = {}
    for name, prf in (
        ("shingle", shingle_prf(pred, gold, n)),
        ("word", word_prf(pred, gold)),
        ("lcs", lcs_prf(pred, gold)),
    ):
        out.update({f"{name}_{k}": v for k, v in prf._asdict().items()})
    if all_words is not None:
        conf = word_confusion(pred, gold, all_words)
        out.update({f"kaur_{k}": float(v) for k, v in conf._asdict().items()})
        out.update({f"kaur_{k}": v for k, v in confusion_scores(*conf).items()})
    return out


# ---------------------------------------------------------------- units


UNIT_METRICS = ("precision", "recall", "f1", "accuracy")


def unit_confusion(
    gold: Sequence[bool], kept: Sequence[bool], weights: Sequence[float] | None = None
) -> Confusion:
    """Word-weighted confusion of one page's units, content the positive class.

    ``gold[i]`` is True for a content unit, ``kept[i]`` True when the method kept
    it, ``weights[i]`` its word count (1 per unit when omitted). TP = weight
    of kept content, FP = kept noise, FN = dropped content, TN = dropped noise.
    """
    g = np.asarray(gold, dtype=bool)
    k = np.asarray(kept, dtype=bool)
    w = np.ones(g.shape) if weights is None else np.asarray(weights, dtype=float)
    if not (g.shape == k.shape == w.shape) or g.ndim != 1:
        raise ValueError(
            "gold, kept and weights must be 1-D and the same length; "
            f"got {g.shape}, {k.shape}, {w.shape}"
        )
    return Confusion(
        float(w[g & k].sum()),
        float(w[~g & k].sum()),
        float(w[g & ~k].sum()),
        float(w[~g & ~k].sum()),
    )


def unit_scores(confusions: Iterable[Confusion | Sequence[float]]) -> dict[str, float]:
    """Micro and macro unit scores over pages from per-page ``(tp, fp, fn, tn)``.

    ``<m>_micro_words``: :func:`confusion_scores` of the summed counts.
    ``<m>_macro_pages``: mean over pages of each page's value, skipping pages
    where it is NaN (precision on pages with nothing kept, recall on pages
    without content). Also ``n_pages``. No pages gives NaN everywhere.
    """
    rows = np.asarray([tuple(c) for c in confusions], dtype=float).reshape(-1, 4)
    out: dict[str, float] = {}
    if len(rows) == 0:
        out.update({f"{m}_micro_words": math.nan for m in UNIT_METRICS})
    else:
        micro = confusion_scores(*rows.sum(axis=0))
        out.update({f"{m}_micro_words": micro[m] for m in UNIT_METRICS})
    per_page = [confusion_scores(*row) for row in rows]
    for m in UNIT_METRICS:
        out[f"{m}_macro_pages"] = mean_defined([s[m] for s in per_page])
    out["n_pages"] = len(rows)
    return out


# ---------------------------------------------------------------- pages correct


def pages_correct(f1s: Iterable[float], threshold: float) -> float:
    """Share of pages whose F1 is >= threshold; a NaN F1 (failed page) is not
    correct; NaN when there are no pages."""
    x = np.asarray(list(f1s), dtype=float)
    if x.size == 0:
        return math.nan
    return float(np.mean(x >= threshold))  # NaN >= t is False


def pages_correct_curve(f1s: Iterable[float], thresholds: Iterable[float]) -> np.ndarray:
    """:func:`pages_correct` at each threshold, as an array in the thresholds' order."""
    x = np.asarray(list(f1s), dtype=float)
    t = np.asarray(list(thresholds), dtype=float)
    if x.size == 0:
        return np.full(t.shape, math.nan)
    return (x[None, :] >= t[:, None]).mean(axis=1)


# ---------------------------------------------------------------- near-duplicate pairs


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


# ---------------------------------------------------------------- classification


def accuracy(y_true: Sequence, y_pred: Sequence) -> float:
    """Share of cases whose predicted label equals the true one (Kabir et al.
    2015, Eq. 2, as a fraction); NaN for no cases."""
    t, p = np.asarray(y_true), np.asarray(y_pred)
    if t.shape != p.shape:
        raise ValueError(f"y_true and y_pred differ in length: {t.shape} vs {p.shape}")
    return float(np.mean(t == p)) if t.size else math.nan


def mean_std(values: Iterable[float], ddof: int = 1) -> tuple[float, float]:
    """Mean and standard deviation (sample, ddof=1, by default) over repeats;
    std is NaN with fewer than ddof+1 values."""
    x = np.asarray(list(values), dtype=float)
    if x.size == 0:
        return math.nan, math.nan
    std = float(x.std(ddof=ddof)) if x.size > ddof else math.nan
    return float(x.mean()), std


def standard_error(values: Iterable[float]) -> float:
    """Textbook standard error of the mean: sample std / sqrt(n) (NaN for n < 2)."""
    x = np.asarray(list(values), dtype=float)
    return float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else math.nan


def kabir_standard_error(case_accuracies: Iterable[float]) -> float:
    """The "standard error" of Kabir et al. (2015), Table 4.4.1: the mean error
    rate 1 - mean(accuracy) over the test cases (accuracies as fractions).

    From Table 4.3.2's PAB column (0.80, 0.80, 0.83, 0.86, 0.88, 0.883, 0.90)
    this gives 0.14957, the published 0.1496. Their ENIW value (0.20396) is not
    reproduced by this or by any std/variance/SE reading of the ENIW column we
    tried (this reading gives 0.1681); use :func:`standard_error` for the
    conventional quantity.
    """
    x = np.asarray(list(case_accuracies), dtype=float)
    return float(1.0 - x.mean()) if x.size else math.nan


# ---------------------------------------------------------------- bootstrap and tests


def _rng_batches(seed: int, n_draws: int, n: int, draw: Callable):
    # one generator, fixed chunking: the same seed gives the same draws
    rng = np.random.default_rng(seed)
    done = 0
    while done < n_draws:
        size = min(_CHUNK, n_draws - done)
        yield draw(rng, size, n)
        done += size


def _resample_indices(rng, size, n):
    return rng.integers(0, n, size=(size, n))


def _percentile_interval(stats: np.ndarray, alpha: float) -> tuple[float, float]:
    stats = stats[~np.isnan(stats)]
    if stats.size == 0:
        return math.nan, math.nan
    low, high = np.quantile(stats, [alpha / 2, 1 - alpha / 2])
    return float(low), float(high)


def _check_alpha(alpha: float) -> None:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")


def bootstrap_ci(
    values: Iterable[float],
    stat: Callable[[np.ndarray], float] = np.mean,
    n_boot: int = N_BOOT,
    alpha: float = ALPHA,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap interval (1 - alpha) of ``stat`` over pages.

    NaN values (pages where the metric is undefined) are dropped first, as the
    averages drop them. Pages are resampled with replacement ``n_boot`` times
    from ``numpy.random.default_rng(seed)``; the same inputs and seed give the
    same interval. No values gives (NaN, NaN).
    """
    _check_alpha(alpha)
    x = np.asarray(list(values) if not isinstance(values, np.ndarray) else values, dtype=float)
    x = x[~np.isnan(x)]
    if x.size == 0:
        return math.nan, math.nan
    parts = []
    for idx in _rng_batches(seed, n_boot, x.size, _resample_indices):
        sample = x[idx]
        if stat is np.mean:
            parts.append(sample.mean(axis=1))
        else:
            parts.append(np.array([stat(row) for row in sample], dtype=float))
    return _percentile_interval(np.concatenate(parts), alpha)


def bootstrap_ci_pages(
    columns: Sequence[Iterable[float]],
    stat: Callable[..., float],
    n_boot: int = N_BOOT,
    alpha: float = ALPHA,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap interval for a statistic of several per-page columns.

    Pages (rows) are resampled jointly and ``stat(*resampled_columns)`` is
    recomputed, e.g. the benchmark's F1 of averaged P and R::

        bootstrap_ci_pages([ps, rs], lambda p, r: aggregate_prf(p, r)["f1"])

    NaNs are kept (``stat`` decides); resamples where ``stat`` is NaN are left
    out of the percentiles.
    """
    _check_alpha(alpha)
    cols = [
        np.asarray(list(c) if not isinstance(c, np.ndarray) else c, dtype=float) for c in columns
    ]
    n = _common_length(cols)
    if n == 0:
        return math.nan, math.nan
    stats = [
        stat(*(c[row] for c in cols))
        for idx in _rng_batches(seed, n_boot, n, _resample_indices)
        for row in idx
    ]
    return _percentile_interval(np.asarray(stats, dtype=float), alpha)


def _common_length(cols: Sequence[np.ndarray]) -> int:
    lengths = {c.shape[0] for c in cols}
    if len(lengths) > 1:
        raise ValueError(f"per-page columns differ in length: {sorted(lengths)}")
    return lengths.pop() if lengths else 0


def paired_permutation_test(
    a: Iterable[float], b: Iterable[float], n_perm: int = N_PERM, seed: int = 0
) -> float:
    """Two-sided p-value that two methods have the same mean per-page score.

    Sign-flip permutation test on the per-page differences d = a - b over the
    pages where both are defined: each draw flips the sign of every d at random
    and p = (1 + #{|mean(flipped)| >= |mean(d)|}) / (n_perm + 1). Returns 1.0
    when all differences are zero and NaN when no page is shared.
    """
    x, y = np.asarray(list(a), dtype=float), np.asarray(list(b), dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"paired scores differ in length: {x.shape} vs {y.shape}")
    d = x - y
    d = d[~np.isnan(d)]
    if d.size == 0:
        return math.nan
    observed = abs(d.mean())
    if observed == 0:
        return 1.0
    tol = 1e-12 * max(1.0, observed)  # equal-looking means must count as ties
    hits = 0
    for signs in _rng_batches(
        seed, n_perm, d.size, lambda rng, size, n: rng.integers(0, 2, (size, n)) * 2 - 1
    ):
        hits += int(np.count_nonzero(np.abs((signs * d).mean(axis=1)) >= observed - tol))
    return (1 + hits) / (n_perm + 1)


def paired_bootstrap_test(
    a_columns: Sequence[Iterable[float]],
    b_columns: Sequence[Iterable[float]],
    stat: Callable[..., float],
    n_boot: int = N_BOOT,
    seed: int = 0,
) -> float:
    """Two-sided p-value for ``stat(A) == stat(B)`` on the same pages.

    For statistics that are not page means (e.g. F1 of averaged P and R).
    Pages are resampled jointly for both methods; with delta* the resampled
    difference and delta the observed one, the null is imitated by centring:
    p = (1 + #{|delta* - delta| >= |delta|}) / (n_boot + 1).
    """
    a_cols = [np.asarray(list(c), dtype=float) for c in a_columns]
    b_cols = [np.asarray(list(c), dtype=float) for c in b_columns]
    n = _common_length(a_cols + b_cols)
    if n == 0:
        return math.nan
    observed = stat(*a_cols) - stat(*b_cols)
    if observed == 0:
        return 1.0
    hits = valid = 0
    for idx in _rng_batches(seed, n_boot, n, _resample_indices):
        for row in idx:
            delta = stat(*(c[row] for c in a_cols)) - stat(*(c[row] for c in b_cols))
            if math.isnan(delta):
                continue
            valid += 1
            hits += abs(delta - observed) >= abs(observed)
    return (1 + hits) / (valid + 1)


def holm(pvalues: Iterable[float]) -> np.ndarray:
    """Holm (1979) step-down adjusted p-values, in the input order.

    With the m non-NaN p-values sorted ascending p(1) <= ... <= p(m), the
    adjusted p(i) = max over j <= i of min(1, (m - j + 1) p(j)). NaN stays NaN.
    """
    p = np.asarray(list(pvalues), dtype=float)
    out = np.full(p.shape, math.nan)
    ok = np.flatnonzero(~np.isnan(p))
    m = ok.size
    if m == 0:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out[order] = np.maximum.accumulate(scaled)
    return out
