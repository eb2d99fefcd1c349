"""Compare a recomputed reference entry with the committed one (``python -m evalkit.reference --check``).

Every number file of the entry is compared: ``summary.csv`` row by row as below, and
``buckets.csv``, ``pairwise.csv`` and every csv of ``tables/`` cell by cell
(:func:`compare_number_file`), so a change that moves a page to another complexity bucket
or a pairwise interval, and leaves the summary as it was, is a finding too.

A row of ``summary.csv`` is keyed by (experiment, dataset, method, metric) and is
compared on ``value``, ``ci_low``, ``ci_high`` and ``n_pages`` exactly as written
(six significant digits, the writer's format): the same code, data, seed and package
versions give the same bytes, so any difference is a finding. Two kinds of rows are
not compared value for value:

- **timings**: rows of the ``speed`` experiment that measure the clock or memory
  (:func:`is_timing`) are only checked for presence; its page counts, failure counts
  and configured targets are compared like any other row.
- **not comparable**: rows of a method whose recorded package versions differ from
  the installed ones (:func:`comparability`), e.g. a peer row made with trafilatura
  2.0.0 checked where 2.3.1 is installed. Comparing them would either fail on an
  upstream change or, worse, pass by luck; they are reported, checked for presence,
  and do not fail the check. Holm-adjusted p-values are adjusted over every method of
  their table, so they are not comparable either when any method of the table is not.
- **not comparable, the whole entry**: when what the scores depend on beside the methods
  (run.json ``scoring``: a benchmark's sentence splitter, the packages its scorer or its
  gold's reader use) differs between the committed and the recomputed run
  (:func:`scoring_difference`), no row of the entry is compared value for value; each
  number file is still checked for its presence and shape.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd
from packaging.utils import canonicalize_name

from evalkit.report.csv_safe import restore_frame

__all__ = [
    "FIELDS",
    "KEY",
    "MAX_LINES_PER_FILE",
    "Comparison",
    "comparability",
    "compare_files",
    "compare_number_file",
    "compare_summaries",
    "installed_versions",
    "is_timing",
    "is_timing_column",
    "is_timing_file",
    "number_files",
    "read_csv",
    "read_summary",
    "recorded_versions",
    "scoring_difference",
]

_ABSENT = "not installed"  # what Peer.versions() records for a missing library
KEY = ["experiment", "dataset", "method", "metric"]
FIELDS = ["value", "ci_low", "ci_high", "n_pages"]

#: metrics of the speed experiment that are clock or memory measurements. Listed by
#: name, so a new speed metric is compared (and fails) until someone decides what it is.
#: meets_target and growth_exponent are derived from timings; peak_rss_mb is memory;
#: harness_* are the harness's own costs (evalkit.experiments.speed.harness).
_TIMING = re.compile(
    r"^(ms_median|ms_p90|ms_mean|pages_per_s|ratio_to_parse|growth_exponent"
    r"|meets_target|peak_rss_mb|step_\w+_ms_mean|twc_pfm_ms_\d+"
    r"|harness_\w+|diff_s_\d+|startup_\w+_s)$"
)


def is_timing(experiment: str, metric: str) -> bool:
    """True for a summary row that measures time (or memory), checked for presence only:
    the speed experiment's, and the leaderboard's ``cost_*`` rows."""
    if experiment == "leaderboard":
        return metric.startswith("cost_")
    return experiment == "speed" and bool(_TIMING.match(metric))


#: columns of a table (``tables/*.csv``) that hold a clock or memory measurement, checked
#: for presence only: ``ms``, ``total_ms``, ``time (s)``, ``ms / page``, ``seconds`` ...
_TIMING_COLUMN = re.compile(
    r"(^|[^a-z])(ms|seconds|time|rss|pages/s|per_s)([^a-z]|$)"
    r"|_ms$|^ms_"
)
#: tables of the speed experiment and the leaderboard's cost table: every number in them is
#: a timing or derived from one (the cost table's scores are the board's, compared there)
_TIMING_FILE = re.compile(r"^(speed_|leaderboard_cost)")
#: at most this many differing cells are listed per file (then a count of the rest)
MAX_LINES_PER_FILE = 5
#: columns that name the method a row is about
_METHOD_COLUMNS = ("method", "method_a", "method_b", "method (ours)", "approach", "source")


def is_timing_column(column: str) -> bool:
    """True for a table column that measures time or memory (checked for presence only)."""
    return bool(_TIMING_COLUMN.search(str(column)))


def is_timing_file(name: str) -> bool:
    """True for a number file every value of which is a timing (the speed experiment's
    tables): the file's presence and shape are checked, not its values."""
    return bool(_TIMING_FILE.match(name))


def number_files(folder) -> list[str]:
    """The number files of a reference entry besides ``summary.csv``, as paths relative to
    ``folder``: ``buckets.csv``, ``pairwise.csv`` and every other csv at the top and in
    ``tables/`` (``.csv.gz`` too), sorted."""
    from pathlib import Path

    root = Path(folder)
    found = [
        p
        for pattern in ("*.csv", "*.csv.gz", "tables/*.csv", "tables/*.csv.gz")
        for p in root.glob(pattern)
    ]
    return sorted(str(p.relative_to(root)) for p in found if p.name != "summary.csv")


def _same(a: str, b: str) -> bool:
    if a == b:
        return True
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    return x == y or (math.isnan(x) and math.isnan(y))


def installed_versions(info: dict[str, Any], create=None) -> dict[str, str]:
    """What the recomputed run used for one method (its ``run.json`` ``methods`` record).

    The contract is ``packages`` ({distribution: version}) in the record; a run.json
    made before it has none, and then the method is built from its recorded
    parameters and asked (:meth:`~evalkit.core.method.BaseMethod.versions`).
    """
    if isinstance(info.get("packages"), dict):
        return {str(k): str(v) for k, v in info["packages"].items()}
    if create is None:
        from evalkit.harness.registry import METHODS

        create = METHODS.create
    try:
        return {
            str(k): str(v)
            for k, v in create(info["registry"], **(info.get("params") or {})).versions().items()
        }
    except Exception:  # noqa: BLE001 - an unknown or changed method has nothing to say
        return {}


def recorded_versions(
    info: dict[str, Any],
    names: list[str],
    run_packages: dict[str, Any],
    constraints: dict[str, str],
) -> dict[str, str | None]:
    """The versions the committed reference made one method with.

    ``packages`` in the committed method record when it is there (the contract);
    otherwise, for each name the method uses today, the entry's ``run.json``
    ``packages``, then the constraints file; None when neither recorded it.
    """
    if isinstance(info.get("packages"), dict):
        return {str(k): (None if v is None else str(v)) for k, v in info["packages"].items()}
    by_name = {canonicalize_name(k): v for k, v in (run_packages or {}).items()}
    out: dict[str, str | None] = {}
    for name in names:
        c = canonicalize_name(name)
        out[name] = by_name.get(c) or constraints.get(c)
    return out


def _installed(name: str, installed: dict[str, str]) -> str:
    if name in installed:
        return installed[name]
    if name == "libxml2":
        from evalkit.harness.constraints import libxml2_version

        return libxml2_version()
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return _ABSENT


def comparability(
    committed_run: dict[str, Any],
    recomputed_run: dict[str, Any],
    constraints: dict[str, str],
    create=None,
) -> dict[str, str]:
    """``{method label: reason}`` for every method whose rows are not comparable.

    The reason reads ``trafilatura 2.3.1 installed, reference made with 2.0.0`` (one
    clause per package that differs, or whose reference version was never recorded).
    """
    out = {}
    # methods and (dedup experiment) detectors: both record what they ran with
    records = [
        (label, info, (recomputed_run.get(kind) or {}).get(label))
        for kind in ("methods", "detectors")
        for label, info in (committed_run.get(kind) or {}).items()
    ]
    for label, info, fresh in records:
        now = installed_versions(fresh or info, create)
        then = recorded_versions(
            info, sorted(now), committed_run.get("packages") or {}, constraints
        )
        clauses = []
        for name, version in then.items():
            have = _installed(name, now)
            now_text = f"{name} not installed" if have == _ABSENT else f"{name} {have} installed"
            if version is None:
                clauses.append(f"{now_text}, reference version not recorded")
            elif have != version:
                clauses.append(f"{now_text}, reference made with {version}")
        if clauses:
            out[label] = "; ".join(clauses)
    return out


def _flat(tree: Any, prefix: str = "") -> dict[str, Any]:
    if not isinstance(tree, dict):
        return {prefix: tree}
    out: dict[str, Any] = {}
    for key, value in tree.items():
        out.update(_flat(value, f"{prefix}.{key}" if prefix else str(key)))
    return out


def scoring_difference(committed_run: dict[str, Any], recomputed_run: dict[str, Any]) -> str:
    """Why the entry's scores were made under other inputs than now ('' when they were not).

    Compares run.json ``scoring`` leaf by leaf and names each that differs, e.g.
    ``wceb.sentences rule here, reference made with punkt``. A committed run without the
    record (made before it) differs from a recomputed run that has one only where the
    recomputed run records something; both without: ''."""
    old = _flat(committed_run.get("scoring") or {})
    new = _flat(recomputed_run.get("scoring") or {})
    if not old and not new:
        return ""
    if not old:
        return "reference recorded no scoring inputs (made before run.json had them)"
    clauses = [
        f"{key} {new.get(key, 'absent')} here, reference made with {old.get(key, 'absent')}"
        for key in sorted(set(old) | set(new))
        if old.get(key) != new.get(key)
    ]
    return "; ".join(clauses)


@dataclass
class Comparison:
    """The outcome of comparing one entry's summaries."""

    entry: str
    compared: int = 0  # rows compared value for value
    timing: int = 0  # timing rows, checked for presence only
    differences: list[str] = field(default_factory=list)  # one line each
    not_comparable: dict[str, int] = field(default_factory=dict)  # label -> rows
    reasons: dict[str, str] = field(default_factory=dict)  # label -> why not comparable
    notes: list[str] = field(default_factory=list)  # context that is not itself a finding
    files: int = 1  # number files compared (summary.csv and others)


def _describe(entry: str, key: tuple) -> str:
    return f"{entry}: {' / '.join(str(k) for k in key)}"


def compare_summaries(
    entry: str,
    committed: pd.DataFrame,
    recomputed: pd.DataFrame,
    not_comparable: dict[str, str] | None = None,
) -> Comparison:
    """Compare two ``summary.csv`` frames (read with ``dtype=str``) row by row."""
    not_comparable = not_comparable or {}
    result = Comparison(entry, reasons=dict(not_comparable))
    for name, frame in (("committed", committed), ("recomputed", recomputed)):
        dup = frame[frame.duplicated(KEY)]
        if len(dup):
            raise ValueError(
                f"{entry}: the {name} summary repeats the row {' / '.join(dup.iloc[0][KEY])}"
            )
    old = committed.set_index(KEY)
    new = recomputed.set_index(KEY)
    # Holm adjusts over every method of one (experiment, dataset) table
    tainted = {(e, d) for e, d, m, _ in old.index if m in not_comparable}
    for key, row in old.iterrows():
        experiment, dataset, method, metric = key
        if key not in new.index:
            result.differences.append(
                f"{_describe(entry, key)}: committed {row['value']}, "
                "missing from the recomputed summary"
            )
            continue
        if is_timing(experiment, metric):
            result.timing += 1
            continue
        if method in not_comparable or (
            metric.startswith("p_holm") and (experiment, dataset) in tainted
        ):
            label = method if method in not_comparable else f"{method} (Holm family)"
            result.not_comparable[label] = result.not_comparable.get(label, 0) + 1
            continue
        result.compared += 1
        other = new.loc[key]
        diffs = [
            f"{f} committed {row[f]!s} recomputed {other[f]!s}"
            for f in FIELDS
            if not _same(str(row[f]), str(other[f]))
        ]
        if diffs:
            result.differences.append(f"{_describe(entry, key)}: {'; '.join(diffs)}")
    for key in new.index.difference(old.index):
        result.differences.append(
            f"{_describe(entry, key)}: recomputed "
            f"{new.loc[key, 'value']}, not in the committed summary"
        )
    return result


def _row_name(row: pd.Series, columns: list[str]) -> str:
    """A row described by its first text cells (dataset, method, bucket ...)."""
    parts = []
    for col in columns:
        value = str(row[col])
        try:
            float(value)
        except ValueError:
            if value:
                parts.append(value)
        if len(parts) == 3:
            break
    return " / ".join(parts)


def compare_number_file(
    entry: str,
    name: str,
    committed: pd.DataFrame,
    recomputed: pd.DataFrame,
    not_comparable: dict[str, str] | None = None,
) -> Comparison:
    """Compare one number file of an entry (read with ``dtype=str``) cell by cell, in order:
    the same code, data and seed write the same rows in the same order.

    Not compared: columns that measure time (:func:`is_timing_column`) and every value of a
    timing file (:func:`is_timing_file`; their shape still is); rows about a method whose
    versions differ (``not_comparable``: a ``method``-like column names it) and columns
    named by one (a wide table); in a file holding a not-comparable method anywhere, its
    Holm-adjusted values (``p_holm``, and the pairwise matrices, whose stars are Holm's)."""
    not_comparable = not_comparable or {}
    result = Comparison(entry, reasons=dict(not_comparable))
    where = f"{entry}: {name}"
    if list(committed.columns) != list(recomputed.columns):
        gone = [c for c in committed.columns if c not in recomputed.columns]
        new = [c for c in recomputed.columns if c not in committed.columns]
        result.differences.append(
            f"{where}: columns differ (committed only: {gone or '-'}; "
            f"recomputed only: {new or '-'})"
        )
        return result
    if len(committed) != len(recomputed):
        result.differences.append(
            f"{where}: committed {len(committed)} rows, recomputed {len(recomputed)}"
        )
        return result
    if is_timing_file(name.rsplit("/", 1)[-1]):
        result.timing += len(committed)
        return result
    labels = set(not_comparable)
    method_cols = [c for c in committed.columns if c in _METHOD_COLUMNS]
    cells = committed[method_cols + list(committed.columns[:1])].astype(str)
    tainted = bool(labels) and (
        bool(labels & set(map(str, committed.columns)))
        or bool(labels & set(cells.to_numpy().ravel()))
    )
    holm = tainted and ("pairwise" in name)
    columns = [
        c
        for c in committed.columns
        if not is_timing_column(c)
        and str(c) not in labels
        and not (tainted and str(c).startswith("p_holm"))
    ]
    if holm and name != "pairwise.csv":  # a matrix whose stars are Holm-adjusted
        result.not_comparable["(Holm family)"] = len(committed)
        return result
    lines: list[str] = []
    # cells equal as text need no closer look (a readings grid has 80,000 rows)
    unequal = (
        committed[columns].astype(str).to_numpy() != recomputed[columns].astype(str).to_numpy()
    ).any(axis=1)
    about = committed[method_cols].astype(str).to_numpy() if method_cols else None
    for i in range(len(committed)):
        hit = sorted(set(about[i]) & labels) if about is not None and labels else []
        if hit:
            result.not_comparable[hit[0]] = result.not_comparable.get(hit[0], 0) + 1
            continue
        result.compared += 1
        if not unequal[i]:
            continue
        old, new = committed.iloc[i], recomputed.iloc[i]
        diffs = [
            f"{c} committed {old[c]!s} recomputed {new[c]!s}"
            for c in columns
            if not _same(str(old[c]), str(new[c]))
        ]
        if diffs:
            lines.append(
                f"{where} row {i + 1} ({_row_name(old, list(committed.columns))}): "
                f"{'; '.join(diffs)}"
            )
    result.differences += lines[:MAX_LINES_PER_FILE]
    if len(lines) > MAX_LINES_PER_FILE:
        result.differences.append(f"{where}: {len(lines) - MAX_LINES_PER_FILE} more rows differ")
    return result


def read_summary(folder: Path) -> pd.DataFrame:
    """A run folder's summary.csv as the text it holds."""
    # as text: the comparison is of what was written, not of re-parsed floats; a text cell's
    # formula quote (evalkit.report.csv_safe) is how it is written, not what it holds
    return restore_frame(pd.read_csv(folder / "summary.csv", dtype=str, keep_default_na=False))


def read_csv(path: Path) -> pd.DataFrame:
    """A number file as the text it holds, formula quotes taken off."""
    return restore_frame(pd.read_csv(path, dtype=str, keep_default_na=False))


def compare_files(result, name: str, committed: Path, fresh: Path, reasons: dict[str, str]) -> None:
    """Add the comparison of every number file but summary.csv (buckets.csv, pairwise.csv,
    tables/*.csv) to ``result``; a file on one side only is a difference."""
    old, new = number_files(committed), number_files(fresh)
    for rel in sorted(set(old) | set(new)):
        if rel not in new:
            result.differences.append(f"{name}: {rel} committed, not made by the recomputed run")
            continue
        if rel not in old:
            result.differences.append(f"{name}: {rel} made by the recomputed run, not committed")
            continue
        part = compare_number_file(
            name, rel, read_csv(committed / rel), read_csv(fresh / rel), reasons
        )
        result.compared += part.compared
        result.timing += part.timing
        result.differences += part.differences
        for label, n in part.not_comparable.items():
            result.not_comparable[label] = result.not_comparable.get(label, 0) + n
        result.files += 1
