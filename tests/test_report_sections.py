"""Typed report sections (evalkit.report.sections) and their markdown renderer: each section's
lines, worked out by hand, and the blank line that ``gap`` adds."""

import pandas as pd
import pytest

from evalkit.report.markdown import render, render_lines
from evalkit.report.sections import Bullets, Figure, Heading, Table, Text

FRAME = pd.DataFrame({"method": ["a", "b"], "f1": ["0.5", "0.75"]})
TABLE = "| method | f1 |\n|---|---|\n| a | 0.5 |\n| b | 0.75 |\n"


def test_each_section_renders_its_lines():
    assert render_lines([Heading("Run", level=1)]) == ["# Run", ""]
    assert render_lines([Heading("Part", level=3, gap=False)]) == ["### Part"]
    assert render_lines([Text("A note.")]) == ["A note.", ""]
    assert render_lines([Table(FRAME)]) == [TABLE, ""]
    assert render_lines([Table(FRAME, lead="**f1**", gap=False)]) == ["**f1**", "", TABLE]
    assert render_lines([Figure("figures/x.png", "x")]) == ["![x](figures/x.png)", ""]
    assert render_lines([Bullets(("one", "two"))]) == ["- one", "- two", ""]


def test_a_report_is_its_lines_joined_with_a_final_newline():
    text = render([Heading("R", level=1), Table(FRAME, gap=False), Text("after")])
    # a table's markdown ends in a newline, so one blank line separates it from the next line
    assert text == "# R\n\n" + TABLE + "\nafter\n\n"


def test_anything_else_is_refused():
    with pytest.raises(TypeError, match="not a report section: str"):
        render(["## a heading as a string"])
