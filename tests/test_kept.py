"""Kept extractions (evalkit.harness.kept): a run without cache keeps its pages' gold as the
records stream by, the same bytes as a second read of the pages."""

import gzip
import json

import pytest

from evalkit.harness.extract import KEPT_PAGE
from evalkit.harness.kept import NO_CACHE, StreamedKept, keep_extractions
from evalkit.harness.runner import Runner
from evalkit.harness.scoring import score_extraction
from evalkit.harness.specs import MethodSpec
from evalkit.readers.synthetic import SyntheticDataset

SPECS = [MethodSpec("cetd", "cetd"), MethodSpec("fulltext", "fulltext")]


@pytest.mark.parametrize(
    "settings",
    [
        {"n_jobs": 1, "page_timeout": 30},  # one pipeline here, methods in its page worker
        {"n_jobs": 1},  # methods in this process
        {"n_jobs": 2},  # site tasks made and run in two worker processes
    ],
    ids=["page-worker", "in-process", "workers"],
)
def test_a_run_without_cache_keeps_the_gold_as_it_streams_the_bytes_of_a_second_read(
    tmp_path, settings
):
    ds = SyntheticDataset(n_sites=3, pages_per_site=2, seed=5)
    (tmp_path / "streamed").mkdir()
    (tmp_path / "read").mkdir()  # the same file name: gzip's header holds it
    streamed = StreamedKept(tmp_path / "streamed" / "k.jsonl.gz")
    with Runner(progress=False, **settings) as runner:
        records = list(
            runner.iter_records(ds.pages(), SPECS, score=score_extraction, keep_gold=True)
        )
    for rec in records:
        streamed.add(rec)
    streamed.close()
    keep_extractions(tmp_path / "read" / "k.jsonl.gz", ds.pages(), SPECS, None)

    got = (tmp_path / "streamed" / "k.jsonl.gz").read_bytes()
    assert got == (tmp_path / "read" / "k.jsonl.gz").read_bytes()
    assert not any(KEPT_PAGE in rec for rec in records)  # taken off before per_page.csv
    lines = [json.loads(line) for line in gzip.decompress(got).decode().splitlines()]
    # 6 pages: each page's line, then one line per method in the methods' order
    assert [(r["kind"], r.get("method")) for r in lines[:3]] == [
        ("page", None),
        ("extraction", "cetd"),
        ("extraction", "fulltext"),
    ]
    assert len(lines) == 18 and {r["missing"] for r in lines[1::3] + lines[2::3]} == {NO_CACHE}
    golds = {p.id: p.gold.text for p in ds.pages()}
    assert {r["page_id"]: r["gold"] for r in lines[::3]} == golds


def test_no_records_no_gzip_member(tmp_path):
    kept = StreamedKept(tmp_path / "k.jsonl.gz")
    kept.close()
    assert not (tmp_path / "k.jsonl.gz").exists()


def test_a_run_with_a_cache_makes_site_pages_in_the_workers_and_indexes_every_page(tmp_path):
    from evalkit.harness.cache_keys import page_key

    ds = SyntheticDataset(n_sites=3, pages_per_site=2, seed=5)
    pages = ds.pages()
    with Runner(progress=False, n_jobs=2, cache_root=str(tmp_path / "cache")) as runner:
        records = list(runner.iter_records(pages, SPECS, score=score_extraction))
    # the keys came back with the records of the site tasks the workers made the pages of,
    # and every entry the run wrote is noted on disk
    log = runner.written[str(tmp_path / "cache")]
    wrote = {(s.label, page_key(p)) for s in SPECS for p in ds.pages()}
    assert sorted(log) == sorted(wrote) and len(list(log)) == len(wrote)
    with Runner(progress=False, n_jobs=2, cache_root=str(tmp_path / "cache")) as again:
        assert len(list(again.iter_records(ds.pages(), SPECS, score=score_extraction))) == 12
    assert not again.written  # every entry was read back: none written, none noted
    assert len(records) == 12 and not any(k.startswith("_") for r in records for k in r)
    assert len(ds.seen_) == 6  # each page's sha256 came back too
