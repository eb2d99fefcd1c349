"""Stage 1.4 of the proposed method: weighted block scoring and the threshold.

Saravanan & Sathya Bama (2020), §3.4, Eqs. 4-8 and Table 4; specification in
docs/methods/proposed.md#34-weighted-block-scoring.

The paper: every distinct block i (after duplicate removal) is scored

    score(i) = 1 - (alpha * T_w(i) + beta * L_w(i) + gamma * C_w(i))

with T_w = title words of i / distinct title words of the page, L_w = link
words of i / distinct link words, C_w = content words of i / distinct content
words, where content words are the block's terms that are neither title nor
link words. The weights satisfy alpha <= beta <= gamma and sum to one
(0.3, 0.3, 0.4). A block is significant when its score exceeds
t = (number of distinct blocks) / (total number of blocks).

Our reading:

* Counts are over terms (``evalkit.text.terms``: stop words out, Porter
  stems), with multiplicity. A term is a *title word* when it occurs among the
  terms of the page ``<title>``; otherwise it is a *link word* when the
  occurrence is inside one of the block's own ``<a>`` elements (Algorithm's
  "if title ... else if link"). ``D_title`` is the number of distinct title
  terms; ``D_link`` the number of distinct link words over the scored blocks.
* ``D_content``: the prose says "distinct content words in the web page",
  but Table 4's 227 is the sum of the per-block distinct word counts of the
  seven blocks (28+25+27+33+42+36+36 = 227). The default follows the table
  (``content_denominator="block_distinct_sum"``: sum over scored blocks of
  their distinct terms); ``"page_distinct"`` counts distinct content words
  over the scored blocks. A zero denominator gives a zero weight.
* The threshold's "total number of blocks" is the block count of stage 1.1
  (14 in the paper's example), not the count after primary removal.

* A consequence of Eq. 4 that we keep: the score falls as a block's content
  words grow, and C_w exceeds 1 when one block holds more term occurrences
  than D_content (always so when a single distinct block is left, since N_i
  is at least its distinct count). The paper says scores lie in [0, 1]; on
  real pages whose article sits in one large block, that block scores low or
  negative and is dropped (measured on 30 CleanEval pages: word F1 0.90
  after stage 1.3, 0.49 after stage 1.4, 7 pages empty).
* A consequence of Eq. 8 that we keep: when no block was removed before
  scoring (all blocks distinct, e.g. a page with a single block, or stages
  1.2 and 1.3 switched off without duplicates) the threshold is 1 and no
  score can exceed it, so nothing is kept.

Departures: the pseudocode prints the content weight as ``0.3 * 0.4 * w_c``;
Eq. 4 and Table 4 use ``0.4 * w_c``, which we follow (the test checks every
score of Table 4).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evalkit.validate import ParamError, check_number

__all__ = [
    "CONTENT_DENOMINATORS",
    "DEFAULT_ALPHA",
    "DEFAULT_BETA",
    "DEFAULT_GAMMA",
    "BlockCounts",
    "block_scores",
    "count_block",
    "denominators",
    "threshold",
    "validate_weights",
]

DEFAULT_ALPHA = 0.3
DEFAULT_BETA = 0.3
DEFAULT_GAMMA = 0.4
CONTENT_DENOMINATORS = ("block_distinct_sum", "page_distinct")
# tolerance for alpha + beta + gamma == 1 with decimal inputs such as 0.3 + 0.3 + 0.4
_SUM_TOL = 1e-9


@dataclass(frozen=True)
class BlockCounts:
    """Term counts of one block: Table 4's columns."""

    n_terms: int
    title_count: int
    link_count: int
    n_distinct: int

    @property
    def content_count(self) -> int:
        return self.n_terms - self.title_count - self.link_count


def validate_weights(alpha: float, beta: float, gamma: float) -> None:
    """Raise ValueError (:class:`evalkit.validate.ParamError`, naming the three weights)
    unless they are numbers with 0 <= alpha <= beta <= gamma and alpha + beta + gamma = 1."""
    names, values = ("alpha", "beta", "gamma"), (alpha, beta, gamma)
    for name, value in zip(names, values):
        check_number(name, value)
    if min(values) < 0:
        raise ParamError(names, values, "scoring weights must be >= 0")
    if not alpha <= beta <= gamma:
        raise ParamError(names, values, "scoring weights need alpha <= beta <= gamma (Eq. 4)")
    if abs(alpha + beta + gamma - 1.0) > _SUM_TOL:
        raise ParamError(names, values, f"scoring weights must sum to 1 (Eq. 4), they sum to "
                                        f"{alpha + beta + gamma:g}")


def count_block(block_terms: Sequence[str], link_terms: Sequence[str],
                title_terms: set[str] | frozenset[str]) -> tuple[BlockCounts, set[str], set[str]]:
    """Counts of one block, plus its distinct link words and distinct content words.

    ``block_terms`` are all terms of the block's own text; ``link_terms`` the
    terms of its own anchor text (a sub-multiset of ``block_terms``).
    """
    title_count = sum(1 for t in block_terms if t in title_terms)
    links = [t for t in link_terms if t not in title_terms]
    link_count = min(len(links), len(block_terms) - title_count)
    link_set = set(links)
    # content words: the block's terms minus title words and one occurrence per link word
    remaining: dict[str, int] = {}
    for t in links:
        remaining[t] = remaining.get(t, 0) + 1
    content: set[str] = set()
    for t in block_terms:
        if t in title_terms:
            continue
        if remaining.get(t, 0) > 0:
            remaining[t] -= 1
            continue
        content.add(t)
    counts = BlockCounts(n_terms=len(block_terms), title_count=title_count,
                         link_count=link_count, n_distinct=len(set(block_terms)))
    return counts, link_set, content


def denominators(counts: Sequence[BlockCounts], n_title_distinct: int,
                 link_sets: Sequence[set[str]], content_sets: Sequence[set[str]],
                 content_denominator: str = "block_distinct_sum") -> tuple[int, int, int]:
    """``(D_title, D_link, D_content)`` for the scored blocks of one page."""
    if content_denominator not in CONTENT_DENOMINATORS:
        raise ValueError(f"content_denominator must be one of {CONTENT_DENOMINATORS}, "
                         f"got {content_denominator!r}")
    d_link = len(set().union(*link_sets)) if link_sets else 0
    if content_denominator == "block_distinct_sum":
        d_content = sum(c.n_distinct for c in counts)
    else:
        d_content = len(set().union(*content_sets)) if content_sets else 0
    return n_title_distinct, d_link, d_content


def block_scores(counts: Sequence[BlockCounts], d_title: int, d_link: int, d_content: int,
                 alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA,
                 gamma: float = DEFAULT_GAMMA) -> list[float]:
    """Eq. 4 for every block: ``1 - (alpha T_w + beta L_w + gamma C_w)`` (Eqs. 5-7)."""
    validate_weights(alpha, beta, gamma)
    out = []
    for c in counts:
        t_w = c.title_count / d_title if d_title else 0.0
        l_w = c.link_count / d_link if d_link else 0.0
        c_w = c.content_count / d_content if d_content else 0.0
        out.append(1.0 - (alpha * t_w + beta * l_w + gamma * c_w))
    return out


def threshold(n_distinct: int, n_blocks: int) -> float:
    """Eq. 8: distinct blocks / all blocks of stage 1.1 (0 when the page has no block)."""
    return n_distinct / n_blocks if n_blocks else 0.0
