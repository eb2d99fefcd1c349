"""The wheel: built from this checkout, installed in a fresh venv, run from an empty folder.

The venv is made with ``--system-site-packages`` and the wheel installed ``--no-deps`` (the
dependencies are this environment's: fast, and no index is asked at install time), so the
test first proves that the venv runs the wheel's evalkit: its ``evalkit.__file__`` is under
the venv, it decides it is installed, reads its configs through ``pkg://evalkit.configs``
and the wheel holds no top-level package but ``evalkit``. Building needs setuptools>=77
(pyproject.toml); pip fetches it into an isolated build environment (from its cache when
offline). The test is skipped, saying so, only when that backend cannot be had.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: repository folder -> where the wheel puts it (setup.py)
MAPPED = {"evalkit": "evalkit", "baselines": "evalkit/baselines", "configs": "evalkit/configs"}

pytestmark = pytest.mark.slow


def _run(args, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(a) for a in args],
        capture_output=True,
        text=True,
        check=False,
        timeout=kw.pop("timeout", 600),
        **kw,
    )


def _clean_env(venv: Path) -> dict[str, str]:
    """The environment of a user of the venv: nothing points at this checkout."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "EVALKIT_ROOT", "EVALKIT_SHARED_DATA", "PYTHONHASHSEED")
    }
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel, built from a clean copy of the checkout's sources (an in-tree build/ folder
    can carry files a branch has deleted)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("evalkit", "baselines", "configs", "datasets"):
        shutil.copytree(REPO / name, src / name, ignore=skip)
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(REPO / name, src / name)
    out = tmp / "dist"
    proc = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", out, src])
    if proc.returncode != 0:
        log = proc.stdout + proc.stderr
        if "install build dependencies" in log:
            pytest.skip(
                "cannot build the wheel: pip could not install the build backend "
                f"(setuptools>=77; offline with an empty pip cache?): {log[-300:]}"
            )
        pytest.fail(f"building the wheel failed:\n{log[-3000:]}")
    (whl,) = out.glob("evalkit-*.whl")
    return whl


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("venv") / "venv"
    proc = _run([sys.executable, "-m", "venv", "--system-site-packages", root])
    assert proc.returncode == 0, proc.stderr
    if sys.prefix != sys.base_prefix:
        # run from a venv (the README's set-up in one): --system-site-packages gives the base
        # Python's packages, not this venv's (lxml, pandas...). Its site-packages are added as
        # plain paths, after the new venv's own, whose .pth files (this checkout's editable
        # evalkit) are not processed
        paths = dict.fromkeys(sysconfig.get_paths()[k] for k in ("purelib", "platlib"))
        probe = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
        site = _run([root / "bin" / "python", "-c", probe]).stdout.strip()
        (Path(site) / "evalkit_test_parent_env.pth").write_text("\n".join(paths) + "\n")
    # --ignore-installed: this environment's own (editable) evalkit must not satisfy it
    proc = _run(
        [
            root / "bin" / "python",
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            "--ignore-installed",
            wheel,
        ]
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return root


def test_the_wheel_holds_evalkit_alone_with_every_module_and_config(wheel):
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        top_level = zf.read(next(n for n in names if n.endswith(".dist-info/top_level.txt")))
    tops = {n.split("/")[0] for n in names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"evalkit"}
    assert top_level.decode().split() == ["evalkit"]
    missing = []
    for folder, inside in MAPPED.items():
        for file in (REPO / folder).rglob("*"):
            if file.suffix in (".py", ".yaml") and "__pycache__" not in file.parts:
                rel = file.relative_to(REPO / folder).as_posix()
                if f"{inside}/{rel}" not in names:
                    missing.append(f"{folder}/{rel}")
    assert not missing, f"not in the wheel (setup.py): {missing}"
    assert "evalkit/datasets/manifest.json" in names  # python -m evalkit.readers.download


def test_the_venv_runs_the_wheel_not_this_checkout(venv, tmp_path):
    probe = (
        "import evalkit, importlib.util, json; from evalkit.core.layout import layout; "
        "from evalkit.harness.registry import METHODS; "
        "print(json.dumps({'file': evalkit.__file__, 'kind': layout().kind, "
        "'configs': layout().config_source, 'cetd': METHODS.get('cetd').__module__}))"
    )
    proc = _run([venv / "bin" / "python", "-c", probe], cwd=tmp_path, env=_clean_env(venv))
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert Path(got["file"]).resolve().is_relative_to(venv.resolve())
    assert got["kind"] == "installed"
    assert got["configs"] == "pkg://evalkit.configs"
    assert got["cetd"] == "evalkit.baselines.cetd"  # the registry's baselines are the wheel's


def test_help_lists_every_group_and_option_from_an_empty_folder(venv, tmp_path):
    proc = _run([venv / "bin" / "evalkit", "--help"], cwd=tmp_path, env=_clean_env(venv))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stdout + proc.stderr
    for group in sorted(
        p
        for p in (REPO / "configs").iterdir()
        if p.is_dir() and p.name not in ("hydra", "__pycache__")
    ):
        options = sorted(f.stem for f in group.glob("*.yaml"))
        assert f"{group.name}: {', '.join(options)}" in proc.stdout, group.name
    assert not any(tmp_path.iterdir())  # --help writes nothing


def test_a_run_from_an_empty_folder_writes_results_there_and_says_so(venv, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = _run(
        [
            venv / "bin" / "evalkit",
            "experiment=extraction",
            "dataset=synthetic",
            "dataset.synthetic.n_sites=2",
            "method=cetd",
            "runner.n_jobs=1",
            "runner.progress=false",
        ],
        cwd=empty,
        env=_clean_env(venv),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    (run_dir,) = (empty / "results" / "runs" / "extraction").iterdir()
    assert f"evalkit: results in {run_dir}" in proc.stdout
    assert (run_dir / "summary.csv").is_file()
    assert (empty / "results" / "cache").is_dir()
    info = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    assert info["paths"]["layout"] == "installed"
    assert info["paths"]["root"] is None
    assert info["paths"]["started_in"] == str(empty)
    assert info["paths"]["results"] == str(empty / "results")
    assert info["paths"]["results_from"] == "working directory"
    assert info["git"] == {"commit": None, "dirty": None}  # not this checkout's commit
    assert info["python_hash_seed"] == "0"
