"""runner.page_timeout and runner.max_page_bytes: a stalling page or a huge page is a
recorded failure, and the run goes on.

The stalling method (tests/stall_method.py) sleeps forever on one page; the timeout is
small (a few seconds), so each test is bounded by it, and nothing here measures time.
"""

from __future__ import annotations

import os

import pytest

from evalkit.core.page import Gold, Page
from evalkit.harness.errors import RunnerError
from evalkit.harness.page_worker import shared_worker, stop_shared_worker
from evalkit.harness.pipeline import run_task, run_tasks
from evalkit.harness.registry import METHODS
from evalkit.harness.runner import Runner
from evalkit.harness.specs import MethodSpec


@pytest.fixture(autouse=True)
def stall_registered(monkeypatch):
    monkeypatch.setitem(METHODS._entries, "stall", "stall_method:Stall")
    yield
    stop_shared_worker()


def _page(i, body, site=None):
    return Page(id=f"p{i}", dataset="t", raw=body.encode(), gold=Gold(text="x"), site=site)


def _rec(page, method, ext):
    # a score only for an extraction without error, as evalkit.harness.scoring does
    return {
        "page_id": page.id,
        "method": method,
        "error": ext.error,
        "out": ext.text if ext.error is None else None,
        "seen": ext.info.get("seen"),
    }


PAGES = [_page(0, "<p>one</p>"), _page(1, "<p>stall</p>"), _page(2, "<p>two</p>")]
SPECS = [MethodSpec("stall", "stall"), MethodSpec("fulltext", "fulltext")]


def test_a_stalling_method_is_a_timeout_and_the_run_goes_on():
    recs = run_task(PAGES, SPECS, None, _rec, "empty", page_timeout=3)
    got = [(r["page_id"], r["method"], r["out"]) for r in recs]
    # p1: stall is killed, scored as an empty extraction (on_failure=empty); fulltext still
    # runs on p1 (in the fresh worker), and both run on p2
    assert got == [
        ("p0", "stall", "<p>one</p>"),
        ("p0", "fulltext", "one"),
        ("p1", "stall", ""),
        ("p1", "fulltext", "stall"),
        ("p2", "stall", "<p>two</p>"),
        ("p2", "fulltext", "two"),
    ]
    assert recs[2]["error"] == "timeout: stall ran over 3 s on this page"
    assert [r["error"] for i, r in enumerate(recs) if i != 2] == [None] * 5
    assert shared_worker().starts == 2  # the stuck worker was replaced once


def test_drop_leaves_the_timed_out_page_unscored():
    recs = run_task(PAGES, SPECS, None, _rec, "drop", page_timeout=2.5)
    assert recs[2]["out"] is None and recs[2]["error"].startswith("timeout: stall ran over 2.5 s")


def test_results_are_the_same_with_and_without_the_worker():
    pages = [PAGES[0], PAGES[2]]
    assert run_task(pages, SPECS, None, _rec, page_timeout=30) == run_task(
        pages, SPECS, None, _rec, page_timeout=None
    )


def test_one_pipeline_over_several_tasks_gives_each_task_fresh_methods():
    # run_tasks overlaps the scoring of a page with the extraction of the next one, across
    # the ends of tasks: each task still starts with fresh instances (scope=site memory
    # counts from 1 again) and the records are those of one run_task per task, in order;
    # the empty task in the middle yields its (empty) records in its place
    site = MethodSpec("a", "stall", {"scope": "site"})
    tasks = [
        [_page(0, "<p>a</p>", "s"), _page(1, "<p>b</p>", "s")],
        [],
        [_page(2, "<p>c</p>", "t"), _page(3, "<p>d</p>", "t"), _page(4, "<p>e</p>", "t")],
    ]
    for timeout in (30, None):
        got = list(run_tasks(tasks, [site, SPECS[1]], None, _rec, page_timeout=timeout))
        assert got == [
            run_task(t, [site, SPECS[1]], None, _rec, page_timeout=timeout) for t in tasks
        ]
        assert [[r["seen"] for r in recs if r["method"] == "a"] for recs in got] == [
            [1, 2],
            [],
            [1, 2, 3],
        ]


def test_a_method_clock_does_not_count_the_time_the_parent_spends_scoring():
    # the parent scores page i - 1 while the worker extracts page i; a scorer slower than the
    # limit must not make a method that answers at once a timeout. Each scoring stays under
    # the limit (runner.page_timeout bounds the scoring of each (page, method) as well:
    # evalkit.harness.score_limits), the two methods' scoring of a page (1.4 s) does not
    import time

    def slow(page, method, ext):
        time.sleep(0.7)
        return _rec(page, method, ext)

    recs = run_task([PAGES[0], PAGES[2], PAGES[0]], SPECS, None, slow, page_timeout=1)
    assert [r["error"] for r in recs] == [None] * 6


def test_a_worker_that_dies_is_a_failure_and_is_replaced():
    pages = [PAGES[0], _page(1, "<p>crash</p>"), PAGES[2]]
    recs = run_task(pages, SPECS, None, _rec, "drop", page_timeout=30)
    assert recs[2]["error"] == "worker died: exit status 3 on this page"
    assert [r["out"] for r in recs] == ["<p>one</p>", "one", None, "crash", "<p>two</p>", "two"]


def test_site_memory_is_replayed_after_a_timeout():
    # scope=site: the memory (pages seen) lives in the worker and the kill on p1 loses it;
    # the fresh worker runs each site-scope method again on the pages it had seen (a on
    # p0 and p1, b on p0), so the memories are those of the site without b's stalled page
    bodies = ["<p>a</p>", "<p>stall</p>", "<p>b</p>", "<p>c</p>"]
    pages = [_page(i, b, site="s") for i, b in enumerate(bodies)]
    specs = [
        MethodSpec("a", "stall", {"scope": "site", "stall_on": "never"}),
        MethodSpec("b", "stall", {"scope": "site"}),
    ]
    recs = run_task(pages, specs, None, _rec, "drop", page_timeout=2)
    assert [(r["method"], r["seen"]) for r in recs] == [
        ("a", 1),
        ("b", 1),
        ("a", 2),
        ("b", None),
        ("a", 3),
        ("b", 2),
        ("a", 4),
        ("b", 3),
    ]
    assert shared_worker().replays_given_up == 0
    recs = run_task(pages[:1] + pages[2:], specs[1:], None, _rec, "drop", page_timeout=2)
    assert [r["seen"] for r in recs] == [1, 2, 3]  # b without the stalled page: the same


def test_a_too_large_page_is_a_failure_of_every_method_never_scored():
    pages = [_page(0, "<p>one</p>"), _page(1, "<p>" + "x" * 20 + "</p>")]
    # page 1 is 27 bytes: over 26, a failure of both methods, unscored even under empty
    recs = run_task(pages, SPECS, None, _rec, "empty", max_page_bytes=26)
    assert [r["out"] for r in recs] == ["<p>one</p>", "one", None, None]
    assert [r["error"] for r in recs[2:]] == ["too large: 27 bytes > runner.max_page_bytes"] * 2
    recs = run_task(pages, SPECS, None, _rec, "empty", max_page_bytes=27)
    assert [r["error"] for r in recs] == [None] * 4  # at the limit: parsed


@pytest.mark.parametrize(
    "settings,line",
    [
        ({"page_timeout": -1}, "runner.page_timeout=-1: must be a number >= 0"),
        ({"page_timeout": "abc"}, "runner.page_timeout=abc: must be a number >= 0"),
        ({"max_page_bytes": 0}, "runner.max_page_bytes=0: must be a whole number >= 1 or null"),
        ({"max_page_bytes": 1.5}, "runner.max_page_bytes=1.5: must be a whole number >= 1 or null"),
    ],
)
def test_bad_values_are_one_line(settings, line):
    with pytest.raises(RunnerError) as err:
        Runner.from_config(settings)
    assert str(err.value) == line


def test_off_values():
    assert Runner.from_config({"page_timeout": None, "max_page_bytes": None}).page_timeout is None
    assert Runner.from_config({"page_timeout": 0}).page_timeout == 0


def test_the_worker_ends_with_its_parent_process_id_gone():
    worker = shared_worker()
    worker.build(SPECS)
    assert worker.alive() and worker.proc.pid != os.getpid()
    stop_shared_worker()
    assert not worker.alive()


# ---------------------------------------------------------------------- whole runs


def _run(tmp, *overrides):
    from hydra import compose, initialize_config_dir

    from evalkit.experiments import run_experiment
    from evalkit.harness.config import register_resolvers
    from evalkit.shell.cli import CONFIG_DIR

    register_resolvers()
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(
            config_name="config",
            overrides=[
                "experiment=extraction",
                "dataset=synthetic",
                "dataset.synthetic.limit=12",
                "extraction.n_boot=100",
                "runner.cache=false",
                "runner.progress=false",
                "runner.n_jobs=1",
                f"paths.results={tmp / 'results'}",
                *overrides,
            ],
        )
    return run_experiment(cfg, tmp / "run")


def test_a_run_gives_the_same_summary_with_and_without_the_timeout(tmp_path):
    off = _run(tmp_path / "off", "runner.page_timeout=null")
    on = _run(tmp_path / "on", "runner.page_timeout=120")
    assert (on / "summary.csv").read_bytes() == (off / "summary.csv").read_bytes()


def test_a_too_large_page_is_in_per_page_csv_and_run_json(tmp_path):
    import json

    import pandas as pd

    run = _run(tmp_path, "runner.page_timeout=null", "runner.max_page_bytes=9000")
    per_page = pd.read_csv(run / "per_page.csv")
    large = per_page[per_page["n_bytes"] > 9000]
    assert len(large) and (per_page["n_bytes"] <= 9000).any()
    assert (
        large["error"]
        == large["n_bytes"].map(lambda n: f"too large: {n} bytes > runner.max_page_bytes")
    ).all()
    assert large["shingle_f1"].isna().all()  # never scored, even under on_failure=empty
    failures = json.loads((run / "run.json").read_text())["failures"]
    assert {(f["page"], f["method"]) for f in failures} >= set(
        zip(large["page_id"], large["method"])
    )


def test_an_abandoned_page_leaves_no_stale_answer():
    worker = shared_worker()
    worker.build(SPECS)
    answers = worker.extract(PAGES[0], [0, 1], timeout=30)
    assert next(answers)[0] == 0  # fulltext's answer is left unread
    worker.build(SPECS)  # a new task: the worker is replaced, not read out of step
    assert [j for j, _ in worker.extract(PAGES[2], [1], timeout=30)] == [1]
    assert worker.starts == 2


def test_the_parse_inside_scoring_runs_in_the_worker_under_the_page_timeout():
    """Issue 37 item 13: scoring parses each page (its visible words, its units); that parse
    now runs in the page worker with the methods, so a page whose parse never ends is a
    recorded failure of its own side, scored as empty for every method, and the run goes on."""
    from stall_method import SlowParsePage

    from evalkit.harness.scoring import score_extraction

    slow = SlowParsePage(id="slow", dataset="t", raw=b"<p>one two</p>", gold=Gold(text="one two"))
    pages = [_page(0, "<p>x y</p>"), slow, _page(2, "<p>x</p>")]
    specs = [MethodSpec("stall", "stall")]
    recs = run_task(pages, specs, None, score_extraction, "empty", page_timeout=2)
    by_page = {r["page_id"]: r for r in recs}
    assert by_page["slow"]["error"] == (
        "scoring failed: timeout: scoring's parse of the page ran over 2 s on this page"
    )
    assert by_page["slow"]["shingle_f1"] == 0.0  # counted, as an empty output
    assert by_page["p0"]["error"] is None and by_page["p2"]["error"] is None
    assert by_page["p2"]["n_words_gold"] == 1  # the run went on, in a fresh worker


def test_in_one_process_the_gold_worker_times_the_parse_out_and_the_methods_worker_stays():
    """A run in one process prepares each page's own side in a worker of its own
    (``gold_apart``, evalkit.harness.pipeline): the same records as in the methods' worker;
    a parse that never ends replaces the gold worker, never the methods' one."""
    from stall_method import SlowParsePage

    from evalkit.harness.scoring import score_extraction

    slow = SlowParsePage(id="slow", dataset="t", raw=b"<p>one two</p>", gold=Gold(text="one two"))
    pages = [_page(0, "<p>x y</p>"), slow, _page(2, "<p>x</p>")]
    specs = [MethodSpec("stall", "stall")]  # stalls on "<p>stall</p>" only: not here
    apart = list(run_tasks([pages], specs, None, score_extraction, "empty", 2, gold_apart=True))
    methods, gold = shared_worker(), shared_worker("gold")
    assert (methods.starts, gold.starts) == (1, 2)  # the gold worker was killed and replaced
    stop_shared_worker()
    together = list(run_tasks([pages], specs, None, score_extraction, "empty", 2))
    assert shared_worker("gold").starts == 0  # never started without gold_apart

    def scores(run):
        return [{k: v for k, v in r.items() if k not in ("seconds", "info_seen")} for r in run[0]]

    assert scores(apart) == scores(together)
    # the methods' worker kept its methods through the parse's timeout: the stall method saw
    # all three pages; in one worker it was replaced with fresh methods after the slow page
    assert [r.get("info_seen") for r in apart[0]] == [1, None, 3]  # slow: scored as empty
    assert [r.get("info_seen") for r in together[0]] == [1, None, 1]
    by_page = {r["page_id"]: r for r in apart[0]}
    assert by_page["slow"]["error"] == (
        "scoring failed: timeout: scoring's parse of the page ran over 2 s on this page"
    )
    assert by_page["p2"]["n_words_gold"] == 1 and by_page["p2"]["error"] is None


def test_a_worker_over_its_memory_limit_is_replaced_after_the_page_and_nothing_changes():
    # runner.worker_max_mb=1: every worker is over it after every page, so each page ends
    # with a fresh worker; the site-scope method's memory (pages seen) is replayed into it
    pages = [_page(i, f"<p>{i}</p>", site="s") for i in range(4)]
    specs = [MethodSpec("a", "stall", {"scope": "site", "stall_on": "never"}), SPECS[1]]
    base = run_task(pages, specs, None, _rec, "drop", page_timeout=5)
    worker = shared_worker()
    recycled, starts = worker.recycled, worker.starts
    got = run_task(pages, specs, None, _rec, "drop", page_timeout=5, worker_max_mb=1)
    assert got == base
    assert [r["seen"] for r in got if r["method"] == "a"] == [1, 2, 3, 4]
    assert worker.recycled - recycled == 4 and worker.starts - starts >= 4
    assert worker.replays_given_up == 0


def test_worker_max_mb_is_checked():
    with pytest.raises(RunnerError, match=r"^runner.worker_max_mb=0"):
        Runner(worker_max_mb=0)
