"""The Tag-based reconstruction on a hand-made page: each rule's removal worked out below."""

from __future__ import annotations

import pytest

from baselines.tag_based import (
    IAB_SIZES,
    TagBased,
    body_text,
    element_size,
    find_noise,
    has_keyword,
)
from evalkit.core.page import Gold, Page, parse_html
from evalkit.core.visible import visible_text
from evalkit.harness.registry import METHODS

URL = "http://news.example.com/2020/storm.html"
# page URL news.example.com (registrable domain example.com); rule by rule:
#  div#top    style background-image            -> background (with "Sale text")
#  img        src on other.com                  -> offsite_image
#  img        /local.png 468x60                 -> iab_size
#  img        cdn.example.com 300x200           -> kept (same registrable domain, no IAB size)
#  div.ad-slot "Buy now"                        -> ad_keyword (token "ad")
#  div.header "Header words"                    -> kept: "header" is one token, not "ad"
#  a doubleclick.net "Click here"               -> ad_host
#  video "Video fallback"                       -> plugin
#  div#share <a facebook.com>Share</a> on social -> utility_link: its innermost div goes
#  div#legal <p>Read our <a>Terms of use</a></p> -> utility_link ("terms"); p is no block
#                                                   tag, so the div#legal goes
#  form with input name=q directly in body      -> utility_link: no block below body, the
#                                                   form alone goes
# left: h1, the two paragraphs and "Header words"
PAGE = (
    "<html><head><title>T</title></head><body>"
    '<div id="top" style="background-image:url(bg.png)">Sale text</div>'
    '<div id="main"><h1>Storm hits coast</h1><p>Rain fell all day.</p>'
    '<img src="http://ads.other.com/x.png"><img src="/local.png" width="468" height="60">'
    '<img src="http://cdn.example.com/photo.jpg" width="300" height="200">'
    '<div class="ad-slot">Buy now</div><div class="header">Header words</div>'
    '<a href="https://ad.doubleclick.net/c">Click here</a>'
    '<video src="v.mp4">Video fallback</video><p>More rain expected.</p></div>'
    '<div id="share"><a href="https://www.facebook.com/sharer">Share</a> on social</div>'
    '<div id="legal"><p>Read our <a href="/terms">Terms of use</a></p></div>'
    '<form action="/s"><input name="q"> Search</form></body></html>'
)
KEPT = "Storm hits coast\nRain fell all day.\nHeader words\nMore rain expected."


def _page(html: str, url: str | None = URL) -> Page:
    return Page(id="p", dataset="test", raw=html.encode("utf-8"), gold=Gold(text=""), url=url)


def _found(html: str, url: str | None = URL, **params):
    body = parse_html(html).find(".//body")
    return [
        (el.get("id") or el.get("class") or el.tag, rule)
        for el, rule in find_noise(body, TagBased(**params).get_params(), url)
    ]


def test_each_rule_on_the_hand_page():
    assert _found(PAGE) == [
        ("top", "background"),
        ("img", "offsite_image"),
        ("img", "iab_size"),
        ("ad-slot", "ad_keyword"),
        ("a", "ad_host"),
        ("video", "plugin"),
        ("share", "utility_link"),
        ("legal", "utility_link"),
        ("form", "utility_link"),
    ]


def test_first_rule_wins():
    # an ad-marked image from another site is named by offsite_image (the earlier rule)
    html = (
        '<body><img id="ads" src="http://other.org/a.png"><div class="banner">'
        '<div class="ad">x</div></div></body>'
    )
    assert _found(html) == [
        ("ads", "offsite_image"),
        ("banner", "ad_keyword"),
        ("ad", "ad_keyword"),
    ]


def test_extract_hand_page():
    ext = TagBased().extract(_page(PAGE))
    assert ext.text == KEPT
    assert ext.info["n_removed"] == 9 and ext.info["n_utility_link"] == 3
    assert ext.info["body_removed"] is False


def test_without_url_the_offsite_rule_is_skipped():
    assert ("img", "offsite_image") not in _found(PAGE, url=None)
    assert TagBased().extract(_page(PAGE, url=None)).text == KEPT  # the image has no text


def test_iab_size_boundary():
    html = (
        '<body><img id="a" src="/a" width="468" height="60"><img id="b" src="/b" width="469" height="60">'
        '<img id="c" src="/c" style="width: 234px; height: 60px"></body>'
    )
    assert _found(html) == [("a", "iab_size"), ("c", "iab_size")]
    assert element_size(parse_html(html).find(".//img")) == (468, 60)
    assert (745, 100) in IAB_SIZES and (728, 90) not in IAB_SIZES  # the seed paper's four sizes
    assert _found(html, iab_sizes=[[469, 60]]) == [("b", "iab_size")]


def test_keyword_match_token_and_substring():
    kws = frozenset({"ad", "ads", "adsbygoogle", "banner", "adsense"})
    assert has_keyword("top-banner wide", kws, "token")
    assert has_keyword("AdSense", kws, "token")  # case-insensitive
    assert not has_keyword("header shadow download", kws, "token")
    assert has_keyword("header", kws, "substring")
    html = '<body><div class="header">x</div><div class="bottomgooglead">y</div></body>'
    assert _found(html) == []
    assert _found(html, keyword_match="substring") == [
        ("header", "ad_keyword"),
        ("bottomgooglead", "ad_keyword"),
    ]


def test_background_on_body_empties_the_page():
    # the literal reading: body is among the background tags and goes with everything
    html = '<html><body background="bg.gif"><p>Text.</p></body></html>'
    ext = TagBased().extract(_page(html))
    assert ext.text == "" and ext.info["body_removed"] is True
    assert (
        TagBased(background_tags=["td", "tr", "table", "div"]).extract(_page(html)).text == "Text."
    )


def test_utility_scope_link():
    ext = TagBased(utility_scope="link").extract(_page(PAGE))
    # only the links and the form go: "on social" and "Read our" stay
    assert ext.text == KEPT + "\non social\nRead our"


def test_structural_tags_option():
    html = "<body><nav>Menu</nav><header>Top</header><p>Body text.</p><footer>Foot</footer></body>"
    assert TagBased().extract(_page(html)).text == "Menu\nTop\nBody text.\nFoot"
    assert (
        TagBased(structural_tags=["nav", "header", "footer"]).extract(_page(html)).text
        == "Body text."
    )


def test_search_form_by_input_type_or_name():
    html = (
        '<body><form id="f1"><input name="query"></form><form id="f2"><input type="search">'
        '</form><form id="f3"><input name="email"></form></body>'
    )
    assert _found(html) == [("f1", "utility_link"), ("f2", "utility_link")]
    assert _found(html, search_names=[]) == [("f2", "utility_link")]  # type=search always


def test_iframe_without_src_is_no_plugin():
    html = '<body><iframe id="a"></iframe><iframe id="b" src="/v"></iframe><embed id="c"></body>'
    assert _found(html) == [("b", "plugin"), ("c", "plugin")]


@pytest.mark.parametrize(
    "html",
    [
        PAGE,
        "<html><body></body></html>",
        "<body>a<div>b<span>c</span>d<p>e</p>f</div>g<br>h<iframe>x</iframe>i<svg><text>y</text></svg>j</body>",
        "<body><table><tr><td>1</td><td>2</td></tr></table><ul><li>x<li>y</ul>tail text</body>",
        '<html><frameset><frame src="a.html"></frameset></html>',
        "<html><head><title>T</title></head><body><template>t</template>  spaced   words \n here</body></html>",
        "<p>no body tag here</p><div>two</div>",
    ],
)
def test_body_text_is_visible_text(html):
    # the libxslt text and evalkit.core.visible's, on the same plain tree
    assert body_text(parse_html(html, plain=True)) == visible_text(parse_html(html, plain=True))


def test_body_text_reads_under_the_root_element_only(shared):
    # an L3S-GN1 page whose broken <html ...> tag leaves the body beside the root element:
    # visible_text (and so every method) reads nothing there, and body_text agrees
    path = shared("l3s-gn1") / "original" / "ce6830ee-9292-4855-be7b-c5fe64d347b2.html"
    root = parse_html(path.read_bytes())
    assert len(root) == 0 and root.getnext() is not None  # the body lies beside the root
    assert body_text(parse_html(path.read_bytes(), plain=True)) == visible_text(root) == ""


@pytest.mark.parametrize(
    "html",
    [
        "",
        "<html><body></body></html>",
        "<!-- only -->",
        '<html><frameset><frame src="a.html"></frameset></html>',
        "<body>" + "<div>" * 3000 + "deep" + "</div>" * 3000 + "</body>",
        '<body><a href="http://[::1">bad url</a><img src="http://[bad"></body>',
    ],
)
def test_odd_html_never_raises(html):
    assert isinstance(TagBased().extract(_page(html)).text, str)


def test_params_and_registry():
    assert METHODS.get("tag_based") is TagBased
    params = TagBased().get_params()
    assert params["keyword_match"] == "token" and params["utility_scope"] == "block"
    assert params["structural_tags"] == ()
    with pytest.raises(ValueError, match="iab_sizes"):
        TagBased(iab_sizes=[[468]])
    with pytest.raises(ValueError, match="keyword_match"):
        TagBased(keyword_match="regex")
    with pytest.raises(ValueError, match="ad_keywords"):
        TagBased(ad_keywords="ad")
