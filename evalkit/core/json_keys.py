"""JSON documents whose objects hold each key once.

Python's ``json`` keeps the last of two equal keys in one object and says nothing, so a
benchmark file or a stored output holding one page id twice would be scored on whichever
came last (issue 37 item 5). :func:`loads_unique` parses like ``json.loads`` and refuses
such a document with :class:`DuplicateKey`, whose message names the key; the caller adds
the file.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["DuplicateKey", "loads_unique"]


class DuplicateKey(ValueError):
    """A JSON object holds ``key`` twice."""

    def __init__(self, key: str):
        super().__init__(f"key {key!r} twice in one JSON object")
        self.key = key


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(key)
        out[key] = value
    return out


def loads_unique(doc: str | bytes) -> Any:
    """``json.loads(doc)``, refusing an object with a key twice (:class:`DuplicateKey`)."""
    return json.loads(doc, object_pairs_hook=_unique)
