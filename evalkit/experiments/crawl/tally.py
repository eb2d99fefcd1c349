"""The numbers of ``experiment=crawl``, summed from the records as they are read back from
the run's spill in chunks (evalkit.report.results.RecordSpill.chunks): memory grows only by
one word count per (page, method) for the median and p90, never by the records.

Sums run in record order, the same on every runner, so the numbers are the same bytes on
every runner. Tables hold :class:`evalkit.report.cells.Cell` numbers (numbers in the csv).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalkit.experiments.crawl.records import AGREE, UND
from evalkit.harness.summary import summary_row
from evalkit.report.cells import Cell

__all__ = ["COLUMNS", "INTERSECTION", "OTHER", "UNION", "MethodTally", "Tally"]

#: the record columns the tally reads (besides the ``agree_*`` columns)
COLUMNS = [
    "method",
    "error",
    "n_words_out",
    "has_output",
    "n_tokens",
    "language",
    "union_tokens",
    "intersection_tokens",
]
#: the rows of the union table and summary.csv that are no method
UNION, INTERSECTION = "union", "intersection"
#: the languages past ``crawl.top_languages``, pooled
OTHER = "other"
#: the percentile reported beside the median
P90 = 90


@dataclass
class MethodTally:
    """One method's sums over a data set's records."""

    records: int = 0
    failures: int = 0
    #: records with an output (all but the failed ones under ``runner.on_failure=drop``)
    known: int = 0
    with_output: int = 0
    words_total: int = 0
    tokens_total: int = 0
    words: list[np.ndarray] = field(default_factory=list)
    languages: Counter = field(default_factory=Counter)

    def word_counts(self) -> np.ndarray:
        return np.concatenate(self.words) if self.words else np.zeros(0, dtype=np.int64)


def _ints(values: pd.Series) -> np.ndarray:
    return pd.to_numeric(values, errors="coerce").dropna().to_numpy(np.int64)


class Tally:
    """The sums of one data set's records (:meth:`add` a chunk at a time)."""

    def __init__(self, methods: list[str], union: tuple[str, ...]):
        self.methods = list(methods)
        self.union = tuple(union)
        self.by_method = {m: MethodTally() for m in self.methods}
        #: (earlier method, later method) -> [sum of defined agreements, pages defined]
        self.pairs: dict[tuple[str, str], list] = {}
        self.union_pages = 0
        self.union_total = 0
        self.intersection_total = 0

    def add(self, chunk: pd.DataFrame) -> None:
        agree = [c for c in chunk.columns if str(c).startswith(AGREE)]
        for method, df in chunk.groupby("method", sort=False):
            t = self.by_method.setdefault(str(method), MethodTally())
            t.records += len(df)
            t.failures += int(df["error"].notna().sum())
            words = _ints(df["n_words_out"])
            t.known += len(words)
            t.words.append(words)
            t.words_total += int(words.sum())
            t.with_output += int(_ints(df["has_output"]).sum())
            t.tokens_total += int(_ints(df["n_tokens"]).sum())
            t.languages.update(df["language"].dropna().astype(str))
            for col in agree:
                values = pd.to_numeric(df[col], errors="coerce").dropna()
                if len(values):
                    cell = self.pairs.setdefault((col[len(AGREE) :], str(method)), [0.0, 0])
                    cell[0] += math.fsum(values.tolist())
                    cell[1] += len(values)
            if "union_tokens" in df:
                union = _ints(df["union_tokens"])
                self.union_pages += len(union)
                self.union_total += int(union.sum())
                self.intersection_total += int(_ints(df["intersection_tokens"]).sum())

    # -- the numbers ------------------------------------------------------------------------

    def agreement(self, a: str, b: str) -> tuple[float, int]:
        """(mean agreement F1 of ``a`` and ``b`` over the pages where it is defined, pages)."""
        s, n = self.pairs.get((a, b)) or self.pairs.get((b, a)) or (0.0, 0)
        return (s / n if n else math.nan), n

    def words(self, method: str) -> dict[str, float]:
        t = self.by_method[method]
        counts = t.word_counts()
        if not len(counts):
            return {"mean": math.nan, "median": math.nan, "p90": math.nan}
        return {
            "mean": t.words_total / t.known,
            "median": float(np.median(counts)),
            "p90": float(np.percentile(counts, P90)),
        }

    def top_languages(self, n: int) -> list[str]:
        """The ``n`` languages most outputs are in, over every method (most first, then by
        code); ``und`` is never one of them (it has a column of its own)."""
        pooled = Counter()
        for t in self.by_method.values():
            pooled.update(t.languages)
        pooled.pop(UND, None)
        return [code for code, _ in sorted(pooled.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]

    def language_shares(self, method: str, top: list[str]) -> dict[str, float]:
        """The share of the method's outputs in each ``top`` language, ``other``, ``und``."""
        t = self.by_method[method]
        total = sum(t.languages.values())
        if not total:
            return {k: math.nan for k in [*top, OTHER, UND]}
        shares = {code: t.languages.get(code, 0) / total for code in top}
        rest = total - sum(t.languages.get(code, 0) for code in top) - t.languages.get(UND, 0)
        shares[OTHER] = rest / total
        shares[UND] = t.languages.get(UND, 0) / total
        return shares

    # -- tables -----------------------------------------------------------------------------

    def yield_table(self) -> pd.DataFrame:
        rows = []
        for m in self.methods:
            t, w = self.by_method[m], self.words(m)
            rows.append(
                {
                    "method": m,
                    "pages": t.records,
                    "failures": t.failures,
                    "with output": Cell(t.with_output / t.known if t.known else math.nan),
                    "words/page": Cell(w["mean"], digits=1),
                    "median": Cell(w["median"], digits=1),
                    "p90": Cell(w["p90"], digits=1),
                    "words total": t.words_total,
                }
            )
        return pd.DataFrame(rows)

    def language_table(self, n: int) -> pd.DataFrame:
        top = self.top_languages(n)
        rows = []
        for m in self.methods:
            shares = self.language_shares(m, top)
            rows.append(
                {
                    "method": m,
                    "outputs": sum(self.by_method[m].languages.values()),
                    **{k: Cell(v) for k, v in shares.items()},
                }
            )
        return pd.DataFrame(rows)

    def agreement_matrix(self) -> np.ndarray:
        k = len(self.methods)
        out = np.full((k, k), math.nan)
        for i, a in enumerate(self.methods):
            for j, b in enumerate(self.methods):
                if i != j:
                    out[i, j] = self.agreement(a, b)[0]
        return out

    def agreement_table(self) -> pd.DataFrame:
        matrix = self.agreement_matrix()
        rows = []
        for i, a in enumerate(self.methods):
            row = {"method": a}
            row.update({b: Cell(matrix[i, j]) for j, b in enumerate(self.methods)})
            rows.append(row)
        return pd.DataFrame(rows)

    def union_table(self) -> pd.DataFrame:
        """Each method of ``crawl.union``, then their union and intersection: tokens per page
        (over the pages the union was made on), total, and the share of the union's total."""
        pages = self.union_pages
        rows = []
        totals = [(m, self.by_method[m].tokens_total) for m in self.union]
        totals += [(UNION, self.union_total), (INTERSECTION, self.intersection_total)]
        for name, total in totals:
            rows.append(
                {
                    "output": name,
                    "pages": pages,
                    "tokens/page": Cell(total / pages if pages else math.nan, digits=1),
                    "tokens total": total,
                    "share of union": Cell(
                        total / self.union_total if self.union_total else math.nan
                    ),
                }
            )
        return pd.DataFrame(rows)

    # -- summary.csv ------------------------------------------------------------------------

    def summary_rows(self, dataset: str, top_languages: int) -> list[dict]:
        rows = []
        top = self.top_languages(top_languages)
        for m in self.methods:
            t, w = self.by_method[m], self.words(m)
            rows.append(summary_row(dataset, m, "failures", t.failures, n_pages=t.records))
            share = t.with_output / t.known if t.known else math.nan
            rows.append(summary_row(dataset, m, "output_share", share, n_pages=t.known))
            for key, value in w.items():
                rows.append(summary_row(dataset, m, f"words_{key}", value, n_pages=t.known))
            rows.append(summary_row(dataset, m, "words_total", t.words_total, n_pages=t.known))
            rows.append(summary_row(dataset, m, "tokens_total", t.tokens_total, n_pages=t.known))
            n_lang = sum(t.languages.values())
            for code, value in self.language_shares(m, top).items():
                rows.append(summary_row(dataset, m, f"language_{code}", value, n_pages=n_lang))
            for other in self.methods:
                if other != m:
                    value, n = self.agreement(m, other)
                    rows.append(summary_row(dataset, m, f"agreement_{other}", value, n_pages=n))
        if self.union:
            pages = self.union_pages
            for name, total in ((UNION, self.union_total), (INTERSECTION, self.intersection_total)):
                per_page = total / pages if pages else math.nan
                rows.append(summary_row(dataset, name, "tokens_mean", per_page, n_pages=pages))
                rows.append(summary_row(dataset, name, "tokens_total", total, n_pages=pages))
            for m in self.union:
                share = (
                    self.by_method[m].tokens_total / self.union_total
                    if self.union_total
                    else math.nan
                )
                rows.append(summary_row(dataset, m, "union_share", share, n_pages=pages))
        return rows
