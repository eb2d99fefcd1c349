"""Results quoted in the docs are generated from results/reference/ (issue 38, finding 5)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from evalkit.harness.docs_results import BLOCK, DocsResultsError, check, main, write

ROOT = Path(__file__).resolve().parents[1]


def test_every_results_block_of_the_docs_equals_the_reference():
    readme = (ROOT / "README.md").read_text()
    saravanan = (ROOT / "experiments" / "saravanan2020" / "README.md").read_text()
    assert len(BLOCK.findall(readme)) >= 4 and len(BLOCK.findall(saravanan)) >= 9
    assert check(ROOT) == []
    assert main(["--check"]) == 0


def _tmp_checkout(tmp_path: Path, text: str) -> Path:
    entry = tmp_path / "results" / "reference" / "all_synthetic"
    entry.mkdir(parents=True)
    shutil.copy(ROOT / "results" / "reference" / "all_synthetic" / "run.json", entry)
    (tmp_path / "README.md").write_text(text)
    return tmp_path


def test_a_number_that_drifted_from_the_reference_is_found_and_rewritten(tmp_path):
    # the README's 20.3 s beside the reference's own wall time for the same command
    root = _tmp_checkout(
        tmp_path,
        "bare evalkit: <!-- evalkit:results "
        "all_synthetic/run.json:wall_seconds -->20.3 s"
        "<!-- /evalkit:results --> wall\n",
    )
    assert check(root) == [
        ("README.md: block all_synthetic/run.json:wall_seconds differs from results/reference/")
    ]
    assert write(root) == [root / "README.md"]
    wall = json.loads((root / "results/reference/all_synthetic/run.json").read_text())
    assert f"-->{wall['wall_seconds']:.1f} s<!--" in (root / "README.md").read_text()
    assert check(root) == []


def test_a_source_outside_the_reference_is_one_line_naming_the_doc(tmp_path):
    root = _tmp_checkout(
        tmp_path, "<!-- evalkit:results ../../../etc/passwd -->x<!-- /evalkit:results -->\n"
    )
    with pytest.raises(
        DocsResultsError,
        match=r"^README.md: no file \.\./\.\./\.\./etc/passwd "
        r"under results/reference/$",
    ):
        check(root)


def _quick_start() -> str:
    text = (ROOT / "README.md").read_text()
    return text[text.index("## Quick start on real data") : text.index("## Scoring the stored")]


def test_the_quick_start_names_each_benchmark_study_its_page_limit_and_extras():
    quick = _quick_start()
    for study, limit in (
        ("wcxb", "dataset.wcxb_dev.limit="),
        ("trafilatura_eval", "dataset.trafilatura_eval.limit="),
        ("wceb", "dataset.wceb_scrapinghub.limit="),
    ):
        assert f"evalkit study={study}" in quick and limit in quick
    assert "dataset.NAME.limit=N" in quick
    assert ".[bench]" in quick and ".[peers]" in quick


def test_the_drift_issue_38_found_is_gone():
    saravanan = (ROOT / "experiments" / "saravanan2020" / "README.md").read_text()
    assert "not implemented" not in saravanan
    for row in (
        "| vwrapper | V-Wrapper |",
        "| coreex | CoreEx |",
        "| econ | ECON |",
        "| tag_based | Tag-based |",
    ):
        assert row in saravanan
    times = {
        re.search(r"\*\*wcxb\*\*: (\d+) s wall", (ROOT / f).read_text()).group(1)
        for f in ("docs/benchmarks.md", "experiments/wcxb/README.md")
    }
    assert times == {"304"}
    readme = (ROOT / "README.md").read_text()
    assert "20.3 s" not in readme and "62 s" not in readme
    stored = (ROOT / "docs" / "methods" / "stored.md").read_text()
    assert "does not have yet" not in stored and "`wceb` reader gives the same ids" in stored
