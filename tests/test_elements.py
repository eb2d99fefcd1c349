"""Typed content elements from Markdown and from CleanEval's marks: evalkit.core.elements."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from evalkit.core.elements import (
    LIST_MARKER,
    MARK,
    Element,
    marked_elements,
    paragraphs,
    parse_markdown,
)

H = lambda text, level=None: Element("heading", text, level=level)
P = lambda text: Element("paragraph", text)
L = lambda text, depth=0: Element("list_item", text, depth=depth)
C = lambda text: Element("code", text)


# ---------------------------------------------------------------- the record


def test_element_checks_its_fields():
    with pytest.raises(ValueError, match="kind"):
        Element("quote", "x")
    with pytest.raises(ValueError, match="level"):
        Element("paragraph", "x", level=2)
    with pytest.raises(ValueError, match="rows"):
        Element("table", "x")
    with pytest.raises(ValueError, match="rows"):
        Element("paragraph", "x", rows=())


def test_paragraphs_of_a_text_only_output():
    assert paragraphs("a  b\n\n  c\n") == [P("a b"), P("c")]


# ---------------------------------------------------------------- Markdown


def test_atx_and_setext_headings_with_levels():
    md = "# One\n\nTwo\n===\n\nThree\n---\n\n###### Six ##\n\n#\n"
    assert parse_markdown(md) == [H("One", 1), H("Two", 1), H("Three", 2), H("Six", 6)]


def test_paragraph_inline_text():
    md = (
        "Some *em* and **strong** [link text](http://x) ![alt *y*](i.png) `code  x`\n"
        "next line  \nhard break &amp; \\* <http://auto.link>"
    )
    text = "Some em and strong link text alt y code x next line hard break & * http://auto.link"
    assert parse_markdown(md) == [P(text)]


def test_inline_html_br_is_a_space_other_tags_dropped():
    assert parse_markdown("a<br>b<BR/>c <b>d</b> run `git` <branch>\n") == [P("a b c d run git")]


def test_lists_nested_depth_and_order():
    md = "- a\n  - b\n    1. c\n\n  more a\n- d\n\n1. e\n2. f\n"
    assert parse_markdown(md) == [
        L("a more a"),  # its own paragraphs joined; the nested list is not part of it
        L("b", 1),
        L("c", 2),
        L("d"),
        L("e"),
        L("f"),
    ]


def test_list_item_with_heading_code_and_table_inside():
    md = "- # Head\n  text\n\n  ```\n  x = 1\n  ```\n- \n- | a |\n  |---|\n  | 1 |\n"
    els = parse_markdown(md)
    # each in document order: the item stands where its own text starts
    assert els[:3] == [H("Head", 1), L("text"), C("x = 1")]
    # the empty item is dropped; the table item has no text of its own
    assert els[3:] == [Element("table", "a 1", rows=(("a",), ("1",)))]


def test_code_blocks_fenced_and_indented():
    md = "```python\ndef f():\n    return 1\n\n```\n\n    indented\n      more\n\n```\n```\n"
    assert parse_markdown(md) == [C("def f():\n    return 1"), C("indented\n  more")]


def test_tables_rows_header_first():
    md = "| h1 | h2 \\| x |\n|----|:---:|\n| 1 | **b** |\n| 3 |\n| | |\n"
    (table,) = parse_markdown(md)
    assert table.kind == "table"
    # GFM fills a short row with empty cells; an escaped pipe is text
    assert table.rows == (("h1", "h2 | x"), ("1", "b"), ("3", ""), ("", ""))
    assert table.text == "h1 h2 | x 1 b 3"
    # a table without any text is an empty element: dropped
    assert parse_markdown("| |\n|-|\n| |\n") == []


def test_blockquote_contents_are_elements():
    md = "> # Q\n> quoted *text*\n>\n> - item\n>   > inner\n"
    assert parse_markdown(md) == [H("Q", 1), P("quoted text"), L("item"), P("inner")]


def test_html_blocks_become_paragraphs_of_their_text():
    md = "<div>\nx <b>y</b> &amp; z\n</div>\n\n<!-- a comment -->\n\n<script>\nvar a = 1;\n</script>\n"
    assert parse_markdown(md) == [P("x y & z")]
    assert parse_markdown("<table><tr><td>a</td><td>b</td></tr></table>\n") == [P("a b")]


def test_thematic_breaks_and_empty_elements_dropped():
    assert parse_markdown("a\n\n---\n\n***\n\n##\n\n-\n\nb\n") == [P("a"), P("b")]
    assert parse_markdown("") == []


def test_parse_markdown_is_deterministic():
    md = "# T\n\n- a\n  - b\n\n| x | y |\n|---|---|\n| 1 | 2 |\n\n```\ncode\n```\n"
    first = parse_markdown(md)
    assert parse_markdown(md) == first
    assert [e.kind for e in first] == ["heading", "list_item", "list_item", "table", "code"]


@pytest.mark.shared
def test_wcxb_gold_markdown(shared):
    import json

    root = shared("wcxb-dev") / "ground-truth"
    files = sorted(root.glob("*.json"))[:150]
    if not files:
        pytest.skip(f"no WCXB gold files in {root}")
    kinds = Counter()
    for file in files:
        md = json.loads(file.read_text("utf-8"))["ground_truth"].get("main_content_markdown") or ""
        els = parse_markdown(md)
        assert els == parse_markdown(md)
        kinds.update(e.kind for e in els)
        for e in els:
            assert e.text and e.text == e.text.strip()
            if e.kind == "heading":
                assert 1 <= e.level <= 6
            if e.kind != "code":
                assert "  " not in e.text
    assert kinds["heading"] and kinds["list_item"] and kinds["paragraph"]


# ---------------------------------------------------------------- CleanEval marks


def test_marked_segments_and_continuation_lines():
    gold = (
        "URL: http://example.com/a\n\nstray text before any mark\n"
        "<h>   Your Home\n<p>first line\n   second line\n\n<l>one\n<P>upper-case mark\n"
    )
    assert marked_elements(gold) == [
        H("Your Home"),  # CleanEval gives no level
        P("first line second line"),
        L("one"),
        P("upper-case mark"),
    ]


def test_marked_list_markers_stripped():
    gold = "<l>     * Fast\n<l>   1. Unique\n<l>2) two\n<l>&bull; bullet\n<l>b. letter\n<l>*\n"
    assert marked_elements(gold) == [L("Fast"), L("Unique"), L("two"), L("bullet"), L("letter")]
    # no marker: a number without "." or ")", a word, an upper-case letter, a dash in a word
    kept = "<l>6 32 3 34\n<l>A. Smith\n<l>-The dash\n<l>old\n"
    assert [e.text for e in marked_elements(kept)] == ["6 32 3 34", "A. Smith", "-The dash", "old"]
    # a <p> or <h> segment keeps its leading "1.": only list items carry list markers
    assert marked_elements("<p>1. first\n<h>2. second\n") == [P("1. first"), H("2. second")]


def test_marks_in_the_middle_of_a_line():
    # CleanEval dev 28 and 58: several marks on one line, and a bullet left before a mark
    gold = (
        "<h>Corey        <h>Sissi\n<p>text\n   §         <p>Prepare a talk\n"
        "   o       <l>Load\n<p>Stephen\n   -- <p>Bracco\n"
    )
    assert marked_elements(gold) == [
        H("Corey"),
        H("Sissi"),
        P("text"),
        P("Prepare a talk"),
        L("Load"),
        P("Stephen"),
        P("Bracco"),
    ]


def test_marked_entities_comments_and_line_ends():
    gold = "URL: x\r\n<p>a &amp; b &lt;p&gt; c\r\n<!-- <h>not a mark -->d\r<p>   \n<p>&#8217;e\n"
    assert marked_elements(gold) == [P("a & b <p> c d"), P("\u2019e")]
    assert marked_elements("URL: http://x\nno marks at all\n") == []


@pytest.mark.shared
def test_cleaneval_dev_gold(shared):
    from evalkit.readers.pairs import decode_text, gold_to_text

    root = shared("cleaneval-dev") / "GoldStandard"
    files = sorted(root.glob("*.txt"))
    if not files:
        pytest.skip(f"no CleanEval gold files in {root}")
    first = marked_elements(decode_text((root / "1.txt").read_bytes()))
    assert first[:4] == [
        P(
            "If you feel it's time to start taking action and get your property sold FAST "
            "and for TOP DOLLAR; here's a good place to start."
        ),
        H("Your Home Will Sell"),
        L("Fast"),
        L("For Top Dollar"),
    ]
    # an unmarked line continues the segment before it
    assert first[4] == L(
        "With the Least Amount of Hassle You will get these results because of our:"
    )
    assert first[5] == L("Unique Team System")
    total = Counter()
    for file in files:
        raw = decode_text(file.read_bytes())
        els = marked_elements(raw)
        total.update(e.kind for e in els)
        assert els == marked_elements(raw)
        assert not any(MARK.search(e.text) for e in els), file.name
        assert not any(e.kind == "list_item" and LIST_MARKER.match(e.text) for e in els)
        # every word comes from the reader's gold text; what is left out is list markers
        text, _ = gold_to_text(raw, "cleaneval")
        words = Counter(re.sub(r"(?i)<[hlp]>", " ", text).split())
        ours = Counter(" ".join(e.text for e in els).split())
        assert not ours - words, file.name
        assert all(LIST_MARKER.fullmatch(w) for w in words - ours), (file.name, words - ours)
    assert min(total[k] for k in ("heading", "list_item", "paragraph")) > 100
