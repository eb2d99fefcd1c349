"""The leaderboard's numbers: each benchmark's own score per (page, method), its summary with a
page-bootstrap interval, and the same summary over groups of pages.

Every benchmark is scored by the function its own study uses
(:func:`evalkit.experiments.benchmarks.bench_score`) and summarised by the rule its own scorer
has, so a leaderboard cell is the number of the benchmark's study on the same pages and
method settings:

=================  ======================  =================================================
benchmark          main score              summary (the benchmark's scorer)
=================  ======================  =================================================
aeb                ``shingle_f1``          F1 of the mean precision and mean recall over the
                                           pages where each is defined (ScrapingHub's
                                           evaluate.py; the ``extraction`` experiment's rows)
wcxb               ``wcxb_f1``             mean per-page F1 (WCXB's evaluate.py)
trafilatura_eval   ``traf_f_score``        micro F-score of the summed segment counts
wceb               ``wceb_rougelsum_f1``   mean ROUGE-LSum F1 over the pages with an output
=================  ======================  =================================================

Each record also carries the page's groups: its ``category`` (WCXB's page type), the
``language`` of its gold text (:mod:`evalkit.metrics.language`) and its ``complexity``
(:func:`evalkit.harness.complexity.page_complexity`, from the visible words a page worker
prepares under the page timeout: :attr:`score.gold_side`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd

from evalkit import metrics
from evalkit.core.page import Extraction, Page
from evalkit.core.text import words
from evalkit.experiments.benchmarks import bench_score
from evalkit.harness.complexity import page_complexity
from evalkit.harness.scoring import prepare_gold_side
from evalkit.harness.summary import summary_row
from evalkit.metrics.language import UNKNOWN, language_of
from evalkit.metrics.snippets import PREFIX as TRAF
from evalkit.metrics.snippets import SnippetCounts, micro_scores

__all__ = ["MAIN", "NAMES", "group_rows", "main_value", "score", "set_rows"]

#: benchmark -> its main score's summary metric
MAIN = {
    "aeb": "shingle_f1",
    "wcxb": "wcxb_f1",
    "trafilatura_eval": f"{TRAF}f_score",
    "wceb": "wceb_rougelsum_f1",
}
#: benchmark -> the name of its main score in tables
NAMES = {
    "aeb": "shingle F1",
    "wcxb": "word F1",
    "trafilatura_eval": "F-score (micro)",
    "wceb": "ROUGE-LSum F1",
}
_COUNTS = [f"{TRAF}{k}" for k in SnippetCounts._fields]
# the language of the last page's gold: a page's methods are scored one after another
_last_language: dict[tuple[str, str], str] = {}


def score(page: Page, method: str, ext: Extraction, *, benchmark: str, sentences: str = "rule"):
    """``bench_score``'s record of ``benchmark`` plus the page's ``language`` and
    ``complexity``."""
    rec = bench_score(page, method, ext, benchmark=benchmark, sentences=sentences)
    key = (page.dataset, page.id)
    if key not in _last_language:
        _last_language.clear()
        _last_language[key] = language_of(page.gold.text)
    gold = page.gold
    if gold.visible_words is None:  # no page worker prepared it (runner.page_timeout=null)
        prepare_gold_side(page, unit=False)
    rec["language"] = _last_language[key]
    rec["complexity"] = (
        page_complexity(len(words(gold.text)), len(gold.visible_words))
        if gold.visible_words is not None  # still None: the page does not parse
        else math.nan
    )
    return rec


score.gold_side = "words"  # the visible words, prepared in the page worker (harness.scoring)


def _check(benchmark: str) -> None:
    if benchmark not in MAIN:
        raise ValueError(f"unknown benchmark {benchmark!r}; known: {', '.join(MAIN)}")


def main_value(df: pd.DataFrame, benchmark: str) -> float:
    """The benchmark's main score of one method's records ``df`` (its summary rule)."""
    _check(benchmark)
    if benchmark == "aeb":
        return metrics.aggregate_prf(df["shingle_precision"], df["shingle_recall"])["f1"]
    if benchmark == "trafilatura_eval":
        counts = df[_COUNTS].fillna(0).to_numpy(dtype=int)
        return micro_scores(SnippetCounts(*row) for row in counts)["f_score"]
    if benchmark == "wceb":
        col = MAIN["wceb"]
        ok = df[df["error"].isna()][col] if col in df else pd.Series(dtype=float)
        return metrics.mean_defined(ok)
    return metrics.mean_defined(df[MAIN[benchmark]])


def _interval_stat(df: pd.DataFrame, benchmark: str) -> tuple[int, Callable | None]:
    """(pages, statistic of resampled page indices) of the main score's bootstrap."""
    if benchmark == "aeb":
        p = df["shingle_precision"].to_numpy(dtype=float)
        r = df["shingle_recall"].to_numpy(dtype=float)
        return len(df), lambda idx: metrics.aggregate_prf_rows(p[idx], r[idx])[:, 2]
    if benchmark == "trafilatura_eval":
        c = df[_COUNTS].fillna(0).to_numpy(dtype=float)

        def micro_f(idx: np.ndarray) -> np.ndarray:
            tp, fp, fn = (c[:, i][idx].sum(axis=1) for i in range(3))
            den = 2 * tp + fp + fn
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.where(den > 0, 2 * tp / den, 0.0)

        return len(df), micro_f
    col = MAIN[benchmark]
    values = df[df["error"].isna()][col] if benchmark == "wceb" else df[col]
    x = values.to_numpy(dtype=float)
    x = x[~np.isnan(x)]
    return len(x), lambda idx: x[idx].mean(axis=1)


def set_rows(
    per_page: pd.DataFrame, dataset: str, benchmark: str, n_boot: int, alpha: float, seed: int
) -> list[dict]:
    """Per method of one data set: the main score (metric ``board_score``) with its page
    bootstrap interval, the failures (``board_failures``) and the pages (``board_pages``)."""
    _check(benchmark)
    batch = metrics.BootstrapBatch(n_boot=n_boot, alpha=alpha, seed=seed)
    pending = []
    for method, df in per_page.groupby("method", sort=False):
        n, stat = _interval_stat(df, benchmark)
        pending.append((method, df, batch.add(n, stat)[0]))
    cis = batch.intervals()
    rows = []
    for method, df, slot in pending:
        low, high = cis[slot]
        rows.append(
            summary_row(
                dataset, method, "board_score", main_value(df, benchmark), low, high, len(df)
            )
        )
        rows.append(
            summary_row(
                dataset, method, "board_failures", int(df["error"].notna().sum()), n_pages=len(df)
            )
        )
    return rows


def group_rows(
    per_page: pd.DataFrame, dataset: str, benchmark: str, by: str, min_pages: int
) -> list[dict]:
    """The main score per method over each group of pages of column ``by`` holding at least
    ``min_pages`` pages (metric ``board_<by>=<group>``); NaN groups are left out."""
    rows = []
    if by not in per_page:
        return rows
    for group, sub in per_page.dropna(subset=[by]).groupby(by, sort=True):
        if sub["page_id"].nunique() < min_pages or group == UNKNOWN:
            continue
        for method, df in sub.groupby("method", sort=False):
            rows.append(
                summary_row(
                    dataset,
                    method,
                    f"board_{by}={group}",
                    main_value(df, benchmark),
                    n_pages=len(df),
                )
            )
    return rows
