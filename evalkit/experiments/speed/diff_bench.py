"""The report's diff on a long page: seconds to diff a seeded 50,000-word page with its gold.

Issue 28 asks that report.html's word-level diff of a 50,000-word page take under a second.
What is timed is the page browser's work for one (page, method) pair
(:func:`evalkit.report.pages.diff_ops`, as :mod:`evalkit.report.pages` calls it): split the
gold and the extraction into words, align them (:func:`evalkit.report.diff.word_opcodes`),
turn the opcodes into the browser's diff and encode it as the JSON that report.html
carries. The browser then only expands the counts into words.

The pair is generated, seeded: a gold of ``n_words`` Zipf-distributed words (the
micro-benchmark's :func:`~evalkit.experiments.speed.micro.zipf_terms`, vocabulary
:data:`DIFF_VOCABULARY`: real text repeats most of its words, which leaves the diff few
anchors) and an extraction that edits it as a method does: :data:`REMOVED_SPANS` spans of
the gold left out (:data:`REMOVED_SHARE` of its words in all, a missed paragraph each) and
:data:`ADDED_SPANS` spans of other words put in (:data:`ADDED_SHARE` of the gold's length
in all, boilerplate a method kept). Best of ``repeat`` runs, with the slowest kept.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from evalkit.experiments import Context
from evalkit.experiments.speed.micro import zipf_terms
from evalkit.experiments.speed.timing import CLOCKS, peak_rss_mb
from evalkit.harness.summary import summary_row
from evalkit.report.pages import diff_ops
from evalkit.report.sections import Heading, Table
from evalkit.report.tables import write_table

__all__ = [
    "ADDED_SHARE",
    "ADDED_SPANS",
    "DIFF_DATASET",
    "DIFF_METHOD",
    "DIFF_TARGET_S",
    "DIFF_VOCABULARY",
    "DIFF_WORDS",
    "REMOVED_SHARE",
    "REMOVED_SPANS",
    "diff_benchmark",
    "diff_outputs",
    "diff_pair",
    "diff_rows",
    "diff_task",
]

#: words of the generated page (the issue's 50,000)
DIFF_WORDS = 50_000
#: the issue's bound: seconds for the diff of a page of DIFF_WORDS words
DIFF_TARGET_S = 1.0
#: distinct words the page draws from (Zipf frequencies, exponent 1)
DIFF_VOCABULARY = 5000
#: spans of the gold the extraction leaves out, and their share of the gold's words
REMOVED_SPANS, REMOVED_SHARE = 40, 0.10
#: spans of other words the extraction adds, and their length as a share of the gold's
ADDED_SPANS, ADDED_SHARE = 30, 0.06
#: dataset and method labels of the rows in summary.csv
DIFF_DATASET = "report_diff_bench"
DIFF_METHOD = "word_diff"


def _spans(rng: np.random.Generator, n: int, count: int, total: int) -> list[tuple[int, int]]:
    """``count`` disjoint (start, length) spans in ``range(n)`` of ``total`` words in all."""
    lengths = rng.multinomial(total - count, np.full(count, 1 / count)) + 1
    gaps = rng.multinomial(n - total, np.full(count + 1, 1 / (count + 1)))
    spans, at = [], 0
    for gap, length in zip(gaps, lengths):
        at += int(gap)
        spans.append((at, int(length)))
        at += int(length)
    return spans


def diff_pair(n_words: int = DIFF_WORDS, seed: int = 0) -> tuple[str, str]:
    """(gold, extraction) texts of the benchmark: the seeded gold and its edited copy."""
    rng = np.random.default_rng(seed)
    gold = zipf_terms(n_words, DIFF_VOCABULARY, 1.0, seed)
    removed = _spans(rng, n_words, REMOVED_SPANS, int(n_words * REMOVED_SHARE))
    cut = np.zeros(n_words, dtype=bool)
    for start, length in removed:
        cut[start : start + length] = True
    kept = [w for w, gone in zip(gold, cut.tolist()) if not gone]
    # boilerplate from a vocabulary of its own, put in at seeded places of what is kept
    extra = zipf_terms(int(n_words * ADDED_SHARE), 500, 1.0, seed + 1)
    extra = [f"nav{w[4:]}" for w in extra]
    places = np.sort(rng.choice(len(kept) + 1, size=ADDED_SPANS, replace=False))
    pieces = np.array_split(np.array(extra, dtype=object), ADDED_SPANS)
    text, last = [], 0
    for place, piece in zip(places.tolist(), pieces):
        text += kept[last:place] + list(piece)
        last = place
    text += kept[last:]
    return " ".join(gold), " ".join(text)


def _render(gold: str, text: str) -> str:
    # what evalkit.report.pages does for one (page, method): split, diff, encode
    strings: dict[str, int] = {}
    ops = diff_ops(gold.split(), text.split(), strings)
    return json.dumps({"diff": ops, "strings": list(strings)}, separators=(",", ":"))


def diff_benchmark(
    n_words: int = DIFF_WORDS, repeat: int = 5, seed: int = 0, clock: str = "cpu"
) -> pd.DataFrame:
    """Best and slowest of ``repeat`` timed diffs of :func:`diff_pair` (one row)."""
    tick = CLOCKS[clock]
    gold, text = diff_pair(n_words, seed)
    _render(*diff_pair(2000, seed))  # warm up the code paths (imports, rapidfuzz)
    runs, size = [], 0
    for _ in range(repeat):
        t0 = tick()
        size = len(_render(gold, text))
        runs.append(tick() - t0)
    return pd.DataFrame(
        [
            {
                "n_words": n_words,
                "n_words_extraction": len(text.split()),
                "s": min(runs),
                "s_worst": max(runs),
                "json_bytes": size,
            }
        ]
    )


def diff_task(
    n_words: int, *, repeat: int = 5, seed: int = 0, clock: str = "cpu"
) -> tuple[pd.DataFrame, float]:
    """The runner task: :func:`diff_benchmark` and the peak memory of the process that ran it."""
    return diff_benchmark(n_words, repeat, seed, clock), peak_rss_mb()


def diff_rows(bench: pd.DataFrame, repeat: int) -> list[dict]:
    """summary.csv rows: seconds, the target and whether it is met."""
    r = bench.iloc[0]
    n = int(r["n_words"])
    return [
        summary_row(DIFF_DATASET, DIFF_METHOD, f"diff_s_{n}", float(r["s"]), n_pages=repeat),
        summary_row(DIFF_DATASET, DIFF_METHOD, "target_s", DIFF_TARGET_S, n_pages=repeat),
        summary_row(
            DIFF_DATASET,
            DIFF_METHOD,
            "meets_target",
            float(r["s"] <= DIFF_TARGET_S),
            n_pages=repeat,
        ),
    ]


def diff_outputs(ctx: Context, bench: pd.DataFrame, clock: str) -> None:
    r = bench.iloc[0]
    table = pd.DataFrame(
        {
            "gold_words": [f"{int(r['n_words'])}"],
            "extraction_words": [f"{int(r['n_words_extraction'])}"],
            "s": [f"{r['s']:.3f}"],
            "s_worst": [f"{r['s_worst']:.3f}"],
            "json_kB": [f"{r['json_bytes'] / 1000:.1f}"],
        }
    )
    caption = (
        f"report.html's word diff of a seeded page and its edited extraction "
        f"({'CPU' if clock == 'cpu' else 'wall'} s, best of runs; "
        f"{REMOVED_SPANS} spans removed, {ADDED_SPANS} added); target < "
        f"{DIFF_TARGET_S:g} s"
    )
    write_table(table, ctx.out / "tables" / "speed_report_diff", caption=caption)
    ctx.report += [
        Heading("The report's diff of a long page"),
        Table(table, lead=f"**{caption}**", gap=False),
    ]
