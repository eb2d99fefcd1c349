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
import math
import os
import platform
import re
import subprocess
import sys
from collections.abc import Iterable, Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from evalkit import __version__
from evalkit.core.files import temp_beside
from evalkit.core.page import lxml_versions
from evalkit.report.csv_safe import csv_text, restore_frame

__all__ = [
    "CORE_PACKAGES",
    "SUMMARY_COLUMNS",
    "RecordSpill",
    "atomic_write_text",
    "dataset_fingerprint",
    "git_state",
    "package_versions",
    "read_summary",
    "readable",
    "write_csv",
    "write_frames_csv",
    "write_run_json",
]

SUMMARY_COLUMNS = [
    "experiment",
    "dataset",
    "method",
    "metric",
    "value",
    "ci_low",
    "ci_high",
    "n_pages",
]
CORE_PACKAGES = [
    "hydra-core",
    "omegaconf",
    "pandas",
    "numpy",
    "scipy",
    "scikit-learn",
    "matplotlib",
    "lxml",
    "xxhash",
    "datasketch",
    "charset-normalizer",
    "joblib",
]


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
        return {readable(k) if isinstance(k, str) else k: _readable_tree(v) for k, v in obj.items()}
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
    fd, tmp = temp_beside(path)  # a plain file's mode (umask), not mkstemp's 0600
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
    os.replace(tmp, path)
    return path


def write_csv(df: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Atomic CSV with a fixed float format, so identical runs give identical bytes; text
    cells that a spreadsheet would read as formulas are quoted (evalkit.report.csv_safe)."""
    return atomic_write_text(path, csv_text(df, float_format="%.6g"))


#: records read back or written per step by RecordSpill and write_frames_csv: bounds memory
#: (per_page.csv of 30,000 pages: 11 MB at a time with 1,000 rows, 45 MB with 5,000; the
#: same bytes and time)
CHUNK_ROWS = 1000

_MISSING = object()  # a record without the key (pandas makes it NaN, not None)


def _kind(value: Any) -> str:
    # what decides the dtype pandas infers for a column: the value's type, NaN apart
    if value is None:
        return "none"
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return type(value).__name__


def _plain(value: Any) -> Any:
    # numpy scalars as their Python values (json cannot write them; pandas infers the same)
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"a per-page record value must be a scalar, got {type(value).__name__}")


class RecordSpill:
    """Per-page records appended to a JSON-lines file as they arrive, so a run holds
    O(chunk) records in memory however many pages it scores.

    JSON keeps every value a record can hold exactly (floats by ``repr``, NaN, None,
    ints, bools, strings with lone surrogates), and loading it runs no code. What
    pandas would infer for a column of all the records depends only on which kinds of
    value it holds, so one example of each kind per column is kept (:meth:`proxy`):
    :func:`write_frames_csv` and :meth:`frame` give the dtypes, hence the bytes, of
    ``pd.DataFrame.from_records(all_records)``.
    """

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "w+", encoding="utf-8")  # noqa: SIM115 - closed by close()
        self.n_records = 0
        #: column -> {kind: an example value}, columns in order of first appearance
        self.kinds: dict[str, dict[str, Any]] = {}

    def append(self, records: Iterable[dict[str, Any]]) -> None:
        """Write ``records`` to the file (each becomes one line)."""
        lines = []
        for rec in records:
            if rec.keys() != self.kinds.keys():
                for key in self.kinds.keys() - rec.keys():  # missing here: NaN in pandas
                    self.kinds[key].setdefault("missing", _MISSING)
                for key in [k for k in rec if k not in self.kinds]:  # new: missing before
                    self.kinds[key] = {"missing": _MISSING} if self.n_records else {}
            for key, value in rec.items():
                kinds = self.kinds.setdefault(key, {})
                kind = _kind(value)
                if kind not in kinds:
                    kinds[kind] = _plain(value) if hasattr(value, "item") else value
            lines.append(json.dumps(rec, ensure_ascii=True, default=_plain))
            self.n_records += 1
        if lines:
            self._fh.write("\n".join(lines) + "\n")

    @property
    def columns(self) -> list[str]:
        return list(self.kinds)

    def proxy(self) -> pd.DataFrame:
        """A few rows with, column by column, the dtype and NA-ness of all the records'
        frame (for working out the dtypes of a concatenation, :func:`write_frames_csv`)."""
        examples = {c: list(k.values()) for c, k in self.kinds.items()}
        length = max((len(v) for v in examples.values()), default=0)
        cols = []
        for col, values in examples.items():
            values = values + values[:1] * (length - len(values))  # repeats add no kind
            rows = [{} if v is _MISSING else {col: v} for v in values]
            cols.append(pd.DataFrame.from_records(rows, columns=[col]))
        return pd.concat(cols, axis=1) if cols else pd.DataFrame()

    def chunks(
        self, columns: list[str] | None = None, rows: int = CHUNK_ROWS
    ) -> Iterator[pd.DataFrame]:
        """The records in frames of at most ``rows`` records (only ``columns`` if given),
        each with the dtypes of the frame of all the records."""
        dtypes = self.proxy().dtypes
        keep = list(self.kinds) if columns is None else [c for c in columns if c in self.kinds]
        self._fh.flush()
        with open(self.path, encoding="utf-8") as fh:
            batch = []
            for line in fh:
                rec = json.loads(line)
                batch.append(rec if columns is None else {k: rec[k] for k in keep if k in rec})
                if len(batch) >= rows:
                    yield _as(pd.DataFrame.from_records(batch, columns=keep), dtypes)
                    batch = []
            if batch:
                yield _as(pd.DataFrame.from_records(batch, columns=keep), dtypes)

    def frame(self, columns: list[str] | None = None) -> pd.DataFrame:
        """The records as one frame (only ``columns`` if given, to keep it small), the frame
        ``pd.concat`` of :meth:`chunks` gives. Made without a second copy: each number
        column is filled into its array chunk by chunk, and equal texts of a chunk are one
        string object (:func:`_shared`)."""
        keep = list(self.kinds) if columns is None else [c for c in columns if c in self.kinds]
        numbers: dict[str, np.ndarray] = {}
        texts: dict[str, list[pd.Series]] = {c: [] for c in keep}
        at = 0
        for part in self.chunks(columns):
            n = len(part)
            for col in keep:
                values = part[col]
                if isinstance(values.dtype, np.dtype) and values.dtype.kind in "biuf":
                    if col not in numbers:
                        numbers[col] = np.empty(self.n_records, dtype=values.dtype)
                    numbers[col][at : at + n] = values.to_numpy()
                else:
                    texts[col].append(_shared(values))
            at += n
        if not at:
            return pd.DataFrame(columns=keep)
        data = {
            col: numbers[col] if col in numbers else pd.concat(texts[col], ignore_index=True)
            for col in keep
        }
        return pd.DataFrame(data, columns=keep, copy=False)

    def close(self) -> None:
        """Close and delete the file."""
        self._fh.close()
        self.path.unlink(missing_ok=True)


def _as(df: pd.DataFrame, dtypes: pd.Series) -> pd.DataFrame:
    # cast a chunk's columns to the dtypes the whole would have (a chunk of ints may sit in a
    # column that is float overall, and "%.6g" prints the two differently)
    for col in df.columns:
        if col in dtypes and df[col].dtype != dtypes[col]:
            df[col] = df[col].astype(dtypes[col])
    return df


def _shared(values: pd.Series) -> pd.Series:
    # each record's texts are strings of their own (json.loads makes new ones), but a run's
    # data set, method, site and category repeat on every record and a page id on each of
    # its methods' records: one object per distinct text of a chunk keeps a frame of many
    # pages small (with the arrays filled in place: 30,000 pages, 113 MB of the process's
    # memory to 26 MB)
    dtype = values.dtype
    if dtype == object or (isinstance(dtype, pd.StringDtype) and dtype.storage == "python"):
        memo: dict[str, str] = {}
        shared = [memo.setdefault(v, v) if type(v) is str else v for v in values.tolist()]
        return pd.Series(pd.array(shared, dtype=dtype), index=values.index, name=values.name)
    return values


def write_frames_csv(frames: list[pd.DataFrame | RecordSpill], path: str | os.PathLike) -> Path:
    """The bytes :func:`write_csv` writes for ``pd.concat(frames)``, written chunk by chunk
    so that spilled records (:class:`RecordSpill`) are never all in memory at once."""
    proxies = [f.proxy() if isinstance(f, RecordSpill) else f for f in frames]
    whole = pd.concat(proxies, ignore_index=True)  # columns in order, dtypes of the whole
    columns, dtypes = list(whole.columns), whole.dtypes
    del whole, proxies
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = temp_beside(path)  # a plain file's mode (umask), not mkstemp's 0600
    header = True
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
        for frame in frames:
            parts = frame.chunks() if isinstance(frame, RecordSpill) else [frame]
            for part in parts:
                if part.empty:
                    continue
                part = _as(part.reindex(columns=columns), dtypes)
                fh.write(readable(csv_text(part, header=header, float_format="%.6g")))
                header = False
        if header:  # no rows at all: the header alone, as to_csv writes it
            fh.write(readable(csv_text(pd.DataFrame(columns=columns))))
    os.replace(tmp, path)
    return path


def git_state(root: str | os.PathLike) -> dict[str, Any]:
    """Commit and dirty flag of the repository at ``root`` (None when not a checkout)."""

    def git(*args):
        return subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, check=False, timeout=10
        )

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


def interpreter_hash_seed() -> str | None:
    """The string-hash seed this interpreter runs under: ``"0"`` when its string hashes are
    not randomised (``PYTHONHASHSEED=0`` when it started), else the number in
    ``PYTHONHASHSEED``, else None (random). ``sys.flags`` is read, not only the environment:
    the Python API sets the variable for its worker processes (evalkit.shell.api), which does not
    change the seed of the interpreter it runs in."""
    if not sys.flags.hash_randomization:
        return "0"
    value = os.environ.get("PYTHONHASHSEED")
    return value if value and value.isdigit() and value != "0" else None


def write_run_json(
    path: str | os.PathLike,
    *,
    root: str | os.PathLike | None,
    git: dict[str, Any] | None = None,
    seed: int,
    wall_seconds: float,
    datasets: dict[str, Any],
    methods: dict[str, Any],
    failures: list[dict[str, Any]],
    extra: dict[str, Any] | None = None,
) -> Path:
    info = {
        "evalkit_version": __version__,
        # the checkout's commit (``git``: as the caller found it when the run started); an
        # installed evalkit (root None) has none
        "git": git or (git_state(root) if root is not None else {"commit": None, "dirty": None}),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        # string-hash order can decide a peer library's output (evalkit.shell.entry)
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
    return atomic_write_text(
        path,
        json.dumps(
            _readable_tree(info), indent=2, sort_keys=True, default=lambda o: readable(str(o))
        )
        + "\n",
    )


def read_summary(path: str | os.PathLike) -> pd.DataFrame:
    """Read a run's summary.csv (or the folder holding it), checking its columns."""
    path = Path(path)
    if path.is_dir():
        path = path / "summary.csv"
    df = restore_frame(pd.read_csv(path))
    missing = [c for c in SUMMARY_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: not an evalkit summary (missing columns {missing})")
    return df
