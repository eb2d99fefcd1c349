"""Structure metrics of a page on hand-worked pages: evalkit.metrics.structure.

Every expected value is worked by hand beside it. Similarity: 1 - Levenshtein / longer
length on normalised texts; a pair matches at MATCH_THRESHOLD (0.8) or above.
"""

from __future__ import annotations

import itertools
import json
import math
import random

import pytest

from evalkit.core.elements import Element, marked_elements, parse_markdown
from evalkit.metrics import structure as S
from evalkit.metrics.teds import teds, teds_struct

H = lambda text, level=None: Element("heading", text, level=level)
P = lambda text: Element("paragraph", text)
L = lambda text, depth=0: Element("list_item", text, depth=depth)
C = lambda text: Element("code", text)
T = lambda *rows: Element("table", " ".join(c for r in rows for c in r), rows=rows)

KIND_OF = {"heading": "heading", "list": "list_item", "table": "table", "code": "code"}
T32 = (("a", "b"), ("c", "d"), ("e", "f"))


def _nan(x: float) -> bool:
    return isinstance(x, float) and math.isnan(x)


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(
        (_nan(a[k]) and _nan(b[k])) or a[k] == pytest.approx(b[k]) for k in a
    )


def _assert_self_score(elements: list[Element]) -> None:
    """A page against itself: 1.0 on every column of every kind it has, NaN for the others
    (and level accuracy NaN when no heading has a level)."""
    scores = S.structure_scores(elements, elements)
    kinds = {e.kind for e in elements}
    levels = any(e.level is not None for e in elements if e.kind == "heading")
    for column, value in scores.items():
        has = KIND_OF[column.split("_")[0]] in kinds
        if column == "heading_level_accuracy" and has and not levels:
            assert _nan(value), column
        elif has:
            assert value == 1.0, (column, value)
        else:
            assert _nan(value), (column, value)


PAGE = [
    H("Guide", 1),
    P("Intro text."),
    H("Install", 2),
    L("download the archive"),
    L("unpack it", 1),
    C("tar xf a.tgz\ncd a"),
    H("Results", 2),
    T(("name", "score"), ("a", "1"), ("b", "2")),
    T(("x",), ("y",)),
    L("read more"),
    L("read more"),
]


# ---------------------------------------------------------------- columns and rules


def test_columns_in_order():
    assert tuple(S.structure_scores(PAGE, PAGE)) == S.COLUMNS


def test_headings_hand_worked():
    # gold 3 headings; pred 2 of them (one at a wrong level) and one invented:
    # matched 2 -> P = 2/3, R = 2/3, F1 = 2/3; levels agree on 1 of the 2 pairs
    gold = [H("Overview", 1), H("Installation", 2), H("Usage", 2)]
    pred = [H("Overview", 1), H("Usage", 3), H("Sponsors", 2)]
    s = S.structure_scores(pred, gold)
    assert s["heading_precision"] == pytest.approx(2 / 3)
    assert s["heading_recall"] == pytest.approx(2 / 3)
    assert s["heading_f1"] == pytest.approx(2 / 3)
    assert s["heading_level_accuracy"] == pytest.approx(1 / 2)
    # the other kinds: neither side has them
    assert all(_nan(s[c]) for c in S.COLUMNS if not c.startswith("heading"))


def test_list_items_one_to_one():
    # gold has "read more" twice, pred once, plus a near copy of "step one" (similarity
    # 1 - 1/8 = 0.875 after case folding) and one invented: matched 2 of 3 pred, 2 of 3 gold
    gold = [L("read more"), L("read more"), L("Step one")]
    pred = [L("read more"), L("step ane"), L("elsewhere")]
    s = S.structure_scores(pred, gold)
    assert (s["list_precision"], s["list_recall"]) == (pytest.approx(2 / 3), pytest.approx(2 / 3))
    assert s["list_f1"] == pytest.approx(2 / 3)


def test_normalisation_before_matching():
    assert S.normalize("  1.  Getting   Started: ") == "getting started"
    assert S.normalize("* Fast") == "fast"
    assert S.normalize("Install¶") == "install"
    assert S.normalize("...") == "..."  # nothing would remain: kept
    assert S.normalize("Why?") == "why?"
    s = S.structure_scores([H("GETTING STARTED", 2)], [H("1. Getting started:", 2)])
    assert s["heading_f1"] == 1.0


def test_threshold_boundaries_and_setting():
    # "abcde" vs "abcdx": 1 - 1/5 = 0.8, matched at the threshold; "why?" vs "who?" 0.75 not
    assert S.match(["abcde"], ["abcdx"]) == [(0, 0, pytest.approx(0.8))]
    assert S.match(["why?"], ["who?"]) == []
    s = S.structure_scores([H("abcde")], [H("abcdx")], match_threshold=0.9)
    assert s["heading_f1"] == 0.0
    for bad in (0, -0.1, 1.5):
        with pytest.raises(ValueError, match="threshold"):
            S.structure_scores([], [], match_threshold=bad)


def test_matching_maximises_total_similarity_not_greedy():
    # threshold 0.85: p1 = g2 exactly (1.0) and p1 ~ g1 (0.9); p2 ~ g2 (0.9), p2 ~ g1 (0.8,
    # below). Greedy p1-g2 leaves p2 unmatched (1 pair); the assignment p1-g1 + p2-g2 (1.8)
    # matches both
    gold, pred = ["abcdefghix", "abcdefghij"], ["abcdefghij", "abcdefghqj"]
    assert S.match(pred, gold, 0.85) == [(0, 0, pytest.approx(0.9)), (1, 1, pytest.approx(0.9))]
    s = S.structure_scores([L(t) for t in pred], [L(t) for t in gold], match_threshold=0.85)
    assert s["list_recall"] == 1.0


def test_prf_rules():
    assert S.prf(0, 0, 0) == (pytest.approx(math.nan, nan_ok=True),) * 3
    p, r, f = S.prf(0, 0, 4)  # nothing predicted: precision undefined, recall 0, F1 0
    assert _nan(p) and (r, f) == (0.0, 0.0)
    p, r, f = S.prf(0, 3, 0)  # nothing in the gold: recall undefined
    assert _nan(r) and (p, f) == (0.0, 0.0)
    assert S.prf(0, 2, 2) == (0.0, 0.0, 0.0)
    assert S.prf(1, 2, 4) == (0.5, 0.25, pytest.approx(1 / 3))


def test_nan_rules_on_a_page():
    s = S.structure_scores([L("only in pred")], [H("only in gold", 2)])
    assert _nan(s["heading_precision"]) and s["heading_recall"] == 0.0 and s["heading_f1"] == 0.0
    assert _nan(s["heading_level_accuracy"])  # no matched pair
    assert s["list_precision"] == 0.0 and _nan(s["list_recall"]) and s["list_f1"] == 0.0
    assert all(_nan(s[c]) for c in ("table_teds", "table_teds_struct", "code_f1"))
    assert all(_nan(v) for v in S.structure_scores([], []).values())
    assert all(_nan(v) for v in S.structure_scores([P("a")], [P("b")]).values())


def test_level_accuracy_over_pairs_with_known_levels():
    # CleanEval headings have no level: a pair with one unknown level is left out
    gold = [H("alpha"), H("beta", 2), H("gamma", 3)]
    pred = [H("alpha", 1), H("beta", 2), H("gamma", 2)]
    assert S.structure_scores(pred, gold)["heading_level_accuracy"] == pytest.approx(1 / 2)
    assert _nan(S.structure_scores(pred, [H("alpha")])["heading_level_accuracy"])


# ---------------------------------------------------------------- tables


def test_tables_hand_worked():
    # one 3x2 gold table, the prediction without its last row: TEDS = 1 - 3/10 = 0.7
    s = S.structure_scores([T(*T32[:2])], [T(*T32)])
    assert s["table_teds"] == pytest.approx(0.7)
    assert s["table_teds_struct"] == pytest.approx(0.7)
    # a cell changed: content 1 - 1/10 = 0.9, structure 1
    changed = (("a", "x"), ("c", "d"), ("e", "f"))
    s = S.structure_scores([T(*changed)], [T(*T32)])
    assert (s["table_teds"], s["table_teds_struct"]) == (pytest.approx(0.9), 1.0)


def test_unpaired_tables_count_zero():
    two = T(("x",), ("y",))
    # gold has two tables, pred one (equal to the second): (0 + 1) / max(1, 2) = 0.5
    assert S.structure_scores([two], [T(*T32), two])["table_teds"] == pytest.approx(0.5)
    # pred has a table the gold lacks: 0 / 1; the gold has one the pred lacks: 0 / 1
    assert S.structure_scores([two], [])["table_teds"] == 0.0
    assert S.structure_scores([], [two])["table_teds_struct"] == 0.0


def test_table_pairing_is_optimal_and_order_free():
    # pred [A', B'] vs gold [B, A]: pairing A'-A and B'-B, whatever the order
    a, b = T32, (("p", "q", "r"),)
    a2, b2 = T32[:2], (("p", "q", "x"),)
    s1 = S.structure_scores([T(*a2), T(*b2)], [T(*b), T(*a)])
    s2 = S.structure_scores([T(*b2), T(*a2)], [T(*a), T(*b)])
    # A: 0.7; B: one of 3 cells rewritten, 1 - 1/5 = 0.8; mean over max(2, 2) = 0.75
    assert s1["table_teds"] == pytest.approx(0.75) == s2["table_teds"]


def test_lazy_pairing_equals_brute_force():
    rng = random.Random(7)

    def table():
        return tuple(
            tuple(rng.choice(["a", "b", "ab", ""]) for _ in range(rng.randint(1, 3)))
            for _ in range(rng.randint(0, 4))
        )

    for _ in range(40):
        pred = [table() for _ in range(rng.randint(1, 4))]
        gold = [table() for _ in range(rng.randint(1, 4))]
        for sim in (teds, teds_struct):
            got = sum(v for _, _, v in S.pair_tables(pred, gold, sim))
            k = min(len(pred), len(gold))
            best = max(
                sum(sim(pred[i], gold[j]) for i, j in zip(ps, gs))
                for ps in itertools.permutations(range(len(pred)), k)
                for gs in itertools.combinations(range(len(gold)), k)
            )
            assert got == pytest.approx(best)


# ---------------------------------------------------------------- code


def test_code_blocks_and_edit_similarity():
    gold = "def f():\n    return 1"  # 21 characters
    pred = "def f():\n  return 1"  # two spaces fewer: Lev 2; 1 - 2/21
    s = S.structure_scores([C(pred), C("print(2)")], [C(gold)])
    assert (s["code_precision"], s["code_recall"]) == (0.5, 1.0)  # white space ignored to match
    assert s["code_f1"] == pytest.approx(2 / 3)
    assert s["code_edit_similarity"] == pytest.approx(19 / 21)
    assert _nan(S.structure_scores([C("print(2)")], [C(gold)])["code_edit_similarity"])


# ---------------------------------------------------------------- whole pages


def test_gold_against_itself_scores_one_on_every_kind_it_has():
    _assert_self_score(PAGE)
    _assert_self_score([H("a", 2), P("b")])
    _assert_self_score(
        [
            T(
                ("x",),
            )
        ]
    )
    # the same text at two levels, and two code blocks equal once white space is collapsed:
    # ties are broken towards the pair that agrees as written
    _assert_self_score(
        [H("Overview", 2), H("Overview", 3), C("a  b"), C("a b"), H("Overview", 2)][::-1]
    )


def test_ties_broken_towards_pairs_that_agree():
    # equal texts at levels 3, 2 vs 2, 3: both pairings total 2.0; the one pairing equal
    # levels is taken, so a reordered copy keeps level accuracy 1 (and code as written)
    pred = [H("Overview", 3), H("Overview", 2), C("a b"), C("a  b")]
    gold = [H("Overview", 2), H("Overview", 3), C("a  b"), C("a b")]
    s = S.structure_scores(pred, gold)
    assert s["heading_level_accuracy"] == 1.0 and s["code_edit_similarity"] == 1.0


def test_prepare_once_then_score():
    gold = S.prepare(PAGE)
    pred = PAGE[:5]
    assert _same(S.score(pred, gold), S.structure_scores(pred, PAGE))


def test_order_does_not_matter():
    pred = [H("Guide", 2), H("Instal", 2), L("download the archive"), L("read more"), C("tar xf")]
    pred += [
        T(("name", "score"), ("a", "1")),
        T(
            ("x",),
        ),
    ]
    base = S.structure_scores(pred, PAGE)
    rng = random.Random(3)
    for _ in range(5):
        p, g = pred[:], PAGE[:]
        rng.shuffle(p)
        rng.shuffle(g)
        assert _same(S.structure_scores(p, g), base)


def test_headings_demoted_to_paragraphs():
    demoted = [P(e.text) if e.kind == "heading" else e for e in PAGE]
    s = S.structure_scores(demoted, PAGE)
    assert s["heading_recall"] == 0.0 and s["heading_f1"] == 0.0
    assert _nan(s["heading_precision"]) and _nan(s["heading_level_accuracy"])
    assert all(s[c] == 1.0 for c in S.COLUMNS if not c.startswith("heading"))


def test_cleaneval_gold_against_itself():
    els = marked_elements("URL: x\n<h>Title\n<p>Body text\n<l>* one\n<l>* two\n")
    _assert_self_score(els)
    assert _nan(S.structure_scores(els, els)["heading_level_accuracy"])


@pytest.mark.shared
def test_wcxb_gold_against_itself(shared):
    root = shared("wcxb-dev") / "ground-truth"
    files = sorted(root.glob("*.json"))[:150]
    if not files:
        pytest.skip(f"no WCXB gold files in {root}")
    for file in files:
        md = json.loads(file.read_text("utf-8"))["ground_truth"].get("main_content_markdown") or ""
        els = parse_markdown(md)
        _assert_self_score(els)
        demoted = [P(e.text) if e.kind == "heading" else e for e in els]
        if any(e.kind == "heading" for e in els):
            assert S.structure_scores(demoted, els)["heading_recall"] == 0.0


@pytest.mark.shared
def test_cleaneval_dev_gold_against_itself(shared):
    from evalkit.readers.pairs import decode_text

    files = sorted((shared("cleaneval-dev") / "GoldStandard").glob("*.txt"))
    if not files:
        pytest.skip("no CleanEval gold files")
    for file in files:
        _assert_self_score(marked_elements(decode_text(file.read_bytes())))
