"""Pyflakes' error rules over the code (ruff, from the ``dev`` extra): a name used but never
defined or imported is a crash waiting on the path that reaches it. A merge once left
``atomic_write_text`` unimported in the interrupt handler, so every Ctrl-C lost its run.json;
only that path's test could see it, and that test was marked flaky."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: undefined names (F821-F823), redefinitions (F811), unused imports (F401), syntax errors (E9)
RULES = "F821,F822,F823,F811,F401,E9"


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed (the dev extra)")
def test_no_undefined_or_unused_names():
    done = subprocess.run(
        [
            "ruff",
            "check",
            "--no-cache",
            "--select",
            RULES,
            "--output-format",
            "concise",
            "evalkit",
            "baselines",
            "tests",
        ],
        cwd=ROOT,
        check=False,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-1000:]
