"""San & Aye's pipeline on a page worked by hand, the paper's thresholds on both sides, and
every page of the shared sets (slow)."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from shared_pages import SETS, dataset  # beside the tests

from baselines.san_aye import (
    SanAye,
    cosine,
    keyword_frequency,
    keyword_vector,
    main_blocks,
    position_feature,
    remove_duplicates,
    sub_block_weight,
    title_relevancy,
)
from evalkit.core.page import Gold, Page
from evalkit.core.validate import ParamError
from evalkit.harness.registry import METHODS

# P1: 46 white-space words, 207 characters, 28 stop words (density 0.61): good. Its
# keywords (stop list "english"): rain 3, town 2, river 2 and 11 words once (fell, rose,
# night, heavy, water, came, bridge, worst, decade, road, noon) = 18 occurrences.
P1 = (
    "The rain fell on the town and the river rose in the night. The rain was heavy and "
    "the water came up to the bridge. It was the worst rain in the town for a decade and "
    "the river is still over the road at noon."
)
# P2: 41 words, 206 characters, 26 stop words: good. Keywords: apples 2, market 2 and 11
# once (farmers, valley, sold, square, prices, lower, spring, buyers, coast, hills, boats)
# = 15 occurrences, 13 distinct.
P2 = (
    "The farmers of the valley sold their apples at the market on the square, and the "
    "prices of the apples were lower than in the spring. The market was full of buyers "
    "from the coast and from the hills in boats."
)
P3 = P2.upper()  # the same keywords in the same numbers: cosine 1 with P2
PAGE = (
    "<html><head><title>Rain floods the town</title></head><body>"
    f"<div><p>{P1}</p></div>"
    "<ul><li><a href='/'>Home</a></li><li><a href='/n'>News</a></li></ul>"
    f"<div><p>{P2}</p><p>{P3}</p></div></body></html>"
)
# Worked by hand:
# 1. cleaning: paragraphs P1, "Home", "News", P2, P3. "Home" and "News" are short with a
#    link: bad. P1, P2, P3 are long (> 200 characters) with stop-word density >= 0.32: good.
# 2. Eq. 2: P3's keyword vector equals P2's (lower-cased), cosine 1 >= 1.0: P3 duplicates P2.
# 3. N (Eq. 5) = words of all paragraphs = 46 + 1 + 1 + 41 + 41 = 130; keyword occurrences
#    of the page (Eq. 6) = 18 + 1 (home) + 1 (news) + 15 + 15 = 50.
#    Title keywords {rain, floods, town}, m_k = 3.
#    P1: T_k = 1 - 3 / (3 + 3 + 0 + 2) = 0.625; top ten frequencies 3+2+2+7*1 = 14,
#        K_f = 14/130; T = 18/50 = 0.36 < 0.7, PF_s = 0; B_W' = 0.625 + 14/130 = 0.73269.
#    P2: T_k = 1 - 3/3 = 0; top ten 2+2+8*1 = 12, K_f = 12/130 = 0.09231; T = 15/50 = 0.3,
#        PF_s = 0; B_W' = 0.09231.
# 4. main blocks (runs of good paragraphs): [P1] and [P2, P3]; Eq. 7: 0.73269 and 0.09231
#    (the duplicate P3 carries no weight). The heaviest is [P1]: the output is P1 alone.
N_WORDS, PAGE_KEYWORDS = 130, 50


def _page(html: str) -> Page:
    return Page(id="hand", dataset="hand", raw=html.encode("utf-8"), gold=Gold(text=""))


def test_hand_page_keeps_the_heaviest_main_block():
    ext = SanAye(stoplist="english").extract(_page(PAGE))
    assert ext.text == P1
    b = ext.blocks
    assert [x.kept for x in b] == [True, False, False, False, False]
    assert [(x.stage, x.rule) for x in b] == [
        (None, None),
        ("cleaning", "jusText"),
        ("cleaning", "jusText"),
        ("importance", "main_block"),
        ("dedup", "cosine"),
    ]
    assert b[4].duplicate_of == 3 and b[4].scores["cosine"] == 1.0
    assert b[0].scores["tk"] == 0.625
    assert b[0].scores["kf"] == round(14 / 130, 4)
    assert b[0].scores["t_ratio"] == 0.36 and b[0].scores["pfs"] == 0
    assert b[0].scores["weight"] == round(0.625 + 14 / 130, 4)
    assert b[3].scores["tk"] == 0.0 and b[3].scores["kf"] == round(12 / 130, 4)
    assert b[3].scores["t_ratio"] == 0.3
    assert b[3].scores["main_weight"] == round(12 / 130, 4) == b[4].scores["main_weight"]
    assert ext.info == {
        "paragraphs": 5,
        "noiseless": 3,
        "duplicates": 1,
        "main_blocks": 2,
        "kept": 1,
        "best_main_block": 0,
    }


def test_select_all_keeps_every_block_left_after_the_cosine_step():
    ext = SanAye(stoplist="english", select="all").extract(_page(PAGE))
    assert ext.text == P1 + "\n" + P2


def test_weights_change_the_winner():
    # alpha = 0 leaves K_f alone: 14/130 for [P1] against 12/130 for [P2, P3]: still P1;
    # with beta = 0 too and gamma = 0 every main block weighs 0: the tie goes to the first
    assert SanAye(stoplist="english", alpha=0.0).extract(_page(PAGE)).text == P1
    assert (
        SanAye(stoplist="english", alpha=0.0, beta=0.0, gamma=0.0).extract(_page(PAGE)).text == P1
    )
    # the page without P1's title words: swap the title to P2's words
    other = PAGE.replace("Rain floods the town", "Apples at the market")
    # title keywords {apples, market} ("at", "the" are stop words), m_k = 2
    # P2: T_k = 1 - 2 / (2 + 2 + 2) = 2/3; P1: T_k = 0; 2/3 + 12/130 > 14/130: [P2, P3] wins
    ext = SanAye(stoplist="english").extract(_page(other))
    assert ext.text == P2
    assert ext.blocks[3].scores["tk"] == round(1 - 2 / 6, 4)


def test_keyword_vector_lowercases_and_drops_stop_words_and_numbers():
    assert keyword_vector("The Rain, the rain 2024 and THE town", "english") == Counter(
        {"rain": 2, "town": 1}
    )


def test_cosine_by_hand():
    a, b = Counter({"x": 1, "y": 2}), Counter({"x": 2, "z": 1})
    # a.b = 2; |a| = sqrt 5, |b| = sqrt 5 -> 2/5
    assert cosine(a, b) == pytest.approx(0.4)
    assert cosine(a, Counter()) == 0.0
    assert cosine(a, Counter({"x": 2, "y": 4})) == pytest.approx(1.0)


def test_duplicate_threshold_boundary():
    # {x} against {x, y}: cosine 1/sqrt(2); at the threshold a duplicate, just above it not
    vecs = [Counter({"x": 1, "y": 1}), Counter({"x": 1})]
    sim = 1 / math.sqrt(2)
    assert remove_duplicates(vecs, sim) == [None, (0, pytest.approx(sim))]
    assert remove_duplicates(vecs, sim + 1e-9) == [None, None]
    # the default 1.0: only the same proportions
    assert remove_duplicates([Counter({"x": 1}), Counter({"x": 3})]) == [None, (0, 1.0)]
    # a duplicate of a removed block is compared with the kept ones only
    assert remove_duplicates([Counter("a"), Counter("a"), Counter("a")]) == [
        None,
        (0, 1.0),
        (0, 1.0),
    ]


def test_title_relevancy_by_hand():
    assert title_relevancy(Counter({"rain": 3, "town": 2}), {"rain", "floods", "town"}) == 0.625
    assert title_relevancy(Counter({"rain": 3}), set()) == 0.0  # no title keywords
    assert title_relevancy(Counter({"x": 3}), {"rain"}) == 0.0  # none in the block


def test_top_k_boundary():
    vec = Counter({f"w{i}": 11 - i for i in range(11)})  # 11, 10, ..., 1
    assert keyword_frequency(vec, 100, top_k=10) == sum(range(2, 12)) / 100  # the 1 is out
    assert keyword_frequency(vec, 100, top_k=11) == sum(range(1, 12)) / 100
    assert keyword_frequency(vec, 0) == 0.0


@pytest.mark.parametrize("count, at_least, at_most", [(7, 1, 1), (6, 0, 1), (8, 1, 0)])
def test_position_threshold_boundary(count, at_least, at_most):
    # T = count / 10 against 0.7: the prose (T >= 0.7) and the printed formula (0.7 >= T)
    assert position_feature(count, 10, 0.7, "at_least") == (at_least, count / 10)
    assert position_feature(count, 10, 0.7, "at_most") == (at_most, count / 10)


def test_position_feature_of_a_page_without_keywords():
    assert position_feature(0, 0) == (0, 0.0)


def test_sub_block_weight_and_main_blocks():
    assert sub_block_weight(0.5, 0.25, 1, alpha=2.0, beta=4.0, gamma=0.5) == 1 + 1 + 0.5
    assert main_blocks([True, True, False, True, False, False, True]) == [[0, 1], [3], [6]]
    assert main_blocks([]) == []


def test_page_without_good_paragraphs_gives_empty_text():
    ext = SanAye().extract(_page("<html><body><a href='/'>Home</a></body></html>"))
    assert ext.text == "" and ext.info["kept"] == 0 and ext.info["best_main_block"] == -1


@pytest.mark.parametrize(
    "params",
    [
        {"duplicate_threshold": 0.0},
        {"duplicate_threshold": 1.5},
        {"top_k": 0},
        {"keyword_total": "site"},
        {"position_threshold": 1.2},
        {"position_rule": "above"},
        {"alpha": -1.0},
        {"main_block": "div"},
        {"select": "best"},
        {"stoplist": "klingon"},
        {"length_low": 300},
    ],
)
def test_bad_settings_fail_at_construction(params):
    with pytest.raises(ParamError):
        SanAye(**params)


def test_registry_and_config_build_it():
    m = METHODS.create("san_aye", select="all")
    assert isinstance(m, SanAye) and m.select == "all"


def test_cleaning_is_justext_style():
    """The noiseless blocks are exactly the paragraphs justext_style keeps."""
    page = _page(PAGE)
    js = METHODS.create("justext_style", stoplist="english").extract(page)
    sa = SanAye(stoplist="english").extract(page)
    assert [b.kept for b in js.blocks] == [b.attrs["class"] == "good" for b in sa.blocks]


@pytest.mark.slow
@pytest.mark.parametrize("label", list(SETS))
def test_every_shared_page_without_failure(label, shared, shared_root):
    if SETS[label]:
        shared(SETS[label])
    failures, n = [], 0
    method = METHODS.create("san_aye")
    for page in dataset(label, shared_root).pages():
        n += 1
        try:
            ext = method.extract(page)
        except Exception as exc:  # noqa: BLE001 - every failure is listed
            failures.append(f"{page.id}: {type(exc).__name__}: {exc}")
            continue
        assert ext.info["kept"] <= ext.info["noiseless"] - ext.info["duplicates"]
    assert n > 0
    assert not failures, "\n".join(failures[:10])
