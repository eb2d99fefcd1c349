"""newspaper4k as a peer: the article text of the page's own HTML, never a request.

newspaper4k 0.9.6 (A. Paraschiv's maintained fork of L. Ou's newspaper3k; PyPI
``newspaper4k``, MIT; GitHub ``AndyTheFactory/newspaper4k``): it cleans the page, scores
the parents of text nodes by stop words and link density, takes the best-scoring node as the
article's body and returns its paragraphs as text (``Article.text``; the title is also a field
of its own, ``Article.title``).

Settings (the library's defaults unless named):

- ``newspaper.Article(url, fetch_images=False)``: no image is downloaded to find the top image.
- ``download(input_html=html)``: the page's repaired HTML
  (:func:`evalkit.core.peer.html_for_library`) is handed over, so the library makes no request;
  its ``follow_meta_refresh`` stays off (its default) and no ``read_more_link`` is given, the
  two ways ``download`` could still fetch a page.
- ``parse()``, then ``.text``.
- ``api="fulltext"`` instead calls ``newspaper.fulltext(html, language)``: the call
  trafilatura's evaluation makes (its ``run_newspaper``; ``tests/comparison.py``), so
  ``study=trafilatura_eval`` compares like with like. It cleans and scores the page as
  ``Article`` does, without the title or the URL.
- The URL is the page's; a page without one gets :data:`~evalkit.core.peer.PLACEHOLDER_URL`
  (``Article`` needs a URL), which is never fetched.

The same calls give the metadata of the ``newspaper4k_meta`` method
(baselines/metadata_peers.py).
"""

from __future__ import annotations

from evalkit.core.peer import PLACEHOLDER_URL, Peer, html_for_library
from evalkit.core.validate import ParamError, check_choice

__all__ = ["APIS", "Newspaper4k"]

#: how the library is called (module docstring)
APIS = ("article", "fulltext")


class Newspaper4k(Peer):
    """newspaper4k's article text (module docstring): ``api`` ``article`` (``Article.parse``,
    the default) or ``fulltext`` (``newspaper.fulltext`` with ``language``)."""

    name = "newspaper4k"
    package = "newspaper4k"
    module = "newspaper"

    def __init__(self, api: str = "article", language: str = "en"):
        self.api = api
        self.language = language
        self.validate()

    def _validate(self) -> None:
        check_choice("api", self.api, APIS)
        if not isinstance(self.language, str) or not self.language:
            raise ParamError("language", self.language, "must be a language code such as 'en'")

    def _run(self, lib, page):
        if self.api == "fulltext":
            return lib.fulltext(html_for_library(page), language=self.language)
        article = lib.Article(page.url or PLACEHOLDER_URL, fetch_images=False)
        article.download(input_html=html_for_library(page))
        article.parse()
        return article.text
