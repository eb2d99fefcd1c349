"""Table cells that are numbers first: a value with its interval, shown as ``0.208 [0.162, 0.255]``.

A report table is one frame shown three ways. Markdown and LaTeX show the formatted text; the
csv under ``tables/`` holds the numbers (:func:`numeric_frame`: a column of :class:`Cell` becomes
``<col>``, ``<col>_ci_low`` and ``<col>_ci_high``, NaN where the cell is empty), so a spreadsheet
or pandas computes with them. A cell compares equal to its text, so code and tests that read
a table as text keep working.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import pandas as pd

__all__ = ["EMPTY", "Cell", "as_cell", "numeric_frame"]

#: what an empty cell shows (a metric a method has no score for)
EMPTY = "-"

#: a plain number written as text (``12``, ``-0.5``, ``3.25``); ``0012`` is an id, not a number
_NUMBER = re.compile(r"^[-+]?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$")


def _unsigned_zero(text: str) -> str:
    """``-0.000`` and ``+0.000`` (a value that rounds to zero) as ``0.000``: a sign on a
    printed zero says a direction the number does not have."""
    return text[1:] if text[:1] in "+-" and not text.strip("+-0.") else text


def _nan(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x)) or bool(pd.isna(x))


@dataclass(frozen=True, eq=False)
class Cell:
    """A number of a table: ``value`` with an optional interval ``[low, high]``.

    ``digits`` decimals; ``signed`` writes ``+`` before positive values (differences); a
    value that rounds to zero is written without a sign (``0.000``, never ``-0.000``);
    ``mark`` follows the value (``*``: significant). A NaN value shows as ``-``.
    """

    value: float
    low: float = math.nan
    high: float = math.nan
    digits: int = 3
    signed: bool = False
    mark: str = ""

    @property
    def empty(self) -> bool:
        return _nan(self.value)

    @property
    def has_interval(self) -> bool:
        return not (self.empty or _nan(self.low) or _nan(self.high))

    def number(self, x: float | None = None) -> str:
        """``x`` (the value by default) with the cell's decimals and sign rule."""
        x = self.value if x is None else x
        text = f"{x:+.{self.digits}f}" if self.signed else f"{x:.{self.digits}f}"
        return _unsigned_zero(text)

    def interval(self) -> str:
        """``[0.162, 0.255]``, or '' without an interval."""
        if not self.has_interval:
            return ""
        low, high = (_unsigned_zero(f"{x:.{self.digits}f}") for x in (self.low, self.high))
        return f"[{low}, {high}]"

    def head(self) -> str:
        """The value and its mark without the interval: ``0.208``, ``+0.012*``."""
        return EMPTY if self.empty else self.number() + self.mark

    def __str__(self) -> str:
        if self.empty:
            return EMPTY
        return self.head() + (f" {self.interval()}" if self.has_interval else "")

    def __repr__(self) -> str:
        return f"Cell({str(self)!r})"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __eq__(self, other) -> bool:
        if isinstance(other, Cell):
            return str(self) == str(other) and self.mark == other.mark
        if isinstance(other, str):
            return str(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(str(self))

    def __add__(self, other: str) -> str:
        return str(self) + other

    def __radd__(self, other: str) -> str:
        return other + str(self)


def as_cell(value) -> Cell | None:
    """A cell's number: a :class:`Cell` as it is, a plain number (or its text) as a cell
    without interval, '-' or missing as an empty cell; None for text that is no number."""
    if isinstance(value, Cell):
        return value
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return Cell(float(value), digits=0 if isinstance(value, int) else 3)
    if value is None or (isinstance(value, str) and value.strip() in ("", EMPTY)):
        return Cell(math.nan)
    if _nan(value):
        return Cell(math.nan)
    if isinstance(value, str) and _NUMBER.match(value.strip()):
        return Cell(float(value))
    return None


def _cell_column(values: pd.Series) -> bool:
    return any(isinstance(v, Cell) for v in values)


def _numeric_text(values: pd.Series) -> bool:
    """A text column whose every filled cell is a plain number (or '-')."""
    if values.dtype.kind in "biufc":
        return False
    seen = False
    for v in values:
        if _nan(v) or (isinstance(v, str) and v.strip() in ("", EMPTY)):
            continue
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            seen = True
            continue
        if not isinstance(v, str) or not _NUMBER.match(v.strip()):
            return False
        seen = True
    return seen


def numeric_frame(df: pd.DataFrame) -> pd.DataFrame:
    """The csv view of a display table: every number in a numeric column.

    A column holding :class:`Cell` values becomes its values (``<col>``), and when any cell
    has an interval ``<col>_ci_low`` and ``<col>_ci_high``, and when any has a mark
    ``<col>_mark``; an empty cell is NaN. A text column whose filled cells are all plain
    numbers becomes numbers. Other columns (names, notes) stay as they are.
    """
    out: dict[str, pd.Series] = {}
    for col in df.columns:
        values = df[col]
        name = str(col)
        if _cell_column(values):
            cells = [as_cell(v) or Cell(math.nan) for v in values]
            out[name] = pd.Series([c.value for c in cells], dtype=float, index=df.index)
            if any(c.has_interval for c in cells):
                out[f"{name}_ci_low"] = pd.Series(
                    [c.low if c.has_interval else math.nan for c in cells],
                    dtype=float,
                    index=df.index,
                )
                out[f"{name}_ci_high"] = pd.Series(
                    [c.high if c.has_interval else math.nan for c in cells],
                    dtype=float,
                    index=df.index,
                )
            if any(c.mark for c in cells):
                out[f"{name}_mark"] = pd.Series(
                    [c.mark or None for c in cells], dtype=object, index=df.index
                )
        elif _numeric_text(values):
            out[name] = pd.Series([as_cell(v).value for v in values], dtype=float, index=df.index)
        else:
            out[name] = values
    return pd.DataFrame(out, index=df.index)
