"""Boundary cases where the papers put a boundary, each on both sides.

Every test here fails when its comparison is flipped (``>`` to ``>=``, ``<=`` to ``<``):

* near duplicates "differ at most k bits" (Saravanan & Sathya Bama 2020, §3.3, after
  Manku et al. 2007): Hamming distance k is a duplicate, k + 1 is not;
* Jaccard and MinHash detectors: similarity exactly at the threshold is a duplicate;
* block scoring, "If Blockscore(b) > t then Significant" (ibid., §3.4): a block scoring
  exactly the threshold is dropped;
* PAB "more than 50% of outer hyperlinks" gets 0 (Kabir et al. 2015, §3), and only blocks
  of priority above 0 are informative;
* CETD: an element whose density reaches the threshold is kept (Sun et al. 2011, §4.2).
"""

from __future__ import annotations

import pytest

from baselines.cetd import clean_tree, densities, density_sums, dom_stats, select_content
from baselines.jaccard import Jaccard
from baselines.minhash import MinHash
from baselines.pab import PAB
from baselines.simhash import Simhash
from evalkit.core.page import Gold, Page, parse_html
from evalkit.proposed.dedup import ModifiedSimhash
from evalkit.proposed.pipeline import Proposed


def _page(html: str, url: str | None = None) -> Page:
    return Page(id="p", dataset="t", raw=html.encode(), gold=Gold(text=""), url=url)


# ---------------------------------------------------------------- Hamming distance k


def _bits(n: int) -> int:
    return (1 << n) - 1  # differs from 0 in exactly n bits


@pytest.mark.parametrize("detector", [ModifiedSimhash, Simhash])
@pytest.mark.parametrize("k", [0, 3, 5])
def test_distance_k_is_a_near_duplicate_and_k_plus_1_is_not(detector, k):
    det = detector(k=k)
    base = 0b1011 << 40  # any fingerprint; flip the low bits
    at_k, past_k = base ^ _bits(k), base ^ _bits(k + 1)
    assert det.distance(base, at_k) == k and det.distance(base, past_k) == k + 1
    assert det.similar(base, at_k) and not det.similar(base, past_k)
    # the page's own blocks (match_fingerprints / match_signatures) ...
    match = getattr(det, "match_fingerprints", det.match_signatures)
    assert match([base, at_k]) == [None, 0]
    assert match([base, past_k]) == [None, None]
    # ... and blocks kept on earlier pages of the site
    assert match([at_k], seen=[base]) == [-1]
    assert match([past_k], seen=[base]) == [None]


def test_the_proposed_default_is_the_papers_k_3():
    assert ModifiedSimhash().k == 3 and Proposed().dedup_.k == 3


def test_proposed_pipeline_removes_a_block_at_distance_k(monkeypatch):
    # fingerprints of the three blocks forced to 0, 0b111 and 0b1111000: the second is at
    # distance 3 from the first (a near duplicate), the third at 4 from it (kept)
    fps = iter([[0, 0b111, 0b1111 << 3]])
    monkeypatch.setattr(ModifiedSimhash, "fingerprint_many", lambda self, lists: next(fps))
    html = (
        "<html><body><div><p>Alpha beta gamma.</p></div><div><p>Delta epsilon.</p></div>"
        "<div><p>Zeta theta iota.</p></div></body></html>"
    )
    e = Proposed(primary={"enabled": False}).extract(_page(html))
    assert [r.rule for r in e.blocks] == [None, "near_duplicate", None]
    assert e.blocks[1].duplicate_of == 0


# ---------------------------------------------------------------- Jaccard and MinHash


def test_jaccard_exactly_at_the_threshold_is_a_duplicate():
    det = Jaccard(threshold=0.8)
    five, four = frozenset("abcde"), frozenset("abcd")
    assert det.similarity(five, four) == 0.8 and det.similar(five, four)  # 4/5
    six = frozenset("abcdef")
    assert det.similarity(six, frozenset("abcdeg")) == 5 / 7  # below
    assert not det.similar(six, frozenset("abcdeg"))
    assert Jaccard(threshold=5 / 7).similar(six, frozenset("abcdeg"))


def test_minhash_estimate_exactly_at_the_threshold_is_a_duplicate():
    det = MinHash(threshold=0.8, num_perm=100)
    a = det.fingerprint("alpha beta gamma delta epsilon zeta")
    b = a.copy()
    b.hashvalues[:20] += 1  # 80 of 100 slots agree: estimate 0.8
    assert det.estimate(a, b) == 0.8 and det.similar(a, b)
    b.hashvalues[20] += 1  # 79 of 100
    assert det.estimate(a, b) == 0.79 and not det.similar(a, b)


# ---------------------------------------------------------------- block score = threshold


def test_a_block_scoring_exactly_the_threshold_is_dropped():
    # four blocks, two of them copies: t = 2 distinct / 4 blocks = 0.5. No title, no links;
    # D_content = 2 + 2 distinct terms. zebra x3 quartz x2: 1 - 0.4 * 5/4 = 0.5 = t, not
    # above it: dropped. violin x2 melon: 1 - 0.4 * 3/4 = 0.7: kept.
    a, b = "Zebra zebra zebra quartz quartz.", "Violin violin melon."
    html = (
        "<html><body>" + "".join(f"<div><p>{t}</p></div>" for t in (a, a, b, b)) + "</body></html>"
    )
    e = Proposed(primary={"enabled": False}).extract(_page(html))
    got = [(r.rule, r.scores["score"], r.scores["threshold"], r.kept) for r in e.blocks]
    assert got == [
        ("low_score", 0.5, 0.5, False),
        ("near_duplicate", None, None, False),
        (None, pytest.approx(0.7), 0.5, True),
        ("near_duplicate", None, None, False),
    ]
    assert e.text == b


# ---------------------------------------------------------------- PAB


def test_pab_outer_link_share_of_exactly_half_keeps_the_block():
    url = "https://www.example.com/a"
    half = '<p>x <a href="http://other.org/">o</a> <a href="/in">i</a></p>'
    more = (
        '<p>y <a href="http://other.org/">o</a> <a href="http://b.net/">p</a> '
        '<a href="/in">i</a></p>'
    )
    e = PAB().extract(_page(f"<html><body>{half}{more}</body></html>", url))
    assert [(r.scores["outer_link_share"], r.scores["priority"] > 0) for r in e.blocks] == [
        (0.5, True),
        (pytest.approx(2 / 3), False),
    ]
    assert e.text == "x o i"
    # the cut-off is a parameter: at 2/3 exactly the second block is kept too
    assert (
        PAB(max_outer_link_share=2 / 3)
        .extract(_page(f"<html><body>{half}{more}</body></html>", url))
        .text
        == "x o i\ny o p i"
    )


def test_pab_priority_zero_is_noise():
    # a list holds no tag of Table 3.1 (ul adds 0, li is not in the table): priority 0
    e = PAB().extract(_page("<html><body><ul><li>Menu</li></ul><p>Text.</p></body></html>"))
    assert [(r.tag, r.scores["priority"]) for r in e.blocks] == [("ul", 0.0), ("p", 0.1)]
    assert e.text == "Text."


# ---------------------------------------------------------------- CETD


CETD_PAGE = (
    '<html><body><div id="nav"><a href="/1">Home</a> <a href="/2">News</a></div>'
    '<div id="main"><p>aaaa bbbb cccc</p><p>dddd eeee ffff</p>'
    "<p>gggg hhhh iiii jjjj</p></div></body></html>"
)


def test_cetd_density_exactly_at_the_threshold_is_kept():
    stats = dom_stats(clean_tree(parse_html(CETD_PAGE)).find(".//body"))
    at = {el.get("id") or f"{el.tag}{i}": i for i, el in enumerate(stats.nodes)}
    dens = densities(stats, "td")
    sums = density_sums(stats, dens, "td")
    _, root, threshold = select_content(stats, dens, sums)
    assert root == at["main"] and threshold == dens[at["body0"]]
    assert dens[at["nav"]] < threshold  # on the page itself nav falls below: dropped
    assert select_content(stats, dens, sums)[0][at["nav"]] == 0
    # nav's density set to exactly the threshold: it reaches it, so it is content
    tied = list(dens)
    tied[at["nav"]] = threshold
    assert select_content(stats, tied, sums)[0][at["nav"]] == 1
    # a hair below (more than the float tolerance): dropped
    tied[at["nav"]] = threshold - 1e-9
    assert select_content(stats, tied, sums)[0][at["nav"]] == 0
