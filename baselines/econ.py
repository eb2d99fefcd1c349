"""ECON: an approach to extract content from Web news pages (Guo, Tang, Song, Wang & Ding,
APWeb 2010).

The seed paper's system "ECON [7]" in its Table 6 (docs/papers.md#saravanan2020). The
publication's abstract: ECON "finds a snippet-node by which a part of the content of news
is wrapped firstly, then backtracks from the snippet-node until a summary-node is found,
and the entire content of news is wrapped by the summary-node. During the process of
backtracking, ECON removes noise." The seed paper: "the number of punctuations present in
the core content block will be always higher than the noise block." Only the abstract
and the first page of the publication could be read here; the snippet test, the noise
test and the stopping rule below are our reading of those sentences, each a named
setting (docs/methods/econ.md):

* **Punctuation**: the marks of :data:`DEFAULT_PUNCTUATION`, English and Chinese
  (full-width) sentence and clause marks; ``marks(N)`` counts them in the text of N's
  subtree (script, style, noscript and comments removed first).
* **Snippet node**: the text node (an element's text, or the text after an element)
  with the most marks, the first in document order on ties, and at least
  ``min_snippet_marks`` (1) of them; a page without one gives an empty output. The
  backtracking starts at the element that holds that text.
* **Backtracking**: from the current node N to its parent P while P holds at least
  ``min_new_marks`` (1) marks more than N (P wraps more of the news); otherwise N is
  the summary node. ``<body>`` is the last node reached.
* **Noise removal**: every node the backtracking reaches (the start and each parent
  taken) loses its children with fewer than ``noise_marks`` (1) marks: in the seed
  paper's words, a block without punctuation is noise. Children of other nodes are not
  looked at.
* The output is the visible text of the summary node without the removed children.
"""

from __future__ import annotations

import lxml.etree

from evalkit.core.method import Extractor
from evalkit.core.page import CODE_TAGS, Extraction, Page, PageError
from evalkit.core.page import drop_code as clean_tree  # script, style, noscript, comments
from evalkit.core.validate import ParamError, check_int
from evalkit.core.visible import INVISIBLE_TAGS, element_text

__all__ = [
    "DEFAULT_MIN_NEW_MARKS",
    "DEFAULT_MIN_SNIPPET_MARKS",
    "DEFAULT_NOISE_MARKS",
    "DEFAULT_PUNCTUATION",
    "ECON",
    "REMOVED_TAGS",
    "MarkCounts",
    "backtrack",
    "clean_tree",
    "count_marks",
    "mark_counts",
    "snippet_node",
]

#: English and Chinese (full-width) sentence and clause marks
DEFAULT_PUNCTUATION = ".,;:!?\u3002\uff0c\uff1b\uff1a\uff01\uff1f\u3001"
#: a text node needs this many marks to be the snippet node
DEFAULT_MIN_SNIPPET_MARKS = 1
#: the parent is taken when it holds at least this many marks more than the current node
DEFAULT_MIN_NEW_MARKS = 1
#: a child with fewer marks than this is noise (removed from a node the walk reaches)
DEFAULT_NOISE_MARKS = 1
#: removed with their contents before counting (comments too)
REMOVED_TAGS = CODE_TAGS


class MarkCounts:
    """Per-element punctuation counts of one body in document (pre-)order; body is 0.

    ``marks[i]``: marks in the visible text of element i's subtree; ``parent[i]``,
    ``children[i]``: its tree neighbours; ``snippet``: the element holding the text node
    with the most marks and ``snippet_marks`` that text node's count (``-1``/0 if none).
    """

    __slots__ = ("children", "marks", "nodes", "parent", "snippet", "snippet_marks")

    def __init__(self, nodes, parent, children, marks, snippet, snippet_marks):
        self.nodes, self.parent, self.children = nodes, parent, children
        self.marks, self.snippet, self.snippet_marks = marks, snippet, snippet_marks


def count_marks(text: str | None, table: dict) -> int:
    """Marks of ``text``: its length less the length with every mark deleted."""
    if not text:
        return 0
    return len(text) - len(text.translate(table))


def mark_counts(body, punctuation: str = DEFAULT_PUNCTUATION) -> MarkCounts:
    """Marks per subtree and the snippet text node, in one pass down and one up.

    Invisible elements (evalkit.core.visible.INVISIBLE_TAGS) count no marks of their own and
    hold no snippet; their tails do.
    """
    table = {ord(c): None for c in punctuation}
    nodes = list(body.iter(lxml.etree.Element))
    pos = {el: i for i, el in enumerate(nodes)}
    n = len(nodes)
    parent = [-1] * n
    children: list[list[int]] = [[] for _ in range(n)]
    hidden = [False] * n
    marks = [0] * n
    snippet, best = -1, 0
    for i in range(n):
        el = nodes[i]
        tag = el.tag.lower() if isinstance(el.tag, str) else ""
        if i:
            p = pos[el.getparent()]
            parent[i] = p
            children[p].append(i)
            hidden[i] = hidden[p]
        hidden[i] = hidden[i] or tag in INVISIBLE_TAGS
        if not hidden[i]:
            m = count_marks(el.text, table)
            marks[i] += m
            if m > best:
                snippet, best = i, m
        if i and el.tail and not hidden[parent[i]]:
            m = count_marks(el.tail, table)
            marks[parent[i]] += m
            if m > best:
                snippet, best = parent[i], m
    for i in range(n - 1, 0, -1):  # children before parents
        marks[parent[i]] += marks[i]
    return MarkCounts(nodes, parent, children, marks, snippet, best)


def snippet_node(counts: MarkCounts, min_snippet_marks: int) -> int | None:
    """The element holding the snippet text node, or None when no text node has enough
    marks."""
    if counts.snippet < 0 or counts.snippet_marks < min_snippet_marks:
        return None
    return counts.snippet


def backtrack(
    counts: MarkCounts, start: int, min_new_marks: int, noise_marks: int
) -> tuple[int, list[int], list[int]]:
    """Walk up from ``start``: returns ``(summary node, path walked, noise children)``.

    The walk takes the parent while it holds at least ``min_new_marks`` marks more than
    the current node; every node on the path loses its children with fewer than
    ``noise_marks`` marks.
    """
    marks, parent = counts.marks, counts.parent
    path = [start]
    cur = start
    while parent[cur] >= 0 and marks[parent[cur]] - marks[cur] >= min_new_marks:
        cur = parent[cur]
        path.append(cur)
    noise = [c for i in path for c in counts.children[i] if marks[c] < noise_marks]
    return cur, path, noise


class ECON(Extractor):
    """ECON (Guo et al. 2010): a snippet node found by punctuation, backtracked to the
    summary node that wraps the news.

    Parameters
    ----------
    punctuation : the characters counted as punctuation marks.
    min_snippet_marks : marks a text node needs to be the snippet node (1).
    min_new_marks : the walk goes up when the parent holds at least this many marks more
        than the current node (1).
    noise_marks : a child of a node on the walk with fewer marks is noise (1).
    """

    name = "econ"

    def __init__(
        self,
        punctuation: str = DEFAULT_PUNCTUATION,
        min_snippet_marks: int = DEFAULT_MIN_SNIPPET_MARKS,
        min_new_marks: int = DEFAULT_MIN_NEW_MARKS,
        noise_marks: int = DEFAULT_NOISE_MARKS,
    ):
        self.punctuation = punctuation
        self.min_snippet_marks = min_snippet_marks
        self.min_new_marks = min_new_marks
        self.noise_marks = noise_marks
        self._validate()

    def _validate(self) -> None:
        if not isinstance(self.punctuation, str) or not self.punctuation:
            raise ParamError("punctuation", self.punctuation, "must be a non-empty string")
        check_int("min_snippet_marks", self.min_snippet_marks, low=1)
        check_int("min_new_marks", self.min_new_marks, low=1)
        check_int("noise_marks", self.noise_marks, low=0)

    def extract(self, page: Page) -> Extraction:
        try:
            root = page.tree(plain=True)  # plain lxml elements: cheaper visits
        except PageError as exc:
            return Extraction(
                text="", info={"n_nodes": 0, "summary_node": None, "skipped": exc.reason}
            )
        clean_tree(root)
        body = root.find(".//body")
        if body is None:
            body = root
        counts = mark_counts(body, self.punctuation)
        info = {"n_nodes": len(counts.nodes), "page_marks": counts.marks[0] if counts.marks else 0}
        start = snippet_node(counts, self.min_snippet_marks)
        if start is None:
            return Extraction(text="", info={**info, "summary_node": None})
        summary, path, noise = backtrack(counts, start, self.min_new_marks, self.noise_marks)
        dropped = {counts.nodes[c] for c in noise}
        text = element_text(counts.nodes[summary], skip=dropped.__contains__ if dropped else None)
        path_of = root.getroottree().getpath
        return Extraction(
            text=text,
            info={
                **info,
                "snippet_node": path_of(counts.nodes[start]),
                "snippet_marks": counts.snippet_marks,
                "summary_node": path_of(counts.nodes[summary]),
                "summary_marks": counts.marks[summary],
                "n_backtracked": len(path) - 1,
                "n_noise": len(noise),
            },
        )
