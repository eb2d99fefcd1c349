"""report.html of a run folder: its sections, provenance and page browser, from its files.

Called at the end of a run (evalkit.experiments._report) and by
``python -m evalkit.report RUN_DIR [--pages all|N]``, which rebuilds the page from
``report_sections.json``, ``run.json``, ``per_page.csv`` and the kept extractions.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

from evalkit.report.csv_safe import restore, restore_frame
from evalkit.report.html import pack, render
from evalkit.report.pages import (
    KEPT_FILE,
    SCORES,
    choose_pages,
    headline,
    is_score_column,
    page_records,
    shown_scores,
)
from evalkit.report.results import atomic_write_text
from evalkit.report.sections import Section

__all__ = ["HTML_FILE", "write_html"]

HTML_FILE = "report.html"
#: the page browser's packed data at most (bytes): more pages than fit are left out, the
#: sample first, so that report.html stays well under 20 MB beside its figures
PAGES_MAX_BYTES = 12_000_000
_PER_PAGE_COLUMNS = {
    "experiment",
    "dataset",
    "page_id",
    "method",
    "error",
    "shingle_f1",
    "shingle_precision",
    "shingle_recall",
    "word_f1",
    "unit_f1",
}


def _per_page(run_dir: Path) -> pd.DataFrame | None:
    path = run_dir / "per_page.csv"
    if not path.exists():
        return None
    # the browser shows an extraction's scores where the run has them, else a study's own
    # (shown_scores): the other score columns are not read (an extraction of 30,000 pages:
    # 9 columns of per_page.csv instead of 31, the frame kept 9 MB instead of 20 MB)
    own = any(restore(c) in SCORES for c in pd.read_csv(path, nrows=0).columns)
    df = restore_frame(
        pd.read_csv(
            path,
            usecols=lambda c: c in _PER_PAGE_COLUMNS or (not own and is_score_column(c)),
            # a million pages: the repeated names as categories (1 byte a row, not a string),
            # every text column typed so the parser may go a block at a time (low_memory,
            # the default: 2M rows peaked at 1.6 GB read whole, 0.34 GB so)
            dtype={"page_id": str, "error": str}
            | dict.fromkeys(("experiment", "dataset", "method"), "category"),
        )
    )
    if "experiment" in df and (df["experiment"] == "extraction").any():
        df = df[df["experiment"] == "extraction"]  # not dedup's or a classifier's rows
    # else a study's run: its benchmark's rows (wcxb, trafilatura_eval, wceb)
    if not {"dataset", "page_id", "method"} <= set(df.columns):
        return None
    return df.dropna(subset=["page_id", "method"])


def _fewer(chosen: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """Three quarters of ``chosen``: the sample pages go first, then the disagreement pages
    from the end of the list (the list keeps its order)."""
    keep = len(chosen) * 3 // 4
    rank = sorted(range(len(chosen)), key=lambda i: (chosen[i][2] == "sample", i))
    kept = set(rank[:keep])
    return [c for i, c in enumerate(chosen) if i in kept]


def write_html(
    run_dir: str | os.PathLike,
    sections: list[Section],
    title: str,
    max_pages: int | None,
    seed: int = 0,
) -> Path:
    """Write ``report.html`` into ``run_dir``; ``max_pages`` None embeds every page."""
    run_dir = Path(run_dir)
    run_path = run_dir / "run.json"
    run = json.loads(run_path.read_text()) if run_path.exists() else {}
    per_page = _per_page(run_dir)
    scores = shown_scores(per_page.columns) if per_page is not None else []
    by = headline(scores)
    pages = methods = None
    note = ""
    if per_page is not None and len(per_page):
        chosen = choose_pages(per_page, max_pages, seed)
        n_all = per_page[["dataset", "page_id"]].drop_duplicates().shape[0]
        methods = list(dict.fromkeys(per_page["method"].astype(str)))
        pages = page_records(run_dir, per_page, chosen)
        wanted = len(chosen)
        while (
            max_pages is not None
            and len(chosen) > 1
            and len(pack({"pages": pages, "methods": methods})) > PAGES_MAX_BYTES
        ):
            chosen = _fewer(chosen)
            pages = page_records(run_dir, per_page, chosen)
        if len(chosen) == n_all:
            note = f"All {n_all} pages of the run."
        else:
            top = sum(why == "disagreement" for _, _, why in chosen)
            note = (
                f"{len(chosen)} of the run's {n_all} pages (report.max_pages={max_pages}): "
                f"the {top} where the methods' {by or 'scores'} spread widest (\u201cdisagreement\u201d) "
                f"and {len(chosen) - top} drawn at random with seed {seed} from the rest "
                f"(\u201csample\u201d). All pages: python -m evalkit.report {run_dir} --pages all"
            )
        if len(chosen) < wanted:
            note += (
                f" Cut from {wanted} to {len(chosen)} pages to keep the file small "
                f"(page data under {PAGES_MAX_BYTES / 1e6:g} MB)."
            )
        if not (run_dir / KEPT_FILE).exists():
            note += (
                f" The run kept no extractions ({KEPT_FILE}; report.keep_extractions): "
                "the browser shows scores only."
            )
    text = render(
        sections,
        run_dir,
        title=title,
        run=run,
        pages=pages,
        methods=methods,
        pages_note=note,
        scores=scores,
        by=by,
    )
    return atomic_write_text(run_dir / HTML_FILE, text)
