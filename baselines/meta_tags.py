"""Meta tags: a page's title, authors and publication date from what its markup declares.

A metadata-only method (its ``Extraction.text`` is empty; ``Extraction.metadata`` is a
:class:`~evalkit.core.metadata.PageMetadata` as ``to_dict``). It is evalkit's
reconstruction of common practice, not a published method: the tags read are those the
Open Graph protocol (ogp.me: ``og:title``, ``article:author``, ``article:published_time``),
Twitter cards (``twitter:title``), schema.org JSON-LD (``headline``, ``author``,
``datePublished``), HTML (``<title>``, ``<meta name=author>``, ``rel=author``,
``<time datetime>``) and Dublin Core (``dc.date``) define, in an order each field's setting
names. Every rule is a named setting:

* :data:`TITLE_SOURCES`: the first non-empty of ``og:title``, ``twitter:title``, the JSON-LD
  article's ``headline`` and ``<title>``. Then :data:`H1_TITLE`: when the chosen title is the
  page's first ``<h1>`` followed by a separator (``"Otters | Example Media"`` over
  ``<h1>Otters</h1>``), the ``<h1>`` is the title. Else :data:`CUT_SITE_SUFFIX`: a last
  segment after one of :data:`TITLE_SEPARATORS` that is the site's name (``og:site_name``,
  ``application-name``, a JSON-LD ``WebSite``/``Organization`` name) or at most
  :data:`SITE_SUFFIX_MAX_WORDS` words after a head of at least
  :data:`SITE_SUFFIX_MIN_HEAD_WORDS` is cut; a first segment that is the site's name is
  cut too.
* :data:`AUTHOR_SOURCES`: the first source that gives a name: the JSON-LD article's
  ``author`` (``@id`` references resolved in its graph), ``<meta>`` author names
  (:data:`META_AUTHOR_NAMES`), ``article:author`` (URLs skipped), the first
  ``<a rel=author>``, the first ``itemprop=author``. Values are kept as written but for a
  byline lead-in (:data:`BYLINE_PREFIX`); URLs, markup (:data:`NOT_A_NAME`), strings
  without a letter and strings longer than
  :data:`AUTHOR_MAX_CHARS` are no name. Several names in one string stay one string:
  evalkit.metrics.metadata splits prediction and gold by the same rule.
* :data:`DATE_SOURCES`: the first that gives a day: JSON-LD ``datePublished``,
  ``article:published_time`` (:data:`META_PUBLISHED_NAMES`), other date ``<meta>`` names
  (:data:`META_DATE_NAMES`), ``itemprop=datePublished``, the first ``<time datetime>``;
  then, with :data:`MODIFIED_FALLBACK`, the modification date (``dateModified``,
  :data:`META_MODIFIED_NAMES`).
* Dates (:func:`parse_day`): the day as written, never moved to UTC (``2024-03-05T23:30-05:00``
  is 2024-03-05); ISO ``YYYY-MM-DD`` (also ``/`` or ``.``), English month names
  (``Feb 08, 2022``, ``8 February 2022``), numeric ``dd/mm/yyyy`` or ``mm/dd/yyyy`` only when
  the order is unambiguous (:data:`AMBIGUOUS_NUMERIC_DATES`); years before :data:`MIN_YEAR`
  (htmldate's lower bound) are refused.
* JSON-LD (:data:`JSON_LD_ARTICLE_TYPES`): the first item whose type is an article kind
  (``*Article``, ``*Posting``, or in the set) that has the field, else the first item that
  has it; a script that is not valid JSON is skipped.

Departures: no text search (htmldate's extensive mode and trafilatura look for dates and
bylines in the visible text; this method reads markup only), no language-specific bylines.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Iterator
from datetime import date
from typing import Any

from evalkit.core.metadata import PageMetadata
from evalkit.core.method import Extractor
from evalkit.core.page import Extraction, Page, PageError
from evalkit.core.validate import check_bool, check_int, check_str_list

__all__ = [
    "AMBIGUOUS_NUMERIC_DATES",
    "AUTHOR_MAX_CHARS",
    "AUTHOR_SOURCES",
    "BYLINE_PREFIX",
    "CUT_SITE_SUFFIX",
    "DATE_SOURCES",
    "H1_TITLE",
    "JSON_LD_ARTICLE_TYPES",
    "META_AUTHOR_NAMES",
    "META_DATE_NAMES",
    "META_MODIFIED_NAMES",
    "META_PUBLISHED_NAMES",
    "MIN_YEAR",
    "MODIFIED_FALLBACK",
    "NOT_A_NAME",
    "SITE_SUFFIX_MAX_WORDS",
    "SITE_SUFFIX_MIN_HEAD_WORDS",
    "TITLE_SEPARATORS",
    "TITLE_SOURCES",
    "MetaTags",
    "parse_day",
]

#: title sources in the order tried: og:title, twitter:title, JSON-LD headline, <title>
TITLE_SOURCES = ("og_title", "twitter_title", "json_ld", "title")
#: take the first <h1> when the chosen title is that <h1> followed by a separator
H1_TITLE = True
#: cut a site name at the end (or start) of the title (module docstring)
CUT_SITE_SUFFIX = True
#: what separates a title from the site's name
TITLE_SEPARATORS = (" | ", " - ", " – ", " — ", " :: ", " · ", " • ", " » ", " // ")
#: a last segment of at most this many words is taken for a site name ...
SITE_SUFFIX_MAX_WORDS = 4
#: ... when what stays has at least this many words
SITE_SUFFIX_MIN_HEAD_WORDS = 3

#: author sources in the order tried (module docstring)
AUTHOR_SOURCES = ("json_ld", "meta_author", "article_author", "rel_author", "itemprop_author")
#: <meta name=...> holding an author's name (compared lower-cased)
META_AUTHOR_NAMES = ("author", "dc.creator", "dcterms.creator", "parsely-author", "sailthru.author")
#: a byline's lead-in, cut from a name ("By Jane Doe", "Written by Jane Doe", "Author: ...")
BYLINE_PREFIX = re.compile(
    r"^(?:(?:written|posted|words|story)\s+)?by\b\s*:?\s*|^authors?\s*:\s*", re.IGNORECASE
)
#: a longer "name" is taken for a paragraph or markup, not a name
AUTHOR_MAX_CHARS = 120
#: no name either: a URL, markup or CSS (a name also needs a letter); an e-mail address is
#: kept, as WCXB's gold keeps one (page 0323)
NOT_A_NAME = re.compile(r"^(?:https?:)?//|^www\.|[<>{}]", re.IGNORECASE)

#: date sources in the order tried (module docstring)
DATE_SOURCES = ("json_ld", "article_published_time", "meta_date", "itemprop_date", "time_datetime")
#: <meta property/name=...> of Open Graph's article publication time
META_PUBLISHED_NAMES = ("article:published_time", "og:article:published_time", "og:published_time")
#: other <meta name=...> that carry a publication date (Dublin Core, citation, CMS tags)
META_DATE_NAMES = (
    "date",
    "pubdate",
    "publishdate",
    "publish_date",
    "publish-date",
    "published",
    "dc.date",
    "dc.date.issued",
    "dc.date.created",
    "dcterms.created",
    "dcterms.issued",
    "dcterms.date",
    "citation_publication_date",
    "citation_date",
    "sailthru.date",
    "parsely-pub-date",
    "article.published",
)
#: when no publication date is found, take the modification date
MODIFIED_FALLBACK = True
#: <meta> names of the modification date (the fallback)
META_MODIFIED_NAMES = (
    "article:modified_time",
    "og:updated_time",
    "dcterms.modified",
    "last-modified",
)
#: numeric day/month orders are read only when a part above 12 settles them
AMBIGUOUS_NUMERIC_DATES = None
#: no day before this year is taken (htmldate's default lower bound, 1995-01-01)
MIN_YEAR = 1995
#: JSON-LD types whose fields are preferred (besides any type ending in Article or Posting)
JSON_LD_ARTICLE_TYPES = frozenset({"Report", "Review", "Blog", "Recipe", "HowTo", "WebPage"})

_TITLE_CHOICES = ("og_title", "twitter_title", "json_ld", "title", "h1")
_AUTHOR_CHOICES = AUTHOR_SOURCES
_DATE_CHOICES = DATE_SOURCES
_SPACE = re.compile(r"\s+")
_MONTHS = {
    m: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for m in names
}
_ISO = re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_MONTH_FIRST = re.compile(r"\b([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b")
_DAY_FIRST = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\.?\s+([A-Za-z]{3,9})\.?,?\s+(\d{4})\b")
_NUMERIC = re.compile(r"(?<!\d)(\d{1,2})[/.](\d{1,2})[/.](\d{4})(?!\d)")


def _clean(text: Any) -> str:
    return _SPACE.sub(" ", html.unescape(text)).strip() if isinstance(text, str) else ""


def _words(text: str) -> int:
    return len(text.split())


def _key(text: str) -> str:
    return _SPACE.sub(" ", text.replace("’", "'")).strip().casefold()


def _valid_day(year: int, month: int, day: int) -> str | None:
    if year < MIN_YEAR:
        return None
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None


def parse_day(value: Any) -> str | None:
    """The ISO day a date string writes, in its own time zone, or None (module docstring)."""
    text = _clean(value)
    if not text:
        return None
    m = _ISO.search(text)
    if m:
        return _valid_day(int(m[1]), int(m[2]), int(m[3]))
    m = _MONTH_FIRST.search(text)
    if m and m[1].lower() in _MONTHS:
        return _valid_day(int(m[3]), _MONTHS[m[1].lower()], int(m[2]))
    m = _DAY_FIRST.search(text)
    if m and m[2].lower() in _MONTHS:
        return _valid_day(int(m[3]), _MONTHS[m[2].lower()], int(m[1]))
    m = _NUMERIC.search(text)
    if m:
        a, b, year = int(m[1]), int(m[2]), int(m[3])
        if a > 12 >= b:  # day first
            return _valid_day(year, b, a)
        if b > 12 >= a or a == b:  # month first, or the same either way
            return _valid_day(year, a, b)
    return AMBIGUOUS_NUMERIC_DATES


# --- reading the page once ------------------------------------------------------------


def _json_ld(root) -> list[dict]:
    """Every JSON-LD object of the page (lists and ``@graph`` flattened), in order."""
    items: list[dict] = []
    for script in root.iter("script"):
        if (script.get("type") or "").strip().lower() != "application/ld+json":
            continue
        try:
            data = json.loads(script.text or "", strict=False)
        except ValueError:
            continue  # not valid JSON: skipped
        stack = [data]
        while stack:
            node = stack.pop(0)
            if isinstance(node, list):
                stack[:0] = node
            elif isinstance(node, dict):
                items.append(node)
                graph = node.get("@graph")
                if graph is not None:
                    stack[:0] = graph if isinstance(graph, list) else [graph]
    return items


def _types(item: dict) -> set[str]:
    kind = item.get("@type")
    kinds = kind if isinstance(kind, list) else [kind]
    return {k.rsplit("/", 1)[-1] for k in kinds if isinstance(k, str)}


def _is_article(item: dict) -> bool:
    return any(
        t.endswith(("Article", "Posting")) or t in JSON_LD_ARTICLE_TYPES for t in _types(item)
    )


def _ld_field(items: list[dict], field: str) -> Any:
    """The field of the first article item that has it, else of the first item that has it."""
    for want_article in (True, False):
        for item in items:
            if item.get(field) and (_is_article(item) or not want_article):
                return item[field]
    return None


def _metas(root) -> dict[str, list[str]]:
    """``<meta>`` contents by lower-cased name, property and itemprop, in page order."""
    found: dict[str, list[str]] = {}
    for meta in root.iter("meta"):
        content = _clean(meta.get("content"))
        if not content:
            continue
        for attr in ("name", "property", "itemprop"):
            key = (meta.get(attr) or "").strip().lower()
            if key:
                found.setdefault(key, []).append(content)
    return found


def _text(el) -> str:
    return _clean(el.text_content()) if el is not None else ""


class _Doc:
    """What the rules read from one page, parsed once."""

    def __init__(self, root):
        self.root = root
        self.ld = _json_ld(root)
        self.metas = _metas(root)
        self.ids = {i["@id"]: i for i in self.ld if isinstance(i.get("@id"), str) and len(i) > 1}

    def meta(self, *names: str) -> Iterator[str]:
        for name in names:
            yield from self.metas.get(name, ())

    def first_h1(self) -> str:
        for h1 in self.root.iter("h1"):
            text = _text(h1)
            if text:
                return text
        return ""

    def site_names(self) -> set[str]:
        names = set(self.meta("og:site_name", "application-name", "twitter:site"))
        for item in self.ld:
            if _types(item) & {"WebSite", "Organization", "NewsMediaOrganization"}:
                names.add(_clean(item.get("name")))
        publisher = _ld_field(self.ld, "publisher")
        if isinstance(publisher, dict):
            names.add(_clean(publisher.get("name")))
        return {_key(n.lstrip("@")) for n in names if n}

    def ld_names(self, value: Any) -> list[str]:
        """Names of a JSON-LD ``author`` value: strings, objects, ``@id`` references."""
        out: list[str] = []
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, dict):
                if not v.get("name") and isinstance(v.get("@id"), str):
                    v = self.ids.get(v["@id"], v)
                v = v.get("name")
                if isinstance(v, list):
                    v = v[0] if v else None
            out.append(_clean(v))
        return [n for n in out if n]


# --- the three fields -------------------------------------------------------------------


def _first(values: Iterable[str]) -> str:
    return next((v for v in values if v), "")


def _title_from(doc: _Doc, source: str) -> str:
    if source == "og_title":
        return _first(doc.meta("og:title"))
    if source == "twitter_title":
        return _first(doc.meta("twitter:title"))
    if source == "json_ld":
        return _clean(_ld_field(doc.ld, "headline"))
    if source == "title":
        return _first(_text(t) for t in doc.root.iter("title"))
    return doc.first_h1()  # "h1"


def _split_title(title: str) -> tuple[str, str, str, str] | None:
    """(head, last segment, first segment, rest) at the title's last and first separators."""
    last = max((title.rfind(s), s) for s in TITLE_SEPARATORS)
    if last[0] <= 0:
        return None
    first = min((i, s) for s in TITLE_SEPARATORS if (i := title.find(s)) > 0)
    return (
        title[: last[0]].strip(),
        title[last[0] + len(last[1]) :].strip(),
        title[: first[0]].strip(),
        title[first[0] + len(first[1]) :].strip(),
    )


def _tidy_title(
    doc: _Doc, title: str, h1_title: bool, cut_suffix: bool, max_words: int = SITE_SUFFIX_MAX_WORDS
) -> str:
    if h1_title:
        h1 = doc.first_h1()
        key, h1_key = _key(title), _key(h1)
        if h1_key and key.startswith(h1_key):
            rest = key[len(h1_key) :]  # compared in the same folded, collapsed form
            if any(rest.startswith(s) for s in TITLE_SEPARATORS):
                return h1
    parts = _split_title(title) if cut_suffix else None
    if parts is None:
        return title
    head, tail, first, rest = parts
    sites = doc.site_names()
    if _key(tail) in sites:
        return head
    if _key(first) in sites:
        return rest
    if _words(tail) <= max_words and _words(head) >= SITE_SUFFIX_MIN_HEAD_WORDS:
        return head
    return title


def _author_name(text: str) -> str:
    """A name without its byline lead-in; "" for no name (:data:`NOT_A_NAME`, too long)."""
    text = BYLINE_PREFIX.sub("", _clean(text)).strip(" ,;:|")
    if len(text) > AUTHOR_MAX_CHARS or NOT_A_NAME.search(text) or not re.search(r"[^\W\d_]", text):
        return ""
    return text


def _authors_from(doc: _Doc, source: str) -> list[str]:
    if source == "json_ld":
        raw = doc.ld_names(_ld_field(doc.ld, "author"))
    elif source == "meta_author":
        raw = list(doc.meta(*META_AUTHOR_NAMES))[:1]
    elif source == "article_author":
        raw = [v for v in doc.meta("article:author") if not NOT_A_NAME.search(v)][:1]
    elif source == "rel_author":
        links = (a for a in doc.root.iter("a", "link") if "author" in (a.get("rel") or "").split())
        raw = [_first(_text(a) for a in links)]
    else:  # "itemprop_author"
        raw = []
        for el in doc.root.xpath('//*[contains(concat(" ", @itemprop, " "), " author ")]'):
            named = el.xpath('.//*[@itemprop="name"]')
            raw = [_clean(named[0].get("content")) or _text(named[0])] if named else [_text(el)]
            break
    names: list[str] = []
    for value in raw:
        name = _author_name(value)
        if name and name not in names:
            names.append(name)
    return names


def _date_from(doc: _Doc, source: str) -> str | None:
    if source == "json_ld":
        return parse_day(_ld_field(doc.ld, "datePublished"))
    if source == "article_published_time":
        values: Iterable[str] = doc.meta(*META_PUBLISHED_NAMES)
    elif source == "meta_date":
        values = doc.meta(*META_DATE_NAMES)
    elif source == "itemprop_date":
        values = (
            el.get("content") or el.get("datetime") or _text(el)
            for el in doc.root.xpath('//*[@itemprop="datePublished"]')
        )
    else:  # "time_datetime"
        values = (t.get("datetime") for t in doc.root.iter("time"))
    return next((d for d in map(parse_day, values) if d), None)


def _modified(doc: _Doc) -> str | None:
    day = parse_day(_ld_field(doc.ld, "dateModified"))
    return day or next((d for d in map(parse_day, doc.meta(*META_MODIFIED_NAMES)) if d), None)


class MetaTags(Extractor):
    """Title, authors and date from a page's declared metadata (module docstring).

    Parameters
    ----------
    title_sources, author_sources, date_sources : the sources tried in order, a subset of
        :data:`TITLE_SOURCES` (plus ``h1``), :data:`AUTHOR_SOURCES`, :data:`DATE_SOURCES`.
    h1_title, cut_site_suffix, modified_fallback : the switches :data:`H1_TITLE`,
        :data:`CUT_SITE_SUFFIX`, :data:`MODIFIED_FALLBACK`.
    site_suffix_max_words : :data:`SITE_SUFFIX_MAX_WORDS` (0: cut only a named site).
    """

    name = "meta_tags"

    def __init__(
        self,
        title_sources=TITLE_SOURCES,
        h1_title: bool = H1_TITLE,
        cut_site_suffix: bool = CUT_SITE_SUFFIX,
        site_suffix_max_words: int = SITE_SUFFIX_MAX_WORDS,
        author_sources=AUTHOR_SOURCES,
        date_sources=DATE_SOURCES,
        modified_fallback: bool = MODIFIED_FALLBACK,
    ):
        self.title_sources = title_sources
        self.h1_title = h1_title
        self.cut_site_suffix = cut_site_suffix
        self.site_suffix_max_words = site_suffix_max_words
        self.author_sources = author_sources
        self.date_sources = date_sources
        self.modified_fallback = modified_fallback
        self._validate()

    def _validate(self) -> None:
        check_str_list("title_sources", self.title_sources, _TITLE_CHOICES, allow_empty=True)
        check_str_list("author_sources", self.author_sources, _AUTHOR_CHOICES, allow_empty=True)
        check_str_list("date_sources", self.date_sources, _DATE_CHOICES, allow_empty=True)
        check_bool("h1_title", self.h1_title)
        check_bool("cut_site_suffix", self.cut_site_suffix)
        check_int("site_suffix_max_words", self.site_suffix_max_words, low=0)
        check_bool("modified_fallback", self.modified_fallback)

    def extract(self, page: Page) -> Extraction:
        try:
            root = page.tree()
        except PageError as exc:  # an empty document declares nothing
            return Extraction(
                text="", metadata=PageMetadata().to_dict(), info={"skipped": exc.reason}
            )
        doc = _Doc(root)
        info: dict[str, Any] = {}
        title = ""
        for source in self.title_sources:
            title = _title_from(doc, source)
            if title:
                info["title_source"] = source
                title = self._tidy(doc, title)
                break
        authors: list[str] = []
        for source in self.author_sources:
            authors = _authors_from(doc, source)
            if authors:
                info["author_source"] = source
                break
        day = None
        for source in self.date_sources:
            day = _date_from(doc, source)
            if day:
                info["date_source"] = source
                break
        if day is None and self.modified_fallback:
            day = _modified(doc)
            if day:
                info["date_source"] = "modified"
        meta = PageMetadata(title or None, tuple(authors), day)
        return Extraction(text="", metadata=meta.to_dict(), info=info)

    def _tidy(self, doc: _Doc, title: str) -> str:
        return _tidy_title(
            doc, title, self.h1_title, self.cut_site_suffix, self.site_suffix_max_words
        )
