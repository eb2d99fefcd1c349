"""The ``dedup`` experiment: near-duplicate detectors scored on block pairs.

Saravanan & Sathya Bama (2020, docs/papers.md#saravanan2020) compare their modified simhash
with Jaccard, MinHash and simhash (Experiment 2, Table 7, Fig. 8) by judging
whole pages by hand. This experiment scores the detectors directly, on the
pairs of blocks they call near duplicates (docs/methods/proposed.md#33-secondary-noise-removal and
docs/methods/detectors.md):

* **Blocks.** On a data set with planted duplicates (``synthetic``) the items
  are the planted block texts ``gold.block_texts`` and the truth is
  ``gold.duplicate_groups``. On real sets the items are the blocks of the
  proposed method's stage 1.1 (``evalkit.proposed.blocks``: div/td blocks,
  scripts dropped, empty blocks left out) and the truth is every pair whose
  word 3-shingle Jaccard similarity is at least ``theta`` (0.8). The truth's
  words are lowercase ``\\w+`` words holding a letter with no stop-word removal
  and no stemming, so it does not share the detectors' preprocessing.
* **Scopes.** ``page``: pairs inside one page. ``site``: the blocks of earlier
  pages of the same site (``evalkit.core.domains.site_of``: ``page.site``, else the
  URL's host) are candidates too; a cross-page pair is charged to its later page. On
  ``synthetic`` the site's template blocks (``gold.template_texts``:
  header, legal links, about blurb ..., identical on every page) join the
  items at site scope, and a cross-page pair is true when the two texts are
  identical; inside a page the gold groups stay the truth.
* **Prediction.** A pair is predicted when the detector's own ``similar``
  holds for the two fingerprints: the detector's relation over all pairs,
  not the greedy keep-the-first removal of ``find_duplicates`` (whose effect
  the ``saravanan2020`` study measures inside the pipeline). Candidate pairs
  are narrowed without changing the answer where that is exact: Hamming
  distances in numpy for integer fingerprints, a prefix filter for sets
  (Jaccard), all pairs otherwise; MinHash at site scope uses its LSH
  ``candidates`` (``dedup.minhash_lsh``), which can miss a pair.
* **Scores** per (data set, detector, scope): pair precision, recall and F1
  over the pooled pairs (``metrics.pair_prf`` counts), the share of pages
  whose pair set is exactly right (``pages_exact``), and the share of blocks
  whose set of duplicates is exactly right (``blocks_exact``, as
  ``metrics.exact_set_accuracy``), each with a seeded page bootstrap interval.
  Fingerprinting and comparison times go to ``per_page.csv`` and a timing
  table, never to ``summary.csv`` (reruns must compare byte for byte); a
  warm-up pass fills the stemming and hashing caches first, so the order in
  which detectors run does not change their times.

Departures from the paper: the paper judges pages by eye after the whole
pipeline; here detectors are scored on pairs against planted or
shingle-defined truth, so the numbers are not comparable with its Table 7.
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from evalkit import metrics
from evalkit.core.text import shingles, terms
from evalkit.experiments import Context
from evalkit.harness.summary import summary_row
from evalkit.report.filenames import file_stem

__all__ = [
    "DEFAULT_SHINGLE",
    "DEFAULT_THETA",
    "SCOPES",
    "TABLE_METRICS",
    "PageBlocks",
    "detector_pairs",
    "page_blocks",
    "run",
    "score_site",
    "score_site_task",
    "set_pairs",
    "shingle_set",
    "summarize",
]

#: truth on real sets: word-shingle Jaccard at or above this is a near duplicate
DEFAULT_THETA = 0.8
#: word shingle length of the truth
DEFAULT_SHINGLE = 3
SCOPES = ("page", "site")
TABLE_METRICS = ("pair_precision", "pair_recall", "pair_f1", "pages_exact", "blocks_exact")
# how the figures name TABLE_METRICS
_BAR_LABELS = (
    "pair precision",
    "pair recall",
    "pair F1",
    "pages exactly right",
    "blocks exactly right",
)
_HAMMING_ROWS = 512  # rows of the pairwise XOR matrix computed at once (memory bound)
_CELLS = 8_000_000  # signature values compared at once for MinHash (memory bound)


@dataclass
class PageBlocks:
    """The items of one page and the true pairs among them (local indices)."""

    page_id: str
    site: str
    texts: list[str]
    true_pairs: set[tuple[int, int]]
    truth: str  # "gold" or "shingles"
    template: list[str] = field(default_factory=list)  # site-scope extras (synthetic)


def shingle_set(text: str, n: int = DEFAULT_SHINGLE) -> frozenset:
    """Word n-shingles of a text for the truth: lowercase words, no stop list, no stemming."""
    return frozenset(shingles(terms(text, "none", "none"), n))


def _prefix_len(size: int, theta: float) -> int:
    # J(x, y) >= theta forces |x & y| >= ceil(theta * |x|), so x and y share a token
    # among the first size - ceil(theta * size) + 1 of x in any fixed global order
    return size - math.ceil(theta * size - 1e-12) + 1


def set_pairs(
    sets: Sequence[frozenset | None],
    theta: float,
    allowed: Callable[[int, int], bool] | None = None,
) -> set[tuple[int, int]]:
    """All pairs (i, j), i < j, of non-empty sets with Jaccard >= ``theta`` (exact).

    Candidates come from a prefix filter (tokens ordered rare-first), which
    cannot lose a pair for ``theta`` > 0; each candidate is then checked exactly.
    """
    if not 0 < theta <= 1:
        raise ValueError(f"theta must be in (0, 1], got {theta!r}")
    freq = Counter(t for s in sets if s for t in s)
    index: dict[Any, list[int]] = defaultdict(list)
    cands: set[tuple[int, int]] = set()
    for j, s in enumerate(sets):
        if not s:
            continue
        ordered = sorted(s, key=lambda t: (freq[t], repr(t)))
        for tok in ordered[: _prefix_len(len(s), theta)]:
            for i in index[tok]:
                cands.add((i, j))
            index[tok].append(j)
    out = set()
    for i, j in cands:
        if allowed is not None and not allowed(i, j):
            continue
        a, b = sets[i], sets[j]
        if len(a & b) >= theta * len(a | b) - 1e-12:
            out.add((i, j))
    return out


def _int_candidates(fps: Sequence[int | None], k: int) -> set[tuple[int, int]]:
    """Pairs of 64-bit-or-narrower fingerprints within Hamming distance ``k`` (numpy)."""
    idx = [i for i, f in enumerate(fps) if f is not None]
    if len(idx) < 2:
        return set()
    arr = np.array([fps[i] for i in idx], dtype=np.uint64)
    out = set()
    for lo in range(0, len(arr), _HAMMING_ROWS):
        block = np.bitwise_count(arr[lo : lo + _HAMMING_ROWS, None] ^ arr[None, :])
        rows, cols = np.nonzero(block <= k)
        for r, c in zip(rows.tolist(), cols.tolist()):
            a, b = idx[lo + r], idx[c]
            if a < b:
                out.add((a, b))
    return out


def _minhash_candidates(sigs: Sequence[Any], threshold: float) -> set[tuple[int, int]]:
    """Pairs whose share of equal MinHash values is >= threshold (numpy, same estimate)."""
    idx = [i for i, f in enumerate(sigs) if f is not None]
    hv = np.array([sigs[i].hashvalues for i in idx])
    out = set()
    step = max(1, _CELLS // max(hv.size, 1))
    for lo in range(0, len(hv), step):
        share = (hv[lo : lo + step, None, :] == hv[None, :, :]).mean(axis=2)
        rows, cols = np.nonzero(share >= threshold - 1e-9)
        out |= {
            (idx[lo + r], idx[c])
            for r, c in zip(rows.tolist(), cols.tolist())
            if idx[lo + r] < idx[c]
        }
    return out


def detector_pairs(
    det,
    fps: Sequence[Any],
    allowed: Callable[[int, int], bool] | None = None,
    use_lsh: bool = False,
) -> set[tuple[int, int]]:
    """Pairs (i, j), i < j, whose fingerprints the detector calls similar.

    ``None`` fingerprints (blocks without terms) are never compared. Every
    returned pair is confirmed with ``det.similar``; the candidate step only
    saves work (exactly, except the LSH of MinHash when ``use_lsh``): numpy
    Hamming distances for integer fingerprints, a prefix filter for feature
    sets, numpy equal-value shares for MinHash signatures, else all pairs.
    """
    present = [f for f in fps if f is not None]
    if len(present) < 2:
        return set()
    if use_lsh and hasattr(det, "candidates"):
        cands = det.candidates(list(fps))
    elif (
        all(isinstance(f, int) and not isinstance(f, bool) for f in present)
        and isinstance(getattr(det, "k", None), int)
        and getattr(det, "bits", 0) <= 64
    ):
        cands = _int_candidates(fps, det.k)
    elif all(isinstance(f, frozenset) for f in present) and getattr(det, "threshold", 0) > 0:
        cands = set_pairs(fps, det.threshold)
    elif all(hasattr(f, "hashvalues") for f in present) and hasattr(det, "threshold"):
        cands = _minhash_candidates(fps, det.threshold)
    else:
        live = [i for i, f in enumerate(fps) if f is not None]
        cands = set(itertools.combinations(live, 2))
    return {
        (i, j)
        for i, j in cands
        if (allowed is None or allowed(i, j)) and det.similar(fps[i], fps[j])
    }


def _site_key(page) -> str:
    from evalkit.core.domains import site_of

    return site_of(page) or page.id  # a page without a site is a site of its own


def page_blocks(page, truth: str = "auto") -> PageBlocks:
    """Items of a page: the planted blocks (gold truth) or stage 1.1 blocks (shingle truth).

    ``truth``: ``auto`` uses the gold groups when the page has them, ``gold``
    requires them, ``shingles`` always uses stage 1.1 blocks (the true pairs
    are then filled in by :func:`score_site`).
    """
    if truth not in ("auto", "gold", "shingles"):
        raise ValueError(f"truth must be auto, gold or shingles, got {truth!r}")
    gold = page.gold
    has_gold = gold.duplicate_groups is not None and gold.block_texts is not None
    if truth == "gold" and not has_gold:
        raise ValueError(f"page {page.id} has no planted duplicate groups; use truth=shingles")
    site = _site_key(page)
    if has_gold and truth != "shingles":
        return PageBlocks(
            page.id,
            site,
            list(gold.block_texts),
            metrics.pairs_from_groups(gold.duplicate_groups),
            "gold",
            list(gold.template_texts or []),
        )
    from evalkit.proposed.blocks import block_text, drop_scripts, separate_blocks

    root = drop_scripts(page.tree())
    texts = [t for t in (block_text(b) for b in separate_blocks(root)) if terms(t, "none", "none")]
    return PageBlocks(page.id, site, texts, set(), "shingles")


@dataclass
class _SiteItems:
    texts: list[str]
    page_of: list[int]  # position of the item's page in the site
    true: set[tuple[int, int]]


def _site_items(pages: list[PageBlocks], scope: str, theta: float, shingle_n: int) -> _SiteItems:
    texts, page_of, true = [], [], set()
    for p, pb in enumerate(pages):
        base = len(texts)
        own = list(pb.texts)
        if scope == "site" and pb.truth == "gold":
            own += pb.template
        texts += own
        page_of += [p] * len(own)
        if pb.truth == "gold":
            true |= {(base + i, base + j) for i, j in pb.true_pairs}
    same = (lambda i, j: page_of[i] == page_of[j]) if scope == "page" else None
    if pages and pages[0].truth == "shingles":
        true = set_pairs([shingle_set(t, shingle_n) for t in texts], theta, same)
    elif scope == "site":
        # gold sets: across pages, identical texts are duplicates; inside a page the groups rule
        by_text: dict[str, list[int]] = defaultdict(list)
        for i, t in enumerate(texts):
            by_text[" ".join(t.split())].append(i)
        for group in by_text.values():
            true |= {
                (i, j) for i, j in itertools.combinations(group, 2) if page_of[i] != page_of[j]
            }
    return _SiteItems(texts, page_of, true)


def _neighbours(pairs: set[tuple[int, int]]) -> dict[int, set[int]]:
    nb: dict[int, set[int]] = defaultdict(set)
    for i, j in pairs:
        nb[i].add(j)
        nb[j].add(i)
    return nb


def score_site(
    pages: list[PageBlocks],
    det,
    scope: str,
    theta: float = DEFAULT_THETA,
    shingle_n: int = DEFAULT_SHINGLE,
    use_lsh: bool = False,
) -> list[dict[str, Any]]:
    """Per-page records of one detector at one scope over the pages of one site.

    A pair is charged to the page of its later item. ``blocks_right`` counts
    the page's items whose whole duplicate set (in the scope) is right.
    """
    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {SCOPES}, got {scope!r}")
    items = _site_items(pages, scope, theta, shingle_n)
    fps, fp_seconds = [], [0.0] * len(pages)
    for text, p in zip(items.texts, items.page_of):
        t0 = time.perf_counter()
        fps.append(det.fingerprint(text))
        fp_seconds[p] += time.perf_counter() - t0
    same = (lambda i, j: items.page_of[i] == items.page_of[j]) if scope == "page" else None
    t0 = time.perf_counter()
    pred = detector_pairs(det, fps, same, use_lsh=use_lsh and scope == "site")
    compare = (time.perf_counter() - t0) / max(len(pages), 1)
    pred_nb, true_nb = _neighbours(pred), _neighbours(items.true)
    by_page_pred: dict[int, set] = defaultdict(set)
    by_page_true: dict[int, set] = defaultdict(set)
    for pair in pred:
        by_page_pred[items.page_of[pair[1]]].add(pair)
    for pair in items.true:
        by_page_true[items.page_of[pair[1]]].add(pair)
    right = Counter(
        p for i, p in enumerate(items.page_of) if pred_nb.get(i, set()) == true_nb.get(i, set())
    )
    n_items = Counter(items.page_of)
    records = []
    for p, pb in enumerate(pages):
        pp, tp_ = by_page_pred[p], by_page_true[p]
        tp = len(pp & tp_)
        records.append(
            {
                "page_id": pb.page_id,
                "site": pb.site,
                "scope": scope,
                "truth": pb.truth,
                "n_items": n_items[p],
                "n_true_pairs": len(tp_),
                "n_pred_pairs": len(pp),
                "pair_tp": tp,
                "pair_fp": len(pp) - tp,
                "pair_fn": len(tp_) - tp,
                "exact": float(pp == tp_),
                "blocks_right": right[p],
                "seconds_fingerprint": fp_seconds[p],
                "seconds_compare": compare,
            }
        )
    return records


def summarize(
    per_page: pd.DataFrame,
    dataset: str,
    n_boot: int = metrics.N_BOOT,
    alpha: float = metrics.ALPHA,
    seed: int = 0,
) -> pd.DataFrame:
    """Long-format rows ``<metric>_<scope>`` per detector, with page-bootstrap intervals."""
    boot = functools.partial(metrics.bootstrap_ci_pages, n_boot=n_boot, alpha=alpha, seed=seed)
    rows = []
    for (det, scope), df in per_page.groupby(["method", "scope"], sort=False):
        n = len(df)
        counts = df[["pair_tp", "pair_fp", "pair_fn"]].to_numpy(float).T
        prf = metrics.prf_from_counts(*counts.sum(axis=1))
        for key in ("precision", "recall", "f1"):
            ci = boot(
                counts,
                lambda tp, fp, fn, key=key: getattr(
                    metrics.prf_from_counts(tp.sum(), fp.sum(), fn.sum()), key
                ),
            )
            rows.append(summary_row(dataset, det, f"pair_{key}_{scope}", getattr(prf, key), *ci, n))
        exact = df["exact"].to_numpy(float)
        rows.append(
            summary_row(
                dataset,
                det,
                f"pages_exact_{scope}",
                float(exact.mean()),
                *metrics.bootstrap_ci(exact, n_boot=n_boot, alpha=alpha, seed=seed),
                n,
            )
        )
        rb = df[["blocks_right", "n_items"]].to_numpy(float).T
        share = rb[0].sum() / rb[1].sum() if rb[1].sum() else math.nan
        ci = boot(rb, lambda r, m: r.sum() / m.sum() if m.sum() else math.nan)
        rows.append(summary_row(dataset, det, f"blocks_exact_{scope}", share, *ci, n))
    return pd.DataFrame(rows)


def _sites(pages):
    """Consecutive runs of pages of one site (``_site_key``; a site split by other pages
    restarts): the tasks of the experiment."""
    for _, group in itertools.groupby(pages, key=_site_key):
        yield list(group)


def score_site_task(pages, *, specs, scopes, truth, theta, shingle_n, use_lsh) -> dict[str, Any]:
    """The task the runner maps over a data set's sites (one site's consecutive pages): the
    items of every page, then each detector at each scope over them.

    Returns ``records`` (per (detector, scope), the per-page records of
    :func:`score_site`), ``failures`` (pages whose items could not be read) and
    the number of pages and their truth. Module level, so workers can run it.
    """
    blocks, failures = [], []
    for page in pages:
        try:
            blocks.append(page_blocks(page, truth))
        except Exception as exc:  # noqa: BLE001 - a bad page is recorded, the run goes on
            failures.append(
                {
                    "dataset": page.dataset,
                    "page": page.id,
                    "method": "dedup_blocks",
                    "error": f"{type(exc).__name__}: {exc}"[:500],
                }
            )
    detectors = [(s.label, s.build()) for s in specs]
    records: dict[tuple[str, str], list[dict[str, Any]]] = {}
    if blocks:
        _warm_caches(blocks, detectors)
        for name, det in detectors:
            for scope in scopes:
                records[(name, scope)] = score_site(blocks, det, scope, theta, shingle_n, use_lsh)
    return {
        "records": records,
        "failures": failures,
        "n_pages": len(blocks),
        "truth": blocks[0].truth if blocks else None,
    }


def run(ctx: Context) -> pd.DataFrame | None:
    from evalkit.harness.config import method_specs
    from evalkit.report.plots import bar_prf
    from evalkit.report.sections import Figure, Heading, Table, Text
    from evalkit.report.tables import wide_table, write_table

    opts = ctx.section("dedup")
    scopes = list(opts.get("scopes", SCOPES))
    theta = float(opts.get("theta", DEFAULT_THETA))
    shingle_n = int(opts.get("shingle", DEFAULT_SHINGLE))
    use_lsh = bool(opts.get("minhash_lsh", True))
    n_boot, alpha = int(opts.get("n_boot", metrics.N_BOOT)), float(opts.get("alpha", metrics.ALPHA))
    specs = method_specs(ctx.section("detector"), kind="detector")
    task = functools.partial(
        score_site_task,
        specs=specs,
        scopes=scopes,
        truth=opts.get("truth", "auto"),
        theta=theta,
        shingle_n=shingle_n,
        use_lsh=use_lsh,
    )
    summaries = []
    for label, ds in ctx.datasets.items():
        # the bar counts pages (a site's pages, read or failed) of the reader's page total
        results = list(
            ctx.runner.map(
                task,
                _sites(ds.pages()),
                desc=f"dedup {label}",
                total=ds.page_count(),
                unit="page",
                count=lambda r: r["n_pages"] + len(r["failures"]),
            )
        )
        for res in results:
            ctx.failures.extend(res["failures"])
        n_pages = sum(res["n_pages"] for res in results)
        if not n_pages:
            continue
        # detector, then scope, then site and page: the order of the records, whatever ran where
        records = [
            {"experiment": "dedup", "dataset": label, "method": name, **rec}
            for name in (s.label for s in specs)
            for scope in scopes
            for res in results
            for rec in res["records"].get((name, scope), [])
        ]
        per_page = pd.DataFrame.from_records(records)
        ctx.per_page.append(per_page)
        summary = summarize(per_page, label, n_boot, alpha, ctx.seed)
        summaries.append(summary)
        truth = next(res["truth"] for res in results if res["truth"])
        ctx.report += [
            Heading(f"Near-duplicate detection on {label}"),
            Text(f"Truth: {_truth_note(truth, theta, shingle_n)}; {n_pages} pages."),
        ]
        for scope in scopes:
            cols = [f"{m}_{scope}" for m in TABLE_METRICS]
            table = wide_table(summary, cols, dataset=label)
            n_true = int(
                per_page[(per_page["scope"] == scope) & (per_page["method"] == specs[0].label)][
                    "n_true_pairs"
                ].sum()
            )
            stem = f"dedup_{file_stem(label)}_{scope}"
            write_table(
                table,
                ctx.out / "tables" / stem,
                caption=f"Near duplicates on {label}, {scope} scope ({n_true} true pairs; "
                f"truth: {_truth_note(truth, theta, shingle_n)}): "
                f"mean [95% bootstrap CI over pages]",
            )
            bar_prf(
                summary,
                ctx.out / "figures" / stem,
                label,
                metrics=tuple(cols),
                labels=_BAR_LABELS,
                xlabel="near-duplicate detector",
                title=f"{label}: near-duplicate pairs, {scope} scope ({n_true} true pairs)",
            )
            ctx.report += [
                Heading(f"{scope} scope ({n_true} true pairs)", level=3),
                Table(table, gap=False),
                Figure(f"figures/{stem}.png", scope),
            ]
        timing = _timing(per_page)
        write_table(
            timing,
            ctx.out / "tables" / f"dedup_{file_stem(label)}_timing",
            caption=f"Detector time on {label}, milliseconds per page (this machine)",
        )
        ctx.report += [Heading("Time per page", level=3), Table(timing)]
    return pd.concat(summaries, ignore_index=True) if summaries else None


def _warm_caches(pages: list[PageBlocks], detectors) -> None:
    """Fill the stemming and term-hash caches once, so no detector pays for them in its
    timing (whichever ran first would otherwise): the modified simhash hashes a short
    block's terms through ``term_hash`` and a long block's through the term table of
    ``fingerprints``, each per fingerprint width."""
    from evalkit.proposed.dedup import ModifiedSimhash, fingerprints, term_hash

    widths = sorted({d.bits for _, d in detectors if isinstance(d, ModifiedSimhash)})
    for pb in pages:
        lists = [terms(text) for text in itertools.chain(pb.texts, pb.template)]
        for bits in widths:
            for t in itertools.chain.from_iterable(lists):
                term_hash(t, bits)
            fingerprints(lists, bits)


def _truth_note(truth: str, theta: float, n: int) -> str:
    if truth == "gold":
        return "planted duplicate groups (site scope: identical template blocks across pages)"
    return f"word {n}-shingle Jaccard >= {theta} between stage 1.1 blocks"


def _timing(per_page: pd.DataFrame) -> pd.DataFrame:
    g = per_page.groupby(["method", "scope"], sort=False)
    out = g.agg(
        fingerprint_ms=("seconds_fingerprint", "mean"),
        compare_ms=("seconds_compare", "mean"),
        items=("n_items", "mean"),
    ).reset_index()
    out[["fingerprint_ms", "compare_ms"]] *= 1000.0
    out["total_ms"] = out["fingerprint_ms"] + out["compare_ms"]
    return out.round({"fingerprint_ms": 3, "compare_ms": 3, "total_ms": 3, "items": 1})
