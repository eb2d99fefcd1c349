"""Processes that methods start in the run's own process, ended with the run.

A page worker (``runner.page_timeout``, the default) leads a process group of its own, and
the group is killed with it, so whatever its methods started ends with the run
(evalkit.harness.page_worker). Without a page worker (``runner.page_timeout=0`` or null) the
methods run in the task's own process: the run's process with ``runner.n_jobs=1``, a loky
worker that outlives the run otherwise. That process cannot lead a group of its own (it is
the user's, in the terminal's job control), so a process a method started there outlived
the run (issue 31, item 16).

:class:`ChildWatch` therefore notes the process's children when a pipeline starts and, when
it ends, kills (SIGKILL) every child that appeared since, with its descendants, except
those the harness started itself and keeps (the headless browser of evalkit.harness.render,
which :func:`keep` names). Children are found in ``/proc`` (each process's parent id): where
there is none (not Linux) nothing is tracked. A process that left the tree (a daemon that
forked twice, whose parent then exited) cannot be found: an untrusted method needs a page
worker (docs/security.md).
"""

from __future__ import annotations

import os
import signal
import time

__all__ = ["ChildWatch", "keep"]

#: seconds :meth:`ChildWatch.end` waits for the killed children to be reaped
REAP_SECONDS = 2.0

#: pids of processes the harness started in this process and keeps across pipelines
_KEPT: set[int] = set()


def keep(pid: int) -> None:
    """Name a child the harness started and keeps (never ended by a :class:`ChildWatch`)."""
    _KEPT.add(pid)


def _parents() -> dict[int, int] | None:
    """pid -> parent pid of every process in ``/proc``; None where there is no ``/proc``."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return None
    parents = {}
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:  # ended between the listing and the reading
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and brackets, so split after ")"
        fields = stat.rsplit(b")", 1)[-1].split()
        if len(fields) > 1:
            parents[int(name)] = int(fields[1])
    return parents


def _children(parents: dict[int, int], pid: int) -> set[int]:
    return {child for child, parent in parents.items() if parent == pid}


def _descendants(parents: dict[int, int], roots: set[int]) -> list[int]:
    """``roots`` and every process below them, parents before their children."""
    order, todo = [], list(roots)
    while todo:
        pid = todo.pop()
        order.append(pid)
        todo.extend(_children(parents, pid))
    return order


class ChildWatch:
    """The children of this process when it was made; :meth:`end` kills the ones started
    since (see the module docstring)."""

    def __init__(self):
        parents = _parents()
        self.pid = os.getpid()
        self.before = None if parents is None else _children(parents, self.pid)

    def end(self) -> list[int]:
        """Kill the children started since this watch was made, and their descendants; reap
        the children. Returns the pids killed (none where there is no ``/proc``)."""
        if self.before is None or os.getpid() != self.pid:  # no /proc, or a forked copy
            return []
        parents = _parents() or {}
        new = _children(parents, self.pid) - self.before - _KEPT
        killed = _descendants(parents, new)
        for pid in killed:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:  # ended meanwhile
                pass
        deadline = time.monotonic() + REAP_SECONDS
        waiting = set(new)
        while waiting and time.monotonic() < deadline:
            for pid in list(waiting):
                try:
                    done, _ = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:  # reaped by its Popen, or not ours to reap
                    done = pid
                if done:
                    waiting.discard(pid)
            if waiting:
                time.sleep(0.01)
        return killed
