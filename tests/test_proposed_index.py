"""The one-walk block index and the C-side searches give what the per-block walks give.

``index_body`` must reproduce ``own_text`` of every block, ``owner_block`` of
every element and the body's word count; ``content_root`` must find the
element the subtree sums of ``punctuation_counts`` lead to; the tag rules must
decide the same with and without the index, on ``lxml.html`` and on plain
trees; the anchor texts of the scoring stage must be ``block_anchor_text``.
Checked on hand-made pages with the awkward cases, on real pages, and on generated HTML
(unclosed tags, stray markup, ad-like attributes; ``html_strategies``).
"""

from __future__ import annotations

import random

import lxml.etree
import lxml.html
import pytest
from fuzz import scaled  # beside the tests
from html_strategies import HTML  # beside the tests
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.core.page import drop_tree, parse_html
from evalkit.proposed.blocks import (
    BLOCK_TAGS,
    TextCache,
    block_anchor_text,
    drop_scripts,
    index_body,
    own_text,
    own_word_count,
    owner_block,
    separate_blocks,
    split_body,
)
from evalkit.proposed.pipeline import _anchor_texts
from evalkit.proposed.primary_dom import content_root, punctuation_counts
from evalkit.proposed.primary_markers import _has_phrase, _is_search_box, _phrase_matcher, _scan
from evalkit.proposed.primary_tags import apply_tag_rules
from evalkit.readers.aeb import AEBDataset

# invisible elements holding blocks, a processing instruction, tails everywhere, nested
# blocks inside links, a table, line breaks without white space
AWKWARD = """<html><head><title>t</title></head><body>lead, text<?php echo 1; ?> after pi
<div id="a">A, one.<br>two<p>three; four</p>tail<div>inner: x</div>after inner
  <svg><div>in svg, still a block</div><text>svg text.</text></svg> after svg</div>
<object><div>in object.</div><param name="x"></object>
<a href="/x">link <div>block in link.</div> more</a>
<table><tr><td>cell, one</td><td><a href="https://twitter.com/x">t</a>
 <a href="/terms">Terms of use</a></td></tr></table>
<iframe src="https://ads.example.net/x"></iframe> end.</body></html>"""


def _aeb_pages(shared, n=40):
    return list(AEBDataset(shared("scrapinghub-aeb"), limit=n).pages())


def _check_index(root):
    drop_scripts(root)
    body = root.find(".//body")
    index = index_body(body)
    for el in index.elements:
        assert index.owner[el] is owner_block(el), el
        if el.tag in BLOCK_TAGS:
            assert index.texts[el] == own_text(el), el
    assert index.texts[body] == own_text(body)
    assert index.words == own_word_count(body, ())
    assert index.elements == [el for el in body.iter() if isinstance(el.tag, str)]


def test_drop_tree_keeps_the_tail_as_lxml_html_does():
    html = "<div>a<b>x</b>tail1<i>y</i>tail2 <u>z</u></div>"
    for kind in ("b", "i", "u"):
        fancy = lxml.html.fromstring(html)
        plain = lxml.etree.fromstring(html, lxml.etree.HTMLParser()).find(".//div")
        fancy.find(kind).drop_tree()
        drop_tree(plain.find(kind))
        assert lxml.etree.tostring(plain) == lxml.etree.tostring(fancy)
    with pytest.raises(ValueError, match="root"):
        drop_tree(lxml.etree.fromstring("<p>x</p>"))


@pytest.mark.parametrize("plain", [False, True])
def test_index_matches_the_per_block_walks_by_hand(plain):
    _check_index(parse_html(AWKWARD, plain=plain))
    root = drop_scripts(parse_html(AWKWARD, plain=plain))
    index = index_body(root.find(".//body"))
    svg_div = root.find(".//svg/div")
    # a block inside an invisible element has its own text, which the body's does not hold
    assert index.texts[svg_div] == "in svg, still a block"
    assert index.texts[root.find(".//div")].startswith("A, one.\ntwo\nthree; four\ntail")


def test_index_matches_the_per_block_walks_on_real_pages(shared):
    for page in _aeb_pages(shared):
        _check_index(page.tree(plain=True))


def _descend(body, blocks, coverage=0.8):
    """content_root as the subtree sums define it."""
    counts, total = punctuation_counts(body, blocks)
    node = body
    if total == 0:
        return node, 0, 0
    while True:
        nxt = next((c for c in node if counts.get(c, 0) >= coverage * total), None)
        if nxt is None:
            return node, counts[node], total
        node = nxt


def _check_content_root(html, rng, trials=3):
    root = drop_scripts(parse_html(html, plain=True))
    body = root.find(".//body")
    blocks = separate_blocks(root)
    for trial in range(trials):  # all alive, then random blocks dead
        if trial:
            for b in blocks:
                if rng.random() < 0.3:
                    b.remove("primary", "test", "")
        for coverage in (0.8, 0.6, 1.0):
            assert content_root(body, blocks, coverage) == _descend(body, blocks, coverage)


def test_content_root_follows_the_subtree_sums(shared):
    rng = random.Random(0)
    for html in [AWKWARD] + [p.html for p in _aeb_pages(shared, 30)]:
        _check_content_root(html, rng)


def _decisions(root, use_index):
    drop_scripts(root)
    texts = TextCache()
    if use_index:
        blocks, index = split_body(root, texts=texts)
    else:
        blocks, index = separate_blocks(root, texts=texts), None
    counts = apply_tag_rules(
        root, blocks, page_url="https://www.example.com/a", texts=texts, index=index
    )
    return counts, [(b.path, b.rule, b.reason) for b in blocks], blocks, index


def test_tag_rules_decide_alike_with_and_without_the_index(shared):
    pages = [AWKWARD] + [p.html for p in _aeb_pages(shared)]
    for html in pages:
        want = _decisions(parse_html(html), use_index=False)[:2]
        assert _decisions(parse_html(html), use_index=True)[:2] == want
        assert _decisions(parse_html(html, plain=True), use_index=True)[:2] == want


def test_anchor_texts_from_the_index_are_block_anchor_texts(shared):
    pages = [AWKWARD] + [p.html for p in _aeb_pages(shared, 20)]
    for html in pages:
        _, _, blocks, index = _decisions(parse_html(html, plain=True), use_index=True)
        alive = [b for b in blocks if b.alive]
        got = _anchor_texts(alive, index, BLOCK_TAGS)
        assert {b.index: block_anchor_text(b) for b in alive} == {
            b.index: got.get(b.index, "") for b in alive
        }


def test_phrase_screen_changes_no_answer():
    phrases = ("terms of use", "privacy policy", "\u00a9", "contact us", "about us")
    matcher = _phrase_matcher(phrases)
    for text in (
        "read our terms of use",
        "terms of user",
        "\u00a9 2020",
        "no phrase here",
        "contact usa",
        "about us.",
        "",
        "xterms of use",
    ):
        plain = next(
            (
                p
                for p in phrases
                if p in text and (not (p.isalnum() or " " in p) or _has_phrase(text, (p,)))
            ),
            None,
        )
        assert _has_phrase(text, matcher) == _has_phrase(text, phrases) == plain, text
    assert _has_phrase("anything", ()) is None


def _check_scan(html):
    for plain in (False, True):
        body = drop_scripts(parse_html(html, plain=plain)).find(".//body")
        rows, anchors, searches = _scan(index_body(body).elements, body)
        assert anchors == body.xpath(".//a[@href != '']")
        assert searches == [
            el
            for el in body.xpath("descendant-or-self::input | descendant-or-self::*[@role]")
            if _is_search_box(el)
        ]
        assert [r[0] for r in rows] == body.xpath(
            ".//*[@id != '' or @class != '' or @src != '' or @href != '']"
        )


SEARCHY = """<html><body role="main"><input name="Q"><input type="text"><a href="">empty</a>
<a href=" ">space</a><A HREF="/up">upper</A><a>no href</a><div role="search"><a href="/s">s</a>
<input type="SEARCH"></div><form role="navigation"><input name="keywords"></form>
<span role="">x</span><area href="/map"></body></html>"""


def test_scan_finds_what_the_xpaths_find(shared):
    # the one pass over the elements gives the lists the XPath queries gave, in order
    for html in [SEARCHY, AWKWARD] + [p.html for p in _aeb_pages(shared)]:
        _check_scan(html)
    body = parse_html(SEARCHY).find(".//body")
    _, anchors, searches = _scan(list(body.iter()), body)
    assert [a.text for a in anchors] == ["space", "upper", "s"]
    assert [(el.tag, el.get("name") or el.get("type") or el.get("role")) for el in searches] == [
        ("input", "Q"),
        ("div", "search"),
        ("input", "SEARCH"),
        ("input", "keywords"),
    ]


@settings(database=None, deadline=None, max_examples=scaled(60))
@given(HTML, st.randoms(use_true_random=False))
def test_every_shortcut_holds_on_generated_html(html, rng):
    # the same checks as on the real pages above, on pages no site would write (3,000
    # examples passed once by hand; CI runs a fixed 60)
    _check_index(parse_html(html, plain=True))
    _check_content_root(html, rng, trials=2)
    want = _decisions(parse_html(html), use_index=False)[:2]
    assert _decisions(parse_html(html, plain=True), use_index=True)[:2] == want
    _, _, blocks, index = _decisions(parse_html(html, plain=True), use_index=True)
    alive = [b for b in blocks if b.alive]
    got = _anchor_texts(alive, index, BLOCK_TAGS)
    assert {b.index: block_anchor_text(b) for b in alive} == {
        b.index: got.get(b.index, "") for b in alive
    }
    _check_scan(html)
