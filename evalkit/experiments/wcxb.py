"""The ``wcxb`` study: evalkit's peers on WCXB's development split, under WCXB's own metric.

Foley (2026), WCXB (GitHub ``Murrough-Foley/web-content-extraction-benchmark``): 1,497 pages
of seven page types. Every (page, method) is scored as the benchmark's ``evaluate.py`` scores
it (:mod:`evalkit.metrics.wcxb`: lower-cased ``\\w+`` bag of words, the mean of per-page
F1, P and R over all pages; snippet shares), and the README's published F1/P/R of each tool
evalkit also runs is shown beside evalkit's (``wcxb.published``, from the study config), with
the version each was made with: WCXB's README names no versions, so every row is "not
comparable" unless the config gives one; a run on fewer pages than the published 1,497 says
"subset of N of 1497 pages: not comparable" (WCXB published no per-page numbers). The per-page-type table puts each method's F1 per
type beside the README's per-type columns (Trafilatura, Readability).

Summary rows (``summary.csv``): per data set and method, ``wcxb_f1``, ``wcxb_precision``,
``wcxb_recall``, ``wcxb_with``, ``wcxb_without`` (the means over pages), and
``wcxb_f1_<page type>``. Tables ``tables/wcxb_published_<set>``,
``tables/wcxb_page_types_<set>``; figure ``figures/wcxb_page_types_<set>``.
"""

from __future__ import annotations

import pandas as pd

from evalkit.experiments import Context
from evalkit.experiments.benchmarks import by_method, comparison, pages_note, scored_sets
from evalkit.experiments.studies import TRAINED_MARK, headline, show, trained_here
from evalkit.harness.summary import summary_row
from evalkit.readers.wcxb import PAGE_TYPES
from evalkit.report.sections import Figure, Heading, Table, Text
from evalkit.report.tables import write_table

__all__ = ["MEAN_COLUMNS", "page_type_table", "run", "summary_rows"]

#: the per-page columns averaged over pages, in the README's order (F1, P, R) then snippets
MEAN_COLUMNS = ("wcxb_f1", "wcxb_precision", "wcxb_recall", "wcxb_with", "wcxb_without")


def summary_rows(per_page: pd.DataFrame, dataset: str) -> list[dict]:
    """The benchmark's means: over all pages, and F1 per page type (``category``)."""
    rows = []
    for method, df in per_page.groupby("method", sort=False):
        for col in MEAN_COLUMNS:
            if col in df:
                rows.append(summary_row(dataset, method, col, df[col].mean(), n_pages=len(df)))
        for ty in PAGE_TYPES:
            sub = df[df["category"] == ty]
            if len(sub):
                rows.append(
                    summary_row(
                        dataset, method, f"wcxb_f1_{ty}", sub["wcxb_f1"].mean(), n_pages=len(sub)
                    )
                )
    return rows


def page_type_table(summary: pd.DataFrame, per_page: pd.DataFrame, published: dict) -> pd.DataFrame:
    """One row per page type: pages, each method's F1, then the README's per-type columns."""
    methods = list(dict.fromkeys(summary["method"]))
    value = summary.set_index(["method", "metric"])["value"]
    counts = per_page.drop_duplicates("page_id")["category"].value_counts()
    rows = []
    for ty in PAGE_TYPES:
        row = {"page type": ty, "pages": int(counts.get(ty, 0))}
        for m in methods:
            v = value.get((m, f"wcxb_f1_{ty}"))
            row[f"{m} F1"] = "-" if v is None else f"{v:.3f}"
        for col, spec in (published.get("columns") or {}).items():
            v = (spec.get("f1") or {}).get(ty)
            row[f"{col} published"] = "-" if v is None else f"{v:.3f}"
        rows.append(row)
    row = {"page type": "all", "pages": int(counts.sum())}
    for m in methods:
        v = value.get((m, "wcxb_f1"))
        row[f"{m} F1"] = "-" if v is None else f"{v:.3f}"
    for col, spec in (published.get("columns") or {}).items():
        v = spec.get("all")
        row[f"{col} published"] = "-" if v is None else f"{v:.3f}"
    rows.append(row)
    return pd.DataFrame(rows)


def _figure(ctx: Context, summary: pd.DataFrame, label: str) -> str:
    from evalkit.report.plots import bar_prf

    # one group per method (its colour, as in every figure), one bar per page type
    types = [t for t in PAGE_TYPES if (summary["metric"] == f"wcxb_f1_{t}").any()]
    stem = f"figures/wcxb_page_types_{label}"
    bar_prf(
        summary,
        ctx.out / stem,
        label,
        metrics=tuple(f"wcxb_f1_{t}" for t in types),
        labels=tuple(types),
        title=f"{label}: WCXB F1 per page type",
    )
    return f"{stem}.png"


def run(ctx: Context) -> pd.DataFrame | None:
    opts = ctx.section("wcxb")
    published = opts.get("published") or {}
    tolerance = float(opts.get("tolerance", 0.01))
    out = []
    for label, per_page, summary in scored_sets(ctx, "wcxb", summary_rows):
        out.append(summary)
        ours = by_method(summary, "wcxb_")
        n = per_page["page_id"].nunique()
        subset = pages_note(n, published.get("pages"), ctx.datasets[label].limit is not None)
        table = comparison(
            ours, published.get("rows") or [], ["f1", "precision", "recall"], tolerance, subset
        )
        source = published.get("source", "WCXB README")
        cap = (
            f"WCXB on {label} ({n} pages): evalkit's mean per-page "
            f"F1 / P / R under WCXB's metric beside {source}"
        )
        write_table(table, ctx.out / "tables" / f"wcxb_published_{label}", caption=cap)
        show(
            ctx,
            headline(
                summary,
                per_page,
                "wcxb_",
                {"f1": "F1", "precision": "P", "recall": "R"},
                table,
                trained_here(ctx, label),
            ),
            f"{label} ({n} pages): WCXB's mean per-page F1, sorted by F1",
            (f"  {subset}",) if subset else (),
        )
        types = page_type_table(summary, per_page, published.get("page_types") or {})
        tcap = (
            f"WCXB F1 per page type on {label}: evalkit's runs, then "
            f"{(published.get('page_types') or {}).get('source', 'the README')}"
            + (
                f" ({subset.removesuffix(': not comparable')}: the published columns are "
                f"over all pages)"
                if subset
                else ""
            )
        )
        write_table(types, ctx.out / "tables" / f"wcxb_page_types_{label}", caption=tcap)
        fig = _figure(ctx, summary, label)
        snip = (
            summary[summary["metric"].isin(["wcxb_with", "wcxb_without"])]
            .pivot(index="method", columns="metric", values="value")
            .reset_index()
        )
        trained = sorted(trained_here(ctx, label))
        ctx.report += [
            Heading(f"WCXB: {label}"),
            Text(f"{cap}."),
            *(
                [
                    Text(
                        f"{TRAINED_MARK.capitalize()} (the method declares it): {', '.join(trained)}."
                    )
                ]
                if trained
                else []
            ),
            Table(table),
            Text(f"{tcap}."),
            Table(types),
            Figure(fig, f"WCXB F1 per page type on {label}"),
            Text(
                "Snippet shares (WCXB's rule: share of `with` snippets found, of "
                "`without` snippets found, lower-cased; 1 when a page lists none)."
            ),
            Table(snip.round(3)),
        ]
    return pd.concat(out, ignore_index=True) if out else None
