"""Stage 1.1 on VIPS blocks (``blocks.segmenter=vips``): the leaves of the page's VIPS content
structure as the proposed method's blocks (docs/readings.md#vips-blocks).

The paper: "Initially, the web page is divided into various blocks" (abstract) and "the web
page is divided into various smaller sections based on the structure of the content in the
web page" (§3.1), before it names the ``<DIV>`` and ``<TD>`` tags. The default reading cuts
at those tags (:mod:`evalkit.proposed.blocks`); this one lets VIPS (Cai et al. 2003,
:mod:`evalkit.core.vips`) cut the rendered page.

The later stages find a block by ownership: every element belongs to its nearest ancestor
(or itself) whose tag is a block tag (``BodyIndex.owner``, ``iter_own``, ``own_text``). VIPS
leaves have any tag, so each leaf element is wrapped in an element of its own tag,
:data:`BLOCK_TAG`, and that tag is the one block tag of the page: a leaf's subtree is its
block, text outside every leaf is the residual block (``blocks.residual_block``), and
nothing else of the stages changes. The wrapper holds no text of its own and is no line of
text (it is not a block-level tag of :mod:`evalkit.core.visible`), so every text stays as it
was; the element's tail stays outside it. A block's record names the leaf (its tag and the
XPath it had before wrapping), not the wrapper.

Departures: a leaf that is ``<body>`` itself (a page VIPS keeps whole) is not wrapped, so its
text is the residual block; a leaf of several elements wraps each (VIPS's leaves here are
single elements, :func:`evalkit.core.vips.extract_blocks`).
"""

from __future__ import annotations

from typing import Any

from evalkit.core.rendered import RenderSettings
from evalkit.core.vips import Vips

__all__ = ["BLOCK_TAG", "mark_leaves", "name_blocks"]

#: the tag of the element each VIPS leaf is wrapped in: the page's one block tag
BLOCK_TAG = "evalkit-vips-block"


def page_layout(page, render: dict | None):
    """The page's layout under ``render`` (RuntimeError when the harness has not rendered it)."""
    layout = page.layouts.get(RenderSettings.from_params(render).key())
    if layout is None:
        raise RuntimeError(
            "no rendered layout for this page (blocks.segmenter=vips: the "
            "harness renders pages for methods that need one)"
        )
    return layout


def mark_leaves(root, layout, vips: Vips) -> dict[Any, tuple[str, str]]:
    """Wrap each VIPS leaf element of ``root`` (the tree the layout maps onto, before
    anything is removed from it) in a :data:`BLOCK_TAG` element, in place; wrapper -> (the
    leaf's tag, the leaf's XPath before wrapping)."""
    tree = vips.segment(root, layout)
    leaves = [el for leaf in (tree.leaves() if tree is not None else []) for el in leaf.elements]
    doc = root.getroottree()
    named = [
        (el, el.tag.lower(), doc.getpath(el))
        for el in leaves
        if el.tag.lower() not in ("body", "html")
    ]
    marks = {}
    for el, tag, path in named:
        wrapper = root.makeelement(BLOCK_TAG, {})
        el.addprevious(wrapper)
        wrapper.tail, el.tail = el.tail, None
        wrapper.append(el)
        marks[wrapper] = (tag, path)
    return marks


def name_blocks(blocks, marks: dict[Any, tuple[str, str]]) -> None:
    """Give each block of a wrapper its leaf's tag and path (the records name the leaf)."""
    for b in blocks:
        if b.element in marks:
            b.tag, b.path = marks[b.element]
