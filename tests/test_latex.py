"""LaTeX tables (evalkit.report.latex): escaping, layout, and compiling real tables with pdflatex.

The compile tests put tables into a two-column ``article`` (loading booktabs and graphicx,
the only packages the tables use; numbers have fixed decimals, so no siunitx) and read TeX's own width of
each tabular from the log (``evalkit table width W of L``, written by every table): W must
not exceed L (\\columnwidth in a ``table``, \\textwidth in a ``table*``), and the log must
hold no overfull box. They skip when pdflatex or one of those packages is missing.
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from evalkit.report.cells import Cell
from evalkit.report.latex import COLUMN_WIDTH_PT, TEXT_WIDTH_PT, tex_text, to_latex
from evalkit.report.tables import format_cell

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "results" / "reference"
PREAMBLE = r"\documentclass[twocolumn]{article}\usepackage{booktabs,graphicx}"
_WIDTH = re.compile(r"evalkit table width ([\d.]+)pt of ([\d.]+)pt")
_CELL = re.compile(r"^([-+]?\d+\.(\d+))(\*?)(?: \[([-+]?\d+\.\d+), ([-+]?\d+\.\d+)\])?$")


def _have_latex() -> str | None:
    if shutil.which("pdflatex") is None:
        return "pdflatex is not installed (Debian: texlive-latex-recommended)"
    if shutil.which("kpsewhich"):
        for sty in ("booktabs.sty", "graphicx.sty"):
            found = subprocess.run(
                ["kpsewhich", sty], capture_output=True, text=True, check=False
            ).stdout
            if not found.strip():
                return f"{sty} is not installed (Debian: texlive-latex-recommended)"
    return None


needs_latex = pytest.mark.skipif(_have_latex() is not None, reason=str(_have_latex()))


def compile_tables(texts: list[str], tmp: Path) -> tuple[list[tuple[float, float]], str]:
    """Compile ``texts`` (each one or more tables) in one two-column document; returns each
    tabular's (width, line width) in pt from the log, and the log."""
    body = "\n\\clearpage\n".join(texts)
    (tmp / "doc.tex").write_text(PREAMBLE + "\n\\begin{document}\n" + body + "\n\\end{document}\n")
    run = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
        cwd=tmp,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    log = (tmp / "doc.log").read_text(errors="replace")
    assert run.returncode == 0, log[-3000:]
    return [(float(w), float(lw)) for w, lw in _WIDTH.findall(log)], log


def _parse(text: str):
    """A cell of a markdown table read back: a number (with interval, mark) as a Cell."""
    m = _CELL.match(text.strip())
    if not m:
        return text
    value, decimals, mark, low, high = m.groups()
    return Cell(
        float(value),
        float(low) if low else math.nan,
        float(high) if high else math.nan,
        digits=len(decimals),
        signed=value.startswith("+"),
        mark=mark,
    )


def _md_table(path: Path) -> tuple[pd.DataFrame, str]:
    """The frame and caption of a ``tables/*.md`` file (as write_table writes it)."""
    lines = path.read_text().splitlines()
    caption = lines[0].strip("*") if lines and lines[0].startswith("**") else ""
    rows = [line for line in lines if line.startswith("|")]
    split = [[c.strip() for c in row.strip("|").split(" | ")] for row in rows]
    head, body = split[0], [r for r in split[2:] if len(r) == len(split[0])]
    return pd.DataFrame([[_parse(c) for c in r] for r in body], columns=head), caption


def test_tex_text_escapes_specials_and_writes_symbols_in_math_mode():
    assert tex_text("a_b & 50% #1 {x} $y") == r"a\_b \& 50\% \#1 \{x\} \$y"
    assert tex_text("F1 >= 0.8, n <= 3, a > b") == r"F1 $\geq$ 0.8, n $\leq$ 3, a $>$ b"
    assert tex_text("row \u2212 column") == "row $-$ column"
    assert tex_text("[0, 1]") == "{}[0, 1]"  # never read as the optional argument of \\
    assert tex_text("caf\u00e9 \u4e2d") == "caf\u00e9 ?"  # pdflatex's utf8 has no CJK


def test_a_narrow_table_is_a_column_table_with_booktabs_and_math_minus():
    df = pd.DataFrame(
        {
            "method": ["a_b", "c"],
            "diff": [Cell(-0.25, signed=True, mark="*"), Cell(0.5, signed=True)],
        }
    )
    tex = to_latex(df, "diff >= 0")
    assert tex.startswith("\\begin{table}[t]") and tex.count("\\begin{table") == 1
    assert "\\toprule" in tex and "\\midrule" in tex and "\\bottomrule" in tex
    assert r"a\_b & $-$0.250* \\" in tex and r"c & $+$0.500 \\" in tex
    assert r"\caption{diff $\geq$ 0}" in tex


def test_twelve_interval_columns_move_their_intervals_to_a_second_table():
    # the extraction table: 12 metrics of "0.208 [0.164, 0.256]" are about 880 pt wide,
    # values alone (heads broken at underscores) about 440 pt: a table* of values, then the
    # intervals in parts that fit \textwidth (469 pt)
    metrics = [f"metric_number_{i}" for i in range(12)]
    df = pd.DataFrame(
        [
            {"method": f"m{k}", **{m: format_cell(0.208, 0.164, 0.256) for m in metrics}}
            for k in range(3)
        ]
    )
    tex = to_latex(df, "wide")
    tables = tex.count("\\begin{table*}")
    assert tables >= 3 and "\\begin{table}" not in tex
    first = tex.split("\\end{table*}")[0]
    assert "0.208" in first and "[0.164" not in first
    assert "intervals in the next table" in first
    assert "(intervals" in tex and "{}[0.164, 0.256]" in tex
    # a method without a value (a NaN cell, shown "-") is "--" in the tables of intervals
    # too, not a blank cell: m1's row of the last interval table is "m1 & -- & ..."
    df.loc[1, metrics] = format_cell(float("nan"))
    last = to_latex(df, "wide").split("(intervals")[-2]
    row = next(line for line in last.splitlines() if line.startswith("m1 "))
    assert row.split("&")[1].strip() == "--"


@needs_latex
def test_generated_tables_compile_within_their_line(tmp_path):
    metrics = [f"unit_precision_micro_{i}" for i in range(12)]
    wide = pd.DataFrame(
        [
            {"method": f"method_{k}", **{m: format_cell(-0.208, -0.264, 0.256) for m in metrics}}
            for k in range(15)
        ]
    )
    matrix = pd.DataFrame(
        [
            {
                "method": f"proposed_{k}",
                **{
                    f"proposed_{j}": Cell(0.012 * (k - j), signed=True, mark="*" if k > j else "")
                    for j in range(15)
                },
            }
            for k in range(15)
        ]
    )
    narrow = pd.DataFrame({"method": ["x"], "F1": [format_cell(0.5, 0.4, 0.6)]})
    widths, log = compile_tables(
        [to_latex(wide, "wide >= 1"), to_latex(matrix, "matrix"), to_latex(narrow, "narrow")],
        tmp_path,
    )
    assert len(widths) >= 4
    assert all(w <= lw + 0.01 for w, lw in widths), widths
    assert {lw for _, lw in widths} <= {COLUMN_WIDTH_PT, TEXT_WIDTH_PT}
    assert "Overfull \\hbox" not in log


def _reference_md_tables() -> list[Path]:
    return sorted(REFERENCE.glob("*/tables/*.md")) + sorted(REFERENCE.glob("*/*/tables/*.md"))


@needs_latex
@pytest.mark.slow
def test_every_reference_table_laid_out_again_compiles_within_its_line(tmp_path):
    # every table of results/reference/ (read back from its .md, the cells as numbers) through
    # to_latex, in one document: TeX's widths within \columnwidth or \textwidth, nothing overfull
    paths = _reference_md_tables()
    if not paths:
        pytest.skip("results/reference/ holds no tables")
    texts = [to_latex(*_md_table(p)) for p in paths]
    widths, log = compile_tables(texts, tmp_path)
    assert len(widths) >= len(paths)
    over = [(w, lw) for w, lw in widths if w > lw + 0.01]
    assert not over, f"{len(over)} of {len(widths)} tabulars wider than their line: {over[:5]}"
    assert "Overfull \\hbox" not in log


@needs_latex
@pytest.mark.slow
def test_every_committed_reference_tex_compiles_within_its_line(tmp_path):
    # the .tex files themselves (written by write_table when the reference was made)
    paths = sorted(REFERENCE.glob("**/tables/*.tex"))
    if not paths:
        pytest.skip("results/reference/ holds no .tex tables")
    old = [p for p in paths if "evalkit table width" not in p.read_text()]
    assert not old, (
        f"{len(old)} reference .tex files predate evalkit.report.latex "
        f"(regenerate the reference), e.g. {old[0].relative_to(ROOT)}"
    )
    widths, log = compile_tables([p.read_text() for p in paths], tmp_path)
    assert all(w <= lw + 0.01 for w, lw in widths)
    assert "Overfull \\hbox" not in log


def _comparison(n_rows: int = 13) -> pd.DataFrame:
    """A benchmark study's comparison table (evalkit.experiments.benchmarks.comparison): too
    wide for one table, its evalkit/published columns in pairs."""
    rows = []
    for k in range(n_rows):
        row = {
            "tool (published row)": f"tool_{k} 1.0.{k} (standard)",
            "method": f"tool_{k}",
            "version": f"1.0.{k} installed / 1.0.{k} published",
        }
        for m in ("precision", "recall", "accuracy", "f_score"):
            row[f"{m} evalkit"] = f"{0.5 + k / 100:.3f}"
            row[f"{m} published"] = f"{0.6 + k / 100:.3f}"
        row["agreement"] = "differs by up to 0.100 at the published version"
        rows.append(row)
    return pd.DataFrame(rows)


def test_each_evalkit_published_pair_stays_in_one_table_under_its_name():
    tex = to_latex(_comparison(), "comparison")
    tables = tex.split("\\end{table")[:-1]
    assert len(tables) >= 2  # too wide for one: split, but never inside a pair
    for m in ("precision", "recall", "accuracy", "f\\_score"):
        holding = [t for t in tables if "{" + m + "}" in t]
        assert len(holding) == 1, m
        assert "\\multicolumn{2}{c}{" + m + "}" in holding[0]
    for t in tables:  # every table with a pair heads its two columns evalkit, published
        if "\\multicolumn" in t:
            assert "& evalkit & published" in t and "\\cmidrule(lr)" in t


def test_a_head_never_leaves_a_short_part_of_a_name_on_a_line():
    df = pd.DataFrame({"method": ["m"], "f_score": ["0.500"], "unit_f1_micro_words": ["0.4"]})
    tex = to_latex(df)
    assert "f\\_\\\\" not in tex and "f\\_score" in tex  # no "f_" over "score"
    assert "\\\\f1" not in tex.replace("\\\\f1\\_", "")  # "f1" never alone on a line


def test_a_value_that_rounds_to_zero_has_no_sign():
    cells = [Cell(-0.0004, signed=True), Cell(0.0004, signed=True), Cell(-0.0001, -0.0003, 0.2)]
    assert [str(c) for c in cells] == ["0.000", "0.000", "0.000 [0.000, 0.200]"]
    tex = to_latex(pd.DataFrame({"method": ["a", "b", "c"], "diff": cells}))
    assert "$-$0.000" not in tex and "$+$0.000" not in tex
    assert str(Cell(-0.0006, signed=True)) == "-0.001"  # a real difference keeps its sign
    # wceb's CSV comparison writes its differences with 4 decimals through the same Cell
    assert [str(Cell(x, digits=4, signed=True)) for x in (-0.00004, 0.00004, -0.0001)] == [
        "0.0000",
        "0.0000",
        "-0.0001",
    ]


@needs_latex
def test_a_comparison_table_with_pairs_compiles_within_its_line(tmp_path):
    widths, log = compile_tables([to_latex(_comparison(), "comparison")], tmp_path)
    assert len(widths) >= 2 and all(w <= lw + 0.01 for w, lw in widths), widths
    assert "Overfull \\hbox" not in log
