"""The one execution path: every experiment's work goes through a :class:`Runner`.

``Runner.map(fn, tasks)`` is an ordered map of a picklable task function over
tasks, run in this process, in joblib worker processes or on a Dask cluster
(``cfg.runner``; :mod:`evalkit.harness.dask_runner`). ``Runner.run_pages`` builds the
extraction path on it: dataset x methods -> per-page records, failure-isolated
and cached. No experiment starts processes or loops over workers itself.

Pages stream from the reader in tasks: a site's pages go together
(:func:`iter_tasks`), so methods with site-scope state (the proposed method's
``scope=site``) see a site's pages in order, whatever the number of workers.
Each task builds fresh method instances from their (name, params) specs, so
no state leaks between tasks and results do not depend on scheduling.

A method that raises on a page yields a record with ``error`` set; the run
goes on, and ``runner.on_failure`` says how the page counts (``empty``: scored
as an empty extraction; ``drop``: no scores). Extractions (not scores) are
cached on disk (evalkit.harness.cache), keyed by everything that can change them: the
method's resolved parameters, the source of every module it can execute, the
versions of the packages it calls, the page as the method sees it and the site
context. So a rerun or an interrupted run resumes, and re-scoring with a new
metric needs no re-extraction.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Self

from evalkit.core.page import Page
from evalkit.core.validate import ParamError, check_bool, check_int, check_number, check_workers
from evalkit.harness import watchdog
from evalkit.harness.cache import invalid_entries_line, sweep_temps
from evalkit.harness.cache_admin import WrittenLog
from evalkit.harness.cache_seal import cache_seal
from evalkit.harness.dask_runner import (
    DEFAULT_N_WORKERS,
    DEFAULT_RETRIES,
    DEFAULT_THREADS_PER_WORKER,
    DEFAULT_WINDOW_PER_WORKER,
    DaskBackend,
    check_dask,
)
from evalkit.harness.errors import RunnerError
from evalkit.harness.extract import CACHE_INVALID, METHOD_KEY, ON_FAILURE, PAGE_KEY, PAGE_SHA
from evalkit.harness.page_worker import WORKER_DIED, shared_worker, stop_shared_worker
from evalkit.harness.pipeline import PagePipeline, run_page_task, run_tasks
from evalkit.harness.render import RENDER_MARK, count_render
from evalkit.harness.score_cache import cached_scorer
from evalkit.harness.specs import MethodSpec
from evalkit.harness.tasks import iter_tasks
from evalkit.harness.watchdog import deaf_loky_workers, exit_with_parent
from evalkit.report.progress import track

__all__ = ["BACKENDS", "Runner", "ShardRecords", "run_pages", "run_pages_dask", "run_shard_task"]


#: backends a ``cfg.runner`` can name (configs/runner/<name>.yaml)
BACKENDS = ("local", "dask")


@dataclass
class Runner:
    """The one way evalkit executes work: an ordered map of a task function over tasks.

    ``name="local"`` runs the tasks in this process (``n_jobs=1``) or in
    ``n_jobs`` joblib worker processes; ``name="dask"`` on a Dask cluster
    (``dask`` holds the settings of configs/runner/dask.yaml). Results come
    back in task order whatever the backend, so no experiment's numbers depend
    on where its tasks ran. Task functions and their arguments must pickle
    (module-level functions, ``functools.partial`` of them).

    :meth:`run_pages` is the extraction path on top of :meth:`map`: pages x
    method specs -> scored records, failure-isolated and cached, with failed
    pages counted as ``on_failure`` says.

    Use it as a context manager (``run_experiment`` does) so a Dask client is
    connected before any work and closed after; :meth:`map` opens it on first
    use otherwise.
    """

    name: str = "local"
    n_jobs: int = 1
    cache_root: str | None = None
    progress: bool = True
    on_failure: str = "empty"
    #: seconds a method may spend on one page (None or 0: no limit, methods run in the task's
    #: process); over it the page is a ``timeout`` failure (evalkit.harness.page_worker)
    page_timeout: float | None = None
    #: pages larger than this many bytes are not parsed (None: no limit)
    max_page_bytes: int | None = None
    #: gold files larger than this are not read (the readers check it; evalkit.readers.base)
    max_gold_bytes: int | None = None
    #: outputs longer than this many characters are failures, never cached or scored
    max_output_chars: int | None = None
    #: a gold or output over this many words is a failure (evalkit.harness.score_limits)
    max_score_words: int | None = None
    #: a page worker whose resident memory passes this many MiB after a page is replaced by a
    #: fresh one (a library that leaks: goose3 grows ~1.4 MiB a page); None: never
    worker_max_mb: int | None = None
    dask: dict[str, Any] = field(default_factory=dict)
    _backend: Any = field(default=None, init=False, repr=False)
    #: cache entries found invalid by run_pages so far (printed once by close)
    cache_invalid: int = field(default=0, init=False)
    _swept: bool = field(default=False, init=False, repr=False)
    #: layouts rendered and read from the layout cache so far (evalkit.harness.render), for
    #: run.json's ``render`` record
    render_counts: dict[str, Any] = field(default_factory=dict, init=False)
    #: method label -> the cache key the pages' pipelines filed its entries under (METHOD_KEY)
    method_keys: dict[str, str] = field(default_factory=dict, init=False)
    #: cache folder -> the entries written in it so far, (method label, page key) on disk
    #: (PAGE_KEY; evalkit.harness.cache_admin.WrittenLog): its method index
    #: (evalkit.harness.cache_admin.record_run); by folder, since a caller may run some pages
    #: with a cache of its own (the speed experiment's passes)
    written: dict[str, WrittenLog] = field(default_factory=dict, init=False)

    def __post_init__(self):
        if self.name not in BACKENDS:
            raise RunnerError(f"unknown runner {self.name!r}; valid runners: {', '.join(BACKENDS)}")
        if self.on_failure not in ON_FAILURE:
            raise RunnerError(
                f"runner.on_failure must be one of {', '.join(ON_FAILURE)}, got {self.on_failure!r}"
            )
        try:
            check_workers("n_jobs", self.n_jobs)
            check_bool("progress", self.progress)
            if self.page_timeout is not None:
                check_number("page_timeout", self.page_timeout, low=0)
            check_int("max_page_bytes", self.max_page_bytes, low=1, allow_none=True)
            check_int("max_gold_bytes", self.max_gold_bytes, low=1, allow_none=True)
            check_int("max_output_chars", self.max_output_chars, low=1, allow_none=True)
            check_int("max_score_words", self.max_score_words, low=1, allow_none=True)
            check_int("worker_max_mb", self.worker_max_mb, low=1, allow_none=True)
            if self.name == "dask":
                check_dask(self.dask)
        except ParamError as exc:  # one line naming the key: runner.n_jobs=0: ...
            raise RunnerError(exc.under("runner")) from None

    @classmethod
    def from_config(cls, runner: dict[str, Any], cache_root: str | None = None) -> Runner:
        """The runner a ``cfg.runner`` mapping describes; ``cache_root`` is used unless
        ``runner.cache`` is false."""
        runner = dict(runner or {})
        name = runner.pop("name", "local")
        n_jobs = runner.pop("n_jobs", 1)
        cache = runner.pop("cache", True)
        progress = runner.pop("progress", True)
        try:
            check_bool("cache", cache)  # "false" as a string is truthy: refuse it
        except ParamError as exc:
            raise RunnerError(exc.under("runner")) from None
        on_failure = runner.pop("on_failure", "empty")
        page_timeout = runner.pop("page_timeout", None)
        max_page_bytes = runner.pop("max_page_bytes", None)
        # max_gold_bytes is read by the readers (evalkit.readers.base), checked here
        limits = {
            key: runner.pop(key, None)
            for key in ("max_gold_bytes", "max_output_chars", "max_score_words", "worker_max_mb")
        }
        return cls(
            name=name,
            n_jobs=n_jobs,
            cache_root=cache_root if cache else None,
            progress=progress,
            on_failure=on_failure,
            page_timeout=page_timeout,
            max_page_bytes=max_page_bytes,
            **limits,
            dask=runner if name == "dask" else {},
        )

    # ------------------------------------------------------------------ backends

    @property
    def in_process(self) -> bool:
        """True when tasks run in this process (local, one job)."""
        return self.name == "local" and self.n_jobs == 1

    def open(self) -> Self:
        """Connect the backend (a Dask client); raises :class:`RunnerError` if it cannot.
        Removes what killed cache writes left (evalkit.harness.cache.sweep_temps); makes the
        cache's key is refused before any page when it cannot be trusted; a cache with no key
        gets one at its first write (evalkit.harness.cache_seal), so a run that writes nothing
        leaves no cache folder behind."""
        if self.cache_root and not self._swept:
            self._swept = True
            sweep_temps(self.cache_root)
            cache_seal(self.cache_root).secret(create=False)  # a bad key file: one line, now
        if self.name == "dask" and self._backend is None:
            self._backend = DaskBackend(**self.dask).open()
        return self

    def warm(self) -> Self:
        """Start this process's page worker now when tasks will run here with a
        ``page_timeout``, so its start-up (a Python, evalkit's imports) overlaps the run's
        own reading of configs, methods and data instead of delaying the first page."""
        if self.in_process and self.page_timeout:
            shared_worker().warm()
            shared_worker("gold").warm()
        return self

    def close(self) -> None:
        if self.cache_invalid:
            # once per run, however many entries and wherever they were read
            print(invalid_entries_line(self.cache_root, self.cache_invalid), file=sys.stderr)
            self.cache_invalid = 0
        if self._backend is not None:
            self._backend.close()
            self._backend = None
        if self.page_timeout:
            stop_shared_worker()  # this process's, when tasks ran here (n_jobs=1)

    def _written(self, root: str) -> WrittenLog:
        log = self.written.get(root)
        if log is None:
            log = self.written[root] = WrittenLog(root)
        return log

    def __enter__(self) -> Self:
        return self.open()

    def __exit__(self, *exc) -> None:
        self.close()

    def map(
        self,
        fn: Callable[[Any], Any],
        tasks: Iterable[Any],
        *,
        desc: str = "tasks",
        total: int | None = None,
        unit: str = "task",
        count: Callable[[Any], int] | None = None,
        on_crash: Callable[[Any, str], Any] | None = None,
    ) -> Iterator[Any]:
        """``fn(task)`` for every task, results in task order, on this runner's backend.

        Tasks are consumed lazily, so a reader's pages stream; ``count(result)``
        says how far a result moves the progress bar (default 1).

        A task that kills the worker process running it (a method calling ``os._exit``, a
        segfault, the out-of-memory killer) gives ``on_crash(task, why)`` in its place and
        the other tasks go on (loky: :meth:`_map_local`; Dask: once the scheduler gives the
        task up, ``KilledWorker``). Without ``on_crash`` the error is raised, as before.
        """
        return self._progress(
            self._map(fn, tasks, on_crash), desc=desc, total=total, unit=unit, count=count
        )

    def _progress(
        self,
        results: Iterable[Any],
        *,
        desc: str,
        total: int | None,
        unit: str,
        count: Callable[[Any], int] | None,
    ) -> Iterator[Any]:
        # the one progress bar of evalkit (evalkit.report.progress): total, rate, ETA, kept
        return track(results, total, desc, unit, count=count, show=self.progress)

    def _map(self, fn, tasks, on_crash=None):
        if self.name == "dask":
            yield from self.open()._backend.map(fn, tasks, on_crash)
        elif self.n_jobs == 1:
            for task in tasks:
                yield fn(task)
        else:
            yield from self._map_local(fn, tasks, on_crash)

    def _parallel(self):
        from joblib import Parallel, parallel_config
        from joblib.parallel import get_active_backend

        # loky workers that end with this process (exit_with_parent): a killed run leaves
        # none. Inside a worker (Hydra's joblib launcher) joblib uses threads: kept so.
        loky = type(get_active_backend()[0]).__name__ == "LokyBackend"
        if loky:
            deaf_loky_workers()  # a Ctrl-C while a worker starts prints no traceback
        # the hash seed in initargs: loky reuses a pool only for equal initargs, so a pool
        # started under another PYTHONHASHSEED (before evalkit.shell.api set it) is not reused
        with (
            parallel_config(
                backend="loky",
                initializer=exit_with_parent,
                initargs=(os.getpid(), os.environ.get("PYTHONHASHSEED")),
            )
            if loky
            else contextlib.nullcontext()
        ):
            return Parallel(
                n_jobs=self.n_jobs, return_as="generator", batch_size=1, pre_dispatch="4*n_jobs"
            )

    def _map_local(self, fn, tasks, on_crash):
        """``fn`` over ``tasks`` in joblib's worker processes, in order.

        When a worker process dies, joblib fails every task in flight. Those tasks are then
        run again one at a time, each alone in the pool: the one that kills its worker again
        is the culprit and gives ``on_crash(task, why)``; the others give their results.
        Then the remaining tasks go on in parallel."""
        from joblib import delayed
        from joblib.externals.loky.process_executor import BrokenProcessPool

        tasks = iter(tasks)
        consumed: collections.deque = collections.deque()  # handed to joblib, not answered

        def feed():
            for task in tasks:
                consumed.append(task)
                yield delayed(fn)(task)

        while True:
            try:
                for result in self._parallel()(feed()):
                    consumed.popleft()
                    yield result
                return
            except BrokenProcessPool as exc:
                if on_crash is None:
                    raise
                why = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
            suspects = list(consumed)
            consumed.clear()
            for task in suspects:
                try:
                    (result,) = self._parallel()([delayed(fn)(task)])
                except BrokenProcessPool:
                    result = on_crash(
                        task,
                        f"{WORKER_DIED}the worker process running this "
                        f"page's task ended ({why}); the run went on",
                    )
                yield result

    def page_tasks(self, pages: Iterable[Page]) -> Iterator[list[Page]]:
        """Pages in tasks (:func:`iter_tasks`): a site's pages together; site-less pages
        20 a task in this process, one a task when tasks run elsewhere (so they spread
        over the workers)."""
        # in this process the tasks go through one pipeline (run_tasks), which reads each page
        # while the page worker extracts the one before: a task's pages are read lazily
        return iter_tasks(pages, max_pages=20 if self.in_process else 1, lazy=self.in_process)

    # ------------------------------------------------------------------ extraction path

    def run_pages(
        self,
        pages: Iterable[Page],
        specs: list[MethodSpec],
        *,
        score,
        desc: str = "pages",
        total: int | None = None,
        cache: bool = True,
    ) -> list[dict[str, Any]]:
        """Run ``specs`` over ``pages``: one record per (page, method), in page order.

        Pages go in tasks of :meth:`page_tasks`; every task is :func:`run_task`. A reader that
        makes its pages (evalkit.readers.base.LazyPages) hands out one task per site instead,
        and the pages are made where the task runs; one whose workers read their own shards
        (evalkit.readers.warc.shards.WarcPages), where tasks run elsewhere, one task per shard
        (:func:`run_shard_task`). ``cache=False`` bypasses the extraction cache (e.g. when the
        run measures time). All records are returned at once;
        :meth:`iter_records` hands them out as their tasks finish.
        """
        return list(
            self.iter_records(pages, specs, score=score, desc=desc, total=total, cache=cache)
        )

    def _limits(self) -> dict[str, int | None]:
        return {
            "max_output_chars": self.max_output_chars,
            "max_score_words": self.max_score_words,
            "worker_max_mb": self.worker_max_mb,
        }

    def iter_records(
        self,
        pages: Iterable[Page],
        specs: list[MethodSpec],
        *,
        score,
        desc: str = "pages",
        total: int | None = None,
        cache: bool = True,
        keep_gold: bool = False,
    ) -> Iterator[dict[str, Any]]:
        """:meth:`run_pages` as a stream: records in page order as their tasks finish, so
        a caller that writes them out (evalkit.report.results.RecordSpill) holds a window of
        tasks' records, not the run's. ``keep_gold``: each page's first record carries the
        page's line of the kept extractions (evalkit.harness.extract.KEPT_PAGE)."""
        root = self.cache_root if cache else None
        # score records are cached beside the extractions (evalkit.harness.score_cache.ScoreCache)
        scorer = cached_scorer(score, root)
        n_methods = max(len(specs), 1)
        note_seen = getattr(pages, "note_seen", None)
        plan = getattr(pages, "shard_tasks", None)
        shards = None
        if plan is not None and not self.in_process:  # indexed on the workers (desc: the bar's)
            shards = plan(functools.partial(self.map, desc=f"{desc} shards indexed", unit="shard"))
        if shards is not None:
            tasks, task_run = shards, run_shard_task
        elif note_seen is not None and plan is None:
            tasks, task_run = pages.site_tasks(), run_page_task
        else:  # read here: the reader fills seen_ itself
            tasks, task_run, note_seen = self.page_tasks(pages), run_page_task, None
        shown = {
            "desc": desc,
            "total": total,
            "unit": "page",
            "count": lambda recs: len(recs) // n_methods,
        }
        if self.in_process:  # one pipeline across the tasks (run_tasks), not one per task
            done = self._progress(
                run_tasks(
                    tasks,
                    specs,
                    root,
                    scorer,
                    self.on_failure,
                    self.page_timeout,
                    self.max_page_bytes,
                    keep_gold=keep_gold,
                    gold_apart=True,
                    **self._limits(),
                ),
                **shown,
            )
        else:
            task_fn = functools.partial(
                task_run,
                specs=specs,
                cache_root=root,
                score=scorer,
                on_failure=self.on_failure,
                page_timeout=self.page_timeout,
                max_page_bytes=self.max_page_bytes,
                keep_gold=keep_gold,
                **self._limits(),
            )
            # a task that kills its worker: its pages are that failure, scored here
            crash = functools.partial(_crashed_task, task_fn)
            done = self.map(task_fn, tasks, on_crash=crash, **shown)
        n_records, page_key = 0, None
        for recs in done:
            n_records += len(recs)
            skipped = getattr(recs, "skipped", None)
            if skipped is not None:  # a shard's skips, in shard order
                pages.note_skipped(skipped)
            for rec in recs:
                self.cache_invalid += bool(rec.pop(CACHE_INVALID, False))
                count_render(self.render_counts, rec.pop(RENDER_MARK, None))
                page_key = rec.pop(PAGE_KEY, page_key)  # on a page's first record
                key = rec.pop(METHOD_KEY, None)
                if key is not None:  # the key the page's pipeline filed the entry under
                    label = rec.get("method")  # a caller's scorer may leave it out
                    self.method_keys[label] = key
                    new = label is not None and not rec.get("cached") and not rec.get("error")
                    if root and page_key and new:
                        self._written(root).add(label, page_key)  # an entry this run wrote
                sha = rec.pop(PAGE_SHA, None)
                if sha is not None and note_seen is not None:
                    note_seen(rec["page_id"], sha)
            yield from recs
        if self.name == "local" and n_records // n_methods >= watchdog.RELEASE_AFTER_PAGES:
            watchdog.release_local_workers()  # their memory is the summaries' now


class ShardRecords(list):
    """A shard task's records; ``skipped``: what its reader skipped while reading it."""


@dataclass
class _Made:
    """One site's pages read where the task runs: its records carry each page's sha256."""

    group: list[Page]

    def pages(self) -> list[Page]:
        return self.group


def run_shard_task(shard, *, specs, cache_root, score, on_failure, crashed=None, **settings):
    """The task function of a reader's shard (an object whose ``read()`` gives its pages, then
    its ``skipped``): one task per site of it (:func:`iter_tasks`, as :meth:`Runner.page_tasks`
    makes them where tasks run elsewhere) through one pipeline (:func:`run_tasks`)."""
    read = shard.read()
    groups = (_Made(group) for group in iter_tasks(read, max_pages=1))
    pipeline = PagePipeline(specs, cache_root, score, on_failure, crashed=crashed, **settings)
    out = ShardRecords(rec for recs in pipeline.run(groups) for rec in recs)
    out.skipped = list(read.skipped)
    return out


def _crashed_task(task_fn, pages, why: str) -> list[dict[str, Any]]:
    """The records of a page task whose worker process died: every method failed on every
    page with ``why``, scored as ``runner.on_failure`` says (in this process, running no
    method)."""
    return task_fn(pages, crashed=why, page_timeout=None)


def run_pages(
    pages: Iterable[Page],
    specs: list[MethodSpec],
    *,
    score,
    n_jobs: int = 1,
    cache_root: str | None = None,
    progress: bool = True,
    total: int | None = None,
    desc: str = "pages",
    on_failure: str = "empty",
) -> list[dict[str, Any]]:
    """:meth:`Runner.run_pages` on a local runner of ``n_jobs`` processes (a shorthand)."""
    with Runner(
        n_jobs=n_jobs, cache_root=cache_root, progress=progress, on_failure=on_failure
    ) as runner:
        return runner.run_pages(pages, specs, score=score, total=total, desc=desc)


def run_pages_dask(
    pages: Iterable[Page],
    specs: list[MethodSpec],
    *,
    score,
    scheduler: str | None = None,
    n_workers: int = DEFAULT_N_WORKERS,
    threads_per_worker: int = DEFAULT_THREADS_PER_WORKER,
    processes: bool = True,
    cache_root: str | None = None,
    progress: bool = True,
    total: int | None = None,
    desc: str = "pages",
    window_per_worker: int = DEFAULT_WINDOW_PER_WORKER,
    retries: int = DEFAULT_RETRIES,
    on_failure: str = "empty",
) -> list[dict[str, Any]]:
    """:meth:`Runner.run_pages` on a Dask runner (a shorthand for tests and
    scripts; a cluster is started, or connected to, for this call only)."""
    runner = Runner(
        name="dask",
        cache_root=cache_root,
        progress=progress,
        on_failure=on_failure,
        dask={
            "scheduler": scheduler,
            "n_workers": n_workers,
            "threads_per_worker": threads_per_worker,
            "processes": processes,
            "window_per_worker": window_per_worker,
            "retries": retries,
        },
    )
    with runner:
        return runner.run_pages(pages, specs, score=score, total=total, desc=desc)
