"""Property-based tests: decoding, parsing, units, metrics and every own method on generated input.

Under the ``ci`` profile (tests/conftest.py) Hypothesis runs derandomized (the same examples
every run) with no example database, so a failure reproduces and CI stays deterministic; the
``nightly`` profile draws 50 times as many afresh.
"""

from __future__ import annotations

import math
import re

import pytest
from fuzz import scaled  # beside the tests
from html_strategies import HTML, SENTENCES, TEXT  # beside the tests
from hydra import compose, initialize_config_dir
from hypothesis import given, settings
from hypothesis import strategies as st

import evalkit.core.align as align_mod
from evalkit import metrics
from evalkit.core.align import align_words
from evalkit.core.page import Extraction, Gold, Page, PageError, decode_html, parse_html
from evalkit.core.units import segment
from evalkit.core.visible import visible_text
from evalkit.harness.config import method_specs, register_resolvers
from evalkit.harness.registry import METHODS as METHODS_REGISTRY
from evalkit.shell.cli import CONFIG_DIR

register_resolvers()

DETERMINISTIC = settings(database=None, deadline=None, max_examples=scaled(100))

# ---------------------------------------------------------------- decoding and parsing


@DETERMINISTIC
@given(st.binary(max_size=600) | HTML.map(lambda h: h.encode("utf-8")))
def test_decode_html_never_raises_and_returns_text(raw):
    text, encoding, how = decode_html(raw)
    assert isinstance(text, str) and isinstance(encoding, str) and how


@DETERMINISTIC
@given(st.text(max_size=300) | st.binary(max_size=300) | HTML)
def test_parse_html_raises_only_page_error(doc):
    try:
        root = parse_html(doc, source="gen.html")
    except PageError as exc:
        assert str(exc).startswith("gen.html: ")
    else:
        assert root.tag == "html"


# ---------------------------------------------------------------- units


_SPACE = re.compile(r"\s+")


@DETERMINISTIC
@given(HTML)
def test_units_hold_exactly_the_visible_text(html):
    # segment breaks at every tag but <a>, visible_text only at block tags, so compare the
    # characters with white space removed: nothing is lost, nothing doubled, order kept
    root = parse_html(html)
    units = segment(root)
    joined = "".join(u.text for u in units)
    assert _SPACE.sub("", joined) == _SPACE.sub("", visible_text(parse_html(html)))
    assert all(u.n_words == len(u.text.split()) > 0 for u in units)
    assert all(0 <= u.n_link_words <= u.n_words for u in units)
    assert [u.index for u in units] == list(range(len(units)))


# ---------------------------------------------------------------- metrics

_TOKENS = st.lists(st.sampled_from(["a", "b", "c", "d", "e", "Ab", "é"]), max_size=25)
_PROSE = _TOKENS.map(" ".join)


def _lcs_dp(a, b):
    row = [0] * (len(b) + 1)
    for x in a:
        prev_diag = 0
        for j, y in enumerate(b, 1):
            prev_diag, row[j] = row[j], prev_diag + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


def _unit_interval(value):
    return math.isnan(value) or 0.0 <= value <= 1.0


@DETERMINISTIC
@given(_PROSE, _PROSE, _TOKENS)
def test_every_text_metric_is_a_share_with_the_empty_rules(pred, gold, page_words):
    out = metrics.page_text_metrics(pred, gold, page_words + pred.split() + gold.split())
    for key, value in out.items():
        if key.endswith(("precision", "recall", "f1", "accuracy", "similarity")):
            assert _unit_interval(value), (key, value)
        else:  # kaur counts
            assert value >= 0 and value == int(value)
    # edit similarity: 1 for two empty texts, 0 when one is empty
    if not pred.split() or not gold.split():
        assert out["edit_similarity"] == float(not pred.split() and not gold.split())
    for fam in ("word", "lcs", "shingle", "rouge_lsum"):
        if not pred.split() and not gold.split():
            assert out[f"{fam}_f1"] == 1.0
            assert math.isnan(out[f"{fam}_precision"]) and math.isnan(out[f"{fam}_recall"])
        elif not pred.split() or not gold.split():
            assert out[f"{fam}_f1"] == 0.0
        else:
            assert not math.isnan(out[f"{fam}_f1"])
    assert out["kaur_tp"] + out["kaur_fp"] + out["kaur_fn"] + out["kaur_tn"] == len(
        page_words + pred.split() + gold.split()
    )


@DETERMINISTIC
@given(_TOKENS, _TOKENS)
def test_word_f1_and_lcs_are_symmetric_and_lcs_is_exact(a, b):
    assert metrics.word_prf(a, b).f1 == metrics.word_prf(b, a).f1
    assert metrics.word_prf(a, b).precision == metrics.word_prf(b, a).recall or not (a and b)
    n = metrics.lcs_length(a, b)
    assert n == metrics.lcs_length(b, a) == _lcs_dp(a, b)
    assert metrics.lcs_prf(a, b).f1 == metrics.lcs_prf(b, a).f1
    # LCS never beats the bag of words (a common subsequence is a common sub-multiset)
    assert n <= metrics.word_counts(a, b)[0]


@DETERMINISTIC
@given(_TOKENS, _TOKENS)
def test_align_words_with_prefix_trimming_is_still_an_exact_lcs(a, b):
    old = align_mod._TRIM_ABOVE
    align_mod._TRIM_ABOVE = 0  # the long-page path, on short inputs
    try:
        hits = align_words(a, b)
    finally:
        align_mod._TRIM_ABOVE = old
    assert sum(hits) == _lcs_dp(a, b)
    it = iter(b)  # the matched words of a, in order, are a subsequence of b
    assert all(any(w == x for x in it) for w, h in zip(a, hits) if h)


@DETERMINISTIC
@given(
    st.lists(st.booleans(), max_size=20).flatmap(
        lambda g: st.tuples(
            st.just(g),
            st.lists(st.booleans(), min_size=len(g), max_size=len(g)),
            st.lists(st.integers(0, 50), min_size=len(g), max_size=len(g)),
        )
    )
)
def test_unit_confusion_partitions_the_words(case):
    gold, kept, weights = case
    conf = metrics.unit_confusion(gold, kept, weights)
    assert sum(conf) == sum(weights)
    assert conf.tp == sum(w for g, k, w in zip(gold, kept, weights) if g and k)
    scores = metrics.unit_scores([conf, conf])
    assert all(_unit_interval(v) for k, v in scores.items() if k != "n_pages")
    assert scores["f1_micro_words"] == pytest.approx(metrics.confusion_scores(*conf)["f1"])


_PAIRS = st.lists(
    st.tuples(st.integers(0, 7), st.integers(0, 7)).filter(lambda p: p[0] != p[1]), max_size=12
)


@DETERMINISTIC
@given(_PAIRS, _PAIRS)
def test_pair_metrics(pred, true):
    prf = metrics.pair_prf(pred, true)
    assert all(_unit_interval(v) for v in prf)
    flipped = metrics.pair_prf([(b, a) for a, b in pred], true)  # pairs are unordered
    assert flipped == prf or all(map(math.isnan, (flipped.precision, prf.precision)))
    assert metrics.pair_prf(pred, true).f1 == metrics.pair_prf(true, pred).f1
    acc = metrics.exact_set_accuracy(pred, true, 8)
    assert _unit_interval(acc) and metrics.exact_set_accuracy(true, true, 8) == 1.0
    if {tuple(sorted(p)) for p in pred} == {tuple(sorted(p)) for p in true}:
        assert acc == 1.0 and prf.f1 == 1.0


@DETERMINISTIC
@given(st.lists(st.lists(st.integers(0, 9), max_size=4), max_size=4))
def test_pairs_from_groups_counts_k_choose_2(groups):
    pairs = metrics.pairs_from_groups(groups)
    assert all(a < b for a, b in pairs)
    if all(set(g).isdisjoint(h) for i, g in enumerate(groups) for h in groups[i + 1 :]):
        assert len(pairs) == sum(len(set(g)) * (len(set(g)) - 1) // 2 for g in groups)


# ---------------------------------------------------------------- every own method

from conftest import OWN as _OWN
from conftest import extract_or_expected

#: every own method config (derived from configs/method/ and the registry: tests/conftest.py)
OWN = list(_OWN)
DETECTORS = ["jaccard", "minhash", "simhash", "modified_simhash"]


def _own_methods():
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(config_name="config", overrides=[f"method=[{','.join(OWN)}]"])
    # site scope carries fingerprints from one generated page to the next
    site = ("proposed@site", METHODS_REGISTRY.create("proposed", dedup={"scope": "site"}))
    return [(spec.label, spec.build()) for spec in method_specs(cfg.method)] + [site]


def _detectors():
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(config_name="config", overrides=[f"detector=[{','.join(DETECTORS)}]"])
    return [(spec.label, spec.build()) for spec in method_specs(cfg.detector, kind="detector")]


METHODS = _own_methods()
_DETECTORS = _detectors()


@DETERMINISTIC
@given(HTML, _PROSE)
def test_every_own_method_extracts_generated_html(html, gold):
    for label, method in METHODS:
        page = Page(
            id="gen",
            dataset="gen",
            raw=html.encode("utf-8"),
            gold=Gold(text=gold),
            source="gen.html",
        )
        ext = extract_or_expected(method, page)  # no exception but a documented one
        if ext is None:
            continue
        assert isinstance(ext, Extraction) and isinstance(ext.text, str), label
        assert ext.error is None, (label, ext.error)


_BLOCK_TEXTS = st.lists(st.one_of(TEXT, SENTENCES, st.just(""), st.text(max_size=40)), max_size=12)


@DETERMINISTIC
@given(_BLOCK_TEXTS, _BLOCK_TEXTS)
def test_every_detector_matches_generated_blocks(texts, earlier):
    # an exact copy of an earlier block is always found; every match points back
    for label, det in _DETECTORS:
        seen = [s for s in map(det.fingerprint, earlier) if s is not None]
        blocks = texts + texts  # the second half repeats the first
        out = det.find_duplicates(blocks, seen=seen)
        assert len(out) == len(blocks), label
        for i, m in enumerate(out):
            assert m is None or (0 <= m < i) or (-len(seen) <= m < 0), (label, i, m)
            if m is not None and m >= 0:
                assert out[m] is None, (label, "a match points at a kept block")
        for i, text in enumerate(texts):
            if det.fingerprint(text) is not None:
                assert out[len(texts) + i] is not None, (label, text)
