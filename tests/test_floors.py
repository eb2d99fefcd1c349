"""The floors of docs/floors.md are folders: import-linter's contracts hold and can fail, every
module sits in a floor's folder, the import graph (function-local imports included) has no circle
and no upward edge, and importing ``evalkit`` loads nothing above core."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
    "importlinter"
]
CONTRACTS = {c["id"]: c for c in CONFIG["contracts"]}


def _names(layer: str) -> list[str]:
    """The packages of one layer string (``a : b`` or ``a | b``)."""
    return [name.strip() for name in re.split(r"[:|]", layer) if name.strip()]


#: floor index (0 = shells, the top) -> its packages, from the "floors" contract
FLOORS = [_names(layer) for layer in CONTRACTS["floors"]["layers"]]
CORE = FLOORS[-1]


def _modules(package: str) -> dict[str, Path]:
    """Every module of a package folder under the repository: dotted name -> file."""
    out = {}
    for path in sorted((REPO / package).rglob("*.py")):
        parts = path.relative_to(REPO).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


MODULES = {**_modules("evalkit"), **_modules("baselines")}


def _floor(module: str) -> int | None:
    for i, floor in enumerate(FLOORS):
        if any(module == n or module.startswith(n + ".") for n in floor):
            return i
    return None


def _imports(module: str, path: Path) -> set[str]:
    """The evalkit and baselines modules ``module`` imports anywhere in its file (functions
    included), resolved to modules of the repository."""
    out = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(n)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and ast.unparse(block.test).endswith("TYPE_CHECKING")
        for b in block.body
        for n in ast.walk(b)
    }  # annotations only: never imported at run time
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1]
                    + ([base] if base else [])
                )
            names = [f"{base}.{a.name}" for a in node.names] + [base]
        else:
            continue
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name and name != module and name.split(".")[0] in ("evalkit", "baselines"):
                out.add(name)
    return out


GRAPH = {m: _imports(m, p) for m, p in MODULES.items()}


def _lint(root: Path) -> subprocess.CompletedProcess:
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    assert Path(exe).exists(), "lint-imports not found: install the dev extra (.[dev])"
    env = {**os.environ, "PYTHONPATH": str(root)}  # this tree's packages, not an installed copy
    return subprocess.run(
        [exe, "--config", "pyproject.toml", "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_lint_imports_keeps_every_contract():
    res = _lint(REPO)
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"Contracts: {len(CONTRACTS)} kept, 0 broken." in res.stdout


def test_contracts_name_folders_not_modules():
    """Every name in the floors contract is a package folder, or a root alias of docs/api.md."""
    aliases = set(_root_aliases())
    for floor in FLOORS:
        for name in floor:
            path = REPO / Path(*name.split("."))
            assert (
                (path / "__init__.py").is_file() or name in aliases or name == "evalkit.__main__"
            ), f"{name} in the floors contract is neither a folder nor a public alias"


def test_an_import_from_core_up_to_a_baseline_breaks_the_floors(tmp_path):
    """The Done-when experiment of issue 15: metrics importing a baseline fails the lint, and one
    baseline importing another fails the independence contract."""
    for part in ("evalkit", "baselines"):
        shutil.copytree(REPO / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    metrics = tmp_path / "evalkit" / "metrics" / "__init__.py"
    metrics.write_text(
        metrics.read_text(encoding="utf-8") + "\nfrom baselines import cetd\n", encoding="utf-8"
    )
    pab = tmp_path / "baselines" / "pab.py"
    pab.write_text(
        pab.read_text(encoding="utf-8") + "\nimport baselines.jaccard\n", encoding="utf-8"
    )
    res = _lint(tmp_path)
    assert res.returncode == 1, res.stdout + res.stderr
    out = " ".join(res.stdout.split())  # rich wraps long lines
    assert (
        "Floors point down: shells > experiments > harness > readers and methods > core BROKEN"
        in out
    )
    assert "- evalkit.metrics -> baselines.cetd" in out
    assert "No baseline imports another (shared code lives in core) BROKEN" in out


def _root_aliases() -> list[str]:
    """The root modules docs/api.md lists as public aliases (``evalkit.X`` in its alias table)."""
    text = (REPO / "docs" / "api.md").read_text(encoding="utf-8")
    return re.findall(r"^\| `(evalkit\.\w+)` \| alias of", text, flags=re.MULTILINE)


def test_every_module_sits_in_a_floor_folder():
    for module in MODULES:
        if module in ("evalkit", "baselines"):  # the packages themselves: see the last test
            continue
        assert _floor(module) is not None, (
            f"{module} is in no floor's folder: move it into one (docs/floors.md)"
        )


def test_root_holds_only_the_package_and_its_public_aliases():
    root = {
        m
        for m in MODULES
        if m.count(".") == 1
        and MODULES[m].parent == REPO / "evalkit"
        and MODULES[m].name != "__init__.py"
    }
    assert root == set(_root_aliases()) | {"evalkit.__main__"}


def test_no_module_imports_up_a_floor_even_inside_a_function():
    for module, targets in GRAPH.items():
        if module in ("evalkit", "baselines"):
            continue
        for target in targets:
            if target in ("evalkit", "baselines"):
                continue
            assert _floor(target) >= _floor(module), f"{module} imports {target}, a floor up"


def test_the_import_graph_has_no_circle():
    """Tarjan's strongly connected components over the AST graph: every one is a single module."""
    index, low, on, stack, comps, counter = {}, {}, set(), [], [], [0]
    sys.setrecursionlimit(10_000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in GRAPH.get(v, ()):
            if w in ("evalkit", "baselines"):
                continue  # the packages' __init__ import nothing of theirs
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(comp)

    for v in GRAPH:
        if v not in index:
            visit(v)
    circles = sorted(sorted(c) for c in comps if len(c) > 1)
    assert not circles, f"import circles: {circles}"


def test_every_reader_is_in_its_independence_contract():
    assert CONTRACTS["baselines-independent"]["modules"] == ["baselines.*"]
    assert CONTRACTS["readers"]["modules"] == ["evalkit.readers.*"]


def test_light_core_covers_the_floors_below_the_harness():
    """The Hydra-free contract names the same packages as the floors below the harness."""
    below = [n for floor in FLOORS[FLOORS.index(["evalkit.harness"]) + 1 :] for n in floor]
    assert sorted(CONTRACTS["light-core"]["source_modules"]) == sorted(below)


def test_importing_evalkit_loads_nothing_above_core():
    code = (
        "import json, sys, evalkit; "
        "print(json.dumps(sorted(m for m in sys.modules "
        "if m.split('.')[0] in ('evalkit', 'baselines', 'hydra', 'omegaconf'))))"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    res = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    loaded = set(json.loads(res.stdout))
    assert "evalkit" in loaded  # the probe saw the package it imported
    above = {m for m in loaded if m != "evalkit" and _floor(m) < len(FLOORS) - 1}
    assert not above, f"import evalkit loads {sorted(above)}"
    for name in ("evalkit.experiments", "evalkit.harness.runner", "baselines", "hydra"):
        assert name not in loaded
