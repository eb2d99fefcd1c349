"""PAB: informative blocks by HTML tag priority (Kabir, Kabir & Amin, ECIJ 4(3), 2015).

The page (``001_...txt``, §3) is cut into disjoint blocks, each block gets the
sum of the priorities of the tags it holds (Table 3.1), blocks whose links
lead mostly to other sites get 0, and the blocks above 0 are the informative
ones. Our reading (METHODS §3):

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
* The registrable domain is the last two labels of the host, or three under
  a two-letter country code whose second level is a generic one (co.uk,
  com.au, ...): a heuristic without the public-suffix list.
* Duplicates are exact matches of whitespace-normalised block text; blocks
  without text (an image with alt text) are never merged. The title block
  takes part, so an ``<h1>`` equal to the title is merged into it.
* An ``<img>`` scores 0.3 only with non-empty alt text; ``em`` and others
  outside the table score 0.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import lxml.etree
import lxml.html

from evalkit.method import Extractor
from evalkit.page import Extraction, Page, PageError
from evalkit.text import normalize_space
from evalkit.visible import element_text

__all__ = [
    "DEFAULT_MAX_OUTER_LINK_SHARE",
    "MEDIUM_TAGS",
    "PAB",
    "REMOVED_TAGS",
    "TAG_PRIORITY",
    "TITLE_PRIORITY",
    "block_priority",
    "find_blocks",
    "outer_link_share",
    "page_host",
    "registrable_domain",
    "tag_priority",
]

#: Table 3.1 of Kabir et al. (2015); ``img`` only counts with alt text
TAG_PRIORITY = {
    "h1": 1.0, "h2": 0.9, "h3": 0.8, "h4": 0.7, "h5": 0.6, "h6": 0.5,
    "b": 0.4, "strong": 0.4, "img": 0.3, "a": 0.2, "i": 0.2, "p": 0.1,
}
#: "medium level" tags: they start blocks but add nothing to a priority
MEDIUM_TAGS = frozenset({"table", "ul", "ol"})
#: removed with all their contents (Algorithm 3.2.1, step 2a)
REMOVED_TAGS = frozenset({"script", "style", "iframe", "object", "form"})
#: the title block's priority (Table 3.1, Cat-1.0)
TITLE_PRIORITY = 1.0
#: a block with a larger share of outer links is noise (§3.1.2)
DEFAULT_MAX_OUTER_LINK_SHARE = 0.5

# second-level labels under which sites register (co.uk, com.au, ac.jp, ...)
_GENERIC_SLD = frozenset({"co", "com", "net", "org", "ac", "gov", "edu", "or", "ne", "go",
                          "gv", "mil", "nic", "ltd", "plc", "sch", "nhs", "gob", "nom", "info"})
_RECORD_TEXT_CHARS = 80


def _tag(el) -> str:
    return el.tag.lower() if isinstance(el.tag, str) else ""


def tag_priority(el: lxml.html.HtmlElement) -> float:
    """Table 3.1 value of one element (an ``img`` needs non-empty alt text)."""
    tag = _tag(el)
    if tag == "img" and not (el.get("alt") or "").strip():
        return 0.0
    return TAG_PRIORITY.get(tag, 0.0)


def _starts_block(el) -> bool:
    tag = _tag(el)
    return tag in MEDIUM_TAGS or (tag in TAG_PRIORITY and (tag != "img" or tag_priority(el) > 0))


def block_priority(el: lxml.html.HtmlElement) -> float:
    """Eq. (1): the sum of the priorities of the block's tags, its own included.

    Rounded to 10 decimals so that 0.1 + 0.2 + 4 x 0.2 reads 1.1.
    """
    return round(sum(tag_priority(d) for d in el.iter() if isinstance(d.tag, str)), 10)


def registrable_domain(host: str) -> str:
    """The site part of a host name: last two labels, or three under ``co.uk``-like suffixes."""
    host = host.lower().strip(".")
    labels = host.split(".")
    if len(labels) >= 3 and len(labels[-1]) == 2 and labels[-2] in _GENERIC_SLD:
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def _host(url: str | None) -> str | None:
    if not url:
        return None
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:
        return None
    return host or None


def page_host(url: str | None, root: lxml.html.HtmlElement | None = None) -> str | None:
    """The page's host: from its URL, else ``<base href>``, canonical link or ``og:url``."""
    host = _host(url)
    if host or root is None:
        return host
    for xpath in ("//base/@href", "//link[@rel='canonical']/@href",
                  "//meta[@property='og:url']/@content"):
        for value in root.xpath(xpath):
            host = _host(str(value))
            if host:
                return host
    return None


def outer_link_share(el: lxml.html.HtmlElement, host: str | None) -> tuple[float, int]:
    """``(share of outer links, number of links)`` among the ``<a href>`` under ``el``.

    Relative links are inner; absolute links are outer when their registrable
    domain differs from ``host``'s (always, when ``host`` is None).
    """
    site = registrable_domain(host) if host else None
    total = outer = 0
    for a in el.iter("a"):
        href = (a.get("href") or "").strip()
        if not href or href.startswith("#"):  # a jump within the page
            continue
        try:
            parts = urlsplit(href)
        except ValueError:  # unparseable (e.g. a broken IPv6 host): nothing to follow
            continue
        if parts.scheme not in ("", "http", "https"):  # mailto:, javascript:, tel:, ...
            continue
        total += 1
        link_host = parts.hostname
        if link_host and (site is None or registrable_domain(link_host) != site):
            outer += 1
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


def _never(el) -> bool:
    return False


class PAB(Extractor):
    """Tag-priority block filter of Kabir, Kabir & Amin (2015).

    Parameters
    ----------
    max_outer_link_share : a block whose share of outer links is larger than
        this gets priority 0 (the paper's 50 %).
    merge_duplicates : merge informative blocks with identical text (step 5 of
        Algorithm 3.2.2).
    """

    name = "pab"

    def __init__(self, max_outer_link_share: float = DEFAULT_MAX_OUTER_LINK_SHARE,
                 merge_duplicates: bool = True):
        if not 0.0 <= max_outer_link_share <= 1.0:
            raise ValueError(f"max_outer_link_share must be in [0, 1], got {max_outer_link_share}")
        self.max_outer_link_share = max_outer_link_share
        self.merge_duplicates = merge_duplicates

    def extract(self, page: Page) -> Extraction:
        try:
            root = page.tree()
        except PageError as exc:
            return Extraction(text="", info={"n_blocks": 0, "n_informative": 0, "n_noisy": 0,
                                             "n_merged": 0, "skipped": exc.reason})
        host = page_host(page.url, root)
        for el in list(root.iter(*REMOVED_TAGS, lxml.etree.Comment, lxml.etree.ProcessingInstruction)):
            if el.getparent() is not None:  # contents go, the text after the element stays
                el.drop_tree()

        records: list[dict] = []  # one per block, in document order
        texts: list[str] = []  # each block's full text
        title = root.find(".//title")
        if title is not None:
            text = normalize_space(title.text_content())
            records.append({"block": 0, "tag": "title", "priority": TITLE_PRIORITY,
                            "outer_link_share": 0.0, "n_links": 0})
            texts.append(text)

        body = root.find(".//body")
        if body is None:
            body = root.find(".//frameset")
        blocks = find_blocks(body) if body is not None else []
        for el in blocks:
            share, n_links = outer_link_share(el, host)
            priority = block_priority(el)
            reason = None
            if share > self.max_outer_link_share:
                priority, reason = 0.0, "outer_links"
            records.append({"block": len(records), "tag": _tag(el), "priority": priority,
                            "outer_link_share": share, "n_links": n_links, "reason": reason})
            texts.append(element_text(el, _never))

        if body is not None:
            chosen = set(blocks)
            residual = element_text(body, lambda e: e in chosen)
            if residual:  # text outside every block: one block without any tag of the table
                # (it holds no link: every <a> starts a block of its own)
                records.append({"block": len(records), "tag": "#outside", "priority": 0.0,
                                "outer_link_share": 0.0, "n_links": 0, "reason": "outside_blocks"})
                texts.append(residual)

        seen: dict[str, int] = {}
        out: list[str] = []
        n_merged = 0
        for rec, text in zip(records, texts):
            rec["text"] = text[:_RECORD_TEXT_CHARS]
            rec.setdefault("reason", None)
            if rec["priority"] <= 0:
                rec["reason"] = rec["reason"] or "priority_zero"
                rec["kept"] = False
                continue
            key = normalize_space(text)
            if self.merge_duplicates and key and key in seen:
                rec["kept"], rec["reason"], rec["duplicate_of"] = False, "duplicate", seen[key]
                n_merged += 1
                continue
            if key:
                seen.setdefault(key, rec["block"])
                out.append(text)
            rec["kept"] = True
        n_informative = sum(1 for r in records if r["priority"] > 0)
        return Extraction(text="\n".join(out), blocks=records, info={
            "n_blocks": len(records), "n_informative": n_informative,
            "n_noisy": len(records) - n_informative, "n_merged": n_merged,
        })
