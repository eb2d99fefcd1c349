"""evalkit.evaluate (evalkit/shell/api.py): the command as a Python function.

The scores of the in-memory pages are worked by hand: the shingle metric takes
4-grams of words (per-page precision and recall; the summary's F1 is the F1 of their
means over pages), the word metric bags of words (macro over pages).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest
from conftest import REPO, SHARED, shared_dataset

import evalkit
from evalkit.core.method import Extractor
from evalkit.core.page import Extraction
from evalkit.harness.config import ConfigError
from evalkit.shell.api import Result, evaluate, to_overrides

GOLD = "alpha beta gamma delta epsilon"
PAGES = [
    # page 1: the gold paragraph and a menu of two words
    (f"<html><body><p>{GOLD}</p>\n<div>menu footer</div></body></html>", GOLD),
    # page 2: the gold paragraph only
    ("<html><body><p>one two three four five six</p></body></html>", "one two three four five six"),
]


def all_text(html: str) -> str:
    """Every word of the page (page 1: the 5 gold words and 2 more)."""
    import lxml.html

    return " ".join(lxml.html.fromstring(html).text_content().split())


class Paragraphs(Extractor):
    """The text of the page's elements with tag ``tag``."""

    name = "paras"

    def __init__(self, tag: str = "p"):
        self.tag = tag

    def extract(self, page):
        return Extraction(text=" ".join(el.text_content() for el in page.tree().iter(self.tag)))


def _quick(tmp_path, **over) -> dict:
    """Settings of a small, fast run whose folder is under tmp_path."""
    return {
        "paths.results": str(tmp_path / "results"),
        "runner.n_jobs": 1,
        "runner.progress": False,
        "extraction.n_boot": 20,
        **over,
    }


def _row(frame: pd.DataFrame, method: str, **where) -> pd.Series:
    sel = frame["method"] == method
    for key, value in where.items():
        sel &= frame[key] == value
    rows = frame[sel]
    assert len(rows) == 1, rows
    return rows.iloc[0]


def test_a_function_is_scored_on_per_page_rows(tmp_path):
    r = evaluate(dataset=PAGES, methods=[all_text], **_quick(tmp_path))
    assert isinstance(r, Result) and r.run_dir.is_dir()
    pp = r.per_page
    assert list(pp["method"]) == ["all_text", "all_text"]
    one = _row(pp, "all_text", page_id="1")
    # 7 words out, 5 of them gold: word P = 5/7, R = 1, F1 = 2(5/7)/(12/7) = 10/12
    assert one["word_precision"] == pytest.approx(5 / 7)
    assert one["word_f1"] == pytest.approx(10 / 12)
    # 4-grams: 4 out (alpha..delta, beta..epsilon, gamma..menu, delta..footer), 2 of them
    # gold: P = 2/4, R = 2/2
    assert one["shingle_precision"] == pytest.approx(0.5)
    assert one["shingle_recall"] == pytest.approx(1.0)
    two = _row(pp, "all_text", page_id="2")
    assert two["shingle_f1"] == pytest.approx(1.0)
    s = r.summary
    # summary F1 = F1 of the mean P (0.75) and the mean R (1): 1.5 / 1.75
    assert _row(s, "all_text", metric="shingle_f1")["value"] == pytest.approx(1.5 / 1.75)
    assert _row(s, "all_text", metric="word_f1")["value"] == pytest.approx((10 / 12 + 1) / 2)
    assert _row(s, "all_text", metric="shingle_f1")["n_pages"] == 2
    assert list(s.columns) == [
        "experiment",
        "dataset",
        "method",
        "metric",
        "value",
        "ci_low",
        "ci_high",
        "n_pages",
    ]
    assert "all_text" in r.report() and r.report_path.is_file()
    figures = r.plot()
    assert list(figures) == ["memory"]
    assert [t.get_text() for t in figures["memory"].axes[0].get_yticklabels()] == ["all_text"]


def test_an_extractor_object_and_class_run_beside_a_configured_method(tmp_path):
    r = evaluate(
        dataset={"hand": PAGES},
        methods=["fulltext", Paragraphs, Paragraphs(tag="div")],
        **_quick(tmp_path),
    )
    s = r.summary
    assert list(dict.fromkeys(s["method"])) == ["fulltext", "paras", "paras_2"]
    assert set(s["dataset"]) == {"hand"}
    # the <p> elements are the gold on both pages
    assert _row(s, "paras", metric="shingle_f1")["value"] == pytest.approx(1.0)
    # the <div> holds "menu footer" on page 1 (2 words, no gold) and nothing on page 2
    pp = r.per_page
    assert _row(pp, "paras_2", page_id="1")["word_precision"] == pytest.approx(0.0)
    assert _row(pp, "paras_2", page_id="2")["n_words_out"] == 0
    # fulltext = all_text here: the same hand-worked word F1 on page 1
    assert _row(pp, "fulltext", page_id="1")["word_f1"] == pytest.approx(10 / 12)


def test_a_folder_of_pages_is_read_by_the_pairs_reader(tmp_path):
    flat = tmp_path / "mine"
    flat.mkdir()
    for i, (html, gold) in enumerate(PAGES):
        (flat / f"p{i}.html").write_text(html)
        (flat / f"p{i}.txt").write_text(gold)
    r = evaluate(dataset=flat, methods=[all_text], **_quick(tmp_path))
    assert set(r.per_page["dataset"]) == {"mine"}
    assert sorted(r.per_page["page_id"]) == ["p0", "p1"]
    assert _row(r.summary, "all_text", metric="shingle_f1")["value"] == pytest.approx(1.5 / 1.75)


def test_bad_input_is_one_clear_error(tmp_path):
    with pytest.raises(ConfigError, match=r"unknown dataset aebb; closest: aeb"):
        evaluate(dataset="aebb", methods=["fulltext"], **_quick(tmp_path))
    with pytest.raises(ConfigError, match=r"item 2: expected a pair"):
        evaluate(dataset=[PAGES[0], "just html"], methods=[all_text], **_quick(tmp_path))
    with pytest.raises(ConfigError, match=r"dataset 'memory': no \(html, gold text\) pairs"):
        evaluate(dataset=[], methods=[all_text], **_quick(tmp_path))
    with pytest.raises(ConfigError, match=r"unknown key runner.n_job; closest: runner.n_jobs"):
        evaluate(dataset=PAGES, methods=[all_text], **{"runner.n_job": 1})


def test_overrides_are_the_command_lines_key_value_pairs():
    assert to_overrides({"runner": {"n_jobs": 1}, "dataset.aeb.limit": 20}) == [
        "runner.n_jobs=1",
        "dataset.aeb.limit=20",
    ]
    assert to_overrides(
        {
            "runner": "dask",
            "paths.results": "/tmp/a b",
            "seed": None,
            "method": ["cetd", "pab"],
            "x": "1",
            "y": True,
        }
    ) == [
        "runner=dask",
        "paths.results='/tmp/a b'",
        "seed=null",
        "method=[cetd,pab]",
        "x='1'",
        "y=true",
    ]


def test_evaluate_is_loaded_on_first_use_only():
    code = (
        "import sys, evalkit; assert 'evalkit.shell.api' not in sys.modules; "
        "evalkit.evaluate; assert 'evalkit.shell.api' in sys.modules; print('ok')"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=120,
    )
    assert done.stdout.strip() == "ok", done.stderr
    assert evalkit.evaluate is evaluate


def _script(tmp_path, body: str, env_seed: str | None) -> subprocess.CompletedProcess:
    """Run ``body`` as a script read from stdin (its functions have no source file, as in a
    REPL) from an empty folder, with or without PYTHONHASHSEED."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}
    env["PYTHONPATH"] = str(REPO)
    if env_seed is not None:
        env["PYTHONHASHSEED"] = env_seed
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-"],
        check=False,
        input=textwrap.dedent(body),
        cwd=work,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def test_a_function_typed_at_a_prompt_runs_in_two_workers(tmp_path):
    """A function without a source file travels to the workers by value; it is keyed by what
    it is (its code, evalkit.harness.identity), so it is cached like any other (issue 31;
    before, it could not be keyed and was not); two workers run under the command's
    hash seed, one worker in this interpreter gets a note when its seed differs."""
    body = f"""
        import evalkit
        pages = {PAGES!r}
        def words(html):
            import lxml.html
            return " ".join(lxml.html.fromstring(html).text_content().split())
        for n in (2, 1):
            r = evalkit.evaluate(dataset=pages, methods=[words], runner={{"n_jobs": n}},
                                 paths={{"results": {str(tmp_path / "results")!r}}},
                                 **{{"extraction.n_boot": 20}})
            s = r.summary
            f1 = s[(s.method == "words") & (s.metric == "shingle_f1")].value.iloc[0]
            print(n, round(f1, 6), r.same_as_cli, [bool(c) for c in r.per_page.cached])
    """
    done = _script(tmp_path, body, env_seed=None)
    assert done.returncode == 0, done.stderr
    # the script's own lines (each run also prints its result table: evalkit.report.console)
    lines = [ln for ln in done.stdout.split("\n") if ln[:2] in ("1 ", "2 ")]
    assert lines[0] == f"2 {round(1.5 / 1.75, 6)} True [False, False]"
    assert lines[1] == f"1 {round(1.5 / 1.75, 6)} False [False, False]"
    assert "is not cached" not in done.stderr
    assert "whose string-hash seed is random, not the command's 0" in done.stderr
    # the same interpreter started with the command's seed: no note, and the function is the
    # same code, so its two pages come from the cache the first script's n_jobs=2 run filled
    done = _script(tmp_path, body.replace("(2, 1)", "(1,)"), env_seed="0")
    assert [ln for ln in done.stdout.split("\n") if ln[:2] == "1 "] == [
        f"1 {round(1.5 / 1.75, 6)} True [True, True]"
    ]
    assert "string-hash seed" not in done.stderr


def _cli_run(args: list[str], tmp_path: Path) -> Path:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("PYTHONHASHSEED", None)  # the command pins it itself
    done = subprocess.run(
        [sys.executable, "-m", "evalkit", *args],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return Path(re.search(r"evalkit: results in (\S+)", done.stdout).group(1))


@pytest.mark.shared
@pytest.mark.slow
def test_evaluate_gives_the_commands_summary(tmp_path):
    shared_dataset("scrapinghub-aeb")
    common = {
        "paths.shared_data": str(SHARED),
        "dataset.aeb.limit": 20,
        "runner.cache": False,
        "runner.progress": False,
    }
    cli = _cli_run(
        [
            "experiment=extraction",
            "dataset=aeb",
            "method=[cetd]",
            f"paths.results={tmp_path / 'cli'}",
            *to_overrides(common),
        ],
        tmp_path,
    )
    api = evaluate(
        dataset="aeb", methods=["cetd"], **common, **{"paths.results": str(tmp_path / "api")}
    )
    assert api.same_as_cli
    cli_summary = pd.read_csv(cli / "summary.csv")
    assert len(cli_summary) > 10
    pd.testing.assert_frame_equal(api.summary, cli_summary)
    assert _row(api.summary, "cetd", metric="shingle_f1")["n_pages"] == 20
