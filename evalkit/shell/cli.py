"""The thin Hydra shell: ``evalkit`` and ``python -m evalkit``.

All work happens in :func:`evalkit.experiments.run_experiment`; this module
only composes the config, turns configuration mistakes into one clear line
on stderr (exit status 2), and prints where the results went.
"""

from __future__ import annotations

import contextlib
import errno
import sys
import time
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from evalkit.harness.config import (
    CONFIG_DIR,
    CONFIG_SOURCE,
    ConfigError,
    register_resolvers,
    warn_renamed,
)

__all__ = [
    "CONFIG_DIR",
    "WRITE_ERRNOS",
    "check_overrides",
    "main",
    "run_folder",
    "stopped",
    "upgrade_overrides",
]

#: when this process started its work: a run.json older than that is another run's
_STARTED = time.time()

#: errors of a write that the user fixes by freeing space or choosing another folder: one
#: line and exit 2 instead of a traceback (any other OSError is a defect, and shows one)
WRITE_ERRNOS = frozenset(
    {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EFBIG, errno.ENOTDIR}
)


def upgrade_overrides(argv: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """``argv`` with renamed method keys at their new place, and the ``(old, new)`` keys
    moved (:func:`evalkit.shell.overrides.upgrade_overrides`)."""
    from evalkit.shell.overrides import upgrade_overrides as upgrade

    return upgrade(argv)


def check_overrides(argv: list[str]) -> str | None:
    """A one-line message for an override naming no key, option or method parameter, else None.

    Hydra's own message for these spans several lines and suggests ``+key=...``,
    which would keep the typo; :mod:`evalkit.shell.overrides` names the closest valid
    names instead, before Hydra makes a run folder.
    """
    from evalkit.shell.overrides import check_overrides as check

    return check(argv)


# a checkout's configs/ folder, or pkg://evalkit.configs in the wheel (evalkit.core.layout)
@hydra.main(config_path=CONFIG_SOURCE, config_name="config", version_base="1.3")
def _app(cfg: DictConfig) -> float | None:
    out = HydraConfig.get().runtime.output_dir
    _terminate_as_interrupt()
    try:
        return _run(cfg, out)
    except KeyboardInterrupt:
        stopped(out)


def stopped(out: str | None) -> None:
    """End the command after Ctrl-C or SIGTERM: one line instead of a traceback, run.json
    of the run folder ``out`` (when Hydra made one) marked ``interrupted`` unless the run
    marked it itself; finished extractions are already in the cache. Exit status 130."""
    if out is None or not Path(out).is_dir():
        print("evalkit: interrupted before the run started; nothing was written.", file=sys.stderr)
        sys.exit(130)
    from evalkit.harness.rundir import mark_interrupted

    mark_interrupted(out, since=_STARTED)
    print(
        f"evalkit: interrupted; {out} is incomplete. Run the same command again to "
        "resume from the extraction cache.",
        file=sys.stderr,
    )
    sys.exit(130)


def run_folder() -> str | None:
    """The run folder of this command so far, else None: Hydra's while it runs the job;
    after an interrupt in Hydra's own steps, the folder this process reserved
    (evalkit.harness.rundir.reserve) or the ``hydra.run.dir=`` of the command line once
    Hydra has made or written into it."""
    from evalkit.harness.rundir import RESERVED

    if HydraConfig.initialized():
        return str(HydraConfig.get().runtime.output_dir or "") or None
    if RESERVED:
        return RESERVED[-1]
    given = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("hydra.run.dir=")]
    with contextlib.suppress(OSError):  # made or written into since this command started
        if given and Path(given[-1]).stat().st_mtime >= _STARTED:
            return given[-1]
    return None


def _run(cfg: DictConfig, out: str) -> float | None:
    """Run the job; every way it can end leaves the run folder marked (the "mark" gate,
    docs/security.md): complete, interrupted (:func:`stopped`), or ``failed`` with the
    one-line reason (:func:`evalkit.harness.rundir.mark_failed`), unless a refused run left
    nothing behind (:func:`evalkit.harness.rundir.discard`)."""
    from evalkit.core.jsonfile import DataFileError
    from evalkit.experiments import run_experiment
    from evalkit.harness.errors import RunnerError
    from evalkit.harness.preflight import FailureShareError
    from evalkit.harness.registry import UnknownNameError
    from evalkit.harness.rundir import discard, mark_failed, one_line, write_failure
    from evalkit.harness.sweep import objective
    from evalkit.readers.base import DatasetMissingError

    try:
        run_experiment(cfg, out, check_failures=True)
    except FailureShareError as exc:  # the run folder is complete; the exit status says it
        for line in exc.lines:
            print(f"evalkit: {line}", file=sys.stderr)
        print(f"evalkit: results in {out}")
        sys.exit(1)
    except (UnknownNameError, DatasetMissingError, ConfigError, RunnerError) as exc:
        print(f"evalkit: {exc}", file=sys.stderr)
        discard(out)  # a folder that is not empty stays: marked
        mark_failed(out, str(exc), since=_STARTED)
        sys.exit(2)
    except DataFileError as exc:  # a data or stored file that cannot be read (it is named)
        print(f"evalkit: {exc}", file=sys.stderr)
        mark_failed(out, str(exc), since=_STARTED)
        sys.exit(2)
    except OSError as exc:  # a disk that filled, a folder made read-only during the run
        if exc.errno not in WRITE_ERRNOS:
            mark_failed(out, one_line(exc), since=_STARTED)
            raise
        print(f"evalkit: {write_failure(exc, out)}", file=sys.stderr)
        mark_failed(out, write_failure(exc, out), since=_STARTED)
        sys.exit(2)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # a defect: its traceback follows, the folder says so
        mark_failed(out, one_line(exc), since=_STARTED)
        raise
    print(f"evalkit: results in {out}")
    return objective(cfg, out)  # what an optimising sweeper (Optuna) maximises; None otherwise


#: set once the handlers of :func:`_terminate_as_interrupt` are installed
_INTERRUPTS: list[bool] = []


def _terminate_as_interrupt() -> None:
    """SIGTERM ends the run as Ctrl-C does: one line, children ended, run.json marked
    ``interrupted`` (evalkit.experiments.run_experiment), instead of a silent kill. Once
    either arrives, an exception in another thread is not printed: loky's manager thread
    meets the pool being shut down half-way (``KeyError`` in ``add_call_item_to_queue``),
    and the run's one line already says what happened."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread() or _INTERRUPTS:
        return  # installed once per process (a sweep runs many jobs in it)
    _INTERRUPTS.append(True)
    stopping = threading.Event()

    def stop(signum, frame):
        stopping.set()
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    shown = threading.excepthook

    def hook(args):
        if not stopping.is_set():
            shown(args)

    threading.excepthook = hook


def main() -> None:
    from evalkit.core.terminal import guard_console

    guard_console()  # data's control characters are shown, never obeyed

    from evalkit.harness.rundir import prints_only

    register_resolvers(make_folders=not prints_only(sys.argv[1:]))
    argv = sys.argv[1:]
    if any(a.startswith("dataset=") for a in argv):  # dataset=FOLDER: the pairs reader, as the API
        from evalkit.shell.dataset_paths import path_overrides

        argv = path_overrides(argv, [p.stem for p in Path(CONFIG_DIR, "dataset").glob("*.yaml")])
    argv, moved = upgrade_overrides(argv)
    for old, new in moved:  # method.proposed.k=4 runs as method.proposed.dedup.k=4
        warn_renamed(old, new)
    sys.argv[1:] = argv  # what Hydra reads
    msg = check_overrides(argv)
    if not msg and not prints_only(argv):
        from evalkit.harness.rundir import refused_folders

        msg = refused_folders(argv)  # Hydra's files outside the run, or over an earlier run
    if msg:
        print(msg, file=sys.stderr)
        sys.exit(2)
    _app()
