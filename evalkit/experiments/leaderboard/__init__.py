"""The ``leaderboard`` study: every method on every shared benchmark, each under its own metric,
ranked with a test behind the ranks, beside the published rows, with its cost from the same run.

Per data set of the run (``leaderboard.benchmarks`` names the benchmark that scores it:
:mod:`.scores`), every (page, method) is scored by the benchmark study's own function and
summarised by the benchmark's own rule, with a page-bootstrap interval. Then:

* **the board** (``tables/leaderboard``): methods x data sets, mean rank last;
* **ranks** over the data sets (Demšar 2006; :mod:`evalkit.metrics.ranks`): Friedman's
  chi2_F and Iman-Davenport's F_F, the post-hoc pairs (``leaderboard.posthoc``: Nemenyi or
  Holm-corrected Wilcoxon) and the critical-difference diagram (``figures/leaderboard_cd``).
  Only methods scored on every set are ranked, and a method trained or tuned on one of the
  sets (:func:`evalkit.core.method.trained_on`; chromerag on WCXB dev) is left out of the
  ranks unless ``leaderboard.rank_trained=true``: its row is shown, its cell marked ``†``;
* **published rows** (``tables/leaderboard_published_<set>``): where a benchmark published
  figures (``leaderboard.figures``: configs/published/), each row beside evalkit's and
  "not run here: <why>" for a system that cannot run here; where it published its tools'
  outputs (``leaderboard.outputs``: ScrapingHub's ``output/``, WCEB's ``outputs/<set>/``),
  each output is read back (``method=stored``) and scored like a method, as ``published:<tool>``;
* **groups**: each set's score per page type (WCXB), per language of the gold
  (:mod:`evalkit.metrics.language`) and per complexity bucket (thirds of each set,
  :mod:`evalkit.harness.complexity`), groups of at least ``leaderboard.min_group_pages``;
* **cost** (:mod:`.cost`): ms per page (median, p90) interleaved with the parse floor on the
  first ``leaderboard.cost.pages`` pages of each set, and each method's peak memory in a
  process of its own over all those pages; a Pareto figure per set (score against ms/page,
  memory as marker size).

Summary rows: per set and method ``board_score`` (with ``ci_low``/``ci_high``),
``board_failures``, ``board_<by>=<group>``; data set ``ranks``: ``mean_rank`` per method and,
as method ``friedman``, ``chi2``, ``p``, ``f``, ``p_f``, ``cd``; data set ``cost``:
``cost_ms_median``, ``cost_ms_p90``, ``cost_ratio_to_parse``, ``cost_peak_mb``,
``cost_mb_over_floor`` (timings: they differ between runs). experiments/leaderboard/README.md
and docs/benchmarks.md show how to read it.
"""

from __future__ import annotations

import functools
import itertools
from pathlib import Path

import pandas as pd

from evalkit.experiments import Context
from evalkit.experiments.benchmarks import comparison, pages_note
from evalkit.experiments.leaderboard import scores, tables
from evalkit.experiments.studies import show, trained_here
from evalkit.harness.complexity import complexity_buckets
from evalkit.harness.specs import MethodSpec
from evalkit.harness.summary import summary_row
from evalkit.metrics import ranks as rank_stats
from evalkit.metrics.wceb_rouge import punkt_available
from evalkit.report.sections import Figure, Heading, Table, Text
from evalkit.report.tables import write_table

__all__ = ["PUBLISHED_PREFIX", "published_specs", "run"]

#: the label prefix of a benchmark's published output read back as a method
PUBLISHED_PREFIX = "published:"
#: the page groups each set's score is broken down by (record columns)
GROUPS = ("category", "language", "bucket")
_FIGURE_KEY = {"wcxb": "f1", "trafilatura_eval": "f_score"}


def published_specs(spec: dict | None) -> list[MethodSpec]:
    """One ``stored`` method per output file of ``spec`` (``{path, format}``): a folder's
    ``<tool>.json``/``.jsonl`` files (gzipped or not), each labelled ``published:<tool>``."""
    if not spec:
        return []
    folder, fmt = Path(str(spec["path"])), str(spec.get("format", "auto"))
    if not folder.is_dir():
        raise FileNotFoundError(f"leaderboard.outputs: {folder} is not a folder")
    out = []
    for f in sorted(folder.iterdir()):
        name = f.name.removesuffix(".gz")
        for ext in (".jsonl", ".json"):
            if name.endswith(ext):
                tool = name.removesuffix(ext)
                out.append(
                    MethodSpec(
                        label=f"{PUBLISHED_PREFIX}{tool}",
                        registry="stored",
                        params={"path": str(f), "format": fmt},
                    )
                )
                break
    return out


def _benchmark_of(opts: dict, label: str) -> str:
    bench = (opts.get("benchmarks") or {}).get(label)
    if bench is None:
        raise ValueError(
            f"leaderboard.benchmarks has no entry for data set {label!r}: name the benchmark "
            f"whose metric scores it (one of {', '.join(scores.MAIN)})"
        )
    if bench not in scores.MAIN:
        raise ValueError(
            f"leaderboard.benchmarks.{label}: unknown benchmark {bench!r}; known: "
            f"{', '.join(scores.MAIN)}"
        )
    return str(bench)


def _add_buckets(per_page: pd.DataFrame) -> pd.DataFrame:
    pages = per_page.drop_duplicates("page_id")[["page_id", "complexity"]]
    names, _ = complexity_buckets(pages["complexity"].to_numpy(dtype=float))
    return per_page.merge(
        pages.assign(bucket=names)[["page_id", "bucket"]], on="page_id", how="left"
    )


def _published_table(ctx, opts, label, bench, summary, per_page) -> pd.DataFrame | None:
    """The benchmark's published figures beside evalkit's (``comparison``), or the scores
    of its published outputs read back."""
    figures = (opts.get("figures") or {}).get(label)
    if figures:
        key = _FIGURE_KEY[bench]
        value = summary[summary["metric"] == "board_score"].set_index("method")["value"]
        ours = {m: {key: float(v)} for m, v in value.items()}
        n = per_page["page_id"].nunique()
        note = pages_note(n, figures.get("pages"), ctx.datasets[label].limit is not None)
        return comparison(ours, figures.get("rows") or [], [key], float(opts["tolerance"]), note)
    rows = summary[
        (summary["metric"] == "board_score") & summary["method"].str.startswith(PUBLISHED_PREFIX)
    ]
    if rows.empty:
        return None
    return pd.DataFrame(
        {
            "tool (published output)": rows["method"].str.removeprefix(PUBLISHED_PREFIX),
            scores.NAMES[bench]: [
                tables._cell(v, lo, hi)
                for v, lo, hi in zip(rows["value"], rows["ci_low"], rows["ci_high"])
            ],
            "pages": rows["n_pages"].to_numpy(),
        }
    ).sort_values(scores.NAMES[bench], ascending=False)


def _score_sets(ctx: Context, opts: dict) -> tuple[list[dict], dict[str, str], dict]:
    n_boot, alpha = int(opts.get("n_boot", 1000)), float(opts.get("alpha", 0.05))
    min_pages = int(opts.get("min_group_pages", 20))
    sentences = opts.get("sentences", "auto")
    if sentences == "auto":
        sentences = "punkt" if punkt_available() else "rule"
    rows, benches, published = [], {}, {}
    for label, ds in ctx.datasets.items():
        bench = benches[label] = _benchmark_of(opts, label)
        specs = ctx.specs + published_specs((opts.get("outputs") or {}).get(label))
        score = functools.partial(scores.score, benchmark=bench, sentences=sentences)
        spill = ctx.stream_records("leaderboard", label, ds, score, specs, keep=True)
        if not spill.n_records:
            continue
        per_page = _add_buckets(spill.frame())
        ctx.record_pages(per_page, label, spill=spill)
        set_rows = scores.set_rows(per_page, label, bench, n_boot, alpha, ctx.seed)
        for by in GROUPS:
            set_rows += scores.group_rows(per_page, label, bench, by, min_pages)
        rows += set_rows
        table = _published_table(ctx, opts, label, bench, pd.DataFrame(set_rows), per_page)
        if table is not None:
            published[label] = table
    return rows, benches, published


def _rank_rows(ctx, summary, methods, sets, alpha, posthoc):
    """The Friedman and post-hoc tables, the CD diagram and their summary rows (None when
    fewer than two methods or sets can be ranked)."""
    board = tables.board_scores(summary, methods, sets)
    try:
        test, head, pairs, cd = tables.rank_tables(board, alpha, posthoc)
    except ValueError as exc:
        return None, [], [Text(f"No ranks: {exc}.")]
    from evalkit.report.cd_diagram import cd_diagram

    groups = rank_stats.cliques(test.mean_ranks, cd)
    cd_diagram(
        test.mean_ranks.to_dict(),
        cd,
        groups,
        ctx.out / "figures" / "leaderboard_cd",
        title=f"Mean rank over {test.n} data sets (Nemenyi CD {cd:.2f}, alpha {alpha:g})",
    )
    write_table(
        head,
        ctx.out / "tables" / "leaderboard_friedman",
        caption=f"Friedman's test of the ranks over the data sets ({', '.join(board.index)})",
    )
    write_table(
        pairs.round(4),
        ctx.out / "tables" / f"leaderboard_{posthoc}",
        caption=f"Post-hoc pairs ({posthoc}), alpha {alpha:g}",
    )
    rows = [
        summary_row("ranks", m, "mean_rank", r, n_pages=test.n) for m, r in test.mean_ranks.items()
    ]
    rows += [
        summary_row("ranks", "friedman", k, v, n_pages=test.n)
        for k, v in (
            ("chi2", test.chi2),
            ("p", test.p),
            ("f", test.f),
            ("p_f", test.p_f),
            ("cd", cd),
        )
    ]
    return (
        test.mean_ranks,
        rows,
        [
            Heading("Ranks", 3),
            Table(head),
            Figure("figures/leaderboard_cd.png", "critical-difference diagram"),
            Text(f"Post-hoc pairs ({posthoc}); `significant`: told apart at alpha {alpha:g}."),
            Table(pairs.round(4)),
        ],
    )


def run(ctx: Context) -> pd.DataFrame | None:
    opts = ctx.section("leaderboard")
    alpha = float(opts.get("alpha", 0.05))
    rows, benches, published = _score_sets(ctx, opts)
    if not rows:
        return None
    summary = pd.DataFrame(rows)
    sets = [s for s in ctx.datasets if s in set(summary["dataset"])]
    methods = [spec.label for spec in ctx.specs]
    trained = {s: trained_here(ctx, s) for s in sets}
    ranked = [
        m for m in methods if opts.get("rank_trained") or not any(m in t for t in trained.values())
    ]
    mean_ranks, rank_rows, rank_sections = _rank_rows(
        ctx, summary, ranked, sets, alpha, str(opts.get("posthoc", "nemenyi"))
    )
    rows += rank_rows
    board = tables.board_table(summary, methods, sets, trained, mean_ranks)
    names = {s: f"{s} ({scores.NAMES[benches[s]]})" for s in sets}
    cap = (
        "Each method on each data set under its benchmark's own metric "
        + "; ".join(names.values())
        + f"; page-bootstrap {1 - alpha:.0%} intervals; mean rank over the sets (Friedman)"
        + (f"; {tables.TRAINED} trained on that set, not ranked" if any(trained.values()) else "")
    )
    write_table(board.rename(columns=names), ctx.out / "tables" / "leaderboard", caption=cap)
    show(
        ctx,
        board.map(
            lambda c: (
                c.split(" [")[0] + (f" {tables.TRAINED}" if str(c).endswith(tables.TRAINED) else "")
                if isinstance(c, str)
                else c
            )
        ),
        "Leaderboard: each benchmark's own score, sorted by mean rank",
        (f"  {tables.TRAINED}: trained on that set (left out of the ranks)",)
        if any(trained.values())
        else (),
        fit=True,
    )
    sections = [Heading("Leaderboard"), Text(f"{cap}."), Table(board)]
    cost = opts.get("cost") or {}
    if cost.get("enabled", True) and int(cost.get("pages", 0)) > 0:
        cost_rows, cost_sections = _cost(ctx, cost, summary, sets, benches, trained)
        rows += cost_rows
        sections += cost_sections
    sections += rank_sections
    for label, table in published.items():
        stem = f"leaderboard_published_{label}"
        write_table(table, ctx.out / "tables" / stem, caption=f"Published rows of {label}")
        sections += [Heading(f"Published rows: {label}", 3), Table(table)]
    for label in sets:
        for by in GROUPS:
            table = tables.group_table(summary, label, by, methods)
            if not table.empty:
                write_table(
                    table,
                    ctx.out / "tables" / f"leaderboard_{by}_{label}",
                    caption=f"{label}: {scores.NAMES[benches[label]]} per {by}",
                )
                sections += [Heading(f"{label} per {by}", 3), Table(table)]
    ctx.report += sections
    return pd.DataFrame(rows)


def _cost(
    ctx: Context, opts: dict, summary: pd.DataFrame, sets, benches, trained
) -> tuple[list, list]:
    """Time per set and peak memory over all the sampled pages, the cost table and a Pareto
    figure per set (:mod:`.cost`)."""
    from evalkit.experiments.leaderboard.cost import measure_costs, memory_peaks
    from evalkit.report.pareto import pareto_figure

    n = int(opts["pages"])
    samples = {s: list(itertools.islice(ctx.datasets[s].pages(), n)) for s in sets}
    clock = str(opts.get("clock", "cpu"))
    labels = [spec.label for spec in ctx.specs]
    memory = pd.DataFrame(
        index=pd.Index(labels, name="method"), columns=["peak_mb", "mb_over_floor"]
    )
    if opts.get("memory", True):
        pooled = [p for pages in samples.values() for p in pages]
        floor, peaks = memory_peaks(pooled, ctx.specs, opts.get("timeout"))
        memory["peak_mb"] = [peaks[m][0] for m in labels]
        memory["mb_over_floor"] = memory["peak_mb"] - floor
    memory = memory.astype(float)
    rows, frames, figures = [], [], []
    for s in sets:
        timed = measure_costs(
            samples[s], ctx.specs, clock=clock, memory=False, runner=ctx.runner, desc=f"cost {s}"
        )
        score = summary[(summary["dataset"] == s) & (summary["metric"] == "board_score")]
        frame = timed.set_index("method")[["ms_median", "ms_p90", "ratio_to_parse"]].join(
            memory[["peak_mb", "mb_over_floor"]]
        )
        frame["score"] = score.set_index("method")["value"].reindex(frame.index)
        frame = frame.reset_index()
        frames.append(frame.assign(dataset=s))
        for r in frame.itertuples():
            for key in ("ms_median", "ms_p90", "ratio_to_parse", "peak_mb", "mb_over_floor"):
                rows.append(
                    summary_row(
                        s, r.method, f"cost_{key}", getattr(r, key), n_pages=len(samples[s])
                    )
                )
        stem = ctx.out / "figures" / f"leaderboard_pareto_{s}"
        here = trained[s]
        marked = [f"{m} {tables.TRAINED}" if m in here else m for m in frame["method"]]
        pareto_figure(
            frame.assign(method=marked),
            stem,
            y="score",
            size="mb_over_floor",
            title=f"{s}: {scores.NAMES[benches[s]]} against {clock} ms/page",
            ylabel=scores.NAMES[benches[s]],
        )
        figures.append(Figure(f"figures/{stem.name}.png", f"quality, speed and memory on {s}"))
    table = pd.concat(frames, ignore_index=True)
    table = table[
        [
            "dataset",
            "method",
            "score",
            "ms_median",
            "ms_p90",
            "ratio_to_parse",
            "peak_mb",
            "mb_over_floor",
        ]
    ]
    cap = (
        f"Quality, speed and memory from this run: ms per page ({clock} clock, median and p90 over the "
        f"first {n} pages of each set, interleaved with the lxml parse: ratio_to_parse), peak "
        "resident memory of a process running the method alone over all those pages, and above the "
        "floor of a process that only parses them"
    )
    write_table(table.round(3), ctx.out / "tables" / "leaderboard_cost", caption=cap)
    return rows, [
        Heading("Quality, speed and memory", 3),
        Text(f"{cap}."),
        Table(table.round(3)),
        *figures,
    ]
