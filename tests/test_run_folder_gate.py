"""Issue 37, item 12: Hydra writes only inside the run folder, never over an earlier run
(evalkit.harness.rundir.refused_folders, checked before Hydra writes anything)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUN = [
    "experiment=extraction",
    "dataset=synthetic",
    "dataset.synthetic.n_sites=1",
    "dataset.synthetic.pages_per_site=2",
    "method=[fulltext]",
    "runner.progress=false",
    "runner.n_jobs=1",
    "extraction.n_boot=10",
]


def _evalkit(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [
        sys.executable,
        "-m",
        "evalkit",
        *RUN,
        f"paths.results={tmp_path / 'results'}",
        f"paths.cache={tmp_path / 'cache'}",
        *args,
    ]
    return subprocess.run(cmd, check=False, capture_output=True, text=True, cwd=ROOT, timeout=300)


@pytest.mark.parametrize("sub", ["../..", "../escape", "/tmp/ABS"])
def test_hydra_output_subdir_leading_out_of_the_run_is_refused(tmp_path, sub):
    sub = sub.replace("/tmp/ABS", str(tmp_path / "abs"))
    run = tmp_path / "a" / "b" / "run"
    res = _evalkit(tmp_path, f"hydra.run.dir={run}", f"hydra.output_subdir={sub}")
    assert res.returncode == 2, res.stderr[-2000:]
    assert "hydra.output_subdir" in res.stderr and "inside the run folder" in res.stderr
    written = [p for p in tmp_path.rglob("*.yaml")]
    assert written == [], written


def test_reusing_hydra_run_dir_never_overwrites_an_earlier_run(tmp_path):
    run = tmp_path / "run"
    (run / ".hydra").mkdir(parents=True)
    (run / "run.json").write_text('{"earlier": true}')
    (run / ".hydra" / "config.yaml").write_text("earlier: true\n")
    res = _evalkit(tmp_path, f"hydra.run.dir={run}")
    assert res.returncode == 2, res.stderr[-2000:]
    assert f"hydra.run.dir={run}: already holds files" in res.stderr
    assert (run / "run.json").read_text() == '{"earlier": true}'
    assert (run / ".hydra" / "config.yaml").read_text() == "earlier: true\n"
    assert sorted(p.name for p in run.rglob("*")) == [".hydra", "config.yaml", "run.json"]


def test_an_empty_named_run_folder_and_a_plain_output_subdir_still_run(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    res = _evalkit(tmp_path, f"hydra.run.dir={run}", "hydra.output_subdir=meta")
    assert res.returncode == 0, res.stderr[-2000:]
    assert (run / "meta" / "config.yaml").is_file() and (run / "run.json").is_file()


def test_the_api_refuses_a_run_dir_holding_an_earlier_run(tmp_path):
    import evalkit
    from evalkit.harness.config import ConfigError

    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text("earlier")
    with pytest.raises(ConfigError, match="already holds files"):
        evalkit.evaluate(
            dataset="synthetic",
            methods=["fulltext"],
            **{
                "hydra.run.dir": str(run),
                "paths.cache": str(tmp_path / "c"),
                "runner.progress": False,
                "runner.n_jobs": 1,
            },
        )
    assert (run / "run.json").read_text() == "earlier" and sorted(run.iterdir()) == [
        run / "run.json"
    ]
