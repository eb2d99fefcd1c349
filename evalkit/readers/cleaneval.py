"""Reader for CleanEval-format sets: the CleanEval 2007 development set and CleanPortalEval.

CleanEval (Baroni, Chantree, Kilgarriff & Sharoff, LREC 2008) stores
``input/<id>.html`` and ``GoldStandard/<id>.txt``; the gold starts with a
``URL:`` line and marks paragraphs, headings and list items with ``<p>``,
``<h>``, ``<l>`` at line starts. CleanPortalEval (Endrédy & Novák 2013) uses
the same layout with file names that start with the site group
(``bbc.co.uk_news_01``), so several pages share one site template.

Departures: markers, the URL line and HTML comments are removed and HTML
entities decoded for the gold text (the scoring of the original task kept
the markers to score segmentation, which evalkit does not). Index pages whose
gold is empty are kept with an empty gold text. See
:mod:`evalkit.readers.pairs` for decoding and skipping rules.
"""

from __future__ import annotations

from evalkit.readers.pairs import PairsDataset

__all__ = ["PORTAL_SITE_PATTERN", "CleanEvalDataset"]

#: CleanPortalEval site group: the file stem without its trailing ``_<number>``
PORTAL_SITE_PATTERN = r"^(?P<site>.+)_\d+$"


class CleanEvalDataset(PairsDataset):
    """``input/<id>.html`` + ``GoldStandard/<id>.txt`` in CleanEval format.

    ``site_pattern`` (on the file stem) gives the site group; without it the
    site is the host of the gold's URL line.
    """

    def __init__(
        self,
        path: str | None = None,
        limit: int | None = None,
        html_dir: str = "input",
        gold_dir: str = "GoldStandard",
        site_pattern: str | None = None,
        keep_empty_gold: bool = True,
        name: str = "cleaneval",
    ):
        super().__init__(
            path=path,
            limit=limit,
            html_dir=html_dir,
            gold_dir=gold_dir,
            gold_format="cleaneval",
            site_pattern=site_pattern,
            keep_empty_gold=keep_empty_gold,
            name=name,
        )
