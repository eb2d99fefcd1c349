"""Clean interrupts (issue 29, item 4): Ctrl-C or SIGTERM at any moment of a run ends the
command with one line (exit 130) and no traceback, from the main process or any worker;
every process of the run ends with it; a run folder that exists says ``interrupted`` in
run.json with what finished; a complete run says ``complete``; and the same command again
finishes from the cache with the summary of an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evalkit.harness.cache_admin import listing

ROOT = Path(__file__).resolve().parents[1]
HANG = 600  # seconds: only to detect a hang
ARGS = [
    "experiment=extraction",
    "dataset=synthetic",
    "dataset.synthetic.n_sites=12",
    "method=[cetd,pab,justext_style]",
    "runner.progress=false",
    "extraction.n_boot=20",
]
LAST_LINE = "evalkit: interrupted; {} is incomplete"


def _start(run_dir: Path, cache: Path, n_jobs: int = 1) -> subprocess.Popen:
    env = {**os.environ, "PYTHONHASHSEED": "0", "EVALKIT_ROOT": str(ROOT), "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "evalkit",
            *ARGS,
            f"runner.n_jobs={n_jobs}",
            f"hydra.run.dir={run_dir}",
            f"paths.cache={cache}",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )  # its own process group, as a terminal's


def _wait_for(pattern: str, run_dir: Path, proc: subprocess.Popen) -> None:
    """Poll (bounded only to detect a hang) until ``run_dir`` holds ``pattern``."""
    deadline = time.monotonic() + HANG
    while not list(run_dir.glob(pattern)):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"no {pattern} within the hang bound"
        time.sleep(0.02)


def _group_ended(pgid: int) -> bool:
    """True once no process of the run's group is left (workers poll for their parent
    every half second: evalkit.harness.watchdog)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> bytes:
    where = tmp_path_factory.mktemp("fresh")
    fresh = _start(where / "run", where / "cache")
    fresh.communicate(timeout=HANG)
    assert fresh.returncode == 0
    return (where / "run" / "summary.csv").read_bytes()


@pytest.mark.slow
@pytest.mark.parametrize(
    "moment,sig,n_jobs",
    [
        (".hydra", signal.SIGINT, 1),  # folder made, methods and data sets being built
        (".records-*", signal.SIGINT, 1),  # pages being extracted and scored
        (".records-*", signal.SIGTERM, 1),
        (".records-*", signal.SIGINT, 2),  # loky workers hear Ctrl-C too, some starting
    ],
    ids=["building-int", "pages-int", "pages-term", "pages-int-2-workers"],
)
def test_an_interrupt_is_one_line_and_marks_the_run(tmp_path, moment, sig, n_jobs, uninterrupted):
    run_dir, cache = tmp_path / "run", tmp_path / "cache"
    proc = _start(run_dir, cache, n_jobs)
    _wait_for(moment, run_dir, proc)
    os.killpg(proc.pid, sig)  # the whole group, as Ctrl-C in a terminal does
    _out, err = proc.communicate(timeout=HANG)
    assert proc.returncode == 130, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(LAST_LINE.format(run_dir)), err
    assert _group_ended(proc.pid), "a process of the run outlived it"
    info = json.loads((run_dir / "run.json").read_text())
    assert info["status"] == "interrupted"
    if moment == ".records-*":  # the run marked itself with what finished
        assert info["parts"] == ["extraction"] and "finished_records" in info
        # the cache's method index names only entries that are there (python -m evalkit.cache)
        found = listing(cache)
        assert set().union(*(m["keys"] for m in found.methods.values())) <= set(found.entries)
    # the same command again finishes from the cache: the summary of an uninterrupted run
    again = _start(run_dir.with_name("again"), cache, n_jobs)
    again.communicate(timeout=HANG)
    assert again.returncode == 0
    assert json.loads((run_dir.with_name("again") / "run.json").read_text())["status"] == "complete"
    assert (run_dir.with_name("again") / "summary.csv").read_bytes() == uninterrupted


@pytest.mark.slow
def test_an_interrupt_before_the_run_folder_is_one_line_and_writes_nothing(tmp_path):
    """Ctrl-C while the command still imports and checks its overrides: one line, exit 130,
    no folder. The moment: numpy's compiled core appears among the process's mapped files
    (it is imported while the overrides are checked, seconds before Hydra makes a folder)."""
    run_dir = tmp_path / "run"
    proc = _start(run_dir, tmp_path / "cache")
    deadline = time.monotonic() + HANG
    while "_multiarray_umath" not in Path(f"/proc/{proc.pid}/maps").read_text():
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.01)
    assert not run_dir.exists()
    os.killpg(proc.pid, signal.SIGINT)
    _out, err = proc.communicate(timeout=HANG)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert proc.returncode == 130 and lines == [
        "evalkit: interrupted before the run started; nothing was written."
    ], err
    assert not run_dir.exists()
