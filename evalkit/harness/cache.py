"""The extraction cache: one checksummed JSON entry per key, written atomically (docs/cache.md).

The keys are evalkit.harness.cache_keys'; score records are cached beside the extractions
by evalkit.harness.score_cache.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from evalkit.core.files import (
    OWNED_TAG,
    NotRegular,
    is_owned,
    mark_owned,
    own_temp,
    read_regular,
    remove_stale_temps,
    temp_beside,
)
from evalkit.core.page import Extraction
from evalkit.harness import cache_entry
from evalkit.harness.cache_seal import cache_seal
from evalkit.harness.errors import CacheWriteError, cache_write_line

__all__ = [
    "ENTRY_NAME",
    "MAX_ENTRY_BYTES",
    "ExtractionCache",
    "claim",
    "invalid_entries_line",
    "read_entry",
    "sweep_temps",
    "write_atomic",
]

#: a cache file larger than this is not read (a miss, counted invalid): the cap on what
#: one entry may make this process hold
MAX_ENTRY_BYTES = 512 << 20
#: the name of an extraction entry or a score record: a sha256 key and its suffix
ENTRY_NAME = re.compile(r"^[0-9a-f]{64}\.(?:json|score)$")
#: what a cache folder holds at its top: key shards, score records, the method index, the mark
_TOP = re.compile(
    r"^(?:[0-9a-f]{2}|scores|methods|hmac\.key|\.hmac\.key~[^/]*\.tmp"
    r"|\.evalkit[^/]*)$"
)


class ExtractionCache:
    """One JSON entry per key (:mod:`evalkit.harness.cache_entry`) under ``<root>/<key[:2]>/``.

    Reading runs no code: an entry is parsed as JSON and checked against its key, its
    checksum, the HMAC under the cache's own key (evalkit.harness.cache_seal) and the shape
    of an extraction. One that fails (corrupt, truncated, written by another version,
    forged, copied from another cache) is a miss: :meth:`get` returns None and counts it in
    ``invalid``, and the caller's :meth:`put` replaces it. Writes are atomic (a temporary
    file renamed into place), so a killed run leaves whole entries or none. Files of the
    old pickle cache (``*.pkl``) are never opened.
    """

    SUFFIX = ".json"

    def __init__(self, root: str | os.PathLike | None):
        self.root = Path(root) if root else None
        #: entries found but not valid since this object was made
        self.invalid = 0
        self._marked = False

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}{self.SUFFIX}"

    def get(self, key: str) -> Extraction | None:
        """The cached extraction of ``key``; None if there is none or it is not valid."""
        if self.root is None:
            return None
        data = read_entry(self._path(key))
        if data is None:
            return None
        if data is False:  # a FIFO, folder, device, oversized or unreadable file in its place
            self.invalid += 1
            return None
        try:
            return cache_entry.decode(data, key, cache_seal(self.root))
        except cache_entry.InvalidEntry:
            self.invalid += 1
            return None

    def put(self, key: str, ext: Extraction) -> None:
        """Store ``ext`` under ``key``, replacing whatever is there (TypeError if a field is
        not JSON data; :func:`evalkit.harness.cache_entry.as_data` first says which).
        :class:`~evalkit.harness.errors.CacheWriteError`, one line naming the cache folder,
        when it cannot be written (a full disk)."""
        if self.root is None:
            return
        if not self._marked:  # a cache this process makes is marked evalkit's at birth
            self._marked = self.root.is_dir() or _mark_new(self.root)
        data = cache_entry.encode(key, ext, cache_seal(self.root))
        try:
            write_atomic(self._path(key), data)
        except OSError as exc:
            raise CacheWriteError(cache_write_line(self.root, exc)) from None


def _mark_new(root: Path) -> bool:
    try:
        mark_owned(root)
    except OSError as exc:
        raise CacheWriteError(cache_write_line(root, exc)) from None
    return True


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder, so a reader
    (or a second worker writing the same entry) never sees half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = temp_beside(path)  # a plain file's mode, named after this process
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_entry(path: Path) -> bytes | None | bool:
    """The bytes of a cache file; None when there is none; False when what is there is no
    regular file of at most :data:`MAX_ENTRY_BYTES` or cannot be read (a FIFO put in an
    entry's place is refused at once, never waited on)."""
    try:
        return read_regular(path, MAX_ENTRY_BYTES)
    except FileNotFoundError:
        return None
    except (NotRegular, OSError):
        return False


def claim(root: str | os.PathLike | None) -> bool:
    """Whether ``root`` is a cache evalkit may sweep and prune: marked as its own
    (evalkit.core.files.mark_owned), or an existing folder holding nothing but what a cache
    holds (key shards, ``scores``, ``methods``, evalkit's temporary files: a cache from before
    the mark, or an empty folder), which is marked now. A folder holding anything else is
    never marked: nothing in it is deleted."""
    if not root or not Path(root).is_dir():
        return False
    if is_owned(root):
        return True
    try:
        names = [e.name for e in os.scandir(root)]
    except OSError:
        return False
    if any(not (_TOP.match(n) or own_temp(n) or n == OWNED_TAG) for n in names):
        return False
    try:
        mark_owned(root)
    except OSError:
        return False
    return True


def sweep_temps(root: str | os.PathLike | None) -> int:
    """Remove the temporary files of cache writes that were killed (evalkit.core.files
    .remove_stale_temps: evalkit's own names only) from every entry folder under ``root``,
    once per run (Runner.open), and only in a cache evalkit marked (:func:`claim`).
    Returns how many were removed."""
    if not claim(root):
        return 0
    folders = [d for d in Path(root).iterdir() if d.is_dir() and not d.is_symlink()]
    folders += [
        d
        for f in folders
        if f.name == "scores"
        for d in f.iterdir()
        if d.is_dir() and not d.is_symlink()
    ]
    return remove_stale_temps(root, folders)


def invalid_entries_line(root: str | os.PathLike, n: int) -> str:
    """The one line a run prints when ``n`` cache entries under ``root`` did not validate."""
    return (
        f"evalkit: {n} {'entry' if n == 1 else 'entries'} in the extraction cache {root} "
        "did not validate (corrupt, truncated, crafted or from another evalkit version); "
        "they were treated as misses, re-extracted and rewritten"
    )
