"""Worker processes that end with the run: a killed run leaves none behind (docs/runner.md)."""

from __future__ import annotations

import os
import signal
import threading
import time

__all__ = ["PARENT_POLL", "exit_with_parent"]


#: seconds between a local worker's checks that the run's main process still lives
PARENT_POLL = 0.5


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
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL)
        if os.getpgid(0) == os.getpid():  # a page worker leads its own group: end it all,
            os.killpg(0, signal.SIGKILL)  # the processes its methods started included
        os._exit(1)

    threading.Thread(target=watch, name="evalkit-exit-with-parent", daemon=True).start()
