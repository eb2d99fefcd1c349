"""A columnar scratch copy of a run's spilled records: one file per method and column.

:func:`store_columns` reads a :class:`evalkit.report.results.RecordSpill` once and writes,
per method, each score column as raw float64 (the values ``Series.to_numpy(float)`` gives
of the frame of all the records), the records' page numbers (ids ranked in sorted order),
their positions among all records and their failure flags. :class:`StoredPages` reads them
back a method and a column at a time: what the summaries hold is one column of one method,
not every record (a million pages, two methods, 36 columns: 8 MB instead of ~0.7 GB).
Raw arrays rather than Parquet: nothing to decode, the exact floats, a column read is one
``numpy.fromfile``. The failed records (page, method, error) are kept in memory, in record
order, for run.json.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalkit.harness.page_columns import KEYS, PageColumns
from evalkit.report.results import RecordSpill

__all__ = ["StoredPages", "page_numbers", "store_columns"]

#: records buffered before they are appended to the column files
_BUFFER_ROWS = 1 << 16


class StoredPages(PageColumns):
    """:class:`PageColumns` of the column files :func:`store_columns` wrote in ``folder``."""

    def __init__(self, spill: RecordSpill, folder: Path, columns: list[str], experiment: str):
        self.spill, self.folder, self.columns = spill, folder, columns
        self.experiment = experiment
        self.methods: list[str] = []
        self.n_pages = 0
        #: (page id, method, error) of each failed record, in record order
        self.failures: list[tuple[Any, str, Any]] = []
        self._scores = [c for c in columns if c not in KEYS]

    def _file(self, method: str, name: str) -> Path:
        return self.folder / str(self.methods.index(method)) / name

    def values(self, method: str, column: str) -> np.ndarray:
        if column not in self._scores:
            raise KeyError(column)
        return np.fromfile(self._file(method, f"c{self._scores.index(column)}"), dtype=np.float64)

    def page(self, method: str) -> np.ndarray:
        return np.fromfile(self._file(method, "page"), dtype=np.int64)

    def row(self, method: str) -> np.ndarray:
        return np.fromfile(self._file(method, "row"), dtype=np.int64)

    def failed(self, method: str) -> np.ndarray:
        return np.fromfile(self._file(method, "failed"), dtype=np.bool_)

    @property
    def any_error(self) -> bool:
        return bool(self.failures)

    def page_ids(self, method: str) -> set[str]:
        """The ids of ``method``'s pages (read from the spill)."""
        return {
            pid
            for part in self.spill.chunks(["page_id", "method"])
            for pid, m in zip(part["page_id"], part["method"])
            if m == method
        }

    def frame(self):
        """Every record as one frame of these columns (small sets: a study's tables)."""
        return self.spill.frame(self.columns)

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def store_columns(spill: RecordSpill, columns: list[str], experiment: str) -> StoredPages:
    """Write the column files of ``spill``'s records (``columns`` of them: keys and scores)
    beside it and return their :class:`StoredPages` (delete them with ``close``)."""
    folder = spill.path.with_suffix(".columns")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    keep = [c for c in columns if c in spill.kinds]
    out = StoredPages(spill, folder, keep, experiment)
    scores = out._scores
    index: dict[str, int] = {}  # method -> its number (folder name)
    ids, methods = [], []  # per chunk: page ids (bytes) and method numbers
    buffer: dict[int, dict[str, list[np.ndarray]]] = {}
    held = at = 0
    for part in spill.chunks(["page_id", "method", "error", *scores]):
        method = part["method"].to_numpy()
        for m in dict.fromkeys(method):
            index.setdefault(m, len(index))
        number = np.fromiter((index[m] for m in method), dtype=np.int32, count=len(method))
        ids.append(_id_bytes(part["page_id"]))
        methods.append(number)
        failed = part["error"].notna().to_numpy() if "error" in part else np.zeros(len(part), bool)
        for i in np.flatnonzero(failed):
            out.failures.append((part["page_id"].iat[i], method[i], part["error"].iat[i]))
        floats = [part[c].to_numpy(float) for c in scores]
        for k in np.unique(number):
            sel = number == k
            cols = buffer.setdefault(int(k), {})
            cols.setdefault("row", []).append(np.flatnonzero(sel) + at)
            cols.setdefault("failed", []).append(failed[sel])
            for j, values in enumerate(floats):
                cols.setdefault(f"c{j}", []).append(values[sel])
        at += len(part)
        held += len(part)
        if held >= _BUFFER_ROWS:
            _append(folder, buffer)
            buffer, held = {}, 0
    _append(folder, buffer)
    out.methods = sorted(index, key=index.__getitem__)
    codes, out.n_pages = page_numbers(ids)
    del ids
    # Arrow's allocator keeps what it freed for reuse: the ids and the numbering's hash
    # tables, about 180 MiB at a million pages, would stay in this process through the
    # summaries
    pa.default_memory_pool().release_unused()
    number = np.concatenate(methods) if methods else np.empty(0, np.int32)
    _append(folder, {k: {"page": [codes[number == k]]} for k in range(len(index))})
    for k in range(len(index)):  # a method whose every record lacks a score column
        (folder / str(k)).mkdir(exist_ok=True)
    return out


def _append(folder: Path, buffer: dict[int, dict[str, list[np.ndarray]]]) -> None:
    for k, cols in buffer.items():
        (folder / str(k)).mkdir(exist_ok=True)
        for name, parts in cols.items():
            with open(folder / str(k) / name, "ab") as fh:
                for a in parts:
                    a.tofile(fh)


def _id_bytes(ids) -> pa.Array:
    # UTF-8 orders bytes as str orders code points, lone surrogates (surrogatepass) included
    odd = next((i for i in ids if not isinstance(i, str)), None)
    if odd is not None:
        raise TypeError(f"a page id must be text (Page.id), got {type(odd).__name__} {odd!r}")
    return pa.array([i.encode("utf-8", "surrogatepass") for i in ids], type=pa.binary())


def page_numbers(chunks: list[pa.Array]) -> tuple[np.ndarray, int]:
    """Each id's rank among the distinct ids sorted (``pandas.factorize(sort=True)`` codes)
    and the number of distinct ids; the ids as :func:`_id_bytes` arrays."""
    ids = pa.chunked_array(chunks, type=pa.binary())
    uniq = pc.unique(ids)
    ranked = uniq.take(pc.sort_indices(uniq))
    codes = pc.index_in(ids, value_set=ranked)
    return np.asarray(codes.to_numpy(), dtype=np.int64), len(uniq)
