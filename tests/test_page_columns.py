"""The extraction summaries read from the columnar copy on disk (evalkit.harness.column_store)
equal those of the records' frame in memory, bit for bit: failures, NaN scores, pages in
no order, ids that sort differently as bytes and as text would, lone surrogates."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from evalkit.experiments import Context
from evalkit.experiments.extraction import bucket_rows, summarize
from evalkit.harness.column_store import _id_bytes, page_numbers, store_columns
from evalkit.harness.page_columns import FramePages
from evalkit.harness.pairwise import pairwise_rows
from evalkit.report.results import RecordSpill

METHODS = ("cetd", "fulltext", "proposed")


def _records(seed: int, n: int, drop: bool) -> list[dict]:
    rng = np.random.default_rng(seed)
    ids = [f"p{rng.integers(0, 10**6)}-{i}" for i in range(n)]
    ids[::7] = [f"é{i}" for i in range(len(ids[::7]))]
    ids[::11] = [f"\udce9x{i}" for i in range(len(ids[::11]))]  # a non-UTF-8 file name
    ids[::13] = [f"Z{i}中" for i in range(len(ids[::13]))]
    out = []
    for pid in ids:
        c = float(rng.random()) if rng.random() > 0.05 else math.nan
        for m in METHODS:
            failed = rng.random() < 0.1
            p, r = rng.random(), rng.random()
            f = 2 * p * r / (p + r)
            rec = {
                "experiment": "extraction",
                "dataset": "d",
                "page_id": pid,
                "method": m,
                "error": "boom" if failed else None,
                "complexity": c,
                "shingle_precision": p,
                "shingle_recall": r,
                "shingle_f1": f,
                "word_f1": f if rng.random() > 0.1 else math.nan,
                "unit_tp": float(rng.integers(0, 9)),
                "unit_fp": float(rng.integers(0, 9)),
                "unit_fn": float(rng.integers(0, 9)),
                "unit_tn": float(rng.integers(0, 9)),
            }
            if failed and drop:  # runner.on_failure=drop: no score at all
                rec.update({k: math.nan for k in rec if k.startswith(("shingle", "word", "unit"))})
            out.append(rec)
    return [out[i] for i in rng.permutation(len(out))]  # records in no page order


@pytest.fixture(params=[True, False], ids=["drop", "empty"])
def both(request, tmp_path):
    records = _records(7, 120, drop=request.param)
    spill = RecordSpill(tmp_path / ".records-0.jsonl")
    spill.append(records)
    stored = store_columns(spill, spill.columns, "extraction")
    yield pd.DataFrame.from_records(records), stored
    stored.close()
    spill.close()


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    assert list(a.columns) == list(b.columns)
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_summaries_from_disk_equal_those_of_the_frame(both):
    frame, stored = both
    opts = {"n_boot": 60, "reference": "cetd"}
    _same(summarize(stored, "d", opts, 3), summarize(frame, "d", opts, 3))
    for metric in ("shingle_f1", "unit_f1", "word_f1"):
        _same(
            pairwise_rows(stored, "d", metric, n_boot=60, alpha=0.05, seed=3),
            pairwise_rows(frame, "d", metric, n_boot=60, alpha=0.05, seed=3),
        )
    (got, got_info), (want, want_info) = (bucket_rows(x, "d", opts, 3) for x in (stored, frame))
    _same(got, want)
    assert got_info["pages"] == want_info["pages"] and got_info["cuts"] == want_info["cuts"]
    assert got_info["unbucketed"] == want_info["unbucketed"] > 0


def test_the_store_keeps_counts_failures_and_first_values(both):
    frame, stored = both
    assert stored.methods == list(dict.fromkeys(frame["method"]))
    failed = frame[frame["error"].notna()]
    assert stored.failures == list(zip(failed["page_id"], failed["method"], failed["error"]))
    assert stored.any_error and stored.n_pages == frame["page_id"].nunique()
    mem = FramePages(frame)
    np.testing.assert_array_equal(stored.first_values("complexity"), mem.first_values("complexity"))
    for m in METHODS:
        assert stored.count(m) == (frame["method"] == m).sum()
        np.testing.assert_array_equal(stored.page(m), mem.page(m))
        np.testing.assert_array_equal(stored.values(m, "word_f1"), mem.values(m, "word_f1"))
    assert stored.page_ids("cetd") == set(frame.loc[frame["method"] == "cetd", "page_id"])
    _same(stored.frame(), frame[stored.columns])


def test_page_numbers_rank_ids_as_pandas_sorts_them():
    ids = ["b", "a", "\udce9", "é", "Z", "中", "a", "\U0001f600", "ab", ""]
    codes, n = page_numbers([_id_bytes(ids[:4]), _id_bytes(ids[4:])])
    want = pd.factorize(pd.Series(ids, dtype=object), sort=True)[0]
    assert n == len(set(ids)) and codes.tolist() == want.tolist()


def test_context_records_the_stored_pages_failures_in_record_order(both, tmp_path):
    frame, stored = both
    ctx = Context(cfg={"runner": {}}, out=tmp_path, datasets={}, specs=[], seed=0)
    ctx.record_pages(stored, "d", spill=stored.spill)
    failed = frame[frame["error"].notna()]
    assert [(f["page"], f["method"]) for f in ctx.failures] == list(
        zip(failed["page_id"], failed["method"])
    )
    assert ctx.n_records[("d", "cetd")] == (frame["method"] == "cetd").sum()
    assert [len(f) for f in ctx.part_frames("extraction")] == [len(frame)]


def test_a_page_id_that_is_not_text_is_named():
    with pytest.raises(TypeError, match="page id must be text"):
        _id_bytes(["p1", 7])
