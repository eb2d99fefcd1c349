"""Per-page records of one data set, read one method's column at a time.

The extraction summaries, paired tests, complexity buckets and pages-correct curve need,
at any moment, one method's values of one score column, not a frame of every record.
:class:`PageColumns` hands them out as float arrays in record order; :class:`FramePages`
reads them from a frame in memory (tests, studies on small sets), and
:class:`evalkit.harness.column_store.StoredPages` from a columnar copy of a run's spilled
records on disk, so a run's memory does not grow with its pages.

Pages are numbered in the sorted order of their ids (``page(method)``): the order in which
``pandas.pivot_table`` lays out a page x method table, which decides the order of paired
differences (their sums and sign flips).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["FramePages", "PageColumns", "as_columns", "by_page", "first_with", "paired"]

#: the columns that are no score (texts; every other column is read as float)
KEYS = ("experiment", "dataset", "page_id", "site", "category", "method", "error")


class PageColumns:
    """The records of one data set: methods in run order (first record), columns in record
    order. Subclasses give :meth:`values`, :meth:`page`, :meth:`row`, :meth:`failed`."""

    #: the record's column names, in order (keys and scores)
    columns: list[str]
    #: methods in the order of their first record
    methods: list[str]
    #: number of distinct page ids (page numbers are 0 .. n_pages - 1)
    n_pages: int
    #: the experiment the records belong to
    experiment: str = ""

    def values(self, method: str, column: str) -> np.ndarray:
        """``column`` of ``method``'s records as floats (NaN: no value); KeyError if absent."""
        raise NotImplementedError

    def page(self, method: str) -> np.ndarray:
        """The page number of each of ``method``'s records (rank of its id, sorted)."""
        raise NotImplementedError

    def row(self, method: str) -> np.ndarray:
        """The position of each of ``method``'s records among all records."""
        raise NotImplementedError

    def failed(self, method: str) -> np.ndarray:
        """True for each of ``method``'s records whose ``error`` is set."""
        raise NotImplementedError

    def count(self, method: str) -> int:
        return len(self.row(method))

    @property
    def any_error(self) -> bool:
        return any(self.failed(m).any() for m in self.methods)

    def first_values(self, column: str) -> np.ndarray:
        """Per page number, ``column`` of the page's first record (``drop_duplicates``)."""
        first = np.full(self.n_pages, np.iinfo(np.int64).max)
        out = np.full(self.n_pages, np.nan)
        for m in self.methods:
            # backwards: of a method's records of one page, the earliest is written last
            rows, pages = self.row(m)[::-1], self.page(m)[::-1]
            values = self.values(m, column)[::-1]
            earlier = rows < first[pages]
            first[pages[earlier]] = rows[earlier]
            out[pages[earlier]] = values[earlier]
        return out

    def subset(self, keep: np.ndarray) -> PageColumns:
        """The records of the pages whose number ``keep`` marks True."""
        return _Subset(self, np.asarray(keep, dtype=bool))


class FramePages(PageColumns):
    """:class:`PageColumns` of a frame of records (``page_id``, ``method`` and scores)."""

    def __init__(self, frame: pd.DataFrame, experiment: str = ""):
        self.frame = frame
        self.columns = list(frame.columns)
        self.methods = list(dict.fromkeys(frame["method"]))
        self.experiment = experiment
        self._method = frame["method"].to_numpy()
        self._codes: np.ndarray | None = None
        self.n_pages = frame["page_id"].nunique() if "page_id" in frame else 0

    def _mask(self, method: str) -> np.ndarray:
        return self._method == method

    def values(self, method: str, column: str) -> np.ndarray:
        return self.frame.loc[self._mask(method), column].to_numpy(float)

    def page(self, method: str) -> np.ndarray:
        if self._codes is None:  # pivot_table's order: its groupby sorts the ids so
            self._codes = pd.factorize(self.frame["page_id"], sort=True)[0]
        return self._codes[self._mask(method)]

    def row(self, method: str) -> np.ndarray:
        return np.flatnonzero(self._mask(method))

    def failed(self, method: str) -> np.ndarray:
        if "error" not in self.frame:
            return np.zeros(self.count(method), dtype=bool)
        return self.frame.loc[self._mask(method), "error"].notna().to_numpy()


class _Subset(PageColumns):
    """The records of some pages of ``base`` (a complexity bucket); methods in the order of
    their first record there."""

    def __init__(self, base: PageColumns, keep: np.ndarray):
        self.base, self.columns, self.n_pages = base, base.columns, base.n_pages
        self.experiment = base.experiment
        self._kept = {m: keep[base.page(m)] for m in base.methods}
        first = {m: base.row(m)[k][0] for m, k in self._kept.items() if k.any()}
        self.methods = sorted(first, key=first.__getitem__)

    def values(self, method: str, column: str) -> np.ndarray:
        return self.base.values(method, column)[self._kept[method]]

    def page(self, method: str) -> np.ndarray:
        return self.base.page(method)[self._kept[method]]

    def row(self, method: str) -> np.ndarray:
        return self.base.row(method)[self._kept[method]]

    def failed(self, method: str) -> np.ndarray:
        return self.base.failed(method)[self._kept[method]]


def as_columns(per_page: Any) -> PageColumns:
    """``per_page`` as :class:`PageColumns` (a frame is wrapped, columns are kept)."""
    return per_page if isinstance(per_page, PageColumns) else FramePages(per_page)


def first_with(cols: PageColumns, column: str) -> list[str]:
    """The methods with a value of ``column``, in the order of their first such record
    (``dict.fromkeys`` of the method column of the scored records)."""
    if column not in cols.columns:
        return []
    first = {}
    for m in cols.methods:
        rows = cols.row(m)[~np.isnan(cols.values(m, column))]
        if len(rows):
            first[m] = rows[0]
    return sorted(first, key=first.__getitem__)


def by_page(pages: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The defined ``values`` by page number, sorted; a page with several records gets their
    mean (as ``pivot_table`` gives it)."""
    keep = ~np.isnan(values)
    pages, values = pages[keep], values[keep]
    order = np.argsort(pages, kind="stable")
    pages, values = pages[order], values[order]
    if len(pages) > 1 and (np.diff(pages) == 0).any():
        mean = pd.Series(values).groupby(pages, sort=True).mean()
        return mean.index.to_numpy(), mean.to_numpy(float)
    return pages, values


def paired(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]):
    """The values of two :func:`by_page` results on the pages both have, in page order
    (a page x method table's ``dropna``)."""
    _, ia, ib = np.intersect1d(a[0], b[0], assume_unique=True, return_indices=True)
    return a[1][ia], b[1][ib]
