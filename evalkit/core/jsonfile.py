"""JSON read from data: a benchmark's index or ground truth, a tool's stored outputs.

Such a file is untrusted input. Whatever it holds (cut off half-way, nested deeper than
Python's JSON reader recurses, not text at all) it is one :class:`DataFileError` naming the
file, never a traceback: the run stops with that line and its run folder is marked
(evalkit.harness.rundir.mark_failed).
"""

from __future__ import annotations

import os
from typing import Any

from evalkit.core.json_keys import DuplicateKey, loads_unique

__all__ = ["DataFileError", "loads"]


class DataFileError(ValueError):
    """A data file that cannot be read as its format says; the message names the file."""


def loads(raw: bytes | str, where: str | os.PathLike) -> Any:
    """``json.loads(raw)``; anything that is not a JSON document is :class:`DataFileError`
    ``"<where>: not a JSON document (...)"``. Nesting too deep for the reader (``[`` a
    hundred thousand times: ``RecursionError``) is said so, and so is a key twice in one
    object (:func:`~evalkit.core.json_keys.loads_unique`: which one would count?)."""
    try:
        return loads_unique(raw)
    except DuplicateKey as exc:
        raise DataFileError(
            f"{os.fspath(where)}: {exc.key!r} twice in one JSON object (a page id or field "
            "given twice; which one counts?)"
        ) from None
    except RecursionError:
        raise DataFileError(
            f"{os.fspath(where)}: not a JSON document (nested too deeply to read)"
        ) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise DataFileError(f"{os.fspath(where)}: not a JSON document ({exc})") from exc
