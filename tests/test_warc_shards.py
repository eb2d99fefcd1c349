"""WARC files read by the workers, one task per file (evalkit.readers.warc.shards.WarcPages): the same
records in the same order, the same skips and the same fingerprint as reading in the main
process, on the local runner in one process or two and on Dask; a site or a page id in two
files keeps the main process reading (from the workers' index)."""

from __future__ import annotations

import gzip
import os

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from evalkit.harness.config import register_resolvers
from evalkit.harness.make_warc import http_response, warc_record, write_crawl
from evalkit.harness.runner import Runner
from evalkit.harness.specs import MethodSpec
from evalkit.readers.base import Dataset
from evalkit.readers.warc import WarcDataset, WarcPages, WarcShard
from evalkit.shell.cli import CONFIG_DIR

pytest.importorskip("fastwarc.warc")
register_resolvers()

SPECS = [MethodSpec("fulltext", "fulltext"), MethodSpec("empty", "empty")]
#: every page of the generated files above this many bytes is skipped (runner.max_page_bytes)
PAGE_CAP = 7000
RUNNERS = {
    "n_jobs=1": {"n_jobs": 1},
    "n_jobs=2": {"n_jobs": 2},
    "dask": {"name": "dask", "dask": {"n_workers": 2, "processes": False}},
}


def _score(page, method, ext):
    return {"page_id": page.id, "method": method, "error": ext.error, "text": ext.text}


def _response(rid: str, uri: str | None, block: bytes) -> bytes:
    head = [("WARC-Type", "response"), ("WARC-Record-ID", f"<urn:uuid:{rid}>")]
    head.append(("WARC-Date", "2024-01-01T00:00:00Z"))
    if uri is not None:
        head.append(("WARC-Target-URI", uri))
    head.append(("Content-Type", "application/http; msgtype=response"))
    return gzip.compress(warc_record(head, block), mtime=0)


def _html(text: str) -> bytes:
    return http_response(f"<html><body><p>{text}</p></body></html>".encode())


def _broken_file(path, first_id: str = "b-1") -> None:
    """Two sites, a PDF, a 404, a page id twice, a page without a site, bytes that are not
    HTML under an HTML type, a record cut short at the end."""
    gone = b"HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nContent-Length: 4\r\n\r\ngone"
    data = b"".join(
        [
            _response(first_id, "http://x.example/1", _html("first page of x")),
            _response("b-2", "http://x.example/doc.pdf", http_response(b"%PDF", "application/pdf")),
            _response("b-3", "http://y.example/gone", gone),
            _response(first_id, "http://y.example/again", _html("the same id again")),
            _response("b-5", None, _html("a page without a site")),
            _response("b-6", "http://x.example/2", http_response(b"%PDF-1.4 \x00\x01\x02")),
            _response("b-7", "http://y.example/2", _html("second page of y")),
        ]
    )
    cut = _response("b-9", "http://z.example/cut", _html("cut " * 300))
    path.write_bytes(data + cut[:-20])


def _folder(tmp_path, kind: str):
    folder = tmp_path / kind
    # sites of 3 pages, 6 a file: every site in one file ("apart"), else over two
    per_site = 4 if kind == "site_in_two_files" else 3
    write_crawl(folder, 12, pages_per_site=per_site, records_per_file=6)
    _broken_file(folder / "broken.warc.gz")
    os.symlink(tmp_path, folder / "out.warc.gz")  # leads out of the folder: refused
    if kind == "id_in_two_files":  # a page id of crawl-00000 again, in a file of its own
        first = next(iter(WarcDataset(str(folder), files="crawl-*.warc.gz").pages()))
        _broken_file(folder / "dup.warc.gz", first_id=first.id)
    return folder


def _reader(folder) -> WarcDataset:
    ds = WarcDataset(str(folder))
    ds.max_page_bytes = PAGE_CAP
    return ds


def _run(folder, settings: dict):
    ds = _reader(folder)
    with Runner(progress=False, **settings) as runner:
        records = runner.run_pages(ds.pages(), SPECS, score=_score)
    skipped = [(s.file, s.reason) for s in ds.skipped]
    return records, skipped, len(ds.seen_), ds.seen_.fingerprint()


def _shards(folder):
    return WarcDataset(str(folder)).pages().shard_tasks(lambda fn, tasks, total: map(fn, tasks))


@pytest.mark.parametrize("kind", ["apart", "id_in_two_files", "site_in_two_files"])
def test_every_runner_gives_the_main_process_records_skips_and_fingerprint(tmp_path, kind):
    folder = _folder(tmp_path, kind)
    ds = _reader(folder)
    here = list(Dataset.pages(ds))  # today's reading, in this process
    want = _run(folder, RUNNERS["n_jobs=1"])
    records, skipped, n_pages, _ = want
    assert [r["page_id"] for r in records[::2]] == [p.id for p in here]
    assert skipped == [(s.file, s.reason) for s in ds.skipped] and n_pages == len(here)
    reasons = " | ".join(reason for _, reason in skipped)
    for part in ("duplicate page id 'b-1'", "truncated record", "HTTP status 404", "too large"):
        assert part in reasons
    assert "not HTML: a PDF" in reasons and "symbolic link leading out" in reasons
    for name in ("n_jobs=2", "dask"):
        if name == "dask":
            pytest.importorskip("distributed")
        assert _run(folder, RUNNERS[name]) == want, name


def test_shards_only_when_no_site_or_page_id_is_in_two_files(tmp_path):
    shards = _shards(_folder(tmp_path, "apart"))
    assert [os.path.basename(s.file) for s in shards] == [
        "broken.warc.gz",
        "crawl-00000.warc.gz",
        "crawl-00001.warc.gz",
    ]
    assert all(isinstance(s, WarcShard) for s in _shards(tmp_path / "apart"))
    assert _shards(_folder(tmp_path, "id_in_two_files")) is None
    assert _shards(_folder(tmp_path, "site_in_two_files")) is None
    limited = WarcDataset(str(tmp_path / "apart"), limit=3)
    assert limited.pages().shard_tasks(lambda fn, tasks, total: map(fn, tasks)) is None


def test_a_file_the_workers_see_otherwise_is_read_here(tmp_path, capsys):
    folder = _folder(tmp_path, "apart")
    pages = WarcDataset(str(folder)).pages()

    def changed(fn, tasks, total):  # a worker whose copy of the first file differs
        tasks = list(tasks)
        os.utime(tasks[0].file, ns=(0, 0))
        return map(fn, tasks)

    assert pages.shard_tasks(changed) is None
    assert "differs from the main process's copy" in capsys.readouterr().err


def _compose(overrides):
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        return compose(config_name="config", overrides=overrides)


def test_crawl_run_gives_the_same_files_on_every_runner(tmp_path, monkeypatch):
    pytest.importorskip("py3langid")
    pytest.importorskip("distributed")
    from evalkit.experiments import run_experiment

    # without a cache the run hands the reader's stream to the runner as it is
    planned = []
    plan = WarcPages.shard_tasks
    monkeypatch.setattr(
        WarcPages, "shard_tasks", lambda self, fn: planned.append(plan(self, fn)) or planned[-1]
    )
    folder = _folder(tmp_path, "apart")
    common = [
        "experiment=crawl",
        f"dataset.warc.path={folder}",
        "method=[fulltext,cetd]",
        "runner.cache=false",
        "runner.progress=false",
        "runner.quiet=true",
        "report.html=false",
    ]
    runs = {
        "n1": ["runner.n_jobs=1"],
        "n2": ["runner.n_jobs=2"],
        "dask": ["runner=dask", "runner.processes=false", "runner.n_workers=2"],
    }
    outs = {k: run_experiment(_compose([*common, *v]), tmp_path / k) for k, v in runs.items()}
    files = ["summary.csv"] + [
        f"tables/crawl_{kind}_warc.csv" for kind in ("yield", "languages", "agreement", "union")
    ]
    for name in files:
        want = (outs["n1"] / name).read_bytes()
        assert all((out / name).read_bytes() == want for out in outs.values()), name
    # per_page.csv: byte for byte but for the methods' timings
    untimed = {
        k: pd.read_csv(out / "per_page.csv").drop(columns="seconds") for k, out in outs.items()
    }
    assert len(untimed["n1"]) == 36  # 15 pages x 2 methods, 6 skipped files
    for k in ("n2", "dask"):
        assert untimed[k].to_csv(index=False) == untimed["n1"].to_csv(index=False), k
    described = {}
    for k, out in outs.items():
        data = pd.read_json(out / "run.json", typ="series")["datasets"]["warc"]
        described[k] = {key: data[key] for key in ("n_pages", "fingerprint", "skipped")}
    assert described["n1"]["n_pages"] == 15 and described["n1"]["skipped"]
    assert described["n2"] == described["n1"] == described["dask"]
    assert len(planned) == 2 and all(shards is not None for shards in planned)  # n2, dask
