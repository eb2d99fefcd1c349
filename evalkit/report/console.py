"""The result on the console (issue 29, item 3): one compact table per data set.

At the end of an extraction the command prints, for each data set, the headline metric of
every method sorted by it (shingle F1, the ScrapingHub benchmark's, with its bootstrap
interval), then precision, recall and failures, as the benchmark's own ``evaluate.py``
prints its table. Lines fit :data:`WIDTH` columns: a long method name is cut with ``~``.
``runner.quiet=true`` leaves the table out (``runner.progress=false`` keeps it); the full
tables are in report.md and summary.csv.
"""

from __future__ import annotations

import math

import pandas as pd

__all__ = ["HEADLINE", "WIDTH", "console_table", "text_table"]

#: the widest line the table prints
WIDTH = 100
#: (metric prefix, what the head calls it): F1 sorts the table, P and R follow
HEADLINE = ("shingle", "shingle F1")
#: widths of the number columns: F1 with its interval, precision, recall, failures
_F1_W, _NUM_W, _FAIL_W = 21, 6, 13


def _value(rows: pd.DataFrame, method: str, metric: str) -> pd.Series | None:
    hit = rows[(rows["method"] == method) & (rows["metric"] == metric)]
    return None if hit.empty else hit.iloc[0]


def _num(x) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3f}"


def _f1_cell(row) -> str:
    if row is None or math.isnan(row["value"]):
        return "-"
    lo, hi = row["ci_low"], row["ci_high"]
    if math.isnan(lo) or math.isnan(hi):
        return f"{row['value']:.3f}"
    return f"{row['value']:.3f} [{lo:.3f}, {hi:.3f}]"


def _cut(name: str, width: int) -> str:
    return name if len(name) <= width else name[: width - 1] + "~"


def console_table(
    summary: pd.DataFrame, dataset: str, ci: str = "95% bootstrap CI", width: int = WIDTH
) -> str:
    """The table of one data set's summary rows (evalkit.experiments.extraction), sorted by
    F1 (highest first; a method without an F1 last, by name). Empty string without rows."""
    rows = summary[summary["dataset"] == dataset]
    prefix, title = HEADLINE
    methods = list(dict.fromkeys(rows["method"]))
    if not methods:
        return ""
    facts = []
    for method in methods:
        f1 = _value(rows, method, f"{prefix}_f1")
        fail = _value(rows, method, "failures")
        n = (
            int(fail["n_pages"])
            if fail is not None
            else (int(f1["n_pages"]) if f1 is not None else 0)
        )
        failed = int(fail["value"]) if fail is not None and not math.isnan(fail["value"]) else 0
        p = _value(rows, method, f"{prefix}_precision")
        r = _value(rows, method, f"{prefix}_recall")
        score = f1["value"] if f1 is not None and not math.isnan(f1["value"]) else -math.inf
        facts.append(
            (
                score,
                method,
                _f1_cell(f1),
                _num(None if p is None else p["value"]),
                _num(None if r is None else r["value"]),
                f"{failed}/{n}" if n else "-",
            )
        )
    facts.sort(key=lambda f: (-f[0], f[1]))
    name_w = max(
        6, min(max(len(f[1]) for f in facts), width - (_F1_W + 2 * _NUM_W + _FAIL_W + 12))
    )  # 5 gaps of 2, 2 indent
    pages = int(rows["n_pages"].max()) if len(rows) else 0
    head = f"{dataset} ({pages} pages): {title} with its {ci}, sorted by F1"
    lines = [
        _cut(head, width),
        (
            f"  {'method':<{name_w}}  {'F1 [interval]':<{_F1_W}}  {'P':>{_NUM_W}}  "
            f"{'R':>{_NUM_W}}  {'failures':>{_FAIL_W}}"
        ),
    ]
    for _, method, f1, p, r, fail in facts:
        lines.append(
            f"  {_cut(method, name_w):<{name_w}}  {f1:<{_F1_W}}  {p:>{_NUM_W}}  "
            f"{r:>{_NUM_W}}  {fail:>{_FAIL_W}}"
        )
    return "\n".join(line.rstrip() for line in lines)


def _numeric(cell: str) -> bool:
    return cell.lstrip("+-").replace(".", "", 1).replace("/", "", 1).isdigit() or cell == "-"


def text_table(
    frame: pd.DataFrame, title: str, notes: tuple[str, ...] = (), width: int = WIDTH
) -> str:
    """Any small table (a benchmark study's headline numbers, evalkit.experiments.studies) as
    :func:`console_table` prints one: a title line, a head, one row per line (numbers right,
    words left), the first column cut with ``~`` so lines fit ``width``; then ``notes``."""
    if frame.empty:
        return ""
    cells = frame.astype(str)
    cols = list(cells.columns)
    widths = {c: max(len(str(c)), *(len(v) for v in cells[c])) for c in cols}
    rest = sum(widths[c] + 2 for c in cols[1:]) + 2
    widths[cols[0]] = max(6, min(widths[cols[0]], width - rest))
    right = {c: c != cols[0] and all(_numeric(v) for v in cells[c]) for c in cols}

    def line(values) -> str:
        out = [
            f"{_cut(v, widths[c]):>{widths[c]}}"
            if right[c]
            else f"{_cut(v, widths[c]):<{widths[c]}}"
            for c, v in zip(cols, values)
        ]
        return ("  " + "  ".join(out)).rstrip()

    lines = [_cut(title, width), line([str(c) for c in cols])]
    lines += [line(row) for row in cells.itertuples(index=False)]
    lines += [_cut(n, width) for n in notes]
    return "\n".join(lines)
