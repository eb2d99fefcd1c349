"""JSON read from data: a benchmark's index or ground truth, a tool's stored outputs.

Such a file is untrusted input. Whatever it holds (cut off half-way, nested deeper than
Python's JSON reader recurses, not text at all, one key twice in an object) it is one
:class:`DataFileError` naming the file, never a traceback: the run stops with that line and
its run folder is marked (evalkit.harness.rundir.mark_failed).

Python's ``json`` keeps the last of two equal keys in one object and says nothing, so a file
holding one page id twice would be scored on whichever came last (issue 37 item 5): here
such a document is refused, naming the key.
"""

from __future__ import annotations

import json
import os
from typing import Any

__all__ = ["DataFileError", "DuplicateKey", "loads"]


class DataFileError(ValueError):
    """A data file that cannot be read as its format says; the message names the file."""


class DuplicateKey(DataFileError):
    """A JSON object holds ``key`` twice (which one counts?)."""

    def __init__(self, message: str, key: str):
        super().__init__(message)
        self.key = key


class _Twice(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Twice(key)
        out[key] = value
    return out


def loads(raw: bytes | str, where: str | os.PathLike) -> Any:
    """``json.loads(raw)`` refusing what is not one JSON document with each key once per
    object: :class:`DataFileError` ``"<where>: not a JSON document (...)"``, nesting too deep
    for the reader (``[`` a hundred thousand times: ``RecursionError``) said so, and
    :class:`DuplicateKey` ``"<where>: key 'k' twice in one JSON object ..."``."""
    name = os.fspath(where)
    try:
        return json.loads(raw, object_pairs_hook=_unique)
    except _Twice as exc:
        raise DuplicateKey(
            f"{name}: key {exc.key!r} twice in one JSON object (a page id or "
            "field given twice; which one counts?)",
            exc.key,
        ) from None
    except RecursionError:
        raise DataFileError(f"{name}: not a JSON document (nested too deeply to read)") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise DataFileError(f"{name}: not a JSON document ({exc})") from exc
