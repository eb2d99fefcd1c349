"""The ``speed`` experiment: time per page of every method against the lxml parse of the page.

Issue "Fast and unbreakable" sets the targets (experiments/speed/README.md):
the proposed method, CETD, PAB and the jusText-style method each at most 3 x
the median time lxml takes to parse the same pages, and TWC-PFM plus the
fingerprint of a 5,000-term block in at most 20 ms. Parsing is the floor:
every method parses the page once.

What is measured: the timing of one data set is one task of the runner, so
all its methods are timed inside one process (this one with
``runner.n_jobs=1``, a joblib worker or a Dask worker otherwise), one data set
at a time, with no extraction cache, so nothing but the method is timed and
every method meets the same machine:

* per page, interleaved so that a change in machine load hits all alike:
  ``evalkit.core.page.parse_html(page.html)`` and each method through
  :func:`evalkit.harness.runner.extract_one`; each method runs once on the first
  page before timing starts (imports, lazily built tables, caches);
* per method: median and 90th percentile ms/page, pages per second, the
  ratio of its median to the median parse time, and the growth exponent
  ``b`` of ``time ~ bytes^b`` (least squares on logs), each with a seeded
  page-bootstrap interval;
* the micro-benchmark: :func:`evalkit.proposed.twc_pfm` then
  :func:`evalkit.proposed.fingerprint` on seeded Zipf-distributed blocks of
  500 to 20,000 terms (best of ``repeat`` runs, term-hash cache cleared
  before each so hashing is always paid), with its growth exponent;
* the pure-Python floor (``speed.python_walk``, on by default): per page,
  after the parse, :func:`python_walk` visits every element from Python and
  reads what the proposed method's rules read at least (tag, text, tail, id,
  class, src, href); the row ``lxml_parse+python_walk`` is the parse plus
  that walk, so its ratio to the parse is the least any pure-Python method
  that reads the page once pays;
* the command's start-up: seconds to its first page, one page on a warm cache
  (:mod:`evalkit.experiments.speed.startup`; issue 29: under 3 s; opt-in);
* report.html's word diff of a seeded 50,000-word page against an edited copy
  (:mod:`evalkit.experiments.speed.diff_bench`; issue 28: under a second);
* the peak resident memory of the process that timed (``getrusage`` maxrss);
* where the time goes, for methods that time their own steps (the proposed
  method's ``info["seconds_<step>"]``: parse, blocks, primary, dedup,
  scoring, output): mean and median ms per step and its share of the
  method's steps, as a table, summary rows ``step_<name>_ms_mean`` and a
  stacked-bar figure. The methods time their steps with the wall clock.

The clock is CPU time of the process by default (``speed.clock=cpu``): the
machines this runs on are shared, and CPU time does not count the time
another process holds the core; ``speed.clock=wall`` measures elapsed time.

Unlike the ``extraction`` summary, this summary differs between two runs:
it holds timings.
"""

from __future__ import annotations

import functools

import pandas as pd

from evalkit.experiments import Context
from evalkit.experiments.speed.diff_bench import (
    DIFF_DATASET,
    DIFF_METHOD,
    DIFF_WORDS,
    diff_outputs,
    diff_rows,
    diff_task,
)
from evalkit.experiments.speed.harness import (
    HARNESS_PREFIX,
    harness_outputs,
    harness_rows,
    harness_table,
    ladder_rows,
    ladder_table,
    peak_memory,
)
from evalkit.experiments.speed.ladder import (
    LADDER_CHAIN,
    LADDER_SHAPES,
    LADDER_SIZES,
    _ladder_outputs,
    ladder_page,
    ladder_summary,
    ladder_task,
)
from evalkit.experiments.speed.micro import (
    DEFAULT_LENGTHS,
    MICRO_DATASET,
    MICRO_METHOD,
    TWC_PFM_TARGET_MS,
    TWC_PFM_TARGET_TERMS,
    _micro_outputs,
    _micro_rows,
    micro_task,
    twc_pfm_benchmark,
    zipf_terms,
)
from evalkit.experiments.speed.report import _dataset_outputs, _steps_outputs
from evalkit.experiments.speed.startup import startup_benchmark, startup_outputs, startup_rows
from evalkit.experiments.speed.summary import (
    DEFAULT_TARGETS,
    TABLE_METRICS,
    growth_exponent,
    speed_table,
    step_table,
    summarize,
)
from evalkit.experiments.speed.timing import (
    CLOCKS,
    PARSE_LABEL,
    PY_WALK_LABEL,
    STEP_PREFIX,
    peak_rss_mb,
    python_walk,
    time_dataset_task,
    time_pages,
)
from evalkit.harness.summary import summary_row
from evalkit.report.sections import Text

__all__ = [
    "CLOCKS",
    "DEFAULT_LENGTHS",
    "DEFAULT_TARGETS",
    "HARNESS_PREFIX",
    "LADDER_CHAIN",
    "LADDER_SHAPES",
    "LADDER_SIZES",
    "MICRO_DATASET",
    "MICRO_METHOD",
    "PARSE_LABEL",
    "PY_WALK_LABEL",
    "STEP_PREFIX",
    "TABLE_METRICS",
    "TWC_PFM_TARGET_MS",
    "TWC_PFM_TARGET_TERMS",
    "growth_exponent",
    "harness_outputs",
    "harness_rows",
    "harness_table",
    "ladder_page",
    "ladder_rows",
    "ladder_summary",
    "ladder_table",
    "ladder_task",
    "micro_task",
    "peak_memory",
    "peak_rss_mb",
    "python_walk",
    "run",
    "speed_table",
    "step_table",
    "summarize",
    "time_dataset_task",
    "time_pages",
    "twc_pfm_benchmark",
    "zipf_terms",
]


def _one(runner, fn, task, desc: str):
    # one task, run where the runner runs tasks; the map keeps one task in flight at a time,
    # so two timings never share the machine
    (result,) = runner.map(fn, [task], desc=desc, total=1, unit="task")
    return result


def run(ctx: Context) -> pd.DataFrame:
    opts = ctx.section("speed")
    clock = opts.get("clock", "cpu")
    if clock not in CLOCKS:
        raise ValueError(f"speed.clock must be one of {sorted(CLOCKS)}, got {clock!r}")
    targets = opts.get("targets") or {}
    n_boot, alpha = int(opts.get("n_boot", 1000)), float(opts.get("alpha", 0.05))
    timing = functools.partial(
        time_dataset_task,
        specs=ctx.specs,
        clock=clock,
        warmup=opts.get("warmup", True),
        walk=opts.get("python_walk", True),
        render=bool(opts.get("render", False)),
    )
    summaries = []
    for label, ds in ctx.datasets.items():
        pages = list(ds.pages())
        per_page, peak = _one(ctx.runner, timing, pages, f"speed {label}")
        if per_page.empty:
            continue
        per_page.insert(0, "experiment", "speed")
        ctx.record_pages(per_page, label)
        summary = summarize(per_page, label, targets, n_boot, alpha, ctx.seed)
        # maxrss never goes down: this is the peak of the timing process up to this data set
        summary = pd.concat(
            [
                summary,
                pd.DataFrame(
                    [summary_row(label, "process", "peak_rss_mb", peak, n_pages=len(pages))]
                ),
            ]
        )
        summaries.append(summary)
        _dataset_outputs(ctx, summary, per_page, label, clock)
        _steps_outputs(ctx, per_page, label)
    ladder = opts.get("ladder") or {}
    if ladder.get("enabled", False):
        task = functools.partial(
            ladder_task,
            shapes=list(ladder.get("shapes", LADDER_SHAPES)),
            specs=ctx.specs,
            clock=clock,
        )
        per_page, peak = _one(
            ctx.runner,
            task,
            [int(n) for n in ladder.get("sizes", LADDER_SIZES)],
            "speed size ladder",
        )
        per_page.insert(0, "experiment", "speed")
        ctx.record_pages(per_page, "ladder")
        summary = ladder_summary(per_page)
        summaries.append(
            pd.concat(
                [
                    summary,
                    pd.DataFrame(
                        [
                            summary_row(
                                "ladder", "process", "peak_rss_mb", peak, n_pages=len(per_page)
                            )
                        ]
                    ),
                ]
            )
        )
        _ladder_outputs(ctx, per_page, summary, clock)
    micro = opts.get("micro") or {}
    if micro.get("enabled", True):
        repeat = int(micro.get("repeat", 5))
        bench_task = functools.partial(
            micro_task,
            repeat=repeat,
            vocabulary=int(micro.get("vocabulary", 5000)),
            exponent=float(micro.get("exponent", 1.0)),
            seed=int(micro.get("seed", ctx.seed)),
            clock=clock,
        )
        bench, peak = _one(
            ctx.runner,
            bench_task,
            [int(n) for n in micro.get("lengths", DEFAULT_LENGTHS)],
            "speed micro-benchmark",
        )
        rows = _micro_rows(bench, repeat)
        rows.append(summary_row(MICRO_DATASET, MICRO_METHOD, "peak_rss_mb", peak, n_pages=repeat))
        summaries.append(pd.DataFrame(rows))
        _micro_outputs(ctx, bench, clock)
    diff = opts.get("diff") or {}
    if diff.get("enabled", True):  # report.html's diff of a long page (issue 28)
        repeat = int(diff.get("repeat", 5))
        task = functools.partial(
            diff_task, repeat=repeat, seed=int(diff.get("seed", ctx.seed)), clock=clock
        )
        bench, peak = _one(
            ctx.runner, task, int(diff.get("words", DIFF_WORDS)), "speed report diff"
        )
        rows = diff_rows(bench, repeat)
        rows.append(summary_row(DIFF_DATASET, DIFF_METHOD, "peak_rss_mb", peak, n_pages=repeat))
        summaries.append(pd.DataFrame(rows))
        diff_outputs(ctx, bench, clock)
    startup = opts.get("startup") or {}
    if startup.get("enabled", False):  # the command's start to its first page (issue 29)
        dataset, method = (
            str(startup.get("dataset", "synthetic")),
            str(startup.get("method", "cetd")),
        )
        command = f"evalkit dataset={dataset} (1 page) method={method}"
        bench = startup_benchmark(dataset, method, int(startup.get("repeat", 3)))
        summaries.append(pd.DataFrame(startup_rows(bench, command)))
        startup_outputs(ctx, bench, command)
    harness = opts.get("harness") or {}
    if harness.get("enabled", False):
        passes = harness.get("passes", True)  # false: the memory ladder alone
        rows = [
            r
            for label, ds in (ctx.datasets.items() if passes else ())
            for r in harness_rows(ctx, label, ds, harness)
        ]
        rows += ladder_rows(ctx, harness)
        if rows:
            frame = pd.DataFrame(rows)
            summaries.append(frame)
            harness_outputs(ctx, frame)
    peaks = [r for r in pd.concat(summaries).itertuples() if r.metric == "peak_rss_mb"]
    ctx.report.append(
        Text(
            "Peak resident memory of the timing process so far (getrusage maxrss): "
            + "; ".join(f"after {r.dataset} {r.value:.0f} MiB" for r in peaks)
            + "."
        )
    )
    return pd.concat(summaries, ignore_index=True)
