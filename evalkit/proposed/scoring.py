"""Stage 1.4 of the proposed method: weighted block scoring and the threshold, under every reading.

Saravanan & Sathya Bama (2020), §3.4, Eqs. 4-8, the Weighted Block Score
algorithm and Table 4; specification in docs/methods/proposed.md#34-weighted-block-scoring;
every ambiguity, the readings it allows and their measured effect in ``docs/readings.md``.

The paper: every distinct block i (after duplicate removal) is scored

    score(i) = 1 - (alpha * T_w(i) + beta * L_w(i) + gamma * C_w(i))

with T_w = title words of i / distinct title words of the page, L_w = link
words of i / distinct link words, C_w = content words of i / distinct content
words, where content words are the block's terms that are neither title nor
link words. The weights satisfy alpha <= beta <= gamma and sum to one
(0.3, 0.3, 0.4). A block is significant when its score exceeds
t = (number of distinct blocks) / (total number of blocks).

The paper leaves a dozen choices open. Each is a field of :class:`Reading`
(its docstring quotes the sentence the field rests on), and
:func:`score_page` applies a reading to one page's :class:`PageInputs` (the
distinct blocks' terms, anchor terms and heading terms, the page title's
terms and the block counts of stages 1 and 2). The default reading is the
most literal one and gives today's numbers:

* Counts are over terms (``evalkit.core.text.terms``: stop words out, Porter
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

* A consequence of Eq. 4 that the literal reading keeps: the score falls as a
  block's content words grow, and C_w exceeds 1 when one block holds more
  term occurrences than D_content (always so when a single distinct block is
  left, since N_i is at least its distinct count). The paper says scores lie
  in [0, 1]; on real pages whose article sits in one large block, that block
  scores low or negative and is dropped (shingle F1 on aeb 0.211 against
  0.804 after stage 1.3). ``title_count="distinct"``, ``link_count="distinct"``
  and ``bound="ratios"`` (the ``proposed_bounded`` preset) read "lies between
  0 and 1" as a property the ratios must have.
* A consequence of Eq. 8 that the literal reading keeps: when no block was
  removed before scoring (all blocks distinct, e.g. a page with a single
  block, or stages 1.2 and 1.3 switched off without duplicates) the
  threshold is 1 and no score can exceed it, so nothing is kept
  (``if_none_pass`` says what else may be kept).

Departures of the default: the pseudocode prints the content weight as
``0.3 * 0.4 * w_c``; Eq. 4 and Table 4 use ``0.4 * w_c``, which we follow
(``content_weight="pseudocode"`` is the other reading; :func:`reproduces_table4`
checks every reading against the 28 computed numbers of Table 4).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from evalkit.core.validate import ParamError, check_choice, check_number

__all__ = [
    "CONTENT_DENOMINATORS",
    "DEFAULT_ALPHA",
    "DEFAULT_BETA",
    "DEFAULT_GAMMA",
    "PAPER_TABLE4",
    "READING_CHOICES",
    "BlockCounts",
    "BlockInputs",
    "PageInputs",
    "PageScores",
    "Reading",
    "block_scores",
    "reproduces_table4",
    "score_page",
    "table4_inputs",
    "table4_numbers",
    "threshold",
    "validate_weights",
]

DEFAULT_ALPHA = 0.3
DEFAULT_BETA = 0.3
DEFAULT_GAMMA = 0.4
CONTENT_DENOMINATORS = ("block_distinct_sum", "page_distinct")
#: the values of every string field of :class:`Reading`, the default first
READING_CHOICES: dict[str, tuple[str, ...]] = {
    "title_source": ("title", "headings"),
    "title_count": ("occurrences", "distinct"),
    "link_scope": ("block", "page"),
    "link_count": ("occurrences", "distinct"),
    "content_count": ("remainder", "occurrences", "distinct"),
    "content_denominator": CONTENT_DENOMINATORS,
    "content_weight": ("eq4", "pseudocode", "eq7_literal"),
    "bound": ("none", "ratios", "score"),
    "threshold_blocks": ("stage1", "stage2"),
    "comparison": ("gt", "ge"),
    "if_none_pass": ("nothing", "best", "all"),
}
#: the factor the pseudocode prints in front of ``0.4 * w_c``
PSEUDOCODE_FACTOR = 0.3
# tolerance for alpha + beta + gamma == 1 with decimal inputs such as 0.3 + 0.3 + 0.4
_SUM_TOL = 1e-9


def validate_weights(alpha: float, beta: float, gamma: float) -> None:
    """Raise ValueError (:class:`evalkit.core.validate.ParamError`, naming the three weights)
    unless they are numbers with 0 <= alpha <= beta <= gamma and alpha + beta + gamma = 1."""
    names, values = ("alpha", "beta", "gamma"), (alpha, beta, gamma)
    for name, value in zip(names, values):
        check_number(name, value)
    if min(values) < 0:
        raise ParamError(names, values, "scoring weights must be >= 0")
    if not alpha <= beta <= gamma:
        raise ParamError(names, values, "scoring weights need alpha <= beta <= gamma (Eq. 4)")
    if abs(alpha + beta + gamma - 1.0) > _SUM_TOL:
        raise ParamError(
            names,
            values,
            f"scoring weights must sum to 1 (Eq. 4), they sum to {alpha + beta + gamma:g}",
        )


@dataclass(frozen=True)
class Reading:
    """One reading of §3.4: every choice the paper leaves open, checked on construction.

    Build it from a config group with ``Reading(**cfg)``; a bad value raises
    :class:`evalkit.core.validate.ParamError` naming the field. The defaults are the most
    literal reading (``configs/method/proposed.yaml``). Quotations are from
    Saravanan & Sathya Bama (2020), §3.4 and §4.

    Attributes
    ----------
    alpha, beta, gamma : float
        Eq. 4's weights. "α, β and γ are the weight factor with two constrains such as
        α ≤ β ≤ γ and α + β + γ = 1. The values of the weights are α = 0.3, β = 0.3 and
        γ = 0.4."
    title_source : {"title", "headings"}
        Which words are *title words*. Algorithm: "If term t is in the title"; Eq. 5:
        "N_Distinct_title is the number of distinct title terms in the web page".
        ``title``: the terms of ``<title>``; ``headings``: the terms of the ``<h1>``-``<h6>``
        elements of the scored blocks (the page's titles inside its body).
    title_count : {"occurrences", "distinct"}
        Eq. 5's ``title_count_i``, "the number of Titlewords present in the block i",
        over "the number of distinct title terms in the web page". ``occurrences``: the
        Algorithm's ``Titleword = Titleword + 1`` for every term occurrence; ``distinct``:
        the block's distinct title words, so that T_w, a count of distinct words over
        the page's distinct words, "lies between 0 and 1".
    link_scope : {"block", "page"}
        Which occurrences are *link words*. Algorithm: "Else if term t is a link"; Eq. 6:
        "link_count_i represents the number of Linkwords present in the block i".
        ``block``: an occurrence inside one of the block's own ``<a>`` elements;
        ``page``: an occurrence of a term that is a link term anywhere on the page (the
        scored blocks' anchors), as "term t is in the title" tests membership.
    link_count : {"occurrences", "distinct"}
        Eq. 6's ``link_count_i`` over "N_Distinct_link ... the number of distinct link
        terms in the web page": occurrences, or the block's distinct link words.
    content_count : {"remainder", "occurrences", "distinct"}
        Eq. 7's ``content_count_i``: "This can be computed by subtracting the title_count
        and link_count from the number of terms N in the block i"; Algorithm: "Else
        Contentword = Contentword + 1". ``remainder``: N minus the reading's title_count
        and link_count (the prose); ``occurrences``: every occurrence that is neither a
        title nor a link word (the Algorithm; equal to ``remainder`` when both counts are
        occurrences, but for the rare anchor term that the block's own terms split
        differently); ``distinct``: the block's distinct content words.
    content_denominator : {"block_distinct_sum", "page_distinct"}
        Eq. 7's D_content: "N_Distinct_content is the number of distinct Contentwords
        present in the webpage", but Table 4's "Total No. of Distinct Content Words in a
        Web Page : 227" is the sum of its distinct-word column (28+25+27+33+42+36+36).
        ``block_distinct_sum``: that sum over the scored blocks; ``page_distinct``: the
        distinct content words of the scored blocks.
    content_weight : {"eq4", "pseudocode", "eq7_literal"}
        The content term of the score. Eq. 4: "γ * C_w(i)"; the pseudocode:
        "Blockscore (b) = 1 - (0.3 * w_t + 0.3 * w_l + 0.3 * 0.4 * w_c)" (``pseudocode``:
        ``0.3 * gamma * C_w``); Eq. 7 as printed defines "T_w(i) = content_count_i /
        N_Distinct_content" (``eq7_literal``: that ratio replaces Eq. 5's T_w and C_w,
        left without a formula, is 0).
    bound : {"none", "ratios", "score"}
        "Block_score(i) represents the score of the block i that lies between 0 and 1".
        ``none``: a description, no operation; ``ratios``: T_w, L_w and C_w are each
        clipped to [0, 1], which puts the score in [0, 1] since the weights sum to 1;
        ``score``: the score itself is clipped (changes recorded scores, never a
        decision against a threshold in (0, 1]).
    threshold_blocks : {"stage1", "stage2"}
        Eq. 8's "Total Number of blocks" (Algorithm: "Total Number of Web page blocks
        m"); §4: "The total number of blocks in the web page is 14". ``stage1``: the
        blocks of block separation (14); ``stage2``: the blocks left after primary noise
        removal (8 in §4).
    comparison : {"gt", "ge"}
        Algorithm: "If Blockscore(b) > t then" (``gt``); §4 speaks of "scores greater than
        the threshold" and "lesser score than the threshold", leaving a tie open (``ge``
        keeps it).
    if_none_pass : {"nothing", "best", "all"}
        The paper does not say what is kept when no score passes the threshold (always
        so when nothing was removed before scoring: t = 1). ``nothing``: an empty
        output; ``best``: the highest-scoring block (the abstract: "The blocks having
        higher score values are extracted"); ``all``: every scored block.
    """

    alpha: float = DEFAULT_ALPHA
    beta: float = DEFAULT_BETA
    gamma: float = DEFAULT_GAMMA
    title_source: str = "title"
    title_count: str = "occurrences"
    link_scope: str = "block"
    link_count: str = "occurrences"
    content_count: str = "remainder"
    content_denominator: str = "block_distinct_sum"
    content_weight: str = "eq4"
    bound: str = "none"
    threshold_blocks: str = "stage1"
    comparison: str = "gt"
    if_none_pass: str = "nothing"

    def __post_init__(self) -> None:
        validate_weights(self.alpha, self.beta, self.gamma)
        for name, choices in READING_CHOICES.items():
            check_choice(name, getattr(self, name), choices)

    def changes(self) -> dict[str, object]:
        """The fields that differ from the literal (default) reading."""
        default = Reading()
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != getattr(default, f.name)
        }


@dataclass(frozen=True)
class BlockInputs:
    """What stage 1.4 needs of one distinct block (stage 1.3's preprocessing throughout).

    ``terms``: every term of the block's own text, in order; ``anchor_terms``: the terms
    of its own ``<a>`` text (a sub-multiset of ``terms``); ``heading_terms``: the terms of
    its own ``<h1>``-``<h6>`` text (empty unless a reading reads title words from headings).
    """

    terms: Sequence[str]
    anchor_terms: Sequence[str] = ()
    heading_terms: Sequence[str] = ()


@dataclass(frozen=True)
class PageInputs:
    """What stage 1.4 needs of one page: its distinct blocks in document order, the terms of
    its ``<title>``, and the number of blocks after stage 1 (block separation) and after
    stage 2 (primary noise removal)."""

    blocks: Sequence[BlockInputs]
    title_terms: Sequence[str]
    n_blocks_stage1: int
    n_blocks_stage2: int


@dataclass(frozen=True)
class BlockCounts:
    """Term counts of one block: Table 4's columns. ``content`` is the content count when a
    reading does not take it as ``n_terms - title_count - link_count``."""

    n_terms: int
    title_count: int
    link_count: int
    n_distinct: int
    content: int | None = None

    @property
    def content_count(self) -> int:
        if self.content is not None:
            return self.content
        return self.n_terms - self.title_count - self.link_count


@dataclass(frozen=True)
class PageScores:
    """Stage 1.4 on one page: per block (in the order of :class:`PageInputs`) the counts,
    the three ratios (after any bound), the score and the decision; the page's
    denominators and threshold; ``fallback`` names the ``if_none_pass`` rule when it
    decided the kept blocks (else None)."""

    counts: tuple[BlockCounts, ...]
    t_w: tuple[float, ...]
    l_w: tuple[float, ...]
    c_w: tuple[float, ...]
    scores: tuple[float, ...]
    kept: tuple[bool, ...]
    d_title: int
    d_link: int
    d_content: int
    threshold: float
    fallback: str | None = None


def _count(
    block: BlockInputs,
    reading: Reading,
    title_vocab: frozenset[str],
    link_vocab: frozenset[str] | None,
) -> tuple[BlockCounts, set[str]]:
    """One block's counts under ``reading``, and its distinct content words.

    Title words first, then link words (the Algorithm's "if title ... else if link"); with
    ``link_vocab`` (page scope) an occurrence is a link word when its term is in it,
    otherwise the block's anchor occurrences that are not title words are its link words.
    """
    block_terms = block.terms
    n = len(block_terms)
    title_occ = [t for t in block_terms if t in title_vocab]
    rest = [t for t in block_terms if t not in title_vocab] if title_occ else list(block_terms)
    if link_vocab is None:
        links = [t for t in block.anchor_terms if t not in title_vocab]
        link_occ = min(len(links), len(rest))
        link_set = set(links)
        # content: the rest minus one occurrence per link word
        remaining: dict[str, int] = {}
        for t in links:
            remaining[t] = remaining.get(t, 0) + 1
        content_occ = []
        for t in rest:
            if remaining.get(t, 0) > 0:
                remaining[t] -= 1
            else:
                content_occ.append(t)
    else:
        content_occ = [t for t in rest if t not in link_vocab]
        link_occ = len(rest) - len(content_occ)
        link_set = {t for t in rest if t in link_vocab}
    title_count = len(set(title_occ)) if reading.title_count == "distinct" else len(title_occ)
    link_count = len(link_set) if reading.link_count == "distinct" else link_occ
    content_set = set(content_occ)
    content = None  # the remainder n - title_count - link_count
    if reading.content_count == "occurrences":
        content = len(content_occ)
    elif reading.content_count == "distinct":
        content = len(content_set)
    counts = BlockCounts(
        n_terms=n,
        title_count=title_count,
        link_count=link_count,
        n_distinct=len(set(block_terms)),
        content=content,
    )
    return counts, content_set


def score_page(reading: Reading, page: PageInputs) -> PageScores:
    """Apply ``reading`` to one page: counts, Eqs. 5-7, Eq. 4, Eq. 8 and the decisions."""
    if reading.title_source == "title":
        title_vocab = frozenset(page.title_terms)
    else:
        title_vocab = frozenset(t for b in page.blocks for t in b.heading_terms)
    # link terms of the page: the scored blocks' anchor terms that are not title words
    link_vocab = frozenset(t for b in page.blocks for t in b.anchor_terms if t not in title_vocab)
    counts, content_sets = [], []
    for b in page.blocks:
        c, content = _count(
            b, reading, title_vocab, link_vocab if reading.link_scope == "page" else None
        )
        counts.append(c)
        content_sets.append(content)
    d_title, d_link = len(title_vocab), len(link_vocab)
    if reading.content_denominator == "block_distinct_sum":
        d_content = sum(c.n_distinct for c in counts)
    else:
        d_content = len(set().union(*content_sets)) if content_sets else 0

    t_w = [c.title_count / d_title if d_title else 0.0 for c in counts]
    l_w = [c.link_count / d_link if d_link else 0.0 for c in counts]
    c_w = [c.content_count / d_content if d_content else 0.0 for c in counts]
    if reading.bound == "ratios":
        t_w, l_w, c_w = ([min(x, 1.0) for x in w] for w in (t_w, l_w, c_w))
    a, b_, g = reading.alpha, reading.beta, reading.gamma
    if reading.content_weight == "eq4":
        scores = [1.0 - (a * t + b_ * ln + g * c) for t, ln, c in zip(t_w, l_w, c_w)]
    elif reading.content_weight == "pseudocode":
        scores = [
            1.0 - (a * t + b_ * ln + PSEUDOCODE_FACTOR * g * c) for t, ln, c in zip(t_w, l_w, c_w)
        ]
    else:  # eq7_literal: Eq. 7's ratio is T_w; C_w has no formula left
        t_w, c_w = c_w, [0.0] * len(c_w)
        scores = [1.0 - (a * t + b_ * ln) for t, ln in zip(t_w, l_w)]
    if reading.bound == "score":
        scores = [min(max(s, 0.0), 1.0) for s in scores]

    m = page.n_blocks_stage1 if reading.threshold_blocks == "stage1" else page.n_blocks_stage2
    t = threshold(len(page.blocks), m)
    if reading.comparison == "gt":
        kept = [s > t for s in scores]
    else:
        kept = [s >= t for s in scores]
    fallback = None
    if scores and not any(kept) and reading.if_none_pass != "nothing":
        fallback = reading.if_none_pass
        if fallback == "all":
            kept = [True] * len(scores)
        else:  # the first block of the highest score
            best = max(range(len(scores)), key=lambda i: (scores[i], -i))
            kept = [i == best for i in range(len(scores))]
    return PageScores(
        counts=tuple(counts),
        t_w=tuple(t_w),
        l_w=tuple(l_w),
        c_w=tuple(c_w),
        scores=tuple(scores),
        kept=tuple(kept),
        d_title=d_title,
        d_link=d_link,
        d_content=d_content,
        threshold=t,
        fallback=fallback,
    )


def block_scores(
    counts: Sequence[BlockCounts],
    d_title: int,
    d_link: int,
    d_content: int,
    alpha: float = DEFAULT_ALPHA,
    beta: float = DEFAULT_BETA,
    gamma: float = DEFAULT_GAMMA,
) -> list[float]:
    """Eq. 4 for every block from given counts and denominators: ``1 - (alpha T_w + beta
    L_w + gamma C_w)`` (Eqs. 5-7), as :func:`score_page` computes it under the default
    reading."""
    validate_weights(alpha, beta, gamma)
    out = []
    for c in counts:
        t_w = c.title_count / d_title if d_title else 0.0
        l_w = c.link_count / d_link if d_link else 0.0
        c_w = c.content_count / d_content if d_content else 0.0
        out.append(1.0 - (alpha * t_w + beta * l_w + gamma * c_w))
    return out


def threshold(n_distinct: int, n_blocks: int) -> float:
    """Eq. 8: distinct blocks / all blocks (0 when the page has no block)."""
    return n_distinct / n_blocks if n_blocks else 0.0


# -- the worked example (§4, Tables 1-4) ------------------------------------------------

#: Table 4 as printed: block -> (total words, title words, title relevancy, link words,
#: link relevancy, content words, distinct words, content relevancy, block score); the page
#: has 12 distinct title words, 9 distinct link words, "227" distinct content words, 14
#: blocks after block separation, 8 after primary noise removal (Table 1 removes six of
#: the 14) and 7 distinct blocks (Table 3 removes b7); the threshold is 0.5.
PAPER_TABLE4: dict[str, tuple[int, int, float, int, float, int, int, float, float]] = {
    "b2": (46, 7, 0.583, 0, 0.000, 39, 28, 0.172, 0.756),
    "b3": (40, 0, 0.000, 4, 0.444, 36, 25, 0.159, 0.803),
    "b6": (33, 0, 0.000, 0, 0.000, 33, 27, 0.145, 0.942),
    "b8": (69, 7, 0.583, 7, 0.778, 55, 33, 0.242, 0.495),
    "b11": (68, 10, 0.833, 6, 0.667, 52, 42, 0.229, 0.458),
    "b12": (36, 0, 0.000, 0, 0.000, 36, 36, 0.159, 0.937),
    "b13": (41, 0, 0.000, 0, 0.000, 41, 36, 0.181, 0.928),
}
TABLE4_THRESHOLD = 0.5
TABLE4_KEPT = ("b2", "b3", "b6", "b12", "b13")
# which of the page's 12 title words and 9 link words each block holds (each once)
_T4_TITLE = {"b2": (0, 1, 2, 3, 4, 10, 11), "b8": (5, 6, 7, 8, 9, 10, 11), "b11": tuple(range(10))}
_T4_LINK = {"b3": (0, 1, 2, 3), "b8": (0, 1, 2, 3, 4, 5, 6), "b11": (3, 4, 5, 6, 7, 8)}


def table4_inputs() -> PageInputs:
    """A page whose counts are Table 4's, built so that its words decide nothing Table 4
    does not state.

    Table 4 prints counts, not words, so it cannot tell apart readings that differ only in
    *which* words count. The page is made so that they agree: each block holds each of its
    title and link words once (occurrences = distinct), its title words are also its
    heading (``<title>`` terms = heading terms, 12 in all), no content word is a title or
    link word anywhere (block scope = page scope), and its content words, its own, take the
    rest of its distinct count (b2: 46 terms, 7 title, 0 link, 28 distinct -> 21 content
    words over 39 occurrences). Readings that change the arithmetic (counting content words
    as distinct, the denominators, the weights, the threshold's block count) do show.
    """
    blocks = []
    for b, row in PAPER_TABLE4.items():
        _, n_title, _, n_link, _, n_content, n_distinct = row[:7]
        title = [f"title{i}" for i in _T4_TITLE.get(b, ())]
        link = [f"link{i}" for i in _T4_LINK.get(b, ())]
        k = n_distinct - n_title - n_link  # the block's distinct content words
        content = [f"{b}word{i % k}" for i in range(n_content)]  # round robin: k distinct
        blocks.append(
            BlockInputs(
                terms=tuple(title + link + content),
                anchor_terms=tuple(link),
                heading_terms=tuple(title),
            )
        )
    title_terms = tuple(f"title{i}" for i in range(12))
    return PageInputs(
        blocks=tuple(blocks), title_terms=title_terms, n_blocks_stage1=14, n_blocks_stage2=8
    )


def table4_numbers(
    reading: Reading,
) -> tuple[dict[str, tuple[float, float, float, float]], float, tuple[str, ...]]:
    """``reading`` on :func:`table4_inputs`: per block (title relevancy, link relevancy,
    content relevancy, score), the threshold and the kept blocks."""
    out = score_page(reading, table4_inputs())
    names = list(PAPER_TABLE4)
    numbers = {b: (out.t_w[i], out.l_w[i], out.c_w[i], out.scores[i]) for i, b in enumerate(names)}
    return numbers, out.threshold, tuple(b for b, k in zip(names, out.kept) if k)


def reproduces_table4(reading: Reading) -> bool:
    """Whether ``reading`` gives all 28 computed numbers of Table 4 to three decimals (each
    block's title, link and content relevancy and score), the threshold 0.5, and keeps
    b2, b3, b6, b12 and b13 (b8 and b11 dropped)."""
    numbers, t, kept = table4_numbers(reading)
    for b, row in PAPER_TABLE4.items():
        want = (row[2], row[4], row[7], row[8])
        if any(f"{x:.3f}" != f"{w:.3f}" for x, w in zip(numbers[b], want)):
            return False
    return f"{t:.3f}" == f"{TABLE4_THRESHOLD:.3f}" and kept == TABLE4_KEPT
