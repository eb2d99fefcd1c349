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
import hashlib
import itertools
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Self

from evalkit.harness.cache import ExtractionCache, cached_scorer, invalid_entries_line, method_key
from evalkit.harness.cache import page_key as _page_key
from evalkit.harness.cache_entry import as_data
from evalkit.core.page import Extraction, Page
from evalkit.core.validate import ParamError, check_bool, check_int, check_number

__all__ = [
    "BACKENDS",
    "BUILD_FAILED",
    "ON_FAILURE",
    "ORIGINS",
    "TOO_LARGE",
    "ExtractionCache",
    "MethodSpec",
    "Runner",
    "RunnerError",
    "extract_one",
    "iter_tasks",
    "locate",
    "page_bytes",
    "run_pages",
    "run_task",
    "run_tasks",
]


#: where a :class:`MethodSpec` comes from: a registry name, Hydra's ``_target_`` (a dotted
#: path to a class or function), or an object handed over in Python (evalkit.shell.api)
ORIGINS = ("registry", "target", "object")


@dataclass(frozen=True)
class MethodSpec:
    """How to build a method: its table name, registry name and keyword parameters.

    ``origin="target"``: ``registry`` is a dotted path (``my_module.MyExtractor``, Hydra's
    ``_target_``) imported where the method is built, in every worker. ``origin="object"``:
    ``obj`` is an :class:`~evalkit.core.method.Extractor` object (copied for every task), a class
    (built with ``params``) or a function ``html -> text``; it travels to worker processes by
    value (joblib's loky and Dask pickle tasks with cloudpickle, and so does
    :class:`evalkit.harness.page_worker.PageWorker`), so a function typed in a notebook runs there.
    ``source`` is the code of a method from outside evalkit's packages as read where the
    spec was made (the cache key holds it; None: unreadable, so never cached). Make such
    specs with
    :meth:`from_target` and :meth:`from_object`, which read it.
    """

    label: str
    registry: str
    params: dict[str, Any] = field(default_factory=dict)
    kind: str = "method"
    origin: str = "registry"
    obj: Any = field(default=None, repr=False)
    source: str | None = field(default=None, repr=False)

    @classmethod
    def from_target(cls, label: str, target: str, params: dict[str, Any] | None = None,
                    kind: str = "method") -> MethodSpec:
        """A spec of ``target`` (``module.Class``); ImportError or AttributeError when it cannot
        be imported here, ValueError when it is not a dotted path."""
        from evalkit.harness.cache import outside_source

        return cls(label=label, registry=target, params=dict(params or {}), kind=kind,
                   origin="target", source=outside_source(locate(target)))

    @classmethod
    def from_object(cls, label: str, obj: Any, params: dict[str, Any] | None = None,
                    kind: str = "method") -> MethodSpec:
        """A spec of an extractor object, an extractor class or a function ``html -> text``."""
        from evalkit.harness.cache import outside_source
        from evalkit.core.method import function_name

        code = obj if isinstance(obj, type) or _is_function(obj) else type(obj)
        return cls(label=label, registry=function_name(code), params=dict(params or {}),
                   kind=kind, origin="object", obj=obj, source=outside_source(code))

    def build(self):
        from evalkit.harness.registry import DETECTORS, METHODS, instantiate

        if self.origin == "registry":
            reg = METHODS if self.kind == "method" else DETECTORS
            return reg.create(self.registry, **self.params)
        made = locate(self.registry) if self.origin == "target" else self.obj
        if isinstance(made, type):
            method = instantiate(made, self.kind, self.label, self.params)
        elif _is_function(made):
            from evalkit.core.method import FunctionExtractor

            if self.params:
                raise ValueError(f"{self.kind} {self.label!r} is a function: it takes no "
                                 f"parameters (got {', '.join(sorted(self.params))})")
            method = FunctionExtractor(made)
        else:  # an object: a fresh copy per task, so no state leaks between tasks
            import copy

            method = copy.deepcopy(made)
        from evalkit.core.method import Detector, Extractor

        base = Extractor if self.kind == "method" else Detector
        if not isinstance(method, base):
            raise TypeError(f"{self.kind} {self.label!r}: {type(method).__qualname__} is not "
                            f"an evalkit.core.method.{base.__name__}")
        return method

    def key(self) -> str | None:
        """Everything about the method that can change an extraction (evalkit.harness.cache),
        worked out once per process; None when it cannot be known (a method whose source
        cannot be read), and then the method is never cached."""
        return method_key(self)

    def __hash__(self):
        return hash((self.label, self.key()))


def _is_function(obj: Any) -> bool:
    return callable(obj) and not isinstance(obj, type) and not hasattr(obj, "extract")


def locate(target: str) -> Any:
    """The class or function a dotted path names (``my_module.MyExtractor``).

    :func:`pkgutil.resolve_name` imports it by Python's rules. When its top-level module is
    not found, the working folder is appended to ``sys.path`` and the import tried again,
    so ``evalkit`` finds a module in the folder it is started in as ``python -m evalkit``
    does (worker processes inherit ``sys.path``)."""
    import pkgutil

    if not isinstance(target, str) or "." not in target.strip(".:"):
        raise ValueError(f"{target!r} is not a dotted path module.Name")
    try:
        return pkgutil.resolve_name(target)
    except ModuleNotFoundError as exc:
        here = os.getcwd()
        if exc.name != target.split(".")[0].split(":")[0] or here in sys.path:
            raise
        sys.path.append(here)
        return pkgutil.resolve_name(target)


def extract_one(method, page: Page) -> Extraction:
    """Run one method on one page; an exception becomes ``Extraction.error``."""
    t0 = time.perf_counter()
    try:
        ext = method.extract(page)
    except Exception as exc:  # noqa: BLE001 - a failing page must never stop the run
        tb = traceback.extract_tb(exc.__traceback__)
        where = f" at {tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}" if tb else ""
        ext = Extraction(error=f"{type(exc).__name__}: {exc}{where}"[:500])
    ext.seconds = time.perf_counter() - t0
    return ext


ON_FAILURE = ("empty", "drop")
"""What a page on which a method raised counts as (``runner.on_failure``): ``empty`` scores
it as an empty extraction (its record keeps ``error``), ``drop`` leaves its scores out."""

#: the error of a method that could not be built: no page was tried, so it is never scored
BUILD_FAILED = "method could not be built: "

#: the record key that marks a record whose cache entry was found invalid (popped before
#: records leave Runner.run_pages; the run prints one line with the count)
CACHE_INVALID = "_cache_invalid"

#: the record key that carries the sha256 of a page a worker made from a reader's site task
#: (evalkit.readers.base.LazyPages); popped by Runner.run_pages into the reader's ``seen_``
PAGE_SHA = "_page_sha256"


#: start of the error of every method's record on a page over ``runner.max_page_bytes``
TOO_LARGE = "too large: "


def page_bytes(page: Page) -> int:
    """The size ``runner.max_page_bytes`` is compared with: the page's file bytes (its text
    in UTF-8 when a reader handed over text only)."""
    return len(page.raw) if page.raw else len(page.html.encode("utf-8", "surrogatepass"))


class _InProcess:
    """The methods of a task built in this process (no ``runner.page_timeout``)."""

    def __init__(self, specs: list[MethodSpec]):
        self.methods, self.build_errors = [], []
        for spec in specs:
            try:
                method, error = spec.build(), None
            except Exception as exc:  # noqa: BLE001 - e.g. a peer whose package is missing
                method, error = None, f"{BUILD_FAILED}{type(exc).__name__}: {exc}"
            self.methods.append(method)
            self.build_errors.append(error)
        self.stateful = [getattr(m, "scope", "page") == "site" for m in self.methods]
        self._queue: collections.deque[tuple[Page, list[int]]] = collections.deque()

    def submit(self, page: Page, todo: list[int]) -> None:
        self._queue.append((page, todo))

    def collect(self, timeout=None):
        page, todo = self._queue.popleft()
        for j in todo:
            # scored as the cache would give it back, so a rerun scores the same
            yield j, as_data(extract_one(self.methods[j], page))


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


def run_task(pages: list[Page], specs: list[MethodSpec], cache_root: str | None,
             score: Callable[[Page, str, Extraction], dict[str, Any]],
             on_failure: str = "empty", page_timeout: float | None = None,
             max_page_bytes: int | None = None) -> list[dict[str, Any]]:
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
    """
    return next(run_tasks([pages], specs, cache_root, score, on_failure, page_timeout,
                          max_page_bytes))


def run_tasks(tasks: Iterable[list[Page]], specs: list[MethodSpec], cache_root: str | None,
              score: Callable[[Page, str, Extraction], dict[str, Any]],
              on_failure: str = "empty", page_timeout: float | None = None,
              max_page_bytes: int | None = None) -> Iterator[list[dict[str, Any]]]:
    """:func:`run_task` of every task, in order, through one pipeline: yields each task's
    records as soon as its last page is scored.

    With a page worker (``page_timeout``) the work overlaps: while the worker extracts page
    *i* (with page *i + 1* queued behind it, :data:`PIPELINE_DEPTH`), this process scores
    page *i − 1* and reads page *i + 2*, across the ends of tasks too (where the queue
    empties, since a task's fresh methods are built in an idle worker), so the scoring hides
    behind the methods on a machine with a core to spare. In-process methods extract when their page is collected: nothing overlaps, and
    the order of work is that of one task after another. Either way every task gets fresh
    method instances and records are the same, in the same order.
    """
    if on_failure not in ON_FAILURE:
        raise ValueError(f"on_failure must be one of {', '.join(ON_FAILURE)}, got {on_failure!r}")
    cache = ExtractionCache(cache_root)
    keyed = cache.root is not None  # without a cache no key is ever looked up
    # a method whose code the key cannot hold (a lambda typed in a REPL) is never cached;
    # without a cache nothing is, and no key need be worked out
    uncached = [keyed and spec.key() is None for spec in specs]
    worker = None
    if page_timeout:
        from evalkit.harness.page_worker import shared_worker

        worker = shared_worker()

    def start(task: _Task, page: Page) -> _PageState:
        if task.methods is None:  # the task's first page: its fresh methods
            if worker is not None:
                worker.build(specs)  # every earlier page is collected: the worker is idle
                task.methods = worker
            else:
                task.methods = _InProcess(specs)
        methods = task.methods
        # hashing the page (its bytes, text and gold) only names cache entries
        size = page_bytes(page)
        state = _PageState(task, page, _page_key(page) if keyed else "",
                           max_page_bytes is not None and size > max_page_bytes)
        for j, spec in enumerate(specs):
            stateful = methods.stateful[j]
            state.keys[j] = hashlib.sha256(
                f"{spec.key()}|{state.pkey}|{task.context.hexdigest() if stateful else ''}"
                .encode()).hexdigest() if keyed else ""
            before = cache.invalid
            ext = (None if stateful or state.too_large or uncached[j]
                   else cache.get(state.keys[j]))
            state.invalid[j] = cache.invalid > before
            state.cached[j] = ext is not None
            if ext is not None:
                state.exts[j] = ext
            elif state.too_large:
                state.exts[j] = Extraction(
                    error=f"{TOO_LARGE}{size} bytes > runner.max_page_bytes")
            elif methods.build_errors[j] is not None:
                state.exts[j] = Extraction(error=methods.build_errors[j])
            else:
                state.todo.append(j)
        task.context.update(state.pkey.encode())  # the next page's site context
        task.started += 1
        methods.submit(page, state.todo)
        return state

    def collect(state: _PageState) -> None:
        methods = state.task.methods
        for j, ext in methods.collect(page_timeout):
            state.exts[j] = ext
            if ext.error is None and not methods.stateful[j] and not uncached[j]:
                before = cache.invalid
                cache.put(state.keys[j], ext)
                state.invalid[j] = state.invalid[j] or cache.invalid > before

    def finish(state: _PageState) -> None:
        page, task = state.page, state.task
        for j, spec in enumerate(specs):
            ext = scored = state.exts[j]
            never_scored = state.too_large or task.methods.build_errors[j] is not None
            if ext.error is not None and not never_scored and on_failure == "empty":
                scored = Extraction(seconds=ext.seconds)
            try:
                rec = score(page, spec.label, scored)
            except Exception as exc:  # noqa: BLE001 - a page the scorer chokes on is a record too
                rec = {"dataset": page.dataset, "page_id": page.id, "method": spec.label,
                       "error": f"scoring failed: {type(exc).__name__}: {exc}"[:500]}
            if ext.error is not None:
                rec["error"] = ext.error  # scored as empty or not, the failure is counted
            rec["cached"] = state.cached[j]
            if state.invalid[j]:
                rec[CACHE_INVALID] = True  # counted by Runner.run_pages, not a column
            if task.made_here and j == 0:
                rec[PAGE_SHA] = page.sha256
            task.records.append(rec)
        task.finished += 1

    open_tasks: collections.deque[_Task] = collections.deque()
    inflight: collections.deque[_PageState] = collections.deque()  # submitted, not collected
    collected: _PageState | None = None  # collected, not scored
    # with a page worker, up to PIPELINE_DEPTH pages are in its queue while this process
    # scores: a page whose scoring takes longer than the next one's extraction then does not
    # leave the worker idle; in-process methods extract in collect, one page at a time
    depth = PIPELINE_DEPTH if worker is not None else 1

    def step() -> None:  # score the page collected last, then collect the oldest in flight
        nonlocal collected
        if collected is not None:
            finish(collected)
        collected = inflight.popleft()
        collect(collected)

    def ready() -> Iterator[list[dict[str, Any]]]:
        while open_tasks and open_tasks[0].done:
            yield open_tasks.popleft().records

    for pages in tasks:
        made_here = hasattr(pages, "pages")
        task = _Task(pages.pages() if made_here else pages, made_here)
        open_tasks.append(task)
        for page in task.pages:  # reading a page while the worker extracts earlier ones
            if task.methods is None:
                while inflight:  # a task's fresh methods are built in an idle worker
                    step()
                    yield from ready()
            inflight.append(start(task, page))
            while len(inflight) >= depth:
                step()
                yield from ready()
        task.read_all = True
        yield from ready()  # a task without pages
    while inflight:
        step()
        yield from ready()
    if collected is not None:
        finish(collected)
    yield from ready()


def iter_tasks(pages: Iterable[Page], max_pages: int = 20,
               lazy: bool = False) -> Iterator[list[Page]]:
    """One task per site (:func:`evalkit.core.domains.site_of`, within a data set) with all its
    pages, in order; pages without a site in tasks of at most ``max_pages``.

    Streams: readers hand out a site's pages next to each other
    (:func:`evalkit.readers.base.group_by_site`, docs/sites.md), so only the site names
    seen so far are kept. A site whose pages come in two runs raises ValueError: two
    tasks would give it two fresh memories, and its site scope would silently be
    partly page scope. ``lazy``: a task of site-less pages is an iterator that reads each
    page when it is reached, valid until the next task is asked for.
    """
    from evalkit.core.domains import site_of

    def key(page: Page) -> tuple[str, str] | None:
        site = site_of(page)
        return None if site is None else (page.dataset, site)

    done: set[tuple[str, str]] = set()
    for site, group in itertools.groupby(pages, key=key):
        if site is None:  # read max_pages at a time: a run of site-less pages can be a whole set
            if lazy:  # each page read when the task reaches it: the consumer must exhaust a
                for first in group:  # task before asking for the next (run_tasks does)
                    rest = itertools.islice(group, max_pages - 1)  # noqa: B031 - one pass
                    yield itertools.chain([first], rest)
                continue
            while chunk := list(itertools.islice(group, max_pages)):
                yield chunk
            continue
        group = list(group)
        if site in done:
            raise ValueError(
                f"data set {site[0]!r}: the pages of site {site[1]!r} come in two runs (page "
                f"{group[0].id!r} follows pages of other sites); a reader must hand out a "
                "site's pages together (evalkit.readers.base.group_by_site, docs/sites.md)")
        done.add(site)
        yield group




#: backends a ``cfg.runner`` can name (configs/runner/<name>.yaml)
BACKENDS = ("local", "dask")


def _check_scheduler(key: str, value: Any) -> None:
    if value is not None and not (isinstance(value, str) and value):
        raise ParamError(key, value, "must be a scheduler address (tcp://host:8786) or null")


#: the settings of configs/runner/dask.yaml besides the common ones: name -> check
_DASK_CHECKS = {
    "scheduler": _check_scheduler,
    "n_workers": lambda k, v: check_int(k, v, low=1),
    "threads_per_worker": lambda k, v: check_int(k, v, low=1),
    "processes": check_bool,
    "window_per_worker": lambda k, v: check_int(k, v, low=1),
    "retries": lambda k, v: check_int(k, v, low=0),
}


def check_dask(settings: dict[str, Any]) -> None:
    """Check the Dask runner's settings (:class:`evalkit.harness.dask_runner.DaskBackend`) before a
    client is started; raises :class:`evalkit.core.validate.ParamError`."""
    for key, value in settings.items():
        if key in _DASK_CHECKS:
            _DASK_CHECKS[key](key, value)
        # an unknown key is DaskBackend's to name (it lists the valid ones)


class RunnerError(RuntimeError):
    """The runner cannot work as configured (a bad setting, an unreachable scheduler):
    one line for the user, raised before any page is read."""


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
    dask: dict[str, Any] = field(default_factory=dict)
    _backend: Any = field(default=None, init=False, repr=False)
    #: cache entries found invalid by run_pages so far (printed once by close)
    cache_invalid: int = field(default=0, init=False)

    def __post_init__(self):
        if self.name not in BACKENDS:
            raise RunnerError(f"unknown runner {self.name!r}; valid runners: "
                              f"{', '.join(BACKENDS)}")
        if self.on_failure not in ON_FAILURE:
            raise RunnerError(f"runner.on_failure must be one of {', '.join(ON_FAILURE)}, "
                              f"got {self.on_failure!r}")
        try:
            check_int("n_jobs", self.n_jobs, low=1)
            check_bool("progress", self.progress)
            if self.page_timeout is not None:
                check_number("page_timeout", self.page_timeout, low=0)
            check_int("max_page_bytes", self.max_page_bytes, low=1, allow_none=True)
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
        return cls(name=name, n_jobs=n_jobs, cache_root=cache_root if cache else None,
                   progress=progress, on_failure=on_failure, page_timeout=page_timeout,
                   max_page_bytes=max_page_bytes,
                   dask=runner if name == "dask" else {})

    # ------------------------------------------------------------------ backends

    @property
    def in_process(self) -> bool:
        """True when tasks run in this process (local, one job)."""
        return self.name == "local" and self.n_jobs == 1

    def open(self) -> Self:
        """Connect the backend (a Dask client); raises :class:`RunnerError` if it cannot."""
        if self.name == "dask" and self._backend is None:
            from evalkit.harness.dask_runner import DaskBackend

            self._backend = DaskBackend(**self.dask).open()
        return self

    def warm(self) -> Self:
        """Start this process's page worker now when tasks will run here with a
        ``page_timeout``, so its start-up (a Python, evalkit's imports) overlaps the run's
        own reading of configs, methods and data instead of delaying the first page."""
        if self.in_process and self.page_timeout:
            from evalkit.harness.page_worker import shared_worker

            shared_worker().warm()
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
            from evalkit.harness.page_worker import stop_shared_worker

            stop_shared_worker()  # this process's, when tasks ran here (n_jobs=1)

    def __enter__(self) -> Self:
        return self.open()

    def __exit__(self, *exc) -> None:
        self.close()

    def map(self, fn: Callable[[Any], Any], tasks: Iterable[Any], *, desc: str = "tasks",
            total: int | None = None, unit: str = "task",
            count: Callable[[Any], int] | None = None) -> Iterator[Any]:
        """``fn(task)`` for every task, results in task order, on this runner's backend.

        Tasks are consumed lazily, so a reader's pages stream; ``count(result)``
        says how far a result moves the progress bar (default 1).
        """
        return self._progress(self._map(fn, tasks), desc=desc, total=total, unit=unit,
                              count=count)

    def _progress(self, results: Iterable[Any], *, desc: str, total: int | None, unit: str,
                  count: Callable[[Any], int] | None) -> Iterator[Any]:
        from tqdm.auto import tqdm

        bar = tqdm(total=total, desc=desc, unit=unit, disable=not self.progress, leave=False)
        try:
            for result in results:
                bar.update(count(result) if count else 1)
                yield result
        finally:
            bar.close()

    def _map(self, fn, tasks):
        if self.name == "dask":
            yield from self.open()._backend.map(fn, tasks)
        elif self.n_jobs == 1:
            for task in tasks:
                yield fn(task)
        else:
            from joblib import Parallel, delayed, parallel_config
            from joblib.parallel import get_active_backend

            # loky workers that end with this process (_exit_with_parent): a killed run leaves
            # none. Inside a worker (Hydra's joblib launcher) joblib uses threads: kept so.
            loky = type(get_active_backend()[0]).__name__ == "LokyBackend"
            # the hash seed in initargs: loky reuses a pool only for equal initargs, so a pool
            # started under another PYTHONHASHSEED (before evalkit.shell.api set it) is not reused
            with (parallel_config(backend="loky", initializer=_exit_with_parent,
                                  initargs=(os.getpid(), os.environ.get("PYTHONHASHSEED")))
                  if loky else contextlib.nullcontext()):
                par = Parallel(n_jobs=self.n_jobs, return_as="generator", batch_size=1,
                               pre_dispatch="4*n_jobs")
            yield from par(delayed(fn)(task) for task in tasks)

    def page_tasks(self, pages: Iterable[Page]) -> Iterator[list[Page]]:
        """Pages in tasks (:func:`iter_tasks`): a site's pages together; site-less pages
        20 a task in this process, one a task when tasks run elsewhere (so they spread
        over the workers)."""
        # in this process the tasks go through one pipeline (run_tasks), which reads each page
        # while the page worker extracts the one before: a task's pages are read lazily
        return iter_tasks(pages, max_pages=20 if self.in_process else 1, lazy=self.in_process)

    # ------------------------------------------------------------------ extraction path

    def run_pages(self, pages: Iterable[Page], specs: list[MethodSpec], *, score,
                  desc: str = "pages", total: int | None = None,
                  cache: bool = True) -> list[dict[str, Any]]:
        """Run ``specs`` over ``pages``: one record per (page, method), in page order.

        Pages go in tasks of :meth:`page_tasks`; every task is :func:`run_task`. A reader that
        makes its pages (evalkit.readers.base.LazyPages) hands out one task per site instead,
        and the pages are made where the task runs. ``cache=False`` bypasses the extraction
        cache (e.g. when the run measures time). All records are returned at once;
        :meth:`iter_records` hands them out as their tasks finish.
        """
        return list(self.iter_records(pages, specs, score=score, desc=desc, total=total,
                                      cache=cache))

    def iter_records(self, pages: Iterable[Page], specs: list[MethodSpec], *, score,
                     desc: str = "pages", total: int | None = None,
                     cache: bool = True) -> Iterator[dict[str, Any]]:
        """:meth:`run_pages` as a stream: records in page order as their tasks finish, so
        a caller that writes them out (evalkit.report.results.RecordSpill) holds a window of
        tasks' records, not the run's."""
        root = self.cache_root if cache else None
        # score records are cached beside the extractions (evalkit.harness.cache.ScoreCache)
        scorer = cached_scorer(score, root)
        n_methods = max(len(specs), 1)
        note_seen = getattr(pages, "note_seen", None)
        tasks = pages.site_tasks() if note_seen is not None else self.page_tasks(pages)
        shown = {"desc": desc, "total": total, "unit": "page",
                 "count": lambda recs: len(recs) // n_methods}
        if self.in_process:  # one pipeline across the tasks (run_tasks), not one per task
            done = self._progress(run_tasks(tasks, specs, root, scorer, self.on_failure,
                                            self.page_timeout, self.max_page_bytes), **shown)
        else:
            done = self.map(functools.partial(
                _run_task, specs=specs, cache_root=root, score=scorer, on_failure=self.on_failure,
                page_timeout=self.page_timeout, max_page_bytes=self.max_page_bytes), tasks, **shown)
        for recs in done:
            for rec in recs:
                self.cache_invalid += bool(rec.pop(CACHE_INVALID, False))
                sha = rec.pop(PAGE_SHA, None)
                if sha is not None and note_seen is not None:
                    note_seen(rec["page_id"], sha)
            yield from recs


#: seconds between a local worker's checks that the run's main process still lives
PARENT_POLL = 0.5


def _exit_with_parent(parent: int, hash_seed: str | None = None) -> None:
    """Initializer of every local (loky) worker: the worker ends when process ``parent`` does.

    loky workers do not notice the death of the process that started them: after a
    ``kill -9`` of a run they went on with the tasks already queued to them, then waited
    for more up to joblib's 300 s idle timeout; measured, both still ran 420 s after the
    kill (docs/runner.md). So a daemon thread polls the worker's parent id, which
    changes only when the parent is gone (the worker is handed to init). Unlike
    ``prctl(PR_SET_PDEATHSIG)`` this does not depend on which thread of the parent
    started the worker, and works on any POSIX system. The cost is one wake-up per
    ``PARENT_POLL`` seconds; a worker inside a C call that holds the GIL ends when the
    call returns. A half-written cache entry is a temporary file, never an entry
    (evalkit.harness.cache writes by rename). ``hash_seed`` is not used: it only tells loky's pools
    apart (see :meth:`Runner._map`).
    """
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL)
        os._exit(1)

    threading.Thread(target=watch, name="evalkit-exit-with-parent", daemon=True).start()


def _run_task(pages, *, specs, cache_root, score, on_failure, page_timeout=None,
              max_page_bytes=None):
    # the one-argument task function Runner.map hands out (module level: it must pickle)
    return run_task(pages, specs, cache_root, score, on_failure, page_timeout, max_page_bytes)


def run_pages(pages: Iterable[Page], specs: list[MethodSpec], *, score, n_jobs: int = 1,
              cache_root: str | None = None, progress: bool = True, total: int | None = None,
              desc: str = "pages", on_failure: str = "empty") -> list[dict[str, Any]]:
    """:meth:`Runner.run_pages` on a local runner of ``n_jobs`` processes (a shorthand)."""
    with Runner(n_jobs=n_jobs, cache_root=cache_root, progress=progress,
                on_failure=on_failure) as runner:
        return runner.run_pages(pages, specs, score=score, total=total, desc=desc)
