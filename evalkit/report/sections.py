"""Typed report sections: what a report says, apart from how it is shown.

Experiments append these records to ``Context.report``; a renderer turns the list into a
format (evalkit.report.markdown for ``report.md``). A second format is then one more renderer
that reads the same records, not an edit of every experiment.

Every section knows whether a blank line follows it in ``report.md`` (``gap``): the layout
of the reports written before the sections existed, kept byte for byte so the committed
reference does not move.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

__all__ = ["Bullets", "Figure", "Heading", "Section", "Table", "Text"]


@dataclass(frozen=True)
class Heading:
    """A section title; ``level`` 2 for a part of the run, 3 for a part of that."""

    text: str
    level: int = 2
    gap: bool = True


@dataclass(frozen=True)
class Text:
    """A paragraph or a note: one line of markdown (emphasis and code spans allowed)."""

    text: str
    gap: bool = True


@dataclass(frozen=True)
class Table:
    """A table (a frame of already formatted cells) with an optional ``lead``: a markdown
    line shown above it (its caption: ``**shingle F1**`` or ``**name** (n pages ...)``)."""

    frame: pd.DataFrame = field(compare=False)
    lead: str | None = None
    gap: bool = True


@dataclass(frozen=True)
class Figure:
    """A figure of the run folder (``path`` relative to it, the PNG; an SVG sits beside it)."""

    path: str
    alt: str
    gap: bool = True


@dataclass(frozen=True)
class Bullets:
    """A list of findings, one markdown line each."""

    items: tuple[str, ...]
    gap: bool = True


Section = Heading | Text | Table | Figure | Bullets
