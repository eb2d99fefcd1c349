"""A mistyped key or option stops the command with one line naming it and its neighbours."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit.harness.config import register_resolvers
from evalkit.shell import cli
from evalkit.shell.overrides import closest

register_resolvers()
REPO = Path(__file__).resolve().parents[1]


def _refusal(argv: list[str], monkeypatch, capsys) -> str:
    """Run ``evalkit argv`` through main(); the one stderr line of its exit status 2."""
    monkeypatch.setattr(sys, "argv", ["evalkit", *argv])
    monkeypatch.setattr(cli, "_app", lambda: pytest.fail("the app ran despite a bad override"))
    with pytest.raises(SystemExit) as stop:
        cli.main()
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.endswith("\n") and err.count("\n") == 1, err  # one line
    return err.strip()


@pytest.mark.parametrize(
    "argv, says",
    [
        (["runner.n_job=2"], "evalkit: unknown key runner.n_job; closest: runner.n_jobs"),
        (
            ["extraction.n_bot=10"],
            "evalkit: unknown key extraction.n_bot; closest: extraction.n_boot",
        ),
        (["sed=1"], "evalkit: unknown key sed; closest: seed"),
        (["datset=aeb"], "evalkit: unknown key datset; closest: dataset"),
        (["~sed"], "evalkit: unknown key sed; closest: seed"),
        (
            ["method.proposed.kk=3"],  # no close name at its level: the keys one group down
            "evalkit: unknown key method.proposed.kk; closest: method.proposed.dedup.k",
        ),
        (
            ["method.proposed.dedup.kk=3"],
            "evalkit: unknown key method.proposed.dedup.kk; closest: method.proposed.dedup.k",
        ),
        (
            ["method.proposed.primary.rule_ad_markr=false"],
            (
                "evalkit: unknown key "
                "method.proposed.primary.rule_ad_markr; closest: method.proposed.primary.rule_ad_marker"
            ),
        ),
        (
            ["hydra.job.chdirr=true"],
            "evalkit: unknown key hydra.job.chdirr; closest: hydra.job.chdir",
        ),
        (
            ["-m", "seed=1,2", "runner.n_jbs=1,2"],
            "evalkit: unknown key runner.n_jbs; closest: runner.n_jobs",
        ),
        (
            ["-m", "method.proposed.dedup.k=range(1,3)", "method.proposed.dedup.kk=1"],
            "evalkit: unknown key method.proposed.dedup.kk; closest: method.proposed.dedup.k",
        ),
        (
            ["dataset=aebb"],
            (
                "evalkit: unknown dataset aebb; closest: aeb; valid choices: aeb, "
                "big5_2017, chaos, cleaneval_dev, cleanportaleval, l3s_gn1, readability, "
                "synthetic"
            ),
        ),
        (
            ["method=[proposed,cetdd]"],
            "evalkit: unknown method cetdd; closest: cetd, cetd_ds, cectd_s; ",
        ),
        (["-m", "method=[proposed],[pabb]"], "evalkit: unknown method pabb; closest: pab; "),
        (["-m", "dataset=aeb,chaoss"], "evalkit: unknown dataset chaoss; closest: chaos; "),
        (["hydra/launcher=jobli"], "evalkit: unknown hydra/launcher jobli; closest: joblib; "),
        (
            ["+method.proposed.kk=3"],
            (
                "evalkit: method 'proposed' has no parameter kk; "
                "valid: blocks, primary, dedup, scoring"
            ),
        ),
        (
            ["+method.proposed.dedup.kk=3"],
            (
                "evalkit: method 'proposed' has no parameter dedup.kk; "
                "closest: dedup.k; valid: dedup.enabled, "
            ),
        ),
        (
            ["method=proposed_primary", "+method.proposed@primary.dedupp=true"],
            (
                "evalkit: cannot set +method.proposed@primary.dedupp: Hydra reads the '@' in a key as "
                "a package of a config group, and there is no group method.proposed"
            ),
        ),
        (["+seed=2"], "evalkit: +seed adds a key that exists already; set it with seed=..."),
        (["seed.x=1"], "evalkit: unknown key seed.x: seed is a value, not a section"),
    ],
)
def test_a_bad_override_is_one_line_naming_the_closest_names(argv, says, monkeypatch, capsys):
    assert _refusal(argv, monkeypatch, capsys).startswith(says)


def test_a_set_that_is_not_selected_is_named_as_such(monkeypatch, capsys):
    line = _refusal(["dataset.aeb.limit=5"], monkeypatch, capsys)
    assert line == (
        "evalkit: unknown key dataset.aeb.limit (dataset has no 'aeb'); "
        "valid: synthetic; aeb is not selected (dataset=aeb or "
        "'dataset=[...,aeb]' selects it)"
    )


def test_without_a_close_name_every_valid_one_is_listed(monkeypatch, capsys):
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(cli.CONFIG_DIR), version_base="1.3"):
        keys = sorted(compose(config_name="config").runner)
    assert "n_jobs" in keys and "cache" in keys
    line = _refusal(["runner.zzz=1"], monkeypatch, capsys)
    assert line == f"evalkit: unknown key runner.zzz; valid: {', '.join(keys)}"


@pytest.mark.parametrize(
    "argv",
    [
        ["seed=3", "dataset=aeb"],
        ["+foo=1", "++seed=4", "++other.key=2", "~study"],
        ["dataset=[aeb,chaos]", "dataset.chaos.limit=3"],
        [
            'method.proposed.primary.legal_phrases=["a, b",c]',
            "method.proposed.blocks.tags=[div,td]",
        ],
        ["-m", "seed=1,2", "method.proposed.dedup.k=range(1,3)"],
        ["-m", "method=[proposed,cetd],[pab]", "study=kaur2015,saravanan2020"],
        ["-m", "dataset=glob(c*)"],
        ["-m", "sweep=proposed_k", "hydra/launcher=joblib", "hydra.launcher.n_jobs=1"],
        ["-m", "hydra/sweeper=optuna", "method.proposed.dedup.k=interval(1,3)"],
        ["--cfg", "job", "hydra.run.dir=/tmp/x", "hydra.job.chdir=true"],
        ["study=saravanan2020", "method.proposed.dedup.k=4"],
        ["method=proposed_primary"],
    ],
)
def test_good_overrides_pass(argv, shared_root):
    msg = cli.check_overrides(argv)
    if msg and "no such folder" in msg and not shared_root.is_dir():
        pytest.skip(f"the shared data sets are not at {shared_root}: {msg}")
    assert msg is None


def test_closest_uses_difflib_ratio():
    assert closest("n_job", ["n_jobs", "name", "cache"]) == ["n_jobs"]
    assert closest("kay", ["k", "bits"]) == []  # 2*1/4 = 0.5 is below the 0.6 cutoff


def test_the_command_refuses_before_making_a_run_folder(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-m", "evalkit", "runner.n_job=2", f"paths.results={tmp_path}"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr == "evalkit: unknown key runner.n_job; closest: runner.n_jobs\n"
    assert list(tmp_path.iterdir()) == []
