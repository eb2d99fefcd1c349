"""The ``readings`` study: the proposed method under every reading of its stage 1.4, side by side.

Saravanan & Sathya Bama (2020) leave a dozen choices of stage 1.4 (weighted block
scoring) open; ``evalkit.proposed.scoring.Reading`` makes each a field and
docs/readings.md quotes the sentence each rests on. This study runs:

* **every combination of the stage-4 switches** (:data:`evalkit.proposed.scoring.READING_CHOICES`,
  2^7 x 3^4 = 10,368 readings; the weights stay at the paper's 0.3/0.3/0.4) on the stage-1-3
  output of the configured ``proposed`` entry;
* **each stage 1-3 switch of :data:`STAGE_SWITCHES` one at a time** against that default,
  each scored under the literal reading, the presets (``proposed_bounded``,
  ``proposed_best_table4``) and "keep every distinct block" (``proposed@dedup``);

on every configured data set (a shared set that is not on this machine is skipped with one
line), and reports per reading and set shingle P/R/F1, unit F1 (word-weighted, micro) and two
page criteria next to the paper's 93 %: ``saravanan2020_correct`` (the saravanan2020 study's
Table-8 rule: F1 of the kept words against the content >= ``study.correct_f1``, 0.9) and
``pages_correct`` (shingle F1 >= ``readings.pages_correct_threshold``, 0.8), each with a seeded
page-bootstrap interval, and whether the reading reproduces Table 4
(:func:`evalkit.proposed.scoring.reproduces_table4`).

Why it is cheap (docs/readings.md, "Readings study plan"): stages 1-3 run once per page and
switch value (:meth:`evalkit.proposed.pipeline.Proposed.scoring_inputs`); stage 1.4 is
arithmetic on their output. :func:`evalkit.proposed.scoring.score_page` runs for the 96
combinations of the fields that change the counts (:data:`COUNTED`); the weights, bounds and
threshold count (:data:`ARITHMETIC`) are applied to its counts by :func:`rescore`, and
``comparison`` and ``if_none_pass`` re-decide from the scores (:func:`decide`); both are
checked against ``score_page`` for every reading in tests/test_study_readings.py. A page's
metrics are computed once per distinct set of kept blocks, and readings that keep the same
blocks on every page of a set share one summary (same numbers, same intervals).

One task per site (the runner's ``map``), so ``method.proposed.dedup.scope=site`` sees a
site's pages in order through one instance, as in the extraction experiment.
"""

from __future__ import annotations

import functools
import itertools
import warnings
from typing import Any

import numpy as np
import pandas as pd

from evalkit import metrics
from evalkit.experiments import Context
from evalkit.experiments.readings_grid import (
    ARITHMETIC,
    COUNTED,
    DERIVED,
    GRID,
    PAPER_CORRECT,
    PRESETS,
    STAGE_SWITCHES,
    _preset_readings,
    _show,
    decide,
    grid,
    grid_decisions,
    reading_label,
    rescore,
)
from evalkit.experiments.readings_report import _profile_rows, _write
from evalkit.experiments.saravanan2020 import DEFAULT_CORRECT_F1, correct_pages, fine_counts
from evalkit.harness.specs import MethodSpec
from evalkit.proposed.scoring import reproduces_table4, score_page

__all__ = [
    "ARITHMETIC",
    "COUNTED",
    "DERIVED",
    "GRID",
    "PAPER_CORRECT",
    "PRESETS",
    "STAGE_SWITCHES",
    "decide",
    "grid",
    "grid_decisions",
    "reading_label",
    "rescore",
    "run",
    "site_task",
]


def _page_outcomes(
    page,
    lines: list[str],
    decisions: list[tuple[bool, ...]],
    *,
    shingle_n: int,
    unit_min_share: float,
) -> tuple[list[dict[str, float]], np.ndarray]:
    """Metrics of each distinct kept set of one page, and per decision the index of its
    metrics (pages' metrics are computed once per distinct output)."""
    from evalkit.core.align import gold_units, project
    from evalkit.core.page import PageError

    try:
        units = gold_units(page)
    except PageError:
        units = []
    labelled = bool(units) and any(u.label is not None for u in units)
    seen: dict[tuple[bool, ...], int] = {}
    outcomes: list[dict[str, float]] = []
    choice = np.empty(len(decisions), dtype=np.int32)
    for j, kept in enumerate(decisions):
        i = seen.get(kept)
        if i is None:
            text = "\n".join(ln for ln, k in zip(lines, kept) if k and ln)
            prf = metrics.shingle_prf(text, page.gold.text, shingle_n)
            rec = {
                "shingle_precision": prf.precision,
                "shingle_recall": prf.recall,
                "shingle_f1": prf.f1,
            }
            if labelled:
                conf = metrics.unit_confusion(
                    [u.is_content for u in units],
                    project(page, text, min_share=unit_min_share),
                    [u.n_words for u in units],
                )
                rec.update({f"unit_{k}": float(v) for k, v in conf._asdict().items()})
                rec.update(fine_counts(page, text, unit_min_share))
            i = seen[kept] = len(outcomes)
            outcomes.append(rec)
        choice[j] = i
    return outcomes, choice


def site_task(
    numbered,
    *,
    settings: list[MethodSpec],
    shingle_n: int,
    unit_min_share: float,
    correct_f1: float,
    switch_pages: int | None = None,
) -> dict[str, Any]:
    """The task the runner maps over a data set's sites: per stage 1-3 variant (a
    ``proposed`` spec; the first is the default, scored under every reading of the grid and
    with every block kept, the others under :data:`PRESETS`), one stages 1-3 pass over the
    site's pages in order and every reading scored from it. ``numbered``: (position in the
    set, page) pairs; the variants run on the pages before ``switch_pages`` only.

    Returns per variant and page its ``page_id``, the outcomes' per-page records (with
    ``saravanan2020_correct``), the outcome index per reading; and the failures.
    """
    presets = _preset_readings()
    out: dict[str, list[dict[str, Any]]] = {}
    failures = []
    for v, spec in enumerate(settings):
        label = spec.label
        method = spec.build()  # the registry binds the stage-1.3 detector it names
        rows = out[label] = []
        for pos, page in numbered:
            if v > 0 and switch_pages is not None and pos >= switch_pages:
                break
            try:
                inputs, lines = method.scoring_inputs(page)
                if v == 0:
                    decisions = [*grid_decisions(inputs), (True,) * len(lines)]
                else:
                    decisions = [
                        (True,) * len(lines) if r is None else score_page(r, inputs).kept
                        for r in presets.values()
                    ]
                outcomes, choice = _page_outcomes(
                    page, lines, decisions, shingle_n=shingle_n, unit_min_share=unit_min_share
                )
            except Exception as exc:  # noqa: BLE001 - a bad page is recorded, the run goes on
                failures.append(
                    {
                        "dataset": page.dataset,
                        "page": page.id,
                        "method": f"readings:{label}",
                        "error": f"{type(exc).__name__}: {exc}"[:500],
                    }
                )
                continue
            df = pd.DataFrame(outcomes).assign(error=None)
            ok = correct_pages(df, "table8", correct_f1) if "unit_tp" in df else np.zeros(len(df))
            f1 = df["shingle_f1"].to_numpy(float)
            units = (
                df[[f"unit_{k}" for k in ["tp", "fp", "fn", "tn"]]].to_numpy(float)
                if "unit_tp" in df
                else np.full((len(df), 4), np.nan)
            )
            rows.append(
                {
                    "pos": pos,
                    "page_id": page.id,
                    "site": page.site,
                    "choice": choice,
                    "precision": df["shingle_precision"].to_numpy(float),
                    "recall": df["shingle_recall"].to_numpy(float),
                    "f1": f1,
                    "units": units,
                    "s2020": ok,
                }
            )
    return {"variants": out, "failures": failures}


def _sites(pages):
    """Consecutive pages of one site (``page.site``, else the host): the study's tasks."""
    from evalkit.core.domains import site_of

    for _, group in itertools.groupby(enumerate(pages), key=lambda ip: site_of(ip[1])):
        yield list(group)


def _resample_counts(seed: int, n_boot: int, n: int) -> np.ndarray:
    """How often each page is drawn in each of ``n_boot`` resamples (n_boot x n): the draws of
    :func:`evalkit.metrics.bootstrap_ci_pages` (one generator, chunks of 1000), as counts, so
    a mean over a resample of every reading at once is one matrix product."""
    rng = np.random.default_rng(seed)
    parts, done = [], 0
    while done < n_boot:
        size = min(1000, n_boot - done)
        idx = rng.integers(0, n, size=(size, n))
        c = np.zeros((size, n))
        np.add.at(c, (np.arange(size)[:, None], idx), 1.0)
        parts.append(c)
        done += size
    return np.vstack(parts)


def _interval(stats: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of each column, NaN resamples left out (as the metrics do)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column gives NaN
        low, high = np.nanquantile(stats, [alpha / 2, 1 - alpha / 2], axis=0)
    return low, high


def _boot_mean(counts: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Per resample (rows of ``counts``) the mean of each column of ``x`` over the drawn
    pages where it is defined (NaN where none is)."""
    ok = ~np.isnan(x)
    num, den = counts @ np.where(ok, x, 0.0), counts @ ok
    with np.errstate(all="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _f1_of(p: np.ndarray, r: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.where(p + r > 0, 2 * p * r / np.where(p + r > 0, p + r, 1.0), 0.0) + np.where(
            np.isnan(p) | np.isnan(r), np.nan, 0.0
        )


def _grid_summary(
    dataset: str, rows: list[dict[str, Any]], *, n_boot, alpha, seed, thr
) -> pd.DataFrame:
    """Summary rows of every reading of the grid and of ``proposed@dedup`` (method = its
    label), computed once per distinct decision profile over the set's pages, all profiles
    at once: the point values as :func:`_profile_rows` computes them, the intervals from
    the same resamples as a matrix product (equal to the last few bits; the readings shown
    in summary.csv are recomputed with the metrics' own functions)."""
    choice = np.stack([r["choice"] for r in rows])  # pages x (readings + every block kept)
    _, first, inverse = np.unique(choice, axis=1, return_index=True, return_inverse=True)
    inverse = np.asarray(inverse).reshape(-1)
    at = choice[:, first]  # pages x profiles: the outcome index of each page
    n = len(rows)

    def pick(key):
        return np.array([np.asarray(r[key], dtype=float)[at[i]] for i, r in enumerate(rows)])

    p, rc, f1, s2020 = pick("precision"), pick("recall"), pick("f1"), pick("s2020")
    units = np.array([r["units"][at[i]] for i, r in enumerate(rows)])  # pages x profiles x 4
    counts = _resample_counts(seed, n_boot, n)
    out: dict[str, tuple] = {}
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        pm, rm = np.nanmean(p, axis=0), np.nanmean(rc, axis=0)
    bp, br = _boot_mean(counts, p), _boot_mean(counts, rc)
    out["shingle_precision"] = (pm, *_interval(bp, alpha), n)
    out["shingle_recall"] = (rm, *_interval(br, alpha), n)
    out["shingle_f1"] = (_f1_of(pm, rm), *_interval(_f1_of(bp, br), alpha), n)
    labelled = ~np.isnan(units[:, 0, 0])
    if labelled.any():
        u = units[labelled]  # labelled pages x profiles x 4
        ucounts = _resample_counts(seed, n_boot, len(u))
        tp, fp, fn = (u[:, :, j] for j in range(3))

        def uf1(tp, fp, fn):
            d = 2 * tp + fp + fn
            with np.errstate(all="ignore"):
                return np.where(d > 0, 2 * tp / np.where(d > 0, d, 1.0), 1.0)

        out["unit_f1_micro_words"] = (
            uf1(tp.sum(0), fp.sum(0), fn.sum(0)),
            *_interval(uf1(ucounts @ tp, ucounts @ fp, ucounts @ fn), alpha),
            len(u),
        )
        out["saravanan2020_correct"] = (s2020.mean(0), *_interval(counts @ s2020 / n, alpha), n)
    good = (f1 >= thr).astype(float)
    out["pages_correct"] = (good.mean(0), *_interval(counts @ good / n, alpha), n)
    names = [reading_label(r) for r in GRID] + ["proposed@dedup"]
    frames = [
        pd.DataFrame(
            {
                "dataset": dataset,
                "method": names,
                "metric": metric,
                "value": value[inverse],
                "ci_low": low[inverse],
                "ci_high": high[inverse],
                "n_pages": n_pages,
                "profile": inverse,
            }
        )
        for metric, (value, low, high, n_pages) in out.items()
    ]
    return pd.concat(frames, ignore_index=True)


def run(ctx: Context) -> pd.DataFrame | None:

    study, opts = ctx.section("study"), ctx.section("readings")
    correct_f1 = float(study.get("correct_f1", DEFAULT_CORRECT_F1))
    unit_min_share = float(study.get("unit_min_share", 0.5))
    n_boot, alpha = int(study.get("n_boot", metrics.N_BOOT)), float(study.get("alpha", 0.05))
    thr = float(opts.get("pages_correct_threshold", 0.8))
    max_pages = opts.get("max_pages")
    switch_pages = opts.get("switch_pages")
    base_spec = next((s for s in ctx.specs if s.label == "proposed"), None)
    if base_spec is None:
        raise ValueError(
            "the readings study needs method=proposed (its stages 1-3 are the "
            "default the switches are tried against)"
        )
    base = {g: dict(v) if isinstance(v, dict) else v for g, v in (base_spec.params or {}).items()}
    settings = [MethodSpec("default", base_spec.registry, base)]
    if opts.get("stage_switches", True):
        for key, values in STAGE_SWITCHES.items():
            group, _, name = key.partition(".")
            for value in values:
                params = {g: dict(v) if isinstance(v, dict) else v for g, v in base.items()}
                params[group] = {**(params.get(group) or {}), name: value}
                settings.append(MethodSpec(f"{key}={_show(value)}", base_spec.registry, params))
    for spec in settings:  # a bad switch value fails here, before any page
        spec.build()
    task = functools.partial(
        site_task,
        settings=settings,
        shingle_n=int(opts.get("shingle_n", 4)),
        unit_min_share=unit_min_share,
        correct_f1=correct_f1,
        switch_pages=switch_pages,
    )
    table4 = {reading_label(r): reproduces_table4(r) for r in GRID}
    summaries, variant_rows, set_rows = [], [], {}
    for label, ds in ctx.datasets.items():
        pages = ds.pages() if max_pages is None else itertools.islice(ds.pages(), max_pages)
        results = list(ctx.runner.map(task, _sites(pages), desc=f"readings {label}", unit="site"))
        for res in results:
            ctx.failures.extend(res["failures"])
        per_variant = {
            name: [row for res in results for row in res["variants"][name]]
            for name in (s.label for s in settings)
        }
        rows = per_variant["default"]
        if not rows:
            print(f"evalkit: readings: no page of {label} could be scored; left out")
            continue
        set_rows[label] = rows
        grid_summary = _grid_summary(
            label, rows, n_boot=n_boot, alpha=alpha, seed=ctx.seed, thr=thr
        )
        summaries.append(grid_summary.assign(variant="default"))
        if len(settings) > 1:  # the default on the same pages as the variants, then each
            column = {reading_label(r): i for i, r in enumerate(GRID)}
            column["proposed@dedup"] = len(GRID)
            cut = [r for r in rows if switch_pages is None or r["pos"] < switch_pages]
            for preset, r in _preset_readings().items():
                variant_rows.append(
                    pd.DataFrame(
                        _profile_rows(
                            label,
                            f"(default); {preset}",
                            cut,
                            column[reading_label(r)],
                            n_boot=n_boot,
                            alpha=alpha,
                            seed=ctx.seed,
                            thr=thr,
                        )
                    ).assign(variant="")
                )
        for name in (s.label for s in settings[1:]):
            vrows = per_variant[name]
            for col, preset in enumerate(PRESETS):
                if vrows:
                    variant_rows.append(
                        pd.DataFrame(
                            _profile_rows(
                                label,
                                f"{name}; {preset}",
                                vrows,
                                col,
                                n_boot=n_boot,
                                alpha=alpha,
                                seed=ctx.seed,
                                thr=thr,
                            )
                        ).assign(variant=name)
                    )
        print(
            f"evalkit: readings {label}: {len(rows)} pages, {len(GRID)} readings, "
            f"{grid_summary['profile'].nunique()} distinct outcomes, "
            f"{len(settings) - 1} stage 1-3 variants"
        )
    if not summaries:
        return None
    grid_all = pd.concat(summaries, ignore_index=True)
    variants = pd.concat(variant_rows, ignore_index=True) if variant_rows else None
    boot = {"n_boot": n_boot, "alpha": alpha, "seed": ctx.seed, "thr": thr}
    return _write(ctx, grid_all, variants, table4, correct_f1, set_rows, boot)
