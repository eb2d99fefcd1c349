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

import contextlib
import errno
import json
import os
import secrets
import shutil
import tempfile
from pathlib import Path

__all__ = [
    "PROBE_BYTES",
    "RESERVED",
    "SUFFIX_HEX",
    "discard",
    "mark_failed",
    "mark_interrupted",
    "one_line",
    "prints_only",
    "propose",
    "refused_folders",
    "reserve",
    "unwritable",
    "write_failure",
]

#: hex digits of the random suffix (24 bits: names stay short; the exclusive mkdir,
#: not the odds, is what keeps them unique)
SUFFIX_HEX = 6
_ATTEMPTS = 100
#: bytes the writability probe writes (and removes): one block, so a full disk fails it
PROBE_BYTES = 4096


def propose(stem: str) -> str:
    """``<stem>_<suffix>`` with a fresh random suffix, without making anything (for
    commands that only print the config, ``--cfg all --resolve``)."""
    return f"{stem}_{secrets.token_hex(SUFFIX_HEX // 2)}"


def prints_only(argv: list[str]) -> bool:
    """True for a command line that only prints the config (``--cfg``/``-c``): it must make
    no run folder, so its ``evalkit_unique`` is :func:`propose`, not :func:`reserve`."""
    return any(a in ("-c", "--cfg") or a.startswith("--cfg=") for a in argv)


#: the folders :func:`reserve` made in this process (an interrupt before Hydra hands the
#: run its folder still finds it: evalkit.shell.cli.run_folder)
RESERVED: list[str] = []


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
        RESERVED.append(str(path))
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


def mark_interrupted(
    out: str | os.PathLike, info: dict | None = None, since: float | None = None
) -> None:
    """Write ``run.json`` of a run folder the user stopped: ``"status": "interrupted"`` and
    ``info`` (what finished), so that no run folder is left without a marker. With ``since``
    (a time stamp), a run.json written after it is kept: the run marked itself with what
    finished, and an interrupt before that point (building methods, reading data sets) only
    gets the bare marker. Best effort: a folder that cannot be written stays as it is."""
    from evalkit.report.results import atomic_write_text

    path = Path(out) / "run.json"
    with contextlib.suppress(OSError):
        if since is not None and path.stat().st_mtime >= since:
            return
    text = (
        json.dumps(
            {
                "status": "interrupted",
                "finished_records": {},
                "resume": "run the same command again: finished extractions come from the cache",
                **(info or {}),
            },
            indent=2,
            sort_keys=True,
        )
        + "\n"
    )
    with contextlib.suppress(OSError):
        if Path(out).is_dir():
            atomic_write_text(path, text)


def one_line(exc: BaseException) -> str:
    """An exception as the one line a run folder's ``reason`` holds: its type and the first
    line of its message, at most 500 characters."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")[:500]


def mark_failed(out: str | os.PathLike, reason: str, since: float | None = None) -> None:
    """Mark the run folder ``out`` of a run that ended on an error: run.json gets
    ``"status": "failed"`` and ``reason`` (one line), so no run folder is left without a
    marker (the "mark" gate, docs/security.md). A run.json this run wrote (modified at or
    after ``since``) keeps what it records; any other is replaced. Best effort: a folder that
    is gone or cannot be written (a full disk) stays as it is."""
    from evalkit.report.results import atomic_write_text

    path = Path(out) / "run.json"
    record: dict = {}
    with contextlib.suppress(OSError, ValueError):
        if since is not None and path.stat().st_mtime >= since:
            old = json.loads(path.read_text(encoding="utf-8"))
            record = old if isinstance(old, dict) else {}
    record.update(status="failed", reason=" ".join(str(reason).split())[:500])
    text = json.dumps(record, indent=2, sort_keys=True, default=str) + "\n"
    with contextlib.suppress(OSError):
        if Path(out).is_dir():
            atomic_write_text(path, text)


def _errno(exc: OSError) -> str:
    name = errno.errorcode.get(exc.errno or 0, "?")
    return f"{name}: {exc.strerror or exc}"


def unwritable(folder: str | os.PathLike, key: str, hint: str = "") -> str | None:
    """One line when ``folder`` (the value of setting ``key``) could not be made and written,
    else None. Nothing is left behind: the nearest folder of ``folder`` that exists gets a
    probe file of :data:`PROBE_BYTES` bytes, removed at once (a read-only file system, a
    full disk, a file where a folder should be, missing permissions all fail it), so a run
    that cannot write its results or cache stops before any page, instead of an OSError
    traceback later."""
    path = Path(folder).expanduser().absolute()
    here = path
    while not here.exists() and here != here.parent:
        here = here.parent
    try:
        if not here.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(here))
        fd, probe = tempfile.mkstemp(prefix=".evalkit-probe-", dir=here)
        try:
            os.write(fd, b"\0" * PROBE_BYTES)
        finally:
            os.close(fd)
            os.unlink(probe)
    except OSError as exc:
        where = "" if here == path else f" ({here})"
        return f"{key}={folder}: cannot write there{where}: {_errno(exc)}" + (
            f"; {hint}" if hint else ""
        )
    return None


def write_failure(exc: OSError, out: str | os.PathLike) -> str:
    """The one line for a write that failed during a run (a disk that filled, a folder made
    read-only meanwhile): the file, the errno, and that the run folder is incomplete."""
    name = exc.filename or "a file"
    return f"cannot write {name}: {_errno(exc)}; {out} is incomplete"


def _given(argv: list[str], key: str) -> str | None:
    """The last value the command line gives ``key`` (``key=``, ``+key=``, ``++key=``)."""
    found = None
    for arg in argv:
        name, eq, value = arg.lstrip("+").partition("=")
        if eq and name == key:
            found = value.strip("'\"")  # a quoted value (the API quotes strings)
    return found


def refused_folders(argv: list[str]) -> str | None:
    """One line refusing a command line that would make Hydra write outside the run folder
    or over an earlier run, else None; checked before Hydra writes anything (the write
    gate, docs/security.md). ``hydra.output_subdir`` must be a folder name inside the run
    folder (relative, no ``..``); ``hydra.run.dir``/``hydra.sweep.dir`` naming a folder
    that already holds files is refused, never overwritten (without either, every run gets
    a fresh folder: :func:`reserve`)."""
    sub = _given(argv, "hydra.output_subdir")
    if sub is not None and sub.strip("'\"") not in ("null", "None", "~", ""):
        name = sub.strip("'\"")
        if os.path.isabs(name) or ".." in Path(name).parts or "\0" in name:
            return (
                f"hydra.output_subdir={sub}: must be a folder inside the run folder "
                "(relative, no '..'); nothing run"
            )
    for key in ("hydra.run.dir", "hydra.sweep.dir"):
        folder = _given(argv, key)
        if not folder or "${" in folder:
            continue
        with contextlib.suppress(OSError):
            if any(os.scandir(Path(folder).expanduser())):
                return (
                    f"{key}={folder}: already holds files (an earlier run?); evalkit "
                    f"never writes over them: name a new or empty folder, or leave {key} "
                    "unset for a fresh one; nothing run"
                )
    return None
