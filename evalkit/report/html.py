"""The HTML renderer of typed report sections (evalkit.report.sections): ``report.html``.

The second renderer beside evalkit.report.markdown: the same sections, so nothing an experiment
reports is written twice. The file stands alone (no network, no other file): figures are
embedded as SVG data, the style sheet and the script are inline (evalkit.report.html_assets),
tables sort by a click on their head (numbers by value), and a page browser shows, for each
chosen page, every method's words against the gold as a diff, its per-page scores, its
failure, and the blocks a block-recording method removed with the stage and rule that removed
them (evalkit.report.pages).
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import math
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd
from jinja2 import Environment
from markupsafe import Markup

from evalkit.core.capped import DEFAULT_MAX_FILE_BYTES, Refused, inside, read_capped
from evalkit.report.cells import as_cell
from evalkit.report.html_assets import TEMPLATE
from evalkit.report.pages import SCORES
from evalkit.report.results import readable
from evalkit.report.sections import Bullets, Figure, Heading, Section, Table, Text

__all__ = ["SVG_MAX_BYTES", "inline", "pack", "render", "render_table"]

#: a figure whose SVG is larger than this is embedded gzip-compressed (unpacked by the
#: page's script), to keep report.html small
SVG_MAX_BYTES = 300_000
#: a figure file larger than this is not embedded (the read gate's cap)
FIGURE_MAX_BYTES = DEFAULT_MAX_FILE_BYTES

_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*([^*]+)\*\*")
_EM = re.compile(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


def inline(text: str) -> str:
    """A markdown line as HTML: escaped, with code spans, bold, emphasis; a link keeps its
    text only when it points outside the file (the report references nothing)."""
    out = html.escape(readable(str(text)), quote=False)
    out = _LINK.sub(
        lambda m: (
            m.group(1)
            + (
                f" (<code>{m.group(2)}</code>)"
                if not m.group(2).startswith(("http:", "https:"))
                else ""
            )
        ),
        out,
    )
    out = _CODE.sub(r"<code>\1</code>", out)
    out = _BOLD.sub(r"<b>\1</b>", out)
    return _EM.sub(r"<i>\1</i>", out)


def _td(value: Any) -> str:
    cell = as_cell(value)
    text = html.escape(
        readable(str(value)) if not (isinstance(value, float) and math.isnan(value)) else "-"
    )
    if cell is not None and not cell.empty:
        return f'<td class="n" data-v="{cell.value:.10g}">{text}</td>'
    if cell is not None:
        return f'<td class="n">{text}</td>'
    return f"<td>{text}</td>"


def render_table(frame: pd.DataFrame) -> str:
    """A sortable HTML table of a display frame (a number cell carries its value)."""
    head = "".join(f"<th>{html.escape(readable(str(c)))}</th>" for c in frame.columns)
    rows = "\n".join(
        "<tr>" + "".join(_td(v) for v in row) + "</tr>" for row in frame.itertuples(index=False)
    )
    return (
        f'<div class="wrap"><table class="sortable"><thead><tr>{head}</tr></thead>'
        f"<tbody>\n{rows}\n</tbody></table></div>"
    )


def _figure(run_dir: Path, path: str, alt: str) -> str:
    """The figure embedded: its SVG beside the PNG when there is one, else the PNG. An SVG
    over :data:`SVG_MAX_BYTES` (a dense matrix: about 0.9 MB for 25 methods) is embedded
    gzip-compressed, an eighth of its size, and unpacked by the page's script. Both are read
    through the read gate (evalkit.core.capped): ``path`` comes from report_sections.json, so
    it must be a ``.png`` name inside the run folder (no absolute path, no ``..``, no link
    leading out); anything else is shown as refused, never embedded."""
    try:
        if not isinstance(path, str) or not path.lower().endswith(".png"):
            raise Refused(f"figure path {path!r}: not a .png name; not read")
        png = inside(run_dir, path, "figure path")
        svg = png.with_suffix(".svg")
        alt_text = html.escape(alt)
        if svg.exists():
            data = read_capped(svg, FIGURE_MAX_BYTES, "the figure size cap", run_dir)
            if len(data) > SVG_MAX_BYTES:
                packed = base64.b64encode(gzip.compress(data, compresslevel=9, mtime=0)).decode()
                return f'<img class="fig" alt="{alt_text}" data-svg-gz="{packed}">'
            return (
                f'<img class="fig" alt="{alt_text}" '
                f'src="data:image/svg+xml;base64,{base64.b64encode(data).decode()}">'
            )
        if png.exists():
            data = read_capped(png, FIGURE_MAX_BYTES, "the figure size cap", run_dir)
            return (
                f'<img class="fig" alt="{alt_text}" '
                f'src="data:image/png;base64,{base64.b64encode(data).decode()}">'
            )
    except Refused as exc:
        return f'<p class="muted">[figure refused: {html.escape(str(exc))}]</p>'
    except OSError:
        pass
    return f'<p class="muted">[figure {html.escape(str(path))} not found]</p>'


def _section(section: Section, run_dir: Path) -> str:
    match section:
        case Heading(text=text, level=level):
            return f"<h{level}>{inline(text)}</h{level}>"
        case Text(text=text):
            return f"<p>{inline(text)}</p>"
        case Table(frame=frame, lead=lead):
            return (f"<p>{inline(lead)}</p>" if lead else "") + render_table(frame)
        case Figure(path=path, alt=alt):
            return _figure(run_dir, path, alt)
        case Bullets(items=items):
            return "<ul>" + "".join(f"<li>{inline(i)}</li>" for i in items) + "</ul>"
    raise TypeError(f"not a report section: {type(section).__name__}")


def _provenance(run: dict[str, Any]) -> list[tuple[str, str]]:
    keys = (
        "experiment",
        "parts",
        "seed",
        "evalkit_version",
        "git",
        "python",
        "platform",
        "lxml",
        "wall_seconds",
        "n_failures",
        "runner",
        "paths",
    )
    out = []
    for key in keys:
        if key in run:
            value = run[key]
            out.append((key, value if isinstance(value, str) else json.dumps(value)))
    return out


def pack(data: Any) -> str:
    """``data`` as gzip-compressed JSON in base64 (the script unpacks it): a quarter of the
    JSON's size; the same bytes for the same data (no time stamp in the gzip header)."""
    # ASCII JSON: a lone surrogate of a page id travels as its \\u escape, not as bad UTF-8
    raw = json.dumps(data, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


def render(
    sections: Iterable[Section],
    run_dir: str | os.PathLike,
    *,
    title: str,
    run: dict[str, Any] | None = None,
    pages: list[dict[str, Any]] | None = None,
    methods: list[str] | None = None,
    pages_note: str = "",
    scores: list[str] | None = None,
    by: str | None = "shingle_f1",
) -> str:
    """report.html of the sections; with ``pages`` (evalkit.report.pages.page_records) a page
    browser over ``methods`` showing the per-page ``scores``, its list ordered ``by`` one of
    them; ``run`` (run.json) gives the provenance."""
    run_dir = Path(run_dir)
    body = "\n".join(_section(s, run_dir) for s in sections)
    env = Environment(autoescape=True)
    run_json = json.dumps(run, indent=1, default=str) if run else ""
    pages_json = (
        Markup(
            pack(
                {
                    "pages": pages,
                    "methods": list(methods or []),
                    "scores": list(SCORES if scores is None else scores),
                    "by": by,
                }
            )
        )
        if pages is not None
        else ""
    )
    return env.from_string(TEMPLATE).render(
        title=title,
        body=Markup(body),
        provenance=_provenance(run or {}),
        run_json=run_json if len(run_json) < 200_000 else "",
        pages_json=pages_json,
        pages_note=pages_note,
    )
