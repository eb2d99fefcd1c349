"""Wide and long pages stay linear: the rewritten steps give the old results, and a
100,000-sibling page goes through every own method and the scorer (issue 14, item 2).

No clocks here (speed is measured in the ``speed`` experiment): the oracles below are
the old, quadratic definitions, compared result for result.
"""

import random

import pytest

from evalkit.core import paragraphs as js  # the jusText stages (justext_style and san_aye run them)
from evalkit.core.page import Gold, Page, parse_html
from evalkit.core.units import segment
from evalkit.harness.registry import METHODS
from evalkit.harness.scoring import score_extraction

PAGES = [
    "<html><body><div><p>a</p><p>b<a href='#'>c</a> d</p><span>e</span><p>f</p></div></body></html>",
    "<html><body>"
    + "<span>x</span><!-- c --><b>y</b>" * 30
    + "<script>s</script>tail</body></html>",
    "<html><body>" + "<div>lvl" * 40 + "</div>" * 40 + "<div>after</div></body></html>",
    "<html><body><ul>" + "<li><a href='#'>one</a> two</li>" * 12 + "</ul><p>end</p></body></html>",
    "<html><body><table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table></body></html>",
]


@pytest.mark.parametrize("html", PAGES)
def test_unit_paths_are_getpath_of_the_owner(html):
    root = parse_html(html)
    units = segment(root)
    tree = root.getroottree()
    for u in units:
        owners = tree.xpath(u.path)
        assert len(owners) == 1  # the path names exactly one element ...
        assert tree.getpath(owners[0]) == u.path  # ... and is how lxml writes its path


def test_unit_paths_count_same_tag_siblings_only():
    units = segment(
        parse_html("<html><body><div><p>a</p><span>b</span><p>c</p><i>d</i></div></body></html>")
    )
    assert [(u.text, u.path) for u in units] == [
        ("a", "/html/body/div/p[1]"),
        ("b", "/html/body/div/span"),
        ("c", "/html/body/div/p[2]"),
        ("d", "/html/body/div/i"),
    ]


def test_a_run_of_many_links_is_one_unit_owned_where_its_text_starts():
    html = (
        "<html><body><div> <a href='#'> </a>" + "<a href='#'>w</a> " * 500 + "</div></body></html>"
    )
    units = segment(parse_html(html))
    assert len(units) == 1
    assert (units[0].n_words, units[0].n_link_words) == (500, 500)
    assert units[0].path == "/html/body/div/a[2]"  # whitespace-only pieces own nothing


def _old_revise_steps_2_3(cls):
    """Old oracle: passes 2 and 3 of ``revise`` with a neighbour scan per paragraph."""
    cls = list(cls)
    nb = js._neighbour
    decided = {}
    for i, c in enumerate(cls):
        if c != js.SHORT:
            continue
        prev, nxt = nb(cls, i, -1, True), nb(cls, i, 1, True)
        if prev == nxt:
            decided[i] = prev
        elif (prev == js.BAD and nb(cls, i, -1, False) == js.NEARGOOD) or (
            nxt == js.BAD and nb(cls, i, 1, False) == js.NEARGOOD
        ):
            decided[i] = js.GOOD
        else:
            decided[i] = js.BAD
    for i, c in decided.items():
        cls[i] = c
    for i, c in enumerate(cls):
        if c == js.NEARGOOD:
            prev, nxt = nb(cls, i, -1, True), nb(cls, i, 1, True)
            cls[i] = js.BAD if (prev, nxt) == (js.BAD, js.BAD) else js.GOOD
    return cls


@pytest.mark.parametrize("seed", range(40))
def test_revise_matches_the_neighbour_scan(seed):
    rng = random.Random(seed)
    classes = [
        rng.choice([js.GOOD, js.BAD, js.NEARGOOD, js.SHORT, js.SHORT])
        for _ in range(rng.randint(0, 30))
    ]
    paragraphs = [js.Paragraph(text="t", link_chars=0, path=(), cf_class=c) for c in classes]
    js.revise(paragraphs)
    assert [p.cls for p in paragraphs] == _old_revise_steps_2_3(classes)


from conftest import OWN as _OWN
from conftest import extract_or_expected

#: label -> (registry name, parameters) of every own method (derived: tests/conftest.py)
OWN = {label: (name, params) for label, name, params in _OWN.values()}
MAIN = "Main text of the page, with words. " * 50


def test_a_100k_sibling_page_goes_through_every_own_method_and_the_scorer():
    html = (
        "<html><body><article><p>"
        + MAIN
        + "</p></article><div>"
        + "<span>x</span>" * 100_000
        + "</div></body></html>"
    )
    page = Page(id="wide", dataset="t", raw=html.encode(), gold=Gold(text=MAIN))
    for name, (registry, params) in OWN.items():
        method = METHODS.create(registry, **params)
        ext = extract_or_expected(method, page)
        if ext is None:  # a documented failure (no template for this site): nothing to score
            continue
        assert ext.error is None, name
        rec = score_extraction(page, name, ext)
        assert rec["n_words_gold"] == 350
        # the unit metric weighs units by words: 100,000 one-word spans and the article's 350
        assert sum(rec[f"unit_{k}"] for k in ("tp", "fp", "fn", "tn")) == 100_000 + 350, name
