"""A cache folder on a full disk (issue 37, item 17): :func:`fdopen_for` makes an
``os.fdopen`` whose files under the cache folder (every cache write: entries, records, the
key) fail with ENOSPC when written; other files are written as usual."""

from __future__ import annotations

import errno
import os

_REAL = os.fdopen


class _Full:
    def __init__(self, fh):
        self.fh = fh

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.fh.close()

    def write(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def flush(self):
        pass

    def fileno(self):
        return self.fh.fileno()

    def close(self):
        self.fh.close()


def fdopen_for(cache: str | os.PathLike):
    """``os.fdopen`` as on a disk that is full under ``cache``."""
    prefix = os.path.abspath(cache) + os.sep

    def fdopen(fd, *args, **kwargs):
        fh = _REAL(fd, *args, **kwargs)
        where = os.readlink(f"/proc/self/fd/{fd}")
        return _Full(fh) if where.startswith(prefix) else fh

    return fdopen
