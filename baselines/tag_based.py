"""Tag-based noise removal (Mayajohn & Jayasudha, JATIT 95(22), 2017): a reconstruction.

The seed paper's system "Tag based [2]" in its Table 6 (docs/papers.md#saravanan2020).
The publication could not be found, so this is a **reconstruction** from the seed
paper's sentences about it (quoted in docs/methods/tag_based.md): "The HTML tags and
their attributes are analysed and if the tag is identified as a noise then the values
are eliminated to produce the noise free web page core content", and the rules of its
§3.2, which it says are "framed ... based on the typical characteristics of the web
page [2]", with the IAB banner sizes it attributes to [2]. The noise types (the seed
paper's Fig. 1 and §3.1): advertisements, banners, background images, plug-ins,
copyright information, logos, search boxes, navigational bars, header and footer.

The rules, each applied to the whole page (script, style, noscript and comments are
removed first), in this order; every assumption is a named setting whose default is
the most literal reading of the seed paper's words:

1. **background**: an element of ``background_tags`` (td, tr, table, div, body) with a
   ``background`` attribute or a ``background-image`` style (a ``background`` style with
   a ``url(...)``) is removed with its content ("The tags containing background
   attributes can be removed").
2. **offsite image**: an ``<img>`` whose ``src`` is on another registrable domain than
   the page's URL (``evalkit.core.domains``) is removed; skipped when the page has no URL.
3. **ad provider**: an element whose ``href`` or ``src`` is on a host of ``ad_hosts`` is
   removed ("the tags can be removed").
4. **ad keyword**: an element whose ``id`` or ``class`` holds one of ``ad_keywords``
   (Ad, Ads, adsbygoogle, banner, AdSense) is removed; ``keyword_match="token"`` compares
   whole alphanumeric tokens, case-insensitively (``ad-slot`` matches, ``header`` does
   not); ``"substring"`` matches anywhere.
5. **IAB size**: an element of ``size_tags`` (img) whose ``width`` and ``height``
   attributes (or pixel styles) are one of ``iab_sizes`` (234x60, 468x60, 120x240,
   745x100: the four sizes the seed paper lists) is removed.
6. **plug-in**: ``<embed>``, ``<object>``, ``<audio>``, ``<video>`` and ``<iframe>`` with a
   ``src`` are removed.
7. **utility links**: a link to a host of ``social_hosts`` (facebook, twitter, google,
   pinterest, linkedin) or whose text holds one of ``utility_words`` (terms, conditions,
   disclaimer, copyright, publisher), and a ``<form>`` with a search box (an input of
   type search or named one of ``search_names``: q, s, search, query, keyword(s)), remove their
   innermost enclosing block of ``block_tags`` (div, td: the seed paper's block tags):
   "The blocks having such links can further be removed". Without an enclosing block
   the link or form alone goes; ``utility_scope="link"`` removes only the link or form.
8. ``structural_tags`` (none by default): whole elements removed by tag name; the seed
   paper's noise types name navigation bars, headers and footers, but no rule of its
   names a tag for them, so ``[nav, header, footer]`` is an option, not the default.

The output is the visible text of what remains of ``<body>``.
"""

from __future__ import annotations

import re
from functools import lru_cache

import lxml.etree

from evalkit.core.domains import host_matches, registrable_domain, url_host
from evalkit.core.method import Extractor
from evalkit.core.page import Extraction, Page, PageError, drop_tree
from evalkit.core.validate import ParamError, check_choice, check_str_list
from evalkit.core.visible import BLOCK_TAGS as LINE_TAGS
from evalkit.core.visible import INVISIBLE_TAGS, join_lines

__all__ = [
    "AD_HOSTS",
    "AD_KEYWORDS",
    "BACKGROUND_TAGS",
    "BLOCK_TAGS",
    "IAB_SIZES",
    "KEYWORD_MATCH",
    "PLUGIN_TAGS",
    "REMOVED_TAGS",
    "RULES",
    "SEARCH_NAMES",
    "SIZE_TAGS",
    "SOCIAL_HOSTS",
    "UTILITY_SCOPES",
    "UTILITY_WORDS",
    "TagBased",
    "body_text",
    "element_size",
    "find_noise",
    "has_keyword",
]

#: elements whose background attribute or background-image style marks them as decoration
BACKGROUND_TAGS = ("td", "tr", "table", "div", "body")
#: hosts of popular ad providers (subdomains match too); our list, the paper names none
AD_HOSTS = (
    "doubleclick.net",
    "googlesyndication.com",
    "googleadservices.com",
    "adservice.google.com",
    "amazon-adsystem.com",
    "adnxs.com",
    "advertising.com",
    "criteo.com",
    "criteo.net",
    "taboola.com",
    "outbrain.com",
    "pubmatic.com",
    "rubiconproject.com",
    "openx.net",
    "adform.net",
    "media.net",
    "zedo.com",
)
#: the seed paper's advertisement keywords (matched case-insensitively)
AD_KEYWORDS = ("ad", "ads", "adsbygoogle", "banner", "adsense")
#: how a keyword is found in an id or class value
KEYWORD_MATCH = ("token", "substring")
#: the four IAB banner sizes of the seed paper's §3.2 (width, height)
IAB_SIZES = ((234, 60), (468, 60), (120, 240), (745, 100))
#: elements whose size is checked against the IAB sizes ("the dimension of the image")
SIZE_TAGS = ("img",)
#: plug-in elements (an iframe only with a src)
PLUGIN_TAGS = ("embed", "object", "audio", "video", "iframe")
#: the seed paper's social sites
SOCIAL_HOSTS = ("facebook.com", "twitter.com", "google.com", "pinterest.com", "linkedin.com")
#: words of the seed paper's uninteresting links (terms and conditions, publisher
#: information, disclaimer, copyright information)
UTILITY_WORDS = ("terms", "conditions", "disclaimer", "copyright", "publisher")
#: names of a search box's input (besides ``type="search"``): the seed paper's "search bar"
SEARCH_NAMES = ("q", "s", "search", "query", "keyword", "keywords")
#: the seed paper's block tags: a utility link removes its innermost one
BLOCK_TAGS = ("div", "td")
#: what a utility link or search form removes: its innermost block, or itself
UTILITY_SCOPES = ("block", "link")
#: the rules in the order they run
RULES = (
    "background",
    "offsite_image",
    "ad_host",
    "ad_keyword",
    "iab_size",
    "plugin",
    "utility_link",
    "structural",
)
#: removed with their contents before the rules (comments too)
REMOVED_TAGS = frozenset({"script", "style", "noscript"})

_BG_STYLE = re.compile(r"background-image\s*:|background\s*:[^;]*url\s*\(", re.IGNORECASE)
_PX = re.compile(r"^\s*(\d+)\s*(?:px)?\s*$", re.IGNORECASE)
_STYLE_SIZE = re.compile(r"(?<![-\w])(width|height)\s*:\s*(\d+)\s*px", re.IGNORECASE)


@lru_cache(maxsize=64)
def _word_pattern(words: tuple[str, ...], match: str):
    """One case-insensitive pattern for ``words``: whole alphanumeric tokens (``token``) or
    anywhere (``substring``); None for no words."""
    if not words:
        return None
    alt = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    if match == "token":
        return re.compile(f"(?<![a-z0-9])(?:{alt})(?![a-z0-9])", re.IGNORECASE)
    return re.compile(f"(?:{alt})", re.IGNORECASE)


def has_keyword(value: str | None, keywords: frozenset[str], match: str) -> bool:
    """Whether an attribute value holds one of ``keywords`` (lower-case): a whole token of
    ``[a-z0-9]+`` runs (``match="token"``) or anywhere (``"substring"``)."""
    pattern = _word_pattern(tuple(sorted(keywords)), match)
    return bool(value and pattern is not None and pattern.search(value))


def element_size(el) -> tuple[int, int] | None:
    """``(width, height)`` in pixels from the attributes, else from the style; None when
    either is missing."""
    w, h = _PX.match(el.get("width") or ""), _PX.match(el.get("height") or "")
    width = int(w.group(1)) if w else None
    height = int(h.group(1)) if h else None
    if width is None or height is None:
        for name, number in _STYLE_SIZE.findall(el.get("style") or ""):
            if name.lower() == "width" and width is None:
                width = int(number)
            elif name.lower() == "height" and height is None:
                height = int(number)
    return (width, height) if width is not None and height is not None else None


def _is_search_form(form, names: frozenset[str]) -> bool:
    """Whether a form holds a search box: an input of type search, or named one of ``names``."""
    for inp in form.iter("input"):
        if (inp.get("type") or "").lower() == "search" or (inp.get("name") or "").lower() in names:
            return True
    return False


def _innermost_block(el, block_tags: frozenset[str], stop):
    """The nearest ancestor of ``el`` whose tag is a block tag, below ``stop``; else ``el``."""
    p = el.getparent()
    while p is not None and p is not stop:
        if isinstance(p.tag, str) and p.tag.lower() in block_tags:
            return p
        p = p.getparent()
    return el


def _absolute(link: str) -> bool:
    """Whether a link names a host (``http:``/``https:`` or ``//``): a relative link is on
    the page's own host, never on an ad provider's or a social site's."""
    if "//" not in link:  # the common relative link, told in C
        return False
    head = link.lstrip()[:6].lower()
    return head.startswith(("http:", "https:", "//"))


def find_noise(body, settings: dict, page_url: str | None) -> list[tuple[object, str]]:
    """``(element, rule)`` for every element a rule removes, in document order.

    ``settings``: the :class:`TagBased` parameters. ``body`` itself may be named (by the
    background rule with ``body`` among its tags). An element gets the first rule of
    :data:`RULES` that matches it. One walk over the elements; an element with neither
    ``src`` nor ``href`` and a tag no rule names can only match the ad-keyword rule, so it
    is tested for that alone (each distinct id and class value is searched once).
    """
    bg_tags = frozenset(settings["background_tags"])
    ad_hosts = frozenset(h.lower() for h in settings["ad_hosts"])
    keywords = frozenset(k.lower() for k in settings["ad_keywords"])
    sizes = frozenset(tuple(s) for s in settings["iab_sizes"])
    size_tags = frozenset(settings["size_tags"])
    plugin_tags = frozenset(settings["plugin_tags"])
    social = frozenset(h.lower() for h in settings["social_hosts"])
    utility = frozenset(w.lower() for w in settings["utility_words"])
    blocks = (
        frozenset(settings["block_tags"]) if settings["utility_scope"] == "block" else frozenset()
    )
    structural = frozenset(settings["structural_tags"])
    search_names = frozenset(n.lower() for n in settings["search_names"])
    special = size_tags | plugin_tags | structural | {"a", "form"}  # tags later rules name
    page_domain = registrable_domain(url_host(page_url)) if page_url else None
    keyword_re = _word_pattern(tuple(sorted(keywords)), settings["keyword_match"])
    utility_re = _word_pattern(tuple(sorted(utility)), "token")
    seen: dict[str, bool] = {}  # id and class values repeat: each is searched once
    # every keyword holds one of these: a value without any cannot match (a C test first)
    cores = tuple(k for k in keywords if not any(o != k and o in k for o in keywords))

    def marked(value: str) -> bool:
        low = value.lower()
        hit = seen[value] = (
            keyword_re is not None
            and any(c in low for c in cores)
            and keyword_re.search(value) is not None
        )
        return hit

    def keyword_hit(get) -> bool:
        for value in (get("id"), get("class")):
            if value:
                hit = seen.get(value)
                if hit is None:
                    hit = marked(value)
                if hit:
                    return True
        return False

    hosts_seen: dict[tuple[str, frozenset[str]], bool] = {}  # hosts repeat on a page

    def on_host(link: str, hosts: frozenset[str]) -> bool:
        # an absolute link on one of the hosts (or a subdomain of one)
        if not _absolute(link):
            return False
        host = url_host(link)
        if not host:
            return False
        hit = hosts_seen.get((host, hosts))
        if hit is None:
            hit = hosts_seen[(host, hosts)] = host_matches(host, hosts)
        return hit

    def utility_link(el) -> bool:
        text = "".join(el.itertext()) if len(el) else el.text  # most links: one text
        if not text:
            return False
        low = text.lower()
        return any(w in low for w in utility) and utility_re.search(text) is not None

    found: list[tuple[object, str]] = []
    append = found.append
    for el in body.iter(lxml.etree.Element):
        tag = el.tag  # lower case from the HTML parser
        get = el.get
        if tag in bg_tags:  # the first rule, tested here so that a plain div takes the fast path
            style = get("style")
            if get("background") is not None or (
                style and "background" in style.lower() and _BG_STYLE.search(style)
            ):
                append((el, "background"))
                continue
        src, href = get("src"), get("href")
        if src is None and href is None and tag not in special:
            if keyword_re is None:
                continue
            # keyword_hit(get) written out: most elements of a page pass here
            value = get("class")
            if value:
                hit = seen.get(value)
                if hit is None:
                    hit = marked(value)
                if hit:
                    append((el, "ad_keyword"))
                    continue
            value = get("id")
            if value:
                hit = seen.get(value)
                if hit is None:
                    hit = marked(value)
                if hit:
                    append((el, "ad_keyword"))
            continue
        link = href or src
        if (
            tag == "img"
            and page_domain
            and src
            and url_host(src)
            and registrable_domain(url_host(src)) != page_domain
        ):
            append((el, "offsite_image"))
        elif link and ad_hosts and on_host(link, ad_hosts):
            append((el, "ad_host"))
        elif keyword_re is not None and keyword_hit(get):
            append((el, "ad_keyword"))
        elif tag in size_tags and sizes and element_size(el) in sizes:
            append((el, "iab_size"))
        elif tag in plugin_tags and (tag != "iframe" or src):
            append((el, "plugin"))
        elif (
            tag == "a"
            and (
                (href and social and on_host(href, social))
                or (utility_re is not None and utility_link(el))
            )
        ) or (tag == "form" and _is_search_form(el, search_names)):
            append((_innermost_block(el, blocks, body), "utility_link"))
        elif tag in structural:
            append((el, "structural"))
    return found


@lru_cache(maxsize=1)
def _text_stylesheet():
    """An XSLT stylesheet that writes the visible text of the first body under the root
    element, else of the root element (as ``visible_text``: a broken page can leave nodes
    beside the root element, which neither reads): invisible elements left out, a line
    break before and after every line-breaking element (evalkit.core.visible's tag sets)."""
    invisible = "|".join(sorted(INVISIBLE_TAGS))
    lines = "|".join(sorted(LINE_TAGS))
    newline = "<xsl:text>&#10;</xsl:text>"
    return lxml.etree.XSLT(
        lxml.etree.XML(
            '<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">'
            '<xsl:output method="text" encoding="UTF-8"/>'
            '<xsl:template match="/"><xsl:choose>'
            '<xsl:when test="/*[1]//body"><xsl:apply-templates select="(/*[1]//body)[1]"/></xsl:when>'
            '<xsl:otherwise><xsl:apply-templates select="/*[1]"/></xsl:otherwise>'
            "</xsl:choose></xsl:template>"
            f'<xsl:template match="{invisible}|comment()|processing-instruction()"/>'
            f'<xsl:template match="{lines}">{newline}<xsl:apply-templates/>{newline}</xsl:template>'
            "</xsl:stylesheet>"
        )
    )


def body_text(root) -> str:
    """:func:`evalkit.core.visible.visible_text` of the document of ``root``, written by libxslt
    (:func:`_text_stylesheet`) and cut into lines as ``join_lines`` does: the same text
    without a Python visit per element. tests/test_tag_based.py compares the two."""
    return join_lines([str(_text_stylesheet()(root.getroottree()))])


def _check_sizes(value) -> None:
    ok = isinstance(value, (list, tuple)) and all(
        isinstance(s, (list, tuple))
        and len(s) == 2
        and all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in s)
        for s in value
    )
    if not ok:
        raise ParamError(
            "iab_sizes",
            value,
            "must be a list of [width, height] pairs of whole numbers > 0, e.g. [[468,60]]",
        )


class TagBased(Extractor):
    """Tag-based noise removal (Mayajohn & Jayasudha 2017), reconstructed from the seed
    paper: tag and attribute rules remove noise elements; the rest of the body is the
    output. Every parameter is one assumption of the reconstruction (module docstring).
    """

    name = "tag_based"

    def __init__(
        self,
        background_tags=BACKGROUND_TAGS,
        ad_hosts=AD_HOSTS,
        ad_keywords=AD_KEYWORDS,
        keyword_match: str = "token",
        iab_sizes=IAB_SIZES,
        size_tags=SIZE_TAGS,
        plugin_tags=PLUGIN_TAGS,
        social_hosts=SOCIAL_HOSTS,
        utility_words=UTILITY_WORDS,
        search_names=SEARCH_NAMES,
        block_tags=BLOCK_TAGS,
        utility_scope: str = "block",
        structural_tags=(),
    ):
        self.background_tags = background_tags
        self.ad_hosts = ad_hosts
        self.ad_keywords = ad_keywords
        self.keyword_match = keyword_match
        self.iab_sizes = iab_sizes
        self.size_tags = size_tags
        self.plugin_tags = plugin_tags
        self.social_hosts = social_hosts
        self.utility_words = utility_words
        self.search_names = search_names
        self.block_tags = block_tags
        self.utility_scope = utility_scope
        self.structural_tags = structural_tags
        self._validate()

    def _validate(self) -> None:
        for name in (
            "background_tags",
            "ad_hosts",
            "ad_keywords",
            "size_tags",
            "plugin_tags",
            "social_hosts",
            "utility_words",
            "search_names",
            "block_tags",
            "structural_tags",
        ):
            check_str_list(name, getattr(self, name), allow_empty=True)
        check_choice("keyword_match", self.keyword_match, KEYWORD_MATCH)
        check_choice("utility_scope", self.utility_scope, UTILITY_SCOPES)
        _check_sizes(self.iab_sizes)

    def extract(self, page: Page) -> Extraction:
        try:
            root = page.tree(plain=True)  # plain lxml elements: cheaper visits
        except PageError as exc:
            return Extraction(text="", info={"n_removed": 0, "skipped": exc.reason})
        doomed = list(
            root.iter(*REMOVED_TAGS, lxml.etree.Comment, lxml.etree.ProcessingInstruction)
        )
        for el in doomed:
            if el.getparent() is not None:
                drop_tree(el)
        body = root.find(".//body")
        if body is None:
            body = root
        found = find_noise(body, self.get_params(), page.url)
        counts = dict.fromkeys(RULES, 0)
        for el, rule in found:
            counts[rule] += 1
        if any(el is body for el, _ in found):  # the body itself is noise: nothing is left
            return Extraction(
                text="",
                info={
                    "n_removed": len(found),
                    "body_removed": True,
                    **{f"n_{r}": k for r, k in counts.items()},
                },
            )
        for el, _ in found:
            # an element inside one removed before is gone with it (its parent chain
            # no longer reaches the body); removing it again would be harmless but wasted
            if el.getparent() is not None:
                drop_tree(el)
        return Extraction(
            text=body_text(root),
            info={
                "n_removed": len(found),
                "body_removed": False,
                **{f"n_{r}": k for r, k in counts.items()},
            },
        )
