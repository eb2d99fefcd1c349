"""The one mapping from a label (a data set's or a method's name) to a part of a file name.

Labels come from the user: a key of a config file, a folder name, a key of the mapping handed
to :func:`evalkit.evaluate`. Used raw, a label holding ``/`` or ``..`` wrote tables and
figures outside the run folder, and ``Path.with_suffix`` cut ``v1.0`` and ``v1.1`` to one
file ``extraction_v1.csv``. Every place where a label becomes part of a path goes through
:func:`file_stem`, and run.json records what each label became (``file_names``).

The mapping (docs/inputs.md "File names from labels"):

* A *plain* label -- only ASCII letters, digits, ``_``, ``-`` and ``.``, not starting with
  ``.`` or ``-``, at most :data:`MAX_PLAIN` characters -- is its own stem: ``aeb``,
  ``l3s_gn1`` and ``v1.0`` keep their names.
* Any other label has every character outside that set replaced by ``_`` (a leading ``.``
  or ``-`` too), is cut to :data:`MAX_PLAIN` characters, and gets ``-`` and the first
  :data:`HASH_HEX` hex digits of the SHA-256 of its UTF-8 bytes appended: ``a/b`` becomes
  ``a_b-<hash>``, ``../../x`` becomes ``_.._.._x``... with its own hash. Two labels that clean
  to the same text (``a/b``, ``a:b``) so differ by their hashes, and a plain label (``a_b``)
  never ends in a hash of its own.

A stem never holds a path separator, never is ``.`` or ``..``, never starts with a dot
(no hidden files) and is never empty. A dot in a stem is an ordinary character: file
names are made by appending (``stem + ".csv"``), never with ``Path.with_suffix``
(:func:`with_ext`). Letters keep their case, so two labels differing only in case
(``AEB``, ``aeb``) share a file on a case-insensitive file system (macOS, Windows): name
such sets apart.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from pathlib import Path

__all__ = ["HASH_HEX", "MAX_PLAIN", "file_stem", "file_stems", "with_ext"]

#: hex digits of the label's SHA-256 appended to a label that had to be changed
HASH_HEX = 8
#: longest label kept as it is (file names are capped at 255 bytes; the experiment's
#: prefix and suffix need room too)
MAX_PLAIN = 80
_PLAIN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*")
_OTHER = re.compile(r"[^A-Za-z0-9_.\-]")


def file_stem(label: str) -> str:
    """The part of a file name that stands for ``label`` (the module docstring's mapping)."""
    label = str(label)
    if len(label) <= MAX_PLAIN and _PLAIN.fullmatch(label):
        return label
    clean = _OTHER.sub("_", label)[:MAX_PLAIN]
    clean = re.sub(r"^[.\-]", "_", clean) or "_"  # never hidden, never an option, never empty
    digest = hashlib.sha256(label.encode("utf-8", "surrogatepass")).hexdigest()[:HASH_HEX]
    return f"{clean}-{digest}"


def file_stems(labels: Iterable[str]) -> dict[str, str]:
    """label -> :func:`file_stem` of each label (what run.json records as ``file_names``)."""
    return {str(label): file_stem(label) for label in labels}


def with_ext(stem: str | os.PathLike, ext: str) -> Path:
    """``stem`` with ``ext`` (``.csv``) appended, never replacing a dot already in the name
    (``tables/extraction_v1.0`` gives ``tables/extraction_v1.0.csv``)."""
    stem = Path(stem)
    return stem.with_name(stem.name + ext)
