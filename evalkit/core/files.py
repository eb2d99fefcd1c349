"""The write gate: files written whole or not at all, and deleted only when evalkit made them
(docs/security.md, "The write gate").

Every file evalkit writes for keeps (results, figures, cache entries) goes through a
temporary file beside it (:func:`temp_beside`) renamed into place, so a reader or a killed
run never sees half a file. The temporary file gets the mode a plain ``open`` would give
(``0666`` less the umask; :func:`tempfile.mkstemp` alone makes it ``0600``) and a name
that says which process writes it (:func:`own_temp`), so :func:`remove_stale_temps` can
clear what a killed writer left without touching a write in progress, nor any other
program's ``*.tmp``.

Writes and deletes stay where they belong: :func:`check_inside` refuses a path whose real
place is outside the folder it must be in (a run folder's ``hydra.output_subdir``), and
:func:`remove_owned` deletes a file only inside its folder, never through a link, and only
when its name is one evalkit gives. A folder evalkit keeps for its own files (the cache)
carries :data:`OWNED_TAG` (:func:`mark_owned`), a ``CACHEDIR.TAG`` as backup tools know it:
nothing is pruned from a folder without it. The read side is evalkit.core.capped.
"""

from __future__ import annotations

import os
import re
import socket
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from evalkit.core.capped import NotRegular, read_regular

__all__ = [
    "OWNED_TAG",
    "STALE_TEMP_SECONDS",
    "NotRegular",
    "WriteRefused",
    "check_inside",
    "is_owned",
    "mark_owned",
    "new_file_mode",
    "own_temp",
    "read_regular",
    "remove_owned",
    "remove_stale_temps",
    "temp_beside",
]

#: a temporary file older than this is a leftover of a killed write whoever made it (a
#: write takes milliseconds; this leaves room for a slow shared file system)
STALE_TEMP_SECONDS = 600.0

_HOST = socket.gethostname().replace("~", "-").replace("/", "-")
#: ``.<name>~<pid>@<host>~<random>.tmp``: the writer of a temporary file
_TEMP_NAME = re.compile(r"^\..+~(\d+)@([^~/]*)~[^~/]*\.tmp$")
#: the file that marks a folder as evalkit's own (the Cache Directory Tagging Specification)
OWNED_TAG = "CACHEDIR.TAG"
_TAG_SIGNATURE = b"Signature: 8a477f597d28d172789f06886806bc55"
_TAG_TEXT = _TAG_SIGNATURE + (
    b"\n# This folder is an evalkit cache (docs/cache.md); evalkit "
    b"deletes files here only under this mark.\n"
)


class WriteRefused(OSError):
    """A write or delete outside the folder it must stay in: nothing was written."""


def check_inside(path: str | os.PathLike, root: str | os.PathLike, what: str) -> Path:
    """``path`` when its real place (its folder's links followed; the name itself as it is)
    lies in the real path of ``root``; else :class:`WriteRefused` naming ``what``."""
    path = Path(path)
    real = Path(os.path.realpath(path.parent)) / path.name
    base = os.path.realpath(root)
    if path.name in ("", ".", "..") or not (
        str(real) == base or str(real).startswith(base.rstrip(os.sep) + os.sep)
    ):
        raise WriteRefused(f"{what}: {path} is outside {root}; evalkit writes only there")
    return path


def own_temp(name: str) -> bool:
    """Whether ``name`` is a temporary file of :func:`temp_beside` (no other ``*.tmp``)."""
    return _TEMP_NAME.match(name) is not None


def mark_owned(root: str | os.PathLike) -> None:
    """Make ``root`` (if needed) and mark it evalkit's own with :data:`OWNED_TAG`."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    if not is_owned(root):
        fd, tmp = temp_beside(root / OWNED_TAG)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(_TAG_TEXT)
            os.replace(tmp, root / OWNED_TAG)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def is_owned(root: str | os.PathLike) -> bool:
    """Whether ``root`` carries evalkit's :data:`OWNED_TAG` (a regular file, not a link)."""
    try:
        return read_regular(Path(root) / OWNED_TAG, 4096).startswith(_TAG_SIGNATURE)
    except OSError:
        return False


def remove_owned(
    path: str | os.PathLike, root: str | os.PathLike, owned: Callable[[str], bool]
) -> bool:
    """Delete ``path`` only when ``root`` is marked evalkit's own (:func:`is_owned`), the
    path lies inside it (:func:`check_inside`), ``owned(name)`` says evalkit gives such
    names, and it is a regular file (a link is never followed nor removed). Returns
    whether it was removed; a file already gone is not an error."""
    path = Path(path)
    if not owned(path.name) or not is_owned(root):
        return False
    try:
        check_inside(path, root, "delete")
        if not stat.S_ISREG(path.lstat().st_mode):
            return False
        path.unlink()
    except OSError:
        return False
    return True


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
    fd, tmp = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}~{os.getpid()}@{_HOST}~", suffix=".tmp"
    )
    try:
        os.fchmod(fd, new_file_mode())
    except OSError:  # a file system without modes: mkstemp's stays
        pass
    return fd, tmp


def remove_stale_temps(root: str | os.PathLike, folders, now: float | None = None) -> int:
    """Remove evalkit's temporary files (:func:`own_temp`; another program's ``*.tmp`` is
    never touched) in ``folders`` of the folder ``root`` evalkit marked its own
    (:func:`remove_owned`) that no write will finish: older than :data:`STALE_TEMP_SECONDS`,
    or made by a process of this machine that no longer runs. Returns how many were
    removed."""
    now = time.time() if now is None else now
    removed = 0
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if not own_temp(entry.name):
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode):
                continue
            m = _TEMP_NAME.match(entry.name)
            dead = m.group(2) == _HOST and not _alive(int(m.group(1)))
            if (dead or now - info.st_mtime > STALE_TEMP_SECONDS) and remove_owned(
                entry.path, root, own_temp
            ):
                removed += 1
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: it runs
        return True
    return True
