"""Visible text of an lxml tree: what a browser would render, with block breaks kept.

Shared by the ``fulltext`` reference, by every method that outputs the text
of kept elements, and by the readers that turn HTML gold into text.
"""

from __future__ import annotations

import lxml.html

__all__ = [
    "BLOCK_TAGS",
    "INVISIBLE_TAGS",
    "drop_invisible",
    "element_text",
    "element_word_count",
    "join_lines",
    "visible_text",
]

INVISIBLE_TAGS = frozenset(
    {
        "script",
        "style",
        "noscript",
        "template",
        "head",
        "title",
        "meta",
        "link",
        "svg",
        "math",
        "iframe",
        "object",
        "embed",
    }
)
BLOCK_TAGS = frozenset(
    {
        "address",
        "article",
        "aside",
        "blockquote",
        "body",
        "br",
        "caption",
        "center",
        "dd",
        "details",
        "dialog",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "html",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
    }
)


def drop_invisible(root: lxml.html.HtmlElement) -> lxml.html.HtmlElement:
    """Remove invisible elements (keeping their tails) and comments, in place."""
    for el in list(root.iter()):
        tag = el.tag if isinstance(el.tag, str) else None
        if (tag is None or tag.lower() in INVISIBLE_TAGS) and el.getparent() is not None:
            el.drop_tree()
    return root


def _text_parts(el: lxml.html.HtmlElement, skip_tags=frozenset(), skip=None) -> list[str]:
    """Text pieces under ``el`` in document order, ``"\\n"`` around block-level elements.

    Descendants whose tag is invisible or in ``skip_tags``, or for which the
    predicate ``skip`` is true, are left out with their subtree (their tails
    are kept). Iterative: each element's tail is pushed before the element,
    so the stack unwinds in document order and deep DOMs cannot overflow.
    """
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    if not tag or tag in INVISIBLE_TAGS:
        return []
    skip_tags = INVISIBLE_TAGS.union(skip_tags)
    parts: list[str] = []
    append = parts.append
    stack: list = [el]  # an element to enter, or a string to emit on the way out
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        if node.__class__ is str:
            append(node)
            continue
        line = node.tag.lower() in BLOCK_TAGS  # only elements are pushed
        if line:
            append("\n")
        if node.text:
            append(node.text)
        if line:
            push("\n")
        for child in reversed(node):
            if child.tail:
                push(child.tail)
            ctag = child.tag
            if (
                ctag.__class__ is str
                and ctag.lower() not in skip_tags
                and (skip is None or not skip(child))
            ):
                push(child)
    return parts


def element_text(el: lxml.html.HtmlElement, skip=None, skip_tags=frozenset()) -> str:
    """Text under ``el`` with a line break at block-level boundaries.

    Descendants whose tag is in ``skip_tags`` or for which the predicate
    ``skip`` returns True are left out with their subtree (their tail text is
    kept); a tag set is the fast way to say it.
    """
    return join_lines(_text_parts(el, skip_tags, skip))


def join_lines(parts: list[str]) -> str:
    """Text pieces (``"\\n"`` at block boundaries) joined as :func:`element_text` lays them
    out: white space collapsed in each line, empty lines dropped."""
    # " ".join(x.split()) is normalize_space (str.split and re's \s agree on every code
    # point), iterated in C
    return "\n".join(filter(None, map(" ".join, map(str.split, "".join(parts).split("\n")))))


def element_word_count(el: lxml.html.HtmlElement, skip_tags=frozenset()) -> int:
    """``len(element_text(el, skip_tags=skip_tags).split())`` without building the lines."""
    return len("".join(_text_parts(el, skip_tags)).split())


def visible_text(root: lxml.html.HtmlElement) -> str:
    """All visible text of a document: the body if there is one, else the root."""
    body = root.find(".//body")
    return element_text(body if body is not None else root)
