"""How a method looks in every figure: one colour, marker, line style and hatch per method name.

A method is drawn the same way in every figure of every run, whichever other methods are
beside it: its style is a function of its name alone, never of its place in a run's list.
The colours are Okabe and Ito's eight (2008, "Color Universal Design"), told apart by people
with any common colour-vision deficiency; a palette that size cannot give 25+ methods a colour
each, so the methods evalkit knows (:data:`KNOWN`) get distinct (colour, marker) pairs, the
marker and line style changing with each round of eight colours, and any other name gets a
pair from a stable hash of the name (the same in every process, unlike ``hash``).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import pandas as pd

__all__ = ["KNOWN", "OKABE_ITO", "Style", "default_order", "method_order", "method_style",
           "set_default_order"]

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
OKABE_ITO = ("#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00",
             "#CC79A7")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", "-.", ":")
#: hatches for a second round of the same colour in bar figures ('' first)
HATCHES = ("", "///", "...", "xxx")

#: the method labels of evalkit's configs (configs/method/), in a fixed order: each takes the
#: next (colour, marker) pair. Append new names at the end: a name's place fixes its style.
KNOWN = ("proposed", "proposed@primary", "proposed@dedup", "proposed@bounded",
         "proposed@best_table4", "cetd", "cetd@ds", "pab", "justext_style", "fulltext",
         "trafilatura", "readability_lxml", "justext", "resiliparse", "boilerpy3", "goose3",
         "html_text", "coreex", "econ", "tag_based", "existing1", "existing2", "eniw",
         "cectd_s", "ecectd_s", "san_aye", "san_aye@cosine", "san_aye@importance",
         "target_entities", "empty", "gold", "stored")


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


def _slot(name: str) -> int:
    if name in KNOWN:
        return KNOWN.index(name)
    # other names: a stable hash, past the known slots (so they rarely share a known look)
    return len(KNOWN) + zlib.crc32(name.encode("utf-8", "surrogatepass")) % 256


def method_style(name: str) -> Style:
    """The style of method ``name``: slot i has colour i mod 8 and round g = i // 8; the
    marker is (g + i) mod 8, so two slots below 64 never share both colour and marker."""
    i = _slot(str(name))
    colour, round_ = i % len(OKABE_ITO), i // len(OKABE_ITO)
    return Style(OKABE_ITO[colour], MARKERS[(round_ + colour) % len(MARKERS)],
                 LINESTYLES[round_ % len(LINESTYLES)], HATCHES[round_ % len(HATCHES)])


def method_order(summary: pd.DataFrame, metric: str, methods: list[str] | None = None,
                 order: str = "score") -> list[str]:
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
    return sorted(methods, key=lambda m: (pd.isna(value[m]), -(value[m] if pd.notna(value[m])
                                                                else 0.0), rank[m]))
