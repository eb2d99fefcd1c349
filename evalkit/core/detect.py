"""What undeclared bytes are: the readings :func:`evalkit.core.decode.decode_bytes` tries after
UTF-8, each giving only encodings of the web (:mod:`evalkit.core.web_encodings`).

In order (docs/inputs.md, "Undeclared bytes"):

1. :func:`cjk_reading`: Chinese (GB18030, Big5), Japanese (EUC-JP, Shift_JIS) or Korean
   (EUC-KR) when the bytes decode strictly in that encoding *and* the reading is made of the
   characters its language writes: at least 80 % of them in the first level of its
   national standard (GB 2312 level 1, JIS X 0208 level 1 and kana, the Big5 frequent set,
   the 2,350 Hangul syllables of KS X 1001), one at least among its most frequent
   (charset-normalizer's frequency tables). Random pairs of high bytes, which is what
   Cyrillic or Western text is in a double-byte reading, fall mostly outside them (and
   text with words of odd length and spaces does not decode at all).
2. :func:`cyrillic_reading`: a short text in a Cyrillic code page, by its Cyrillic words.
   A word must also be cased as words are (lower case after its first letter, or all
   capitals): CJK bytes read in a Cyrillic code page are runs of letters whose case flips
   at random (``ГЧЪавщЛсжмЖўХњзМСЫаТЕФ`` is GB18030 Chinese in ISO-8859-5), which before
   this rule passed for Russian (issue 37).
3. :func:`detected`: charset-normalizer, its choice limited to the WHATWG encodings
   (:data:`evalkit.core.web_encodings.DETECTABLE`).

Everything here is core and never raises.
"""

from __future__ import annotations

import codecs
import re
import unicodedata

from evalkit.core.web_encodings import DETECTABLE

__all__ = [
    "CJK_CODECS",
    "CJK_OVER_CYRILLIC",
    "CJK_SHARE",
    "CYRILLIC_CODE_PAGES",
    "cjk_reading",
    "clearly_foreign",
    "cyrillic_reading",
    "detected",
    "undeclared_reading",
]

# ---------------------------------------------------------------- CJK


def _lead(char: str, codec: str) -> int | None:
    """The first byte of ``char`` in ``codec`` when it has two bytes there, else None."""
    try:
        data = char.encode(codec)
    except UnicodeEncodeError:
        return None
    return data[0] if len(data) == 2 else None


def _kana(char: str) -> bool:
    return "\u3041" <= char <= "\u30ff"


def _chinese_simplified(char: str) -> bool:  # GB 2312 level 1: rows 16-55
    lead = _lead(char, "gb2312")
    return lead is not None and 0xB0 <= lead <= 0xD7


def _chinese_traditional(char: str) -> bool:  # Big5's frequently used characters
    lead = _lead(char, "big5")
    return lead is not None and 0xA4 <= lead <= 0xC6


def _japanese(char: str) -> bool:  # kana and JIS X 0208 level 1: rows 16-47
    lead = _lead(char, "euc_jp")
    return _kana(char) or (lead is not None and 0xB0 <= lead <= 0xCF)


def _korean(char: str) -> bool:  # the 2,350 Hangul syllables of KS X 1001
    lead = _lead(char, "euc_kr")
    return "\uac00" <= char <= "\ud7a3" and lead is not None and 0xB0 <= lead <= 0xC8


def _frequent(*languages: str) -> frozenset[str]:
    """The most frequent characters of ``languages`` in charset-normalizer's tables (the
    lists its coherence test uses: Chinese 100 characters, Korean 26 syllables, Japanese
    kanji and kana)."""
    from charset_normalizer.constant import FREQUENCIES

    return frozenset(c for lang in languages for c in FREQUENCIES.get(lang, ()))


_ZH = _frequent("Chinese")
_JA = _frequent("Japanese", "Japanese\u2014", "Japanese\u2014\u2014")
_KO = _frequent("Korean")

#: the CJK codecs tried, in order of preference on a tie: each with the test of a common
#: character of the language it writes (the first level of its standard) and that language's
#: most frequent characters
CJK_CODECS = (
    ("gb18030", _chinese_simplified, _ZH),
    ("big5hkscs", _chinese_traditional, _ZH),
    ("euc_jp", _japanese, _JA),
    ("cp932", _japanese, _JA),
    ("cp949", _korean, _KO),
)

#: share of a reading's non-ASCII characters (punctuation and symbols aside) that must be
#: common characters of its language; real text is above 0.95, other bytes far below
CJK_SHARE = 0.8


def _neutral(char: str) -> bool:
    """Punctuation, symbols and spaces (CJK and full-width ones too): no language's letters."""
    return unicodedata.category(char)[0] in "PSZ"


def cjk_reading(raw: bytes) -> tuple[str, str, float] | None:
    """``(text, codec, share of frequent characters)`` of the CJK reading of ``raw`` (module docstring, rule 1), or None.

    A codec of :data:`CJK_CODECS` reads ``raw`` as CJK text when it decodes it strictly, at
    least two of the reading's non-ASCII characters are no punctuation or symbols, at least
    :data:`CJK_SHARE` of them are common characters of its language, and one at least is
    among the language's most frequent. Two pairs of high bytes can be Chinese, Japanese and
    Korean at once (``\u6771\u4eac`` in EUC-JP is two GB 2312 characters too): of the readings,
    the one wins with the largest share of frequent characters, then of common ones.
    """
    if raw.isascii():
        return None
    best, best_score = None, None
    for codec, common, frequent in CJK_CODECS:
        try:
            text = raw.decode(codec)
        except UnicodeDecodeError:
            continue
        chars = [c for c in text if c > "\x7f" and not _neutral(c)]
        if len(chars) < 2:
            continue
        n_common, n_frequent = sum(map(common, chars)), sum(c in frequent for c in chars)
        if n_common < CJK_SHARE * len(chars) or not n_frequent:
            continue
        score = (n_frequent / len(chars), n_common / len(chars))
        if best_score is None or score > best_score:
            best, best_score = (text, codecs.lookup(codec).name, score[0]), score
    return best


#: share of frequent characters a CJK reading needs when a Cyrillic code page reads the bytes
#: as words too (only a few characters can be both: ``\u80fd\u828d\u4e52`` in Big5 is
#: ``\u043f\u0440\u0438\u0432\u0435\u0442`` in cp866)
CJK_OVER_CYRILLIC = 0.5


def undeclared_reading(raw: bytes) -> tuple[str, str, str] | None:
    """``(text, codec, how)`` of rule 1 (``cjk``) or rule 2 (``cyrillic``) of the module
    docstring, or None: then detection decides. When both read ``raw``, the CJK reading wins
    only with :data:`CJK_OVER_CYRILLIC` of its characters frequent."""
    cjk = cjk_reading(raw)
    cyrillic = cyrillic_reading(raw)
    if cjk is not None and (cyrillic is None or cjk[2] >= CJK_OVER_CYRILLIC):
        return cjk[0], cjk[1], "cjk"
    if cyrillic is not None:
        return raw.decode(cyrillic), cyrillic, "cyrillic"
    return None


# ---------------------------------------------------------------- Cyrillic

#: the Cyrillic code pages :func:`cyrillic_reading` tries, in order of preference on a tie
CYRILLIC_CODE_PAGES = ("cp1251", "koi8-r", "cp866", "iso8859-5", "mac_cyrillic")
#: share of a reading's non-ASCII characters that must be letters, and of those letters that
#: must stand in words of Cyrillic letters only, for the reading to count as Cyrillic text
_CYRILLIC_SHARE = 0.9
#: the most frequent letters of Russian text (about 60 % of its letters)
_COMMON_CYRILLIC = frozenset("оеаинтсрвлкмдпу")
_LETTER_RUN = re.compile(r"[^\W\d_]+")
#: two or more letters of the Cyrillic block: a letter run (:data:`_LETTER_RUN`) that is only
#: such letters is the only run that can be a word (:func:`_cyrillic_word`; :func:`_cyrillic_runs`)
_CYRILLIC_LETTERS = re.compile(
    "[" + "".join(c for c in map(chr, range(0x400, 0x500)) if _LETTER_RUN.fullmatch(c)) + "]{2,}+"
)


def _cyrillic_runs(text: str) -> list[str]:
    """The letter runs of ``text`` made of Cyrillic-block letters only: ``_LETTER_RUN``'s runs
    filtered so, found without trying every position (a Western text has few such letters)."""
    out = []
    for m in _CYRILLIC_LETTERS.finditer(text):
        start, end = m.span()
        before = text[start - 1] if start else ""
        after = text[end : end + 1]
        if not _LETTER_RUN.match(before) and not _LETTER_RUN.match(after):
            out.append(m.group())
    return out


#: the bytes a code page of CYRILLIC_CODE_PAGES reads as ASCII (cyrillic_reading drops them)
_ASCII_BYTES = bytes(range(128))
#: Cyrillic vowels: a word of Cyrillic letters without one is not a word (``ЧЧЧ`` is how cp866
#: reads three cp1252 dashes)
_CYRILLIC_VOWELS = frozenset("аеёиоуыэюяіїєАЕЁИОУЫЭЮЯІЇЄ")


def _cyrillic_word(word: str) -> bool:
    """Two or more Cyrillic letters, a vowel among them, cased as a word is: lower case after
    the first letter, or all capitals."""
    return (
        len(word) >= 2
        and all("\u0400" <= c <= "\u04ff" for c in word)
        and not _CYRILLIC_VOWELS.isdisjoint(word)
        and (word[1:].islower() or word.isupper())
    )


def cyrillic_reading(raw: bytes) -> str | None:
    """The Cyrillic code page (:data:`CYRILLIC_CODE_PAGES`) that reads ``raw`` as Russian-like
    text, or None when none reads it as Cyrillic words.

    Statistical detection has too little to go on in a short text: charset-normalizer reads
    a one-line cp1251 gold as cp1125 or mac_cyrillic and a koi8-r one as Shift-JIS, and
    every byte string decodes as cp1252. Here a reading counts as Cyrillic when at least
    90 % of its non-ASCII characters are letters and at least 90 % of those stand in words
    (:func:`_cyrillic_word`: two or more Cyrillic letters only, a vowel among them, cased as
    words are). Western text with accents read as Cyrillic gives single letters inside Latin
    words (``cafй``); CJK text gives runs whose case flips at random. The code pages order
    the same 32 letters differently and swap the cases (cp1251 and koi8-r), so among the
    Cyrillic readings the one wins whose words are in lower case after their first letter
    and that uses Russian's most frequent letters most. A text only in capitals cannot be
    told apart by its case; the letter frequencies decide it then.
    """
    if raw.isascii():
        return None
    # every code page here reads ASCII as ASCII and each other byte as one non-ASCII
    # character, so the high bytes alone are the reading's non-ASCII characters
    high = raw.translate(None, _ASCII_BYTES)
    best, best_score = None, None
    for enc in CYRILLIC_CODE_PAGES:
        try:
            wide = high.decode(enc)
        except UnicodeDecodeError:
            continue
        letters = sum(c.isalpha() for c in wide)
        if letters < _CYRILLIC_SHARE * len(wide):
            continue
        words = [w for w in _cyrillic_runs(raw.decode(enc)) if _cyrillic_word(w)]
        if sum(map(len, words)) < _CYRILLIC_SHARE * letters:
            continue
        cased = sum(c.islower() for w in words for c in w[1:])
        common = sum(c.lower() in _COMMON_CYRILLIC for w in words for c in w)
        score = (cased + common, common)
        if best_score is None or score > best_score:
            best, best_score = enc, score
    return None if best is None else codecs.lookup(best).name


# ---------------------------------------------------------------- detection


#: bytes detection looks at (charset-normalizer's time grows with them)
_DETECT_BYTES = 200_000


def detected(raw: bytes) -> str | None:
    """charset-normalizer's best encoding for ``raw`` among :data:`DETECTABLE` (a Python codec
    name), or None when it finds none."""
    try:
        from charset_normalizer import from_bytes

        best = from_bytes(raw[:_DETECT_BYTES], cp_isolation=list(DETECTABLE)).best()
        name = codecs.lookup(best.encoding).name if best is not None else None
    except Exception:  # noqa: BLE001 - detection is best-effort; the caller falls back
        return None
    return name if name in DETECTABLE else None


_HIGH_BYTES = bytes(range(128, 256))


def clearly_foreign(raw: bytes, encoding: str | None) -> bool:
    """Whether detection's ``encoding`` reads ``raw`` as text that is clearly not Western.

    The reading must decode strictly and most of its non-ASCII letters must be outside
    the Latin script (Cyrillic, Greek, CJK, ...). A single-byte reading must also make
    foreign letters the majority of all letters: one ``é`` read as an Arabic letter is not
    Urdu. A multi-byte reading must show multi-byte characters: on average at least 1.25
    non-ASCII bytes per non-ASCII character (Western text misread as Big5 pairs each lone
    high byte with the ASCII letter after it: 1.0; Shift-JIS mixed with English: 1.5).
    """
    if not encoding:
        return False
    try:
        text = raw.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return False
    wide = [c for c in text if c > "\x7f"]
    letters = [c for c in wide if c.isalpha()]
    foreign = sum(not unicodedata.name(c, "LATIN").startswith("LATIN") for c in letters)
    if foreign * 2 <= len(letters):
        return False
    if len(raw) - (len(text) - len(wide)) == len(wide):  # one byte per character
        return foreign * 2 > sum(c.isalpha() for c in text)
    high = len(raw) - len(raw.translate(None, _HIGH_BYTES))
    return high >= 1.25 * len(wide)
