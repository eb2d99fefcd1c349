"""Stage 1.4 of the proposed method: Table 4 from its counts, and every reading of §3.4 worked by
hand on a two-block page (tests/test_table4.py checks the presets against Table 4)."""

from __future__ import annotations

import pytest

from evalkit.core.page import Gold, Page
from evalkit.proposed import scoring
from evalkit.proposed.pipeline import Proposed
from evalkit.proposed.scoring import (
    BlockCounts,
    BlockInputs,
    PageInputs,
    Reading,
    block_scores,
    score_page,
    threshold,
    validate_weights,
)

# Table 4 (Saravanan & Sathya Bama 2020): block, total words, title words, link words,
# distinct words; content words = total - title - link. Page: 12 distinct title words,
# 9 distinct link words, D_content = 227 = sum of the distinct-word column.
TABLE4 = {
    "b2": (46, 7, 0, 28),
    "b3": (40, 0, 4, 25),
    "b6": (33, 0, 0, 27),
    "b8": (69, 7, 7, 33),
    "b11": (68, 10, 6, 42),
    "b12": (36, 0, 0, 36),
    "b13": (41, 0, 0, 36),
}
TABLE4_SCORES = {
    "b2": 0.756,
    "b3": 0.803,
    "b6": 0.942,
    "b8": 0.495,
    "b11": 0.458,
    "b12": 0.937,
    "b13": 0.928,
}
TABLE4_CONTENT = {"b2": 39, "b3": 36, "b6": 33, "b8": 55, "b11": 52, "b12": 36, "b13": 41}


def test_table4_scores_threshold_and_dropped_blocks():
    counts = [BlockCounts(*TABLE4[b]) for b in TABLE4]
    assert [c.content_count for c in counts] == list(TABLE4_CONTENT.values())
    d_content = sum(c.n_distinct for c in counts)
    assert d_content == 227
    scores = block_scores(counts, d_title=12, d_link=9, d_content=d_content)
    assert [round(s, 3) for s in scores] == list(TABLE4_SCORES.values())
    t = threshold(n_distinct=7, n_blocks=14)
    assert t == 0.5
    dropped = [b for b, s in zip(TABLE4, scores) if not s > t]
    assert dropped == ["b8", "b11"]
    # b2 by hand: 1 - (0.3 * 7/12 + 0.3 * 0 + 0.4 * 39/227)
    assert scores[0] == pytest.approx(1 - (0.3 * 7 / 12 + 0.4 * 39 / 227), abs=1e-15)


# A two-block page worked by hand. Title terms {data, mine}.
# A: data mine evalu link data click evalu, anchors "data click" ("data" is a title word, so
#    only "click" is a link word); 5 distinct terms; heading "evalu".
# B: click news news mine, anchor "news"; 3 distinct terms.
# Page link terms {click, news}; 4 blocks after stage 1, 3 after stage 2, 2 scored: t = 0.5.
A = BlockInputs(
    terms=("data", "mine", "evalu", "link", "data", "click", "evalu"),
    anchor_terms=("data", "click"),
    heading_terms=("evalu",),
)
B = BlockInputs(terms=("click", "news", "news", "mine"), anchor_terms=("news",))
PAGE = PageInputs(blocks=(A, B), title_terms=("data", "mine"), n_blocks_stage1=4, n_blocks_stage2=3)


def _counts(out):
    return [
        (c.n_terms, c.title_count, c.link_count, c.content_count, c.n_distinct) for c in out.counts
    ]


def test_literal_reading_by_hand():
    out = score_page(Reading(), PAGE)
    # A: 3 title occurrences (data, mine, data), 1 link (click), 7 - 3 - 1 = 3 content
    # B: 1 title (mine), 1 link (news), 2 content (click, the other news)
    assert _counts(out) == [(7, 3, 1, 3, 5), (4, 1, 1, 2, 3)]
    assert (out.d_title, out.d_link, out.d_content) == (2, 2, 5 + 3)
    assert out.t_w == (1.5, 0.5) and out.l_w == (0.5, 0.5) and out.c_w == (3 / 8, 2 / 8)
    # A: 1 - (0.3 * 1.5 + 0.3 * 0.5 + 0.4 * 0.375) = 0.25; B: 1 - (0.15 + 0.15 + 0.1) = 0.6
    assert out.scores == pytest.approx((0.25, 0.6), abs=1e-15)
    assert out.threshold == 0.5 and out.kept == (False, True) and out.fallback is None


def test_distinct_title_and_link_counts_and_the_content_count_readings():
    out = score_page(Reading(title_count="distinct", link_count="distinct"), PAGE)
    # A: distinct title words {data, mine} = 2, link {click} = 1; remainder 7 - 2 - 1 = 4
    assert _counts(out) == [(7, 2, 1, 4, 5), (4, 1, 1, 2, 3)]
    occ = score_page(Reading(title_count="distinct", content_count="occurrences"), PAGE)
    assert [c.content_count for c in occ.counts] == [3, 2]  # evalu link evalu; click news
    dis = score_page(Reading(content_count="distinct"), PAGE)
    assert [c.content_count for c in dis.counts] == [2, 2]  # {evalu, link}; {click, news}


def test_page_link_scope_counts_every_occurrence_of_a_page_link_term():
    out = score_page(Reading(link_scope="page"), PAGE)
    # B: click news news are all link terms of the page -> 3 link words, 0 content
    assert _counts(out) == [(7, 3, 1, 3, 5), (4, 1, 3, 0, 3)]
    out = score_page(Reading(link_scope="page", link_count="distinct"), PAGE)
    assert [c.link_count for c in out.counts] == [1, 2]


def test_title_words_from_headings():
    out = score_page(Reading(title_source="headings"), PAGE)
    # title vocabulary {evalu}: A has it twice; links now data and click, B's mine is content
    assert out.d_title == 1 and out.d_link == 3  # {data, click, news}
    assert _counts(out) == [(7, 2, 2, 3, 5), (4, 0, 1, 3, 3)]


def test_page_distinct_content_denominator():
    out = score_page(Reading(content_denominator="page_distinct"), PAGE)
    assert out.d_content == 4  # {evalu, link} | {click, news}
    assert out.c_w == (3 / 4, 2 / 4)


def test_content_weight_readings():
    pseudo = score_page(Reading(content_weight="pseudocode"), PAGE)
    assert pseudo.scores[0] == pytest.approx(1 - (0.45 + 0.15 + 0.3 * 0.4 * 0.375))
    eq7 = score_page(Reading(content_weight="eq7_literal"), PAGE)
    # Eq. 7's ratio becomes T_w, C_w is 0: A: 1 - (0.3 * 0.375 + 0.3 * 0.5)
    assert eq7.t_w == (3 / 8, 2 / 8) and eq7.c_w == (0.0, 0.0)
    assert eq7.scores[0] == pytest.approx(1 - (0.3 * 0.375 + 0.3 * 0.5))


def test_bounds():
    out = score_page(Reading(bound="ratios"), PAGE)
    assert out.t_w == (1.0, 0.5)  # A's 3/2 clipped
    assert out.scores[0] == pytest.approx(1 - (0.3 + 0.15 + 0.15))
    # one block: C_w = 6/2 = 3, literal score 1 - 1.2 = -0.2
    one = PageInputs(
        blocks=(BlockInputs(terms=("x", "y") * 3),),
        title_terms=(),
        n_blocks_stage1=2,
        n_blocks_stage2=2,
    )
    assert score_page(Reading(), one).scores[0] == pytest.approx(-0.2)
    assert score_page(Reading(bound="score"), one).scores[0] == 0.0
    assert score_page(Reading(bound="ratios"), one).scores[0] == pytest.approx(0.6)


def test_threshold_blocks_and_what_is_kept_when_none_passes():
    out = score_page(Reading(threshold_blocks="stage2"), PAGE)
    assert out.threshold == 2 / 3 and out.kept == (False, False) and out.fallback is None
    best = score_page(Reading(threshold_blocks="stage2", if_none_pass="best"), PAGE)
    assert best.kept == (False, True) and best.fallback == "best"
    everything = score_page(Reading(threshold_blocks="stage2", if_none_pass="all"), PAGE)
    assert everything.kept == (True, True) and everything.fallback == "all"
    # a fallback never applies to a page with no scored block
    empty = PageInputs(blocks=(), title_terms=(), n_blocks_stage1=3, n_blocks_stage2=0)
    assert score_page(Reading(if_none_pass="all"), empty).kept == ()


def test_best_fallback_takes_the_first_of_equal_scores():
    same = PageInputs(
        blocks=(BlockInputs(("a", "b")), BlockInputs(("c", "d"))),
        title_terms=(),
        n_blocks_stage1=2,
        n_blocks_stage2=2,
    )  # t = 1; both score 0.8
    assert score_page(Reading(if_none_pass="best"), same).kept == (True, False)


def test_a_score_equal_to_the_threshold():
    # weights exact in binary: Y scores 1 - 0.5 * 4/4 = 0.5 = t = 2/4, Z 1 - 0.5 * 3/4
    page = PageInputs(
        blocks=(BlockInputs(("a",) * 4), BlockInputs(("b", "c", "d"))),
        title_terms=(),
        n_blocks_stage1=4,
        n_blocks_stage2=4,
    )
    w = {"alpha": 0.25, "beta": 0.25, "gamma": 0.5}
    assert score_page(Reading(**w), page).scores == (0.5, 0.625)
    assert score_page(Reading(**w), page).kept == (False, True)
    assert score_page(Reading(**w, comparison="ge"), page).kept == (True, True)


def test_zero_denominators_give_zero_weight():
    assert block_scores([BlockCounts(5, 0, 0, 3)], 0, 0, 0) == [1.0]


@pytest.mark.parametrize(
    "alpha,beta,gamma,msg",
    [
        (0.4, 0.3, 0.3, "alpha <= beta <= gamma"),
        (0.3, 0.4, 0.2, "alpha <= beta <= gamma"),
        (0.2, 0.3, 0.4, "sum to 1"),
        (-0.1, 0.5, 0.6, ">= 0"),
    ],
)
def test_weight_validation(alpha, beta, gamma, msg):
    with pytest.raises(ValueError, match=msg):
        validate_weights(alpha, beta, gamma)
    with pytest.raises(ValueError, match=msg):
        block_scores([BlockCounts(1, 0, 0, 1)], 1, 1, 1, alpha, beta, gamma)
    with pytest.raises(ValueError, match=msg):
        Reading(alpha=alpha, beta=beta, gamma=gamma)


@pytest.mark.parametrize("field", list(scoring.READING_CHOICES))
def test_reading_refuses_an_unknown_value_naming_the_field(field):
    with pytest.raises(ValueError, match=rf"^{field}=bogus: must be one of "):
        Reading(**{field: "bogus"})


def test_reading_changes_lists_what_differs_from_the_literal_reading():
    assert Reading().changes() == {}
    assert Reading(bound="ratios", alpha=0.25, beta=0.25, gamma=0.5).changes() == {
        "alpha": 0.25,
        "beta": 0.25,
        "gamma": 0.5,
        "bound": "ratios",
    }


def test_threshold_no_blocks():
    assert threshold(0, 0) == 0.0
    assert threshold(3, 12) == 0.25


HTML = """<html><head><title>Data mining</title></head><body>
<div id="nav"><a href="/">Home</a> <a href="/a">About</a></div>
<div class="main"><h2>Cluster evaluation</h2><p>Evaluation of clusters, by purity, entropy and the
rand index, is the subject here. <a href="/m">Read more measures</a>.</p></div>
</body></html>"""


def test_pipeline_hands_the_reading_its_inputs(monkeypatch):
    seen = []
    real = scoring.score_page
    monkeypatch.setattr(
        scoring,
        "score_page",
        lambda reading, inputs: seen.append((reading, inputs)) or real(reading, inputs),
    )
    page = Page(
        id="p", dataset="t", raw=HTML.encode(), gold=Gold(text=""), url="https://example.com/x"
    )
    ext = Proposed(scoring={"title_source": "headings", "bound": "ratios"}).extract(page)
    ((reading, inputs),) = seen
    assert reading == Reading(title_source="headings", bound="ratios")
    assert list(inputs.title_terms) == ["data", "mine"]
    assert (inputs.n_blocks_stage1, inputs.n_blocks_stage2) == (2, ext.info["n_after_primary"])
    main = next(b for b in inputs.blocks if "rand" in b.terms)
    assert list(main.heading_terms) == ["cluster", "evalu"]
    assert list(main.anchor_terms) == ["read", "measur"]


def test_pipeline_checks_the_reading_when_made():
    with pytest.raises(ValueError, match=r"bound=clip: must be one of none, ratios, score"):
        Proposed(scoring={"bound": "clip"})
