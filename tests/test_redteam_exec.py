"""Issue 31's hostile-input catalogue, execution and cache part: one test per case, each asserting
the outcome docs/inputs.md ("Hostile-input catalogue", "Execution and cache") documents.

Every test here failed on the main branch the issue was filed against (what it saw there is
said in each test) and passes now.
"""

from __future__ import annotations

import functools
import os
import stat
import subprocess
import sys
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path

import pytest
from conftest import shared_dataset

from evalkit.core.method import Extractor
from evalkit.core.page import Extraction, Gold, Page
from evalkit.harness.cache import ExtractionCache
from evalkit.harness.cache_keys import describe_method
from evalkit.harness.page_worker import STRAY_ANSWER, WORKER_DIED, PageWorker, stop_shared_worker
from evalkit.harness.pipeline import run_task
from evalkit.harness.runner import Runner
from evalkit.harness.specs import MethodSpec

#: seconds after which a call that should return at once is taken as hung (not a speed bound)
HANG = 60


def _page(i: int, body: str, gold: str = "gold words here") -> Page:
    return Page(
        id=f"p{i}",
        dataset="t",
        raw=f"<html><body>{body}</body></html>".encode(),
        gold=Gold(text=gold),
    )


PAGES = [
    _page(0, "<p>alpha beta gamma</p>"),
    _page(1, "<p>delta epsilon</p>"),
    _page(2, "<p>zeta eta theta iota</p>"),
]


def _rec(page, method, ext):
    """A record that shows what the method returned and which gold it was scored against."""
    return {
        "page_id": page.id,
        "method": method,
        "error": ext.error,
        "out": ext.text if ext.error is None else None,
        "gold": page.gold.text,
    }


@pytest.fixture(autouse=True)
def _stop_workers():
    yield
    stop_shared_worker()


def _finishes(fn, *args):
    """``fn(*args)`` on a thread; (True, result) when it returned within HANG seconds."""
    box = {}
    thread = threading.Thread(target=lambda: box.setdefault("r", fn(*args)), daemon=True)
    thread.start()
    thread.join(HANG)
    return not thread.is_alive(), box.get("r")


# ------------------------------------------------------------------------- 1. callable keys


def first_words(html: str, n: int) -> str:
    import lxml.html

    return " ".join(lxml.html.fromstring(html).text_content().split()[:n])


def _words_factory(n):
    return lambda html: first_words(html, n)


def test_1_callables_are_cached_by_what_they_are(tmp_path):
    # main keyed a partial by functools' file and two closures or lambdas of one script by the
    # script's text: the second of each pair read the first's entries ("alpha" for p0 where
    # "alpha beta gamma" is its own output, F1 1.0 for an empty lambda)
    root = str(tmp_path / "cache")
    short, full = (
        ["alpha", "delta", "zeta"],
        [p.html[12:-14].replace("<p>", "").replace("</p>", "") for p in PAGES],
    )
    assert full == ["alpha beta gamma", "delta epsilon", "zeta eta theta iota"]
    cases = [
        (functools.partial(first_words, n=1), short),
        (functools.partial(first_words, n=5000), full),
        (_words_factory(1), short),
        (_words_factory(5000), full),
        (lambda html: "", ["", "", ""]),
        (lambda html: first_words(html, 5000), full),
    ]
    for round_ in (1, 2):  # the second round reads every answer from the one cache
        for fn, want in cases:
            recs = run_task(PAGES, [MethodSpec.from_object("fw", fn)], root, _rec)
            assert [r["out"] for r in recs] == want
            assert [r["cached"] for r in recs] == [round_ == 2] * 3


def test_1_a_callable_that_cannot_be_identified_is_not_cached_and_says_so_once(tmp_path, capfd):
    import evalkit

    box = object()  # its repr is its address: no value to key on
    spec = MethodSpec.from_object("box", lambda html: html if box else "")
    facts = describe_method(spec)
    assert facts.key() is None
    assert facts.uncached.startswith("closure variable 'box' of ")
    assert "is a builtins.object object with no stable value" in facts.uncached
    evalkit.evaluate(
        dataset=[("<p>a b</p>", "a b")],
        methods={"box": spec.obj},
        **{
            "runner.n_jobs": 1,
            "runner.progress": False,
            "paths.cache": str(tmp_path / "c"),
            "paths.results": str(tmp_path / "r"),
        },
    )
    lines = [ln for ln in capfd.readouterr().err.splitlines() if "is not cached" in ln]
    assert len(lines) == 1 and "method 'box'" in lines[0]
    assert not list((tmp_path / "c").rglob("*.json"))  # nothing of it was stored


# ------------------------------------------------------------------------- 2. a changed page


class Vandal(Extractor):
    """Changes everything of its page it can reach, then answers "vandal"."""

    name = "vandal"

    def extract(self, page):
        page.html = "<p>defaced</p>"
        page.raw = b"<p>defaced</p>"
        page.gold.text = "defaced"
        page.id = "defaced"
        return Extraction(text="vandal")


@pytest.mark.parametrize("page_timeout", [None, 30])
def test_2_a_method_that_changes_its_page_changes_no_other_method(tmp_path, page_timeout):
    # main handed one Page to every method: fulltext after the vandal read "defaced", and in
    # process the changed gold scored every method; the key of fulltext's entry was the
    # untouched page's, so the wrong output was cached
    ft = MethodSpec("fulltext", "fulltext")
    alone = run_task(PAGES, [ft], None, _rec, page_timeout=page_timeout)
    root = str(tmp_path / "cache")
    both = run_task(
        PAGES,
        [MethodSpec.from_object("vandal", Vandal()), ft],
        root,
        _rec,
        page_timeout=page_timeout,
    )
    # the record fields a run keeps (Runner.run_pages pops the "_" markers: METHOD_KEY)
    public = [{k: v for k, v in r.items() if not k.startswith("_")} for r in both]
    assert [r for r in public if r["method"] == "fulltext"] == alone
    assert {r["gold"] for r in both} == {"gold words here"}
    assert {r["page_id"] for r in both} == {"p0", "p1", "p2"}
    again = run_task(PAGES, [ft], root, _rec, page_timeout=page_timeout)  # from the cache
    assert [r["out"] for r in again] == [r["out"] for r in alone]
    assert all(r["cached"] for r in again)


# ------------------------------------------------------------------------- 4. request ids


class Forker(Extractor):
    """Forks on every page: the child returns into the worker's loop as if it were the
    method; the parent answers a moment later."""

    name = "forker"

    def extract(self, page):
        if os.fork() == 0:
            return Extraction(text=f"child {page.id}")
        time.sleep(0.3)
        return Extraction(text=f"parent {page.id}")


def test_4_a_forking_method_never_sends_answers_to_another_method_or_page():
    # main: the child answered too, and every later answer was one behind: fulltext got the
    # forker's text and each page the previous page's outputs
    specs = [MethodSpec.from_object("forker", Forker()), MethodSpec("fulltext", "fulltext")]
    recs = run_task(PAGES, specs, None, _rec, "drop", page_timeout=20)
    assert [(r["page_id"], r["method"], r["out"]) for r in recs] == [
        ("p0", "forker", "parent p0"),
        ("p0", "fulltext", "alpha beta gamma"),
        ("p1", "forker", "parent p1"),
        ("p1", "fulltext", "delta epsilon"),
        ("p2", "forker", "parent p2"),
        ("p2", "fulltext", "zeta eta theta iota"),
    ]


def test_4_an_answer_to_another_request_is_never_credited():
    # a message on the answer pipe that names another request is the worker's failure
    worker = PageWorker()
    read, write = os.pipe()
    worker._recv = Connection(read, writable=False)
    out = Connection(write, readable=False)
    out.send((99, 0, Extraction(text="stray"), time.monotonic()))
    got, error, _ = worker._answer(time.monotonic(), 5, (1, 0))
    assert got is None and error == f"{WORKER_DIED}{STRAY_ANSWER}"
    out.send_bytes(b"\x80not a pickle")  # bytes that are no message at all
    got, error, _ = worker._answer(time.monotonic(), 5, (2, 0))
    assert got is None and error == f"{WORKER_DIED}{STRAY_ANSWER}"
    worker._recv.close()
    out.close()


# ------------------------------------------------------------------------- 11. a FIFO entry


def test_11_a_fifo_in_a_cache_entrys_place_is_a_miss_not_a_hang(tmp_path, monkeypatch):
    # main opened the FIFO for reading and waited for a writer forever
    from evalkit.harness import cache as cache_mod
    from evalkit.harness.score_cache import ScoreCache

    cache = ExtractionCache(tmp_path)
    key = "ab" + "0" * 30
    fifo = cache._path(key)
    fifo.parent.mkdir(parents=True)
    os.mkfifo(fifo)
    done, got = _finishes(cache.get, key)
    if not done:  # let the stuck reader go before failing
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert done and got is None and cache.invalid == 1
    scores = ScoreCache(lambda *a: {}, tmp_path, "k")
    sfifo = tmp_path / "scores" / "cd" / "cdef.score"
    sfifo.parent.mkdir(parents=True)
    os.mkfifo(sfifo)
    done, got = _finishes(scores._read, sfifo, "cdef")
    assert done and got is None and scores.invalid == 1
    # a regular file over the cap is not read either
    cache.put(key + "1", Extraction(text="x" * 1000))
    monkeypatch.setattr(cache_mod, "MAX_ENTRY_BYTES", 100)
    assert cache.get(key + "1") is None and cache.invalid == 2


# ------------------------------------------------------------------------- 12. the hang


class Echo(Extractor):
    """Answers the page's whole text (a large page: a large answer)."""

    name = "echo"

    def extract(self, page):
        return Extraction(text=page.html)


def test_12_large_pages_and_large_answers_never_deadlock_the_page_worker():
    # the cause of the aeb hang: with a page queued behind another (PIPELINE_DEPTH), the task
    # process wrote a 1.5 MB page while the worker wrote a 1 MB answer, each into a full
    # 1 MiB pipe, each waiting for the other to read: both at 0 CPU forever
    big = "<p>" + "word " * 400_000 + "</p>"  # 2 MB of text, answered whole
    pages = [_page(i, big) for i in range(3)]
    done, recs = _finishes(
        run_task, pages, [MethodSpec.from_object("echo", Echo())], None, _rec, "drop", 60
    )
    assert done, "the page worker protocol deadlocked"
    assert [r["error"] for r in recs] == [None] * 3
    assert [len(r["out"]) for r in recs] == [len(pages[0].html)] * 3


def alltext(html):
    import lxml.html

    return lxml.html.fromstring(html).text_content()


@pytest.mark.slow
@pytest.mark.parametrize("n_jobs", [pytest.param(1, marks=pytest.mark.nightly), 2])
def test_12_evaluate_over_all_of_aeb_after_another_evaluate_finishes(tmp_path, n_jobs):
    # the reproduction: a plain function over all 181 aeb pages after another
    # evaluate in the same process, default runner (page worker on); main hung at 0 CPU
    shared_dataset("scrapinghub-aeb")
    script = f"""
import sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
import evalkit
from test_redteam_exec import alltext
kw = {{"paths.results": {str(tmp_path / "r")!r}, "paths.cache": {str(tmp_path / "c")!r},
      "runner.n_jobs": {n_jobs}, "runner.progress": False}}
evalkit.evaluate(dataset="aeb", methods=["fulltext"], **kw)
r = evalkit.evaluate(dataset="aeb", methods=[alltext], **kw)
print("pages", int(r.summary.n_pages.max()))
"""
    out = subprocess.run(
        [sys.executable, "-c", script],
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[-2:] == ["pages", "181"]


#: times in a row the issue's reproduction must finish (issue 31's Done-when line)
REPEATS = 10
#: seconds one repetition (a cached fulltext evaluate, then alltext over aeb uncached) may
#: take before the run is taken as hung: 18-19 s measured on 2 loaded cores (not a speed bound)
HANG_PER_REPEAT = 300


@pytest.mark.nightly
@pytest.mark.slow  # also slow: `-m "not slow"` (which replaces the default -m) leaves it out
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_12_evaluate_over_all_of_aeb_after_another_evaluate_finishes_ten_times(tmp_path, n_jobs):
    # issue 31's Done-when: the reproduction above ten times in a row in one process. The
    # plain function runs uncached every time (runner.cache=false), so every repetition
    # sends all 181 pages and their answers through the page worker's pipes (the hang was
    # both sides writing more than a pipe holds); about 6 minutes for both n_jobs: nightly.
    shared_dataset("scrapinghub-aeb")
    script = f"""
import sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
import evalkit
from test_redteam_exec import alltext
kw = {{"paths.results": {str(tmp_path / "r")!r}, "paths.cache": {str(tmp_path / "c")!r},
      "runner.n_jobs": {n_jobs}, "runner.progress": False}}
for i in range({REPEATS}):
    evalkit.evaluate(dataset="aeb", methods=["fulltext"], **kw)
    r = evalkit.evaluate(dataset="aeb", methods=[alltext], **{{**kw, "runner.cache": False}})
    s = r.summary
    print("repeat", i, "pages", int(s.n_pages.max()), "failures",
          int(s[s.metric == "failures"].value.iloc[0]), flush=True)
"""
    try:
        out = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            timeout=REPEATS * HANG_PER_REPEAT,
            check=False,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )
    except subprocess.TimeoutExpired as exc:  # say how far it got
        done = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else exc.stdout
        pytest.fail(f"hung: {(done or '').count('repeat')} of {REPEATS} repeats finished")
    assert out.returncode == 0, out.stderr[-2000:]
    lines = [line.split() for line in out.stdout.splitlines() if line.startswith("repeat ")]
    assert lines == [["repeat", str(i), "pages", "181", "failures", "0"] for i in range(REPEATS)]


# ------------------------------------------------------------------------- 13. lost runs


class Quitter(Extractor):
    """Raises SystemExit(0) on p1."""

    name = "quitter"

    def extract(self, page):
        if page.id == "p1":
            raise SystemExit(0)
        return Extraction(text="ok")


class Sloppy(Extractor):
    """Returns None on p0 and a str on p1 instead of an Extraction."""

    name = "sloppy"

    def extract(self, page):
        return {"p0": None, "p1": "a str"}.get(page.id, Extraction(text="ok"))


@pytest.mark.parametrize("page_timeout", [None, 30])
def test_13_sys_exit_and_wrong_return_types_are_recorded_failures(page_timeout):
    # main, in process: SystemExit(0) ended the run with exit 0 and no output, and None or a
    # str crashed it (extract_one set .seconds outside its try)
    specs = [
        MethodSpec.from_object("quitter", Quitter()),
        MethodSpec.from_object("sloppy", Sloppy()),
        MethodSpec("fulltext", "fulltext"),
    ]
    recs = run_task(PAGES, specs, None, _rec, "drop", page_timeout=page_timeout)
    errors = {(r["page_id"], r["method"]): r["error"] for r in recs}
    assert errors[("p1", "quitter")].startswith("SystemExit: 0")
    assert errors[("p0", "sloppy")].startswith(
        "TypeError: Sloppy.extract returned NoneType, not an Extraction"
    )
    assert errors[("p1", "sloppy")].startswith("TypeError: Sloppy.extract returned str")
    assert [r["out"] for r in recs if r["method"] == "fulltext"] == [
        "alpha beta gamma",
        "delta epsilon",
        "zeta eta theta iota",
    ]
    assert sum(e is not None for e in errors.values()) == 3


# ------------------------------------------------------------------------- 14. a killed worker


class Killer(Extractor):
    """Ends the process it runs in on p1 (its loky worker when there is no page worker)."""

    name = "killer"

    def extract(self, page):
        if page.id == "p1":
            os._exit(7)
        return Extraction(text=f"ok {page.id}")


def test_14_a_page_that_kills_its_loky_worker_is_that_pages_failure():
    # main: TerminatedWorkerError ended the whole run
    pages = [_page(i, f"<p>page {i}</p>") for i in range(6)]
    pages[1] = _page(1, "<p>page 1</p>")
    specs = [MethodSpec.from_object("killer", Killer()), MethodSpec("fulltext", "fulltext")]
    with Runner(n_jobs=2, progress=False, on_failure="empty") as runner:
        recs = runner.run_pages(pages, specs, score=_rec)
    assert [(r["page_id"], r["method"]) for r in recs] == [
        (f"p{i}", m) for i in range(6) for m in ("killer", "fulltext")
    ]
    failed = [(r["page_id"], r["method"]) for r in recs if r["error"]]
    assert failed == [("p1", "killer"), ("p1", "fulltext")]  # the task's every method
    assert recs[2]["error"].startswith(WORKER_DIED)
    assert [r["out"] for r in recs if r["method"] == "killer" and not r["error"]] == [
        f"ok p{i}" for i in (0, 2, 3, 4, 5)
    ]


@pytest.mark.slow
def test_14_a_page_that_kills_its_dask_worker_is_that_pages_failure():
    # main: KilledWorker ended the whole run. The scheduler gives a task up after
    # allowed-failures worker deaths (3 by default), counting each task that was on a worker
    # when it died: a page that shared the killer's workers may be given up with it (p3,
    # seen), which is Dask's call; each page given up is recorded, and the run goes on
    pytest.importorskip("distributed")

    pages = [_page(i, f"<p>page {i}</p>") for i in range(4)]
    specs = [MethodSpec.from_object("killer", Killer()), MethodSpec("fulltext", "fulltext")]
    runner = Runner(name="dask", progress=False, dask={"n_workers": 2, "retries": 0})
    with runner:
        recs = runner.run_pages(pages, specs, score=_rec)
    assert [(r["page_id"], r["method"]) for r in recs] == [
        (f"p{i}", m) for i in range(4) for m in ("killer", "fulltext")
    ]
    failed = {r["page_id"] for r in recs if r["error"]}
    assert "p1" in failed and len(failed) < 4
    assert all(r["error"].startswith(WORKER_DIED) for r in recs if r["error"])
    assert all(
        r["out"] == f"page {r['page_id'][1]}"
        for r in recs
        if r["method"] == "fulltext" and not r["error"]
    )


# ------------------------------------------------------------------------- 16. smaller ones


def test_16_leftovers_of_killed_cache_writes_are_removed(tmp_path):
    # main never removed them
    from evalkit.core.files import _HOST, STALE_TEMP_SECONDS

    folder = tmp_path / "ab"
    folder.mkdir()
    dead = folder / f".abc.json~{2**22 + 12345}@{_HOST}~x1.tmp"  # no such pid
    old = folder / f".abe.json~{os.getpid()}@other-host~x3.tmp"  # stale, another machine's
    foreign = folder / "tmpq1w2e3.tmp"  # not evalkit's name: never deleted (issue 37, 9)
    fresh = folder / f".abf.json~{os.getpid()}@other-host~x4.tmp"  # maybe in progress: kept
    live = folder / f".abd.json~{os.getpid()}@{_HOST}~x2.tmp"  # this process's: kept
    for f in (dead, old, foreign, fresh, live):
        f.write_bytes(b"half")
    past = time.time() - STALE_TEMP_SECONDS - 60
    os.utime(old, (past, past))
    os.utime(foreign, (past, past))
    with Runner(cache_root=str(tmp_path), progress=False):
        pass
    assert sorted(p.name for p in folder.iterdir()) == sorted([foreign.name, fresh.name, live.name])


def test_16_results_and_cache_files_get_the_umask_mode(tmp_path):
    # main: mkstemp's 0600 for every cache entry, table and summary
    from evalkit.report.results import atomic_write_text

    old = os.umask(0o022)
    try:
        cache = ExtractionCache(tmp_path / "c")
        cache.put("ab" + "1" * 30, Extraction(text="x"))
        entry = cache._path("ab" + "1" * 30)
        table = atomic_write_text(tmp_path / "r" / "summary.csv", "a,b\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE(entry.stat().st_mode) == 0o644
    assert stat.S_IMODE(table.stat().st_mode) == 0o644


def test_16_a_figure_is_written_whole_or_not_at_all(tmp_path):
    # main: savefig wrote into the final file, so a failure left half a figure there
    import matplotlib.pyplot as plt

    from evalkit.report import plots

    path = tmp_path / "fig.png"
    path.write_bytes(b"the previous figure")
    fig, _ = plt.subplots()

    def half(target, **kw):
        fh = open(target, "wb") if isinstance(target, (str, Path)) else target  # noqa: SIM115
        fh.write(b"half a fig")
        raise OSError("disk full")

    fig.savefig = half
    with pytest.raises(OSError, match="disk full"):
        plots._write(fig, [path])
    plt.close(fig)
    assert path.read_bytes() == b"the previous figure"
    assert [p.name for p in tmp_path.iterdir()] == ["fig.png"]  # no temporary file left


class Spawner(Extractor):
    """Starts a long sleep on every page and answers its pid."""

    name = "spawner"

    def extract(self, page):
        return Extraction(text=str(subprocess.Popen(["sleep", "120"]).pid))


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended


def test_16_processes_a_method_starts_end_with_the_run():
    # main: the sleeps outlived the page worker and the run
    recs = run_task(
        PAGES[:2], [MethodSpec.from_object("spawner", Spawner())], None, _rec, page_timeout=30
    )
    pids = [int(r["out"]) for r in recs]
    assert all(_running(pid) for pid in pids)
    stop_shared_worker()  # what a run's end does
    deadline = time.monotonic() + 10
    while any(_running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_running(pid) for pid in pids)


@pytest.mark.parametrize("page_timeout", [0, None])
def test_16_processes_a_method_starts_in_process_end_with_the_run(page_timeout):
    # main: with no page worker (runner.page_timeout=0 or null, runner.n_jobs=1) the methods
    # run in the run's own process and their sleeps outlived the run; with page_timeout=0
    # every page was also "scoring failed: ScoringTimeout" (0 was taken as no time at all)
    with Runner(n_jobs=1, page_timeout=page_timeout, progress=False) as runner:
        recs = runner.run_pages(
            PAGES[:2], [MethodSpec.from_object("spawner", Spawner())], score=_rec, cache=False
        )
    assert [r["error"] for r in recs] == [None, None]
    pids = [int(r["out"]) for r in recs]
    assert len(set(pids)) == 2
    assert not any(_running(pid) for pid in pids)  # killed and reaped when the run ended


def test_16_a_process_the_harness_keeps_outlives_the_run():
    # the one exception: a child the harness started and keeps (the headless browser)
    from evalkit.harness.children import ChildWatch, keep

    watch = ChildWatch()
    kept = subprocess.Popen(["sleep", "120"])
    gone = subprocess.Popen(["sleep", "120"])
    keep(kept.pid)
    try:
        assert watch.end() == [gone.pid]
        assert not _running(gone.pid) and _running(kept.pid)  # gone was killed and reaped
    finally:
        kept.kill()
        kept.wait()


class Collector(Extractor):
    """Sets off a full garbage collection, as an allocation can at any moment."""

    name = "collector"

    def extract(self, page):
        import gc

        gc.collect()
        return Extraction(text="")


def test_16_a_full_garbage_collection_is_not_charged_to_the_method():
    # main: in process, a full collection walks every object the run holds (its pages and
    # records; ~9 s measured) and was charged to the method that set it off (fulltext on a
    # tiny page). Here a heap of 1.5M objects makes the collection the method's only cost.
    import gc

    held = [[i] for i in range(1_500_000)]
    t0 = time.perf_counter()
    gc.collect()  # what a full collection of this heap costs, in this run
    full = time.perf_counter() - t0
    (rec,) = run_task(
        PAGES[:1],
        [MethodSpec.from_object("gc", Collector())],
        None,
        lambda page, m, ext: {"seconds": ext.seconds},
    )
    del held
    assert rec["seconds"] < full / 2  # a ratio within one run, not a speed bound


def test_the_catalogue_names_only_tests_that_exist_and_every_item():
    # docs/inputs.md maps each of issue 31's 16 items to its tests: a renamed or removed
    # test, or an item left without one, is found here
    import re

    root = Path(__file__).parent
    doc = (root.parent / "docs" / "inputs.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| [^|]+ \| (.+) \|$", doc, flags=re.MULTILINE)
    assert [int(item) for item, _ in rows] == list(range(1, 17))
    source = "".join(p.read_text(encoding="utf-8") for p in root.glob("test_*.py"))
    named = {n for _, tests in rows for n in re.findall(r"`(test_\w+)`", tests)}
    assert [item for item, tests in rows if not re.search(r"`(tests/)?test_\w+", tests)] == []
    assert sorted(n for n in named if f"def {n}(" not in source) == []
