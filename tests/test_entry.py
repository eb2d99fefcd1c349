"""The command runs under a fixed string-hash seed unless the environment sets one."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from evalkit.shell.entry import HASH_SEED, pin_hash_seed


def test_unset_seed_is_pinned_and_the_command_line_run_again():
    calls = []
    env = {"HOME": "/x"}
    assert pin_hash_seed(env, execv=lambda exe, argv: calls.append((exe, argv))) is True
    assert env["PYTHONHASHSEED"] == HASH_SEED == "0"
    # the same interpreter and the same command line, interpreter options included
    assert calls == [(sys.executable, list(sys.orig_argv))]


@pytest.mark.parametrize("value", ["0", "17", "random"])
def test_a_seed_the_user_set_is_kept(value):
    env = {"PYTHONHASHSEED": value}
    assert pin_hash_seed(env, execv=lambda *a: pytest.fail("must not run again")) is False
    assert env == {"PYTHONHASHSEED": value}


def _run_json(tmp_path, env):
    tmp_path.mkdir()
    cmd = [
        sys.executable,
        "-m",
        "evalkit",
        "experiment=extraction",
        "method=[fulltext]",
        "dataset.synthetic.limit=2",
        "extraction.n_boot=10",
        "runner.progress=false",
        "runner.cache=false",
        f"paths.results={tmp_path}",
    ]
    done = subprocess.run(
        cmd, env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (path,) = tmp_path.glob("runs/extraction/*/run.json")
    return json.loads(path.read_text())


@pytest.mark.slow
def test_the_command_records_the_seed_it_ran_under(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}
    assert _run_json(tmp_path / "unset", env)["python_hash_seed"] == "0"
    assert _run_json(tmp_path / "set", {**env, "PYTHONHASHSEED": "17"})["python_hash_seed"] == "17"
