"""The data contract: Page, Gold, Unit, Extraction; robust parsing.

Every dataset reader produces :class:`Page` objects and every method consumes
them; every method returns an :class:`Extraction`. Nothing else crosses the
boundary between data, methods and evaluation (docs/architecture.md#the-data-contract).

Bytes are decoded by :mod:`evalkit.core.decode` (re-exported here: ``decode_html``,
``clean_chars``, ... are part of the contract every reader uses).
"""

from __future__ import annotations

import copy
import functools
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

import lxml.etree
import lxml.html

from evalkit.core.attrcap import cap_attributes
from evalkit.core.block import Block
from evalkit.core.decode import (
    _XML_DECL_TEXT,
    clean_chars,
    decode_bytes,
    decode_gold,
    decode_html,
    sniff_not_html,
    undecodable,
)
from evalkit.core.elements import Element
from evalkit.core.metadata import PageMetadata

__all__ = [
    "CODE_TAGS",
    "CONTENT",
    "NOISE",
    "NORMALISATION_VERSION",
    "Annotation",
    "Extraction",
    "Gold",
    "Page",
    "PageError",
    "Unit",
    "clean_chars",
    "decode_bytes",
    "decode_gold",
    "decode_html",
    "drop_code",
    "drop_tree",
    "lxml_versions",
    "page_id_from_bytes",
    "parse_html",
    "prepare_html",
    "sniff_not_html",
    "undecodable",
]

CONTENT = "content"
NOISE = "noise"

#: version of what decoding and repair make of a page's bytes before a method sees them
#: (decode_html, clean_chars, prepare_html, and any cleaning a reader applies); part of
#: every extraction's cache key (evalkit.harness.cache_keys): raise it whenever that changes
NORMALISATION_VERSION = 2  # 2: clean_chars drops what lxml refuses


class PageError(ValueError):
    """A page that cannot be used, with the file (or page id) it came from."""

    def __init__(self, source: str, reason: str):
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.reason = reason


@dataclass
class Unit:
    """An atomic text block: a run of text not interrupted by a tag other than ``<a>``.

    ``words`` are whitespace tokens of the run; ``link_words`` how many of them sit
    inside ``<a>``. ``label`` is ``"content"``/``"noise"`` (or None when unknown)
    and ``fine`` keeps the dataset's own class (e.g. ``sel2`` on L3S-GN1).
    """

    index: int
    text: str
    n_words: int
    n_link_words: int
    path: str
    label: str | None = None
    fine: str | None = None

    @property
    def is_content(self) -> bool:
        return self.label == CONTENT


@dataclass(frozen=True)
class Annotation:
    """An annotated copy of a page whose marked spans label its units (L3S-GN1).

    ``html`` is the copy's bytes, ``source`` its file (named in errors), and
    ``content_classes`` the span classes that are content (None: the reader's default,
    ``evalkit.readers.l3s.DEFAULT_CONTENT_CLASSES``).
    """

    html: bytes
    source: str | None = None
    content_classes: tuple[str, ...] | None = None


@dataclass
class Gold:
    """What a page should yield: main text always; unit labels, duplicates, category if known.

    Attributes
    ----------
    text : str
        The main text.
    units, unit_source : list of Unit, str
        Labelled evaluation units and where their labels came from (``spans``,
        ``aligned``, ``planted``); :func:`evalkit.core.align.gold_units` fills them on first use.
    duplicate_groups : list of list of int
        Groups of indices into ``block_texts``, original first (synthetic).
    category : str
        The page's class for the classification experiment.
    annotation : Annotation
        The annotated copy that labels the units (L3S-GN1).
    block_texts : list of str
        Texts of the planted headline, content and duplicate blocks in document order
        (synthetic; the items of the dedup experiment's gold truth).
    template_texts : list of str
        Block texts on every page of the page's site (synthetic; the dedup experiment's
        site-scope template).
    markdown : str
        The gold as Markdown (WCXB's ``main_content_markdown``), parsed into ``elements`` by
        the structure metrics when they are asked for (evalkit.core.elements.parse_markdown).
    elements : list of Element
        The gold's structure when the reader gives it typed (CleanEval's ``<h>/<l>/<p>``
        marks); None when the set's gold has no structure or gives it as ``markdown``.
    metadata : PageMetadata
        The page's title, authors and date (WCXB); None when the set gives none.
    visible_words : list of str
        Cache of :func:`evalkit.harness.scoring.page_all_words` (not compared, not shown).
    extra : dict
        What only a reader's own tests or a person reads: ``gold_source`` (the gold file,
        ``pairs``); from ``synthetic``: ``near_edits`` ({block index: words substituted}),
        ``ads`` (the planted ad slots), ``layout``, ``naming``, ``title``.
    """

    text: str
    units: list[Unit] | None = None
    unit_source: str | None = None  # "spans" (annotated) or "aligned" (derived from text)
    duplicate_groups: list[list[int]] | None = None  # groups of indices into block_texts
    category: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    annotation: Annotation | None = None
    block_texts: list[str] | None = None
    template_texts: list[str] | None = None
    markdown: str | None = None
    elements: list[Element] | None = None
    metadata: PageMetadata | None = None
    visible_words: list[str] | None = field(default=None, repr=False, compare=False)

    def copy(self) -> Gold:
        """A copy whose every part can change without changing this one: strings and the
        frozen annotation are shared (immutable), lists and units copied, ``extra`` deep
        (a deep copy of the whole walks every string of every list: 2.3 times as long on a
        page of 2000 units and 20,000 visible words)."""

        def listed(items):
            return None if items is None else list(items)

        return Gold(
            text=self.text,
            unit_source=self.unit_source,
            category=self.category,
            units=None if self.units is None else [copy.copy(u) for u in self.units],
            duplicate_groups=(
                None if self.duplicate_groups is None else [list(g) for g in self.duplicate_groups]
            ),
            extra=copy.deepcopy(self.extra),
            annotation=self.annotation,
            block_texts=listed(self.block_texts),
            template_texts=listed(self.template_texts),
            markdown=self.markdown,
            elements=listed(self.elements),  # frozen records: shared
            metadata=self.metadata,  # frozen
            visible_words=listed(self.visible_words),
        )


@dataclass
class Page:
    """One annotated page. ``raw`` is the file's bytes; ``html`` the decoded text."""

    id: str
    dataset: str
    raw: bytes
    gold: Gold
    url: str | None = None
    source: str | None = None  # the file the page came from, for error messages
    site: str | None = None  # grouping key for cross-page (site) scope
    html: str = ""
    encoding: str = ""
    encoding_source: str = ""
    #: rendered layouts (evalkit.core.rendered.Layout) by render settings, filled by the
    #: harness for a method that needs one (evalkit.harness.render); empty otherwise
    layouts: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self):
        if not self.html and self.raw:
            self.html, self.encoding, self.encoding_source = decode_html(self.raw)
        # the one gate every page passes, decoded here or handed over as text: past it
        # no method, peer or scorer meets a character lxml refuses
        self.html = clean_chars(self.html)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.raw).hexdigest()

    def copy(self) -> Page:
        """A copy a method may change freely: the same bytes and text (immutable, shared),
        its own :class:`Gold` and everything in it (deep). Each method gets one
        (evalkit.harness.extract.extract_one), so a method that edits its page changes
        no other method's input, no score and no cache key (issue 31)."""
        twin = copy.copy(self)
        twin.gold = self.gold.copy() if isinstance(self.gold, Gold) else copy.deepcopy(self.gold)
        return twin

    @property
    def category(self) -> str | None:
        return self.gold.category

    def tree(self, plain: bool = False) -> lxml.html.HtmlElement:
        """A fresh lxml tree of the page (each call parses again: never share trees).

        ``plain=True``: see :func:`parse_html`.
        """
        return parse_html(self.html, source=self.source or self.id, plain=plain)


@dataclass
class Extraction:
    """What a method returns for a page.

    ``text`` is the output text. ``kept_units`` (optional) are indices into the
    page's gold units when the method decided on evalkit's own units.
    ``blocks`` holds one :class:`evalkit.core.block.Block` record per block the method
    considered, with the stage and rule that removed it or its scores, so a user
    can see why any text was dropped. ``info`` carries small per-page numbers a study reports
    (block counts, timings per stage). ``markdown`` (optional) is the same output with its
    structure (headings, lists, tables, code) as CommonMark + GFM tables; ``metadata``
    (optional) the title, authors and date the method found
    (:class:`evalkit.core.metadata.PageMetadata` as its ``to_dict``).
    """

    text: str = ""
    kept_units: list[int] | None = None
    blocks: list[Block] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    seconds: float = 0.0
    markdown: str | None = None
    metadata: dict[str, Any] | None = None


def page_id_from_bytes(raw: bytes) -> str:
    """The fallback page id: sha256 of the file's bytes (first 16 hex digits)."""
    return hashlib.sha256(raw).hexdigest()[:16]


def prepare_html(html: str) -> str:
    """The repairs applied to decoded text before any parser sees it.

    Drops an XML declaration (lxml refuses a ``str`` that carries one) and NUL
    characters, and closes a ``<title>`` that never ends. Peer libraries get
    the same repaired text, so comparisons with them stay fair.
    """
    # attributes past attrcap.MAX_ATTRIBUTES cut, in one pass that reads quotes, comments
    # and raw text as libxml2's tokenizer does
    return cap_attributes(_close_title(_XML_DECL_TEXT.sub("", html, count=1).replace("\x00", "")))


def parse_html(
    html: str | bytes, source: str = "<page>", plain: bool = False
) -> lxml.html.HtmlElement:
    """Parse HTML text with lxml into a document root; clear :class:`PageError` if impossible.

    XML declarations are stripped first (lxml refuses a ``str`` that carries
    one), NUL characters are dropped (bytes also lose what :func:`clean_chars`
    removes; a ``str`` is taken as it is: a Page's text is clean already), and a document lxml cannot build a tree
    for (empty, only comments, binary) raises PageError naming ``source``.

    ``plain=True`` gives the same libxml2 tree with plain ``lxml.etree``
    elements instead of ``lxml.html`` ones: no ``drop_tree``/``text_content``
    helpers, but lxml makes their Python proxies without calling back into
    Python for the element class, which halves the cost of visiting every
    element (methods that walk the whole tree use it).
    """
    if isinstance(html, bytes):
        # bytes are decoded here as a Page decodes them (annotated copies of L3S-GN1)
        html = clean_chars(decode_html(html)[0])
    html = prepare_html(html)
    if not html.strip():
        raise PageError(source, "empty document: no HTML to parse")
    root, parser = _parse(html, source, plain)
    if any("Excessive depth" in str(e) for e in parser.error_log):
        # libxml2 stops at its depth limit and drops everything after it; flatten the
        # excess nesting (its text is kept) and parse again rather than lose the page
        root, _ = _parse(_cap_depth(html, MAX_DEPTH), source, plain)
    return root


#: nesting deeper than this is flattened before parsing (libxml2 gives up at 2048)
MAX_DEPTH = 1000
_TAG_OR_TEXT = re.compile(r"<(/?)([a-zA-Z][\w:-]*)[^>]*>|[^<]+|<")
_VOID = frozenset(
    {
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "param",
        "source",
        "track",
        "wbr",
    }
)


_TITLE_OPEN = re.compile(r"<title[^>]*>", re.IGNORECASE)


def _close_title(html: str) -> str:
    """Close a ``<title>`` that never ends: the parser would read the whole page as title
    text (crawls that lost bytes; 7 L3S-GN1 pages). The title ends at the next tag."""
    m = _TITLE_OPEN.search(html)
    if m is None or re.search(r"</title", html[m.end() :], re.IGNORECASE):
        return html
    nxt = html.find("<", m.end())
    nxt = len(html) if nxt < 0 else nxt
    return html[:nxt] + "</title>" + html[nxt:]


def drop_tree(el) -> None:
    """Remove ``el`` and its subtree, keeping its tail: ``HtmlElement.drop_tree`` for any element.

    The tail joins the previous sibling's tail, or the parent's text when
    ``el`` is the first child, exactly as lxml.html does it.
    """
    parent = el.getparent()
    if parent is None:
        raise ValueError(f"cannot drop the root element <{el.tag}>")
    if el.tail:
        previous = el.getprevious()
        if previous is None:
            parent.text = (parent.text or "") + el.tail
        else:
            previous.tail = (previous.tail or "") + el.tail
    parent.remove(el)


#: the elements whose content is code, not text: what CoreEx and ECON remove before counting
CODE_TAGS = frozenset({"script", "style", "noscript"})


def drop_code(root, tags=CODE_TAGS):
    """Remove ``tags`` (script, style, noscript), comments and processing instructions in place;
    their tails stay. Returns ``root``."""
    doomed = list(root.iter(*tags, lxml.etree.Comment, lxml.etree.ProcessingInstruction))
    for el in doomed:
        if el.getparent() is not None:
            drop_tree(el)
    return root


def _fromstring(html, parser):
    """``lxml.html.document_fromstring`` for either parser class."""
    root = lxml.etree.fromstring(html, parser)
    if root is None:
        raise lxml.etree.ParserError("Document is empty")
    return root


def _parse(html: str, source: str, plain: bool = False):
    kind = lxml.etree.HTMLParser if plain else lxml.html.HTMLParser
    parser = kind(remove_comments=True, huge_tree=True)
    try:
        try:
            root = _fromstring(html, parser)
        except ValueError as exc:
            if "encoding declaration" not in str(exc):
                raise
            # a malformed declaration our regex could not strip (e.g. never closed):
            # hand lxml UTF-8 bytes with the encoding fixed, so the declaration is moot
            parser = kind(remove_comments=True, huge_tree=True, encoding="utf-8")
            root = _fromstring(html.encode("utf-8", "replace"), parser)
    except (lxml.etree.ParserError, ValueError) as exc:
        raise PageError(source, f"lxml could not parse the document ({exc})") from exc
    if root is None:
        raise PageError(source, "lxml produced no document tree")
    return root, parser


def _cap_depth(html: str, max_depth: int) -> str:
    """Drop start/end tags nested deeper than ``max_depth`` (keeping all text).

    Linear: past the last ``>`` no tag can end, so that tail is text, kept as it is (the
    tag pattern tried at each ``<`` of it would scan to the end: quadratic)."""
    out, depth = [], 0
    end = html.rfind(">") + 1
    for m in _TAG_OR_TEXT.finditer(html, 0, end):
        tag = m.group(2)
        if tag is None or tag.lower() in _VOID or m.group(0).endswith("/>"):
            out.append(m.group(0))
        elif m.group(1):  # end tag
            if depth <= max_depth:
                out.append(m.group(0))
            depth = max(depth - 1, 0)
        else:
            depth += 1
            if depth <= max_depth:
                out.append(m.group(0))
    out.append(html[end:])
    return "".join(out)


@functools.cache
def lxml_versions() -> dict[str, str]:
    """lxml's version and the libxml2 it runs on: every method parses with them (read by
    the cache key and by run.json, so it sits with the parser, below both)."""
    return {
        "lxml": lxml.etree.__version__,
        "libxml2": ".".join(map(str, lxml.etree.LIBXML_VERSION)),
    }
