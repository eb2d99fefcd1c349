"""A paper's published numbers beside ours: the long table, the wide table and the figure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd


def paper_rows(summary: pd.DataFrame, paper: Mapping[str, Any], dataset: str) -> pd.DataFrame:
    """The paper's numbers beside ours, long format, in percent.

    ``paper``: ``task`` (which task the paper's numbers belong to),
    ``metrics`` (score names, in the order of each row's values) and ``rows``
    (``{our classifier name: {row: the paper's row name, values: [...]}}``).
    Columns: paper row, method, metric, paper, ours, ours_low, ours_high
    (NaN where we have no such classifier).
    """
    task, metrics = paper["task"], list(paper["metrics"])
    df = summary[summary["dataset"] == dataset].set_index(["method", "metric"])
    out = []
    for method, row in paper["rows"].items():
        row_name = row.get("row", method)
        values = list(row["values"])
        if len(values) != len(metrics):
            raise ValueError(
                f"paper row {row_name!r} has {len(values)} values for "
                f"{len(metrics)} metrics {metrics}"
            )
        for m, v in zip(metrics, values):
            key = (method, f"{m}_{task}")
            ours = df.loc[key] if key in df.index else None
            out.append(
                {
                    "paper row": row_name,
                    "method": method,
                    "metric": m,
                    "paper": float(v),
                    **{
                        k: 100 * float(ours[c]) if ours is not None else np.nan
                        for k, c in (
                            ("ours", "value"),
                            ("ours_low", "ci_low"),
                            ("ours_high", "ci_high"),
                        )
                    },
                }
            )
    return pd.DataFrame(out)


def paper_table(long: pd.DataFrame) -> pd.DataFrame:
    """One row per paper row: ``<metric> paper`` and ``<metric> ours`` (with interval) columns."""
    from evalkit.report.tables import format_cell

    out = []
    for row_name, df in long.groupby("paper row", sort=False):
        rec = {"paper row": row_name, "method": df["method"].iloc[0]}
        for r in df.itertuples(index=False):
            rec[f"{r.metric} paper"] = f"{r.paper:.1f}"
            rec[f"{r.metric} ours"] = format_cell(r.ours, r.ours_low, r.ours_high, digits=1)
        out.append(rec)
    return pd.DataFrame(out)


def _paper_figure(long: pd.DataFrame, stem, dataset: str, paper) -> None:
    import matplotlib.pyplot as plt

    from evalkit.report.plots import save

    metric = list(paper["metrics"])[-1]
    df = long[long["metric"] == metric]
    ours = df["ours"].to_numpy(float)
    err = np.vstack(
        [
            np.clip(ours - df["ours_low"].to_numpy(float), 0, None),
            np.clip(df["ours_high"].to_numpy(float) - ours, 0, None),
        ]
    )
    x = np.arange(len(df))
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(df) + 2), 4.2))
    ax.bar(x - 0.2, df["paper"].to_numpy(float), 0.4, label="paper")
    ax.bar(x + 0.2, ours, 0.4, yerr=np.nan_to_num(err), capsize=3, label="evalkit (95% CI)")
    ax.set_xticks(x, df["paper row"], rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(f"{metric.replace('_', ' ')} (%)")
    ax.set_xlabel("classifier (the paper's row)")
    ax.set_ylim(0, 100)
    ax.set_title(f"{dataset}: {paper.get('source', 'paper')} vs evalkit, task {paper['task']}")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    save(fig, stem)
