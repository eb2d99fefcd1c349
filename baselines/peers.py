"""Adapters to the extraction libraries a user would pick instead of evalkit's methods.

Each peer is an :class:`~evalkit.core.method.Extractor` that hands the page's
decoded HTML (``page.html``) to one installed library and returns its text.
The libraries are the optional extra ``peers`` (docs/methods/peers.md); a peer whose
package is missing still constructs, reports itself through
:func:`available`, and raises :class:`PeerUnavailable` from ``extract`` so a
run records it as unavailable instead of crashing.

Settings (each library's own defaults unless stated):

- ``trafilatura``: ``trafilatura.extract`` with default settings (neither
  ``favor_precision`` nor ``favor_recall``, nor ``fast``), plain text output; each of the three
  is a setting (trafilatura's named modes: configs ``trafilatura_precision``,
  ``trafilatura_recall``, ``trafilatura_fast``).
- ``justext``: the jusText package with its English stop list and default
  thresholds; good paragraphs joined by newlines.
- ``readability_lxml``: ``readability.Document(html).summary()``, reduced to
  its visible text with evalkit's :func:`~evalkit.core.visible.visible_text`.
- ``resiliparse``: ``extract_plain_text(tree, main_content=True)``.
- ``boilerpy3``: ``extractors.ArticleExtractor``.
- ``goose3``: ``Goose().extract(raw_html=...)`` with image fetching off and
  no URL, so nothing is fetched over the network.
- ``html_text``: ``html_text.extract_text``, the all-text reference (the
  role it has in the ScrapingHub benchmark).

The base class, its error and its helpers (lazy import, versions, quiet library loggers) are
:mod:`evalkit.core.peer`, which newer peers in modules of their own subclass too; the names
this module had before (``Peer``, ``PeerUnavailable``, ``INSTALL_HINT``) are re-exported here.
"""

from __future__ import annotations

import inspect

from evalkit.core.markdown_out import html_markdown
from evalkit.core.page import Extraction, Page, parse_html
from evalkit.core.peer import INSTALL_HINT, Peer, PeerUnavailable, quiet_logger
from evalkit.core.peer import html_for_library as _html_for_library
from evalkit.core.validate import ParamError, check_bool
from evalkit.core.visible import visible_text

__all__ = [
    "INSTALL_HINT",
    "PEERS",
    "Boilerpy3",
    "Goose3",
    "HtmlText",
    "Justext",
    "Peer",
    "PeerUnavailable",
    "ReadabilityLxml",
    "Resiliparse",
    "Trafilatura",
    "available",
]

#: the jusText peer's ``language`` for the union of all its stop lists
ALL_LANGUAGES = "all"
#: the name baselines.peers had for :func:`evalkit.core.peer.quiet_logger`
_quiet_logger = quiet_logger


class Trafilatura(Peer):
    """trafilatura ``extract``, plain text; its default settings unless a mode is named.

    The modes are trafilatura's own switches, each off by default (today's call unchanged):
    ``favor_precision`` (less text, less noise), ``favor_recall`` (more text), not both;
    ``fast`` (trafilatura 2's ``fast=True``: its faster heuristics and its own extractor
    only, without the comparison with its readability and jusText fallbacks;
    ``no_fallback=True`` in trafilatura 1.x, whose ``extract`` has no ``fast``).
    ``markdown=True`` also asks it for Markdown (``output_format="markdown"``, formatting and
    tables on: its own structure, for the structure metrics) in the same mode; the text is
    unchanged."""

    name = "trafilatura"
    package = "trafilatura"
    module = "trafilatura"

    def __init__(
        self,
        include_comments: bool = True,
        include_tables: bool = True,
        markdown: bool = False,
        favor_precision: bool = False,
        favor_recall: bool = False,
        fast: bool = False,
    ):
        self.include_comments = include_comments
        self.include_tables = include_tables
        self.markdown = markdown
        self.favor_precision = favor_precision
        self.favor_recall = favor_recall
        self.fast = fast
        self.validate()

    def _validate(self) -> None:
        for key in ("markdown", "favor_precision", "favor_recall", "fast"):
            check_bool(key, getattr(self, key))
        if self.favor_precision and self.favor_recall:
            raise ParamError(
                ("favor_precision", "favor_recall"),
                (True, True),
                "trafilatura favours precision or recall, not both: set one of them",
            )

    def _mode(self, lib) -> dict[str, bool]:
        """The mode's keyword arguments; ``fast`` only when set, so the default call is the
        call of every earlier evalkit release (and runs on trafilatura 1.x)."""
        mode = {"favor_precision": self.favor_precision, "favor_recall": self.favor_recall}
        if self.fast:
            known = inspect.signature(lib.extract).parameters
            mode["fast" if "fast" in known else "no_fallback"] = True
        return mode

    def _markdown(self, lib, page):
        return (
            lib.extract(
                _html_for_library(page),
                url=page.url,
                include_comments=self.include_comments,
                include_tables=True,
                include_formatting=True,
                **self._mode(lib),
                output_format="markdown",
            )
            or ""
        )

    def _run(self, lib, page):
        return lib.extract(
            _html_for_library(page),
            url=page.url,
            include_comments=self.include_comments,
            include_tables=self.include_tables,
            **self._mode(lib),
            output_format="txt",
        )


class Justext(Peer):
    """The jusText package: paragraphs not classified as boilerplate, one per line.

    ``language`` names one of the package's stop lists (``justext.get_stoplists()``), or is
    :data:`ALL_LANGUAGES`: the union of every list, as trafilatura's evaluation runs it
    (its ``evaluate.py``, ``jt_stoplist_init``) on a set of pages in many languages."""

    name = "justext"
    package = "justext"
    module = "justext"

    def __init__(
        self,
        language: str = "English",
        length_low: int = 70,
        length_high: int = 200,
        stopwords_low: float = 0.30,
        stopwords_high: float = 0.32,
        max_link_density: float = 0.2,
        max_heading_distance: int = 200,
        no_headings: bool = False,
    ):
        self.language = language
        self.length_low = length_low
        self.length_high = length_high
        self.stopwords_low = stopwords_low
        self.stopwords_high = stopwords_high
        self.max_link_density = max_link_density
        self.max_heading_distance = max_heading_distance
        self.no_headings = no_headings
        self._union: frozenset[str] | None = None

    def _stoplist(self, lib) -> frozenset[str]:
        if self.language != ALL_LANGUAGES:
            return lib.get_stoplist(self.language)
        if self._union is None:  # about 12,000 words from 100 lists: read once per object
            self._union = frozenset().union(
                *(lib.get_stoplist(name) for name in sorted(lib.get_stoplists()))
            )
        return self._union

    def _run(self, lib, page):
        paragraphs = lib.justext(
            _html_for_library(page),
            self._stoplist(lib),
            length_low=self.length_low,
            length_high=self.length_high,
            stopwords_low=self.stopwords_low,
            stopwords_high=self.stopwords_high,
            max_link_density=self.max_link_density,
            max_heading_distance=self.max_heading_distance,
            no_headings=self.no_headings,
        )
        return "\n".join(p.text for p in paragraphs if not p.is_boilerplate)


class ReadabilityLxml(Peer):
    """readability-lxml ``Document.summary()``, reduced to visible text.

    ``markdown=True`` also converts the summary to Markdown with the converter of the own
    methods (evalkit.core.markdown_out: markdownify), the readability pipeline of the
    structure study; the text is unchanged."""

    name = "readability_lxml"
    package = "readability-lxml"
    module = "readability"

    def __init__(self, markdown: bool = False):
        self.markdown = markdown
        check_bool("markdown", markdown)

    def extract(self, page: Page) -> Extraction:
        lib = self._import()
        summary = lib.Document(_html_for_library(page), url=page.url).summary()  # one run
        if not summary.strip():
            return Extraction(text="", markdown="" if self.markdown else None)
        text = visible_text(parse_html(summary, source=f"readability summary of {page.id}"))
        markdown = html_markdown(summary) if self.markdown else None
        return Extraction(text=text.strip(), markdown=markdown)


class Resiliparse(Peer):
    """Resiliparse ``extract_plain_text`` in main-content mode."""

    name = "resiliparse"
    package = "resiliparse"
    module = "resiliparse.extract.html2text"

    def _run(self, lib, page):
        from resiliparse.parse.html import HTMLTree

        return lib.extract_plain_text(HTMLTree.parse(page.html), main_content=True)


class Boilerpy3(Peer):
    """boilerpy3 (a port of Kohlschütter's boilerpipe) ``ArticleExtractor``."""

    name = "boilerpy3"
    package = "boilerpy3"
    module = "boilerpy3.extractors"

    def _run(self, lib, page):
        # raise_on_failure=False: the library returns what it has instead of raising on odd pages
        return lib.ArticleExtractor(raise_on_failure=False).get_content(_html_for_library(page))


class Goose3(Peer):
    """goose3 on the page's own HTML; no URL and no image fetching, so no network."""

    name = "goose3"
    package = "goose3"
    module = "goose3"

    def _run(self, lib, page):
        config = lib.Configuration()
        config.enable_image_fetching = False
        with lib.Goose(config) as goose:
            return goose.extract(raw_html=_html_for_library(page)).cleaned_text


class HtmlText(Peer):
    """html-text ``extract_text``: all visible text, the all-text reference."""

    name = "html_text"
    package = "html-text"
    module = "html_text"

    def _run(self, lib, page):
        return lib.extract_text(_html_for_library(page))


#: registry name -> peer class (mirrors evalkit.harness.registry.METHODS)
PEERS: dict[str, type[Peer]] = {
    cls.name: cls
    for cls in (Trafilatura, Justext, ReadabilityLxml, Resiliparse, Boilerpy3, Goose3, HtmlText)
}


def available(name: str) -> tuple[bool, str]:
    """Whether the peer ``name`` can run here, and if not, why (empty reason when it can)."""
    if name not in PEERS:
        raise ValueError(f"unknown peer {name!r}; known peers: {', '.join(PEERS)}")
    return PEERS[name]().available()
