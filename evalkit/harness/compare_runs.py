"""What changed between two runs, page by page: ``python -m evalkit.compare RUN_A RUN_B``.

Two run folders are read (``per_page.parquet`` when there is one and pyarrow is installed,
else ``per_page.csv``; ``run.json`` for versions) through the read gate
(:func:`evalkit.core.capped.read_capped`). Records are aligned on (dataset, page_id, method);
for every data set, every method of both runs and every per-page score of both (a metric
family's column, :func:`evalkit.metrics.families.family_of`, confusion counts left out) the
pages where both runs have a value give: the two means, the mean difference B - A with its
seeded paired bootstrap interval, the sign-flip permutation p-value and that p Holm-adjusted
over every row of the comparison; then the pages that moved most on the headline score.
Pages and methods of one run only are counted and named, never scored. docs/compare.md.
"""

from __future__ import annotations

import argparse
import io
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from evalkit import metrics
from evalkit.core.capped import Refused, read_capped
from evalkit.core.jsonfile import DataFileError, loads
from evalkit.harness.pairwise import tested_rows
from evalkit.metrics.families import family_of
from evalkit.report.cells import Cell
from evalkit.report.console import text_table
from evalkit.report.per_page_csv import read_per_page
from evalkit.report.per_page_parquet import PARQUET_NAME
from evalkit.report.tables import write_table

__all__ = [
    "KEYS",
    "PAGE_COLUMNS",
    "ROW_COLUMNS",
    "Comparison",
    "Run",
    "RunError",
    "compare_runs",
    "console_text",
    "main",
    "pages_table",
    "read_run",
    "rows_table",
    "score_columns",
    "write_comparison",
]

PER_PAGE = "per_page.csv"
RUN_JSON = "run.json"
#: caps of the read gate: a per-page table of a large run, run.json
MAX_PER_PAGE_BYTES = 1 << 30
MAX_RUN_JSON_BYTES = 50_000_000
#: what a record is aligned on
KEYS = ["dataset", "page_id", "method"]
#: confusion counts (kaur_tp, unit_fn, ...) belong to a family but are no scores
_COUNTS = ("_tp", "_fp", "_fn", "_tn")
#: the columns of :attr:`Comparison.rows`
ROW_COLUMNS = (
    "dataset method metric n_pages mean_a mean_b diff ci_low ci_high p_value p_holm only_a only_b"
).split()
#: the columns of :attr:`Comparison.pages`
PAGE_COLUMNS = "dataset method page_id metric score_a score_b diff error_a error_b".split()
_PREFIX = "evalkit.compare"


class RunError(ValueError):
    """A run folder or file that cannot be compared; the message is one line naming it."""


@dataclass
class Run:
    """One run folder as compared: one record per (dataset, page_id, method)."""

    path: Path
    records: pd.DataFrame
    #: run.json (None when absent or unreadable: a note says why)
    info: dict[str, Any] | None
    notes: list[str] = field(default_factory=list)


def _read(path: Path, cap: int, root: Path) -> bytes:
    try:
        return read_capped(path, cap, f"the cap of {cap:,} bytes", root)
    except Refused as exc:
        raise RunError(f"{path}: {exc}") from None
    except OSError as exc:
        raise RunError(f"{path}: not readable ({exc.strerror or exc})") from None


def _per_page(root: Path, notes: list[str]) -> tuple[pd.DataFrame, Path]:
    parquet, csv = root / PARQUET_NAME, root / PER_PAGE
    if parquet.is_file():
        try:
            import pyarrow  # noqa: F401 - the parquet copy needs it; else the csv is read

            raw = _read(parquet, MAX_PER_PAGE_BYTES, root)
            return pd.read_parquet(io.BytesIO(raw)), parquet
        except ImportError:
            pass
        except (RunError, ValueError, OSError) as exc:
            notes.append(f"{parquet}: not read ({exc}); {PER_PAGE} is")
    if not csv.exists():
        raise RunError(f"{csv}: not found (a run folder holds {PER_PAGE})")
    raw = _read(csv, MAX_PER_PAGE_BYTES, root)
    try:
        return read_per_page(io.BytesIO(raw)), csv  # type: ignore[arg-type]
    except ValueError as exc:  # pandas' parser errors, undecodable bytes, an empty file
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise RunError(f"{csv}: not a per-page table ({first})") from None


def _run_json(root: Path, notes: list[str]) -> dict[str, Any] | None:
    path = root / RUN_JSON
    if not path.exists():
        notes.append(f"{path}: not found; versions not compared")
        return None
    try:
        info = loads(_read(path, MAX_RUN_JSON_BYTES, root), path)
    except (RunError, DataFileError) as exc:
        notes.append(f"{exc}; versions not compared")
        return None
    return info if isinstance(info, dict) else None


def read_run(path: str | Path) -> Run:
    """A run folder's records (:class:`RunError`, one line naming the folder or file, when
    there is none to compare). As the report does, a run with extraction rows keeps only
    those (not dedup's or a classifier's); a record repeating a key is left out, said in a
    note."""
    root = Path(path)
    if not root.is_dir():
        what = "not a folder" if root.exists() else "no such run folder"
        raise RunError(f"{root}: {what}")
    notes: list[str] = []
    frame, source = _per_page(root, notes)
    missing = [k for k in KEYS if k not in frame.columns]
    if missing:
        raise RunError(f"{source}: not a per-page table of evalkit (no column {missing})")
    if "experiment" in frame and (frame["experiment"] == "extraction").any():
        frame = frame[frame["experiment"] == "extraction"]
    frame = frame.dropna(subset=["page_id", "method"]).copy()
    frame["dataset"] = frame["dataset"].fillna("")
    for key in KEYS:
        frame[key] = frame[key].astype(str)
    repeated = frame.duplicated(KEYS)
    if repeated.any():
        notes.append(
            f"{source}: {int(repeated.sum())} records repeat a (dataset, page_id, method); "
            "the first of each is compared"
        )
        frame = frame[~repeated]
    return Run(root, frame.reset_index(drop=True), _run_json(root, notes), notes)


def _numeric(values: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)


def _family_scores(frame: pd.DataFrame) -> list[str]:
    return [c for c in frame.columns if family_of(str(c)) and not str(c).endswith(_COUNTS)]


def score_columns(
    a: pd.DataFrame, b: pd.DataFrame, wanted: list[str] | None = None
) -> tuple[list[str], list[str]]:
    """(the per-page scores both tables hold as numbers, in ``a``'s order; notes on the
    scores left out). A score is a metric family's column that is no confusion count;
    ``wanted`` names the columns to compare instead (any numeric column of both)."""
    notes = []
    cands = _family_scores(a) if wanted is None else list(wanted)
    sides = (("A", cands, b), ("B", _family_scores(b), a)) if wanted is None else ()
    for side, cols, other in sides:
        if lone := [c for c in cols if c not in other.columns]:
            notes.append(f"scores only in run {side} (not compared): {', '.join(lone)}")
    if absent := [c for c in cands if wanted and (c not in a.columns or c not in b.columns)]:
        notes.append(f"named scores not in both runs (not compared): {', '.join(absent)}")
    cols = [c for c in cands if c in a.columns and c in b.columns]
    for c in [c for c in cols if not (_numeric(a[c]) and _numeric(b[c]))]:
        notes.append(f"{c}: not numbers in both runs (not compared)")
    return [c for c in cols if _numeric(a[c]) and _numeric(b[c])], notes


@dataclass
class Comparison:
    """Two runs compared (:func:`compare_runs`); B - A throughout."""

    a: Run
    b: Run
    #: one row per (dataset, method, score): :data:`ROW_COLUMNS`
    rows: pd.DataFrame
    #: the pages that moved most on ``headline``, per (dataset, method): :data:`PAGE_COLUMNS`
    pages: pd.DataFrame
    headline: str | None
    alpha: float
    top: int
    #: (dataset, page_id) of the pages of one run only
    pages_only_a: list[tuple[str, str]]
    pages_only_b: list[tuple[str, str]]
    methods_only_a: list[str]
    methods_only_b: list[str]
    notes: list[str]


def _ordered(values) -> list[str]:
    return list(dict.fromkeys(str(v) for v in values))


def _pages_of(index: pd.MultiIndex) -> list[tuple[str, str]]:
    return list(dict.fromkeys(zip(index.get_level_values(0), index.get_level_values(1))))


def compare_runs(
    run_a: str | Path | Run,
    run_b: str | Path | Run,
    *,
    scores: list[str] | None = None,
    headline: str | None = None,
    top: int = 10,
    n_boot: int = metrics.N_BOOT,
    alpha: float = metrics.ALPHA,
    seed: int = 0,
    n_perm: int = metrics.N_PERM,
) -> Comparison:
    """Compare run B with run A (folders or :class:`Run`); module docstring, docs/compare.md.

    Every interval is the percentile bootstrap of the mean per-page difference, pages
    resampled with both runs' scores (``n_boot`` draws from ``seed``); every p-value the
    sign-flip permutation test (``n_perm`` flips from ``seed``), Holm-adjusted over all rows.
    ``headline`` (default ``shingle_f1`` when compared, else the first score) ranks the moved
    pages; ``top`` of them per (dataset, method), pages that did not move left out.
    """
    a = run_a if isinstance(run_a, Run) else read_run(run_a)
    b = run_b if isinstance(run_b, Run) else read_run(run_b)
    cols, notes = score_columns(a.records, b.records, scores)
    if headline is None:
        headline = "shingle_f1" if "shingle_f1" in cols else (cols[0] if cols else None)
    elif headline not in cols:
        notes.append(f"headline {headline}: not a score of both runs; no pages ranked")
        headline = None
    A, B = a.records.set_index(KEYS), b.records.set_index(KEYS)
    methods_a, methods_b = _ordered(a.records["method"]), _ordered(b.records["method"])
    both = set(methods_a) & set(methods_b)
    methods_only_a = [m for m in methods_a if m not in both]
    methods_only_b = [m for m in methods_b if m not in both]
    # pages: (dataset, page_id) pairs; a page of one run only is counted, never scored
    pages_a, pages_b = _pages_of(A.index), _pages_of(B.index)
    in_a, in_b = set(pages_a), set(pages_b)
    only_pa = [p for p in pages_a if p not in in_b]
    only_pb = [p for p in pages_b if p not in in_a]
    # records of a shared method on no shared key (a page of one run, or a record dropped)
    lone_a = A.index.difference(B.index).to_frame(index=False)
    lone_b = B.index.difference(A.index).to_frame(index=False)
    count_a = lone_a.groupby(["dataset", "method"]).size().to_dict() if len(lone_a) else {}
    count_b = lone_b.groupby(["dataset", "method"]).size().to_dict() if len(lone_b) else {}

    shared = A.index.intersection(B.index, sort=False)
    shared = shared[shared.get_level_values(2).isin(both)]
    xa = A.reindex(shared)[cols].to_numpy(dtype=float, na_value=np.nan)
    xb = B.reindex(shared)[cols].to_numpy(dtype=float, na_value=np.nan)
    key = pd.DataFrame(
        {"dataset": shared.get_level_values(0), "method": shared.get_level_values(2)}
    )
    order = {m: i for i, m in enumerate(methods_a)}
    ds_order = {d: i for i, d in enumerate(_ordered(a.records["dataset"]))}
    groups = sorted(
        key.groupby(["dataset", "method"], sort=False).indices.items(),
        key=lambda g: (ds_order[g[0][0]], order[g[0][1]]),
    )
    errors = (_errors(a.records), _errors(b.records)) if headline else ({}, {})
    batch = metrics.BootstrapBatch(n_boot=n_boot, alpha=alpha, seed=seed)
    rows, slots, pairs, moved = [], [], [], []
    for (dataset, method), idx in groups:
        page_ids = shared.get_level_values(1)[idx]
        for j, col in enumerate(cols):
            x, y = xa[idx, j], xb[idx, j]
            ok = ~(np.isnan(x) | np.isnan(y))
            d = y[ok] - x[ok]
            n = int(ok.sum())
            slots.append(batch.add_mean(d))
            pairs.append((y[ok], x[ok]))
            rows.append(
                {
                    "dataset": dataset,
                    "method": method,
                    "metric": col,
                    "n_pages": n,
                    "mean_a": float(x[ok].mean()) if n else math.nan,
                    "mean_b": float(y[ok].mean()) if n else math.nan,
                    "diff": float(d.mean()) if n else math.nan,
                    "only_a": int(count_a.get((dataset, method), 0)),
                    "only_b": int(count_b.get((dataset, method), 0)),
                }
            )
            if col == headline:
                moved += _moved(dataset, method, col, page_ids[ok], x[ok], y[ok], top, errors)
    out = tested_rows(rows, slots, pairs, batch, n_perm, seed, ROW_COLUMNS)
    notes = a.notes + b.notes + notes + _version_notes(a.info, b.info, methods_a, both)
    return Comparison(
        a=a,
        b=b,
        rows=out,
        pages=pd.DataFrame(moved, columns=PAGE_COLUMNS),
        headline=headline,
        alpha=alpha,
        top=top,
        pages_only_a=only_pa,
        pages_only_b=only_pb,
        methods_only_a=methods_only_a,
        methods_only_b=methods_only_b,
        notes=notes,
    )


def _errors(frame: pd.DataFrame) -> dict[tuple[str, str, str], str]:
    """(dataset, page_id, method) -> the record's error, for the records that have one."""
    if "error" not in frame:
        return {}
    failed = frame[frame["error"].notna() & (frame["error"].astype(str) != "")]
    return {tuple(k): str(e) for k, e in zip(failed[KEYS].to_numpy(), failed["error"])}


def _moved(
    dataset: str, method: str, col: str, page_ids, x, y, top: int, errors: tuple[dict, dict]
) -> list[dict[str, Any]]:
    """The ``top`` pages with the largest |B - A| (ties by page id); unmoved pages left out."""
    d = y - x
    picked = sorted(
        (i for i in range(len(d)) if d[i] != 0), key=lambda i: (-abs(d[i]), page_ids[i])
    )
    return [
        {
            "dataset": dataset,
            "method": method,
            "page_id": page_ids[i],
            "metric": col,
            "score_a": float(x[i]),
            "score_b": float(y[i]),
            "diff": float(d[i]),
            "error_a": errors[0].get((dataset, page_ids[i], method)),
            "error_b": errors[1].get((dataset, page_ids[i], method)),
        }
        for i in picked[: max(top, 0)]
    ]


def _changes(old: dict, new: dict) -> list[str]:
    out = []
    for name in sorted(set(old) | set(new), key=str):
        va, vb = old.get(name, "-"), new.get(name, "-")
        if va != vb:
            out.append(f"{name} {va} -> {vb}")
    return out


def _version_notes(ia, ib, methods: list[str], both: set[str]) -> list[str]:
    """What run.json says changed: evalkit, its commit, each shared method's packages and
    resolved parameters."""
    if ia is None or ib is None:
        return []

    out = []
    for what, va, vb in (
        ("evalkit", ia.get("evalkit_version"), ib.get("evalkit_version")),
        ("commit", _commit(ia), _commit(ib)),
    ):
        if va != vb:
            out.append(f"{what}: {va} -> {vb}")
    ma, mb = ia.get("methods"), ib.get("methods")
    if not (isinstance(ma, dict) and isinstance(mb, dict)):
        return out
    for m in methods:
        if m not in both or not isinstance(ma.get(m), dict) or not isinstance(mb.get(m), dict):
            continue
        parts = []
        for key, what in (("packages", "packages"), ("resolved_params", "parameters")):
            old, new = ma[m].get(key), mb[m].get(key)
            if isinstance(old, dict) and isinstance(new, dict) and (changed := _changes(old, new)):
                parts.append(f"{what} {'; '.join(changed)}")
        if parts:
            out.append(f"{m}: " + "; ".join(parts))
    return out


def rows_table(cmp: Comparison, digits: int = 3) -> pd.DataFrame:
    """The display form of :attr:`Comparison.rows`: means and the difference as cells (the
    difference signed, with its interval, ``*`` when its Holm p is below alpha)."""
    r = cmp.rows
    return pd.DataFrame(
        {
            "dataset": r["dataset"],
            "method": r["method"],
            "metric": r["metric"],
            "n_pages": r["n_pages"],
            "mean_a": [Cell(v, digits=digits) for v in r["mean_a"]],
            "mean_b": [Cell(v, digits=digits) for v in r["mean_b"]],
            "diff": [
                Cell(d, lo, hi, digits, signed=True, mark="*" if p < cmp.alpha else "")
                for d, lo, hi, p in zip(r["diff"], r["ci_low"], r["ci_high"], r["p_holm"])
            ],
            "p_value": [Cell(p, digits=4) for p in r["p_value"]],
            "p_holm": [Cell(p, digits=4) for p in r["p_holm"]],
            "only_a": r["only_a"],
            "only_b": r["only_b"],
        },
        columns=[c for c in ROW_COLUMNS if c not in ("ci_low", "ci_high")],
    )


def pages_table(cmp: Comparison, digits: int = 3) -> pd.DataFrame:
    """The display form of :attr:`Comparison.pages`."""
    p = cmp.pages.copy()
    for col in ("score_a", "score_b"):
        p[col] = [Cell(v, digits=digits) for v in p[col]]
    p["diff"] = [Cell(v, digits=digits, signed=True) for v in p["diff"]]
    return p.fillna({"error_a": "", "error_b": ""})


def _commit(info: dict[str, Any]) -> str | None:
    git = info.get("git") if isinstance(info.get("git"), dict) else {}
    c = git.get("commit")
    return str(c)[:10] + ("+dirty" if git.get("dirty") else "") if c else None


def _lead(run: Run) -> str:
    info = run.info or {}
    facts = [f"evalkit {info['evalkit_version']}"] if info.get("evalkit_version") else []
    facts += [f"commit {_commit(info)}"] if _commit(info) else []
    return f"{run.path}" + (f" ({', '.join(facts)})" if facts else "")


def _sample(pages: list[tuple[str, str]], k: int = 5) -> str:
    shown = ", ".join(f"{d}/{p}" for d, p in pages[:k])
    return shown + (", ..." if len(pages) > k else "")


def _console_row(metric: str, headline: str | None) -> bool:
    return metric == headline or metric.endswith(("_f1", "_similarity", "_accuracy"))


def console_text(cmp: Comparison, all_rows: bool = False) -> str:
    """The comparison as the console shows it: per data set the F1-like scores (every score
    with ``all_rows``), then the pages that moved most, then the notes."""
    out = [f"A: {_lead(cmp.a)}", f"B: {_lead(cmp.b)}"]
    conf = f"{round(100 * (1 - cmp.alpha))}%"
    table = rows_table(cmp)
    shown = table if all_rows else table[[_console_row(m, cmp.headline) for m in table["metric"]]]
    for dataset in _ordered(cmp.rows["dataset"]):
        part = shown[shown["dataset"] == dataset]
        n = int(cmp.rows.loc[cmp.rows["dataset"] == dataset, "n_pages"].max())
        cols = ["method", "metric", "n_pages", "mean_a", "mean_b", "diff", "p_holm"]
        heads = ["method", "metric", "pages", "A", "B", "B - A [interval]", "p_holm"]
        view = part[cols].set_axis(heads, axis=1)
        title = f"{dataset} ({n} shared pages): B - A, {conf} paired bootstrap interval"
        out += ["", text_table(view, title)]
        hidden = int((table["dataset"] == dataset).sum()) - len(part)
        if hidden:
            out.append(f"  ({hidden} more scores: --all, or compare.csv with --out)")
        moved = cmp.pages[cmp.pages["dataset"] == dataset]
        if cmp.headline is None:
            continue
        if moved.empty:
            out.append(f"  no page moved on {cmp.headline}")
            continue
        pv = pages_table(cmp).loc[moved.index]
        cols = ["page_id", "method", "score_a", "score_b", "diff"]
        view = pv[cols].set_axis(["page_id", "method", "A", "B", "B - A"], axis=1)
        head = f"{dataset}: pages that moved most on {cmp.headline} (top {cmp.top} per method)"
        out += ["", text_table(view, head)]
    if cmp.rows.empty:
        out += ["", "no method and score of both runs shares a page: nothing compared"]
    notes = [f"* Holm-adjusted p < {cmp.alpha:g} over all {len(cmp.rows)} rows"]
    for side, pages in (("A", cmp.pages_only_a), ("B", cmp.pages_only_b)):
        if pages:
            notes.append(f"pages only in run {side} ({len(pages)}), not scored: {_sample(pages)}")
    for side, methods in (("A", cmp.methods_only_a), ("B", cmp.methods_only_b)):
        if methods:
            notes.append(f"methods only in run {side}, not compared: {', '.join(methods)}")
    out += [""] + [f"note: {n}" for n in notes + cmp.notes]
    return "\n".join(out)


def write_comparison(cmp: Comparison, out: str | Path) -> list[Path]:
    """``compare.csv/.md/.tex`` (every row) and ``compare_pages.csv/.md/.tex`` in ``out``."""
    out = Path(out)
    caption = f"B - A: {cmp.b.path} against {cmp.a.path}"
    paths = write_table(rows_table(cmp), out / "compare", caption)
    head = f"pages that moved most on {cmp.headline} (top {cmp.top} per method)"
    return paths + write_table(pages_table(cmp), out / "compare_pages", head)


def _positive(value: str) -> int:
    n = int(value)
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def _alpha(value: str) -> float:
    x = float(value)
    if not 0 < x < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {x}")
    return x


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m evalkit.compare",
        description="Compare two run folders page by page: per data set, method and score, "
        "the mean difference B - A over the pages both runs scored, its paired bootstrap "
        "interval and Holm-adjusted permutation p-value, and the pages that moved most "
        "(docs/compare.md). Differences are results: the exit code is 0; 2 when a run "
        "folder or its per_page.csv cannot be read.",
        epilog="example: python -m evalkit.compare results/old results/new --out cmp",
    )
    p.add_argument("run_a", type=Path, help="the earlier run folder (A)")
    p.add_argument("run_b", type=Path, help="the later run folder (B); differences are B - A")
    p.add_argument(
        "--out", type=Path, metavar="DIR", help="write compare.* and compare_pages.* tables here"
    )
    p.add_argument(
        "--metrics",
        metavar="COLS",
        help="comma-separated per-page columns to compare (default: every score of both runs)",
    )
    p.add_argument(
        "--headline",
        metavar="COL",
        help="the score that ranks moved pages (default: shingle_f1, else the first score)",
    )
    p.add_argument(
        "--top", type=int, default=10, metavar="N", help="moved pages per method (default 10)"
    )
    for flag, default, what in (
        ("--n-boot", metrics.N_BOOT, "bootstrap resamples"),
        ("--n-perm", metrics.N_PERM, "sign flips of the permutation test"),
    ):
        p.add_argument(
            flag, type=_positive, default=default, metavar="N", help=f"{what} (default {default})"
        )
    p.add_argument(
        "--alpha",
        type=_alpha,
        default=metrics.ALPHA,
        help=f"1 - interval level, and the level of '*' (default {metrics.ALPHA})",
    )
    p.add_argument(
        "--seed", type=int, default=0, metavar="S", help="seed of resamples and flips (default 0)"
    )
    p.add_argument("--all", action="store_true", help="print every score, not the F1-like ones")
    return p


def main(argv: list[str] | None = None) -> int:
    """``python -m evalkit.compare``: 0 with the comparison printed, 2 when a run is unreadable."""
    from evalkit.core.terminal import guard_console

    guard_console()  # page ids and labels are data: shown, never obeyed
    args = parser().parse_args(argv)
    wanted = [c.strip() for c in args.metrics.split(",") if c.strip()] if args.metrics else None
    try:
        cmp = compare_runs(
            args.run_a,
            args.run_b,
            scores=wanted,
            headline=args.headline,
            top=args.top,
            n_boot=args.n_boot,
            alpha=args.alpha,
            seed=args.seed,
            n_perm=args.n_perm,
        )
    except RunError as exc:
        print(f"{_PREFIX}: {exc}", file=sys.stderr)
        return 2
    print(console_text(cmp, all_rows=args.all or wanted is not None))
    if args.out is not None:
        paths = write_comparison(cmp, args.out)
        print(f"{_PREFIX}: wrote {', '.join(p.name for p in paths)} in {args.out}")
    return 0
