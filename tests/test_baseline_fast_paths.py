"""The single-pass code of CETD, PAB and jusText-style gives what the rule-by-rule functions give.

CETD's ``kept_text`` must equal ``element_text`` of the body skipping the
dropped elements, its one-pass DensitySums and subtree bests the definitions, its
children and runs (from pre-order contiguity) the parent links and texts; CETD's
``clean_tree`` and jusText's ``preprocess`` on a plain ``lxml.etree`` tree must leave
what ``lxml.html``'s ``drop_tree``/``drop_tag`` leave, and jusText's link characters
and stop-word tokens what the regex and per-token lower-casing give.
PAB's ``split_blocks`` must find ``find_blocks``'s blocks
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
    _best,
    _sums_and_best,
    clean_tree,
    densities,
    density_sums,
    dom_stats,
    kept_text,
    run_density,
    select_content,
)
from baselines.justext_style import (
    _DROP_WITH_CONTENT,
    _UNWRAP,
    Paragraph,
    _is_heading_tag,
    classify_context_free,
    make_paragraphs,
    preprocess,
)
from evalkit.core.domains import registrable_domain
from evalkit.core.page import PageError, parse_html
from evalkit.core.text import stopwords
from evalkit.core.visible import element_text
from evalkit.readers.aeb import AEBDataset
from evalkit.readers.pairs import PairsDataset

N_REAL = 25  # real pages per data set: enough variety, a few seconds


def _real_trees(shared):
    pages = list(AEBDataset(str(shared("scrapinghub-aeb")), limit=N_REAL).pages())
    pages += list(
        PairsDataset(
            str(shared("chaos")), limit=N_REAL, html_dir="html", gold_dir="gold", gold_format="text"
        ).pages()
    )
    for page in pages:
        try:
            yield page.id, parse_html(page.html)
        except PageError:
            continue


def _pab_body(root):
    for el in list(
        root.iter(*pab.REMOVED_TAGS, lxml.etree.Comment, lxml.etree.ProcessingInstruction)
    ):
        if el.getparent() is not None:
            el.drop_tree()
    return root.find(".//body")


# --- CETD -------------------------------------------------------------------------------


def _cetd_body(html):
    root = clean_tree(parse_html(html))
    return root.find(".//body")


def test_kept_text_by_hand():
    body = _cetd_body(
        "<html><body><div id=a>One <b>two</b><p>three</p>tail"
        "<span id=x>gone<i>too</i></span> after<noscript>hidden</noscript> end"
        "</div><ul><li>four</li></ul>five</body></html>"
    )
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
            body, lambda el, m=marks, ix=index: not m[ix[el]]
        )
        n += 1
    assert n >= 40


def _real_htmls(shared):
    pages = list(AEBDataset(str(shared("scrapinghub-aeb")), limit=N_REAL).pages())
    pages += list(
        PairsDataset(
            str(shared("chaos")), limit=N_REAL, html_dir="html", gold_dir="gold", gold_format="text"
        ).pages()
    )
    for page in pages:
        try:
            parse_html(page.html)
        except PageError:
            continue
        yield page.html


def _html_drop_clean(root):
    """clean_tree as it was written with lxml.html's own drop_tree."""
    for el in list(
        root.iter(
            "script", "style", "noscript", lxml.etree.Comment, lxml.etree.ProcessingInstruction
        )
    ):
        if el.getparent() is not None:
            el.drop_tree()
    return root


TAIL_CASES = [
    "<div>a<script>x</script>b<p>c</p><style>y</style>d<noscript>z</noscript></div>",
    "<div><script>x</script>first<p>c</p>tail<style>s</style></div><script>1</script>end",
    "<p><noscript>n</noscript><noscript>m</noscript>two gone<?pi x?> after pi</p>",
]


def _assert_like_lxml_html(fast, reference, html):
    """``fast`` leaves, on a plain and on an lxml.html tree, what ``reference`` leaves."""
    expected = lxml.etree.tostring(reference(parse_html(html)))
    assert lxml.etree.tostring(fast(parse_html(html, plain=True))) == expected
    assert lxml.etree.tostring(fast(parse_html(html))) == expected


@pytest.mark.parametrize("html", TAIL_CASES)
def test_clean_tree_keeps_tails_where_lxml_html_does(html):
    _assert_like_lxml_html(clean_tree, _html_drop_clean, "<html><body>" + html + "</body></html>")


def test_clean_tree_plain_equals_lxml_html_on_real_pages(shared):
    n = 0
    for html in _real_htmls(shared):
        assert lxml.etree.tostring(clean_tree(parse_html(html, plain=True))) == lxml.etree.tostring(
            _html_drop_clean(parse_html(html))
        )
        n += 1
    assert n >= 40


def _body_stats(html):
    root = clean_tree(parse_html(html, plain=True))
    body = root.find(".//body")
    return dom_stats(root if body is None else body)


def _normalised_length(text):
    return len(" ".join((text or "").split()))


def test_children_and_runs_from_contiguity_on_real_pages(shared):
    for html in _real_htmls(shared):
        stats = _body_stats(html)
        kids = [[] for _ in stats.nodes]
        for j, p in enumerate(stats.parent):
            if p >= 0:
                kids[p].append(j)
        assert stats.children == kids
        assert stats.runs == [
            [
                r
                for r in [_normalised_length(stats.texts[i])]
                + [_normalised_length(stats.tails[j]) for j in kids[i]]
                if r
            ]
            for i in range(len(stats.nodes))
        ]


def test_one_pass_sums_and_best_match_the_definitions_on_real_pages(shared):
    for html in _real_htmls(shared):
        stats = _body_stats(html)
        r = stats.ratio
        for kind in ("td", "ctd"):
            dens = densities(stats, kind)
            expected = []  # children's densities left to right, then the runs' terms
            for i, (kids, runs) in enumerate(zip(stats.children, stats.runs)):
                if not kids:
                    expected.append(dens[i])
                    continue
                total = 0
                for j in kids:
                    total += dens[j]
                if runs:
                    total += sum(run_density(length, kind, r) for length in runs)
                expected.append(total)
            sums, best = _sums_and_best(stats, dens, kind)
            assert sums == expected == density_sums(stats, dens, kind)
            assert best == _best(stats, sums)
            assert select_content(stats, dens, sums, best) == select_content(stats, dens, sums)


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
    html = (
        "<html><body><div>lead <span>in</span>"
        "<p>para <a href='http://other.org/x'>out</a> <a href='/in'>in</a>"
        "<noscript><img alt='pic' src=i.png><i>hid</i></noscript></p> mid"
        "<noscript><h2>hidden head</h2> hidden tail</noscript> after"
        "<table><tr><td><b>cell</b></td></tr></table>end</div></body></html>"
    )
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
    if host and (site is None or registrable_domain(host) != site):
        return pab._OUTER
    return pab._INNER


TRICKY_HREFS = [
    None,
    "",
    "  ",
    "#top",
    "/",
    "/a/b?c#d",
    "//cdn.example.com/x",
    "a.html",
    "?q=1",
    "http://example.com",
    "HTTP://Example.COM/x",
    "https://news.example.co.uk?x",
    "http://x.org#f",
    "http://example.com:8080/",
    "http://user@example.com/",
    "http://[::1]/",
    "http://[::1/",
    "http://exa\tmple.com/",
    "http://example.com\t/x",
    "http://",
    "http:///x",
    "http://./",
    "http://bücher.de/",
    "https://example.com./",
    "mailto:a@b.c",
    "javascript:void(0)",
    "tel:123",
    "ftp://example.com/",
    "http:/example.com",
    "/x:y",
    "http://a..b/",
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
                assert pab._link_kind(a.get("href"), site) == _link_kind_by_urlsplit(
                    a.get("href"), site
                )
                n += 1
    assert n > 1000


# --- jusText-style ----------------------------------------------------------------------


def test_is_heading_tag_is_the_regex():
    pattern = re.compile(r"h\d")
    for tag in [
        "h1",
        "h6",
        "h0",
        "h9",
        "hr",
        "h",
        "h12",
        "H1",
        "th",
        "h\u0661",
        "h\u00b2",
        "h\uff11",
        "head",
        "1h",
    ]:
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


def _html_preprocess(root):
    """preprocess as it was written with lxml.html's own drop_tree and drop_tag."""
    drop, unwrap = [], []
    for el in root.iter(
        *_DROP_WITH_CONTENT,
        *_UNWRAP,
        lxml.etree.Comment,
        lxml.etree.ProcessingInstruction,
        lxml.etree.Entity,
    ):
        tag = el.tag.lower() if isinstance(el.tag, str) else None
        (drop if tag is None or tag in _DROP_WITH_CONTENT else unwrap).append(el)
    for el in drop:
        if el.getparent() is not None:
            el.drop_tree()
    for el in reversed(unwrap):
        if el.getparent() is not None:
            el.drop_tag()
    return root


UNWRAP_CASES = [
    "<div>a<form>in<b>bold</b>form tail</form>after</div>",
    "<div><form>first</form>tail<iframe>f</iframe></div>",
    "<p>x<span>y</span><object>o<param>p</param></object>z<form></form>end</p>",
    "<div><form><form>nested</form>mid</form>out<input>gone<button>b</button>t</div>",
]


@pytest.mark.parametrize("html", UNWRAP_CASES)
def test_preprocess_moves_text_where_lxml_html_does(html):
    _assert_like_lxml_html(
        preprocess,
        _html_preprocess,
        "<html><head><title>t</title></head><body>" + html + "</body></html>",
    )


def test_preprocess_and_paragraphs_plain_equal_lxml_html_on_real_pages(shared):
    n = 0
    for html in _real_htmls(shared):
        plain, html_tree = (
            preprocess(parse_html(html, plain=True)),
            _html_preprocess(parse_html(html)),
        )
        assert lxml.etree.tostring(plain) == lxml.etree.tostring(html_tree)
        assert [(p.text, p.link_chars, p.path) for p in make_paragraphs(plain)] == [
            (p.text, p.link_chars, p.path) for p in make_paragraphs(html_tree)
        ]
        n += 1
    assert n >= 40


def test_link_characters_collapse_white_space_as_the_regex_does():
    for link in ["Home", "  Home  ", "\n\tRead   more\u00a0 about it\n", "a\u2028b ", " x"]:
        paras = make_paragraphs(
            preprocess(parse_html(f"<html><body><p>t <a>{link}</a></p></body></html>", plain=True))
        )
        assert paras[0].link_chars == len(re.sub(r"\s+", " ", link)), repr(link)


def test_stopword_density_lowers_each_token_alike():
    # lower-casing the whole text: final sigma, dotted capital I, no-break space
    stop = frozenset({"the", "οδος", "σας", "i\u0307stanbul"})
    for text in ["THE Road", "ΟΔΟΣ ΣΑΣ the", "ΟΔΟΣ\u00a0ΣΑΣ", "İstanbul the", "ΣΑΣ.ΟΔΟΣ x"]:
        tokens = text.split()
        expected = sum(t.lower() in stop for t in tokens) / len(tokens)
        assert Paragraph(text=text, link_chars=0, path=()).stopword_density(stop) == expected
