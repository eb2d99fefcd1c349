"""Where evalkit's files are: a checkout or an installed wheel, decided once, from the files.

The repository keeps ``configs/`` and ``baselines/`` beside the ``evalkit`` package; the
wheel maps them inside it (``evalkit.configs``, ``evalkit.baselines``: pyproject.toml), so
that it installs no top-level package but ``evalkit`` (a top-level ``baselines`` would
collide with an unrelated PyPI project of that name). Everything that depends on which of
the two this is asks :func:`layout`:

* **checkout**: the folder above the imported ``evalkit`` package holds ``pyproject.toml``,
  ``configs/`` and ``baselines/``. Configs are read from that ``configs/`` folder, methods
  are imported from the top-level ``baselines`` package of that folder (the folder is put
  first on ``sys.path`` when a method is first imported, in every worker process too),
  and results go to its ``results/``.
* **installed**: anything else. Configs are read through ``pkg://evalkit.configs``,
  methods from ``evalkit.baselines``, and results go to ``./results`` of the folder the
  command was started in (read once, :func:`default_results`).

The decision is made from the imported package's own files, never from the working
directory, so a worktree run with ``PYTHONPATH=$PWD`` uses its own configs and baselines
even where an editable install of another checkout is on the path. ``EVALKIT_ROOT=DIR``
overrides it: evalkit then runs as the checkout ``DIR`` (its configs, baselines and
results), which must have that layout.

Core floor: standard library only, so the lightest process (a page worker) can ask.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "PACKAGE_DIR",
    "SHARED_DATA_ENV",
    "Layout",
    "LayoutError",
    "default_results",
    "default_shared_data",
    "import_module",
    "is_checkout",
    "layout",
    "module_name",
    "start_dir",
]

#: the folder of the imported evalkit package
PACKAGE_DIR = Path(__file__).resolve().parent.parent  # evalkit/core/layout.py -> evalkit/
#: the environment variable naming the folder of the shared data sets (``paths.shared_data``)
SHARED_DATA_ENV = "EVALKIT_SHARED_DATA"
#: the environment variable that makes evalkit run as the checkout it names
ROOT_ENV = "EVALKIT_ROOT"
#: what the wheel maps inside the evalkit package (pyproject.toml's package-dir)
_MAPPED = ("baselines", "configs")


class LayoutError(ValueError):
    """``EVALKIT_ROOT`` names a folder that is not an evalkit checkout (one line)."""


def is_checkout(folder: str | os.PathLike) -> bool:
    """Whether ``folder`` has a checkout's layout: pyproject.toml, configs/ and baselines/."""
    folder = Path(folder)
    return (
        (folder / "pyproject.toml").is_file()
        and (folder / "configs").is_dir()
        and (folder / "baselines").is_dir()
    )


@dataclass(frozen=True)
class Layout:
    """Where this evalkit reads its configs and methods from (see the module docstring)."""

    #: the checkout's folder; None for an installed package
    root: Path | None

    @property
    def installed(self) -> bool:
        return self.root is None

    @property
    def kind(self) -> str:
        """``checkout`` or ``installed`` (what run.json records)."""
        return "installed" if self.installed else "checkout"

    @property
    def config_dir(self) -> Path:
        """The folder of the Hydra configs on disk (in the wheel, inside the package)."""
        return PACKAGE_DIR / "configs" if self.root is None else self.root / "configs"

    @property
    def config_source(self) -> str:
        """The primary Hydra config source: an absolute folder, or ``pkg://evalkit.configs``."""
        return "pkg://evalkit.configs" if self.root is None else str(self.config_dir)

    @property
    def baselines(self) -> str:
        """The import name of the baselines package."""
        return "evalkit.baselines" if self.root is None else "baselines"

    def package_roots(self) -> dict[str, Path]:
        """Top-level import name -> folder of the project's own code (the cache hashes it)."""
        roots = {"evalkit": PACKAGE_DIR}
        if self.root is not None:
            roots["baselines"] = self.root / "baselines"
        return roots


@functools.cache
def layout() -> Layout:
    """This process's layout, decided on first use (LayoutError for a bad EVALKIT_ROOT)."""
    env = os.environ.get(ROOT_ENV)
    if env:
        root = Path(env).expanduser().resolve()
        if not is_checkout(root):
            raise LayoutError(
                f"{ROOT_ENV}={env}: not an evalkit checkout (it needs "
                "pyproject.toml, configs/ and baselines/); unset it to use the "
                "installed package"
            )
        return Layout(root)
    parent = PACKAGE_DIR.parent
    return Layout(parent if is_checkout(parent) else None)


def module_name(module: str) -> str:
    """The import name of a project module as this layout has it: ``baselines.cetd`` is
    ``evalkit.baselines.cetd`` in the wheel; unchanged in a checkout."""
    top, dot, rest = module.partition(".")
    if top in _MAPPED and layout().installed:
        return f"evalkit.{top}{dot}{rest}"
    return module


def _on_path(root: Path) -> None:
    """Make ``baselines`` the checkout's own: when the name finds another folder (none, or an
    editable install of another checkout that maps it), put the checkout first on
    ``sys.path``. A page worker process runs this too, on its first method import."""
    spec = importlib.util.find_spec("baselines")
    origin = spec.origin if spec is not None else None
    if origin and Path(origin).resolve().parent == root / "baselines":
        return
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()


def import_module(module: str):
    """Import a project module named as in a checkout (``baselines.cetd``, ``evalkit.x``)."""
    name = module_name(module)
    root = layout().root
    if root is not None and name.partition(".")[0] == "baselines" and name not in sys.modules:
        _on_path(root)
    return importlib.import_module(name)


@functools.cache
def start_dir() -> Path:
    """The folder the command was started in, read once per process (the only path evalkit
    takes from the working directory)."""
    return Path.cwd()


def default_results() -> Path:
    """Where results go unless ``paths.results`` says otherwise: the checkout's results/,
    else ``results`` in the folder the command was started in (:func:`start_dir`)."""
    root = layout().root
    return (root if root is not None else start_dir()) / "results"


def default_shared_data() -> Path:
    """The folder of the shared data sets unless ``paths.shared_data`` says otherwise:
    ``$EVALKIT_SHARED_DATA``; else ``../shared/datasets`` next to a checkout; else
    ``evalkit/datasets`` in the user's data folder (``$XDG_DATA_HOME``, by default
    ``~/.local/share``)."""
    env = os.environ.get(SHARED_DATA_ENV)
    if env:
        return Path(env).expanduser()
    root = layout().root
    if root is not None:
        return root.parent / "shared" / "datasets"
    data_home = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(data_home) / "evalkit" / "datasets"
