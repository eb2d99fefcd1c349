"""ECON on a hand-made page whose punctuation counts and walk are worked out by hand below."""

from __future__ import annotations

import pytest

from baselines.econ import (
    DEFAULT_PUNCTUATION,
    ECON,
    backtrack,
    clean_tree,
    count_marks,
    mark_counts,
    snippet_node,
)
from evalkit.core.page import Gold, Page, parse_html
from evalkit.harness.registry import METHODS

# body                                                        marks (subtree)
#  div#nav    <a>Home</a> <a>World</a>                            0
#  div#wrap                                                       5
#    div#story                                                    5
#      h1#h     "Storm hits coast"                                0
#      p#p1     "Rain fell, and fell. Roads closed."              3  (, . .)  <- snippet text node
#      p#p2     "Crews worked hard; trees fell. <a>More</a>"      2  (; .)
#      div#share <a>Share</a>                                     0
#    div#related <a>Other story</a>                               0
#  div#foot   "Copyright 2020"                                    0
# snippet: p1's text (3 marks, the most). Walk: p1 (3) -> story (5: 2 new, >= 1) ->
# wrap (5: 0 new, < 1) stops: the summary node is story.
# noise: children with < 1 mark of the nodes walked (p1: none; story: h1 and div#share);
# p2 is not walked, so its link "More" stays.
PAGE = (
    "<html><head><style>p{}</style></head><body>"
    '<div id="nav"><a href="/1">Home</a> <a href="/2">World</a></div>'
    '<div id="wrap"><div id="story"><h1 id="h">Storm hits coast</h1>'
    '<p id="p1">Rain fell, and fell. Roads closed.</p>'
    '<p id="p2">Crews worked hard; trees fell. <a href="/x">More</a></p>'
    '<div id="share"><a href="/s">Share</a></div></div>'
    '<div id="related"><a href="/r">Other story</a></div></div>'
    '<div id="foot">Copyright 2020</div></body></html>'
)
STORY = "Rain fell, and fell. Roads closed.\nCrews worked hard; trees fell. More"


def _page(html: str) -> Page:
    return Page(id="p", dataset="test", raw=html.encode("utf-8"), gold=Gold(text=""))


def _counts(html: str):
    root = clean_tree(parse_html(html))
    counts = mark_counts(root.find(".//body"))
    at = {el.get("id") or el.tag + str(i): i for i, el in enumerate(counts.nodes)}
    return counts, at


def test_count_marks_english_and_chinese():
    table = {ord(c): None for c in DEFAULT_PUNCTUATION}
    assert count_marks("Rain fell, and fell. Roads closed.", table) == 3
    # 。，。 (full-width full stops and comma) and the enumeration comma 、
    assert count_marks("今天下雨。路被封了，树倒了、草也倒了。", table) == 4
    assert count_marks(None, table) == 0 and count_marks("no marks here", table) == 0


def test_counts_and_snippet():
    c, at = _counts(PAGE)
    assert [
        c.marks[at[k]]
        for k in ("body0", "nav", "wrap", "story", "h", "p1", "p2", "share", "related", "foot")
    ] == [5, 0, 5, 5, 0, 3, 2, 0, 0, 0]
    assert c.snippet == at["p1"] and c.snippet_marks == 3


def test_walk_by_hand():
    c, at = _counts(PAGE)
    summary, path, noise = backtrack(c, at["p1"], 1, 1)
    assert summary == at["story"]
    assert path == [at["p1"], at["story"]]
    assert noise == [at["h"], at["share"]]


def test_extract_hand_page():
    ext = ECON().extract(_page(PAGE))
    assert ext.text == STORY
    assert ext.info["summary_node"] == "/html/body/div[2]/div[1]"
    assert ext.info["snippet_node"] == "/html/body/div[2]/div[1]/p[1]"
    assert ext.info["n_backtracked"] == 1 and ext.info["n_noise"] == 2


def test_stopping_rule_boundary():
    # related gets one mark: wrap holds 6 = story's 5 + 1, exactly min_new_marks=1 -> the walk
    # goes on to wrap, then body (6 + foot's 1 = 7: one more) -> body is the summary node
    html = PAGE.replace("Other story</a>", "Other story.</a>").replace(
        "Copyright 2020", "Copyright 2020."
    )
    c, at = _counts(html)
    assert backtrack(c, at["p1"], 1, 1)[0] == at["body0"]
    # min_new_marks=2: the one new mark of wrap is not enough -> story
    assert backtrack(c, at["p1"], 2, 1)[0] == at["story"]
    assert ECON(min_new_marks=2).extract(_page(html)).text == STORY


def test_snippet_boundary():
    c, _ = _counts(PAGE)
    assert snippet_node(c, 3) is not None  # p1's text has exactly 3 marks
    assert snippet_node(c, 4) is None
    ext = ECON(min_snippet_marks=4).extract(_page(PAGE))
    assert ext.text == "" and ext.info["summary_node"] is None


def test_noise_boundary():
    # noise_marks=0: nothing has fewer than 0 marks, nothing is removed
    assert ECON(noise_marks=0).extract(_page(PAGE)).text == "Storm hits coast\n" + STORY + "\nShare"
    # noise_marks=3: p2 (2 marks) is noise too, p1 (3) is not
    assert ECON(noise_marks=3).extract(_page(PAGE)).text == "Rain fell, and fell. Roads closed."


def test_tail_text_is_a_text_node_of_its_parent():
    # the marks after <b> are the tail's: the snippet node is the div that holds them
    c, at = _counts('<body><div id="d"><b>x</b> one, two, three.</div><p id="p">a.</p></body>')
    assert c.snippet == at["d"] and c.snippet_marks == 3


def test_punctuation_setting():
    ext = ECON(punctuation="!").extract(_page(PAGE))
    assert ext.text == "" and ext.info["page_marks"] == 0


@pytest.mark.parametrize(
    "html",
    [
        "",
        "<html><body></body></html>",
        "<body>no marks at all</body>",
        "<!-- only -->",
        '<html><frameset><frame src="a.html"></frameset></html>',
        "<body>" + "<div>" * 3000 + "deep, text." + "</div>" * 3000 + "</body>",
        "<body><iframe>a, b, c.</iframe><p>x.</p></body>",
    ],
)
def test_odd_html_never_raises(html):
    assert isinstance(ECON().extract(_page(html)).text, str)


def test_odd_html_outputs():
    assert ECON().extract(_page("<body>no marks at all</body>")).text == ""
    deep = "<body>" + "<div>" * 3000 + "deep, text." + "</div>" * 3000 + "</body>"
    assert ECON().extract(_page(deep)).text == "deep, text."
    # text inside an invisible element holds no snippet
    assert ECON().extract(_page("<body><iframe>a, b, c.</iframe><p>x.</p></body>")).text == "x."


def test_params_and_registry():
    assert METHODS.get("econ") is ECON
    assert ECON().get_params() == {
        "punctuation": DEFAULT_PUNCTUATION,
        "min_snippet_marks": 1,
        "min_new_marks": 1,
        "noise_marks": 1,
    }
    with pytest.raises(ValueError, match="punctuation"):
        ECON(punctuation="")
    with pytest.raises(ValueError, match="min_new_marks"):
        ECON(min_new_marks=0)
