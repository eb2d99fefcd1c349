"""Summary rows: the one shape every experiment's ``summary.csv`` rows take, and failure rows.

Every experiment turns its per-page records into long-format rows
``dataset, method, metric, value, ci_low, ci_high, n_pages`` (the run adds
``experiment``; :data:`evalkit.report.results.SUMMARY_COLUMNS`). They are built here
and nowhere else, so the types of a row (float value and bounds, int page
count) cannot drift between experiments, and so the ``failures`` row means the
same everywhere: the number of (page, method) records whose ``error`` is set,
whatever ``runner.on_failure`` did with their scores.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from evalkit import metrics
from evalkit.report.progress import bar

__all__ = [
    "ROW_COLUMNS",
    "SummaryRows",
    "alike_key",
    "drop_note",
    "failure_rows",
    "failure_table",
    "scored",
    "shingle_rows",
    "summary_row",
    "with_note",
]

#: the columns of a summary row before the run adds ``experiment``
ROW_COLUMNS = ["dataset", "method", "metric", "value", "ci_low", "ci_high", "n_pages"]


def _float(x: Any) -> float:
    return math.nan if x is None else float(x)


def summary_row(
    dataset: str,
    method: str,
    metric: str,
    value: Any,
    ci_low: Any = math.nan,
    ci_high: Any = math.nan,
    n_pages: Any = 0,
) -> dict[str, Any]:
    """One long-format summary row; a missing value or bound is NaN, the page count an int."""
    return {
        "dataset": dataset,
        "method": method,
        "metric": metric,
        "value": _float(value),
        "ci_low": _float(ci_low),
        "ci_high": _float(ci_high),
        "n_pages": int(n_pages),
    }


class SummaryRows:
    """Summary rows in order, their intervals drawn together at the end.

    Rows are added as they will appear, each interval as a slot of one
    :class:`evalkit.metrics.BootstrapBatch`; :meth:`rows` draws the resamples of every
    interval once and fills the rows in. The numbers are those of one bootstrap call per
    row (same seed), in a fraction of the time.
    """

    def __init__(self, n_boot: int, alpha: float, seed: int):
        self.batch = metrics.BootstrapBatch(n_boot=n_boot, alpha=alpha, seed=seed)
        self._rows: list[tuple[dict[str, Any], int | None]] = []

    def add(self, row: dict[str, Any], slot: int | None = None) -> None:
        """A :func:`summary_row`; with ``slot``, its interval is that slot's of the batch."""
        self._rows.append((row, slot))

    def mean(
        self, dataset: str, method: str, metric: str, values: np.ndarray, n_pages: int
    ) -> None:
        """The row of the mean of ``values`` over the pages where it is defined, with the
        interval of :func:`evalkit.metrics.bootstrap_ci`."""
        self.add(
            summary_row(dataset, method, metric, metrics.mean_defined(values), n_pages=n_pages),
            self.batch.add_mean(values),
        )

    def shingle(self, dataset: str, method: str, p: np.ndarray, r: np.ndarray) -> None:
        """The rows of :func:`shingle_rows`."""
        p, r = np.asarray(p, dtype=float), np.asarray(r, dtype=float)
        if len(p) != len(r):
            raise ValueError(f"per-page columns differ in length: {sorted({len(p), len(r)})}")
        prf = metrics.aggregate_prf(p, r)
        slots = self.batch.add(
            len(p),
            lambda idx: metrics.aggregate_prf_rows(p[idx], r[idx]),
            width=3,
            nbytes=p.nbytes + r.nbytes,
        )
        for key, slot in zip(("precision", "recall", "f1"), slots):
            self.add(summary_row(dataset, method, f"shingle_{key}", prf[key], n_pages=len(p)), slot)

    def rows(self, desc: str | None = None) -> list[dict[str, Any]]:
        """The rows, intervals filled in; with ``desc``, a progress bar of the resamples
        drawn (evalkit.report.progress; off with ``runner.progress=false``)."""
        with bar(
            self.batch.n_draws(), desc or "", unit="draw", show=None if desc else False
        ) as progress:
            cis = self.batch.intervals(on_draws=progress.update)
        out = []
        for row, slot in self._rows:
            if slot is not None:
                row = {**row, "ci_low": _float(cis[slot][0]), "ci_high": _float(cis[slot][1])}
            out.append(row)
        return out


def shingle_rows(
    dataset: str, method: str, p: np.ndarray, r: np.ndarray, *, n_boot: int, alpha: float, seed: int
) -> list[dict[str, Any]]:
    """``shingle_precision``/``recall``/``f1`` rows: P and R averaged over the pages, F1 of
    the averages (ScrapingHub's rule), each with a page-bootstrap interval of that same rule
    (:func:`evalkit.metrics.bootstrap_ci_pages`)."""
    out = SummaryRows(n_boot, alpha, seed)
    out.shingle(dataset, method, p, r)
    return out.rows()


def scored(df: pd.DataFrame, column: str) -> pd.DataFrame:
    """The records of ``df`` that carry a score in ``column``.

    Summaries average over these, not over the records without an error:
    under ``runner.on_failure=empty`` a failed page is scored as an empty
    extraction (its score counts, its ``error`` stays set); under ``drop`` it
    has no score and is left out.
    """
    if column not in df.columns:
        return df.iloc[0:0]
    return df[df[column].notna()]


def failure_rows(per_page: pd.DataFrame, dataset: str) -> list[dict[str, Any]]:
    """A ``failures`` row per method (in run order): records with ``error`` set, over all
    of the method's records (``n_pages``)."""
    rows = []
    for method, df in per_page.groupby("method", sort=False):
        failed = int(df["error"].notna().sum()) if "error" in df else 0
        rows.append(summary_row(dataset, method, "failures", failed, n_pages=len(df)))
    return rows


def failure_table(failures: list[dict[str, Any]]) -> pd.DataFrame:
    """Per (data set, method): how many pages failed and the first error (report.md)."""
    if not failures:
        return pd.DataFrame(columns=["dataset", "method", "failed pages", "first error"])
    df = pd.DataFrame(failures)
    out = (
        df.groupby(["dataset", "method"], sort=False)
        .agg(**{"failed pages": ("page", "size"), "first error": ("error", "first")})
        .reset_index()
    )
    out = _merge_alike(out)
    # a markdown table cell holds one line and no pipe
    out["first error"] = (
        out["first error"]
        .astype(str)
        .str.replace("|", "/", regex=False)
        .str.replace(r"\s+", " ", regex=True)
        .str.slice(0, 200)
    )
    return out


def alike_key(dataset: str, method: str, n_failed: int, error: str) -> tuple:
    """What two methods' failures share when they differ only by the methods' own names
    (``published:bs4`` and ``published:bte`` lacking the same page of their files)."""
    name = str(method).rpartition(":")[2].rpartition("@")[2]
    return (dataset, n_failed, error.replace(name, "<method>") if name else error)


def _merge_alike(table: pd.DataFrame) -> pd.DataFrame:
    """One row for the methods of a data set that failed on as many pages with the same first
    error but for their own names (a benchmark's stored outputs that all lack the same pages):
    ``published:boilernet (+22: bs4, bte, ...)``; others are left as they are."""
    keys = [alike_key(r.dataset, r.method, r[2], str(r[3])) for r in table.itertuples(index=False)]
    groups: dict[tuple, list[int]] = {}
    for i, key in enumerate(keys):
        groups.setdefault(key, []).append(i)
    if all(len(g) == 1 for g in groups.values()):
        return table
    rows = []
    for members in groups.values():
        row = table.iloc[members[0]].copy()
        if len(members) > 1:
            rest = [str(table.iloc[i]["method"]).rpartition(":")[2] for i in members[1:]]
            row["method"] = f"{row['method']} (+{len(rest)}: {', '.join(rest)})"
        rows.append(row)
    return pd.DataFrame(rows).reset_index(drop=True)


def drop_note(per_page, on_failure: str) -> str:
    """The sentence (no final stop) a caption must add when ``runner.on_failure=drop`` left
    failed pages out of a table's numbers; "" when nothing was dropped. ``per_page``: a
    frame of records or their :class:`evalkit.harness.page_columns.PageColumns`."""
    if on_failure != "drop" or not _any_error(per_page):
        return ""
    return (
        "Pages a method failed on are left out of its numbers (runner.on_failure=drop), "
        "so methods are compared on different pages"
    )


def _any_error(per_page) -> bool:
    if isinstance(per_page, pd.DataFrame):
        return "error" in per_page and bool(per_page["error"].notna().any())
    return per_page.any_error


def with_note(caption: str, note: str) -> str:
    """``caption`` followed by ``note`` as a second sentence (unchanged without a note)."""
    return f"{caption}. {note}" if note else caption
