"""Visible text of an lxml tree: what a browser would render, with block breaks kept.

Shared by the ``fulltext`` reference, by every method that outputs the text
of kept elements, and by the readers that turn HTML gold into text.
"""

from __future__ import annotations

import lxml.html

from evalkit.text import normalize_space

__all__ = ["INVISIBLE_TAGS", "BLOCK_TAGS", "drop_invisible", "visible_text", "element_text"]

INVISIBLE_TAGS = frozenset({"script", "style", "noscript", "template", "head", "title", "meta",
                            "link", "svg", "math", "iframe", "object", "embed"})
BLOCK_TAGS = frozenset({
    "address", "article", "aside", "blockquote", "body", "br", "caption", "center", "dd",
    "details", "dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form",
    "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "html", "li", "main", "nav", "ol", "p",
    "pre", "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
})


def drop_invisible(root: lxml.html.HtmlElement) -> lxml.html.HtmlElement:
    """Remove invisible elements (keeping their tails) and comments, in place."""
    for el in list(root.iter()):
        tag = el.tag if isinstance(el.tag, str) else None
        if tag is None or tag.lower() in INVISIBLE_TAGS:
            if el.getparent() is not None:
                el.drop_tree()
    return root


def element_text(el: lxml.html.HtmlElement, skip=None) -> str:
    """Text under ``el`` with a line break at block-level boundaries.

    ``skip`` is an optional predicate; descendants for which it returns True
    are left out with their subtree (their tail text is kept). Iterative, so
    DOMs deeper than Python's recursion limit work.
    """
    parts: list[str] = []
    stack = [(el, False)]
    while stack:
        node, leaving = stack.pop()
        tag = node.tag.lower() if isinstance(node.tag, str) else ""
        if leaving:
            if tag in BLOCK_TAGS:
                parts.append("\n")
            if node is not el and node.tail:
                parts.append(node.tail)
            continue
        if not tag or tag in INVISIBLE_TAGS or (node is not el and skip is not None and skip(node)):
            if node is not el and node.tail:
                parts.append(node.tail)
            continue
        if tag in BLOCK_TAGS:
            parts.append("\n")
        if node.text:
            parts.append(node.text)
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(node))
    lines = (normalize_space(line) for line in "".join(parts).split("\n"))
    return "\n".join(line for line in lines if line)


def visible_text(root: lxml.html.HtmlElement) -> str:
    """All visible text of a document: the body if there is one, else the root."""
    body = root.find(".//body")
    return element_text(body if body is not None else root)
