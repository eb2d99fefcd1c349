"""Evaluation units: Kohlschütter's atomic text blocks.

A unit is a run of visible text not interrupted by any tag other than
``<a>`` (Kohlschütter, Fankhauser & Nejdl, WSDM 2010), which is also the
granularity of the L3S-GN1 labels. Units belong to the evaluation, not to any
method: every method's output is scored against the same units.

The units of an annotated L3S-GN1 page are labelled from its spans
(:func:`span_units`): every atomic text block is wrapped in ``<span
class="x-nc-selN">`` (0 not content, 1 headline, 2 full text, 3 supplemental,
4 related content, 5 comments) and elements the annotators could not see carry
``x-nc-invisible``. The format lives here rather than in its reader
(``evalkit.readers.l3s``) because the evaluation reads it too
(``evalkit.core.align.gold_units``), and core never imports a reader (docs/floors.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import lxml.html

from evalkit.core.page import CONTENT, NOISE, Unit, parse_html
from evalkit.core.visible import BLOCK_TAGS, INVISIBLE_TAGS

__all__ = [
    "DEFAULT_CONTENT_CLASSES",
    "L3S_CLASSES",
    "LabelFn",
    "segment",
    "span_label",
    "span_units",
]

#: maps the element a run starts in to ``(label, fine)``; None leaves the unit unlabelled
LabelFn = Callable[[lxml.html.HtmlElement], "tuple[str | None, str | None] | None"]

#: headline + full text, the data set's conventional main content
DEFAULT_CONTENT_CLASSES = ("sel1", "sel2")
#: every class the annotators used
L3S_CLASSES = ("sel0", "sel1", "sel2", "sel3", "sel4", "sel5")
_SEL = re.compile(r"\bx-nc-(sel[0-9])\b")
_INVISIBLE = "x-nc-invisible"


def segment(
    root: lxml.html.HtmlElement, label_of: LabelFn | None = None, visible: list[str] | None = None
) -> list[Unit]:
    """Split the visible text under ``<body>`` (or the root) into units, in document order.

    Iterative (no recursion), so 5,000-deep documents do not overflow the stack.
    ``visible``: a list the walk also appends the visible text's pieces to, with ``"\\n"``
    around block-level elements as :func:`evalkit.core.visible.visible_text` lays them out (the
    same pieces, so ``"".join(visible)`` has the same white-space tokens): the scorer
    needs both and the walk is the same.
    """
    body = root.find(".//body")
    start = body if body is not None else root
    units: list[Unit] = []
    parts: list[str] = []  # text pieces of the current run
    has_text = False  # some piece of the current run is not all whitespace
    link_words = 0
    owner = start  # element in which the current run started
    start_path = root.getroottree().getpath(start)
    owner_path = start_path

    def flush():
        # only called with has_text set: a run of white space only is no unit, and its
        # pieces hold no words (so no link words either); the loop just drops them
        nonlocal parts, link_words, has_text
        words = "".join(parts).split()
        if words:
            # normalize_space by str.split (it and re's \s agree on every code point), whose
            # words the unit counts too
            text = " ".join(words)
            n = len(words)
            label, fine = (label_of(owner) or (None, None)) if label_of else (None, None)
            units.append(
                Unit(
                    index=len(units),
                    text=text,
                    n_words=n,
                    n_link_words=min(link_words, n),
                    path=owner_path,
                    label=label,
                    fine=fine,
                )
            )
        parts = []
        has_text = False
        link_words = 0

    def add(text: str, el, path: str, in_link: bool):
        # callers skip None and "": most tails and texts are absent, and a call costs more
        # than the test. A flag, not "".join(parts).strip() per piece: that is quadratic
        # in a run's pieces
        nonlocal owner, owner_path, link_words, has_text
        if vis is not None:
            vis(text)
        if not has_text:
            owner, owner_path = el, path
            has_text = bool(text.strip())
        parts.append(text)
        if in_link:
            link_words += len(text.split())

    # stack of (element, phase, link depth, parent's path, XPath step index); phase 0 = enter,
    # 1 = leave (then the last item is the element's (tag, path)). Paths are built top-down
    # as lxml's getpath writes them (``tag[k]`` only when the parent has several element
    # children with that tag): getpath per unit walks to the root and counts siblings each
    # time, quadratic on wide or deep pages.
    vis = visible.append if visible is not None else None
    stack: list[tuple] = [(start, 0, 0, "", 0)]
    pop, push = stack.pop, stack.append
    while stack:
        el, phase, link_depth, parent_path, k = pop()
        if phase:
            tag, path = k
            if vis is not None and tag in BLOCK_TAGS:
                vis("\n")
            if tag != "a":
                if has_text:
                    flush()
                elif parts:
                    parts = []
            if el is not start:
                tail = el.tail
                if tail:
                    parent = el.getparent()
                    if parent is not None:
                        add(tail, parent, parent_path, link_depth > 0)
                    else:
                        add(tail, el, path, link_depth > 0)
            continue
        raw_tag = el.tag
        tag = raw_tag.lower() if raw_tag.__class__ is str else ""
        if not tag or tag in INVISIBLE_TAGS:
            if el is not start:
                tail = el.tail
                if tail:
                    add(tail, el.getparent(), parent_path, link_depth > 0)
            continue
        if el is start:
            path = start_path
        else:
            path = f"{parent_path}/{raw_tag}[{k}]" if k else f"{parent_path}/{raw_tag}"
        if vis is not None and tag in BLOCK_TAGS:
            vis("\n")
        is_link = tag == "a"
        if not is_link:
            if has_text:
                flush()
            elif parts:
                parts = []
        inner = link_depth + (1 if is_link else 0)
        push((el, 1, link_depth, parent_path, (tag, path)))
        children = list(el)
        if len(children) > 1:
            # plain dicts: two Counters per element (and Counter.__missing__ per new
            # tag) were a third of this function's time
            tags = [c.tag for c in children]
            totals: dict = {}
            for t in tags:
                totals[t] = totals.get(t, 0) + 1
            seen: dict = {}
            pushed = []
            for c, t in zip(children, tags):
                if t.__class__ is str and totals[t] > 1:
                    seen[t] = n = seen.get(t, 0) + 1
                    pushed.append((c, 0, inner, path, n))
                else:
                    pushed.append((c, 0, inner, path, 0))
            stack.extend(reversed(pushed))
        elif children:  # a tag repeats only among two or more children: no count
            push((children[0], 0, inner, path, 0))
        text = el.text
        if text:
            add(text, el, path, inner > 0)
    if has_text:
        flush()
    return units


def span_label(el, content_classes: Sequence[str] = DEFAULT_CONTENT_CLASSES):
    """``(label, fine)`` from the nearest enclosing ``x-nc-selN`` span (noise, None if none)."""
    while el is not None:
        m = _SEL.search(el.get("class") or "")
        if m:
            fine = m.group(1)
            return (CONTENT if fine in content_classes else NOISE), fine
        el = el.getparent()
    return NOISE, None


def span_units(
    annotated: bytes | str,
    content_classes: Sequence[str] = DEFAULT_CONTENT_CLASSES,
    source: str = "<annotated>",
) -> list[Unit]:
    """Atomic text blocks of an annotated L3S-GN1 document, labelled from its spans."""
    classes = tuple(content_classes)
    root = parse_html(annotated, source=source)
    for el in list(root.iter()):
        hidden = isinstance(el.tag, str) and _INVISIBLE in (el.get("class") or "").split()
        if hidden and el.getparent() is not None:
            el.drop_tree()  # keeps the tail, which was visible
    return segment(root, label_of=lambda el: span_label(el, classes))
