"""ROUGE-N and ROUGE-LSum of one page's extraction against its gold, as Google's ``rouge-score``
package scores them and Bevendorff et al. (2023) use it (docs/metrics.md, "rouge").

Bevendorff et al.'s web-content-extraction benchmark scores every page with
``RougeScorer(['rougeLsum'], use_stemmer=False, split_summaries=True)`` and a white-space
tokenizer (its ``tokenize_ws``): the gold is the target, the extraction the prediction.
Here the same definitions are computed by our own code:

* **Tokens** are :func:`evalkit.core.text.words` (white-space tokens, case kept, no stemming;
  each Han/Hiragana/Katakana character a token, where their tokenizer keeps a run whole).
* **Sentences** (:func:`sentences`): ``split_summaries=True`` runs NLTK's Punkt sentence
  splitter with its trained English model. That model is data evalkit does not ship;
  :func:`sentences` keeps the core of Punkt's rule without its model and heuristics: a
  sentence ends after a token that ends in ``.``, ``!``, ``?``, ``。``, ``！`` or ``？``
  (closing quotes and brackets may follow) and before the next token. Like
  Punkt, a line break alone ends nothing. Departure: the abbreviations, initials and
  numbers Punkt knows not to end a sentence ("Mr.", "U.S.") end one here.
* **ROUGE-LSum** (:func:`rouge_lsum_counts`): Lin's (2004) summary-level LCS. For each gold
  sentence ``r``, the union over the extraction's sentences ``c`` of the positions of ``r``
  in one LCS of ``r`` and ``c``, the LCS read from the table by ``rouge-score``'s traceback
  (from the end: take a match; else drop the gold token when that keeps the LCS length;
  else drop the extraction's token). Union tokens are hits while both texts have an unused
  copy of the token (the double-counting guard of ROUGE 1.5.5). tp = hits, fp = extraction
  tokens - hits, fn = gold tokens - hits.
* **ROUGE-N** (:func:`rouge_n_counts`): multisets of token n-grams of the whole texts,
  tp = sum of the smaller counts.

Scores follow :func:`~evalkit.metrics.scores.prf_from_counts` (precision NaN for an empty
extraction, recall NaN for an empty gold, F1 1 when both are empty); ``rouge-score``
returns 0 for all three whenever one side is empty, and Bevendorff et al. then set recall 1
for an empty gold (and all three 1 when both are empty).

Speed: ``rouge-score`` fills one Python table per pair of sentences. Here, for one gold
sentence, the LCS tables against *all* extraction sentences are rows of bits of one Python
integer (Hyyrö's 2004 bit-parallel LCS, each sentence a segment between guard bits), and
the traceback moves in all segments at once, one gold token per step; the result is the
same union (tests/test_metrics_field.py checks it against the table-and-traceback
definition written out). A gold sentence found verbatim inside one extraction sentence
needs no table (its union is all of it), and the hits of a token are the smaller of its
count in the unions and in the extraction (the gold always has a copy left), so no
per-token walk is needed either.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from itertools import accumulate, chain, groupby, repeat

from evalkit.core.text import CJK, words
from evalkit.metrics.lcs import position_masks
from evalkit.metrics.scores import PRF, prf_from_counts

__all__ = [
    "ROUGE_N",
    "LsumText",
    "lsum_hits",
    "lsum_text",
    "ngram_counts",
    "rouge_lsum_counts",
    "rouge_lsum_prf",
    "rouge_n_counts",
    "rouge_n_prf",
    "sentence_tokens",
    "sentences",
    "union_lcs_hits",
]

#: the default n of ROUGE-N: ROUGE-1 is the bag of words (the ``word`` metric), so ROUGE-2 is
#: the one that adds something (WebMainBench's own ROUGE-5 on jieba tokens is the
#: ``webmainbench`` family, :mod:`evalkit.metrics.webmainbench`)
ROUGE_N = 2

_CLOSE = "'\"\u2019\u201d)\\]\u300d\u300f"
# a sentence ends after . ! ? 。！？ (and closers) at the end of a token: before white space,
# the end or a CJK character (one token each)
_SENT_END = re.compile(f"[.!?\u3002\uff01\uff1f][{_CLOSE}]*(?=\\s|$|{CJK.pattern})")


def sentences(text: str | None) -> list[str]:
    """The sentences of a text (module docstring), empty ones dropped."""
    text = text or ""
    out, start = [], 0
    for m in _SENT_END.finditer(text):
        out.append(text[start : m.end()])
        start = m.end()
    out.append(text[start:])
    return [s for s in out if s and not s.isspace()]


# the same ends on a text's tokens joined by single spaces: a token that ends in a stop
# (and closers) ends a sentence, whatever follows (another token: white space before it)
_TOKEN_END = re.compile(f"([.!?\u3002\uff01\uff1f][{_CLOSE}]*) ")


def _sentence_strings(tokens: list[str]) -> list[str]:
    # each sentence's tokens joined by single spaces (the tokens hold no white space)
    if not tokens:
        return []
    # [text, end, text, end, ..., text]: a sentence is a text and the end that closed it
    # (split, not sub with "\\1\n": Python 3.11 expands a template per match in Python)
    parts = _TOKEN_END.split(" ".join(tokens))
    return list(map(str.__add__, parts[0::2], [*parts[1::2], ""]))


def sentence_tokens(text: str | None) -> list[list[str]]:
    """:func:`evalkit.core.text.words` of each of :func:`sentences`; together they are the
    words of the whole text (sentences end only where a token ends)."""
    return [words(s) for s in sentences(text)]


# ---------------------------------------------------------------- ROUGE-N


def ngram_counts(tokens: Sequence[Hashable], n: int = ROUGE_N) -> Counter:
    """Multiset of the token n-grams of a sequence; fewer than n tokens give none."""
    if n < 1:
        raise ValueError(f"ROUGE-N needs n >= 1, got {n}")
    if n == 1:
        return Counter(tokens)
    return Counter(zip(*(tokens[i:] for i in range(n))))


def _common(pred: Counter, gold: Counter) -> int:
    # sum over pred's tokens of min(pred count, gold count), walked in C
    return sum(map(min, pred.values(), map(gold.get, pred, repeat(0))))


def rouge_n_counts(pred: str | None, gold: str | None, n: int = ROUGE_N) -> tuple[int, int, int]:
    """(tp, fp, fn) of the n-gram multisets of two texts' words."""
    p, g = ngram_counts(words(pred or ""), n), ngram_counts(words(gold or ""), n)
    tp = _common(p, g)
    return tp, p.total() - tp, g.total() - tp


def rouge_n_prf(pred: str | None, gold: str | None, n: int = ROUGE_N) -> PRF:
    """ROUGE-N precision, recall, F1 of one page (empty rules of ``prf_from_counts``)."""
    return prf_from_counts(*rouge_n_counts(pred, gold, n))


# ---------------------------------------------------------------- ROUGE-LSum


@dataclass(frozen=True)
class LsumText:
    """One side of ROUGE-LSum, prepared once (:func:`lsum_text`): the sentences' tokens,
    the token counts, and each sentence as ``" t1 t2 ... "`` (None when a token is not a
    string without white space)."""

    sents: list
    counts: Counter
    keys: list


def lsum_text(
    text: str | Sequence[Sequence[Hashable]] | None,
    counts: Counter | None = None,
    tokens: list[str] | None = None,
) -> LsumText:
    """:class:`LsumText` of a text (split by :func:`sentence_tokens`) or of a sequence of
    token sequences taken as its sentences; ``counts`` and ``tokens``: the text's
    :func:`~evalkit.core.text.words` and their counts, when known."""
    if text is None or isinstance(text, str):
        toks = words(text or "") if tokens is None else tokens
        strings = _sentence_strings(toks)
        # each sentence's tokens sliced from the text's (a sentence string holds one space
        # between tokens, none inside one): the same strings as splitting it, but the
        # objects already hashed, which every set and dict look-up below reuses
        ends = list(accumulate([s.count(" ") + 1 for s in strings]))
        sents = [toks[i:j] for i, j in zip([0, *ends], ends)]
        keys = [f" {s} " for s in strings]
    else:
        sents = [list(s) for s in text]
        keys = [_key(s) for s in sents]
    if counts is None:
        counts = Counter(t for s in sents for t in s)
    return LsumText(sents, counts, keys)


def _key(sent: list) -> str | None:
    if all(isinstance(t, str) and t and not t.isspace() and len(t.split()) == 1 for t in sent):
        return " " + " ".join(sent) + " "
    return None


def rouge_lsum_counts(
    pred: str | Sequence[Sequence[Hashable]] | LsumText | None,
    gold: str | Sequence[Sequence[Hashable]] | LsumText | None,
) -> tuple[int, int, int]:
    """(tp, fp, fn) of the summary-level LCS (module docstring).

    A text is split by :func:`sentence_tokens`; a sequence of token sequences is taken as
    the sentences; an :class:`LsumText` as prepared.
    """
    p = pred if isinstance(pred, LsumText) else lsum_text(pred)
    g = gold if isinstance(gold, LsumText) else lsum_text(gold)
    hits = lsum_hits(p, g)
    return hits, p.counts.total() - hits, g.counts.total() - hits


def rouge_lsum_prf(pred, gold) -> PRF:
    """ROUGE-LSum precision, recall, F1 of one page (empty rules of ``prf_from_counts``)."""
    return prf_from_counts(*rouge_lsum_counts(pred, gold))


def union_lcs_hits(
    gold_sents: Sequence[Sequence[Hashable]], pred_sents: Sequence[Sequence[Hashable]]
) -> int:
    """Hits of the summary-level LCS of two lists of token sequences (:func:`lsum_hits`)."""
    return lsum_hits(lsum_text(pred_sents), lsum_text(gold_sents))


def lsum_hits(pred: LsumText, gold: LsumText) -> int:
    """Hits of the summary-level LCS: the union LCS of each gold sentence against all
    extraction sentences, counted while both texts have an unused copy of the token."""
    if not gold.counts.total() or not pred.counts.total():
        return 0
    # a gold sentence that is a run of tokens of one extraction sentence has all of itself
    # as its LCS with that sentence: the union is every position, no table needed. The
    # extraction's sentences are apart by line breaks, so a key found lies inside one.
    joined = None if None in pred.keys else "\n".join(pred.keys)
    whole = [joined is not None and k is not None and k in joined for k in gold.keys]
    lay = None
    if not all(whole):
        need = {t for s, w in zip(gold.sents, whole) if not w for t in s}
        lay = _Layout(pred.sents, need)
    # hits walk the union tokens in order and count one while both texts have an unused
    # copy; the gold always has one (union positions are distinct gold positions), so the
    # hits of token t are min(union count of t, extraction count of t), whatever the order
    union = Counter(chain.from_iterable(s for s, w in zip(gold.sents, whole) if w))
    if lay is not None and lay.cols:
        for sent, w in zip(gold.sents, whole):
            if not w:
                union.update([sent[i] for i in _union_rows(sent, lay)])
    return _common(union, pred.counts)


class _Layout:
    """The extraction's sentences as segments of one bit row: for each sentence a guard bit,
    one bit per column of the LCS table, a spacer bit. ``masks[t]`` has the column bits of
    token ``t``; ``smear`` the masks that keep a downward shift by ``d`` inside a segment.

    Tokens outside ``only`` (the gold tokens that need a table) match no row. A run of them
    is one column: every column of the run has the same LCS values as the column before it,
    so the traceback either stays in the run (dropping gold tokens) or leaves it for that
    column, whatever the run's length. A leading run is no column: from it the traceback only
    drops gold tokens, as it does once the segment is used up."""

    def __init__(self, sents: Sequence[Sequence[Hashable]], only: set):
        flat: list = []
        guards = spacers = 0
        bounds = []
        member = only.__contains__
        for sent in sents:
            if only.isdisjoint(sent):
                continue  # shares no token with the gold: every LCS with it is empty
            g = len(flat)
            flat.append(_GUARD)
            for needed, run in groupby(sent, member):
                if needed:
                    flat.extend(run)
                elif len(flat) > g + 1:
                    flat.append(_OTHER)
            flat.append(_SPACER)
            guards |= 1 << g
            spacers |= 1 << (len(flat) - 1)
            bounds.append((g, len(flat) - 1))
        self.masks = position_masks(flat, only)
        self.guards, self.spacers = guards, spacers
        # columns: every bit but guards and spacers
        self.cols = ((1 << len(flat)) - 1) & ~guards & ~spacers
        width = max((sp - g for g, sp in bounds), default=0)
        self.smear = []
        d = 1
        while d < width:
            # bits y of a segment [g, sp) with y + d still inside it
            same = 0
            for g, sp in bounds:
                if sp - d > g:
                    same |= ((1 << (sp - d - g)) - 1) << g
            self.smear.append((d, same))
            d *= 2


_GUARD, _SPACER, _OTHER = object(), object(), object()


def _union_rows(ref: Sequence[Hashable], lay: _Layout) -> list[int]:
    """Positions of ``ref`` in the union of its traced-back LCS with every segment, in order.

    Row ``i`` of segment ``k``'s LCS table is ``V_i`` (Hyyrö): its zero column bits are the
    columns where ``L[i][j]`` steps up. The traceback state of a segment is the bound ``j``
    of its columns, one bit ``Q`` at the column ``j`` (the spacer for ``j = b``, the guard
    once ``j`` reached 0). In row ``i`` each segment scans down from ``j`` for the first
    column that stops it: a match with ``ref[i-1]`` (taken: ``i-1`` is in the union and
    ``j`` moves below it), or a column where ``L[i-1][j] == L[i][j]`` (the gold token is
    dropped, ``j`` stays); the guard stops a segment for good.
    """
    masks, cols, guards, spacers = lay.masks, lay.cols, lay.guards, lay.spacers
    smear = lay.smear
    rows = [cols]
    v = cols
    for x in ref:
        m = masks.get(x)
        if m:
            u = v & m
            v = ((v + u) | (v ^ u)) & cols
        rows.append(v)
    q = spacers
    out = []
    for i in range(len(ref), 0, -1):
        mx = masks.get(ref[i - 1])
        if not mx:
            continue  # no column matches: every segment drops the gold token, j stays
        h_i = cols & ~rows[i]
        h_p = cols & ~rows[i - 1]
        # L[i][j] - L[i-1][j] is the running sum of h_i - h_p over the columns below j: its
        # +1s and -1s alternate, so the columns where it is 1 are the runs from each +1 to
        # the next -1 (or to the segment's spacer)
        up = (((h_p & ~h_i) | spacers) - (h_i & ~h_p)) & cols
        stops = mx | (cols & ~up) | guards
        r = stops & (q - guards)  # at or below each segment's bound
        for d, same in smear:
            r |= (r >> d) & same
        top = r & ~(r >> 1)  # the highest stop of each live segment
        hit = top & mx
        if hit:
            out.append(i - 1)
        q = hit | (top & guards) | ((top & ~mx & ~guards) << 1) | (q & guards)
    out.reverse()
    return out
