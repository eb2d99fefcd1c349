"""The ``evalkit`` command (and ``python -m evalkit``): a fixed string-hash seed, then the app.

Python salts the hashes of strings afresh in every process unless the
environment sets ``PYTHONHASHSEED``, so code that walks a set of strings
meets them in another order each run. Some peer libraries decide by that
order: goose3 keeps or drops a line of one chaos page (``syrian (10)``)
depending on the salt, which changed ``summary.csv`` between two runs of the
same command. The command therefore re-runs itself, before anything else is
imported, with ``PYTHONHASHSEED=0`` when the variable is unset; a value the
user sets is kept. Worker processes (the local runner's, a local Dask
cluster's, the joblib and submitit launchers') inherit it; remote Dask
workers need it in their own environment. ``run.json`` records the value.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, MutableMapping

__all__ = ["HASH_SEED", "pin_hash_seed", "run"]

#: the string-hash seed the command runs under when the environment sets none
HASH_SEED = "0"


def pin_hash_seed(environ: MutableMapping[str, str] | None = None,
                  execv: Callable[[str, list[str]], object] | None = None) -> bool:
    """Re-run this process's command line with ``PYTHONHASHSEED`` set, unless it is set.

    Returns False when nothing was done; with the real ``os.execv`` it does not
    return otherwise (the process image is replaced; the process id stays, so
    signals still reach it).
    """
    environ = os.environ if environ is None else environ
    if "PYTHONHASHSEED" in environ or not sys.executable:
        return False
    environ["PYTHONHASHSEED"] = HASH_SEED
    (execv or os.execv)(sys.executable, list(sys.orig_argv))
    return True


def run() -> None:
    """Entry point of the ``evalkit`` console script and of ``python -m evalkit``."""
    pin_hash_seed()
    try:
        _start()
    except KeyboardInterrupt:  # outside the run itself: importing, or Hydra's own steps
        from evalkit.shell.cli import run_folder, stopped

        stopped(run_folder())


def _start() -> None:
    from evalkit.core.layout import LayoutError, layout

    try:
        layout()  # a bad EVALKIT_ROOT is one line, before anything reads the configs
    except LayoutError as exc:
        print(f"evalkit: {exc}", file=sys.stderr)
        sys.exit(2)
    from evalkit.shell.cli import main

    main()
