"""The block record: what a method says about one block of a page it considered.

Every block-based method (the proposed method, PAB, the jusText-style classifier, CETD
where it records blocks) fills the same fields, so a report or a test reads a field by
name whatever the method, and the cache stores them as plain JSON
(:meth:`Block.to_dict` / :meth:`Block.from_dict`).

Fields a method has no notion of stay at their defaults (``None``, empty). Numbers a
method computes per block live in ``scores`` under a documented name (the proposed
method's ``score`` and ``threshold``, PAB's ``priority``, the jusText-style
``link_density``); descriptive values that are not numbers live in ``attrs`` (the
jusText-style ``cf_class``). Each method's docstring lists the names it writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

__all__ = ["BLOCK_FIELDS", "PREVIEW_CHARS", "Block", "preview"]

#: characters of block text kept in a record (enough to recognise the block in a report)
PREVIEW_CHARS = 80


def preview(text: str, chars: int = PREVIEW_CHARS) -> str:
    """The first ``chars`` characters of ``text`` with its whitespace collapsed."""
    return " ".join(text.split())[:chars]


@dataclass(slots=True)
class Block:
    """One block a method considered, and what became of it.

    Attributes
    ----------
    index : int
        Position of the block in the method's own block order (0-based).
    tag : str
        Tag of the element that delimits the block (``div``, ``td``, ``p``; ``#text`` or a
        ``#``-name for blocks that are not one element).
    path : str or None
        Element path of the block in the parsed page (``/html/body/div[2]``), when known.
    text : str
        The start of the block's text (:func:`preview`), to recognise it in a report.
    words : int or None
        Number of words of the block's text.
    link_words : int or None
        Number of those words inside links.
    kept : bool
        Whether the block's text is part of the extraction.
    stage : str or None
        The stage that removed the block (``primary``, ``dedup``, ``scoring``); None when kept
        or when the method has no stages.
    rule : str or None
        The rule of that stage that removed it (``ad_marker``, ``punctuation``, ...).
    reason : str or None
        A short human-readable reason (``"3 of 5 words in links"``).
    duplicate_of : int or None
        Index of the earlier block this one duplicates, when removed as a duplicate.
    scores : dict of str to float
        Named numbers of the block (``score``, ``threshold``, ``priority``, ...).
    attrs : dict of str to JSON value
        Named non-numeric values (``cf_class``, ``heading``).
    """

    index: int
    tag: str
    path: str | None = None
    text: str = ""
    words: int | None = None
    link_words: int | None = None
    kept: bool = True
    stage: str | None = None
    rule: str | None = None
    reason: str | None = None
    duplicate_of: int | None = None
    scores: dict[str, float | None] = field(default_factory=dict)
    attrs: dict[str, Any] = field(default_factory=dict)

    def __reduce__(self):
        # pickled as its field values (a page worker sends every block of every page to
        # the run's process): half the bytes and time of the dataclass's state dict
        return (Block, _field_values(self))

    def to_dict(self) -> dict[str, Any]:
        """The record as plain JSON data (every field, in declaration order)."""
        return {name: _copy(getattr(self, name)) for name in BLOCK_FIELDS}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Block:
        """The record from :meth:`to_dict`'s form; ValueError naming an unknown field or a
        field of the wrong type (a cache entry holding one is read as a miss)."""
        if not isinstance(data, dict):  # one error type for every malformed record
            raise ValueError(  # noqa: TRY004
                f"a block record is a dict, not a {type(data).__name__}"
            )
        unknown = sorted(set(data) - set(BLOCK_FIELDS))
        if unknown:
            raise ValueError(f"unknown block field(s): {', '.join(unknown)}")
        if "index" not in data or "tag" not in data:
            raise ValueError("a block record needs 'index' and 'tag'")
        for name, value in data.items():
            _check_field(name, value)
        return cls(**{k: _copy(v) for k, v in data.items()})


# the JSON types each field takes; bool is not an int here (True is no block index)
_INT, _STR, _BOOL, _DICT = "int", "str", "bool", "dict"
_FIELD_TYPES: dict[str, tuple[str, bool]] = {  # name -> (type, None allowed)
    "index": (_INT, False),
    "tag": (_STR, False),
    "path": (_STR, True),
    "text": (_STR, False),
    "words": (_INT, True),
    "link_words": (_INT, True),
    "kept": (_BOOL, False),
    "stage": (_STR, True),
    "rule": (_STR, True),
    "reason": (_STR, True),
    "duplicate_of": (_INT, True),
    "scores": (_DICT, False),
    "attrs": (_DICT, False),
}


def _is(kind: str, value: Any) -> bool:
    if kind == _INT:
        return type(value) is int
    if kind == _STR:
        return type(value) is str
    if kind == _BOOL:
        return type(value) is bool
    return type(value) is dict


def _check_field(name: str, value: Any) -> None:
    """ValueError naming ``name`` when ``value`` is not of the field's type."""
    kind, optional = _FIELD_TYPES[name]
    if value is None and optional:
        return
    if not _is(kind, value):
        want = f"{kind} or None" if optional else kind
        raise ValueError(f"block field {name!r} is a {type(value).__name__}, not {want}")
    if kind == _DICT:
        for key in value:
            if type(key) is not str:
                raise ValueError(f"block field {name!r} has a key {key!r} that is not a string")
    if name == "scores":
        for key, score in value.items():
            if score is not None and type(score) not in (int, float):
                raise ValueError(
                    f"block score {key!r} is a {type(score).__name__}, not a number or None"
                )


def _copy(value: Any) -> Any:
    # records are small; a copy keeps a cached entry and the caller's record apart
    if isinstance(value, dict):
        return dict(value)
    return value


BLOCK_FIELDS: tuple[str, ...] = tuple(Block.__dataclass_fields__)
_field_values = attrgetter(*BLOCK_FIELDS)
