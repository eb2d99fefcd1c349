"""Typed content elements: the structure of an extraction or of a gold text.

An extraction's Markdown (``Extraction.markdown``), a gold's Markdown (WCXB's
``main_content_markdown``, WebMainBench's gold) and CleanEval's ``<h>/<l>/<p>`` marks all
become one list of :class:`Element` records in document order, so the structure metrics
(evalkit.metrics.structure) compare like with like. A text-only method's structure is its
paragraphs (:func:`paragraphs`).

Sources. Markdown is read by markdown-it-py's parser in its CommonMark mode, with the table
extension of GitHub Flavored Markdown (GFM spec 0.29, "Tables (extension)") enabled;
:func:`parse_markdown` only walks its token stream. CleanEval's marks are those of Baroni,
Chantree, Kilgarriff & Sharoff (LREC 2008): ``<h>`` heading, ``<l>`` list item, ``<p>``
paragraph, each starting a segment that runs to the next mark.

Rules and assumptions (each a named constant below where it is a choice):

* a list item's text is its own paragraphs joined by a space; a nested list's items are
  elements of their own (depth = number of enclosing lists - 1); an item stands where its
  text starts, so a parent comes before its nested items;
* headings, tables and code blocks inside a list item or blockquote are elements of their own;
  a blockquote's paragraphs are paragraphs;
* inline text keeps text, inline code, link text and image alt text; soft and hard breaks
  are spaces; whitespace is collapsed (:data:`INLINE_BREAK_TAG`, :data:`HTML_BLOCK_AS_PARAGRAPH`);
* a code block's text is its content as written, trailing newlines removed;
* thematic breaks are dropped, and so is every element whose text is empty.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from html.parser import HTMLParser

from markdown_it import MarkdownIt
from markdown_it.token import Token

__all__ = [
    "KINDS",
    "LIST_MARKER",
    "Element",
    "markdown_text",
    "marked_elements",
    "paragraphs",
    "parse_markdown",
]

#: the element kinds, in the order the structure tables show them
KINDS = ("heading", "paragraph", "list_item", "table", "code")

#: the Markdown dialect: CommonMark plus GFM tables (no other GFM extension: strikethrough,
#: task lists and autolinked bare URLs change no element boundary)
MARKDOWN_PRESET = "commonmark"
MARKDOWN_RULES = ("table",)
#: a raw HTML block becomes one paragraph of its text, tags removed (a browser shows the
#: text); an HTML ``<table>`` in such a block is not read as a table
HTML_BLOCK_AS_PARAGRAPH = True
#: inline HTML: ``<br>`` is a space (GFM table cells break lines with it); any other inline
#: tag is dropped, as a browser shows no tag (``git checkout <branch>`` loses ``<branch>``)
INLINE_BREAK_TAG = re.compile(r"<br\s*/?\s*>", re.IGNORECASE)
#: tags whose text a browser does not show: left out of an HTML block's text
_HIDDEN_TAGS = frozenset({"script", "style", "template"})

#: a leading list marker: a bullet (``*``, ``-``, ``+``, typographic bullets, ``§`` and ``o``
#: of text dumps and Word exports, ``»``), ``--``, or a number or lower-case letter with ``.``
#: or ``)``, followed by white space or the end. CleanEval writes them inside ``<l>``
#: segments (``* Fast``, ``1. Unique Team System``); the structure metrics strip it too
LIST_MARKER = re.compile(r"^(?:[-*+•·◦▪‣»§o#@]|--|\d{1,9}[.)]|[a-z][.)])(?:\s+|$)")
#: CleanEval marks, case-insensitive, anywhere on a line: 39 lines of the dev set carry a
#: mark after other text (``o       <p>Load: ...``, ``<h>Corey      <h>Sissi``)
MARK = re.compile(r"<([hlp])>", re.IGNORECASE)
_MARK_KIND = {"h": "heading", "l": "list_item", "p": "paragraph"}
#: a ``<l>`` segment's leading marker is not part of its text, as a Markdown list item's is
#: not (the consistent choice, so gold and prediction texts compare)
STRIP_MARKED_LIST_MARKER = True
#: a list marker standing alone before a mid-line mark (``§         <p>Prepare``) belongs
#: to the segment that mark opens and is dropped, not appended to the segment before it
DROP_MARKER_BEFORE_MARK = True
#: as for CleanEval's gold text (evalkit.readers.pairs): HTML comments are removed and HTML
#: entities decoded (CleanPortalEval writes ``&#8217;`` and ``&bull;``); entities are decoded
#: after the marks are found, so an encoded ``&lt;p&gt;`` is text, not a mark
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Element:
    """One content element.

    Attributes
    ----------
    kind : str
        One of :data:`KINDS`.
    text : str
        The element's text with inline markup removed (a table: its cells' texts joined
        by spaces, row after row; a code block: its lines as written).
    level : int or None
        A heading's level (1-6); None for other kinds, and for a heading whose level the
        source does not give (CleanEval's ``<h>``).
    depth : int
        A list item's nesting depth (0: a top-level item); 0 for other kinds.
    rows : tuple of tuple of str, or None
        A table's rows of cell texts, header row first; None for other kinds.
    """

    kind: str
    text: str
    level: int | None = None
    depth: int = 0
    rows: tuple[tuple[str, ...], ...] | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"element kind must be one of {KINDS}, not {self.kind!r}")
        if self.level is not None and not (1 <= self.level <= 6 and self.kind == "heading"):
            raise ValueError(f"level {self.level!r} on a {self.kind}: only headings have 1-6")
        if (self.rows is None) != (self.kind != "table"):
            raise ValueError("rows are given for a table and only for a table")


def paragraphs(text: str) -> list[Element]:
    """The structure of a text-only output: one paragraph per non-blank line."""
    return [
        Element("paragraph", " ".join(line.split())) for line in text.splitlines() if line.strip()
    ]


# ---------------------------------------------------------------- Markdown

_PARSER = MarkdownIt(MARKDOWN_PRESET).enable(list(MARKDOWN_RULES))


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _inline_parts(tokens: list[Token], out: list[str]) -> None:
    """Append the shown text of inline tokens to ``out`` (image alt text included)."""
    for tok in tokens:
        if tok.type in ("text", "text_special", "code_inline"):
            out.append(tok.content)
        elif tok.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif tok.type == "image":
            _inline_parts(tok.children or [], out)
        elif tok.type == "html_inline" and INLINE_BREAK_TAG.fullmatch(tok.content.strip()):
            out.append(" ")


def _inline_text(tok: Token | None) -> str:
    """The collapsed text of an ``inline`` token ('' for anything else)."""
    if tok is None or tok.type != "inline":
        return ""
    parts: list[str] = []
    _inline_parts(tok.children or [], parts)
    return _collapse("".join(parts))


class _TextOfHtml(HTMLParser):
    """The shown text of an HTML fragment: entities decoded, comments and hidden tags out,
    a space at every tag (an HTML block is block-level markup: its tags separate words)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag, attrs):
        self._hidden += tag in _HIDDEN_TAGS
        self.parts.append(" ")

    def handle_endtag(self, tag):
        if tag in _HIDDEN_TAGS and self._hidden:
            self._hidden -= 1
        self.parts.append(" ")

    def handle_data(self, data):
        if not self._hidden:
            self.parts.append(data)


def _html_text(fragment: str) -> str:
    parser = _TextOfHtml()
    parser.feed(fragment)
    parser.close()
    return _collapse("".join(parser.parts))


def parse_markdown(md: str) -> list[Element]:
    """The elements of a Markdown document (CommonMark + GFM tables), in document order."""
    tokens = _PARSER.parse(md)
    out: list[Element | None] = []  # None holds an open list item's place until it closes
    open_items: list[list] = []  # [place in out (None: no text yet), depth, text parts]
    containers: list[str] = []  # "li" or "quote", innermost last
    lists = 0  # enclosing lists
    table: list[list[str]] | None = None

    def add_text(text: str) -> None:
        if not text:
            return
        if containers and containers[-1] == "li":
            item = open_items[-1]
            if item[0] is None:  # the item stands where its text starts
                out.append(None)
                item[0] = len(out) - 1
            item[2].append(text)
        else:
            out.append(Element("paragraph", text))

    for i, tok in enumerate(tokens):
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        kind = tok.type
        if kind in ("bullet_list_open", "ordered_list_open"):
            lists += 1
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists -= 1
        elif kind == "list_item_open":
            open_items.append([None, lists - 1, []])
            containers.append("li")
        elif kind == "list_item_close":
            place, depth, parts = open_items.pop()
            containers.pop()
            if place is not None:
                out[place] = Element("list_item", _collapse(" ".join(parts)), depth=depth)
        elif kind == "blockquote_open":
            containers.append("quote")
        elif kind == "blockquote_close":
            containers.pop()
        elif kind == "heading_open":
            text = _inline_text(nxt)
            if text:
                out.append(Element("heading", text, level=int(tok.tag[1:])))
        elif kind == "paragraph_open":
            add_text(_inline_text(nxt))
        elif kind in ("fence", "code_block"):
            text = tok.content.rstrip("\n")
            if text.strip():
                out.append(Element("code", text))
        elif kind == "table_open":
            table = []
        elif kind == "tr_open" and table is not None:
            table.append([])
        elif kind in ("th_open", "td_open") and table:
            table[-1].append(_inline_text(nxt))
        elif kind == "table_close" and table is not None:
            rows = tuple(tuple(row) for row in table)
            text = " ".join(cell for row in rows for cell in row if cell)
            if text:
                out.append(Element("table", text, rows=rows))
            table = None
        elif kind == "html_block" and HTML_BLOCK_AS_PARAGRAPH:
            add_text(_html_text(tok.content))
    return [e for e in out if e is not None]


# ---------------------------------------------------------------- CleanEval marks


def _drop_marker_tail(raw: str) -> str:
    """``raw`` without a last line that is only a list marker (the next segment's bullet)."""
    head, _, tail = raw.rpartition("\n")
    shown = html.unescape(tail).strip()
    if shown and LIST_MARKER.fullmatch(shown):
        return head
    return raw


def marked_elements(text: str) -> list[Element]:
    """The elements of a CleanEval gold file: one per ``<h>``/``<l>``/``<p>`` segment.

    A segment runs from its mark to the next mark; lines without a mark continue it. Text
    before the first mark (the ``URL:`` line) is not content. ``<h>`` is a heading of
    unknown level, ``<l>`` a list item of depth 0, ``<p>`` a paragraph.
    """
    text = _COMMENT.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    marks = list(MARK.finditer(text))
    out = []
    for k, mark in enumerate(marks):
        last = k + 1 == len(marks)
        raw = text[mark.end() : len(text) if last else marks[k + 1].start()]
        if DROP_MARKER_BEFORE_MARK and not last:
            raw = _drop_marker_tail(raw)
        seg = _collapse(html.unescape(raw))
        kind = _MARK_KIND[mark.group(1).lower()]
        if kind == "list_item" and STRIP_MARKED_LIST_MARKER:
            seg = LIST_MARKER.sub("", seg, count=1)
        if seg:
            out.append(Element(kind, seg))
    return out


def markdown_text(md: str) -> str:
    """The text of a Markdown document without its syntax: one line per element
    (:func:`parse_markdown`), a table's cells joined by spaces."""
    return "\n".join(e.text for e in parse_markdown(md))
