"""Reading a file under a size cap checked before it is read: data files (pages, gold) and
stored outputs are untrusted input, and a 1 GB page or a 3 MB ``.gz`` that inflates to 3 GiB
must be refused before it is in memory (docs/inputs.md, "Hostile-input catalogue").

Shared by the data-set readers (``runner.max_page_bytes``, ``runner.max_gold_bytes``) and the
``stored`` method (its ``max_bytes``).
"""

from __future__ import annotations

import os
import stat
import zlib

__all__ = ["DEFAULT_MAX_FILE_BYTES", "FileTooLarge", "read_capped"]

#: the default of ``runner.max_page_bytes`` and ``runner.max_gold_bytes`` (configs/runner/)
DEFAULT_MAX_FILE_BYTES = 50_000_000
# bytes decompressed per step while a .gz file is read under a cap
_GZ_CHUNK = 1 << 20


class FileTooLarge(ValueError):
    """A file over its size cap, or not a regular file: read no further. The message is the
    skip reason (``too large: N bytes > runner.max_page_bytes``)."""


def read_capped(path: str | os.PathLike, cap: int | None, setting: str) -> bytes:
    """The bytes of ``path``, its size checked against ``cap`` *before* it is read (``os.stat``);
    a name ending in ``.gz`` is decompressed as a stream, stopping once the decompressed size
    passes ``cap`` too (a 3 MB file can inflate to 3 GiB). ``setting`` names the cap in the
    error. Not a regular file (a FIFO, a device): :class:`FileTooLarge` as well, never opened.
    ``OSError`` and ``zlib.error``/``EOFError`` (a broken .gz) pass through."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise FileTooLarge(f"not a regular file (a FIFO, device or socket); {setting} "
                           "needs its size")
    if cap is not None and info.st_size > cap:
        raise FileTooLarge(f"too large: {info.st_size} bytes > {setting}")
    with open(path, "rb") as fh:
        raw = fh.read() if cap is None else fh.read(cap + 1)
    if cap is not None and len(raw) > cap:  # it grew since the stat
        raise FileTooLarge(f"too large: over {cap} bytes > {setting}")
    if not os.fspath(path).lower().endswith(".gz"):
        return raw
    inflate = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    out, size, data = [], 0, raw
    while True:
        piece = inflate.decompress(data, _GZ_CHUNK)
        size += len(piece)
        if cap is not None and size > cap:
            raise FileTooLarge(f"too large: over {cap} bytes decompressed > {setting}")
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
