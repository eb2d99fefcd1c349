"""Stage 1.4 of the proposed method: Table 4 of the paper from its counts, weights, counting."""

from __future__ import annotations

import pytest

from evalkit.proposed.scoring import (
    BlockCounts,
    block_scores,
    count_block,
    denominators,
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
TABLE4_SCORES = {"b2": 0.756, "b3": 0.803, "b6": 0.942, "b8": 0.495, "b11": 0.458,
                 "b12": 0.937, "b13": 0.928}
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


def test_denominators_follow_the_option():
    counts = [BlockCounts(*TABLE4[b]) for b in ("b2", "b3")]
    links = [set(), {"x", "y"}]
    content = [{"p", "q", "r"}, {"q", "s"}]
    assert denominators(counts, 12, links, content) == (12, 2, 28 + 25)
    assert denominators(counts, 12, links, content, "page_distinct") == (12, 2, 4)
    with pytest.raises(ValueError, match="content_denominator"):
        denominators(counts, 12, links, content, "words")


def test_zero_denominators_give_zero_weight():
    assert block_scores([BlockCounts(5, 0, 0, 3)], 0, 0, 0) == [1.0]


def test_count_block_title_then_link_then_content():
    title = frozenset({"mine", "data"})
    block = ["data", "mine", "evalu", "link", "data", "click", "evalu"]
    links = ["data", "click"]  # "data" is a title word, so only "click" is a link word
    c, link_set, content = count_block(block, links, title)
    assert (c.n_terms, c.title_count, c.link_count, c.content_count, c.n_distinct) == (7, 3, 1, 3, 5)
    assert link_set == {"click"} and content == {"evalu", "link"}


@pytest.mark.parametrize("alpha,beta,gamma,msg", [
    (0.4, 0.3, 0.3, "alpha <= beta <= gamma"),
    (0.3, 0.4, 0.2, "alpha <= beta <= gamma"),
    (0.2, 0.3, 0.4, "sum to 1"),
    (-0.1, 0.5, 0.6, ">= 0"),
])
def test_weight_validation(alpha, beta, gamma, msg):
    with pytest.raises(ValueError, match=msg):
        validate_weights(alpha, beta, gamma)
    with pytest.raises(ValueError, match=msg):
        block_scores([BlockCounts(1, 0, 0, 1)], 1, 1, 1, alpha, beta, gamma)


def test_threshold_no_blocks():
    assert threshold(0, 0) == 0.0
    assert threshold(3, 12) == 0.25
