"""The same config and seed give byte-identical results.

See docs/architecture.md#reliability-and-repeatability.

Every file of two fresh runs (cache off, so nothing is read back) is compared byte for
byte, except what measures time: ``per_page.csv``'s timing columns, ``run.json``'s wall
time and the timing tables of the dedup experiment. The ``speed`` experiment's summary
rows are time measurements by design and are left out here (see the lead's note in
``evalkit/experiments/extraction.py``: timing stays out of every other summary row).
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from evalkit.experiments import run_experiment
from evalkit.harness.config import register_resolvers
from evalkit.shell.cli import CONFIG_DIR

register_resolvers()

#: every experiment whose results should not depend on the clock
PARTS = ["extraction", "dedup", "classification", "units"]
#: summary metric names that would be a time measurement
TIMING_METRIC = re.compile(r"second|_ms|ms_|time|per_s|rss", re.IGNORECASE)
#: per_page.csv columns that are timings (and whether a record came from the cache)
TIMING_COLUMN = re.compile(r"seconds|_ms$|^cached$")
#: files that hold time measurements and are allowed to differ between runs
TIMED_FILES = re.compile(
    r"^(per_page\.csv|run\.json|report\.md|report\.html|report_sections\.json"
    r"|tables/dedup_.*_timing\.(csv|md|tex))$"
)


def _run(tmp: Path, *overrides: str) -> Path:
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(
            config_name="config",
            overrides=[
                "dataset.synthetic.limit=20",
                "extraction.n_boot=200",
                "runner.cache=false",
                "runner.progress=false",
                f"paths.results={tmp / 'results'}",
                *overrides,
            ],
        )
    return run_experiment(cfg, tmp / "run")


def _files(run: Path) -> dict[str, bytes]:
    return {
        p.relative_to(run).as_posix(): p.read_bytes() for p in sorted(run.rglob("*")) if p.is_file()
    }


def _without_timing(per_page: pd.DataFrame) -> pd.DataFrame:
    return per_page.drop(columns=[c for c in per_page if TIMING_COLUMN.search(c)])


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    parts = f"experiment.parts=[{','.join(PARTS)}]"
    return [
        _run(tmp_path_factory.mktemp(name), "experiment=all", parts, "runner.n_jobs=1")
        for name in ("first", "second")
    ]


def _report_without_timing(run: Path) -> str:
    # report.md shows the dedup timing table; everything else in it must be stable
    report = (run / "report.md").read_text()
    for table in (run / "tables").glob("*_timing.md"):
        body = [line for line in table.read_text().splitlines() if line.startswith("|")]
        assert "\n".join(body) in report
        report = report.replace("\n".join(body), "")
    return report


def test_two_runs_write_the_same_bytes(two_runs):
    first, second = map(_files, two_runs)
    assert sorted(first) == sorted(second)
    differ = sorted(name for name in first if first[name] != second[name])
    assert all(TIMED_FILES.match(name) for name in differ), differ
    assert _report_without_timing(two_runs[0]) == _report_without_timing(two_runs[1])
    assert "summary.csv" in first and any(n.endswith(".svg") for n in first)
    summary = pd.read_csv(two_runs[0] / "summary.csv")
    assert set(summary["experiment"]) == set(PARTS)


def test_per_page_records_differ_only_in_timing(two_runs):
    a, b = (pd.read_csv(run / "per_page.csv") for run in two_runs)
    assert (a["experiment"] == "extraction").sum() == 20 * 7  # 20 pages x the 7 own methods
    pd.testing.assert_frame_equal(_without_timing(a), _without_timing(b))
    assert "seconds" in a and not a["seconds"].equals(b["seconds"])  # the timing does differ


def test_the_summary_holds_no_time_measurement(two_runs):
    summary = pd.read_csv(two_runs[0] / "summary.csv")
    timed = sorted({m for m in summary["metric"] if TIMING_METRIC.search(m)})
    assert timed == []


def test_the_worker_count_does_not_change_the_results(tmp_path, two_runs):
    two = _run(tmp_path, "experiment=extraction", "runner.n_jobs=2")
    one = pd.read_csv(two_runs[0] / "summary.csv")
    one = one[one["experiment"] == "extraction"]
    expected = one.to_csv(index=False, float_format="%.6g", lineterminator="\n")
    assert (two / "summary.csv").read_text() == expected
