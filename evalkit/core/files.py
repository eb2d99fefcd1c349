"""Files written whole or not at all, and read only when they are what they claim to be.

Every file evalkit writes for keeps (results, figures, cache entries) goes through a
temporary file beside it (:func:`temp_beside`) renamed into place, so a reader or a killed
run never sees half a file. The temporary file gets the mode a plain ``open`` would give
(``0666`` less the umask; :func:`tempfile.mkstemp` alone makes it ``0600``) and a name
that says which process writes it, so :func:`remove_stale_temps` can clear what a killed
writer left without touching a write in progress. :func:`read_regular` reads a file only
when it is a regular file within a size cap: a FIFO, a device or a folder put in its
place is refused at once, never waited on.
"""

from __future__ import annotations

import errno
import os
import re
import socket
import stat
import tempfile
import time
from pathlib import Path

__all__ = ["STALE_TEMP_SECONDS", "NotRegular", "new_file_mode", "read_regular",
           "remove_stale_temps", "temp_beside"]

#: a temporary file older than this is a leftover of a killed write whoever made it (a
#: write takes milliseconds; this leaves room for a slow shared file system)
STALE_TEMP_SECONDS = 600.0

_HOST = socket.gethostname().replace("~", "-").replace("/", "-")
#: ``.<name>~<pid>@<host>~<random>.tmp``: the writer of a temporary file
_TEMP_NAME = re.compile(r"~(\d+)@([^~/]*)~[^~/]*\.tmp$")


class NotRegular(OSError):
    """A path that is not a regular file (or is larger than allowed): never read."""


def new_file_mode() -> int:
    """The mode a new file gets from ``open`` under this process's umask."""
    try:  # Linux says it without changing it (another thread may be creating a file)
        with open("/proc/self/status", encoding="ascii") as fh:
            mask = next(int(line.split()[1], 8) for line in fh if line.startswith("Umask:"))
    except (OSError, StopIteration, ValueError, IndexError):
        mask = os.umask(0o022)  # elsewhere reading the umask means setting it: put it back
        os.umask(mask)
    return 0o666 & ~mask


def temp_beside(path: str | os.PathLike) -> tuple[int, str]:
    """``(fd, name)`` of a new temporary file in ``path``'s folder, with a plain file's mode
    and a name that records this process (for :func:`remove_stale_temps`). Write it, then
    ``os.replace`` it onto ``path``."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}~{os.getpid()}@{_HOST}~",
                               suffix=".tmp")
    try:
        os.fchmod(fd, new_file_mode())
    except OSError:  # a file system without modes: mkstemp's stays
        pass
    return fd, tmp


def remove_stale_temps(folders, now: float | None = None) -> int:
    """Remove the ``*.tmp`` files in ``folders`` that no write will finish: older than
    :data:`STALE_TEMP_SECONDS`, or made by a process of this machine that no longer runs.
    Returns how many were removed."""
    now = time.time() if now is None else now
    removed = 0
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if not entry.name.endswith(".tmp"):
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode):
                continue
            m = _TEMP_NAME.search(entry.name)
            dead = m is not None and m.group(2) == _HOST and not _alive(int(m.group(1)))
            if dead or now - info.st_mtime > STALE_TEMP_SECONDS:
                try:
                    os.unlink(entry.path)
                    removed += 1
                except OSError:
                    pass
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: it runs
        return True
    return True


def read_regular(path: str | os.PathLike, max_bytes: int) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``max_bytes``.

    Opened without following a FIFO's wait (``O_NONBLOCK``) and checked on the open file
    (``fstat``), so nothing swapped in between the check and the read gets through.
    FileNotFoundError when there is nothing; :class:`NotRegular` for a FIFO, device,
    socket or folder, or a file over the cap."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except IsADirectoryError:
        raise NotRegular(errno.EISDIR, "not a regular file", str(path)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(errno.EINVAL, "not a regular file", str(path))
        if info.st_size > max_bytes:
            raise NotRegular(errno.EFBIG, f"larger than {max_bytes} bytes", str(path))
        chunks, left = [], max_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > max_bytes:  # grew since fstat
            raise NotRegular(errno.EFBIG, f"larger than {max_bytes} bytes", str(path))
        return data
    finally:
        os.close(fd)
