"""ECECTD-S (Kaur 2015: CECTD-S plus pattern matching of link and advertisement divs) by hand."""

from __future__ import annotations

import pytest

from baselines.ecectd_s import AD_PATTERNS, ECECTDS, naive_find, noise_divs
from evalkit.core.density import dom_stats
from evalkit.core.page import Gold, Page, parse_html
from evalkit.harness.registry import METHODS

# body
#   div#nav    <a>Home</a> <a>News</a>           C=9,  LC=8:  8/9 = 0.89 >= 0.5 -> link noise
#   div#main   three <p>, 49 characters, no link                      content
#   div.banner "Buy now cheap"                   class contains "banner"  -> advertisement
#   div#foot   "(c) 2020 " <a>Contact us</a>     C=19, LC=10: 0.53 >= 0.5 -> link noise
# CECTD-S alone keeps main's paragraphs and the banner's text (the banner's CTD, a leaf
# without links, reaches the threshold); stage "after" then drops the banner, so the
# output is main's three paragraphs.
PAGE = (
    "<html><body><div id=nav><a href=/>Home</a> <a href=/n>News</a></div>"
    "<div id=main><p>aaaa bbbb cccc</p><p>dddd eeee ffff</p><p>gggg hhhh iiii jjjj</p></div>"
    "<div class=banner>Buy now cheap</div>"
    "<div id=foot>(c) 2020 <a href=/c>Contact us</a></div></body></html>"
)
MAIN = "aaaa bbbb cccc\ndddd eeee ffff\ngggg hhhh iiii jjjj"


def _page(html: str) -> Page:
    return Page(id="p", dataset="test", raw=html.encode("utf-8"), gold=Gold(text=""))


def test_naive_find_is_the_window_scan():
    # "header": h e a d e r; the window "ad" fails at 0 and 1, matches at 2
    assert naive_find("ad", "header") == 2
    assert naive_find("advert", "top-advert-box") == 4
    assert naive_find("banner", "bann") == -1  # pattern longer than the text
    assert naive_find("", "x") == 0 and naive_find("x", "") == -1
    for pattern, text in [("ab", "aab"), ("aba", "ababa"), ("zz", "abc")]:
        assert naive_find(pattern, text) == text.find(pattern)


def test_hand_worked_noise_divs():
    stats = dom_stats(parse_html(PAGE).find(".//body"))
    assert [stats.names[i] for i in range(len(stats.names))][:2] == ["body", "div"]
    ads, links = noise_divs(stats, AD_PATTERNS, 0.5)
    assert [stats.nodes[i].get("class") for i in ads] == ["banner"]
    assert [stats.nodes[i].get("id") for i in links] == ["nav", "foot"]
    assert (stats.chars[links[0]], stats.link_chars[links[0]]) == (9, 8)
    assert (stats.chars[links[1]], stats.link_chars[links[1]]) == (19, 10)


def test_hand_worked_page_output():
    ext = ECECTDS().extract(_page(PAGE))
    assert ext.text == MAIN
    assert (ext.info["n_ad_divs"], ext.info["n_link_divs"]) == (1, 2)
    # without patterns and with a share no div reaches, it is CECTD-S: the banner stays
    plain = ECECTDS(ad_patterns=[], link_share=1.0).extract(_page(PAGE))
    assert plain.text == MAIN + "\nBuy now cheap"
    # removed before counting: the same text here, from a body of main and nothing else
    before = ECECTDS(stage="before").extract(_page(PAGE))
    assert before.text == MAIN and before.info["n_nodes"] == 5  # body, div, 3 p


def test_boundary_link_share_is_reached_at_exactly_the_setting():
    # C = 9 + 1 + 10 = 20 and LC = 10: share 0.5 exactly -> noise
    at = "<html><body><div>abcdefghi <a href=/x>0123456789</a></div></body></html>"
    # C = 10 + 1 + 9 = 20 and LC = 9: share 0.45 -> not noise
    below = "<html><body><div>abcdefghij <a href=/x>012345678</a></div></body></html>"
    for html, n in ((at, 1), (below, 0)):
        stats = dom_stats(parse_html(html).find(".//body"))
        assert stats.chars[1] == 20
        assert len(noise_divs(stats, (), 0.5)[1]) == n
    assert len(noise_divs(dom_stats(parse_html(below).find(".//body")), (), 0.45)[1]) == 1


def test_nested_matches_count_once_and_only_divs_are_judged():
    html = (
        "<html><body><div class=sponsor><div class=banner>x</div></div>"
        "<span class=banner>kept span</span><p>text here</p></body></html>"
    )
    stats = dom_stats(parse_html(html).find(".//body"))
    ads, links = noise_divs(stats, AD_PATTERNS, 0.5)
    assert len(ads) == 1 and not links
    assert len(noise_divs(stats, AD_PATTERNS, 0.5, tags=("div", "span"))[0]) == 2


def test_params_and_registry():
    assert METHODS.get("ecectd_s") is ECECTDS
    params = ECECTDS().get_params()
    assert params["link_share"] == 0.5 and params["stage"] == "after"
    assert params["noise_tags"] == ("div",) and params["pattern_attributes"] == ("id", "class")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"link_share": 1.5},
        {"stage": "during"},
        {"ad_patterns": "banner"},
        {"noise_tags": []},
        {"sigma": -0.5},
    ],
)
def test_bad_settings_fail_at_construction(kwargs):
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        ECECTDS(**kwargs)


@pytest.mark.parametrize("stage", ["after", "before"])
@pytest.mark.parametrize(
    "html",
    [
        "",
        "<!-- c -->",
        "<html><body></body></html>",
        "\x00\x01 junk \xff",
        "<div class=banner>only an ad</div>",
        "<body>" + "<div>" * 3000 + "deep" + "</div>" * 3000 + "</body>",
    ],
)
def test_odd_html_never_raises(html, stage):
    assert isinstance(ECECTDS(stage=stage).extract(_page(html)).text, str)
