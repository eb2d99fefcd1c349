"""An interrupted run resumes from the extraction cache and ends with the same results.

The CLI runs as a subprocess; once the cache holds some extractions it is stopped with
SIGINT (Ctrl-C) or SIGKILL, then the same command runs again. Its summary.csv must be
byte-identical to an uninterrupted run's, and per_page.csv may differ only in timing and
in the ``cached`` flag. A run killed with worker processes (two local loky workers, or a
local Dask cluster) leaves none of them running.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from evalkit.harness.cache_keys import SourceTree

#: enough pages that the run is still extracting when it is stopped: since issue 17's pipeline
#: a 40-page run took about 3 s, most of it after the extraction
N_PAGES = 120
N_METHODS = 7  # the default method list
#: stop the first run once this many extractions are cached (of N_PAGES * N_METHODS)
KILL_AFTER = 60


def _command(results: Path, *runner: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "evalkit",
        "experiment=extraction",
        "dataset=synthetic",
        f"dataset.synthetic.limit={N_PAGES}",
        *(runner or ["runner.n_jobs=1"]),
        "runner.progress=false",
        f"paths.results={results}",
    ]


def _as_from_a_terminal(cmd: list[str]) -> list[str]:
    """``cmd`` started with SIGINT at its default and unblocked, as a shell starts a command:
    a signal disposition or mask that an earlier test left in pytest's own process would
    otherwise pass to the run (exec keeps both) and make it deaf to the test's Ctrl-C."""
    reset = (
        "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
        "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}); "
        "os.execv(sys.argv[1], sys.argv[1:])"
    )
    return [sys.executable, "-c", reset, *cmd]


def _cached(results: Path) -> int:
    return sum(1 for _ in (results / "cache").rglob("*.json"))


def _finished_run(results: Path) -> Path:
    runs = [p.parent for p in (results / "runs" / "extraction").glob("*/summary.csv")]
    assert len(runs) == 1, runs
    return runs[0]


def _run(results: Path, *runner: str) -> Path:
    done = subprocess.run(
        _command(results, *runner), check=False, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return _finished_run(results)


def _sources() -> str:
    return SourceTree().fingerprint()  # read afresh, not the per-process cached view


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> tuple[Path, str]:
    before = _sources()
    return _run(tmp_path_factory.mktemp("uninterrupted")), before


TIMING = ["seconds", "cached"]


def _without_timing(per_page: pd.DataFrame) -> pd.DataFrame:
    drop = [c for c in per_page if c in TIMING or c.startswith("info_seconds")]
    return per_page.drop(columns=drop)


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie, dead but not yet reaped by init, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(") ", 1)[1].split()[0] != "Z"


def _descendants(root: int) -> set[int]:
    """Every live process started by ``root``, or by one of those (from /proc)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit():
                parents[int(entry.name)] = int(
                    (entry / "stat").read_text().rsplit(") ", 1)[1].split()[1]
                )
        except OSError:
            continue
    found, todo = set(), [root]
    while todo:
        parent = todo.pop()
        kids = {pid for pid, ppid in parents.items() if ppid == parent and pid not in found}
        found |= kids
        todo.extend(kids)
    return {pid for pid in found if _alive(pid)}


#: how long a killed run's workers may take to notice (they poll every runner.PARENT_POLL s;
#: before the fix loky's still ran 420 s after the kill)
WORKERS_GONE_WITHIN = 30


@pytest.mark.slow
@pytest.mark.parametrize(
    ("sig", "runner"),
    [
        (signal.SIGINT, ()),
        pytest.param(signal.SIGKILL, (), marks=pytest.mark.nightly),
        (signal.SIGKILL, ("runner.n_jobs=2",)),
        pytest.param(signal.SIGKILL, ("runner=dask",), marks=pytest.mark.nightly),
    ],
    ids=["SIGINT", "SIGKILL", "SIGKILL-loky", "SIGKILL-dask"],
)
def test_an_interrupted_run_resumes_to_the_same_results(tmp_path, reference, sig, runner):
    if not Path(f"/proc/{os.getpid()}/stat").is_file():
        pytest.skip("finding a run's worker processes needs /proc")
    reference, sources = reference
    results = tmp_path / "results"
    # stderr to a file, not a pipe: workers left running would hold a pipe open
    err_file = tmp_path / "stderr.txt"
    with err_file.open("w") as err_out:
        proc = subprocess.Popen(
            _as_from_a_terminal(_command(results, *runner)),
            stdout=subprocess.DEVNULL,
            stderr=err_out,
        )
    deadline = time.monotonic() + 120
    while _cached(results) < KILL_AFTER and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert proc.poll() is None, "the run finished before it could be interrupted"
    # runner.n_jobs=1 runs the methods in one page worker process (runner.page_timeout)
    workers = _descendants(proc.pid)
    assert len(workers) >= (2 if runner else 1), "the run has no worker processes"
    proc.send_signal(sig)
    proc.wait(timeout=60)
    err = err_file.read_text()
    assert proc.returncode != 0
    if sig == signal.SIGINT:
        assert proc.returncode == 130
        assert err.strip().endswith(
            "Run the same command again to resume from the extraction cache."
        )
    # a killed run leaves no worker behind (they would go on writing to the cache, and
    # hold memory and cores, for minutes)
    deadline = time.monotonic() + WORKERS_GONE_WITHIN
    while {p for p in workers if _alive(p)} and time.monotonic() < deadline:
        time.sleep(0.1)
    left = {p for p in workers if _alive(p)}
    for pid in left:  # end them here, so a failing test leaves none behind either
        os.kill(pid, signal.SIGKILL)
    assert not left, f"workers of the killed run still run {WORKERS_GONE_WITHIN} s later"
    at_kill = _cached(results)
    assert KILL_AFTER <= at_kill < N_PAGES * N_METHODS
    # the interrupted run wrote no summary; nothing half-written is left under a final name
    assert not list((results / "runs").rglob("summary.csv"))
    assert not [p for p in (results / "cache").rglob("*.json") if p.stat().st_size == 0]

    run = _run(results, *runner)  # the same command again
    if _sources() != sources:
        # the cache key holds a hash of the source files, so an edit in between (another
        # developer's, in a shared checkout) rightly invalidates the first run's extractions
        pytest.skip("evalkit or baselines sources changed during the test")
    assert (run / "summary.csv").read_bytes() == (reference / "summary.csv").read_bytes()
    ref_pages = pd.read_csv(reference / "per_page.csv")
    pages = pd.read_csv(run / "per_page.csv")
    assert list(pages.columns) == list(ref_pages.columns)
    pd.testing.assert_frame_equal(_without_timing(pages), _without_timing(ref_pages))
    # it did resume: what the first run cached was read back, not recomputed
    assert pages["cached"].sum() == at_kill
    assert not ref_pages["cached"].any()
    for table in ("extraction_synthetic.csv", "extraction_synthetic.md"):
        assert (run / "tables" / table).read_bytes() == (reference / "tables" / table).read_bytes()
