"""Worker processes that end with the run: a killed run leaves none behind (docs/runner.md)."""

from __future__ import annotations

import os
import signal
import threading
import time

__all__ = [
    "PARENT_POLL",
    "RELEASE_AFTER_PAGES",
    "deaf_loky_workers",
    "exit_with_parent",
    "release_local_workers",
]


#: seconds between a local worker's checks that the run's main process still lives
PARENT_POLL = 0.5

#: pages after which a stream's idle local workers are ended at once (release_local_workers)
RELEASE_AFTER_PAGES = 10_000


def exit_with_parent(parent: int, hash_seed: str | None = None) -> None:
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
    apart (see :meth:`Runner._parallel`). A worker that leads a process group of its own (a
    page worker, evalkit.harness.page_worker) ends its whole group, so the processes its
    methods started do not outlive the run either.
    """
    # Ctrl-C reaches the whole process group: the run's main process turns it into one line
    # and ends its pool; a worker's own KeyboardInterrupt would only print a traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL)
        if os.getpgid(0) == os.getpid():  # a page worker leads its own group: end it all,
            os.killpg(0, signal.SIGKILL)  # the processes its methods started included
        os._exit(1)

    threading.Thread(target=watch, name="evalkit-exit-with-parent", daemon=True).start()


def deaf_loky_workers() -> None:
    """Make the loky workers this process starts from now on ignore Ctrl-C from their first
    instruction (idempotent).

    Ctrl-C reaches the terminal's whole process group. A worker that is still importing
    (numpy, joblib) when it arrives prints a traceback before :func:`exit_with_parent` can
    ignore the signal. An ignored signal is the one disposition a process passes on through
    ``exec``, and Python leaves an inherited ignore in place; so loky's own ``fork_exec``
    is wrapped to ignore SIGINT for the instant of the fork and no longer (a Ctrl-C in
    those microseconds is not seen). loky starts workers with its own fork and exec and
    no way to pass a process group or a signal setting; the wrapper is the least it takes.
    Outside the main thread (a pool replacing a dead worker) the call goes through as it is.
    The run's main process turns Ctrl-C into its one line and ends the workers."""
    from joblib.externals.loky.backend import fork_exec as module

    if getattr(module.fork_exec, "_evalkit_deaf", False):
        return
    launch = module.fork_exec

    def deaf_fork_exec(*args, **kwargs):
        if threading.current_thread() is not threading.main_thread():
            return launch(*args, **kwargs)
        before = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            return launch(*args, **kwargs)
        finally:
            signal.signal(signal.SIGINT, before)

    deaf_fork_exec._evalkit_deaf = True
    module.fork_exec = deaf_fork_exec


def release_local_workers() -> None:
    """End joblib's idle loky workers now rather than at loky's idle timeout (300 s).

    The pool outlives a stream so that the run's next stream (another data set, another part)
    starts without the workers' start-up (about a second). After a long stream
    (:data:`RELEASE_AFTER_PAGES`) that second is nothing, while the idle pool is not: two
    workers and their page workers held about 440 MiB through the first five minutes of the
    summaries of 300,000 pages (experiments/speed/README.md). A page worker ends with its
    worker (:func:`exit_with_parent`). A later stream starts a new pool."""
    from joblib.externals.loky import reusable_executor

    executor = reusable_executor._executor  # None until a pool was started
    # a pool with work in flight (another stream of this process, in another thread) stays
    if executor is not None and not getattr(executor, "_pending_work_items", None):
        executor.shutdown(wait=True)
