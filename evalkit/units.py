"""Evaluation units: Kohlschütter's atomic text blocks.

A unit is a run of visible text not interrupted by any tag other than
``<a>`` (Kohlschütter, Fankhauser & Nejdl, WSDM 2010), which is also the
granularity of the L3S-GN1 labels. Units belong to the evaluation, not to any
method: every method's output is scored against the same units.
"""

from __future__ import annotations

from collections.abc import Callable

import lxml.html

from evalkit.page import Unit
from evalkit.text import normalize_space
from evalkit.visible import INVISIBLE_TAGS

__all__ = ["segment", "LabelFn"]

#: maps the element a run starts in to ``(label, fine)``; None leaves the unit unlabelled
LabelFn = Callable[[lxml.html.HtmlElement], "tuple[str | None, str | None] | None"]


def segment(root: lxml.html.HtmlElement, label_of: LabelFn | None = None) -> list[Unit]:
    """Split the visible text under ``<body>`` (or the root) into units, in document order.

    Iterative (no recursion), so 5,000-deep documents do not overflow the stack.
    """
    body = root.find(".//body")
    start = body if body is not None else root
    tree = root.getroottree()
    units: list[Unit] = []
    parts: list[str] = []  # text pieces of the current run
    link_words = 0
    owner = start  # element in which the current run started

    def flush():
        nonlocal parts, link_words
        text = normalize_space("".join(parts))
        if text:
            n = len(text.split())
            label, fine = (label_of(owner) or (None, None)) if label_of else (None, None)
            units.append(Unit(index=len(units), text=text, n_words=n,
                              n_link_words=min(link_words, n), path=tree.getpath(owner),
                              label=label, fine=fine))
        parts = []
        link_words = 0

    def add(text: str | None, el, in_link: bool):
        nonlocal owner, link_words
        if not text:
            return
        if not parts or not "".join(parts).strip():
            owner = el
        parts.append(text)
        if in_link:
            link_words += len(text.split())

    # stack of (element, phase); phase 0 = enter, 1 = leave
    stack: list[tuple[lxml.html.HtmlElement, int, int]] = [(start, 0, 0)]
    while stack:
        el, phase, link_depth = stack.pop()
        tag = el.tag.lower() if isinstance(el.tag, str) else ""
        if phase == 0:
            if not tag or tag in INVISIBLE_TAGS:
                add(el.tail, el.getparent(), link_depth > 0) if el is not start else None
                continue
            is_link = tag == "a"
            if not is_link:
                flush()
            inner = link_depth + (1 if is_link else 0)
            stack.append((el, 1, link_depth))
            for child in reversed(el):
                stack.append((child, 0, inner))
            add(el.text, el, inner > 0)
        else:
            if tag != "a":
                flush()
            if el is not start:
                parent = el.getparent()
                add(el.tail, parent if parent is not None else el, link_depth > 0)
    flush()
    return units
