"""Decoding of a page's (and a gold file's) bytes, and the characters a parser refuses.

Decoding never raises: it tries, in order, a byte-order mark, an HTTP-equiv or
``<meta charset>`` declaration, an XML declaration (a label of the WHATWG table only:
:mod:`evalkit.core.web_encodings`), the NUL pattern of UTF-16/32 without a mark, UTF-8,
then the readings of undeclared bytes (:mod:`evalkit.core.detect`: CJK, Cyrillic,
charset-normalizer among the WHATWG encodings), and finally UTF-8 with replacement. This is
the one decoder of page and gold bytes: every reader goes through it. Gold files go through the same function
(:func:`decode_gold`). ``Page.encoding`` and ``Page.encoding_source`` record
what was decided, so a strange score can be traced back to a decoding choice.
:func:`clean_chars` removes what lxml refuses, and :func:`sniff_not_html` names bytes that
are not a web page at all (docs/inputs.md). Part of the data contract
(:mod:`evalkit.core.page`); everything here is core.
"""

from __future__ import annotations

import codecs
import json
import re

from evalkit.core.detect import CYRILLIC_CODE_PAGES, clearly_foreign, detected, undeclared_reading
from evalkit.core.web_encodings import WEB_CODECS, web_codec

__all__ = [
    "CYRILLIC_CODE_PAGES",
    "GOLD_LEGACY_ENCODING",
    "MAX_BROKEN_UTF8",
    "MAX_CONTROL_SHARE",
    "MAX_NOT_TEXT_SHARE",
    "WEB_CODECS",
    "clean_chars",
    "decode_bytes",
    "decode_gold",
    "decode_html",
    "sniff_not_html",
    "undecodable",
]

# Only the head of a document is searched for declarations, as browsers do.
_SNIFF_BYTES = 4096


_META_CHARSET = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_\-:.]+)""", re.IGNORECASE
)


_XML_DECL = re.compile(rb"""^\s*<\?xml[^>]*encoding\s*=\s*["']([a-zA-Z0-9_\-.]+)["']""")


_XML_DECL_TEXT = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)


_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


#: declared encodings that every byte string "decodes" in: their declaration proves nothing
#: about bytes that are valid UTF-8
_SINGLE_BYTE = frozenset({"cp1252", "iso8859-15", "cp1250", "cp1251", "iso8859-2"})


#: what undeclared bytes that are no Unicode are read as when detection finds no clearly
#: non-Western reading: every such gold file of the shared sets (335) is Windows-1252, and so
#: are the four undeclared cleaneval-dev pages (their 0x91-0x97 are quotes and dashes)
GOLD_LEGACY_ENCODING = "cp1252"


def decode_html(raw: bytes) -> tuple[str, str, str]:
    """Decode page bytes: :func:`decode_bytes` with the Windows-1252 default; never raises."""
    return decode_bytes(raw, legacy=GOLD_LEGACY_ENCODING)


def decode_gold(raw: bytes) -> tuple[str, str, str]:
    """Decode gold or annotation bytes: the same as :func:`decode_html` (one decoder)."""
    return decode_bytes(raw, legacy=GOLD_LEGACY_ENCODING)


#: a UTF-8 text may hold this share of broken sequences (per well-formed non-ASCII character)
#: and still be read as UTF-8, each broken sequence a U+FFFD (a page cut inside a character)
MAX_BROKEN_UTF8 = 0.01


def _damaged_utf8(raw: bytes) -> str | None:
    """``raw`` as UTF-8 with replacement when its broken sequences are a few among many
    well-formed multi-byte characters (:data:`MAX_BROKEN_UTF8`), else None."""
    text = raw.decode("utf-8", errors="replace")
    broken = text.count("\ufffd") - raw.count(b"\xef\xbf\xbd")
    wide = sum(c > "\x7f" for c in text) - text.count("\ufffd")
    return text if 0 < broken <= MAX_BROKEN_UTF8 * wide else None


def decode_bytes(raw: bytes, legacy: str | None = None) -> tuple[str, str, str]:
    """Decode page or gold bytes; returns ``(text, codec, how)`` and never raises.

    In order: a byte-order mark (UTF-8/16/32, ``bom``); an XML or ``<meta>``
    declaration whose label the WHATWG table knows (``xml``, ``meta``;
    :func:`evalkit.core.web_encodings.web_codec`: any other label, ``cp037`` or ``rot13``,
    is ignored); the NUL pattern of UTF-16/32 without a mark (``nul-pattern``); UTF-8
    (``utf-8``), or UTF-8 with a few broken sequences among many good ones (``utf-8-damaged``,
    :data:`MAX_BROKEN_UTF8`); then the readings of undeclared bytes (:mod:`evalkit.core.detect`): CJK
    (``cjk``), Cyrillic (``cyrillic``), statistical detection among the WHATWG encodings
    (charset-normalizer, ``detected``); UTF-8 with replacement (``fallback``). A declared
    charset is only trusted when the bytes decode cleanly with it: pages that declare
    latin-1 but are UTF-8 are common (``utf-8-over-declared``). The codec is always one of
    :data:`evalkit.core.web_encodings.WEB_CODECS`.

    ``legacy`` names the encoding to use instead of detection's when its reading is not
    clearly foreign (:func:`evalkit.core.detect.clearly_foreign`) and the bytes decode with
    it (``legacy``); bytes detection finds no reading for at all stay with the fallback.
    charset-normalizer cannot tell single-byte code pages apart on text that is mostly
    ASCII: it reads the Windows-1252 gold files of the shared sets as cp1250, cp775,
    cp852, even Big5 or cp949 (a lone ``’`` before an ASCII letter is one Big5 character).
    """
    if not raw:
        return "", "utf-8", "empty"
    for bom, enc in _BOMS:
        if raw.startswith(bom):
            return raw[len(bom) :].decode(enc, errors="replace"), enc, "bom"
    head = raw[:_SNIFF_BYTES]
    for how, rx in (("xml", _XML_DECL), ("meta", _META_CHARSET)):
        m = rx.search(head)
        enc = web_codec(m.group(1)) if m else None
        if enc is None:
            continue
        if enc in _SINGLE_BYTE and not raw.isascii():
            # every byte string "decodes" as cp1252, so a legacy declaration proves
            # nothing; bytes that are valid UTF-8 are UTF-8 (31 L3S-GN1 pages)
            try:
                return raw.decode("utf-8"), "utf-8", "utf-8-over-declared"
            except UnicodeDecodeError:
                pass
        try:
            return raw.decode(enc), enc, how
        except UnicodeDecodeError:
            pass
    wide = _wide_unicode(raw)
    if wide is not None:
        return raw.decode(wide), wide, "nul-pattern"
    try:
        return raw.decode("utf-8"), "utf-8", "utf-8"
    except UnicodeDecodeError:
        pass
    damaged = _damaged_utf8(raw)
    if damaged is not None:
        return damaged, "utf-8", "utf-8-damaged"
    reading = undeclared_reading(raw)
    if reading is not None:
        return reading
    best = detected(raw)
    if legacy is not None and best is not None and not clearly_foreign(raw, best):
        try:
            return raw.decode(legacy), legacy, "legacy"
        except UnicodeDecodeError:
            pass
    if best is not None:
        return raw.decode(best, errors="replace"), best, "detected"
    return raw.decode("utf-8", errors="replace"), "utf-8", "fallback"


def _wide_unicode(raw: bytes) -> str | None:
    """``utf-32-le/be`` or ``utf-16-le/be`` when ``raw`` has the NUL bytes of that encoding
    without a byte-order mark, else None.

    Text with Latin letters in UTF-16 has a NUL in one byte of each such character and
    almost never in the other; UTF-32 has two NULs in every BMP character. UTF-16 is valid
    UTF-8 as long as it is ASCII, so this runs before UTF-8 is tried. The bytes must
    also decode strictly. CJK text in UTF-16 without a mark has no NULs and is left to
    detection.
    """
    head = raw[:_SNIFF_BYTES]
    if head.count(0) < len(head) // 8:
        return None
    candidates = []
    if len(raw) % 4 == 0:
        units = len(head) // 4
        for enc, always, mostly in (("utf-32-le", 3, 2), ("utf-32-be", 0, 1)):
            zero_always = head[always::4].count(0)
            zero_mostly = head[mostly::4].count(0)
            if units and zero_always == units and zero_mostly >= 0.9 * units:
                candidates.append(enc)
    if len(raw) % 2 == 0:
        even, odd = head[0::2].count(0), head[1::2].count(0)
        units = len(head) // 2
        if odd >= units / 4 and even * 8 < odd:
            candidates.append("utf-16-le")
        elif even >= units / 4 and odd * 8 < even:
            candidates.append("utf-16-be")
    for enc in candidates:
        try:
            raw.decode(enc)
        except UnicodeDecodeError:
            continue
        return enc
    return None


#: a decoded gold text with more than this share of U+FFFD and control characters among
#: its non-space characters is not text in any encoding evalkit could find: its page is
#: skipped, not scored against garbage
MAX_NOT_TEXT_SHARE = 0.5


# what decoding makes of bytes that are not text: replacement characters and controls
_NOT_TEXT = re.compile(r"[\ufffd\x00-\x08\x0e-\x1f\x7f-\x9f]")


def undecodable(text: str) -> str | None:
    """Why decoded gold ``text`` cannot be used, or None.

    It cannot when most of its non-space characters are U+FFFD (what decoding puts for
    bytes no encoding explains) or control characters (binary data).
    """
    bad = len(_NOT_TEXT.findall(text))
    if not bad:
        return None
    visible = len(text) - sum(1 for c in text if c.isspace())
    if bad <= MAX_NOT_TEXT_SHARE * visible:
        return None
    return (
        f"not text in any encoding evalkit can read: {bad} of {visible} characters are "
        "U+FFFD or control characters after decoding (byte-order mark, declared charset, "
        "UTF-16/32, UTF-8, detection)"
    )


#: what lxml refuses in text, tails and attribute values (found by trying every code point:
#: C0 controls other than tab, LF and CR, lone surrogates, U+FFFE and U+FFFF), plus the
#: other Unicode non-characters, which lxml takes but which are never text. Written as
#: the complement of what is allowed: a class of ranges scans as fast as the C0 range alone
_ALLOWED = r"\t\n\r\x20-\ud7ff\ue000-\ufdcf\ufdf0-\ufffd" + "".join(
    rf"\U{plane:04x}0000-\U{plane:04x}fffd" for plane in range(1, 17)
)


_REFUSED_CHAR = f"[^{_ALLOWED}]"


# The parser turns a numeric reference such as &#11; into the character itself, so the
# references that can name a refused code point are matched too (a superset, checked in
# _clean_one; digits run as far as they go and ';' is optional, as in the parser). The
# common ones (&#39; &#160; &#8217; &#x2019;) do not match, so their pages stay fast.
_REFUSED_REF = (
    r"&#(?:[xX]0*(1?[0-9a-fA-F]|[dD][89a-fA-F][0-9a-fA-F]{2}|[fF][dD][dDeE][0-9a-fA-F]"
    r"|(?:10|[0-9a-fA-F])?[fF]{3}[eEfF])(?![0-9a-fA-F])"
    r"|0*([0-9]|[12][0-9]|3[01]|5[5-7][0-9]{3}|6[45][0-9]{3}|[0-9]{6,7})(?![0-9]));?"
)


_CHAR_RX = re.compile(_REFUSED_CHAR)


_REF_RX = re.compile(_REFUSED_REF)


_BOTH_RX = re.compile(f"{_REFUSED_CHAR}|{_REFUSED_REF}")


def _clean_one(m: re.Match) -> str:
    hex_digits, digits = m.group(1), m.group(2)
    if hex_digits is None and digits is None:
        char = m.group(0)
    else:
        code = int(hex_digits, 16) if hex_digits is not None else int(digits)
        if code > 0x10FFFF:
            return m.group(0)  # the parser makes U+FFFD of it, which lxml takes
        char = chr(code)
        if not _CHAR_RX.match(char):
            return m.group(0)
    # vertical tab, form feed and U+001C-U+001F are white space to str.split: they become
    # a space, so the page keeps its words; the rest is invisible in a browser and goes
    return " " if char.isspace() else ""


def clean_chars(text: str) -> str:
    """``text`` without the characters lxml refuses, raw or as numeric references.

    The parser puts them into the tree, but lxml raises ``All strings must be
    XML compatible`` when a method writes one back (the tail of a removed
    ``<script>`` joins its neighbour's text). White-space controls (VT, FF,
    U+001C-U+001F) become a space; the others (other C0 controls, lone
    surrogates, non-characters) are dropped, wherever they stand: element
    text, tails, attribute values, scripts. Text without them comes back as
    it is (two regex scans, about 0.3 ms for a 100 KB page).
    """
    if _CHAR_RX.search(text) is None and ("&#" not in text or _REF_RX.search(text) is None):
        return text
    return _BOTH_RX.sub(_clean_one, text)


#: file signatures of formats that are sometimes saved under an .html name
_MAGIC = (
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive (docx/xlsx/epub?)"),
    (b"\x1f\x8b", "gzip-compressed data (decompress it first)"),
    (b"\x89PNG", "a PNG image"),
    (b"GIF8", "a GIF image"),
    (b"\xff\xd8\xff", "a JPEG image"),
)


#: control bytes (NUL..US and DEL, except tab, line ends, form feed and the ESC of ISO-2022)
_CONTROL = bytes(b for b in [*range(32), 127] if b not in b"\t\n\x0b\x0c\r\x1b")


#: share of control bytes in the head above which a file is binary (text has next to none)
MAX_CONTROL_SHARE = 0.05


def sniff_not_html(raw: bytes, html: str | None = None) -> str | None:
    """Why ``raw`` is not an HTML page (a PDF, an image, binary data, JSON), or None.

    Only clear cases are reported: a known file signature, more than
    :data:`MAX_CONTROL_SHARE` control bytes in the first 4 KB (unless a
    UTF-16/32 byte-order mark or NUL pattern explains them), or a whole file that is valid
    JSON. Plain text without tags is left to the parser, which wraps it.
    """
    head = raw[:_SNIFF_BYTES]
    if any(head.startswith(bom) for bom, _ in _BOMS[1:]) or _wide_unicode(raw):
        return None  # UTF-16/32 text is full of NUL bytes by design
    stripped = head.lstrip()
    for magic, what in _MAGIC:
        if stripped.startswith(magic):
            return f"not HTML: {what}"
    if head:
        share = sum(head.count(bytes([b])) for b in _CONTROL) / len(head)
        if share > MAX_CONTROL_SHARE:
            hint = "; UTF-16 without a byte-order mark?" if head.count(0) > len(head) // 4 else ""
            return (
                f"not HTML: binary data ({share:.0%} control bytes in the first "
                f"{len(head)} bytes{hint})"
            )
    if stripped[:1] in (b"{", b"["):
        try:
            json.loads(html if html is not None else raw)
        except (ValueError, UnicodeDecodeError):
            return None
        return "not HTML: a JSON document"
    return None
