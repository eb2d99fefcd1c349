"""Inscriptis as a peer: the whole page's HTML rendered as text, no main-content detection.

Inscriptis 2.7.6 (A. Weichselbraun and F. Odoni; PyPI ``inscriptis``, Apache-2.0; GitHub
``weblyzard/inscriptis``) converts HTML to text as a text-mode browser lays it out: block
elements on their own lines, list bullets, tables as aligned columns, a CSS profile for
margins and display. It does **not** look for the main content: navigation, footers and
every other visible block stay in its output, so on a main-content benchmark it is an
all-text reference beside ``html_text`` (its precision says how much of a page is not main
content), not an extractor.

Settings: ``inscriptis.get_text(html)`` with the library's defaults (its ``relaxed`` CSS
profile, no image alt texts, no link targets, two spaces between table cells) on the page's
repaired HTML (:func:`evalkit.core.peer.html_for_library`). The library only converts the
string it is given: nothing is fetched.
"""

from __future__ import annotations

from evalkit.core.peer import Peer, html_for_library

__all__ = ["Inscriptis"]


class Inscriptis(Peer):
    """Inscriptis ``get_text`` of the whole page (module docstring); it takes no parameters."""

    name = "inscriptis"
    package = "inscriptis"
    module = "inscriptis"

    def _run(self, lib, page):
        return lib.get_text(html_for_library(page))
