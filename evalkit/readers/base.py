"""What every dataset reader provides: a stream of pages and a list of what it skipped.

Pages come out grouped by site (every page of one site next to the others,
docs/sites.md): the runner makes one task of each site's pages as they stream
past and stops on a site whose pages come in two runs. A reader gets there without
holding pages in memory by ordering its *file list* with :func:`group_by_site`
from metadata it reads first (a URL list, a file name, a gold file's URL line).
"""

from __future__ import annotations

import hashlib
import os
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np
import xxhash

from evalkit.core.capped import DEFAULT_MAX_FILE_BYTES, FileTooLarge, Refused, inside, read_capped
from evalkit.core.domains import site_of
from evalkit.core.jsonfile import DataFileError, loads
from evalkit.core.page import Page, sniff_not_html
from evalkit.core.validate import ParamError, check_int

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "Dataset",
    "DatasetMissingError",
    "FileTooLarge",
    "InMemoryDataset",
    "LazyPages",
    "Refused",
    "SeenPages",
    "Skipped",
    "group_by_site",
    "inside",
    "read_capped",
    "read_json",
]


T = TypeVar("T")


def group_by_site(items: Iterable[T], site: Callable[[T], str | None]) -> list[T]:
    """``items`` with each site's items moved up behind its first one.

    Sites keep the order of their first item and items keep their order within a
    site; an item without a site (``site(item)`` is None) stays in its place
    between the groups. Items whose sites are already contiguous come back in
    the same order, so a reader that already listed its pages by site does not
    change. ``site`` must give, from cheap metadata, the site the page will carry
    (:func:`evalkit.core.domains.site_key` of its ``site`` and ``url``).
    """
    groups: dict[str, list[T]] = {}
    runs: list[list[T]] = []
    for item in items:
        key = site(item)
        if key is None:
            runs.append([item])
        elif key in groups:
            groups[key].append(item)
        else:
            groups[key] = [item]
            runs.append(groups[key])
    return [item for run in runs for item in run]


class DatasetMissingError(FileNotFoundError):
    """The data folder is absent; the message says how to fetch it."""


def read_json(
    path: str | os.PathLike,
    cap: int | None = DEFAULT_MAX_FILE_BYTES,
    root: str | os.PathLike | None = None,
):
    """A benchmark's JSON index file (plain or ``.gz``) through the read gate
    (:func:`read_capped`: inside ``root``, regular, its size capped before it is read);
    :class:`~evalkit.core.jsonfile.DataFileError`, one line naming the file, when it is
    refused (a FIFO named ground-truth.json is never opened) or not JSON."""
    try:
        raw = read_capped(path, cap, "the JSON file size cap", root)
    except Refused as exc:
        raise DataFileError(f"{path}: {exc}") from None
    return loads(raw, path)


@dataclass
class Skipped:
    """A file a reader passed over, and why (nothing is dropped silently)."""

    file: str
    reason: str


#: digests hashed per step by SeenPages.fingerprint
_FINGERPRINT_STEP = 65536


class SeenPages:
    """Page id -> sha256 of every page a run was handed: a mapping kept in 48 bytes a page.

    A dict of the hex strings took 213 bytes a page, 213 MB at a million pages. Here each
    ``seen[page_id] = sha256`` appends the id's 128-bit xxHash and the 32-byte digest; reads
    (``len``, :meth:`values`, ``==``) see one entry per id, the last one set, as a dict
    would. Two different ids share a 128-bit hash with negligible chance (about 1e-27 for a
    million pages).
    """

    _ROW = np.dtype([("id", "V16"), ("sha", "V32")])

    def __init__(self) -> None:
        self._rows = bytearray()
        self._table: np.ndarray | None = None  # the deduplicated rows, until the next set

    def __setitem__(self, page_id: str, sha256: str) -> None:
        self._rows += xxhash.xxh3_128_digest(page_id.encode("utf-8", "surrogatepass"))
        self._rows += bytes.fromhex(sha256)
        self._table = None

    def _unique(self) -> np.ndarray:
        if self._table is None:
            rows = np.frombuffer(self._rows, dtype=self._ROW)
            # the last row of each id wins, as in a dict
            _, last = np.unique(rows["id"][::-1], return_index=True)
            self._table = rows[len(rows) - 1 - last]
            del rows  # the buffer may grow again
        return self._table

    def __len__(self) -> int:
        return len(self._unique())

    def values(self) -> list[str]:
        """The pages' sha256 hex digests (one per id, in no particular order)."""
        return [bytes(v).hex() for v in self._unique()["sha"]]

    def fingerprint(self) -> str:
        """:func:`evalkit.report.results.dataset_fingerprint` of :meth:`values`, without a
        string per page: raw digests sort as their hex digits do."""
        h = hashlib.sha256()
        digests = np.sort(self._unique()["sha"].view("S32"), kind="stable")
        for start in range(0, len(digests), _FINGERPRINT_STEP):
            h.update(digests[start : start + _FINGERPRINT_STEP].tobytes().hex().encode())
        return h.hexdigest()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SeenPages):
            return NotImplemented
        a, b = self._unique(), other._unique()
        return len(a) == len(b) and bool((np.sort(a) == np.sort(b)).all())

    __hash__ = None  # mutable, like a dict


class Dataset:
    """Base reader. Subclasses set ``name`` and implement ``_iter_pages``.

    ``pages()`` streams pages in a stable order (sorted, then grouped by site:
    :func:`group_by_site`) and stops after
    ``limit`` pages; every file passed over is appended to ``skipped``, and
    every page handed out is remembered in ``seen_`` (id -> sha256), so the
    run folder can fingerprint exactly the pages an experiment saw.
    """

    name: str = ""
    #: how to get the data, quoted when the folder is missing
    fetch_hint: str = "see datasets/README.md"
    #: caps checked before a page or gold file is read (:func:`read_capped`); a run sets them
    #: from ``runner.max_page_bytes`` and ``runner.max_gold_bytes`` (None: no cap)
    max_page_bytes: int | None = DEFAULT_MAX_FILE_BYTES
    max_gold_bytes: int | None = DEFAULT_MAX_FILE_BYTES
    #: modules of optional packages the reader imports when it reads pages (the wceb reader:
    #: resiliparse), looked up before any page as a method's are (evalkit.harness.preflight)
    requires: tuple[str, ...] = ()
    #: how to install them, quoted when one is missing (else ``pip install <package>``)
    install_hint: str = ""

    def data_root(self) -> Path | None:
        """The folder the user named (``path``): every file read from the set lies inside it
        (the read gate, :func:`read_capped`); None for a reader without one."""
        return Path(self.path).expanduser() if self.path is not None else None

    def read_page_file(self, path) -> bytes:
        """A page file's bytes through the read gate: inside :meth:`data_root`, regular,
        under ``runner.max_page_bytes`` (:func:`read_capped`)."""
        return read_capped(path, self.max_page_bytes, "runner.max_page_bytes", self.data_root())

    def read_gold_file(self, path) -> bytes:
        """A gold file's bytes through the read gate, under ``runner.max_gold_bytes``."""
        return read_capped(path, self.max_gold_bytes, "runner.max_gold_bytes", self.data_root())

    def __init__(self, path: str | None = None, limit: int | None = None):
        # checked on construction, before any page is read (a folder's existence: root())
        check_int("limit", limit, low=1, allow_none=True)
        if path is not None and not isinstance(path, (str, os.PathLike)):
            raise ParamError("path", path, "must be the path of a folder")
        self.path = path
        self.limit = limit
        self.skipped: list[Skipped] = []
        self.seen_ = SeenPages()

    def root(self) -> Path:
        """The data folder, or DatasetMissingError with the fetch hint."""
        if self.path is None:
            raise DatasetMissingError(f"dataset {self.name!r} needs a path ({self.fetch_hint})")
        root = Path(self.path).expanduser()
        if not root.is_dir():
            raise DatasetMissingError(
                f"dataset {self.name!r}: folder {root} does not exist; {self.fetch_hint}"
            )
        return root

    def skip(self, file, reason: str) -> None:
        self.skipped.append(Skipped(str(file), reason))

    def page_or_skip(self, path) -> bytes | None:
        """A page file's bytes (:meth:`read_page_file`), or None once the file is recorded as
        skipped: over its size cap, or unreadable (an I/O error, a broken ``.gz``)."""
        try:
            return self.read_page_file(path)
        except FileTooLarge as exc:
            self.skip(path, str(exc))
        except (OSError, EOFError, zlib.error) as exc:
            self.skip(path, f"not a readable page file ({exc})")
        return None

    def pages(self) -> Iterator[Page]:
        """Pages in order; files that are not HTML and repeated page ids are skipped here,
        for every reader, with the file named in the reason."""
        self.skipped = []
        first: dict[str, str] = {}  # page id -> the file it came from
        n = 0
        for page in self._iter_pages():
            if self.limit is not None and n >= self.limit:
                return
            where = page.source or page.id
            reason = sniff_not_html(page.raw, page.html)
            if reason is None and page.id in first:
                reason = f"duplicate page id {page.id!r} (first read from {first[page.id]})"
            if reason is not None:
                self.skip(where, reason)
                continue
            first[page.id] = where
            self.seen_[page.id] = page.sha256
            n += 1
            yield page

    def _iter_pages(self) -> Iterator[Page]:  # pragma: no cover - interface
        raise NotImplementedError

    def page_count(self) -> int | None:
        """At most how many pages :meth:`pages` hands out, from file names alone (no file is
        read): the total of the run's progress bar (evalkit.report.progress). Files found
        unreadable, not HTML or repeated while reading make the pages fewer. None when the
        reader cannot tell cheaply or its folder is missing."""
        try:
            n = self._count_pages()
        except (OSError, DatasetMissingError, ValueError):
            return None
        if n is None:
            return None
        return n if self.limit is None else min(n, self.limit)

    def _count_pages(self) -> int | None:
        """The page files of the folder, counted by name (None: not known); readers that
        can count cheaply override it."""
        return None

    def get_params(self) -> dict:
        return {"path": self.path, "limit": self.limit}


class LazyPages:
    """A reader's pages that the runner can also take as one task per site, each of which
    makes its pages where it runs (:class:`evalkit.readers.synthetic.SiteTask`).

    Iterating gives the pages as :meth:`Dataset.pages` does, in this process (every other
    consumer). The runner instead asks :meth:`site_tasks` for the tasks; a task's pages come
    out of its ``pages()`` in the worker, and the worker sends back each page's id and
    sha256 for :meth:`note_seen`, so ``seen_`` (run.json's fingerprint) is the same as if
    the pages had been read here. Only a reader whose pages need no checks (generated,
    never foreign files or repeated ids) hands out tasks.
    """

    def __init__(self, dataset: Dataset, site_tasks: Callable[[], Iterable]):
        self.dataset = dataset
        self._site_tasks = site_tasks
        self._it: Iterator[Page] | None = None

    def __iter__(self) -> Iterator[Page]:
        return self

    def __next__(self) -> Page:
        if self._it is None:
            self._it = Dataset.pages(self.dataset)
        return next(self._it)

    def site_tasks(self) -> Iterator:
        """One task per site (an object with ``pages() -> list[Page]``), cut at ``limit``."""
        self.dataset.skipped = []
        yield from self._site_tasks()

    def note_seen(self, page_id: str, sha256: str) -> None:
        """Record a page a worker made from one of :meth:`site_tasks` (``Dataset.seen_``)."""
        self.dataset.seen_[page_id] = sha256


class InMemoryDataset(Dataset):
    """Pages already in memory (tests, notebooks, pages built by another tool).

    They come out grouped by site (:func:`group_by_site`), otherwise in the given order.
    """

    name = "memory"

    def __init__(
        self, pages: list[Page] | None = None, limit: int | None = None, name: str = "memory"
    ):
        super().__init__(path=None, limit=limit)
        self.name = name
        self.pages_ = list(pages or [])

    def _iter_pages(self) -> Iterator[Page]:
        yield from group_by_site(self.pages_, site_of)

    def _count_pages(self) -> int:
        return len(self.pages_)
