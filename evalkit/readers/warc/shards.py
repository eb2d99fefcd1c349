"""WARC files read by the runner's workers, one task per file (issue 41, item 4).

A runner whose tasks run elsewhere asks :meth:`WarcPages.shard_tasks`: one :func:`scan_shard`
task per file (the worker's pass 1: runs, counts, skips, page id digests), then, when no site
and no page id has records in two files and no limit is set, one :class:`WarcShard` task per
file (pass 2 and :meth:`Dataset.pages`'s checks): pages in this process's order (file 1's
sites, then file 2's, ...), each skip where reading here puts it. Else this process reads the
bodies from the workers' index; everything, when a worker does not see a file as this process
does.
"""

from __future__ import annotations

import hashlib
import os
import sys
from array import array
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from evalkit.core.page import Page
from evalkit.readers.base import Dataset, DatasetMissingError, LazyPages, Refused, Skipped
from evalkit.readers.warc.runs import SiteRuns

__all__ = ["ScanTask", "ShardScan", "WarcPages", "WarcShard", "scan_shard"]


def _digest(page_id: str) -> int:
    return int.from_bytes(
        hashlib.blake2b(page_id.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little"
    )


def _stat(path) -> tuple[int, int]:
    return (st := os.stat(path)).st_size, st.st_mtime_ns


@dataclass(frozen=True)
class _Reader:
    """What a worker needs to rebuild the data set: its class, parameters and size caps."""

    cls: type
    params: dict
    caps: dict

    @classmethod
    def of(cls, ds) -> _Reader:
        caps = {"max_page_bytes": ds.max_page_bytes, "max_gold_bytes": ds.max_gold_bytes}
        return cls(type(ds), ds.get_params(), caps)

    def build(self):
        ds = self.cls(**self.params)
        for key, value in self.caps.items():
            setattr(ds, key, value)
        return ds


@dataclass(frozen=True)
class ScanTask:
    """Index one WARC file in a worker (:func:`scan_shard`); ``stat``: its size and time here."""

    reader: _Reader
    file: str
    stat: tuple[int, int]


@dataclass
class ShardScan:
    """One file's index as a worker read it; ``why`` says why this process must read it."""

    file: str
    why: str | None = None
    runs: list[tuple[str | None, array]] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)
    skipped: list[Skipped] = field(default_factory=list)
    ids: np.ndarray | None = None  # the distinct page ids' digests


def scan_shard(task: ScanTask) -> ShardScan:
    """The reader's pass 1 over one file, where the task runs (a runner task function)."""
    path = Path(task.file)
    try:
        if _stat(path) != task.stat:
            return ShardScan(task.file, f"{path} differs from the main process's copy")
        ds = task.reader.build()
        ds._open(path).close()  # the gate; a file this worker may not read is read in main
        counts: dict[Path, Counter] = {path: Counter()}
        ids: list[str] = []
        runs = ds._index([path], counts, ids)
    except (OSError, ImportError, DatasetMissingError, Refused) as exc:
        return ShardScan(task.file, f"{path}: {exc}")
    return ShardScan(
        task.file,
        runs=[(site, offsets) for site, _, offsets in runs],
        counts=counts[path],
        skipped=ds.skipped,
        ids=np.unique(np.fromiter(map(_digest, ids), dtype=np.uint64, count=len(ids))),
    )


@dataclass(frozen=True)
class WarcShard:
    """One WARC file's pages, read where the task runs (:meth:`read`) from its index."""

    reader: _Reader
    file: str
    runs: list[tuple[str | None, array]]

    def read(self) -> _ShardRead:
        """The file's pages, as :meth:`Dataset.pages` hands them out; ``skipped`` once read."""
        ds = self.reader.build()
        runs = [(site, array("I", [0]) * len(offsets), offsets) for site, offsets in self.runs]
        ds._made = ([Path(self.file)], runs, {}, [])  # no counts: the main process has them
        return _ShardRead(ds)


class _ShardRead:
    def __init__(self, ds):
        self._ds, self._pages = ds, Dataset.pages(ds)

    def __iter__(self) -> Iterator[Page]:
        return self._pages

    @property
    def skipped(self) -> list[Skipped]:
        return self._ds.skipped


def _merge(files: list[Path], scans: list[ShardScan]) -> list[tuple]:
    """The runs pass 1 gives over all ``files`` from each file's own runs (WarcDataset._index)."""
    runs = SiteRuns()
    for number, scan in enumerate(scans):
        for site, offsets in scan.runs:
            run = runs.run(site)
            run[1].extend(array("I", [number]) * len(offsets))
            run[2].extend(offsets)
    return runs.runs


def _apart(scans: list[ShardScan]) -> bool:
    """True when no site and no page id has records in two files."""
    sites: set[str] = set()
    for scan in scans:
        mine = {site for site, _ in scan.runs if site is not None}
        if not sites.isdisjoint(mine):
            return False
        sites |= mine
    ids = np.concatenate([scan.ids for scan in scans])
    return len(np.unique(ids)) == len(ids)


class WarcPages:
    """A WARC folder's pages: iterated here, or read by the runner's workers (comment above)."""

    def __init__(self, dataset):
        self.dataset = dataset
        self._lazy = LazyPages(dataset, tuple)  # iterating and note_seen as LazyPages does
        self._tail = 0  # the counts of records passed over, at the end of ``skipped``

    def __iter__(self) -> Iterator[Page]:
        return self

    def __next__(self) -> Page:
        return next(self._lazy)

    def note_seen(self, page_id: str, sha256: str) -> None:
        """Record a page a worker read from one of :meth:`shard_tasks` (``Dataset.seen_``)."""
        self._lazy.note_seen(page_id, sha256)

    def note_skipped(self, skipped: list[Skipped]) -> None:
        """Put a shard's skips, in shard order, where reading here puts them."""
        at = len(self.dataset.skipped) - self._tail
        self.dataset.skipped[at:at] = skipped

    def shard_tasks(self, map_fn: Callable) -> Iterator[WarcShard] | None:
        """One :class:`WarcShard` per file with pages, once ``map_fn(scan_shard, tasks, total=n)``
        (the runner's map) indexed every file; None: iterate the pages here (comment above)."""
        ds = self.dataset
        if ds.limit is not None:  # where the limit cuts depends on every file before it
            return None
        ds.skipped = []
        files = ds._warc_files()
        listed = list(ds.skipped)
        try:
            tasks = [ScanTask(_Reader.of(ds), str(f), _stat(f)) for f in files]
        except OSError:
            tasks = []
        if not tasks:  # no file, or one gone since it was listed: read here
            return None
        scans = list(map_fn(scan_shard, tasks, total=len(tasks)))
        why = next((scan.why for scan in scans if scan.why), None)
        if why is not None:
            print(f"evalkit: WARC pages read in the main process: {why}", file=sys.stderr)
            return None
        runs = _merge(files, scans)
        counts = {path: scan.counts for path, scan in zip(files, scans, strict=True)}
        skipped = listed + [s for scan in scans for s in scan.skipped]
        if not _apart(scans):  # read here, from the workers' index
            why = "a site or page id has records in two files (experiments/crawl/README.md)"
            print(f"evalkit: WARC pages read in the main process: {why}", file=sys.stderr)
            ds._made = (files, runs, counts, skipped)
            return None
        ds.skipped, head = skipped, len(skipped)
        ds._skip_counts(counts)
        self._tail = len(ds.skipped) - head
        return (WarcShard(tasks[0].reader, scan.file, scan.runs) for scan in scans if scan.runs)
