"""HTML elements into Markdown: the one converter every own method and pipeline uses.

The own methods decide which parts of a page they keep; their Markdown is what this module
makes of those parts, so a difference in the structure scores is a difference between the
methods' choices, never between converters (docs/metrics.md, structure).

The converter is markdownify (MIT; BeautifulSoup underneath): maintained, pure Python, with
ATX headings, GFM pipe tables and fenced code from ``<pre>``. html2text is GPL-3.0 (a
licence this MIT project would rather not take on as a dependency) and writes setext
headings and wrapped lines by default; html-to-markdown is a compiled extension whose
output options move between major versions. Settings, each named:
"""

from __future__ import annotations

import copy
from collections.abc import Iterable

import lxml.etree
import lxml.html

__all__ = [
    "CONVERTER_OPTIONS",
    "blocks_markdown",
    "element_markdown",
    "html_markdown",
    "pruned_markdown",
]

#: markdownify's options: ATX headings (``## h``) as CommonMark and WCXB's gold write them,
#: ``-`` bullets, fenced code, no line wrapping, scripts and styles dropped with their text
CONVERTER_OPTIONS = {
    "heading_style": "ATX",
    "bullets": "-",
    "code_language": "",
    "wrap": False,
    "strip": ["script", "style", "noscript", "template"],
    "escape_asterisks": False,
    "escape_underscores": False,
}


def html_markdown(html: str) -> str:
    """Markdown of an HTML text (blank lines at its ends removed)."""
    from markdownify import markdownify

    return markdownify(html, **CONVERTER_OPTIONS).strip()


def element_markdown(element: lxml.etree._Element) -> str:
    """Markdown of one element and its subtree (its tail left out)."""
    twin = copy.deepcopy(element)
    twin.tail = None
    return _markdown(twin)


def _drop(element: lxml.etree._Element) -> None:
    """Remove ``element`` and its subtree from its tree, keeping its tail text in place."""
    parent = element.getparent()
    if parent is None:
        return
    tail = element.tail
    if tail:
        prev = element.getprevious()
        if prev is not None:
            prev.tail = (prev.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(element)


def _twin(root: lxml.etree._Element, elements: Iterable[lxml.etree._Element]):
    """A copy of ``root`` and the copies of ``elements`` (found by their place in the tree)."""
    ids = {id(e) for e in elements}
    twin = copy.deepcopy(root)
    twin.tail = None
    mapped = [t for o, t in zip(root.iter(), twin.iter(), strict=True) if id(o) in ids]
    return twin, mapped


def _markdown(twin: lxml.etree._Element) -> str:
    return html_markdown(lxml.etree.tostring(twin, encoding="unicode", method="html"))


def pruned_markdown(root: lxml.etree._Element, dropped: Iterable[lxml.etree._Element]) -> str:
    """Markdown of ``root`` without the ``dropped`` elements of its tree (their tails stay):
    a method that keeps a subtree minus the parts it removed (CETD)."""
    twin, gone = _twin(root, dropped)
    for t in reversed(gone):
        _drop(t)
    return _markdown(twin)


def _is_block(el, tags: frozenset[str]) -> bool:
    return isinstance(el.tag, str) and el.tag.lower() in tags


def _clear_own(el: lxml.etree._Element, tags: frozenset[str]) -> None:
    """Remove ``el``'s own content (its text, its tails and children that hold no block),
    keeping every nested block and the path to it."""
    el.text = None
    for child in list(el):
        if _is_block(child, tags):
            child.tail = None  # the text after a nested block is el's own
        elif any(_is_block(d, tags) for d in child.iterdescendants()):
            _clear_own(child, tags)
            child.tail = None
        else:
            el.remove(child)


def blocks_markdown(
    root: lxml.etree._Element, removed: Iterable[lxml.etree._Element], block_tags: Iterable[str]
) -> str:
    """Markdown of ``root`` with the own content of each ``removed`` block taken out: a block
    method's kept blocks in their places, so kept cells of a table stay one table and a kept
    block nested in a removed one stays (the proposed method: blocks are div and td)."""
    tags = frozenset(t.lower() for t in block_tags)
    twin, gone = _twin(root, removed)
    for t in gone:
        _clear_own(t, tags)
    return _markdown(twin)
