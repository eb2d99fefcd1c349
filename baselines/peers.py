"""Adapters to the extraction libraries a user would pick instead of evalkit's methods.

Each peer is an :class:`~evalkit.core.method.Extractor` that hands the page's
decoded HTML (``page.html``) to one installed library and returns its text.
The libraries are the optional extra ``peers`` (docs/methods/peers.md); a peer whose
package is missing still constructs, reports itself through
:func:`available`, and raises :class:`PeerUnavailable` from ``extract`` so a
run records it as unavailable instead of crashing.

Settings (each library's own defaults unless stated):

- ``trafilatura``: ``trafilatura.extract`` with default settings (neither
  ``favor_precision`` nor ``favor_recall``), plain text output.
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

The libraries log a warning per page for things that are no failure (boilerpy3 "SAX input
contains nested A elements", goose3 "Publish date ... could not be resolved to UTC": hundreds
in one WCXB run). With logging left unconfigured, Python prints those through its last-resort
handler between evalkit's progress lines and one-line errors, so each library's logger gets a
``NullHandler`` when the library is imported (:meth:`Peer._import`); a user who configures
logging (``logging.basicConfig``) still receives every record.
"""

from __future__ import annotations

import functools
import importlib
import logging
from importlib import metadata
from types import ModuleType

from evalkit.core.markdown_out import html_markdown
from evalkit.core.method import Extractor
from evalkit.core.page import Extraction, Page, parse_html, prepare_html
from evalkit.core.validate import check_bool
from evalkit.core.visible import visible_text

__all__ = [
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

#: how to install every peer (quoted: zsh reads the brackets as a pattern)
INSTALL_HINT = 'pip install "evalkit[peers]"'
#: the jusText peer's ``language`` for the union of all its stop lists
ALL_LANGUAGES = "all"


class PeerUnavailable(RuntimeError):
    """A peer library is not installed (or fails to import); the message says how to get it."""

    def __init__(self, peer: str, package: str, detail: str = ""):
        self.peer = peer
        self.package = package
        why = f" ({detail})" if detail else ""
        super().__init__(
            f"peer method {peer!r} needs the package {package!r}, which is not "
            f"available{why}; install it with `{INSTALL_HINT}`"
        )


def _html_for_library(page: Page) -> str:
    return prepare_html(page.html)


@functools.cache
def _quiet_logger(name: str) -> None:
    """Give logger ``name`` a NullHandler, once per process (module docstring)."""
    logging.getLogger(name).addHandler(logging.NullHandler())


class Peer(Extractor):
    """Common wrapper: import the library lazily, time nothing itself, record versions.

    Subclasses set ``name`` (registry name), ``package`` (the distribution to
    install), ``module`` (what to import) and implement ``_run(lib, page)``.
    """

    package: str = ""
    module: str = ""
    #: the command that installs the library (evalkit.harness.preflight prints it)
    install_hint: str = INSTALL_HINT

    def _import(self) -> ModuleType:
        _quiet_logger(self.module.split(".")[0])  # the library's own logger
        try:
            return importlib.import_module(self.module)
        except ImportError as exc:
            raise PeerUnavailable(
                self.name, self.package, f"import {self.module} failed: {exc}"
            ) from exc

    def runtime_modules(self) -> list[str]:
        return [self.module]  # imported by name in _import

    def versions(self) -> dict[str, str]:
        try:
            return {self.package: metadata.version(self.package)}
        except metadata.PackageNotFoundError:
            return {self.package: "not installed"}

    def extract(self, page: Page) -> Extraction:
        lib = self._import()
        text = self._run(lib, page) or ""
        markdown = self._markdown(lib, page) if getattr(self, "markdown", False) else None
        return Extraction(text=text.strip(), markdown=markdown)

    def _run(self, lib: ModuleType, page: Page) -> str:  # pragma: no cover - interface
        raise NotImplementedError

    def _markdown(self, lib: ModuleType, page: Page) -> str:  # pragma: no cover - interface
        """The same output as Markdown (peers with a ``markdown`` switch)."""
        raise NotImplementedError


class Trafilatura(Peer):
    """trafilatura ``extract`` with its default settings, plain text.

    ``markdown=True`` also asks it for Markdown (``output_format="markdown"``, formatting
    and tables on: its own structure, for the structure metrics); the text is unchanged."""

    name = "trafilatura"
    package = "trafilatura"
    module = "trafilatura"

    def __init__(
        self, include_comments: bool = True, include_tables: bool = True, markdown: bool = False
    ):
        self.include_comments = include_comments
        self.include_tables = include_tables
        self.markdown = markdown
        check_bool("markdown", markdown)

    def _markdown(self, lib, page):
        return (
            lib.extract(
                _html_for_library(page),
                url=page.url,
                include_comments=self.include_comments,
                include_tables=True,
                include_formatting=True,
                favor_precision=False,
                favor_recall=False,
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
            favor_precision=False,
            favor_recall=False,
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
    peer = PEERS[name]()
    try:
        peer._import()
    except PeerUnavailable as exc:
        return False, str(exc)
    return True, ""
