"""The report sections of a run, kept as JSON (``report_sections.json``) so that a renderer
can run again on the run folder alone (``python -m evalkit.report RUN_DIR``).

Plain data only, read without running any code: each section a JSON object with its ``type``
and fields; a table's frame as its columns and rows, a number cell
(:class:`~evalkit.report.cells.Cell`) as an object of its numbers.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pandas as pd

from evalkit.report.cells import Cell
from evalkit.report.results import atomic_write_text
from evalkit.report.sections import Bullets, Figure, Heading, Section, Table, Text

__all__ = ["SECTIONS_FILE", "dump_sections", "load_sections"]

#: the file in the run folder
SECTIONS_FILE = "report_sections.json"
_FORMAT = "evalkit-report-sections/1"


def _num(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def _value(v: Any) -> Any:
    if isinstance(v, Cell):
        return {"cell": [_num(v.value), _num(v.low), _num(v.high), v.digits, v.signed, v.mark]}
    if isinstance(v, float) and math.isnan(v):
        return None
    if hasattr(v, "item"):  # numpy scalars
        return v.item()
    return v if isinstance(v, (str, int, float, bool)) or v is None else str(v)


def _unvalue(v: Any) -> Any:
    if isinstance(v, dict) and "cell" in v:
        value, low, high, digits, signed, mark = v["cell"]
        nan = math.nan
        return Cell(
            nan if value is None else value,
            nan if low is None else low,
            nan if high is None else high,
            int(digits),
            bool(signed),
            str(mark),
        )
    return v


def _dump(section: Section) -> dict[str, Any]:
    match section:
        case Heading(text=text, level=level, gap=gap):
            return {"type": "heading", "text": text, "level": level, "gap": gap}
        case Text(text=text, gap=gap):
            return {"type": "text", "text": text, "gap": gap}
        case Table(frame=frame, lead=lead, gap=gap):
            return {
                "type": "table",
                "lead": lead,
                "gap": gap,
                "columns": [str(c) for c in frame.columns],
                "rows": [[_value(v) for v in row] for row in frame.itertuples(index=False)],
            }
        case Figure(path=path, alt=alt, gap=gap):
            return {"type": "figure", "path": path, "alt": alt, "gap": gap}
        case Bullets(items=items, gap=gap):
            return {"type": "bullets", "items": list(items), "gap": gap}
    raise TypeError(f"not a report section: {type(section).__name__}")


def _load(d: dict[str, Any]) -> Section:
    kind = d.get("type")
    if kind == "heading":
        return Heading(d["text"], int(d["level"]), bool(d["gap"]))
    if kind == "text":
        return Text(d["text"], bool(d["gap"]))
    if kind == "table":
        frame = pd.DataFrame(
            [[_unvalue(v) for v in row] for row in d["rows"]], columns=d["columns"], dtype=object
        )
        return Table(frame, d["lead"], bool(d["gap"]))
    if kind == "figure":
        return Figure(d["path"], d["alt"], bool(d["gap"]))
    if kind == "bullets":
        return Bullets(tuple(d["items"]), bool(d["gap"]))
    raise ValueError(f"{SECTIONS_FILE}: unknown section type {kind!r}")


def dump_sections(sections: list[Section], path: str | os.PathLike, title: str) -> Path:
    data = {"format": _FORMAT, "title": title, "sections": [_dump(s) for s in sections]}
    return atomic_write_text(path, json.dumps(data, ensure_ascii=False, allow_nan=False) + "\n")


def load_sections(path: str | os.PathLike) -> tuple[str, list[Section]]:
    """(title, sections) of a sections file; ValueError naming the file when it is not one."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: not a readable report sections file ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        raise ValueError(f"{path}: not a report sections file of format {_FORMAT}")
    return str(data.get("title", "")), [_load(d) for d in data["sections"]]
