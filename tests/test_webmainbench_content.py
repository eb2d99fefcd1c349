"""WebMainBench's per-type scores (evalkit.metrics.webmainbench_content, docs/benchmarks.md).

Hand-made Markdown first (no data needed), then the 16 published (page, tool) records of
``webmainbench-sample`` (``dataset_with_results.jsonl.gz``), skipped when the shared data is absent.
"""

from __future__ import annotations

import csv
import functools
import gzip
import io
import json

import pytest
from conftest import shared_dataset

from evalkit.metrics import webmainbench_content as wmc

MIXED = (
    "Intro $x^2$ and \\(y\\).\n\n```python\nprint(1)\n```\n\n"
    "| a | b |\n|---|---|\n| 1 | 2 |\n\n$$E=mc^2$$\n\n<table><tr><td>h</td></tr></table>\n\n"
    "Text `$z$` end.\n\n    line one\n    line two\n\nbye"
)
GOLD_TABLE = "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |"


# --- the splitter ---------------------------------------------------------------------------


def test_mixed_markdown_splits_as_the_published_scorer_splits_it():
    s = wmc.split_markdown(MIXED)
    assert s.code == "print(1)\nline one\nline two"  # fenced first, then indented, one indent less
    # display $$ first, then inline $ (the `$z$` inside code too), then \( \)
    assert s.formula == "E=mc^2\nx^2\nz\ny"
    # HTML tables (html.parser's serialisation) before Markdown tables, as written
    assert s.table == "<table><tr><td>h</td></tr></table>\n| a | b |\n|---|---|\n| 1 | 2 |"
    assert s.text == MIXED  # the text part is the whole Markdown


def test_the_current_scorer_leaves_code_out_of_formulas_and_html_tables_only():
    md = "```\n<table><tr><td>c</td></tr></table>\n| x | y |\n|---|---|\n```\n\nSee `$a$` and $b$."
    old, new = wmc.split_markdown(md), wmc.split_markdown(md, wmc.CURRENT)
    assert old.formula == "a\nb" and new.formula == "b"
    assert old.table == "<table><tr><td>c</td></tr></table>\n| x | y |\n|---|---|"
    assert new.table == "| x | y |\n|---|---|"  # its Markdown-table search still reads code
    assert old.code == new.code == "<table><tr><td>c</td></tr></table>\n| x | y |\n|---|---|"


@pytest.mark.parametrize(
    ("block", "code"),
    [
        ("    a = 1\n    b = 2\n", "a = 1\nb = 2"),
        ("    only one line\n", ""),  # fewer than MIN_INDENTED_LINES
        ("    - item\n    b = 2\n", ""),  # a list line
        ("    costs $5\n    b = 2\n", ""),  # a price
        ("    two million\n    b = 2\n", ""),  # a magnitude
    ],
)
def test_indented_code_blocks(block, code):
    assert wmc.split_markdown(f"para\n\n{block}\nend").code == code


def test_fenced_code_keeps_the_lines_between_the_fence_lines():
    assert wmc.split_markdown("```py\nx\n\ny\n```").code == "x\n\ny"
    assert wmc.split_markdown("```inline```").code == ""  # one line: nothing between


def test_markdown_tables_need_a_separator_as_second_line():
    assert wmc.split_markdown("a | b\nc | d\n").table == ""
    assert wmc.split_markdown("a | b\n--- | ---\nc | d").table == "a | b\n--- | ---\nc | d"
    assert wmc.split_markdown("x\n| a |\n|:---:|\ny\n| b |\n|---|").table == (
        "| a |\n|:---:|\n| b |\n|---|"
    )


def test_escaped_dollars_are_no_formula_and_unescaped_ones_span_lines():
    assert wmc.split_markdown("\\$5 and \\$6").formula == ""
    assert wmc.split_markdown("pay $5.\n\nThen $6").formula == "5.\n\nThen"


def test_empty_and_bad_arguments():
    assert wmc.split_markdown(None) == wmc.Split("", "", "", "")
    with pytest.raises(ValueError, match="version"):
        wmc.split_markdown("x", "2024")
    with pytest.raises(ValueError, match="teds_input"):
        wmc.table_teds("a|b", "a|b", "graphs")


# --- tables -----------------------------------------------------------------------------------


def test_table_html_normalisation():
    assert wmc.table_html("") == wmc.table_html("  \n") == ""
    assert wmc.table_html(GOLD_TABLE) == (
        "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr>"
        "<tr><td>3</td><td>4</td></tr></table>"
    )
    assert wmc.table_html("plain") == "<table><tr><td>plain</td></tr></table>"
    mixed = "<TABLE><tr><td>h</td></tr></TABLE>\n| a |\n|---|"
    assert wmc.table_html(mixed) == mixed  # any <table: kept whole, Markdown included
    # several Markdown tables: one table of all their rows, one header row
    assert wmc.table_html("| a |\n|---|\n| b |\n|---|").count("<th>") == 1


def test_table_tree_splices_tbody_thead_tfoot_and_drops_their_rows():
    html = "<table><thead><tr><th>a</th></tr></thead><tbody><tr><td>1</td></tr></tbody></table>"
    tree = wmc.table_tree(html)
    assert [c.tag for c in tree.children] == ["thead", "tbody"]
    assert [g.tag for c in tree.children for g in c.children] == ["th", "td"]  # no tr
    assert tree.text == "a1"
    assert wmc.table_tree("no table") is None


def test_teds_worked_examples_strings_and_trees():
    drop = "| a | b |\n|---|---|\n| 1 | 2 |"
    junk = "| x | y |\n|---|---|\n| 7 | 8 |\n| 9 | 0 |"
    for mode in wmc.TEDS_INPUTS:
        assert wmc.table_teds(GOLD_TABLE, GOLD_TABLE, mode) == 1.0
        assert wmc.table_teds("", "", mode) == 1.0
        assert wmc.table_teds("", GOLD_TABLE, mode) == 0.0
    # trees: 10 nodes; a row dropped = 3 deletions + the table's text 'ab1234' -> 'ab12' (2/6)
    assert wmc.table_teds(drop, GOLD_TABLE, "trees") == pytest.approx(1 - (3 + 2 / 6) / 10)
    assert wmc.table_teds(GOLD_TABLE, drop, "trees") == wmc.table_teds(drop, GOLD_TABLE, "trees")
    assert wmc.table_teds(junk, GOLD_TABLE, "trees") == 0.0  # every label renamed
    # strings: one rename of the whole serialisation, at most 1, so >= 1 - 1/10 on both
    assert 0.9 <= wmc.table_teds(drop, GOLD_TABLE) < 1.0
    assert 0.9 <= wmc.table_teds(junk, GOLD_TABLE) < 1.0


def test_the_string_distance_is_what_apted_returns_on_bracket_strings():
    from apted import APTED, Config

    class Scorers(Config):  # its TableConfig: apted reads each string as one childless node
        def rename(self, a, b):
            return wmc._rename_cost(a, b)

    gold = wmc.table_tree(wmc.table_html(GOLD_TABLE))
    for md in ("| a | b |\n|---|---|\n| 1 | 2 |", "| x |\n|---|\n| 7 |", "| |\n|---|\n| z |"):
        pred = wmc.table_tree(wmc.table_html(md))
        got = APTED(wmc._bracket(pred), wmc._bracket(gold), Scorers()).compute_edit_distance()
        assert wmc._string_distance(pred, gold) == pytest.approx(got)
    assert wmc._bracket(gold) == "table:ab1234(tr:ab(th:a,th:b),tr:12(td:1,td:2),tr:34(td:3,td:4))"


def test_rename_cost():
    assert wmc._rename_cost("td:a", "th:a") == 1.0
    assert wmc._rename_cost("td:abcd", "td:abcx") == 0.25
    assert wmc._rename_cost("td", "td:abc") == 3.0  # one text empty: its length, not normalised


# --- records ----------------------------------------------------------------------------------


def test_record_scores_leave_out_what_the_scorer_fails():
    assert wmc.record_scores("", "") == {}
    got = wmc.record_scores("just text", "just text!")
    assert set(got) == {"text_edit", "overall"} and got["overall"] == got["text_edit"] == 0.9
    got = wmc.record_scores("no table", GOLD_TABLE)  # a table on one side only: 0 and 0
    assert got["table_edit"] == 0.0 and got["table_TEDS"] == 0.0
    assert got["overall"] == pytest.approx(got["text_edit"] / 3)
    got = wmc.record_scores(MIXED, MIXED)
    assert list(got) == [*wmc.METRICS, "overall"] and set(got.values()) == {1.0}


def test_tool_aggregate_counts_a_metric_no_record_has_as_zero():
    row = wmc.tool_aggregate([{"text_edit": 1.0, "code_edit": 0.5}, {"text_edit": 0.5}])
    assert row["text_edit"] == 0.75 and row["code_edit"] == 0.5 and row["table_TEDS"] == 0.0
    assert row["overall"] == pytest.approx((0.75 + 0.5) / 5)


# --- the 16 published records ----------------------------------------------------------------

TOOLS = ("llm-webkit", "magic-html", "trafilatura", "resiliparse")
PAGES = range(4)
TOLERANCE = 1e-6


@functools.cache
def _records() -> tuple[dict, ...]:
    path = shared_dataset("webmainbench-sample") / "dataset_with_results.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return tuple(json.loads(line) for line in f if line.strip())


def _shared_file(name: str) -> bytes:
    return gzip.decompress((shared_dataset("webmainbench-sample") / name).read_bytes())


def _ours(page: int, tool: str, **kw) -> dict[str, float]:
    r = _records()[page]
    return wmc.record_scores(r[f"{tool}_content"], r["groundtruth_content"], **kw)


def _ours_md(page: int, tool: str) -> str:
    return _records()[page][f"{tool}_content"]


@pytest.mark.shared
@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize("page", PAGES)
def test_published_record_reproduced(page, tool):
    published = wmc.published_scores(_records()[page], tool)
    ours = _ours(page, tool)
    assert set(ours) == set(published)  # the same metrics failed (no key) as there
    for name, value in published.items():
        assert ours[name] == pytest.approx(value, abs=TOLERANCE), name


@pytest.mark.shared
def test_published_split_parts_reproduced():
    for r in _records():
        for tool in TOOLS:
            assert wmc.split_markdown(r[f"{tool}_content"]) == tuple(
                r[f"{tool}_predicted_{p}"] for p in wmc.Split._fields
            )
        gold = tuple(r[f"groundtruth_groundtruth_{p}"] for p in wmc.Split._fields)
        assert wmc.split_markdown(r["groundtruth_content"]) == gold


@pytest.mark.shared
def test_the_current_scorer_and_tree_teds_give_the_same_16_records():
    # no `$` in these pages' code and no HTML table: the current splitter (LLM off) splits all
    # 20 texts alike; the one table pair is cell for cell equal, so strings and trees agree
    for r in _records():
        for md in (r["groundtruth_content"], *(r[f"{t}_content"] for t in TOOLS)):
            assert wmc.split_markdown(md) == wmc.split_markdown(md, wmc.CURRENT)
    for page in PAGES:
        for tool in TOOLS:
            base = _ours(page, tool)
            assert _ours(page, tool, version=wmc.CURRENT) == base
            assert _ours(page, tool, teds_input="trees") == base
    teds = {(p, t): _ours(p, t).get("table_TEDS") for p in PAGES for t in TOOLS}
    assert sorted(v for v in teds.values() if v is not None) == [0.0, 0.0, 0.0, 1.0]


@pytest.mark.shared
def test_the_two_records_an_llm_formula_filter_would_change():
    """Documented: the current scorer's optional LLM may drop these formula parts (prose)."""
    hit = [(p, t) for p in PAGES for t in TOOLS if wmc.split_markdown(_ours_md(p, t)).formula]
    page = _records()[1]  # the terms-of-use page
    assert hit == [(1, "magic-html"), (1, "resiliparse")]
    assert wmc.split_markdown(page["groundtruth_content"]).formula == ""  # its $ are escaped
    for p, t in hit:
        ours = _ours(p, t)
        assert "($50)" in _ours_md(p, t)  # unescaped dollars: prose between them is "formula"
        assert ours["formula_edit"] == 0.0 == page[f"{t}_formula_edit_score"]
        published = page[f"{t}_overall_score"]
        assert published == pytest.approx(ours["text_edit"] / 2, abs=TOLERANCE)
        # formula part emptied by the filter: formula_edit fails, overall = text_edit
        without = {k: v for k, v in ours.items() if k not in ("formula_edit", "overall")}
        assert sum(without.values()) / len(without) == ours["text_edit"] > 0.99


@pytest.mark.shared
def test_evaluation_results_reproduced_and_the_leaderboard_rows_that_are_not():
    results = json.loads(_shared_file("evaluation_results.json.gz"))
    rows = {t: wmc.tool_aggregate(_ours(p, t) for p in PAGES) for t in TOOLS}
    for res in results:
        tool = res["metadata"]["extractor_name"]
        for name, value in res["overall_metrics"].items():
            assert rows[tool][name] == pytest.approx(value, abs=TOLERANCE), (tool, name)
    board = {
        r["extractor"]: r
        for r in csv.DictReader(io.StringIO(_shared_file("leaderboard.csv.gz").decode()))
    }
    for tool in ("llm-webkit", "resiliparse"):
        for name in (*wmc.METRICS, "overall"):
            assert float(board[tool][name]) == round(rows[tool][name], 4)
    # documented: rows not derivable from the published per-page records (another run's outputs)
    assert (float(board["magic-html"]["overall"]), round(rows["magic-html"]["overall"], 4)) == (
        0.174,
        0.7631,
    )
    assert (float(board["trafilatura"]["overall"]), round(rows["trafilatura"]["overall"], 4)) == (
        0.1325,
        0.1121,
    )
