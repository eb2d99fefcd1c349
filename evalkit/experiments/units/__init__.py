"""The ``units`` experiment: classifying atomic text blocks with shallow text features.

Rebuilds the 2-class table of San & Aye ("Noise block cleaning and main
content block extraction from dynamic web page", Table 1), whose rows and
numbers are those of Kohlschütter, Fankhauser & Nejdl ("Boilerplate detection
using shallow text features", WSDM 2010) on the L3S-GN1 Google-News pages:
ZeroR, single features, a one-threshold 1R rule on text density, and C4.8
decision trees on number of words, link density, text density and their
combinations with the features of the neighbouring blocks.

Units are evalkit's gold units (:func:`evalkit.core.align.gold_units`): on
L3S-GN1 the annotated atomic text blocks with their class ``sel0..sel5``.

Features of a unit: its number of words, average word length, link density
and text density, and those of its neighbours (:mod:`.features`).

Evaluation: k-fold cross-validation with folds grouped by page (no page is
split between training and test), all scores weighted by each unit's number
of words. Per fold and classifier: precision, recall and F1 of the content
class, accuracy, and the class-weighted averages of precision, recall and F1
over both classes (what Weka prints as "Weighted Avg." and what both papers
report: their ZeroR row, 40.7 / 63.8 / 49.7, is exactly c², c and
c·2c/(1+c) for a content share c = 0.638). The summary value is the mean
over folds; its interval a seeded percentile bootstrap of that mean, pages
resampled within each test fold.

Where this departs from the papers:

* Units come from evalkit's segmenter over the annotated copy, not from
  boilerpipe's block splitter; counts differ slightly (e.g. the content word
  share of the 2-class task is 0.639 here, 0.638 in the paper).
* Units without any word (``|``, ``»``) are dropped: they weigh nothing in
  word-weighted scores, and neighbours are taken among the remaining units.
* Units inside ``<select>``/``<option>`` (drop-down lists) are dropped, as
  San & Aye's preprocessing removes ``<select>``; evalkit's segmenter counts
  form controls as visible. On L3S-GN1 these are 16,000 words, nearly all
  unlabelled (noise); keeping them moves the content share from 0.639 to 0.616.
* C4.8 (Weka J48, C4.5 with gain ratio and pruning) is replaced by
  scikit-learn's CART tree with the entropy criterion and a minimum leaf
  size, the papers' means of avoiding over-fitting ("at least 1000
  instances"); there is no post-pruning.
* Classifiers are trained with each unit weighted by its number of words, so
  that ZeroR predicts the majority by words (content), as in the paper.
* "Only X" rows are read as a tree on the unit's own feature X; "C4.8 X" rows
  as a tree on X of the previous, current and next unit (San & Aye's example
  tree uses exactly these ``Prev``/``Curr``/``Next`` features). 1R is a single
  threshold on one feature (Weka's 1R may cut several intervals).
* The papers' 2-class task counts every annotated class (headline, full text,
  supplemental, related content, comments) as content; evalkit's main task
  (headline + full text) is run beside it. Which one a table shows is named.

The experiment is this module's :func:`run`; the features, the classifiers,
the cross-validation and the paper's table live in :mod:`.features`,
:mod:`.classifiers`, :mod:`.evaluation` and :mod:`.paper`.
"""

from __future__ import annotations

import functools
import sys

import pandas as pd

from evalkit.core.page import CONTENT
from evalkit.experiments import Context
from evalkit.experiments.units.classifiers import (
    DEFAULT_CLASSIFIERS,
    DEFAULT_MIN_SAMPLES_LEAF,
    OneR,
    feature_columns,
    make_classifier,
)
from evalkit.experiments.units.evaluation import (
    DEFAULT_ALPHA,
    DEFAULT_FOLDS,
    DEFAULT_N_BOOT,
    SCORE_NAMES,
    cross_validate,
    group_folds,
    summarize,
    word_scores,
)
from evalkit.experiments.units.features import (
    BASE_FEATURES,
    DEFAULT_DROP_INSIDE,
    DEFAULT_LINE_WIDTH,
    DEFAULT_TASKS,
    feature_task,
    inside,
    page_rows,
    text_density,
    unit_features,
    words_of,
    wrap_lines,
)
from evalkit.experiments.units.paper import _paper_figure, paper_rows, paper_table
from evalkit.report.filenames import file_stem

__all__ = [
    "BASE_FEATURES",
    "DEFAULT_CLASSIFIERS",
    "DEFAULT_DROP_INSIDE",
    "DEFAULT_FOLDS",
    "DEFAULT_LINE_WIDTH",
    "DEFAULT_MIN_SAMPLES_LEAF",
    "DEFAULT_TASKS",
    "SCORE_NAMES",
    "OneR",
    "cross_validate",
    "feature_columns",
    "feature_task",
    "group_folds",
    "inside",
    "make_classifier",
    "page_rows",
    "paper_rows",
    "paper_table",
    "run",
    "summarize",
    "text_density",
    "unit_features",
    "word_scores",
    "words_of",
    "wrap_lines",
]


def _features(runner, ds, tasks, width, drop_inside, failures: list) -> pd.DataFrame:
    """Unit rows of every page of ``ds`` (computed by ``runner``); pages whose units cannot
    be read are appended to ``failures``."""
    task = functools.partial(feature_task, tasks=tasks, width=width, drop_inside=drop_inside)
    frames = []
    for got, failed in runner.map(
        task,
        runner.page_tasks(ds.pages()),
        desc=f"units {ds.name}",
        total=ds.page_count(),
        unit="page",
        count=lambda r: len(r[0]) + len(r[1]),
    ):
        frames += [f for f in got if len(f)]
        failures.extend(failed)
    if not frames:
        return pd.DataFrame()
    return pd.concat(frames, ignore_index=True)


def _class_table(rows: pd.DataFrame, tasks) -> pd.DataFrame:
    fine = rows["fine"].fillna("none")
    total = rows["weight"].sum()
    out = (
        rows.assign(fine=fine)
        .groupby("fine", sort=True)
        .agg(units=("weight", "size"), words=("weight", "sum"))
        .reset_index()
    )
    out["words"] = out["words"].astype(int)
    out["word_share"] = (out["words"] / total).round(4)
    spans = rows["by_span"].any()
    for t, cls in tasks.items():
        out[f"content_in_{t}"] = out["fine"].isin(list(cls) if spans else [CONTENT])
    return out


def run(ctx: Context) -> pd.DataFrame | None:
    opts = ctx.section("units")
    tasks = {str(k): tuple(v) for k, v in (opts.get("tasks") or DEFAULT_TASKS).items()}
    classifiers = opts.get("classifiers") or DEFAULT_CLASSIFIERS
    for spec in classifiers.values():
        feature_columns(spec)  # unknown features fail before any parsing
    width = int(opts.get("line_width", DEFAULT_LINE_WIDTH))
    drop_inside = tuple(opts.get("drop_inside", DEFAULT_DROP_INSIDE) or ())
    n_folds = int(opts.get("folds", DEFAULT_FOLDS))
    seed = int(opts.get("seed", ctx.seed))
    summaries = []
    for label, ds in ctx.datasets.items():
        rows = _features(ctx.runner, ds, tasks, width, drop_inside, ctx.failures)
        if rows.empty:
            continue
        n_pages = int(rows["page_id"].nunique())
        if n_pages < n_folds:  # a quick run on a few pages: the other parts go on
            _too_few(ctx, label, n_pages, n_folds)
            continue
        # without span classes every task has the same (aligned) labels: run the first only
        ds_tasks = tasks if rows["by_span"].any() else dict(list(tasks.items())[:1])
        folds, pages = cross_validate(
            rows,
            classifiers,
            list(ds_tasks),
            n_folds=n_folds,
            seed=seed,
            min_samples_leaf=int(opts.get("min_samples_leaf", DEFAULT_MIN_SAMPLES_LEAF)),
            criterion=str(opts.get("criterion", "entropy")),
            train_weight=str(opts.get("train_weight", "words")),
        )
        summary = summarize(
            folds,
            pages,
            label,
            n_boot=int(opts.get("n_boot", DEFAULT_N_BOOT)),
            alpha=float(opts.get("alpha", DEFAULT_ALPHA)),
            seed=seed,
        )
        summaries.append(summary)
        ctx.per_page.append(pages.assign(experiment="units", dataset=label))
        ctx.dataset_info.setdefault(label, {"reader": type(ds).__name__, "path": ds.path})
        ctx.dataset_info[label]["units"] = {
            "n_pages": int(rows["page_id"].nunique()),
            "n_units": len(rows),
            "n_words": int(rows["weight"].sum()),
        }
        _outputs(ctx, label, rows, folds, summary, ds_tasks, opts)
    return pd.concat(summaries, ignore_index=True) if summaries else None


def _too_few(ctx: Context, label: str, n_pages: int, n_folds: int) -> None:
    """One line, on the console and in the report, for a data set with fewer pages than folds:
    its units are not cross-validated (no numbers rather than numbers from empty folds)."""
    from evalkit.report.sections import Heading, Text

    line = (
        f"units: {label} has {n_pages} page(s) with units, fewer than units.folds={n_folds}: "
        "its unit classifiers are not cross-validated (more pages, or a smaller units.folds)"
    )
    print(f"evalkit: {line}", file=sys.stderr)
    ctx.report += [Heading(f"Unit classification on {label}"), Text(line[0].upper() + line[1:])]


def _outputs(ctx: Context, label, rows, folds, summary, tasks, opts) -> None:
    from evalkit.report.plots import bar_prf
    from evalkit.report.results import write_csv
    from evalkit.report.sections import Figure, Heading, Table, Text
    from evalkit.report.tables import wide_table, write_table

    tdir, fdir = ctx.out / "tables", ctx.out / "figures"
    classes = _class_table(rows, tasks)
    write_table(
        classes,
        tdir / f"units_{file_stem(label)}_classes",
        caption=f"Units with at least one word on {label}, by gold class",
    )
    write_csv(folds, tdir / f"units_{file_stem(label)}_folds.csv")
    ctx.report += [
        Heading(f"Unit classification on {label}"),
        Text(
            f"{rows['page_id'].nunique()} pages, {len(rows)} units, "
            f"{int(rows['weight'].sum())} words; {opts.get('folds', DEFAULT_FOLDS)}-fold "
            "cross-validation grouped by page; word-weighted scores, mean over folds "
            "[95% page bootstrap within folds]."
        ),
        Table(classes, gap=False),
    ]
    spans = bool(rows["by_span"].any())
    for task, cls in tasks.items():
        what = "+".join(cls) if spans else "units aligned with the gold text"
        metrics = [f"{s}_{task}" for s in SCORE_NAMES]
        table = wide_table(summary, metrics, dataset=label)
        table.columns = [c.removesuffix(f"_{task}") for c in table.columns]
        caption = f"Unit classification on {label}, content = {what}"
        write_table(table, tdir / f"units_{file_stem(label)}_{task}", caption=caption)
        stem = f"units_{file_stem(label)}_{task}_prf"
        bar_prf(
            summary,
            fdir / stem,
            label,
            metrics=tuple(metrics[:3]),
            title=f"{label}: content = {what}, word-weighted P/R/F1",
        )
        ctx.report += [
            Heading(caption, level=3),
            Table(table, gap=False),
            Figure(f"figures/{stem}.png", "P/R/F1"),
        ]
    paper = opts.get("paper")
    if paper and paper["task"] in tasks:
        long = paper_rows(summary, paper, label)
        table = paper_table(long)
        write_csv(long, tdir / f"units_{file_stem(label)}_paper_long.csv")
        write_table(
            table,
            tdir / f"units_{file_stem(label)}_paper",
            caption=f"{paper.get('source', 'paper')} beside evalkit on {label} "
            f"(task {paper['task']}, percent)",
        )
        stem = f"units_{file_stem(label)}_paper_f1"
        _paper_figure(long, fdir / stem, label, paper)
        ctx.report += [
            Heading(f"{paper.get('source', 'Paper')} beside ours (task {paper['task']})", level=3),
            Table(table, gap=False),
            Figure(f"figures/{stem}.png", "paper vs ours"),
        ]
