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

Our reading and departures (each is a key of the ``primary`` settings of
``Proposed``, ``method.proposed.primary.<key>``):

* **background** strips the background attribute/style and keeps the block:
  the paper says the *tags* "can be removed", but dropping a ``<body>`` or a
  content ``<td>`` for its background colour would drop the page, so the
  literal reading is the option ``background_removes_block=True`` (which
  never removes ``<body>``).
* **offsite_image** compares registrable domains (``evalkit.core.domains``: last
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

Each rule is a function of one :class:`TagPass` (the page's tree, its blocks
and what the rules read and did so far), and :data:`TAG_RULES` names them in
the order they run; after them every block left without text goes
(``_remove_emptied``).

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
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import lxml.etree
import lxml.html

from evalkit.core.domains import registrable_domain, url_host
from evalkit.core.page import drop_tree
from evalkit.proposed.blocks import (
    BLOCK_TAGS,
    BlockNode,
    BodyIndex,
    TextCache,
    own_word_count,
    owner_block,
)
from evalkit.proposed.primary_markers import (
    _ad_candidates,
    _ad_reason,
    _needle_hits,
    _phrase_matcher,
    _scan,
    _screen,
    _utility_reason,
    iab_size,
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
    "TagPass",
    "TagSettings",
    "apply_tag_rules",
]

DEFAULT_AD_TOKENS = (
    "ad",
    "ads",
    "adv",
    "advert",
    "adverts",
    "advertisement",
    "advertisements",
    "advertising",
    "adsbygoogle",
    "adsense",
    "adslot",
    "adunit",
    "adbox",
    "adspace",
    "adframe",
    "adblock",
    "adcontainer",
    "adwrapper",
    "banner",
    "banners",
    "sponsor",
    "sponsored",
    "dfp",
    "googlead",
    "googleads",
)
DEFAULT_AD_SUBSTRINGS = ("googlead", "adsbygoogle", "doubleclick")
DEFAULT_AD_HOSTS = (
    "doubleclick.net",
    "googlesyndication.com",
    "googleadservices.com",
    "adnxs.com",
    "taboola.com",
    "outbrain.com",
    "criteo.com",
    "criteo.net",
    "amazon-adsystem.com",
    "adform.net",
    "pubmatic.com",
    "rubiconproject.com",
    "openx.net",
    "advertising.com",
    "media.net",
    "moatads.com",
    "adroll.com",
    "zedo.com",
    "revcontent.com",
    "mgid.com",
    "adsrvr.org",
    "casalemedia.com",
    "smartadserver.com",
    "yieldmo.com",
)
DEFAULT_SOCIAL_HOSTS = (
    "facebook.com",
    "fb.com",
    "twitter.com",
    "x.com",
    "plus.google.com",
    "pinterest.com",
    "linkedin.com",
    "youtube.com",
    "instagram.com",
    "tumblr.com",
    "reddit.com",
    "whatsapp.com",
    "t.me",
    "vk.com",
    "addthis.com",
    "sharethis.com",
)
DEFAULT_LEGAL_PHRASES = (
    "terms of use",
    "terms of service",
    "terms and conditions",
    "terms & conditions",
    "privacy policy",
    "privacy notice",
    "cookie policy",
    "cookies policy",
    "copyright",
    "all rights reserved",
    "©",
    "disclaimer",
    "contact us",
    "about us",
    "sitemap",
    "site map",
)
#: standard IAB ad sizes (width, height), plus the paper's 745x100 head banner
IAB_SIZES = (
    (234, 60),
    (468, 60),
    (120, 240),
    (728, 90),
    (300, 250),
    (160, 600),
    (120, 600),
    (336, 280),
    (300, 600),
    (970, 90),
    (320, 50),
    (125, 125),
    (88, 31),
    (745, 100),
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


def _tag(el) -> str:
    return el.tag.lower() if isinstance(el.tag, str) else ""


def _words(text: str) -> int:
    return len(text.split())


@dataclass(frozen=True)
class TagSettings:
    """The tag rules' parameters (see the module docstring for each)."""

    background_removes_block: bool = False
    ad_tokens: Iterable[str] = DEFAULT_AD_TOKENS
    ad_substrings: Iterable[str] = DEFAULT_AD_SUBSTRINGS
    ad_hosts: Iterable[str] = DEFAULT_AD_HOSTS
    ad_max_share: float = DEFAULT_AD_MAX_SHARE
    social_hosts: Iterable[str] = DEFAULT_SOCIAL_HOSTS
    legal_phrases: Iterable[str] = DEFAULT_LEGAL_PHRASES
    iab_sizes: Iterable[tuple[int, int]] = IAB_SIZES
    utility_link_share: float = DEFAULT_UTILITY_LINK_SHARE
    utility_max_words: int = DEFAULT_UTILITY_MAX_WORDS
    ad_container_chars: int = DEFAULT_AD_CONTAINER_CHARS


class TagPass:
    """One page's run of the tag rules: its tree and blocks, what the rules read of every
    element (taken before any rule runs), what they dropped, and their counts.

    The rules only drop subtrees (and edit style attributes), so "still in the tree" is
    "not in :attr:`gone`"; the index, when given, says which block owns an element.
    """

    def __init__(
        self,
        root: lxml.html.HtmlElement,
        blocks: list[BlockNode],
        settings: TagSettings,
        *,
        page_url: str | None,
        block_tags,
        texts: TextCache,
        index: BodyIndex | None,
    ):
        if index is not None:
            body = index.body  # looking it up again would walk the head
        else:
            body = root.find(".//body")
            body = body if body is not None else root
        if index is not None and body.getroottree().getroot() is not root:
            raise ValueError("index was made for another tree")
        self.root, self.body, self.blocks, self.settings = root, body, blocks, settings
        self.block_tags, self.texts, self.index = block_tags, texts, index
        self.by_el = {b.element: b for b in blocks}
        self.had_text = {b.index: b.words > 0 for b in blocks}
        self.counts = {r: 0 for r in TAG_RULES}
        self.counts["empty"] = 0
        self.counts["ad_container"] = 0
        self.counts["ad_kept_large"] = 0
        self.page_domain = registrable_domain(page_url) if page_url else None
        #: block index -> the ad rule that took an element out of it
        self.lost: dict[int, str] = {}
        self.gone: set = index.gone if index is not None else set()
        #: element -> rendered (width, height) for iab_size (None: read the attributes)
        self.rendered_sizes: dict | None = None
        self._owner_of = index.owner if index is not None else {}
        # Every rule's candidates, taken before any rule runs (the tags and the id/class/src/
        # href, type/name/role values the rules read are never changed by an earlier rule),
        # found by lxml in C by tag name (libxml2's HTML parser gives lower-case names) or in
        # one pass over the body's elements (the index holds their proxies already)
        self.bg_els = list(body.iter(*_BACKGROUND_TAGS))
        self.img_els = list(body.iter("img"))
        self.sized_els = list(body.iter(*_SIZED_TAGS))
        self.plugin_els = list(body.iter(*_PLUGIN_TAGS, "iframe"))
        elements = index.elements if index is not None else list(body.iter(lxml.etree.Element))
        self.ad_rows, self.anchors, self.searches = _scan(elements, body)

    def holder_of(self, el):
        """``owner_block(el)``, from the index when it knows ``el``."""
        owner_of = self._owner_of
        return owner_of[el] if el in owner_of else owner_block(el, self.block_tags)

    def drop(self, el, rule: str, reason: str) -> None:
        """Drop ``el`` with its subtree (keeping its tail): every block inside goes with it,
        and the block whose own text loses it is told (and noted when an ad rule did it)."""
        by_el, texts = self.by_el, self.texts
        for sub in el.iter():
            self.gone.add(sub)
            b = by_el.get(sub)
            if b is not None:
                b.remove("primary", rule, reason)
                texts.invalidate(b)
        parent = el.getparent()
        if parent is not None:
            holder = self.holder_of(parent)
            if holder is not None and holder in by_el and rule in _AD_RULES:
                self.lost.setdefault(by_el[holder].index, rule)
            # the block whose own text loses the element's (the residual when no div/td holds it)
            owner = by_el.get(holder if holder is not None else self.body)
            if owner is not None:
                texts.invalidate(owner)
            drop_tree(el)
        self.counts[rule] += 1


def rule_background(p: TagPass) -> None:
    """Strip background images (or, literally read, drop their elements; never the body)."""
    body, s = p.body, p.settings
    # as before, an element inside one dropped earlier in this loop is still visited
    for el in p.bg_els:
        style = el.get("style") or ""
        if el.get("background") is None and not _BG_STYLE.search(style):
            continue
        if s.background_removes_block and el is not body:
            p.drop(el, "background", f"<{_tag(el)}> has a background image")
            continue
        el.attrib.pop("background", None)
        if style:
            el.set("style", _BG_DECL.sub("", style))
        p.counts["background"] += 1


def rule_offsite_image(p: TagPass) -> None:
    """Drop images served from another registrable domain than the page's (needs its URL)."""
    page_domain = p.page_domain
    if not page_domain:
        return
    for el in [e for e in p.img_els if e not in p.gone]:
        src = el.get("src") or ""
        dom = registrable_domain(url_host(src)) if not src.startswith("data:") else None
        if dom and dom != page_domain:
            p.drop(el, "offsite_image", f"image from {dom}, page on {page_domain}")


def rule_ad_marker(p: TagPass) -> None:
    """Drop elements whose id/class/src/href carries an ad token or points to an ad host,
    unless one holds more than ``ad_max_share`` of the page's words."""
    s, gone, index = p.settings, p.gone, p.index
    tokens = frozenset(t.lower() for t in s.ad_tokens)
    subs = tuple(x.lower() for x in s.ad_substrings)
    hosts = frozenset(s.ad_hosts)
    memo: dict = {}
    screen = _screen(tokens, subs, hosts)
    page_words = None  # counted when first needed (after offsite_image, as before)
    for el, values in _ad_candidates(p.ad_rows, screen):
        if el in gone:
            continue
        why = _ad_reason(values, tokens, subs, hosts, memo, screen)
        if why is None:
            continue
        if page_words is None:
            # dropped images hold no text: the walk's count stands unless the
            # background rule dropped whole elements
            same = index is not None and not (s.background_removes_block and gone)
            page_words = max(index.words if same else own_word_count(p.body, ()), 1)
        if own_word_count(el, ()) > s.ad_max_share * page_words:
            p.counts["ad_kept_large"] += 1
            continue
        p.drop(el, "ad_marker", why)


def rule_iab_size(p: TagPass) -> None:
    """Drop img/iframe/embed/object elements of a standard banner size."""
    sizes = {tuple(int(x) for x in s) for s in p.settings.iab_sizes}
    for el in p.sized_els:
        if el in p.gone:
            continue
        wh = iab_size(el) if p.rendered_sizes is None else p.rendered_sizes.get(el)
        if wh in sizes:
            p.drop(el, "iab_size", f"<{_tag(el)}> of IAB size {wh[0]}x{wh[1]}")


def rule_plugin(p: TagPass) -> None:
    """Drop plug-ins: embed, object, applet, audio, video, and iframes with a source."""
    for el in p.plugin_els:
        tag = _tag(el)
        if (tag in _PLUGIN_TAGS or (tag == "iframe" and el.get("src"))) and el not in p.gone:
            p.drop(el, "plugin", f"plug-in <{tag}>")


def rule_utility_links(p: TagPass) -> None:
    """Remove short blocks of social/legal links, with a legal phrase or a search box."""
    s, gone, body, texts = p.settings, p.gone, p.body, p.texts
    phrases = _phrase_matcher(tuple(x.lower() for x in s.legal_phrases))
    social = frozenset(s.social_hosts)
    # each link and search box still on the page, under the block that owns it (the
    # residual block when no div/td does): what a walk of the block's own elements finds
    links_of: dict = {}
    search_in: set = set()
    for el in p.anchors:
        if el not in gone:
            holder = p.holder_of(el)
            links_of.setdefault(body if holder is None else holder, []).append(el)
    for el in p.searches:
        if el not in gone:
            holder = p.holder_of(el)
            search_in.add(body if holder is None else holder)
    short = [
        (b, text) for b in p.blocks if b.alive and _words(text := texts[b]) <= s.utility_max_words
    ]
    # a block without links or a search box is a utility block only when its text holds
    # a phrase: one search over all the short texts finds the few that may
    phrase_list = tuple(x for x, _ in phrases[1])
    maybe = (
        _needle_hits([t.lower() for _, t in short], phrase_list)
        if phrases[0] is not None and not any("\x00" in x for x in phrase_list)
        else range(len(short))
    )
    for k, (b, text) in enumerate(short):
        links, search = links_of.get(b.element, ()), b.element in search_in
        if not links and not search and k not in maybe:
            continue
        why = _utility_reason(
            links, search, text, phrases, social, s.utility_link_share, p.block_tags
        )
        if why:
            b.remove("primary", "utility_links", why)
            p.counts["utility_links"] += 1


#: the tag-analysis rules, by name, in the order they run
TAG_RULES: dict[str, Callable[[TagPass], None]] = {
    "background": rule_background,
    "offsite_image": rule_offsite_image,
    "ad_marker": rule_ad_marker,
    "iab_size": rule_iab_size,
    "plugin": rule_plugin,
    "utility_links": rule_utility_links,
}


def _remove_emptied(p: TagPass) -> None:
    """After the rules: a block without text goes (``empty``), and so does one an ad rule
    took an element out of that keeps less than ``ad_container_chars`` characters."""
    limit = p.settings.ad_container_chars
    for b in p.blocks:
        if not b.alive:
            continue
        text = p.texts[b]
        if not text:
            b.remove(
                "primary",
                "empty",
                "no text left after tag rules" if p.had_text[b.index] else "no text of its own",
            )
            p.counts["empty"] += 1
        elif b.index in p.lost and len(" ".join(text.split())) < limit:
            b.remove(
                "primary",
                p.lost[b.index],
                f"ad container: only {' '.join(text.split())[:40]!r} left after {p.lost[b.index]}",
            )
            p.counts["ad_container"] += 1


def apply_tag_rules(
    root: lxml.html.HtmlElement,
    blocks: list[BlockNode],
    *,
    page_url: str | None = None,
    rules: Iterable[str] = tuple(TAG_RULES),
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
    rendered_sizes: dict | None = None,
) -> dict[str, int]:
    """Run the tag rules named in ``rules`` in place on ``root`` (in :data:`TAG_RULES` order),
    then remove emptied blocks; mark removed blocks. Returns counts per rule.

    Element-level rules (offsite_image, ad_marker, iab_size, plugin) drop the
    element with its subtree (keeping its tail text); every block inside a
    dropped element is marked removed by that rule. utility_links and empty
    remove whole blocks. ``texts``, when given, holds the blocks' current own
    texts (``blocks.separate_blocks`` fills it); it is read and kept up to date.
    ``index``, when given, is the :class:`BodyIndex` of the same, unchanged
    tree (``blocks.split_body``): its element list and owner map replace walks
    of the tree, and the elements dropped here are added to ``index.gone``.
    ``rendered_sizes``, when given, maps elements to their rendered (width, height): the
    ``iab_size`` rule reads them instead of attributes (an element without a box has none).
    """
    chosen = set(rules)
    unknown = chosen - set(TAG_RULES)
    if unknown:
        raise ValueError(f"unknown tag rule(s) {sorted(unknown)}; known: {list(TAG_RULES)}")
    settings = TagSettings(
        background_removes_block=background_removes_block,
        ad_tokens=ad_tokens,
        ad_substrings=ad_substrings,
        ad_hosts=ad_hosts,
        ad_max_share=ad_max_share,
        social_hosts=social_hosts,
        legal_phrases=legal_phrases,
        iab_sizes=iab_sizes,
        utility_link_share=utility_link_share,
        utility_max_words=utility_max_words,
        ad_container_chars=ad_container_chars,
    )
    p = TagPass(
        root,
        blocks,
        settings,
        page_url=page_url,
        block_tags=block_tags,
        texts=texts if texts is not None else TextCache(block_tags),
        index=index,
    )
    p.rendered_sizes = rendered_sizes
    for name, rule in TAG_RULES.items():
        if name in chosen:
            rule(p)
    _remove_emptied(p)
    return p.counts
