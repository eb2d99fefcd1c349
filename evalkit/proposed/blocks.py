"""Stage 1.1 of the proposed method: block separation by ``<div>`` and ``<td>``.

Saravanan & Sathya Bama (2020), §3.1; specification in docs/methods/proposed.md#31-block-separation.

The paper: the page is cut into blocks at the ``<DIV>`` and ``<TD>`` tags
inside ``<BODY>``; when a block tag holds other tags *and* inner block tags,
the inner block and the outer block with its remaining tags are separate
blocks. The number of blocks (14 in the paper's worked page) is the
denominator of the scoring threshold of stage 1.4.

Our reading:

* Scripts, styles, ``noscript`` and ``template`` elements are dropped before
  anything else (comments are already gone: ``evalkit.core.page.parse_html``).
* A block *owns* its subtree minus nested blocks, so blocks are disjoint and
  every text node belongs to exactly one block: the nearest ``div``/``td``
  ancestor of the text (the block tag set is a parameter).
* Text inside ``<body>`` but outside every div/td forms one *residual* block
  (the body itself); it is created only when it holds visible text, so an
  empty residual does not inflate the block count. A body without div/td is
  therefore a single block.
* A block's text is its visible text (``evalkit.core.visible.element_text`` rules)
  with nested blocks left out; the record keeps the element and its XPath as
  computed at separation time, before later stages change the tree.

Other readings, each a setting of the blocks stage (docs/readings.md):

* ``nested_text`` ("inner block tags (``<DIV>``) as well as the outer block tag along
  with other tags (``<TD><P></TD>``) are considered as a separate block"): ``own``
  (default) is the reading above; ``subtree`` gives every div/td block the visible text
  of its whole subtree, so an inner block's text is counted in the inner block and in
  every block around it (:class:`TextCache` with ``nested="subtree"``). The residual
  block keeps the body's own text (its subtree would be the whole page). What changes
  is each block's text (what the punctuation rule, stages 1.3 and 1.4 and the output
  read) and stage 1.4's link and heading words; the tag rules still find the block of
  an element by ownership (``BodyIndex.owner``).
* ``residual_block`` ("n is the number of ``<DIV>`` tags and ``<TD>`` tags inside the
  ``<BODY>`` tag"): ``true`` (default) makes the residual block above; ``false`` makes
  none, so text outside every div/td is dropped and not counted in n (the threshold of
  stage 1.4).

Departures: none beyond making the residual block explicit.

Speed: :func:`index_body` walks the body once and learns every block's own
text, which block owns each element and the word count of the whole body;
the later stages read these instead of walking the tree again (the pipeline
parses with ``parse_html(plain=True)``, whose element proxies are cheaper to
make). A :class:`TextCache` holds each block's own text and recomputes it
only after a change to the tree inside that block (``primary_tags`` tells it
which block a dropped element came from).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import lxml.etree
import lxml.html

from evalkit.core.page import drop_tree
from evalkit.core.text import normalize_space
from evalkit.core.visible import BLOCK_TAGS as LINE_TAGS
from evalkit.core.visible import INVISIBLE_TAGS, element_text, element_word_count, join_lines

__all__ = [
    "BLOCK_TAGS",
    "DROP_TAGS",
    "NESTED_TEXT",
    "BlockNode",
    "BodyIndex",
    "TextCache",
    "block_anchor_text",
    "block_text",
    "drop_scripts",
    "element_paths",
    "index_body",
    "iter_own",
    "link_words",
    "own_text",
    "own_word_count",
    "owner_block",
    "separate_blocks",
    "split_body",
]

#: elements that delimit blocks (docs/methods/proposed.md#31-block-separation)
BLOCK_TAGS = ("div", "td")
#: removed with their subtree (tails kept) before block separation
DROP_TAGS = frozenset({"script", "style", "noscript", "template"})
_WALK_EVENTS = ("start", "end", "comment", "pi")
#: what a block's text is (``nested_text``): its own text, or its whole subtree's
NESTED_TEXT = ("own", "subtree")


@dataclass
class BlockNode:
    """One block as the pipeline works on it: an element and the part of its subtree not
    inside nested blocks, with what became of it. (What the extraction reports of each
    block is the record ``Proposed._record`` makes from it.)

    ``stage``/``rule``/``reason`` say which stage removed the block and why
    (None while it survives); ``score``/``threshold`` are set by stage 1.4.
    """

    index: int
    element: lxml.html.HtmlElement
    path: str
    tag: str
    residual: bool = False
    words: int = 0
    stage: str | None = None
    rule: str | None = None
    reason: str = ""
    score: float | None = None
    threshold: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def alive(self) -> bool:
        return self.stage is None

    def remove(self, stage: str, rule: str, reason: str) -> None:
        """Mark the block removed (the first removal wins)."""
        if self.stage is None:
            self.stage, self.rule, self.reason = stage, rule, reason


def _tag(el) -> str:
    return el.tag.lower() if isinstance(el.tag, str) else ""


def drop_scripts(root: lxml.html.HtmlElement) -> lxml.html.HtmlElement:
    """Remove script/style/noscript/template elements (keeping tails), in place."""
    # lxml filters by name in C; libxml2's HTML parser gives lower-case names
    for el in list(root.iter(*DROP_TAGS)):
        if el.getparent() is not None:
            drop_tree(el)
    return root


def _body(root: lxml.html.HtmlElement) -> lxml.html.HtmlElement:
    body = root.find(".//body")
    return body if body is not None else root


def iter_own(el: lxml.html.HtmlElement, block_tags=BLOCK_TAGS) -> Iterator[lxml.html.HtmlElement]:
    """``el`` and its descendants that are not inside a nested block (iterative)."""
    stack = [el]
    while stack:
        node = stack.pop()
        yield node
        for child in reversed(node):
            if isinstance(child.tag, str) and _tag(child) not in block_tags:
                stack.append(child)


def owner_block(el: lxml.html.HtmlElement, block_tags=BLOCK_TAGS) -> lxml.html.HtmlElement | None:
    """The nearest div/td ancestor-or-self of ``el`` (None when there is none)."""
    node = el
    while node is not None:
        if _tag(node) in block_tags:
            return node
        node = node.getparent()
    return None


def own_text(el: lxml.html.HtmlElement, block_tags=BLOCK_TAGS) -> str:
    """Visible text under ``el`` minus nested blocks, a line per block-level element."""
    return element_text(el, skip_tags=block_tags)


def own_word_count(el: lxml.html.HtmlElement, block_tags=BLOCK_TAGS) -> int:
    """``len(own_text(el, block_tags).split())`` without building the lines."""
    return element_word_count(el, block_tags)


class TextCache:
    """Own text of each block of one page: computed once, recomputed after a change.

    Whoever changes the tree inside a block calls :meth:`invalidate` for it
    (``primary_tags.apply_tag_rules`` does for every element it drops).

    With ``nested="subtree"`` (the ``nested_text`` reading) a div/td block's text is
    the visible text of its whole subtree, nested blocks included, and the residual
    block's its own; a change inside one block changes the text of every block around
    it, so :meth:`invalidate` forgets every text (a simpler, slower path).
    """

    def __init__(self, block_tags=BLOCK_TAGS, nested: str = "own"):
        if nested not in NESTED_TEXT:
            raise ValueError(f"nested must be one of {NESTED_TEXT}, got {nested!r}")
        self.block_tags = block_tags
        self.nested = nested
        self._texts: dict[int, str] = {}

    def __getitem__(self, block: BlockNode) -> str:
        text = self._texts.get(block.index)
        if text is None:
            skip = () if self.nested == "subtree" and not block.residual else self.block_tags
            text = self._texts[block.index] = element_text(block.element, skip_tags=skip)
        return text

    def __setitem__(self, block: BlockNode, text: str) -> None:
        self._texts[block.index] = text

    def invalidate(self, block: BlockNode) -> None:
        if self.nested == "subtree":
            self._texts.clear()
        else:
            self._texts.pop(block.index, None)


@dataclass
class BodyIndex:
    """What one walk of the body learns (:func:`index_body`); valid until the tree changes,
    except that dropping subtrees (the only change the later stages make to the
    structure) leaves ``owner`` true for what remains; droppers add to ``gone``.
    """

    body: lxml.html.HtmlElement
    #: the body and every element below it in document order (holding them keeps their
    #: lxml proxies alive for every later visit)
    elements: list
    #: element -> its nearest block-tag ancestor-or-self (``owner_block``; None: the residual)
    owner: dict
    #: block element (the body for the residual block) -> its own text (``own_text``)
    texts: dict
    #: words of the body's visible text with nothing but invisible elements skipped
    #: (``own_word_count(body, ())``)
    words: int
    #: elements dropped from the tree since the walk
    gone: set = field(default_factory=set)


def index_body(body: lxml.html.HtmlElement, block_tags=BLOCK_TAGS) -> BodyIndex:
    """One iterative walk of ``body``: every block's own text, each element's owner block, and
    the word count of the whole visible body, as the per-block functions compute them.

    Each text piece goes to the text of the block that owns it (a nested
    block starts its own; an invisible element's text goes nowhere, though a
    block inside it still has text of its own, as ``own_text`` gives it) and,
    unless an invisible element holds it, to the body's whole text. A child's
    tail belongs where its parent's text goes.
    """
    tag_set = frozenset(t.lower() for t in block_tags)
    invisible, lines = INVISIBLE_TAGS, LINE_TAGS
    own = owner_block(body, tag_set)
    body_tag = _tag(body)
    residual: list[str] | None = [] if body_tag and body_tag not in invisible else None
    parts_of: dict = {body: residual}
    whole: list[str] = []  # pieces of the body's visible text
    owner: dict = {}
    elements: list = []
    keep, note = elements.append, whole.append
    # where text goes now: the owning block's pieces (None: nowhere) and whether it is visible
    target, vis = residual, residual is not None
    # per open element: ((owner, target, visible) of its parent, whether it closes a line)
    stack: list = []
    push, pop = stack.append, stack.pop
    # lxml walks the tree in C; comments and processing instructions come as their own
    # events, so that their tails are not lost
    for event, node in lxml.etree.iterwalk(body, events=_WALK_EVENTS):
        if event == "start":
            low = node.tag.lower()
            up = (own, target, vis)  # the parent's, restored at this element's end
            if node is not body:
                if low in tag_set:
                    own = node
                    target = parts_of[node] = [] if low not in invisible else None
                elif low in invisible:
                    target = None
                if low in invisible:
                    vis = False
            owner[node] = own
            keep(node)
            if target is None and not vis:  # nothing of this subtree is text but nested blocks
                push((up, False))
                continue
            line = low in lines
            push((up, line))
            text = node.text
            if line or text:
                piece = "\n" + text if line and text else ("\n" if line else text)
                if target is not None:
                    target.append(piece)
                if vis:
                    note(piece)
            continue
        if event == "end":
            up, line = pop()
            if line:  # the element's line closes with its own target
                if target is not None:
                    target.append("\n")
                if vis:
                    note("\n")
            own, target, vis = up
            if node is body:  # the body's tail is outside the body
                break
        tail = node.tail  # an element's, comment's or processing instruction's
        if tail:
            if target is not None:
                target.append(tail)
            if vis:
                note(tail)
    texts = {el: join_lines(parts) if parts is not None else "" for el, parts in parts_of.items()}
    return BodyIndex(
        body=body, elements=elements, owner=owner, texts=texts, words=len("".join(whole).split())
    )


def block_text(block: BlockNode, block_tags=BLOCK_TAGS) -> str:
    """Visible text owned by the block, one line per block-level element."""
    return own_text(block.element, block_tags)


def link_words(a: lxml.html.HtmlElement, block_tags=BLOCK_TAGS) -> str:
    """``own_text`` of a link with its white space collapsed to single spaces; a link that
    holds only text (the usual case) needs no walk."""
    return " ".join((own_text(a, block_tags) if len(a) else a.text or "").split())


def block_anchor_text(block: BlockNode, block_tags=BLOCK_TAGS) -> str:
    """Text of the ``<a>`` elements the block owns, space separated."""
    parts = []
    for node in iter_own(block.element, block_tags):
        if _tag(node) == "a":
            parts.append(link_words(node, block_tags))
    return normalize_space(" ".join(parts))


def element_paths(top: lxml.html.HtmlElement, tags=None) -> dict:
    """XPath of ``top`` and every element below it (only those in ``tags`` when given).

    The same strings as lxml's ``getpath`` (``div[2]`` only when a parent has
    several children with that tag), built in one pass: ``getpath`` walks to
    the root for every element, which is quadratic on very deep pages.
    """
    start = top.getroottree().getpath(top)
    out = {top: start} if tags is None or _tag(top) in tags else {}
    stack = [(top, start)]
    while stack:
        el, path = stack.pop()
        children = [c for c in el if isinstance(c.tag, str)]
        if not children:
            continue
        totals: dict[str, int] = {}
        for c in children:
            totals[c.tag] = totals.get(c.tag, 0) + 1
        seen: dict[str, int] = {}
        for c in children:
            seen[c.tag] = seen.get(c.tag, 0) + 1
            step = c.tag if totals[c.tag] == 1 else f"{c.tag}[{seen[c.tag]}]"
            child_path = f"{path}/{step}"
            if tags is None or _tag(c) in tags:
                out[c] = child_path
            stack.append((c, child_path))
    return out


def _child_steps(parent) -> dict:
    """The last XPath step of each element child of ``parent``, as :func:`element_paths` writes it."""
    children = [c for c in parent if isinstance(c.tag, str)]
    totals: dict[str, int] = {}
    for c in children:
        totals[c.tag] = totals.get(c.tag, 0) + 1
    seen: dict[str, int] = {}
    steps = {}
    for c in children:
        seen[c.tag] = seen.get(c.tag, 0) + 1
        steps[c] = c.tag if totals[c.tag] == 1 else f"{c.tag}[{seen[c.tag]}]"
    return steps


def _paths_of(targets, top: lxml.html.HtmlElement) -> dict:
    """:func:`element_paths` for ``targets`` (elements below ``top``) and their ancestors only.

    Each ancestor's path is built once and the siblings are counted only
    under those ancestors, so a page's leaves (links, spans, list items) cost
    nothing; iterative, so very deep pages are linear too.
    """
    known = {top: top.getroottree().getpath(top)}
    steps_of: dict = {}
    for el in targets:
        chain = []
        node = el
        while node not in known:
            chain.append(node)
            node = node.getparent()
        path = known[node]
        for c in reversed(chain):
            parent = c.getparent()
            steps = steps_of.get(parent)
            if steps is None:
                steps = steps_of[parent] = _child_steps(parent)
            path = known[c] = f"{path}/{steps[c]}"
    return known


def separate_blocks(
    root: lxml.html.HtmlElement,
    block_tags=BLOCK_TAGS,
    texts: TextCache | None = None,
    residual: bool = True,
) -> list[BlockNode]:
    """The blocks of a (script-free) document in document order, residual block first.

    The residual block (the body's own text outside every div/td) comes first
    because its text starts before, or around, every other block; ``residual=False``
    makes none (that text then belongs to no block). ``texts``, when given, receives
    every block's own text (its whole subtree's for a ``nested="subtree"`` cache, whose
    block word counts are then those of the subtree too).
    """
    return split_body(root, block_tags, texts, residual)[0]


def split_body(
    root: lxml.html.HtmlElement,
    block_tags=BLOCK_TAGS,
    texts: TextCache | None = None,
    residual: bool = True,
) -> tuple[list[BlockNode], BodyIndex]:
    """:func:`separate_blocks` and the :class:`BodyIndex` of the walk that found the blocks."""
    body = _body(root)
    tags = tuple(t.lower() for t in block_tags)
    tag_set = frozenset(tags)
    index = index_body(body, tags)
    block_els = [el for el in index.elements if el.tag.lower() in tag_set and el is not body]
    paths = _paths_of(block_els, body)
    own = index.texts
    blocks: list[BlockNode] = []
    text = own[body]
    if text and residual:
        blocks.append(
            BlockNode(
                index=0,
                element=body,
                path=paths.get(body) or body.getroottree().getpath(body),
                tag=_tag(body) or "body",
                residual=True,
                words=len(text.split()),
            )
        )
    for el in block_els:
        text = own[el]
        blocks.append(
            BlockNode(
                index=len(blocks), element=el, path=paths[el], tag=_tag(el), words=len(text.split())
            )
        )
    if texts is not None:
        if texts.nested == "subtree":  # the cache makes the subtree texts; words follow them
            for b in blocks:
                b.words = len(texts[b].split())
        else:
            for b in blocks:
                texts[b] = own[b.element]
    return blocks, index
