"""The run folder: summary, per-page records, provenance, all written atomically.

See docs/architecture.md#the-run-folder.

``summary.csv`` is long format with the fixed columns of :data:`SUMMARY_COLUMNS`;
outside scripts and later stages read it, so its columns never change.
``run.json`` records what is needed to trust and repeat a run: evalkit
version, git commit and dirty flag, Python and package versions, lxml and
libxml2 versions, dataset fingerprints, each method's resolved parameters and
the versions of the outside packages it can call, seed, wall time, failures and
skipped files.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd

from evalkit import __version__
from evalkit.page import lxml_versions

__all__ = [
    "CORE_PACKAGES",
    "SUMMARY_COLUMNS",
    "atomic_write_text",
    "dataset_fingerprint",
    "git_state",
    "package_versions",
    "read_summary",
    "readable",
    "write_csv",
    "write_run_json",
]

SUMMARY_COLUMNS = ["experiment", "dataset", "method", "metric", "value", "ci_low", "ci_high",
                   "n_pages"]
CORE_PACKAGES = ["hydra-core", "omegaconf", "pandas", "numpy", "scipy", "scikit-learn",
                 "matplotlib", "lxml", "xxhash", "datasketch", "charset-normalizer",
                 "joblib"]


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _show(m: re.Match) -> str:
    code = ord(m.group())
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def readable(text: str) -> str:
    """``text`` with its lone surrogates written out, so that it can be saved as UTF-8.

    A file name that is not valid UTF-8 becomes a page id by surrogate escaping (Python's
    ``os.fsdecode``: byte 0xE9 is U+DCE9); such a byte is shown as ``\\xe9``, any other
    lone surrogate as ``\\udxxx``. Text without them comes back as it is.
    """
    if _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub(_show, text)


def _readable_tree(obj: Any) -> Any:
    """``obj`` (JSON-like) with :func:`readable` applied to every string, keys included."""
    if isinstance(obj, str):
        return readable(obj)
    if isinstance(obj, dict):
        return {readable(k) if isinstance(k, str) else k: _readable_tree(v)
                for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_readable_tree(v) for v in obj]
    return obj


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Write via a temp file in the same folder and rename, so readers never see half a file.

    Lone surrogates (from file names that are not UTF-8) are written out by :func:`readable`.
    """
    text = readable(text)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
    os.replace(tmp, path)
    return path


def write_csv(df: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Atomic CSV with a fixed float format, so identical runs give identical bytes."""
    return atomic_write_text(path, df.to_csv(index=False, float_format="%.6g", lineterminator="\n"))


def git_state(root: str | os.PathLike) -> dict[str, Any]:
    """Commit and dirty flag of the repository at ``root`` (None when not a checkout)."""
    def git(*args):
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                              check=False, timeout=10)
    try:
        head = git("rev-parse", "HEAD")
        if head.returncode != 0:
            return {"commit": None, "dirty": None}
        dirty = git("status", "--porcelain", "--untracked-files=no").stdout.strip() != ""
        return {"commit": head.stdout.strip(), "dirty": dirty}
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}


def package_versions(names: list[str]) -> dict[str, str | None]:
    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def dataset_fingerprint(page_hashes: Iterable[str]) -> str:
    """Hash of the sorted page hashes: the same pages give the same fingerprint."""
    h = hashlib.sha256()
    for ph in sorted(page_hashes):
        h.update(ph.encode())
    return h.hexdigest()


def write_run_json(path: str | os.PathLike, *, root: str | os.PathLike, seed: int,
                   wall_seconds: float, datasets: dict[str, Any], methods: dict[str, Any],
                   failures: list[dict[str, Any]], extra: dict[str, Any] | None = None) -> Path:
    info = {
        "evalkit_version": __version__,
        "git": git_state(root),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        # string-hash order can decide a peer library's output (evalkit.entry)
        "python_hash_seed": os.environ.get("PYTHONHASHSEED", "unset (random)"),
        "packages": package_versions(CORE_PACKAGES),
        "lxml": lxml_versions(),  # libxml2 is bundled in lxml's wheel: its own version matters
        "seed": seed,
        "wall_seconds": round(wall_seconds, 3),
        "datasets": datasets,
        "methods": methods,
        "n_failures": len(failures),
        "failures": failures,
    }
    if extra:
        info.update(extra)
    return atomic_write_text(path, json.dumps(_readable_tree(info), indent=2, sort_keys=True,
                                              default=lambda o: readable(str(o))) + "\n")


def read_summary(path: str | os.PathLike) -> pd.DataFrame:
    """Read a run's summary.csv (or the folder holding it), checking its columns."""
    path = Path(path)
    if path.is_dir():
        path = path / "summary.csv"
    df = pd.read_csv(path)
    missing = [c for c in SUMMARY_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: not an evalkit summary (missing columns {missing})")
    return df
