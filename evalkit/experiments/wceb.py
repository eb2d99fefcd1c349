"""The ``wceb`` study: WCEB's stored outputs on the shared sets, scored under WCEB's own metric.

Bevendorff et al. (SIGIR 2023), the web-content-extraction benchmark (WCEB): about 23
extractors' outputs per set (``outputs/<set>/<tool>.jsonl``), read back by ``method=stored``
on the pages of the ``wceb`` reader (WCEB's page ids and gold), and scored with WCEB's
ROUGE-LSum (:mod:`evalkit.metrics.wceb_rouge`; Punkt sentences when NLTK's data is here,
``wceb.sentences``). For the sets where WCEB published its scorer's per-page scores
(``rouge/<set>/rouge_<tool>.csv``), each page's F1 is compared with the CSV's: the share of
pages within ``wceb.page_tolerance`` (0.001) and the data-set mean beside the CSV's mean
(within ``wceb.tolerance``, 0.002). WCEB's aggregates follow: per tool, the mean and median
F1 per set, **micro** (all pages of all sets pooled) and **macro** (the mean of the sets'
means, the median of their medians).

A page without a stored output for a tool is a failure of that tool (listed in run.json) and
has no score: means are over the pages with one, as WCEB's are.

Summary rows: per set and tool ``wceb_rougelsum_{precision,recall,f1}`` (means),
``wceb_rougelsum_median`` (median of the per-page F1), and where a CSV exists ``wceb_csv_f1``
(its mean F1), ``wceb_f1_compared`` and ``wceb_csv_f1_compared`` (evalkit's and the CSV's
mean over the pages both scored: like for like when a run has fewer pages than the CSV),
``wceb_pages_within`` (share of pages within the page tolerance) and ``wceb_pages_compared``; data set ``micro`` / ``macro``: ``wceb_rougelsum_mean`` and
``wceb_rougelsum_median`` (of the per-page F1).
"""

from __future__ import annotations

import csv
import functools
import math
import sys
from pathlib import Path

import pandas as pd

from evalkit.experiments import Context
from evalkit.experiments.benchmarks import bench_score
from evalkit.experiments.studies import show
from evalkit.harness.specs import MethodSpec
from evalkit.harness.summary import summary_row
from evalkit.metrics.wceb_rouge import PREFIX, punkt_available, punkt_versions
from evalkit.report.cells import Cell
from evalkit.report.sections import Figure, Heading, Table, Text
from evalkit.report.tables import write_table

__all__ = ["aggregate_rows", "read_csv_scores", "run", "stored_specs"]

F1 = f"{PREFIX}f1"
#: the summary rows of the mean and the median of the per-page F1 (``_mean`` only on the
#: micro and macro rows: a set's mean is the ``wceb_rougelsum_f1`` row)
MEAN, MEDIAN = f"{PREFIX}mean", f"{PREFIX}median"
#: the mark of a tool whose aggregates are over fewer sets than the others'
FEWER = "*"


def stored_specs(outputs: Path, tools: list[str] | None = None) -> list[MethodSpec]:
    """One ``stored`` method per ``<tool>.jsonl(.gz)`` of a set's output folder (or ``tools``)."""
    files = {}
    for f in sorted(outputs.iterdir()):
        name = f.name.removesuffix(".gz")
        if name.endswith(".jsonl"):
            files[name.removesuffix(".jsonl")] = f
    if tools:
        missing = [t for t in tools if t not in files]
        if missing:
            raise FileNotFoundError(f"{outputs}: no stored output for {', '.join(missing)}")
        files = {t: files[t] for t in tools}
    return [
        MethodSpec(label=t, registry="stored", params={"path": str(f), "format": "jsonl"})
        for t, f in files.items()
    ]


def read_csv_scores(folder: Path) -> dict[str, dict[str, float]]:
    """tool -> page id -> F1 of WCEB's per-page CSVs (``rouge_<tool>.csv``) in ``folder``."""
    out: dict[str, dict[str, float]] = {}
    if not folder.is_dir():
        return out
    for f in sorted(folder.glob("rouge_*.csv")):
        with f.open(newline="", encoding="utf-8") as fh:
            out[f.stem.removeprefix("rouge_")] = {
                r["hash_key"]: float(r["f1"]) for r in csv.DictReader(fh)
            }
    return out


def _mean_over(scores: dict[str, float], keys: list[str]) -> float:
    """The mean of ``scores`` over ``keys`` (the pages both sides scored), NaN without any."""
    return sum(scores[k] for k in keys) / len(keys) if keys else math.nan


def _set_rows(per_page: pd.DataFrame, label: str, csv_scores: dict, page_tol: float) -> list:
    rows = []
    for tool, df in per_page.groupby("method", sort=False):
        # a page without a stored output has no WCEB score (the runner may hand it on as empty)
        ok = df[df[F1].notna() & df["error"].isna()] if F1 in df else df.iloc[:0]
        for key in ("precision", "recall", "f1"):
            col = f"{PREFIX}{key}"
            if col in ok:
                rows.append(summary_row(label, tool, col, ok[col].mean(), n_pages=len(ok)))
        rows.append(
            summary_row(
                label, tool, MEDIAN, ok[F1].median() if len(ok) else math.nan, n_pages=len(ok)
            )
        )
        ref = csv_scores.get(tool)
        if ref:
            got = dict(zip(ok["page_id"].astype(str), ok[F1]))
            both = [k for k in ref if k in got]
            within = sum(abs(got[k] - ref[k]) <= page_tol for k in both)
            rows += [
                summary_row(
                    label, tool, "wceb_csv_f1", sum(ref.values()) / len(ref), n_pages=len(ref)
                ),
                # like for like: both means over the pages both sides scored
                summary_row(
                    label, tool, "wceb_f1_compared", _mean_over(got, both), n_pages=len(both)
                ),
                summary_row(
                    label, tool, "wceb_csv_f1_compared", _mean_over(ref, both), n_pages=len(both)
                ),
                summary_row(
                    label,
                    tool,
                    "wceb_pages_within",
                    within / len(both) if both else math.nan,
                    n_pages=len(both),
                ),
                summary_row(label, tool, "wceb_pages_compared", len(both), n_pages=len(both)),
            ]
    return rows


def aggregate_rows(pages: dict[str, pd.DataFrame]) -> list[dict]:
    """WCEB's micro and macro mean and median F1 of each tool over the sets in ``pages``."""
    rows = []
    frames = [
        df[df[F1].notna() & df.get("error", pd.Series(None, index=df.index)).isna()][
            ["method", F1]
        ].assign(dataset=s)
        for s, df in pages.items()
        if F1 in df
    ]
    if not frames:
        return rows
    allp = pd.concat(frames, ignore_index=True)
    for tool, df in allp.groupby("method", sort=False):
        by_set = df.groupby("dataset")[F1]
        rows += [
            summary_row("micro", tool, MEAN, df[F1].mean(), n_pages=len(df)),
            summary_row("micro", tool, MEDIAN, df[F1].median(), n_pages=len(df)),
            summary_row("macro", tool, MEAN, by_set.mean().mean(), n_pages=len(df)),
            summary_row("macro", tool, MEDIAN, by_set.median().median(), n_pages=len(df)),
        ]
    return rows


def _comparison_table(summary: pd.DataFrame, tol: float, page_tol: float) -> pd.DataFrame:
    v = summary.set_index(["dataset", "method", "metric"])["value"]
    rows = []
    for (ds, tool), _ in summary.groupby(["dataset", "method"], sort=False):
        if (ds, tool, "wceb_csv_f1") not in v:
            continue
        ours, ref = v[(ds, tool, F1)], v[(ds, tool, "wceb_csv_f1")]
        same, same_ref = v[(ds, tool, "wceb_f1_compared")], v[(ds, tool, "wceb_csv_f1_compared")]
        rows.append(
            {
                "set": ds,
                "tool": tool,
                "evalkit mean F1": f"{ours:.4f}",
                "WCEB CSV mean F1": f"{ref:.4f}",
                "difference": str(Cell(same - same_ref, digits=4, signed=True)),
                f"within {tol:g}": "yes" if abs(same - same_ref) <= tol else "no",
                "pages compared": int(v[(ds, tool, "wceb_pages_compared")]),
                "evalkit / CSV mean there": f"{same:.4f} / {same_ref:.4f}",
                f"pages within {page_tol:g}": f"{v[(ds, tool, 'wceb_pages_within')]:.1%}",
            }
        )
    return pd.DataFrame(rows)


def _aggregate_table(agg: pd.DataFrame, sets: pd.DataFrame) -> pd.DataFrame:
    piv = sets[sets["metric"] == F1].pivot(index="method", columns="dataset", values="value")
    piv.columns = [f"{c} mean" for c in piv.columns]
    a = agg.assign(col=agg["dataset"] + " " + agg["metric"].str.removeprefix(PREFIX))
    piv = piv.join(a.pivot(index="method", columns="col", values="value"))
    piv = piv.sort_values("micro mean", ascending=False) if "micro mean" in piv else piv
    out = piv.round(3).reset_index().rename(columns={"method": "tool"})
    scored = sets[(sets["metric"] == F1) & sets["value"].notna()]
    n_sets = scored.groupby("method")["dataset"].nunique()
    most = int(n_sets.max()) if len(n_sets) else 0
    # a tool over fewer sets than the others is not ranked like for like: marked
    out.insert(
        1,
        "sets",
        [
            f"{int(n_sets.get(t, 0))}" + (FEWER if n_sets.get(t, 0) < most else "")
            for t in out["tool"]
        ],
    )
    return out


def _tell_set(ctx: Context, per_page: pd.DataFrame, label: str) -> None:
    """One line for the pages no stored tool has an output for (ids WCEB's copy does not
    share, docs/benchmarks.md: expected, so kept out of the failures and listed in run.json
    ``datasets.<set>.without_stored_output``), one warning per tool whose outputs are all
    empty."""
    missing = per_page["error"].fillna("").str.startswith("MissingOutput")
    tools = per_page["method"].nunique()
    per_id = per_page[missing].groupby("page_id")["method"].nunique()
    unmatched = sorted(str(i) for i in per_id[per_id == tools].index)
    if unmatched:
        ids = set(unmatched)
        ctx.failures[:] = [
            f for f in ctx.failures if not (f["dataset"] == label and str(f["page"]) in ids)
        ]
        ctx.dataset_info.setdefault(label, {})["without_stored_output"] = unmatched
        print(
            f"evalkit: wceb {label}: {len(unmatched)} page(s) have no stored output of any of "
            f"the {tools} tools (ids WCEB's copy does not share, docs/benchmarks.md): "
            "expected, not counted as failures; listed in run.json",
            file=sys.stderr,
        )
    ok = per_page[per_page["error"].isna()]
    for tool, df in ok.groupby("method", sort=False):
        if len(df) and (df["n_words_out"] == 0).all():
            print(
                f"evalkit: warning: wceb {label}: all {len(df)} stored outputs of {tool} are "
                "empty (every page scores 0)",
                file=sys.stderr,
            )


def _scoring_inputs(sentences: str) -> dict:
    """What the study's numbers depend on beside the stored outputs and the data (run.json
    ``scoring``): the sentence splitter and the packages of Punkt and of the gold's reader."""
    from importlib import metadata

    packages = punkt_versions() if sentences == "punkt" else {}
    try:
        packages["resiliparse"] = metadata.version("resiliparse")
    except metadata.PackageNotFoundError:
        packages["resiliparse"] = None
    return {"sentences": sentences, "packages": dict(sorted(packages.items()))}


def run(ctx: Context) -> pd.DataFrame | None:
    opts = ctx.section("wceb")
    sentences = opts.get("sentences", "auto")
    if sentences == "auto":
        sentences = "punkt" if punkt_available() else "rule"
    outputs, rouge = Path(opts["outputs"]), Path(opts["rouge"])
    tol, page_tol = float(opts.get("tolerance", 0.002)), float(opts.get("page_tolerance", 0.001))
    score = functools.partial(bench_score, benchmark="wceb", sentences=sentences)
    ctx.scoring["wceb"] = _scoring_inputs(sentences)
    out, pages = [], {}
    for label, ds in ctx.datasets.items():
        wceb_set = getattr(ds, "set", None)
        if wceb_set is None:
            raise ValueError(
                f"study wceb: data set {label!r} is not read by the wceb reader "
                "(dataset=wceb_scrapinghub, ...)"
            )
        specs = stored_specs(outputs / wceb_set, opts.get("tools"))
        spill = ctx.stream_records("wceb", label, ds, score, specs, keep=True)
        if not spill.n_records:
            continue
        per_page = spill.frame()
        ctx.record_pages(per_page, label, spill=spill)
        _tell_set(ctx, per_page, label)
        pages[label] = per_page
        out += _set_rows(per_page, label, read_csv_scores(rouge / wceb_set), page_tol)
    if not out:
        return None
    out += aggregate_rows(pages)
    summary = pd.DataFrame(out)
    how = (
        "NLTK Punkt sentences, as WCEB's split_summaries"
        if sentences == "punkt"
        else "evalkit's rule sentences (Punkt is not installed here, pip install "
        '"evalkit[bench]": numbers may differ from WCEB\'s by a little; docs/benchmarks.md, '
        "Punkt)"
    )
    comp = _comparison_table(summary, tol, page_tol)
    cap = (
        f"WCEB ROUGE-LSum F1 recomputed from the stored outputs ({how}) beside the mean of "
        f"WCEB's own per-page CSVs (over all their pages; a run of fewer pages compares "
        f"on the pages both scored: 'mean there'); share of pages within {page_tol:g}"
    )
    write_table(comp, ctx.out / "tables" / "wceb_csv_comparison", caption=cap)
    sets = summary[~summary["dataset"].isin(["micro", "macro"])]
    agg = summary[summary["dataset"].isin(["micro", "macro"])]
    table = _aggregate_table(agg, sets)
    acap = (
        "WCEB ROUGE-LSum F1 per tool (sets: how many it was scored on; "
        f"{FEWER}: fewer than the others): mean per set, micro (all pages pooled) and macro "
        "(mean of set means, median of set medians) mean and median over the sets"
    )
    write_table(table, ctx.out / "tables" / "wceb_aggregates", caption=acap)
    heads = ["tool", "sets", "micro mean", "macro mean", "macro median"]
    fewer = (f"  {FEWER} over fewer sets than the others: not ranked like for like",)
    show(
        ctx,
        table[[c for c in heads if c in table]].map(
            lambda v: ("-" if math.isnan(v) else f"{v:.3f}") if isinstance(v, float) else str(v)
        ),
        f"WCEB ROUGE-LSum F1 over {len(pages)} set(s), sorted by micro mean",
        fewer if table["sets"].str.endswith(FEWER).any() else (),
    )
    from evalkit.report.plots import bar_prf

    frame = agg.assign(
        metric=agg["dataset"] + "_" + agg["metric"],
        dataset="all",
        ci_low=math.nan,
        ci_high=math.nan,
    )
    keys = ("micro_" + MEAN, "micro_" + MEDIAN, "macro_" + MEAN, "macro_" + MEDIAN)
    bar_prf(
        frame,
        ctx.out / "figures" / "wceb_aggregates",
        "all",
        metrics=keys,
        labels=("micro mean", "micro median", "macro mean", "macro median"),
        title="WCEB ROUGE-LSum F1 over the shared sets",
        methods=list(table["tool"]),
        xlabel="tool (WCEB stored output)",
    )
    tools = ", ".join(dict.fromkeys(t for df in pages.values() for t in df["method"]))
    ctx.report += [
        Heading("WCEB stored outputs under WCEB's ROUGE-LSum"),
        Text(
            f"Tools (each one `stored` method reading `{outputs}/<set>/<tool>.jsonl.gz`): {tools}."
        ),
        Text(f"{cap}."),
        Table(comp),
        Text(f"{acap}."),
        Table(table),
        Figure("figures/wceb_aggregates.png", "WCEB micro and macro F1 per tool"),
    ]
    return summary
