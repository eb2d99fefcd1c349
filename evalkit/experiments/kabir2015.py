"""The ``kabir_blocks`` part of the kabir2015 study: PAB's and ENIW's blocks, time and size (Tables 4.1.1, 4.2.1).

Kabir, Kabir & Amin (2015, ECIJ 4(3), §4.1-4.2, Table 4.1.1, Fig. 4.2.1)
report, for their 500 ezinearticles pages, the total number of blocks, how
many PAB and ENIW judged informative and noisy, the total time of the
extraction, and the size of the informative-block database (19.4 MB for PAB,
22.6 MB for ENIW). This part runs each method of ``kabir_blocks.methods``
(default PAB and ENIW; ``Extraction.info``: ``n_blocks``, ``n_informative``,
``n_noisy``, ``n_merged`` = informative duplicates merged away) over every
page of each data set and lays the numbers out as the paper does (totals over
the pages), with per-page means and a table of the first pages beside them.
The stored size is the UTF-8 bytes of the method's output text, i.e. of the
informative blocks it keeps (no database overhead; the paper's MB are a
database's).

Departures from the paper: our data sets instead of theirs (so totals scale
with the page count; compare the per-page means and the noisy share); time
is PAB's ``extract`` on pages already read into memory, measured afresh on
every run (the extraction cache is bypassed), in a Python process on this
machine, not their PHP implementation on an AMD FX-4100; timings go to the
tables only, never to ``summary.csv``, so reruns compare byte for byte.
ENIW is ``baselines/eniw.py``, a reconstruction from Kabir's description; it
cuts its own blocks, so its total differs from PAB's (the paper's totals are
equal).
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
from evalkit.report.filenames import file_stem
from evalkit.report.sections import Heading, Table
from evalkit.report.tables import write_table

__all__ = [
    "BLOCK_KEYS",
    "DEFAULT_FIRST_PAGES",
    "DEFAULT_METHODS",
    "block_rows",
    "block_table",
    "blocks_table",
    "run_blocks",
    "summarize_blocks",
]

#: the Extraction.info keys this part reads
BLOCK_KEYS = ("n_blocks", "n_informative", "n_noisy", "n_merged")
#: pages listed one by one in the first-pages table
DEFAULT_FIRST_PAGES = 10
#: the methods whose blocks are tabled when ``kabir_blocks.methods`` is not set
DEFAULT_METHODS = ("pab",)
DEFAULT_N_BOOT = 1000
DEFAULT_ALPHA = 0.05


def _record(page, label: str, ext) -> dict[str, Any]:
    rec = {
        "dataset": page.dataset,
        "page_id": page.id,
        "method": label,
        "seconds": ext.seconds,
        "error": ext.error,
    }
    # an empty extraction (what runner.on_failure=empty makes of a failed page) holds no
    # block, so it counts zero blocks; a failed one under drop has no counts at all
    empty = ext.error is None and not ext.info and not ext.blocks and not ext.text
    rec.update({k: 0 if empty else ext.info.get(k) for k in BLOCK_KEYS})
    # the informative-block store: the bytes of the text the method keeps
    rec["stored_bytes"] = len(ext.text.encode("utf-8")) if ext.error is None else None
    return rec


def block_rows(ctx: Context, ds, spec: MethodSpec) -> pd.DataFrame:
    """One row per page: block counts from ``spec``'s ``Extraction.info`` and its time."""
    # no cache: the time column must be measured by this run
    records = ctx.runner.run_pages(
        ds.pages(),
        [spec],
        score=_record,
        cache=False,
        desc=f"kabir_blocks {ds.name}",
        total=ds.page_count(),
    )
    return pd.DataFrame.from_records(
        records,
        columns=["dataset", "page_id", "method", "seconds", "error", *BLOCK_KEYS, "stored_bytes"],
    )


def summarize_blocks(
    pages: pd.DataFrame,
    dataset: str,
    method: str,
    n_boot: int = DEFAULT_N_BOOT,
    alpha: float = DEFAULT_ALPHA,
    seed: int = 0,
) -> pd.DataFrame:
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
        rows.append(summary_row(dataset, method, f"{short}_per_page", cols[key].mean(), lo, hi, n))

    def share(noisy, blocks):
        total = blocks.sum()
        return float(noisy.sum() / total) if total else np.nan

    lo, hi = metrics.bootstrap_ci_pages(
        [cols["n_noisy"], cols["n_blocks"]], share, n_boot=n_boot, alpha=alpha, seed=seed
    )
    rows.append(
        summary_row(
            dataset, method, "noisy_share", share(cols["n_noisy"], cols["n_blocks"]), lo, hi, n
        )
    )
    if "stored_bytes" in ok:
        stored = ok["stored_bytes"].to_numpy(float)
        rows.append(summary_row(dataset, method, "stored_bytes_total", stored.sum(), n_pages=n))
        lo, hi = metrics.bootstrap_ci(stored, n_boot=n_boot, alpha=alpha, seed=seed)
        rows.append(summary_row(dataset, method, "stored_bytes_per_page", stored.mean(), lo, hi, n))
    return pd.DataFrame(rows)


def _table_row(
    source, approach, n, blocks, informative, noisy, seconds, stored_mb=None, with_size=False
) -> dict[str, Any]:
    row = {
        "source": source,
        "approach": approach,
        "pages": int(n),
        "total blocks": f"{blocks:,.0f}",
        "informative": f"{informative:,.0f}",
        "noisy": f"{noisy:,.0f}",
        "noisy %": f"{100 * noisy / blocks:.1f}" if blocks else "-",
        "blocks / page": f"{blocks / n:.1f}" if n else "-",
        "informative / page": f"{informative / n:.1f}" if n else "-",
        "noisy / page": f"{noisy / n:.1f}" if n else "-",
        "time (s)": f"{seconds:.2f}",
        "ms / page": f"{1000 * seconds / n:.1f}" if n else "-",
    }
    if with_size:  # Table 4.2.1 / Fig. 4.2.1: the informative-block store
        row["stored (MB)"] = "-" if stored_mb is None else f"{stored_mb:.2f}"
        row["stored KB / page"] = (
            "-" if stored_mb is None or not n else f"{1000 * stored_mb / n:.1f}"
        )
    return row


def blocks_table(
    per_method: Mapping[str, pd.DataFrame], label: str, paper_rows: Sequence[Mapping[str, Any]] = ()
) -> pd.DataFrame:
    """Table 4.1.1's layout (and Fig. 4.2.1's size when the pages have ``stored_bytes``):
    one row per method (totals over its pages), then the paper's rows."""
    with_size = any("stored_bytes" in p for p in per_method.values())
    out = []
    for method, pages in per_method.items():
        ok = scored(pages, "n_blocks")
        stored = ok["stored_bytes"].sum() / 1e6 if "stored_bytes" in ok else None
        out.append(
            _table_row(
                f"evalkit, {label}",
                method,
                len(ok),
                ok["n_blocks"].sum(),
                ok["n_informative"].sum(),
                ok["n_noisy"].sum(),
                ok["seconds"].sum(),
                stored,
                with_size,
            )
        )
    for p in paper_rows:
        out.append(
            _table_row(
                p.get("source", "paper"),
                p["row"],
                p["pages"],
                p["blocks"],
                p["informative"],
                p["noisy"],
                p["seconds"],
                p.get("stored_mb"),
                with_size,
            )
        )
    return pd.DataFrame(out)


def block_table(
    pages: pd.DataFrame, label: str, method: str, paper_rows: Sequence[Mapping[str, Any]] = ()
) -> pd.DataFrame:
    """Table 4.1.1's layout for one method: ours (totals over the pages) and the paper's rows."""
    return blocks_table({method: pages}, label, paper_rows)


def _first_pages(pages: pd.DataFrame, n: int) -> pd.DataFrame:
    first = pages.head(n)
    return pd.DataFrame(
        {
            "method": first["method"],
            "page": first["page_id"],
            **{k.removeprefix("n_"): first[k].astype("Int64") for k in BLOCK_KEYS},
            "ms": (1000 * first["seconds"]).round(1),
            "error": first["error"].fillna(""),
        }
    )


def _methods(opts) -> list[str]:
    """``kabir_blocks.methods`` (a list), else the older single ``kabir_blocks.method``."""
    methods = opts.get("methods")
    if methods is None:
        methods = [opts["method"]] if opts.get("method") else list(DEFAULT_METHODS)
    return [str(m) for m in methods]


def run_blocks(ctx: Context) -> pd.DataFrame | None:
    opts = ctx.section("kabir_blocks")
    labels = _methods(opts)
    # a method entry of the run, else the registry name itself (eniw, pab)
    specs = [
        next((s for s in ctx.specs if s.label == label), None) or MethodSpec(label, label)
        for label in labels
    ]
    n_boot = int(opts.get("n_boot", DEFAULT_N_BOOT))
    alpha = float(opts.get("alpha", DEFAULT_ALPHA))
    paper = opts.get("paper") or {}
    source = paper.get("source", "paper")
    paper_rows = [{"source": source, **r} for r in paper.get("rows") or []]
    n_first = int(opts.get("first_pages", DEFAULT_FIRST_PAGES))
    summaries = []
    for name, ds in ctx.datasets.items():
        per_method: dict[str, pd.DataFrame] = {}
        for spec in specs:
            pages = block_rows(ctx, ds, spec)
            if pages.empty:
                continue
            ok = pages[pages["error"].isna()]
            if len(ok) and ok["n_blocks"].isna().all():
                raise ValueError(
                    f"method {spec.label!r} ({spec.registry}) reports no block "
                    f"counts in Extraction.info; kabir_blocks needs "
                    f"{BLOCK_KEYS[:3]} (use pab or eniw)"
                )
            ctx.record_pages(pages.assign(experiment="kabir_blocks"), name)
            summaries.append(summarize_blocks(pages, name, spec.label, n_boot, alpha, ctx.seed))
            per_method[spec.label] = pages
        if not per_method:
            continue
        table = blocks_table(per_method, name, paper_rows)
        first = pd.concat(
            [_first_pages(p, n_first) for p in per_method.values()], ignore_index=True
        )
        shown = ", ".join(per_method)
        tdir = ctx.out / "tables"
        notes = [drop_note(p, ctx.on_failure) for p in per_method.values()]
        caption = with_note(
            f"Blocks found by {shown} on {name} (Kabir et al. Table 4.1.1 "
            "layout; stored = UTF-8 bytes of the kept text, Fig. 4.2.1): "
            "totals over the pages; time = extract() on pages in "
            "memory, this run",
            next((n for n in notes if n), ""),
        )
        write_table(table, tdir / f"kabir_blocks_{file_stem(name)}", caption=caption)
        write_table(
            first,
            tdir / f"kabir_blocks_{file_stem(name)}_first",
            caption=f"Blocks of the first {n_first} pages of {name} ({shown})",
        )
        ctx.report += [
            Heading(f"Blocks per page on {name} ({shown}; Tables 4.1.1 and 4.2.1)"),
            Table(table),
            Table(first),
        ]
    return pd.concat(summaries, ignore_index=True) if summaries else None
