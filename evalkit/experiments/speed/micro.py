"""The micro-benchmark: TWC-PFM then the fingerprint on seeded Zipf-distributed blocks.

:func:`evalkit.proposed.twc_pfm` then :func:`evalkit.proposed.fingerprint`
on blocks of 500 to 20,000 terms (best of ``repeat`` runs, term-hash cache
cleared before each so hashing is always paid), with its growth exponent and
the issue's target (5,000 terms in at most 20 ms).
"""

from __future__ import annotations

from collections.abc import Iterable

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from evalkit.experiments import Context
from evalkit.experiments.speed.summary import growth_exponent
from evalkit.experiments.speed.timing import CLOCKS, peak_rss_mb
from evalkit.harness.summary import summary_row
from evalkit.report.plots import save
from evalkit.report.sections import Figure, Heading, Table
from evalkit.report.tables import write_table

#: block lengths (terms) of the TWC-PFM + fingerprint micro-benchmark
DEFAULT_LENGTHS = (500, 1000, 2000, 5000, 10000, 20000)
#: the issue's micro-benchmark target: this many terms in at most this many ms
TWC_PFM_TARGET_TERMS = 5000
TWC_PFM_TARGET_MS = 20.0
#: dataset and method labels of the micro-benchmark rows
MICRO_DATASET = "twc_pfm_bench"
MICRO_METHOD = "twc_pfm+fingerprint"


def zipf_terms(n: int, vocabulary: int = 5000, exponent: float = 1.0, seed: int = 0) -> list[str]:
    """``n`` seeded terms drawn with P(rank r) proportional to r^-exponent (word-like frequencies)."""
    rng = np.random.default_rng(seed)
    p = np.arange(1, vocabulary + 1, dtype=float) ** -exponent
    ranks = rng.choice(vocabulary, size=n, p=p / p.sum())
    return [f"term{r}" for r in ranks.tolist()]


def twc_pfm_benchmark(
    lengths: Iterable[int] = DEFAULT_LENGTHS,
    repeat: int = 5,
    vocabulary: int = 5000,
    exponent: float = 1.0,
    seed: int = 0,
    clock: str = "cpu",
) -> pd.DataFrame:
    """Best-of-``repeat`` ms of ``fingerprint(twc_pfm(terms))`` for a seeded block of each length.

    The best run is the estimate (the others include interference from
    elsewhere); ``ms_worst`` is kept to show the spread.
    """
    from evalkit.proposed import fingerprint, twc_pfm
    from evalkit.proposed.dedup import term_hash

    tick = CLOCKS[clock]
    fingerprint(twc_pfm(zipf_terms(300, vocabulary, exponent, seed)))  # warm up both code paths
    rows = []
    for n in lengths:
        terms = zipf_terms(int(n), vocabulary, exponent, seed + int(n))
        runs = []
        for _ in range(repeat):
            term_hash.cache_clear()  # pay for hashing every time, as a block of new terms would
            t0 = tick()
            fingerprint(twc_pfm(terms))
            runs.append((tick() - t0) * 1000)
        rows.append(
            {
                "n_terms": int(n),
                "n_distinct": len(set(terms)),
                "ms": min(runs),
                "ms_worst": max(runs),
            }
        )
    return pd.DataFrame(rows)


def _micro_rows(bench: pd.DataFrame, repeat: int) -> list[dict]:
    rows = [
        summary_row(MICRO_DATASET, MICRO_METHOD, f"twc_pfm_ms_{r.n_terms}", r.ms, n_pages=repeat)
        for r in bench.itertuples()
    ]
    b = growth_exponent(bench["n_terms"], bench["ms"])
    at = bench.loc[bench["n_terms"] == TWC_PFM_TARGET_TERMS, "ms"]
    if len(at):
        value = float(at.iloc[0])
    else:  # not measured at the target length: read it off the fitted power law
        lx, ly = np.log(bench["n_terms"]), np.log(bench["ms"])
        value = float(np.exp(ly.mean() + b * (np.log(TWC_PFM_TARGET_TERMS) - lx.mean())))
    rows.append(
        summary_row(
            MICRO_DATASET, MICRO_METHOD, f"twc_pfm_ms_{TWC_PFM_TARGET_TERMS}", value, n_pages=repeat
        )
    )
    rows.append(summary_row(MICRO_DATASET, MICRO_METHOD, "growth_exponent", b, n_pages=len(bench)))
    rows.append(
        summary_row(MICRO_DATASET, MICRO_METHOD, "target_ms", TWC_PFM_TARGET_MS, n_pages=repeat)
    )
    rows.append(
        summary_row(
            MICRO_DATASET,
            MICRO_METHOD,
            "meets_target",
            float(value <= TWC_PFM_TARGET_MS),
            n_pages=repeat,
        )
    )
    # drop a duplicate row when the target length is also one of the lengths
    seen, out = set(), []
    for r in rows:
        if r["metric"] not in seen:
            seen.add(r["metric"])
            out.append(r)
    return out


def micro_task(
    lengths: list[int],
    *,
    repeat: int = 5,
    vocabulary: int = 5000,
    exponent: float = 1.0,
    seed: int = 0,
    clock: str = "cpu",
) -> tuple[pd.DataFrame, float]:
    """The runner task of the micro-benchmark: :func:`twc_pfm_benchmark` and the peak memory
    of the process that ran it."""
    return (twc_pfm_benchmark(lengths, repeat, vocabulary, exponent, seed, clock), peak_rss_mb())


def _micro_outputs(ctx: Context, bench, clock):
    b = growth_exponent(bench["n_terms"], bench["ms"])
    # strings, so the markdown shows 5000 rather than 5000.0
    table = pd.DataFrame(
        {
            "n_terms": bench["n_terms"].map(str),
            "n_distinct": bench["n_distinct"].map(str),
            "ms": bench["ms"].map("{:.2f}".format),
            "ms_worst": bench["ms_worst"].map("{:.2f}".format),
        }
    )
    caption = (
        f"TWC-PFM + fingerprint ({'CPU' if clock == 'cpu' else 'wall'} ms, best of "
        f"runs) by block length; growth exponent {b:.2f}; target <= "
        f"{TWC_PFM_TARGET_MS:g} ms at {TWC_PFM_TARGET_TERMS} terms"
    )
    write_table(table, ctx.out / "tables" / "speed_twc_pfm", caption=caption)
    _micro_figure(bench, b, ctx.out / "figures" / "speed_twc_pfm", clock)
    ctx.report += [
        Heading("TWC-PFM + fingerprint micro-benchmark"),
        Table(table, lead=f"**{caption}**", gap=False),
        Figure("figures/speed_twc_pfm.png", "TWC-PFM"),
    ]


def _micro_figure(bench, b, stem, clock):
    x, y = bench["n_terms"].to_numpy(float), bench["ms"].to_numpy(float)
    spread = np.vstack([np.zeros_like(y), bench["ms_worst"].to_numpy(float) - y])
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    ax.errorbar(
        x, y, yerr=spread, fmt="o", capsize=3, label="best of runs (bar: up to the slowest run)"
    )
    lx, ly = np.log(x), np.log(y)
    grid = np.linspace(lx.min(), lx.max(), 20)
    ax.plot(
        np.exp(grid),
        np.exp(ly.mean() + b * (grid - lx.mean())),
        "-",
        label=f"fit: time ~ terms^{b:.2f}",
    )
    ax.plot(
        [TWC_PFM_TARGET_TERMS],
        [TWC_PFM_TARGET_MS],
        "rv",
        ms=9,
        label=f"target: <= {TWC_PFM_TARGET_MS:g} ms at {TWC_PFM_TARGET_TERMS} terms",
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("block length (terms, log scale)")
    ax.set_ylabel(
        f"TWC-PFM + fingerprint time ({'CPU' if clock == 'cpu' else 'wall'} ms, log scale)"
    )
    ax.set_title("TWC-PFM + fingerprint on seeded Zipf blocks")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    return save(fig, stem)
