"""The proposed method's fast paths give exactly what the plain computations give.

Each shortcut (cached block texts, the ad-attribute screen, host suffix sets,
batched and vectorised TWC-PFM, the detector's own duplicate loop) is checked
against the straightforward computation it replaces, on inputs chosen to make
the shortcut matter.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from evalkit.core import fingerprint
from evalkit.core.domains import host_matches
from evalkit.core.method import Detector
from evalkit.core.page import parse_html
from evalkit.proposed import dedup, term_weights
from evalkit.proposed.blocks import (
    TextCache,
    block_text,
    drop_scripts,
    own_text,
    own_word_count,
    separate_blocks,
)
from evalkit.proposed.dedup import ModifiedSimhash
from evalkit.proposed.primary_markers import is_ad_marked
from evalkit.proposed.primary_tags import (
    DEFAULT_AD_HOSTS,
    DEFAULT_AD_SUBSTRINGS,
    DEFAULT_AD_TOKENS,
    apply_tag_rules,
)
from evalkit.proposed.term_weights import _pair_sums, _twc_pfm_pairs, _twc_pfm_small

PAGE = """<html><head><title>T</title></head><body>
lead text <img src="https://cdn.other.com/x.png"><b class="ad">sponsored words</b> residual
<div id="a">Story, with a comma. <span class="ad-label">Advertisement</span> more text.
  <div class="inner">Inner block, its own text.</div> tail after inner
  <p>A paragraph <iframe src="https://ads.example.net/f"></iframe> goes on.</p></div>
<div class="sidebar"><div class="banner">Buy now</div> Related: <a href="/r">one</a></div>
<td>cell <embed src="x.swf"> text</td>
<div><a href="https://facebook.com/p">f</a> <a href="https://twitter.com/p">t</a></div>
<div class="top-ad">only an ad here</div>
</body></html>"""


def test_text_cache_matches_fresh_texts_after_the_tag_rules():
    # the cache is filled at separation and invalidated by every drop: it must equal a
    # fresh computation of each surviving block's text after the rules changed the tree
    root = drop_scripts(parse_html(PAGE))
    texts = TextCache()
    blocks = separate_blocks(root, texts=texts)
    assert all(texts[b] == block_text(b) for b in blocks)
    counts = apply_tag_rules(root, blocks, page_url="https://www.example.com/a", texts=texts)
    assert counts["ad_marker"] >= 2 and counts["offsite_image"] == 1 and counts["plugin"] >= 1
    alive = [b for b in blocks if b.alive]
    assert alive and all(texts[b] == block_text(b) for b in alive)
    # the residual block (text outside every div/td) lost the ad's words too
    assert texts[blocks[0]] == "lead text residual"


def test_own_word_count_is_the_word_count_of_own_text():
    root = drop_scripts(parse_html(PAGE))
    for el in root.iter():
        if isinstance(el.tag, str):
            for tags in ((), ("div", "td")):
                assert own_word_count(el, tags) == len(own_text(el, tags).split())


def test_host_sets_match_like_the_host_list():
    hosts = ("doubleclick.net", "x.com", "plus.google.com", "t.me")
    for host in (
        "doubleclick.net",
        "ad.doubleclick.net",
        "notdoubleclick.net",
        "x.com",
        "www.x.com",
        "xx.com",
        "google.com",
        "plus.google.com",
        "a.plus.google.com",
        "t.me",
        "at.me",
        "",
        None,
        "net",
        ".doubleclick.net",
    ):
        assert host_matches(host, frozenset(hosts)) == host_matches(host, hosts), host


def test_ad_screen_changes_no_decision():
    # every element of a page of random attribute values: the screened, memoised rule
    # must drop exactly what is_ad_marked marks
    rng = random.Random(3)
    parts = [
        "ad",
        "Ad",
        "header",
        "read",
        "banner",
        "x",
        "topAd",
        "googlead",
        "main",
        "ads_box",
        "https://doubleclick.net/a",
        "https://www.example.com/ad/1",
        "load",
        "shadow",
        "dfp",
    ]
    divs = []
    for i in range(300):
        attr = rng.choice(["id", "class", "href", "src"])
        value = "-".join(rng.choice(parts) for _ in range(rng.randint(1, 3)))
        tag = "a" if attr == "href" else ("img" if attr == "src" else "span")
        divs.append(f'<div>w{i} <{tag} {attr}="{value}">t{i}</{tag}></div>')
    root = drop_scripts(parse_html("<html><body>" + "".join(divs) + "</body></html>"))
    tokens = frozenset(DEFAULT_AD_TOKENS)
    marked = [
        el
        for el in root.iter()
        if el.tag not in ("html", "head", "body")
        and is_ad_marked(el, tokens, DEFAULT_AD_SUBSTRINGS, DEFAULT_AD_HOSTS)
    ]
    assert 30 < len(marked) < 300
    blocks = separate_blocks(root)
    counts = apply_tag_rules(root, blocks, rules=["ad_marker"], ad_max_share=1.0)
    assert counts["ad_marker"] == len(marked)
    assert all(el.getparent() is None for el in marked)


def test_pair_batches_sum_like_one_bincount(monkeypatch):
    # as TWC-PFM uses it: positions permuted within chunks of 32, ranges inside one chunk,
    # each range below its q
    rng = np.random.default_rng(0)
    n, c = 320, 32
    p_at = np.concatenate([rng.permutation(np.arange(k, k + c)) for k in range(0, n, c)])
    chunk = rng.integers(0, n // c, 600)
    start = chunk * c + rng.integers(0, c, 600)
    end = np.minimum(start + rng.integers(-3, c, 600), (chunk + 1) * c)
    q = np.maximum((chunk + 1) * c + rng.integers(0, 50, 600), 1)
    lens = np.maximum(end - start, 0)
    owner = np.repeat(np.arange(len(q)), lens)
    j = np.concatenate([np.arange(a, b) for a, b in zip(start, end) if b > a])
    p = p_at[j]
    ok = (q[owner] - p) % 3 != 0
    want = np.bincount(p[ok], weights=1.0 / (q[owner][ok] - p[ok]), minlength=n)
    monkeypatch.setattr(term_weights, "_PAIR_BATCH", 97)  # many batches, cut inside ranges' runs
    got = _pair_sums(
        q,
        start,
        end,
        p_at,
        np.zeros(n),
        term_weights._pair_buffers(),
        keep=lambda qq, pp, mask: np.not_equal((qq - pp) % 3, 0, out=mask),
    )
    assert np.array_equal(got, want)  # bit for bit
    direct = term_weights._pair_sums_direct(
        q, start, end, p_at, n, keep=lambda qq, pp, mask: np.not_equal((qq - pp) % 3, 0, out=mask)
    )
    assert np.array_equal(direct, want)


@pytest.mark.parametrize("n", [250, 700, 2500])
def test_long_blocks_sum_alike_at_once_and_in_batches(monkeypatch, n):
    rng = random.Random(n)
    words = [f"w{int(rng.paretovariate(0.8))}" for _ in range(n)]
    tid = term_weights._intern(words)[1]
    at_once = term_weights._fft_weights(tid, int(tid.max()) + 1)
    monkeypatch.setattr(term_weights, "_PAIR_BATCH", 97)
    monkeypatch.setattr(term_weights, "_ITEM_BATCH", 50)
    assert np.array_equal(
        term_weights._fft_weights(tid, int(tid.max()) + 1), at_once
    )  # bit for bit


@pytest.mark.parametrize("n", [24, 57, 120, 199])
def test_vectorised_small_blocks_are_bit_identical(n):
    rng = random.Random(n)
    words = [f"w{int(rng.paretovariate(1.0))}" for _ in range(n)]
    fast, slow = _twc_pfm_pairs(words), _twc_pfm_small(words)
    assert list(fast) == list(slow)  # same terms in the same order (the fingerprint sums in it)
    assert all(fast[t] == slow[t] for t in slow)


def test_exact_weights_of_many_blocks_are_each_blocks_own():
    rng = random.Random(11)
    blocks = [
        [f"w{int(rng.paretovariate(1.0))}" for _ in range(rng.randint(1, 120))] for _ in range(25)
    ]
    tid, start, n_t, names = [], [], [], []
    for b in blocks:
        distinct = list(dict.fromkeys(b))
        index = {t: len(names) + i for i, t in enumerate(distinct)}
        start += [len(tid)] * len(b)
        tid += [index[t] for t in b]
        n_t += [len(distinct)] * len(distinct)
        names += distinct
    got = term_weights._exact_weights(np.array(tid), np.array(start), np.array(n_t)).tolist()
    want = [w for b in blocks for w in _twc_pfm_small(b).values()]
    assert got == want  # bit for bit, block by block


def reference_fingerprint(block, bits=64):
    """The definition: the pure-Python TWC-PFM weights, summed as fingerprint() sums them."""
    return dedup.fingerprint(_twc_pfm_small(block), bits) if block else None


@pytest.mark.parametrize("bits", [32, 64, 128])
def test_fingerprint_many_is_fingerprint_terms_of_each_block(bits):
    rng = random.Random(bits)
    vocab = [f"t{i}" for i in range(400)]
    lengths = [0, 1, 2, 5, 23, 24, 60, 0, 159, 160, 199, 200, 350, 3, 1200, 1600, 17, 0]
    blocks = [rng.choices(vocab, weights=[1 / (i + 1) for i in range(400)], k=n) for n in lengths]
    blocks.append(["x", "y", "y", "x"])  # equal weights: counters of exactly 0 give bit 0
    blocks.append(["x", "y", "y", "x"] * 60)  # the same, on the gap path
    blocks.append(list(blocks[4]))  # the same terms twice on a page
    det = ModifiedSimhash(bits=bits)
    want = [det.fingerprint_terms(b) for b in blocks]
    assert want == [reference_fingerprint(b, bits) for b in blocks]
    assert det.fingerprint_many(blocks) == want
    assert det.fingerprint_many([]) == []
    assert det.fingerprint_many([[], []]) == [None, None]
    assert det.fingerprint_many(blocks[11:12]) == want[11:12]  # long blocks only
    with pytest.raises(ValueError, match="bits"):
        ModifiedSimhash(bits=48).fingerprint_many(blocks)


def test_near_ties_are_redone_by_the_reference(monkeypatch):
    rng = random.Random(3)
    blocks = [rng.choices("abcdefgh", k=n) for n in (1, 2, 3, 8, 30, 170, 400)]
    blocks += [["x", "y", "y", "x"] * k for k in (1, 60)]  # exact ties, short and long
    want = [reference_fingerprint(b) for b in blocks]
    redone = []
    monkeypatch.setattr(
        dedup, "_exact_twc_pfm", lambda t: redone.append(len(t)) or _twc_pfm_small(t)
    )
    assert dedup.fingerprints(blocks) == want
    assert redone == [4, 240]  # only the ties
    redone.clear()
    monkeypatch.setattr(dedup, "_TIE_TOL", 1.0)  # every block is a near tie
    assert dedup.fingerprints(blocks) == want
    assert len(redone) == len(blocks)


@pytest.mark.parametrize("n", [160, 400, 1500])
def test_gap_weights_are_the_exact_weights(monkeypatch, n):
    monkeypatch.setattr(term_weights, "_GAP_MAX_PAIRS", 10**7)
    rng = random.Random(n)
    for kind in range(3):
        words = (
            [f"w{int(rng.paretovariate(0.8))}" for _ in range(n)]
            if kind == 0
            else [f"u{i}" for i in range(n)]
            if kind == 1
            else rng.choices("ab", k=n)
        )
        distinct, tid = term_weights._intern(words)
        prev, nxt = term_weights._links(tid)
        # links as fingerprints() hands them over: offset, none below 0 or at n and beyond
        got = term_weights._gap_weights(
            tid, len(distinct), prev - 5 * (prev < 0), nxt + 7 * (nxt == n)
        )
        want = np.array(list(_twc_pfm_small(words).values()))
        assert np.allclose(got, want, rtol=1e-13, atol=0)


def test_long_gaps_go_to_the_fft_path():
    words = ["a", "b"] * 400  # gaps of one position each: 798
    tid = term_weights._intern(words)[1]
    assert term_weights._gap_weights(tid, 2, *term_weights._links(tid)) is not None
    words = [f"u{i % 300}" for i in range(900)]  # 600 gaps of 299 positions
    tid = term_weights._intern(words)[1]
    assert term_weights._gap_weights(tid, 300, *term_weights._links(tid)) is None
    assert dedup.fingerprints([words]) == [reference_fingerprint(words)]


def test_term_table_forgets_terms_it_cannot_hash(monkeypatch):
    monkeypatch.setattr(dedup, "_TABLES", {})
    with pytest.raises(UnicodeEncodeError):
        dedup.fingerprints([["alpha", "bad\ud800"]])
    blocks = [["alpha", "beta", "alpha"], ["gamma"]]
    assert dedup.fingerprints(blocks) == [reference_fingerprint(b) for b in blocks]
    assert "bad\ud800" not in dedup._TABLES[64]


def test_term_table_is_bounded(monkeypatch):
    monkeypatch.setattr(dedup, "_TABLES", {})
    monkeypatch.setattr(dedup, "_TABLE_MAX", 50)
    rng = random.Random(9)
    for k in range(12):
        blocks = [[f"v{rng.randrange(300)}" for _ in range(rng.randint(0, 30))] for _ in range(4)]
        assert dedup.fingerprints(blocks) == [reference_fingerprint(b) for b in blocks]
        assert len(dedup._TABLES[64]) <= 50 + 120


def test_own_duplicate_loop_matches_the_generic_one():
    det = ModifiedSimhash(k=3)
    base = (
        "The council met on Monday and the vote passed nine to four after a long "
        "debate about the budget for roads, schools and the new library downtown."
    )
    texts = [
        base,
        "Home News Sport Weather",
        base.replace("Monday", "Tuesday"),
        "",
        base,
        "Completely different words about football scores and league tables today.",
    ]
    seen = [det.fingerprint("Home News Sport Weather")]
    assert det.find_duplicates(texts, seen=seen) == Detector.find_duplicates(det, texts, seen=seen)
    with pytest.raises(ValueError):
        det.find_duplicates(texts, seen=[-1])  # outside signatures are still validated


@pytest.mark.parametrize("bits", [32, 64, 128])
def test_bit_signs_are_the_hash_bits(bits):
    rng = random.Random(bits)
    hashes = [rng.getrandbits(bits) for _ in range(50)] + [0, (1 << bits) - 1]
    signs = fingerprint._bit_signs(hashes, bits)
    want = [[1.0 if (h >> k) & 1 else -1.0 for k in range(bits)] for h in hashes]
    assert signs.dtype == np.float64 and signs.flags.c_contiguous
    assert signs.tolist() == want


def test_block_paths_are_lxml_paths():
    html = (
        "<html><body><div><p>a</p><div>b</div><div>c<table><tr><td>x</td><td>y</td></tr>"
        "</table></div></div><ul>" + "<li>i</li>" * 30 + "</ul><div><span><div>d</div>"
        "</span></div><td>stray</td></body></html>"
    )
    root = drop_scripts(parse_html(html))
    tree = root.getroottree()
    blocks = separate_blocks(root)
    assert len(blocks) >= 8
    assert all(b.path == tree.getpath(b.element) for b in blocks)


def test_punctuation_counts_are_subtree_sums():
    from evalkit.proposed.primary_dom import count_punctuation, punctuation_counts

    root = drop_scripts(parse_html(PAGE))
    blocks = separate_blocks(root)
    blocks[2].remove("primary", "test", "")  # a dead block's text does not count
    body = root.find(".//body")
    counts, total = punctuation_counts(body, blocks)
    dead = blocks[2].element
    assert total == counts[body] and total > 0
    # by hand: the marks of every alive block's own text add up to the total
    assert total == sum(count_punctuation(block_text(b)) for b in blocks if b.alive)
    assert counts[dead] == sum(counts.get(c, 0) for c in dead)  # only nested blocks count
    assert count_punctuation("a, b. c; d: e! f? g") == 6


def test_needle_hits_finds_each_text_holding_a_needle_and_no_match_across_two():
    from evalkit.proposed.primary_tags import _needle_hits

    texts = ["xad", "a", "d", "bannerad", "", "ad", "ba", "nner", "sponsored by ad"]
    needles = ("ad", "banner", "sponsor")
    assert (
        _needle_hits(texts, needles)
        == {i for i, t in enumerate(texts) if any(n in t for n in needles)}
        == {0, 3, 5, 8}
    )
    assert _needle_hits([], needles) == set() and _needle_hits(texts, ()) == set()
