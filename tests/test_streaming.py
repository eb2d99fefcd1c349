"""Memory that does not grow with the number of pages: spilled records, chunked bootstrap
draws, released Dask futures (issue 17)."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest

from evalkit.metrics import inference
from evalkit.report.results import RecordSpill, write_csv, write_frames_csv

RECORDS = [
    {"experiment": "x", "page_id": "p\udce9", "n": 1234567, "ok": True, "f": 0.1234567},
    {"experiment": "x", "page_id": "q", "n": 2, "f": None, "late": "a"},
    {"experiment": "x", "page_id": "r", "n": 3, "ok": False, "f": float("nan")},
]


def _spill(tmp_path, records, name="s.jsonl"):
    spill = RecordSpill(tmp_path / name)
    for rec in records:  # one record per append: chunks of one row
        spill.append([rec])
    return spill


def test_chunked_per_page_csv_has_the_bytes_of_the_whole_frame(tmp_path):
    spill = _spill(tmp_path, RECORDS)
    write_frames_csv([spill], tmp_path / "new.csv")
    # worked by hand: n is missing nowhere but a later frame lacks it -> float, so
    # 1234567 prints as %.6g; ok is bool with a gap -> object; the surrogate is written out
    other = pd.DataFrame({"experiment": ["y"], "page_id": ["s"]})
    write_frames_csv([spill, other], tmp_path / "two.csv")
    assert (tmp_path / "new.csv").read_text() == (
        "experiment,page_id,n,ok,f,late\n"
        "x,p\\xe9,1234567,True,0.123457,\n"
        "x,q,2,,,a\n"
        "x,r,3,False,,\n"
    )
    assert (tmp_path / "two.csv").read_text() == (
        "experiment,page_id,n,ok,f,late\n"
        "x,p\\xe9,1.23457e+06,True,0.123457,\n"
        "x,q,2,,,a\n"
        "x,r,3,False,,\n"
        "y,s,,,,\n"
    )
    write_csv(
        pd.concat([pd.DataFrame.from_records(RECORDS), other], ignore_index=True),
        tmp_path / "old.csv",
    )
    assert (tmp_path / "two.csv").read_bytes() == (tmp_path / "old.csv").read_bytes()


def test_a_chunk_is_cast_to_the_dtype_of_all_records(tmp_path):
    # the first chunk alone is all ints; with the second's gap the column is float
    spill = _spill(tmp_path, [{"a": 1234567}, {"b": 1}])
    chunks = list(spill.chunks(rows=1))
    assert [c["a"].dtype for c in chunks] == [np.float64, np.float64]
    assert spill.frame(["a"]).columns.tolist() == ["a"]
    write_frames_csv([spill], tmp_path / "p.csv")
    assert (tmp_path / "p.csv").read_text() == "a,b\n1.23457e+06,\n,1\n"


def test_the_frame_of_a_spill_is_the_frame_of_all_its_records(tmp_path):
    # more records than a chunk, kinds that change between chunks: ints that become floats
    # (a gap, a fraction), a flag with gaps, an error on a few records, a column that comes late
    records = [
        {
            "experiment": "x",
            "page_id": f"p{i // 2}",
            "method": "ab"[i % 2],
            "n": float("nan") if i == 2100 else i,
            "f": 0.5 if i == 1500 else i,
            "ok": None if i % 7 == 0 else bool(i % 2),
            "error": "boom" if i % 500 == 0 else None,
            **({"late": "z"} if i > 1800 else {}),
        }
        for i in range(2345)
    ]
    spill = RecordSpill(tmp_path / "s.jsonl")
    spill.append(records[:1000])
    spill.append(records[1000:])
    whole = pd.DataFrame.from_records(records)
    frame = spill.frame()
    pd.testing.assert_frame_equal(frame, whole, check_exact=True)
    some = spill.frame(["method", "late", "n"])
    pd.testing.assert_frame_equal(some, whole[["method", "late", "n"]], check_exact=True)
    # a chunk's equal texts are one string object
    assert frame["experiment"].iloc[0] is frame["experiment"].iloc[999]
    empty = RecordSpill(tmp_path / "e.jsonl").frame(["a"])
    assert empty.empty and empty.columns.tolist() == []


def test_the_parquet_copy_written_by_parts_has_the_bytes_of_the_whole_table(tmp_path, monkeypatch):
    pq = pytest.importorskip("pyarrow.parquet")
    from evalkit.report import per_page_parquet
    from evalkit.report.per_page_csv import read_per_page

    # small row groups and parts, so that a few thousand rows make several of each
    monkeypatch.setattr(per_page_parquet, "ROW_GROUP_ROWS", 2048)
    monkeypatch.setattr(per_page_parquet, "PIECE_ROWS", 1024)
    rows = ["experiment,page_id,cached,whole,gap_late,frac_late,flag,flag_gap,text_late,error"]
    for i in range(5000):
        late = i >= 4096  # the last row group's parts only
        rows.append(
            f"x,{i:05d},{'' if i % 5 == 0 else bool(i % 2)},{i},{'' if late else i},"
            f"{f'{i}.5' if late else i},{bool(i % 3)},{'' if late else bool(i % 3)},"
            f"{'t' if late else i},{'=boom' if i % 999 == 0 else ''}"
        )
    csv = tmp_path / "per_page.csv"
    csv.write_text("\n".join(rows) + "\n")

    def whole(path):
        raise AssertionError("the copy read the whole csv at once")

    monkeypatch.setattr(per_page_parquet, "read_per_page", whole)  # the fallback's read
    path = per_page_parquet.write_per_page_parquet(csv)
    pq.write_table(
        per_page_parquet._arrow(read_per_page(csv)),
        tmp_path / "whole.parquet",
        row_group_size=2048,
        compression="zstd",
        compression_level=per_page_parquet.ZSTD_LEVEL,
        write_statistics=True,
    )
    assert pq.ParquetFile(path).metadata.num_row_groups == 3
    assert path.read_bytes() == (tmp_path / "whole.parquet").read_bytes()


def test_a_spill_is_deleted_on_close(tmp_path):
    spill = _spill(tmp_path, RECORDS[:1])
    assert spill.path.exists()
    spill.close()
    assert not spill.path.exists()


def test_bootstrap_chunks_give_the_one_shot_draws(monkeypatch):
    x = np.array([0.0, 1.0, 0.5, 0.25, 0.75, 1.0, 0.0])
    # the interval as one 200 x 7 draw gives it
    idx = np.random.default_rng(3).integers(0, x.size, size=(200, x.size))
    want = tuple(np.quantile(x[idx].mean(axis=1), [0.025, 0.975]))
    monkeypatch.setattr(inference, "_CELLS", 10)  # one resample (row) at a time
    assert inference.bootstrap_ci(x, n_boot=200, seed=3) == want
    p = inference.paired_permutation_test(x, np.zeros(7), n_perm=50, seed=1)
    monkeypatch.setattr(inference, "_CELLS", 1 << 18)
    assert inference.bootstrap_ci(x, n_boot=200, seed=3) == want
    assert inference.paired_permutation_test(x, np.zeros(7), n_perm=50, seed=1) == p


def _square(x):
    time.sleep(0.01 * (x % 3))  # finish out of order
    return x * x


def test_dask_map_keeps_order_and_releases_every_future():
    pytest.importorskip("distributed")
    from evalkit.harness.dask_runner import DaskBackend

    backend = DaskBackend(n_workers=2, processes=False, window_per_worker=2).open()
    try:
        assert list(backend.map(_square, range(20))) == [x * x for x in range(20)]
        scheduler = backend.client.cluster.scheduler
        for _ in range(100):  # releases reach the scheduler asynchronously
            if not scheduler.tasks:
                break
            time.sleep(0.05)
        assert not backend.client.futures
        assert not scheduler.tasks
    finally:
        backend.close()


def test_dask_streams_keep_no_log_of_the_runs_tasks():
    # each compute message carries a task's pages: dask's default 1000-message debug log
    # per stream held them all in this process
    pytest.importorskip("distributed")
    from evalkit.harness.dask_runner import LOG_LENGTH, DaskBackend

    backend = DaskBackend(n_workers=1, processes=False, window_per_worker=2).open()
    try:
        assert list(backend.map(_square, range(4 * LOG_LENGTH))) == [
            x * x for x in range(4 * LOG_LENGTH)
        ]
        streams = list(backend.client.cluster.scheduler.stream_comms.values())
        assert streams
        for stream in [*streams, backend.client.scheduler_comm]:
            assert 0 < len(stream.recent_message_log) <= LOG_LENGTH
    finally:
        backend.close()
