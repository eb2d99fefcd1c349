"""The attribute cap before parsing: no start tag reaches the parser with more than
:data:`MAX_ATTRIBUTES` attributes (the "bound" gate, docs/security.md).

libxml2 checks each attribute of a tag against every earlier one (40,000 attributes: 10 s;
10^6: hours). The cap must see tags as libxml2's HTML5 tokenizer (2.14) does, or a tag can
hide from it: a ``<`` or ``>`` inside a quoted value, a ``"`` in a comment or a script. So
this is one pass over the text in the tokenizer's own states (text, comment, bogus comment,
raw text of ``script``/``style``/..., start and end tags with quoted values), each step a
possessive regex that moves forward: linear in the text whatever it holds.
"""

from __future__ import annotations

import re

__all__ = ["MAX_ATTRIBUTES", "cap_attributes"]

#: attributes of one start tag past this many are dropped before parsing
MAX_ATTRIBUTES = 1000
#: elements whose content is text up to their end tag (HTML5 RAWTEXT, RCDATA, script data)
#: (libxml2 2.14 parses ``noscript`` as markup)
_RAW = frozenset({"script", "style", "xmp", "iframe", "noembed", "noframes", "title", "textarea"})
_WS = "\t\n\f\r "
# one attribute as the tokenizer reads it: a name (its first character may be "="), then
# optionally "=" and a value, quoted (to the closing quote or the end) or not
_ATTR = (
    rf"[^{_WS}/>][^{_WS}/>=]*+(?:[{_WS}]*+=[{_WS}]*+"
    rf"""(?:"[^"]*+"?|'[^']*+'?|[^{_WS}>]*+))?"""
)
_TAG = re.compile(rf"</?([a-zA-Z][^{_WS}/>]*+)((?:[{_WS}/]++|{_ATTR})*+)(>?)")
_ONE = re.compile(rf"[{_WS}/]*+({_ATTR})")
_MARKUP = re.compile(r"<(?:!--|[!?/])")
_COMMENT_END = re.compile(r"--!?>")


def _capped(body: str) -> str:
    """The first MAX_ATTRIBUTES attributes of a start tag's attribute text."""
    pos, kept = 0, 0
    while kept < MAX_ATTRIBUTES:
        m = _ONE.match(body, pos)
        if m is None or not m.group(1):
            return body
        pos, kept = m.end(), kept + 1
    return body[:pos]


def _raw_end(lower: str, name: str, pos: int) -> int:
    """Where the raw text of ``name`` from ``pos`` ends: its end tag (``</name`` then a space,
    ``/`` or ``>``), or the end of the text."""
    while True:
        close = lower.find("</" + name, pos)
        if close < 0:
            return len(lower)
        after = close + 2 + len(name)
        if after >= len(lower) or lower[after] in _WS + "/>":
            return close
        pos = after


def cap_attributes(html: str) -> str:
    """``html`` with each start tag cut to its first :data:`MAX_ATTRIBUTES` attributes."""
    if len(html) <= 2 * MAX_ATTRIBUTES:  # each attribute takes two characters at least
        return html
    out, last, pos, n = [], 0, 0, len(html)
    lower = None
    while True:
        pos = html.find("<", pos)
        if pos < 0 or pos + 1 >= n:
            break
        nxt = html[pos + 1]
        if nxt.isascii() and nxt.isalpha() or (nxt == "/" and html[pos + 2 : pos + 3].isalpha()):
            m = _TAG.match(html, pos)
            end = m.end()
            if nxt != "/":
                if len(m.group(2)) >= 2 * MAX_ATTRIBUTES:
                    body = _capped(m.group(2))
                    if len(body) < len(m.group(2)):
                        out.append(html[last : m.start(2)])
                        out.append(body)
                        last = m.end(2)
                name = m.group(1).lower()
                if name == "plaintext":
                    break
                if name in _RAW and m.group(3):
                    if lower is None:
                        lower = html.lower()
                    end = _raw_end(lower, name, end)
            pos = end
        elif _MARKUP.match(html, pos):
            if html.startswith("<!--", pos):
                if html.startswith(">", pos + 4) or html.startswith("->", pos + 4):
                    pos += 5 if html[pos + 4] == ">" else 6  # <!--> and <!--->
                else:
                    close = _COMMENT_END.search(html, pos + 4)
                    pos = n if close is None else close.end()
            else:  # a bogus comment or a doctype: to the next ">"
                close = html.find(">", pos + 2)
                pos = n if close < 0 else close + 1
        else:
            pos += 1
    if not out:
        return html
    out.append(html[last:])
    return "".join(out)
