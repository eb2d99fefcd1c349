"""Hosts and registrable domains: which site a URL belongs to.

One reading for every method that asks whether a link or an image is on the
page's own site (the proposed method's ``offsite_image`` rule and its site
scope, PAB's outer links, the dedup experiment's site groups), so that two
methods never disagree on what "the same site" is.

A *page's* site (:func:`site_of`, which groups pages into the runner's tasks,
the proposed method's site memory and the dedup experiment's site scope) is
the reader's ``site`` field where the reader sets one, else the host of the
page's URL, else none (docs/sites.md).

The registrable domain is a heuristic without the public-suffix list (no
network, no data file): the last two labels of the host, or three under a
two-level public suffix, which is either one of :data:`TWO_LEVEL_SUFFIXES` or a
two-letter country code under a generic second level (``co``, ``com``,
``org``, ``ac``, ...: :data:`GENERIC_SLDS`). An IPv4 or IPv6 literal is its
own domain.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from urllib.parse import urlsplit

__all__ = [
    "GENERIC_SLDS",
    "TWO_LEVEL_SUFFIXES",
    "host_matches",
    "host_of",
    "registrable_domain",
    "site_key",
    "site_of",
    "url_host",
    "url_site",
]

#: two-label public suffixes under which a registrable domain has three labels
TWO_LEVEL_SUFFIXES = frozenset(
    {
        "co.uk",
        "org.uk",
        "ac.uk",
        "gov.uk",
        "me.uk",
        "ltd.uk",
        "plc.uk",
        "net.uk",
        "com.au",
        "net.au",
        "org.au",
        "edu.au",
        "gov.au",
        "co.nz",
        "org.nz",
        "net.nz",
        "co.jp",
        "ne.jp",
        "or.jp",
        "ac.jp",
        "co.in",
        "org.in",
        "net.in",
        "gov.in",
        "ac.in",
        "com.br",
        "com.cn",
        "net.cn",
        "org.cn",
        "com.hk",
        "com.sg",
        "com.my",
        "com.tw",
        "co.za",
        "com.mx",
        "com.ar",
        "com.tr",
        "co.kr",
        "or.kr",
        "co.il",
        "com.pk",
        "com.ng",
        "co.id",
        "com.ph",
        "com.vn",
        "com.ua",
        "com.pl",
        "com.es",
        "co.th",
    }
)
#: second-level labels under which sites register in a two-letter country domain
GENERIC_SLDS = frozenset(
    {
        "co",
        "com",
        "net",
        "org",
        "ac",
        "gov",
        "edu",
        "or",
        "ne",
        "go",
        "gv",
        "mil",
        "nic",
        "ltd",
        "plc",
        "sch",
        "nhs",
        "gob",
        "nom",
        "info",
    }
)

_IP = re.compile(r"^[\d.]+$|:")
# urlsplit's scheme (a letter, then letters, digits, + - .) and the netloc that follows "//"
_NETLOC = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.\-]*:)?//([^/?#]*)")


@lru_cache(maxsize=65_536)  # pages repeat their links and sources
def url_host(url: str | None) -> str | None:
    """Lower-case host of an absolute or protocol-relative URL; None for relative ones."""
    if not url:
        return None
    url = url.strip()
    if url.startswith("//"):
        url = "http:" + url
    if url.isascii() and url.isprintable() and "[" not in url and "]" not in url:
        # the common case read directly, as urlsplit reads it: an optional scheme, then the
        # netloc after "//" up to / ? or #, less user info and port (urlsplit costs ~10x)
        m = _NETLOC.match(url)
        if m is None:
            return None
        host = m.group(1).rpartition("@")[2].partition(":")[0]
        if "%" not in host:  # an IPv6 zone would keep its case: left to urlsplit
            return host.lower().rstrip(".") if host else None
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return None
    return host.lower().rstrip(".") if host else None


@lru_cache(maxsize=65_536)  # pages repeat their hosts; PAB asks once per link
def registrable_domain(url_or_host: str | None) -> str | None:
    """The registrable domain of a URL or host (``news.bbc.co.uk`` -> ``bbc.co.uk``)."""
    if not url_or_host:
        return None
    host = url_host(url_or_host) if "/" in url_or_host else url_or_host.lower().strip(".")
    if not host:
        return None
    if _IP.search(host):  # IPv4/IPv6 literal: the address is the domain
        return host
    labels = host.split(".")
    if len(labels) <= 2:
        return host
    two_level = ".".join(labels[-2:]) in TWO_LEVEL_SUFFIXES or (
        len(labels[-1]) == 2 and labels[-2] in GENERIC_SLDS
    )
    return ".".join(labels[-3:] if two_level else labels[-2:])


def host_matches(host: str | None, hosts: Iterable[str]) -> bool:
    """True when ``host`` is one of ``hosts`` or a subdomain of one."""
    if not host:
        return False
    if isinstance(hosts, frozenset):
        return _host_in(host, hosts)
    return any(host == h or host.endswith("." + h) for h in hosts)


def _host_in(host: str, hosts: frozenset[str]) -> bool:
    """:func:`host_matches` for a set: ``host`` or one of its suffixes after a dot is in it."""
    if host in hosts:
        return True
    i = host.find(".")
    while i >= 0:
        if host[i + 1 :] in hosts:
            return True
        i = host.find(".", i + 1)
    return False


def site_key(site: str | None, url: str | None) -> str | None:
    """The site of a page with reader site ``site`` and URL ``url``: ``site`` where set, else
    the URL's host, else None.

    Takes the two fields rather than a page so that a reader can order its file list by
    site from metadata (a URL list, a file name) before it reads any page bytes.
    """
    return site or url_host(url)


def site_of(page) -> str | None:
    """The site of a :class:`evalkit.core.page.Page` (:func:`site_key` of its ``site`` and ``url``)."""
    return site_key(page.site, page.url)


# the site field readers give a page from its URL (aeb, l3s, pairs: shared here, so no
# reader imports another; docs/floors.md)
def host_of(url: str | None) -> str | None:
    """Host name of a URL, lower-cased, without a leading ``www.``; None when absent."""
    if not url:
        return None
    host = (urlsplit(url.strip()).hostname or "").lower()
    host = host.removeprefix("www.")
    return host or None


def url_site(url: str | None) -> str | None:
    """The site a page with this URL gets (its ``site`` field is :func:`host_of` the URL)."""
    return site_key(host_of(url), url)
