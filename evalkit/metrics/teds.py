"""Tree-Edit-Distance-based Similarity (TEDS) of two tables, and its structure-only form.

Zhong, ShafieiBavani & Jimeno Yepes (2020), "Image-based table recognition: data, model, and
evaluation", ECCV (arXiv:1911.10683), section "Tree-Edit-Distance-based Similarity":

    TEDS(Ta, Tb) = 1 - EditDist(Ta, Tb) / max(|Ta|, |Tb|),   |T| = the number of nodes of T.

A table is a tree: ``table`` -> one ``tr`` per row -> one ``td`` per cell. The edit distance
is the least total cost of node edits turning one tree into the other (APTED: Pawlik &
Augsten 2016, the ``apted`` package): inserting or deleting a node costs 1; renaming costs 1
when the two nodes' tags differ, 0 when they agree and are not cells, and for two cells 1
when their column or row spans differ, else the normalised Levenshtein distance of their
contents (distance / the longer length; 0 for two empty cells). Structure-only TEDS
(:func:`teds_struct`) is the same with every cell's content left out, so two cells of equal
spans cost 0.

Departures and choices (named below): :data:`TREE_TAGS`, :data:`CELL_UNIT`,
:data:`COUNT_ROOT`. Our tables come from GFM Markdown, which has no spans: every cell has
colspan = rowspan = 1, kept in the nodes so the renaming rule is the paper's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from apted import APTED, Config
from rapidfuzz.distance import Levenshtein

__all__ = [
    "CELL_UNIT",
    "COUNT_ROOT",
    "TREE_TAGS",
    "TableNode",
    "edit_distance",
    "node_count",
    "rename_cost",
    "table_tree",
    "teds",
    "teds_struct",
]

Rows = Sequence[Sequence[str]]

#: the tree's levels. The paper's trees are parsed HTML (PubTabNet's ``src/metric.py`` keeps
#: ``thead`` and ``tbody`` between ``table`` and ``tr``); a GFM table always has exactly one
#: header row, first, so those two nodes would be the same in nearly every tree and only pull
#: scores towards 1. Header cells are ``td`` nodes, as PubTabNet writes them
TREE_TAGS = ("table", "tr", "td")
#: a cell's content is compared character by character. The paper speaks of tokens;
#: PubTabNet's ``tokenize`` makes a cell's tokens its characters plus one token per inline
#: HTML tag. Our cells are plain text (no tags), so characters give its values
CELL_UNIT = "character"
#: |T| counts every node of the tree, the ``table`` root included, as the paper's formula
#: reads. PubTabNet's ``evaluate`` counts ``table.xpath('.//*')``: the root left out, the
#: cells' inline tags (``<b>``) counted, which are not nodes of its tree
COUNT_ROOT = True


@dataclass(frozen=True, slots=True)
class TableNode:
    """A node of a table tree; ``content`` is a cell's text (None: not a cell, or the
    content is ignored)."""

    tag: str
    content: str | None = None
    colspan: int = 1
    rowspan: int = 1
    children: tuple[TableNode, ...] = ()


def table_tree(rows: Rows, structure_only: bool = False) -> TableNode:
    """The tree of a table given as rows of cell texts (``Element.rows``)."""
    table, tr, td = TREE_TAGS
    return TableNode(
        table,
        children=tuple(
            TableNode(tr, children=tuple(TableNode(td, None if structure_only else c) for c in row))
            for row in rows
        ),
    )


def node_count(tree: TableNode) -> int:
    """|T|: the nodes of ``tree`` (:data:`COUNT_ROOT`)."""
    return int(COUNT_ROOT) + sum(_subtree_size(child) for child in tree.children)


def _subtree_size(node: TableNode) -> int:
    return 1 + sum(_subtree_size(child) for child in node.children)


def rename_cost(a: TableNode, b: TableNode) -> float:
    """The cost of relabelling node ``a`` as node ``b`` (the paper's substitution rule)."""
    if a.tag != b.tag:
        return 1.0
    if a.tag != TREE_TAGS[2]:
        return 0.0
    if (a.colspan, a.rowspan) != (b.colspan, b.rowspan):
        return 1.0
    if a.content is None or b.content is None:
        return 0.0
    return Levenshtein.normalized_distance(a.content, b.content)


class _TedsConfig(Config):
    """apted's cost model: unit insertions and deletions, :func:`rename_cost`."""

    valuecls = float  # costs are fractions: apted's default int would truncate its tables

    def rename(self, node1: TableNode, node2: TableNode) -> float:
        return rename_cost(node1, node2)

    def children(self, node: TableNode) -> tuple[TableNode, ...]:
        return node.children


def edit_distance(a: TableNode, b: TableNode) -> float:
    """The tree edit distance of two table trees (APTED)."""
    return float(APTED(a, b, _TedsConfig()).compute_edit_distance())


def _teds(a: Rows, b: Rows, structure_only: bool) -> float:
    ta, tb = table_tree(a, structure_only), table_tree(b, structure_only)
    if ta == tb:  # distance 0 without running APTED
        return 1.0
    return 1.0 - edit_distance(ta, tb) / max(node_count(ta), node_count(tb))


def teds(a: Rows, b: Rows) -> float:
    """TEDS of two tables, cell contents included (1: identical; symmetric)."""
    return _teds(a, b, structure_only=False)


def teds_struct(a: Rows, b: Rows) -> float:
    """Structure-only TEDS of two tables: rows and cells, contents ignored."""
    return _teds(a, b, structure_only=True)
