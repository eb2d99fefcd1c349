"""The single-pass code of CETD, PAB and jusText-style gives what the rule-by-rule functions give.

CETD's ``kept_text`` must equal ``element_text`` of the body skipping the
dropped elements; PAB's ``split_blocks`` must find ``find_blocks``'s blocks
with ``element_text``, ``block_priority`` and ``outer_link_share`` of each and
the text outside them; the href fast paths must agree with ``urlsplit``.
Checked by hand on small pages and on real pages of two data sets.
"""

from __future__ import annotations

import random
import re
from urllib.parse import urlsplit

import lxml.etree
import pytest

from baselines import pab
from baselines.cetd import (
    clean_tree,
    densities,
    density_sums,
    dom_stats,
    kept_text,
    select_content,
)
from baselines.justext_style import (
    _is_heading_tag,
    classify_context_free,
    make_paragraphs,
    preprocess,
)
from evalkit.data.aeb import AEBDataset
from evalkit.data.pairs import PairsDataset
from evalkit.page import PageError, parse_html
from evalkit.text import stopwords
from evalkit.visible import element_text

N_REAL = 25  # real pages per data set: enough variety, a few seconds


def _real_trees(shared):
    pages = list(AEBDataset(str(shared("scrapinghub-aeb")), limit=N_REAL).pages())
    pages += list(PairsDataset(str(shared("chaos")), limit=N_REAL, html_dir="html",
                               gold_dir="gold", gold_format="text").pages())
    for page in pages:
        try:
            yield page.id, parse_html(page.html)
        except PageError:
            continue


def _pab_body(root):
    for el in list(root.iter(*pab.REMOVED_TAGS, lxml.etree.Comment,
                             lxml.etree.ProcessingInstruction)):
        if el.getparent() is not None:
            el.drop_tree()
    return root.find(".//body")


# --- CETD -------------------------------------------------------------------------------

def _cetd_body(html):
    root = clean_tree(parse_html(html))
    return root.find(".//body")


def test_kept_text_by_hand():
    body = _cetd_body("<html><body><div id=a>One <b>two</b><p>three</p>tail"
                      "<span id=x>gone<i>too</i></span> after<noscript>hidden</noscript> end"
                      "</div><ul><li>four</li></ul>five</body></html>")
    stats = dom_stats(body)
    marks = [1] * len(stats.nodes)
    marks[[el.get("id") for el in stats.nodes].index("x")] = 0
    # block tags break lines; the dropped span keeps its tail; noscript is invisible
    assert kept_text(stats, marks) == "One two\nthree\ntail after end\nfour\nfive"
    # the body itself is never dropped: only its children's tails are left
    assert kept_text(stats, [0] * len(stats.nodes)) == "five" == element_text(body, lambda el: True)


def test_kept_text_equals_element_text_on_real_pages(shared):
    rng = random.Random(0)
    n = 0
    for _, root in _real_trees(shared):
        clean_tree(root)
        body = root.find(".//body")
        if body is None:
            body = root
        stats = dom_stats(body)
        index = {el: i for i, el in enumerate(stats.nodes)}
        for kind in ("td", "ctd"):
            dens = densities(stats, kind)
            marks, _, _ = select_content(stats, dens, density_sums(stats, dens, kind))
            skip = lambda el, m=marks, ix=index: m[ix[el]] == 0
            assert kept_text(stats, marks) == element_text(body, skip)
        # random drops reach elements the selection never drops
        marks = [rng.random() < 0.7 for _ in stats.nodes]
        assert kept_text(stats, marks) == element_text(
            body, lambda el, m=marks, ix=index: not m[ix[el]])
        n += 1
    assert n >= 40


# --- PAB --------------------------------------------------------------------------------

def _check_split(body, host):
    blocks, outside = pab.split_blocks(body, host)
    elements = [b.element for b in blocks]
    assert elements == pab.find_blocks(body)
    for b in blocks:
        assert b.text == element_text(b.element)
        assert b.priority == pab.block_priority(b.element)
        assert repr(b.priority) == repr(pab.block_priority(b.element))
        assert (b.outer_link_share, b.n_links) == pab.outer_link_share(b.element, host)
    chosen = set(elements)
    assert outside == element_text(body, lambda el: el in chosen)
    return blocks, outside


def test_split_blocks_by_hand():
    html = ("<html><body><div>lead <span>in</span>"
            "<p>para <a href='http://other.org/x'>out</a> <a href='/in'>in</a>"
            "<noscript><img alt='pic' src=i.png><i>hid</i></noscript></p> mid"
            "<noscript><h2>hidden head</h2> hidden tail</noscript> after"
            "<table><tr><td><b>cell</b></td></tr></table>end</div></body></html>")
    body = _pab_body(parse_html(html))
    blocks, outside = _check_split(body, "www.example.com")
    assert [b.element.tag for b in blocks] == ["p", "h2", "table"]
    p, h2, table = blocks
    # p 0.1 + a 0.2 + a 0.2 + img with alt 0.3 + i 0.2, the last two inside noscript
    assert p.priority == 1.0 and p.text == "para out in"
    assert (p.outer_link_share, p.n_links) == (0.5, 2)
    assert h2.text == "hidden head" and h2.priority == 0.9  # found under the invisible noscript
    assert table.text == "cell" and table.priority == 0.4
    # a skipped block leaves only its tail: no line breaks of its own
    assert outside == "lead in mid afterend"


def test_split_blocks_matches_the_rule_functions_on_real_pages(shared):
    n = 0
    for _, root in _real_trees(shared):
        body = _pab_body(root)
        if body is None:
            continue
        host = pab.page_host(None, root)
        _check_split(body, host)
        _check_split(body, None)
        n += 1
    assert n >= 40


def _link_kind_by_urlsplit(href, site):
    href = (href or "").strip()
    if not href or href.startswith("#"):
        return pab._NOT_A_LINK
    try:
        parts = urlsplit(href)
    except ValueError:
        return pab._NOT_A_LINK
    if parts.scheme not in ("", "http", "https"):
        return pab._NOT_A_LINK
    host = parts.hostname
    if host and (site is None or pab.registrable_domain(host) != site):
        return pab._OUTER
    return pab._INNER


TRICKY_HREFS = [
    None, "", "  ", "#top", "/", "/a/b?c#d", "//cdn.example.com/x", "a.html", "?q=1",
    "http://example.com", "HTTP://Example.COM/x", "https://news.example.co.uk?x", "http://x.org#f",
    "http://example.com:8080/", "http://user@example.com/", "http://[::1]/", "http://[::1/",
    "http://exa\tmple.com/", "http://example.com\t/x", "http://", "http:///x", "http://./",
    "http://bücher.de/", "https://example.com./", "mailto:a@b.c", "javascript:void(0)",
    "tel:123", "ftp://example.com/", "http:/example.com", "/x:y", "http://a..b/",
]


@pytest.mark.parametrize("site", [None, "example.com", "example.co.uk", "other.org"])
def test_link_kind_fast_paths_agree_with_urlsplit(site):
    for href in TRICKY_HREFS:
        assert pab._link_kind(href, site) == _link_kind_by_urlsplit(href, site), href


def test_link_kind_agrees_with_urlsplit_on_real_links(shared):
    n = 0
    for _, root in _real_trees(shared):
        for a in root.iter("a"):
            for site in (None, "bbc.co.uk", "nytimes.com"):
                assert pab._link_kind(a.get("href"), site) == \
                    _link_kind_by_urlsplit(a.get("href"), site)
                n += 1
    assert n > 1000


# --- jusText-style ----------------------------------------------------------------------

def test_is_heading_tag_is_the_regex():
    pattern = re.compile(r"h\d")
    for tag in ["h1", "h6", "h0", "h9", "hr", "h", "h12", "H1", "th", "h\u0661", "h\u00b2",
                "h\uff11", "head", "1h"]:
        assert _is_heading_tag(tag) == bool(pattern.fullmatch(tag)), tag


def test_given_densities_change_no_class(shared):
    stop = stopwords("english")
    for _, root in _real_trees(shared):
        paras = make_paragraphs(preprocess(root))
        classify_context_free(paras, stop)
        expected = [p.cf_class for p in paras]
        dens = [p.stopword_density(stop) for p in paras]
        classify_context_free(paras, stop, densities=dens)
        assert [p.cf_class for p in paras] == expected
