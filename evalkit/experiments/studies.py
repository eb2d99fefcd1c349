"""What the benchmark studies show on the console (issue 38, item 2), as an extraction run does.

Each study (``wcxb``, ``trafilatura_eval``, ``wceb``) prints one table of its headline numbers
per data set (:func:`headline`, drawn by :func:`evalkit.report.console.text_table`): every
method sorted by the benchmark's main score, its failures and, where the benchmark published
a row for the tool, the published figure and the verdict (``within 0.01``, ``not
comparable``; the reason is in the table's title and in tables/). ``runner.quiet=true``
leaves them out.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from evalkit.report.console import text_table

__all__ = ["TRAINED_MARK", "headline", "show", "trained_here", "verdict"]

#: what a study's tables say beside a method trained or tuned on the data set it is scored on
TRAINED_MARK = "trained on this set"


def _names(label: str, ds) -> set[str]:
    """The names a data set goes by: its label in the run, and its folder's name with ``_``
    for ``-`` (``wcxb-dev`` -> ``wcxb_dev``), so a declaration holds whatever the run calls it."""
    names = {label}
    path = getattr(ds, "path", None)
    if path:
        names.add(Path(str(path)).name.replace("-", "_"))
    return names


def trained_here(ctx, label: str) -> set[str]:
    """The methods of the run that declare they were trained or tuned on data set ``label``
    (evalkit.core.method.trained_on): their rows are marked :data:`TRAINED_MARK`."""
    from evalkit.core.method import trained_on

    names, out = _names(label, ctx.datasets.get(label)), set()
    for spec in ctx.specs:
        try:
            declared = trained_on(spec.build())
        except TypeError:
            raise
        except Exception:  # noqa: BLE001, S112 - a method that cannot be built has no rows
            continue
        if names & set(declared):
            out.add(spec.label)
    return out


def show(
    ctx, frame: pd.DataFrame, title: str, notes: tuple[str, ...] = (), fit: bool = False
) -> None:
    """Print ``frame`` as a console table unless the run is quiet (``runner.quiet``); with
    ``fit``, as wide as its cells need (no method name cut to fit 100 characters)."""
    if not ctx.tell.quiet and not frame.empty:
        cells = frame.astype(str)
        need = sum(max(len(str(c)), *(len(v) for v in cells[c])) + 2 for c in cells.columns)
        print(text_table(frame, title, notes, **({"width": max(100, need + 2)} if fit else {})))


def verdict(agreement: str) -> str:
    """A comparison row's agreement (evalkit.experiments.benchmarks.comparison), short."""
    if "not comparable" in agreement:
        return "not comparable"
    if agreement.startswith("differs by up to "):
        return "differs by " + agreement.removeprefix("differs by up to ").split()[0]
    return agreement.split(" (")[0]


def _num(x) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3f}"


def headline(
    summary: pd.DataFrame,
    per_page: pd.DataFrame,
    prefix: str,
    metrics: dict[str, str],
    published: pd.DataFrame | None = None,
    trained: set[str] = frozenset(),
) -> pd.DataFrame:
    """One row per method of a set: the ``metrics`` (summary key without ``prefix`` -> head;
    the first sorts, highest first), failures (``k/n`` pages), and beside a method with a
    published row (``published``: the comparison table) the published first metric and the
    short verdict; a method in ``trained`` (:func:`trained_here`) says :data:`TRAINED_MARK`."""
    value = summary.set_index(["method", "metric"])["value"]
    first = next(iter(metrics))
    pub = {}
    if published is not None and len(published):
        for row in published.to_dict("records"):
            if row.get("method") not in (None, "-"):
                pub[row["method"]] = (
                    row.get(f"{first} published", "-"),
                    verdict(str(row.get("agreement", ""))),
                )
    rows = []
    for method, df in per_page.groupby("method", sort=False):
        row = {"method": method}
        for key, head in metrics.items():
            v = value.get((method, f"{prefix}{key}"))
            row[head] = _num(None if v is None else float(v))
        row["failures"] = f"{int(df['error'].notna().sum())}/{len(df)}"
        if pub:
            p, why = pub.get(method, ("-", "-"))
            row[f"{metrics[first]} published"] = p
            row["verdict"] = why
        if trained:
            row["note"] = TRAINED_MARK if method in trained else ""
        rows.append(row)
    frame = pd.DataFrame(rows)
    key = pd.to_numeric(frame[metrics[first]], errors="coerce").fillna(-1)
    return (
        frame.assign(_k=key)
        .sort_values(["_k", "method"], ascending=[False, True])
        .drop(columns="_k")
        .reset_index(drop=True)
    )
