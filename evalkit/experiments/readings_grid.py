"""The readings study's grid: every reading of stage 1.4, and the shortcuts that decide them all
from a few scored ones (:func:`decide`, :func:`rescore`); the stage 1-3 switches it tries.
The study itself is :mod:`evalkit.experiments.readings`; docs/readings.md."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from evalkit.proposed import scoring
from evalkit.proposed.scoring import READING_CHOICES, Reading, score_page

__all__ = [
    "ARITHMETIC",
    "COUNTED",
    "DERIVED",
    "GRID",
    "PAPER_CORRECT",
    "PRESETS",
    "STAGE_SWITCHES",
    "decide",
    "grid",
    "grid_decisions",
    "reading_label",
    "rescore",
]


#: the share of pages the paper calls correctly extracted by the full method (Table 8, 279/300)
PAPER_CORRECT = 0.93


#: stage 1-3 switches tried one at a time: dotted key under ``method.proposed`` -> the values
#: tried besides the configured one (every stage 1-3 reading of docs/readings.md)
STAGE_SWITCHES: dict[str, tuple[Any, ...]] = {
    "blocks.tags": (["div"],),
    "primary.outside_subtree": ("keep",),
    "primary.min_subtree_coverage": (1.0,),
    "primary.rule_min_subtree": (False,),
    "primary.rule_punctuation": (False,),
    "primary.short_text_chars": (40,),
    "dedup.scope": ("site",),
    "dedup.detector": ("simhash",),
    "dedup.k": (0,),
    "blocks.nested_text": ("subtree",),
    "blocks.residual_block": (False,),
    "primary.coverage_by": ("characters",),
    "primary.punctuation_marks": (",.",),
    "dedup.duplicate_keeps": ("last", "longest"),
    "dedup.compare_with": ("all",),
    "dedup.proximity": ("nearest",),
}


#: the readings every stage 1-3 variant is scored under (label -> changes from the literal);
#: None: stage 1.4 off, every distinct block kept (``proposed@dedup``)
PRESETS: dict[str, dict[str, str] | None] = {
    "literal": {},
    "proposed_bounded": {"title_count": "distinct", "link_count": "distinct", "bound": "ratios"},
    "proposed_best_table4": {
        "title_count": "distinct",
        "link_scope": "page",
        "link_count": "distinct",
        "content_count": "occurrences",
        "bound": "ratios",
        "if_none_pass": "all",
    },
    "proposed@dedup": None,
}


#: fields that change the counts: ``score_page`` runs once per combination of them
COUNTED = (
    "title_source",
    "title_count",
    "link_scope",
    "link_count",
    "content_count",
    "content_denominator",
)


#: fields applied to those counts by :func:`rescore` (the arithmetic of Eqs. 4-8)
ARITHMETIC = ("content_weight", "bound", "threshold_blocks")


#: fields decided from the scores and the threshold by :func:`decide`
DERIVED = ("comparison", "if_none_pass")


def grid() -> list[Reading]:
    """Every reading of :data:`READING_CHOICES` (the paper's weights), in the order of the
    product of its fields (the literal reading first)."""
    fields = list(READING_CHOICES)
    return [
        Reading(**dict(zip(fields, values)))
        for values in itertools.product(*READING_CHOICES.values())
    ]


#: the readings of the study, computed once per process
GRID: list[Reading] = grid()


_INDEX: dict[Reading, int] = {r: i for i, r in enumerate(GRID)}


def reading_label(reading: Reading | None) -> str:
    """A reading as the switches it changes from the literal one (``literal`` for none)."""
    if reading is None:
        return "proposed@dedup"
    changes = reading.changes()
    return " ".join(f"{k}={v}" for k, v in changes.items()) or "literal"


def decide(
    scores: Sequence[float], t: float, comparison: str, if_none_pass: str
) -> tuple[bool, ...]:
    """The kept flags :func:`~evalkit.proposed.scoring.score_page` gives for these scores and
    threshold under ``comparison`` and ``if_none_pass`` (the same rules, without recounting)."""
    kept = [s > t for s in scores] if comparison == "gt" else [s >= t for s in scores]
    if scores and not any(kept) and if_none_pass != "nothing":
        if if_none_pass == "all":
            return (True,) * len(scores)
        best = max(range(len(scores)), key=lambda i: (scores[i], -i))
        return tuple(i == best for i in range(len(scores)))
    return tuple(kept)


def rescore(
    res: scoring.PageScores,
    inputs: scoring.PageInputs,
    content_weight: str,
    bound: str,
    threshold_blocks: str,
) -> tuple[list[float], float]:
    """The scores and threshold :func:`~evalkit.proposed.scoring.score_page` gives for a
    reading that differs from the one of ``res`` only in ``content_weight``, ``bound`` and
    ``threshold_blocks`` (the same arithmetic on ``res``'s counts and denominators; checked
    against ``score_page`` for every reading in tests/test_study_readings.py)."""
    d_t, d_l, d_c = res.d_title, res.d_link, res.d_content
    t_w = [c.title_count / d_t if d_t else 0.0 for c in res.counts]
    l_w = [c.link_count / d_l if d_l else 0.0 for c in res.counts]
    c_w = [c.content_count / d_c if d_c else 0.0 for c in res.counts]
    if bound == "ratios":
        t_w, l_w, c_w = ([min(x, 1.0) for x in w] for w in (t_w, l_w, c_w))
    a, b, g = scoring.DEFAULT_ALPHA, scoring.DEFAULT_BETA, scoring.DEFAULT_GAMMA
    if content_weight == "eq4":
        scores = [1.0 - (a * t + b * ln + g * c) for t, ln, c in zip(t_w, l_w, c_w)]
    elif content_weight == "pseudocode":
        scores = [
            1.0 - (a * t + b * ln + scoring.PSEUDOCODE_FACTOR * g * c)
            for t, ln, c in zip(t_w, l_w, c_w)
        ]
    else:  # eq7_literal
        scores = [1.0 - (a * c + b * ln) for ln, c in zip(l_w, c_w)]
    if bound == "score":
        scores = [min(max(x, 0.0), 1.0) for x in scores]
    m = inputs.n_blocks_stage1 if threshold_blocks == "stage1" else inputs.n_blocks_stage2
    return scores, scoring.threshold(len(inputs.blocks), m)


def _plan() -> list[tuple[Reading, list[tuple[tuple[str, str, str], list[tuple[str, str, int]]]]]]:
    """Per combination of the :data:`COUNTED` fields, the reading ``score_page`` runs for,
    then per combination of the :data:`ARITHMETIC` fields the readings decided from it:
    (comparison, if_none_pass, index in :data:`GRID`)."""
    index = {tuple(getattr(r, f) for f in READING_CHOICES): i for i, r in enumerate(GRID)}
    plan = []
    for counted in itertools.product(*(READING_CHOICES[f] for f in COUNTED)):
        fields = dict(zip(COUNTED, counted))
        arithmetic = []
        for arith in itertools.product(*(READING_CHOICES[f] for f in ARITHMETIC)):
            f = {**fields, **dict(zip(ARITHMETIC, arith))}
            derived = [
                (
                    comparison,
                    if_none,
                    index[
                        tuple(
                            {**f, "comparison": comparison, "if_none_pass": if_none}[k]
                            for k in READING_CHOICES
                        )
                    ],
                )
                for comparison in READING_CHOICES["comparison"]
                for if_none in READING_CHOICES["if_none_pass"]
            ]
            arithmetic.append((arith, derived))
        plan.append((Reading(**fields), arithmetic))
    return plan


_PLAN = _plan()


def grid_decisions(inputs: scoring.PageInputs) -> list[tuple[bool, ...]]:
    """The kept flags of every reading of :data:`GRID` on one page, in grid order."""
    out: list[tuple[bool, ...] | None] = [None] * len(GRID)
    for reading, arithmetic in _PLAN:
        res = score_page(reading, inputs)
        for arith, derived in arithmetic:
            scores, t = rescore(res, inputs, *arith)
            for comparison, if_none, i in derived:
                out[i] = decide(scores, t, comparison, if_none)
    return out  # type: ignore[return-value]


def _preset_readings() -> dict[str, Reading | None]:
    return {name: None if ch is None else Reading(**ch) for name, ch in PRESETS.items()}


def _show(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(map(str, value)) + "]"
    return str(value).lower() if isinstance(value, bool) else str(value)
