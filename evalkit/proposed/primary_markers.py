"""Stage 1.2, the tag rules' recognisers: what marks an element as an advertisement, a
banner or a search box, and a block as a utility block.

The rules that use them, and the reading of the paper behind each, are in
:mod:`evalkit.proposed.primary_tags`. Here: the tokens of an attribute value,
the ad test of one element (:func:`is_ad_marked`) and its page-wide form that
judges each attribute value once (``_ad_reason`` behind a cheap screen of
needles), IAB sizes read from attributes and styles, the search-box test, and
the legal/utility phrase matcher.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from functools import lru_cache
from itertools import accumulate

from evalkit.core.domains import host_matches, url_host
from evalkit.proposed.blocks import link_words

__all__ = ["attr_tokens", "iab_size", "is_ad_marked"]

_TOKEN = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_PX = re.compile(r"^\s*(\d+)(?:\.0+)?\s*(?:px)?\s*$", re.IGNORECASE)
_STYLE_DIM = re.compile(r"(?<![-\w])(width|height)\s*:\s*(\d+)(?:\.0+)?\s*px", re.IGNORECASE)
_SEARCH_NAMES = frozenset({"q", "s", "search", "query", "searchterm", "keywords"})
# the attributes ad_marker reads, in the order it reads them
_AD_ATTRS = ("id", "class", "src", "href")


def attr_tokens(value: str) -> list[str]:
    """Lower-case alphanumeric tokens of an attribute value, split at camelCase humps too."""
    return [t.lower() for t in _TOKEN.findall(value)]


def is_ad_marked(
    el, ad_tokens: frozenset[str], ad_substrings: Iterable[str], ad_hosts: Iterable[str]
) -> str | None:
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
    return tuple(sorted(n for n in needles if not any(m != n and m in n for m in needles))) or None


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
    return (
        el.tag == "input"
        and (
            (el.get("type") or "").lower() == "search"
            or (el.get("name") or "").lower() in _SEARCH_NAMES
        )
    ) or (el.get("role") or "").lower() == "search"


def _ad_reason(
    values,
    tokens: frozenset[str],
    subs: tuple[str, ...],
    hosts: frozenset[str],
    memo: dict,
    screen=None,
) -> str | None:
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
    rules = tuple(
        (
            p,
            re.compile(r"(?<!\w)" + re.escape(p) + r"(?!\w)")
            if p.isalnum() or " " in p or "&" in p
            else None,
        )
        for p in phrases
    )
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


def _utility_reason(
    links, search: bool, text: str, phrases, social, share: float, block_tags
) -> str | None:
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
            return f"{n_social} social and {n_legal} legal of {len(links)} links (> {share:.0%})"
    hit = _has_phrase(text.lower(), phrases)
    if hit:
        return f"legal/utility notice ({hit!r})"
    return "search box" if search else None
