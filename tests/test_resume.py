"""An interrupted run resumes from the extraction cache and ends with the same results.

The CLI runs as a subprocess; once the cache holds some extractions it is stopped with
SIGINT (Ctrl-C) or SIGKILL, then the same command runs again. Its summary.csv must be
byte-identical to an uninterrupted run's, and per_page.csv may differ only in timing and
in the ``cached`` flag.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from evalkit.cache import SourceTree

N_PAGES = 40
N_METHODS = 7  # the default method list
#: stop the first run once this many extractions are cached (of N_PAGES * N_METHODS)
KILL_AFTER = 60


def _command(results: Path) -> list[str]:
    return [sys.executable, "-m", "evalkit", "experiment=extraction", "dataset=synthetic",
            f"dataset.synthetic.limit={N_PAGES}", "runner.n_jobs=1", "runner.progress=false",
            f"paths.results={results}"]


def _cached(results: Path) -> int:
    return sum(1 for _ in (results / "cache").rglob("*.json"))


def _finished_run(results: Path) -> Path:
    runs = [p.parent for p in (results / "runs" / "extraction").glob("*/summary.csv")]
    assert len(runs) == 1, runs
    return runs[0]


def _run(results: Path) -> Path:
    done = subprocess.run(_command(results), check=False, capture_output=True, text=True,
                          timeout=300)
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


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
def test_an_interrupted_run_resumes_to_the_same_results(tmp_path, reference, sig):
    reference, sources = reference
    results = tmp_path / "results"
    proc = subprocess.Popen(_command(results), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while _cached(results) < KILL_AFTER and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert proc.poll() is None, "the run finished before it could be interrupted"
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode != 0
    if sig == signal.SIGINT:
        assert proc.returncode == 130
        assert err.strip().endswith("Run the same command again to resume from the extraction cache.")
    at_kill = _cached(results)
    assert KILL_AFTER <= at_kill < N_PAGES * N_METHODS
    # the interrupted run wrote no summary; nothing half-written is left under a final name
    assert not list((results / "runs").rglob("summary.csv"))
    assert not [p for p in (results / "cache").rglob("*.json") if p.stat().st_size == 0]

    run = _run(results)
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
