"""The Dask runner: the local runner's tasks, mapped over a Dask cluster (DESIGN.md §8).

``runner=dask`` runs exactly what :func:`evalkit.runner.run_pages` runs:
pages are grouped into tasks by :func:`evalkit.runner.iter_tasks` (a site's
pages together, in order), every task is :func:`evalkit.runner.run_task`
(fresh method instances, failure isolation, the same extraction cache), and
the records come back in page order. Only where the tasks execute changes,
so a run gives the same ``summary.csv`` under either runner.

With no scheduler address a ``LocalCluster`` of ``n_workers`` is started for
the call and shut down after it; with ``scheduler=tcp://host:8786`` the tasks
go to a running cluster (its workers need the same evalkit installed, and
``paths.cache`` on a file system they all see, or ``runner.cache=false``).

At most ``window_per_worker`` tasks per worker thread are in flight at once,
so pages stream from the reader instead of all being loaded first, and a
worker that dies has its task retried (``retries``) by the scheduler.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from evalkit.page import Page
from evalkit.runner import MethodSpec, iter_tasks, run_pages, run_task

__all__ = ["DEFAULT_N_WORKERS", "DEFAULT_RETRIES", "DEFAULT_THREADS_PER_WORKER",
           "DEFAULT_WINDOW_PER_WORKER", "RUNNERS", "dispatch", "run_pages_dask"]

#: workers of the LocalCluster started when no scheduler address is given
DEFAULT_N_WORKERS = 2
#: one thread per worker: the methods are pure Python and hold the GIL
DEFAULT_THREADS_PER_WORKER = 1
#: tasks in flight per worker thread; enough to keep workers busy, few enough to stream
DEFAULT_WINDOW_PER_WORKER = 4
#: times the scheduler reruns a task whose worker died
DEFAULT_RETRIES = 1
#: runner names accepted by :func:`dispatch` (configs/runner/<name>.yaml)
RUNNERS = ("local", "dask")

_INSTALL_HINT = "the Dask runner needs dask[distributed]: pip install 'evalkit[dask]'"


@contextlib.contextmanager
def _client(scheduler: str | None, n_workers: int, threads_per_worker: int,
            processes: bool) -> Iterator[Any]:
    """A client of the given scheduler, or of a LocalCluster that lives as long as the block."""
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:  # pragma: no cover - dask is an optional extra
        raise ImportError(_INSTALL_HINT) from exc
    if scheduler:
        with Client(scheduler) as client:
            yield client
        return
    # no dashboard: a run must not fail because port 8787 is taken by another run
    with LocalCluster(n_workers=n_workers, threads_per_worker=threads_per_worker,
                      processes=processes, dashboard_address=None,
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        yield client


def run_pages_dask(pages: Iterable[Page], specs: list[MethodSpec], *, score,
                   scheduler: str | None = None, n_workers: int = DEFAULT_N_WORKERS,
                   threads_per_worker: int = DEFAULT_THREADS_PER_WORKER,
                   processes: bool = True, cache_root: str | None = None,
                   progress: bool = True, total: int | None = None, desc: str = "pages",
                   window_per_worker: int = DEFAULT_WINDOW_PER_WORKER,
                   retries: int = DEFAULT_RETRIES, n_jobs: int | None = None
                   ) -> list[dict[str, Any]]:
    """Run ``specs`` over ``pages`` on a Dask cluster; records in page order.

    The signature is :func:`evalkit.runner.run_pages`'s plus the cluster
    settings; ``n_jobs`` is accepted for that reason and ignored (the
    cluster's size decides the parallelism).
    """
    from tqdm.auto import tqdm

    del n_jobs
    # one page per task when no site groups them, as the local runner does with workers
    tasks = iter_tasks(pages, max_pages=1)
    n_methods = max(len(specs), 1)
    out: list[dict[str, Any]] = []
    bar = tqdm(total=total, desc=desc, unit="page", disable=not progress, leave=False)
    with _client(scheduler, n_workers, threads_per_worker, processes) as client:
        threads = sum(client.nthreads().values()) or 1
        limit = max(1, window_per_worker * threads)
        in_flight: deque = deque()

        def collect():
            recs = in_flight.popleft().result()  # oldest first keeps page order
            out.extend(recs)
            bar.update(len(recs) // n_methods)

        for task in tasks:
            in_flight.append(client.submit(run_task, task, specs, cache_root, score,
                                           pure=False, retries=retries))
            if len(in_flight) >= limit:
                collect()
        while in_flight:
            collect()
    bar.close()
    return out


def dispatch(runner: dict[str, Any]) -> Callable[..., list[dict[str, Any]]]:
    """The ``run_pages``-like function for a ``cfg.runner`` mapping.

    Call the result as ``run_pages`` is called; for ``name: dask`` the
    cluster settings of the mapping are already bound.
    """
    name = runner.get("name", "local")
    if name == "local":
        return run_pages
    if name == "dask":
        return functools.partial(
            run_pages_dask, scheduler=runner.get("scheduler"),
            n_workers=int(runner.get("n_workers", DEFAULT_N_WORKERS)),
            threads_per_worker=int(runner.get("threads_per_worker", DEFAULT_THREADS_PER_WORKER)),
            processes=bool(runner.get("processes", True)),
            window_per_worker=int(runner.get("window_per_worker", DEFAULT_WINDOW_PER_WORKER)),
            retries=int(runner.get("retries", DEFAULT_RETRIES)))
    raise ValueError(f"unknown runner {name!r}; valid runners: {', '.join(RUNNERS)}")
