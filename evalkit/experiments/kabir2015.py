"""The ``kabir_blocks`` part of the kabir2015 study: PAB's block counts and time (Table 4.1.1).

Kabir, Kabir & Amin (2015, ECIJ 4(3), §4.1, Table 4.1.1) report, for their
500 ezinearticles pages, the total number of blocks, how many PAB (and
ENIW) judged informative and noisy, and the total time of the extraction.
This part runs the PAB method (``Extraction.info``: ``n_blocks``,
``n_informative`` = priority > 0, ``n_noisy`` = priority 0, ``n_merged`` =
informative duplicates merged away) over every page of each data set and
lays the numbers out as the paper does (totals over the pages), with
per-page means and a table of the first pages beside them.

Departures from the paper: our data sets instead of theirs (so totals scale
with the page count; compare the per-page means and the noisy share); time
is PAB's ``extract`` on pages already read into memory, measured afresh on
every run (the extraction cache is bypassed), in a Python process on this
machine, not their PHP implementation on an AMD FX-4100; timings go to the
tables only, never to ``summary.csv``, so reruns compare byte for byte.
ENIW is not implemented; its published row is shown for reference.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from evalkit import metrics
from evalkit.experiments import Context
from evalkit.harness.specs import MethodSpec
from evalkit.harness.summary import drop_note, failure_rows, scored, summary_row, with_note
from evalkit.report.sections import Heading, Table
from evalkit.report.tables import write_table

__all__ = ["BLOCK_KEYS", "DEFAULT_FIRST_PAGES", "block_rows", "block_table", "run_blocks",
           "summarize_blocks"]

#: the Extraction.info keys this part reads
BLOCK_KEYS = ("n_blocks", "n_informative", "n_noisy", "n_merged")
#: pages listed one by one in the first-pages table
DEFAULT_FIRST_PAGES = 10
DEFAULT_N_BOOT = 1000
DEFAULT_ALPHA = 0.05


def _record(page, label: str, ext) -> dict[str, Any]:
    rec = {"dataset": page.dataset, "page_id": page.id, "method": label,
           "seconds": ext.seconds, "error": ext.error}
    # an empty extraction (what runner.on_failure=empty makes of a failed page) holds no
    # block, so it counts zero blocks; a failed one under drop has no counts at all
    empty = ext.error is None and not ext.info and not ext.blocks and not ext.text
    rec.update({k: 0 if empty else ext.info.get(k) for k in BLOCK_KEYS})
    return rec


def block_rows(ctx: Context, ds, spec: MethodSpec) -> pd.DataFrame:
    """One row per page: block counts from ``spec``'s ``Extraction.info`` and its time."""
    # no cache: the time column must be measured by this run
    records = ctx.runner.run_pages(ds.pages(), [spec], score=_record, cache=False,
                                   desc=f"kabir_blocks {ds.name}")
    return pd.DataFrame.from_records(records, columns=["dataset", "page_id", "method", "seconds",
                                                       "error", *BLOCK_KEYS])


def summarize_blocks(pages: pd.DataFrame, dataset: str, method: str,
                     n_boot: int = DEFAULT_N_BOOT, alpha: float = DEFAULT_ALPHA,
                     seed: int = 0) -> pd.DataFrame:
    """Totals, per-page means [page bootstrap CI] and the noisy share (ratio of totals).

    Pages whose extraction failed are counted in ``failures``; the counts cover the pages
    that have them (a failed page scored as an empty extraction counts zero blocks, one
    dropped under ``runner.on_failure=drop`` is left out).
    """
    ok = scored(pages, "n_blocks")
    n = len(ok)
    rows = failure_rows(pages.assign(method=method), dataset)
    if n == 0:
        return pd.DataFrame(rows)
    cols = {k: ok[k].to_numpy(float) for k in BLOCK_KEYS}
    for key in BLOCK_KEYS:
        short = key.removeprefix("n_")
        rows.append(summary_row(dataset, method, f"{short}_total", cols[key].sum(), n_pages=n))
        lo, hi = metrics.bootstrap_ci(cols[key], n_boot=n_boot, alpha=alpha, seed=seed)
        rows.append(summary_row(dataset, method, f"{short}_per_page", cols[key].mean(), lo, hi,
                                n))

    def share(noisy, blocks):
        total = blocks.sum()
        return float(noisy.sum() / total) if total else np.nan

    lo, hi = metrics.bootstrap_ci_pages([cols["n_noisy"], cols["n_blocks"]], share,
                                        n_boot=n_boot, alpha=alpha, seed=seed)
    rows.append(summary_row(dataset, method, "noisy_share",
                            share(cols["n_noisy"], cols["n_blocks"]), lo, hi, n))
    return pd.DataFrame(rows)


def block_table(pages: pd.DataFrame, label: str, method: str,
                paper_rows: Sequence[Mapping[str, Any]] = ()) -> pd.DataFrame:
    """Table 4.1.1's layout: ours (totals over the pages) and the paper's rows beside it."""
    ok = scored(pages, "n_blocks")
    out = []

    def row(source, approach, n, blocks, informative, noisy, seconds):
        return {"source": source, "approach": approach, "pages": int(n),
                "total blocks": f"{blocks:,.0f}", "informative": f"{informative:,.0f}",
                "noisy": f"{noisy:,.0f}",
                "noisy %": f"{100 * noisy / blocks:.1f}" if blocks else "-",
                "blocks / page": f"{blocks / n:.1f}" if n else "-",
                "informative / page": f"{informative / n:.1f}" if n else "-",
                "noisy / page": f"{noisy / n:.1f}" if n else "-",
                "time (s)": f"{seconds:.2f}",
                "ms / page": f"{1000 * seconds / n:.1f}" if n else "-"}

    out.append(row(f"evalkit, {label}", method, len(ok), ok["n_blocks"].sum(),
                   ok["n_informative"].sum(), ok["n_noisy"].sum(), ok["seconds"].sum()))
    for p in paper_rows:
        out.append(row(p.get("source", "paper"), p["row"], p["pages"], p["blocks"],
                       p["informative"], p["noisy"], p["seconds"]))
    return pd.DataFrame(out)


def _first_pages(pages: pd.DataFrame, n: int) -> pd.DataFrame:
    first = pages.head(n)
    return pd.DataFrame({
        "page": first["page_id"],
        **{k.removeprefix("n_"): first[k].astype("Int64") for k in BLOCK_KEYS},
        "ms": (1000 * first["seconds"]).round(1),
        "error": first["error"].fillna(""),
    })


def run_blocks(ctx: Context) -> pd.DataFrame | None:
    opts = ctx.section("kabir_blocks")
    label = opts.get("method", "pab")
    spec = next((s for s in ctx.specs if s.label == label), None) or MethodSpec(label, "pab")
    n_boot = int(opts.get("n_boot", DEFAULT_N_BOOT))
    alpha = float(opts.get("alpha", DEFAULT_ALPHA))
    paper = opts.get("paper") or {}
    source = paper.get("source", "paper")
    paper_rows = [{"source": source, **r} for r in paper.get("rows") or []]
    summaries = []
    for name, ds in ctx.datasets.items():
        pages = block_rows(ctx, ds, spec)
        if pages.empty:
            continue
        ok = pages[pages["error"].isna()]
        if len(ok) and ok["n_blocks"].isna().all():
            raise ValueError(f"method {label!r} ({spec.registry}) reports no block counts in "
                             f"Extraction.info; kabir_blocks needs {BLOCK_KEYS[:3]} (use pab)")
        ctx.record_pages(pages.assign(experiment="kabir_blocks"), name)
        summaries.append(summarize_blocks(pages, name, label, n_boot, alpha, ctx.seed))
        table = block_table(pages, name, label, paper_rows)
        first = _first_pages(pages, int(opts.get("first_pages", DEFAULT_FIRST_PAGES)))
        tdir = ctx.out / "tables"
        caption = with_note(f"Blocks found by {label} on {name} (Kabir et al. Table 4.1.1 "
                            "layout): totals over the pages; time = extract() on pages in "
                            "memory, this run", drop_note(pages, ctx.on_failure))
        write_table(table, tdir / f"kabir_blocks_{name}", caption=caption)
        write_table(first, tdir / f"kabir_blocks_{name}_first",
                    caption=f"Blocks of the first {len(first)} pages of {name} ({label})")
        ctx.report += [Heading(f"Blocks per page on {name} ({label}; Table 4.1.1)"),
                       Table(table), Table(first)]
    return pd.concat(summaries, ignore_index=True) if summaries else None
