"""A Parquet copy of ``per_page.csv`` for large runs (issue 28, "numbers as numbers").

A run of many pages and methods writes a ``per_page.csv`` of hundreds of thousands of rows;
reading it back with pandas parses every number again. Past ``report.parquet_rows`` rows
(:data:`DEFAULT_PARQUET_ROWS`) the run also writes ``per_page.parquet`` beside it, the same
table with the same column types: it is made from the csv as
:func:`evalkit.report.per_page_csv.read_per_page` reads it (text columns ``str``,
``cached`` nullable ``boolean``, score columns the numbers pandas reads), so
``pd.read_parquet`` and ``read_per_page`` give equal frames. Small runs stay as before:
the csv alone.

The bytes are deterministic for the same csv and the same pyarrow and pandas versions: no
timestamp is written, the row groups have a fixed size (:data:`ROW_GROUP_ROWS`) and the
compression (zstd, level :data:`ZSTD_LEVEL`) has no random state. The file's footer names
the pyarrow that wrote it ("created_by") and carries pandas' schema note (its version), so
another version of either may give other bytes for the same values.
"""

from __future__ import annotations

import os
from pathlib import Path

from evalkit.core.files import temp_beside
from evalkit.report.per_page_csv import read_per_page

__all__ = [
    "DEFAULT_PARQUET_ROWS",
    "PARQUET_NAME",
    "ROW_GROUP_ROWS",
    "ZSTD_LEVEL",
    "wants_parquet",
    "write_per_page_parquet",
]

#: rows of per_page.csv past which the Parquet copy is written (``report.parquet_rows``):
#: 10,000 rows is about 3 MB of csv, the size where parsing it starts to take seconds
DEFAULT_PARQUET_ROWS = 10_000
#: the copy's file name, beside per_page.csv
PARQUET_NAME = "per_page.parquet"
#: rows per row group: fixed, so the layout (and bytes) do not depend on the machine
ROW_GROUP_ROWS = 65_536
#: zstd level of the column chunks (pyarrow's default level; written explicitly so it stays)
ZSTD_LEVEL = 3


def wants_parquet(n_rows: int, threshold: int | None) -> bool:
    """True when a per_page.csv of ``n_rows`` rows gets a Parquet copy: more rows than
    ``threshold`` (``None``: never; the setting is checked before the run by
    evalkit.experiments.checks)."""
    return threshold is not None and n_rows > threshold


def write_per_page_parquet(
    csv_path: str | os.PathLike, out: str | os.PathLike | None = None
) -> Path:
    """Write ``per_page.parquet`` (beside ``csv_path`` unless ``out``) with the column types
    of :func:`read_per_page`; atomic (a temporary file, then renamed)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    csv_path = Path(csv_path)
    path = Path(out) if out is not None else csv_path.with_name(PARQUET_NAME)
    frame = read_per_page(csv_path)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    fd, tmp = temp_beside(path)
    os.close(fd)
    try:
        pq.write_table(
            table,
            tmp,
            row_group_size=ROW_GROUP_ROWS,
            compression="zstd",
            compression_level=ZSTD_LEVEL,
            write_statistics=True,
        )
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
