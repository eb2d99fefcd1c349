"""Stage 1.2, part two: primary noise removal by DOM analysis (minimum subtree, punctuation).

Saravanan & Sathya Bama (2020), §3.2 (last paragraphs, Fig. 3); specification
in docs/methods/proposed.md#32-primary-noise-removal "DOM analysis".

The paper: after the tag rules, the DOM tree is searched for the *minimum
subtree* that still covers the page's content ("a subtree must contain the
maximum content of the web page and none of its subtrees wraps the entire
content"); what lies outside it is noise. Inside it, the text of each block
is checked for punctuation, since running text has commas and full stops and
menus or link lists do not. A block whose text is small is first merged with
the adjacent div/td blocks, so that a short heading is judged together with
its paragraph; blocks (or merged groups) without punctuation are removed.

Our reading:

* "Content" is measured by punctuation marks ``, . ; : ! ?`` in the text of
  blocks still alive after the tag rules. The content root M is the deepest
  element holding at least ``min_subtree_coverage`` (0.8) of them: starting
  at ``<body>``, step into the child that holds that share while one does
  (at most one child can, since the share is above one half). A page
  without punctuation keeps ``<body>`` as M.
* A block is inside M when its element is M or below it, or when it is the
  block that owns M itself (M may be, say, a ``<p>`` inside a div block).
  Other blocks are removed (``outside_subtree="remove"``) or only recorded
  (``"keep"``).
* Adjacency for merging is document order among the alive blocks inside M
  (blocks are disjoint, so these are the div/td nodes whose texts follow each
  other on the rendered page; a headline in the article container's own text
  is adjacent to the first paragraph block nested in it, although the two are
  parent and child in the DOM). A maximal run of consecutive short blocks
  (own text shorter than ``short_text_chars``, 80) is merged with the
  non-short block just before and just after the run; the run survives when
  the merged text has a punctuation mark. A block that is not short is judged
  on its own text.

Other readings, each a setting of the primary stage (docs/readings.md):

* ``coverage_by`` ("the minimum subtree that covers the entire web page content by
  computing the punctuation marks"): ``punctuation`` (default) measures a subtree's
  content by its punctuation marks; ``characters`` by its non-white-space characters
  of text (content as text length; the punctuation rule still counts marks).
* ``punctuation_marks`` ("The core content in the web page has more punctuations such as
  comma, periods than other noise contents"): the marks both rules count, ``,.;:!?``
  (default) or, e.g., comma and period only (``,.``).

Departures: the paper gives neither the coverage share nor the "small text"
size; 0.8 and 80 characters are ours (parameters). An earlier reading took 40
characters, which removes most headlines (40-80 characters, no punctuation)
of the synthetic set; 80 keeps them and removes the same noise.
"""

from __future__ import annotations

import re

import lxml.etree
import lxml.html

from evalkit.core.visible import INVISIBLE_TAGS
from evalkit.proposed.blocks import BLOCK_TAGS, BlockNode, TextCache, block_text, owner_block

__all__ = [
    "COVERAGE_BY",
    "DEFAULT_MIN_SUBTREE_COVERAGE",
    "DEFAULT_SHORT_TEXT_CHARS",
    "OUTSIDE_SUBTREE",
    "PUNCTUATION",
    "apply_min_subtree",
    "apply_punctuation",
    "content_root",
    "count_characters",
    "count_punctuation",
    "punctuation_counts",
]

#: the punctuation marks counted (docs/methods/proposed.md#32-primary-noise-removal)
PUNCTUATION = ",.;:!?"
DEFAULT_MIN_SUBTREE_COVERAGE = 0.8
DEFAULT_SHORT_TEXT_CHARS = 80
OUTSIDE_SUBTREE = ("remove", "keep")
#: what the content root's share is measured in (``coverage_by``; the first is the default)
COVERAGE_BY = ("punctuation", "characters")


def count_punctuation(text: str, marks: str = PUNCTUATION) -> int:
    """Number of ``marks`` characters (``, . ; : ! ?``) in ``text``."""
    return sum(map(text.count, marks))


def count_characters(text: str) -> int:
    """Number of non-white-space characters in ``text`` (``coverage_by="characters"``)."""
    return len("".join(text.split()))


def _tag(el) -> str:
    return el.tag.lower() if isinstance(el.tag, str) else ""


def punctuation_counts(
    body: lxml.html.HtmlElement, blocks: list[BlockNode], block_tags=BLOCK_TAGS
) -> tuple[dict, int]:
    """Punctuation marks in every element's subtree, counting only text of alive blocks.

    Returns ``(counts, total)``; ``counts`` maps element -> marks below it.
    Iterative, so very deep documents are fine.
    """
    alive_of = {b.element: b.alive for b in blocks}
    residual_alive = any(b.residual and b.alive for b in blocks)
    count = count_punctuation
    counts: dict = {}
    order: list = []  # (element, parent) in pre-order
    # (element, alive flag of the block that owns its text, parent)
    stack = [(body, residual_alive, None)]
    pop, push = stack.pop, stack.append
    while stack:
        el, alive, parent = pop()
        tag = _tag(el)
        if not tag or tag in INVISIBLE_TAGS:
            continue
        if el is not body:
            alive = alive_of.get(el, alive)
        n = 0
        if alive:
            if el.text:
                n = count(el.text)
            for child in el:
                tail = child.tail
                if tail:
                    n += count(tail)
                if child.tag.__class__ is str:
                    push((child, alive, el))
        else:
            for child in el:
                if child.tag.__class__ is str:
                    push((child, alive, el))
        counts[el] = n
        order.append((el, parent))
    for el, parent in reversed(order):  # children come after their parent in pre-order
        if parent is not None:
            counts[parent] += counts[el]
    return counts, counts.get(body, 0)


#: every text node below an element, in document order (libxml2 lists them in C; its string
#: functions are slower than testing each text in Python)
_TEXT_NODES = lxml.etree.XPath("descendant::text()")
_HAS_MARK = re.compile("[" + re.escape(PUNCTUATION) + "]").search
_HAS_CHAR = re.compile(r"\S").search


def _measure(coverage_by: str, marks: str):
    """``(has, count)`` of a content measure: a test that a text holds any of it, and its
    amount in a text (the default's are the precompiled ones)."""
    if coverage_by == "characters":
        return _HAS_CHAR, count_characters
    if coverage_by != "punctuation":
        raise ValueError(f"coverage_by must be one of {COVERAGE_BY}, got {coverage_by!r}")
    if marks == PUNCTUATION:
        return _HAS_MARK, count_punctuation
    return (
        re.compile("[" + re.escape(marks) + "]").search,
        lambda text: count_punctuation(text, marks),
    )


def _enter(el, known: dict, alive_of: dict):
    """``known[el]`` built from its nearest known ancestor: the chain from the body down to
    ``el`` and whether the block owning its text (nearest block element, else the residual)
    is alive; None below an invisible element."""
    todo = []
    while el not in known:
        todo.append(el)
        el = el.getparent()
    state = known[el]
    for x in reversed(todo):
        if state is not None:
            tag = x.tag
            if tag.__class__ is str and tag.lower() in INVISIBLE_TAGS:
                state = None
            else:
                state = (state[0] + [x], alive_of.get(x, state[1]))
        known[x] = state
    return state


def content_root(
    body: lxml.html.HtmlElement,
    blocks: list[BlockNode],
    coverage: float = DEFAULT_MIN_SUBTREE_COVERAGE,
    block_tags=BLOCK_TAGS,
    *,
    coverage_by: str = "punctuation",
    marks: str = PUNCTUATION,
) -> tuple[lxml.html.HtmlElement, int, int]:
    """The deepest element holding >= ``coverage`` of the alive punctuation (``marks``), or
    of the alive non-white-space characters (``coverage_by="characters"``).

    Returns ``(M, marks under M, total marks)``, the numbers
    :func:`punctuation_counts` gives; only the text nodes that hold a mark
    (found in C) are visited, each with the chain of elements from ``body``
    down to the element that holds it.
    """
    alive_of = {b.element: b.alive for b in blocks if b.element is not body}
    residual_alive = any(b.residual and b.alive for b in blocks)
    # element -> (chain body..element, alive flag of the block owning its text), or None
    # when the walk never enters it (an invisible element on the way); shared by subtrees
    known: dict = {body: None if _tag(body) in INVISIBLE_TAGS else ([body], residual_alive)}
    marked = []  # (chain body -> holder, marks)
    total = 0
    has, count = _measure(coverage_by, marks)
    for t in filter(has, _TEXT_NODES(body)):
        holder = t.getparent()
        if t.is_tail:  # a tail counts where its element's parent's text does
            holder = holder.getparent()
        state = known.get(holder, False)
        if state is False:
            state = _enter(holder, known, alive_of)
        if state is not None and state[1]:
            n = count(t)
            marked.append((state[0], n))
            total += n
    node = body
    if total == 0:
        return node, 0, 0
    need = coverage * total
    depth = 0
    while True:
        sums: dict = {}
        for chain, n in marked:
            if len(chain) > depth + 1:
                sums[chain[depth + 1]] = sums.get(chain[depth + 1], 0) + n
        ok = {c for c, v in sums.items() if v >= need}
        if not ok:
            return node, sum(n for _, n in marked), total
        nxt = next(c for c in node if c in ok)  # the first in document order, as a walk finds it
        marked = [
            (chain, n) for chain, n in marked if len(chain) > depth + 1 and chain[depth + 1] is nxt
        ]
        node, depth = nxt, depth + 1


def apply_min_subtree(
    root: lxml.html.HtmlElement,
    blocks: list[BlockNode],
    *,
    coverage: float = DEFAULT_MIN_SUBTREE_COVERAGE,
    outside_subtree: str = "remove",
    block_tags=BLOCK_TAGS,
    coverage_by: str = "punctuation",
    marks: str = PUNCTUATION,
) -> tuple[lxml.html.HtmlElement, list[BlockNode]]:
    """Find the content root M (:func:`content_root`); remove (or only flag) alive blocks
    outside it.

    Returns ``(M, alive blocks inside M)``. Flagged-but-kept blocks get
    ``extra["outside_subtree"] = True``.
    """
    if outside_subtree not in OUTSIDE_SUBTREE:
        raise ValueError(
            f"outside_subtree must be one of {OUTSIDE_SUBTREE}, got {outside_subtree!r}"
        )
    body = root.find(".//body")
    body = body if body is not None else root
    m, found, total = content_root(
        body, blocks, coverage, block_tags, coverage_by=coverage_by, marks=marks
    )
    unit = "punctuation marks" if coverage_by == "punctuation" else "characters"
    if m is body:
        return m, [b for b in blocks if b.alive]
    below = set(m.iter())
    holder = owner_block(m, block_tags)
    holder = holder if holder is not None else body
    path = m.getroottree().getpath(m)
    inside = []
    for b in blocks:
        if not b.alive:
            continue
        if b.element in below or b.element is holder:
            inside.append(b)
        elif outside_subtree == "remove":
            b.remove(
                "primary", "min_subtree", f"outside content root {path} ({found}/{total} {unit})"
            )
        else:
            b.extra["outside_subtree"] = True
    return m, inside


def apply_punctuation(
    blocks: list[BlockNode],
    *,
    short_text_chars: int = DEFAULT_SHORT_TEXT_CHARS,
    block_tags=BLOCK_TAGS,
    texts: TextCache | None = None,
    marks: str = PUNCTUATION,
) -> int:
    """Remove blocks (or merged runs of short blocks) without punctuation (``marks``).

    ``blocks`` are the candidates (alive blocks inside M) in document order.
    Returns the number of blocks removed. ``texts``, when given, supplies the
    blocks' current own texts (``blocks.TextCache``).
    """
    own = texts.__getitem__ if texts is not None else (lambda b: block_text(b, block_tags))
    texts = [" ".join(own(b).split("\n")) for b in blocks]
    found = [count_punctuation(t, marks) for t in texts]
    short = [len(t) < short_text_chars for t in texts]
    removed = 0
    i = 0
    while i < len(blocks):
        if not short[i]:
            if found[i] == 0:
                blocks[i].remove(
                    "primary", "punctuation", f"no punctuation in {len(texts[i])} characters"
                )
                removed += 1
            i += 1
            continue
        j = i
        while j < len(blocks) and short[j]:
            j += 1
        lo, hi = max(i - 1, 0), min(j + 1, len(blocks))  # the run plus one neighbour each side
        if sum(found[lo:hi]) == 0:
            ids = ", ".join(f"b{blocks[x].index}" for x in range(lo, hi))
            for x in range(i, j):
                blocks[x].remove(
                    "primary", "punctuation", f"short text merged with {ids}: no punctuation"
                )
                removed += 1
        i = j
    return removed
