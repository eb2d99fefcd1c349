"""CoreEx on a hand-made page whose counts and scores are worked out by hand below."""

from __future__ import annotations

import pytest

from baselines.coreex import (
    CoreEx,
    best_node,
    clean_tree,
    node_counts,
    node_scores,
    set_members,
)
from evalkit.core.page import Gold, Page, parse_html
from evalkit.harness.registry import METHODS

# body                                                     textCnt linkCnt  ratio
#  div#nav   <a>Home</a> <a>World news</a>                      3      3    0
#  div#main                                                    24      2    22/24 = 0.917
#    h1      "Big storm hits coast"                             4      0    1
#    p#p1    "Rain fell all day and night."                     6      0    1
#    p#p2    "Roads closed in <a>three towns</a> today."        6      2    4/6 = 0.667
#    p#p3    "Crews worked to clear the fallen trees quickly."  8      0    1
#  div#foot  "Copyright 2020 <a>Contact us</a>"                 4      2    0.5
# pageText = textCnt(body) = 3 + 24 + 4 = 31
#
# S (children whose ratio exceeds 0.9) and scores 0.99 (setText - setLink)/setText + 0.01 setText/31:
#  main: S = {h1, p1, p3} (p2 fails 0.667); setText 18, setLink 0 -> 0.99 + 0.18/31 = 0.995806
#  body: S = {main} (nav 0, foot 0.5 fail); setText 24, setLink 2
#        -> 0.99 * 22/24 + 0.24/31 = 0.907500 + 0.007742 = 0.915242
#  p3:   own 8 -> 0.99 + 0.08/31 = 0.992581 (the best leaf)
#  p2:   own words "Roads closed in" + "today." = 4, its link child is not in S
#        -> 0.99 + 0.04/31 = 0.991290
#  foot: own "Copyright 2020" = 2, link child not in S -> 0.99 + 0.02/31 = 0.990645
#  nav:  no own words, no child in S -> no score
# best: main; output: main without p2
PAGE = (
    '<html><head><title>T</title><script>var a = "not counted words";</script></head><body>'
    '<div id="nav"><a href="/1">Home</a> <a href="/2">World news</a></div>'
    '<div id="main"><h1 id="h">Big storm hits coast</h1><p id="p1">Rain fell all day and night.</p>'
    '<p id="p2">Roads closed in <a href="/t">three towns</a> today.</p>'
    '<p id="p3">Crews worked to clear the fallen trees quickly.</p></div>'
    '<div id="foot">Copyright 2020 <a href="/c">Contact us</a></div><!-- c --></body></html>'
)
MAIN_TEXT = "Big storm hits coast\nRain fell all day and night.\nCrews worked to clear the fallen trees quickly."


def _page(html: str) -> Page:
    return Page(id="p", dataset="test", raw=html.encode("utf-8"), gold=Gold(text=""))


def _counts(html: str, link_words: str = "words"):
    root = clean_tree(parse_html(html))
    counts = node_counts(root.find(".//body"), link_words)
    at = {el.get("id") or el.tag + str(i): i for i, el in enumerate(counts.nodes)}
    return counts, at


def test_text_and_link_counts():
    c, at = _counts(PAGE)
    expect = {
        "body0": (31, 7),
        "nav": (3, 3),
        "main": (24, 2),
        "h": (4, 0),
        "p1": (6, 0),
        "p2": (6, 2),
        "p3": (8, 0),
        "foot": (4, 2),
    }
    for name, want in expect.items():
        assert (c.text[at[name]], c.links[at[name]]) == want, name
    assert (c.own[at["p2"]], c.own_links[at["p2"]]) == (4, 0)
    assert c.own[at["foot"]] == 2


def test_scores_by_hand():
    c, at = _counts(PAGE)
    s = node_scores(c, 0.9, 0.99, 0.01)
    assert s[at["main"]] == pytest.approx(0.99 + 0.18 / 31)
    assert s[at["body0"]] == pytest.approx(0.99 * 22 / 24 + 0.24 / 31)
    assert s[at["p3"]] == pytest.approx(0.99 + 0.08 / 31)
    assert s[at["p2"]] == pytest.approx(0.99 + 0.04 / 31)
    assert s[at["foot"]] == pytest.approx(0.99 + 0.02 / 31)
    assert s[at["nav"]] is None
    assert best_node(s) == at["main"]
    assert [c.nodes[i].get("id") for i in set_members(c, at["main"], 0.9)] == ["h", "p1", "p3"]


def test_extract_hand_page():
    ext = CoreEx().extract(_page(PAGE))
    assert ext.text == MAIN_TEXT
    assert ext.info["content_node"] == "/html/body/div[2]"
    assert ext.info["set_size"] == 3 and ext.info["n_children"] == 4
    assert ext.info["page_words"] == 31


def test_threshold_boundary_is_strict():
    # a paragraph of 10 words, 1 of them in a link: ratio (10 - 1)/10 = 0.9 exactly
    html = (
        '<body><div id="d"><p id="x">one two three four five six seven eight nine '
        '<a href="/">ten</a></p></div></body>'
    )
    c, at = _counts(html)
    assert (c.text[at["x"]], c.links[at["x"]]) == (10, 1)
    assert set_members(c, at["d"], 0.9) == []  # 0.9 does not exceed 0.9
    assert set_members(c, at["d"], 0.89) == [at["x"]]


def test_weights_decide_between_ratio_and_size():
    # weight_text only: the largest set wins: body's set {main} has 24 words (main's 18);
    # main stays whole under body (it is in S), nav and foot go
    ext = CoreEx(weight_ratio=0.0, weight_text=1.0).extract(_page(PAGE))
    assert ext.info["content_node"] == "/html/body"
    assert ext.text == (
        "Big storm hits coast\nRain fell all day and night.\n"
        "Roads closed in three towns today.\n"
        "Crews worked to clear the fallen trees quickly."
    )
    assert ext.info["score"] == pytest.approx(24 / 31)


def test_link_words_as_links():
    # "links": every outermost <a> counts as one text word and one link word
    c, at = _counts(PAGE, "links")
    assert (c.text[at["nav"]], c.links[at["nav"]]) == (2, 2)
    assert (c.text[at["p2"]], c.links[at["p2"]]) == (5, 1)  # ratio 0.8: still not in S
    assert (c.text[at["body0"]], c.links[at["body0"]]) == (2 + 23 + 3, 4)
    assert CoreEx(link_words="links").extract(_page(PAGE)).text == MAIN_TEXT


@pytest.mark.parametrize(
    "html",
    [
        "",
        "<html><body></body></html>",
        "<body>   </body>",
        "<!-- only -->",
        '<html><frameset><frame src="a.html"></frameset></html>',
        "<body>" + "<div>" * 3000 + "deep words here" + "</div>" * 3000 + "</body>",
        '<body><a href="/">only a link</a></body>',
    ],
)
def test_odd_html_never_raises(html):
    ext = CoreEx().extract(_page(html))
    assert isinstance(ext.text, str)


def test_odd_html_outputs():
    # the link is the only scored node: ratio 0, size 3/3 -> 0.01 (body's set is empty)
    ext = CoreEx().extract(_page('<body><a href="/">only a link</a></body>'))
    assert ext.text == "only a link" and ext.info["score"] == pytest.approx(0.01)
    assert CoreEx().extract(_page("<body>   </body>")).info["content_node"] is None
    assert CoreEx().extract(_page("<body><p>just text here</p></body>")).text == "just text here"


def test_params_and_registry():
    assert METHODS.get("coreex") is CoreEx
    assert CoreEx().get_params() == {
        "weight_ratio": 0.99,
        "weight_text": 0.01,
        "threshold": 0.9,
        "link_words": "words",
    }
    with pytest.raises(ValueError, match="threshold"):
        CoreEx(threshold=1.5)
    with pytest.raises(ValueError, match="link_words"):
        CoreEx(link_words="anchors")
    with pytest.raises(ValueError, match="weight_ratio"):
        CoreEx(weight_ratio=-1)
