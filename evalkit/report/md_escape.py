"""Markdown text that shows a label's tags instead of running them.

Markdown passes raw HTML through: a method label, data set name, page id or error message
holding ``<img src=x onerror=...>`` or ``<script>`` becomes live HTML wherever ``report.md``
(or a table's ``.md``) is rendered. :func:`md_text` writes the ``<`` that would open a tag,
a comment or a processing instruction (``<`` then a letter, ``/``, ``!`` or ``?``) as
``&lt;``, and a ``&`` that would start an entity as ``&amp;``, outside code spans (inside
backticks markdown shows text as it is). ``p < 0.05`` and ``F1 >= 0.9`` stay as they are.
"""

from __future__ import annotations

import re

__all__ = ["md_text"]

_TAG = re.compile(r"<(?=[A-Za-z/!?])")
_ENTITY = re.compile(r"&(?=#?\w+;)")
_TICKS = re.compile(r"`+")


def _plain(text: str) -> str:
    return _TAG.sub("&lt;", _ENTITY.sub("&amp;", text))


def md_text(text) -> str:
    """``text`` with its HTML shown, not run (module docstring); code spans as they are."""
    text = str(text)
    if "<" not in text and "&" not in text:
        return text
    out, pos = [], 0
    while True:
        m = _TICKS.search(text, pos)
        if m is None:
            out.append(_plain(text[pos:]))
            return "".join(out)
        # a code span: a run of n backticks closed by the next run of exactly n
        close = next(
            (c for c in _TICKS.finditer(text, m.end()) if len(c.group()) == len(m.group())), None
        )
        if close is None:  # an unmatched run is literal text
            out.append(_plain(text[pos : m.end()]))
            pos = m.end()
            continue
        out.append(_plain(text[pos : m.start()]) + text[m.start() : close.end()])
        pos = close.end()
