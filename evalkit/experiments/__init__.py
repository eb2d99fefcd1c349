"""Experiments: each a function ``run(ctx) -> summary rows`` writing its own tables and figures.

``run_experiment(cfg, out_dir)`` is the task function the Hydra shell calls;
tests call it directly with a composed config (docs/architecture.md#experiments-and-studies).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from omegaconf import DictConfig

from evalkit.experiments._report import configure, report_settings, write_reports
from evalkit.experiments._report import skipped as _skipped
from evalkit.experiments.checks import check_sections
from evalkit.harness.cache_keys import method_facts
from evalkit.harness.config import (
    ConfigError,
    RunConfig,
    build_datasets,
    check_specs,
    method_specs,
    project_root,
    run_paths,
)
from evalkit.harness.kept import StreamedKept, keep_extractions
from evalkit.harness.method_rows import split_specs
from evalkit.harness.page_columns import PageColumns
from evalkit.harness.preflight import (
    TELL_KEYS,
    FailureShareError,
    Settings,
    Unavailable,
    check_methods,
    check_readers,
    failure_lines,
    over_share,
    trial_run,
)
from evalkit.harness.registry import Registry
from evalkit.harness.render import render_record
from evalkit.harness.rundir import mark_interrupted
from evalkit.harness.runner import Runner
from evalkit.harness.training import train_specs
from evalkit.report.filenames import file_stem, file_stems
from evalkit.report.pages import KEPT_FILE
from evalkit.report.progress import set_enabled as set_progress
from evalkit.report.results import (
    CHUNK_ROWS,
    SUMMARY_COLUMNS,
    RecordSpill,
    git_state,
    interpreter_hash_seed,
    write_csv,
    write_frames_csv,
    write_run_json,
)
from evalkit.report.sections import Section

__all__ = ["EXPERIMENTS", "Context", "run_experiment", "warm_up"]

EXPERIMENTS = Registry(
    "experiment",
    {
        "extraction": "evalkit.experiments.extraction:run",
        "units": "evalkit.experiments.units:run",
        "speed": "evalkit.experiments.speed:run",
        "dedup": "evalkit.experiments.dedup:run",
        "saravanan2020": "evalkit.experiments.saravanan2020:run",
        "classification": "evalkit.experiments.classification:run",
        "kabir_blocks": "evalkit.experiments.kabir2015:run_blocks",
        "kaur2017": "evalkit.experiments.kaur2017:run",
        "kaur2015": "evalkit.experiments.kaur2015:run",
        "readings": "evalkit.experiments.readings:run",
        "audit": "evalkit.experiments.audit:run",
        "wcxb": "evalkit.experiments.wcxb:run",
        "trafilatura_eval": "evalkit.experiments.trafilatura_eval:run",
        "wceb": "evalkit.experiments.wceb:run",
        "structure": "evalkit.experiments.structure:run",
        "leaderboard": "evalkit.experiments.leaderboard:run",
        "crawl": "evalkit.experiments.crawl:run",
    },
)


def warm_up(*jobs: Callable[[], object]) -> None:
    """Run ``jobs`` one after another in a daemon thread and return at once.

    During the extraction a run's main process mostly waits on its page worker
    (:func:`evalkit.harness.runner.run_tasks`), with the GIL released. Work it needs only after the
    pages (importing matplotlib for the figures, the methods' provenance for run.json) is
    done in those waits instead of on the run's critical path. A job's result is not kept:
    each fills a cache of its own (a module, a memo) that the run reads later, and an error
    is left for that later call to raise. A later import of a module waits for the job's
    import of it (Python's per-module import lock)."""

    def run() -> None:
        if hasattr(signal, "pthread_sigmask"):  # Ctrl-C goes to the main thread, where it is
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})  # raised
        for job in jobs:
            with contextlib.suppress(Exception):
                job()

    threading.Thread(target=run, name="evalkit-warm-up", daemon=True).start()


@dataclass
class Context:
    """What an experiment needs: the config, its output folder, and shared bookkeeping."""

    cfg: RunConfig
    out: Path
    datasets: dict[str, Any]
    specs: list
    seed: int
    #: each part's per-page records of a data set: a frame, or their columns on disk
    #: (:class:`evalkit.harness.column_store.StoredPages`; :meth:`part_frames` reads them)
    per_page: list[pd.DataFrame | PageColumns] = field(default_factory=list)
    failures: list[dict[str, Any]] = field(default_factory=list)
    dataset_info: dict[str, Any] = field(default_factory=dict)
    #: what report.md says (evalkit.report.sections), rendered by evalkit.report.markdown
    report: list[Section] = field(default_factory=list)
    runner_: Runner | None = None
    #: id of a frame in ``per_page`` -> the spill holding all its columns (per_page.csv is
    #: written from the spill; the frame keeps only what the experiments read)
    spills: dict[int, RecordSpill] = field(default_factory=dict)
    #: every spill made by :meth:`spill`, deleted when the run ends
    scratch: list[RecordSpill] = field(default_factory=list)
    #: method label -> data set -> what the method said about the data set
    #: (:meth:`evalkit.core.method.Extractor.dataset_notes`; run.json ``methods.<label>.notes``)
    notes: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: the runner settings of what the run tells (evalkit.harness.preflight.Settings)
    tell: Settings = field(default_factory=Settings)
    #: methods dropped before the run (``runner.skip_unavailable``), with why
    unavailable: list[Unavailable] = field(default_factory=list)
    #: the checkout's commit and dirty flag when the run started (run.json's ``git``): code
    #: committed while a long run goes is not the code it ran
    git: dict[str, Any] | None = None
    #: (data set, method) -> the method's records on that data set (failure shares)
    n_records: dict[tuple[str, str], int] = field(default_factory=dict)
    #: part -> what its scores depend on beside the methods and data (a setting chosen at
    #: run time, a package a benchmark's scorer reads): run.json ``scoring``; the reference
    #: check calls an entry's rows not comparable when it differs (docs/reference.md)
    scoring: dict[str, dict[str, Any]] = field(default_factory=dict)

    def __post_init__(self):
        # a config composed by a test or a caller of the parts: typed here, as a run types it
        self.cfg = RunConfig.of(self.cfg)

    @property
    def runner(self) -> Runner:
        """The run's :class:`evalkit.harness.runner.Runner` (from ``cfg.runner``): every experiment
        hands its work to it, so ``runner=dask`` reaches every experiment."""
        if self.runner_ is None:
            self.runner_ = runner_from_config(self.cfg)
        return self.runner_

    @property
    def on_failure(self) -> str:
        return self.runner.on_failure

    def spill(self, name: str) -> RecordSpill:
        """A new :class:`evalkit.report.results.RecordSpill` in the run folder for records as they
        arrive; hand it to :meth:`record_pages` (or close it when it stays empty)."""
        spill = RecordSpill(self.out / f".records-{len(self.scratch)}-{file_stem(name)}.jsonl")
        self.scratch.append(spill)
        return spill

    def stream_records(
        self,
        experiment: str,
        label: str,
        ds,
        score,
        specs: list | None = None,
        keep: bool = False,
    ) -> RecordSpill:
        """Every (page, method) record of data set ``label`` scored by ``score``, written to
        a new spill as the runner hands them over (memory stays flat with the page count);
        ``specs``: the methods (default: the run's). ``keep``: the pages' gold and each
        method's extraction are kept for report.html's page browser (evalkit.harness.kept),
        unless ``report.keep_extractions=false``: without a cache as the records stream by,
        with one from the cache once they are in."""
        specs = self.specs if specs is None else specs
        keep = keep and report_settings(self.cfg)["keep_extractions"]
        streamed = keep and not self.runner.cache_root
        spill = self.spill(f"{experiment}-{label}")
        # run.json's method provenance (hashing their sources: 0.2 s) while the pages run
        warm_up(*(functools.partial(method_facts, spec) for spec in specs))
        records = self.runner.iter_records(
            ds.pages(),  # as the reader gives it: its site or shard tasks run where tasks run
            specs,
            score=score,
            desc=f"{experiment} {label}",
            total=ds.page_count(),
            keep_gold=streamed,
        )
        kept = StreamedKept(self.out / KEPT_FILE) if streamed else None
        try:
            while chunk := list(itertools.islice(records, CHUNK_ROWS)):
                if kept is not None:
                    for rec in chunk:
                        kept.add(rec)
                spill.append({"experiment": experiment, **rec} for rec in chunk)
        finally:
            if kept is not None:
                kept.close()
        if keep and not streamed and spill.n_records:
            keep_extractions(
                self.out / KEPT_FILE,
                ds.pages(),
                specs,
                self.runner.cache_root,
                self.runner.method_keys,
            )
        return spill

    def record_pages(
        self,
        per_page: pd.DataFrame | PageColumns,
        dataset: str,
        spill: RecordSpill | None = None,
    ) -> None:
        """Keep an experiment's per-page records for per_page.csv and list its failures
        (page, method, error) for run.json. With ``spill``, per_page.csv gets the spill's
        records and ``per_page`` may hold only some of their columns (page_id, method and
        error at least), or be their columns on disk
        (:class:`evalkit.harness.column_store.StoredPages`, which lists its failures)."""
        self.per_page.append(per_page)
        if isinstance(per_page, PageColumns):
            counts = {m: per_page.count(m) for m in per_page.methods}
            failed = [{"page": p, "method": m, "error": e} for p, m, e in per_page.failures]
        else:
            counts = dict(per_page.groupby("method", sort=False).size().items())
            failed = [
                {"page": r.page_id, "method": r.method, "error": r.error}
                for r in per_page[per_page["error"].notna()].itertuples()
            ]
        for method, n in counts.items():
            key = (dataset, str(method))
            self.n_records[key] = max(self.n_records.get(key, 0), int(n))
        if spill is not None:
            self.spills[id(per_page)] = spill
        self.failures += [{"dataset": dataset, **f} for f in failed]
        self._ask_methods(per_page, dataset)

    def part_frames(self, experiment: str) -> list[pd.DataFrame]:
        """The per-page records ``experiment`` kept, a frame per data set (read back from
        disk when they are there): what a later part (kaur2015) summarises again."""
        out = []
        for f in self.per_page:
            if isinstance(f, PageColumns):
                if f.experiment == experiment:
                    out.append(f.frame())
            elif (f["experiment"] == experiment).all():
                out.append(f)
        return out

    def _ask_methods(self, per_page: pd.DataFrame | PageColumns, dataset: str) -> None:
        """Collect each method's notes on the data set once (several parts may record the
        same pages) and print their warning lines (the ``stored`` method's unknown ids)."""
        from evalkit.core.method import Extractor

        for spec in self.specs:
            if dataset in self.notes.get(spec.label, {}):
                continue
            if isinstance(per_page, PageColumns):
                if spec.label not in per_page.methods:
                    continue
                ids = None  # read from disk only for a method that has something to say
            else:
                ids = per_page.loc[per_page["method"] == spec.label, "page_id"]
                if ids.empty:
                    continue
                ids = set(ids.astype(str))
            try:
                method = spec.build()
                if type(method).dataset_notes is Extractor.dataset_notes:
                    continue  # the default says nothing ({})
                if ids is None:
                    ids = set(map(str, per_page.page_ids(spec.label)))
                note = method.dataset_notes(dataset, ids)
            except Exception:  # noqa: BLE001, S112 - notes are extra: never stop a run for one
                continue
            if note:
                self.notes.setdefault(spec.label, {})[dataset] = note
                if note.get("warning"):
                    print(
                        f"evalkit: warning: method {spec.label}: {note['warning']}", file=sys.stderr
                    )

    def section(self, name: str) -> dict[str, Any]:
        return self.cfg.section(name)


def runner_from_config(cfg: DictConfig | RunConfig) -> Runner:
    """The runner ``cfg.runner`` describes, its cache at ``cfg.paths.cache``."""
    cfg = RunConfig.of(cfg)
    cache = cfg.section("paths").get("cache")
    settings = {k: v for k, v in cfg.section("runner").items() if k not in TELL_KEYS}
    return Runner.from_config(settings, cache_root=str(cache) if cache else None)


def run_experiment(
    cfg: DictConfig,
    out_dir: str | Path,
    *,
    datasets: dict[str, Any] | None = None,
    methods: list | None = None,
    extra: dict[str, Any] | None = None,
    check_failures: bool = False,
) -> Path:
    """Run every part of ``cfg.experiment`` and write the run folder; returns it.

    The one execution path of the ``evalkit`` command and of :func:`evalkit.shell.api.evaluate`:
    the command passes the composed config only; the Python API adds what a config cannot
    hold, ``datasets`` (label -> reader object, e.g. pages in memory) run after
    ``cfg.dataset``'s, and ``methods`` (:class:`evalkit.harness.runner.MethodSpec` of objects, classes
    or functions) run after ``cfg.method``'s. ``extra`` goes into run.json.

    Every method is built and its imports checked before any page (evalkit.harness.preflight);
    with ``check_failures`` (the command) a method whose failures exceed
    ``runner.max_failure_share`` of a data set's pages raises
    :class:`~evalkit.harness.preflight.FailureShareError` once the run folder is written.
    """
    t0 = time.perf_counter()
    cfg = RunConfig.of(cfg)  # the one conversion: every stage below reads this
    out = Path(out_dir)
    # a bad runner setting fails here, before any work; a page worker starts meanwhile
    runner = runner_from_config(cfg).warm()
    # the commit this run runs, read now: one made while a long run goes is not its code
    root = project_root()
    git = git_state(root) if root is not None else None
    parts = list(cfg.section("experiment").get("parts") or [])
    runs = [EXPERIMENTS.get(p) for p in parts]  # unknown parts fail before any work
    check_sections(cfg)  # every bad value fails here, before anything is written
    configure(cfg)  # report.method_order, before any figure
    set_progress(runner.progress)  # runner.progress=false: no bar or line of this run
    tell = Settings.from_runner(cfg.section("runner"))
    # method.stored.path=output/*.json: one row per tool file (evalkit.harness.method_rows)
    specs = split_specs(method_specs(cfg.section("method")) + list(methods or []))
    labels = [s.label for s in specs]
    twice = sorted({label for label in labels if labels.count(label) > 1})
    if twice:
        raise ConfigError(f"two methods are named {twice[0]!r}: every method needs its own name")
    detectors = method_specs(cfg.section("detector"), kind="detector")
    # a method that cannot run here stops the run in one line, or is dropped and said so
    specs, gone = check_methods(specs, tell)
    check_specs(specs + detectors)
    trial_run(specs)  # a dotted-path or Python method extracts one small page first
    for u in gone:
        print(f"evalkit: skipped {u.line()}", file=sys.stderr)
    # methods that learn from labelled pages are fitted now, before any page is scored
    specs = train_specs(specs, runner.cache_root)
    runner.render_counts.update(render_record(specs))
    built = build_datasets(
        cfg, skip_missing=bool(cfg.section("experiment").get("skip_missing_data"))
    )
    for label, ds in (datasets or {}).items():
        if label in built:
            raise ConfigError(f"two data sets are named {label!r}")
        ds.name = label
        built[label] = ds
    check_readers(built)  # a reader's optional package (resiliparse): one line, before any page
    if runner.cache_root:
        for spec in specs:  # a method whose code cannot be read: said once, never cached
            why = method_facts(spec).uncached
            if why:
                print(f"evalkit: method {spec.label!r} is not cached: {why}", file=sys.stderr)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    ctx = Context(
        cfg=cfg,
        out=out,
        datasets=built,
        specs=specs,
        seed=int(cfg.get("seed", 0)),
        runner_=runner,
        tell=tell,
        unavailable=gone,
        git=git,
    )
    try:
        _run_parts(cfg, ctx, parts, runs, detectors, t0, extra)
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM (evalkit.shell.cli): mark what finished
        _mark_interrupted(ctx, parts, t0)
        raise
    finally:
        for spill in ctx.scratch:
            spill.close()  # spill files are scratch: deleted however the run ends
        _record_index(ctx)
    _tell_end(ctx, check_failures)
    return out


def _mark_interrupted(ctx: Context, parts: list[str], t0: float) -> None:
    """run.json of a run stopped by the user, with what finished (records per data set and
    method); a complete run's run.json says ``"status": "complete"``."""
    finished: dict[str, dict[str, int]] = {}
    for (dataset, method), n in ctx.n_records.items():
        finished.setdefault(dataset, {})[method] = n
    mark_interrupted(
        ctx.out,
        {
            "experiment": ctx.cfg.experiment,
            "parts": parts,
            "finished_records": finished,
            "n_failures": len(ctx.failures),
            "wall_seconds": round(time.perf_counter() - t0, 3),
        },
    )


def _record_index(ctx: Context) -> None:
    """Add the entries this run wrote to the cache's method index, for python -m
    evalkit.cache, by the keys the pages' pipelines used (a worker's hash seed may differ
    from ours); however the run ends, so a stopped run's entries are indexed too."""
    from evalkit.harness.cache_admin import record_run

    log = ctx.runner.written.pop(ctx.runner.cache_root, None)
    if not log:
        return
    try:
        keys = {s.label: ctx.runner.method_keys.get(s.label) or s.key() for s in ctx.specs}
        record_run(
            ctx.runner.cache_root,
            [(s.label, s.registry, s.params, keys[s.label]) for s in ctx.specs if keys[s.label]],
            log,
        )
    finally:
        log.close()


def _tell_end(ctx: Context, check_failures: bool) -> None:
    """The run's last lines: failures per method with the first error, the cache's size when
    it is large; with ``check_failures``, FailureShareError for methods over the share."""
    from evalkit.harness.cache_admin import size_line

    if ctx.failures:
        print("evalkit: failures per method (first error; all in run.json):")
        for line in failure_lines(ctx.failures, ctx.n_records):
            print(line)
    line = size_line(ctx.runner.cache_root, ctx.tell.cache_report_mb)
    if line:
        print(line)
    over = over_share(ctx.failures, ctx.n_records, ctx.tell.max_failure_share)
    if over and check_failures:
        raise FailureShareError(ctx.out, over)


def _run_parts(cfg, ctx: Context, parts, runs, detectors, t0, more=None) -> Path:
    out, runner = ctx.out, ctx.runner
    summaries = []
    with runner:  # a Dask client connects now (an unreachable scheduler stops the run here)
        for name, fn in zip(parts, runs):
            rows = fn(ctx)
            if rows is not None and len(rows):
                rows = rows.assign(experiment=name)
                summaries.append(rows[SUMMARY_COLUMNS])
    summary = (
        pd.concat(summaries, ignore_index=True)
        if summaries
        else pd.DataFrame(columns=SUMMARY_COLUMNS)
    )
    write_csv(summary, out / "summary.csv")
    for label, ds in ctx.datasets.items():
        ctx.dataset_info.setdefault(label, {}).update(_describe(ds))
    # every file a reader passed over gets a row too, so per_page.csv accounts for every input
    skipped_rows = pd.DataFrame(
        [
            {
                "experiment": cfg.experiment,
                "dataset": label,
                "error": f"skipped: {s['reason']}",
                "skipped_file": s["file"],
            }
            for label, info in ctx.dataset_info.items()
            for s in info.get("skipped", [])
        ]
    )
    frames = [ctx.spills.get(id(f), f) for f in ctx.per_page] + (
        [skipped_rows] if len(skipped_rows) else []
    )
    if frames:
        write_frames_csv(frames, out / "per_page.csv")
        _parquet_copy(cfg, frames, out / "per_page.csv")
    # what each method ran with on this machine: resolved parameters, outside packages
    methods = {s.label: method_facts(s).provenance() for s in ctx.specs}
    for label, notes in ctx.notes.items():
        methods[label]["notes"] = notes
    extra = {
        "status": "complete",
        "experiment": cfg.experiment,
        "parts": parts,
        "runner": {"name": runner.name, "on_failure": runner.on_failure},
        "paths": run_paths(cfg),
        # what each label became in the names of tables/ and figures/ (report.filenames)
        "file_names": {
            "datasets": file_stems(ctx.datasets),
            "methods": file_stems(s.label for s in ctx.specs),
        },
    }
    if detectors:
        extra["detectors"] = {s.label: method_facts(s).provenance() for s in detectors}
    if runner.render_counts:  # methods that read rendered pages (evalkit.harness.render)
        extra["render"] = dict(runner.render_counts)
    if runner.in_process:  # the tasks ran here: this interpreter's seed, not its workers'
        extra["python_hash_seed"] = interpreter_hash_seed() or "unset (random)"
    if ctx.scoring:
        extra["scoring"] = ctx.scoring
    if ctx.unavailable:  # runner.skip_unavailable: which methods, and why
        extra["skipped_methods"] = {u.label: f"{u.cause}: {u.fix}" for u in ctx.unavailable}
    extra.update(more or {})
    write_run_json(
        out / "run.json",
        root=project_root(),
        git=ctx.git,
        seed=ctx.seed,
        wall_seconds=time.perf_counter() - t0,
        datasets=ctx.dataset_info,
        methods=methods,
        failures=ctx.failures,
        extra=extra,
    )
    write_reports(cfg, ctx)  # report.md and report.html (evalkit.experiments._report)
    skipped = _skipped(ctx)
    if ctx.failures or skipped:
        print(
            f"evalkit: {len(ctx.failures)} failed (page, method) pairs and {len(skipped)} "
            f"skipped files, listed in {out / 'run.json'}"
        )
    return out


def _parquet_copy(cfg, frames, csv_path: Path) -> None:
    """per_page.parquet beside per_page.csv when the run has more than ``report.parquet_rows``
    rows (evalkit.report.per_page_parquet); small runs keep the csv alone."""
    from evalkit.report.per_page_parquet import wants_parquet, write_per_page_parquet

    n_rows = sum(f.n_records if isinstance(f, RecordSpill) else len(f) for f in frames)
    if wants_parquet(n_rows, report_settings(cfg)["parquet_rows"]):
        write_per_page_parquet(csv_path)


def _describe(ds) -> dict[str, Any]:
    """What run.json records of a data set: reader, folder, the pages the experiments were
    handed (count and fingerprint) and every file the reader skipped, with its reason."""
    return {
        "reader": type(ds).__name__,
        "path": ds.path,
        "n_pages": len(ds.seen_),
        "fingerprint": ds.seen_.fingerprint(),
        "skipped": [{"file": s.file, "reason": s.reason} for s in ds.skipped],
    }
