"""The ``trafilatura_eval`` study: evalkit's peers on trafilatura's evaluation set, under its metric.

Barbaresi's evaluation of trafilatura (GitHub ``adbar/trafilatura``: ``tests/evaldata.json``,
``tests/eval_common.py``; the table of ``docs/evaluation.rst``): 990 documents, each with text
segments that a right extraction must contain (``with``) or must not (``without``). Every
(document, method) gets its segment counts (:mod:`evalkit.metrics.snippets`: white space
normalised, substring look-up; a tool that raised finds nothing), summed over all documents
(micro) into precision, recall, accuracy and F-score. The published row of each tool evalkit
runs stands beside evalkit's, with the version it was made with; a row whose installed version
differs says "not comparable" instead of a difference, and so does every row of a run on fewer
documents than the published 990 ("subset of N of 990 pages: not comparable": the benchmark
published no per-document numbers to compare on; :func:`~evalkit.experiments.benchmarks.comparison`).

Summary rows: per data set and method ``traf_precision``, ``traf_recall``, ``traf_accuracy``,
``traf_f_score`` and the summed counts ``traf_tp`` ... ``traf_tn``. Table
``tables/trafilatura_eval_published_<set>``; figure ``figures/trafilatura_eval_<set>``.
"""

from __future__ import annotations

import pandas as pd

from evalkit.experiments import Context
from evalkit.experiments.benchmarks import by_method, comparison, pages_note, scored_sets
from evalkit.experiments.studies import headline, show, trained_here
from evalkit.harness.summary import summary_row
from evalkit.metrics.snippets import PREFIX, SnippetCounts, micro_scores
from evalkit.report.sections import Figure, Heading, Table, Text
from evalkit.report.tables import write_table

__all__ = ["SCORES", "run", "summary_rows"]

#: the published columns, in evaluation.rst's order
SCORES = ("precision", "recall", "accuracy", "f_score")


def summary_rows(per_page: pd.DataFrame, dataset: str) -> list[dict]:
    """Micro scores and summed counts of each method (every document counts, failed or not)."""
    rows = []
    for method, df in per_page.groupby("method", sort=False):
        counts = [
            SnippetCounts(*map(int, r))
            for r in df[[f"{PREFIX}{k}" for k in SnippetCounts._fields]].fillna(0).to_numpy()
        ]
        scores = micro_scores(counts)
        for key in (*SCORES, *SnippetCounts._fields):
            rows.append(
                summary_row(dataset, method, f"{PREFIX}{key}", scores[key], n_pages=len(df))
            )
        rows.append(
            summary_row(
                dataset, method, f"{PREFIX}errors", int(df["error"].notna().sum()), n_pages=len(df)
            )
        )
    return rows


def run(ctx: Context) -> pd.DataFrame | None:
    opts = ctx.section("trafilatura_eval")
    published = opts.get("published") or {}
    tolerance = float(opts.get("tolerance", 0.01))
    out = []
    for label, per_page, summary in scored_sets(ctx, "trafilatura_eval", summary_rows):
        out.append(summary)
        ours = by_method(summary, PREFIX)
        n = per_page["page_id"].nunique()
        subset = pages_note(n, published.get("pages"), ctx.datasets[label].limit is not None)
        table = comparison(ours, published.get("rows") or [], list(SCORES), tolerance, subset)
        source = published.get("source", "trafilatura's evaluation.rst")
        cap = (
            f"trafilatura's evaluation on {label} ({n} documents): evalkit's micro "
            f"precision / recall / accuracy / F-score of the with/without segments beside "
            f"{source}"
        )
        write_table(table, ctx.out / "tables" / f"trafilatura_eval_published_{label}", caption=cap)
        show(
            ctx,
            headline(
                summary,
                per_page,
                PREFIX,
                {"f_score": "F-score", "precision": "P", "recall": "R", "accuracy": "accuracy"},
                table,
                trained_here(ctx, label),
            ),
            f"{label} ({n} documents): trafilatura's segment metric (micro), sorted by F-score",
            (f"  {subset}",) if subset else (),
        )
        from evalkit.report.plots import bar_prf

        stem = f"figures/trafilatura_eval_{label}"
        bar_prf(
            summary,
            ctx.out / stem,
            label,
            metrics=tuple(f"{PREFIX}{k}" for k in SCORES),
            labels=SCORES,
            title=f"{label}: trafilatura's segment metric (micro)",
        )
        counts = (
            summary[
                summary["metric"].isin([f"{PREFIX}{k}" for k in (*SnippetCounts._fields, "errors")])
            ]
            .pivot(index="method", columns="metric", values="value")
            .reset_index()
        )
        ctx.report += [
            Heading(f"trafilatura's evaluation: {label}"),
            Text(f"{cap}."),
            Table(table),
            Figure(f"{stem}.png", f"segment scores on {label}"),
            Text(
                "Summed counts (tp: `with` segments found, fn: missed; fp: "
                "`without` segments found, tn: absent) and failed documents."
            ),
            Table(counts.astype({c: int for c in counts.columns if c != "method"})),
        ]
    return pd.concat(out, ignore_index=True) if out else None
