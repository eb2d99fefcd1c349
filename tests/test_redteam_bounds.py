"""Issue 37's "every page bounded, every run folder marked" items (3, 13-18), each written as
the attack: a gold side that fails, attributes that hide ``<``, a glob of 200 stored rows, a
method's thread that never ends, a ``CancelledError``, a broken ``ground-truth.json``, a
runner asking for 100,000 workers. Time bounds here only detect a hang."""

from __future__ import annotations

import asyncio
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from evalkit.core.method import Extractor
from evalkit.core.page import Extraction, Gold, Page
from evalkit.harness.errors import RunnerError
from evalkit.harness.pipeline import run_task
from evalkit.harness.runner import Runner
from evalkit.harness.specs import MethodSpec


def _page(pid: str, body: str, gold: str) -> Page:
    return Page(
        id=pid,
        dataset="t",
        raw=f"<html><body><p>{body}</p></body></html>".encode(),
        gold=Gold(text=gold),
    )


def _cli(tmp_path: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """``python -m evalkit`` on a tiny synthetic set, results under ``tmp_path``."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "evalkit",
            "experiment=extraction",
            "runner.progress=false",
            "extraction.n_boot=10",
            f"paths.results={tmp_path / 'results'}",
            f"paths.cache={tmp_path / 'cache'}",
            *args,
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


# ---- item 16: any BaseException of a method is that page's failure --------------------


class Cancelled(Extractor):
    """A method whose event loop was cancelled under it on one page."""

    def extract(self, page):
        if page.id == "bad":
            raise asyncio.CancelledError("the loop went away")
        return Extraction(text="one two")


def _rec(page, method, ext):
    return {
        "page_id": page.id,
        "method": method,
        "error": ext.error,
        "n_out": None if ext.error else len(ext.text.split()),
    }


def test_a_cancelled_error_of_an_in_process_method_is_a_page_failure():
    pages = [_page("bad", "x", "x"), _page("ok", "one two", "one two")]
    # main: CancelledError (a BaseException) went through extract_one and ended the run
    recs = run_task(pages, [MethodSpec.from_object("c", Cancelled())], None, _rec, "empty")
    assert recs[0]["error"].startswith("CancelledError: the loop went away")
    assert recs[0]["n_out"] == 0  # scored as empty
    assert (recs[1]["error"], recs[1]["n_out"]) == (None, 2)  # and the run went on


# ---- item 18: worker counts are bounded at construction --------------------------------


@pytest.mark.parametrize(
    ("settings", "key"),
    [
        ({"n_jobs": 100_000}, "runner.n_jobs=100000"),
        ({"name": "dask", "n_workers": 100_000}, "runner.n_workers=100000"),
        ({"name": "dask", "threads_per_worker": 100_000}, "runner.threads_per_worker=100000"),
    ],
)
def test_a_hundred_thousand_workers_is_refused_in_one_line(settings, key):
    from evalkit.core.validate import max_workers

    with pytest.raises(RunnerError) as err:
        Runner.from_config(settings)  # main: accepted, and the run started that many
    msg = str(err.value)
    assert (
        msg == f"{key}: must be a whole number from 1 to {max_workers()} (4 per CPU of "
        "this machine)"
    )
    Runner.from_config({**settings, **{k: max_workers() for k in settings if k != "name"}})


# ---- item 15: a thread a method leaves running does not keep evalkit alive -------------

LINGERING = '''
import threading
import time

from evalkit.core.method import Extractor
from evalkit.core.page import Extraction


class Lingers(Extractor):
    """Starts a thread that is not a daemon and outlives the run."""

    def extract(self, page):
        threading.Thread(target=time.sleep, args=(3600,), name="lingerer").start()
        return Extraction(text="x")
'''


def test_a_method_thread_left_running_does_not_keep_evalkit_alive(tmp_path):
    (tmp_path / "lingers.py").write_text(LINGERING)
    # main: the run finished, then Python waited an hour for the method's thread
    done = _cli(
        tmp_path,
        "dataset=synthetic",
        "dataset.synthetic.n_sites=1",
        "dataset.synthetic.pages_per_site=2",
        "method=[fulltext]",
        "method.mine._target_=lingers.Lingers",
        "runner.page_timeout=0",
        "runner.n_jobs=1",
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    assert "not waiting for" in done.stderr and "(lingerer)" in done.stderr
    (run_json,) = (tmp_path / "results").glob("runs/*/*/run.json")
    assert json.loads(run_json.read_text())["status"] == "complete"


# ---- item 17: a broken data or stored file is one line naming it, and run.json says so ---


def _aeb(folder: Path, truth: str | None = None) -> Path:
    """A one-page copy of the article-extraction-benchmark layout."""
    import gzip

    (folder / "html").mkdir(parents=True)
    (folder / "html" / "p1.html.gz").write_bytes(
        gzip.compress(b"<html><body><p>The story of the day, told in full.</p></body></html>")
    )
    if truth is None:
        truth = json.dumps(
            {
                "p1": {
                    "articleBody": "The story of the day, told in full.",
                    "url": "http://news.example/p1",
                }
            }
        )
    (folder / "ground-truth.json").write_text(truth)
    return folder


def _failed_run(tmp_path: Path, done: subprocess.CompletedProcess, line: str) -> None:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == f"evalkit: {line}"
    (run_json,) = (tmp_path / "results").glob("runs/*/*/run.json")
    assert json.loads(run_json.read_text()) == {"status": "failed", "reason": line}


def test_a_truncated_ground_truth_is_one_line_and_a_marked_run_folder(tmp_path):
    data = _aeb(tmp_path / "aeb", truth='{"p1": {"articleBody": "The story')
    # main: a JSONDecodeError traceback and a run folder without run.json
    done = _cli(tmp_path, "dataset=aeb", f"dataset.aeb.path={data}", "method=[fulltext]")
    _failed_run(
        tmp_path,
        done,
        f"{data / 'ground-truth.json'}: not a JSON document "
        "(Unterminated string starting at: line 1 column 24 (char 23))",
    )


def test_a_fifo_ground_truth_is_never_opened_and_the_run_folder_is_marked(tmp_path):
    data = _aeb(tmp_path / "wceb", truth="")
    (data / "ground-truth.json").unlink()
    os.mkfifo(data / "ground-truth.json")  # opening it for reading would block forever
    done = _cli(
        tmp_path, "dataset=aeb", f"dataset.aeb.path={data}", "method=[fulltext]", timeout=120
    )
    _failed_run(
        tmp_path,
        done,
        f"{data / 'ground-truth.json'}: not a regular file (a FIFO, "
        "device, socket or folder); runner.max_gold_bytes needs its size",
    )


def test_deeply_nested_stored_json_is_one_line_naming_the_file(tmp_path):
    from baselines.stored import StoredFileError, read_outputs

    deep = tmp_path / "tool.json"
    deep.write_text('{"p1": {"articleBody": ' + "[" * 100_000 + "]" * 100_000 + "}}")
    # main: RecursionError, a traceback and a run folder without run.json
    with pytest.raises(StoredFileError, match="nested too deeply"):
        read_outputs(deep)
    lines = tmp_path / "tool.jsonl"
    lines.write_text('{"id": "p1", "text": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    with pytest.raises(StoredFileError, match=r"tool.jsonl:1: not a JSON document \(nested"):
        read_outputs(lines)
    data = _aeb(tmp_path / "aeb")
    done = _cli(
        tmp_path,
        "dataset=aeb",
        f"dataset.aeb.path={data}",
        "method=[stored]",
        f"method.stored.path={deep}",
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"evalkit: method 'stored': {deep}: not a JSON document (nested too deeply to read)"
    )


# ---- item 3: a page whose own side of scoring fails still counts under on_failure=empty ---


def test_a_page_whose_gold_cannot_be_scored_counts_as_empty_for_every_method():
    import pandas as pd

    from evalkit.harness.pipeline import run_task
    from evalkit.harness.scoring import score_extraction
    from evalkit.harness.summary import failure_rows, scored

    long_gold = " ".join(f"w{i}" for i in range(31))  # over runner.max_score_words=30
    pages = [_page(f"p{i}", "the story of the day", "the story of the day") for i in range(3)]
    pages.append(_page("long", "w0 w1 w2", long_gold))
    specs = [MethodSpec("fulltext", "fulltext"), MethodSpec("html_text", "html_text")]
    recs = run_task(pages, specs, None, score_extraction, "empty", max_score_words=30)
    df = pd.DataFrame(recs)
    for method, rows in df.groupby("method"):
        # main: n_pages 3 (the long page had no scores) while failures counted 1 of 4
        assert len(scored(rows, "shingle_f1")) == 4, method
        long = rows.set_index("page_id").loc["long"]
        assert long["error"] == "too long to score: 31 gold words > runner.max_score_words"
        assert long["shingle_f1"] == 0.0 and long["shingle_recall"] == 0.0
        assert math.isnan(long["n_words_gold"]) and long["n_bytes"] == len(pages[3].raw)
        assert rows["shingle_f1"].mean() == pytest.approx(0.75)
    assert [(r["method"], r["value"], r["n_pages"]) for r in failure_rows(df, "t")] == [
        ("fulltext", 1, 4),
        ("html_text", 1, 4),
    ]
    # under drop the page has no scores, as before
    drop = pd.DataFrame(run_task(pages, specs, None, score_extraction, "drop", max_score_words=30))
    assert drop.set_index("page_id").loc["long", "shingle_f1"].isna().all()
