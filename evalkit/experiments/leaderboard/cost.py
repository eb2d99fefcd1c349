"""What each method costs, measured in the run that scores it: time per page and peak memory.

Time (:func:`measure_costs`, columns ``ms_median``, ``ms_p90``, ``parse_ms_median``,
``ratio_to_parse``, ``failures``) is measured exactly as the ``speed`` experiment measures it
(:func:`evalkit.experiments.speed.timing.time_pages`): per page, interleaved so that a change in
machine load hits all alike, :func:`evalkit.core.page.parse_html` of the page and then each
method through :func:`evalkit.harness.extract.extract_one`, on the clock chosen (CPU time of the
timing process by default), each method run once on the first page before timing starts, no
extraction cache. The medians and the ratio are those of
:func:`evalkit.experiments.speed.summary.summarize` (:func:`timing_columns`): over the pages the
method did not fail on and lxml could parse, median and 90th percentile of the method's ms, the
median of the parse's ms on those pages, and the ratio of the two medians. With a runner the
timing of all methods is one task of it (as ``speed`` times a data set), else it runs here. The
pure-Python walk of ``speed`` is left out: it times a floor no column reports.

Memory (``peak_mb``, ``floor_mb``, ``mb_over_floor``; :func:`memory_peaks`) is measured in
fresh Python processes, one at a time, each started afresh (``python -c`` :data:`_CHILD`, this
process's ``sys.path``) and sent the pickled pages: the floor process parses each page with
:func:`evalkit.core.page.parse_html`; each method's process builds the method from its spec
(afresh per site, as the runner does) and runs it over every page with
:func:`evalkit.harness.extract.extract_one`. Each reports its peak resident memory in MiB. Both
import evalkit's page, extraction, task and spec modules and what they import (lxml, not
pandas, not the experiments: those are some 150 MiB more); only the method's process imports the
method's module and its libraries. So ``floor_mb`` is evalkit's page layer holding the pages
and parsing them, and ``mb_over_floor = peak_mb - floor_mb`` is the method's own cost: its
imports, its objects and its work beyond a parse. Memory of processes a method starts itself
(a browser rendering the page, a server) is not counted: only the process that runs the
method is measured.

The processes are started with :mod:`subprocess`, not multiprocessing's ``spawn``: a spawned
process imports this process's ``__main__`` script again (a script that imports pandas and the
experiments put 175 MiB into every floor), and a daemonic process (a Dask worker) may not have
multiprocessing children. The peak is the process's ``VmHWM`` (``/proc/self/status``), not
``getrusage``'s maxrss (:func:`evalkit.experiments.speed.timing.peak_rss_mb`): a new process is
forked, then execs Python, and Linux carries the peak of the forked copy of this (parent)
process into the child's maxrss, so every child would report at least the parent's resident
size (a child of an 800 MiB parent whose own peak was 15 MiB had a maxrss of 814 MiB). Where
there is no ``/proc`` (not Linux) the maxrss is used, with that caveat.

Nothing is written to disk; apart from the measured numbers the frame is the same on every run
(one row per spec, in the order given).
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import threading
from multiprocessing.connection import Connection

import numpy as np
import pandas as pd

from evalkit.core.page import Page
from evalkit.experiments.speed.timing import CLOCKS, time_dataset_task, time_pages
from evalkit.harness.specs import MethodSpec

__all__ = ["COLUMNS", "measure_costs", "memory_peaks", "timing_columns"]

#: the columns of :func:`measure_costs`, in order
COLUMNS = [
    "method",
    "n_pages",
    "ms_median",
    "ms_p90",
    "parse_ms_median",
    "ratio_to_parse",
    "failures",
    "peak_mb",
    "floor_mb",
    "mb_over_floor",
    "error",
]
_NAN = float("nan")


def measure_costs(
    pages: list[Page],
    specs: list[MethodSpec],
    *,
    clock: str = "cpu",
    memory: bool = True,
    runner=None,
    timeout: float | None = None,
    desc: str = "costs",
) -> pd.DataFrame:
    """One row per spec (``method`` = its label) with the time and memory it costs on ``pages``
    (module docstring): ``n_pages``, ``ms_median``, ``ms_p90``, ``parse_ms_median``,
    ``ratio_to_parse``, ``failures`` (pages the method failed on or lxml could not parse),
    ``peak_mb``, ``floor_mb``, ``mb_over_floor`` (MiB; NaN with ``memory=False``) and
    ``error`` (why the method could not be built or its memory process failed; else None).

    ``clock``: ``cpu`` (CPU time of the timing process) or ``wall``. ``runner``: an
    :class:`evalkit.harness.runner.Runner`; the timing then runs as its one task, where it runs
    tasks. The memory processes are started from this process, one after another; one that
    runs over ``timeout`` seconds (None: no limit) is killed and its method's memory is NaN,
    with the reason in ``error``. ``desc`` names the timing's progress bar.
    """
    if clock not in CLOCKS:
        raise ValueError(f"clock must be one of {sorted(CLOCKS)}, got {clock!r}")
    pages, specs = list(pages), list(specs)
    labels = [spec.label for spec in specs]
    if len(set(labels)) != len(labels):
        raise ValueError(f"method labels must be distinct, got {labels}")
    timing = functools.partial(time_dataset_task, specs=specs, clock=clock, walk=False)
    if runner is not None:
        # one task, run where the runner runs tasks (as the speed experiment's _one)
        ((per_page, _),) = runner.map(timing, [pages], desc=f"{desc}: timing", total=1, unit="task")
    else:
        per_page = time_pages(pages, specs, clock=clock, walk=False)
    frame = timing_columns(per_page, labels)
    frame["n_pages"] = len(pages)
    if memory:
        floor, peaks = memory_peaks(pages, specs, timeout)
        frame["peak_mb"] = [peaks[label][0] for label in labels]
        frame["floor_mb"] = floor
        frame["mb_over_floor"] = frame["peak_mb"] - frame["floor_mb"]
        # a memory process's error (the method's build, a crash) before the timing's
        errors = [peaks[label][1] or e for label, e in zip(labels, frame["error"], strict=True)]
        frame["error"] = pd.Series(errors, index=frame.index, dtype=object)
    else:
        frame["peak_mb"] = frame["floor_mb"] = frame["mb_over_floor"] = _NAN
    return frame[COLUMNS].reset_index(drop=True)


def timing_columns(per_page: pd.DataFrame, labels: list[str]) -> pd.DataFrame:
    """Per method label (in the order given) from the per-page timings of :func:`time_pages`:
    ``ms_median``, ``ms_p90``, ``parse_ms_median``, ``ratio_to_parse``, ``failures`` and
    ``error``, by :func:`evalkit.experiments.speed.summary.summarize`'s definitions (over the
    pages with no error and a parse time). ``error`` is the build error of a method that could
    not be built (time_pages then gives every page NaN ms and that message), else None."""
    rows = []
    for label in labels:
        df = per_page[per_page["method"] == label]
        ok = df[df["error"].isna() & df["ms"].notna() & df["parse_ms"].notna()]
        ms, parse = ok["ms"].to_numpy(float), ok["parse_ms"].to_numpy(float)
        unbuilt = len(df) > 0 and df["ms"].isna().all() and df["error"].notna().all()
        rows.append(
            {
                "method": label,
                "ms_median": float(np.median(ms)) if ms.size else _NAN,
                "ms_p90": float(np.percentile(ms, 90)) if ms.size else _NAN,
                "parse_ms_median": float(np.median(parse)) if parse.size else _NAN,
                "ratio_to_parse": (float(np.median(ms) / np.median(parse)) if ms.size else _NAN),
                "failures": len(df) - len(ok),
                "error": str(df["error"].iloc[0]) if unbuilt else None,
            }
        )
    columns = [
        "method",
        "ms_median",
        "ms_p90",
        "parse_ms_median",
        "ratio_to_parse",
        "failures",
        "error",
    ]
    frame = pd.DataFrame(rows, columns=columns)
    # None, not NaN, where a method was built
    frame["error"] = pd.Series([r["error"] for r in rows], index=frame.index, dtype=object)
    return frame


def memory_peaks(
    pages: list[Page], specs: list[MethodSpec], timeout: float | None = None
) -> tuple[float, dict[str, tuple[float, str | None]]]:
    """The floor's peak in MiB and, per spec label, ``(peak MiB, error or None)``: one fresh
    process at a time, first the floor (parse every page), then each method (build it
    per site, run it on every page); see the module docstring for what each counts."""
    floor, error = _in_fresh_process(None, pages, timeout)
    if error is not None:
        raise RuntimeError(f"the memory floor process failed: {error}")
    return floor, {spec.label: _in_fresh_process(spec, pages, timeout) for spec in specs}


#: the program of a memory process (``python -c``): it receives ``(spec or None, pages)`` from
#: its parent on the pipe named by its argument (a multiprocessing Connection, as the page
#: worker receives its methods), parses the pages (no spec: the floor) or builds the method per
#: site and runs it on every page, and writes ``[peak MiB, error or null]`` as JSON to its
#: stdout, where nothing else goes (the method's own prints go to stderr): the parent reads
#: only JSON from it. It imports evalkit's page,
#: extraction, task and spec modules (and what they import) and cloudpickle (a spec sent by
#: value needs it), floor and method alike.
_CHILD = """
import json, os, sys
from multiprocessing.connection import Connection

result = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(2, 1)  # a method's prints go to stderr, never into the answer

import cloudpickle  # noqa: F401

from evalkit.core.page import PageError, parse_html
from evalkit.harness.extract import extract_one
from evalkit.harness.specs import MethodSpec  # noqa: F401
from evalkit.harness.tasks import iter_tasks


def peak_mb():
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024


def main(spec, pages):
    if spec is None:
        for page in pages:
            try:
                parse_html(page.html, source=page.source or page.id)
            except PageError:  # e.g. an empty file, as time_pages skips it
                pass
        return None
    for task in iter_tasks(pages):
        try:
            method = spec.build()
        except Exception as exc:  # e.g. a peer whose package is missing
            return f"{type(exc).__name__}: {exc}"
        for page in task:
            extract_one(method, page)  # a failing page is the timing's failure
    return None


try:
    error = main(*Connection(int(sys.argv[1]), writable=False).recv())
    answer = (float("nan") if error else peak_mb(), error)
except BaseException as exc:
    answer = (float("nan"), f"memory process failed: {type(exc).__name__}: {exc}")
json.dump(list(answer), result)
result.close()
"""


def _in_fresh_process(
    spec: MethodSpec | None, pages: list[Page], timeout: float | None = None
) -> tuple[float, str | None]:
    """Run :data:`_CHILD` in a new Python on ``(spec, pages)``; its ``(peak MiB, error)``,
    killed after ``timeout`` seconds."""
    # cloudpickle: the spec may hold a function typed in a notebook, sent by value (as the page
    # worker sends it); the child's Connection reads the stream
    import cloudpickle

    env = dict(os.environ)
    # the same import path as this process: the same evalkit, and a test's method module
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    read, write = os.pipe()
    proc = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(read)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        env=env,
        pass_fds=(read,),
    )
    os.close(read)
    # the payload is written from a thread: a child that dies before reading it all cannot
    # block this process, and the timeout below still holds
    sender = threading.Thread(target=_send, args=(write, cloudpickle.dumps((spec, pages))))
    sender.start()
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        sender.join()
        return _NAN, f"memory process ran over {timeout:g} s and was killed"
    sender.join()
    try:
        peak, error = json.loads(out)
        return float(peak), error
    except (ValueError, TypeError):  # no answer: the process died (a signal, the OOM killer)
        return _NAN, f"memory process died (exit status {proc.returncode})"


def _send(fd: int, payload: bytes) -> None:
    conn = Connection(fd, readable=False)
    try:
        conn.send_bytes(payload)
    except OSError:  # the child is gone; its exit status says why
        pass
    finally:
        conn.close()
