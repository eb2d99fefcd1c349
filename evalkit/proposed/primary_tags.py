"""Stage 1.2, part one: primary noise removal by tag analysis.

Saravanan & Sathya Bama (2020), §3.2 (rules) and §4 (the worked page);
specification in docs/methods/proposed.md#32-primary-noise-removal rules 1-6.

The paper's rules, paraphrased: (1) td/tr/table/div/body elements that carry
a ``background`` attribute or a ``background-image`` style only decorate the
page; (2) images served from another domain than the page are usually
advertisements, and so are elements that point to an ad provider or carry
keywords such as Ad, Ads, adsbygoogle, banner, AdSense; (3) images with the
standard IAB banner sizes (234x60, 468x60, 120x240, 745x100, ...) are
advertisements; (4) plug-ins (embed, object, audio, video, iframe with src)
are noise; (5) blocks with links to terms and conditions, disclaimers,
copyright notices, search bars and social sites (facebook, twitter, google,
pinterest, linkedin) are noise.

Our reading and departures (each is a parameter of ``Proposed``):

* **background** strips the background attribute/style and keeps the block:
  the paper says the *tags* "can be removed", but dropping a ``<body>`` or a
  content ``<td>`` for its background colour would drop the page, so the
  literal reading is the option ``background_removes_block=True`` (which
  never removes ``<body>``).
* **offsite_image** compares registrable domains (``evalkit.domains``: last
  two host labels, three under a two-level suffix such as ``co.uk``; no
  public-suffix list, no network). A relative or ``data:`` src is on the
  page's own host. The rule is skipped when the page URL is unknown. Only the
  image goes; a block left without text falls to the ``empty`` rule below.
* **ad_marker** splits id/class/src/href values into alphanumeric tokens (and
  at camelCase humps) and matches whole tokens, so ``header``, ``shadow``,
  ``read`` or ``download`` never match ``ad``; a short list of unambiguous
  substrings (``googlead`` for the paper's ``bottomgooglead`` and
  ``rightgooglead`` classes, ``adsbygoogle``, ``doubleclick``) is matched
  anywhere. A link or source on a known ad host matches too. Departure: an
  ad-marked element that holds more than ``ad_max_share`` of the page's
  words is kept (recorded in the counts), because a class such as
  ``has-ads`` on a page wrapper would otherwise erase the whole page.
* **iab_size** reads ``width``/``height`` attributes and ``width:``/
  ``height:`` pixel styles of img, iframe, embed and object.
* **utility_links** removes a block of at most ``utility_max_words`` own
  words when more than ``utility_link_share`` of its own links go to social
  hosts or are legal/utility links, when its own text carries a legal phrase
  (copyright, terms of use, privacy policy, disclaimer, contact us, ...), or
  when it holds a search box. The word limit is ours: without it an article
  that mentions "privacy policy" or links one tweet would be dropped.
* **empty**: a block with no text of its own after the rules above is
  removed (the paper: a block left without content is no block).
* Departure, the *ad container*: a block out of which offsite_image,
  ad_marker, iab_size or plugin took an element, and which keeps less than
  ``ad_container_chars`` (40) characters of text, is removed under that
  rule's name. The paper removes "the tags" that carry an ad; on real pages
  the ad's wrapper keeps a label such as "Advertisement" that would otherwise
  survive as a block of its own.

Speed (no change to any decision): lxml finds every rule's candidate
elements in C (by tag name, and by XPath for the attribute values); the
live tree at any point is the tree minus the subtrees dropped so far;
attribute values are judged once per page, most of them ruled out by one
regex screen; ``utility_links`` finds each block's links and search boxes
through the owner map of the block walk (``blocks.BodyIndex``); block texts
come from a ``TextCache`` that every drop invalidates for the block that
loses the element.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from functools import lru_cache
from itertools import accumulate

import lxml.etree
import lxml.html

from evalkit.domains import host_matches, registrable_domain, url_host
from evalkit.page import drop_tree
from evalkit.proposed.blocks import (
    BLOCK_TAGS,
    Block,
    BodyIndex,
    TextCache,
    link_words,
    own_word_count,
    owner_block,
)

__all__ = [
    "DEFAULT_AD_CONTAINER_CHARS",
    "DEFAULT_AD_HOSTS",
    "DEFAULT_AD_MAX_SHARE",
    "DEFAULT_AD_SUBSTRINGS",
    "DEFAULT_AD_TOKENS",
    "DEFAULT_LEGAL_PHRASES",
    "DEFAULT_SOCIAL_HOSTS",
    "DEFAULT_UTILITY_LINK_SHARE",
    "DEFAULT_UTILITY_MAX_WORDS",
    "IAB_SIZES",
    "TAG_RULES",
    "apply_tag_rules",
    "attr_tokens",
    "iab_size",
    "is_ad_marked",
]

#: the tag-analysis rules in the order they run
TAG_RULES = ("background", "offsite_image", "ad_marker", "iab_size", "plugin", "utility_links")

DEFAULT_AD_TOKENS = (
    "ad", "ads", "adv", "advert", "adverts", "advertisement", "advertisements", "advertising",
    "adsbygoogle", "adsense", "adslot", "adunit", "adbox", "adspace", "adframe", "adblock",
    "adcontainer", "adwrapper", "banner", "banners", "sponsor", "sponsored", "dfp",
    "googlead", "googleads",
)
DEFAULT_AD_SUBSTRINGS = ("googlead", "adsbygoogle", "doubleclick")
DEFAULT_AD_HOSTS = (
    "doubleclick.net", "googlesyndication.com", "googleadservices.com", "adnxs.com",
    "taboola.com", "outbrain.com", "criteo.com", "criteo.net", "amazon-adsystem.com",
    "adform.net", "pubmatic.com", "rubiconproject.com", "openx.net", "advertising.com",
    "media.net", "moatads.com", "adroll.com", "zedo.com", "revcontent.com", "mgid.com",
    "adsrvr.org", "casalemedia.com", "smartadserver.com", "yieldmo.com",
)
DEFAULT_SOCIAL_HOSTS = (
    "facebook.com", "fb.com", "twitter.com", "x.com", "plus.google.com", "pinterest.com",
    "linkedin.com", "youtube.com", "instagram.com", "tumblr.com", "reddit.com",
    "whatsapp.com", "t.me", "vk.com", "addthis.com", "sharethis.com",
)
DEFAULT_LEGAL_PHRASES = (
    "terms of use", "terms of service", "terms and conditions", "terms & conditions",
    "privacy policy", "privacy notice", "cookie policy", "cookies policy", "copyright",
    "all rights reserved", "©", "disclaimer", "contact us", "about us", "sitemap", "site map",
)
#: standard IAB ad sizes (width, height), plus the paper's 745x100 head banner
IAB_SIZES = (
    (234, 60), (468, 60), (120, 240), (728, 90), (300, 250), (160, 600), (120, 600),
    (336, 280), (300, 600), (970, 90), (320, 50), (125, 125), (88, 31), (745, 100),
)
#: a block is a utility block when more than this share of its own links are social/legal
DEFAULT_UTILITY_LINK_SHARE = 0.5
#: utility_links only looks at blocks with at most this many own words
DEFAULT_UTILITY_MAX_WORDS = 60
#: an ad-marked element holding more than this share of the page's words is kept
DEFAULT_AD_MAX_SHARE = 0.5
#: a block that lost an ad element and keeps less text than this is the ad's container
DEFAULT_AD_CONTAINER_CHARS = 40

_BACKGROUND_TAGS = frozenset({"td", "tr", "table", "div", "body"})
_BG_STYLE = re.compile(r"background(?:-image)?\s*:[^;]*url\s*\(", re.IGNORECASE)
_BG_DECL = re.compile(r"background(?:-image)?\s*:[^;]*url\s*\([^)]*\)[^;]*;?", re.IGNORECASE)
# element-level rules whose removal marks the enclosing block as a possible ad container
_AD_RULES = frozenset({"offsite_image", "ad_marker", "iab_size", "plugin"})
_PLUGIN_TAGS = frozenset({"embed", "object", "applet", "audio", "video"})
_SIZED_TAGS = frozenset({"img", "iframe", "embed", "object"})
_TOKEN = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_PX = re.compile(r"^\s*(\d+)(?:\.0+)?\s*(?:px)?\s*$", re.IGNORECASE)
_STYLE_DIM = re.compile(r"(?<![-\w])(width|height)\s*:\s*(\d+)(?:\.0+)?\s*px", re.IGNORECASE)
_SEARCH_NAMES = frozenset({"q", "s", "search", "query", "searchterm", "keywords"})
# the attributes ad_marker reads, in the order it reads them
_AD_ATTRS = ("id", "class", "src", "href")


def attr_tokens(value: str) -> list[str]:
    """Lower-case alphanumeric tokens of an attribute value, split at camelCase humps too."""
    return [t.lower() for t in _TOKEN.findall(value)]


def _tag(el) -> str:
    return el.tag.lower() if isinstance(el.tag, str) else ""


def is_ad_marked(el, ad_tokens: frozenset[str], ad_substrings: Iterable[str],
                 ad_hosts: Iterable[str]) -> str | None:
    """Why ``el`` looks like an advertisement (the matching attribute), else None."""
    if not isinstance(ad_tokens, (set, frozenset)):
        ad_tokens = frozenset(ad_tokens)
    for attr in _AD_ATTRS:
        value = el.get(attr)
        if not value:
            continue
        why = _attr_ad_reason(attr, value, ad_tokens, ad_substrings, ad_hosts)
        if why is not None:
            return why
    return None


def _dim(el, name: str) -> int | None:
    value = el.get(name)
    if value:
        m = _PX.match(value)
        if m:
            return int(m.group(1))
    for key, num in _STYLE_DIM.findall(el.get("style") or ""):
        if key.lower() == name:
            return int(num)
    return None


def iab_size(el) -> tuple[int, int] | None:
    """(width, height) of an element when both are given in pixels, else None."""
    w, h = _dim(el, "width"), _dim(el, "height")
    return (w, h) if w is not None and h is not None else None


def _words(text: str) -> int:
    return len(text.split())


def apply_tag_rules(
    root: lxml.html.HtmlElement,
    blocks: list[Block],
    *,
    page_url: str | None = None,
    rules: Iterable[str] = TAG_RULES,
    background_removes_block: bool = False,
    ad_tokens: Iterable[str] = DEFAULT_AD_TOKENS,
    ad_substrings: Iterable[str] = DEFAULT_AD_SUBSTRINGS,
    ad_hosts: Iterable[str] = DEFAULT_AD_HOSTS,
    ad_max_share: float = DEFAULT_AD_MAX_SHARE,
    social_hosts: Iterable[str] = DEFAULT_SOCIAL_HOSTS,
    legal_phrases: Iterable[str] = DEFAULT_LEGAL_PHRASES,
    iab_sizes: Iterable[tuple[int, int]] = IAB_SIZES,
    utility_link_share: float = DEFAULT_UTILITY_LINK_SHARE,
    utility_max_words: int = DEFAULT_UTILITY_MAX_WORDS,
    ad_container_chars: int = DEFAULT_AD_CONTAINER_CHARS,
    block_tags=BLOCK_TAGS,
    texts: TextCache | None = None,
    index: BodyIndex | None = None,
) -> dict[str, int]:
    """Run the tag rules in place on ``root``; mark removed blocks. Returns counts per rule.

    Element-level rules (offsite_image, ad_marker, iab_size, plugin) drop the
    element with its subtree (keeping its tail text); every block inside a
    dropped element is marked removed by that rule. utility_links and empty
    remove whole blocks. ``texts``, when given, holds the blocks' current own
    texts (``blocks.separate_blocks`` fills it); it is read and kept up to date.
    ``index``, when given, is the :class:`BodyIndex` of the same, unchanged
    tree (``blocks.split_body``): its element list and owner map replace walks
    of the tree, and the elements dropped here are added to ``index.gone``.
    """
    rules = set(rules)
    unknown = rules - set(TAG_RULES)
    if unknown:
        raise ValueError(f"unknown tag rule(s) {sorted(unknown)}; known: {list(TAG_RULES)}")
    if texts is None:
        texts = TextCache(block_tags)
    if index is not None:
        body = index.body  # looking it up again would walk the head
    else:
        body = root.find(".//body")
        body = body if body is not None else root
    by_el = {b.element: b for b in blocks}
    had_text = {b.index: b.words > 0 for b in blocks}
    counts = {r: 0 for r in TAG_RULES}
    counts["empty"] = 0
    counts["ad_container"] = 0
    counts["ad_kept_large"] = 0
    page_domain = registrable_domain(page_url) if page_url else None

    lost: dict[int, str] = {}  # block index -> ad rule that took an element out of it
    # The rules only drop subtrees (and edit style attributes), so "still in the tree" is
    # "not in gone"; the index, when given, says which block owns an element.
    if index is not None and body.getroottree().getroot() is not root:
        raise ValueError("index was made for another tree")
    gone: set = index.gone if index is not None else set()
    owner_of = index.owner if index is not None else {}

    def holder_of(el):  # owner_block(el), from the index when it knows el
        return owner_of[el] if el in owner_of else owner_block(el, block_tags)

    # Every rule's candidates, taken before any rule runs (the tags and the id/class/src/
    # href, type/name/role values the rules read are never changed by an earlier rule),
    # found by lxml in C by tag name (libxml2's HTML parser gives lower-case names) or in
    # one pass over the body's elements (the index holds their proxies already)
    bg_els = list(body.iter(*_BACKGROUND_TAGS))
    img_els = list(body.iter("img"))
    sized_els = list(body.iter(*_SIZED_TAGS))
    plugin_els = list(body.iter(*_PLUGIN_TAGS, "iframe"))
    elements = index.elements if index is not None else list(body.iter(lxml.etree.Element))
    ad_rows, anchors, searches = _scan(elements, body)

    def drop(el, rule: str, reason: str) -> None:
        for sub in el.iter():
            gone.add(sub)
            b = by_el.get(sub)
            if b is not None:
                b.remove("primary", rule, reason)
                texts.invalidate(b)
        parent = el.getparent()
        if parent is not None:
            holder = holder_of(parent)
            if holder is not None and holder in by_el and rule in _AD_RULES:
                lost.setdefault(by_el[holder].index, rule)
            # the block whose own text loses the element's (the residual when no div/td holds it)
            owner = by_el.get(holder if holder is not None else body)
            if owner is not None:
                texts.invalidate(owner)
            drop_tree(el)
        counts[rule] += 1

    if "background" in rules:
        # as before, an element inside one dropped earlier in this loop is still visited
        for el in bg_els:
            style = el.get("style") or ""
            if el.get("background") is None and not _BG_STYLE.search(style):
                continue
            if background_removes_block and el is not body:
                drop(el, "background", f"<{_tag(el)}> has a background image")
                continue
            el.attrib.pop("background", None)
            if style:
                el.set("style", _BG_DECL.sub("", style))
            counts["background"] += 1

    if "offsite_image" in rules and page_domain:
        for el in [e for e in img_els if e not in gone]:
            src = el.get("src") or ""
            dom = registrable_domain(url_host(src)) if not src.startswith("data:") else None
            if dom and dom != page_domain:
                drop(el, "offsite_image", f"image from {dom}, page on {page_domain}")

    if "ad_marker" in rules:
        tokens = frozenset(t.lower() for t in ad_tokens)
        subs = tuple(s.lower() for s in ad_substrings)
        hosts = frozenset(ad_hosts)
        memo: dict = {}
        screen = _screen(tokens, subs, hosts)
        page_words = None  # counted when first needed (after offsite_image, as before)
        for el, values in _ad_candidates(ad_rows, screen):
            if el in gone:
                continue
            why = _ad_reason(values, tokens, subs, hosts, memo, screen)
            if why is None:
                continue
            if page_words is None:
                # dropped images hold no text: the walk's count stands unless the
                # background rule dropped whole elements
                same = index is not None and not (background_removes_block and gone)
                page_words = max(index.words if same else own_word_count(body, ()), 1)
            if own_word_count(el, ()) > ad_max_share * page_words:
                counts["ad_kept_large"] += 1
                continue
            drop(el, "ad_marker", why)

    if "iab_size" in rules:
        sizes = {tuple(int(x) for x in s) for s in iab_sizes}
        for el in sized_els:
            if el in gone:
                continue
            wh = iab_size(el)
            if wh in sizes:
                drop(el, "iab_size", f"<{_tag(el)}> of IAB size {wh[0]}x{wh[1]}")

    if "plugin" in rules:
        for el in plugin_els:
            tag = _tag(el)
            if (tag in _PLUGIN_TAGS or (tag == "iframe" and el.get("src"))) and el not in gone:
                drop(el, "plugin", f"plug-in <{tag}>")

    if "utility_links" in rules:
        phrases = _phrase_matcher(tuple(p.lower() for p in legal_phrases))
        social = frozenset(social_hosts)
        # each link and search box still on the page, under the block that owns it (the
        # residual block when no div/td does): what a walk of the block's own elements finds
        links_of: dict = {}
        search_in: set = set()
        for el in anchors:
            if el not in gone:
                holder = holder_of(el)
                links_of.setdefault(body if holder is None else holder, []).append(el)
        for el in searches:
            if el not in gone:
                holder = holder_of(el)
                search_in.add(body if holder is None else holder)
        short = [(b, text) for b in blocks
                 if b.alive and _words(text := texts[b]) <= utility_max_words]
        # a block without links or a search box is a utility block only when its text holds
        # a phrase: one search over all the short texts finds the few that may
        phrase_list = tuple(p for p, _ in phrases[1])
        maybe = (_needle_hits([t.lower() for _, t in short], phrase_list)
                 if phrases[0] is not None and not any("\x00" in p for p in phrase_list)
                 else range(len(short)))
        for k, (b, text) in enumerate(short):
            links, search = links_of.get(b.element, ()), b.element in search_in
            if not links and not search and k not in maybe:
                continue
            why = _utility_reason(links, search, text, phrases, social, utility_link_share,
                                  block_tags)
            if why:
                b.remove("primary", "utility_links", why)
                counts["utility_links"] += 1

    for b in blocks:
        if not b.alive:
            continue
        text = texts[b]
        if not text:
            b.remove("primary", "empty",
                     "no text left after tag rules" if had_text[b.index] else "no text of its own")
            counts["empty"] += 1
        elif b.index in lost and len(" ".join(text.split())) < ad_container_chars:
            b.remove("primary", lost[b.index],
                     f"ad container: only {' '.join(text.split())[:40]!r} left after "
                     f"{lost[b.index]}")
            counts["ad_container"] += 1
    return counts


@lru_cache(maxsize=16)
def _screen(tokens: frozenset[str], subs: tuple[str, ...], hosts: frozenset[str]):
    """Needles one of which occurs in every lower-cased attribute value that can mark an ad
    (None: no screening possible).

    An ad token is an ASCII run of the value, so it occurs in the lower-cased
    value; so do the substrings; and a host (or its parent domain) on the ad
    list occurs in the lower-cased URL. A value that holds no needle is not an
    ad marker, whatever the full test would say.
    """
    if "" in subs:  # the empty substring is in every value: no screening possible
        return None
    needles = {*tokens, *subs, *hosts} - {""}
    # a needle holding another (ads, advert, googleads all hold ad) adds nothing to "some
    # needle occurs": the screen keeps the shortest (19 of the 73 defaults)
    return tuple(sorted(n for n in needles if not any(m != n and m in n for m in needles))) \
        or None


def _needle_hits(lows: list[str], needles) -> set[int]:
    """Indices of the (lower-case) texts that hold at least one of the needles."""
    # one text of all, NUL-separated (no needle holds a NUL, so no match spans two);
    # str.find per needle is much faster than a regular expression of the alternatives
    joined = "\x00".join(lows)
    starts = list(accumulate((len(x) + 1 for x in lows), initial=0))
    hits = set()
    for needle in needles:
        i = joined.find(needle)
        while i >= 0:
            k = bisect_right(starts, i) - 1
            hits.add(k)
            i = joined.find(needle, starts[k + 1])  # the next text
    return hits


def _screened(values: list[str], needles: tuple[str, ...]) -> set[str]:
    """The values (distinct) that hold a needle once lower-cased."""
    # lower-cased one by one: lower() may change a length
    return {values[k] for k in _needle_hits([v.lower() for v in values], needles)}


def _scan(elements, body) -> tuple[list, list, list]:
    """What the rules read of every element, in one pass over ``elements`` (the body and all
    below it, in document order): ``(element, id, class, src, href)`` of each element other
    than ``body`` with one of those values; the ``<a>`` elements below ``body`` with a
    non-empty href (what ``.//a[@href != '']`` finds); and the search boxes among the input
    elements and the elements with a role (``descendant-or-self::input |
    descendant-or-self::*[@role]``, judged by :func:`_is_search_box`).

    Reading the attributes of each element is cheaper than asking libxml2's XPath for
    them (it builds and sorts node sets; for attribute values, a proxy per value's element).
    """
    rows, anchors, searches = [], [], []
    for el in elements:
        i, c, s, h = el.get("id"), el.get("class"), el.get("src"), el.get("href")
        tag = el.tag
        if (tag == "input" or el.get("role") is not None) and _is_search_box(el):
            searches.append(el)
        if el is body:
            continue
        if i or c or s or h:
            rows.append((el, i, c, s, h))
            if h and tag == "a":
                anchors.append(el)
    return rows, anchors, searches


def _ad_candidates(rows, screen) -> list:
    """``(element, its non-empty (attribute, value) pairs in _AD_ATTRS order)`` for the
    :func:`_scan` rows with a value that holds one of the ``screen`` needles (every row
    without a screen), in their order."""
    if screen is not None:
        hits = _screened(list({v for row in rows for v in row[1:] if v}), screen)
        rows = [row for row in rows if not hits.isdisjoint(row[1:])]
    return [(row[0], [(a, v) for a, v in zip(_AD_ATTRS, row[1:]) if v]) for row in rows]


def _is_search_box(el) -> bool:
    """A search input (type search or a usual query name) or an element with role=search."""
    return ((el.tag == "input" and ((el.get("type") or "").lower() == "search"
                                    or (el.get("name") or "").lower() in _SEARCH_NAMES))
            or (el.get("role") or "").lower() == "search")


def _ad_reason(values, tokens: frozenset[str], subs: tuple[str, ...], hosts: frozenset[str],
               memo: dict, screen=None) -> str | None:
    """:func:`is_ad_marked` on an element's non-empty (attribute, value) pairs in
    ``_AD_ATTRS`` order, each value judged once per page (``memo``).

    ``screen`` (:func:`_screen`'s needles) rules out most values at once.
    """
    for key in values:
        attr, value = key
        why = memo.get(key, key)
        if why is key:
            if screen is None or any(map(value.lower().__contains__, screen)):
                why = _attr_ad_reason(attr, value, tokens, subs, hosts)
            else:
                why = None
            memo[key] = why
        if why is not None:
            return why
    return None


def _attr_ad_reason(attr: str, value: str, ad_tokens, ad_substrings, ad_hosts) -> str | None:
    """The reason one attribute value marks an ad (the body of :func:`is_ad_marked`'s loop)."""
    low = value.lower()
    if attr in ("src", "href") and host_matches(url_host(low), ad_hosts):
        return f"{attr} on ad host {url_host(low)}"
    # most values hold no ad token: test the set first, look for the first hit only on a match
    words = attr_tokens(value)
    hit = None if ad_tokens.isdisjoint(words) else next(t for t in words if t in ad_tokens)
    if hit is None:
        hit = next((s for s in ad_substrings if s in low), None)
    if hit is not None:
        return f"{attr}={value[:60]!r} has ad token {hit!r}"
    return None


@lru_cache(maxsize=32)
def _phrase_matcher(phrases: tuple[str, ...]) -> tuple:
    """``(screen, rules)``: a pattern that finds any phrase as a plain substring (or None),
    and per phrase, in order, (phrase, whole-word pattern or None for a plain substring)."""
    rules = tuple((p, re.compile(r"(?<!\w)" + re.escape(p) + r"(?!\w)")
                   if p.isalnum() or " " in p or "&" in p else None) for p in phrases)
    screen = re.compile("|".join(map(re.escape, phrases))) if phrases and all(phrases) else None
    return screen, rules


def _has_phrase(text: str, phrases) -> str | None:
    """The first phrase found in ``text``: whole words for word phrases, anywhere for symbols.

    ``phrases`` is a tuple of lower-case phrases or a :func:`_phrase_matcher` result.
    """
    if not phrases:
        return None
    if isinstance(phrases[0], str):
        phrases = _phrase_matcher(tuple(phrases))
    screen, rules = phrases
    # one search finds whether any phrase occurs at all; most texts hold none
    if screen is not None and screen.search(text) is None:
        return None
    for p, pattern in rules:
        # the substring test is necessary for a match and much cheaper than the search
        if p in text and (pattern is None or pattern.search(text)):
            return p
    return None


def _utility_reason(links, search: bool, text: str, phrases, social, share: float,
                    block_tags) -> str | None:
    """Why a short block is a utility block: its own ``<a href>`` elements ``links``, whether
    it holds a search box, its own text."""
    if links:
        n_social = n_legal = 0
        for a in links:
            if host_matches(url_host(a.get("href")), social):
                n_social += 1
            elif _has_phrase(link_words(a, block_tags).lower(), phrases):
                n_legal += 1
        if (n_social + n_legal) / len(links) > share:
            return (f"{n_social} social and {n_legal} legal of {len(links)} links "
                    f"(> {share:.0%})")
    hit = _has_phrase(text.lower(), phrases)
    if hit:
        return f"legal/utility notice ({hit!r})"
    return "search box" if search else None
