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

Every request carries an id and every answer names the request and the method it answers;
an answer that is not the one awaited (a method's forked child writing to the pipe, a
corrupt message) is never credited to anyone: the worker is taken as failed for the
method awaited, killed and replaced. A forked child that returns into the worker's loop
exits at once, and its copies of the pipes lead nowhere (:func:`_after_fork_in_child`).

The worker reads its requests on a thread of its own into memory, so a page sent while
the worker writes an earlier page's answers never blocks: with both messages larger than
a pipe holds (a 1.5 MB aeb page, its 1 MB text), each side used to wait for the other to
read, forever (issue 31: ``evalkit.evaluate`` over aeb hung at 0 CPU).

Each worker leads a process group of its own: a kill ends the processes a method started
too, and so does the worker when its parent is gone (evalkit.harness.watchdog).
"""

from __future__ import annotations

import atexit
import collections
import itertools
import os
import queue
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

__all__ = ["GOLD", "TIMEOUT", "WORKER_DIED", "PageWorker", "shared_worker", "stop_shared_worker"]

#: start of the error of a (page, method) that ran over ``runner.page_timeout``
TIMEOUT = "timeout: "
#: start of the error of a (page, method) whose worker process died under it
WORKER_DIED = "worker died: "
#: the index :meth:`PageWorker.collect` gives the page's own side of scoring (its parse in the
#: worker, evalkit.harness.scoring.gold_side): a tuple, or the error when that failed
GOLD = -1
#: what follows WORKER_DIED when the answer read was not the one awaited
STRAY_ANSWER = (
    "an answer for another request came back (a method's own child process "
    "writing to the worker's pipe?); nothing of it was used"
)


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
    #: the id of the request that carries it
    rid: int
    #: site-scope methods that ran on it (the replay after a kill needs them)
    ran: list[int]
    #: the worker it went to (``PageWorker.starts`` then): a replaced one lost it
    starts: int
    sent_at: float
    #: the page's gold side to prepare after its methods (evalkit.harness.scoring.GOLD_SIDES)
    gold: str | None = None


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
        #: request ids: every answer names the request it answers
        self._ids = itertools.count(1)
        #: replace the worker after a page when its resident memory passes this many MiB
        #: (``runner.worker_max_mb``; None: never), and how often that happened
        self.max_mb: int | None = None
        self.recycled = 0

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
            [
                sys.executable,
                "-m",
                "evalkit.harness.page_worker",
                str(to_child),
                str(from_child),
                str(os.getpid()),
            ],
            pass_fds=(to_child, from_child),
            stdin=subprocess.DEVNULL,
            env=env,
            process_group=0,
        )  # its own group: kill() ends what its methods started too
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
            try:  # the worker's group: the worker and every process a method of it started
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
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

            rid = next(self._ids)
            self._send.send_bytes(cloudpickle.dumps(("build", rid, sent)))
            tag, got, answer = self._recv.recv()  # no time limit: start-up and imports
            if (tag, got) != ("built", rid):
                raise OSError(STRAY_ANSWER)
        except (EOFError, OSError, ValueError, TypeError) as exc:
            self.kill()
            raise RuntimeError(f"the page worker process could not start: {exc}") from None
        self.build_errors = [err for err, _ in answer]
        self.stateful = [site for _, site in answer]

    def extract(
        self, page: Page, todo: list[int], timeout: float
    ) -> Iterator[tuple[int, Extraction]]:
        """``(j, extraction)`` for every method index in ``todo``, in order; a method that
        does not answer within ``timeout`` seconds gets a timeout error and the worker is
        replaced (with fresh methods) before the next one. :meth:`submit` then
        :meth:`collect`."""
        self.submit(page, todo)
        return self.collect(timeout)

    def submit(self, page: Page, todo: list[int], gold: str | None = None) -> None:
        """Queue ``page`` for the worker and return at once: the worker extracts while this
        process does other work (scores earlier pages). Several pages may be queued;
        :meth:`collect` reads their answers in the order they were submitted. ``gold``: also
        prepare the page's own side of scoring (its parse: :data:`GOLD`), after its methods."""
        ran: list[int] = []  # site-scope methods that ran on this page
        self._history.append((page, ran))
        rid = next(self._ids)
        self._queue.append(
            _Submitted(page, list(todo), rid, ran, self.starts, time.monotonic(), gold)
        )
        if todo or gold:
            try:
                self._send.send(("extract", rid, page, todo, gold))
            except OSError:
                # the worker died on a page queued before this one (a broken pipe): collecting
                # that page finds the death and starts a fresh worker, and collecting this one
                # sends it there (its ``starts`` is the dead worker's)
                return
            self._pending += len(todo) + bool(gold)

    def collect(self, timeout: float) -> Iterator[tuple[int, Extraction]]:
        """The answers of the oldest :meth:`submit` not collected yet, in order, as
        :meth:`extract` gives them.

        Each method's clock starts when the previous one ended in the worker (its answer
        carries that moment, on the system-wide monotonic clock); the first one's when the
        page was sent or, if the worker was busy with an earlier page then, when that page's
        last method ended. Time this process spends elsewhere never counts against a method.
        """
        sub = self._queue.popleft()
        page, todo, ran, rid, gold = sub.page, sub.todo, sub.ran, sub.rid, sub.gold
        if sub.starts != self.starts:  # sent to a worker that was replaced since: again
            if todo or gold:
                rid = self._resend(page, todo, gold)
            start = time.monotonic()
        else:
            start = max(sub.sent_at, self._last_done)
        while todo:
            j = todo.pop(0)
            got, error, done = self._answer(start, timeout, (rid, j))
            if error is None:
                if self.stateful[j]:
                    ran.append(j)
                start = self._last_done = done
                yield j, got
                continue
            error = error.format(label=self._specs[j].label)
            seconds = time.monotonic() - start
            # the rest of the page's methods go to the new worker, ahead of the pages behind
            rid = self._restart(timeout, page, todo, gold)
            yield j, Extraction(error=error, seconds=seconds)
            start = time.monotonic()
        if gold:
            got, error, done = self._answer(start, timeout, (rid, GOLD))
            if error is None:
                self._last_done = done
                yield GOLD, got
            else:
                self._restart(timeout)  # the pages behind go to the new worker
                yield GOLD, error.format(label="scoring's parse of the page")
        if self.max_mb is not None and self.alive():
            rss = _rss_mb(self.proc.pid)
            if rss is not None and rss > self.max_mb:
                # a method that leaks (goose3 keeps ~1.4 MiB a page): a fresh worker, its
                # site-scope methods given their memory back, the queued pages resent
                self.recycled += 1
                self._restart(timeout)

    def _resend(self, page: Page, todo: list[int], gold: str | None = None) -> int:
        """Send ``page`` for ``todo`` (and its ``gold`` side) again under a new request id
        (to a fresh worker)."""
        rid = next(self._ids)
        self._send.send(("extract", rid, page, todo, gold))
        self._pending += len(todo) + bool(gold)
        return rid

    def _answer(
        self, start: float, timeout: float | None, expect: tuple[int, int]
    ) -> tuple[Any, str | None, float | None]:
        """The answer to request and method ``expect`` and the moment it was made, or (None,
        the error with a ``{label}`` to fill in, None) when none comes by ``start + timeout``
        or what comes is not that answer (then the worker is not trusted any more)."""
        try:
            wait = max(0.0, start + timeout - time.monotonic()) if timeout else None
            if self._recv.poll(wait):
                self._pending -= 1
                msg = self._recv.recv()
                kind = tuple if expect[1] == GOLD else Extraction
                if (
                    type(msg) is tuple
                    and len(msg) == 4
                    and msg[:2] == expect
                    and isinstance(msg[2], kind)
                    and isinstance(msg[3], float)
                ):
                    return msg[2], None, msg[3]
                return None, f"{WORKER_DIED}{STRAY_ANSWER}", None
            return None, f"{TIMEOUT}{{label}} ran over {timeout:g} s on this page", None
        except (EOFError, OSError):
            code = self.proc.wait() if self.proc is not None else None
            return None, f"{WORKER_DIED}exit status {code} on this page", None
        except Exception:  # noqa: BLE001 - bytes that are no message: never trusted
            return None, f"{WORKER_DIED}{STRAY_ANSWER}", None

    def _restart(
        self,
        timeout: float,
        page: Page | None = None,
        todo: list[int] = (),
        gold: str | None = None,
    ) -> int | None:
        """Kill the worker, start a fresh one with fresh methods and give its site-scope
        methods back their memory by running them again on the pages they had seen; then
        send it ``page`` for the methods ``todo`` (returns that request's id, None when
        there is none) and the pages queued behind, in order."""
        history, queued = self._history, list(self._queue)
        self.kill()
        self.build(self._specs)
        for seen, ran in history:
            if not ran:
                continue
            replay = self._resend(seen, ran)
            start, error = time.monotonic(), None
            for j in ran:  # each method's clock starts where the one before it ended
                _, error, start = self._answer(start, timeout, (replay, j))
                if error is not None:
                    break
            if error is not None:  # replay over the limit: give up, the memories start empty
                self.replays_given_up += 1
                self.kill()
                self.build(self._specs)
                break
        else:
            self._history = history
        # the rest of the failed page, then the pages submitted behind it, go to the new
        # worker now, in their order and before any page submitted later (sent at their
        # collect, they came after it and, without request ids, got its answers)
        rid = None
        try:
            if todo or (gold and page is not None):
                rid = self._resend(page, todo, gold)
            for sub in queued:
                if sub.todo or sub.gold:
                    sub.rid = self._resend(sub.page, sub.todo, sub.gold)
                sub.starts, sub.sent_at = self.starts, time.monotonic()
        except OSError:  # this worker died already: the collects find it
            pass
        self._queue.extend(queued)
        return rid


def _rss_mb(pid: int) -> float | None:
    """The resident memory of process ``pid`` in MiB (Linux's /proc; None elsewhere)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        return None
    return None


#: page workers by the thread that uses them: tasks may run in threads of one process (a
#: Dask LocalCluster with processes=false, Hydra's joblib launcher), and two threads must
#: never talk to one worker
_SHARED: dict[tuple[int, str], PageWorker] = {}
_LOCK = threading.Lock()


def shared_worker(role: str = "methods") -> PageWorker:
    """This thread's page worker of ``role`` (one per thread of a process and role, reused by
    every task): ``"methods"`` runs the methods, ``"gold"`` the pages' own side of scoring."""
    me = (threading.get_ident(), role)
    with _LOCK:
        if not _SHARED:
            atexit.unregister(_stop_all)  # once, however often the dict empties
            atexit.register(_stop_all)
        if me not in _SHARED:
            _SHARED[me] = PageWorker()
        return _SHARED[me]


def stop_shared_worker() -> None:
    """End this thread's page workers, and those of threads that have ended (a run's end)."""
    alive = {t.ident for t in threading.enumerate()} - {threading.get_ident()}
    with _LOCK:
        for key in [k for k in _SHARED if k[0] not in alive]:
            _SHARED.pop(key).kill()


def _stop_all() -> None:
    with _LOCK:
        while _SHARED:
            _SHARED.popitem()[1].kill()


# ---------------------------------------------------------------------- the worker side

#: the worker process's pid and pipe ends (a forked child of a method is told apart by its pid)
_WORKER: dict[str, Any] = {}


def _after_fork_in_child() -> None:
    """In a process a method forked inside the worker: its copies of the worker's pipes now
    lead to /dev/null, so nothing it writes reaches the run (it exits should it return into
    :func:`serve`)."""
    fds = _WORKER.get("fds", ())
    if not fds:
        return
    null = os.open(os.devnull, os.O_RDWR)
    for fd in fds:
        try:
            os.dup2(null, fd, inheritable=False)
        except OSError:
            pass
    os.close(null)


def _read_requests(recv: Connection, inbox: queue.SimpleQueue) -> None:
    """The worker's reader thread: every request into memory as soon as it arrives, so the
    parent's send never waits while the worker writes answers (no deadlock of two full
    pipes); None at the end of the pipe."""
    while True:
        try:
            inbox.put(recv.recv())
        except (EOFError, OSError):
            inbox.put(None)
            return


def serve(recv: Connection, send: Connection) -> None:
    """The worker's loop: build methods, extract pages, until the parent closes the pipe."""
    from evalkit.harness.cache_entry import as_data
    from evalkit.harness.extract import BUILD_FAILED, extract_one
    from evalkit.harness.scoring import gold_side

    me = os.getpid()
    inbox: queue.SimpleQueue = queue.SimpleQueue()
    threading.Thread(
        target=_read_requests, args=(recv, inbox), name="evalkit-requests", daemon=True
    ).start()
    methods: list[Any] = []
    while True:
        msg = inbox.get()
        if msg is None:
            return
        if msg[0] == "build":
            _, rid, specs = msg
            methods, answer = [], []
            for spec, reg in specs:
                try:
                    method = (
                        reg.create(spec.registry, **spec.params)
                        if reg is not None
                        else spec.build()
                    )
                    answer.append((None, getattr(method, "scope", "page") == "site"))
                except KeyboardInterrupt:
                    raise
                except BaseException as exc:  # noqa: BLE001 - as runner.run_task reports it
                    method = None
                    answer.append((f"{BUILD_FAILED}{type(exc).__name__}: {exc}", False))
                methods.append(method)
                if os.getpid() != me:  # a child a method forked while being built
                    os._exit(0)
            send.send(("built", rid, answer))
        elif msg[0] == "extract":
            _, rid, page, todo, gold = msg
            for j in todo:
                # scored as the cache would give it back, so a rerun scores the same
                ext = as_data(extract_one(methods[j], page))
                if os.getpid() != me:  # a child the method forked came back here: not ours
                    os._exit(0)
                # with the moment it ended: the parent starts the next method's clock there
                send.send((rid, j, ext, time.monotonic()))
            if gold:  # the page's own side of scoring: its parse, under the same limit
                send.send((rid, GOLD, gold_side(page, gold), time.monotonic()))


def main(argv: list[str]) -> None:
    from evalkit.harness.watchdog import exit_with_parent

    recv_fd, send_fd, parent = (int(a) for a in argv)
    for fd in (recv_fd, send_fd):  # a shell a method starts (os.system) does not get them
        os.set_inheritable(fd, False)
    _WORKER["fds"] = (recv_fd, send_fd)
    os.register_at_fork(after_in_child=_after_fork_in_child)
    # Ctrl-C reaches the terminal's whole process group: the run (the parent) prints its one
    # line and ends this worker; a KeyboardInterrupt here would only add a traceback (issue 29)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent(parent)  # a killed run leaves no worker behind, nor what it started
    try:
        serve(Connection(recv_fd, writable=False), Connection(send_fd, readable=False))
    finally:
        _end_group()


def _end_group() -> None:
    """End the processes the worker's methods started (its process group), then itself."""
    sys.stdout.flush()
    sys.stderr.flush()
    if os.getpgid(0) == os.getpid():
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.killpg(0, signal.SIGKILL)


if __name__ == "__main__":
    main(sys.argv[1:])
