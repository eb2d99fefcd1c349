"""Issue 37 items 1, 4, 5 as attacks: CJK gold read as Cyrillic, a Python codec named in
<meta charset>, a page id twice in a stored aeb JSON; plus property tests of the decoder."""

from __future__ import annotations

import codecs

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baselines.stored import StoredFileError, read_outputs
from evalkit.core.decode import WEB_CODECS, decode_gold, decode_html
from evalkit.core.web_encodings import web_codec

ZH = "城市议会周二批准了新的预算。我们今天去公园散步，天气很好。"
JA = "市議会は火曜日に新しい予算を承認しました。私は毎朝コーヒーを飲みます。"


@pytest.mark.parametrize("text, enc", [(ZH, "gb18030"), (ZH, "gbk"), (JA, "euc_jp")])
def test_undeclared_cjk_gold_is_not_read_as_cyrillic(text, enc):
    # main: ('ГЧЪавщЛсжм...', 'iso8859-5', 'cyrillic'), F1 0 against the page
    for decode in (decode_gold, decode_html):
        got, _, how = decode(text.encode(enc))
        assert (got, how) == (text, "cjk")


@pytest.mark.parametrize("label", ["cp037", "rot13", "punycode", "utf-7", "idna", "base64"])
def test_a_python_codec_in_meta_charset_is_ignored(label):
    # main: cp037 turned the page into garbage; rot13/punycode raised out of the run
    raw = f'<html><head><meta charset="{label}"></head><body><p>Hello world</p></body></html>'
    text, codec, how = decode_html(raw.encode())
    assert (text, codec, how) == (raw, "utf-8", "utf-8")
    assert decode_gold(f'Quoting <meta charset="{label}"> here'.encode())[1] == "utf-8"


def test_whatwg_labels_map_as_browsers_do():
    assert [
        web_codec(x)
        for x in ("latin1", " ISO-8859-1 ", "gb2312", "x-sjis", "utf-16", "iso-2022-kr", "cp037")
    ] == ["cp1252", "cp1252", "gb18030", "cp932", None, None, None]


def test_a_page_id_twice_in_a_stored_aeb_json_is_refused(tmp_path):
    path = tmp_path / "tool.json"
    path.write_text('{"p1": {"articleBody": "one"}, "p1": {"articleBody": "two"}}')
    # main: {'p1': 'two'}, silently
    with pytest.raises(StoredFileError) as err:
        read_outputs(path, "aeb")
    assert str(err.value) == (
        f"{path}: key 'p1' twice in one JSON object (a page id or field given twice; which one counts?)"
    )


@given(
    st.binary(max_size=400),
    st.sampled_from(
        ["cp037", "rot13", "punycode", "utf-7", "utf-8", "latin1", "gbk", "x-user-defined", "\x00"]
    ),
)
def test_random_bytes_and_labels_never_raise_nor_leave_the_web_codecs(raw, label):
    for doc in (raw, f'<meta charset="{label}">'.encode() + raw):
        for decode in (decode_html, decode_gold):
            text, codec, how = decode(doc)
            assert isinstance(text, str) and how
            assert codecs.lookup(codec).name in WEB_CODECS


@given(
    st.text(
        alphabet="的一是不了在人有我他这个们中来上大为和国地到以说时要就出会可也你对生能",
        min_size=6,
        max_size=60,
    ),
    st.sampled_from(["gb18030", "gbk"]),
)
def test_chinese_text_is_never_cyrillic(text, enc):
    assert decode_gold(text.encode(enc))[2] != "cyrillic"


@given(st.text(max_size=200))
def test_stored_aeb_json_from_any_text_only_fails_with_one_line(tmp_path_factory, doc):
    path = tmp_path_factory.mktemp("aeb") / "t.json"
    path.write_text(doc, encoding="utf-8", errors="surrogatepass")
    try:
        read_outputs(path, "aeb")
    except StoredFileError as exc:
        assert str(exc).startswith(str(path)) and "\n" not in str(exc).split(" (")[0]
