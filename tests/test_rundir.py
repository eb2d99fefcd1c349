"""No lost run: every run (and every sweep) gets a folder of its own, even in the same second.

Run folders were ``<time>`` to the second, so two runs started together wrote into one
folder and one run's results were lost. Now they are ``<time>_<suffix>`` (evalkit.harness.rundir),
made by an exclusive mkdir that never reuses a name that exists.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from evalkit.harness import rundir
from evalkit.harness.config import register_resolvers
from evalkit.shell.cli import CONFIG_DIR


def test_a_name_that_exists_is_never_reused(tmp_path, monkeypatch):
    stem = str(tmp_path / "runs" / "extraction" / "2026-11-25_12-00-00")
    taken = Path(f"{stem}_aaaaaa")
    taken.mkdir(parents=True)
    (taken / "summary.csv").write_text("another run's results\n")
    draws = iter(["aaaaaa", "aaaaaa", "bbbbbb"])
    monkeypatch.setattr(rundir.secrets, "token_hex", lambda n: next(draws))

    got = rundir.reserve(stem)

    assert got == f"{stem}_bbbbbb"
    assert Path(got).is_dir() and not any(Path(got).iterdir())
    assert (taken / "summary.csv").read_text() == "another run's results\n"


def test_two_reservations_of_one_stem_are_two_folders(tmp_path):
    stem = str(tmp_path / "2026-11-25_12-00-00")
    a, b = rundir.reserve(stem), rundir.reserve(stem)
    assert a != b and Path(a).is_dir() and Path(b).is_dir()
    assert len(Path(a).name) == len("2026-11-25_12-00-00_") + rundir.SUFFIX_HEX


@pytest.mark.parametrize(
    ("argv", "want"),
    [
        (["--cfg", "job"], True),
        (["-c", "all", "--resolve"], True),
        (["--cfg=hydra"], True),
        (["experiment=extraction", "method=cetd"], False),
        (["-m", "method=cetd,pab"], False),
    ],
)
def test_commands_that_only_print_make_no_folder(argv, want):
    assert rundir.prints_only(argv) is want


def test_the_config_reserves_one_run_folder_and_one_sweep_folder(tmp_path):
    register_resolvers()
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(
            config_name="config",
            return_hydra_config=True,
            overrides=["experiment=extraction", f"paths.results={tmp_path}"],
        )
    run, sweep = Path(str(cfg.hydra.run.dir)), Path(str(cfg.hydra.sweep.dir))
    assert run.parent == tmp_path / "runs" / "extraction" and run.is_dir()
    assert sweep.parent == tmp_path / "sweeps" / "extraction" and sweep.is_dir()
    # read again (Hydra does, and copies the cache to a sweep's jobs): the same folder
    assert Path(str(cfg.hydra.run.dir)) == run
    assert Path(OmegaConf.select(cfg, "hydra.sweep.dir")) == sweep
    assert len(list((tmp_path / "runs" / "extraction").iterdir())) == 1


def _command(results: Path, *args: str, multirun: bool = False) -> list[str]:
    return [
        sys.executable,
        "-m",
        "evalkit",
        *(["-m"] if multirun else []),
        "experiment=extraction",
        "dataset=synthetic",
        "dataset.synthetic.n_sites=2",
        "runner.progress=false",
        "runner.cache=false",
        "runner.n_jobs=1",
        f"paths.results={results}",
        *args,
    ]


def _together(*commands: list[str]) -> list[str]:
    """Start the commands at the same moment; their stdout, each checked to have succeeded."""
    procs = [
        subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for c in commands
    ]
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-2000:]
        outs.append(out)
    return outs


def _folders(out: str) -> list[Path]:
    prefix = "evalkit: results in "
    return [Path(line[len(prefix) :]) for line in out.splitlines() if line.startswith(prefix)]


def _methods(run: Path) -> set[str]:
    return set(pd.read_csv(run / "summary.csv")["method"])


def test_two_runs_started_together_keep_both_results(tmp_path):
    out_a, out_b = _together(_command(tmp_path, "method=cetd"), _command(tmp_path, "method=pab"))
    (a,), (b,) = _folders(out_a), _folders(out_b)
    assert a != b
    assert sorted(p.parent for p in tmp_path.rglob("summary.csv")) == sorted([a, b])
    assert _methods(a) == {"cetd"} and _methods(b) == {"pab"}


def test_two_sweeps_started_together_keep_every_job(tmp_path):
    out_a, out_b = _together(
        _command(tmp_path, "method=cetd,pab", multirun=True),
        _command(tmp_path, "method=fulltext,cetd", multirun=True),
    )
    jobs_a, jobs_b = _folders(out_a), _folders(out_b)
    sweep_a, sweep_b = {j.parent for j in jobs_a}, {j.parent for j in jobs_b}
    # each sweep's jobs share one folder (0, 1), and the two sweeps have two folders
    assert len(sweep_a) == len(sweep_b) == 1 and sweep_a != sweep_b
    assert [j.name for j in jobs_a] == [j.name for j in jobs_b] == ["0", "1"]
    assert [_methods(j) for j in jobs_a] == [{"cetd"}, {"pab"}]
    assert [_methods(j) for j in jobs_b] == [{"fulltext"}, {"cetd"}]
    assert len(list(tmp_path.rglob("summary.csv"))) == 4
    assert not (tmp_path / "runs").exists()  # a sweep makes no run folder
