"""docs/api.md is the public surface: every name it lists imports, and every command runs."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TEXT = (REPO / "docs" / "api.md").read_text(encoding="utf-8")


def _rows(section: str) -> list[list[str]]:
    body = TEXT.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    return [
        [c.strip() for c in line.strip("|").split("|")]
        for line in body.splitlines()
        if line.startswith("| `")
    ]


def test_the_api_names_import():
    import evalkit

    names = [row[0].strip("`") for row in _rows("The Python API")]
    assert names == ["evalkit.evaluate", "evalkit.Result", "evalkit.__version__"]
    for name in names:
        assert getattr(evalkit, name.split(".", 1)[1]) is not None


@pytest.mark.parametrize("row", _rows("Root aliases"), ids=lambda r: r[0])
def test_every_alias_re_exports_its_core_module(row):
    alias, target = row[0].strip("`"), re.search(r"`([\w.]+)`", row[1]).group(1)
    mod, core = importlib.import_module(alias), importlib.import_module(target)
    names = re.findall(r"`(\w+)`", row[2])
    assert names
    for name in names:
        assert getattr(mod, name) is getattr(core, name), f"{alias}.{name}"


@pytest.mark.parametrize("command", [r[0].strip("`") for r in _rows("Commands")])
def test_every_command_answers_help(command):
    argv = command.split(" (")[0].split()
    if argv[0] == "evalkit":
        argv = [sys.executable, "-m", "evalkit", "--help"]
    else:
        argv = [sys.executable] + argv[1:] + ["--help"]
    res = subprocess.run(argv, cwd=REPO, check=False, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-500:]
