"""Runner: failure isolation, caching and resume, site grouping, worker-count independence."""

from evalkit.core.page import Gold, Page
from evalkit.harness.runner import run_pages
from evalkit.harness.specs import MethodSpec
from evalkit.harness.tasks import iter_tasks


def _page(i, html, site=None):
    return Page(id=f"p{i}", dataset="t", raw=html.encode(), gold=Gold(text="x"), site=site)


def _score(page, method, ext):
    return {"page_id": page.id, "method": method, "error": ext.error, "text": ext.text}


PAGES = [
    _page(0, "<html><body><p>First page text.</p></body></html>", "a"),
    _page(1, "", "a"),  # empty file: fulltext fails on it, the run goes on
    _page(2, "<html><body><div>Second <b>page</b></div></body></html>", "b"),
]
SPECS = [MethodSpec("fulltext", "fulltext"), MethodSpec("empty", "empty")]


def test_a_failing_page_is_recorded_and_the_run_goes_on(tmp_path):
    recs = run_pages(PAGES, SPECS, score=_score, n_jobs=1, cache_root=None, progress=False)
    assert [(r["page_id"], r["method"]) for r in recs] == [
        ("p0", "fulltext"),
        ("p0", "empty"),
        ("p1", "fulltext"),
        ("p1", "empty"),
        ("p2", "fulltext"),
        ("p2", "empty"),
    ]
    assert recs[2]["error"].startswith("PageError: p1: empty document")
    assert recs[0]["text"] == "First page text." and recs[4]["text"] == "Second page"
    assert recs[3]["error"] is None


def test_cache_makes_a_rerun_resume(tmp_path):
    first = run_pages(PAGES, SPECS, score=_score, cache_root=str(tmp_path), progress=False)
    again = run_pages(PAGES, SPECS, score=_score, cache_root=str(tmp_path), progress=False)
    assert [r["cached"] for r in first] == [False] * 6
    # failures are not cached, so a fixed method gets a second chance on rerun
    assert [r["cached"] for r in again] == [True, True, False, True, True, True]
    assert [r["text"] for r in again] == [r["text"] for r in first]


def test_two_workers_give_the_same_records(tmp_path):
    one = run_pages(PAGES, SPECS, score=_score, n_jobs=1, progress=False)
    two = run_pages(PAGES, SPECS, score=_score, n_jobs=2, progress=False)
    assert one == two


def test_tasks_keep_a_sites_pages_together():
    tasks = list(iter_tasks(PAGES))
    assert [[p.id for p in t] for t in tasks] == [["p0", "p1"], ["p2"]]
    loose = [_page(i, "<p>x</p>") for i in range(5)]
    assert [len(t) for t in iter_tasks(loose, max_pages=2)] == [2, 2, 1]


def test_site_less_pages_are_read_one_task_ahead_not_all_at_once():
    # a set without sites is one run of site-less pages: the first task must not wait for
    # (nor hold) the whole set, or the page worker idles while every page is read
    read = []

    def pages():
        for i in range(100):
            read.append(i)
            yield _page(i, "<p>x</p>")

    tasks = iter_tasks(pages(), max_pages=20)
    assert len(next(tasks)) == 20 and len(read) == 20
    assert [len(t) for t in tasks] == [20, 20, 20, 20] and len(read) == 100
    # lazy (one process's pipeline): a page is read when its task reaches it
    read.clear()
    tasks = iter_tasks(pages(), max_pages=20, lazy=True)
    first = next(tasks)
    assert len(read) == 1 and next(first).id == "p0" and len(read) == 1
    assert len(list(first)) == 19 and len(read) == 20
    assert [len(list(t)) for t in tasks] == [20, 20, 20, 20] and len(read) == 100


def test_unknown_method_name_lists_the_known_ones():
    import pytest

    with pytest.raises(KeyError, match="unknown method 'nope'; known methods: fulltext, empty"):
        MethodSpec("x", "nope").build()


def _pool():
    from joblib.externals.loky import reusable_executor

    return reusable_executor._executor


def test_a_long_streams_idle_workers_end_with_it_a_short_ones_stay(monkeypatch):
    from evalkit.harness import watchdog

    # 3 pages: under a threshold of 4 the pool stays for the next stream
    monkeypatch.setattr(watchdog, "RELEASE_AFTER_PAGES", 4)
    run_pages(PAGES, SPECS, score=_score, n_jobs=2, progress=False)
    pool = _pool()
    assert pool is not None and not pool._flags.shutdown
    # at the threshold it ends once the last record is handed over: its processes are gone
    monkeypatch.setattr(watchdog, "RELEASE_AFTER_PAGES", 3)
    recs = run_pages(PAGES, SPECS, score=_score, n_jobs=2, progress=False)
    assert len(recs) == 6
    pool = _pool()
    assert pool._flags.shutdown and not pool._processes
