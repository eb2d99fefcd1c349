"""PAB: the page of Kabir et al.'s Figure 3.1 gives the priorities of their Table 3.2."""

from __future__ import annotations

import pytest

from baselines.pab import (
    PAB,
    block_priority,
    find_blocks,
    outer_link_share,
    page_host,
)
from evalkit.core.page import Gold, Page, parse_html
from evalkit.harness.registry import METHODS

URL = "http://www.example.com/articles/1.html"

# Figure 3.1 / Table 3.2: Block-1 <h1>; Block-2 starts with <b> and holds 10 links, all to
# other sites; Block-3 <p> with two <b>; Block-4 <p>, <i>, <b>; Block-5 <p>, <b>; Block-6 <p>;
# Block-7 <p>, <i> and four <a>, none outer. The title block comes first with 1.0.
OTHER_SITES = "".join(f'<a href="http://ads{i}.other{i}.com/x">ad {i}</a> ' for i in range(10))
FIGURE_3_1 = f"""<html><head><title>Sample article</title>
<script>document.write("gone")</script><style>p {{ color: red }}</style></head><body>
<h1>A large web page</h1>
<b>Sponsored: {OTHER_SITES}</b>
<p>Block three has <b>two</b> bold <b>tags</b>.</p>
<p>Block four has <i>italic</i> and <b>bold</b>.</p>
<p>Block five has one <b>bold</b> tag.</p>
<p>Block six is a plain paragraph.</p>
<p>Block seven has <i>italic</i>, <a href="/a">one</a>, <a href="b.html">two</a>, \
<a href="http://www.example.com/c">three</a> and <a href="http://example.com/d">four</a> links.</p>
<form><p>Search this site</p></form><iframe src="http://ads.other.com/"></iframe>
</body></html>"""


def _page(html: str, url: str | None = URL) -> Page:
    return Page(id="p", dataset="test", raw=html.encode("utf-8"), gold=Gold(text=""), url=url)


def test_table_3_2_priorities():
    ext = PAB().extract(_page(FIGURE_3_1))
    tags = [b.tag for b in ext.blocks]
    priorities = [b.scores["priority"] for b in ext.blocks]
    assert tags == ["title", "h1", "b", "p", "p", "p", "p", "p"]
    assert priorities[1:] == pytest.approx([1.0, 0.0, 0.9, 0.7, 0.5, 0.1, 1.1])
    assert priorities[0] == 1.0  # the title block
    assert ext.blocks[2].scores["outer_link_share"] == 1.0 and ext.blocks[2].reason == "outer_links"
    assert (
        ext.blocks[2].scores["n_links"] == 10 and ext.blocks[2].words == 21
    )  # "Sponsored:" + 10 x "ad i"
    assert ext.blocks[7].scores["outer_link_share"] == 0.0 and ext.blocks[7].scores["n_links"] == 4
    # block 2's own tags would sum to 0.4 + 10 x 0.2 = 2.4 without the outer-link rule
    body = parse_html(FIGURE_3_1).find(".//body")
    assert block_priority(find_blocks(body)[1]) == pytest.approx(2.4)
    assert ext.info == {"n_blocks": 8, "n_informative": 7, "n_noisy": 1, "n_merged": 0}


def test_output_is_informative_text_in_order_without_removed_tags():
    text = PAB().extract(_page(FIGURE_3_1)).text
    lines = text.split("\n")
    assert lines[0] == "Sample article"
    assert lines[1] == "A large web page"
    assert lines[2] == "Block three has two bold tags."
    assert len(lines) == 7
    assert "ad 3" not in text and "Search this site" not in text and "gone" not in text


def test_outer_link_rule():
    html = (
        '<body><p id="two-of-three">x <a href="http://other.org/">a</a> '
        '<a href="http://another.net/">b</a> <a href="/local">c</a></p>'
        '<p id="half">y <a href="http://other.org/">a</a> <a href="/local">b</a></p></body>'
    )
    ext = PAB().extract(_page(html))
    first, second = ext.blocks
    assert (
        first.scores["outer_link_share"] == pytest.approx(2 / 3) and first.scores["priority"] == 0.0
    )
    # exactly 50 % is not "more than 50 %": p + a + a = 0.5
    assert second.scores["outer_link_share"] == 0.5 and second.scores["priority"] == pytest.approx(
        0.5
    )
    assert ext.text == "y a b"
    # a stricter limit drops the second block too
    assert PAB(max_outer_link_share=0.4).extract(_page(html)).text == ""


def test_outer_links_without_page_url():
    root = parse_html(
        '<body><p><a href="/x">r</a> <a href="http://www.example.com/y">abs</a></p></body>'
    )
    p = root.find(".//p")
    # no page host: relative links are inner, absolute ones outer
    assert outer_link_share(p, None) == (0.5, 2)
    assert outer_link_share(p, "example.com") == (0.0, 2)
    # the page host is taken from <base>, then canonical / og:url
    with_base = parse_html('<head><base href="http://news.example.com/"></head><body></body>')
    assert page_host(None, with_base) == "news.example.com"
    canonical = parse_html('<head><link rel="canonical" href="https://www.example.com/a"></head>')
    assert page_host(None, canonical) == "www.example.com"
    assert page_host(URL, with_base) == "www.example.com"  # the page URL wins
    # mailto:, javascript: and bare fragments are not links
    odd = parse_html(
        '<body><p><a href="mailto:a@b.c">m</a><a href="javascript:void(0)">j</a>'
        '<a href="#top">t</a><a>no href</a></p></body>'
    ).find(".//p")
    assert outer_link_share(odd, None) == (0.0, 0)


def test_title_block_and_text_outside_blocks():
    # no tag of the table in body: the page is one block of priority 0; only the title is kept
    html = "<html><head><title> The  title </title></head><body><div>Loose text <span>here</span></div></body></html>"
    ext = PAB().extract(_page(html))
    assert [(b.tag, b.scores["priority"], b.kept) for b in ext.blocks] == [
        ("title", 1.0, True),
        ("#outside", 0.0, False),
    ]
    assert ext.blocks[1].text == "Loose text here" and ext.blocks[1].reason == "outside_blocks"
    assert ext.text == "The title"
    assert ext.info == {"n_blocks": 2, "n_informative": 1, "n_noisy": 1, "n_merged": 0}


def test_duplicate_informative_blocks_are_merged():
    html = (
        "<html><head><title>Same words</title></head><body><h1>Same  words</h1>"
        "<p>Repeated <b>teaser</b></p><p>Unique</p><p>Repeated <b>teaser</b></p>"
        '<img src="a.png" alt="logo"><img src="b.png" alt="logo"><img src="c.png"></body></html>'
    )
    ext = PAB().extract(_page(html))
    kept = [(b.tag, b.kept, b.duplicate_of) for b in ext.blocks]
    # h1 equals the title; the second teaser equals the first; empty-text images never merge;
    # an img without alt text starts no block
    assert kept == [
        ("title", True, None),
        ("h1", False, 0),
        ("p", True, None),
        ("p", True, None),
        ("p", False, 2),
        ("img", True, None),
        ("img", True, None),
    ]
    assert ext.text == "Same words\nRepeated teaser\nUnique"
    assert ext.info["n_merged"] == 2 and ext.info["n_informative"] == 7
    assert PAB(merge_duplicates=False).extract(_page(html)).text.count("Repeated teaser") == 2


def test_medium_tags_start_blocks_with_inner_priorities():
    html = (
        '<body><table><tr><td>cell <b>bold</b></td><td><a href="/x">link</a></td></tr></table>'
        "<ul><li>plain item</li></ul><div><p>para in div</p></div></body>"
    )
    ext = PAB().extract(_page(html))
    assert [(b.tag, b.scores["priority"]) for b in ext.blocks] == [
        ("table", pytest.approx(0.6)),
        ("ul", 0.0),
        ("p", 0.1),
    ]
    assert ext.text == "cell bold\nlink\npara in div"


@pytest.mark.parametrize(
    "html",
    [
        "<html><body></body></html>",
        "<html><body><p>text with no links</p></body></html>",
        '<html><frameset><frame src="a.html"><frame src="b.html"></frameset></html>',
        "<html><head><title></title></head><body> </body></html>",
        "<!-- only a comment -->",
        "",
        "\x00\x01 binary junk \xff",
        '<body><a href="http://[broken">x</a><a href="ht!tp://??">y</a></body>',
        "<body>" + "<div>" * 3000 + "<p>deep</p>" + "</div>" * 3000 + "</body>",
        "<body><p>" + "<b>" * 3000 + "deep bold" + "</b>" * 3000 + "</p></body>",
    ],
)
@pytest.mark.parametrize("url", [None, URL, "not a url"])
def test_odd_html_never_raises(html, url):
    ext = PAB().extract(_page(html, url=url))
    assert isinstance(ext.text, str)
    assert ext.info["n_blocks"] == ext.info["n_informative"] + ext.info["n_noisy"]


def test_params_and_registry():
    assert METHODS.get("pab") is PAB
    assert PAB().get_params() == {
        "max_outer_link_share": 0.5,
        "merge_duplicates": True,
        "segmenter": "tags",
        "render": None,
        "pdoc": 8,
    }
    # with the paper's blocks the render settings and PDoC change nothing: not in the key
    assert PAB().resolved_params() == {
        "max_outer_link_share": 0.5,
        "merge_duplicates": True,
        "segmenter": "tags",
    }
    assert not PAB().needs_layout and PAB(segmenter="vips").needs_layout
    with pytest.raises(ValueError):
        PAB(max_outer_link_share=1.5)
    with pytest.raises(ValueError, match="segmenter"):
        PAB(segmenter="visual")


def test_deep_tree_keeps_block_text():
    deep = (
        "<body><div>outside</div><p>" + "<b>" * 3000 + "deep bold" + "</b>" * 3000 + "</p></body>"
    )
    ext = PAB().extract(_page(deep))
    assert ext.text == "deep bold"
    assert ext.blocks[-1].text == "outside"
