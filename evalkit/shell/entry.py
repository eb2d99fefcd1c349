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


def pin_hash_seed(
    environ: MutableMapping[str, str] | None = None,
    execv: Callable[[str, list[str]], object] | None = None,
) -> bool:
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
    """Entry point of the ``evalkit`` console script and of ``python -m evalkit``.

    The command ends when its work ends: a thread a method left running (not a daemon, with
    ``runner.page_timeout=0`` the method ran in this process) would keep Python waiting for
    it forever, after run.json was written. So once the work is over, exit handlers run and
    streams are flushed, and the process ends without waiting for such threads (one line
    names them)."""
    pin_hash_seed()
    try:
        try:
            _start()
        except KeyboardInterrupt:  # outside the run itself: importing, or Hydra's own steps
            from evalkit.shell.cli import run_folder, stopped

            stopped(run_folder())
    except SystemExit as exc:
        _end(exc)
        raise
    _end(None)


def _stray_threads() -> list:
    import threading

    main = threading.main_thread()
    return [t for t in threading.enumerate() if t is not main and not t.daemon and t.is_alive()]


def _run_threading_exit_hooks() -> None:
    """Run, once, the hooks pools registered with ``threading._register_atexit`` (Python 3.9+;
    absent elsewhere: nothing to run)."""
    import threading

    hooks = getattr(threading, "_threading_atexits", None)
    if not hooks:
        return
    for hook in reversed(list(hooks)):
        hook()
    hooks.clear()


def _end(exc: SystemExit | None) -> None:
    """End the process now when threads that are not daemons are still alive (see :func:`run`);
    otherwise return and let Python end as usual.

    Python's own exit first runs the hooks that pools register with ``threading`` (loky's and
    concurrent.futures' executors stop their manager threads there), then joins the threads
    that are left, then runs ``atexit``; the same order here, or multiprocessing's exit handler
    waits for loky workers whose manager thread was never told to stop."""
    _run_threading_exit_hooks()
    stray = _stray_threads()
    if not stray:
        return
    names = ", ".join(sorted({t.name for t in stray}))
    print(
        f"evalkit: not waiting for {len(stray)} thread(s) a method left running ({names})",
        file=sys.stderr,
    )
    code = 0 if exc is None else exc.code
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    import atexit

    atexit._run_exitfuncs()  # what Python runs at exit (temp files, worker pools), then flush
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code or 0)


def _start() -> None:
    from evalkit.core.layout import LayoutError, layout

    try:
        layout()  # a bad EVALKIT_ROOT is one line, before anything reads the configs
    except LayoutError as exc:
        print(f"evalkit: {exc}", file=sys.stderr)
        sys.exit(2)
    from evalkit.shell.cli import main

    main()
