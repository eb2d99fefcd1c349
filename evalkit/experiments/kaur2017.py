"""The ``kaur2017`` experiment: per-page word-count confusion and scores, Kaur (2017) Tables 4-1/4-2.

Sukhvir Kaur, "An Algorithm to Eliminate Noisy Content from Web Pages"
(M.Tech dissertation, 2017), reports for each of ten news pages of one
newspaper the total words of the news, the words fetched, TP, FP, TN and FN
counted in words (Table 4-1, 4-3), then precision, recall, F1 and accuracy in
percent (Table 4-2, 4-4). This experiment builds the same two tables for the
first ``pages`` pages of each chosen data set and every chosen method, with
:func:`evalkit.metrics.word_confusion` and :func:`evalkit.metrics.confusion_scores`
(the ``kaur_*`` columns of the per-page records), and a third table setting the
range and mean of each score beside the paper's (``kaur2017.paper``).

The dissertation's own method, ``target_entities`` (per-site templates), is scored
only on the pages its templates were not written from:
:mod:`evalkit.experiments.kaur2017_held_out` runs every chosen method on those
held-out pages and reports how many pages each template matched.

Where this departs from the paper:

* The paper's pages (The Hindu, Indian Express, 2017) are not available; the
  pages here are other news pages, so only the ranges and means of the scores
  can be set side by side, never page against page.
* "Total words" is read as the words of the gold text (the paper's "total
  words of news data"), "fetched words" as the words of the method's output.
* TN is every visible page word that is neither gold nor extracted (the
  multiset definition in :func:`evalkit.metrics.word_confusion`). The paper's
  TN column holds 0 to 4 words a page, so its accuracy is close to its
  recall; ours counts the page's noise words, so accuracy also rewards the
  noise left out and can lie far from the recall on either side.
* Per-page TP + FN in the paper does not always equal its "total words"
  (page 1: 299 + 1 vs 299); our counts satisfy TP + FN = gold words.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pandas as pd

from evalkit import metrics
from evalkit.experiments import Context
from evalkit.experiments.kaur2017_held_out import (
    TARGET_ENTITIES,
    held_out_templates,
    template_table,
)
from evalkit.harness.scoring import BASE_FAMILIES, score_extraction
from evalkit.harness.summary import drop_note, failure_rows, scored, summary_row, with_note
from evalkit.report.filenames import file_stem
from evalkit.report.plots import bar_prf
from evalkit.report.sections import Figure, Heading, Table, Text
from evalkit.report.tables import write_table

__all__ = [
    "COUNT_COLUMNS",
    "DEFAULT_PAGES",
    "SCORE_COLUMNS",
    "count_table",
    "paper_ranges",
    "run",
    "score_table",
]

DEFAULT_PAGES = 10  # the paper's ten news pages per newspaper
COUNT_COLUMNS = {
    "n_words_gold": "total words",
    "n_words_out": "fetched words",
    "kaur_tp": "TP",
    "kaur_fp": "FP",
    "kaur_tn": "TN",
    "kaur_fn": "FN",
}
SCORE_COLUMNS = {
    "kaur_precision": "precision",
    "kaur_recall": "recall",
    "kaur_f1": "F1",
    "kaur_accuracy": "accuracy",
}


def _ok(per_page: pd.DataFrame) -> pd.DataFrame:
    """The records with scores (a failed page scored as empty under runner.on_failure=empty)."""
    return scored(per_page, "kaur_tp")


def count_table(per_page: pd.DataFrame) -> pd.DataFrame:
    """Table 4-1 form: one row per (method, page), word counts."""
    df = _ok(per_page)
    out = df[["method", "page_id", *COUNT_COLUMNS]].rename(columns=COUNT_COLUMNS)
    out.insert(1, "news", df.groupby("method", sort=False).cumcount().to_numpy() + 1)
    for col in COUNT_COLUMNS.values():
        out[col] = out[col].astype(int)
    return out.reset_index(drop=True)


def score_table(per_page: pd.DataFrame, digits: int = 2) -> pd.DataFrame:
    """Table 4-2 form: one row per (method, page), scores in percent."""
    df = _ok(per_page)
    out = df[["method", "page_id", *SCORE_COLUMNS]].rename(columns=SCORE_COLUMNS)
    out.insert(1, "news", df.groupby("method", sort=False).cumcount().to_numpy() + 1)
    for col in SCORE_COLUMNS.values():
        out[col] = (100 * out[col].astype(float)).round(digits)
    return out.reset_index(drop=True)


def _range_cell(values) -> str:
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    if v.size == 0:
        return "-"
    return f"{v.min():.2f}-{v.max():.2f} (mean {v.mean():.2f})"


def paper_ranges(scores: pd.DataFrame, paper: dict) -> pd.DataFrame:
    """Rows = the four scores; columns = each paper table's range (mean), then each method's."""
    rows = []
    for i, name in enumerate(SCORE_COLUMNS.values()):
        row = {"score (%)": name}
        for key, table in (paper.get("tables") or {}).items():
            values = [r[i] for r in table.get("scores", [])]
            row[f"paper {key}"] = _range_cell(values)
        for method, df in scores.groupby("method", sort=False):
            row[method] = _range_cell(df[name])
        rows.append(row)
    return pd.DataFrame(rows)


def _summary_rows(per_page, dataset, n_boot, alpha, seed):
    rows = []
    fails = {r["method"]: r for r in failure_rows(per_page, dataset)}
    for method, df in per_page.groupby("method", sort=False):
        ok = _ok(df)
        for col in SCORE_COLUMNS:
            v = ok[col].to_numpy(float) if col in ok else np.array([])
            lo, hi = metrics.bootstrap_ci(v, n_boot=n_boot, alpha=alpha, seed=seed)
            rows.append(summary_row(dataset, method, col, metrics.mean_defined(v), lo, hi, len(ok)))
        rows.append(fails[method])
    return rows


def run(ctx: Context) -> pd.DataFrame:
    opts = ctx.section("kaur2017")
    n_pages = int(opts.get("pages", DEFAULT_PAGES))
    score = functools.partial(
        score_extraction,
        shingle_n=opts.get("shingle_n", 4),
        unit_min_share=opts.get("unit_min_share", 0.5),
        metrics=list(BASE_FAMILIES),
    )
    # target_entities is scored on its templates' held-out pages only (kaur2017_held_out)
    specs = [s for s in ctx.specs if s.registry != TARGET_ENTITIES]
    rows = []
    for label, ds in ctx.datasets.items():
        if len(specs) < len(ctx.specs):
            held = _held_out(ctx, label, ds, score, opts)
            if held is not None:
                rows.append(held)
        if not specs:
            continue
        records = ctx.runner.run_pages(
            itertools.islice(ds.pages(), n_pages),
            specs,
            score=score,
            desc=f"kaur2017 {label}",
            total=min(n_pages, ds.page_count() or n_pages),
        )
        per_page = pd.DataFrame.from_records(records)
        if per_page.empty:
            continue
        per_page.insert(0, "experiment", "kaur2017")
        ctx.record_pages(per_page, label)
        summary = pd.DataFrame(
            _summary_rows(
                per_page,
                label,
                int(opts.get("n_boot", 1000)),
                float(opts.get("alpha", 0.05)),
                ctx.seed,
            )
        )
        rows.append(summary)
        _write(ctx, label, per_page, summary, opts.get("paper") or {}, n_pages)
    return pd.concat(rows, ignore_index=True) if rows else None


def _write(ctx, label, per_page, summary, paper, n_pages):
    tables = ctx.out / "tables"
    counts, scores = count_table(per_page), score_table(per_page)
    source = paper.get("source", "the paper")
    note = drop_note(per_page, ctx.on_failure)
    write_table(
        counts,
        tables / f"kaur2017_{file_stem(label)}_counts",
        caption=with_note(
            f"Word counts per page on {label} (first {n_pages} pages), as in {source} Table 4-1",
            note,
        ),
    )
    write_table(
        scores,
        tables / f"kaur2017_{file_stem(label)}_scores",
        caption=with_note(
            f"Precision, recall, F1, accuracy (%) per page on {label}, as in {source} Table 4-2",
            note,
        ),
    )
    ranges = paper_ranges(scores, paper)
    write_table(
        ranges,
        tables / f"kaur2017_{file_stem(label)}_paper",
        caption=with_note(
            f"Range over pages (mean) of each score (%): {source}'s "
            f"pages beside ours on {label}; the pages differ, so compare "
            "ranges only",
            note,
        ),
    )
    fig = ctx.out / "figures" / f"kaur2017_{file_stem(label)}_scores"
    bar_prf(
        summary,
        fig,
        label,
        metrics=tuple(SCORE_COLUMNS),
        labels=tuple(SCORE_COLUMNS.values()),
        title=f"{label}: word-count precision / recall / F1 / accuracy (first {n_pages} pages)",
    )
    ctx.report += [Heading(f"Kaur 2017 tables on {label}")] + ([Text(f"{note}.")] if note else [])
    ctx.report += [
        Table(ranges),
        Table(scores, gap=False),
        Figure(f"figures/kaur2017_{file_stem(label)}_scores.png", "scores"),
    ]


def _held_out(ctx, label, ds, score, opts):
    """Every chosen method on the held-out pages of ``label``'s target-entity templates
    (``split.test``; the first ``kaur2017.held_out_pages`` of them, all when null): the
    Kaur tables on those pages and the template table with the pages each matched."""
    templates = held_out_templates(ctx.specs, label)
    test_ids = {i for t in templates.values() for i in t.test}
    if not test_ids:
        ctx.report += [
            Heading(f"Kaur 2017 target entities on {label}"),
            Text(f"No target-entity template covers a page of {label}: no `target_entities` rows."),
        ]
        return None
    limit = opts.get("held_out_pages")
    pages = (p for p in ds.pages() if p.id in test_ids)
    if limit is not None:
        pages = itertools.islice(pages, int(limit))
    records = ctx.runner.run_pages(pages, ctx.specs, score=score, desc=f"kaur2017 {label} held-out")
    per_page = pd.DataFrame.from_records(records)
    if per_page.empty:
        return None
    per_page.insert(0, "experiment", "kaur2017_held_out")
    name = f"{label}_held_out"
    ctx.record_pages(per_page, label)
    summary = pd.DataFrame(
        _summary_rows(
            per_page, name, int(opts.get("n_boot", 1000)), float(opts.get("alpha", 0.05)), ctx.seed
        )
    )
    te = [s.label for s in ctx.specs if s.registry == TARGET_ENTITIES]
    matches = template_table(templates, per_page, te)
    tables = ctx.out / "tables"
    n = per_page["page_id"].nunique()
    note = drop_note(per_page, ctx.on_failure)
    scores = score_table(per_page)
    write_table(
        matches,
        tables / f"kaur2017_{file_stem(label)}_held_out_templates",
        caption=f"Target-entity templates of {label}: the seeded split each was "
        "written from (train) and the held-out pages (test) it is scored on, "
        "and how many of those it matched",
    )
    write_table(
        count_table(per_page),
        tables / f"kaur2017_{file_stem(label)}_held_out_counts",
        caption=with_note(
            f"Word counts per page on the {n} held-out pages of "
            f"{label}'s target-entity templates (Table 4-1 form)",
            note,
        ),
    )
    write_table(
        scores,
        tables / f"kaur2017_{file_stem(label)}_held_out_scores",
        caption=with_note(
            f"Precision, recall, F1, accuracy (%) per page on the {n} "
            f"held-out pages of {label} (Table 4-2 form)",
            note,
        ),
    )
    ranges = paper_ranges(scores, opts.get("paper") or {})
    write_table(
        ranges,
        tables / f"kaur2017_{file_stem(label)}_held_out_paper",
        caption=with_note(
            f"Range over the held-out pages of {label} (mean) of each "
            "score (%), the paper's beside ours",
            note,
        ),
    )
    unmatched = (
        int(per_page.loc[per_page["method"].isin(te), "error"].notna().sum())
        if "error" in per_page
        else 0
    )
    ctx.report += [
        Heading(f"Kaur 2017 target entities on {label} (held-out pages only)"),
        Text(
            f"`target_entities` is scored only on the {n} pages its templates were not "
            "written from (each template's `split.test`; seeded split, recorded in the "
            "template files); every method runs on the same pages. Pages a template "
            f"did not match: {unmatched} (failures, scored empty: the dissertation gives "
            "no fallback)."
        ),
    ] + ([Text(f"{note}.")] if note else [])
    ctx.report += [Table(matches), Table(ranges), Table(scores[scores["method"].isin(te)])]
    return summary
