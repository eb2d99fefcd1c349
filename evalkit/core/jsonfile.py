"""JSON read from data: a benchmark's index or ground truth, a tool's stored outputs.

Such a file is untrusted input. Whatever it holds (cut off half-way, nested deeper than
Python's JSON reader recurses, not text at all) it is one :class:`DataFileError` naming the
file, never a traceback: the run stops with that line and its run folder is marked
(evalkit.harness.rundir.mark_failed).
"""

from __future__ import annotations

import json
import os
from typing import Any

__all__ = ["DataFileError", "loads"]


class DataFileError(ValueError):
    """A data file that cannot be read as its format says; the message names the file."""


def loads(raw: bytes | str, where: str | os.PathLike) -> Any:
    """``json.loads(raw)``; anything that is not a JSON document is :class:`DataFileError`
    ``"<where>: not a JSON document (...)"``. Nesting too deep for the reader (``[`` a
    hundred thousand times: ``RecursionError``) is said so."""
    try:
        return json.loads(raw)
    except RecursionError:
        raise DataFileError(
            f"{os.fspath(where)}: not a JSON document (nested too deeply to read)"
        ) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise DataFileError(f"{os.fspath(where)}: not a JSON document ({exc})") from exc
