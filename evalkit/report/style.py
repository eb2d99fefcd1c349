"""How a method, and a category, looks in every figure: one colour, marker, line style and hatch.

A method is drawn the same way in every figure of every run, whichever other methods are
beside it: its style is a function of its name alone, never of its place in a run's list.
The palette is colour-blind safe and has twelve colours: Okabe and Ito's eight (2008, "Color
Universal Design") and four of Paul Tol's "muted" set that none of them resembles (indigo,
wine, olive, teal). The methods evalkit knows (:data:`KNOWN`) take slots in a fixed order,
in rounds of twelve; each round draws the twelve colours again with the next marker, line
style and bar hatch, so no two known methods share a look. The rounds are laid out so that
the methods a configured run draws together (the default set, each study's set) never share
a colour (``tests/test_plot_style.py`` checks every ``configs/`` set). Any other name gets a
slot from a stable hash of the name (the same in every process, unlike ``hash``).

A category (a page type, a metric drawn as its own bar) has a style of its own, from the same
palette without black (:func:`category_style`): the categories evalkit knows
(:data:`CATEGORIES`, WCXB's seven page types first) take distinct colours in order, a twelfth
and later one a hatch as well, any other name a slot from its hash.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import pandas as pd

__all__ = [
    "CATEGORIES",
    "KNOWN",
    "OKABE_ITO",
    "PALETTE",
    "Style",
    "category_style",
    "default_order",
    "method_order",
    "method_style",
    "set_default_order",
]

#: how figures order methods when a caller names none (``report.method_order``)
ORDERS = ("score", "config")
_default_order = "score"


def set_default_order(order: str) -> None:
    """``report.method_order`` for the figures of this process: ``score`` or ``config``."""
    global _default_order
    if order not in ORDERS:
        raise ValueError(f"report.method_order must be 'score' or 'config', got {order!r}")
    _default_order = order


def default_order() -> str:
    return _default_order


#: Okabe-Ito: black, orange, sky blue, bluish green, yellow, blue, vermillion, reddish purple
OKABE_ITO = ("#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7")
#: Paul Tol's "muted" indigo, wine, olive and teal: the four of his colour-blind-safe sets
#: that stand apart from every Okabe-Ito colour
TOL_MUTED = ("#332288", "#882255", "#999933", "#44AA99")
#: the categorical palette of methods: twelve colours, one round of slots
PALETTE = OKABE_ITO + TOL_MUTED
#: categories: the palette without black (black is the error bars' and the text's colour)
CATEGORY_PALETTE = PALETTE[1:]
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", "-.", ":")
#: hatches of the rounds in bar figures: the first round plain, so a hatch (kept rare: it
#: makes an SVG large) appears only where a colour comes round again
HATCHES = ("", "///", "...", "xxx", "\\\\", "+++")

#: the method labels of evalkit's configs (configs/method/), in a fixed order of rounds of
#: twelve: round 1 the default set and Saravanan & Sathya Bama's methods, round 2 the peers
#: (each beside a round-1 method that no configured set draws with it), round 3 the rest.
#: A name's place fixes its style: add new names at the end.
KNOWN = (
    "proposed",
    "proposed@primary",
    "proposed@dedup",
    "cetd",
    "pab",
    "justext_style",
    "coreex",
    "econ",
    "tag_based",
    "existing1",
    "existing2",
    "vwrapper",
    "html_text",
    "boilerpy3",
    "goose3",
    "justext",
    "readability_lxml",
    "resiliparse",
    "fulltext",
    "trafilatura",
    "eniw",
    "target_entities",
    "cectd_s",
    "ecectd_s",
    "cetd@ds",
    "san_aye",
    "san_aye@cosine",
    "san_aye@importance",
    "proposed@bounded",
    "proposed@best_table4",
    # newspaper4k and inscriptis took empty's and stored's places when the wcxb and
    # trafilatura_eval studies began to run them beside the other peers (issue 40)
    "newspaper4k",
    "gold",
    "inscriptis",
    # placed so the structure study's ten methods get ten colours
    "meta_tags",
    "trafilatura_meta",
    "goose3_meta",
    "chromerag",
    "newspaper4k_meta",
    "htmldate",
    "stored",
    "empty",
    "trafilatura@precision",
    "trafilatura@recall",
    "trafilatura@fast",
)

#: the categories evalkit draws, in order: WCXB's page types (evalkit.readers.wcxb.PAGE_TYPES)
CATEGORIES = ("article", "forum", "product", "collection", "listing", "documentation", "service")


@dataclass(frozen=True)
class Style:
    """A method's look: ``colour`` (hex), ``marker``, ``linestyle`` and bar ``hatch``."""

    colour: str
    marker: str
    linestyle: str
    hatch: str

    def line(self) -> dict:
        """Keyword arguments of ``Axes.plot`` for the method's line."""
        return {"color": self.colour, "marker": self.marker, "linestyle": self.linestyle}


def _slot(name: str, known: tuple[str, ...]) -> int:
    if name in known:
        return known.index(name)
    # other names: a stable hash, past the known slots (so they rarely share a known look)
    return len(known) + zlib.crc32(name.encode("utf-8", "surrogatepass")) % 256


def method_style(name: str) -> Style:
    """The style of method ``name``: slot i has colour i mod 12 and round g = i // 12, whose
    line style and hatch it takes; the marker is (g + i) mod 8, so slots of one colour never
    share a marker either."""
    i = _slot(str(name), KNOWN)
    colour, round_ = i % len(PALETTE), i // len(PALETTE)
    return Style(
        PALETTE[colour],
        MARKERS[(round_ + i) % len(MARKERS)],
        LINESTYLES[round_ % len(LINESTYLES)],
        HATCHES[round_ % len(HATCHES)],
    )


def category_style(name: str) -> Style:
    """The style of category ``name`` (a page type, a bar of its own): colour i mod 11 of the
    palette without black, the hatch of round i // 11 (module docstring)."""
    i = _slot(str(name), CATEGORIES)
    colour, round_ = i % len(CATEGORY_PALETTE), i // len(CATEGORY_PALETTE)
    return Style(
        CATEGORY_PALETTE[colour],
        MARKERS[(round_ + i) % len(MARKERS)],
        LINESTYLES[round_ % len(LINESTYLES)],
        HATCHES[round_ % len(HATCHES)],
    )


def method_order(
    summary: pd.DataFrame, metric: str, methods: list[str] | None = None, order: str = "score"
) -> list[str]:
    """The methods of ``summary`` (rows of one data set) in the order figures draw them:
    ``score``, best ``metric`` value first (ties and methods without one in run order), or
    ``config``, the run's order."""
    methods = list(methods or dict.fromkeys(summary["method"]))
    if order == "config":
        return methods
    if order != "score":
        raise ValueError(f"report.method_order must be 'score' or 'config', got {order!r}")
    rows = summary[summary["metric"] == metric].drop_duplicates("method").set_index("method")
    value = rows["value"].reindex(methods).astype(float)
    rank = {m: i for i, m in enumerate(methods)}
    return sorted(
        methods,
        key=lambda m: (pd.isna(value[m]), -(value[m] if pd.notna(value[m]) else 0.0), rank[m]),
    )
