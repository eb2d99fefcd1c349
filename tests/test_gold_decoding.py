"""Gold bytes are decoded like page bytes (evalkit.core.page.decode_gold): a gold file saved in
UTF-16, UTF-32 or Shift-JIS scores exactly as its UTF-8 copy, and a gold file that is not
text is skipped with the reason instead of being scored as empty gold."""

from __future__ import annotations

import codecs
import random

import pytest

from baselines.reference import FullText
from evalkit.core.page import decode_gold, decode_html, undecodable
from evalkit.metrics import page_text_metrics
from evalkit.readers.pairs import PairsDataset

GOLD = "The council in \u6771\u4eac approved the budget (\u4e88\u7b97) on Tuesday."
PAGE = (
    '<html><head><meta charset="utf-8"></head><body><nav>Home News</nav>'
    f"<p>{GOLD}</p></body></html>"
).encode()
# stem -> how the gold file is written (the codecs without "-le"/"-be" write a byte-order mark)
ENCODINGS = {
    "u8": "utf-8",
    "u16": "utf-16",
    "u16le": "utf-16-le",
    "u16be": "utf-16-be",
    "u32": "utf-32",
    "u32le": "utf-32-le",
    "u32be": "utf-32-be",
    "sjis": "shift_jis",
}


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    root = tmp_path_factory.mktemp("gold_encodings")
    (root / "html").mkdir()
    (root / "gold").mkdir()
    for stem, enc in ENCODINGS.items():
        (root / "html" / f"{stem}.html").write_bytes(PAGE)
        (root / "gold" / f"{stem}.txt").write_bytes(GOLD.encode(enc))
    ds = PairsDataset(path=str(root))
    read = {p.id: p for p in ds.pages()}
    assert ds.skipped == []
    return read


def test_every_encoding_gives_the_utf8_gold_text(pages):
    assert sorted(pages) == sorted(ENCODINGS)
    assert {stem: p.gold.text for stem, p in pages.items()} == {stem: GOLD for stem in ENCODINGS}


def test_every_encoding_scores_as_the_utf8_copy(pages):
    scores = {
        stem: page_text_metrics(FullText().extract(p).text, p.gold.text)
        for stem, p in pages.items()
    }
    # worked by hand: fulltext returns "Home News" + the gold. Words (a CJK character is a
    # word: 東 京 and ( 予 算 ) make 2 + 4 of the gold's 14): P = 14/16, R = 1, F1 = 28/30.
    # Shingles (\w+ tokens, 4-grams): gold 10 tokens -> 7 shingles, all among the 9 of the 12
    # predicted tokens: P = 7/9, R = 1, F1 = 2*(7/9)/(16/9) = 7/8.
    u8 = scores["u8"]
    assert u8["word_precision"] == pytest.approx(14 / 16)
    assert u8["word_f1"] == pytest.approx(28 / 30)
    assert u8["shingle_precision"] == pytest.approx(7 / 9)
    assert u8["shingle_recall"] == 1.0
    assert u8["shingle_f1"] == pytest.approx(7 / 8)
    assert {stem: s for stem, s in scores.items()} == {stem: u8 for stem in ENCODINGS}


@pytest.mark.parametrize(
    "enc, how",
    [
        ("utf-16", "bom"),
        ("utf-16-le", "nul-pattern"),
        ("utf-16-be", "nul-pattern"),
        ("utf-32", "bom"),
        ("utf-32-le", "nul-pattern"),
        ("utf-32-be", "nul-pattern"),
        ("shift_jis", "cjk"),
        ("utf-8", "utf-8"),
    ],
)
def test_decode_gold_says_how_it_decided(enc, how):
    text, _, got = decode_gold((GOLD * 3).encode(enc))
    assert (text.removeprefix("\ufeff"), got) == (GOLD * 3, how)


def test_western_gold_stays_windows_1252_where_detection_guesses_wrong():
    # as in chaos "afghanistan (7)": charset-normalizer reads the lone 0x92 and the "i" after it
    # as one Big5 character; the reading has 1.0 high bytes per non-ASCII character, so it is
    # not taken, and Windows-1252 gives the apostrophe
    raw = b"Bombings on Shi\x92ite mosques in Kabul and Herat killed dozens on Friday."
    assert decode_gold(raw) == (raw.decode("cp1252"), "cp1252", "legacy")
    assert decode_gold(b"A page \x85 caf\xe9")[0] == "A page \u2026 caf\u00e9"


def test_clearly_foreign_single_byte_gold_keeps_the_detected_encoding():
    text = "Городской совет утвердил новый бюджет во вторник после долгих споров о школах. " * 3
    # read by the Cyrillic code-page step (issue 31 item 5) before statistical detection
    assert decode_gold(text.encode("cp1251")) == (text, "cp1251", "cyrillic")


def test_cyrillic_words_are_the_letter_runs_of_cyrillic_letters_only():
    from evalkit.core.detect import _cyrillic_runs

    # a run that goes on in Latin letters is none; a digit, like any non-letter, ends a run
    # (so does a combining mark, U+0483); one Cyrillic letter is no run
    text = "Ёлка, ёж-ка caf\u0439 xyzабв аб1вг д бв\u0483гд"
    assert _cyrillic_runs(text) == ["Ёлка", "ёж", "ка", "аб", "вг", "бв", "гд"]


def test_pages_take_the_gold_rule_windows_1252_for_western_bytes():
    # one decoder (issue 37): WHATWG has no latin-1, and detection read this as cp1250
    raw = "<p>Gr\u00fc\u00dfe aus K\u00f6ln, sch\u00f6ne Stra\u00dfe.</p>".encode("latin-1")
    assert decode_html(raw)[1:] == ("cp1252", "legacy")


def test_utf16_page_without_a_bom_is_read_not_refused(tmp_path):
    (tmp_path / "html").mkdir()
    (tmp_path / "gold").mkdir()
    (tmp_path / "html" / "p.html").write_bytes(PAGE.decode().encode("utf-16-le"))
    (tmp_path / "gold" / "p.txt").write_bytes(GOLD.encode())
    ds = PairsDataset(path=str(tmp_path))
    (page,) = list(ds.pages())
    assert (page.encoding, page.encoding_source) == ("utf-16-le", "nul-pattern")
    assert FullText().extract(page).text.split() == ["Home", "News", *GOLD.split()]


def test_gold_that_is_not_text_is_skipped_with_the_reason(tmp_path):
    rng = random.Random(7)
    (tmp_path / "html").mkdir()
    (tmp_path / "gold").mkdir()
    for stem in ("noise", "fine"):
        (tmp_path / "html" / f"{stem}.html").write_bytes(PAGE)
    (tmp_path / "gold" / "noise.txt").write_bytes(bytes(rng.randrange(256) for _ in range(3000)))
    (tmp_path / "gold" / "fine.txt").write_bytes(codecs.BOM_UTF8 + GOLD.encode())
    ds = PairsDataset(path=str(tmp_path))  # keep_empty_gold=True: still not kept as empty
    assert [(p.id, p.gold.text) for p in ds.pages()] == [("fine", GOLD)]
    ((file, reason),) = [(s.file, s.reason) for s in ds.skipped]
    assert file.endswith("noise.txt")
    assert reason.startswith("unreadable gold: not text in any encoding evalkit can read: ")
    assert "U+FFFD" in reason


def test_undecodable_counts_replacement_and_control_characters():
    assert undecodable("") is None
    assert undecodable("caf\ufffd au lait") is None  # 1 of 10 non-space characters
    assert undecodable("\ufffd\ufffd\x01 abc") is None  # 3 of 6: not more than half
    assert undecodable("\ufffd\ufffd\x01\x02 ab").startswith("not text")  # 4 of 6
