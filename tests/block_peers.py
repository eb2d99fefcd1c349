"""Run Python as if the optional peers were not installed (issue 29 tests).

:func:`install` puts a finder first on ``sys.meta_path`` that refuses the peer
libraries of the ``peers`` extra (pyproject.toml) and their sub-modules: ``import
trafilatura`` raises ModuleNotFoundError and ``importlib.util.find_spec("trafilatura")``
raises it too, as on a machine where the package is absent. Nothing is uninstalled (the
shared environment keeps its packages), and only a process that calls :func:`install` is
affected (importing this module changes nothing), so a test runs the command in a
subprocess that installs it first (:func:`run_evalkit` does)::

    python -c "import block_peers; block_peers.run_evalkit()" study=kabir2015

Package metadata still lists the peers (a real uninstall would remove it too); the tests
that use this check behaviour, not installed versions.
"""

from __future__ import annotations

import importlib.abc
import sys

#: the top-level modules of the peers extra (pyproject.toml [project.optional-dependencies])
PEER_MODULES = (
    "trafilatura",
    "justext",
    "readability",
    "resiliparse",
    "boilerpy3",
    "goose3",
    "html_text",
    "chromerag",
    "inscriptis",
    "newspaper",
)


class BlockPeers(importlib.abc.MetaPathFinder):
    """Refuses the peer modules as a missing package would."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] in PEER_MODULES:
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)


def install() -> None:
    if not any(isinstance(f, BlockPeers) for f in sys.meta_path):
        sys.meta_path.insert(0, BlockPeers())
    for name in list(sys.modules):
        if name.split(".")[0] in PEER_MODULES:
            del sys.modules[name]


def run_evalkit() -> None:
    """The ``evalkit`` command with the arguments after ``-c``'s code (PYTHONHASHSEED must
    be set, so that the command does not re-run itself without this module)."""
    from evalkit.shell.entry import run

    install()
    sys.argv = ["evalkit", *sys.argv[1:]]
    run()
