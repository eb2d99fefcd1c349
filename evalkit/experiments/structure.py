"""The ``structure`` study: headings, lists, tables, code, title, author and date per method.

What a retrieval or pre-training pipeline takes from a page beside its words (issue 39). Each
(page, method) is scored with the ``structure`` and ``metadata`` families
(:mod:`evalkit.metrics.structure`, :mod:`evalkit.metrics.metadata`): a method's Markdown (or
its text as paragraphs when it gives none) against the gold's elements (WCXB's
``main_content_markdown``, CleanEval's ``<h>/<l>/<p>`` marks), its metadata against WCXB's
title, author and date. A page where neither side has an element kind is left out of that
kind's mean (the tables give each kind's page count), never counted as 1.

Summary rows (``summary.csv``), per data set and method: every column of the two families
(``heading_f1``, ``heading_level_accuracy``, ``list_f1``, ``table_teds``, ``table_teds_struct``,
``code_f1``, ``title_accuracy``, ``author_f1``, ``date_accuracy``, ...) as the mean over the
pages where it is defined with a bootstrap interval, ``<metric>_<page type>`` for the headline
metrics per WCXB page type, and ``failures``. Tables ``tables/structure_<set>``,
``tables/structure_types_<set>``, ``tables/metadata_<set>``; figure ``figures/structure_<set>``.
A method that gives metadata and no text (meta_tags, htmldate) has metadata rows only.
"""

from __future__ import annotations

import functools

import pandas as pd

from evalkit.experiments import Context
from evalkit.experiments.studies import TRAINED_MARK, show, trained_here
from evalkit.harness.scoring import page_context, score_extraction
from evalkit.harness.summary import summary_row
from evalkit.metrics import bootstrap_ci
from evalkit.metrics import metadata as meta_metrics
from evalkit.metrics import structure as structure_metrics
from evalkit.report.cells import Cell
from evalkit.report.sections import Figure, Heading, Table, Text
from evalkit.report.tables import write_table

__all__ = ["HEADLINE", "METADATA_HEADLINE", "run", "summary_rows"]

#: the families the study scores (shingle is always scored: evalkit.harness.scoring)
FAMILIES = ("shingle", "structure", "metadata")
#: the structure columns of the console table and the figure, with their heads
HEADLINE = {
    "heading_f1": "heading F1",
    "heading_level_accuracy": "level acc",
    "list_f1": "list F1",
    "table_teds": "TEDS",
    "table_teds_struct": "TEDS struct",
    "code_f1": "code F1",
}
#: the metadata columns of the metadata table, with their heads
METADATA_HEADLINE = {
    "title_accuracy": "title exact",
    "title_f1": "title F1",
    "author_f1": "author F1",
    "date_accuracy": "date exact",
    "title_coverage": "title given",
    "author_coverage": "author given",
    "date_coverage": "date given",
}
#: the element kinds scored, as the tables name them
_KINDS = ("heading", "list", "table", "code")
#: the kind of each headline column: its page count is the pages where that kind is scored


def score(page, method, ext, *, match_threshold: float) -> dict:
    """One per-page record: the families' columns, and what the method gave."""
    # the page's gold side, prepared once for all its methods (the gold Markdown parsed once)
    context = page_context(page, FAMILIES)
    rec = score_extraction(page, method, ext, metrics=FAMILIES, context=context)
    state = context.records.get("structure")
    if state is not None:
        for kind, items in zip(_KINDS, (state.headings, state.items, state.tables, state.code)):
            rec[f"gold_{kind}"] = len(items)
        if match_threshold != structure_metrics.MATCH_THRESHOLD and ext.error is None:
            pred = structure_metrics.elements_of(ext)
            rec.update(structure_metrics.score(pred, state, match_threshold=match_threshold))
    rec["gave_markdown"] = ext.markdown is not None
    rec["gave_metadata"] = ext.metadata is not None
    return rec


#: the page worker prepares the visible words this scorer's families parse the page for
score.gold_side = "words"  # type: ignore[attr-defined]


def _text_methods(per_page: pd.DataFrame) -> list[str]:
    """Methods with text or Markdown on some page (not metadata-only ones)."""
    out = []
    for method, df in per_page.groupby("method", sort=False):
        if (
            df["gave_markdown"].any()
            or (df["n_words_out"] > 0).any()
            or not df["gave_metadata"].any()
        ):
            out.append(str(method))
    return out


def summary_rows(
    per_page: pd.DataFrame, dataset: str, *, n_boot: int, alpha: float, seed: int
) -> list[dict]:
    """Means over defined pages with bootstrap intervals; headline metrics per page type."""
    rows = []
    text_methods = set(_text_methods(per_page))
    for method, df in per_page.groupby("method", sort=False):
        rows.append(
            summary_row(dataset, method, "failures", df["error"].notna().sum(), n_pages=len(df))
        )
        columns = list(meta_metrics.COLUMNS) if df["gave_metadata"].any() else []
        if method in text_methods:
            columns = list(structure_metrics.COLUMNS) + columns
        for col in columns:
            values = pd.to_numeric(df[col], errors="coerce").dropna() if col in df else pd.Series()
            if values.empty:
                continue
            low, high = bootstrap_ci(values.to_numpy(), n_boot=n_boot, alpha=alpha, seed=seed)
            rows.append(summary_row(dataset, method, col, values.mean(), low, high, len(values)))
        if method not in text_methods or df["category"].isna().all():
            continue
        for ty, sub in df.groupby("category", sort=True):
            for col in HEADLINE:
                values = pd.to_numeric(sub[col], errors="coerce").dropna()
                if len(values):
                    rows.append(
                        summary_row(
                            dataset, method, f"{col}_{ty}", values.mean(), n_pages=len(values)
                        )
                    )
    return rows


def _cell(summary: pd.DataFrame, method: str, metric: str) -> Cell:
    row = summary[(summary["method"] == method) & (summary["metric"] == metric)]
    if row.empty:
        return Cell(float("nan"))
    r = row.iloc[0]
    return Cell(r["value"], r["ci_low"], r["ci_high"])


def _table(
    summary: pd.DataFrame, methods: list[str], heads: dict[str, str], trained: set[str]
) -> pd.DataFrame:
    rows = []
    for m in methods:
        row = {"method": m}
        for col, head in heads.items():
            row[head] = _cell(summary, m, col)
        if trained:
            row["note"] = TRAINED_MARK if m in trained else ""
        rows.append(row)
    frame = pd.DataFrame(rows)
    first = next(iter(heads.values()))
    key = [-(c.value if not c.empty else -1.0) for c in frame[first]] if len(frame) else []
    return (
        frame.assign(_k=key).sort_values(["_k", "method"]).drop(columns="_k").reset_index(drop=True)
    )


def _console(frame: pd.DataFrame) -> pd.DataFrame:
    """The table with values only (intervals are in tables/)."""
    return frame.apply(lambda col: col.map(lambda c: c.head() if isinstance(c, Cell) else c))


def _kind_pages(per_page: pd.DataFrame) -> str:
    """How many pages' gold has each kind (a method's mean may also count pages where only
    its output has the kind)."""
    gold = per_page.drop_duplicates("page_id")
    parts = []
    for kind in _KINDS:
        col = f"gold_{kind}"
        n = int((pd.to_numeric(gold[col], errors="coerce") > 0).sum()) if col in gold else 0
        parts.append(f"{kind} {n}")
    return ", ".join(parts)


def _types_table(summary: pd.DataFrame, methods: list[str]) -> pd.DataFrame:
    """One row per (page type, method): the headline metrics on that type's pages."""
    types = sorted(
        {m.rsplit("_", 1)[1] for m in summary["metric"] if m.startswith("heading_f1_")}
        | {m.rsplit("_", 1)[1] for m in summary["metric"] if m.startswith("list_f1_")}
    )
    value = summary.set_index(["method", "metric"])["value"]
    rows = []
    for ty in types:
        for m in methods:
            row = {"page type": ty, "method": m}
            for col, head in HEADLINE.items():
                row[head] = Cell(float(value.get((m, f"{col}_{ty}"), float("nan"))))
            rows.append(row)
    return pd.DataFrame(rows)


def _figure(ctx: Context, summary: pd.DataFrame, label: str, methods: list[str]) -> str:
    from evalkit.report.plots import bar_prf

    stem = f"figures/structure_{label}"
    metrics = tuple(
        c
        for c in ("heading_f1", "list_f1", "table_teds", "code_f1")
        if (summary["metric"] == c).any()
    )
    bar_prf(
        summary,
        ctx.out / stem,
        label,
        metrics=metrics,
        labels=tuple(HEADLINE[c] for c in metrics),
        title=f"{label}: structure per method (95% bootstrap CI)",
        methods=methods,
    )
    return f"{stem}.png"


def run(ctx: Context) -> pd.DataFrame | None:
    opts = ctx.section("structure")
    n_boot, alpha = int(opts.get("n_boot", 1000)), float(opts.get("alpha", 0.05))
    threshold = float(opts.get("match_threshold", structure_metrics.MATCH_THRESHOLD))
    scorer = functools.partial(score, match_threshold=threshold)
    out = []
    for label, ds in ctx.datasets.items():
        spill = ctx.stream_records("structure", label, ds, scorer, keep=True)
        if not spill.n_records:
            continue
        per_page = spill.frame()
        ctx.record_pages(per_page, label, spill=spill)
        summary = pd.DataFrame(
            summary_rows(per_page, label, n_boot=n_boot, alpha=alpha, seed=ctx.seed)
        )
        out.append(summary)
        n = per_page["page_id"].nunique()
        methods = _text_methods(per_page)
        kinds = _kind_pages(per_page)
        trained = trained_here(ctx, label)
        table = _table(summary, methods, HEADLINE, trained)
        cap = (
            f"Structure on {label} ({n} pages): mean over the pages where the element kind is on "
            f"either side [95% bootstrap CI] (pages whose gold has each kind: {kinds})"
        )
        write_table(table, ctx.out / "tables" / f"structure_{label}", caption=cap)
        show(
            ctx,
            _console(table),
            f"{label} ({n} pages): structure, sorted by heading F1",
            (f"  pages whose gold has each kind: {kinds}",),
        )
        ctx.report += [Heading(f"Structure: {label}"), Text(f"{cap}."), Table(table)]
        if methods:
            fig = _figure(ctx, summary, label, methods)
            ctx.report.append(Figure(fig, f"Structure per method on {label}"))
        types = _types_table(summary, methods)
        if len(types):
            tcap = f"Structure per page type on {label}: mean over the type's pages where the kind is scored"
            write_table(types, ctx.out / "tables" / f"structure_types_{label}", caption=tcap)
            ctx.report += [Text(f"{tcap}."), Table(types)]
        meta_methods = [
            str(m) for m, df in per_page.groupby("method", sort=False) if df["gave_metadata"].any()
        ]
        has_gold = (summary["metric"] == "title_accuracy").any()
        if meta_methods and has_gold:
            mtable = _table(summary, meta_methods, METADATA_HEADLINE, trained)
            mcap = (
                f"Metadata on {label}: title exact after normalisation and token F1, author set "
                f"F1, date exact day (htmldate's rule), and the share of pages each was given "
                f"[95% bootstrap CI]; over the pages whose gold has the field"
            )
            write_table(mtable, ctx.out / "tables" / f"metadata_{label}", caption=mcap)
            show(ctx, _console(mtable), f"{label} ({n} pages): metadata, sorted by title exact")
            ctx.report += [Text(f"{mcap}."), Table(mtable)]
    return pd.concat(out, ignore_index=True) if out else None
