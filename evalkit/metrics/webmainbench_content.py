"""WebMainBench's per-type scores as that benchmark computes them (code, formula, table, text).

Source: GitHub ``opendatalab/WebMainBench`` (Apache-2.0), ``webmainbench/metrics/``: ``base.py``
(``_extract_from_markdown``), ``text_metrics.py`` (``EditDistanceMetric``), ``table_metrics.py``,
``teds_metrics.py`` (``TEDSMetric``, ``TableConfig``) and ``calculator.py`` (``calculate_all``),
read at two commits, written here anew (no code copied):

* ``PUBLISHED_COMMIT`` (2025-09-12): the commit that wrote ``results/dataset_with_results.jsonl``,
  the 16 published (page, tool) records; its scorer files last changed in 9a269cc that morning.
* ``CURRENT_COMMIT`` (2026-06-13): the scorer as it stands. Its splitter (``code_extractor.py``,
  ``formula_extractor.py``, ``table_extractor.py``) leaves code out of the formula search and of
  the HTML-table search; an optional LLM rewrites the formula list (``LLM_FORMULA_FILTER``).

The scorer, Markdown path (``split_markdown``), for prediction and gold alike:

* **code**: each fenced block ```...``` (lazy, across lines) gives the lines between its first
  and last line; then each indented block (``INDENTED_BLOCK``) of at least
  ``MIN_INDENTED_LINES`` non-blank lines with no list, price or magnitude line
  (``NOT_CODE_LINE``) gives its non-blank lines less one indent. Parts joined by a newline.
* **formula**: the four patterns of ``FORMULA_PATTERNS`` in turn over the whole text, each
  non-blank stripped capture one part (a text matched by two patterns gives two parts).
* **table**: every outermost ``<table>`` as html.parser (BeautifulSoup) serialises it, then every
  run of lines holding a ``|`` whose second line is a separator row, as written.
* **text**: the whole Markdown, unchanged (the scorer computes a remainder and returns the
  original; ``TEXT_IS_WHOLE_MARKDOWN``).

Scores: each type's character edit similarity (1 - Levenshtein / longer length), a type empty on
both sides failing (no score); ``table_edit`` compares the tables normalised to HTML
(``table_html``); ``table_TEDS`` (only when ``table_edit`` scored) is
1 - distance / max(node count) on trees of that HTML, ``tbody``/``thead``/``tfoot`` spliced
(``SPLICED_TAGS``); ``overall`` is the mean of the scores a record has, in ``METRICS`` order.

The TEDS input (``teds_input``): the scorer hands APTED two bracket strings, not trees. APTED
1.0.3 reads a string as one node without children, so the distance is min(rename, 2), the rename
cost being ``TableConfig.rename`` on the two whole strings (``"strings"``, the published and
current behaviour): the strings' text parts' normalised Levenshtein, so two tables with any text
score at least 1 - 1/max(node count), whatever their cells and rows. ``"trees"`` gives APTED the trees themselves with the same costs: the
structure-aware TEDS the scorer's docstring describes, never run by it.

Assumptions, each a constant below: ``CONTENT_LIST_USED`` (the Markdown path only),
``LLM_FORMULA_FILTER`` (off), ``TEXT_IS_WHOLE_MARKDOWN``, ``SPLICED_TAGS``,
``LABEL_ESCAPES``, ``TEDS_INPUTS``. Needs ``beautifulsoup4`` (html.parser serialisation) and
``apted`` (``"trees"`` only).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable
from typing import Any, NamedTuple

from evalkit.metrics.webmainbench import char_edit_similarity

__all__ = [
    "CURRENT",
    "CURRENT_COMMIT",
    "METRICS",
    "PUBLISHED",
    "PUBLISHED_COMMIT",
    "SCORER_REPOSITORY",
    "TEDS_INPUTS",
    "VERSIONS",
    "Split",
    "TableNode",
    "published_scores",
    "record_scores",
    "split_markdown",
    "table_html",
    "table_teds",
    "table_tree",
    "tool_aggregate",
]

SCORER_REPOSITORY = "opendatalab/WebMainBench"
#: wrote results/dataset_with_results.jsonl (2025-09-12 16:02 +0800)
PUBLISHED_COMMIT = "4758670e21c89570d4c330ce1b1be00645dd3462"
#: the scorer as it stands (2026-06-13, the newest commit of the snapshot read)
CURRENT_COMMIT = "9d991bdc00c57b57521499494d96be85c31317ba"
PUBLISHED = "2025-09-12"
CURRENT = "current"
VERSIONS = (PUBLISHED, CURRENT)

#: calculator.py's order: the untyped metrics first, then the table pair; overall sums in it
METRICS = ("code_edit", "formula_edit", "text_edit", "table_edit", "table_TEDS")

#: evaluator.py's order of the five means in a tool's overall
AGGREGATE_ORDER = ("text_edit", "code_edit", "table_edit", "table_TEDS", "formula_edit")

#: a tool's or the gold's ``content_list`` is not read: in the published run the tools' lists
#: were empty and the gold's a list of lists, which the scorer's walk (dicts only) skips whole
CONTENT_LIST_USED = False
#: current scorer: an LLM may rewrite the formula list of both sides (the metric path passes no
#: field name, so the gold is not spared); not reproducible, so off (its default with no API key)
LLM_FORMULA_FILTER = False
#: the "text" part is the whole Markdown, code, formulas and tables included, in both versions
TEXT_IS_WHOLE_MARKDOWN = True
#: tags whose element stays a node but takes its children's children (rows dropped under them)
SPLICED_TAGS = frozenset({"tbody", "thead", "tfoot"})
#: characters replaced in a node's text before it enters a bracket label
LABEL_ESCAPES = str.maketrans({"(": "[", ")": "]", ",": ";"})
#: "strings": as the scorer runs APTED (bracket strings); "trees": APTED on the trees
TEDS_INPUTS = ("strings", "trees")

FENCED_BLOCK = re.compile(r"```[\s\S]*?```")
#: after a blank line, two or more lines each opened by 4+ spaces or tabs, before a blank line
#: or a line end ($ under MULTILINE, as the scorer compiles it)
INDENTED_BLOCK = re.compile(
    r"(?:\n\s*\n)((?:(?: {4,}|\t+)[^\n]*(?:\n|$)){2,})(?=\n\s*\n|$)", re.MULTILINE
)
MIN_INDENTED_LINES = 2
#: an indented line that is a list item, a price or a magnitude makes the block not code
NOT_CODE_LINE = (
    re.compile(r"[-•*]\s"),
    re.compile(r"\d+\.\s"),
    re.compile(r".*\$[\d,]"),
    re.compile(r".*\b(million|billion|thousand)\b", re.IGNORECASE),
)
#: display $$..$$, display \[..\], inline $..$, inline \(..\); delimiters not backslash-escaped
FORMULA_PATTERNS = tuple(
    re.compile(p, re.DOTALL)
    for p in (
        r"(?<!\\)\$\$(.*?)(?<!\\)\$\$",
        r"(?<!\\)\\\[(.*?)(?<!\\)\\\]",
        r"(?<!\\)\$(.*?)(?<!\\)\$",
        r"(?<!\\)\\\((.*?)(?<!\\)\\\)",
    )
)
#: current splitter: fenced blocks, then inline code spans, removed before formulas/HTML tables
CODE_SPANS = (re.compile(r"```.*?```", re.DOTALL), re.compile(r"`[^`]*`"))
SEPARATOR_CELL = re.compile(r":?-{3,}:?")
#: a line of only pipes, dashes, colons and spaces is left out of a Markdown table's rows
SEPARATOR_ROW = re.compile(r"[\s|\-:]+")


class Split(NamedTuple):
    """One Markdown text split as the scorer splits it."""

    code: str
    formula: str
    table: str
    text: str


class TableNode(NamedTuple):
    """A node of the scorer's table tree: its tag, its whole stripped text, its children."""

    tag: str
    text: str
    children: tuple[TableNode, ...]


@functools.cache
def _bs4() -> Any:
    try:
        import bs4
    except ImportError as exc:
        raise ImportError(
            "WebMainBench's splitter needs the package 'beautifulsoup4' (pip install beautifulsoup4)"
        ) from exc
    return bs4


def _soup(markup: str) -> Any:
    return _bs4().BeautifulSoup(markup, "html.parser")


# --- the splitter ------------------------------------------------------------------------


def _fenced_code(text: str) -> list[str]:
    parts = []
    for m in FENCED_BLOCK.finditer(text):
        inner = "\n".join(m.group(0).split("\n")[1:-1])  # the fence lines dropped
        if inner:
            parts.append(inner)
    return parts


def _unindent(line: str) -> str:
    if line.startswith("    "):
        return line[4:]
    return line.removeprefix("\t")


def _indented_code(text: str) -> list[str]:
    parts = []
    for m in INDENTED_BLOCK.finditer(text):
        lines = m.group(1).split("\n")
        filled = [ln for ln in lines if ln.strip()]
        if not all(ln.startswith(("    ", "\t")) for ln in filled):
            continue
        stripped = [ln.strip() for ln in filled]
        if len(stripped) < MIN_INDENTED_LINES:
            continue
        if any(p.match(ln) for ln in stripped for p in NOT_CODE_LINE):
            continue
        code = "\n".join(_unindent(ln) for ln in filled)
        if code.strip():
            parts.append(code)
    return parts


def _without_code(text: str) -> str:
    for pattern in CODE_SPANS:
        text = pattern.sub("", text)
    return text


def _formulas(text: str) -> list[str]:
    return [
        m.group(1).strip() for p in FORMULA_PATTERNS for m in p.finditer(text) if m.group(1).strip()
    ]


def _html_tables(text: str) -> list[str]:
    return [
        str(t)
        for t in _soup(text).find_all("table")
        if t.find_parent(["td", "tr", "tbody", "table"]) is None
    ]


def _is_separator(line: str) -> bool:
    return all(not c or SEPARATOR_CELL.fullmatch(c) for c in (p.strip() for p in line.split("|")))


def _markdown_tables(text: str) -> list[str]:
    tables, run = [], []
    for line in [*text.split("\n"), ""]:  # a last empty line closes a trailing run
        if "|" in line:
            run.append(line)
            continue
        if len(run) >= 2 and _is_separator(run[1]):
            tables.append("\n".join(run))
        run = []
    return tables


def split_markdown(markdown: str | None, version: str = PUBLISHED) -> Split:
    """The four parts of one Markdown text under the scorer of ``version`` (module docstring)."""
    if version not in VERSIONS:
        raise ValueError(f"version must be one of {VERSIONS}, not {version!r}")
    text = markdown or ""
    if not text:
        return Split("", "", "", "")
    code = _fenced_code(text) + _indented_code(text)
    searched = _without_code(text) if version == CURRENT else text
    formula = _formulas(searched)
    table = _html_tables(searched) + _markdown_tables(text)
    return Split("\n".join(code), "\n".join(formula), "\n".join(table), text)


# --- tables: HTML normalisation, trees, TEDS ------------------------------------------------


def _markdown_table_html(markdown: str) -> str:
    rows = [ln.strip() for ln in markdown.split("\n") if ln.strip() and "|" in ln]
    if not rows:
        return ""
    out = ["<table>"]
    for i, row in enumerate(r for r in rows if not SEPARATOR_ROW.fullmatch(r)):
        cells = [c.strip() for c in row.split("|") if c.strip()]
        tag = "th" if i == 0 else "td"  # the first row that is not a separator is the header
        if cells:
            out.append("<tr>" + "".join(f"<{tag}>{c}</{tag}>" for c in cells) + "</tr>")
    out.append("</table>")
    return "".join(out)


def table_html(table: str | None) -> str:
    """A table part as the scorer normalises it: HTML kept, Markdown rows to HTML, else one cell.

    A part holding any ``<table`` is kept whole, so its Markdown tables stay as text; several
    Markdown tables become one HTML table of all their rows.
    """
    if not table or not table.strip():
        return ""
    if "<table" in table.lower():
        return table
    if "|" in table:
        return _markdown_table_html(table)
    return f"<table><tr><td>{table}</td></tr></table>"


def _node(element: Any) -> TableNode:
    kids = [c for c in element.children if getattr(c, "name", None)]
    if element.name in SPLICED_TAGS:
        children = tuple(g for c in kids for g in _node(c).children)
    else:
        children = tuple(_node(c) for c in kids)
    return TableNode(element.name, element.get_text(strip=True), children)


def table_tree(html: str) -> TableNode | None:
    """The scorer's tree of the first ``<table>`` in ``html`` (html.parser); None without one."""
    if not html.strip():
        return None
    table = _soup(html).find("table")
    return None if table is None else _node(table)


def _count(node: TableNode) -> int:
    return 1 + sum(_count(c) for c in node.children)


def _label(node: TableNode) -> str:
    return f"{node.tag}:{node.text.translate(LABEL_ESCAPES)}" if node.text else node.tag


def _bracket(node: TableNode) -> str:
    if not node.children:
        return _label(node)
    return _label(node) + "(" + ",".join(_bracket(c) for c in node.children) + ")"


def _rename_cost(a: str, b: str) -> float:
    """``TableConfig.rename`` on two labels ``tag[:text]``: 1 across tags, else text distance.

    The text distance is Levenshtein / longer length, but the length of the other text when one
    text is empty (not normalised, as there).
    """
    tag_a, _, text_a = a.partition(":")
    tag_b, _, text_b = b.partition(":")
    if tag_a != tag_b:
        return 1.0
    if text_a == text_b:
        return 0.0
    if not text_a or not text_b:
        return float(len(text_a or text_b))
    from rapidfuzz.distance import Levenshtein

    return Levenshtein.distance(text_a, text_b) / max(len(text_a), len(text_b))


def _string_distance(a: TableNode, b: TableNode) -> float:
    """APTED on the two bracket strings: each one childless node, so min(rename, delete + insert)."""
    return min(_rename_cost(_bracket(a), _bracket(b)), 2.0)


@functools.cache
def _tree_config() -> Any:
    from apted import Config

    class _Costs(Config):
        valuecls = float

        def rename(self, a: TableNode, b: TableNode) -> float:
            return _rename_cost(_label(a), _label(b))

        def children(self, node: TableNode) -> tuple[TableNode, ...]:
            return node.children

    return _Costs()


def _tree_distance(a: TableNode, b: TableNode) -> float:
    from apted import APTED

    return float(APTED(a, b, _tree_config()).compute_edit_distance())


def table_teds(
    pred_table: str | None, gold_table: str | None, teds_input: str = "strings"
) -> float:
    """``TEDSMetric`` on two table parts: 1 - distance / larger node count, clipped to [0, 1].

    Both without a table: 1; one without: 0. ``teds_input`` is the module docstring's question.
    """
    if teds_input not in TEDS_INPUTS:
        raise ValueError(f"teds_input must be one of {TEDS_INPUTS}, not {teds_input!r}")
    pred, gold = table_tree(table_html(pred_table)), table_tree(table_html(gold_table))
    if pred is None or gold is None:
        return 1.0 if pred is gold else 0.0
    distance = (_string_distance if teds_input == "strings" else _tree_distance)(pred, gold)
    return max(0.0, min(1.0, 1.0 - distance / max(_count(pred), _count(gold))))


# --- one record -----------------------------------------------------------------------------


def record_scores(
    pred_markdown: str | None,
    gold_markdown: str | None,
    version: str = PUBLISHED,
    teds_input: str = "strings",
) -> dict[str, float]:
    """The scores one (page, tool) record gets, keyed as ``METRICS`` plus ``overall``.

    A metric the scorer fails (a type empty on both sides; TEDS when ``table_edit`` failed) is
    absent, as in its records, and left out of ``overall``; no scores at all, no ``overall``.
    """
    pred, gold = split_markdown(pred_markdown, version), split_markdown(gold_markdown, version)
    out: dict[str, float] = {}
    pairs = (
        ("code_edit", pred.code, gold.code),
        ("formula_edit", pred.formula, gold.formula),
        ("text_edit", pred.text, gold.text),
        ("table_edit", table_html(pred.table), table_html(gold.table)),
    )
    for name, a, b in pairs:
        similarity = char_edit_similarity(a, b)
        if not math.isnan(similarity):
            out[name] = similarity
    if "table_edit" in out:
        out["table_TEDS"] = table_teds(pred.table, gold.table, teds_input)
    if out:
        out["overall"] = sum(out.values()) / len(out)  # insertion order is METRICS order
    return out


def tool_aggregate(records: Iterable[dict[str, float]]) -> dict[str, float]:
    """A tool's row (``evaluator._aggregate_metrics``) from its records' ``record_scores``.

    Each metric: the mean over the records that have it, 0.0 when none has it; ``overall``: the
    mean of the five, a metric no record has counting as 0 (not the mean of record overalls).
    """
    records = list(records)
    row = {}
    for m in METRICS:
        got = [r[m] for r in records if m in r]
        row[m] = sum(got) / len(got) if got else 0.0
    row["overall"] = sum(row[m] for m in AGGREGATE_ORDER) / len(AGGREGATE_ORDER)
    return row


def published_scores(record: dict[str, Any], tool: str) -> dict[str, float]:
    """The scores a ``dataset_with_results`` record publishes for ``tool`` (``<tool>_<m>_score``)."""
    names = (*METRICS, "overall")
    return {m: record[f"{tool}_{m}_score"] for m in names if f"{tool}_{m}_score" in record}
