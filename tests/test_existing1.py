"""Existing 1 (a reconstruction of Sivakumar 2015): a small page whose blocks, KR/LP/TR,
importances and threshold are worked out by hand below, the thresholds' boundaries, and
every page of the shared sets."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from baselines.existing1 import Existing1
from evalkit.core.method import param_names
from evalkit.core.page import Gold, Page, parse_html
from evalkit.core.sketching import (
    BlockParams,
    block_params,
    block_terms,
    keyword_redundancy,
    linkword_percentage,
    near_duplicates,
    separate_blocks,
    sketch_select,
    titleword_relevancy,
)
from evalkit.harness.registry import METHODS

# title "Solar plant opens" -> title terms {solar, plant, open}
# block 0 div#nav   "Home Solar news Contact", all 4 words in links
#                   terms [home, solar, new, contact]: n 4, d 4 -> KR 0; LP 100; TR 1/3 (solar)
#                   sketch (KR, 1 - LP/100, TR) = (0, 0, 1/3): importance 1/9
# block 1 div#main  "Solar plant opens near town. Town gets solar power."
#                   terms [solar, plant, open, near, town, town, get, solar, power]: n 9, d 7
#                   -> KR 2/9; LP 0; TR 3/3 = 1; sketch (2/9, 1, 1): importance 20/27
# block 2 div#copy  the same text: simhash Hamming 0 from block 1 -> near duplicate, removed
# block 3 div#foot  "Copyright 2020 Contact", 1 of 3 words in a link
#                   terms [copyright, contact] -> KR 0; LP 100/3; TR 0; sketch (0, 2/3, 0): 2/9
# block 4 div#nums  "2020 | 12": no keywords, not sketched, removed
# the script's text is no block (invisible elements are dropped first)
# threshold = mean importance of blocks 0, 1, 3 = (3/27 + 20/27 + 6/27) / 3 = 29/81
# kept: block 1 only (20/27 >= 29/81; 1/9 and 2/9 are below)
MAIN = "Solar plant opens near town. Town gets solar power."
PAGE = (
    "<html><head><title>Solar plant opens</title></head><body>"
    '<div id="nav"><a href="/">Home</a> <a href="/s">Solar news</a> <a href="/c">Contact</a></div>'
    f'<div id="main"><p>{MAIN}</p></div>'
    f'<div id="copy"><p>{MAIN}</p></div>'
    '<div id="foot">Copyright 2020 <a href="/c">Contact</a></div>'
    '<div id="nums">2020 | 12</div><script>var hidden = "not a block";</script>'
    "</body></html>"
)


def _page(html: str) -> Page:
    return Page(id="p", dataset="test", raw=html.encode("utf-8"), gold=Gold(text=""))


def test_blocks_and_their_words():
    blocks = separate_blocks(parse_html(PAGE, plain=True))
    assert [b.element.get("id") for b in blocks] == ["nav", "main", "copy", "foot", "nums"]
    assert [(b.words, b.link_words) for b in blocks] == [(4, 4), (9, 0), (9, 0), (3, 1), (3, 0)]
    assert blocks[1].text == MAIN


def test_three_parameters_by_hand():
    blocks = separate_blocks(parse_html(PAGE, plain=True))
    seqs = block_terms(blocks)
    assert seqs[1] == ["solar", "plant", "open", "near", "town", "town", "get", "solar", "power"]
    params = block_params(
        [blocks[i] for i in (0, 1, 3)], [seqs[i] for i in (0, 1, 3)], {"solar", "plant", "open"}
    )
    want = [(0.0, 100.0, 1 / 3), (2 / 9, 0.0, 1.0), (0.0, 100 / 3, 0.0)]
    for p, (kr, lp, tr) in zip(params, want):
        assert (p.kr, p.lp, p.tr) == pytest.approx((kr, lp, tr))


def test_extract_by_hand():
    out = Existing1().extract(_page(PAGE))
    assert out.text == MAIN
    rules = [(b.kept, b.stage, b.rule, b.duplicate_of) for b in out.blocks]
    assert rules == [
        (False, "sketching", "below_threshold", None),
        (True, None, None, None),
        (False, "dedup", "near_duplicate", 1),
        (False, "sketching", "below_threshold", None),
        (False, "sketching", "no_keywords", None),
    ]
    imp = [b.scores.get("importance") for b in out.blocks]
    assert imp[0] == pytest.approx(1 / 9)
    assert imp[1] == pytest.approx(20 / 27)
    assert imp[3] == pytest.approx(2 / 9)
    assert out.blocks[1].scores["threshold"] == pytest.approx(29 / 81)
    assert out.info == {
        "n_blocks": 5,
        "n_duplicates": 1,
        "n_sketched": 3,
        "n_kept": 1,
        "threshold": pytest.approx(29 / 81),
    }


def test_residual_text_is_a_block_and_a_page_without_blocks_is_one_block():
    out = Existing1().extract(
        _page("<html><body><p>Only words here, long enough.</p></body></html>")
    )
    assert out.text == "Only words here, long enough."
    assert out.blocks[0].tag == "#residual"
    assert Existing1().extract(_page("<html><body></body></html>")).text == ""
    assert Existing1().extract(_page("<!-- nothing -->")).text == ""


def test_parameter_readings():
    # KR inside the block: (n - d) / n; against the page: share of distinct keywords elsewhere
    assert keyword_redundancy(["a", "b", "a", "a"]) == pytest.approx(2 / 4)
    assert keyword_redundancy([]) == 0.0
    assert keyword_redundancy(["a", "b", "a"], Counter({"a": 1}), "page") == pytest.approx(1 / 2)
    # TR coverage counts distinct title terms; Eq. 5 counts occurrences (can exceed 1)
    assert titleword_relevancy(["x", "x", "y"], {"x", "z"}) == pytest.approx(1 / 2)
    assert titleword_relevancy(["x", "x", "y"], {"x", "z"}, "eq5") == pytest.approx(2 / 2)
    assert titleword_relevancy(["x"], set()) == 0.0
    assert linkword_percentage(0, 0) == 0.0 and linkword_percentage(4, 1) == 25.0


def test_boundary_hamming_k():
    # Hamming exactly k is a near duplicate (removed), k + 1 is not
    assert near_duplicates([0b0, 0b111, 0b1111], k=3) == [None, 0, None]
    assert near_duplicates([0b0, 0b1111], k=4) == [None, 0]
    assert near_duplicates([None, None, 5], k=3) == [None, None, None]


def test_boundary_threshold():
    # importance exactly at the threshold is kept, a hair below is not
    p = [BlockParams(kr=0.5, lp=50.0, tr=0.5)]  # sketch (0.5, 0.5, 0.5): importance 0.5
    assert sketch_select(p, threshold=0.5)[0] == [True]
    assert sketch_select(p, threshold=0.5 + 1e-9)[0] == [False]
    # the mean threshold: equal importances are all kept
    assert sketch_select([p[0], p[0]])[0] == [True, True]
    # LP at 100 % gives the link term 0, at 0 % gives 1
    keep, imp, cut = sketch_select([BlockParams(0, 100.0, 0), BlockParams(0, 0.0, 0)])
    assert imp == [0.0, pytest.approx(1 / 3)] and cut == pytest.approx(1 / 6)
    assert keep == [False, True]
    assert sketch_select([]) == ([], [], None)


def test_weights_and_fixed_threshold():
    # weights 0, 1, 0: importance is 1 - LP/100 alone
    out = Existing1(w_kr=0.0, w_tr=0.0, threshold=0.9).extract(_page(PAGE))
    assert out.text == MAIN  # nav 0, main 1, foot 2/3 < 0.9
    out = Existing1(threshold=0.0).extract(_page(PAGE))  # every sketched block is kept
    assert out.text.split("\n") == ["Home Solar news Contact", MAIN, "Copyright 2020 Contact"]


def test_settings_are_validated():
    for bad in (
        {"bits": 48},
        {"k": -1},
        {"redundancy": "site"},
        {"title_relevancy": "x"},
        {"w_kr": -1.0},
        {"w_kr": 0.0, "w_lp": 0.0, "w_tr": 0.0},
        {"threshold": "median"},
        {"threshold": 1.5},
        {"block_tags": "div"},
        {"stemmer": "snowball"},
    ):
        with pytest.raises(ValueError):
            Existing1(**bad)


def test_registry_and_config():
    assert METHODS.get("existing1") is Existing1
    path = Path(__file__).resolve().parents[1] / "configs" / "method" / "existing1.yaml"
    text = path.read_text()
    cfg = yaml.safe_load(text)["existing1"]
    assert cfg.pop("_name_") == "existing1"
    assert list(cfg) == param_names(Existing1)
    made = METHODS.create("existing1", **cfg).get_params()
    assert {**made, "block_tags": tuple(made["block_tags"])} == Existing1().get_params()
    for key in cfg:
        assert f"method.existing1.{key}=" in text


def test_link_words_nested_blocks_and_tails():
    # div#a: "one two" + link "three four" (2 link words) + tail "five"; the inner div inside the
    # link is its own block whose every word is a link word; text after the outer div is residual
    html = (
        '<html><body><div id="a">one two <a href="/">three four <div id="in">six seven</div>'
        '</a> five</div>eight <a href="/r">nine</a><script>x y z</script></body></html>'
    )
    blocks = separate_blocks(parse_html(html, plain=True))
    got = {b.element.get("id") or b.tag: (b.text, b.words, b.link_words) for b in blocks}
    assert got == {
        "#residual": ("eight nine", 2, 1),
        "a": ("one two three four five", 5, 2),
        "in": ("six seven", 2, 2),
    }
