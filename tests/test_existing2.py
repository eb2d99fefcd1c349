"""Existing 2 (a reconstruction of Uma & Latha 2018): hybrid-hash near duplicates and enhanced
sketching worked out by hand, the thresholds' boundaries, and every page of the shared sets."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from shared_pages import shared_set_pages

from baselines.existing1 import Existing1
from baselines.existing2 import Existing2
from baselines.hybridhash import Hybridhash
from evalkit.core.method import param_names
from evalkit.core.page import Gold, Page
from evalkit.core.sketching import (
    BlockParams,
    binary_weights,
    fingerprints_many,
    hybrid_fingerprint,
    separate_blocks,
    simhash_fingerprint,
    sketch_select,
    tf_weights,
)
from evalkit.core.text import terms
from evalkit.harness.registry import METHODS

# The page of tests/test_existing1.py. Blocks 0, 1, 3 are sketched (2 is block 1's copy: hybrid
# hash Hamming 0; 4 has no keywords). Their raw sketches (KR, 1 - LP/100, TR):
#   nav (0, 0, 1/3)   main (2/9, 1, 1)   foot (0, 2/3, 0)
# enhanced sketching min-max normalises each column over the three blocks:
#   KR [0, 2/9, 0] -> [0, 1, 0];  1 - LP/100 [0, 1, 2/3] -> [0, 1, 2/3];  TR [1/3, 1, 0] -> [1/3, 1, 0]
#   importance: nav (0 + 0 + 1/3) / 3 = 1/9, main 1, foot (0 + 2/3 + 0) / 3 = 2/9
#   threshold = (1/9 + 1 + 2/9) / 3 = 4/9: main alone is kept
MAIN = "Solar plant opens near town. Town gets solar power."
PAGE = (
    "<html><head><title>Solar plant opens</title></head><body>"
    '<div id="nav"><a href="/">Home</a> <a href="/s">Solar news</a> <a href="/c">Contact</a></div>'
    f'<div id="main"><p>{MAIN}</p></div>'
    f'<div id="copy"><p>{MAIN.upper()}</p></div>'
    '<div id="foot">Copyright 2020 <a href="/c">Contact</a></div>'
    '<div id="nums">2020 | 12</div>'
    "</body></html>"
)


def _page(html: str) -> Page:
    return Page(id="p", dataset="test", raw=html.encode("utf-8"), gold=Gold(text=""))


def test_extract_by_hand():
    out = Existing2().extract(_page(PAGE))
    assert out.text == MAIN
    assert [(b.kept, b.rule) for b in out.blocks] == [
        (False, "below_threshold"),
        (True, None),
        (False, "near_duplicate"),
        (False, "below_threshold"),
        (False, "no_keywords"),
    ]
    imp = [b.scores.get("importance") for b in out.blocks]
    assert imp[0] == pytest.approx(1 / 9)
    assert imp[1] == pytest.approx(1.0)
    assert imp[3] == pytest.approx(2 / 9)
    assert out.info["threshold"] == pytest.approx(4 / 9)
    # the raw parameters are recorded, not the normalised ones
    assert out.blocks[1].scores["kr"] == pytest.approx(2 / 9)


def test_enhanced_and_plain_sketching_differ_by_hand():
    # three blocks whose raw sketches (KR, 1 - LP/100, TR) are
    #   A (0, 1, 0)   B (0.1, 0.5, 1)   C (0.2, 1, 0)
    # plain:    A 1/3, B 1.6/3 = 0.533, C 1.2/3 = 0.4; mean 0.422 -> B alone
    # enhanced: KR [0, .1, .2] -> [0, .5, 1]; [1, .5, 1] -> [1, 0, 1]; TR [0, 1, 0] stays
    #           A 1/3, B 1.5/3 = 0.5, C 2/3; mean 0.5 -> B (exactly at the threshold) and C
    params = [BlockParams(0.0, 0.0, 0.0), BlockParams(0.1, 50.0, 1.0), BlockParams(0.2, 0.0, 0.0)]
    keep, imp, cut = sketch_select(params)
    assert keep == [False, True, False]
    assert imp == pytest.approx([1 / 3, 1.6 / 3, 1.2 / 3]) and cut == pytest.approx(3.8 / 9)
    keep, imp, cut = sketch_select(params, enhanced=True)
    assert keep == [False, True, True]
    assert imp == pytest.approx([1 / 3, 0.5, 2 / 3]) and cut == pytest.approx(0.5)


def test_constant_parameter_normalises_to_zero():
    # every block has the same KR: its column contributes 0 to every importance
    params = [BlockParams(0.3, 0.0, 0.0), BlockParams(0.3, 0.0, 1.0)]
    keep, imp, _ = sketch_select(params, enhanced=True)
    assert imp == pytest.approx([0.0, 1 / 3]) and keep == [False, True]


def test_plain_sketching_is_existing1_with_the_hybrid_hash():
    page = _page(PAGE)
    a = Existing2(sketching="plain").extract(page)
    b = Existing1().extract(page)
    assert a.text == b.text
    assert [r.scores for r in a.blocks] == [r.scores for r in b.blocks]


def test_hybrid_hash_is_the_detector_fingerprint():
    det = Hybridhash(bits=32)
    text = "Solar plant opens near town. Town gets solar power."
    assert fingerprints_many([Existing2()._weights(text, terms(text))], 32) == [
        det.fingerprint(text)
    ]
    assert fingerprints_many([Existing2(shingle=3)._weights(text, terms(text))]) == [
        Hybridhash(shingle=3).fingerprint(text)
    ]


@pytest.mark.parametrize("bits", [32, 64, 128])
def test_page_batch_fingerprints_equal_one_block_fingerprints(bits):
    # the batch pass sums the same whole-number weights as evalkit.core.fingerprint does per block
    texts = [MAIN, "Home Solar news Contact", "", "Copyright 2020 Contact", MAIN + " " + MAIN]
    seqs = [terms(t) for t in texts]
    assert fingerprints_many([tf_weights(s) for s in seqs], bits) == [
        simhash_fingerprint(s, bits) for s in seqs
    ]
    assert fingerprints_many([binary_weights(frozenset(s)) for s in seqs], bits) == [
        hybrid_fingerprint(frozenset(s), bits) for s in seqs
    ]


def test_boundary_k_on_pages():
    # two blocks whose binary vectors differ by one term of many: find the Hamming distance d,
    # then k = d removes the second block and k = d - 1 keeps it
    words = [f"w{chr(97 + i)}{chr(97 + j)}" for i in range(4) for j in range(5)]
    first, second = " ".join(words), " ".join(words[:-1] + ["zzz"])
    det = Hybridhash()
    d = det.distance(det.fingerprint(first), det.fingerprint(second))
    assert d > 0
    html = f"<html><body><div>{first}</div><div>{second}</div></body></html>"
    at_k = Existing2(k=d).extract(_page(html))
    below = Existing2(k=d - 1).extract(_page(html))
    assert at_k.blocks[1].rule == "near_duplicate"
    assert below.blocks[1].rule != "near_duplicate"


def test_settings_are_validated():
    for bad in ({"shingle": 0}, {"sketching": "better"}, {"bits": 16}, {"threshold": -0.1}):
        with pytest.raises(ValueError):
            Existing2(**bad)


def test_registry_and_config():
    assert METHODS.get("existing2") is Existing2
    path = Path(__file__).resolve().parents[1] / "configs" / "method" / "existing2.yaml"
    text = path.read_text()
    cfg = yaml.safe_load(text)["existing2"]
    assert cfg.pop("_name_") == "existing2"
    assert list(cfg) == param_names(Existing2)
    made = METHODS.create("existing2", **cfg).get_params()
    assert {**made, "block_tags": tuple(made["block_tags"])} == Existing2().get_params()
    for key in cfg:
        assert f"method.existing2.{key}=" in text


def test_page_batch_fingerprints_on_real_pages():
    # every block of ten real pages: the batch equals the one-block fingerprint, both hashes
    for n, page in enumerate(shared_set_pages("cleanportaleval")):
        if n == 10:
            break
        blocks = separate_blocks(page.tree(plain=True))
        seqs = [terms(b.text) for b in blocks]
        assert fingerprints_many([tf_weights(s) for s in seqs]) == [
            simhash_fingerprint(s) for s in seqs
        ]
        assert fingerprints_many([binary_weights(frozenset(s)) for s in seqs]) == [
            hybrid_fingerprint(frozenset(s)) for s in seqs
        ]


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
        "<body>" + "<div>" * 3000 + "deep words" + "</div>" * 3000 + "</body>",
        "<table><tr><td>cell words<td>green apple trees</table>",
        "<p>no html or body element, title words</p><a href=x>a link</a>",
    ],
)
@pytest.mark.parametrize("cls", [Existing1, Existing2])
def test_odd_html_never_raises(html, cls):
    ext = cls().extract(_page(html))
    assert isinstance(ext.text, str)


def test_odd_html_outputs():
    assert (
        Existing2()
        .extract(_page("<body>" + "<div>" * 3000 + "deep words" + "</div>" * 3000 + "</body>"))
        .text
        == "deep words"
    )
    # two td blocks, neither a copy ("more cell words" would be one: "more" is a stop word): both sketched with equal importance, both kept
    assert (
        Existing2().extract(_page("<table><tr><td>cell words<td>green apple trees</table>")).text
        == "cell words\ngreen apple trees"
    )
    empty = Existing2().extract(_page(""))
    assert empty.text == "" and empty.info["n_blocks"] == 0 and "skipped" in empty.info
