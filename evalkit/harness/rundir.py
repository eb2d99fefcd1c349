"""Run folders that no other run can share: ``<time>_<suffix>``, made exclusively.

A run folder is ``results/runs/<experiment>/<time>_<suffix>/`` (a sweep's is
``results/sweeps/<experiment>/<time>_<suffix>/<job>/``; configs/hydra/default.yaml).
The time alone has one-second steps, so two runs started in the same second
(two shells, a batch script, a cluster array job) used to get one folder, and
one run's outputs overwrote the other's. The suffix is six hex digits from
the operating system's random source, and the folder is *reserved* by an
exclusive ``mkdir``: if the name exists (another run made it first, whatever
the odds), a fresh suffix is drawn. So a run never writes into a folder it
did not make.

The suffix is deliberately not drawn from the run's ``seed``: two runs of the
same config must get different folders, and the folder name is not a result
(no number, table or cache key depends on it), so it needs no reproducibility.
"""

from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path

__all__ = ["SUFFIX_HEX", "discard", "prints_only", "propose", "reserve"]

#: hex digits of the random suffix (24 bits: names stay short; the exclusive mkdir,
#: not the odds, is what keeps them unique)
SUFFIX_HEX = 6
_ATTEMPTS = 100


def propose(stem: str) -> str:
    """``<stem>_<suffix>`` with a fresh random suffix, without making anything (for
    commands that only print the config, ``--cfg all --resolve``)."""
    return f"{stem}_{secrets.token_hex(SUFFIX_HEX // 2)}"


def prints_only(argv: list[str]) -> bool:
    """True for a command line that only prints the config (``--cfg``/``-c``): it must make
    no run folder, so its ``evalkit_unique`` is :func:`propose`, not :func:`reserve`."""
    return any(a in ("-c", "--cfg") or a.startswith("--cfg=") for a in argv)


def reserve(stem: str) -> str:
    """Make the folder ``<stem>_<suffix>`` (and its parents) and return its path.

    The folder did not exist before this call: a name that does is never reused
    (``FileExistsError`` from the exclusive mkdir draws another suffix). Used as
    the ``evalkit_unique`` resolver of ``hydra.run.dir`` and ``hydra.sweep.dir``;
    OmegaConf caches a resolver's value per config (and Hydra copies that cache
    to a sweep's jobs), so a run reserves one folder, and a sweep's jobs share one.
    """
    for _ in range(_ATTEMPTS):
        path = Path(propose(stem))
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            path.mkdir()
        except FileExistsError:
            continue
        return str(path)
    raise FileExistsError(f"{stem}_*: no free run folder name after {_ATTEMPTS} tries")


def discard(out: str | os.PathLike) -> None:
    """Remove what a refused run made: Hydra's copy of the config, empty ``tables/`` and
    ``figures/`` and then the folder if nothing else is in it (a bad value in a config file
    is only found here, after Hydra made the folder; one on the command line is refused
    before). Never deletes a file the run did not write (``hydra.run.dir`` may point at a
    folder of the user's)."""
    path = Path(out)
    shutil.rmtree(path / ".hydra", ignore_errors=True)
    for sub in (path / "tables", path / "figures", path):
        try:
            sub.rmdir()  # only when empty
        except OSError:
            pass
