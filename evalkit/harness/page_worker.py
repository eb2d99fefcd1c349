"""``runner.page_timeout``: methods run in a worker process that is killed when a page stalls.

lxml's C code (and a method's own loop) cannot be interrupted inside a process, so a
time limit per (page, method) can only be kept by running the methods in another
process and ending it. :class:`PageWorker` is that process: one per task-running
process (the main process with ``runner.n_jobs=1``, each loky or Dask worker
otherwise), started on first use and reused by every later task, so a run pays the
start-up (a Python and evalkit's imports) once per process, not once per page.

Per page the task runner sends the page and the indices of the methods still to run
(cache hits never reach the worker) and, while the worker extracts, scores the previous
page (:meth:`PageWorker.submit`, then :meth:`PageWorker.collect`); the worker answers one
extraction per method, in order, each with the moment it ended, and the clock of each
method starts there (the first one's when the page was sent). When an
answer does not come within the timeout the worker is killed (SIGKILL: lxml holds the
GIL, nothing softer works), the method's record gets ``timeout: <label> ran over N s on
this page``, a fresh worker is started with fresh method instances and the page goes
on with the next method. A worker that dies (a segfault, the out-of-memory killer) is
replaced the same way, with ``worker died: ...`` as the error.

Site scope: a method's site memory lives in the worker, so a kill loses it. The worker
therefore remembers which pages of the task each site-scope method has run on, and the
fresh worker runs them again (outputs discarded) before it goes on: the memory is then
exactly that of the site without the page that timed out. Should a replayed page run
over the limit too, the replay is given up and the memories start empty (docs/runner.md).

The worker is ``python -m evalkit.harness.page_worker`` started with :mod:`subprocess` (not
:mod:`multiprocessing`: a Dask worker is a daemonic process and may not have
multiprocessing children) on two pipes. Messages are pickles between two processes of
this run, never read from disk. The worker gets this process's ``sys.path`` so it
imports the same evalkit (and a test's method module), and ends when its parent does.
"""

from __future__ import annotations

import atexit
import collections
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from evalkit.core.page import Extraction, Page

__all__ = ["TIMEOUT", "WORKER_DIED", "PageWorker", "shared_worker", "stop_shared_worker"]

#: start of the error of a (page, method) that ran over ``runner.page_timeout``
TIMEOUT = "timeout: "
#: start of the error of a (page, method) whose worker process died under it
WORKER_DIED = "worker died: "


#: bytes each pipe is asked to hold (Linux; the system's pipe-max-size is 1 MiB by
#: default): the worker writes a page's extractions while this process is still scoring the
#: previous page, and a full pipe would stop it after the first large answer; a page
#: (300 KB on average on chaos, bytes and text) is written at once and the parent goes on
PIPE_BYTES = 1 << 20


def _widen(fd: int) -> None:
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass  # another system, or a lower limit: answers then wait for the reader, as before


@dataclass
class _Submitted:
    """A page handed to the worker and not collected yet."""

    page: Page
    todo: list[int]
    #: site-scope methods that ran on it (the replay after a kill needs them)
    ran: list[int]
    #: the worker it went to (``PageWorker.starts`` then): a replaced one lost it
    starts: int
    sent_at: float


class PageWorker:
    """A worker process holding built methods; :meth:`extract` with a time limit per method."""

    def __init__(self):
        self.proc: subprocess.Popen | None = None
        self._send: Connection | None = None
        self._recv: Connection | None = None
        self._specs: list = []
        #: per method: the error it could not be built with (or None), and whether it has
        #: site scope (state across pages, so never cached)
        self.build_errors: list[str | None] = []
        self.stateful: list[bool] = []
        #: worker processes started so far (1 + the number of kills and deaths)
        self.starts = 0
        #: since the last build: (page, indices of the site-scope methods that ran on it)
        self._history: list[tuple[Page, list[int]]] = []
        #: replays given up because a replayed page ran over the limit
        self.replays_given_up = 0
        #: pages submitted and not collected yet, oldest first
        self._queue: collections.deque[_Submitted] = collections.deque()
        #: when the last answer read was made in the worker (monotonic clock)
        self._last_done = 0.0
        #: answers asked for and not read yet (an abandoned extract leaves some: the
        #: worker is then replaced, so no stale answer is ever read as a new one)
        self._pending = 0

    # ------------------------------------------------------------------ process

    def _start(self) -> None:
        to_child, from_parent = os.pipe()
        to_parent, from_child = os.pipe()
        _widen(from_parent)
        _widen(from_child)
        env = dict(os.environ)
        # the same import path as this process: the same evalkit, and any module a test
        # registered a method from
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "evalkit.harness.page_worker", str(to_child), str(from_child),
             str(os.getpid())],
            pass_fds=(to_child, from_child), stdin=subprocess.DEVNULL, env=env)
        os.close(to_child)
        os.close(from_child)
        self._send = Connection(from_parent, readable=False)
        self._recv = Connection(to_parent, writable=False)
        self.starts += 1

    def warm(self) -> None:
        """Start the worker process now if none runs, without waiting for it: its Python
        start-up and imports then overlap the caller's own work until :meth:`build`."""
        if not self.alive():
            self.kill()
            self._start()

    def kill(self) -> None:
        """End the worker process now (its methods and their site memory go with it)."""
        for conn in (self._send, self._recv):
            if conn is not None:
                conn.close()
        self._send = self._recv = None
        self._pending = 0
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            self.proc = None

    close = kill

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    # ------------------------------------------------------------------ protocol

    def build(self, specs: list) -> None:
        """Fresh instances of ``specs`` in the worker (starting one if needed); fills
        :attr:`build_errors` and :attr:`stateful`."""
        self._specs = list(specs)
        self._history = []
        self._queue.clear()  # submissions a caller abandoned: their worker is replaced below
        if self._pending or not self.alive():
            self.kill()
            self._start()
        sent = []
        for spec in specs:
            try:
                from evalkit.harness.registry import DETECTORS, METHODS

                reg = (METHODS if spec.kind == "method" else DETECTORS).only(spec.registry)
            except Exception:  # noqa: BLE001 - the worker's spec.build() names the error
                reg = None
            sent.append((spec, reg))
        try:
            # cloudpickle writes a plain pickle stream that recv() reads; unlike the standard
            # pickler it sends a method defined in a notebook (evalkit.shell.api) by value
            import cloudpickle

            self._send.send_bytes(cloudpickle.dumps(("build", sent)))
            answer = self._recv.recv()  # no time limit: start-up and imports, not a page
        except (EOFError, OSError) as exc:
            self.kill()
            raise RuntimeError(f"the page worker process could not start: {exc}") from None
        self.build_errors = [err for err, _ in answer]
        self.stateful = [site for _, site in answer]

    def extract(self, page: Page, todo: list[int], timeout: float
                ) -> Iterator[tuple[int, Extraction]]:
        """``(j, extraction)`` for every method index in ``todo``, in order; a method that
        does not answer within ``timeout`` seconds gets a timeout error and the worker is
        replaced (with fresh methods) before the next one. :meth:`submit` then
        :meth:`collect`."""
        self.submit(page, todo)
        return self.collect(timeout)

    def submit(self, page: Page, todo: list[int]) -> None:
        """Queue ``page`` for the worker and return at once: the worker extracts while this
        process does other work (scores earlier pages). Several pages may be queued;
        :meth:`collect` reads their answers in the order they were submitted."""
        ran: list[int] = []  # site-scope methods that ran on this page
        self._history.append((page, ran))
        self._queue.append(_Submitted(page, list(todo), ran, self.starts, time.monotonic()))
        if todo:
            try:
                self._send.send(("extract", page, todo))
            except OSError:
                # the worker died on a page queued before this one (a broken pipe): collecting
                # that page finds the death and starts a fresh worker, and collecting this one
                # sends it there (its ``starts`` is the dead worker's)
                return
            self._pending += len(todo)

    def collect(self, timeout: float) -> Iterator[tuple[int, Extraction]]:
        """The answers of the oldest :meth:`submit` not collected yet, in order, as
        :meth:`extract` gives them.

        Each method's clock starts when the previous one ended in the worker (its answer
        carries that moment, on the system-wide monotonic clock); the first one's when the
        page was sent or, if the worker was busy with an earlier page then, when that page's
        last method ended. Time this process spends elsewhere never counts against a method.
        """
        sub = self._queue.popleft()
        page, todo, ran = sub.page, sub.todo, sub.ran
        if sub.starts != self.starts:  # sent to a worker that was replaced since: again
            if todo:
                self._send.send(("extract", page, todo))
                self._pending += len(todo)
            start = time.monotonic()
        else:
            start = max(sub.sent_at, self._last_done)
        while todo:
            j = todo.pop(0)
            got, error, done = self._answer(start, timeout)
            if error is None:
                if self.stateful[j]:
                    ran.append(j)
                start = self._last_done = done
                yield j, got
                continue
            error = error.format(label=self._specs[j].label)
            seconds = time.monotonic() - start
            self._restart(timeout)
            yield j, Extraction(error=error, seconds=seconds)
            if todo:  # the rest of the page's methods go to the new worker
                self._send.send(("extract", page, todo))
                self._pending += len(todo)
                start = time.monotonic()

    def _answer(self, start: float, timeout: float | None
                ) -> tuple[Any, str | None, float | None]:
        """The next answer and the moment it was made, or (None, the error with a
        ``{label}`` to fill in, None) when none comes by ``start + timeout``."""
        try:
            wait = max(0.0, start + timeout - time.monotonic()) if timeout else None
            if self._recv.poll(wait):
                self._pending -= 1
                _, got, done = self._recv.recv()
                return got, None, done
            return None, f"{TIMEOUT}{{label}} ran over {timeout:g} s on this page", None
        except (EOFError, OSError):
            code = self.proc.wait() if self.proc is not None else None
            return None, f"{WORKER_DIED}exit status {code} on this page", None

    def _restart(self, timeout: float) -> None:
        """Kill the worker, start a fresh one with fresh methods and give its site-scope
        methods back their memory by running them again on the pages they had seen."""
        history, queued = self._history, list(self._queue)
        self.kill()
        self.build(self._specs)
        try:
            for page, ran in history:
                if not ran:
                    continue
                self._send.send(("extract", page, ran))
                self._pending += len(ran)
                start = time.monotonic()
                for _ in ran:
                    _, error, start = self._answer(start, timeout)
                    if error is not None:  # replay over the limit: give up
                        self.replays_given_up += 1
                        self.kill()
                        self.build(self._specs)
                        return
            self._history = history
        finally:  # pages submitted behind the failed one: their collect sends them again
            self._queue.extend(queued)


#: page workers by the thread that uses them: tasks may run in threads of one process (a
#: Dask LocalCluster with processes=false, Hydra's joblib launcher), and two threads must
#: never talk to one worker
_SHARED: dict[int, PageWorker] = {}
_LOCK = threading.Lock()


def shared_worker() -> PageWorker:
    """This thread's page worker (one per thread of a process, reused by every task)."""
    me = threading.get_ident()
    with _LOCK:
        if not _SHARED:
            atexit.unregister(_stop_all)  # once, however often the dict empties
            atexit.register(_stop_all)
        if me not in _SHARED:
            _SHARED[me] = PageWorker()
        return _SHARED[me]


def stop_shared_worker() -> None:
    """End this thread's page worker, and those of threads that have ended (a run's end)."""
    alive = {t.ident for t in threading.enumerate()} - {threading.get_ident()}
    with _LOCK:
        for ident in [i for i in _SHARED if i not in alive]:
            _SHARED.pop(ident).kill()


def _stop_all() -> None:
    with _LOCK:
        while _SHARED:
            _SHARED.popitem()[1].kill()


# ---------------------------------------------------------------------- the worker side

def serve(recv: Connection, send: Connection) -> None:
    """The worker's loop: build methods, extract pages, until the parent closes the pipe."""
    from evalkit.harness.cache_entry import as_data
    from evalkit.harness.extract import BUILD_FAILED, extract_one

    methods: list[Any] = []
    while True:
        try:
            msg = recv.recv()
        except EOFError:
            return
        if msg[0] == "build":
            methods, answer = [], []
            for spec, reg in msg[1]:
                try:
                    method = (reg.create(spec.registry, **spec.params) if reg is not None
                              else spec.build())
                    answer.append((None, getattr(method, "scope", "page") == "site"))
                except Exception as exc:  # noqa: BLE001 - as runner.run_task reports it
                    method = None
                    answer.append((f"{BUILD_FAILED}{type(exc).__name__}: {exc}", False))
                methods.append(method)
            send.send(answer)
        elif msg[0] == "extract":
            _, page, todo = msg
            for j in todo:
                # scored as the cache would give it back, so a rerun scores the same
                # with the moment it ended: the parent starts the next method's clock there
                send.send((j, as_data(extract_one(methods[j], page)), time.monotonic()))


def main(argv: list[str]) -> None:
    from evalkit.harness.watchdog import exit_with_parent

    recv_fd, send_fd, parent = (int(a) for a in argv)
    # Ctrl-C reaches the terminal's whole process group: the run (the parent) prints its one
    # line and ends this worker; a KeyboardInterrupt here would only add a traceback (issue 29)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent(parent)  # a killed run leaves no worker behind
    serve(Connection(recv_fd, writable=False), Connection(send_fd, readable=False))


if __name__ == "__main__":
    main(sys.argv[1:])
