"""The base of the peer methods: one installed extraction library run on the page's HTML.

A peer is an :class:`~evalkit.core.method.Extractor` that hands the page's decoded HTML
(``page.html`` with :func:`~evalkit.core.page.prepare_html`'s repairs: :func:`html_for_library`)
to a library a user would pick instead of evalkit's methods, and returns its text (and, for a
peer with a ``markdown`` switch, its Markdown). The peers of the ``peers`` extra are
baselines/peers.py; a newer peer is a module of its own under baselines/ that subclasses
:class:`Peer` from here (no baseline imports another, docs/floors.md).

What every peer shares, here once:

- **A lazy import.** The library is imported by name on the first page
  (:meth:`Peer._import`), so a peer whose package is missing still constructs, says so
  through :meth:`Peer.available`, and raises :class:`PeerUnavailable` (with the command that
  installs it) from ``extract``, which a run records as that page's failure.
- **Versions.** :meth:`Peer.versions` gives the installed version of the distribution
  (``run.json``'s ``methods.<name>.packages``, and the extraction cache key).
- **Quiet logging.** The libraries log a warning per page for things that are no failure
  (boilerpy3 "SAX input contains nested A elements", goose3 "Publish date ... could not be
  resolved to UTC": hundreds in one WCXB run). With logging left unconfigured, Python prints
  those through its last-resort handler between evalkit's progress lines, so each library's
  logger gets a ``NullHandler`` when the library is imported (:func:`quiet_logger`); a user
  who configures logging (``logging.basicConfig``) still receives every record.
"""

from __future__ import annotations

import functools
import importlib
import logging
from importlib import metadata
from types import ModuleType

from evalkit.core.method import Extractor
from evalkit.core.page import Extraction, Page, prepare_html

__all__ = [
    "INSTALL_HINT",
    "NOT_INSTALLED",
    "PLACEHOLDER_URL",
    "Peer",
    "PeerUnavailable",
    "html_for_library",
    "import_library",
    "installed_version",
    "quiet_logger",
]

#: how to install every peer (quoted: zsh reads the brackets as a pattern)
INSTALL_HINT = 'pip install "evalkit[peers]"'
#: the version recorded for a distribution that is not installed
NOT_INSTALLED = "not installed"
#: the URL given to a library that needs one (newspaper4k's Article) for a page without one;
#: it is never fetched
PLACEHOLDER_URL = "https://example.com/"


class PeerUnavailable(RuntimeError):
    """A peer library is not installed (or fails to import); the message says how to get it."""

    def __init__(self, peer: str, package: str, detail: str = "", hint: str = INSTALL_HINT):
        self.peer = peer
        self.package = package
        why = f" ({detail})" if detail else ""
        super().__init__(
            f"peer method {peer!r} needs the package {package!r}, which is not "
            f"available{why}; install it with `{hint}`"
        )


def html_for_library(page: Page) -> str:
    """The HTML a library gets: the page's decoded HTML with evalkit's input repairs."""
    return prepare_html(page.html)


@functools.cache
def quiet_logger(name: str) -> None:
    """Give logger ``name`` a NullHandler, once per process (module docstring)."""
    logging.getLogger(name).addHandler(logging.NullHandler())


def import_library(module: str) -> ModuleType:
    """Import ``module`` by name, its top-level package's logger quieted first
    (:func:`quiet_logger`); an ImportError is the caller's to turn into its own error."""
    quiet_logger(module.split(".")[0])
    return importlib.import_module(module)


def installed_version(package: str) -> str:
    """The installed version of distribution ``package``, else :data:`NOT_INSTALLED`."""
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return NOT_INSTALLED


class Peer(Extractor):
    """Common wrapper: import the library lazily, time nothing itself, record versions.

    Subclasses set ``name`` (registry name), ``package`` (the distribution to install),
    ``module`` (what to import) and implement ``_run(lib, page)`` (the text), and
    ``_markdown(lib, page)`` when they have a ``markdown`` switch; a library whose one call
    gives both overrides ``extract``.
    """

    package: str = ""
    module: str = ""
    #: the command that installs the library (evalkit.harness.preflight prints it)
    install_hint: str = INSTALL_HINT

    def _import(self) -> ModuleType:
        try:
            return import_library(self.module)
        except ImportError as exc:
            raise PeerUnavailable(
                self.name, self.package, f"import {self.module} failed: {exc}", self.install_hint
            ) from exc

    def available(self) -> tuple[bool, str]:
        """Whether the library imports here, and if not, why (empty reason when it does)."""
        try:
            self._import()
        except PeerUnavailable as exc:
            return False, str(exc)
        return True, ""

    def runtime_modules(self) -> list[str]:
        return [self.module]  # imported by name in _import

    def versions(self) -> dict[str, str]:
        return {self.package: installed_version(self.package)}

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
