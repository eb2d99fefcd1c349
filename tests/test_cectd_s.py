"""CECTD-S (Kaur 2015; Gaussian data smoothing in DensitySum's place) worked by hand."""

from __future__ import annotations

import math

import pytest

from baselines.cectd_s import CECTDS
from evalkit.core.density import (
    dom_stats,
    gaussian_weights,
    select_smoothed,
    smooth_densities,
    smooth_sequence,
)
from evalkit.core.page import Gold, Page, parse_html
from evalkit.harness.registry import METHODS

W1 = math.exp(-0.5)  # the Gaussian weight of a neighbour one place away, sigma = 1

# body
#   div1 "aaaa bbbb"                      C=9            TD = 9 / 1 = 9 (T = 0 counts as 1)
#   div2 <p>"cccc dddd eeee ffff gggg"</p> C=24 T=1       TD = 24;  p: C=24, TD = 24
#   div3 "hh"                             C=2            TD = 2
# body: C = 9 + 1 + 24 + 1 + 2 = 37 (block elements set off by a space), T = 4, TD = 9.25
# smoothing over siblings, sigma 1, radius 1 (weights 1, W1), renormalised at the ends:
#   div1 (9 + 24 W1) / (1 + W1)          = 14.6631
#   div2 (24 + (9 + 2) W1) / (1 + 2 W1)  = 13.8595
#   div3 (2 + 24 W1) / (1 + W1)          = 10.3059
#   p (an only child) 24; body (no siblings) 9.25
# content root: the largest smoothed density, p (24); threshold = the smallest TD on the
# path p -> div2 -> body = 9.25. From body (9.25 >= 9.25, marks p): div1 9 < 9.25 dropped,
# div2 24 (its best is p, marked), div3 2 dropped. Output: p's text.
# use="both" walks with the smoothed densities: div1 14.66 and div3 10.31 reach 9.25 and
# are marked too, so all three divs are kept.
PAGE = (
    "<html><body><div>aaaa bbbb</div><div><p>cccc dddd eeee ffff gggg</p></div>"
    "<div>hh</div></body></html>"
)


def _page(html: str) -> Page:
    return Page(id="p", dataset="test", raw=html.encode("utf-8"), gold=Gold(text=""))


def test_weights_and_sequence_by_hand():
    assert gaussian_weights(1.0, 1) == pytest.approx([1.0, W1])
    assert len(gaussian_weights(1.0)) == 4  # radius ceil(3 sigma) = 3
    assert gaussian_weights(0.0) == [1.0]
    # [0, 3, 0]: middle 3 / (1 + 2 W1); the ends 3 W1 / (1 + W1)
    assert smooth_sequence([0.0, 3.0, 0.0], [1.0, W1]) == pytest.approx(
        [3 * W1 / (1 + W1), 3 / (1 + 2 * W1), 3 * W1 / (1 + W1)]
    )
    assert smooth_sequence([5.0, 5.0, 5.0], gaussian_weights(2.0)) == pytest.approx([5.0] * 3)


def test_hand_worked_page_smoothed_densities():
    body = parse_html(PAGE).find(".//body")
    stats = dom_stats(body)
    assert stats.names == ["body", "div", "div", "p", "div"]
    assert stats.chars == [37, 9, 24, 24, 2] and stats.tags == [4, 0, 1, 0, 0]
    td = [9.25, 9.0, 24.0, 24.0, 2.0]
    smoothed = smooth_densities(stats, td, [1.0, W1], "siblings")
    assert smoothed == pytest.approx(
        [
            9.25,
            (9 + 24 * W1) / (1 + W1),
            (24 + 11 * W1) / (1 + 2 * W1),
            24.0,
            (2 + 24 * W1) / (1 + W1),
        ]
    )
    assert smoothed[1:3] + smoothed[4:] == pytest.approx([14.6631, 13.8595, 10.3059], abs=1e-4)
    marks, root, threshold, _ = select_smoothed(stats, "td", [1.0, W1], "siblings", "select")
    assert (root, threshold) == (3, 9.25)
    assert marks == [2, 0, 2, 1, 0]


def test_hand_worked_page_output():
    assert CECTDS(density="td", radius=1).extract(_page(PAGE)).text == "cccc dddd eeee ffff gggg"
    both = CECTDS(density="td", radius=1, use="both").extract(_page(PAGE))
    assert both.text == "aaaa bbbb\ncccc dddd eeee ffff gggg\nhh"
    assert both.info["content_root"] == "/html/body/div[2]/p"
    assert both.info["max_smoothed_density"] == 24.0


def test_boundary_sigma_zero_and_radius_zero_switch_smoothing_off():
    # without smoothing, DensitySum's slot holds the raw TD: div2 and p tie at 24 and the
    # first in document order (div2) is the root; the output is the same text
    for m in (CECTDS(density="td", sigma=0.0), CECTDS(density="td", radius=0)):
        ext = m.extract(_page(PAGE))
        assert ext.info["content_root"] == "/html/body/div[2]"
        assert ext.text == "cccc dddd eeee ffff gggg"
    # use="both" at radius 0 walks with the raw TD: div1 (9) and div3 (2) stay below 9.25
    assert (
        CECTDS(density="td", radius=0, use="both").extract(_page(PAGE)).text
        == "cccc dddd eeee ffff gggg"
    )


def test_boundary_a_density_equal_to_the_threshold_is_kept():
    # a leaf's TD is its C; the body's is (C1 + 1 + 24 + 1 + C3) / 4. They are equal when
    # C1 = (26 + C3) / 3: C3 = 4 ("hhhh"), C1 = 10 ("aaaa bbbbb"): body C = 40, TD 10 =
    # div1's, so the threshold (the smallest TD on p's path: body's 10) equals div1's TD
    html = (
        "<html><body><div>aaaa bbbbb</div><div><p>cccc dddd eeee ffff gggg</p></div>"
        "<div>hhhh</div></body></html>"
    )
    stats = dom_stats(parse_html(html).find(".//body"))
    assert stats.chars == [40, 10, 24, 24, 4]
    marks, _, threshold, _ = select_smoothed(stats, "td", [1.0], "siblings", "select")
    assert threshold == 10.0 and marks[1] == 1 and marks[4] == 0  # 10 >= 10 kept; 4 < 10
    # one character less in div1 (TD 9, body 39 / 4 = 9.75): div1 drops below the threshold
    fewer = html.replace("bbbbb", "bbbb")
    stats = dom_stats(parse_html(fewer).find(".//body"))
    marks, _, threshold, _ = select_smoothed(stats, "td", [1.0], "siblings", "select")
    assert threshold == 9.75 and marks[1] == 0


def test_preorder_scope_smooths_across_levels():
    body = parse_html(PAGE).find(".//body")
    stats = dom_stats(body)
    td = [9.25, 9.0, 24.0, 24.0, 2.0]
    out = smooth_densities(stats, td, [1.0, W1], "preorder")
    # p (index 3) between div2 (24) and div3 (2): (24 + (24 + 2) W1) / (1 + 2 W1)
    assert out[3] == pytest.approx((24 + 26 * W1) / (1 + 2 * W1))


def test_composite_density_is_the_default_and_registered():
    assert METHODS.get("cectd_s") is CECTDS
    assert CECTDS().get_params() == {
        "sigma": 1.0,
        "radius": None,
        "scope": "siblings",
        "use": "select",
        "density": "ctd",
    }
    html = (
        "<html><body><div id=nav><a href=/>Home</a> <a href=/n>News</a></div>"
        "<div id=main><p>aaaa bbbb cccc</p><p>dddd eeee ffff</p>"
        "<p>gggg hhhh iiii jjjj</p></div>"
        "<div id=foot>(c) 2020 <a href=/c>Contact us</a></div></body></html>"
    )
    ext = CECTDS().extract(_page(html))
    assert ext.text == "aaaa bbbb cccc\ndddd eeee ffff\ngggg hhhh iiii jjjj"


@pytest.mark.parametrize(
    "kwargs",
    [
        {"sigma": -1},
        {"radius": -1},
        {"radius": 1.5},
        {"scope": "tree"},
        {"use": "all"},
        {"density": "htd"},
    ],
)
def test_bad_settings_fail_at_construction(kwargs):
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        CECTDS(**kwargs)


@pytest.mark.parametrize(
    "html",
    [
        "",
        "<!-- c -->",
        "<html><body></body></html>",
        "\x00\x01 junk \xff",
        "<p>no links at all</p>",
        "<body>" + "<div>" * 3000 + "deep" + "</div>" * 3000 + "</body>",
    ],
)
def test_odd_html_never_raises(html):
    assert isinstance(CECTDS().extract(_page(html)).text, str)
