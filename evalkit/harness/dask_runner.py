"""The Dask backend of the runner: the same tasks, mapped over a Dask cluster (docs/runner.md).

``runner=dask`` makes :class:`evalkit.harness.runner.Runner` send every task of
every experiment here instead of to local processes: the same task
functions (:func:`evalkit.harness.runner.run_task` for extraction, an experiment's
own module-level task function otherwise) on the same tasks, results in task
order. Only where the tasks execute changes, so a run gives the same
``summary.csv`` under either runner (timings aside).

With no scheduler address a ``LocalCluster`` of ``n_workers`` is started when
the run starts and shut down when it ends; with ``scheduler=tcp://host:8786``
the tasks go to a running cluster (its workers need the same evalkit
installed, and ``paths.cache`` on a file system they all see, or
``runner.cache=false``). A scheduler that cannot be reached stops the run
before any work with one line naming it.

At most ``window_per_worker`` tasks per worker thread are in flight at once,
so pages stream from the reader instead of all being loaded first, and a
worker that dies has its task retried (``retries``) by the scheduler. Each
future is released as soon as its result is collected, and Dask's debug logs of
recent messages (which carry the tasks' pages) are kept short while the client
runs, so the main process's memory does not grow with the number of pages.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Self

from evalkit.core.validate import ParamError, check_bool, check_int, check_workers
from evalkit.harness.errors import RunnerError

__all__ = [
    "DEFAULT_N_WORKERS",
    "DEFAULT_RETRIES",
    "DEFAULT_THREADS_PER_WORKER",
    "DEFAULT_WINDOW_PER_WORKER",
    "DaskBackend",
    "check_dask",
]

#: workers of the LocalCluster started when no scheduler address is given
DEFAULT_N_WORKERS = 2
#: one thread per worker: the methods are pure Python and hold the GIL
DEFAULT_THREADS_PER_WORKER = 1
#: tasks in flight per worker thread; enough to keep workers busy, few enough to stream
DEFAULT_WINDOW_PER_WORKER = 4
#: times the scheduler reruns a task whose worker died
DEFAULT_RETRIES = 1

#: dask's setting for the length of its debugging logs (of messages, transitions, events)
LOG_LENGTH_KEY = "distributed.admin.low-level-log-length"
#: the length evalkit sets while its client runs: a few messages, not a run's pages
LOG_LENGTH = 16

_INSTALL_HINT = "the Dask runner needs dask[distributed]: pip install 'evalkit[dask]'"


def _check_scheduler(key: str, value: Any) -> None:
    if value is not None and not (isinstance(value, str) and value):
        raise ParamError(key, value, "must be a scheduler address (tcp://host:8786) or null")


#: the settings of configs/runner/dask.yaml besides the common ones: name -> check
_DASK_CHECKS = {
    "scheduler": _check_scheduler,
    "n_workers": check_workers,
    "threads_per_worker": check_workers,
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


class DaskBackend:
    """A Dask client (of a running scheduler, or of a LocalCluster it starts) and an ordered,
    windowed map over it: :class:`evalkit.harness.runner.Runner`'s ``dask`` backend."""

    def __init__(
        self,
        scheduler: str | None = None,
        n_workers: int = DEFAULT_N_WORKERS,
        threads_per_worker: int = DEFAULT_THREADS_PER_WORKER,
        processes: bool = True,
        window_per_worker: int = DEFAULT_WINDOW_PER_WORKER,
        retries: int = DEFAULT_RETRIES,
        **unknown: Any,
    ):
        if unknown:
            raise RunnerError(
                f"unknown Dask runner setting(s) {', '.join(sorted(unknown))}; "
                "valid: scheduler, n_workers, threads_per_worker, processes, "
                "window_per_worker, retries"
            )
        self.scheduler = scheduler or None
        self.n_workers = int(n_workers)
        self.threads_per_worker = int(threads_per_worker)
        self.processes = bool(processes)
        self.window_per_worker = int(window_per_worker)
        self.retries = int(retries)
        self._stack = contextlib.ExitStack()
        self.client = None

    def open(self) -> Self:
        """Connect; an unreachable scheduler is one :class:`RunnerError` line naming it."""
        try:
            import dask
            from distributed import Client, LocalCluster
        except ImportError as exc:  # pragma: no cover - dask is an optional extra
            raise RunnerError(_INSTALL_HINT) from exc
        # every batched stream (client -> scheduler -> worker) keeps its last N messages
        # for debugging, default 1000: with a task's pages inside each, measured ~93 KB a
        # task held in this process until 1000 tasks per worker. Kept while the client is.
        self._stack.enter_context(dask.config.set({LOG_LENGTH_KEY: LOG_LENGTH}))
        if self.scheduler:
            try:
                self.client = self._stack.enter_context(Client(self.scheduler))
            except (OSError, TimeoutError, ValueError) as exc:
                self._stack.close()
                why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise RunnerError(
                    f"cannot reach the Dask scheduler {self.scheduler} (runner.scheduler): {why}"
                ) from None
            return self
        # no dashboard: a run must not fail because port 8787 is taken by another run
        cluster = self._stack.enter_context(
            LocalCluster(
                n_workers=self.n_workers,
                threads_per_worker=self.threads_per_worker,
                processes=self.processes,
                dashboard_address=None,
                silence_logs=logging.ERROR,
            )
        )
        self.client = self._stack.enter_context(Client(cluster))
        return self

    def close(self) -> None:
        self._stack.close()
        self.client = None

    def map(
        self,
        fn: Callable[[Any], Any],
        tasks: Iterable[Any],
        on_crash: Callable[[Any, str], Any] | None = None,
    ) -> Iterator[Any]:
        """``fn(task)`` on the cluster, results in task order, at most ``window_per_worker``
        tasks per worker thread submitted and not yet handed on (so tasks stream from a
        lazy iterable and memory does not grow with their number).

        Results are collected as tasks finish (``as_completed``), so one slow task does not
        idle the other workers; each future is released as soon as its result is here, so
        neither the client nor the scheduler keeps a finished task, its pages or its result.

        A task that kills every worker it is given (``distributed.scheduler.allowed-failures``
        times) ends in ``KilledWorker``; with ``on_crash`` its result is then
        ``on_crash(task, why)`` and the run goes on (the window's tasks are kept here until
        they finish, for that).
        """
        from distributed import KilledWorker, as_completed

        threads = sum(self.client.nthreads().values()) or 1
        limit = max(1, self.window_per_worker * threads)
        tasks = iter(tasks)
        running = as_completed()
        position: dict[str, int] = {}  # future key -> task number
        ready: dict[int, Any] = {}  # finished, waiting for an earlier task
        held: dict[int, Any] = {}  # in flight, kept for on_crash
        submitted = handed = 0
        more = True
        while True:
            while more and submitted - handed < limit:
                task = next(tasks, _END)
                if task is _END:
                    more = False
                    break
                future = self.client.submit(fn, task, pure=False, retries=self.retries)
                position[future.key] = submitted
                if on_crash is not None:
                    held[submitted] = task
                del task
                submitted += 1
                running.add(future)
            if handed == submitted:
                return
            while handed not in ready:
                future = next(running)
                at = position.pop(future.key)
                try:
                    ready[at] = future.result()
                except KilledWorker as exc:
                    if on_crash is None:
                        raise
                    ready[at] = on_crash(
                        held[at],
                        "worker died: the task killed every Dask "
                        f"worker it ran on ({type(exc).__name__}); the run "
                        "went on",
                    )
                held.pop(at, None)
                future.release()
                del future
            while handed in ready:
                yield ready.pop(handed)
                handed += 1


#: end of the tasks (a task may be None)
_END = object()
