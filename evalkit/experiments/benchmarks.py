"""What the three benchmark studies share (``study=wcxb``, ``trafilatura_eval``, ``wceb``).

Each study runs methods on a benchmark's own pages, scores every (page, method) under the
benchmark's own metric with :func:`bench_score` (records cached like every score), and puts
the published figure beside evalkit's. A published figure is compared only when the tool's
installed version is the one it was published with, and only on the pages it was published
over: otherwise the row says "not comparable: X installed, published with Y"
(:func:`version_note`) or "subset of N of M pages: not comparable" (:func:`pages_note`; a
limited run) instead of a difference. Where a benchmark published per-page numbers (WCEB's
CSVs) its study compares on the pages both sides scored instead (evalkit.experiments.wceb).
docs/benchmarks.md describes the studies.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator
from importlib import metadata
from typing import Any

import pandas as pd

from evalkit.core.page import Extraction, Page
from evalkit.harness.scoring import page_record
from evalkit.metrics import shingle_prf, wceb_rouge, wcxb
from evalkit.metrics import snippets as traf

__all__ = [
    "BENCHMARKS",
    "bench_score",
    "by_method",
    "comparison",
    "installed_version",
    "pages_note",
    "scored_sets",
    "version_note",
]

#: the benchmarks :func:`bench_score` knows (``aeb``: the ScrapingHub article-extraction
#: benchmark, whose study is the ``extraction`` experiment's shingle rows)
BENCHMARKS = ("aeb", "wcxb", "trafilatura_eval", "wceb")


def _base(page: Page, method: str, ext: Extraction) -> dict[str, Any]:
    return {**page_record(page, method, ext), "n_words_out": len((ext.text or "").split())}


def bench_score(
    page: Page, method: str, ext: Extraction, *, benchmark: str, sentences: str = "rule"
) -> dict[str, Any]:
    """One per-page record under ``benchmark``'s own metric.

    A failed extraction is what each benchmark makes of it: WCXB scores a missing
    prediction as the empty text; trafilatura's evaluation counts a raised tool as finding
    no segment; WCEB has no score for a page without output (its columns are left out).
    """
    rec = _base(page, method, ext)
    text = ext.text if ext.error is None else None
    extra = page.gold.extra
    if benchmark == "aeb":
        prf = shingle_prf(text, page.gold.text)
        rec.update(shingle_precision=prf.precision, shingle_recall=prf.recall, shingle_f1=prf.f1)
    elif benchmark == "wcxb":
        rec.update(wcxb.score(text or "", wcxb.prepare(page.gold.text)))
        if "with" in extra:
            rec["wcxb_with"] = wcxb.snippet_share(text or "", extra.get("with"))
            rec["wcxb_without"] = wcxb.snippet_share(text or "", extra.get("without"))
    elif benchmark == "trafilatura_eval":
        counts = traf.count_snippets(text, extra.get("with") or [], extra.get("without") or [])
        rec.update({f"{traf.PREFIX}{k}": v for k, v in counts._asdict().items()})
    elif benchmark == "wceb":
        if text is not None:
            gold = wceb_rouge.prepare(page.gold.text, sentences)
            rec.update(wceb_rouge.score(text, gold, sentences))
    else:
        raise ValueError(f"unknown benchmark {benchmark!r}; known: {', '.join(BENCHMARKS)}")
    return rec


def installed_version(package: str | None) -> str | None:
    """The installed version of a distribution, None when it is not installed."""
    if not package:
        return None
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def version_note(package: str | None, published: str | None) -> str:
    """ "" when the installed version is the published one, else why the rows differ."""
    if not published:
        return "not comparable: the benchmark does not say which version it ran"
    have = installed_version(package)
    if have is None:
        return f"not comparable: {package} not installed, published with {published}"
    if have != str(published):
        return f"not comparable: {have} installed, published with {published}"
    return ""


def pages_note(n: int, published: int | None, limited: bool = False) -> str:
    """ "" when a run's ``n`` pages are the ``published`` figure's page count, else why its
    numbers cannot be compared with it. ``published`` None (not stated): only a ``limited``
    run (``dataset.X.limit``) is called a subset."""
    if published is None:
        return f"subset of {n} pages (a limited run): not comparable" if limited else ""
    if n < int(published):
        return f"subset of {n} of {int(published)} pages: not comparable"
    if n > int(published):
        return f"{n} pages, published over {int(published)}: not comparable"
    return ""


def comparison(
    ours: dict[str, dict[str, float]],
    published: list[dict],
    metrics: list[str],
    tolerance: float,
    pages: str = "",
) -> pd.DataFrame:
    """One row per published row: evalkit's value beside the published one per metric, the
    difference when the versions and the pages agree, else why not (``pages``: the run's
    :func:`pages_note`, then the version note); ``ours``: method -> metric -> value. A
    published row whose method was not run says so."""
    rows = []
    for pub in published:
        method = pub.get("method")
        got = ours.get(method) if method else None
        note = version_note(pub.get("package"), pub.get("version")) if got else ""
        if got and pages:  # never "differs" on other pages than the published figure's
            note = pages + (f" ({note.removeprefix('not comparable: ')})" if note else "")
        row = {
            "tool (published row)": pub["row"],
            "method": method or "-",
            "version": f"{installed_version(pub.get('package')) or '-'} installed / "
            f"{pub.get('version') or '?'} published",
        }
        worst = 0.0
        for m in metrics:
            p = pub.get(m)
            v = got.get(m, math.nan) if got else math.nan
            row[f"{m} evalkit"] = "-" if math.isnan(v) else f"{v:.3f}"
            row[f"{m} published"] = "-" if p is None else f"{p:.3f}"
            if p is not None and not math.isnan(v):
                worst = max(worst, abs(v - p))
        if not got:
            row["agreement"] = (
                f"method {method} not run"
                if method
                else "not run here" + (f": {pub['not_here']}" if pub.get("not_here") else "")
            )
        elif note:
            row["agreement"] = note
        else:
            row["agreement"] = (
                f"within {tolerance:g} (largest difference {worst:.3f})"
                if worst <= tolerance
                else f"differs by up to {worst:.3f} at the published version"
                + (f": {pub['why']}" if pub.get("why") else "")
            )
        rows.append(row)
    return pd.DataFrame(rows)


def scored_sets(
    ctx, benchmark: str, summarise: Callable[[pd.DataFrame, str], list[dict]]
) -> Iterator[tuple[str, pd.DataFrame, pd.DataFrame]]:
    """Each data set of the run (``ctx``, an :class:`evalkit.experiments.Context`) scored
    under ``benchmark``'s metric, as ``(label, per_page, summary)``: the per-page records
    are kept in the run's per_page.csv, ``summary`` holds ``summarise(per_page, label)``'s
    rows; a set without records is passed over."""
    score = functools.partial(bench_score, benchmark=benchmark)
    for label, ds in ctx.datasets.items():
        spill = ctx.stream_records(benchmark, label, ds, score, keep=True)
        if not spill.n_records:
            continue
        per_page = spill.frame()
        ctx.record_pages(per_page, label, spill=spill)
        yield label, per_page, pd.DataFrame(summarise(per_page, label))


def by_method(summary: pd.DataFrame, prefix: str) -> dict[str, dict[str, float]]:
    """``{method: {metric without prefix: value}}`` of a summary, for :func:`comparison`."""
    return {
        m: dict(zip(g["metric"].str.removeprefix(prefix), g["value"]))
        for m, g in summary.groupby("method", sort=False)
    }
