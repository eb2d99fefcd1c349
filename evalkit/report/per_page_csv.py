"""Reading ``per_page.csv`` back with the same column types in every run (issue 29).

``per_page.csv`` holds the records of every experiment of a run, so a column one
experiment fills (``site``, ``category``, ``scope``, ``truth``, ``cached``) is empty in
another's rows. ``pd.read_csv`` guesses each column's type chunk by chunk: an all-empty
chunk reads as numbers, a later one as text, and pandas warns about mixed types (and a
page id such as ``0042`` loses its zeros). :data:`PER_PAGE_DTYPES` names the type of
every non-numeric column and :func:`read_per_page` reads the file with it::

    pd.read_csv(path, dtype=PER_PAGE_DTYPES, low_memory=False)

Text columns are ``str`` (missing cells stay NaN), ``cached`` and any other column of
true/false cells with gaps (``info_*`` flags a method records) are pandas' nullable
``boolean``; the score columns are numbers as pandas reads them.
"""

from __future__ import annotations

import os

import pandas as pd

from evalkit.report.csv_safe import restore_frame

__all__ = ["BOOL_COLUMNS", "PER_PAGE_DTYPES", "TEXT_COLUMNS", "read_per_page"]

#: the text columns of per_page.csv (ids, names, errors, labels)
TEXT_COLUMNS = (
    "experiment",
    "dataset",
    "page_id",
    "site",
    "category",
    "method",
    "error",
    "scope",
    "truth",
    "skipped_file",
    "predicted",
    "label",
    "detector",
)
#: the true/false columns
BOOL_COLUMNS = ("cached",)
#: column -> dtype for ``pd.read_csv(..., dtype=PER_PAGE_DTYPES)``
PER_PAGE_DTYPES = {**dict.fromkeys(TEXT_COLUMNS, str), **dict.fromkeys(BOOL_COLUMNS, "boolean")}


def read_per_page(path: str | os.PathLike) -> pd.DataFrame:
    """``per_page.csv`` with :data:`PER_PAGE_DTYPES` (no mixed-type warning); any other column
    of true/false cells with gaps (a method's ``info_*`` flag) is a nullable ``boolean`` too,
    not an object column of True, False and NaN."""
    frame = restore_frame(pd.read_csv(path, dtype=PER_PAGE_DTYPES, low_memory=False))
    for column in frame.columns:
        if frame[column].dtype == object and _all_bool(frame[column]):
            frame[column] = frame[column].astype("boolean")
    return frame


def _all_bool(values: pd.Series) -> bool:
    present = values.dropna()
    return len(present) > 0 and all(isinstance(v, bool) for v in present)
