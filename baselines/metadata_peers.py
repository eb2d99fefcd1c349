"""Title, authors and date from the peer libraries, as :class:`~evalkit.core.metadata.PageMetadata`.

Each function takes a page's HTML (the caller hands over ``prepare_html(page.html)``, as
baselines.peers does) and its URL, runs one library on it, never the network, and maps its
output to a PageMetadata. A missing library raises :class:`MetadataPeerUnavailable` with the
command that installs it (its own class, whose message names a *metadata* peer; the import,
its quiet logger and the version look-up are :mod:`evalkit.core.peer`'s, as for every peer).

Settings (each library's own defaults unless named here):

- :func:`trafilatura_metadata`: ``trafilatura.metadata.extract_metadata(html, default_url=url)``,
  the function ``bare_extraction(..., with_metadata=True)`` calls on the same parsed tree
  with the same date settings (htmldate with ``original_date=True``, extensive search as
  trafilatura's ``settings.cfg`` has it, :data:`TRAFILATURA_EXTENSIVE_DATE`). Called
  directly, the metadata does not depend on whether the text extraction succeeds.
  trafilatura joins several authors with ``"; "``: split at ``;``
  (:data:`TRAFILATURA_AUTHOR_SEPARATOR`).
- :func:`goose3_metadata`: ``Goose().extract(raw_html=html)`` with image fetching off and no
  URL (as the goose3 peer runs); ``title``, ``authors``, and the day of ``publish_date``
  as the page writes it (:data:`GOOSE3_DATE_RULE`).
- :func:`htmldate_date`: ``htmldate.find_date(html, url=url, original_date=True,
  extensive_search=True)``. ``original_date``: WCXB's field is ``publish_date`` (of the 164
  dev pages whose JSON-LD gives two different dates, the gold is the publication date on 134
  and the modification date on 21). ``extensive_search`` (htmldate's default, and the first mode its own
  evaluation reports, ``tests/comparison.py``): 157 of the 780 WCXB dev pages with a gold
  day declare none in the markup the meta_tags baseline reads; the extensive search also
  looks in the text and the URL (:data:`HTMLDATE_EXTENSIVE`).
  ``max_date`` is the library's default (today).
- :func:`newspaper4k_metadata`: ``newspaper.Article(url, fetch_images=False)``,
  ``download(input_html=html)`` (no request), ``parse()``; ``title``, ``authors``, and the
  day of ``publish_date`` in the time zone the page writes. newspaper4k is in the ``peers``
  extra (0.9.6 installs beside the project's numpy and lxml). Without a URL it gets
  :data:`PLACEHOLDER_URL`.

Every library's logger gets a ``NullHandler`` on import
(:func:`evalkit.core.peer.import_library`), as every peer's does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime
from types import ModuleType
from typing import Any

from evalkit.core.metadata import PageMetadata
from evalkit.core.method import Extractor
from evalkit.core.page import Extraction, Page, prepare_html
from evalkit.core.peer import INSTALL_HINT, PLACEHOLDER_URL, import_library, installed_version

__all__ = [
    "GOOSE3_DATE_RULE",
    "HTMLDATE_EXTENSIVE",
    "HTMLDATE_ORIGINAL",
    "INSTALL_HINT",
    "METADATA_PEERS",
    "PACKAGES",
    "PLACEHOLDER_URL",
    "TRAFILATURA_AUTHOR_SEPARATOR",
    "TRAFILATURA_EXTENSIVE_DATE",
    "Goose3Meta",
    "Htmldate",
    "MetadataPeer",
    "MetadataPeerUnavailable",
    "Newspaper4kMeta",
    "TrafilaturaMeta",
    "goose3_metadata",
    "htmldate_date",
    "htmldate_metadata",
    "newspaper4k_metadata",
    "trafilatura_metadata",
    "versions",
]

#: trafilatura's date search: extensive, as its settings.cfg (EXTENSIVE_DATE_SEARCH = on)
TRAFILATURA_EXTENSIVE_DATE = True
#: how trafilatura joins several authors in its ``author`` string
TRAFILATURA_AUTHOR_SEPARATOR = ";"
#: htmldate: the original (publication) date, not the last modification
HTMLDATE_ORIGINAL = True
#: htmldate: extensive search (dates in the text and URL too), the library's default
HTMLDATE_EXTENSIVE = True
#: goose3's ``publish_date`` is the page's own string: its leading ISO day is the date (as
#: htmldate's comparison reads goose3), else the day of ``publish_datetime_utc`` (goose3's own
#: parse of a string without an ISO day)
GOOSE3_DATE_RULE = "iso_prefix_else_parsed"
#: peer name -> (distribution, module, install command)
PACKAGES = {
    "trafilatura": ("trafilatura", "trafilatura.metadata", INSTALL_HINT),
    "goose3": ("goose3", "goose3", INSTALL_HINT),
    "htmldate": ("htmldate", "htmldate", INSTALL_HINT),
    "newspaper4k": ("newspaper4k", "newspaper", "pip install newspaper4k"),
}
_ISO_DAY = re.compile(r"\s*(\d{4}-\d{2}-\d{2})")


class MetadataPeerUnavailable(RuntimeError):
    """A metadata peer's library is not installed (or fails to import); says how to get it."""

    def __init__(self, peer: str, package: str, detail: str, hint: str):
        self.peer = peer
        self.package = package
        super().__init__(
            f"metadata peer {peer!r} needs the package {package!r}, which is not available "
            f"({detail}); install it with `{hint}`"
        )


def _import(peer: str) -> ModuleType:
    package, module, hint = PACKAGES[peer]
    try:
        return import_library(module)
    except ImportError as exc:
        raise MetadataPeerUnavailable(
            peer, package, f"import {module} failed: {exc}", hint
        ) from exc


def versions(peer: str) -> dict[str, str]:
    """The installed version of the peer's distribution (``"not installed"`` when missing)."""
    package = PACKAGES[peer][0]
    return {package: installed_version(package)}


def _day(value: Any) -> str | None:
    """An ISO day from a library's date: a ``date``/``datetime`` (its own day, no time zone
    change) or a string starting with ``YYYY-MM-DD``; None otherwise or if no calendar day."""
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str):
        m = _ISO_DAY.match(value)
        if m:
            try:
                return date.fromisoformat(m[1]).isoformat()
            except ValueError:
                return None
    return None


def _text(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    value = " ".join(value.split())
    return value or None


def _names(values: Any) -> tuple[str, ...]:
    if isinstance(values, str):
        values = [values]
    return tuple(n for n in (_text(v) for v in values or ()) if n)


def trafilatura_metadata(html: str, url: str | None = None) -> PageMetadata:
    """trafilatura's title, authors and date of the page (module docstring)."""
    lib = _import("trafilatura")
    doc = lib.extract_metadata(html, default_url=url, extensive=TRAFILATURA_EXTENSIVE_DATE)
    author = doc.author or ""
    authors = _names(a for a in author.split(TRAFILATURA_AUTHOR_SEPARATOR))
    return PageMetadata(_text(doc.title), authors, _day(doc.date))


def goose3_metadata(html: str, url: str | None = None) -> PageMetadata:
    """goose3's title, authors and publish date (no URL given to goose3: module docstring)."""
    lib = _import("goose3")
    config = lib.Configuration()
    config.enable_image_fetching = False
    with lib.Goose(config) as goose:
        article = goose.extract(raw_html=html)
    day = _day(article.publish_date) or _day(article.publish_datetime_utc)
    return PageMetadata(_text(article.title), _names(article.authors), day)


def htmldate_date(html: str, url: str | None = None) -> str | None:
    """htmldate's original publication date as an ISO day, or None (module docstring)."""
    lib = _import("htmldate")
    found = lib.find_date(
        html,
        url=url,
        original_date=HTMLDATE_ORIGINAL,
        extensive_search=HTMLDATE_EXTENSIVE,
        outputformat="%Y-%m-%d",
    )
    return _day(found)


def htmldate_metadata(html: str, url: str | None = None) -> PageMetadata:
    """:func:`htmldate_date` as a PageMetadata (htmldate finds no title or author)."""
    return PageMetadata(date=htmldate_date(html, url))


def newspaper4k_metadata(html: str, url: str | None = None) -> PageMetadata:
    """newspaper4k's title, authors and publish date, parsed from ``html`` with no request."""
    lib = _import("newspaper4k")
    article = lib.Article(url or PLACEHOLDER_URL, fetch_images=False)
    article.download(input_html=html)
    article.parse()
    return PageMetadata(_text(article.title), _names(article.authors), _day(article.publish_date))


#: peer name -> function (html, url) -> PageMetadata
METADATA_PEERS: dict[str, Callable[[str, str | None], PageMetadata]] = {
    "trafilatura": trafilatura_metadata,
    "goose3": goose3_metadata,
    "htmldate": htmldate_metadata,
    "newspaper4k": newspaper4k_metadata,
}


class MetadataPeer(Extractor):
    """A metadata-only method: one peer library's title, authors and date of the page, no
    text (``Extraction.metadata``; the structure study's metadata table). ``peer`` is a key of
    :data:`METADATA_PEERS`; subclasses name one."""

    peer: str = ""
    #: the fields the library looks for (htmldate: dates only); the others are not scored
    fields: tuple[str, ...] = ("title", "authors", "date")

    @property
    def package(self) -> str:
        return PACKAGES[self.peer][0]

    @property
    def install_hint(self) -> str:
        return PACKAGES[self.peer][2]

    def runtime_modules(self) -> list[str]:
        return [PACKAGES[self.peer][1]]

    def versions(self) -> dict[str, str]:
        return versions(self.peer)

    def extract(self, page: Page) -> Extraction:
        found = METADATA_PEERS[self.peer](prepare_html(page.html), page.url)
        return Extraction(text="", metadata={**found.to_dict(), "fields": list(self.fields)})


class TrafilaturaMeta(MetadataPeer):
    """trafilatura's metadata (:func:`trafilatura_metadata`)."""

    name = "trafilatura_meta"
    peer = "trafilatura"


class Goose3Meta(MetadataPeer):
    """goose3's title, authors and publish date (:func:`goose3_metadata`)."""

    name = "goose3_meta"
    peer = "goose3"


class Htmldate(MetadataPeer):
    """htmldate's original publication date (:func:`htmldate_date`): dates only."""

    name = "htmldate"
    peer = "htmldate"
    fields = ("date",)


class Newspaper4kMeta(MetadataPeer):
    """newspaper4k's title, authors and publish date (:func:`newspaper4k_metadata`)."""

    name = "newspaper4k_meta"
    peer = "newspaper4k"
