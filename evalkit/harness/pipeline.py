"""The page pipeline: every method of a task on each of its pages, cached and scored, in order.

:func:`run_tasks` hands a run's tasks through one :class:`PagePipeline`. With a page worker
(``runner.page_timeout``) the work overlaps: while the worker extracts page *i* (with page *i + 1*
queued behind it, :data:`PIPELINE_DEPTH`), this process scores page *i − 1* and reads page
*i + 2*, across the ends of tasks too; in a run in one process (``gold_apart``) the page's own
side of scoring is prepared meanwhile by a second page worker, the gold worker. In-process
methods extract when their page is collected. Either way every task gets fresh method instances
and the records are the same, in the same order.
"""

from __future__ import annotations

import collections
import functools
import hashlib
import itertools
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from evalkit.core.page import Extraction, Page
from evalkit.harness.cache import ExtractionCache
from evalkit.harness.cache_entry import as_data
from evalkit.harness.cache_keys import page_key as _page_key
from evalkit.harness.children import ChildWatch
from evalkit.harness.extract import (
    BUILD_FAILED,
    CACHE_INVALID,
    KEPT_PAGE,
    METHOD_KEY,
    ON_FAILURE,
    PAGE_KEY,
    PAGE_SHA,
    TOO_LARGE,
    extract_one,
    page_bytes,
)
from evalkit.harness.kept import page_line
from evalkit.harness.page_worker import GOLD, shared_worker
from evalkit.harness.render import RENDER_MARK, render_settings, render_todo
from evalkit.harness.score_limits import (
    TOO_LONG_OUTPUT,
    ScoreWriteError,
    empty_record,
    score_within,
    too_long_to_score,
)
from evalkit.harness.scoring import apply_gold_side, gold_needs, unprepared
from evalkit.harness.specs import MethodSpec

__all__ = ["PIPELINE_DEPTH", "PagePipeline", "run_page_task", "run_task", "run_tasks"]


class _InProcess:
    """The methods of a task built in this process (no ``runner.page_timeout``)."""

    def __init__(self, specs: list[MethodSpec]):
        self.methods, self.build_errors = [], []
        for spec in specs:
            try:
                method, error = spec.build(), None
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # noqa: BLE001 - a peer whose package is missing, a
                # CancelledError: the method's failure, never the run's (as in extract_one)
                method, error = None, f"{BUILD_FAILED}{type(exc).__name__}: {exc}"
            self.methods.append(method)
            self.build_errors.append(error)
        self.stateful = [getattr(m, "scope", "page") == "site" for m in self.methods]
        self._queue: collections.deque[tuple[Page, list[int]]] = collections.deque()

    def submit(self, page: Page, todo: list[int], gold: str | None = None) -> None:
        self._queue.append((page, todo))  # the page's own side is scored here, unbounded

    def collect(self, timeout=None):
        page, todo = self._queue.popleft()
        for j in todo:
            # scored as the cache would give it back, so a rerun scores the same
            yield j, as_data(extract_one(self.methods[j], page))


class _Crashed(_InProcess):
    """Stands for the methods of a task whose worker process died (Runner.map): every
    method's extraction of every page is that failure, scored as ``on_failure`` says."""

    def __init__(self, specs: list[MethodSpec], why: str):
        self.methods, self.build_errors = [None] * len(specs), [None] * len(specs)
        self.stateful = [False] * len(specs)
        self.why = why
        self._queue = collections.deque()

    def collect(self, timeout=None):
        _, todo = self._queue.popleft()
        for j in todo:
            yield j, Extraction(error=self.why)


#: pages in the page worker's queue at most while the task's process scores (run_tasks): with
#: one, a page that scores slower than the next one extracts leaves the worker idle
PIPELINE_DEPTH = 2


@dataclass
class _Task:
    """One task of :func:`run_tasks` while its pages go through the pipeline."""

    pages: Iterable[Page]
    #: a reader's site task: its pages are made here, and each page's sha256 goes back
    made_here: bool
    #: the methods the task's pages run on: fresh instances per task
    methods: Any = None
    #: the site context of the cache keys of site-scope methods: the pages seen so far
    context: Any = field(default_factory=hashlib.sha256)
    records: list[dict[str, Any]] = field(default_factory=list)
    started: int = 0
    finished: int = 0
    read_all: bool = False

    @property
    def done(self) -> bool:
        return self.read_all and self.finished == self.started


@dataclass
class _PageState:
    """One page of a task between handing it to the methods and scoring its records."""

    task: _Task
    page: Page
    pkey: str
    too_large: bool
    exts: dict[int, Extraction] = field(default_factory=dict)
    keys: dict[int, str] = field(default_factory=dict)
    cached: dict[int, bool] = field(default_factory=dict)
    invalid: dict[int, bool] = field(default_factory=dict)
    todo: list[int] = field(default_factory=list)
    #: method index -> how its page's layout was had (evalkit.harness.render.render_todo)
    render: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: why the page's own side of scoring (its parse in the page worker) failed, if it did
    gold_error: str | None = None
    #: its own side went to the gold worker (PagePipeline.gold_worker)
    gold_apart: bool = False


class PagePipeline:
    """The tasks of a run through one pipeline (see the module docstring); :meth:`run` yields each
    task's records as soon as its last page is scored."""

    def __init__(
        self,
        specs: list[MethodSpec],
        cache_root: str | None,
        score: Callable[[Page, str, Extraction], dict[str, Any]],
        on_failure: str = "empty",
        page_timeout: float | None = None,
        max_page_bytes: int | None = None,
        crashed: str | None = None,
        max_output_chars: int | None = None,
        max_score_words: int | None = None,
        worker_max_mb: int | None = None,
        keep_gold: bool = False,
        gold_apart: bool = False,
    ):
        if on_failure not in ON_FAILURE:
            raise ValueError(
                f"on_failure must be one of {', '.join(ON_FAILURE)}, got {on_failure!r}"
            )
        self.specs, self.score, self.on_failure = specs, score, on_failure
        self.page_timeout, self.max_page_bytes = page_timeout, max_page_bytes
        self.max_output_chars, self.max_score_words = max_output_chars, max_score_words
        self.keep_gold = keep_gold  # each page's kept line on its first record (KEPT_PAGE)
        self.cache = ExtractionCache(cache_root)
        self.keyed = self.cache.root is not None  # without a cache no key is ever looked up
        # a method whose code the key cannot hold (a lambda typed in a REPL) is never cached;
        # without a cache nothing is, and no key need be worked out
        # each method's key, worked out once here (this process's hash seed: MethodSpec.key)
        self.method_keys = [spec.key() if self.keyed else None for spec in specs]
        self.uncached = [self.keyed and key is None for key in self.method_keys]
        #: the error of every extraction of a task whose worker died (nothing is run)
        self.crashed = crashed
        self.worker = shared_worker() if page_timeout and crashed is None else None
        if self.worker is not None:
            self.worker.max_mb = worker_max_mb  # runner.worker_max_mb
        # the page's own side of scoring (its parse) goes to the worker with its methods, so
        # it runs under the same limit (issue 37 item 13); in process it is not bounded
        self.gold = gold_needs(score) if self.worker is not None else None
        # the page's own side in a worker of its own, beside the methods' (gold_apart: a run
        # in one process, whose second core the methods' worker does not use)
        self.gold_worker = shared_worker("gold") if gold_apart and self.gold else None
        # methods run in this process: the processes they start end with the pipeline (in
        # the main thread only: a Dask worker's threads run other tasks' methods beside it)
        self.children = (
            ChildWatch()
            if self.worker is None
            and crashed is None
            and threading.current_thread() is threading.main_thread()
            else None
        )
        # the render settings of each method that needs a rendered page (None: it does not)
        self.render = [render_settings(spec) for spec in specs]
        self.open_tasks: collections.deque[_Task] = collections.deque()
        self.inflight: collections.deque[_PageState] = collections.deque()  # not collected
        self.collected: _PageState | None = None  # collected, not scored
        # with a page worker, up to PIPELINE_DEPTH pages are in its queue while this process
        # scores: a page whose scoring takes longer than the next one's extraction then does
        # not leave the worker idle; in-process methods extract in collect, one at a time
        self.depth = PIPELINE_DEPTH if self.worker is not None else 1

    def run(self, tasks: Iterable[list[Page]]) -> Iterator[list[dict[str, Any]]]:
        try:
            yield from self._run(tasks)
        finally:
            if self.children is not None:  # what the methods started here ends with the run
                self.children.end()

    def _run(self, tasks: Iterable[list[Page]]) -> Iterator[list[dict[str, Any]]]:
        for pages in tasks:
            made_here = hasattr(pages, "pages")
            task = _Task(pages.pages() if made_here else pages, made_here)
            self.open_tasks.append(task)
            for page in task.pages:  # reading a page while the worker extracts earlier ones
                if task.methods is None:
                    while self.inflight:  # a task's fresh methods are built in an idle worker
                        self._step()
                        yield from self._ready()
                self.inflight.append(self._start(task, page))
                while len(self.inflight) >= self.depth:
                    self._step()
                    yield from self._ready()
            task.read_all = True
            yield from self._ready()  # a task without pages
        while self.inflight:
            self._step()
            yield from self._ready()
        if self.collected is not None:
            self._finish(self.collected)
        yield from self._ready()

    def _start(self, task: _Task, page: Page) -> _PageState:
        """Look every method's extraction of ``page`` up in the cache; hand the rest over."""
        if task.methods is None:  # the task's first page: its fresh methods
            if self.crashed is not None:
                task.methods = _Crashed(self.specs, self.crashed)
            elif self.worker is not None:
                self.worker.build(self.specs)  # every earlier page is collected: it is idle
                task.methods = self.worker
                if self.gold_worker is not None:
                    self.gold_worker.build([])
            else:
                task.methods = _InProcess(self.specs)
        methods, cache = task.methods, self.cache
        # hashing the page (its bytes, text and gold) only names cache entries
        size = page_bytes(page)
        state = _PageState(
            task,
            page,
            _page_key(page) if self.keyed else "",
            self.max_page_bytes is not None and size > self.max_page_bytes,
        )
        for j, spec in enumerate(self.specs):
            stateful = methods.stateful[j]
            state.keys[j] = (
                hashlib.sha256(
                    f"{self.method_keys[j]}|{state.pkey}|{task.context.hexdigest() if stateful else ''}".encode()
                ).hexdigest()
                if self.keyed
                else ""
            )
            before = cache.invalid
            ext = (
                None
                if stateful or state.too_large or self.uncached[j] or self.crashed
                else cache.get(state.keys[j])
            )
            state.invalid[j] = cache.invalid > before
            state.cached[j] = ext is not None
            if ext is not None:
                state.exts[j] = ext
            elif state.too_large:
                state.exts[j] = Extraction(error=f"{TOO_LARGE}{size} bytes > runner.max_page_bytes")
            elif methods.build_errors[j] is not None:
                state.exts[j] = Extraction(error=methods.build_errors[j])
            else:
                state.todo.append(j)
        if any(self.render[j] is not None for j in state.todo):  # lay the page out first
            render_todo(page, state, self.render, self.cache.root)
        task.context.update(state.pkey.encode())  # the next page's site context
        task.started += 1
        gold = (
            self.gold
            if self.gold
            and unprepared(page, self.gold)
            and too_long_to_score(page, None, self.max_score_words) is None  # never scored
            else None
        )
        if gold and self.gold_worker is not None:
            self.gold_worker.submit(page, [], gold)
            state.gold_apart = True
            gold = None
        methods.submit(page, state.todo, gold)
        return state

    def _collect(self, state: _PageState) -> None:
        """The extractions of the methods a page was handed to; new ones go to the cache."""
        methods, cache = state.task.methods, self.cache
        answers = methods.collect(self.page_timeout)
        if state.gold_apart:
            answers = itertools.chain(answers, self.gold_worker.collect(self.page_timeout))
        for j, ext in answers:
            if j == GOLD:  # the page's own side, prepared in the worker (or why it failed)
                if isinstance(ext, str):
                    state.gold_error = f"scoring failed: {ext}"
                else:
                    apply_gold_side(state.page, ext)
                continue
            if (
                ext.error is None
                and self.max_output_chars is not None
                and len(ext.text) > self.max_output_chars
            ):
                # neither cached nor scored: a failure like a method's own (scored as empty)
                ext = Extraction(
                    seconds=ext.seconds,
                    error=(
                        f"{TOO_LONG_OUTPUT}{len(ext.text)} characters > runner.max_output_chars"
                    ),
                )
            state.exts[j] = ext
            if ext.error is None and not methods.stateful[j] and not self.uncached[j]:
                before = cache.invalid
                cache.put(state.keys[j], ext)
                state.invalid[j] = state.invalid[j] or cache.invalid > before

    def _finish(self, state: _PageState) -> None:
        """Score a collected page: one record per method, failures counted as ``on_failure``.

        Scoring is bounded as extraction is (evalkit.harness.score_limits): a page or output
        over ``runner.max_score_words`` words is a failure, and scoring one (page, method)
        runs under ``runner.page_timeout``. A scoring failure counts like a method's: under
        ``on_failure=empty`` the record is scored as an empty extraction and keeps the error;
        a failure of the page's own side (its gold or units) is the same for every method, and
        under ``empty`` each method's record is that of an empty output (issue 37 item 3).
        """
        page, task = state.page, state.task
        page_error = too_long_to_score(page, None, self.max_score_words) or state.gold_error
        for j, spec in enumerate(self.specs):
            ext = scored = state.exts[j]
            never_scored = state.too_large or task.methods.build_errors[j] is not None
            error = ext.error
            if error is None:
                error = page_error or too_long_to_score(page, ext, self.max_score_words)
            if error is not None and not never_scored and self.on_failure == "empty":
                scored = Extraction(seconds=ext.seconds)
            rec = None
            if page_error is None or never_scored:
                rec, failed = self._score(page, spec.label, scored, self.page_timeout)
                if failed is not None and error is None:
                    error = failed  # the output's scoring failed: score it as empty, in a
                    # time limit of its own (when that fails too, the page's side failed)
                    if self.on_failure == "empty":
                        rec, failed = self._score(
                            page, spec.label, Extraction(seconds=ext.seconds), self.page_timeout
                        )
                if failed is not None and rec is None:
                    # the page's own side failed (its gold, its units): so for every method
                    page_error = page_error or failed
            if (
                rec is None
                and page_error is not None
                and not never_scored
                and self.on_failure == "empty"
            ):
                rec = self._empty(page, spec.label, ext)  # counted, as an empty output
            if rec is None:
                rec = {"dataset": page.dataset, "page_id": page.id, "method": spec.label}
            if error is not None or page_error is not None:
                rec["error"] = error or page_error  # scored as empty or not, it is counted
            rec["cached"] = state.cached[j]
            if j in state.render:
                rec[RENDER_MARK] = state.render[j]  # counted by Runner.run_pages for run.json
            if state.invalid[j]:
                rec[CACHE_INVALID] = True  # counted by Runner.run_pages, not a column
            if j == 0:  # what is said once per page rides on its first record
                if task.made_here:
                    rec[PAGE_SHA] = page.sha256
                if self.keyed:
                    rec[PAGE_KEY] = state.pkey
                if self.keep_gold:
                    rec[KEPT_PAGE] = page_line(page)
            if self.keyed and not self.uncached[j]:
                rec[METHOD_KEY] = self.method_keys[j]
            task.records.append(rec)
        task.finished += 1

    def _empty(self, page: Page, label: str, ext: Extraction) -> dict[str, Any] | None:
        """:func:`~evalkit.harness.score_limits.empty_record` in the scoring time limit; None
        when even that fails (the scorer's own defect: the page keeps only its error)."""
        try:
            return score_within(
                self.page_timeout, functools.partial(empty_record, self.score), page, label, ext
            )
        except ScoreWriteError:
            raise
        except Exception:  # noqa: BLE001 - as in _score
            return None

    def _score(self, page: Page, label: str, ext: Extraction, timeout: float | None):
        """(record or None, error or None): ``self.score`` within ``timeout`` seconds (None or
        0: no limit, as ``runner.page_timeout=0`` is for the methods). A score record that
        cannot be written (a full disk) stops the run with one line."""
        try:
            return score_within(timeout, self.score, page, label, ext), None
        except ScoreWriteError:
            raise
        except Exception as exc:  # noqa: BLE001 - MemoryError, a timeout, a scorer's bug
            return None, f"scoring failed: {type(exc).__name__}: {exc}"[:500]

    def _step(self) -> None:
        """Score the page collected last, then collect the oldest in flight."""
        if self.collected is not None:
            self._finish(self.collected)
        self.collected = self.inflight.popleft()
        self._collect(self.collected)

    def _ready(self) -> Iterator[list[dict[str, Any]]]:
        while self.open_tasks and self.open_tasks[0].done:
            yield self.open_tasks.popleft().records


def run_task(
    pages: list[Page],
    specs: list[MethodSpec],
    cache_root: str | None,
    score: Callable[[Page, str, Extraction], dict[str, Any]],
    on_failure: str = "empty",
    page_timeout: float | None = None,
    max_page_bytes: int | None = None,
    crashed: str | None = None,
    **limits,
) -> list[dict[str, Any]]:
    """Run every method on a task's pages (one site's run of pages); returns records.

    A page on which a method raised keeps its error in the record; under
    ``on_failure="empty"`` it is scored as an empty extraction (so the page
    counts against the method), under ``"drop"`` the scorer gets the failed
    extraction and records no scores. A method that could not be built is
    never scored: it has no pages, only failures.

    ``page_timeout`` (seconds; None or 0 = none): the methods run in this process's
    :class:`evalkit.harness.page_worker.PageWorker`, and one that runs over it on a page gets a
    ``timeout: ...`` error, counted as ``on_failure`` says. ``max_page_bytes`` (None =
    none): a larger page is not given to any method; every method's record is a
    ``too large: ...`` failure that is never scored, so all methods lose the same page.
    ``crashed``: no method runs; every extraction is a failure with this error (a task
    whose worker process died, :meth:`evalkit.harness.runner.Runner.map`).
    """
    pipeline = PagePipeline(
        specs, cache_root, score, on_failure, page_timeout, max_page_bytes, crashed, **limits
    )
    run = pipeline.run([pages])
    try:
        return next(run)
    finally:
        run.close()  # the end of the task's run: what its methods started ends


def run_tasks(
    tasks: Iterable[list[Page]],
    specs: list[MethodSpec],
    cache_root: str | None,
    score: Callable[[Page, str, Extraction], dict[str, Any]],
    on_failure: str = "empty",
    page_timeout: float | None = None,
    max_page_bytes: int | None = None,
    **limits,
) -> Iterator[list[dict[str, Any]]]:
    """:func:`run_task` of every task, in order, through one pipeline: yields each task's
    records as soon as its last page is scored.

    With a page worker (``page_timeout``) the work overlaps: while the worker extracts page
    *i* (with page *i + 1* queued behind it, :data:`PIPELINE_DEPTH`), this process scores
    page *i − 1* and reads page *i + 2*, across the ends of tasks too (where the queue
    empties, since a task's fresh methods are built in an idle worker), so the scoring hides
    behind the methods on a machine with a core to spare. In-process methods extract when
    their page is collected: nothing overlaps, and the order of work is that of one task
    after another; the processes they start are ended when the pipeline ends
    (evalkit.harness.children). Either way every task gets fresh method instances and
    records are the same, in the same order.
    """
    yield from PagePipeline(
        specs, cache_root, score, on_failure, page_timeout, max_page_bytes, **limits
    ).run(tasks)


def run_page_task(
    pages,
    *,
    specs,
    cache_root,
    score,
    on_failure,
    page_timeout=None,
    max_page_bytes=None,
    crashed=None,
    **limits,
):
    # the one-argument task function Runner.map hands out (module level: it must pickle)
    return run_task(
        pages, specs, cache_root, score, on_failure, page_timeout, max_page_bytes, crashed, **limits
    )
