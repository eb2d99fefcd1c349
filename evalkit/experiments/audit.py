"""The ``audit`` experiment: is the gold of a data set fit to score against?

Per page (docs/audit.md): how much of the gold occurs in the page's visible text, markup or
annotation artefacts left in the gold, gold far shorter than the main text every one of a
few cheap methods finds (``cfg.method``, default cetd, justext_style, trafilatura; their
extractions come from the cache when another run made them), and pages that duplicate an
earlier page of the set. Writes ``audit.csv`` (one row per page, a column per check and a
flag per finding), ``tables/audit_summary.*`` (counts and shares of flagged pages per set),
``tables/audit_flagged.*`` (every flagged page) and a report with example page ids of every
finding. A page that cannot be read is a row with ``page_error`` set and the ``unreadable``
flag; the run goes on.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import Any

import pandas as pd

from evalkit.core import gold_audit
from evalkit.core.page import Extraction, Page, PageError
from evalkit.experiments import Context
from evalkit.harness.config import ConfigError
from evalkit.harness.summary import summary_row
from evalkit.metrics import aeb_tokens
from evalkit.report.results import write_csv
from evalkit.report.sections import Bullets, Heading, Table, Text
from evalkit.report.tables import write_table

__all__ = ["DEFAULTS", "FLAGS", "audit_pages", "audit_record", "run", "summarize"]

#: the settings of configs/experiment/audit.yaml, used when a key is absent
DEFAULTS = {
    "coverage_min": 0.9,
    "shingle_n": 4,
    "truncated_fraction": 0.5,
    "truncated_min_words": 50,
    "simhash_shingle": 3,
    "simhash_k": 3,
    "duplicate_min_words": 20,
    "examples": 5,
}

#: flag columns of audit.csv, in the order of the summary table
FLAGS = ["unreadable", "empty_gold", "not_in_page", "artefacts", "truncated", "duplicate"]

#: duplicate kinds: (name, audit.csv column holding the key, near = simhash else exact)
_DUP_KINDS = [
    ("html", "html_sha256", False),
    ("text_near", "visible_simhash", True),
    ("gold", "gold_sha256", False),
    ("gold_near", "gold_simhash", True),
]

_last: dict[str, Any] = {}  # the last page's facts: a page's methods are scored in a row


def audit_record(
    page: Page, label: str, ext: Extraction, *, shingle_n: int = 4, simhash_shingle: int = 3
) -> dict[str, Any]:
    """The runner's scorer for the audit: the method's output size and the page's facts
    (the same on every method's record of the page, worked out once)."""
    opts = (shingle_n, simhash_shingle)
    if _last.get("page") is not page or _last.get("opts") != opts:
        _last.clear()
        _last.update(page=page, opts=opts, facts=_page_facts(page, shingle_n, simhash_shingle))
    return {
        "dataset": page.dataset,
        "page_id": page.id,
        "method": label,
        "error": ext.error,
        "out_words": len(aeb_tokens(ext.text)),
        **_last["facts"],
    }


def _page_facts(page: Page, shingle_n: int, simhash_shingle: int) -> dict[str, Any]:
    from evalkit.core.visible import visible_text

    gold = page.gold.text or ""
    page_error = None
    try:
        visible = visible_text(page.tree())
    except PageError as exc:  # recorded on the page's row; the gold is still audited
        visible, page_error = "", str(exc)[:300]
    word_share, shingle_share = gold_audit.coverage(gold, visible, shingle_n)
    found = gold_audit.artefacts(gold, visible)
    gold_words = len(aeb_tokens(gold))
    return {
        "page_error": page_error,
        "gold_words": gold_words,
        "visible_words": len(aeb_tokens(visible)),
        "gold_word_share": word_share,
        "gold_shingle_share": shingle_share,
        "artefact_count": sum(found.values()),
        "artefact_kinds": ";".join(f"{k}:{v}" for k, v in found.items()) or None,
        "html_sha256": page.sha256,
        "gold_sha256": gold_audit.exact_key(gold) if gold_words else None,
        # hex strings: a 64-bit int does not survive a CSV or JSON round trip everywhere
        "visible_simhash": f"{gold_audit.text_simhash(visible, simhash_shingle):016x}",
        "gold_simhash": f"{gold_audit.text_simhash(gold, simhash_shingle):016x}",
    }


def run(ctx: Context) -> pd.DataFrame | None:
    opts = {**DEFAULTS, **ctx.section("audit")}
    score = functools.partial(
        audit_record, shingle_n=int(opts["shingle_n"]), simhash_shingle=int(opts["simhash_shingle"])
    )
    methods = [s.label for s in ctx.specs]
    if not methods:  # the page facts ride on the methods' records: without one, none
        raise ConfigError(
            "experiment audit needs at least one method for its truncation "
            "check, e.g. method=[cetd] (default [cetd,justext_style,trafilatura])"
        )
    frames, rows = [], []
    for label, ds in ctx.datasets.items():
        spill = ctx.stream_records("audit", label, ds, score)
        if spill.n_records:
            per_page = spill.frame()
            ctx.record_pages(
                per_page[["experiment", "dataset", "page_id", "method", "error"]],
                label,
                spill=spill,
            )
        else:
            per_page = pd.DataFrame(columns=["dataset", "page_id", "method", "error"])
        # a file the reader passed over is a page the audit could not read: a row too
        skipped = [(s.file, s.reason) for s in getattr(ds, "skipped", [])]
        audit = audit_pages(per_page, methods, opts, dataset=label, skipped=skipped)
        if audit.empty:
            continue
        frames.append(audit)
        rows += summarize(audit, label)
        _report(ctx, audit, label, opts)
    if not frames:
        return None
    table = pd.concat(frames, ignore_index=True)
    write_csv(table, ctx.out / "audit.csv")
    summary = summary_table(table)
    write_table(
        summary,
        ctx.out / "tables" / "audit_summary",
        caption="Gold audit: pages flagged per data set, count (share of pages)",
    )
    # every flagged page in a table: small, and copied with the tables where audit.csv is not
    # (results/reference/ keeps tables, not per-page files)
    flagged = table.loc[table["flags"].notna(), _FLAGGED_COLUMNS]
    write_table(
        flagged, ctx.out / "tables" / "audit_flagged", caption="Gold audit: every flagged page"
    )
    ctx.report[:0] = [
        Heading("Gold audit: pages flagged per data set"),
        Text(_definitions(opts, methods)),
        Table(summary, gap=False),
        Text(
            "Every flagged page: `tables/audit_flagged.csv`; every page, check and "
            "flag: `audit.csv`."
        ),
    ]
    return pd.DataFrame(rows)


#: the page's facts in audit.csv (the scorer puts them on every record of the page)
_FACTS = [
    "dataset",
    "page_id",
    "page_error",
    "gold_words",
    "visible_words",
    "gold_word_share",
    "gold_shingle_share",
    "artefact_count",
    "artefact_kinds",
    "html_sha256",
    "gold_sha256",
    "visible_simhash",
    "gold_simhash",
]


#: the columns of tables/audit_flagged: what says why a page was flagged
_FLAGGED_COLUMNS = [
    "dataset",
    "page_id",
    "flags",
    "page_error",
    "gold_words",
    "visible_words",
    "gold_word_share",
    "gold_shingle_share",
    "artefact_kinds",
    "shortest_method",
    "shortest_words",
    "gold_to_shortest",
    "duplicate_of",
    "duplicate_kind",
]


def audit_pages(
    per_page: pd.DataFrame,
    methods: list[str],
    opts: dict,
    dataset: str = "",
    skipped: list[tuple[str, str]] = (),
) -> pd.DataFrame:
    """One row per page from the scorer's (page, method) records: the page's facts, each
    method's output words (None where it failed), and the flags. ``skipped``: (file, reason)
    of the files the reader passed over, each an ``unreadable`` row named by its file."""
    opts = {**DEFAULTS, **opts}
    first = per_page.drop_duplicates("page_id", keep="first")
    out = first.reindex(columns=_FACTS).reset_index(drop=True)
    # a record without the facts: the scorer failed on the page; its error says why
    lost = out["gold_words"].isna() & out["page_error"].isna()
    out.loc[lost, "page_error"] = first["error"].reset_index(drop=True)[lost].fillna("no facts")
    if skipped:
        gone = pd.DataFrame(
            {
                "dataset": dataset,
                "page_id": [Path(f).name for f, _ in skipped],
                "page_error": [f"skipped: {why}" for _, why in skipped],
            }
        )
        out = pd.concat([out, gone.reindex(columns=_FACTS)], ignore_index=True)
    for col in ("gold_words", "visible_words", "artefact_count"):  # counts stay whole in the CSV
        out[col] = pd.array(out[col], dtype="Float64").astype("Int64")
    ok = per_page[per_page["error"].isna()]
    words = (
        ok.pivot_table(index="page_id", columns="method", values="out_words", aggfunc="first")
        if len(ok)
        else pd.DataFrame()
    )
    for m in methods:
        col = words[m] if m in words.columns else pd.Series(dtype=float)
        out[f"words_{m}"] = pd.array(out["page_id"].map(col), dtype="Float64").astype("Int64")
    frac, least = float(opts["truncated_fraction"]), int(opts["truncated_min_words"])
    shortest = [
        gold_audit.shortest(
            {m: None if pd.isna(r[f"words_{m}"]) else int(r[f"words_{m}"]) for m in methods}
        )
        for _, r in out.iterrows()
    ]
    out["shortest_method"] = [m for m, _ in shortest]
    out["shortest_words"] = pd.array([w for _, w in shortest], dtype="Int64")
    out["gold_to_shortest"] = [
        math.nan if not w or pd.isna(g) else int(g) / w
        for g, (_, w) in zip(out["gold_words"], shortest)
    ]
    out["unreadable"] = out["page_error"].notna()
    out["empty_gold"] = _bool(~out["unreadable"] & (out["gold_words"] == 0))
    out["not_in_page"] = _bool(
        ~out["unreadable"] & (out["gold_word_share"] < float(opts["coverage_min"]))
    )
    out["artefacts"] = _bool(out["artefact_count"] > 0)
    out["truncated"] = [
        not pd.isna(g) and gold_audit.truncated(int(g), w, frac, least)
        for g, (_, w) in zip(out["gold_words"], shortest)
    ]
    _duplicates(out, int(opts["simhash_k"]), int(opts["duplicate_min_words"]))
    out["flags"] = [";".join(f for f in FLAGS if r[f]) or None for _, r in out.iterrows()]
    return out


def _bool(flags: pd.Series) -> pd.Series:
    """A flag column: a missing value (a page without the fact) is not a finding."""
    return flags.astype("boolean").fillna(False).astype(bool)


def _duplicates(out: pd.DataFrame, k: int, min_words: int) -> None:
    """Columns ``duplicate`` (the page repeats an earlier page of the set), ``duplicate_of``
    (that earlier page's id, the first of its group) and ``duplicate_kind``."""
    n = len(out)
    words = {
        "visible_simhash": out["visible_words"],
        "gold_simhash": out["gold_words"],
        "html_sha256": None,
        "gold_sha256": None,
    }
    first: list[list[int | None]] = []
    for _, col, near in _DUP_KINDS:
        keys = out[col].tolist()
        if near:
            fps = [
                int(h, 16) if not err and not pd.isna(w) and w >= min_words else None
                for h, w, err in zip(keys, words[col], out["unreadable"])
            ]
            pairs = gold_audit.near_pairs(fps, k)
        else:
            seen: dict[str, int] = {}
            pairs = []
            for i, key in enumerate(keys):
                if isinstance(key, str) and key:
                    pairs.append((seen.setdefault(key, i), i))
            pairs = [p for p in pairs if p[0] != p[1]]
        first.append(gold_audit.duplicate_of(n, pairs))
    ids = out["page_id"].tolist()
    of, kinds = [], []
    for i in range(n):
        hits = [(f[i], name) for f, (name, _, _) in zip(first, _DUP_KINDS) if f[i] is not None]
        of.append(ids[min(h for h, _ in hits)] if hits else None)
        kinds.append("+".join(name for _, name in hits) or None)
    out["duplicate"] = [o is not None for o in of]
    out["duplicate_of"] = of
    out["duplicate_kind"] = kinds


def summarize(audit: pd.DataFrame, dataset: str) -> list[dict[str, Any]]:
    """Long-format summary rows (method ``gold``): per flag the count (``<flag>_pages``) and
    share of pages (``<flag>_share``), any flag, and the mean coverage shares."""
    n = len(audit)
    rows = []
    for flag in [*FLAGS, "any"]:
        hits = int(audit["flags"].notna().sum() if flag == "any" else audit[flag].sum())
        rows.append(summary_row(dataset, "gold", f"{flag}_pages", hits, n_pages=n))
        rows.append(
            summary_row(dataset, "gold", f"{flag}_share", hits / n if n else math.nan, n_pages=n)
        )
    for col in ("gold_word_share", "gold_shingle_share"):
        v = audit.loc[~audit["unreadable"], col].dropna()
        rows.append(
            summary_row(
                dataset, "gold", f"{col}_mean", v.mean() if len(v) else math.nan, n_pages=len(v)
            )
        )
    return rows


def summary_table(audit: pd.DataFrame) -> pd.DataFrame:
    """Data set x flag: "count (share %)" of pages, with the mean coverage shares."""
    rows = []
    for ds, df in audit.groupby("dataset", sort=False):
        n = len(df)
        row: dict[str, Any] = {"dataset": ds, "pages": n}
        for flag in [*FLAGS, "any"]:
            hits = int(df["flags"].notna().sum() if flag == "any" else df[flag].sum())
            row[flag] = f"{hits} ({hits / n:.1%})"
        readable = df[~df["unreadable"]]
        row["gold_word_share_mean"] = f"{readable['gold_word_share'].mean():.3f}"
        row["gold_shingle_share_mean"] = f"{readable['gold_shingle_share'].mean():.3f}"
        rows.append(row)
    return pd.DataFrame(rows)


def _definitions(opts: dict, methods: list[str]) -> str:
    return (
        f"A page is `not_in_page` when less than {opts['coverage_min']} of its gold words "
        f"occur in its visible text; `artefacts` when its gold holds HTML tags, entities, "
        f"CleanEval markers, mojibake or U+FFFD beyond what the visible text shows; "
        f"`truncated` when its gold has fewer than {opts['truncated_fraction']} x the words "
        f"of the shortest output of {', '.join(methods) or 'no method'} (that output having "
        f">= {opts['truncated_min_words']} words); `duplicate` when it repeats an earlier "
        f"page of the set: identical bytes or gold, or a 64-bit simhash of word "
        f"{opts['simhash_shingle']}-shingles of its visible text or gold within "
        f"{opts['simhash_k']} bits (texts of >= {opts['duplicate_min_words']} words). "
        "Definitions: docs/audit.md."
    )


#: what the report shows of a flagged page, per flag
_DETAIL = {
    "unreadable": lambda r: str(r["page_error"]),
    "empty_gold": lambda r: f"{r['visible_words']} visible words",
    "not_in_page": lambda r: (
        f"word share {r['gold_word_share']:.3f}, shingle share {r['gold_shingle_share']:.3f}"
    ),
    "artefacts": lambda r: str(r["artefact_kinds"]),
    "truncated": lambda r: (
        f"gold {r['gold_words']} words, shortest {r['shortest_method']} "
        f"{r['shortest_words']} (ratio {r['gold_to_shortest']:.2f})"
    ),
    "duplicate": lambda r: f"of {r['duplicate_of']} ({r['duplicate_kind']})",
}


def _pages(n: int) -> str:
    return f"{n} page" if n == 1 else f"{n} pages"


def _report(ctx: Context, audit: pd.DataFrame, label: str, opts: dict) -> None:
    ctx.report.append(Heading(f"Gold audit of {label} ({_pages(len(audit))})"))
    items = []
    shown = int(opts["examples"])
    for flag in FLAGS:
        hit = audit[audit[flag]]
        if hit.empty:
            continue
        if flag == "not_in_page":  # the worst first
            hit = hit.sort_values("gold_word_share", kind="stable")
        elif flag == "truncated":
            hit = hit.sort_values("gold_to_shortest", kind="stable")
        items.append(
            f"**{flag}**: {_pages(len(hit))}, e.g. "
            + "; ".join(
                f"`{r['page_id']}` {_DETAIL[flag](r)}" for _, r in hit.head(shown).iterrows()
            )
        )
    if not audit["flags"].notna().any():
        items.append("no page flagged")
    least = int(opts["truncated_min_words"])
    short = audit["shortest_words"].fillna(0) < least
    open_ = int(_bool(~audit["unreadable"] & (audit["gold_words"] > 0) & short).sum())
    if open_:
        items.append(
            f"truncation not decided on {_pages(open_)}: a method's output has "
            f"fewer than {least} words there (audit.csv `shortest_words`)"
        )
    ctx.report.append(Bullets(tuple(items)))
