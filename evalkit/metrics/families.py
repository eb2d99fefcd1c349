"""The metric families as one table: what each writes per page and how it is summarised.

A family is the one place that says which per-page columns it writes (``prefix``, or a
pattern where the name holds a parameter: ``rouge2_f1``), how a data set's summary reads them
(``summary``), where its summary rows stand (``after_units``: the field's metrics come after
the unit scores and ``pages_correct``, so older columns keep their places) and whose definition
it is (``source``, shown in docs/metrics.md). The scorer, ``extraction.metrics``' check, the
extraction experiment's summaries and tables and the docs all read this table.

The first families are computed together by :func:`evalkit.metrics.overlap.text_metrics`
(they share one tokenisation of each text, which is most of their cost); a family added
later brings its own ``prepare`` (gold text -> state, once per page) and ``score`` (the
extraction's text and that state -> its columns): docs/extending.md, "A metric family".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import evalkit.metrics.aeb_exact as aeb_exact
import evalkit.metrics.metadata as metadata
import evalkit.metrics.structure as structure
import evalkit.metrics.wceb_rouge as wceb_rouge
import evalkit.metrics.wcxb as wcxb
import evalkit.metrics.webmainbench as webmainbench

__all__ = [
    "BY_NAME",
    "DEFAULT_FAMILIES",
    "FAMILIES",
    "KNOWN_TEXT_FAMILIES",
    "RECORD_FAMILIES",
    "SUMMARY_RULES",
    "TEXT_FAMILIES",
    "Family",
    "family_of",
]

#: how a family's per-page values become a data set's summary rows
SUMMARY_RULES = {
    # ScrapingHub's evaluate.py: P averaged over pages with output, R over pages with gold,
    # F1 of the two means (evalkit.harness.summary.SummaryRows.shingle)
    "benchmark": "mean precision and recall over their defined pages, F1 of the two means",
    # every summarised column: the mean of the pages where it is defined, with a bootstrap CI
    "mean": "mean of each column over the pages where it is defined",
    # word-weighted confusion counts: micro (summed counts) and macro (mean of pages)
    "micro_macro": "micro (summed counts) and macro (mean of pages) scores of the counts",
}


@dataclass(frozen=True)
class Family:
    """One metric family (see the module docstring)."""

    name: str
    #: every per-page column of the family starts with this (unless ``pattern`` is given)
    prefix: str
    #: a key of :data:`SUMMARY_RULES`
    summary: str
    #: whose definition it is (docs/metrics.md)
    source: str
    #: the column suffixes the ``mean`` rule summarises, in this order
    summarized: tuple[str, ...] = ("precision", "recall", "f1", "accuracy")
    #: summary rows after the unit scores and ``pages_correct``
    after_units: bool = False
    #: a regular expression a column of the family matches in full (else ``prefix``)
    pattern: str | None = None
    #: computed by :func:`evalkit.metrics.overlap.text_metrics` from the text alone
    text: bool = True
    #: a family added later: gold text -> state (once per page), and (text, state) -> columns
    prepare: Callable[[str], Any] | None = None
    score: Callable[[str, Any], dict[str, float]] | None = None
    #: scored only when named (``extraction.metrics``), never by default: a benchmark's own
    #: metric that only its study reads, or one that needs an optional package
    opt_in: bool = False
    #: what ``prepare`` and ``score`` read: ``"text"`` (the gold text, the extraction's text)
    #: or ``"record"`` (the page's Gold, the whole Extraction: its Markdown, its metadata)
    reads: str = "text"

    def __post_init__(self):
        if self.summary not in SUMMARY_RULES:
            raise ValueError(
                f"family {self.name!r}: summary must be one of "
                f"{', '.join(SUMMARY_RULES)}, got {self.summary!r}"
            )
        if self.reads not in ("text", "record") or (self.reads == "record" and self.text):
            raise ValueError(f"family {self.name!r}: reads is 'text', or 'record' with text=False")
        if (self.prepare is None) != (self.score is None):
            raise ValueError(f"family {self.name!r}: give both prepare and score, or neither")

    def owns(self, column: str) -> bool:
        """Whether a per-page column is one of this family's."""
        if self.pattern is not None:
            return re.fullmatch(self.pattern, column) is not None
        return column.startswith(self.prefix)

    def summary_columns(self, columns) -> list[str]:
        """The columns of ``columns`` the ``mean`` rule summarises, in summary order."""
        order = {key: i for i, key in enumerate(self.summarized)}
        keyed = []
        for c in columns:
            key = c if c in order else c.rpartition("_")[2]  # a whole name, or its last part
            if self.owns(c) and key in order:
                keyed.append((order[key], c))
        return [c for _, c in sorted(keyed)]


FAMILIES: tuple[Family, ...] = (
    Family(
        "shingle", "shingle_", "benchmark", "ScrapingHub article-extraction-benchmark, evaluate.py"
    ),
    Family("word", "word_", "mean", "bag of whitespace words (multiset overlap)"),
    Family("lcs", "lcs_", "mean", "longest common subsequence of words (CleanEval's idea)"),
    Family("kaur", "kaur_", "mean", "Kaur (2017), word-count confusion, §4.1"),
    Family(
        "rouge_lsum",
        "rouge_lsum_",
        "mean",
        "Bevendorff et al. (2023), ROUGE-LSum",
        summarized=("precision", "recall", "f1"),
        after_units=True,
    ),
    Family(
        "rouge_n",
        "rouge",
        "mean",
        "ROUGE-N (Lin 2004), n = extraction.rouge_n",
        summarized=("precision", "recall", "f1"),
        after_units=True,
        pattern=r"rouge\d+_\w+",
    ),
    Family(
        "edit",
        "edit_",
        "mean",
        "WebMainBench, word-level edit similarity",
        summarized=("edit_similarity",),
        after_units=True,
    ),
    Family("unit", "unit_", "micro_macro", "evalkit's units (docs/metrics.md, unit)", text=False),
    # the benchmarks' own page metrics (docs/benchmarks.md), each exactly as its scorer has it
    Family(
        "wcxb",
        wcxb.PREFIX,
        "mean",
        "WCXB (Foley 2026), evaluate.py: lower-cased \\w+ bag of words",
        summarized=("precision", "recall", "f1"),
        after_units=True,
        prepare=wcxb.prepare,
        score=wcxb.score,
        opt_in=True,
    ),
    Family(
        "wceb_rouge",
        wceb_rouge.PREFIX,
        "mean",
        "Bevendorff et al. (2023), eval.py: ROUGE-LSum on white-space tokens",
        summarized=("precision", "recall", "f1"),
        after_units=True,
        prepare=wceb_rouge.prepare,
        score=wceb_rouge.score,
        opt_in=True,
    ),
    Family(
        "webmainbench",
        webmainbench.PREFIX,
        "mean",
        "WebMainBench, text_metrics.py: ROUGE-5 on jieba tokens, character edit similarity",
        summarized=(
            "wmb_rouge5_precision",
            "wmb_rouge5_recall",
            "wmb_rouge5_f1",
            "wmb_edit_similarity",
        ),
        after_units=True,
        prepare=webmainbench.prepare,
        score=webmainbench.score,
        opt_in=True,
    ),
    Family(
        "aeb_exact",
        aeb_exact.PREFIX,
        "mean",
        "ScrapingHub article-extraction-benchmark, evaluate.py: get_accuracy (exact match)",
        summarized=("accuracy",),
        after_units=True,
        prepare=aeb_exact.prepare,
        score=aeb_exact.score,
        opt_in=True,
    ),
    # what a retrieval or pre-training pipeline takes beside the words (docs/metrics.md)
    Family(
        "structure",
        "",
        "mean",
        "evalkit: elements matched one to one; tables by TEDS (Zhong et al. 2020)",
        summarized=structure.COLUMNS,
        after_units=True,
        pattern=r"(heading|list|table|code)_\w+",
        text=False,
        prepare=structure.gold_state,
        score=structure.extraction_scores,
        opt_in=True,
        reads="record",
    ),
    Family(
        "metadata",
        "",
        "mean",
        "evalkit: title, authors, date against WCXB's gold (htmldate's exact day)",
        summarized=metadata.COLUMNS,
        after_units=True,
        pattern=r"(title|author|date)_\w+",
        text=False,
        prepare=metadata.gold_state,
        score=metadata.extraction_scores,
        opt_in=True,
        reads="record",
    ),
)

#: family name -> :class:`Family`
BY_NAME = {f.name: f for f in FAMILIES}
#: the families that read the page's Gold and the whole Extraction (structure, metadata)
RECORD_FAMILIES = tuple(f.name for f in FAMILIES if f.reads == "record")
#: the families computed from an extraction's text by default (all but the units and the
#: opt-in ones), in record order
TEXT_FAMILIES = tuple(f.name for f in FAMILIES if f.text and not f.opt_in)
#: every family computed from an extraction's text, the opt-in ones included
KNOWN_TEXT_FAMILIES = tuple(f.name for f in FAMILIES if f.text)
#: the families scored when none are named
DEFAULT_FAMILIES = tuple(f.name for f in FAMILIES if not f.opt_in)


def family_of(column: str) -> Family | None:
    """The family a per-page column belongs to (None: not a score column)."""
    return next((f for f in FAMILIES if f.owns(column)), None)
