"""TEDS (Zhong, ShafieiBavani & Jimeno Yepes 2020) on hand-worked trees: evalkit.metrics.teds.

Every expected value is worked by hand in the comment beside it: |T| = 1 (table) + rows +
cells; insert/delete cost 1; a cell renamed costs its normalised Levenshtein distance.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalkit.metrics.teds import (
    TableNode,
    edit_distance,
    node_count,
    rename_cost,
    table_tree,
    teds,
    teds_struct,
)

T32 = (("a", "b"), ("c", "d"), ("e", "f"))  # 3 rows x 2 cells: 1 + 3 + 6 = 10 nodes


def test_node_count_counts_the_root_rows_and_cells():
    assert node_count(table_tree(T32)) == 10
    assert node_count(table_tree(())) == 1  # a table without rows: its root alone
    assert node_count(table_tree(((),))) == 2
    assert node_count(table_tree((("x",), ("y", "z", "w")))) == 1 + 2 + 4


def test_identical_tables_score_one():
    assert teds(T32, T32) == 1.0
    assert teds_struct(T32, T32) == 1.0
    assert teds((), ()) == 1.0  # two one-node trees, distance 0


def test_one_cell_changed():
    # "cat" -> "cut": one rename, cost Lev("cat", "cut") / 3 = 1/3; 10 nodes on both sides:
    # TEDS = 1 - (1/3) / 10 = 29/30. The structure is untouched: structure-only TEDS = 1
    a = (("cat", "b"), ("c", "d"), ("e", "f"))
    b = (("cut", "b"), ("c", "d"), ("e", "f"))
    assert teds(a, b) == pytest.approx(29 / 30)
    assert teds_struct(a, b) == 1.0
    # a cell rewritten entirely costs 1 (a rename; deleting and inserting would cost 2):
    # 1 - 1/10
    c = (("a", "x"), ("c", "d"), ("e", "f"))
    assert teds(T32, c) == pytest.approx(0.9)


def test_one_row_dropped():
    # 3x2 minus its last row: 10 vs 7 nodes; delete one tr and its two td = 3: 1 - 3/10
    assert teds(T32, T32[:2]) == pytest.approx(0.7)
    assert teds_struct(T32, T32[:2]) == pytest.approx(0.7)
    # the middle row: the same three deletions
    assert teds(T32, (T32[0], T32[2])) == pytest.approx(0.7)


def test_column_dropped_and_cell_added():
    # 2x2 (7 nodes) vs its first column (5 nodes): delete 2 td: 1 - 2/7
    two = (("a", "b"), ("c", "d"))
    assert teds(two, (("a",), ("c",))) == pytest.approx(5 / 7)
    # one row of 2 cells (4 nodes) vs the same row with a third cell (5 nodes): 1 - 1/5
    assert teds((("a", "b"),), (("a", "b", "c"),)) == pytest.approx(0.8)


def test_one_cell_tables():
    # 3 nodes each; "abc" -> "xyz" renames at cost 1: 1 - 1/3; structure identical
    assert teds((("abc",),), (("xyz",),)) == pytest.approx(2 / 3)
    assert teds_struct((("abc",),), (("xyz",),)) == 1.0
    # "ab" -> "ac": 1/2; 1 - (1/2)/3 = 5/6
    assert teds((("ab",),), (("ac",),)) == pytest.approx(5 / 6)


def test_empty_tables_and_cells():
    # no rows vs 3x2: the 9 nodes under the root are inserted: 1 - 9/10
    assert teds((), T32) == pytest.approx(0.1)
    assert teds(T32, ()) == pytest.approx(0.1)
    # one empty row (2 nodes) vs no rows (1 node): 1 - 1/2
    assert teds(((),), ()) == pytest.approx(0.5)
    # empty cells: two empty cells agree (cost 0); "" -> "a" costs 1: 1 - 1/4
    assert teds((("", ""),), (("", ""),)) == 1.0
    assert teds((("", ""),), (("a", ""),)) == pytest.approx(0.75)
    assert teds_struct((("", ""),), (("a", ""),)) == 1.0


def test_rename_rule_is_the_papers():
    cell = TableNode("td", "ab")
    assert rename_cost(cell, TableNode("td", "ab")) == 0.0
    assert rename_cost(cell, TableNode("td", "ac")) == pytest.approx(0.5)
    assert rename_cost(cell, TableNode("td", "")) == 1.0
    # spans differ: 1 whatever the content
    assert rename_cost(cell, TableNode("td", "ab", colspan=2)) == 1.0
    assert rename_cost(cell, TableNode("td", "ab", rowspan=3)) == 1.0
    # a node that is not a cell: 1 when the tags differ, else 0
    assert rename_cost(cell, TableNode("tr")) == 1.0
    assert rename_cost(TableNode("tr"), TableNode("table")) == 1.0
    assert rename_cost(TableNode("tr"), TableNode("tr")) == 0.0
    # structure only: content ignored, spans still count
    assert rename_cost(TableNode("td"), TableNode("td")) == 0.0
    assert rename_cost(TableNode("td"), TableNode("td", colspan=2)) == 1.0


def test_spans_enter_the_distance():
    # the same one-cell table with the cell spanning two columns: one rename at cost 1
    a = TableNode("table", children=(TableNode("tr", children=(TableNode("td", "x"),)),))
    b = TableNode("table", children=(TableNode("tr", children=(TableNode("td", "x", 2),)),))
    assert edit_distance(a, b) == 1.0


PAIRS = [
    (T32, T32[:2]),
    (T32, (("a", "x"), ("c", "d"))),
    ((("ab", "cd", "ef"),), (("ab",), ("cd",), ("ef",))),
    ((("a", "b"), ("c", "d")), (("c", "d"), ("a", "b"))),
    ((("h1", "h2"), ("1", "2"), ("3", "4")), (("h1", "h2", "h3"), ("1", "2", "x"))),
    ((), (("q",),)),
]


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_symmetry(a, b):
    assert teds(a, b) == pytest.approx(teds(b, a), abs=1e-12)
    assert teds_struct(a, b) == pytest.approx(teds_struct(b, a), abs=1e-12)


def test_rows_swapped():
    # ((a, b), (c, d)) vs ((c, d), (a, b)), 7 nodes each. Mapping tr to tr renames four cells
    # at cost 1 each (4). Keeping row (c, d) mapped costs 3 + 3: delete the first row with
    # its 2 cells, insert a new last row with its 2 cells (6). Deleting only the tr nodes
    # does not help: cells stay in order, so a, b would still precede c, d. Least: 4; 1 - 4/7
    a = (("a", "b"), ("c", "d"))
    assert teds(a, a[::-1]) == pytest.approx(3 / 7)
    assert teds_struct(a, a[::-1]) == 1.0


cells = st.text(alphabet="abc ", max_size=4)
tables = st.lists(st.lists(cells, max_size=3).map(tuple), max_size=3).map(tuple)


@given(tables, tables)
def test_bounds_symmetry_and_structure_at_least_content(a, b):
    full, struct = teds(a, b), teds_struct(a, b)
    assert 0.0 <= full <= struct + 1e-12 <= 1.0 + 1e-12  # content costs only add
    assert full == pytest.approx(teds(b, a), abs=1e-12)
    # the edit distance is at least the difference of node counts
    na, nb = node_count(table_tree(a)), node_count(table_tree(b))
    assert full <= min(na, nb) / max(na, nb) + 1e-12
    assert teds(a, a) == 1.0


def test_apted_agrees_with_brute_force_on_tiny_trees():
    # for two one-row tables, any mapping keeps tr -> tr (both roots and both rows kept, or
    # cost more): the distance is the edit distance of the cell sequences, insert/delete 1,
    # substitution the normalised Levenshtein distance. Checked on every pair of short rows
    from rapidfuzz.distance import Levenshtein

    def seq_distance(x, y):
        d = [[0.0] * (len(y) + 1) for _ in range(len(x) + 1)]
        for i in range(len(x) + 1):
            for j in range(len(y) + 1):
                if i == 0 or j == 0:
                    d[i][j] = float(i + j)
                else:
                    sub = Levenshtein.normalized_distance(x[i - 1], y[j - 1])
                    d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + sub)
        return d[-1][-1]

    rows = [(), ("a",), ("ab",), ("a", "b"), ("b", "a"), ("ab", "b", "x")]
    for x, y in itertools.product(rows, repeat=2):
        n = max(len(x), len(y)) + 2
        assert teds((x,), (y,)) == pytest.approx(1 - seq_distance(x, y) / n), (x, y)
