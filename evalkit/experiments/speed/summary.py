"""From one data set's timings to summary rows: medians, ratios to the parse, growth exponents.

Per method (and the parse floor, and the pure-Python floor): median and 90th
percentile ms/page, pages per second, the ratio of its median to the median
parse time, and the growth exponent ``b`` of ``time ~ bytes^b`` (least
squares on logs), each with a seeded page-bootstrap interval; the issue's
targets; and where the time goes for methods that time their own steps.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from evalkit import metrics
from evalkit.experiments.speed.timing import PARSE_LABEL, PY_WALK_LABEL, STEP_PREFIX
from evalkit.harness.summary import summary_row
from evalkit.report.tables import wide_table

#: the issue's targets: method label -> largest allowed ratio of median time to median parse
DEFAULT_TARGETS = {"proposed": 3.0, "cetd": 3.0, "pab": 3.0, "justext_style": 3.0}
TABLE_METRICS = [
    "ms_median",
    "ms_p90",
    "pages_per_s",
    "ratio_to_parse",
    "growth_exponent",
    "target_ratio",
    "meets_target",
]


def growth_exponent(sizes: Iterable[float], times: Iterable[float]) -> float:
    """Slope ``b`` of the least-squares line through (log size, log time); NaN if undefined.

    ``time ~ size^b``: 1 is linear growth, 2 quadratic. Pairs with a
    non-positive size or time are left out (the log is undefined).
    """
    x = np.asarray(list(sizes), dtype=float)
    y = np.asarray(list(times), dtype=float)
    ok = (x > 0) & (y > 0) & np.isfinite(x) & np.isfinite(y)
    return _slope(np.log(x[ok]), np.log(y[ok]))


def _slope(lx: np.ndarray, ly: np.ndarray) -> float:
    if lx.size < 2:
        return float("nan")
    dx = lx - lx.mean()
    var = float(dx @ dx)
    return float(dx @ (ly - ly.mean()) / var) if var > 0 else float("nan")


def summarize(
    per_page: pd.DataFrame,
    dataset: str,
    targets: dict[str, float] | None = None,
    n_boot: int = 1000,
    alpha: float = 0.05,
    seed: int = 0,
) -> pd.DataFrame:
    """Long-format rows per method (and the parse floor, and the pure-Python floor when the
    pages have ``walk_ms``) of one data set's timings."""
    targets = DEFAULT_TARGETS if targets is None else targets
    boot = {"n_boot": n_boot, "alpha": alpha, "seed": seed}
    rows = []
    first = per_page.drop_duplicates("page_id")
    parsed = first[first["parse_ms"].notna()]
    series = [
        (
            PARSE_LABEL,
            parsed["parse_ms"].to_numpy(float),
            parsed["parse_ms"].to_numpy(float),
            parsed["n_bytes"].to_numpy(float),
            len(first) - len(parsed),
        )
    ]
    if "walk_ms" in first and first["walk_ms"].notna().any():
        walked = first[first["parse_ms"].notna() & first["walk_ms"].notna()]
        parse = walked["parse_ms"].to_numpy(float)
        series.append(
            (
                PY_WALK_LABEL,
                parse + walked["walk_ms"].to_numpy(float),
                parse,
                walked["n_bytes"].to_numpy(float),
                len(first) - len(walked),
            )
        )
    for method, df in per_page.groupby("method", sort=False):
        # a page lxml cannot parse has no floor to compare with; methods fail on it anyway
        ok = df[df["error"].isna() & df["ms"].notna() & df["parse_ms"].notna()]
        series.append(
            (
                method,
                ok["ms"].to_numpy(float),
                ok["parse_ms"].to_numpy(float),
                ok["n_bytes"].to_numpy(float),
                len(df) - len(ok),
            )
        )
    for method, ms, parse, size, failed in series:
        n = len(ms)
        rows.append(summary_row(dataset, method, "failures", failed, n_pages=n + failed))
        if n == 0:
            continue
        rows.append(
            summary_row(
                dataset,
                method,
                "ms_median",
                np.median(ms),
                *metrics.bootstrap_ci(ms, np.median, **boot),
                n,
            )
        )
        rows.append(
            summary_row(
                dataset,
                method,
                "ms_p90",
                np.percentile(ms, 90),
                *metrics.bootstrap_ci(ms, lambda x: np.percentile(x, 90), **boot),
                n,
            )
        )
        rows.append(
            summary_row(dataset, method, "ms_mean", ms.mean(), *metrics.bootstrap_ci(ms, **boot), n)
        )
        per_s = lambda x: 1000.0 / x.mean() if x.sum() > 0 else np.nan
        rows.append(
            summary_row(
                dataset,
                method,
                "pages_per_s",
                per_s(ms),
                *metrics.bootstrap_ci(ms, per_s, **boot),
                n,
            )
        )
        ratio = lambda a, b: np.median(a) / np.median(b)
        rows.append(
            summary_row(
                dataset,
                method,
                "ratio_to_parse",
                ratio(ms, parse),
                *metrics.bootstrap_ci_pages([ms, parse], ratio, **boot),
                n,
            )
        )
        pos = (ms > 0) & (size > 0)
        lx, ly = np.log(size[pos]), np.log(ms[pos])
        rows.append(
            summary_row(
                dataset,
                method,
                "growth_exponent",
                _slope(lx, ly),
                *metrics.bootstrap_ci_pages([lx, ly], _slope, **boot),
                int(pos.sum()),
            )
        )
        if method in targets:
            rows.append(summary_row(dataset, method, "target_ratio", targets[method], n_pages=n))
            rows.append(
                summary_row(
                    dataset,
                    method,
                    "meets_target",
                    float(ratio(ms, parse) <= targets[method]),
                    n_pages=n,
                )
            )
    steps = step_table(per_page)
    for r in steps.itertuples():
        ok = per_page[(per_page["method"] == r.method) & per_page["error"].isna()]
        values = ok[f"{STEP_PREFIX}{r.step}"].dropna().to_numpy(float)
        rows.append(
            summary_row(
                dataset,
                r.method,
                f"{STEP_PREFIX}{r.step}_ms_mean",
                r.ms_mean,
                *metrics.bootstrap_ci(values, **boot),
                len(values),
            )
        )
    return pd.DataFrame(rows)


def step_table(per_page: pd.DataFrame) -> pd.DataFrame:
    """Where the time goes: per method that times its own steps and per step (in the order
    the method reports them), mean and median ms over the pages it did not fail on, and
    the step's share of the sum of its steps' means."""
    cols = [c for c in per_page.columns if c.startswith(STEP_PREFIX)]
    out = []
    ok = per_page[per_page["error"].isna()]
    for method, df in ok.groupby("method", sort=False):
        means = {c: df[c].mean() for c in cols if df[c].notna().any()}
        total = sum(means.values())
        for c, mean in means.items():
            out.append(
                {
                    "method": method,
                    "step": c[len(STEP_PREFIX) :],
                    "ms_mean": mean,
                    "ms_median": df[c].median(),
                    "share": mean / total if total > 0 else float("nan"),
                }
            )
    return pd.DataFrame(out, columns=["method", "step", "ms_mean", "ms_median", "share"])


def speed_table(summary: pd.DataFrame, dataset: str) -> pd.DataFrame:
    """Rows = parse floor, pure-Python floor, then methods; cells ``value [CI]``; the target
    check as yes/no."""
    table = wide_table(summary, TABLE_METRICS, dataset=dataset, digits=2)
    sub = summary[(summary["dataset"] == dataset) & (summary["metric"] == "meets_target")]
    meets = dict(zip(sub["method"], sub["value"]))
    table["meets_target"] = [
        ("yes" if meets[m] else "no") if m in meets else "-" for m in table["method"]
    ]
    return table
