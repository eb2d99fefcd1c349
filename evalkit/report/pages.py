"""The page browser's data: which pages report.html shows, and for each the methods' diffs.

Pages are chosen from ``per_page.csv`` (:func:`choose_pages`): half of ``max_pages`` where the
methods disagree most (the widest spread of per-page shingle F1, or of a study's own F1), the rest a seeded random
sample of the others, so the browser shows both the interesting pages and typical ones and
says which is which. Their texts come from the run's kept extractions (``extractions.jsonl.gz``,
evalkit.harness.kept), read as a stream.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from evalkit.core.elements import Element, parse_markdown
from evalkit.metrics.structure import element_diff
from evalkit.report.diff import word_opcodes

__all__ = [
    "DEFAULT_MAX_PAGES",
    "KEPT_FILE",
    "MAX_BLOCKS",
    "MAX_SHOWN_WORDS",
    "MAX_STRUCTURE_ROWS",
    "choose_pages",
    "headline",
    "is_score_column",
    "page_records",
    "read_kept",
    "shown_scores",
]

#: the file of kept extractions in a run folder
KEPT_FILE = "extractions.jsonl.gz"
#: pages report.html embeds unless ``report.max_pages`` says otherwise
DEFAULT_MAX_PAGES = 200
#: words of one inserted or deleted stretch shown at most (the rest counted): keeps the file
#: small when a method adds a whole page of boilerplate
MAX_SHOWN_WORDS = 150
#: removed blocks listed per method and page at most (the rest counted)
MAX_BLOCKS = 60
#: structure diff rows (headings, items, code blocks, table rows) listed per method and page
MAX_STRUCTURE_ROWS = 200
#: the per-page scores the browser shows of an extraction run
SCORES = ("shingle_f1", "shingle_precision", "shingle_recall", "word_f1", "unit_f1")
#: a study's own per-page scores (wcxb_f1, wceb_rougelsum_recall, ...; trafilatura's
#: evaluation scores a page by snippet counts, traf_tp ...), shown where SCORES are absent
_STUDY_SCORE = re.compile(r"_(f1|precision|recall|tp|fp|fn|tn)$")


def is_score_column(name: str) -> bool:
    """Whether ``name`` is a per-page score the browser may show."""
    return name in SCORES or bool(_STUDY_SCORE.search(name))


def shown_scores(columns) -> list[str]:
    """The scores the browser shows of a run's per-page columns: the extraction's where the
    run has them, else the study's own."""
    own = [c for c in SCORES if c in columns]
    return own or [c for c in columns if _STUDY_SCORE.search(str(c))]


def headline(columns) -> str | None:
    """The score pages are listed and chosen by: the first shown F1 (None: none)."""
    return next((c for c in shown_scores(columns) if c.endswith("_f1")), None)


#: the head of a kept record as evalkit.harness.kept writes it: kind, data set, page id
_HEAD = re.compile(
    r'^\{"kind": "\w+", "dataset": ("(?:[^"\\]|\\.)*"), '
    r'"page_id": ("(?:[^"\\]|\\.)*"|-?\d+)'
)


def read_kept(
    path: str | os.PathLike, pages: set[tuple[str, str]] | None = None
) -> Iterator[dict[str, Any]]:
    """The records of a kept file in order; only those of ``pages`` ((dataset, page_id)
    pairs) when given. Streams: one line at a time in memory."""
    with gzip.open(Path(path), "rt", encoding="utf-8", errors="surrogatepass") as f:
        for line in f:
            if pages is not None:
                # the record's page from its head, before parsing a whole extraction
                head = _HEAD.match(line)
                if head and (json.loads(head[1]), str(json.loads(head[2]))) not in pages:
                    continue
            rec = json.loads(line)
            if pages is None or (str(rec["dataset"]), str(rec["page_id"])) in pages:
                yield rec


def choose_pages(
    per_page: pd.DataFrame, max_pages: int | None, seed: int = 0
) -> list[tuple[str, str, str]]:
    """(dataset, page_id, why) of the pages to show: all (``max_pages`` None), else the
    ``max_pages // 2`` of widest F1 spread between methods ("disagreement") and a seeded
    random sample of the rest ("sample"), in data set and page order."""
    scored = per_page.dropna(subset=["page_id"]) if "page_id" in per_page else per_page.iloc[:0]
    if scored.empty:
        return []
    col = headline(scored.columns)
    f1 = (scored[col] if col else pd.Series(np.nan, index=scored.index)).astype(float)
    # vectorised: a million pages are one pass over three columns, no Python call per page
    by = f1.groupby([scored["dataset"].astype(str), scored["page_id"].astype(str)], sort=False)
    spread = (by.max() - by.min()).where(by.count() > 1, 0.0).fillna(0.0)
    order = spread.index  # (dataset, page_id) in first-seen order
    if max_pages is None or len(order) <= max_pages:
        return [(d, p, "all") for d, p in order]
    top_n = max_pages // 2
    # widest spread first, ties in page order
    ranked = np.lexsort((np.arange(len(order)), -spread.to_numpy()))
    is_top = np.zeros(len(order), dtype=bool)
    is_top[ranked[:top_n]] = True
    rest = np.flatnonzero(~is_top)
    rng = np.random.default_rng(seed)
    sample = rest[rng.choice(len(rest), size=max_pages - top_n, replace=False)]
    chosen = {int(i): "disagreement" for i in ranked[:top_n]}
    chosen |= {int(i): "sample" for i in sample}
    return [(*order[i], chosen[i]) for i in sorted(chosen)]


def _stretch(words: list[str]) -> list[Any]:
    """Words of a changed stretch, the middle cut to :data:`MAX_SHOWN_WORDS` ([text, cut])."""
    if len(words) <= MAX_SHOWN_WORDS:
        return [" ".join(words), 0]
    half = MAX_SHOWN_WORDS // 2
    return [" ".join(words[:half]) + " \u2026 " + " ".join(words[-half:]), len(words) - 2 * half]


def diff_ops(gold: list[str], text: list[str], strings: dict[str, int]) -> list[list[Any]]:
    """The browser's diff: ``["=", n]`` (the next n gold words, unchanged), ``["-", n]`` (the
    next n gold words, missed; shown from the gold), ``["+", k, cut]`` (added words: string
    ``k`` of the page's ``strings``, shared by the methods that add the same words, ``cut``
    more words not shown)."""
    out: list[list[Any]] = []
    for tag, i1, i2, j1, j2 in word_opcodes(gold, text):
        if tag == "equal":
            out.append(["=", i2 - i1])
            continue
        if i2 > i1:
            out.append(["-", i2 - i1])
        if j2 > j1:
            shown, cut = _stretch(text[j1:j2])
            out.append(["+", strings.setdefault(shown, len(strings)), cut])
    return out


def _scores(rows: pd.DataFrame) -> dict[str, dict[str, Any]]:
    out = {}
    shown = shown_scores(rows.columns)
    for rec in rows.to_dict("records"):
        out[str(rec["method"])] = {
            k: (None if pd.isna(rec.get(k, math.nan)) else round(float(rec[k]), 4)) for k in shown
        }
        err = rec.get("error")
        out[str(rec["method"])]["error"] = None if pd.isna(err) else str(err)
    return out


def _removed(blocks: list[dict[str, Any]] | None) -> tuple[list[list[Any]], int] | None:
    if not blocks:
        return None
    gone = [b for b in blocks if not b.get("kept", True)]
    shown = [
        [
            b.get("index"),
            b.get("stage"),
            b.get("rule"),
            b.get("reason"),
            _facts(b),
            b.get("words"),
            b.get("text"),
        ]
        for b in gone[:MAX_BLOCKS]
    ]
    return shown, len(gone) - len(shown)


def _element(row: list[Any]) -> Element:
    kind, text, level, depth, rows = row
    rows = None if rows is None else tuple(tuple(r) for r in rows)
    return Element(kind, text, level, depth, rows)


def _facts(block: dict[str, Any]) -> str | None:
    """What else the method recorded of a removed block: its named values and numbers
    (the jusText-style ``cf_class``, PAB's ``priority``), ``name=value`` joined."""
    parts = [f"{k}={v}" for k, v in (block.get("attrs") or {}).items() if v is not None]
    parts += [
        f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
        for k, v in (block.get("scores") or {}).items()
        if v is not None
    ]
    if block.get("duplicate_of") is not None:
        parts.append(f"duplicate_of={block['duplicate_of']}")
    return ", ".join(parts) or None


def page_records(
    run_dir: str | os.PathLike, per_page: pd.DataFrame, chosen: list[tuple[str, str, str]]
) -> list[dict[str, Any]]:
    """One record per chosen page: gold words, each method's scores, error, diff and removed
    blocks. Without a kept file, the records hold scores only (and say so)."""
    kept = Path(run_dir) / KEPT_FILE
    want = {(d, p): why for d, p, why in chosen}
    pp = per_page.assign(
        dataset=per_page["dataset"].astype(str), page_id=per_page["page_id"].astype(str)
    )
    pp = pp[[(d, p) in want for d, p in zip(pp["dataset"], pp["page_id"])]]
    scores = {key: _scores(rows) for key, rows in pp.groupby(["dataset", "page_id"], sort=False)}
    pages: dict[tuple[str, str], dict[str, Any]] = {
        (d, p): {
            "dataset": d,
            "page_id": p,
            "why": why,
            "gold": None,
            "methods": {},
            "scores": scores.get((d, p), {}),
            "strings": [],
        }
        for d, p, why in chosen
    }
    strings: dict[tuple[str, str], dict[str, int]] = {}
    if kept.exists():
        gold_words: dict[tuple[str, str], list[str]] = {}
        gold_elements: dict[tuple[str, str], list[Element]] = {}
        for rec in read_kept(kept, set(want)):
            key = (str(rec["dataset"]), str(rec["page_id"]))
            page = pages[key]
            if rec["kind"] == "page":
                words = (rec.get("gold") or "").split()
                gold_words[key] = words
                page["gold"] = " ".join(words)
                if rec.get("elements") is not None:
                    gold_elements[key] = [_element(e) for e in rec["elements"]]
                continue
            entry: dict[str, Any] = {}
            if rec.get("missing"):
                entry["missing"] = rec["missing"]
            else:
                table = strings.setdefault(key, {})
                entry["diff"] = diff_ops(
                    gold_words.get(key, []), (rec.get("text") or "").split(), table
                )
                page["strings"] = list(table)
                entry["n_words"] = len((rec.get("text") or "").split())
                removed = _removed(rec.get("blocks"))
                if removed is not None:
                    entry["removed"], entry["removed_more"] = removed
                if key in gold_elements and rec.get("markdown") is not None:
                    diff = element_diff(parse_markdown(rec["markdown"]), gold_elements[key])
                    entry["structure"] = [list(row) for row in diff[:MAX_STRUCTURE_ROWS]]
                    entry["structure_more"] = max(len(diff) - MAX_STRUCTURE_ROWS, 0)
            page["methods"][str(rec["method"])] = entry
    return [pages[(d, p)] for d, p, _ in chosen]
