"""The ``speed`` experiment: time per page of every method against the lxml parse of the page.

Issue "Fast and unbreakable" sets the targets: the proposed method, CETD, PAB
and the jusText-style method each at most 3 x the median time lxml takes to
parse the same pages, and TWC-PFM plus the fingerprint of a 5,000-term block
in at most 20 ms. Parsing is the floor: every method parses the page once.

What is measured: the timing of one data set is one task of the runner, so
all its methods are timed inside one process (this one with
``runner.n_jobs=1``, a joblib worker or a Dask worker otherwise), one data set
at a time, with no extraction cache, so nothing but the method is timed and
every method meets the same machine:

* per page, interleaved so that a change in machine load hits all alike:
  ``evalkit.page.parse_html(page.html)`` and each method through
  :func:`evalkit.runner.extract_one`; each method runs once on the first
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
import resource
import sys
import time
from collections.abc import Callable, Iterable

import lxml.etree
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from evalkit import metrics
from evalkit.experiments import Context
from evalkit.page import MAX_DEPTH, Gold, Page, PageError, parse_html
from evalkit.plots import save
from evalkit.runner import MethodSpec, extract_one, iter_tasks
from evalkit.summary import summary_row
from evalkit.tables import to_markdown, wide_table, write_table

__all__ = [
    "CLOCKS",
    "DEFAULT_LENGTHS",
    "DEFAULT_TARGETS",
    "MICRO_DATASET",
    "MICRO_METHOD",
    "PARSE_LABEL",
    "PY_WALK_LABEL",
    "STEP_PREFIX",
    "TABLE_METRICS",
    "TWC_PFM_TARGET_MS",
    "TWC_PFM_TARGET_TERMS",
    "growth_exponent",
    "micro_task",
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

#: clocks a timing can use: CPU time of this process, or elapsed time
CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}
#: block lengths (terms) of the TWC-PFM + fingerprint micro-benchmark
DEFAULT_LENGTHS = (500, 1000, 2000, 5000, 10000, 20000)
#: the issue's targets: method label -> largest allowed ratio of median time to median parse
DEFAULT_TARGETS = {"proposed": 3.0, "cetd": 3.0, "pab": 3.0, "justext_style": 3.0}
#: the issue's micro-benchmark target: this many terms in at most this many ms
TWC_PFM_TARGET_TERMS = 5000
TWC_PFM_TARGET_MS = 20.0
#: the row label of the parse floor in the tables
PARSE_LABEL = "lxml_parse"
#: the row label of the pure-Python floor: the parse plus :func:`python_walk`
PY_WALK_LABEL = "lxml_parse+python_walk"
_WALK_EVENTS = ("start", "end")
#: dataset and method labels of the micro-benchmark rows
MICRO_DATASET = "twc_pfm_bench"
MICRO_METHOD = "twc_pfm+fingerprint"
TABLE_METRICS = ["ms_median", "ms_p90", "pages_per_s", "ratio_to_parse", "growth_exponent",
                 "target_ratio", "meets_target"]
#: per-page columns of the steps a method times itself (``info["seconds_<step>"]``), in ms
STEP_PREFIX = "step_"


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MiB (maxrss is KiB on Linux, B on macOS)."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024


def python_walk(root) -> int:
    """Visit every element below ``root`` from Python, reading its tag, text and tail and its
    id, class, src and href; returns the number of elements.

    The least a pure-Python method that reads the page once pays on top of
    the parse: the proposed method reads each element's text (stage 1.1) and
    these four attributes (the tag rules), besides all else it does.
    """
    n = 0
    for event, el in lxml.etree.iterwalk(root, events=_WALK_EVENTS):  # elements only
        if event == "start":
            get = el.get
            el.tag, el.text, get("id"), get("class"), get("src"), get("href")
            n += 1
        else:
            el.tail  # noqa: B018 - read, as a method collecting text does
    return n


def growth_exponent(sizes: Iterable[float], times: Iterable[float]) -> float:
    """Slope ``b`` of the least-squares line through (log size, log time); NaN if undefined.

    ``time ~ size^b``: 1 is linear growth, 2 quadratic. Pairs with a
    non-positive size or time are left out (the log is undefined).
    """
    x = np.asarray(list(sizes), dtype=float)
    y = np.asarray(list(times), dtype=float)
    ok = (x > 0) & (y > 0) & np.isfinite(x) & np.isfinite(y)
    return _slope(np.log(x[ok]), np.log(y[ok]))


def _slope(lx: np.ndarray, ly: np.ndarray) -> float:
    if lx.size < 2:
        return float("nan")
    dx = lx - lx.mean()
    var = float(dx @ dx)
    return float(dx @ (ly - ly.mean()) / var) if var > 0 else float("nan")


def time_pages(pages: list[Page], specs: list[MethodSpec], clock: str = "cpu",
               warmup: bool = True, walk: bool = True) -> pd.DataFrame:
    """Per page and method: ms of the method, ms of the parse, page bytes, error, and the
    ms of each step the method timed itself (columns ``step_<name>``); with ``walk``, the
    ms of :func:`python_walk` over the parsed page (column ``walk_ms``, else NaN).

    Methods are built afresh for each site's run of pages, as the runner
    builds them per task, so site-scope methods see the same history; the
    building is not timed.
    """
    tick = CLOCKS[clock]
    if warmup and pages:
        parse_html(pages[0].html, source=pages[0].id)
        for spec in specs:
            _build_and(spec, lambda m: extract_one(m, pages[0]))
    rows = []
    for task in iter_tasks(pages):
        methods = [(spec, _build_and(spec, lambda m: m)) for spec in specs]
        for page in task:
            t0 = tick()
            walk_ms = float("nan")
            try:
                # the tree is freed inside the timing, as a method's own tree is
                parse_html(page.html, source=page.source or page.id)
                parse_ms = (tick() - t0) * 1000
            except PageError:  # e.g. an empty file; the methods record their own error
                parse_ms = float("nan")
            else:
                if walk:  # on a tree of its own: keeping the timed one would move its freeing
                    root = parse_html(page.html, source=page.source or page.id)
                    t0 = tick()
                    python_walk(root)
                    walk_ms = (tick() - t0) * 1000
                    del root
            for spec, method in methods:
                steps = {}
                if isinstance(method, str):  # the method could not be built
                    ms, error = float("nan"), method
                else:
                    t0 = tick()
                    ext = extract_one(method, page)
                    ms, error = (tick() - t0) * 1000, ext.error
                    steps = {f"{STEP_PREFIX}{k[len('seconds_'):]}": v * 1000
                             for k, v in ext.info.items()
                             if k.startswith("seconds_") and isinstance(v, (int, float))}
                rows.append({"dataset": page.dataset, "page_id": page.id, "site": page.site,
                             "method": spec.label, "n_bytes": len(page.raw), "ms": ms,
                             "parse_ms": parse_ms, "walk_ms": walk_ms, "error": error,
                             **steps})
    columns = ["dataset", "page_id", "site", "method", "n_bytes", "ms", "parse_ms", "walk_ms",
               "error"]
    columns += list(dict.fromkeys(k for r in rows for k in r if k.startswith(STEP_PREFIX)))
    return pd.DataFrame(rows, columns=columns)


#: the size ladder: generated pages of this many elements, in two shapes
LADDER_SIZES = (1_000, 10_000, 100_000, 1_000_000)
LADDER_SHAPES = ("wide", "deep")
#: nesting of one deep chain: under the parser's depth limit (past it the page is flattened)
LADDER_CHAIN = MAX_DEPTH - 100
_LADDER_MAIN = "Main text of the page, with words that a reader came for. " * 40


def ladder_page(n: int, shape: str) -> Page:
    """A generated page of ``n`` elements besides one article of main text (the gold).

    ``wide``: ``n`` sibling ``<span>`` elements in one ``<div>`` (the 1M-sibling
    hostile page of issue 14). ``deep``: chains of nested ``<div>``, each
    :data:`LADDER_CHAIN` deep with a word at every level, side by side until
    ``n`` elements.
    """
    if shape == "wide":
        noise = "<div>" + "<span>x</span>" * n + "</div>"
    elif shape == "deep":
        chains = []
        for start in range(0, n, LADDER_CHAIN):
            depth = min(LADDER_CHAIN, n - start)
            chains.append("<div>w " * depth + "</div>" * depth)
        noise = "".join(chains)
    else:
        raise ValueError(f"speed.ladder.shapes: unknown shape {shape!r}; known: "
                         f"{', '.join(LADDER_SHAPES)}")
    html = f"<html><body><article><p>{_LADDER_MAIN}</p></article>{noise}</body></html>"
    return Page(id=f"{shape}_{n}", dataset="ladder", raw=html.encode(),
                gold=Gold(text=_LADDER_MAIN), site=shape)


def ladder_task(sizes: list[int], *, shapes: list[str], specs: list[MethodSpec],
                clock: str = "cpu") -> tuple[pd.DataFrame, float]:
    """The runner task of the size ladder: each method timed on each generated page (built one
    at a time, so only one is held), rows with ``shape`` and ``n_elements``; and peak memory."""
    frames = []
    for shape in shapes:
        for n in sizes:
            page = ladder_page(int(n), shape)
            df = time_pages([page], specs, clock=clock, warmup=True, walk=False)
            df.insert(1, "shape", shape)
            df.insert(2, "n_elements", int(n))
            frames.append(df)
            del page
    return pd.concat(frames, ignore_index=True), peak_rss_mb()


def ladder_summary(per_page: pd.DataFrame) -> pd.DataFrame:
    """Growth exponent of time ~ elements^b per shape and method (the lxml parse as the floor)."""
    rows = []
    for shape, df in per_page.groupby("shape", sort=False):
        first = df.drop_duplicates("page_id")
        series = [(PARSE_LABEL, first)]
        series += [(m, d) for m, d in df.groupby("method", sort=False)]
        for method, d in series:
            col = "parse_ms" if method == PARSE_LABEL else "ms"
            ok = d[d["error"].isna() & d[col].notna()] if col == "ms" else d[d[col].notna()]
            rows.append(summary_row(f"ladder_{shape}", method, "growth_exponent",
                                    growth_exponent(ok["n_elements"], ok[col]),
                                    n_pages=len(ok)))
            rows.append(summary_row(f"ladder_{shape}", method, "failures", len(d) - len(ok),
                                    n_pages=len(d)))
    return pd.DataFrame(rows)


def _ladder_outputs(ctx: Context, per_page: pd.DataFrame, summary: pd.DataFrame, clock: str):
    exps = {(r.dataset, r.method): r.value for r in summary.itertuples()
            if r.metric == "growth_exponent"}
    rows = []
    for (shape, method), d in per_page.groupby(["shape", "method"], sort=False):
        ms = dict(zip(d["n_elements"], d["ms"]))
        parse = dict(zip(d["n_elements"], d["parse_ms"]))
        rows.append({"shape": shape, "method": method,
                     **{f"ms@{n:,}": f"{ms[n]:.0f}" for n in ms},
                     **{f"parse@{n:,}": f"{parse[n]:.0f}" for n in parse},
                     "growth_exponent": f"{exps[(f'ladder_{shape}', method)]:.2f}"})
    table = pd.DataFrame(rows)
    caption = (f"Size ladder ({'CPU' if clock == 'cpu' else 'wall'} ms of one run per page): "
               "generated pages by element count, wide (siblings) and deep (nesting), and the "
               "growth exponent b of time ~ elements^b (1 = linear)")
    write_table(table, ctx.out / "tables" / "speed_ladder", caption=caption)
    ctx.report += ["## Size ladder", "", f"**{caption}**", "", to_markdown(table), ""]


def _build_and(spec: MethodSpec, then):
    try:
        method = spec.build()
    except Exception as exc:  # noqa: BLE001 - e.g. a peer whose package is missing
        return f"{type(exc).__name__}: {exc}"
    return then(method)


def zipf_terms(n: int, vocabulary: int = 5000, exponent: float = 1.0,
               seed: int = 0) -> list[str]:
    """``n`` seeded terms drawn with P(rank r) proportional to r^-exponent (word-like frequencies)."""
    rng = np.random.default_rng(seed)
    p = np.arange(1, vocabulary + 1, dtype=float) ** -exponent
    ranks = rng.choice(vocabulary, size=n, p=p / p.sum())
    return [f"term{r}" for r in ranks.tolist()]


def twc_pfm_benchmark(lengths: Iterable[int] = DEFAULT_LENGTHS, repeat: int = 5,
                      vocabulary: int = 5000, exponent: float = 1.0, seed: int = 0,
                      clock: str = "cpu") -> pd.DataFrame:
    """Best-of-``repeat`` ms of ``fingerprint(twc_pfm(terms))`` for a seeded block of each length.

    The best run is the estimate (the others include interference from
    elsewhere); ``ms_worst`` is kept to show the spread.
    """
    from evalkit.proposed import fingerprint, twc_pfm
    from evalkit.proposed.dedup import term_hash

    tick = CLOCKS[clock]
    fingerprint(twc_pfm(zipf_terms(300, vocabulary, exponent, seed)))  # warm up both code paths
    rows = []
    for n in lengths:
        terms = zipf_terms(int(n), vocabulary, exponent, seed + int(n))
        runs = []
        for _ in range(repeat):
            term_hash.cache_clear()  # pay for hashing every time, as a block of new terms would
            t0 = tick()
            fingerprint(twc_pfm(terms))
            runs.append((tick() - t0) * 1000)
        rows.append({"n_terms": int(n), "n_distinct": len(set(terms)), "ms": min(runs),
                     "ms_worst": max(runs)})
    return pd.DataFrame(rows)


def summarize(per_page: pd.DataFrame, dataset: str, targets: dict[str, float] | None = None,
              n_boot: int = 1000, alpha: float = 0.05, seed: int = 0) -> pd.DataFrame:
    """Long-format rows per method (and the parse floor, and the pure-Python floor when the
    pages have ``walk_ms``) of one data set's timings."""
    targets = DEFAULT_TARGETS if targets is None else targets
    boot = {"n_boot": n_boot, "alpha": alpha, "seed": seed}
    rows = []
    first = per_page.drop_duplicates("page_id")
    parsed = first[first["parse_ms"].notna()]
    series = [(PARSE_LABEL, parsed["parse_ms"].to_numpy(float), parsed["parse_ms"].to_numpy(float),
               parsed["n_bytes"].to_numpy(float), len(first) - len(parsed))]
    if "walk_ms" in first and first["walk_ms"].notna().any():
        walked = first[first["parse_ms"].notna() & first["walk_ms"].notna()]
        parse = walked["parse_ms"].to_numpy(float)
        series.append((PY_WALK_LABEL, parse + walked["walk_ms"].to_numpy(float), parse,
                       walked["n_bytes"].to_numpy(float), len(first) - len(walked)))
    for method, df in per_page.groupby("method", sort=False):
        # a page lxml cannot parse has no floor to compare with; methods fail on it anyway
        ok = df[df["error"].isna() & df["ms"].notna() & df["parse_ms"].notna()]
        series.append((method, ok["ms"].to_numpy(float), ok["parse_ms"].to_numpy(float),
                       ok["n_bytes"].to_numpy(float), len(df) - len(ok)))
    for method, ms, parse, size, failed in series:
        n = len(ms)
        rows.append(summary_row(dataset, method, "failures", failed, n_pages=n + failed))
        if n == 0:
            continue
        rows.append(summary_row(dataset, method, "ms_median", np.median(ms),
                                *metrics.bootstrap_ci(ms, np.median, **boot), n))
        rows.append(summary_row(dataset, method, "ms_p90", np.percentile(ms, 90),
                                *metrics.bootstrap_ci(ms, lambda x: np.percentile(x, 90),
                                                      **boot), n))
        rows.append(summary_row(dataset, method, "ms_mean", ms.mean(),
                                *metrics.bootstrap_ci(ms, **boot), n))
        per_s = (lambda x: 1000.0 / x.mean() if x.sum() > 0 else np.nan)
        rows.append(summary_row(dataset, method, "pages_per_s", per_s(ms),
                                *metrics.bootstrap_ci(ms, per_s, **boot), n))
        ratio = (lambda a, b: np.median(a) / np.median(b))
        rows.append(summary_row(dataset, method, "ratio_to_parse", ratio(ms, parse),
                                *metrics.bootstrap_ci_pages([ms, parse], ratio, **boot), n))
        pos = (ms > 0) & (size > 0)
        lx, ly = np.log(size[pos]), np.log(ms[pos])
        rows.append(summary_row(dataset, method, "growth_exponent", _slope(lx, ly),
                                *metrics.bootstrap_ci_pages([lx, ly], _slope, **boot),
                                int(pos.sum())))
        if method in targets:
            rows.append(summary_row(dataset, method, "target_ratio", targets[method], n_pages=n))
            rows.append(summary_row(dataset, method, "meets_target",
                                    float(ratio(ms, parse) <= targets[method]), n_pages=n))
    steps = step_table(per_page)
    for r in steps.itertuples():
        ok = per_page[(per_page["method"] == r.method) & per_page["error"].isna()]
        values = ok[f"{STEP_PREFIX}{r.step}"].dropna().to_numpy(float)
        rows.append(summary_row(dataset, r.method, f"{STEP_PREFIX}{r.step}_ms_mean", r.ms_mean,
                                *metrics.bootstrap_ci(values, **boot), len(values)))
    return pd.DataFrame(rows)


def step_table(per_page: pd.DataFrame) -> pd.DataFrame:
    """Where the time goes: per method that times its own steps and per step (in the order
    the method reports them), mean and median ms over the pages it did not fail on, and
    the step's share of the sum of its steps' means."""
    cols = [c for c in per_page.columns if c.startswith(STEP_PREFIX)]
    out = []
    ok = per_page[per_page["error"].isna()]
    for method, df in ok.groupby("method", sort=False):
        means = {c: df[c].mean() for c in cols if df[c].notna().any()}
        total = sum(means.values())
        for c, mean in means.items():
            out.append({"method": method, "step": c[len(STEP_PREFIX):], "ms_mean": mean,
                        "ms_median": df[c].median(),
                        "share": mean / total if total > 0 else float("nan")})
    return pd.DataFrame(out, columns=["method", "step", "ms_mean", "ms_median", "share"])


def _micro_rows(bench: pd.DataFrame, repeat: int) -> list[dict]:
    rows = [summary_row(MICRO_DATASET, MICRO_METHOD, f"twc_pfm_ms_{r.n_terms}", r.ms,
                        n_pages=repeat)
            for r in bench.itertuples()]
    b = growth_exponent(bench["n_terms"], bench["ms"])
    at = bench.loc[bench["n_terms"] == TWC_PFM_TARGET_TERMS, "ms"]
    if len(at):
        value = float(at.iloc[0])
    else:  # not measured at the target length: read it off the fitted power law
        lx, ly = np.log(bench["n_terms"]), np.log(bench["ms"])
        value = float(np.exp(ly.mean() + b * (np.log(TWC_PFM_TARGET_TERMS) - lx.mean())))
    rows.append(summary_row(MICRO_DATASET, MICRO_METHOD, f"twc_pfm_ms_{TWC_PFM_TARGET_TERMS}",
                            value, n_pages=repeat))
    rows.append(summary_row(MICRO_DATASET, MICRO_METHOD, "growth_exponent", b, n_pages=len(bench)))
    rows.append(summary_row(MICRO_DATASET, MICRO_METHOD, "target_ms", TWC_PFM_TARGET_MS,
                            n_pages=repeat))
    rows.append(summary_row(MICRO_DATASET, MICRO_METHOD, "meets_target",
                            float(value <= TWC_PFM_TARGET_MS), n_pages=repeat))
    # drop a duplicate row when the target length is also one of the lengths
    seen, out = set(), []
    for r in rows:
        if r["metric"] not in seen:
            seen.add(r["metric"])
            out.append(r)
    return out


def time_dataset_task(pages: list[Page], *, specs: list[MethodSpec], clock: str = "cpu",
                      warmup: bool = True, walk: bool = True) -> tuple[pd.DataFrame, float]:
    """The runner task of one data set: :func:`time_pages` over all its pages and methods,
    then the peak memory of the process that timed them. One task, so every method of a
    data set is timed in the same process. Module level, so workers can run it."""
    return time_pages(pages, specs, clock=clock, warmup=warmup, walk=walk), peak_rss_mb()


def micro_task(lengths: list[int], *, repeat: int = 5, vocabulary: int = 5000,
               exponent: float = 1.0, seed: int = 0, clock: str = "cpu"
               ) -> tuple[pd.DataFrame, float]:
    """The runner task of the micro-benchmark: :func:`twc_pfm_benchmark` and the peak memory
    of the process that ran it."""
    return (twc_pfm_benchmark(lengths, repeat, vocabulary, exponent, seed, clock),
            peak_rss_mb())


def _one(runner, fn, task, desc: str):
    # one task, run where the runner runs tasks; the map keeps one task in flight at a time,
    # so two timings never share the machine
    (result,) = runner.map(fn, [task], desc=desc, unit="task")
    return result


def run(ctx: Context) -> pd.DataFrame:
    opts = ctx.section("speed")
    clock = opts.get("clock", "cpu")
    if clock not in CLOCKS:
        raise ValueError(f"speed.clock must be one of {sorted(CLOCKS)}, got {clock!r}")
    targets = opts.get("targets") or {}
    n_boot, alpha = int(opts.get("n_boot", 1000)), float(opts.get("alpha", 0.05))
    timing = functools.partial(time_dataset_task, specs=ctx.specs, clock=clock,
                               warmup=opts.get("warmup", True),
                               walk=opts.get("python_walk", True))
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
        summary = pd.concat([summary, pd.DataFrame([summary_row(label, "process", "peak_rss_mb",
                                                                peak, n_pages=len(pages))])])
        summaries.append(summary)
        _dataset_outputs(ctx, summary, per_page, label, clock)
        _steps_outputs(ctx, per_page, label)
    ladder = opts.get("ladder") or {}
    if ladder.get("enabled", False):
        task = functools.partial(ladder_task, shapes=list(ladder.get("shapes", LADDER_SHAPES)),
                                 specs=ctx.specs, clock=clock)
        per_page, peak = _one(ctx.runner, task,
                              [int(n) for n in ladder.get("sizes", LADDER_SIZES)],
                              "speed size ladder")
        per_page.insert(0, "experiment", "speed")
        ctx.record_pages(per_page, "ladder")
        summary = ladder_summary(per_page)
        summaries.append(pd.concat([summary, pd.DataFrame([summary_row(
            "ladder", "process", "peak_rss_mb", peak, n_pages=len(per_page))])]))
        _ladder_outputs(ctx, per_page, summary, clock)
    micro = opts.get("micro") or {}
    if micro.get("enabled", True):
        repeat = int(micro.get("repeat", 5))
        bench_task = functools.partial(
            micro_task, repeat=repeat, vocabulary=int(micro.get("vocabulary", 5000)),
            exponent=float(micro.get("exponent", 1.0)), seed=int(micro.get("seed", ctx.seed)),
            clock=clock)
        bench, peak = _one(ctx.runner, bench_task,
                           [int(n) for n in micro.get("lengths", DEFAULT_LENGTHS)],
                           "speed micro-benchmark")
        rows = _micro_rows(bench, repeat)
        rows.append(summary_row(MICRO_DATASET, MICRO_METHOD, "peak_rss_mb", peak,
                                n_pages=repeat))
        summaries.append(pd.DataFrame(rows))
        _micro_outputs(ctx, bench, clock)
    peaks = [r for r in pd.concat(summaries).itertuples() if r.metric == "peak_rss_mb"]
    ctx.report += ["Peak resident memory of the timing process so far (getrusage maxrss): "
                   + "; ".join(f"after {r.dataset} {r.value:.0f} MiB" for r in peaks) + ".", ""]
    return pd.concat(summaries, ignore_index=True)


def speed_table(summary: pd.DataFrame, dataset: str) -> pd.DataFrame:
    """Rows = parse floor, pure-Python floor, then methods; cells ``value [CI]``; the target
    check as yes/no."""
    table = wide_table(summary, TABLE_METRICS, dataset=dataset, digits=2)
    sub = summary[(summary["dataset"] == dataset) & (summary["metric"] == "meets_target")]
    meets = dict(zip(sub["method"], sub["value"]))
    table["meets_target"] = [("yes" if meets[m] else "no") if m in meets else "-"
                             for m in table["method"]]
    return table


def _dataset_outputs(ctx: Context, summary, per_page, label, clock):
    table = speed_table(summary, label)
    unit = "CPU" if clock == "cpu" else "wall"
    caption = (f"Speed on {label} ({unit} ms/page, one process): median, p90, pages/s, median "
               f"over median parse, growth exponent of time ~ bytes^b [95% bootstrap CI]")
    write_table(table, ctx.out / "tables" / f"speed_{label}", caption=caption)
    _size_figure(per_page, summary, ctx.out / "figures" / f"speed_{label}_time_vs_size", label,
                 unit)
    _ratio_figure(summary, ctx.out / "figures" / f"speed_{label}_ratio", label)
    ctx.report += [f"## Speed on {label}", "", f"**{caption}**", "", to_markdown(table),
                   f"![time vs size](figures/speed_{label}_time_vs_size.png)",
                   f"![ratio to parse](figures/speed_{label}_ratio.png)", ""]


def _micro_outputs(ctx: Context, bench, clock):
    b = growth_exponent(bench["n_terms"], bench["ms"])
    # strings, so the markdown shows 5000 rather than 5000.0
    table = pd.DataFrame({"n_terms": bench["n_terms"].map(str),
                          "n_distinct": bench["n_distinct"].map(str),
                          "ms": bench["ms"].map("{:.2f}".format),
                          "ms_worst": bench["ms_worst"].map("{:.2f}".format)})
    caption = (f"TWC-PFM + fingerprint ({'CPU' if clock == 'cpu' else 'wall'} ms, best of "
               f"runs) by block length; growth exponent {b:.2f}; target <= "
               f"{TWC_PFM_TARGET_MS:g} ms at {TWC_PFM_TARGET_TERMS} terms")
    write_table(table, ctx.out / "tables" / "speed_twc_pfm", caption=caption)
    _micro_figure(bench, b, ctx.out / "figures" / "speed_twc_pfm", clock)
    ctx.report += ["## TWC-PFM + fingerprint micro-benchmark", "", f"**{caption}**", "",
                   to_markdown(table), "![TWC-PFM](figures/speed_twc_pfm.png)", ""]


def _size_figure(per_page, summary, stem, dataset, unit):
    """Log-log scatter of ms against page bytes, one colour per method, fitted power laws."""
    exps = summary[summary["metric"] == "growth_exponent"].set_index("method")
    first = per_page.drop_duplicates("page_id")
    series = [(PARSE_LABEL, first["n_bytes"], first["parse_ms"])]
    for m, df in per_page[per_page["error"].isna()].groupby("method", sort=False):
        series.append((m, df["n_bytes"], df["ms"]))
    fig, ax = plt.subplots(figsize=(7.5, 5.0))
    for m, x, y in series:
        x, y = x.to_numpy(float), y.to_numpy(float)
        ok = (x > 0) & (y > 0)
        if not ok.any():
            continue
        pts = ax.scatter(x[ok], y[ok], s=6, alpha=0.35)
        b = exps.loc[m, "value"] if m in exps.index else np.nan
        label = m
        if np.isfinite(b):
            lo, hi = exps.loc[m, "ci_low"], exps.loc[m, "ci_high"]
            label = f"{m}: b = {b:.2f} [{lo:.2f}, {hi:.2f}]"
            lx, ly = np.log(x[ok]), np.log(y[ok])
            grid = np.linspace(lx.min(), lx.max(), 20)
            ax.plot(np.exp(grid), np.exp(ly.mean() + b * (grid - lx.mean())),
                    color=pts.get_facecolor()[0][:3], lw=1.5)
        pts.set_label(label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("page size (bytes, log scale)")
    ax.set_ylabel(f"time per page ({unit} ms, log scale)")
    ax.set_title(f"{dataset}: time per page vs page size (lines: fit of time ~ bytes^b)")
    ax.grid(alpha=0.3, which="both")
    leg = ax.legend(fontsize=7, title="method: growth exponent b [95% CI]", title_fontsize=7,
                    loc="upper left", bbox_to_anchor=(1.01, 1.0), markerscale=2)
    for h in leg.legend_handles:
        h.set_alpha(1)
    return save(fig, stem)


def _ratio_figure(summary, stem, dataset):
    """Bars of median time over median parse time with bootstrap CIs and the target line."""
    df = summary[(summary["dataset"] == dataset) & (summary["metric"] == "ratio_to_parse")]
    df = df[df["method"] != PARSE_LABEL]
    targets = summary[(summary["dataset"] == dataset) & (summary["metric"] == "target_ratio")]
    v = df["value"].to_numpy(float)
    err = np.vstack([np.clip(v - df["ci_low"].to_numpy(float), 0, None),
                     np.clip(df["ci_high"].to_numpy(float) - v, 0, None)])
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(df) + 2), 4.2))
    x = np.arange(len(df))
    floor = (df["method"] == PY_WALK_LABEL).to_numpy()
    ax.bar(x[~floor], v[~floor], yerr=np.nan_to_num(err[:, ~floor]), capsize=3,
           color="tab:blue", label="median time / median parse time (95% CI)")
    if floor.any():
        ax.bar(x[floor], v[floor], yerr=np.nan_to_num(err[:, floor]), capsize=3,
               color="tab:gray", label="parse + a bare Python walk of the page (floor)")
    for t in sorted(set(targets["value"])):
        ax.axhline(t, color="tab:red", ls="--", lw=1, label=f"target: <= {t:g} x parse")
    ax.axhline(1, color="grey", lw=0.8, label="= parse time")
    ax.set_xticks(x, df["method"], rotation=30, ha="right")
    ax.set_yscale("log")
    ax.set_xlabel("method")
    ax.set_ylabel("median time / median lxml parse time (log scale)")
    ax.set_title(f"{dataset}: cost relative to parsing the page")
    ax.grid(axis="y", alpha=0.3, which="both")
    ax.legend(fontsize=8)
    return save(fig, stem)


def _micro_figure(bench, b, stem, clock):
    x, y = bench["n_terms"].to_numpy(float), bench["ms"].to_numpy(float)
    spread = np.vstack([np.zeros_like(y), bench["ms_worst"].to_numpy(float) - y])
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    ax.errorbar(x, y, yerr=spread, fmt="o", capsize=3,
                label="best of runs (bar: up to the slowest run)")
    lx, ly = np.log(x), np.log(y)
    grid = np.linspace(lx.min(), lx.max(), 20)
    ax.plot(np.exp(grid), np.exp(ly.mean() + b * (grid - lx.mean())), "-",
            label=f"fit: time ~ terms^{b:.2f}")
    ax.plot([TWC_PFM_TARGET_TERMS], [TWC_PFM_TARGET_MS], "rv", ms=9,
            label=f"target: <= {TWC_PFM_TARGET_MS:g} ms at {TWC_PFM_TARGET_TERMS} terms")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("block length (terms, log scale)")
    ax.set_ylabel(f"TWC-PFM + fingerprint time ({'CPU' if clock == 'cpu' else 'wall'} ms, "
                  "log scale)")
    ax.set_title("TWC-PFM + fingerprint on seeded Zipf blocks")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    return save(fig, stem)


def _steps_outputs(ctx: Context, per_page: pd.DataFrame, label: str) -> None:
    """The step table and its stacked bars, when some method timed its steps."""
    steps = step_table(per_page)
    if steps.empty:
        return
    parse = per_page.drop_duplicates("page_id")["parse_ms"].median()
    table = steps.assign(ms_mean=steps["ms_mean"].map("{:.3f}".format),
                         ms_median=steps["ms_median"].map("{:.3f}".format),
                         share=steps["share"].map("{:.1%}".format))
    caption = (f"Where the time goes on {label}: each step the method times itself (wall ms "
               f"per page, mean and median; share of its steps' summed means); median lxml "
               f"parse {parse:.2f} ms")
    write_table(table, ctx.out / "tables" / f"speed_{label}_steps", caption=caption)
    _steps_figure(steps, parse, ctx.out / "figures" / f"speed_{label}_steps", label)
    ctx.report += [f"## Where the time goes on {label}", "", f"**{caption}**", "",
                   to_markdown(table), f"![steps](figures/speed_{label}_steps.png)", ""]


def _steps_figure(steps: pd.DataFrame, parse_ms: float, stem, dataset: str):
    """One horizontal bar per method, stacked by step (mean ms), with the parse time and
    three times it marked."""
    methods = list(dict.fromkeys(steps["method"]))
    names = list(dict.fromkeys(steps["step"]))
    colours = plt.get_cmap("tab10")
    fig, ax = plt.subplots(figsize=(8.0, 1.0 + 0.6 * len(methods)))
    left = np.zeros(len(methods))
    for j, name in enumerate(names):
        sub = steps[steps["step"] == name].set_index("method").reindex(methods)
        width = sub["ms_mean"].fillna(0.0).to_numpy(float)
        ax.barh(np.arange(len(methods)), width, left=left, color=colours(j % 10), label=name)
        left += width
    if np.isfinite(parse_ms):
        ax.axvline(parse_ms, color="grey", lw=1, ls=":", label=f"median parse ({parse_ms:.2f} ms)")
        ax.axvline(3 * parse_ms, color="tab:red", lw=1, ls="--", label="3 x median parse")
    ax.set_yticks(np.arange(len(methods)), methods)
    ax.invert_yaxis()
    ax.set_xlabel("mean wall ms per page, stacked by step")
    ax.set_title(f"{dataset}: where the time goes")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return save(fig, stem)
