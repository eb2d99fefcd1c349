"""Text cells of the csv files evalkit writes, kept from being read as spreadsheet formulas.

A page id, file name, label or error message comes from data; a spreadsheet opening a csv
treats a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return as a
formula (CSV injection). As OWASP recommends, such a text cell is written with a single quote
before it (``'=HYPERLINK(...)``), which the spreadsheet shows as text. Numbers are numbers
(``-0.5`` is a float column, or a plain number written as text) and the empty-cell mark ``-``
is no formula, so both stay. A cell that starts with a quote already gets a second one, so
:func:`restore` gives back every original text exactly: evalkit's own readers of its csv files
(``per_page.csv`` for the API and the report rebuilder) call it. Column names are treated as
cells. Every csv of a run goes through :func:`csv_text` (evalkit.report.results).
"""

from __future__ import annotations

import re

import pandas as pd

__all__ = ["FORMULA_STARTS", "csv_text", "neutralise", "restore", "restore_frame"]

#: the first characters that make a spreadsheet read a cell as a formula (OWASP)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
#: a plain number written as text, which a spreadsheet reads as that number
_NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


def neutralise(value):
    """``value`` as it is, unless it is text a spreadsheet would run: then ``'`` + it."""
    if not isinstance(value, str) or not value:
        return value
    if value.startswith("'"):
        return "'" + value  # so that restore() can tell an added quote from one of the data
    if value.startswith(FORMULA_STARTS) and value != "-" and not _NUMBER.match(value):
        return "'" + value
    return value


def restore(value):
    """The text :func:`neutralise` was given (its quote taken off)."""
    if (
        isinstance(value, str)
        and value.startswith("'")
        and len(value) > 1
        and (value[1] == "'" or value[1:].startswith(FORMULA_STARTS))
    ):
        return value[1:]
    return value


def _safe(df: pd.DataFrame) -> pd.DataFrame:
    text = [
        c for c in df.columns if df[c].dtype == object or isinstance(df[c].dtype, pd.StringDtype)
    ]
    renamed = {c: neutralise(c) for c in df.columns if isinstance(c, str) and neutralise(c) != c}
    if not text and not renamed:
        return df
    out = df.copy()
    for c in text:
        out[c] = out[c].map(neutralise)
    return out.rename(columns=renamed)


def csv_text(df: pd.DataFrame, header: bool = True, float_format: str | None = None) -> str:
    """``df`` as csv text (no index, ``\\n`` line ends) with every text cell neutralised."""
    return _safe(df).to_csv(
        index=False, header=header, float_format=float_format, lineterminator="\n"
    )


def restore_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A frame read from one of evalkit's csv files with its texts as they were written."""
    df = df.rename(columns={c: restore(c) for c in df.columns if isinstance(c, str)})
    for c in df.columns:
        if isinstance(df[c].dtype, pd.CategoricalDtype):
            # restore is one-to-one on what neutralise writes, so categories stay distinct
            df[c] = df[c].cat.rename_categories(restore)
        elif df[c].dtype == object or isinstance(df[c].dtype, pd.StringDtype):
            df[c] = df[c].map(restore)
    return df
