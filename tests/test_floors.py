"""The floors of docs/floors.md: import-linter's contracts hold, they can fail, every module is
placed in a floor, and importing ``evalkit`` loads nothing above core."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
CONTRACTS = {c["id"]: c for c in CONFIG["contracts"]}


def _names(layer: str) -> list[str]:
    """The modules of one layer string (``a : b`` or ``a | b``; ``(a)`` marks an optional one)."""
    sep = "|" if "|" in layer else ":"
    return [name.strip().strip("()") for name in layer.split(sep)]


#: floor index (0 = shells, the top) -> its modules, from the "floors" contract
FLOORS = [_names(layer) for layer in CONTRACTS["floors"]["layers"]]
CORE = FLOORS[-1]


def _modules(package: str) -> list[str]:
    """Every module of a package folder under the repository, as a dotted name."""
    out = []
    for path in sorted((REPO / package).rglob("*.py")):
        parts = path.relative_to(REPO).with_suffix("").parts
        out.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return out


def _lint(root: Path) -> subprocess.CompletedProcess:
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    assert Path(exe).exists(), "lint-imports not found: install the dev extra (.[dev])"
    env = {**os.environ, "PYTHONPATH": str(root)}  # this tree's packages, not an installed copy
    return subprocess.run([exe, "--config", "pyproject.toml", "--no-cache"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def test_lint_imports_keeps_every_contract():
    res = _lint(REPO)
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"Contracts: {len(CONTRACTS)} kept, 0 broken." in res.stdout


def test_an_import_from_core_up_to_a_baseline_breaks_the_floors(tmp_path):
    """The Done-when experiment of issue 15: metrics.py importing a baseline fails the lint."""
    for part in ("evalkit", "baselines"):
        shutil.copytree(REPO / part, tmp_path / part,
                        ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    metrics = tmp_path / "evalkit" / "metrics" / "__init__.py"
    metrics.write_text(metrics.read_text(encoding="utf-8") + "\nfrom baselines import cetd\n",
                       encoding="utf-8")
    res = _lint(tmp_path)
    assert res.returncode == 1, res.stdout + res.stderr
    out = " ".join(res.stdout.split())  # rich wraps long lines
    assert "Floors point down: shells > experiments > harness > readers and methods > core BROKEN" \
        in out
    assert "- evalkit.metrics -> baselines.cetd" in out


def test_every_module_sits_on_one_floor():
    placed = [name for floor in FLOORS for name in floor]
    assert len(placed) == len(set(placed)), "a module is on two floors"
    for module in _modules("evalkit") + _modules("baselines"):
        if module in ("evalkit", "baselines"):  # the packages themselves: see the next test
            continue
        homes = [n for n in placed if module == n or module.startswith(n + ".")]
        assert homes, f"{module} is on no floor: add it to [tool.importlinter] in pyproject.toml"


def test_light_core_covers_the_two_lowest_floors():
    """The Hydra-free contract names the same modules as the two lowest floors."""
    assert sorted(CONTRACTS["light-core"]["source_modules"]) == sorted(FLOORS[-1] + FLOORS[-2])


def test_every_baseline_and_reader_is_in_its_independence_contract():
    """A new baseline (or reader) left out of its contract could import a sibling unseen."""
    listed = set(CONTRACTS["baselines-independent"]["modules"])
    assert listed == {m for m in _modules("baselines") if m != "baselines"}
    readers = [n for layer in CONTRACTS["readers"]["layers"] for n in _names(layer)]
    for module in _modules("evalkit/data"):
        if module != "evalkit.data":
            assert any(module == n or module.startswith(n + ".") for n in readers), module


def test_importing_evalkit_loads_nothing_above_core():
    code = ("import json, sys, evalkit; "
            "print(json.dumps(sorted(m for m in sys.modules "
            "if m.split('.')[0] in ('evalkit', 'baselines', 'hydra', 'omegaconf'))))")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    res = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True,
                         text=True, timeout=120, check=True)
    loaded = set(json.loads(res.stdout))
    assert "evalkit" in loaded  # the probe saw the package it imported
    above = {m for m in loaded if m != "evalkit" and m not in CORE}
    assert not above, f"import evalkit loads {sorted(above)}"
    for name in ("evalkit.experiments", "evalkit.runner", "baselines", "hydra"):
        assert name not in loaded

