"""ChromeRAG as a peer: a learned block filter that writes the main content as Markdown.

ChromeRAG 0.1.4 (B. C. Peddapudi; PyPI ``chromerag``, MIT; GitHub
``pedapudibhargav/ChromeRAG``): the page is cleaned by rules (consent banners, share bars,
tables of contents, comment sections, ...), cut into blocks (paragraphs, headings, list
items, tables, text-only divs), each block scored by gradient-boosted trees over about 530
features whose weights ship in the wheel (``chromerag/assets/lbc_stage1.npz``, evaluated with
NumPy only), and the blocks kept are written as Markdown. Its model was trained on WCXB's
development split, the pages of evalkit's ``wcxb_dev``: :attr:`ChromeRAG.trained_on` says so,
and a study marks its rows on that set.

Settings:

- ``priority``: the library's one knob, ``ContentPriority`` (``"balanced"``, its default: a
  block is kept from a score of 0.5; ``"precision"``: 0.7 and stricter rules; ``"coverage"``:
  0.3), as ``PipelineConfig.from_priority(priority)``.
- The schema.org YAML front-matter (title, URL, dates, breadcrumb) is off
  (``enable_schema=False``, :data:`FRONT_MATTER`): it is metadata the page states, not its
  main content, and ChromeRAG's own WCXB scores are computed without it.
- Everything else is the library's default; the page's URL is passed when it has one (the
  library guesses a page type, docs, pricing, ..., from the URL and the first 2,000
  characters, and moves its thresholds for it).
- The text is the text of its Markdown's elements (:func:`evalkit.core.elements.markdown_text`,
  as a stored Markdown output is read: one line per element, table cells joined by spaces);
  ``markdown=True`` also returns the Markdown itself, for the structure metrics.

Network: none. The package imports only BeautifulSoup, lxml, PyYAML and NumPy on the
extraction path (``urllib.parse`` for URL parsing alone); the model and the rule files are
read from the installed package (``np.load`` without pickles, ``yaml.safe_load``); no module
of the installed package imports a socket, an HTTP client (its ``fetch`` extra, httpx, is
imported nowhere) or subprocess.
"""

from __future__ import annotations

from typing import ClassVar

from evalkit.core.elements import markdown_text
from evalkit.core.page import Extraction, Page
from evalkit.core.peer import Peer, html_for_library
from evalkit.core.validate import check_bool, check_choice

__all__ = ["FRONT_MATTER", "PRIORITIES", "ChromeRAG"]

#: the library's ``ContentPriority`` values
PRIORITIES = ("balanced", "precision", "coverage")
#: the YAML front-matter of the page's schema.org data (``PipelineConfig.enable_schema``)
FRONT_MATTER = False


class ChromeRAG(Peer):
    """ChromeRAG's Markdown of the page and its text (module docstring)."""

    name = "chromerag"
    package = "chromerag"
    module = "chromerag"
    trained_on: ClassVar[tuple[str, ...]] = ("wcxb_dev",)

    def __init__(self, priority: str = "balanced", markdown: bool = False):
        self.priority = priority
        self.markdown = markdown
        self.validate()

    def _validate(self) -> None:
        check_choice("priority", self.priority, PRIORITIES)
        check_bool("markdown", self.markdown)

    def extract(self, page: Page) -> Extraction:
        lib = self._import()
        config = lib.PipelineConfig.from_priority(self.priority, enable_schema=FRONT_MATTER)
        result = lib.ChromeRAG(config=config).extract(html_for_library(page), url=page.url)
        md = result.markdown.strip()
        return Extraction(text=markdown_text(md).strip(), markdown=md if self.markdown else None)
