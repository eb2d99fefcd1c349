"""The readings of stages 1.1-1.3 as settings (docs/readings.md): each non-default value on a
small page worked by hand, the defaults equal to the paths they leave alone, and each bad
value named by its dotted key."""

from __future__ import annotations

import random
from fractions import Fraction as F

import lxml.html
import pytest

from evalkit.core.method import Detector
from evalkit.core.page import Gold, Page
from evalkit.core.validate import ParamError
from evalkit.proposed.blocks import separate_blocks
from evalkit.proposed.dedup import ModifiedSimhash, fingerprint, match_ordered
from evalkit.proposed.pipeline import Proposed
from evalkit.proposed.primary_dom import (
    apply_min_subtree,
    apply_punctuation,
    content_root,
    count_characters,
    count_punctuation,
)
from evalkit.proposed.stages import make_stage
from evalkit.proposed.term_weights import twc_pfm, twc_pfm_nearest

ONLY_BLOCKS = {
    "primary": {"enabled": False},
    "dedup": {"enabled": False},
    "scoring": {"enabled": False},
}


def page(html: str) -> Page:
    return Page(
        id="p", dataset="t", raw=html.encode(), gold=Gold(text=""), url="https://www.example.com/a"
    )


def extract(html: str, **groups):
    return Proposed(**{**ONLY_BLOCKS, **groups}).extract(page(html))


# -- stage 1.1 -------------------------------------------------------------------------------

NESTED = (
    "<html><body>Loose text, here. <div id=o>Outer words, one. <div id=i>Inner words, "
    "two. <a href=x>link</a></div> tail, three.</div></body></html>"
)


def test_nested_text_subtree_counts_inner_text_in_both_blocks():
    own = extract(NESTED)
    assert own.text == ("Loose text, here.\nOuter words, one. tail, three.\nInner words, two. link")
    assert [(b.tag, b.words) for b in own.blocks] == [("body", 3), ("div", 5), ("div", 4)]
    sub = extract(NESTED, blocks={"nested_text": "subtree"})
    # the outer div's text is its whole subtree (the inner div starts a line); the inner
    # div's is unchanged, the residual block keeps the body's own text
    assert sub.text == (
        "Loose text, here.\nOuter words, one. Inner words, two. link tail, "
        "three.\nInner words, two. link"
    )
    assert [(b.tag, b.words) for b in sub.blocks] == [("body", 3), ("div", 9), ("div", 4)]


def test_nested_text_subtree_gives_the_outer_block_the_inner_links_and_a_wrapper_text():
    # a wrapper div with no text of its own is an empty block under own, not under subtree
    html = (
        "<html><body><div id=w><div>First paragraph, with text.</div>"
        "<div>Second one, <a href=/x>a link here</a>.</div></div></body></html>"
    )
    on = {"primary": {"rule_min_subtree": False, "rule_punctuation": False}}
    own = Proposed(**{**ONLY_BLOCKS, **on}).extract(page(html))
    assert [(b.words, b.kept, b.rule) for b in own.blocks] == [
        (0, False, "empty"),
        (4, True, None),
        (5, True, None),
    ]
    sub = Proposed(**{**ONLY_BLOCKS, **on, "blocks": {"nested_text": "subtree"}}).extract(
        page(html)
    )
    assert [(b.words, b.kept) for b in sub.blocks] == [(9, True), (4, True), (5, True)]
    # stage 1.4's link words of the wrapper are those of its nested blocks
    from evalkit.proposed.pipeline import _anchor_texts

    m = Proposed(
        blocks={"nested_text": "subtree"},
        primary={"enabled": False},
        dedup={"enabled": False},
        scoring={"enabled": False},
    )
    seen = {}
    m._score = lambda alive, texts, title, n, tags, bt, index, n_p, nested: seen.update(
        own=_anchor_texts(alive, index, tags), sub=_anchor_texts(alive, index, tags, nested)
    )
    m.scoring_.enabled = True
    m.extract(page(html))
    assert seen == {"own": {2: "a link here"}, "sub": {0: "a link here", 2: "a link here"}}


def test_residual_block_false_drops_loose_text_and_its_count():
    with_residual = extract(NESTED)
    without = extract(NESTED, blocks={"residual_block": False})
    assert with_residual.info["n_blocks"] == 3 and without.info["n_blocks"] == 2
    assert without.text == "Outer words, one. tail, three.\nInner words, two. link"
    assert [b.path for b in without.blocks] == ["/html/body/div", "/html/body/div/div"]
    # a body without div/td: one residual block, or none at all
    assert extract("<html><body><p>Only text, here.</p></body></html>").text == "Only text, here."
    bare = extract(
        "<html><body><p>Only text, here.</p></body></html>", blocks={"residual_block": False}
    )
    assert (bare.text, bare.info["n_blocks"]) == ("", 0)


def test_residual_block_false_changes_the_threshold_of_stage_4():
    # stage 1.3 drops the second copy; the threshold is distinct blocks / stage-1 blocks:
    # 2/3 with the residual block, 1/2 without it
    html = (
        "<html><body>Loose words here. <div>Alpha beta gamma, delta.</div>"
        "<div>Alpha beta gamma, delta.</div></body></html>"
    )
    a = Proposed(primary={"enabled": False}).extract(page(html))
    b = Proposed(primary={"enabled": False}, blocks={"residual_block": False}).extract(page(html))
    assert [x.scores["threshold"] for x in a.blocks] == [2 / 3, 2 / 3, None]
    assert [x.scores["threshold"] for x in b.blocks] == [1 / 2, None]


# -- stage 1.2 -------------------------------------------------------------------------------

ROOTS = (
    "<html><body><div id=a>menu item menu item menu item menu item menu item menu item "
    "menu item menu item menu item menu item</div><div id=b>Yes, no. Maybe; so: ok! "
    "Why?</div></body></html>"
)


def test_coverage_by_characters_moves_the_content_root_to_the_longest_text():
    root = lxml.html.fromstring(ROOTS)
    blocks = separate_blocks(root)
    body = root.find(".//body")
    # punctuation: div b holds all 6 marks; characters: div a holds 80 of the 104
    # non-white-space characters ("menuitem" x 10 = 80 letters, b's 23), >= 0.75
    assert count_characters("Yes, no. Maybe; so: ok! Why?") == 23
    m, n, total = content_root(body, blocks)
    assert (m.get("id"), n, total) == ("b", 6, 6)
    m, n, total = content_root(body, blocks, 0.75, coverage_by="characters")
    assert (m.get("id"), n, total) == ("a", 80, 103)
    m, inside = apply_min_subtree(root, blocks, coverage=0.75, coverage_by="characters")
    assert [b.element.get("id") for b in inside] == ["a"]
    (gone,) = [b for b in blocks if not b.alive]
    assert gone.element.get("id") == "b" and gone.reason.endswith("(80/103 characters)")


def test_punctuation_marks_counts_only_the_given_marks():
    text = "Is this a question? Yes! It is: one; two"
    assert count_punctuation(text) == 4 and count_punctuation(text, ",.") == 0
    assert count_punctuation("a, b. c; d", ",.") == 2
    long = "<div>" + text + " and more words to pass the short text limit of the rule</div>"
    html = f"<html><body>{long}<div>Plain, ordinary text with a period, here and there.</div>"
    for marks, kept in ((",.;:!?", [True, True]), (",.", [False, True])):
        blocks = separate_blocks(lxml.html.fromstring(html + "</body></html>"))
        assert apply_punctuation(blocks, marks=marks) == kept.count(False)
        assert [b.alive for b in blocks] == kept
    # the content root counts the same marks: with comma and period only, the question
    # block holds none of them
    root = lxml.html.fromstring(html + "</body></html>")
    blocks = separate_blocks(root)
    assert content_root(root.find(".//body"), blocks, marks=",.")[1:] == (3, 3)
    # through the stage: the question block goes with ",." and stays with the default
    for marks, rules in ((",.;:!?", [None, None]), (",.", ["punctuation", None])):
        e = Proposed(
            primary={"punctuation_marks": marks, "rule_min_subtree": False},
            dedup={"enabled": False},
            scoring={"enabled": False},
        ).extract(page(html + "</body></html>"))
        assert [b.rule for b in e.blocks] == rules


# -- stage 1.3 -------------------------------------------------------------------------------


def same3(a: int, b: int) -> bool:
    return (a ^ b).bit_count() <= 3


def test_compare_with_all_follows_a_chain():
    # A~B at 3 bits, B~C at 3 bits, A and C 6 bits apart
    a, b, c = 0b000000, 0b000111, 0b111111
    assert (same3(a, b), same3(b, c), same3(a, c)) == (True, True, False)
    sigs = [a, b, c]
    assert match_ordered(sigs, same3, order=[0, 1, 2]) == [None, 0, None]
    assert match_ordered(sigs, same3, order=[0, 1, 2], compare_with="all") == [None, 0, 1]
    # taken from the end (duplicate_keeps=last): C stays, B goes as C's, A is 6 bits from C
    assert match_ordered(sigs, same3, order=[2, 1, 0]) == [None, 2, None]
    assert match_ordered(sigs, same3, order=[2, 1, 0], compare_with="all") == [1, 2, None]


def test_match_ordered_in_document_order_is_the_detectors_matching():
    class Bits(Detector):
        def similar(self, x, y):
            return same3(x, y)

    rng = random.Random(7)
    for _ in range(200):
        sigs = [rng.choice([None, *range(64)]) for _ in range(rng.randrange(0, 9))]
        seen = [rng.randrange(64) for _ in range(rng.randrange(0, 3))]
        assert match_ordered(
            sigs, same3, order=list(range(len(sigs))), seen=seen, similar=same3
        ) == Bits().match_signatures(sigs, seen)


PAIR = (
    "<html><body><div>{}</div><div>Something else entirely, about gardens and "
    "roses.</div><div>{}</div></body></html>"
)
SHORT = "The quick brown fox jumps over the lazy dog."
LONG = "The quick brown fox jumps over the lazy dog, and then it was over."  # + stop words


def _dedup(html: str, **dedup):
    e = Proposed(primary={"enabled": False}, scoring={"enabled": False}, dedup=dedup).extract(
        page(html)
    )
    return [(b.kept, b.duplicate_of) for b in e.blocks]


def test_duplicate_keeps_first_last_longest():
    # "and", "then", "it", "was", "over" are stop words: the two texts have the same terms
    # (distance 0), the second has more words
    short_first = PAIR.format(SHORT, LONG)
    assert _dedup(short_first) == [(True, None), (True, None), (False, 0)]
    assert _dedup(short_first, duplicate_keeps="last") == [(False, 2), (True, None), (True, None)]
    assert _dedup(short_first, duplicate_keeps="longest") == [
        (False, 2),
        (True, None),
        (True, None),
    ]
    long_first = PAIR.format(LONG, SHORT)
    assert _dedup(long_first, duplicate_keeps="longest") == [(True, None), (True, None), (False, 0)]
    # a tie in length keeps the first
    same = PAIR.format(SHORT, SHORT)
    assert _dedup(same, duplicate_keeps="longest") == [(True, None), (True, None), (False, 0)]
    # another detector takes the same orders
    assert _dedup(short_first, duplicate_keeps="last", detector=ModifiedSimhash(k=3)) == [
        (False, 2),
        (True, None),
        (True, None),
    ]


def test_proximity_nearest_on_the_papers_block():
    # terms a b c d a b a c a b d (positions 1-11). For every occurrence p of t and every
    # other term, its first occurrence q after p counts 1/(q-p), even when t recurs first.
    # a: p=1: b2 1/1, c3 1/2, d4 1/3 | p=5: b6 1/1, c8 1/3, d11 1/6
    #    | p=7: c8 1/1, b10 1/3, d11 1/4 | p=9: b10 1/1, d11 1/2 (no c after 9)
    sum_a = (
        F(1)
        + F(1, 2)
        + F(1, 3)
        + F(1)
        + F(1, 3)
        + F(1, 6)
        + F(1)
        + F(1, 3)
        + F(1, 4)
        + F(1)
        + F(1, 2)
    )
    # b: p=2: c3 1/1, d4 1/2, a5 1/3 | p=6: a7 1/1, c8 1/2, d11 1/5 | p=10: d11 1/1
    sum_b = F(1) + F(1, 2) + F(1, 3) + F(1) + F(1, 2) + F(1, 5) + F(1)
    # c: p=3: d4 1/1, a5 1/2, b6 1/3 | p=8: a9 1/1, b10 1/2, d11 1/3 (as the pointer rule)
    sum_c = F(1) + F(1, 2) + F(1, 3) + F(1) + F(1, 2) + F(1, 3)
    # d: p=4: a5 1/1, b6 1/2, c8 1/4 | p=11: nothing follows (as the pointer rule)
    sum_d = F(1) + F(1, 2) + F(1, 4)
    assert (sum_a, sum_b, sum_c, sum_d) == (F(77, 12), F(68, 15), F(11, 3), F(7, 4))
    want = {
        t: (f + s) / 2 / 4
        for t, f, s in (("a", 4, sum_a), ("b", 3, sum_b), ("c", 2, sum_c), ("d", 2, sum_d))
    }
    assert want == {"a": F(125, 96), "b": F(113, 120), "c": F(17, 24), "d": F(15, 32)}
    block = ["a", "b", "c", "d", "a", "b", "a", "c", "a", "b", "d"]
    got = twc_pfm(block, "nearest")
    assert got == twc_pfm_nearest(block) and set(got) == set(want)
    for t, w in want.items():
        assert got[t] == pytest.approx(float(w), rel=0, abs=1e-12)
    # the pointer rule gives a and b less (16/3 and 13/3), c and d the same
    pointer = twc_pfm(block)
    assert pointer["a"] == pytest.approx(7 / 6) and pointer["b"] == pytest.approx(11 / 12)
    assert pointer["c"] == pytest.approx(got["c"]) and pointer["d"] == pytest.approx(got["d"])
    assert twc_pfm_nearest([]) == {} and twc_pfm_nearest(["x"]) == {"x": 0.5}
    assert twc_pfm_nearest(["a", "a", "b"]) == {"a": (2 + 1 / 2 + 1) / 4, "b": 1 / 4}
    with pytest.raises(ValueError, match="proximity must be one of"):
        twc_pfm(block, "far")


def test_proximity_nearest_fingerprints_through_the_detector_and_the_stage():
    rng = random.Random(3)
    blocks = [[f"t{rng.randrange(40)}" for _ in range(n)] for n in (0, 5, 30, 250)]
    det = ModifiedSimhash(proximity="nearest").validate()
    want = [fingerprint(twc_pfm_nearest(t)) if t else None for t in blocks]
    assert det.fingerprint_many(blocks) == want
    assert [det.fingerprint_terms(t) for t in blocks] == want
    assert want != ModifiedSimhash().fingerprint_many(blocks)  # the readings differ here
    stage = make_stage("dedup", {"proximity": "nearest"})
    assert stage.detector_.proximity == "nearest"
    assert stage.resolved_params()["detector_params"]["proximity"] == "nearest"


# -- the settings ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("group", "key", "value", "message"),
    [
        ("blocks", "nested_text", "all", "must be one of own, subtree"),
        ("blocks", "residual_block", "yes", "must be true or false"),
        ("primary", "coverage_by", "words", "must be one of punctuation, characters"),
        ("primary", "punctuation_marks", "ab", "must be a string of distinct punctuation"),
        ("primary", "punctuation_marks", ",,", "must be a string of distinct punctuation"),
        ("primary", "punctuation_marks", "", "must be a string of distinct punctuation"),
        ("dedup", "duplicate_keeps", "shortest", "must be one of first, last, longest"),
        ("dedup", "compare_with", "none", "must be one of kept, all"),
        ("dedup", "proximity", "far", "must be one of pointer, nearest"),
    ],
)
def test_each_bad_value_is_named_by_its_dotted_key(group, key, value, message):
    with pytest.raises(ParamError, match=f"^{group}.{key}=.*: {message}"):
        Proposed(**{group: {key: value}})


def test_proximity_belongs_to_the_modified_simhash():
    with pytest.raises(
        ParamError, match="^dedup.proximity=nearest: is a setting of the modified simhash"
    ):
        Proposed(dedup={"proximity": "nearest", "detector": "jaccard"})


def test_the_defaults_are_the_readings_of_before():
    m = Proposed()
    assert (m.blocks_.nested_text, m.blocks_.residual_block) == ("own", True)
    assert (m.primary_.coverage_by, m.primary_.punctuation_marks) == ("punctuation", ",.;:!?")
    assert (m.dedup_.duplicate_keeps, m.dedup_.compare_with, m.dedup_.proximity) == (
        "first",
        "kept",
        "pointer",
    )
