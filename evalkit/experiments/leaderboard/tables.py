"""The leaderboard's tables, from its summary rows (pure: frames in, frames out).

* :func:`board_table`: methods x data sets, each cell the benchmark's main score with its
  interval, then the mean rank; a cell of a method trained on that set is marked.
* :func:`rank_tables`: Friedman's test over the data sets (blocks) and the post-hoc pairs.
* :func:`group_table`: one data set's main score per group of pages (page type, language,
  complexity bucket), a column per method.
"""

from __future__ import annotations

import math

import pandas as pd

from evalkit.metrics import ranks

__all__ = ["POSTHOCS", "TRAINED", "board_scores", "board_table", "group_table", "rank_tables"]

#: the mark of a cell whose method declares it was trained on that data set
TRAINED = "†"
#: post-hoc tests of the ranks (``leaderboard.posthoc``)
POSTHOCS = ("nemenyi", "holm_wilcoxon")


def _cell(v: float, low: float, high: float) -> str:
    if math.isnan(v):
        return "-"
    if math.isnan(low) or math.isnan(high):
        return f"{v:.3f}"
    return f"{v:.3f} [{low:.3f}, {high:.3f}]"


def board_scores(summary: pd.DataFrame, methods: list[str], sets: list[str]) -> pd.DataFrame:
    """The main scores as a table: rows = data sets (blocks), columns = ``methods``."""
    rows = summary[summary["metric"] == "board_score"]
    table = rows.pivot_table(index="dataset", columns="method", values="value", aggfunc="first")
    return table.reindex(index=sets, columns=methods).astype(float)


def board_table(
    summary: pd.DataFrame,
    methods: list[str],
    sets: list[str],
    trained: dict[str, set[str]],
    mean_ranks: pd.Series | None,
) -> pd.DataFrame:
    """One row per method: each set's ``score [low, high]`` (``†``: trained on the set),
    failures summed over the sets, and the mean rank (``-``: not ranked). Sorted by mean
    rank, then by name."""
    keyed = summary.set_index(["dataset", "method", "metric"])
    rows = []
    for m in methods:
        row = {"method": m}
        failures = 0
        for s in sets:
            key = (s, m, "board_score")
            if key in keyed.index:
                r = keyed.loc[key]
                cell = _cell(float(r["value"]), float(r["ci_low"]), float(r["ci_high"]))
            else:
                cell = "-"
            row[s] = cell + (f" {TRAINED}" if m in trained.get(s, set()) else "")
            f = (s, m, "board_failures")
            failures += int(keyed.loc[f]["value"]) if f in keyed.index else 0
        row["failures"] = failures
        rank = None if mean_ranks is None else mean_ranks.get(m)
        row["mean rank"] = "-" if rank is None or math.isnan(rank) else f"{rank:.2f}"
        rows.append(row)
    frame = pd.DataFrame(rows)
    key = pd.to_numeric(frame["mean rank"], errors="coerce").fillna(math.inf)
    return (
        frame.assign(_k=key).sort_values(["_k", "method"]).drop(columns="_k").reset_index(drop=True)
    )


def rank_tables(
    scores: pd.DataFrame, alpha: float, posthoc: str
) -> tuple[ranks.Friedman, pd.DataFrame, pd.DataFrame, float]:
    """Friedman's test over ``scores`` (rows = blocks, columns = methods) as a one-row
    table, the post-hoc pairs (``posthoc``: Nemenyi or Holm-corrected Wilcoxon) and the
    Nemenyi critical difference (the CD diagram's bar)."""
    if posthoc not in POSTHOCS:
        raise ValueError(f"leaderboard.posthoc must be one of {list(POSTHOCS)}, got {posthoc!r}")
    test = ranks.friedman(scores)
    cd = ranks.nemenyi_cd(test.k, test.n, alpha)
    head = pd.DataFrame(
        [
            {
                "blocks (data sets)": test.n,
                "methods": test.k,
                "chi2_F": f"{test.chi2:.3f}",
                "p": f"{test.p:.4g}",
                "F_F": f"{test.f:.3f}",
                "p (F_F)": f"{test.p_f:.4g}",
                f"Nemenyi CD (alpha {alpha:g})": f"{cd:.3f}",
            }
        ]
    )
    pairs = (
        ranks.nemenyi(scores, alpha) if posthoc == "nemenyi" else ranks.holm_wilcoxon(scores, alpha)
    )
    return test, head, pairs, cd


def group_table(summary: pd.DataFrame, dataset: str, by: str, methods: list[str]) -> pd.DataFrame:
    """Rows = the groups of column ``by`` on ``dataset`` (pages), a column per method."""
    prefix = f"board_{by}="
    rows = summary[(summary["dataset"] == dataset) & summary["metric"].str.startswith(prefix)]
    if rows.empty:
        return pd.DataFrame()
    rows = rows.assign(group=rows["metric"].str.removeprefix(prefix))
    value = rows.pivot_table(index="group", columns="method", values="value", aggfunc="first")
    pages = rows.groupby("group")["n_pages"].max()
    out = value.reindex(columns=[m for m in methods if m in value.columns])
    out = out.map(lambda v: "-" if math.isnan(v) else f"{v:.3f}")
    out.insert(0, "pages", pages.reindex(out.index).astype(int))
    return out.reset_index().rename(columns={"group": by})
