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

import pandas as pd

from evalkit.core.files import temp_beside
from evalkit.report.csv_safe import restore_frame
from evalkit.report.per_page_csv import PER_PAGE_DTYPES, _all_bool, read_per_page

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
#: rows read from the csv at a time (a divisor of ROW_GROUP_ROWS and a multiple of 1024): a
#: row group is made of ROW_GROUP_ROWS / PIECE_ROWS parts, so the copy holds one group's
#: Arrow arrays and one part's frame, whatever the rows of the run
PIECE_ROWS = 8192


def wants_parquet(n_rows: int, threshold: int | None) -> bool:
    """True when a per_page.csv of ``n_rows`` rows gets a Parquet copy: more rows than
    ``threshold`` (``None``: never; the setting is checked before the run by
    evalkit.experiments.checks)."""
    return threshold is not None and n_rows > threshold


def write_per_page_parquet(
    csv_path: str | os.PathLike, out: str | os.PathLike | None = None
) -> Path:
    """Write ``per_page.parquet`` (beside ``csv_path`` unless ``out``) with the column types
    of :func:`read_per_page`; atomic (a temporary file, then renamed).

    The csv is read a part at a time and written a row group at a time
    (:func:`_write_row_groups`), so the copy of a run of a million pages holds one row
    group in memory, not the table; the bytes are those of writing
    ``read_per_page(csv_path)`` whole (the same row groups, schema and footer)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    csv_path = Path(csv_path)
    path = Path(out) if out is not None else csv_path.with_name(PARQUET_NAME)
    fd, tmp = temp_beside(path)
    os.close(fd)
    options = {
        "compression": "zstd",
        "compression_level": ZSTD_LEVEL,
        "write_statistics": True,
    }
    try:
        if not _write_row_groups(csv_path, tmp, options):
            # a column whose type the row groups cannot tell alone: the table at once
            pq.write_table(
                _arrow(read_per_page(csv_path)),
                tmp,
                row_group_size=ROW_GROUP_ROWS,
                **options,
            )
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    finally:
        # Arrow's allocator keeps the pages the copy freed for a next use that may not come
        pa.default_memory_pool().release_unused()
    return path


def _arrow(frame):
    import pyarrow as pa

    return pa.Table.from_pandas(frame, preserve_index=False)


def _write_row_groups(csv_path: Path, tmp: str, options: dict) -> bool:
    """Write the copy a row group at a time, each made of parts of :data:`PIECE_ROWS` rows;
    False (``tmp`` then holds nothing to keep) when a part's schema is not the first one's,
    as when a column's type differs between the parts of the file in a way
    :func:`_column_dtypes` did not foresee."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    dtypes = _column_dtypes(csv_path)
    if dtypes is None:
        return False
    writer, group, n = None, [], 0
    try:
        for table in _pieces(csv_path, dtypes):
            if writer is None:
                writer = pq.ParquetWriter(tmp, table.schema, **options)
            elif not table.schema.equals(writer.schema, check_metadata=True):
                return False
            group.append(table)
            n += table.num_rows
            if n >= ROW_GROUP_ROWS:
                # the arrays of a group in parts of a multiple of the writer's batch (1024
                # values): its pages are cut where those of the whole table's group are
                writer.write_table(pa.concat_tables(group), row_group_size=ROW_GROUP_ROWS)
                group, n = [], 0
        if group:
            writer.write_table(pa.concat_tables(group), row_group_size=ROW_GROUP_ROWS)
    finally:
        if writer is not None:
            writer.close()
        # what Arrow's allocator kept for reuse goes back now, not after report.html
        pa.default_memory_pool().release_unused()
    return writer is not None


def _pieces(csv_path: Path, dtypes: dict):
    """``read_per_page(csv_path)`` as Arrow tables of :data:`PIECE_ROWS` rows, each column
    read as the type the whole file gives it (``dtypes``)."""
    with pd.read_csv(csv_path, dtype=dtypes, chunksize=PIECE_ROWS, low_memory=False) as chunks:
        for chunk in chunks:
            yield _arrow(restore_frame(chunk))


def _column_dtypes(csv_path: Path) -> dict | None:
    """Each column's type in :func:`read_per_page`'s frame of the whole file, from a pass over
    it :data:`PIECE_ROWS` rows at a time: pandas guesses a type per part (a part without a
    gap reads whole numbers as ``int64``, one of gaps only as ``float64``) and the whole
    file's is their union (:func:`_union`). None when a part's type is none of those."""
    kinds: dict[str, set[str]] = {}
    # how the file is cut does not change the union, so the parts can be smaller than a group
    with pd.read_csv(
        csv_path, dtype=PER_PAGE_DTYPES, chunksize=PIECE_ROWS, low_memory=False
    ) as chunks:
        for chunk in chunks:
            for column in chunk.columns:
                kind = _kind(chunk[column])
                if kind is None:
                    return None
                kinds.setdefault(column, set()).add(kind)
    if not kinds:
        return None
    return {column: _union(column, found) for column, found in kinds.items()}


def _kind(values: pd.Series) -> str | None:
    # what pandas made of one part of a column
    dtype = values.dtype
    if values.name in PER_PAGE_DTYPES:
        return "fixed"
    if dtype == "int64":
        return "int"
    if dtype == "float64":
        return "float" if values.notna().any() else "gap"
    if dtype == "bool":
        return "bool"
    if dtype == object:  # True/False with gaps (read_per_page makes it boolean), else text
        return "boolean" if _all_bool(values) else "text"
    if isinstance(dtype, pd.StringDtype):
        return "text"
    return None


def _union(column: str, kinds: set[str]):
    """The type pandas gives a column of the whole file whose parts read as ``kinds``."""
    if column in PER_PAGE_DTYPES:
        return PER_PAGE_DTYPES[column]
    gaps = "gap" in kinds
    kinds = kinds - {"gap"}
    if kinds <= {"int"} and not gaps and kinds:
        return "int64"
    if kinds <= {"int", "float"}:  # a gap or a fraction somewhere (or gaps only)
        return "float64"
    if kinds <= {"bool", "boolean"}:
        return "boolean" if gaps or "boolean" in kinds else "bool"
    return "str"
