"""What evalkit itself costs around the methods it measures (issue 17): ratios within one run.

For each data set of the run (``speed.harness.enabled=true``), over the same pages:

* **stages** (one pass in this process, cache off): reading the pages (a synthetic set
  makes them here), one lxml parse of each page (what every method pays once), the
  methods' extraction, scoring with the ``extraction`` experiment's default metrics,
  the summary (bootstrap intervals included) and writing ``per_page.csv`` and
  ``summary.csv``; ms per page of each and its share of the pass;
* **overhead**: issue 17's measure as its check takes it (:func:`overhead_run`): an
  ``experiment=extraction`` run of the data set as a process of its own, one process
  (``runner.n_jobs=1``, the page worker as configured), cache off, default metrics;
  run.json's wall time minus the sum of the per-page method seconds, over that sum
  ("harness time beyond the methods"; from the command line only);
* **cold and warm**: the same path on the run's own runner (``runner=...``, already
  started), first with an empty cache (cold: every page extracted, scored and both written to the cache), then
  again with that cache (warm: extractions and score records read back); wall seconds of
  each and ``warm/cold``;
* **memory ladder** (``speed.harness.ladder_sizes``): a synthetic extraction of each size
  (``n_sites`` = pages / 10) with ``ladder_methods``, cache off, run as its own
  ``python -m evalkit`` process for every ``ladder_runners`` entry; the largest resident
  set of any one of its processes and the largest sum over its processes (main, workers,
  Dask scheduler and nannies), sampled every ``sample_s`` seconds with psutil (/proc when
  psutil is missing). Sampling can miss a peak shorter than the interval.

Every row is a clock or memory measurement: the reference check sees them as timings
(present, not compared by value; :func:`evalkit.harness.reference_check.is_timing`).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from evalkit.core.page import PageError, parse_html
from evalkit.experiments import Context
from evalkit.harness.extract import extract_one
from evalkit.harness.runner import Runner
from evalkit.harness.summary import summary_row

__all__ = [
    "HARNESS_PREFIX",
    "STAGES",
    "harness_outputs",
    "harness_rows",
    "harness_table",
    "ladder_rows",
    "ladder_table",
    "overhead_overrides",
    "overhead_run",
    "peak_memory",
    "stage_pass",
]

#: every summary metric of this module starts with it (evalkit.harness.reference_check: a timing)
HARNESS_PREFIX = "harness_"
STAGES = ("read", "parse", "extract", "score", "summarise", "write")
#: the ladder's default sizes (pages); the issue's big rungs (30,000 to 150,000) are a
#: benchmark: ``speed.harness.ladder_sizes=[300,3000,30000,150000]``
DEFAULT_LADDER = (300, 1500)


def _scorer(ctx: Context):
    from evalkit.experiments.extraction import scorer_options
    from evalkit.harness.scoring import score_extraction

    return functools.partial(score_extraction, **scorer_options(ctx.section("extraction")))


def _summarise_and_write(records, label, ctx: Context, out: Path) -> None:
    from evalkit.experiments.extraction import summarize
    from evalkit.report.results import write_csv

    per_page = pd.DataFrame.from_records(records)
    summary = summarize(per_page, label, ctx.section("extraction"), ctx.seed)
    write_csv(per_page, out / "per_page.csv")
    write_csv(summary, out / "summary.csv")


def stage_pass(pages_iter, specs, score, label: str, ctx: Context, out: Path) -> dict:
    """Seconds of each of :data:`STAGES` over one pass in this process, and the page count."""
    from evalkit.experiments.extraction import summarize
    from evalkit.report.results import write_csv

    tick = time.perf_counter
    spent = dict.fromkeys(STAGES, 0.0)
    methods = [spec.build() for spec in specs]
    records, n = [], 0
    it = iter(pages_iter)
    while True:
        t0 = tick()
        page = next(it, None)
        spent["read"] += tick() - t0
        if page is None:
            break
        n += 1
        t0 = tick()
        try:
            parse_html(page.html, source=page.source or page.id)
        except PageError:
            pass
        spent["parse"] += tick() - t0
        for spec, method in zip(specs, methods):
            t0 = tick()
            ext = extract_one(method, page)
            spent["extract"] += tick() - t0
            t0 = tick()
            records.append(score(page, spec.label, ext))
            spent["score"] += tick() - t0
    t0 = tick()
    per_page = pd.DataFrame.from_records(records)
    summary = summarize(per_page, label, ctx.section("extraction"), ctx.seed)
    spent["summarise"] = tick() - t0
    t0 = tick()
    write_csv(per_page, out / "per_page.csv")
    write_csv(summary, out / "summary.csv")
    spent["write"] = tick() - t0
    return {"seconds": spent, "n_pages": n}


def _path_pass(runner: Runner, ds, specs, score, label, ctx, out: Path) -> tuple[float, float]:
    """Wall seconds of the extraction path (pages -> records -> summary -> files) on
    ``runner``, and the sum of the per-page method seconds in its records."""
    t0 = time.perf_counter()
    records = runner.run_pages(
        ds.pages(), specs, score=score, desc=f"harness {label}", total=ds.page_count()
    )
    _summarise_and_write(records, label, ctx, out)
    wall = time.perf_counter() - t0
    methods = float(sum(r.get("seconds") or 0.0 for r in records if not r.get("cached")))
    return wall, methods


#: runner settings the overhead run keeps from the speed run's command line; the others
#: (runner=, n_jobs, cache, progress, Dask's) are what the overhead run sets itself
_KEPT_RUNNER_KEYS = ("runner.page_timeout", "runner.max_page_bytes", "runner.on_failure")


def overhead_overrides(task: list[str], label: str) -> list[str]:
    """The speed run's command-line overrides the overhead run of data set ``label`` keeps:
    methods, metrics, paths, seed and ``label``'s own settings, not those that say how the
    speed run runs (experiment, runner, hydra, speed) nor other data sets'."""
    kept = []
    for item in task:
        key = item.lstrip("+~").split("=", 1)[0]
        if key.startswith("runner") and not key.startswith(_KEPT_RUNNER_KEYS):
            continue
        if key in ("experiment", "dataset") or key.startswith(("hydra", "speed", "experiment.")):
            continue
        if key.startswith("dataset.") and not key.startswith(f"dataset.{label}."):
            continue
        kept.append(item)
    return kept


def overhead_run(label: str, out: Path) -> tuple[float, float] | None:
    """Issue 17's overhead measure exactly as its check takes it: ``evalkit
    experiment=extraction dataset=<label> runner.n_jobs=1 runner.cache=false`` (with the speed
    run's methods, metrics and settings of ``label``) as a process of its own, so its imports,
    page worker, figures and files count as they do for a user. Returns run.json's
    ``wall_seconds`` and the sum of ``per_page.csv``'s method seconds; None when the speed run
    was not started from the command line (no overrides to pass on: evalkit.shell.api)."""
    import csv
    import json

    from hydra.core.hydra_config import HydraConfig

    if not HydraConfig.initialized():
        return None
    task = overhead_overrides(list(HydraConfig.get().overrides.task), label)
    cmd = [
        sys.executable,
        "-m",
        "evalkit",
        "experiment=extraction",
        f"dataset={label}",
        *task,
        "runner.n_jobs=1",
        "runner.cache=false",
        "runner.progress=false",
        f"hydra.run.dir={out}",
    ]
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    if done.returncode != 0:
        last = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
        raise RuntimeError(f"harness overhead run on {label} failed: {last}")
    wall = json.loads((out / "run.json").read_text())["wall_seconds"]
    with open(out / "per_page.csv", newline="", encoding="utf-8") as fh:
        methods = sum(float(r["seconds"]) for r in csv.DictReader(fh) if r.get("seconds"))
    return float(wall), methods


def harness_rows(ctx: Context, label: str, ds, opts: dict) -> list[dict]:
    """The stage, overhead and cold/warm rows of one data set (see the module docstring)."""
    score = _scorer(ctx)
    specs = ctx.specs
    rows = []
    work = Path(tempfile.mkdtemp(prefix="evalkit-harness-"))
    try:
        stages = stage_pass(ds.pages(), specs, score, label, ctx, work)
        n = stages["n_pages"]
        total = sum(stages["seconds"].values()) or float("nan")
        for stage, sec in stages["seconds"].items():
            rows.append(
                summary_row(
                    label,
                    "harness",
                    f"{HARNESS_PREFIX}stage_{stage}_ms_per_page",
                    1000 * sec / max(n, 1),
                    n_pages=n,
                )
            )
            rows.append(
                summary_row(
                    label, "harness", f"{HARNESS_PREFIX}stage_{stage}_share", sec / total, n_pages=n
                )
            )
        measured = overhead_run(label, work / "overhead")
        if measured is not None:
            wall, methods = measured
            rows += [
                summary_row(
                    label, "harness", f"{HARNESS_PREFIX}one_process_wall_s", wall, n_pages=n
                ),
                summary_row(label, "harness", f"{HARNESS_PREFIX}method_s", methods, n_pages=n),
                summary_row(
                    label,
                    "harness",
                    f"{HARNESS_PREFIX}overhead_ratio",
                    (wall - methods) / methods if methods else float("nan"),
                    n_pages=n,
                ),
            ]
        # the run's own runner, already open (its workers or Dask client started once, so
        # neither pass pays a start-up), pointed at a private cache for the two passes
        runner, saved = ctx.runner, ctx.runner.cache_root
        times = {}
        try:
            runner.cache_root = str(work / "cache")
            for name in ("cold", "warm"):
                times[name], _ = _path_pass(runner, ds, specs, score, label, ctx, work)
                rows.append(
                    summary_row(
                        label, "harness", f"{HARNESS_PREFIX}{name}_wall_s", times[name], n_pages=n
                    )
                )
        finally:
            runner.cache_root = saved
        rows.append(
            summary_row(
                label,
                "harness",
                f"{HARNESS_PREFIX}warm_over_cold",
                times["warm"] / times["cold"],
                n_pages=n,
            )
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return rows


# ------------------------------------------------------------------------ memory ladder


def _pss(pid: int, rss: int) -> int:
    """Proportional set size of ``pid`` in bytes (shared pages split among their users), or
    ``rss`` where the kernel does not tell: a forked child shares most of its parent's pages,
    so a sum of resident sets counts them twice, a sum of PSS once."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return rss


def _rss_tree(pid: int) -> list[tuple[int, int]]:
    """(resident bytes, proportional bytes) of process ``pid`` and of every process below it."""
    try:
        import psutil
    except ImportError:
        return _rss_tree_proc(pid)
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return []
    out = []
    for p in procs:
        try:
            rss = p.memory_info().rss
        except psutil.Error:  # ended between the listing and the reading
            continue
        out.append((rss, _pss(p.pid, rss)))
    return out


def _rss_tree_proc(pid: int) -> list[tuple[int, int]]:
    # /proc fallback: children from every thread's children file, VmRSS from status
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) * 1024
                    out.append((rss, _pss(p, rss)))
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return out


def peak_memory(
    cmd: list[str], sample_s: float = 0.1, env: dict | None = None, timeout: float | None = None
) -> dict:
    """Run ``cmd``; sampled every ``sample_s`` seconds, the largest resident set of one of
    its processes, the largest sum of their resident sets and the largest sum of their
    proportional set sizes (the whole tree, shared pages once), MiB; its wall seconds and
    exit code."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    peak_one = peak_sum = peak_tree = 0
    try:
        while proc.poll() is None:
            mem = _rss_tree(proc.pid)
            if mem:
                peak_one = max(peak_one, max(r for r, _ in mem))
                peak_sum = max(peak_sum, sum(r for r, _ in mem))
                peak_tree = max(peak_tree, sum(p for _, p in mem))
            if timeout is not None and time.perf_counter() - t0 > timeout:
                proc.kill()
                break
            time.sleep(sample_s)
    finally:
        err = proc.communicate()[1]
    return {
        "max_mb": peak_one / 2**20,
        "sum_mb": peak_sum / 2**20,
        "tree_mb": peak_tree / 2**20,
        "wall_s": time.perf_counter() - t0,
        "returncode": proc.returncode,
        "stderr": err.decode("utf-8", "replace")[-500:],
    }


def ladder_rows(ctx: Context, opts: dict) -> list[dict]:
    """Peak memory against page count, per runner (see the module docstring)."""
    sizes = sorted(int(s) for s in opts.get("ladder_sizes", DEFAULT_LADDER))
    runners = list(opts.get("ladder_runners", ["local", "dask"]))
    methods = list(opts.get("ladder_methods", ["cetd", "fulltext"]))
    sample_s = float(opts.get("sample_s", 0.1))
    rows = []
    work = Path(tempfile.mkdtemp(prefix="evalkit-ladder-"))
    try:
        for size in sizes:
            n_sites = max(1, size // 10)
            for runner in runners:
                cmd = [
                    sys.executable,
                    "-m",
                    "evalkit",
                    "experiment=extraction",
                    "dataset=synthetic",
                    f"dataset.synthetic.n_sites={n_sites}",
                    f"method=[{','.join(methods)}]",
                    "runner.cache=false",
                    f"runner={runner}",
                    "runner.progress=false",
                    f"seed={ctx.seed}",
                    f"paths.results={work / runner / str(size)}",
                ]
                got = peak_memory(cmd, sample_s=sample_s, env=dict(os.environ))
                if got["returncode"] != 0:
                    raise RuntimeError(
                        f"memory ladder: {size} pages on runner={runner} "
                        f"failed: {got['stderr'].strip().splitlines()[-1:]}"
                    )
                where = f"ladder_{size}"
                pages = n_sites * 10
                rows += [
                    summary_row(
                        where, runner, f"{HARNESS_PREFIX}pss_tree_mb", got["tree_mb"], n_pages=pages
                    ),
                    summary_row(
                        where,
                        runner,
                        f"{HARNESS_PREFIX}rss_max_process_mb",
                        got["max_mb"],
                        n_pages=pages,
                    ),
                    summary_row(
                        where,
                        runner,
                        f"{HARNESS_PREFIX}rss_sum_processes_mb",
                        got["sum_mb"],
                        n_pages=pages,
                    ),
                    summary_row(
                        where,
                        runner,
                        f"{HARNESS_PREFIX}ladder_wall_s",
                        got["wall_s"],
                        n_pages=pages,
                    ),
                ]
            shutil.rmtree(work, ignore_errors=True)  # run folders of a rung: not kept
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return rows


# ------------------------------------------------------------------------ tables

#: harness_table's columns: metric (without the prefix) -> column
_HARNESS_COLUMNS = {
    "overhead_ratio": "overhead_ratio",
    "method_s": "method_s",
    "one_process_wall_s": "one_process_wall_s",
    "cold_wall_s": "cold_s",
    "warm_wall_s": "warm_s",
    "warm_over_cold": "warm_over_cold",
}


def harness_table(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per data set: overhead, cold and warm seconds, ``warm_over_cold``, and each
    stage's ms per page and share of the stage pass."""
    out = []
    for dataset, df in rows[rows["method"] == "harness"].groupby("dataset", sort=False):
        vals = dict(zip(df["metric"].str.removeprefix(HARNESS_PREFIX), df["value"]))
        row = {"dataset": dataset, "n_pages": int(df["n_pages"].iloc[0])}
        row.update({col: vals.get(key) for key, col in _HARNESS_COLUMNS.items()})
        for stage in STAGES:
            row[f"{stage}_ms"] = vals.get(f"stage_{stage}_ms_per_page")
            row[f"{stage}_share"] = vals.get(f"stage_{stage}_share")
        out.append(row)
    return pd.DataFrame(out)


def ladder_table(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per (pages, runner), MiB: the whole tree (sum of proportional set sizes) and
    its ratio to the smallest rung of that runner, the largest process, the sum of resident
    sets."""
    lad = rows[rows["dataset"].str.startswith("ladder_")]
    out = []
    first: dict[str, float] = {}
    for (dataset, runner), df in lad.groupby(["dataset", "method"], sort=False):
        vals = dict(zip(df["metric"].str.removeprefix(HARNESS_PREFIX), df["value"]))
        tree = vals.get("pss_tree_mb")
        first.setdefault(runner, tree)
        out.append(
            {
                "pages": int(df["n_pages"].iloc[0]),
                "runner": runner,
                "tree_pss_mb": tree,
                "tree_vs_smallest": tree / first[runner] if tree and first[runner] else None,
                "rss_max_process_mb": vals.get("rss_max_process_mb"),
                "rss_sum_processes_mb": vals.get("rss_sum_processes_mb"),
                "wall_s": vals.get("ladder_wall_s"),
            }
        )
    return pd.DataFrame(out)


def harness_outputs(ctx: Context, rows: pd.DataFrame) -> None:
    """Tables ``speed_harness`` and ``speed_memory_ladder`` and their report sections."""
    from evalkit.report.sections import Heading, Table
    from evalkit.report.tables import write_table

    for name, table, caption in (
        (
            "speed_harness",
            harness_table(rows),
            (
                "Harness cost: overhead = (one-process wall - method seconds) / method seconds, "
                "cache off; cold and warm passes on the run's runner (s) and warm/cold; per-stage "
                "ms/page and share of a one-process stage pass"
            ),
        ),
        (
            "speed_memory_ladder",
            ladder_table(rows),
            (
                "Peak memory (MiB) of a synthetic extraction against its page count (sampled): "
                "the whole process tree (sum of proportional set sizes) and its ratio to the "
                "smallest rung, the largest process, the sum of resident sets"
            ),
        ),
    ):
        if table.empty:
            continue
        write_table(table.round(4), ctx.out / "tables" / name, caption=caption)
        ctx.report += [Heading(caption), Table(table.round(4))]
        if name == "speed_memory_ladder":
            from evalkit.experiments.speed.report import memory_ladder_figure
            from evalkit.report.sections import Figure

            memory_ladder_figure(table, ctx.out / "figures" / name)
            ctx.report.append(Figure(f"figures/{name}.png", "memory ladder"))
