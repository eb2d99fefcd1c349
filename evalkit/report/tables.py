"""Tables from run files: a wide method x metric view of ``summary.csv`` in csv, md and tex.

Tables are always made from the files of a run, never from objects in memory,
so a stored run can be re-tabulated alone (docs/architecture.md#the-flow-of-a-run).
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from evalkit.report.cells import Cell, numeric_frame
from evalkit.report.filenames import with_ext
from evalkit.report.latex import to_latex
from evalkit.report.md_escape import md_text
from evalkit.report.results import atomic_write_text, write_csv

__all__ = [
    "Cell",
    "cross_table",
    "format_cell",
    "to_latex",
    "to_markdown",
    "wide_table",
    "write_table",
]


def format_cell(
    value: float, low: float | None = None, high: float | None = None, digits: int = 3
) -> Cell:
    """A :class:`~evalkit.report.cells.Cell`, shown ``0.812 [0.790, 0.833]``; a missing
    interval shows the value alone, NaN shows ``-``. It keeps the numbers for the csv."""
    nan = float("nan")
    value = nan if value is None or pd.isna(value) else float(value)
    has = low is not None and high is not None and not (pd.isna(low) or pd.isna(high))
    return Cell(value, float(low) if has else nan, float(high) if has else nan, digits)


def _cells(sub: pd.DataFrame, keys: list[str], with_ci: bool, digits: int) -> dict[str, Cell]:
    """Formatted cells of the rows of ``sub`` (indexed by ``keys``' kind); '-' where missing."""
    out = {}
    for key in keys:
        if key in sub.index:
            r = sub.loc[key]
            out[key] = format_cell(
                r["value"],
                r["ci_low"] if with_ci else None,
                r["ci_high"] if with_ci else None,
                digits,
            )
        else:
            out[key] = Cell(float("nan"), digits=digits)
    return out


def wide_table(
    summary: pd.DataFrame,
    metrics: list[str],
    dataset: str | None = None,
    experiment: str | None = None,
    with_ci: bool = True,
    digits: int = 3,
    method_order: list[str] | None = None,
) -> pd.DataFrame:
    """Rows = methods (in run order), columns = metrics, cells formatted with their interval."""
    df = summary
    if dataset is not None:
        df = df[df["dataset"] == dataset]
    if experiment is not None:
        df = df[df["experiment"] == experiment]
    df = df[df["metric"].isin(metrics)]
    methods = method_order or list(dict.fromkeys(df["method"]))
    rows = []
    for m in methods:
        sub = df[df["method"] == m].set_index("metric")
        if sub.empty:
            continue
        row = {"method": m, **_cells(sub, metrics, with_ci, digits)}
        row["n_pages"] = int(sub["n_pages"].max())
        rows.append(row)
    return pd.DataFrame(rows, columns=["method", *metrics, "n_pages"])


def cross_table(
    summary: pd.DataFrame,
    metric: str,
    experiment: str | None = None,
    digits: int = 3,
    with_ci: bool = False,
) -> pd.DataFrame:
    """Rows = methods, columns = data sets, cells = one metric: the at-a-glance view
    of a run over several sets (method and data set order as in the run)."""
    df = summary[summary["metric"] == metric]
    if experiment is not None:
        df = df[df["experiment"] == experiment]
    datasets = list(dict.fromkeys(df["dataset"]))
    rows = []
    for method in dict.fromkeys(df["method"]):
        sub = df[df["method"] == method].set_index("dataset")
        rows.append({"method": method, **_cells(sub, datasets, with_ci, digits)})
    return pd.DataFrame(rows, columns=["method", *datasets])


def to_markdown(df: pd.DataFrame) -> str:
    """A markdown table of ``df``'s cells as text, their HTML shown, not run
    (evalkit.report.md_escape)."""
    cols = [md_text(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for _, row in df.iterrows():
        lines.append("| " + " | ".join(md_text(v) for v in row.tolist()) + " |")
    return "\n".join(lines) + "\n"


def write_table(df: pd.DataFrame, stem: str | os.PathLike, caption: str = "") -> list[Path]:
    """Write ``stem.csv`` (numbers in numeric columns: :func:`~evalkit.report.cells.numeric_frame`),
    ``stem.md`` and ``stem.tex`` (formatted cells; evalkit.report.latex); returns the paths."""
    stem = Path(stem)  # a dot in the name is part of it (v1.0): appended, never with_suffix
    paths = [write_csv(numeric_frame(df), with_ext(stem, ".csv"))]
    md = (f"**{md_text(caption)}**\n\n" if caption else "") + to_markdown(df)
    paths.append(atomic_write_text(with_ext(stem, ".md"), md))
    paths.append(atomic_write_text(with_ext(stem, ".tex"), to_latex(df, caption)))
    return paths
