"""Tables and figures of one data set's timings: the speed table, time against size, the
ratio to the parse, and where the time goes."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from evalkit.experiments import Context
from evalkit.experiments.speed.summary import speed_table, step_table
from evalkit.experiments.speed.timing import PARSE_LABEL, PY_WALK_LABEL
from evalkit.report.filenames import file_stem
from evalkit.report.plots import save
from evalkit.report.sections import Figure, Heading, Table
from evalkit.report.tables import write_table


def _dataset_outputs(ctx: Context, summary, per_page, label, clock):
    table = speed_table(summary, label)
    unit = "CPU" if clock == "cpu" else "wall"
    caption = (
        f"Speed on {label} ({unit} ms/page, one process): median, p90, pages/s, median "
        f"over median parse, growth exponent of time ~ bytes^b [95% bootstrap CI]"
    )
    stem = f"speed_{file_stem(label)}"  # the label as a file name (evalkit.report.filenames)
    write_table(table, ctx.out / "tables" / stem, caption=caption)
    _size_figure(per_page, summary, ctx.out / "figures" / f"{stem}_time_vs_size", label, unit)
    _ratio_figure(summary, ctx.out / "figures" / f"{stem}_ratio", label)
    ctx.report += [
        Heading(f"Speed on {label}"),
        Table(table, lead=f"**{caption}**", gap=False),
        Figure(f"figures/{stem}_time_vs_size.png", "time vs size", gap=False),
        Figure(f"figures/{stem}_ratio.png", "ratio to parse"),
    ]


def _size_figure(per_page, summary, stem, dataset, unit):
    """Log-log scatter of ms against page bytes, one colour per method, fitted power laws."""
    exps = summary[summary["metric"] == "growth_exponent"].set_index("method")
    first = per_page.drop_duplicates("page_id")
    series = [(PARSE_LABEL, first["n_bytes"], first["parse_ms"])]
    for m, df in per_page[per_page["error"].isna()].groupby("method", sort=False):
        series.append((m, df["n_bytes"], df["ms"]))
    fig, ax = plt.subplots(figsize=(7.5, 5.0))
    for m, x, y in series:
        x, y = x.to_numpy(float), y.to_numpy(float)
        ok = (x > 0) & (y > 0)
        if not ok.any():
            continue
        pts = ax.scatter(x[ok], y[ok], s=6, alpha=0.35)
        b = exps.loc[m, "value"] if m in exps.index else np.nan
        label = m
        if np.isfinite(b):
            lo, hi = exps.loc[m, "ci_low"], exps.loc[m, "ci_high"]
            label = f"{m}: b = {b:.2f} [{lo:.2f}, {hi:.2f}]"
            lx, ly = np.log(x[ok]), np.log(y[ok])
            grid = np.linspace(lx.min(), lx.max(), 20)
            ax.plot(
                np.exp(grid),
                np.exp(ly.mean() + b * (grid - lx.mean())),
                color=pts.get_facecolor()[0][:3],
                lw=1.5,
            )
        pts.set_label(label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("page size (bytes, log scale)")
    ax.set_ylabel(f"time per page ({unit} ms, log scale)")
    ax.set_title(f"{dataset}: time per page vs page size (lines: fit of time ~ bytes^b)")
    ax.grid(alpha=0.3, which="both")
    leg = ax.legend(
        fontsize=7,
        title="method: growth exponent b [95% CI]",
        title_fontsize=7,
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        markerscale=2,
    )
    for h in leg.legend_handles:
        h.set_alpha(1)
    return save(fig, stem)


def _ratio_figure(summary, stem, dataset):
    """Bars of median time over median parse time with bootstrap CIs and the target line."""
    df = summary[(summary["dataset"] == dataset) & (summary["metric"] == "ratio_to_parse")]
    df = df[df["method"] != PARSE_LABEL]
    targets = summary[(summary["dataset"] == dataset) & (summary["metric"] == "target_ratio")]
    v = df["value"].to_numpy(float)
    err = np.vstack(
        [
            np.clip(v - df["ci_low"].to_numpy(float), 0, None),
            np.clip(df["ci_high"].to_numpy(float) - v, 0, None),
        ]
    )
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(df) + 2), 4.2))
    x = np.arange(len(df))
    floor = (df["method"] == PY_WALK_LABEL).to_numpy()
    ax.bar(
        x[~floor],
        v[~floor],
        yerr=np.nan_to_num(err[:, ~floor]),
        capsize=3,
        color="tab:blue",
        label="median time / median parse time (95% CI)",
    )
    if floor.any():
        ax.bar(
            x[floor],
            v[floor],
            yerr=np.nan_to_num(err[:, floor]),
            capsize=3,
            color="tab:gray",
            label="parse + a bare Python walk of the page (floor)",
        )
    for t in sorted(set(targets["value"])):
        ax.axhline(t, color="tab:red", ls="--", lw=1, label=f"target: <= {t:g} x parse")
    ax.axhline(1, color="grey", lw=0.8, label="= parse time")
    ax.set_xticks(x, df["method"], rotation=30, ha="right")
    ax.set_yscale("log")
    ax.set_xlabel("method")
    ax.set_ylabel("median time / median lxml parse time (log scale)")
    ax.set_title(f"{dataset}: cost relative to parsing the page")
    ax.grid(axis="y", alpha=0.3, which="both")
    ax.legend(fontsize=8)
    return save(fig, stem)


def _steps_outputs(ctx: Context, per_page: pd.DataFrame, label: str) -> None:
    """The step table and its stacked bars, when some method timed its steps."""
    steps = step_table(per_page)
    if steps.empty:
        return
    parse = per_page.drop_duplicates("page_id")["parse_ms"].median()
    table = steps.assign(
        ms_mean=steps["ms_mean"].map("{:.3f}".format),
        ms_median=steps["ms_median"].map("{:.3f}".format),
        share=steps["share"].map("{:.1%}".format),
    )
    caption = (
        f"Where the time goes on {label}: each step the method times itself (wall ms "
        f"per page, mean and median; share of its steps' summed means); median lxml "
        f"parse {parse:.2f} ms"
    )
    write_table(table, ctx.out / "tables" / f"speed_{file_stem(label)}_steps", caption=caption)
    _steps_figure(steps, parse, ctx.out / "figures" / f"speed_{file_stem(label)}_steps", label)
    ctx.report += [
        Heading(f"Where the time goes on {label}"),
        Table(table, lead=f"**{caption}**", gap=False),
        Figure(f"figures/speed_{file_stem(label)}_steps.png", "steps"),
    ]


def _steps_figure(steps: pd.DataFrame, parse_ms: float, stem, dataset: str):
    """One horizontal bar per method, stacked by step (mean ms), with the parse time and
    three times it marked."""
    methods = list(dict.fromkeys(steps["method"]))
    names = list(dict.fromkeys(steps["step"]))
    colours = plt.get_cmap("tab10")
    fig, ax = plt.subplots(figsize=(8.0, 1.0 + 0.6 * len(methods)))
    left = np.zeros(len(methods))
    for j, name in enumerate(names):
        sub = steps[steps["step"] == name].set_index("method").reindex(methods)
        width = sub["ms_mean"].fillna(0.0).to_numpy(float)
        ax.barh(np.arange(len(methods)), width, left=left, color=colours(j % 10), label=name)
        left += width
    if np.isfinite(parse_ms):
        ax.axvline(parse_ms, color="grey", lw=1, ls=":", label=f"median parse ({parse_ms:.2f} ms)")
        ax.axvline(3 * parse_ms, color="tab:red", lw=1, ls="--", label="3 x median parse")
    ax.set_yticks(np.arange(len(methods)), methods)
    ax.invert_yaxis()
    ax.set_xlabel("mean wall ms per page, stacked by step")
    ax.set_title(f"{dataset}: where the time goes")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return save(fig, stem)


#: the memory ladder's target (issue 41): the whole tree under 1 GB at a million pages
MEMORY_TARGET_MIB = 1e9 / 2**20


def memory_ladder_figure(table: pd.DataFrame, stem) -> None:
    """Peak memory against pages (log x): the whole tree and the largest process per runner,
    with the 1 GB target."""
    fig, ax = plt.subplots(figsize=(7.0, 4.5))
    for runner, df in table.groupby("runner", sort=False):
        df = df.sort_values("pages")
        (line,) = ax.plot(df["pages"], df["tree_pss_mb"], marker="o", label=f"{runner}: whole tree")
        ax.plot(
            df["pages"],
            df["rss_max_process_mb"],
            marker="s",
            ls="--",
            color=line.get_color(),
            label=f"{runner}: largest process",
        )
    ax.axhline(MEMORY_TARGET_MIB, color="grey", lw=1, ls=":", label="1 GB")
    ax.set_xscale("log")
    rungs = sorted(set(table["pages"]))
    ax.set_xticks(rungs, [f"{p:,}" for p in rungs])  # the rungs, not powers of ten
    ax.xaxis.set_minor_locator(plt.NullLocator())
    ax.set_ylim(bottom=0)
    ax.set_xlabel("pages (log scale)")
    ax.set_ylabel("peak memory (MiB)")
    ax.set_title("Memory ladder: synthetic extraction, cache off")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    save(fig, stem)
