"""The encodings of the web: a declared label mapped through the WHATWG Encoding Standard.

A ``<meta charset>``, an HTTP-equiv or an XML declaration names an encoding by a *label*.
Browsers look a label up in the Encoding Standard's table (``latin1``, ``ascii`` and
``iso-8859-1`` are windows-1252, ``gb2312`` is GBK, ``x-sjis`` is Shift_JIS) and ignore
anything the table does not hold. evalkit does the same through the maintained
``webencodings`` package, so a page cannot make evalkit decode it with an arbitrary Python
codec: ``cp037`` (EBCDIC), ``rot13``, ``punycode``, ``utf-7``, ``idna``, ``base64`` are no
encodings of the web and are ignored like any unknown label (docs/inputs.md).

:func:`web_codec` gives the Python codec that decodes a label's encoding; :data:`WEB_CODECS`
is every codec it can give, and :data:`DETECTABLE` the ones statistical detection may choose.
"""

from __future__ import annotations

import codecs

import webencodings
from webencodings.labels import LABELS

__all__ = ["DETECTABLE", "WEB_CODECS", "web_codec"]

#: WHATWG encodings a declaration in the page cannot select (HTML's prescan): UTF-16 declared
#: in an ASCII-compatible head is a lie (its byte-order mark or NUL pattern decides), and the
#: replacement encoding (ISO-2022-KR, ISO-2022-CN, HZ-GB-2312 labels) would turn the page into
#: one U+FFFD; such a declaration is ignored and the next rule decides
_NOT_DECLARABLE = frozenset({"utf-16le", "utf-16be", "replacement"})

#: where evalkit's codec differs from webencodings': the Encoding Standard's GBK decoder is the
#: gb18030 decoder (Python's gbk codec refuses GB18030's four-byte sequences); x-user-defined
#: declared in a page is windows-1252 (HTML's prescan)
_CODEC_OF = {"gbk": "gb18030", "x-user-defined": "cp1252"}


def _codec(name: str) -> str:
    """The Python codec (its canonical name) of WHATWG encoding ``name``."""
    python = _CODEC_OF.get(name) or webencodings.lookup(name).codec_info.name
    return codecs.lookup(python).name


def web_codec(label: bytes | str) -> str | None:
    """The Python codec that decodes the WHATWG encoding ``label`` names, or None when the
    label names no encoding a page may declare (unknown to the Encoding Standard, UTF-16, or
    the replacement encoding). Case and surrounding ASCII white space are ignored, as in
    the standard; never raises."""
    if isinstance(label, bytes):
        label = label.decode("ascii", "replace")
    if not isinstance(label, str):
        return None
    encoding = webencodings.lookup(label)
    if encoding is None or encoding.name in _NOT_DECLARABLE:
        return None
    return _codec(encoding.name)


#: every Python codec evalkit decodes page or gold bytes with: the WHATWG encodings' codecs,
#: UTF-16/32 (found by a byte-order mark or the NUL pattern), and nothing else
WEB_CODECS = frozenset(
    {_codec(n) for n in set(LABELS.values()) if n != "replacement"}
    | {codecs.lookup(n).name for n in ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")})

#: the codecs statistical detection may choose (charset-normalizer's ``cp_isolation``): the
#: WHATWG encodings less UTF-8 (tried before detection), UTF-16/32 (the NUL pattern) and the
#: seven-bit ISO-2022-JP, which needs its escape sequences
DETECTABLE = tuple(sorted(
    WEB_CODECS - {codecs.lookup(n).name for n in ("utf-8", "utf-16-le", "utf-16-be", "utf-32-le",
                                                  "utf-32-be", "iso2022_jp")}))
