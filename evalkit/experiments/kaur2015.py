"""The ``kaur2015`` experiment: the CETD variants side by side, after Kaur (2015) Table 4.2.1.

Sandeep Kaur, "Noise Detection and Web Content Extraction Using Page
Segmentation and Text Density" (M.Tech dissertation, 2015), Table 4.2.1,
compares four text-density extractors (CECTD-DS, CETD-DS, CECTD-S and the
thesis's ECECTD-S) on two web pages ("BBC" and "HTML") by one "noise and
content analysis" score per page and algorithm (e.g. CECTD-DS 7.2227 and
CETD-DS 6.9054 on BBC; 25.8633 and 27.7239 on HTML). The score is not
defined in the thesis beyond its figures and there is no gold text, so it
cannot be recomputed.

This part runs after ``extraction`` (same run, same per-page records) and
writes one table per run: for each CETD variant the paper's row and scores,
then, on each data set, its shingle precision / recall / F1 with 95%
bootstrap intervals and the paired difference in per-page F1 against the
reference variant with its Holm-corrected permutation p-value (the numbers
of the extraction tables, recomputed from the same records with
:func:`evalkit.experiments.extraction.summarize`).

Where this departs from the paper:

* P/R/F1 against gold text on whole page sets (Big5 2017 and Chaos, the sets
  named after those of the CETD authors, Sun, Song & Liao 2011) instead of
  an undefined per-page score on two pages; what can be compared with the
  paper is only which variant comes out ahead.
* All four algorithms run: ``cetd`` in its two variants (``cectd_ds``,
  ``cetd_ds``), ``cectd_s`` and ``ecectd_s`` (``baselines/cectd_s.py`` and
  ``baselines/ecectd_s.py``, reconstructions: the thesis describes smoothing
  and pattern matching in prose only). Rows follow the paper's order; a paper
  row listed under ``not_run`` (none in the study) would be shown as not run.
"""

from __future__ import annotations

import pandas as pd

from evalkit.experiments import Context
from evalkit.experiments.extraction import summarize
from evalkit.harness.summary import drop_note, with_note
from evalkit.report.sections import Heading, Table, Text
from evalkit.report.tables import format_cell, write_table

__all__ = ["run", "variant_table"]


def _cell(summary: pd.DataFrame, method: str, metric: str) -> str:
    row = summary[(summary["method"] == method) & (summary["metric"] == metric)]
    if row.empty:
        return "-"
    r = row.iloc[0]
    return format_cell(r["value"], r["ci_low"], r["ci_high"])


def _p_cell(summary: pd.DataFrame, method: str, ref: str) -> str:
    diff = summary[(summary["method"] == method) & (summary["metric"] == f"f1_diff_vs_{ref}")]
    p = summary[(summary["method"] == method) & (summary["metric"] == f"p_holm_vs_{ref}")]
    if diff.empty or p.empty:
        return "(reference)" if method == ref else "-"
    return f"{diff.iloc[0]['value']:+.3f} (p={p.iloc[0]['value']:.3g})"


def variant_table(summaries: dict[str, pd.DataFrame], paper: dict, ref: str) -> pd.DataFrame:
    """One row per variant: the paper's scores, then P/R/F1 [CI] and ΔF1 (p) per data set."""
    pages = list(paper.get("pages") or [])
    rows = []
    ran = list(dict.fromkeys(m for s in summaries.values() for m in s["method"]))
    # the paper's rows in its order (Table 4.2.1's columns), then any other method run
    methods = [m for m in (paper.get("rows") or {}) if m in ran]
    methods += [m for m in ran if m not in methods]
    for method in methods:
        prow = (paper.get("rows") or {}).get(method, {})
        row = {"method": method, "paper row": prow.get("row", "-")}
        for page, v in zip(pages, prow.get("values") or [None] * len(pages)):
            row[f"paper {page}"] = "-" if v is None else f"{v:g}"
        for ds, summary in summaries.items():
            for key in ("precision", "recall", "f1"):
                row[f"{ds} {key}"] = _cell(summary, method, f"shingle_{key}")
            row[f"{ds} F1 diff vs {ref} (p)"] = _p_cell(summary, method, ref)
        rows.append(row)
    for name, values in (paper.get("not_run") or {}).items():
        row = {"method": "(not run)", "paper row": name}
        for page, v in zip(pages, values):
            row[f"paper {page}"] = f"{v:g}"
        rows.append(row)
    return pd.DataFrame(rows).fillna("-")


def run(ctx: Context) -> None:
    opts = ctx.section("extraction")
    ref = opts.get("reference", "cetd")
    paper = ctx.section("kaur2015").get("paper") or {}
    frames = ctx.part_frames("extraction")
    if not frames:
        raise ValueError(
            "kaur2015 needs the extraction part before it: experiment.parts=[extraction,kaur2015]"
        )
    per_page = pd.concat(frames, ignore_index=True)
    summaries = {
        ds: summarize(df, ds, opts, ctx.seed) for ds, df in per_page.groupby("dataset", sort=False)
    }
    table = variant_table(summaries, paper, ref)
    source = paper.get("source", "the paper")
    caption = with_note(
        f"CETD variants: {source}'s per-page scores (undefined units, no gold) "
        f"beside our shingle P/R/F1 [95% bootstrap CI] per data set and the "
        f"paired per-page F1 difference against {ref} (Holm-corrected "
        f"permutation p)",
        drop_note(per_page, ctx.on_failure),
    )
    write_table(table, ctx.out / "tables" / "kaur2015_variants", caption=caption)
    ctx.report += [
        Heading("Kaur 2015 Table 4.2.1: CETD variants"),
        Text(f"{caption}."),
        Table(table),
    ]
    # no summary rows: the extraction part's already hold every number shown
