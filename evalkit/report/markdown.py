"""The markdown renderer of typed report sections (evalkit.report.sections): ``report.md``.

Every text is passed through :func:`evalkit.report.md_escape.md_text`: a label's HTML is shown,
never run."""

from __future__ import annotations

from collections.abc import Iterable

from evalkit.report.md_escape import md_text
from evalkit.report.sections import Bullets, Figure, Heading, Section, Table, Text
from evalkit.report.tables import to_markdown

__all__ = ["render", "render_lines"]


def _lines(section: Section) -> list[str]:
    match section:
        case Heading(text=text, level=level):
            out = [f"{'#' * level} {md_text(text)}"]
        case Text(text=text):
            out = [md_text(text)]
        case Table(frame=frame, lead=lead):
            out = ([md_text(lead), ""] if lead is not None else []) + [to_markdown(frame)]
        case Figure(path=path, alt=alt):
            out = [f"![{md_text(alt)}]({path})"]
        case Bullets(items=items):
            out = [f"- {md_text(item)}" for item in items]
        case _:
            raise TypeError(f"not a report section: {type(section).__name__}")
    return out + ([""] if section.gap else [])


def render_lines(sections: Iterable[Section]) -> list[str]:
    """The lines of ``report.md`` the sections make, in order."""
    return [line for section in sections for line in _lines(section)]


def render(sections: Iterable[Section]) -> str:
    """The sections as one markdown text (lines joined, a final newline)."""
    return "\n".join(render_lines(sections)) + "\n"
