"""PAB: informative blocks by HTML tag priority (Kabir, Kabir & Amin, ECIJ 4(3), 2015).

The page (docs/papers.md#kabir2015, §3) is cut into disjoint blocks, each block gets the
sum of the priorities of the tags it holds (Table 3.1), blocks whose links
lead mostly to other sites get 0, and the blocks above 0 are the informative
ones. Our reading (docs/methods/pab.md):

1. script, style, iframe, object and form are removed with their contents.
2. The page ``<title>`` is block 1 with priority 1.0 (when the page has one).
3. Scanning ``<body>`` in document order, every outermost element whose tag
   is in the priority table (h1-h6, b, strong, img with alt text, a, i, p) or
   is a medium-level tag (table, ul, ol) starts a block that holds its whole
   subtree; the tags met inside it are its inner tags.
4. priority = the sum of the Table 3.1 values of the block's tags, itself
   included: h1 1.0, h2 0.9, h3 0.8, h4 0.7, h5 0.6, h6 0.5, b/strong 0.4,
   img with alt 0.3, a/i 0.2, p 0.1; table/ul/ol add 0.
5. A block with more than 50 % outer links (an href to another site) gets 0.
6. Blocks with priority > 0 are informative; an informative block whose text
   is exactly that of an earlier informative block is merged into it.
   The output is the text of the remaining informative blocks, in order.

Readings the paper leaves open, stated here:

* **Text outside any block** (text directly in div, span, td, body, ...) has
  no tag of the table around it, so it is one residual block of priority 0:
  noise. This is also the paper's "no tag between <body> and </body>" case,
  where the whole page is one block.
* **Outer links.** A link is outer when its host's registrable domain differs
  from the page's (``www.bbc.co.uk`` and ``news.bbc.co.uk`` are one site).
  The page host comes from ``page.url``, else ``<base href>``, else the
  canonical or ``og:url`` link. Relative links are inner. With no known page
  host, absolute links count as outer (nothing shows them to be local).
  Only http(s) and relative hrefs are links; ``mailto:``, ``javascript:`` and
  bare ``#`` fragments are not counted.
* The registrable domain is ``evalkit.core.domains.registrable_domain``, the
  proposed method's: the last two labels of the host, or three under a
  two-level suffix (co.uk, com.au, ...), an IP address as it is; a heuristic
  without the public-suffix list.
* Duplicates are exact matches of whitespace-normalised block text; blocks
  without text (an image with alt text) are never merged. The title block
  takes part, so an ``<h1>`` equal to the title is merged into it.
* An ``<img>`` scores 0.3 only with non-empty alt text; ``em`` and others
  outside the table score 0.

Implementation: :func:`split_blocks` finds the blocks, their texts, priorities
and links and the text outside them in one walk over the body; the separate
functions (:func:`find_blocks`, :func:`block_priority`,
:func:`outer_link_share`, :func:`evalkit.core.visible.element_text`) state the same
rules one at a time and give the same results.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

import lxml.etree
import lxml.html

from evalkit.core.block import Block as BlockRecord
from evalkit.core.block import preview
from evalkit.core.domains import registrable_domain, url_host
from evalkit.core.method import Extractor
from evalkit.core.page import Extraction, Page, PageError
from evalkit.core.rendered import RenderSettings
from evalkit.core.text import normalize_space
from evalkit.core.validate import check_bool, check_choice, check_share
from evalkit.core.vips import DEFAULT_PDOC, Vips
from evalkit.core.visible import BLOCK_TAGS, INVISIBLE_TAGS, element_text, join_lines

__all__ = [
    "DEFAULT_MAX_OUTER_LINK_SHARE",
    "MEDIUM_TAGS",
    "PAB",
    "REMOVED_TAGS",
    "TAG_PRIORITY",
    "TITLE_PRIORITY",
    "Block",
    "block_priority",
    "find_blocks",
    "outer_link_share",
    "page_host",
    "split_blocks",
    "tag_priority",
]

#: Table 3.1 of Kabir et al. (2015); ``img`` only counts with alt text
TAG_PRIORITY = {
    "h1": 1.0,
    "h2": 0.9,
    "h3": 0.8,
    "h4": 0.7,
    "h5": 0.6,
    "h6": 0.5,
    "b": 0.4,
    "strong": 0.4,
    "img": 0.3,
    "a": 0.2,
    "i": 0.2,
    "p": 0.1,
}
#: "medium level" tags: they start blocks but add nothing to a priority
MEDIUM_TAGS = frozenset({"table", "ul", "ol"})
#: removed with all their contents (Algorithm 3.2.1, step 2a)
REMOVED_TAGS = frozenset({"script", "style", "iframe", "object", "form"})
#: the title block's priority (Table 3.1, Cat-1.0)
TITLE_PRIORITY = 1.0
#: how the page is cut into blocks: ``tags`` (the paper's reading above) or ``vips`` (the
#: leaves of the VIPS content structure of the rendered page, evalkit/core/vips.py, with
#: their tags' priorities; docs/readings.md#vips-blocks)
SEGMENTERS = ("tags", "vips")
#: a block with a larger share of outer links is noise (§3.1.2)
DEFAULT_MAX_OUTER_LINK_SHARE = 0.5


def _tag(el) -> str:
    return el.tag.lower() if isinstance(el.tag, str) else ""


def tag_priority(el: lxml.html.HtmlElement) -> float:
    """Table 3.1 value of one element (an ``img`` needs non-empty alt text)."""
    tag = _tag(el)
    if tag == "img" and not (el.get("alt") or "").strip():
        return 0.0
    return TAG_PRIORITY.get(tag, 0.0)


# what split_blocks needs to know of a tag, as bits: block-level (a line break),
# invisible, may start a block (an img only with alt text), has a priority
_BLOCK, _INVISIBLE, _STARTS, _PRIORITY = 1, 2, 4, 8
_FLAGS = {
    tag: (
        _BLOCK * (tag in BLOCK_TAGS)
        | _INVISIBLE * (tag in INVISIBLE_TAGS)
        | _STARTS * (tag in MEDIUM_TAGS or tag in TAG_PRIORITY)
        | _PRIORITY * (tag in TAG_PRIORITY)
    )
    for tag in BLOCK_TAGS | INVISIBLE_TAGS | MEDIUM_TAGS | frozenset(TAG_PRIORITY)
}


def _starts_block(el) -> bool:
    tag = _tag(el)
    return tag in MEDIUM_TAGS or (tag in TAG_PRIORITY and (tag != "img" or tag_priority(el) > 0))


def block_priority(el: lxml.html.HtmlElement) -> float:
    """Eq. (1): the sum of the priorities of the block's tags, its own included.

    Rounded to 10 decimals so that 0.1 + 0.2 + 4 x 0.2 reads 1.1.
    """
    return round(sum(tag_priority(d) for d in el.iter() if isinstance(d.tag, str)), 10)


def page_host(url: str | None, root: lxml.html.HtmlElement | None = None) -> str | None:
    """The page's host: from its URL, else ``<base href>``, canonical link or ``og:url``."""
    host = url_host(url)
    if host or root is None:
        return host
    for xpath in (
        "//base/@href",
        "//link[@rel='canonical']/@href",
        "//meta[@property='og:url']/@content",
    ):
        for value in root.xpath(xpath):
            host = url_host(str(value))
            if host:
                return host
    return None


# what an href is: not a followable link, a link within the site, a link to another site
_NOT_A_LINK, _INNER, _OUTER = 0, 1, 2
# http(s) with a host of ASCII letters, digits, dots and hyphens (no user, port or
# brackets), then the end or a path, query or fragment: urlsplit's hostname is group 1
_PLAIN_HTTP = re.compile(r"https?://([A-Za-z0-9.-]+)(?:[/?#]|$)")


def _link_kind(href: str | None, site: str | None) -> int:
    """Classify one ``href`` against the page's registrable domain ``site`` (None: unknown)."""
    href = (href or "").strip()
    if not href or href.startswith("#"):  # a jump within the page
        return _NOT_A_LINK
    # fast paths for the commonest forms, with urlsplit's answer: a path on this site,
    # and http(s) with a plain host name
    if href[0] == "/" and href[1:2] != "/":
        return _INNER
    m = _PLAIN_HTTP.match(href)
    if m:
        link_host = m.group(1).lower()
        return _OUTER if site is None or registrable_domain(link_host) != site else _INNER
    try:
        parts = urlsplit(href)
    except ValueError:  # unparseable (e.g. a broken IPv6 host): nothing to follow
        return _NOT_A_LINK
    if parts.scheme not in ("", "http", "https"):  # mailto:, javascript:, tel:, ...
        return _NOT_A_LINK
    link_host = parts.hostname
    if link_host and (site is None or registrable_domain(link_host) != site):
        return _OUTER
    return _INNER


def outer_link_share(el: lxml.html.HtmlElement, host: str | None) -> tuple[float, int]:
    """``(share of outer links, number of links)`` among the ``<a href>`` under ``el``.

    Relative links are inner; absolute links are outer when their registrable
    domain differs from ``host``'s (always, when ``host`` is None).
    """
    site = registrable_domain(host) if host else None
    kinds = [_link_kind(a.get("href"), site) for a in el.iter("a")]
    total = len(kinds) - kinds.count(_NOT_A_LINK)
    outer = kinds.count(_OUTER)
    return (outer / total if total else 0.0), total


def find_blocks(body: lxml.html.HtmlElement) -> list[lxml.html.HtmlElement]:
    """The outermost block-starting elements under ``body``, in document order."""
    blocks = []
    stack = list(reversed(body))
    while stack:  # iterative pre-order walk that does not enter blocks
        el = stack.pop()
        if not isinstance(el.tag, str):
            continue
        if _starts_block(el):
            blocks.append(el)
        else:
            stack.extend(reversed(el))
    return blocks


@dataclass
class Block:
    """One block found by :func:`split_blocks`: the element and what PAB needs of it."""

    element: lxml.html.HtmlElement
    text: str  # as evalkit.core.visible.element_text gives it
    priority: float  # block_priority
    outer_link_share: float  # outer_link_share, with n_links
    n_links: int


def split_blocks(body: lxml.html.HtmlElement, host: str | None = None) -> tuple[list[Block], str]:
    """The blocks of :func:`find_blocks` and the text outside every block, from one walk.

    Each block carries what :func:`evalkit.core.visible.element_text`,
    :func:`block_priority` and :func:`outer_link_share` give for it; the text
    outside is ``element_text`` of the body skipping the blocks. One walk over
    ``body`` gathers all of it, recording where each block's pieces of text
    start and end, instead of walking every block again for each. The walk
    also enters invisible elements, where blocks may start, without taking
    their text.
    """
    site = registrable_domain(host) if host else None
    kinds: dict[str | None, int] = {}  # href -> link kind: pages repeat their links
    blocks: list[lxml.html.HtmlElement] = []
    spans: list[list[int]] = []  # [start, end) of each block's pieces of text
    sums: list[float] = []  # running priority sum of each block, in document order
    links: list[list[int]] = []  # [followable links, outer links] of each block
    hidden: list[int] = []  # blocks under an invisible element (the body's text skips them)
    parts: list[str] = []
    append = parts.append
    block = -1  # the block the walk is in
    quiet = None  # the invisible element the walk is under: no text taken below it
    flags = _FLAGS
    walker = lxml.etree.iterwalk(body, events=("start", "end"))
    for event, node in walker:
        tag = node.tag
        tag = tag.lower() if isinstance(tag, str) else ""
        f = flags.get(tag, 0)
        if event == "start":
            if block < 0:
                if quiet is not None:  # under an invisible element: only look for blocks
                    if f & _STARTS and (tag != "img" or (node.get("alt") or "").strip()):
                        hidden.append(len(blocks))
                        blocks.append(node)
                        spans.append([0, 0])
                        sums.append(0.0)
                        links.append([0, 0])
                        walker.skip_subtree()
                    elif not tag:
                        walker.skip_subtree()
                    continue
                if (
                    f & _STARTS
                    and node is not body
                    and (tag != "img" or (node.get("alt") or "").strip())
                ):  # _starts_block
                    block = len(blocks)
                    blocks.append(node)
                    spans.append([len(parts), -1])
                    sums.append(0.0)
                    links.append([0, 0])
                elif not tag:
                    walker.skip_subtree()
                    continue
                elif f & _INVISIBLE:
                    quiet = node
                    continue
            if block >= 0:
                if not tag:
                    walker.skip_subtree()
                    continue
                if f & _PRIORITY:  # block_priority and outer_link_share count it
                    if tag != "img" or (node.get("alt") or "").strip():
                        sums[block] += TAG_PRIORITY[tag]  # in document order, as block_priority
                    if tag == "a":
                        href = node.get("href")
                        kind = kinds.get(href)
                        if kind is None:
                            kind = kinds[href] = _link_kind(href, site)
                        if kind:
                            links[block][0] += 1
                            links[block][1] += kind == _OUTER
                if quiet is not None:
                    continue
                if f & _INVISIBLE:
                    quiet = node
                    continue
            if f & _BLOCK:
                append("\n")
            text = node.text
            if text:
                append(text)
            continue
        # end
        if quiet is not None:
            if node is quiet:
                quiet = None
                if node.tail:
                    append(node.tail)
            continue
        if f & _BLOCK:
            append("\n")
        if block >= 0 and node is blocks[block]:  # a block's tail lies outside it
            spans[block][1] = len(parts)
            block = -1
        if node is not body:
            tail = node.tail
            if tail:
                append(tail)

    out, outside, start = [], [], 0
    hidden_set = set(hidden)
    for i, (el, span, (n_links, n_outer)) in enumerate(zip(blocks, spans, links)):
        if i in hidden_set:  # the walk did not enter it
            share, n_links = outer_link_share(el, host)
            out.append(Block(el, element_text(el), block_priority(el), share, n_links))
            continue
        out.append(
            Block(
                el,
                join_lines(parts[span[0] : span[1]]),
                round(sums[i], 10),
                n_outer / n_links if n_links else 0.0,
                n_links,
            )
        )
        outside.extend(parts[start : span[0]])
        start = span[1]
    outside.extend(parts[start:])
    return out, join_lines(outside)


def _record(
    index: int, tag: str, priority: float, share: float, n_links: int, reason: str | None = None
) -> BlockRecord:
    """A block's record before its text and fate are known (see :class:`PAB`)."""
    return BlockRecord(
        index=index,
        tag=tag,
        reason=reason,
        scores={"priority": priority, "outer_link_share": share, "n_links": n_links},
    )


class PAB(Extractor):
    """Tag-priority block filter of Kabir, Kabir & Amin (2015).

    Parameters
    ----------
    max_outer_link_share : a block whose share of outer links is larger than
        this gets priority 0 (the paper's 50 %).
    merge_duplicates : merge informative blocks with identical text (step 5 of
        Algorithm 3.2.2).
    segmenter : ``tags`` (the paper's blocks, steps 2-3 above) or ``vips`` (VIPS leaves of
        the rendered page; a reading, docs/readings.md#vips-blocks).
    render, pdoc : with ``segmenter="vips"``: the render settings (docs/rendering.md) and
        VIPS's permitted degree of coherence.

    Block records (:class:`evalkit.core.block.Block`), one per block in document order
    (the title first, the text outside every block last, tag ``#outside``): ``words``,
    ``kept``, ``reason`` for a dropped block (``priority_zero``, ``outer_links``,
    ``outside_blocks``, ``duplicate``), ``duplicate_of`` for a merged one, and in
    ``scores``: ``priority`` (after the outer-link rule), ``outer_link_share``,
    ``n_links`` (followable links in the block).
    """

    name = "pab"

    def __init__(
        self,
        max_outer_link_share: float = DEFAULT_MAX_OUTER_LINK_SHARE,
        merge_duplicates: bool = True,
        segmenter: str = "tags",
        render: dict | None = None,
        pdoc: int = DEFAULT_PDOC,
    ):
        self.max_outer_link_share = max_outer_link_share
        self.merge_duplicates = merge_duplicates
        self.segmenter = segmenter
        self.render = render
        self.pdoc = pdoc
        self._validate()  # a bad share fails at construction, as it always did

    def _validate(self) -> None:
        check_share("max_outer_link_share", self.max_outer_link_share)
        check_bool("merge_duplicates", self.merge_duplicates)
        check_choice("segmenter", self.segmenter, SEGMENTERS)
        self.settings_ = RenderSettings.from_params(self.render)
        self.vips_ = Vips(pdoc=self.pdoc)

    @property
    def needs_layout(self) -> bool:
        """With ``segmenter="vips"`` the harness renders the page first (docs/rendering.md)."""
        return self.segmenter == "vips"

    def resolved_params(self) -> dict:
        params = self.get_params(deep=False)
        if self.segmenter != "vips":  # the render settings and PDoC change nothing then
            params.pop("render")
            params.pop("pdoc")
        return params

    def _vips_blocks(self, page: Page, root, host: str | None) -> list[Block]:
        """The leaves of the page's VIPS content structure as PAB's blocks: each with its
        subtree's text, tag priorities (itself included) and links."""
        layout = page.layouts.get(self.settings_.key())
        if layout is None:
            raise RuntimeError(
                "no rendered layout for this page (segmenter=vips: the harness "
                "renders pages for methods that need one)"
            )
        tree = self.vips_.segment(root, layout)
        out = []
        for leaf in tree.leaves() if tree is not None else []:
            el = leaf.elements[0]
            share, n_links = outer_link_share(el, host)
            out.append(
                Block(
                    element=el,
                    text=element_text(el),
                    priority=block_priority(el),
                    outer_link_share=share,
                    n_links=n_links,
                )
            )
        return out

    def extract(self, page: Page) -> Extraction:
        try:
            root = page.tree()
        except PageError as exc:
            return Extraction(
                text="",
                info={
                    "n_blocks": 0,
                    "n_informative": 0,
                    "n_noisy": 0,
                    "n_merged": 0,
                    "skipped": exc.reason,
                },
            )
        host = page_host(page.url, root)
        for el in list(
            root.iter(*REMOVED_TAGS, lxml.etree.Comment, lxml.etree.ProcessingInstruction)
        ):
            if el.getparent() is not None:  # contents go, the text after the element stays
                el.drop_tree()

        records: list[BlockRecord] = []  # one per block, in document order
        texts: list[str] = []  # each block's full text
        title = root.find(".//title")
        if title is not None:
            text = normalize_space(title.text_content())
            records.append(_record(0, "title", TITLE_PRIORITY, 0.0, 0))
            texts.append(text)

        body = root.find(".//body")
        if body is None:
            body = root.find(".//frameset")
        if self.segmenter == "vips":  # text held by no VIPS leaf is no block (core/vips.py)
            blocks, residual = self._vips_blocks(page, root, host), ""
        else:
            blocks, residual = split_blocks(body, host) if body is not None else ([], "")
        for blk in blocks:
            priority, reason = blk.priority, None
            if blk.outer_link_share > self.max_outer_link_share:
                priority, reason = 0.0, "outer_links"
            records.append(
                _record(
                    len(records),
                    _tag(blk.element),
                    priority,
                    blk.outer_link_share,
                    blk.n_links,
                    reason,
                )
            )
            texts.append(blk.text)

        if residual:  # text outside every block: one block without any tag of the table
            # (it holds no link: every <a> starts a block of its own)
            records.append(_record(len(records), "#outside", 0.0, 0.0, 0, "outside_blocks"))
            texts.append(residual)

        seen: dict[str, int] = {}
        out: list[str] = []
        n_merged = 0
        for rec, text in zip(records, texts):
            rec.text = preview(text)
            rec.words = len(text.split())
            if rec.scores["priority"] <= 0:
                rec.reason = rec.reason or "priority_zero"
                rec.kept = False
                continue
            key = text.replace("\n", " ")  # = normalize_space(text): its lines are normalised
            if self.merge_duplicates and key and key in seen:
                rec.kept, rec.reason, rec.duplicate_of = False, "duplicate", seen[key]
                n_merged += 1
                continue
            if key:
                seen.setdefault(key, rec.index)
                out.append(text)
        n_informative = sum(1 for r in records if r.scores["priority"] > 0)
        return Extraction(
            text="\n".join(out),
            blocks=records,
            info={
                "n_blocks": len(records),
                "n_informative": n_informative,
                "n_noisy": len(records) - n_informative,
                "n_merged": n_merged,
            },
        )
