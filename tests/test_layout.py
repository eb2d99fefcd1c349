"""evalkit.core.layout: checkout or installed, decided from files, and what follows from it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from evalkit.core import layout as lay
from evalkit.harness.cache_keys import SourceTree

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def fresh(monkeypatch):
    """Decide the layout afresh under the test's environment; restore it afterwards."""
    lay.layout.cache_clear()
    yield monkeypatch
    monkeypatch.undo()
    lay.layout.cache_clear()


def test_this_checkout_is_a_checkout_whatever_the_working_directory(fresh, tmp_path):
    fresh.delenv("EVALKIT_ROOT", raising=False)
    fresh.chdir(tmp_path)
    got = lay.layout()
    assert got.root == REPO and got.kind == "checkout"
    assert got.config_source == str(REPO / "configs")
    assert lay.module_name("baselines.cetd") == "baselines.cetd"
    assert lay.default_results() == REPO / "results"
    assert got.package_roots() == {"evalkit": REPO / "evalkit", "baselines": REPO / "baselines"}


def test_is_checkout_needs_all_three(tmp_path):
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    (tmp_path / "configs").mkdir()
    assert not lay.is_checkout(tmp_path)
    (tmp_path / "baselines").mkdir()
    assert lay.is_checkout(tmp_path)


def test_installed_names_and_folders(fresh):
    """An installed layout (root None): baselines inside evalkit, configs through pkg://."""
    fresh.setattr(lay, "layout", lambda: lay.Layout(None))
    assert lay.module_name("baselines.cetd") == "evalkit.baselines.cetd"
    assert lay.module_name("baselines") == "evalkit.baselines"
    assert lay.module_name("evalkit.proposed.pipeline") == "evalkit.proposed.pipeline"
    assert lay.module_name("baselinesx.y") == "baselinesx.y"  # only the mapped package
    got = lay.Layout(None)
    assert got.config_source == "pkg://evalkit.configs"
    assert got.package_roots() == {"evalkit": lay.PACKAGE_DIR}
    assert lay.default_results() == lay.start_dir() / "results"
    # the cache's source tree finds a baseline under its installed name
    tree = SourceTree(roots={"evalkit": REPO / "evalkit", "baselines": REPO / "baselines"})
    assert tree.path("baselines.cetd") == REPO / "baselines" / "cetd.py"


def test_evalkit_root_must_name_a_checkout(fresh, tmp_path):
    fresh.setenv("EVALKIT_ROOT", str(tmp_path))
    with pytest.raises(lay.LayoutError, match=r"^EVALKIT_ROOT=.*: not an evalkit checkout"):
        lay.layout()
    fresh.setenv("EVALKIT_ROOT", str(REPO))
    lay.layout.cache_clear()
    assert lay.layout().root == REPO


def test_a_bad_evalkit_root_is_one_line_from_the_command(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "evalkit", "--help"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        cwd=tmp_path,
        env={"PYTHONPATH": str(REPO), "EVALKIT_ROOT": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 2
    line = (
        f"evalkit: EVALKIT_ROOT={tmp_path}: not an evalkit checkout (it needs "
        "pyproject.toml, configs/ and baselines/); unset it to use the installed package"
    )
    assert proc.stderr.strip().splitlines() == [line]


def test_shared_data_default_and_its_environment_override(fresh, tmp_path):
    fresh.delenv("EVALKIT_SHARED_DATA", raising=False)
    assert lay.default_shared_data() == REPO.parent / "shared" / "datasets"
    fresh.setenv("EVALKIT_SHARED_DATA", str(tmp_path))
    assert lay.default_shared_data() == tmp_path
    fresh.delenv("EVALKIT_SHARED_DATA")
    fresh.setattr(lay, "layout", lambda: lay.Layout(None))
    fresh.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert lay.default_shared_data() == tmp_path / "xdg" / "evalkit" / "datasets"


def test_the_checkout_goes_first_on_sys_path_when_baselines_is_found_elsewhere(fresh, tmp_path):
    """An editable install of another checkout can answer ``baselines``: the checkout's own
    must win (a worktree run with PYTHONPATH=$PWD, or a worker process)."""
    other = tmp_path / "other"
    (other / "baselines").mkdir(parents=True)
    (other / "baselines" / "__init__.py").write_text("", encoding="utf-8")
    path = [str(other), *[p for p in sys.path if Path(p or ".").resolve() != REPO]]
    fresh.setattr(sys, "path", path)
    fresh.delitem(sys.modules, "baselines", raising=False)  # as in a fresh worker process
    lay._on_path(REPO)
    assert sys.path[0] == str(REPO)
    before = list(sys.path)
    lay._on_path(REPO)  # found where it should be: nothing changes
    assert sys.path == before
