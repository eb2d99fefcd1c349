"""The speed experiment's start-up measurement (issue 29, item 8): the milestones of a launched
command, their medians and the target; no timed assertion (a hang bound only)."""

from __future__ import annotations

import math
import sys

import pandas as pd
import pytest

from evalkit.experiments.speed.startup import (
    MILESTONES,
    STARTUP_TARGET_S,
    launch,
    startup_benchmark,
    startup_rows,
)


def test_launch_notes_each_milestone_in_order(tmp_path):
    run = tmp_path / "run"
    # a stand-in command: makes the folder, later the records file, then ends
    script = (
        f"import pathlib, time; r = pathlib.Path({str(run)!r}); time.sleep(0.1); "
        "r.mkdir(); time.sleep(0.1); (r / '.records-x').touch(); time.sleep(0.1)"
    )
    got = launch([sys.executable, "-c", script], run)
    assert got["returncode"] == 0
    assert 0 < got["folder"] < got["first_page"] < got["exit"]
    never = launch([sys.executable, "-c", "pass"], tmp_path / "none")
    assert math.isnan(never["folder"]) and math.isnan(never["first_page"])


def test_rows_are_medians_with_the_target():
    bench = pd.DataFrame(
        {
            "folder": [1.0, 3.0, 1.5],
            "first_page": [1.2, 3.5, 2.0],
            "exit": [5.0, 9.0, 6.0],
            "returncode": [0.0, 0.0, 1.0],
        }
    )
    rows = {r["metric"]: r["value"] for r in startup_rows(bench, "evalkit x")}
    # medians: folder 1.5, first page 2.0 (< 3: met), exit 6.0; one launch failed
    assert rows == {
        "startup_folder_s": 1.5,
        "startup_first_page_s": 2.0,
        "startup_exit_s": 6.0,
        "target_s": STARTUP_TARGET_S,
        "meets_target": 1.0,
        "failed_launches": 1.0,
    }
    assert set(MILESTONES) == {"folder", "first_page", "exit"}


@pytest.mark.slow
def test_the_real_command_reaches_its_first_page_after_its_folder():
    bench = startup_benchmark("synthetic", "fulltext", repeat=1)
    (row,) = bench.to_dict("records")
    assert row["returncode"] == 0
    assert 0 < row["folder"] <= row["first_page"] < row["exit"]
