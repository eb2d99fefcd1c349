"""One extraction-cache entry as data: JSON, checked on read (docs/cache.md).

An entry is one JSON object::

    {"format": "evalkit.extraction", "version": 2, "key": "<cache key>",
     "sha256": "<hex digest of the canonical payload>",
     "payload": {"text": ..., "kept_units": ..., "blocks": [...], "info": {...},
                 "error": ..., "seconds": ...}}

``blocks`` holds each :class:`evalkit.core.block.Block` record as :meth:`Block.to_dict`
gives it and is read back with :meth:`Block.from_dict`.

Reading parses JSON and nothing else, so a file in the cache can never run code
(a pickle could). :func:`decode` raises :class:`InvalidEntry` for anything that is
not an entry written by :func:`encode` for that key: bad UTF-8 or JSON, another
format or version, another key, a payload whose checksum does not match (a flipped
byte), or a payload of the wrong shape (a block record with an unknown field or a
field of the wrong type among them). The cache treats that as a miss.

The checksum is the sha256 of the payload serialised canonically (sorted keys, no
spaces, ASCII escapes), so it does not depend on how the file itself is laid out. The
cache's entries also carry ``"mac"``, the HMAC of (format, key, checksum) under the cache's
own key (evalkit.harness.cache_seal): a checksum anyone can recompute, the MAC only a holder
of the key.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any

from evalkit.core.block import BLOCK_FIELDS, Block
from evalkit.core.page import Extraction
from evalkit.harness.cache_seal import Seal

__all__ = ["FORMAT", "VERSION", "InvalidEntry", "as_data", "decode", "digest", "encode"]

FORMAT = "evalkit.extraction"
#: raise when the entry layout changes: older entries then read as invalid (misses).
#: 2: blocks are typed Block records (the fields of evalkit.core.block), no longer free dicts
VERSION = 2

_FIELDS = frozenset(f.name for f in dataclasses.fields(Extraction))
#: fields an entry holds only when the method gave them (structure, metadata): a text-only
#: extraction's entry, its checksum and its digest are what they were before these fields
_OPTIONAL = frozenset({"markdown", "metadata"})


class InvalidEntry(ValueError):
    """Bytes that are not a valid cache entry for the key asked for (the reason says why)."""


class _NotData(TypeError):
    """A value with no lossless JSON form; ``path`` is filled in on the way out."""

    def __init__(self, what: str):
        super().__init__(what)
        self.what = what
        self.path: list[str] = []

    def __str__(self) -> str:
        where = "".join(reversed(self.path))
        return f"{where} {self.what}" if where else self.what


def _plain(value: Any) -> Any:
    """``value`` as JSON data, or :class:`_NotData` saying where the first value that is not is.

    Lossless only: tuples become lists and numpy scalars their Python value (both compare
    and score the same); a set, bytes, an array or a dict key that is not a string has no
    JSON form that reads back the same, so it is refused rather than changed.
    """
    kind = type(value)
    if value is None or kind is str or kind is int or kind is float or kind is bool:
        return value
    if kind is list or kind is tuple:
        out = []
        for i, v in enumerate(value):
            try:
                out.append(_plain(v))
            except _NotData as exc:
                exc.path.append(f"[{i}]")
                raise
        return out
    if kind is dict:
        out = {}
        for k, v in value.items():
            if type(k) is not str:
                raise _NotData(f"has a key {k!r} that is not a string")
            try:
                out[k] = _plain(v)
            except _NotData as exc:
                exc.path.append(f"[{k!r}]")
                raise
        return out
    if hasattr(value, "dtype") and getattr(value, "shape", None) == ():  # a numpy scalar
        return _plain(value.item())
    for base in (bool, str, int, float):  # subclasses: numpy.float64, IntEnum, numpy.str_
        if isinstance(value, base):
            return base(value)
    if isinstance(value, list | tuple | dict):  # subclasses: their plain form
        return _plain(dict(value) if isinstance(value, dict) else list(value))
    raise _NotData(
        f"is a {kind.__name__}, not JSON data "
        "(str, int, float, bool, None, lists, dicts with string keys)"
    )


def as_data(ext: Extraction) -> Extraction:
    """The extraction with every field as JSON data, exactly as the cache reads it back.

    The runner scores this form whether or not the cache is on, so a run from the
    cache and a fresh run see the same values. A method whose ``blocks``, ``info`` or
    ``kept_units`` hold something JSON cannot keep, or whose ``blocks`` are not
    :class:`~evalkit.core.block.Block` records with fields of their types, gets an error
    instead (its page is a failure that names the value), never a silently changed
    record.
    """
    try:
        fields = {}
        for name in ("text", "kept_units", "blocks", "info", "error"):
            try:
                value = getattr(ext, name)
                fields[name] = _plain_blocks(value) if name == "blocks" else _plain(value)
            except _NotData as exc:
                exc.path.append(name)
                raise
        text, kept, blocks, info, error = fields.values()
        markdown, metadata = ext.markdown, _plain(ext.metadata)
        if not isinstance(text, str):
            raise _NotData("text is not a string")
        if markdown is not None and not isinstance(markdown, str):
            raise _NotData("markdown is not None or a string")
        if metadata is not None and not isinstance(metadata, dict):
            raise _NotData("metadata is not None or a dict")
        if kept is not None and not (isinstance(kept, list) and all(type(i) is int for i in kept)):
            raise _NotData("kept_units is not None or a list of ints")
        if not isinstance(info, dict):
            raise _NotData("info is not a dict")
        if error is not None and not isinstance(error, str):
            raise _NotData("error is not None or a string")
    except (_NotData, RecursionError) as exc:
        return Extraction(
            error=f"the extraction is not JSON data: {exc}"[:500], seconds=float(ext.seconds)
        )
    return Extraction(
        text=text,
        kept_units=kept,
        blocks=blocks,
        info=info,
        error=error,
        seconds=float(ext.seconds),
        markdown=markdown,
        metadata=metadata,
    )


def _plain_blocks(blocks: Any) -> list[Block]:
    """``blocks`` as the Block records the cache reads back (their fields JSON data and
    of their types), or :class:`_NotData` naming the first block that is not one."""
    if not isinstance(blocks, list | tuple):
        raise _NotData(f"is a {type(blocks).__name__}, not a list of Block records")
    out = []
    for i, block in enumerate(blocks):
        try:
            if not isinstance(block, Block):
                raise _NotData(f"is a {type(block).__name__}, not a Block record")
            fast = _copy_if_plain(block)
            if fast is not None:
                out.append(fast)
                continue
            try:
                out.append(Block.from_dict(_plain(block.to_dict())))
            except ValueError as exc:  # a field of the wrong type
                raise _NotData(f"is not a Block record: {exc}") from None
        except _NotData as exc:
            exc.path.append(f"[{i}]")
            raise
    return out


# exact types only (bool is no int here, a numpy scalar is none of them): a field outside
# these goes the long way, which converts it or names it
_INT_OR_NONE = (int, type(None))
_STR_OR_NONE = (str, type(None))
_NUMBER_OR_NONE = (int, float, type(None))
_SCALAR = (str, int, float, bool, type(None))
# the copy below names every field in order: a field added to Block turns it off
_FAST_OK = BLOCK_FIELDS == (
    "index",
    "tag",
    "path",
    "text",
    "words",
    "link_words",
    "kept",
    "stage",
    "rule",
    "reason",
    "duplicate_of",
    "scores",
    "attrs",
)


def _copy_if_plain(b: Block) -> Block | None:
    """A copy of ``b`` when every field already is JSON data of its type, else None.

    The same record ``Block.from_dict(_plain(b.to_dict()))`` gives for such a block, at
    a fraction of the cost: that route copied and checked every field of every block in
    three passes, which was most of the harness's time on the jusText-style method's
    pages (about 150 blocks a page). Anything it does not recognise at a glance (a numpy
    scalar, a list in ``attrs``, a subclass of str) is left to that route."""
    if not _FAST_OK or not (
        type(b.index) is int
        and type(b.tag) is str
        and type(b.text) is str
        and type(b.kept) is bool
        and type(b.path) in _STR_OR_NONE
        and type(b.words) in _INT_OR_NONE
        and type(b.link_words) in _INT_OR_NONE
        and type(b.stage) in _STR_OR_NONE
        and type(b.rule) in _STR_OR_NONE
        and type(b.reason) in _STR_OR_NONE
        and type(b.duplicate_of) in _INT_OR_NONE
        and type(b.scores) is dict
        and type(b.attrs) is dict
    ):
        return None
    for values, kinds in ((b.scores, _NUMBER_OR_NONE), (b.attrs, _SCALAR)):
        for key, value in values.items():
            if type(key) is not str or type(value) not in kinds:
                return None
    return Block(
        b.index,
        b.tag,
        b.path,
        b.text,
        b.words,
        b.link_words,
        b.kept,
        b.stage,
        b.rule,
        b.reason,
        b.duplicate_of,
        dict(b.scores),
        dict(b.attrs),
    )


def _canonical(payload: dict[str, Any]) -> bytes:
    return json.dumps(
        payload, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=True
    ).encode("ascii")


def digest(ext: Extraction) -> str:
    """sha256 of everything ``ext`` holds: two extractions with one digest score alike.

    Hashes the ``repr`` of its fields, not the canonical JSON of an entry: on a warm
    pass the canonical form cost more than the scoring it saves (every block record
    re-checked and re-serialised). ``repr`` of the plain data an extraction holds
    (str, int, float, bool, None, lists, dicts, :class:`Block` records) is exact and the
    same for an extraction as made (after :func:`as_data`) and as read back, so the
    same record digests alike on the cold and the warm pass.
    """
    fields = (ext.text, ext.kept_units, ext.blocks, ext.info, ext.error, ext.seconds)
    if ext.markdown is not None or ext.metadata is not None:  # else the digest as before
        fields += (ext.markdown, ext.metadata)
    blob = repr(fields)
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()


def encode(key: str, ext: Extraction, seal: Seal | None = None) -> bytes:
    """The bytes of the entry for ``ext`` under ``key``, with ``seal``'s MAC (the cache's
    key, evalkit.harness.cache_seal) when given; TypeError if a field is not JSON data
    (:func:`as_data` says which)."""
    plain = as_data(ext)
    if plain.error != ext.error:
        raise TypeError(plain.error)
    payload = {
        "text": plain.text,
        "kept_units": plain.kept_units,
        "blocks": [b.to_dict() for b in plain.blocks],
        "info": plain.info,
        "error": plain.error,
        "seconds": plain.seconds,
    }
    payload.update(
        {k: getattr(plain, k) for k in sorted(_OPTIONAL) if getattr(plain, k) is not None}
    )
    checksum = hashlib.sha256(_canonical(payload)).hexdigest()
    entry = {
        "format": FORMAT,
        "version": VERSION,
        "key": key,
        "sha256": checksum,
        "payload": payload,
    }
    if seal is not None:
        entry["mac"] = seal.sign(FORMAT, key, checksum)
    # readable text in the file (a page in Greek stays Greek); a lone surrogate survives
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8", "surrogatepass"
    )


def _check_payload(payload: Any) -> Extraction:
    """The extraction a parsed payload holds, or InvalidEntry.

    JSON parsing can only give dicts, lists, strings, numbers, booleans and None, so
    the values inside ``blocks`` and ``info`` are JSON data by construction; what is
    checked here is the shape: which fields, and the type of each (for every block
    record, :meth:`Block.from_dict`'s check).
    """
    if not isinstance(payload, dict) or not (_FIELDS - _OPTIONAL) <= set(payload) <= _FIELDS:
        raise InvalidEntry(f"payload fields are not {sorted(_FIELDS)}")
    text, kept, blocks, info, error, seconds = (
        payload["text"],
        payload["kept_units"],
        payload["blocks"],
        payload["info"],
        payload["error"],
        payload["seconds"],
    )
    if not isinstance(text, str):
        raise InvalidEntry("text is not a string")
    if kept is not None and not (isinstance(kept, list) and all(type(i) is int for i in kept)):
        raise InvalidEntry("kept_units is not null or a list of ints")
    if not isinstance(blocks, list):
        raise InvalidEntry("blocks is not a list")
    records = []
    for i, data in enumerate(blocks):
        try:
            records.append(Block.from_dict(data))
        except ValueError as exc:
            raise InvalidEntry(f"blocks[{i}]: {exc}") from None
    if not isinstance(info, dict):
        raise InvalidEntry("info is not an object")
    if error is not None and not isinstance(error, str):
        raise InvalidEntry("error is not null or a string")
    if type(seconds) is not float:
        raise InvalidEntry("seconds is not a float")
    markdown, metadata = payload.get("markdown"), payload.get("metadata")
    if markdown is not None and not isinstance(markdown, str):
        raise InvalidEntry("markdown is not null or a string")
    if metadata is not None and not isinstance(metadata, dict):
        raise InvalidEntry("metadata is not null or an object")
    return Extraction(
        text=text,
        kept_units=kept,
        blocks=records,
        info=info,
        error=error,
        seconds=seconds,
        markdown=markdown,
        metadata=metadata,
    )


def decode(data: bytes, key: str, seal: Seal | None = None) -> Extraction:
    """The extraction an entry's bytes hold for ``key``; :class:`InvalidEntry` if they are
    not a valid entry for that key, or (given a ``seal``: the cache always gives its own)
    carry no MAC of that seal's key."""
    try:
        entry = json.loads(data.decode("utf-8", "surrogatepass"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise InvalidEntry(f"not JSON: {type(exc).__name__}") from None
    if not isinstance(entry, dict):
        raise InvalidEntry("not a JSON object")
    if entry.get("format") != FORMAT or entry.get("version") != VERSION:
        raise InvalidEntry(f"not a {FORMAT} entry of version {VERSION}")
    if entry.get("key") != key:
        raise InvalidEntry("written for another key")
    payload = entry.get("payload")
    try:
        digest = hashlib.sha256(_canonical(payload)).hexdigest()
    except (TypeError, ValueError, RecursionError):
        raise InvalidEntry("payload cannot be serialised") from None
    if entry.get("sha256") != digest:
        raise InvalidEntry("checksum does not match the payload")
    if seal is not None and not seal.verify(FORMAT, key, digest, entry.get("mac")):
        raise InvalidEntry("not signed with this cache's key (forged, foreign or older)")
    return _check_payload(payload)
