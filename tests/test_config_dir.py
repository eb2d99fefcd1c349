"""Your own configs: a data set and a method defined only in a folder of the user's.

``--config-dir DIR`` and ``hydra.searchpath=[file://DIR]`` add DIR's options to every name
evalkit checks (evalkit.shell.overrides, evalkit.harness.config), as they do to the run.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit.harness.config import register_resolvers
from evalkit.harness.registry import DATASETS
from evalkit.shell import cli

REPO = Path(__file__).resolve().parents[1]
register_resolvers(make_folders=False)  # as the command does before its checks

# two pages; the gold of the first is its first paragraph, of the second all of it
PAGES = {
    "p1": (
        "<html><body><p>alpha beta gamma delta epsilon</p><p>zeta eta theta iota</p></body>",
        "alpha beta gamma delta epsilon",
    ),
    "p2": (
        "<html><body><p>one two three four five six</p></body></html>",
        "one two three four five six",
    ),
}


def _user_folder(tmp_path: Path) -> Path:
    """A folder of pages and gold, and a config folder naming it (dataset ``mine``, read by
    the ``pairs`` reader) and a method ``mine_full`` (the ``fulltext`` class)."""
    data = tmp_path / "pages"
    (data / "html").mkdir(parents=True)
    (data / "gold").mkdir()
    for stem, (html, gold) in PAGES.items():
        (data / "html" / f"{stem}.html").write_text(html, encoding="utf-8")
        (data / "gold" / f"{stem}.txt").write_text(gold, encoding="utf-8")
    conf = tmp_path / "conf"
    (conf / "dataset").mkdir(parents=True)
    (conf / "method").mkdir()
    (conf / "dataset" / "mine.yaml").write_text(
        f"mine:\n  _name_: pairs\n  path: {data}\n  limit: null\n", encoding="utf-8"
    )
    (conf / "method" / "mine_full.yaml").write_text(
        "mine_full:\n  _name_: fulltext\n", encoding="utf-8"
    )
    return conf


def _summary(run_dir: Path) -> dict[str, dict[str, str]]:
    with open(run_dir / "summary.csv", newline="", encoding="utf-8") as fh:
        return {
            row["metric"]: row
            for row in csv.DictReader(fh)
            if row["dataset"] == "mine" and row["method"] == "mine_full"
        }


@pytest.mark.parametrize("form", ["--config-dir", "hydra.searchpath"])
def test_a_data_set_and_method_defined_only_in_a_user_folder_run(tmp_path, form):
    conf = _user_folder(tmp_path)
    where = (
        ["--config-dir", str(conf)]
        if form == "--config-dir"
        else [f"hydra.searchpath=[file://{conf}]"]
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalkit",
            *where,
            "experiment=extraction",
            "dataset=mine",
            "method=mine_full",
            "runner.n_jobs=1",
            "runner.progress=false",
            f"paths.results={tmp_path / 'results'}",
        ],
        check=False,
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    (run_dir,) = (tmp_path / "results" / "runs" / "extraction").iterdir()
    rows = _summary(run_dir)
    # fulltext keeps every word. p1: 9 tokens give 6 four-word shingles, the 2 of the gold
    # among them: P = 1/3, R = 1. p2: P = R = 1. Means: P = 2/3, R = 1; F1 = 0.8.
    assert float(rows["shingle_precision"]["value"]) == pytest.approx(2 / 3)
    assert float(rows["shingle_recall"]["value"]) == pytest.approx(1.0)
    assert float(rows["shingle_f1"]["value"]) == pytest.approx(0.8)
    assert rows["shingle_f1"]["n_pages"] == "2"


def test_names_from_the_user_folder_pass_every_check_and_a_typo_names_them(tmp_path):
    conf = _user_folder(tmp_path)
    for where in (["--config-dir", str(conf)], [f"hydra.searchpath=[file://{conf}]"]):
        assert cli.check_overrides([*where, "dataset=mine", "method=mine_full"]) is None
        # the objects are built (a misspelt key of the user's data set is found)
        msg = cli.check_overrides([*where, "dataset=mine", "+dataset.mine.limt=1"])
        assert msg.startswith(
            "evalkit: dataset 'mine': dataset 'pairs' has no parameter limt; closest: limit;"
        ), msg
        msg = cli.check_overrides([*where, "dataset=mien"])
        assert msg.startswith("evalkit: unknown dataset mien; closest: mine;"), msg
        assert cli.upgrade_overrides([*where, "dataset=mine", "method.mine_full.x=1"]) == (
            [*where, "dataset=mine", "method.mine_full.x=1"],
            [],
        )
    # without the folder the name is unknown, as before
    assert cli.check_overrides(["dataset=mine"]).startswith("evalkit: unknown dataset mine;")


def test_a_user_data_set_without_a_reader_and_a_missing_folder_are_one_line(tmp_path):
    conf = _user_folder(tmp_path)
    (conf / "dataset" / "bare.yaml").write_text(f"bare:\n  path: {tmp_path}\n", encoding="utf-8")
    assert cli.check_overrides(["--config-dir", str(conf), "dataset=bare"]) == (
        "evalkit: dataset.bare names no reader: set dataset.bare._name_ to one of "
        + ", ".join(DATASETS.names())
    )
    missing = tmp_path / "nope"
    assert cli.check_overrides(["--config-dir", str(missing), "dataset=mine"]) == (
        f"evalkit: --config-dir {missing}: no such folder"
    )
