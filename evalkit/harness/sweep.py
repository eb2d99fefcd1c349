"""Aggregate a Hydra multirun (a sweep folder) into one table and a metric-against-parameter plot.

A sweep folder is ``results/sweeps/<experiment>/<time>/`` holding one numbered
folder per job; each job is an ordinary run folder (``summary.csv``,
``.hydra/overrides.yaml``). The parameters of the sweep are the overrides
whose values differ between jobs; overrides shared by every job (the data
set limit, ``sweep=NAME``) are reported in the caption, not as columns.

Usage::

    python -m evalkit.harness.sweep results/sweeps/extraction/2026-11-22_03-00-00
    python -m evalkit.harness.sweep SWEEP_DIR --metric word_f1 --dataset synthetic

writes ``sweep_table.{csv,md,tex}`` and ``sweep_plot.{png,svg}`` into the
sweep folder and prints their paths. The metric defaults to the sweep
config's ``aggregate.metric`` (recorded in each job's ``.hydra/config.yaml``),
else ``shingle_f1``.

:func:`objective` is the value a Hydra sweeper optimises (Optuna): the
summary value of ``aggregate.metric`` for ``aggregate.method`` on
``aggregate.dataset``.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from evalkit.report.md_escape import md_text
from evalkit.report.results import read_summary, write_csv
from evalkit.report.tables import format_cell, to_latex, to_markdown

__all__ = [
    "DEFAULT_METRIC",
    "aggregate",
    "collect",
    "job_dirs",
    "main",
    "objective",
    "plot_sweep",
    "read_overrides",
    "sweep_table",
]

DEFAULT_METRIC = "shingle_f1"
TABLE_STEM = "sweep_table"
PLOT_STEM = "sweep_plot"


def job_dirs(sweep_dir: str | Path) -> list[Path]:
    """The job folders of a sweep (numbered sub-folders), in job order."""
    root = Path(sweep_dir)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: no such sweep folder")
    return sorted(
        (p for p in root.iterdir() if p.is_dir() and p.name.isdigit()), key=lambda p: int(p.name)
    )


def read_overrides(job_dir: str | Path) -> dict[str, str]:
    """``key=value`` command-line overrides of one job (from ``.hydra/overrides.yaml``)."""
    path = Path(job_dir) / ".hydra" / "overrides.yaml"
    if not path.is_file():
        return {}
    out = {}
    for item in yaml.safe_load(path.read_text(encoding="utf-8")) or []:
        key, _, value = str(item).partition("=")
        out[key.lstrip("+~")] = value
    return out


def _parse(value: str) -> Any:
    """An override value as YAML reads it (``3`` -> 3, ``0.8`` -> 0.8), else the string."""
    try:
        return yaml.safe_load(value)
    except yaml.YAMLError:
        return value


def _job_metric_default(job_dir: Path) -> str | None:
    path = job_dir / ".hydra" / "config.yaml"
    if not path.is_file():
        return None
    cfg = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    agg = cfg.get("aggregate") or {}
    return agg.get("metric") if isinstance(agg, dict) else None


def collect(sweep_dir: str | Path) -> tuple[pd.DataFrame, list[str], dict[str, str], list[str]]:
    """Every job's summary rows with the job's parameters as columns.

    Returns ``(rows, params, fixed, missing)``: ``params`` are the override
    keys that vary between jobs (in first-seen order), ``fixed`` the overrides
    shared by all jobs, ``missing`` the jobs without a ``summary.csv`` (failed
    or still running).
    """
    jobs = job_dirs(sweep_dir)
    found, missing = [], []
    for job in jobs:
        if (job / "summary.csv").is_file():
            found.append((job, read_overrides(job)))
        else:
            missing.append(job.name)
    if not found:
        raise FileNotFoundError(f"{sweep_dir}: no job folder holds a summary.csv")
    keys = list(dict.fromkeys(k for _, ov in found for k in ov))
    params = [k for k in keys if len({ov.get(k) for _, ov in found}) > 1]
    fixed = {k: found[0][1][k] for k in keys if k not in params}
    frames = []
    for job, ov in found:
        df = read_summary(job)
        df.insert(0, "job", int(job.name))
        for i, k in enumerate(params):
            df.insert(1 + i, k, ov.get(k))
        frames.append(df)
    return pd.concat(frames, ignore_index=True), params, fixed, missing


def _sort_key(value: Any) -> tuple:
    """Numbers before strings, numbers by value: ``range(0,9)`` sorts 0..8, not 0, 1, 10."""
    v = _parse(value) if isinstance(value, str) else value
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return (0, float(v), "")
    return (1, 0.0, str(value))


def sweep_table(
    rows: pd.DataFrame, params: list[str], metric: str, dataset: str | None = None
) -> pd.DataFrame:
    """One row per (job, dataset, method): the parameters, the metric and its interval."""
    df = rows[rows["metric"] == metric]
    if dataset is not None:
        df = df[df["dataset"] == dataset]
    if df.empty:
        have = sorted(set(rows["metric"]))
        raise ValueError(
            f"no summary rows for metric {metric!r}"
            + (f" on dataset {dataset!r}" if dataset else "")
            + f"; metrics in this sweep: {', '.join(have)}"
        )
    cols = ["job", *params, "dataset", "method", "value", "ci_low", "ci_high", "n_pages"]
    df = df[cols].rename(columns={"value": metric})
    order = sorted(
        range(len(df)),
        key=lambda i: (
            tuple(_sort_key(df.iloc[i][p]) for p in params),
            df.iloc[i]["dataset"],
            df.iloc[i]["method"],
            df.iloc[i]["job"],
        ),
    )
    return df.iloc[order].reset_index(drop=True)


def _formatted(table: pd.DataFrame, metric: str) -> pd.DataFrame:
    """The table for md/tex: the metric cell with its interval, ``0.812 [0.790, 0.833]``."""
    out = table.drop(columns=["ci_low", "ci_high"]).copy()
    for col in out.columns[1 : out.columns.get_loc("dataset")]:
        out[col] = [_short(v) for v in out[col]]
    out[metric] = [
        format_cell(v, lo, hi)
        for v, lo, hi in zip(table[metric], table["ci_low"], table["ci_high"])
    ]
    return out


def _short(value: Any) -> str:
    """A parameter value for labels: floats from a search (0.8718352148675887) to 4 digits."""
    v = _parse(value) if isinstance(value, str) else value
    return f"{v:.4g}" if isinstance(v, float) else str(value)


def _metric_name(metric: str) -> str:
    """``shingle_f1`` -> ``shingle F1`` for axis labels."""
    return " ".join({"f1": "F1"}.get(w, w) for w in metric.split("_"))


def _label(row: pd.Series, params: list[str]) -> str:
    if len(params) == 1:  # the axis label names the one parameter
        return _short(row[params[0]])
    return ", ".join(f"{p.rsplit('.', 1)[-1]}={_short(row[p])}" for p in params)


def plot_sweep(
    table: pd.DataFrame, params: list[str], metric: str, stem: str | Path, title: str = ""
) -> list[Path]:
    """The metric against the swept parameter, one line and 95% band per (dataset, method).

    One numeric parameter gives a line over its values; several parameters
    (a grid, an Optuna study) give one point per combination on a categorical
    axis, sorted as in the table, with the interval as an error bar.
    """
    import matplotlib.pyplot as plt

    from evalkit.report.plots import save  # sets the headless backend before pyplot loads

    numeric = len(params) == 1 and all(_sort_key(v)[0] == 0 for v in table[params[0]])
    series = list(dict.fromkeys(zip(table["dataset"], table["method"])))
    if numeric:
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
    else:
        combos = list(dict.fromkeys(_label(r, params) for _, r in table.iterrows())) or [
            "(one job)"
        ]
        fig, ax = plt.subplots(figsize=(max(6.4, 0.45 * len(combos) + 2.5), 4.6))
    for ds, method in series:
        sub = table[(table["dataset"] == ds) & (table["method"] == method)]
        name = method if len({d for d, _ in series}) == 1 else f"{method} ({ds})"
        y = sub[metric].to_numpy(float)
        lo, hi = sub["ci_low"].to_numpy(float), sub["ci_high"].to_numpy(float)
        if numeric:
            x = [float(_parse(v)) for v in sub[params[0]]]
            (line,) = ax.plot(x, y, marker="o", label=name)
            ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.2)
        else:
            x = (
                [combos.index(_label(r, params)) for _, r in sub.iterrows()]
                if params
                else [0] * len(sub)
            )
            err = [
                [max(a - b, 0) if not math.isnan(b) else 0 for a, b in zip(y, lo)],
                [max(b - a, 0) if not math.isnan(b) else 0 for a, b in zip(y, hi)],
            ]
            ax.errorbar(x, y, yerr=err, marker="o", linestyle="none", capsize=3, label=name)
    if numeric:
        ax.set_xlabel(params[0])
    else:
        ax.set_xticks(range(len(combos)), combos, rotation=45, ha="right", fontsize=8)
        ax.set_xlabel(
            params[0] if len(params) == 1 else "parameters of the job" if params else "job"
        )
    ax.set_ylabel(f"{_metric_name(metric)} (95% bootstrap CI)")
    ax.set_title(title or f"{_metric_name(metric)} over the sweep")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return save(fig, stem)


def aggregate(
    sweep_dir: str | Path, metric: str | None = None, dataset: str | None = None
) -> dict[str, Any]:
    """Write ``sweep_table.{csv,md,tex}`` and ``sweep_plot.{png,svg}`` into ``sweep_dir``."""
    from evalkit.report.results import atomic_write_text

    root = Path(sweep_dir)
    rows, params, fixed, missing = collect(root)
    metric = metric or _job_metric_default(job_dirs(root)[0]) or DEFAULT_METRIC
    table = sweep_table(rows, params, metric, dataset)
    shown = _formatted(table, metric)
    caption = (
        f"Sweep {root.name}: {metric} per job, mean [95% bootstrap CI]"
        + (f"; fixed: {', '.join(f'{k}={v}' for k, v in fixed.items())}" if fixed else "")
        + (f"; jobs without results: {', '.join(missing)}" if missing else "")
    )
    paths = [
        write_csv(table, root / f"{TABLE_STEM}.csv"),
        atomic_write_text(
            root / f"{TABLE_STEM}.md", f"**{md_text(caption)}**\n\n" + to_markdown(shown)
        ),
        atomic_write_text(root / f"{TABLE_STEM}.tex", to_latex(shown, caption)),
    ]
    paths += plot_sweep(
        table,
        params,
        metric,
        root / PLOT_STEM,
        title=f"{_metric_name(metric)} against "
        f"{', '.join(p.rsplit('.', 1)[-1] for p in params) or 'job'}",
    )
    return {
        "table": table,
        "params": params,
        "fixed": fixed,
        "missing": missing,
        "metric": metric,
        "paths": paths,
    }


def objective(cfg, out_dir: str | Path) -> float | None:
    """The number a sweeper optimises, from the run's ``summary.csv``; None without ``aggregate``.

    ``aggregate.metric`` of ``aggregate.method`` on ``aggregate.dataset`` (the
    first data set when unset). A failed or missing cell gives NaN, which
    Optuna records as a failed trial rather than a good one.
    """
    agg = cfg.get("aggregate") if hasattr(cfg, "get") else None
    if not agg or not agg.get("method"):
        return None
    df = read_summary(Path(out_dir))
    metric = agg.get("metric") or DEFAULT_METRIC
    sel = (df["metric"] == metric) & (df["method"] == agg["method"])
    if agg.get("dataset"):
        sel &= df["dataset"] == agg["dataset"]
    values = df.loc[sel, "value"]
    return float(values.iloc[0]) if len(values) else float("nan")


def main(argv: list[str] | None = None) -> int:
    from evalkit.core.terminal import guard_console

    guard_console()  # data's control characters are shown, never obeyed

    parser = argparse.ArgumentParser(
        prog="python -m evalkit.harness.sweep",
        description=(
            "Aggregate a sweep folder (evalkit -m ...) into sweep_table.{csv,md,tex} and "
            "sweep_plot.{png,svg}."
        ),
    )
    parser.add_argument("sweep_dir", help="results/sweeps/<experiment>/<time>")
    parser.add_argument(
        "--metric",
        default=None,
        help="summary metric to tabulate (default: the sweep's aggregate.metric, "
        f"else {DEFAULT_METRIC})",
    )
    parser.add_argument("--dataset", default=None, help="only this data set (default: all)")
    args = parser.parse_args(argv)
    try:
        res = aggregate(args.sweep_dir, metric=args.metric, dataset=args.dataset)
    except (FileNotFoundError, ValueError) as exc:
        print(f"evalkit.harness.sweep: {exc}", file=sys.stderr)
        return 2
    print(
        f"evalkit.harness.sweep: {len(res['table'])} rows of {res['metric']} over "
        f"{', '.join(res['params']) or 'no varying parameter'}"
    )
    for p in res["paths"]:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
