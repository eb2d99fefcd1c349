"""The speed experiment's report-diff benchmark: the generated pair and what its diff must find."""

from __future__ import annotations

import json

from evalkit.experiments.speed.diff_bench import (
    DIFF_DATASET,
    diff_benchmark,
    diff_pair,
    diff_rows,
)
from evalkit.report.diff import word_opcodes


def test_the_pair_is_seeded_and_edited_as_documented():
    gold, text = diff_pair(50_000, seed=0)
    assert diff_pair(50_000, seed=0) == (gold, text)  # same seed, same page
    assert diff_pair(50_000, seed=1) != (gold, text)
    g, t = gold.split(), text.split()
    # 50,000 gold words, 10% (5,000) removed in 40 spans, 6% (3,000) added in 30 spans:
    # 50,000 - 5,000 + 3,000 = 48,000
    assert len(g) == 50_000 and len(t) == 48_000
    assert sum(w.startswith("nav") for w in t) == 3_000 and not any(w.startswith("nav") for w in g)


def test_the_diff_finds_exactly_the_edits():
    gold, text = diff_pair(50_000, seed=0)
    moved = {"equal": 0, "delete": 0, "insert": 0}
    for tag, i1, i2, j1, j2 in word_opcodes(gold.split(), text.split()):
        moved[tag] += max(i2 - i1, j2 - j1)
    assert moved == {"equal": 45_000, "delete": 5_000, "insert": 3_000}


def test_the_benchmark_row_and_its_summary_rows():
    bench = diff_benchmark(2_000, repeat=2, seed=0)
    row = bench.iloc[0]
    assert row["n_words"] == 2_000 and row["n_words_extraction"] == 2_000 - 200 + 120
    assert 0 < row["s"] <= row["s_worst"] and row["json_bytes"] > 0
    rows = {r["metric"]: r["value"] for r in diff_rows(bench, 2)}
    assert set(rows) == {"diff_s_2000", "target_s", "meets_target"}
    assert rows["target_s"] == 1.0 and rows["meets_target"] == float(row["s"] <= 1.0)
    assert all(r["dataset"] == DIFF_DATASET for r in diff_rows(bench, 2))
    json.dumps(rows)  # plain numbers
