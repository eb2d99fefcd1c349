"""LaTeX tables that compile and fit a two-column paper.

A table is laid out for a two-column ``article`` (10 pt): as a ``table`` when its estimated
width fits ``\\columnwidth``, else as a ``table*`` when it fits ``\\textwidth``; a table too
wide even for that shows its values in one table and its intervals in a second, and what still
does not fit is split by columns into parts that each repeat the row labels; two columns that
pair a value with the figure it is compared with (``precision evalkit`` and ``precision
published``, or ``ours`` and ``paper``) stay side by side in one part, under their shared name
(:data:`PAIR_SIDES`). A head breaks at spaces and underscores, never leaving a part of a name
shorter than three characters on a line (no ``f_`` over ``score``). Every table uses
booktabs rules, fixed decimals aligned right, math-mode symbols (``$\\geq$``, ``$-$``) and escaped
names. Widths are estimated from Computer Modern's glyph widths at ``\\footnotesize``
(measured with pdflatex); each tabular is also measured by TeX when compiled, written to the
log (``evalkit table width W of L``) and, should the estimate ever be short, scaled down to
the line so that no box is overfull. Needs ``\\usepackage{booktabs,graphicx}``.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from evalkit.report.cells import Cell, as_cell
from evalkit.report.results import readable

__all__ = ["COLUMN_WIDTH_PT", "TEXT_WIDTH_PT", "tex_text", "to_latex"]

#: \columnwidth and \textwidth of a two-column 10 pt article (letter paper), from pdflatex
COLUMN_WIDTH_PT = 229.5
TEXT_WIDTH_PT = 469.0
#: the space either side of a cell (\tabcolsep), set in each table
TABCOLSEP_PT = 4.0
#: glyph widths at \footnotesize in Computer Modern (pdflatex, \sbox and \wd): digits 4.25 pt,
#: lowercase 4.17 pt on average (rounded up for the wide letters), uppercase 6.1 pt, space 2.83 pt
_DIGIT, _LOWER, _UPPER, _SPACE, _OTHER, _MATH = 4.25, 4.6, 6.5, 2.9, 3.6, 6.7
#: a rotated header (when upright heads make a table too wide) takes one line's height
_ROTATED_PT = 9.0
#: a text column wider than this wraps (a p column)
MAX_TEXT_PT = 150.0

#: where a long word of a wrapping column may break (a zero-width space, written as \allowbreak)
_BREAK = "\u200b"
#: a word longer than this (a hash, a URL) in a wrapping column may break every so many characters
_LONG_WORD = 16

#: characters that text mode cannot show, in math mode or as their LaTeX commands
_SYMBOLS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"$<$",
    ">": r"$>$",
    "|": r"$|$",
    "\u2212": r"$-$",
    "\u00d7": r"$\times$",
    "\u2265": r"$\geq$",
    "\u2264": r"$\leq$",
    "\u00b1": r"$\pm$",
    "\u2192": r"$\rightarrow$",
    "\u2026": r"\ldots{}",
    "\u2014": "---",
    "\u2013": "--",
    "\u00b7": r"$\cdot$",
    "\u2248": r"$\approx$",
    "\u2260": r"$\neq$",
    "\u03b1": r"$\alpha$",
    "\u2018": "`",
    "\u2019": "'",
    "\u201c": "``",
    "\u201d": "''",
    _BREAK: r"\allowbreak{}",
}
_PAIRS = {">=": r"$\geq$", "<=": r"$\leq$", "!=": r"$\neq$", "+-": r"$\pm$"}


def tex_text(text: str) -> str:
    """``text`` escaped for LaTeX text mode: special characters escaped, ``>=`` as ``$\\geq$``,
    a minus sign in math mode; a character pdflatex cannot show is written as ``?``."""
    s = readable(str(text))
    out, i = [], 0
    while i < len(s):
        pair = s[i : i + 2]
        if pair in _PAIRS:
            out.append(_PAIRS[pair])
            i += 2
            continue
        ch = s[i]
        if ch in _SYMBOLS:
            out.append(_SYMBOLS[ch])
        elif ord(ch) < 0x180:  # ASCII, Latin-1 and Latin Extended-A: pdflatex's utf8 has them
            out.append(ch)
        else:
            out.append("?")
        i += 1
    tex = "".join(out)
    # a cell or header line that starts with '[' would be read as \\'s optional argument
    return "{}" + tex if tex.startswith("[") else tex


def _width(text: str) -> float:
    """Estimated width in pt of ``text`` set at \\footnotesize."""
    w = 0.0
    for ch in text:
        if ch.isdigit():
            w += _DIGIT
        elif ch.islower():
            w += _LOWER
        elif ch.isupper():
            w += _UPPER
        elif ch == " ":
            w += _SPACE
        elif ch in "-\u2212+<>=|\u00d7\u2265\u2264":
            w += _MATH
        else:
            w += _OTHER
    return w


def _tex_number(cell: Cell, text: str) -> str:
    """A number of a cell in LaTeX: its signs in math mode."""
    return tex_text(text).replace("-", "$-$").replace("+", "$+$")


@dataclass
class _Column:
    """One column of a table as LaTeX: its head and its cells in each of the three views
    (full: value and interval; value; interval), with their widths."""

    head: str
    full: list[str]
    value: list[str]
    interval: list[str]
    numeric: bool
    has_interval: bool
    w_full: float
    w_value: float
    w_interval: float

    def cells(self, view: str) -> list[str]:
        return {"full": self.full, "value": self.value, "interval": self.interval}[view]

    def body_width(self, view: str) -> float:
        return {"full": self.w_full, "value": self.w_value, "interval": self.w_interval}[view]


def _column(head, values) -> _Column:
    cells = [as_cell(v) for v in values]
    numeric = all(c is not None for c in cells) and len(cells) > 0
    if numeric:
        full = [
            "--"
            if c.empty
            else _tex_number(c, c.head())
            + (" " + _tex_number(c, c.interval()) if c.has_interval else "")
            for c in cells
        ]
        value = ["--" if c.empty else _tex_number(c, c.head()) for c in cells]
        # a cell without a value has no interval either: "--" as in the table of values
        interval = [
            "--" if c.empty else _tex_number(c, c.interval()) if c.has_interval else ""
            for c in cells
        ]
        w_full = max(_width(str(c)) for c in cells)
        w_value = max(_width(c.head()) for c in cells)
        w_interval = max([_width(c.interval()) for c in cells] + [0.0])
    else:
        texts = [
            "" if v is None or (not isinstance(v, str) and pd.isna(v)) else str(v) for v in values
        ]
        w_full = w_value = w_interval = max([_width(t) for t in texts] + [0.0])
        if w_full > MAX_TEXT_PT:  # a wrapping column: long words may break too
            texts = [_breakable(t) for t in texts]
        full = value = interval = [tex_text(t) for t in texts]
    return _Column(
        str(head),
        full,
        value,
        interval,
        numeric,
        numeric and any(c.has_interval for c in cells),
        w_full,
        w_value,
        w_interval,
    )


def _breakable(text: str) -> str:
    """``text`` with a break allowed every :data:`_LONG_WORD` characters of a long word."""

    def cut(word: str) -> str:
        if len(word) <= _LONG_WORD:
            return word
        return _BREAK.join(word[i : i + _LONG_WORD] for i in range(0, len(word), _LONG_WORD))

    return " ".join(cut(w) for w in text.split(" "))


#: a part of a name shorter than this is never a line of a head of its own (no ``f_`` over
#: ``score``): it stays with the part after it (or, at the end, before it)
_MIN_PART = 3


def _name_parts(word: str) -> list[str]:
    """``word`` cut after each underscore, parts shorter than :data:`_MIN_PART` kept with a
    neighbour: ``unit_f1_micro`` -> ``unit_``, ``f1_micro``; ``f_score`` stays whole."""
    parts = [p + "_" for p in word.split("_")[:-1]] + [word.split("_")[-1]]
    out: list[str] = []
    carry = ""
    for part in parts:
        part = carry + part
        carry = ""
        if len(part.rstrip("_")) < _MIN_PART:
            carry = part
        else:
            out.append(part)
    if carry:
        if out:
            out[-1] += carry
        else:
            out.append(carry)
    return [p for p in out if p]


def _head_lines(head: str, width: float) -> list[str]:
    """``head`` broken at spaces and underscores into lines no wider than ``width`` (or its
    longest word), never leaving a part of a name shorter than :data:`_MIN_PART` alone."""
    words = [part for w in head.split(" ") if w for part in _name_parts(w)]
    lines: list[str] = []
    for word in words:
        if lines and _width(lines[-1] + word) <= width:
            lines[-1] += word if lines[-1].endswith("_") else " " + word
        else:
            lines.append(word)
    return lines or [""]


def _head(col: _Column, view: str, rotate: bool) -> tuple[str, float]:
    """The LaTeX of a column head and the width it needs."""
    body = col.body_width(view)
    if rotate:
        return r"\rotatebox{90}{" + tex_text(col.head) + "}", _ROTATED_PT
    lines = _head_lines(col.head, max(body, 1.0))
    width = max(_width(line) for line in lines)
    if len(lines) == 1:
        return tex_text(lines[0]), width
    return (
        r"\begin{tabular}[b]{@{}c@{}}" + r"\\".join(tex_text(x) for x in lines) + r"\end{tabular}",
        width,
    )


def _col_width(col: _Column, view: str, rotate: bool, head: str | None = None) -> float:
    body = min(col.body_width(view), MAX_TEXT_PT) if not col.numeric else col.body_width(view)
    if head is not None:  # one side of a pair: its head is the side word alone
        return max(body, _width(head)) + 2 * TABCOLSEP_PT
    return max(body, _head(col, view, rotate)[1]) + 2 * TABCOLSEP_PT


#: the last word of the heads of two columns that belong together: a value and the figure
#: it is compared with (``precision evalkit`` beside ``precision published``)
PAIR_SIDES = ("evalkit", "published", "ours", "paper")


@dataclass
class _Group:
    """One column, or a pair of columns that share a head but its last word (``precision
    evalkit``, ``precision published``): a pair is never split between two tables, and is
    headed by its shared name over its two side words (``\\cmidrule`` under the name)."""

    cols: list[_Column]
    stem: str = ""
    sides: tuple[str, ...] = ()

    def width(self, view: str, rotate: bool) -> float:
        if not self.sides:
            return _col_width(self.cols[0], view, rotate)
        sides = sum(_col_width(c, view, rotate, side) for c, side in zip(self.cols, self.sides))
        return max(sides, _width(self.stem) + 2 * TABCOLSEP_PT)


def _split_head(head: str) -> tuple[str, str] | None:
    stem, _, side = head.rpartition(" ")
    return (stem, side) if stem and side in PAIR_SIDES else None


def _groups(cols: list[_Column]) -> list[_Group]:
    """``cols`` with each evalkit/published (ours/paper) pair of neighbours as one group."""
    out: list[_Group] = []
    i = 0
    while i < len(cols):
        a = _split_head(cols[i].head)
        b = _split_head(cols[i + 1].head) if i + 1 < len(cols) else None
        if a and b and a[0] == b[0] and a[1] != b[1]:
            out.append(_Group(cols[i : i + 2], a[0], (a[1], b[1])))
            i += 2
        else:
            out.append(_Group([cols[i]]))
            i += 1
    return out


def _fits(first: _Column, groups: list[_Group], view: str, rotate: bool, budget: float) -> bool:
    return (_col_width(first, view, rotate) + sum(g.width(view, rotate) for g in groups)) <= budget


def _chunks(first, groups, view, rotate) -> list[list[_Group]]:
    """``groups`` in order, in as few tables as fit ``\\textwidth`` beside the row labels."""
    out: list[list[_Group]] = [[]]
    for group in groups:
        if out[-1] and not _fits(first, out[-1] + [group], view, rotate, TEXT_WIDTH_PT):
            out.append([])
        out[-1].append(group)
    return out


def _plan(first: _Column, groups: list[_Group]) -> list[tuple[list[_Group], str, bool, str]]:
    """The tables to write: (column groups, view, rotated heads, caption suffix)."""
    for budget in (COLUMN_WIDTH_PT, TEXT_WIDTH_PT):
        if _fits(first, groups, "full", False, budget):
            return [(groups, "full", False, "")]
    with_ci = [g for g in groups if any(c.has_interval for c in g.cols)]
    view = "value" if with_ci else "full"
    rotate = not _fits(first, groups, view, False, TEXT_WIDTH_PT) and _fits(
        first, groups, view, True, TEXT_WIDTH_PT
    )
    parts = _chunks(first, groups, view, rotate)
    plan = [
        (part, view, rotate, f" (part {i + 1} of {len(parts)})" if len(parts) > 1 else "")
        for i, part in enumerate(parts)
    ]
    if with_ci:
        plan[-1] = (*plan[-1][:3], plan[-1][3] + "; intervals in the next table")
        ci_parts = _chunks(first, with_ci, "interval", False)
        plan += [
            (
                part,
                "interval",
                False,
                " (intervals"
                + (f", part {i + 1} of {len(ci_parts)})" if len(ci_parts) > 1 else ")"),
            )
            for i, part in enumerate(ci_parts)
        ]
    return plan


def _spec(col: _Column) -> str:
    if col.numeric:
        return "r"
    if col.w_full > MAX_TEXT_PT:
        return f"p{{{MAX_TEXT_PT:g}pt}}"
    return "l"


def _heads(first: _Column, groups: list[_Group], view: str, rotate: bool) -> list[str]:
    """The head rows: with a pair, its name over its side words (a ``\\cmidrule`` between);
    every other head in the last row."""
    cols = [c for g in groups for c in g.cols]
    if not any(g.sides for g in groups):
        heads = [_head(first, "full", False)[0]] + [_head(c, view, rotate)[0] for c in cols]
        return [" & ".join(heads) + r" \\"]
    top, rules, bottom, at = [""], [], [_head(first, "full", False)[0]], 2
    for g in groups:
        if g.sides:
            top.append(r"\multicolumn{2}{c}{" + tex_text(g.stem) + "}")
            rules.append(rf"\cmidrule(lr){{{at}-{at + 1}}}")
            bottom += [tex_text(side) for side in g.sides]
        else:
            top.append("")
            bottom.append(_head(g.cols[0], view, rotate)[0])
        at += len(g.cols)
    return [" & ".join(top) + r" \\" + " " + "".join(rules), " & ".join(bottom) + r" \\"]


def _render(first: _Column, groups: list[_Group], view: str, rotate: bool, caption: str) -> str:
    widths = _col_width(first, view, rotate) + sum(g.width(view, rotate) for g in groups)
    env = "table" if widths <= COLUMN_WIDTH_PT else "table*"
    cols = [c for g in groups for c in g.cols]
    out = [
        rf"\begin{{{env}}}[t]",
        r"\centering",
        r"\footnotesize",
        rf"\setlength{{\tabcolsep}}{{{TABCOLSEP_PT:g}pt}}",
        r"\sbox0{%",
        r"\begin{tabular}{" + "".join(_spec(c) for c in [first, *cols]) + "}",
        r"\toprule",
        *_heads(first, groups, view, rotate),
        r"\midrule",
    ]
    rows = zip(first.cells("full"), *(c.cells(view) for c in cols))
    out += [" & ".join(row) + r" \\" for row in rows]
    out += [
        r"\bottomrule",
        r"\end{tabular}}%",
        # TeX's own measure of the table, for the log and as a last guard: a table
        # wider than the line (an estimate fell short) is scaled to it, never overfull
        r"\typeout{evalkit table width \the\wd0 \space of \the\linewidth}%",
        r"\ifdim\wd0>\linewidth\resizebox{\linewidth}{!}{\usebox0}\else\usebox0\fi",
    ]
    if caption:
        out.append(r"\caption{" + caption + "}")
    out.append(rf"\end{{{env}}}")
    return "\n".join(out) + "\n"


def to_latex(df: pd.DataFrame, caption: str = "") -> str:
    """The LaTeX of a display table (its first column the row labels): one or more
    booktabs tables that fit a two-column article (module docstring)."""
    columns = [_column(c, df[c].tolist()) for c in df.columns]
    if not columns:
        return ""
    first, groups = columns[0], _groups(columns[1:])
    caption_tex = tex_text(caption) if caption else ""
    parts = []
    for part, view, rotate, suffix in _plan(first, groups):
        text = (caption_tex + tex_text(suffix)) if caption_tex else tex_text(suffix.strip(" ;"))
        parts.append(_render(first, part, view, rotate, text))
    return "\n".join(parts)
