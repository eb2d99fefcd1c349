"""Reference extractors: all visible text, nothing, and the gold text itself.

``fulltext`` is the upper bound on recall and the lower bound on precision
(the role html-text plays in the ScrapingHub benchmark); ``empty`` checks the
empty-text rules of every metric; ``gold`` is the ceiling used as a reference
row by the Naive Bayes protocol (Kabir et al. 2015).
"""

from __future__ import annotations

from evalkit.core.method import Extractor
from evalkit.core.page import Extraction, Page
from evalkit.core.visible import visible_text

__all__ = ["Empty", "FullText", "GoldText"]


class FullText(Extractor):
    """All text a browser would show: body text minus script, style, noscript, comments."""

    name = "fulltext"

    def extract(self, page: Page) -> Extraction:
        return Extraction(text=visible_text(page.tree()))


class Empty(Extractor):
    """Returns no text for every page."""

    name = "empty"

    def extract(self, page: Page) -> Extraction:
        return Extraction(text="")


class GoldText(Extractor):
    """Returns the page's gold text (an oracle reference row, not a method)."""

    name = "gold"

    def extract(self, page: Page) -> Extraction:
        return Extraction(text=page.gold.text)
