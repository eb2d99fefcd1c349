"""Decoding and parsing: every byte string gets a text and a recorded decision."""

import codecs
import hashlib

import pytest

from evalkit.core.page import Gold, Page, PageError, decode_html, parse_html


@pytest.mark.parametrize(
    "raw, text, enc, how",
    [
        (b"", "", "utf-8", "empty"),
        (codecs.BOM_UTF8 + "<p>caf\u00e9</p>".encode(), "<p>caf\u00e9</p>", "utf-8", "bom"),
        (
            codecs.BOM_UTF16_LE + "<p>\u00fcber</p>".encode("utf-16-le"),
            "<p>\u00fcber</p>",
            "utf-16-le",
            "bom",
        ),
        (
            '<meta charset="iso-8859-1"><p>caf\u00e9</p>'.encode("cp1252"),
            '<meta charset="iso-8859-1"><p>caf\u00e9</p>',
            "cp1252",
            "meta",
        ),
        (
            '<?xml version="1.0" encoding="windows-1250"?><p>\u0159</p>'.encode("cp1250"),
            '<?xml version="1.0" encoding="windows-1250"?><p>\u0159</p>',
            "cp1250",
            "xml",
        ),
        ("<p>na\u00efve</p>".encode(), "<p>na\u00efve</p>", "utf-8", "utf-8"),
    ],
)
def test_decode_decisions(raw, text, enc, how):
    assert decode_html(raw) == (text, enc, how)


def test_wrong_declared_charset_falls_through():
    # declares UTF-8 but the bytes are cp1252: the declaration fails to decode, detection runs
    raw = '<meta charset="utf-8"><p>Caf\u00e9 cr\u00e8me br\u00fbl\u00e9e, d\u00e9j\u00e0 vu.</p>'.encode(
        "cp1252"
    )
    text, enc, how = decode_html(raw)
    # undeclared-or-wrong Western bytes take the legacy rule (Windows-1252, as gold does)
    assert (enc, how) == ("cp1252", "legacy")
    assert "<p>Caf\u00e9 cr\u00e8me br\u00fbl\u00e9e, d\u00e9j\u00e0 vu.</p>" in text


def test_binary_garbage_never_raises():
    text, _, _ = decode_html(bytes(range(256)) * 20)
    assert isinstance(text, str)


def test_parse_strips_xml_declaration_and_names_source_on_empty():
    root = parse_html('<?xml version="1.0" encoding="utf-8"?><html><body><p>x</p></body></html>')
    assert root.findtext(".//p") == "x"
    with pytest.raises(PageError, match="blank.html: empty document"):
        parse_html("   ", source="blank.html")


def test_page_decodes_on_construction_and_hashes_bytes():
    page = Page(id="p", dataset="d", raw="<p>\u00e9</p>".encode(), gold=Gold(text="\u00e9"))
    assert page.html == "<p>\u00e9</p>" and page.encoding == "utf-8"
    assert page.sha256 == hashlib.sha256("<p>\u00e9</p>".encode()).hexdigest()


def test_unclosed_xml_declaration_still_parses():
    # as on L3S-GN1 page 43fb5dbe...: the declaration never ends with '?>'
    root = parse_html(
        '<?xml version="1.0" encoding="ilashack, <html><body><p>kept</p></body></html>'
    )
    assert root.findtext(".//p") == "kept"


def test_utf8_bytes_under_a_legacy_declaration_are_read_as_utf8():
    raw = '<meta charset="iso-8859-1"><p>It\u2019s caf\u00e9</p>'.encode("utf-8")
    assert decode_html(raw) == (
        '<meta charset="iso-8859-1"><p>It\u2019s caf\u00e9</p>',
        "utf-8",
        "utf-8-over-declared",
    )


def test_a_title_that_never_closes_does_not_swallow_the_page():
    root = parse_html(
        "<html><head><title>Lost bytes<meta x=1></head><body><p>Body text.</p></body></html>"
    )
    assert root.findtext(".//title") == "Lost bytes" and root.findtext(".//p") == "Body text."


def test_plain_parse_gives_the_same_tree_with_etree_elements():
    import lxml.etree
    import lxml.html

    html = (
        '<?xml version="1.0"?><html><head><title>T</title></head><body><!-- c -->'
        '<div class="a">one <b>two</b> three</div><td>x</td></body></html>'
    )
    fancy, plain = parse_html(html), parse_html(html, plain=True)
    assert lxml.etree.tostring(plain) == lxml.etree.tostring(fancy)
    assert b"<!--" not in lxml.etree.tostring(plain)  # comments removed as before
    assert isinstance(fancy.find(".//div"), lxml.html.HtmlElement)
    assert not isinstance(plain.find(".//div"), lxml.html.HtmlElement)
    with pytest.raises(PageError, match="blank.html: empty document"):
        parse_html("   ", source="blank.html", plain=True)
    page = Page(id="p", dataset="d", raw=html.encode(), gold=Gold(text=""))
    assert lxml.etree.tostring(page.tree(plain=True)) == lxml.etree.tostring(page.tree())
