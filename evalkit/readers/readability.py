"""Reader for Mozilla Readability's test pages (github.com/mozilla/readability, ``test/test-pages``).

Each case is ``input/<id>.html`` (the page, as ``source.html`` upstream) and
``GoldStandard/<id>.txt`` (upstream ``expected.html``): the main content as
Readability itself should output it, i.e. HTML. The gold text is the visible
text of that HTML (:func:`evalkit.core.visible.visible_text`), one block per line.

Departures: the upstream ``expected-metadata.json`` (title, byline) is not
part of the shared copy and is not read; the pages use the placeholder host
``fakehost``, so pages carry no URL and no site.
"""

from __future__ import annotations

from evalkit.readers.pairs import PairsDataset

__all__ = ["ReadabilityDataset"]


class ReadabilityDataset(PairsDataset):
    """``input/<id>.html`` + ``GoldStandard/<id>.txt`` (expected main-content HTML)."""

    def __init__(
        self,
        path: str | None = None,
        limit: int | None = None,
        html_dir: str = "input",
        gold_dir: str = "GoldStandard",
        keep_empty_gold: bool = True,
        name: str = "readability",
    ):
        super().__init__(
            path=path,
            limit=limit,
            html_dir=html_dir,
            gold_dir=gold_dir,
            gold_format="html",
            keep_empty_gold=keep_empty_gold,
            name=name,
        )
