"""The read gate: every file evalkit reads from data passes here (docs/security.md, "The read
gate").

Data files (pages, gold, index files, stored outputs, a run folder's figures, cache entries)
are untrusted input. A file is read only when it is

- **inside the folder the user named** (``root``): its real path (every symbolic link
  followed) lies under the real path of ``root``, so a link in ``html/`` to ``/etc/passwd``
  or a folder link leading out is refused; a name that data itself gives (a file name in
  ``evaldata.json``, a figure path in ``report_sections.json``) must be relative and
  without ``..`` (:func:`inside`);
- **a regular file**: a FIFO, device, socket or folder put in its place is refused without
  waiting on it (opened ``O_NONBLOCK``, checked on the open file);
- **within its size cap**, checked before it is read, and for a ``.gz`` name as it is
  decompressed (a 3 MB file can inflate to 3 GiB).

Anything else raises :class:`Refused` (one line: the reason), never reads a byte. Used by
every reader (``evalkit.readers.base``), the ``stored`` method, the report rebuilder and the
extraction cache (:func:`read_regular`). A folder swapped for a link *while* a file is
opened is outside what this checks (the last component is opened ``O_NOFOLLOW``; a folder
above it is not).
"""

from __future__ import annotations

import errno
import os
import stat
import zlib
from pathlib import Path, PurePath

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "FileTooLarge",
    "NotRegular",
    "Refused",
    "inside",
    "read_capped",
    "read_regular",
    "within",
]

#: the default of ``runner.max_page_bytes`` and ``runner.max_gold_bytes`` (configs/runner/)
DEFAULT_MAX_FILE_BYTES = 50_000_000
# bytes decompressed per step while a .gz file is read under a cap
_GZ_CHUNK = 1 << 20
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class Refused(ValueError):
    """A file the read gate does not read: outside the folder the user named, a name from
    data that is absolute or climbs out (``..``), not a regular file, or over its size cap.
    The message is the reason a reader records (``too large: N bytes > runner.max_page_bytes``)."""


#: the name readers catch (the gate began as a size cap): every refusal is one
FileTooLarge = Refused


class NotRegular(OSError):
    """:func:`read_regular`'s refusal, an OSError for callers that treat it as an unreadable
    file (the cache: a miss)."""


def inside(root: str | os.PathLike, name: str, what: str = "file name") -> Path:
    """``root / name`` for a ``name`` that data gives (an index file's entry, a sections
    file's figure). Refused when it is empty, absolute, holds a NUL or a ``..`` part: data
    never names a file outside the folder it came in. The result is still read through
    :func:`read_capped` with ``root`` (a link inside may lead out)."""
    if not isinstance(name, str) or not name or "\0" in name:
        raise Refused(f"{what} {name!r}: not a file name")
    parts = PurePath(name).parts
    if (
        os.path.isabs(name)
        or name.startswith(("/", "\\"))
        or ".." in parts
        or ".." in name.replace("\\", "/").split("/")
    ):
        raise Refused(f"{what} {name!r}: leads out of {root} (absolute or '..'); not read")
    return Path(root) / name


def within(path: str | os.PathLike, root: str | os.PathLike) -> str:
    """The real path of ``path`` when it lies inside the real path of ``root``; else
    :class:`Refused` naming where it leads (a symbolic link out, a ``..``)."""
    real = os.path.realpath(path)
    base = os.path.realpath(root)
    if real != base and not real.startswith(base.rstrip(os.sep) + os.sep):
        how = "a symbolic link leading" if os.path.islink(path) else "it leads"
        raise Refused(f"{how} out of {root} (to {real}); not read")
    return real


def _read(
    path: str | os.PathLike,
    cap: int | None,
    setting: str,
    root: str | os.PathLike | None,
    nofollow: bool,
) -> bytes:
    """The raw bytes of a regular file under ``cap`` (module docstring)."""
    target = within(path, root) if root is not None else os.fspath(path)
    info = os.stat(target, follow_symlinks=not nofollow)  # FileNotFoundError passes
    if not stat.S_ISREG(info.st_mode):  # refused before it is opened (a device, a FIFO)
        raise Refused(
            f"not a regular file (a FIFO, device, socket or folder); {setting} needs its size"
        )
    try:
        fd = os.open(target, _FLAGS | (_NOFOLLOW if nofollow or root is not None else 0))
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EISDIR):  # swapped since the check
            raise Refused(f"not a regular file (swapped while read); {setting}") from None
        raise
    try:
        info = os.fstat(fd)  # the file opened, not the name checked
        if not stat.S_ISREG(info.st_mode):
            raise Refused(
                f"not a regular file (a FIFO, device, socket or folder); {setting} needs its size"
            )
        if cap is not None and info.st_size > cap:
            raise Refused(f"too large: {info.st_size} bytes > {setting}")
        chunks, left = [], (cap + 1 if cap is not None else None)
        while left is None or left > 0:
            chunk = os.read(fd, 1 << 20 if left is None else min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            if left is not None:
                left -= len(chunk)
        raw = b"".join(chunks)
    finally:
        os.close(fd)
    if cap is not None and len(raw) > cap:  # it grew since the check
        raise Refused(f"too large: over {cap} bytes > {setting}")
    return raw


def read_capped(
    path: str | os.PathLike, cap: int | None, setting: str, root: str | os.PathLike | None = None
) -> bytes:
    """The bytes of ``path`` through the gate: with ``root``, only when its real path lies
    inside ``root``'s; a regular file only; its size checked against ``cap`` *before* it is
    read; a name ending in ``.gz`` decompressed as a stream, stopping once the decompressed
    size passes ``cap`` too. ``setting`` names the cap in the error. :class:`Refused` for
    each refusal; ``OSError`` (FileNotFoundError) and ``zlib.error``/``EOFError`` (a broken
    .gz) pass through."""
    raw = _read(path, cap, setting, root, nofollow=False)
    if not os.fspath(path).lower().endswith(".gz"):
        return raw
    inflate = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    out, size, data = [], 0, raw
    while True:
        piece = inflate.decompress(data, _GZ_CHUNK)
        size += len(piece)
        if cap is not None and size > cap:
            raise Refused(f"too large: over {cap} bytes decompressed > {setting}")
        out.append(piece)
        if inflate.eof:
            if not inflate.unused_data:
                break
            # a second gzip member follows (as gzip.decompress reads it)
            data, inflate = inflate.unused_data, zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
            continue
        data = inflate.unconsumed_tail
        if not data and not piece:
            raise EOFError("compressed file ended before the end-of-stream marker was reached")
    return b"".join(out)


def read_regular(
    path: str | os.PathLike, max_bytes: int, root: str | os.PathLike | None = None
) -> bytes:
    """The bytes of ``path`` as they are (no decompression) if it is a regular file of at most
    ``max_bytes`` that is no symbolic link (evalkit writes its own files by rename, never as
    links), inside ``root`` when given. FileNotFoundError when there is nothing;
    :class:`NotRegular` for anything the gate refuses."""
    try:
        return _read(path, max_bytes, f"the cap of {max_bytes} bytes", root, nofollow=True)
    except Refused as exc:
        raise NotRegular(errno.EINVAL, str(exc), str(path)) from None
    except IsADirectoryError:
        raise NotRegular(errno.EISDIR, "not a regular file", str(path)) from None
