"""Structure metrics of one page: headings, list items, tables and code blocks.

The extraction's elements and the gold's (:mod:`evalkit.core.elements`: the same parser for
both) are compared kind by kind:

* **Headings, list items, code blocks** are matched one to one on their normalised texts
  (:func:`normalize`). The similarity of two texts is rapidfuzz's normalised Levenshtein
  similarity, 1 - Lev(a, b) / max(|a|, |b|) in characters; a pair below
  :data:`MATCH_THRESHOLD` never matches, and among the others the matching maximises the total
  similarity (the assignment problem, Kuhn 1955; scipy's ``linear_sum_assignment``), so the
  order of the elements does not matter. Precision = matched / predicted elements of the kind,
  recall = matched / gold elements of the kind, F1 = 2PR / (P + R), 0 when P + R = 0.
* **Heading level accuracy**: the share of matched heading pairs with equal levels, over the
  pairs whose two levels are known (CleanEval's ``<h>`` has none).
* **Tables**: pred and gold tables are paired one to one to maximise the total TEDS (Zhong,
  ShafieiBavani & Jimeno Yepes 2020, :mod:`evalkit.metrics.teds`); the page's ``table_teds``
  = Σ paired TEDS / max(#pred tables, #gold tables), an unpaired table counting 0.
  ``table_teds_struct`` is the same with structure-only TEDS, paired on its own values.
* **Code edit similarity**: the mean over matched code pairs of 1 - Lev / the longer length,
  in characters, on the texts as written (WebMainBench's edit similarity, per block).

Undefined values (:data:`EMPTY_RULE`): a kind that neither side has gives NaN in all its
columns (a summary leaves the page out of that kind's mean, never counting it as 1); when
only one side has it, the ratio over the empty side is NaN and F1 (and TEDS) is 0. Level
accuracy and code edit similarity are NaN without a pair to average.

Element-level matching with a similarity threshold is evalkit's design (issue 39); no
benchmark scores headings, list items or code blocks element by element.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein
from scipy.optimize import linear_sum_assignment

from evalkit.core.elements import LIST_MARKER, Element, paragraphs, parse_markdown
from evalkit.core.page import Extraction, Gold
from evalkit.metrics.teds import node_count, table_tree, teds, teds_struct

__all__ = [
    "COLUMNS",
    "DIFF_STATUS",
    "EMPTY_RULE",
    "MATCH_THRESHOLD",
    "TIE_BREAK",
    "TRAILING_PUNCTUATION",
    "StructureGold",
    "element_diff",
    "elements_of",
    "extraction_scores",
    "gold_state",
    "match",
    "normalize",
    "pair_tables",
    "prepare",
    "prf",
    "score",
    "structure_scores",
]

Rows = tuple[tuple[str, ...], ...]

#: the per-page columns, in table order
COLUMNS = (
    "heading_precision",
    "heading_recall",
    "heading_f1",
    "heading_level_accuracy",
    "list_precision",
    "list_recall",
    "list_f1",
    "table_teds",
    "table_teds_struct",
    "code_precision",
    "code_recall",
    "code_f1",
    "code_edit_similarity",
)
#: two normalised texts match when their Levenshtein similarity is at least this: up to one
#: character in five may differ (a dropped "¶" or "1.", an entity, a reworded word of a long
#: heading), while two different headings of one page rarely are four fifths alike.
#: Short texts are strict: "why?" and "who?" (0.75) do not match
MATCH_THRESHOLD = 0.8
#: trailing characters dropped before matching: separators a converter or an annotator adds
#: or leaves out ("Ingredients:" / "Ingredients") and the "¶" of heading permalinks
TRAILING_PUNCTUATION = ".,:;¶"
#: among matchings of equal total similarity, the one with more pairs that agree beyond the
#: text (equal heading levels; code blocks equal as written) is taken: each such pair adds
#: this to the objective, far below any difference of similarities, so a page scored against
#: itself pairs two "Overview" headings of levels 2 and 3 each with its own
TIE_BREAK = 1e-9
#: the rule for a kind one side lacks (module docstring)
EMPTY_RULE = "neither side: NaN; one side: its ratio NaN, F1 and TEDS 0"

_NAN = math.nan
_ROUNDING = 1e-12


def normalize(text: str) -> str:
    """A text as matched: a leading list marker (``LIST_MARKER``) and trailing
    :data:`TRAILING_PUNCTUATION` dropped unless nothing would remain, case folded, white
    space collapsed."""
    text = " ".join(text.split())
    text = LIST_MARKER.sub("", text, count=1) or text
    text = text.rstrip(TRAILING_PUNCTUATION).rstrip() or text
    return text.casefold()


def match(
    pred: Sequence[str],
    gold: Sequence[str],
    threshold: float = MATCH_THRESHOLD,
    prefer: np.ndarray | None = None,
) -> list[tuple[int, int, float]]:
    """One-to-one matches ``(pred index, gold index, similarity)`` of two lists of
    normalised texts, each similarity >= ``threshold``, maximising their sum; by gold index.
    ``prefer`` (bool, pred x gold) marks the pairs taken on a tie (:data:`TIE_BREAK`)."""
    if not 0 < threshold <= 1:
        raise ValueError(f"match threshold must be in (0, 1], not {threshold!r}")
    if not pred or not gold:
        return []
    sim = process.cdist(
        list(pred),
        list(gold),
        scorer=Levenshtein.normalized_similarity,
        dtype=np.float64,
        workers=1,
    )
    # rapidfuzz's own score_cutoff drops a pair exactly at the threshold (1 - 1/5 < 0.8 once
    # turned into a distance cutoff), so the threshold is applied here, with room for rounding
    sim[sim < threshold - _ROUNDING] = 0.0  # such a pair adds nothing to the sum: dropped
    objective = sim if prefer is None else sim + TIE_BREAK * (prefer & (sim > 0))
    rows, cols = linear_sum_assignment(objective, maximize=True)
    pairs = [(int(i), int(j), float(sim[i, j])) for i, j in zip(rows, cols) if sim[i, j] > 0]
    return sorted(pairs, key=lambda p: p[1])


def prf(matched: int, n_pred: int, n_gold: int) -> tuple[float, float, float]:
    """(precision, recall, F1) of one kind under :data:`EMPTY_RULE`."""
    if not n_pred and not n_gold:
        return _NAN, _NAN, _NAN
    p = matched / n_pred if n_pred else _NAN
    r = matched / n_gold if n_gold else _NAN
    if not (n_pred and n_gold) or p + r == 0:
        return p, r, 0.0
    return p, r, 2 * p * r / (p + r)


def pair_tables(
    pred: Sequence[Rows], gold: Sequence[Rows], similarity: Callable[[Rows, Rows], float] = teds
) -> list[tuple[int, int, float]]:
    """One-to-one pairs ``(pred index, gold index, similarity)`` of tables maximising the total
    similarity (TEDS by default); by gold index.

    Exact, but lazy: a pair's TEDS is at most min(|Ta|, |Tb|) / max(|Ta|, |Tb|) (its edit
    distance is at least the difference of node counts), so the assignment is solved on these
    bounds, the TEDS of the chosen pairs computed, and solved again until every chosen pair
    has its true value. That assignment is optimal (its true total is at least the bounded
    total of any other), and the tree edit distances of pairs that can never be chosen are
    not computed (APTED takes seconds on tables of 400 nodes). ``similarity`` must keep
    under the bound, as TEDS and structure-only TEDS do.
    """
    if not pred or not gold:
        return []
    size_a = [node_count(table_tree(t)) for t in pred]
    size_b = [node_count(table_tree(t)) for t in gold]
    value = np.array([[min(a, b) / max(a, b) for b in size_b] for a in size_a])
    exact = np.zeros(value.shape, dtype=bool)
    while True:
        rows, cols = linear_sum_assignment(value, maximize=True)
        todo = [(i, j) for i, j in zip(rows, cols) if not exact[i, j]]
        if not todo:
            pairs = [(int(i), int(j), float(value[i, j])) for i, j in zip(rows, cols)]
            return sorted(pairs, key=lambda p: p[1])
        for i, j in todo:
            value[i, j] = similarity(pred[i], gold[j])
            exact[i, j] = True


def _table_score(pred: Sequence[Rows], gold: Sequence[Rows], similarity) -> float:
    if not pred and not gold:
        return _NAN
    paired = pair_tables(pred, gold, similarity)
    return sum(v for _, _, v in paired) / max(len(pred), len(gold))


class StructureGold(NamedTuple):
    """One side's elements as the metrics read them (prepared once per gold page; the
    extraction is prepared the same way)."""

    headings: tuple[str, ...]  # normalised texts
    levels: tuple[int | None, ...]  # the headings' levels
    items: tuple[str, ...]  # list items, normalised
    tables: tuple[Rows, ...]
    code: tuple[str, ...]  # code blocks, normalised (for matching)
    code_raw: tuple[str, ...]  # code blocks as written (for the edit similarity)


def prepare(elements: Sequence[Element]) -> StructureGold:
    """The elements of one page, by kind, normalised (paragraphs are not scored)."""
    heads = [e for e in elements if e.kind == "heading"]
    code = [e.text for e in elements if e.kind == "code"]
    return StructureGold(
        headings=tuple(normalize(e.text) for e in heads),
        levels=tuple(e.level for e in heads),
        items=tuple(normalize(e.text) for e in elements if e.kind == "list_item"),
        tables=tuple(e.rows for e in elements if e.kind == "table" and e.rows is not None),
        code=tuple(normalize(t) for t in code),
        code_raw=tuple(code),
    )


def _agree(pred: Sequence, gold: Sequence, agree: Callable[[object, object], bool]) -> np.ndarray:
    """The pred x gold matrix of ``agree`` (bool): the pairs :func:`match` takes on a tie."""
    return np.array([[agree(a, b) for b in gold] for a in pred], dtype=bool).reshape(
        len(pred), len(gold)
    )


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else _NAN


def score(
    pred: Sequence[Element], gold: StructureGold, *, match_threshold: float = MATCH_THRESHOLD
) -> dict[str, float]:
    """The page's :data:`COLUMNS` for the extraction's elements against a prepared gold."""
    side = prepare(pred)
    out: dict[str, float] = {}

    same_level = _agree(side.levels, gold.levels, lambda a, b: a is not None and a == b)
    heads = match(side.headings, gold.headings, match_threshold, same_level)
    p, r, f = prf(len(heads), len(side.headings), len(gold.headings))
    known = [
        (side.levels[i], gold.levels[j])
        for i, j, _ in heads
        if side.levels[i] is not None and gold.levels[j] is not None
    ]
    out |= {"heading_precision": p, "heading_recall": r, "heading_f1": f}
    out["heading_level_accuracy"] = _mean([float(a == b) for a, b in known])

    items = match(side.items, gold.items, match_threshold)
    p, r, f = prf(len(items), len(side.items), len(gold.items))
    out |= {"list_precision": p, "list_recall": r, "list_f1": f}

    out["table_teds"] = _table_score(side.tables, gold.tables, teds)
    out["table_teds_struct"] = _table_score(side.tables, gold.tables, teds_struct)

    same_code = _agree(side.code_raw, gold.code_raw, lambda a, b: a == b)
    code = match(side.code, gold.code, match_threshold, same_code)
    p, r, f = prf(len(code), len(side.code), len(gold.code))
    out |= {"code_precision": p, "code_recall": r, "code_f1": f}
    out["code_edit_similarity"] = _mean(
        [Levenshtein.normalized_similarity(side.code_raw[i], gold.code_raw[j]) for i, j, _ in code]
    )
    return {c: out[c] for c in COLUMNS}


def structure_scores(
    pred: Sequence[Element], gold: Sequence[Element], *, match_threshold: float = MATCH_THRESHOLD
) -> dict[str, float]:
    """The page's :data:`COLUMNS` for the extraction's elements against the gold's."""
    return score(pred, prepare(gold), match_threshold=match_threshold)


def gold_state(gold: Gold) -> StructureGold | None:
    """The family's gold side (evalkit.metrics.families): the gold's elements prepared, or
    None when the set's gold carries no structure (every column NaN)."""
    if gold.elements is not None:
        return prepare(gold.elements)
    return None if gold.markdown is None else prepare(parse_markdown(gold.markdown))


def extraction_scores(ext: Extraction, state: StructureGold | None) -> dict[str, float]:
    """The family's columns for one extraction: its Markdown parsed by the gold's parser, or
    its text as paragraphs when the method gives no Markdown (a text-only method)."""
    if state is None:
        return dict.fromkeys(COLUMNS, _NAN)
    return score(elements_of(ext), state)


def elements_of(ext: Extraction) -> list[Element]:
    """An extraction's elements: its Markdown parsed as the gold's is, else its text as
    paragraphs (a text-only method)."""
    return parse_markdown(ext.markdown) if ext.markdown is not None else paragraphs(ext.text)


#: how :func:`element_diff` calls an element: found on both sides, only in the gold, only out
DIFF_STATUS = ("kept", "missed", "invented")


def element_diff(
    pred: Sequence[Element], gold: Sequence[Element], *, match_threshold: float = MATCH_THRESHOLD
) -> list[tuple[str, str, str]]:
    """What a page browser shows of a page's structure: ``(kind, status, text)`` for every
    heading, list item and code block (matched as the metrics match them) and every table row
    (a row matched on its cells' joined text within the tables the metrics pair), gold order
    first, then what the output invented. ``status`` is one of :data:`DIFF_STATUS`."""
    out: list[tuple[str, str, str]] = []
    for kind in ("heading", "list_item", "code"):
        g = [e.text for e in gold if e.kind == kind]
        p = [e.text for e in pred if e.kind == kind]
        pairs = match([normalize(t) for t in p], [normalize(t) for t in g], match_threshold)
        found = {j for _, j, _ in pairs}
        used = {i for i, _, _ in pairs}
        out += [(kind, "kept" if j in found else "missed", t) for j, t in enumerate(g)]
        out += [(kind, "invented", t) for i, t in enumerate(p) if i not in used]
    g_tables = [e.rows for e in gold if e.kind == "table" and e.rows is not None]
    p_tables = [e.rows for e in pred if e.kind == "table" and e.rows is not None]
    paired = {j: i for i, j, _ in pair_tables(p_tables, g_tables)}
    for j, rows in enumerate(g_tables):
        mine = p_tables[paired[j]] if j in paired else ()
        g = [" | ".join(r) for r in rows]
        p = [" | ".join(r) for r in mine]
        pairs = match([normalize(t) for t in p], [normalize(t) for t in g], match_threshold)
        found = {b for _, b, _ in pairs}
        used = {a for a, _, _ in pairs}
        out += [("table row", "kept" if k in found else "missed", t) for k, t in enumerate(g)]
        out += [("table row", "invented", t) for k, t in enumerate(p) if k not in used]
    unpaired = [t for i, t in enumerate(p_tables) if i not in set(paired.values())]
    out += [("table row", "invented", " | ".join(r)) for t in unpaired for r in t]
    return out
