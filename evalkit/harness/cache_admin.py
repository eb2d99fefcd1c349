"""A cache you can manage (issue 29, item 7): size and entries per method, pruning.

``python -m evalkit.cache`` (:mod:`evalkit.cache`) lists the extraction cache
(``paths.cache``, default ``<results>/cache``: docs/cache.md) and prunes it::

    python -m evalkit.cache                          # size, and entries per method
    python -m evalkit.cache --prune --older-than 30  # entries written more than 30 days ago
    python -m evalkit.cache --prune --method cetd    # every entry of a method (label or name)
    python -m evalkit.cache --prune --max-size 200   # oldest entries first, down to 200 MB

An extraction entry's file names only its key, a hash of the method, the page and what
could change the output (evalkit.harness.cache_keys), so it cannot say which method wrote
it. Each run therefore adds the keys of the entries it wrote to an index (:func:`record_run`):
``<cache>/methods/<method key>.json`` names the method (label, registry name, parameters) and
``<method key>.keys`` lists its entry keys, a line each, appended. Entries of runs before the
index, and score records (``scores/``), show as *unattributed*; they are pruned by age and
size, not by method. Pruning deletes files
only: a pruned entry is a miss, re-extracted by the next run that needs it. It deletes only
in a folder marked as an evalkit cache (evalkit.harness.cache.claim) and only files named as
evalkit names entries (a key and ``.json``/``.score``), never through a link
(evalkit.core.files.remove_owned): ``--cache`` pointed at another folder deletes nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.core.files import OWNED_TAG, NotRegular, read_regular, remove_owned, temp_beside
from evalkit.harness.cache import ENTRY_NAME, claim

__all__ = [
    "INDEX",
    "UNATTRIBUTED",
    "CacheListing",
    "Entry",
    "WrittenLog",
    "entry_key",
    "entry_keys",
    "listing",
    "main",
    "prune",
    "record_run",
    "size_line",
]

#: the index folder under the cache root
INDEX = "methods"
#: the row of entries no index names
UNATTRIBUTED = "(unattributed)"
MB = 1_000_000
DAY = 86_400.0
#: the name of an index file (a method key and ``.json``, or ``.keys``: KEYS_SUFFIX)
_INDEX_NAME = re.compile(r"^[\w-][\w.-]*\.(json|keys)$")


@dataclass(frozen=True)
class Entry:
    """One cache file: its path, size in bytes and when it was written (epoch seconds)."""

    path: Path
    size: int
    mtime: float


@dataclass
class CacheListing:
    """Every entry of a cache, and the methods (label -> keys) the index names."""

    root: Path
    entries: dict[str, Entry] = field(default_factory=dict)
    #: method label -> {"registry": ..., "keys": set of entry keys}
    methods: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def size(self) -> int:
        return sum(e.size for e in self.entries.values())

    def owners(self) -> dict[str, list[str]]:
        """Entry key -> the labels whose index names it."""
        out: dict[str, list[str]] = {}
        for label, info in self.methods.items():
            for key in info["keys"]:
                if key in self.entries:
                    out.setdefault(key, []).append(label)
        return out

    def rows(self) -> list[tuple[str, int, int]]:
        """(method, entries, bytes), largest first, then the unattributed entries."""
        owners = self.owners()
        per: dict[str, list[int]] = {}
        for key, entry in self.entries.items():
            for label in owners.get(key, [UNATTRIBUTED]):
                slot = per.setdefault(label, [0, 0])
                slot[0] += 1
                slot[1] += entry.size
        named = sorted(
            ((m, n, b) for m, (n, b) in per.items() if m != UNATTRIBUTED),
            key=lambda r: (-r[2], r[0]),
        )
        if UNATTRIBUTED in per:
            named.append((UNATTRIBUTED, *per[UNATTRIBUTED]))
        return named


def entry_key(method_key: str, page_key: str) -> str:
    """The extraction entry of a (non site-scope) method on a page: the key
    evalkit.harness.pipeline stores it under (method key, page key, no site context)."""
    return hashlib.sha256(f"{method_key}|{page_key}|".encode()).hexdigest()


def entry_keys(method_key: str, page_keys: Iterable[str]) -> list[str]:
    """:func:`entry_key` of each page."""
    return [entry_key(method_key, pkey) for pkey in page_keys]


class WrittenLog:
    """The cache entries a run wrote, as (method label, page key) lines in an unnamed file of
    the cache's index folder (gone when closed or when the process dies): the keys wait on
    disk for :func:`record_run`, so a run's memory does not grow with its pages."""

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self._fh = None
        self._read = False  # the file's position is not at its end (a read went first)

    def add(self, label: str, page_key: str) -> None:
        if self._fh is None:
            folder = self.root / INDEX
            folder.mkdir(parents=True, exist_ok=True)
            # open until close(): the log outlives this call
            self._fh = tempfile.TemporaryFile("w+", dir=folder, encoding="utf-8")  # noqa: SIM115
        elif self._read:  # back to the end after a read, even one stopped halfway
            self._fh.seek(0, os.SEEK_END)
            self._read = False
        self._fh.write(f"{label}\t{page_key}\n")

    def __iter__(self) -> Iterator[tuple[str, str]]:
        if self._fh is None:
            return
        self._fh.flush()
        self._fh.seek(0)
        self._read = True
        for line in self._fh:
            label, _, page_key = line.rstrip("\n").rpartition("\t")
            yield label, page_key

    def __bool__(self) -> bool:
        return self._fh is not None

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def record_run(
    root: str | os.PathLike | None,
    methods: Iterable[tuple[str, str, Any, str]],
    written: Iterable[tuple[str, str]],
) -> None:
    """Add the entries a run wrote to the index: ``methods`` are (label, registry, params,
    method key) of the cached methods, ``written`` (method label, page key) pairs
    (:class:`WrittenLog`). A method's ``<method key>.json`` names it, and its entry keys are
    appended to ``<method key>.keys``, a line each, streamed, so neither this run nor the
    index is held in memory. Appends happen under a lock on ``<cache>/methods/.lock``
    (:func:`fcntl.flock`), so two runs recording at once both keep their keys (issue 37,
    item 19). Best effort: an index that cannot be written leaves the cache as it was."""
    if not root:
        return
    folder = Path(root) / INDEX
    named = {label: (registry, params, mkey) for label, registry, params, mkey in methods}
    files: dict[str, Any] = {}
    try:
        with _index_lock(folder):
            try:
                for label, page_key in written:
                    if label not in named:
                        continue
                    registry, params, mkey = named[label]
                    if label not in files:
                        _write_header(folder / f"{mkey}.json", label, registry, params)
                        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW
                        fd = os.open(folder / f"{mkey}{KEYS_SUFFIX}", flags, 0o666)
                        files[label] = os.fdopen(fd, "a", encoding="ascii")
                    files[label].write(entry_key(mkey, page_key) + "\n")
            finally:
                for fh in files.values():
                    fh.close()
    except OSError:
        return


def _write_header(path: Path, label: str, registry: str, params: Any) -> None:
    """A method's index file, unless it has one (an index of older runs also lists its
    entries there: they stay)."""
    if path.exists() or path.is_symlink():
        return
    data = {"label": label, "registry": registry, "params": params}
    fd, tmp = temp_beside(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(data, default=str))
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)


#: the lock file of the index folder (never pruned, listed or read)
INDEX_LOCK = ".lock"
#: a method's index header larger than this is not read (an older run's, listing its entries)
MAX_INDEX_BYTES = 256 << 20
#: the file of a method's entry keys beside its ``<method key>.json``, a key a line
KEYS_SUFFIX = ".keys"
#: an entry key as a line of a keys file
_KEY_LINE = re.compile(r"^[0-9a-f]{64}$")


@contextlib.contextmanager
def _index_lock(folder: Path):
    """Hold the index folder's lock (exclusive; released when the file is closed, and by the
    system when the process dies)."""
    import fcntl

    folder.mkdir(parents=True, exist_ok=True)
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(folder / INDEX_LOCK, flags, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _index_header(path: Path) -> dict:
    """A method's index file: label, registry, params and, written by older runs, entries;
    {} when it cannot be read or is not an index."""
    try:
        data = json.loads(read_regular(path, MAX_INDEX_BYTES))
    except (OSError, NotRegular, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _index_keys(header: Path, data: dict) -> Iterator[str]:
    """The entry keys of one method: those its header lists (older runs) and the lines of its
    keys file, read a line at a time, never through a link; damaged lines are passed over."""
    entries = data.get("entries")
    if isinstance(entries, list):
        yield from (k for k in entries if isinstance(k, str))
    try:
        fd = os.open(header.with_suffix(KEYS_SUFFIX), os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return
    with os.fdopen(fd, encoding="ascii", errors="replace") as fh:
        for line in fh:
            key = line.rstrip("\n")
            if _KEY_LINE.match(key):
                yield key


def _entry_file(file: Path) -> bool:
    return ENTRY_NAME.match(file.name) is not None and not file.is_symlink()


def _shard(folder: Path) -> bool:
    return (
        len(folder.name) == 2
        and folder.is_dir()
        and not folder.is_symlink()
        and all(c in "0123456789abcdef" for c in folder.name)
    )


def _files(root: Path) -> Iterable[tuple[str, Path]]:
    """(key, file) of every extraction entry and score record under ``root``: files named
    as evalkit names them, in key shards (``ab/``, ``scores/ab/``), no link followed."""
    for shard in root.iterdir() if root.is_dir() else ():
        if shard.name == "scores" and shard.is_dir() and not shard.is_symlink():
            for sub in filter(_shard, shard.iterdir()):
                for file in filter(_entry_file, sub.iterdir()):
                    yield f"scores/{file.stem}", file
        elif _shard(shard):
            for file in filter(_entry_file, shard.iterdir()):
                if file.suffix == ".json":
                    yield file.stem, file


def listing(root: str | os.PathLike) -> CacheListing:
    """Every entry under ``root`` and the index's methods."""
    root = Path(root)
    out = CacheListing(root)
    for key, file in _files(root):
        try:
            st = file.stat()
        except OSError:
            continue
        out.entries[key] = Entry(file, st.st_size, st.st_mtime)
    for path in sorted((root / INDEX).glob("*.json")) if (root / INDEX).is_dir() else ():
        data = _index_header(path)
        if not data:
            continue
        label = str(data.get("label", path.stem))
        if label in out.methods and out.methods[label]["registry"] != data.get("registry"):
            label = f"{label} [{path.stem[:8]}]"
        slot = out.methods.setdefault(
            label, {"registry": data.get("registry"), "keys": set(), "index": []}
        )
        slot["keys"].update(_index_keys(path, data))
        slot["index"] += [path, path.with_suffix(KEYS_SUFFIX)]
    return out


def prune(
    root: str | os.PathLike,
    *,
    older_than_days: float | None = None,
    methods: Iterable[str] = (),
    max_size_mb: float | None = None,
    now: float | None = None,
    dry_run: bool = False,
) -> tuple[int, int]:
    """Delete entries written more than ``older_than_days`` ago, every entry of the named
    ``methods`` (label or registry name), then the oldest entries until the cache holds at
    most ``max_size_mb``. Returns (files deleted, bytes freed)."""
    found = listing(root)
    now = time.time() if now is None else now
    doomed: set[str] = set()
    if older_than_days is not None:
        doomed |= {k for k, e in found.entries.items() if now - e.mtime > older_than_days * DAY}
    names = set(methods)
    for label, info in found.methods.items():
        if label in names or info["registry"] in names:
            doomed |= info["keys"] & set(found.entries)
    if max_size_mb is not None:
        left = found.size - sum(found.entries[k].size for k in doomed)
        for key, entry in sorted(found.entries.items(), key=lambda kv: kv[1].mtime):
            if left <= max_size_mb * MB:
                break
            if key not in doomed:
                doomed.add(key)
                left -= entry.size
    freed = sum(found.entries[k].size for k in doomed)
    if not dry_run:
        if not claim(root):
            raise PermissionError(
                f"{root}: not an evalkit cache (it holds files a cache does not); nothing deleted"
            )
        for key in doomed:
            remove_owned(found.entries[key].path, root, ENTRY_NAME.match)
        for label, info in found.methods.items():  # an index keeps the keys still there
            if label in names or info["registry"] in names:
                for path in info["index"]:
                    remove_owned(path, root, _INDEX_NAME.match)
    return len(doomed), freed


def size_line(root: str | os.PathLike | None, threshold_mb: float | None) -> str | None:
    """The line the end of a run prints when the cache holds more than ``threshold_mb``."""
    if not root or threshold_mb is None or not Path(root).is_dir():
        return None
    total = 0
    for _, file in _files(Path(root)):
        try:
            total += file.stat().st_size
        except OSError:
            continue
    if total <= threshold_mb * MB:
        return None
    return (
        f"evalkit: the extraction cache {root} holds {total / MB:,.0f} MB (more than "
        f"runner.cache_report_mb={threshold_mb:g}); list and prune it with "
        "python -m evalkit.cache"
    )


def _default_root() -> Path:
    """``paths.cache``'s default: ``<results>/cache`` (configs/paths/default.yaml)."""
    from evalkit.core.layout import default_results

    return Path(default_results()) / "cache"


def _parser():
    import argparse

    p = argparse.ArgumentParser(
        prog="python -m evalkit.cache",
        description="List the extraction cache (size and entries per method) or prune it.",
        epilog="examples: python -m evalkit.cache ; python -m evalkit.cache --prune "
        "--older-than 30 ; python -m evalkit.cache --prune --method cetd ; "
        "python -m evalkit.cache --prune --max-size 200 --dry-run",
    )
    p.add_argument(
        "--cache",
        default=None,
        help="the cache folder (default: paths.cache's default, <results>/cache)",
    )
    p.add_argument("--prune", action="store_true", help="delete entries (else only list)")
    p.add_argument(
        "--older-than",
        type=float,
        metavar="DAYS",
        help="prune entries written more than DAYS days ago",
    )
    p.add_argument(
        "--method",
        action="append",
        default=[],
        metavar="NAME",
        help="prune every entry of this method (label or registry name; repeatable)",
    )
    p.add_argument(
        "--max-size",
        type=float,
        metavar="MB",
        help="prune the oldest entries until the cache holds at most MB megabytes",
    )
    p.add_argument("--dry-run", action="store_true", help="say what --prune would delete")
    return p


def main(argv: list[str] | None = None) -> int:
    """``python -m evalkit.cache``: list, or prune with ``--prune`` (exit 2 on a bad use)."""
    from evalkit.core.terminal import guard_console

    guard_console()  # data's control characters are shown, never obeyed

    import sys

    args = _parser().parse_args(argv)
    root = Path(args.cache) if args.cache else _default_root()
    if not root.is_dir():
        print(f"evalkit.cache: {root}: no such cache folder", file=sys.stderr)
        return 2
    if args.prune:
        if not claim(root):
            print(
                f"evalkit.cache: {root}: not an evalkit cache (it holds files a cache does "
                f"not, and no {OWNED_TAG}); nothing deleted",
                file=sys.stderr,
            )
            return 2
        if args.older_than is None and not args.method and args.max_size is None:
            print(
                "evalkit.cache: --prune needs --older-than DAYS, --method NAME or --max-size MB",
                file=sys.stderr,
            )
            return 2
        found = listing(root)
        known = set(found.methods) | {i["registry"] for i in found.methods.values()}
        unknown = [m for m in args.method if m not in known]
        if unknown:
            print(
                f"evalkit.cache: no method {unknown[0]!r} in the index of {root}; indexed: "
                f"{', '.join(sorted(found.methods)) or 'none'}",
                file=sys.stderr,
            )
            return 2
        n, freed = prune(
            root,
            older_than_days=args.older_than,
            methods=args.method,
            max_size_mb=args.max_size,
            dry_run=args.dry_run,
        )
        verb = "would delete" if args.dry_run else "deleted"
        print(f"evalkit.cache: {verb} {n} entries, {freed / MB:,.1f} MB")
    found = listing(root)
    print(f"{root}: {len(found.entries)} entries, {found.size / MB:,.1f} MB")
    rows = found.rows()
    width = max([len(m) for m, _, _ in rows] + [6])
    print(f"  {'method':<{width}}  {'entries':>8}  {'MB':>9}")
    for method, n, size in rows:
        print(f"  {method:<{width}}  {n:>8}  {size / MB:>9.1f}")
    return 0
