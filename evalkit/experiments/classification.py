"""The ``classification`` experiment: Naive Bayes accuracy on each extractor's text.

Kabir, Kabir & Amin (2015, ECIJ 4(3), §4.3-4.4) judge a cleaning method by
how well a Naive Bayes classifier trained on the cleaned text of most pages
predicts the category of the rest (their Tables 4.3.1, 4.3.2 and 4.4.1).
Here every configured extractor, plus two references that are always added
(``raw`` = all visible text, the fulltext method; ``gold`` = the gold text),
extracts every page of a data set with categories (``page.category``) through
the cached runner, and ``evalkit.core.naive_bayes`` runs the protocol on the
texts: seven cases with test fractions 2 %..14 %, each drawn ``repeats``
times with seeded splits.

Reported per data set and method (``summary.csv``, accuracies as fractions):

* ``accuracy_case<k>``: mean over the repeats of case k, with a 95 % percentile
  bootstrap interval over the repeats (resampling the draws, i.e. the
  uncertainty that comes from the choice of split, not from the choice of
  pages in the data set); ``accuracy_case<k>_std`` (ddof 1) and
  ``accuracy_case<k>_first`` (repeat 0: the paper's single draw);
* ``accuracy``: mean over cases and repeats, interval by resampling repeats
  (each repeat's mean over the seven cases);
* ``kabir_se``: the paper's "standard error" of Table 4.4.1 (mean error rate
  over the cases, see ``evalkit.metrics.kabir_standard_error``) from the first
  draws, as in the paper; ``kabir_se_mean`` the same from the case means;
  ``se``: the textbook standard error of the first-draw case accuracies;
* ``failures``: pages whose extraction failed (their text counts as empty).

Every method sees the same splits (same seed, same page order), so methods
are compared on identical train/test partitions. A method whose extraction
failed on every page (e.g. a peer whose package is missing) is reported as
unavailable, not run through the classifier.

Departures from the paper: any data set with categories, not their 500
ezinearticles pages in 3 categories (the test sizes are the paper's
fractions of our page count, so 7..50 of chaos's 360 pages); repeated draws
besides the single one; references raw and gold added; the classifier's
features are fixed by ``evalkit.core.naive_bayes`` (the paper gives none).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from evalkit import metrics
from evalkit.core.naive_bayes import (
    DEFAULT_REPEATS,
    DEFAULT_TEST_FRACTIONS,
    case_standard_errors,
    naive_bayes_accuracy,
    summarize_accuracy,
)
from evalkit.experiments import Context
from evalkit.harness.specs import MethodSpec
from evalkit.harness.summary import ROW_COLUMNS, summary_row
from evalkit.report.filenames import file_stem
from evalkit.report.results import write_csv
from evalkit.report.sections import Figure, Heading, Table, Text
from evalkit.report.tables import format_cell, write_table

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_N_BOOT",
    "REFERENCES",
    "MissingCategoryError",
    "accuracy_draws",
    "accuracy_figure",
    "case_table",
    "classification_specs",
    "method_table",
    "paper_tables",
    "run",
    "summarize",
]

DEFAULT_N_BOOT = 1000
DEFAULT_ALPHA = 0.05
#: always-included reference rows: all visible text and the gold text
REFERENCES = (MethodSpec("raw", "fulltext"), MethodSpec("gold", "gold"))


class MissingCategoryError(ValueError):
    """A page of the data set has no category label, so Naive Bayes cannot be trained."""


def classification_specs(specs: Sequence[MethodSpec]) -> list[MethodSpec]:
    """The references ``raw`` and ``gold`` first (unless a spec already has that name),
    then the configured extractors in order."""
    labels = {s.label for s in specs}
    return [r for r in REFERENCES if r.label not in labels] + list(specs)


def _record(page, label: str, ext) -> dict[str, Any]:
    # module level so worker processes can pickle it; the text travels back with the record
    text = ext.text or ""
    return {
        "dataset": page.dataset,
        "page_id": page.id,
        "method": label,
        "category": page.category,
        "n_words": len(text.split()),
        "seconds": ext.seconds,
        "error": ext.error,
        "text": text,
    }


def accuracy_draws(
    per_page: pd.DataFrame,
    test_fractions: Sequence[float] = DEFAULT_TEST_FRACTIONS,
    repeats: int = DEFAULT_REPEATS,
    seed: int = 0,
) -> tuple[pd.DataFrame, dict[str, str]]:
    """Naive Bayes draws for every method of one data set's per-page records.

    ``per_page`` has columns method, page_id, category, text, error (one row
    per page and method, pages in the same order for every method). Returns
    the draws (``evalkit.core.naive_bayes.FRAME_COLUMNS`` plus ``method``) and a
    status per method: ``"ok"``, ``"ok (<n> failed pages counted as empty)"``
    or ``"unavailable: <first error>"``.
    """
    frames, status = [], {}
    for method, df in per_page.groupby("method", sort=False):
        failed = df["error"].notna()
        if failed.all():
            status[method] = f"unavailable: {df['error'].iloc[0]}"
            continue
        texts = df["text"].where(~failed, "").fillna("").tolist()
        frame = naive_bayes_accuracy(
            texts,
            df["category"].tolist(),
            test_fractions=test_fractions,
            repeats=repeats,
            seed=seed,
        )
        frames.append(frame.assign(method=method))
        status[method] = (
            f"ok ({int(failed.sum())} failed pages counted as empty)" if failed.any() else "ok"
        )
    draws = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return draws, status


def summarize(
    draws: pd.DataFrame,
    status: Mapping[str, str],
    failures: Mapping[str, int],
    dataset: str,
    n_pages: int,
    n_boot: int = DEFAULT_N_BOOT,
    alpha: float = DEFAULT_ALPHA,
    seed: int = 0,
) -> pd.DataFrame:
    """Long-format summary rows of one data set (see the module docstring for the metrics)."""
    rows = []
    for method in status:
        rows.append(
            summary_row(dataset, method, "failures", failures.get(method, 0), n_pages=n_pages)
        )
        if not len(draws) or method not in set(draws["method"]):
            continue
        frame = draws[draws["method"] == method]
        summary = summarize_accuracy(frame)
        for case in summary.itertuples(index=False):
            acc = frame.loc[frame["case"] == case.case, "accuracy"].to_numpy(float)
            lo, hi = metrics.bootstrap_ci(acc, n_boot=n_boot, alpha=alpha, seed=seed)
            rows.append(
                summary_row(
                    dataset, method, f"accuracy_case{case.case}", case.mean, lo, hi, n_pages
                )
            )
            rows.append(
                summary_row(
                    dataset, method, f"accuracy_case{case.case}_std", case.std, n_pages=n_pages
                )
            )
            rows.append(
                summary_row(
                    dataset, method, f"accuracy_case{case.case}_first", case.first, n_pages=n_pages
                )
            )
        per_repeat = frame.groupby("repeat")["accuracy"].mean().to_numpy(float)
        lo, hi = metrics.bootstrap_ci(per_repeat, n_boot=n_boot, alpha=alpha, seed=seed)
        rows.append(
            summary_row(dataset, method, "accuracy", float(per_repeat.mean()), lo, hi, n_pages)
        )
        first = case_standard_errors(summary, "first")
        rows.append(summary_row(dataset, method, "kabir_se", first["kabir_se"], n_pages=n_pages))
        rows.append(
            summary_row(
                dataset,
                method,
                "kabir_se_mean",
                case_standard_errors(summary, "mean")["kabir_se"],
                n_pages=n_pages,
            )
        )
        rows.append(summary_row(dataset, method, "se", first["se"], n_pages=n_pages))
    return pd.DataFrame(rows, columns=ROW_COLUMNS)


def run(ctx: Context) -> pd.DataFrame | None:
    opts = ctx.section("classification")
    fractions = tuple(float(f) for f in opts.get("test_fractions", DEFAULT_TEST_FRACTIONS))
    repeats = int(opts.get("repeats", DEFAULT_REPEATS))
    n_boot = int(opts.get("n_boot", DEFAULT_N_BOOT))
    alpha = float(opts.get("alpha", DEFAULT_ALPHA))
    specs = classification_specs(ctx.specs)
    summaries = []
    for label, ds in ctx.datasets.items():

        def pages(ds=ds, label=label):
            for page in ds.pages():
                if page.category is None:
                    raise MissingCategoryError(
                        f"data set {label!r} has no category for page {page.id!r}: the "
                        "classification experiment needs a category on every page (e.g. "
                        "dataset=chaos or dataset=synthetic)"
                    )
                yield page

        try:
            records = ctx.runner.run_pages(
                pages(), specs, score=_record, desc=f"classification {label}", total=ds.page_count()
            )
        except MissingCategoryError as err:
            if ctx.section("experiment").get("name", "classification") == "classification":
                raise  # asked for by name: a set without categories is a mistake
            # one part of `experiment=all`: the other parts still apply to this set
            print(f"evalkit: classification skipped for {label!r}: {err}")
            ctx.dataset_info.setdefault(label, {})["classification"] = f"skipped: {err}"
            continue
        per_page = pd.DataFrame.from_records(records)
        if per_page.empty:
            raise MissingCategoryError(f"data set {label!r} has no pages to classify")
        n_pages = int(per_page["page_id"].nunique())
        draws, status = accuracy_draws(per_page, fractions, repeats, ctx.seed)
        failed = per_page[per_page["error"].notna()]
        ctx.record_pages(per_page.drop(columns=["text"]).assign(experiment="classification"), label)
        summary = summarize(
            draws,
            status,
            failed.groupby("method").size().to_dict(),
            label,
            n_pages,
            n_boot=n_boot,
            alpha=alpha,
            seed=ctx.seed,
        )
        summaries.append(summary)
        _tables_and_figures(ctx, summary, draws, status, label, fractions, opts)
    return pd.concat(summaries, ignore_index=True) if summaries else None


# --------------------------------------------------------------------------- tables, figure


def _value(summary: pd.DataFrame, method: str, metric: str) -> pd.Series | None:
    sub = summary[(summary["method"] == method) & (summary["metric"] == metric)]
    return sub.iloc[0] if len(sub) else None


def _cell(summary, method, metric, scale=1.0, digits=3, ci=True) -> str:
    r = _value(summary, method, metric)
    if r is None:
        return "-"
    lo, hi = (r["ci_low"] * scale, r["ci_high"] * scale) if ci else (None, None)
    return format_cell(r["value"] * scale, lo, hi, digits)


def case_table(
    summary: pd.DataFrame, draws: pd.DataFrame, status: Mapping[str, str]
) -> pd.DataFrame:
    """Rows = cases, columns = methods; cells: mean accuracy [95 % CI over repeats]."""
    cases = (
        draws[["case", "test_fraction", "n_test", "n_train"]]
        .drop_duplicates("case")
        .sort_values("case")
        if len(draws)
        else pd.DataFrame(columns=["case"])
    )
    rows = []
    for c in cases.itertuples(index=False):
        row = {
            "case": c.case,
            "test %": f"{100 * c.test_fraction:g}",
            "test pages": c.n_test,
            "training pages": c.n_train,
        }
        for method, st in status.items():
            row[method] = (
                "unavailable"
                if st.startswith("unavailable")
                else _cell(summary, method, f"accuracy_case{c.case}")
            )
        rows.append(row)
    return pd.DataFrame(rows)


def method_table(summary: pd.DataFrame, status: Mapping[str, str], n_cases: int) -> pd.DataFrame:
    """Rows = methods: the paper's layout (first draw per case, its standard error) plus the
    repeated-draw mean and the conventional standard error."""
    rows = []
    for method, st in status.items():
        row = {"method": method, "accuracy (mean of draws)": _cell(summary, method, "accuracy")}
        for k in range(1, n_cases + 1):
            row[f"case {k} first"] = _cell(summary, method, f"accuracy_case{k}_first", ci=False)
        for metric in ("kabir_se", "kabir_se_mean", "se"):
            row[metric] = _cell(summary, method, metric, digits=4, ci=False)
        row["status"] = st
        rows.append(row)
    return pd.DataFrame(rows)


def paper_tables(
    summary: pd.DataFrame, draws: pd.DataFrame, status: Mapping[str, str], paper: Mapping[str, Any]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The paper's Table 4.3.2 and 4.4.1 numbers beside ours.

    ``paper``: ``test_pages`` (the paper's test set sizes per case) and
    ``rows`` (``{our method name: {row: the paper's name, accuracy: [percent
    per case], kabir_se: value}}``; a paper row whose method we do not run
    shows ``not run``). Accuracies in percent: ours mean +- std over repeats.
    """
    rows_cfg = dict(paper.get("rows") or {})
    test_pages = list(paper.get("test_pages") or [])
    n_cases = int(draws["case"].max()) if len(draws) else 0
    cases = []
    for k in range(1, max(n_cases, len(test_pages)) + 1):
        ours_n = draws.loc[draws["case"] == k, "n_test"]
        row = {
            "case": k,
            "test pages (paper)": test_pages[k - 1] if k <= len(test_pages) else "-",
            "test pages (ours)": int(ours_n.iloc[0]) if len(ours_n) else "-",
        }
        for method, cfg in rows_cfg.items():
            acc = list(cfg.get("accuracy") or [])
            row[f"{cfg.get('row', method)} (paper)"] = f"{acc[k - 1]:g}" if k <= len(acc) else "-"
        for method, st in status.items():
            if st.startswith("unavailable"):
                row[method] = "unavailable"
                continue
            mean = _value(summary, method, f"accuracy_case{k}")
            std = _value(summary, method, f"accuracy_case{k}_std")
            row[method] = (
                "-" if mean is None else f"{100 * mean['value']:.1f} ± {100 * std['value']:.1f}"
            )
        cases.append(row)
    se_rows = []
    for method in list(status) + [m for m in rows_cfg if m not in status]:
        cfg = rows_cfg.get(method, {})
        paper_se = cfg.get("kabir_se")
        rec = {
            "method": method,
            "paper row": cfg.get("row", "-"),
            "kabir_se (paper)": f"{paper_se:g}" if paper_se is not None else "-",
        }
        st = status.get(method, "not run")
        for metric in ("kabir_se", "kabir_se_mean", "se"):
            rec[metric] = (
                st
                if not st.startswith("ok")
                else _cell(summary, method, metric, digits=4, ci=False)
            )
        se_rows.append(rec)
    return pd.DataFrame(cases), pd.DataFrame(se_rows)


def accuracy_figure(
    summary: pd.DataFrame,
    draws: pd.DataFrame,
    status: Mapping[str, str],
    stem,
    dataset: str,
    paper: Mapping[str, Any] | None = None,
) -> None:
    """Mean accuracy per case and method, error bars = 95 % bootstrap CI over repeats;
    a paper's single-draw accuracies (``paper["rows"]``, percent) as dashed grey lines."""
    import matplotlib.pyplot as plt

    from evalkit.report.plots import save
    from evalkit.report.style import method_style

    methods = [m for m, st in status.items() if not st.startswith("unavailable")]
    cases = draws[["case", "n_test"]].drop_duplicates("case").sort_values("case")
    x = cases["case"].to_numpy(int)
    fig, ax = plt.subplots(figsize=(7.2, 4.4))
    width = 0.5 / max(len(methods), 1)
    lows = []
    for j, method in enumerate(methods):
        rows = [(_value(summary, method, f"accuracy_case{k}")) for k in x]
        vals = np.array([r["value"] for r in rows], float)
        err = np.vstack(
            [
                np.clip(vals - [r["ci_low"] for r in rows], 0, None),
                np.clip(np.array([r["ci_high"] for r in rows]) - vals, 0, None),
            ]
        )
        lows.append(np.nanmin(vals - err[0]))
        look = method_style(method)  # the method's colour, marker and line in every figure
        ax.errorbar(
            x + (j - (len(methods) - 1) / 2) * width,
            vals,
            yerr=err,
            markersize=4,
            capsize=2,
            linewidth=1,
            label=method,
            **look.line(),
        )
    for (method, cfg), marker in zip((paper or {}).get("rows", {}).items(), "xs^v+"):
        acc = np.asarray(cfg.get("accuracy") or [], float)[: len(x)] / 100
        ax.plot(
            x[: len(acc)],
            acc,
            linestyle="--",
            color="0.4",
            marker=marker,
            linewidth=1,
            label=f"{cfg.get('row', method)} (paper, 1 draw)",
        )
        lows.append(float(acc.min()) if acc.size else 1.0)
    ax.set_xticks(x, [f"{k}\n({n})" for k, n in zip(x, cases["n_test"])])
    ax.set_xlabel(
        "case (our test pages)"
        + ("; the paper's cases test the same share of its pages" if paper else "")
    )
    n_rep = int(draws["repeat"].nunique())
    ax.set_ylabel(f"accuracy (mean of {n_rep} draws, 95% CI)")
    bottom = min(lows) if lows else 0.0
    ax.set_ylim(max(0.0, np.floor(bottom * 20) / 20 - 0.05), 1.01)
    ax.set_title(f"{dataset}: Naive Bayes accuracy on each extractor's text")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    save(fig, stem)


def _tables_and_figures(ctx: Context, summary, draws, status, label, fractions, opts):
    tdir, fdir = ctx.out / "tables", ctx.out / "figures"
    if len(draws):
        write_csv(
            draws[["method", *[c for c in draws.columns if c != "method"]]],
            tdir / f"classification_{file_stem(label)}_draws.csv",
        )
    repeats = int(draws["repeat"].nunique()) if len(draws) else 0
    cases = case_table(summary, draws, status)
    write_table(
        cases,
        tdir / f"classification_{file_stem(label)}_cases",
        caption=f"Naive Bayes accuracy on {label}: mean of {repeats} seeded draws per "
        "case [95% bootstrap CI over the draws]",
    )
    methods = method_table(summary, status, len(fractions))
    write_table(
        methods,
        tdir / f"classification_{file_stem(label)}_methods",
        caption=f"Naive Bayes accuracy on {label} per method: mean of all draws [95% "
        "CI], the first draw per case (the paper's single draw), the paper's "
        "standard error (kabir_se = mean error rate over the cases, from the "
        "first draws; kabir_se_mean from the case means) and the textbook one",
    )
    ctx.report += [Heading(f"Naive Bayes classification on {label}"), Table(cases), Table(methods)]
    if len(draws) and bool((draws["n_correct"] == draws["n_test"]).all()):
        # a table of 1.000s reads like a result; say that it is a ceiling
        why = (
            " (the synthetic topics share almost no content words; `study=kabir2015` runs the "
            "experiment on the chaos set)"
            if label == "synthetic"
            else ""
        )
        ctx.report.append(
            Text(
                f"Every text variant that ran classified every test page of {label} "
                "correctly in every draw: the categories are told apart by words that every "
                f"extractor keeps, so this data set cannot rank the methods here{why}."
            )
        )
    if len(draws):
        stem = f"classification_{file_stem(label)}_accuracy"
        accuracy_figure(summary, draws, status, fdir / stem, label, opts.get("paper"))
        ctx.report.append(Figure(f"figures/{stem}.png", "accuracy per case"))
    paper = opts.get("paper")
    if paper:
        source = paper.get("source", "paper")
        t432, t441 = paper_tables(summary, draws, status, paper)
        write_table(
            t432,
            tdir / f"classification_{file_stem(label)}_paper_accuracy",
            caption=f"{source} Table 4.3.2 beside evalkit on {label}: accuracy (%) per "
            f"case; ours = mean ± std of {repeats} draws",
        )
        write_table(
            t441,
            tdir / f"classification_{file_stem(label)}_paper_se",
            caption=f"{source} Table 4.4.1 beside evalkit on {label}: standard error",
        )
        ctx.report += [Heading(f"{source} beside ours", level=3), Table(t432), Table(t441)]
