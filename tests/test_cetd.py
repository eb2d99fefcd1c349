"""CETD on hand-made DOMs whose counts and densities are worked out by hand below."""

from __future__ import annotations

import math

import pytest

from baselines.cetd import (
    CETD,
    clean_tree,
    composite_text_density,
    densities,
    density_sums,
    dom_stats,
    run_density,
    select_content,
    text_density,
)
from evalkit.core.page import Gold, Page, parse_html
from evalkit.core.visible import element_text
from evalkit.harness.registry import METHODS

# body
#  div#nav   "<a>Home</a> <a>News</a>"                     C=9  T=2 LC=8  LT=2
#  div#main  <p>aaaa bbbb cccc</p><p>dddd eeee ffff</p><p>gggg hhhh iiii jjjj</p>
#                                                          C=49 T=3 LC=0  LT=0
#  div#foot  "(c) 2020 <a>Contact us</a>"                   C=19 T=1 LC=10 LT=1
# body: C = 9 + 1 + 49 + 1 + 19 = 79 (block elements are set off by a space),
#       T = 3 + 4 + 2 = 9, LC = 18, LT = 2 + 0 + 1 = 3, ratio LC_b/C_b = 18/79
PAGE = (
    '<html><head><title>T</title><script>var x = "not text";</script><style>p{}</style></head>'
    '<body><div id="nav"><a href="/1">Home</a> <a href="/2">News</a></div>'
    '<div id="main"><p>aaaa bbbb cccc</p><p>dddd eeee ffff</p><p>gggg hhhh iiii jjjj</p></div>'
    '<div id="foot">(c) 2020 <a href="/c">Contact us</a></div><!-- a comment --></body></html>'
)
MAIN_TEXT = "aaaa bbbb cccc\ndddd eeee ffff\ngggg hhhh iiii jjjj"
R = 18 / 79


def _page(html: str, url: str | None = None) -> Page:
    return Page(id="p", dataset="test", raw=html.encode("utf-8"), gold=Gold(text=""), url=url)


def _stats(html: str):
    root = clean_tree(parse_html(html))
    stats = dom_stats(root.find(".//body"))
    by_id = {el.get("id") or el.tag + str(i): i for i, el in enumerate(stats.nodes)}
    return stats, by_id


def test_counts_c_t_lc_lt():
    stats, at = _stats(PAGE)
    expect = {  # name: (C, T, LC, LT)
        "body0": (79, 9, 18, 3),
        "nav": (9, 2, 8, 2),
        "a2": (4, 0, 4, 0),
        "a3": (4, 0, 4, 0),
        "main": (49, 3, 0, 0),
        "p5": (14, 0, 0, 0),
        "p7": (19, 0, 0, 0),
        "foot": (19, 1, 10, 1),
        "a9": (10, 0, 10, 0),
    }
    for name, want in expect.items():
        i = at[name]
        assert (stats.chars[i], stats.tags[i], stats.link_chars[i], stats.link_tags[i]) == want, (
            name
        )
    assert stats.ratio == pytest.approx(R)
    assert stats.runs[at["foot"]] == [8]  # "(c) 2020 " normalised
    assert stats.runs[at["nav"]] == []  # the space between the links is no run
    # a subtree is contiguous in document order: children follow from the T counts
    assert stats.children[0] == [at["nav"], at["main"], at["foot"]]
    assert stats.child_list(at["main"]) == [at["p5"], at["p6"], at["p7"]]
    assert stats.children[at["a9"]] == [] and stats.parent[at["a9"]] == at["foot"]


def test_wrapper_of_only_links_counts_as_link_tag():
    # li wraps nothing but a link: T_li = 1 = LT_li and C = LC, so each li is a link tag too
    stats, at = _stats(
        '<body><ul id="u"><li><a href="/">x</a></li><li><a href="/">y</a></li></ul></body>'
    )
    u = at["u"]
    assert (stats.chars[u], stats.tags[u], stats.link_chars[u], stats.link_tags[u]) == (3, 4, 2, 4)


def test_everything_inside_a_link_is_link_text():
    stats, at = _stats(
        '<body><a href="/"><div id="d"><span>ab</span><span>cd</span></div></a></body>'
    )
    d = at["d"]
    # "ab" + "cd" run together (inline spans): C = 4; inside a link: LC = C, LT = T
    assert (stats.chars[d], stats.tags[d], stats.link_chars[d], stats.link_tags[d]) == (4, 2, 4, 2)


def test_text_density_and_composite_text_density_by_hand():
    assert text_density(49, 3) == pytest.approx(49 / 3)
    assert text_density(10, 0) == 10.0  # T = 0 counts as 1
    assert text_density(0, 5) == 0.0
    # main: (49/3) ln(49*3) / ln ln(1 + 49 R + e)
    assert composite_text_density(49, 3, 0, 0, R) == pytest.approx(82.0577983085972)
    # nav: (9/2) ln(9/8 * 2/2) / ln ln(9*8/1 + 9 R + e)
    assert composite_text_density(9, 2, 8, 2, R) == pytest.approx(0.36103712357652373)
    # all-link element: nLC = 0 -> 1 and ln(C/LC * T/LT) = ln 1 = 0
    assert composite_text_density(4, 1, 4, 1, 0.5) == 0.0
    # clamping: T = LC = LT = 0 -> 1, and nLC = C - LC = 10 taken *before* LC is clamped:
    # 10 ln 10 / ln ln(10*1/10 + 0 + e)   (nLC after clamping would give 10/9 here)
    assert composite_text_density(10, 0, 0, 0, 0.0) == pytest.approx(84.49423158730507)
    assert composite_text_density(0, 3, 0, 0, 0.2) == 0.0


def test_run_density():
    assert run_density(8, "td", R) == 8.0
    assert run_density(8, "ctd", R) == pytest.approx(
        8 * math.log(8) / math.log(math.log(R * 8 + math.e))
    )
    assert run_density(8, "ctd", R) == pytest.approx(40.162901943643)
    assert run_density(1, "ctd", R) == 0.0  # ln 1 = 0
    assert run_density(8, "ctd", 0.0) == 0.0  # link-free page: the term is left out


def test_td_variant_density_sum_threshold_and_marking():
    stats, at = _stats(PAGE)
    dens = densities(stats, "td")
    sums = density_sums(stats, dens, "td")
    # TD: body 79/9, nav 9/2, main 49/3, foot 19/1
    assert dens[at["body0"]] == pytest.approx(79 / 9)
    assert dens[at["nav"]] == 4.5 and dens[at["foot"]] == 19.0
    # DensitySum: leaves their own TD; nav 4 + 4; main 14 + 14 + 19; foot TD(a) 10 + run 8
    assert sums[at["a2"]] == 4.0
    assert sums[at["nav"]] == 8.0
    assert sums[at["main"]] == 47.0
    assert sums[at["foot"]] == 18.0
    assert sums[at["body0"]] == pytest.approx(4.5 + 49 / 3 + 19)
    marks, root, threshold = select_content(stats, dens, sums)
    assert root == at["main"]  # the largest DensitySum, 47
    assert threshold == pytest.approx(79 / 9)  # min(TD main 16.33, TD body 8.78)
    # from body down: nav (4.5) is below the threshold and dropped; foot (19) reaches it,
    # so the largest-DensitySum element of its subtree (foot itself, 18 > 10) is content
    assert marks[at["body0"]] == 2
    assert marks[at["nav"]] == marks[at["a2"]] == 0
    assert marks[at["main"]] == marks[at["p7"]] == 1
    assert marks[at["foot"]] == marks[at["a9"]] == 1


def test_ctd_variant_drops_the_link_footer():
    stats, at = _stats(PAGE)
    dens = densities(stats, "ctd")
    sums = density_sums(stats, dens, "ctd")
    assert dens[at["body0"]] == pytest.approx(16.999398134677843)
    assert dens[at["foot"]] == pytest.approx(10.117774242865632)
    assert dens[at["a9"]] == 0.0
    # paragraphs: C ln C / ln ln(1 + R C + e)
    assert dens[at["p5"]] == pytest.approx(56.07181292611759)
    assert sums[at["main"]] == pytest.approx(2 * 56.07181292611759 + 76.12137717084518)
    assert sums[at["foot"]] == pytest.approx(0.0 + 40.162901943643)  # CTD(a) + run "(c) 2020"
    assert sums[at["body0"]] == pytest.approx(
        0.36103712357652373 + 82.0577983085972 + 10.117774242865632
    )
    marks, root, threshold = select_content(stats, dens, sums)
    assert root == at["main"]
    assert threshold == pytest.approx(16.999398134677843)  # CTD body < CTD main
    assert marks[at["foot"]] == 0 and marks[at["nav"]] == 0  # 10.1 and 0.36 < 17.0
    assert marks[at["main"]] == 1 and marks[at["body0"]] == 2


@pytest.mark.parametrize(
    "variant, text",
    [
        ("cetd_ds", MAIN_TEXT + "\n(c) 2020 Contact us"),
        ("cectd_ds", MAIN_TEXT),
    ],
)
def test_extract_both_variants(variant, text):
    ext = CETD(variant=variant).extract(_page(PAGE))
    assert ext.text == text
    assert ext.info["content_root"] == "/html/body/div[2]"
    assert ext.info["n_nodes"] == 10
    assert ext.error is None


def test_text_directly_in_kept_ancestor_stays():
    # body holds a loose run; the content root is #main; the run sits in body (kept, mark 2)
    # TD: body C = 5 + 1 + 29 + 1 + 1 = 37, T = 5 -> 7.4; main DS 14 + 14 = 28 is the largest;
    # threshold min(TD main 29/2, TD body 7.4) = 7.4; nav TD 1 < 7.4 is dropped
    html = (
        '<body>Loose<div id="main"><p>aaaa bbbb cccc</p><p>dddd eeee ffff</p></div>'
        '<div id="nav"><a href="/">x</a></div></body>'
    )
    ext = CETD(variant="cetd_ds").extract(_page(html))
    assert ext.text == "Loose\naaaa bbbb cccc\ndddd eeee ffff"
    assert ext.info["threshold"] == pytest.approx(37 / 5)


def test_link_free_page_ctd_skips_run_terms():
    html = '<body><div id="d">head words<p>aaaa bbbb</p><p>cccc dddd</p></div></body>'
    stats, at = _stats(html)
    assert stats.ratio == 0.0
    dens = densities(stats, "ctd")
    sums = density_sums(stats, dens, "ctd")
    assert sums[at["d"]] == pytest.approx(2 * dens[at["p2"]])  # run "head words" left out
    sums_td = density_sums(stats, densities(stats, "td"), "td")
    assert sums_td[at["d"]] == 9 + 9 + 10  # the TD run term is kept
    assert CETD().extract(_page(html)).text == "head words\naaaa bbbb\ncccc dddd"


def test_element_text_survives_deep_trees():
    deep = parse_html("<body>" + "<div>" * 3000 + "deep text" + "</div>" * 3000 + "</body>")
    assert element_text(deep.find(".//body")) == "deep text"
    assert (
        CETD()
        .extract(_page("<body>" + "<div>" * 3000 + "deep, text." + "</div>" * 3000 + "</body>"))
        .text
        == "deep, text."
    )


@pytest.mark.parametrize(
    "html",
    [
        "<html><body></body></html>",
        "<html><body>   </body></html>",
        "<html><body><p>only text, no links at all</p></body></html>",
        '<html><frameset><frame src="a.html"><frame src="b.html"></frameset></html>',
        "<html><head><title>x</title></head></html>",
        "<!-- only a comment -->",
        "",
        "\x00\x01\x02 binary junk \xff",
        "<body>" + "<div>" * 3000 + "deep" + "</div>" * 3000 + "</body>",
    ],
)
@pytest.mark.parametrize("variant", ["cetd_ds", "cectd_ds"])
def test_odd_html_never_raises(html, variant):
    ext = CETD(variant=variant).extract(_page(html))
    assert isinstance(ext.text, str)


def test_odd_html_outputs():
    assert CETD().extract(_page("<html><body></body></html>")).text == ""
    assert (
        CETD().extract(_page("<body><p>only text, no links at all</p></body>")).text
        == "only text, no links at all"
    )
    assert CETD().extract(_page("")).info["n_nodes"] == 0


def test_params_and_registry():
    assert METHODS.get("cetd") is CETD
    assert CETD().get_params() == {"variant": "cectd_ds", "markdown": False}
    with pytest.raises(ValueError, match="cetd_ds"):
        CETD(variant="cectd_s")


def test_real_page_output(shared):
    """One real page: the extraction keeps text from a real DOM (its speed is measured by the
    speed experiment, not here)."""
    path = shared("big5-2017")
    html_file = min((path / "html").iterdir())
    page = Page(
        id=html_file.stem, dataset="big5-2017", raw=html_file.read_bytes(), gold=Gold(text="")
    )
    ext = CETD().extract(page)
    assert ext.text and ext.info["n_nodes"] > 100
