"""The size ladder: generated pages of growing element counts, wide and deep.

Each method is timed on pages of 1,000 to 1,000,000 elements besides one
article of main text, as siblings (``wide``) or as nesting (``deep``), and the
growth exponent of time ~ elements^b says how it scales (1 = linear).
"""

from __future__ import annotations

import pandas as pd

from evalkit.core.page import MAX_DEPTH, Gold, Page
from evalkit.experiments import Context
from evalkit.experiments.speed.summary import growth_exponent
from evalkit.experiments.speed.timing import PARSE_LABEL, peak_rss_mb, time_pages
from evalkit.harness.specs import MethodSpec
from evalkit.harness.summary import summary_row
from evalkit.report.sections import Heading, Table
from evalkit.report.tables import write_table

#: the size ladder: generated pages of this many elements, in two shapes
LADDER_SIZES = (1_000, 10_000, 100_000, 1_000_000)
LADDER_SHAPES = ("wide", "deep")
#: nesting of one deep chain: under the parser's depth limit (past it the page is flattened)
LADDER_CHAIN = MAX_DEPTH - 100
_LADDER_MAIN = "Main text of the page, with words that a reader came for. " * 40


def ladder_page(n: int, shape: str) -> Page:
    """A generated page of ``n`` elements besides one article of main text (the gold).

    ``wide``: ``n`` sibling ``<span>`` elements in one ``<div>`` (the 1M-sibling
    hostile page of issue 14). ``deep``: chains of nested ``<div>``, each
    :data:`LADDER_CHAIN` deep with a word at every level, side by side until
    ``n`` elements.
    """
    if shape == "wide":
        noise = "<div>" + "<span>x</span>" * n + "</div>"
    elif shape == "deep":
        chains = []
        for start in range(0, n, LADDER_CHAIN):
            depth = min(LADDER_CHAIN, n - start)
            chains.append("<div>w " * depth + "</div>" * depth)
        noise = "".join(chains)
    else:
        raise ValueError(
            f"speed.ladder.shapes: unknown shape {shape!r}; known: {', '.join(LADDER_SHAPES)}"
        )
    html = f"<html><body><article><p>{_LADDER_MAIN}</p></article>{noise}</body></html>"
    return Page(
        id=f"{shape}_{n}",
        dataset="ladder",
        raw=html.encode(),
        gold=Gold(text=_LADDER_MAIN),
        site=shape,
    )


def ladder_task(
    sizes: list[int], *, shapes: list[str], specs: list[MethodSpec], clock: str = "cpu"
) -> tuple[pd.DataFrame, float]:
    """The runner task of the size ladder: each method timed on each generated page (built one
    at a time, so only one is held), rows with ``shape`` and ``n_elements``; and peak memory."""
    frames = []
    for shape in shapes:
        for n in sizes:
            page = ladder_page(int(n), shape)
            df = time_pages([page], specs, clock=clock, warmup=True, walk=False)
            df.insert(1, "shape", shape)
            df.insert(2, "n_elements", int(n))
            frames.append(df)
            del page
    return pd.concat(frames, ignore_index=True), peak_rss_mb()


def ladder_summary(per_page: pd.DataFrame) -> pd.DataFrame:
    """Growth exponent of time ~ elements^b per shape and method (the lxml parse as the floor)."""
    rows = []
    for shape, df in per_page.groupby("shape", sort=False):
        first = df.drop_duplicates("page_id")
        series = [(PARSE_LABEL, first)]
        series += [(m, d) for m, d in df.groupby("method", sort=False)]
        for method, d in series:
            col = "parse_ms" if method == PARSE_LABEL else "ms"
            ok = d[d["error"].isna() & d[col].notna()] if col == "ms" else d[d[col].notna()]
            rows.append(
                summary_row(
                    f"ladder_{shape}",
                    method,
                    "growth_exponent",
                    growth_exponent(ok["n_elements"], ok[col]),
                    n_pages=len(ok),
                )
            )
            rows.append(
                summary_row(f"ladder_{shape}", method, "failures", len(d) - len(ok), n_pages=len(d))
            )
    return pd.DataFrame(rows)


def _ladder_outputs(ctx: Context, per_page: pd.DataFrame, summary: pd.DataFrame, clock: str):
    exps = {
        (r.dataset, r.method): r.value
        for r in summary.itertuples()
        if r.metric == "growth_exponent"
    }
    rows = []
    for (shape, method), d in per_page.groupby(["shape", "method"], sort=False):
        ms = dict(zip(d["n_elements"], d["ms"]))
        parse = dict(zip(d["n_elements"], d["parse_ms"]))
        rows.append(
            {
                "shape": shape,
                "method": method,
                **{f"ms@{n:,}": f"{ms[n]:.0f}" for n in ms},
                **{f"parse@{n:,}": f"{parse[n]:.0f}" for n in parse},
                "growth_exponent": f"{exps[(f'ladder_{shape}', method)]:.2f}",
            }
        )
    table = pd.DataFrame(rows)
    caption = (
        f"Size ladder ({'CPU' if clock == 'cpu' else 'wall'} ms of one run per page): "
        "generated pages by element count, wide (siblings) and deep (nesting), and the "
        "growth exponent b of time ~ elements^b (1 = linear)"
    )
    write_table(table, ctx.out / "tables" / "speed_ladder", caption=caption)
    ctx.report += [Heading("Size ladder"), Table(table, lead=f"**{caption}**")]
