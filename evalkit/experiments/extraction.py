"""The ``extraction`` experiment: every method on every page, scored against the gold.

Per page and method: shingle, word and LCS P/R/F1, the word-count confusion,
unit P/R/F1/accuracy, ROUGE-LSum and ROUGE-N P/R/F1 and edit similarity (the families
of ``extraction.metrics``); per data set and method: averages with seeded
bootstrap intervals, pages correct at a threshold, and a Holm-corrected
paired test of each method against the reference method.

Timings stay in ``per_page.csv`` only: ``summary.csv`` holds nothing that
varies between two runs of the same config, so reruns can be compared byte
for byte (the ``speed`` experiment is where time is measured).
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pandas as pd

from evalkit import metrics
from evalkit.experiments import Context
from evalkit.plots import bar_prf, pages_correct_curve
from evalkit.results import CHUNK_ROWS
from evalkit.scoring import check_metrics, score_extraction
from evalkit.summary import drop_note, failure_rows, scored, shingle_rows, summary_row, with_note
from evalkit.tables import wide_table, write_table

__all__ = ["TABLE_METRICS", "ci_label", "run", "scorer_options", "summarize"]

TABLE_METRICS = ["shingle_precision", "shingle_recall", "shingle_f1", "word_f1", "lcs_f1",
                 "unit_precision_micro_words", "unit_recall_micro_words", "unit_f1_micro_words",
                 "unit_accuracy_micro_words", "pages_correct"]


def scorer_options(opts: dict) -> dict:
    """The keyword arguments of :func:`~evalkit.scoring.score_extraction` an ``extraction``
    section sets; an unknown ``extraction.metrics`` name raises here, before any page."""
    out = {"shingle_n": opts.get("shingle_n", 4),
           "unit_min_share": opts.get("unit_min_share", 0.5)}
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
    summaries = []
    for label, ds in ctx.datasets.items():
        # records go to disk as they arrive; the summaries read back only the score columns
        spill = ctx.spill(f"extraction-{label}")
        records = ctx.runner.iter_records(ds.pages(), ctx.specs, score=score,
                                          desc=f"extraction {label}")
        while chunk := list(itertools.islice(records, CHUNK_ROWS)):
            spill.append({"experiment": "extraction", **rec} for rec in chunk)
        if not spill.n_records:
            continue
        per_page = spill.frame([c for c in spill.columns if _summary_input(c)])
        ctx.record_pages(per_page, label, spill=spill)
        summary = summarize(per_page, label, opts, ctx.seed)
        summaries.append(summary)
        _tables_and_figures(ctx, summary, per_page, label, opts)
    if len(summaries) > 1:
        frames = [f for f in ctx.per_page if (f["experiment"] == "extraction").all()]
        note = drop_note(pd.concat(frames, ignore_index=True), ctx.on_failure)
        _overview(ctx, pd.concat(summaries, ignore_index=True), note)
    return pd.concat(summaries, ignore_index=True) if summaries else None


#: the per-page columns summaries, tables, figures and later parts (kaur2015) read
_KEYS = {"experiment", "dataset", "page_id", "site", "category", "method", "error"}
_SCORE_PREFIXES = ("shingle_", "word_", "lcs_", "kaur_", "unit_", "rouge", "edit_")


def _summary_input(column: str) -> bool:
    return column in _KEYS or column.startswith(_SCORE_PREFIXES)


def _overview(ctx: Context, summary: pd.DataFrame, note: str = "") -> None:
    """One method x data set table per headline metric when a run covers several sets."""
    from evalkit.tables import cross_table, to_markdown

    for metric in ("shingle_f1", "unit_f1_micro_words", "failures"):
        table = cross_table(summary, metric, digits=0 if metric == "failures" else 3)
        write_table(table, ctx.out / "tables" / f"extraction_overview_{metric}",
                    caption=with_note(f"{metric} per method and data set", note))
        ctx.report += [f"## Overview: {metric}", ""] + ([f"{note}.", ""] if note else [])
        ctx.report += [to_markdown(table), ""]


def summarize(per_page: pd.DataFrame, dataset: str, opts: dict, seed: int) -> pd.DataFrame:
    """Aggregate per-page records of one data set into long-format summary rows.

    Metrics are computed over the records that carry scores (a page a method
    failed on counts when ``runner.on_failure=empty`` scored it as an empty
    extraction); the ``failures`` row counts the records with ``error`` set.
    """
    n_boot = int(opts.get("n_boot", 1000))
    alpha = float(opts.get("alpha", 0.05))
    thr = float(opts.get("pages_correct_threshold", 0.8))
    boot = functools.partial(metrics.bootstrap_ci, n_boot=n_boot, alpha=alpha, seed=seed)
    rows = []
    fails = {r["method"]: r for r in failure_rows(per_page, dataset)}
    for method, df in per_page.groupby("method", sort=False):
        ok = scored(df, "shingle_f1")
        n = len(ok)
        rows.append(fails[method])
        if n == 0:
            continue
        rows += shingle_rows(dataset, method, ok["shingle_precision"].to_numpy(float),
                             ok["shingle_recall"].to_numpy(float), n_boot=n_boot, alpha=alpha,
                             seed=seed)
        for fam in ("word", "lcs", "kaur"):
            for key in ("precision", "recall", "f1", "accuracy"):
                col = f"{fam}_{key}"
                if col in ok:
                    v = ok[col].to_numpy(float)
                    # the mean skips pages where the metric is undefined, as its interval does
                    rows.append(summary_row(dataset, method, col, metrics.mean_defined(v),
                                            *boot(v), n))
        rows.extend(_unit_rows(ok, dataset, method, n_boot, alpha, seed))
        f1 = ok["shingle_f1"].to_numpy(float)
        rows.append(summary_row(dataset, method, "pages_correct", metrics.pages_correct(f1, thr),
                                *boot((f1 >= thr).astype(float)), n))
        rows.extend(_field_rows(ok, dataset, method, boot))
    rows.extend(_paired_rows(per_page, dataset, opts, seed))
    return pd.DataFrame(rows)


def _field_rows(ok, dataset, method, boot):
    """ROUGE-LSum, ROUGE-N and edit similarity: the mean of the per-page values (as Bevendorff
    et al. and WebMainBench average pages), skipping pages where one is undefined."""
    cols = [c for c in ok.columns if c.startswith("rouge") or c == "edit_similarity"]
    rows = []
    for col in sorted(cols, key=_field_order):
        v = ok[col].to_numpy(float)
        rows.append(summary_row(dataset, method, col, metrics.mean_defined(v), *boot(v), len(ok)))
    return rows


def _field_order(col: str) -> tuple:
    # rouge_lsum, then rouge<n>, then edit; precision, recall, f1 within each
    fam, _, key = col.rpartition("_")
    return (0 if fam == "rouge_lsum" else 2 if col == "edit_similarity" else 1, fam,
            ("precision", "recall", "f1").index(key) if key in ("precision", "recall", "f1")
            else 3)


def _unit_rows(ok, dataset, method, n_boot, alpha, seed):
    """Word-weighted unit scores, micro (summed counts) and macro (mean of pages), with CIs."""
    cols = ["unit_tp", "unit_fp", "unit_fn", "unit_tn"]
    if not set(cols) <= set(ok.columns):
        return []
    counts = ok.loc[ok[cols].notna().all(axis=1), cols].to_numpy(float)
    n = len(counts)
    if n == 0:
        return []
    rows = []
    for key, value in metrics.unit_scores([tuple(c) for c in counts]).items():
        if key == "n_pages":
            continue
        name, _, avg = key.partition("_")
        if avg == "micro_words":
            ci = metrics.bootstrap_ci_pages(
                counts.T, lambda *c, name=name: metrics.confusion_scores(
                    *(x.sum() for x in c))[name], n_boot=n_boot, alpha=alpha, seed=seed)
        else:
            per_page = [metrics.confusion_scores(*c)[name] for c in counts]
            ci = metrics.bootstrap_ci(per_page, n_boot=n_boot, alpha=alpha, seed=seed)
        rows.append(summary_row(dataset, method, f"unit_{key}", value, *ci, n))
    return rows


def _paired_rows(per_page, dataset, opts, seed):
    """p-values (Holm-corrected) of each method's per-page shingle F1 against the reference."""
    ref = opts.get("reference", "proposed")
    ok = scored(per_page, "shingle_f1")
    if ok.empty:
        return []  # no page has a score: nothing to compare
    wide = ok.pivot_table(index="page_id", columns="method", values="shingle_f1")
    if ref not in wide.columns:
        return []
    others = [m for m in dict.fromkeys(per_page["method"]) if m != ref and m in wide.columns]
    pvals, diffs, ns = [], [], []
    for m in others:
        pair = wide[[ref, m]].dropna()
        diffs.append(float((pair[m] - pair[ref]).mean()) if len(pair) else np.nan)
        pvals.append(metrics.paired_permutation_test(pair[m].to_numpy(), pair[ref].to_numpy(),
                                                     seed=seed)
                     if len(pair) else np.nan)
        ns.append(len(pair))
    adj = metrics.holm(pvals) if pvals else []
    rows = []
    for m, d, p, n in zip(others, diffs, adj, ns):
        rows.append(summary_row(dataset, m, f"f1_diff_vs_{ref}", d, np.nan, np.nan, n))
        rows.append(summary_row(dataset, m, f"p_holm_vs_{ref}", p, np.nan, np.nan, n))
    return rows


def ci_label(opts: dict) -> str:
    """What the intervals are, from the configured level: "95% bootstrap CI" at alpha 0.05."""
    return f"{1 - float(opts.get('alpha', 0.05)):.0%} bootstrap CI"


def _tables_and_figures(ctx: Context, summary, per_page, label, opts):
    thr = opts.get("pages_correct_threshold", 0.8)
    table = wide_table(summary, TABLE_METRICS, dataset=label)
    write_table(table, ctx.out / "tables" / f"extraction_{label}",
                caption=with_note(f"Extraction on {label}: mean [{ci_label(opts)}]; "
                                  f"pages_correct at shingle F1 >= {thr}",
                                  drop_note(per_page, ctx.on_failure)))
    bar_prf(summary, ctx.out / "figures" / f"extraction_{label}_shingle_prf", label)
    pages_correct_curve(per_page, ctx.out / "figures" / f"extraction_{label}_pages_correct",
                        label, seed=ctx.seed)
    from evalkit.tables import to_markdown

    note = drop_note(per_page, ctx.on_failure)
    ctx.report += [f"## Extraction on {label}", ""]
    if note:
        ctx.report += [f"{note}.", ""]
    ctx.report += [to_markdown(table),
                   f"![P/R/F1](figures/extraction_{label}_shingle_prf.png)",
                   f"![pages correct](figures/extraction_{label}_pages_correct.png)", ""]
    _field_table(ctx, summary, label, opts, note)


def _field_table(ctx: Context, summary, label, opts, note) -> None:
    """The field's metrics (ROUGE-LSum, ROUGE-N, edit similarity) of the run in one table."""
    from evalkit.tables import to_markdown

    cols = sorted({m for m in summary["metric"] if m.startswith("rouge")
                   or m == "edit_similarity"}, key=_field_order)
    if not cols:
        return
    table = wide_table(summary, cols, dataset=label)
    write_table(table, ctx.out / "tables" / f"extraction_{label}_field",
                caption=with_note(f"ROUGE and edit similarity on {label}: mean of pages "
                                  f"[{ci_label(opts)}] (docs/metrics.md)", note))
    ctx.report += [f"### ROUGE and edit similarity on {label}", "", to_markdown(table), ""]
