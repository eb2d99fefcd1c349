"""The ``extraction`` experiment: every method on every page, scored against the gold.

Per page and method: shingle, word and LCS P/R/F1, the word-count confusion,
unit P/R/F1/accuracy, ROUGE-LSum and ROUGE-N P/R/F1 and edit similarity (the families
of ``extraction.metrics``); per data set and method: averages with seeded
bootstrap intervals, pages correct at a threshold, and a Holm-corrected
paired test of each method against the reference method. Beside the summary:
paired differences between every pair of methods (``pairwise.csv``,
:mod:`evalkit.harness.pairwise`) and every summary metric by page-complexity bucket
(``buckets.csv``, :mod:`evalkit.harness.complexity`).

Timings stay in ``per_page.csv`` only: ``summary.csv`` holds nothing that
varies between two runs of the same config, so reruns can be compared byte
for byte (the ``speed`` experiment is where time is measured).
"""

from __future__ import annotations

import functools
import importlib
import sys

import numpy as np
import pandas as pd

from evalkit import metrics
from evalkit.experiments import Context, warm_up
from evalkit.harness.column_store import store_columns
from evalkit.harness.complexity import BUCKETS, TERCILES, complexity_buckets
from evalkit.harness.page_columns import PageColumns, as_columns, by_page, first_with, paired
from evalkit.harness.pairwise import PAIRWISE_COLUMNS, pairwise_matrix, pairwise_rows
from evalkit.harness.scoring import check_metrics, score_extraction
from evalkit.harness.summary import SummaryRows, drop_note, summary_row, with_note
from evalkit.harness.training import training_note
from evalkit.report.console import console_table
from evalkit.report.filenames import file_stem
from evalkit.report.results import write_csv
from evalkit.report.sections import Figure, Heading, Table, Text
from evalkit.report.tables import wide_table, write_table

__all__ = [
    "BUCKET_COLUMNS",
    "TABLE_METRICS",
    "bucket_rows",
    "ci_label",
    "run",
    "scorer_options",
    "summarize",
    "table_metrics",
]

#: above this many methods, the pairs of every two (quadratic in methods) are not compared
PAIRWISE_MAX_METHODS = 40

TABLE_METRICS = [
    "shingle_precision",
    "shingle_recall",
    "shingle_f1",
    "word_f1",
    "lcs_f1",
    "unit_precision_micro_words",
    "unit_recall_micro_words",
    "unit_f1_micro_words",
    "unit_accuracy_micro_words",
    "pages_correct",
]


def scorer_options(opts: dict) -> dict:
    """The keyword arguments of :func:`~evalkit.harness.scoring.score_extraction` an ``extraction``
    section sets; an unknown ``extraction.metrics`` name raises here, before any page."""
    out = {"shingle_n": opts.get("shingle_n", 4), "unit_min_share": opts.get("unit_min_share", 0.5)}
    if opts.get("metrics") is not None:
        out["metrics"] = list(check_metrics(opts["metrics"]))
    if opts.get("rouge_n") is not None:
        n = int(opts["rouge_n"])
        if n < 1:
            raise ValueError(f"extraction.rouge_n must be >= 1, got {n}")
        out["rouge_n"] = n
    return out


def run(ctx: Context) -> pd.DataFrame:
    opts = ctx.section("extraction")
    score = functools.partial(score_extraction, **scorer_options(opts))
    summaries, pairs, buckets = [], [], []
    # matplotlib (0.3-0.8 s to import) is needed only after the pages: it loads while the
    # run waits on its page worker instead of before the first page
    warm_up(functools.partial(importlib.import_module, "evalkit.report.plots"))
    for label, ds in ctx.datasets.items():
        # records go to disk as they arrive; the summaries read back one method's column at
        # a time from a columnar copy (evalkit.harness.column_store)
        spill = ctx.stream_records("extraction", label, ds, score, keep=True)
        if not spill.n_records:
            continue
        per_page = store_columns(
            spill, [c for c in spill.columns if _summary_input(c)], "extraction"
        )
        ctx.scratch.append(per_page)  # deleted when the run ends
        ctx.record_pages(per_page, label, spill=spill)
        summary = summarize(per_page, label, opts, ctx.seed)
        summaries.append(summary)
        # figures are drawn by forked processes while the numbers go on, and are all written
        # before the next data set's pages are timed
        from evalkit.report.plots import in_background

        with in_background():
            _tables_and_figures(ctx, summary, per_page, label, opts)
            pairs.append(_pairwise(ctx, per_page, label, opts))
            buckets.append(_buckets(ctx, per_page, label, opts))
    if pairs:
        # long files beside summary.csv; header only when nothing was compared
        write_csv(pd.concat(pairs, ignore_index=True)[PAIRWISE_COLUMNS], ctx.out / "pairwise.csv")
        write_csv(pd.concat(buckets, ignore_index=True)[BUCKET_COLUMNS], ctx.out / "buckets.csv")
    if not ctx.tell.quiet:  # the result on the console, a table per data set (runner.quiet)
        for summary in summaries:
            print(console_table(summary, str(summary["dataset"].iloc[0]), ci_label(opts)))
    if len(summaries) > 1:
        parts = [f for f in ctx.per_page if _is_extraction(f)]
        note = next(filter(None, (drop_note(f, ctx.on_failure) for f in parts)), "")
        _overview(ctx, pd.concat(summaries, ignore_index=True), note)
    return pd.concat(summaries, ignore_index=True) if summaries else None


#: the per-page columns summaries, tables, figures and later parts (kaur2015) read
_KEYS = {"experiment", "dataset", "page_id", "site", "category", "method", "error", "complexity"}


def _is_extraction(per_page) -> bool:
    if isinstance(per_page, PageColumns):
        return per_page.experiment == "extraction"
    return bool((per_page["experiment"] == "extraction").all())


def _summary_input(column: str) -> bool:
    return column in _KEYS or metrics.family_of(column) is not None


def _overview(ctx: Context, summary: pd.DataFrame, note: str = "") -> None:
    """One method x data set table per headline metric when a run covers several sets."""
    from evalkit.report.tables import cross_table

    for metric in ("shingle_f1", "unit_f1_micro_words", "failures"):
        table = cross_table(summary, metric, digits=0 if metric == "failures" else 3)
        write_table(
            table,
            ctx.out / "tables" / f"extraction_overview_{metric}",
            caption=with_note(f"{metric} per method and data set{training_note(ctx.specs)}", note),
        )
        ctx.report += [Heading(f"Overview: {metric}")] + ([Text(f"{note}.")] if note else [])
        ctx.report.append(Table(table))


def summarize(
    per_page: pd.DataFrame | PageColumns, dataset: str, opts: dict, seed: int, part: str = ""
) -> pd.DataFrame:
    """Aggregate per-page records of one data set into long-format summary rows.

    Metrics are computed over the records that carry scores (a page a method
    failed on counts when ``runner.on_failure=empty`` scored it as an empty
    extraction); the ``failures`` row counts the records with ``error`` set. ``part``
    names the pages in the bootstrap's progress bar (a complexity bucket). ``per_page``:
    a frame of records or their columns (:class:`~evalkit.harness.page_columns.PageColumns`),
    read a method and a column at a time.
    """
    cols = as_columns(per_page)
    n_boot = int(opts.get("n_boot", 1000))
    alpha = float(opts.get("alpha", 0.05))
    thr = float(opts.get("pages_correct_threshold", 0.8))
    # every interval of the summary from one set of draws (SummaryRows)
    out = SummaryRows(n_boot, alpha, seed)
    for method in cols.methods:
        failed = cols.failed(method)
        out.add(summary_row(dataset, method, "failures", int(failed.sum()), n_pages=len(failed)))
        if "shingle_f1" not in cols.columns:
            continue
        ok = ~np.isnan(cols.values(method, "shingle_f1"))  # the scored records
        n = int(ok.sum())
        if n == 0:
            continue

        def scores(col, ok=ok, method=method):
            return cols.values(method, col)[ok]

        out.shingle(dataset, method, scores("shingle_precision"), scores("shingle_recall"))
        _mean_rows(out, cols.columns, scores, dataset, method, n, after_units=False)
        _unit_rows(out, cols.columns, scores, dataset, method)
        f1 = scores("shingle_f1")
        out.add(
            summary_row(
                dataset, method, "pages_correct", metrics.pages_correct(f1, thr), n_pages=n
            ),
            out.batch.add_mean((f1 >= thr).astype(float)),
        )
        _mean_rows(out, cols.columns, scores, dataset, method, n, after_units=True)
    # a bar of the resamples, named by data set and part (a complexity bucket)
    return pd.DataFrame(
        out.rows(" ".join(filter(None, ("bootstrap", dataset, part))))
        + _paired_rows(cols, dataset, opts, seed)
    )


def _mean_columns(columns, after_units: bool) -> list[str]:
    """The columns the ``mean`` rule summarises (evalkit.metrics.families), family by family
    in table order: those before the unit scores, or the field's metrics after them."""
    return [
        col
        for fam in metrics.FAMILIES
        if fam.summary == "mean" and fam.after_units == after_units
        for col in fam.summary_columns(columns)
    ]


def _mean_rows(out: SummaryRows, columns, scores, dataset, method, n, after_units: bool):
    """The mean of each summarised column over the pages where it is defined, as its interval
    is (Bevendorff et al. and WebMainBench average pages too)."""
    for col in _mean_columns(columns, after_units):
        out.mean(dataset, method, col, scores(col), n)


def _unit_rows(out: SummaryRows, columns, scores, dataset, method) -> None:
    """Word-weighted unit scores, micro (summed counts) and macro (mean of pages), with CIs."""
    names = ["unit_tp", "unit_fp", "unit_fn", "unit_tn"]
    if not set(names) <= set(columns):
        return
    counts = np.column_stack([scores(c) for c in names])
    counts = counts[~np.isnan(counts).any(axis=1)]
    n = len(counts)
    if n == 0:
        return
    tp, fp, fn, tn = (np.ascontiguousarray(c) for c in counts.T)

    def micro(idx):
        # each resample's scores of its summed counts; a row sum is numpy's sum of that
        # resample alone, so these are bootstrap_ci_pages' numbers of the summed-counts rule
        s = metrics.confusion_scores_rows(
            tp[idx].sum(axis=1), fp[idx].sum(axis=1), fn[idx].sum(axis=1), tn[idx].sum(axis=1)
        )
        return np.column_stack([s[m] for m in metrics.UNIT_METRICS])

    width = len(metrics.UNIT_METRICS)
    slot = dict(zip(metrics.UNIT_METRICS, out.batch.add(n, micro, width, nbytes=counts.nbytes)))
    overall = metrics.unit_scores(counts)  # before per_page: its page arrays not held twice
    per_page = metrics.confusion_scores_rows(tp, fp, fn, tn)
    for key, value in overall.items():
        if key == "n_pages":
            continue
        name, _, avg = key.partition("_")
        row = summary_row(dataset, method, f"unit_{key}", value, n_pages=n)
        out.add(row, slot[name] if avg == "micro_words" else out.batch.add_mean(per_page[name]))


def _paired_rows(cols: PageColumns, dataset, opts, seed):
    """p-values (Holm-corrected) of each method's per-page shingle F1 against the reference."""
    ref = opts.get("reference", "proposed")
    scored = set(first_with(cols, "shingle_f1"))
    if ref not in scored:
        return []  # no page has a score, or the reference has none: nothing to compare
    others = [m for m in cols.methods if m != ref and m in scored]
    base = by_page(cols.page(ref), cols.values(ref, "shingle_f1"))
    diffs, pairs, ns = [], [], []
    for m in others:
        x, y = paired(by_page(cols.page(m), cols.values(m, "shingle_f1")), base)
        diffs.append(float(pd.Series(x - y).mean()) if len(x) else np.nan)
        pairs.append((x, y))
        ns.append(len(x))
    # one draw of sign flips for every method with as many shared pages (same p-values)
    pvals = metrics.paired_permutation_tests(pairs, seed=seed)
    adj = metrics.holm(pvals) if pvals else []
    rows = []
    for m, d, p, n in zip(others, diffs, adj, ns):
        rows.append(summary_row(dataset, m, f"f1_diff_vs_{ref}", d, np.nan, np.nan, n))
        rows.append(summary_row(dataset, m, f"p_holm_vs_{ref}", p, np.nan, np.nan, n))
    return rows


def table_metrics(summary) -> list[str]:
    """:data:`TABLE_METRICS`, then the summary columns of each opt-in family the run scored
    (``extraction.metrics=[shingle,aeb_exact]`` adds the benchmark's accuracy column)."""
    present = sorted(set(summary["metric"]))
    return TABLE_METRICS + [
        c for f in metrics.FAMILIES if f.opt_in for c in f.summary_columns(present)
    ]


def ci_label(opts: dict) -> str:
    """What the intervals are, from the configured level: "95% bootstrap CI" at alpha 0.05."""
    return f"{1 - float(opts.get('alpha', 0.05)):.0%} bootstrap CI"


def _tables_and_figures(ctx: Context, summary, per_page, label, opts):
    stem = f"extraction_{file_stem(label)}"  # the label as a file name (report.filenames)
    thr = opts.get("pages_correct_threshold", 0.8)
    table = wide_table(summary, table_metrics(summary), dataset=label)
    write_table(
        table,
        ctx.out / "tables" / stem,
        caption=with_note(
            f"Extraction on {label}: mean [{ci_label(opts)}]; "
            f"pages_correct at shingle F1 >= {thr}"
            f"{training_note(ctx.specs)}",
            drop_note(per_page, ctx.on_failure),
        ),
    )
    from evalkit.report.plots import bar_prf, pages_correct_curve

    bar_prf(summary, ctx.out / "figures" / f"{stem}_shingle_prf", label)
    pages_correct_curve(
        _defined(per_page, "shingle_f1"),
        ctx.out / "figures" / f"{stem}_pages_correct",
        label,
        seed=ctx.seed,
    )
    note = drop_note(per_page, ctx.on_failure)
    ctx.report.append(Heading(f"Extraction on {label}"))
    if note:
        ctx.report.append(Text(f"{note}."))
    ctx.report += [
        Table(table, gap=False),
        # how far the gold itself can be trusted: pages whose gold is off the page,
        # marked up, cut short or duplicated (docs/audit.md)
        Text(f"Gold audit of {label}: `evalkit experiment=audit dataset={label}`."),
        Figure(f"figures/{stem}_shingle_prf.png", "P/R/F1", gap=False),
        Figure(f"figures/{stem}_pages_correct.png", "pages correct"),
    ]
    _field_table(ctx, summary, label, opts, note)


def _defined(cols: PageColumns, column: str) -> dict[str, np.ndarray]:
    """Each method's defined values of ``column`` in record order, the methods in the order
    of their first value (what the pages-correct curve draws)."""
    out = {}
    for m in first_with(cols, column):
        values = cols.values(m, column)
        out[m] = values[~np.isnan(values)]
    return out


def _field_table(ctx: Context, summary, label, opts, note) -> None:
    """The field's metrics (ROUGE-LSum, ROUGE-N, edit similarity) of the run in one table."""
    cols = _mean_columns(list(dict.fromkeys(summary["metric"])), after_units=True)
    if not cols:
        return
    table = wide_table(summary, cols, dataset=label)
    write_table(
        table,
        ctx.out / "tables" / f"extraction_{file_stem(label)}_field",
        caption=with_note(
            f"ROUGE and edit similarity on {label}: mean of pages "
            f"[{ci_label(opts)}] (docs/metrics.md)",
            note,
        ),
    )
    ctx.report += [Heading(f"ROUGE and edit similarity on {label}", level=3), Table(table)]


def _pairwise(ctx: Context, per_page, label, opts) -> pd.DataFrame:
    """Every pair of methods on each ``extraction.compare_metrics`` score: the rows of
    pairwise.csv, a matrix table per score and one figure with a panel per score."""
    from evalkit.report.plots import difference_matrix

    alpha = float(opts.get("alpha", metrics.ALPHA))
    names = list(opts.get("compare_metrics", ["shingle_f1", "unit_f1"]))
    if not names:  # extraction.compare_metrics=[]: no comparison asked for
        return pd.DataFrame(columns=PAIRWISE_COLUMNS)
    ctx.report.append(Heading(f"Every pair of methods on {label}", level=3))
    n_methods = len(per_page.methods)
    most = int(opts.get("pairwise_max_methods", PAIRWISE_MAX_METHODS))
    if n_methods > most:  # k(k-1)/2 pairs, each with its bootstrap and test: quadratic
        line = (
            f"{label}: {n_methods} methods, {n_methods * (n_methods - 1) // 2} pairs, not "
            f"compared two by two (extraction.pairwise_max_methods={most}); the comparison with "
            "extraction.reference is in the summary"
        )
        if not ctx.tell.quiet:
            print(f"evalkit: {line}", file=sys.stderr)
        ctx.report.append(Text(line + "."))
        return pd.DataFrame(columns=PAIRWISE_COLUMNS)
    if n_methods < 2:
        ctx.report.append(Text(f"One method ({per_page.methods[0]}): no pairs to compare."))
        return pd.DataFrame(columns=PAIRWISE_COLUMNS)
    frames = [
        pairwise_rows(
            per_page, label, m, n_boot=int(opts.get("n_boot", 1000)), alpha=alpha, seed=ctx.seed
        )
        for m in names
    ]
    ctx.report.append(
        Text(
            "Cell: mean per-page difference row − column over the pages both methods scored; "
            f"`*`: Holm-adjusted p < {alpha:g} (sign-flip permutation test, Holm over all pairs "
            "of the data set and score). Intervals and p-values in pairwise.csv."
        )
    )
    panels = []
    for name, rows in zip(names, frames):
        if rows.empty:
            ctx.report.append(Text(f"{name}: no per-page score of that name in this run."))
            continue
        table, diff, p = pairwise_matrix(rows, alpha=alpha)
        write_table(
            table,
            ctx.out / "tables" / f"extraction_{file_stem(label)}_pairwise_{name}",
            caption=with_note(
                f"{label}: per-page {name}, mean difference row - column; "
                f"* Holm-adjusted p < {alpha:g}",
                drop_note(per_page, ctx.on_failure),
            ),
        )
        ctx.report.append(
            Table(table, lead=f"**{name}** (n pages per pair: {_span(rows['n_pages'])})", gap=False)
        )
        panels.append((name, list(table["method"]), diff, p))
    if panels:
        stem = f"extraction_{file_stem(label)}_pairwise"
        difference_matrix(panels, ctx.out / "figures" / stem, label, alpha=alpha)
        ctx.report.append(Figure(f"figures/{stem}.png", "pairwise differences"))
    return pd.concat(frames, ignore_index=True)


def _span(values) -> str:
    low, high = int(min(values)), int(max(values))
    return str(low) if low == high else f"{low}-{high}"


#: the columns of ``buckets.csv``: a summary row of the pages of one complexity bucket
BUCKET_COLUMNS = [
    "dataset",
    "bucket",
    "complexity_min",
    "complexity_max",
    "method",
    "metric",
    "value",
    "ci_low",
    "ci_high",
    "n_pages",
]

#: the bucket tables and figures of the report; buckets.csv holds every summary metric
_BUCKET_SHOWN = ("shingle_f1", "unit_f1_micro_words")


def bucket_rows(
    per_page: pd.DataFrame | PageColumns,
    dataset: str,
    opts: dict,
    seed: int,
    quantiles=TERCILES,
) -> tuple[pd.DataFrame, dict]:
    """:func:`summarize` of the pages of each complexity bucket of one data set.

    Returns the ``buckets.csv`` rows and what the report says of the buckets: the cut points,
    the pages per bucket and the pages without a complexity (no visible words).
    """
    cols = as_columns(per_page)
    complexity = cols.first_values("complexity")  # a page's first record's, by page number
    names, cuts = complexity_buckets(complexity, quantiles)
    names = np.asarray(names, dtype=object)
    info = {"cuts": cuts, "unbucketed": int(sum(b is None for b in names)), "pages": {}}
    frames = []
    for bucket in BUCKETS:
        keep = names == bucket
        info["pages"][bucket] = int(keep.sum())
        if not keep.any():
            continue
        rows = summarize(cols.subset(keep), dataset, opts, seed, part=f"{bucket} pages")
        frames.append(
            rows.assign(
                bucket=bucket,
                complexity_min=complexity[keep].min(),
                complexity_max=complexity[keep].max(),
            )
        )
    out = (
        pd.concat(frames, ignore_index=True)[BUCKET_COLUMNS]
        if frames
        else pd.DataFrame(columns=BUCKET_COLUMNS)
    )
    return out, info


def _buckets(ctx: Context, per_page, label, opts) -> pd.DataFrame:
    """buckets.csv rows of one data set, a method x bucket table and a bar figure per shown
    metric."""
    from evalkit.report.plots import bar_prf
    from evalkit.report.tables import cross_table

    quantiles = tuple(opts.get("complexity_quantiles", TERCILES))
    if "complexity" not in per_page.columns:
        return pd.DataFrame(columns=BUCKET_COLUMNS)
    rows, info = bucket_rows(per_page, label, opts, ctx.seed, quantiles)
    c1, c2 = info["cuts"]
    n = info["pages"]
    # interval notation, ASCII only: the heads go into .tex tables too
    heads = {
        "low": f"low (c in [0, {c1:.2f}], {n['low']} pages)",
        "medium": f"medium (c in ({c1:.2f}, {c2:.2f}], {n['medium']} pages)",
        "high": f"high (c in ({c2:.2f}, 1], {n['high']} pages)",
    }
    ctx.report += [
        Heading(f"By page complexity on {label}", level=3),
        Text(
            "Complexity c = 1 − min(1, gold words / visible words): the share of the "
            "page's visible text that is not gold (Bevendorff et al. 2023). Buckets cut "
            f"at the {quantiles[0]:.3g} and {quantiles[1]:.3g} quantiles of this set's "
            "pages; every summary metric per bucket in buckets.csv."
            + (
                f" {info['unbucketed']} page(s) show no visible words and are in no bucket."
                if info["unbucketed"]
                else ""
            )
        ),
    ]
    if rows.empty:
        ctx.report.append(Text("No page has a complexity: no buckets."))
        return rows
    shown = [m for m in _BUCKET_SHOWN if (rows["metric"] == m).any()]
    for metric in shown:
        sub = rows[rows["metric"] == metric]
        view = sub.assign(dataset=sub["bucket"].map(heads))
        # every bucket a column, in order, even an empty one
        table = cross_table(view, metric, with_ci=True).reindex(
            columns=["method", *heads.values()], fill_value="-"
        )
        write_table(
            table,
            ctx.out / "tables" / f"extraction_{file_stem(label)}_buckets_{metric}",
            caption=with_note(
                f"{label}: {metric} by page-complexity bucket, mean [{ci_label(opts)}]",
                drop_note(per_page, ctx.on_failure),
            ),
        )
        bar_prf(
            sub.assign(dataset=label, metric=sub["bucket"]),
            ctx.out / "figures" / f"extraction_{file_stem(label)}_buckets_{metric}",
            label,
            metrics=BUCKETS,
            labels=tuple(heads[b] for b in BUCKETS),
            title=f"{label}: {metric} by page complexity",
        )
        ctx.report += [
            Table(table, lead=f"**{metric}**", gap=False),
            Figure(
                f"figures/extraction_{file_stem(label)}_buckets_{metric}.png",
                f"{metric} by complexity",
            ),
        ]
    return rows
