"""CoreEx: content extraction from online news articles (Prasad & Paepcke, CIKM 2008).

The seed paper's system "CoreEx [12]" in its Table 6 (docs/papers.md#saravanan2020);
described in the CIKM 2008 poster and the Stanford InfoLab technical report 832 of the
same title. Our reading is written out in docs/methods/coreex.md.

For every element N under ``<body>`` (script, style, noscript and comments removed):

* ``textCnt(N)``: words of the text in N's subtree; ``linkCnt(N)``: those of them that
  lie inside a link (``<a>``). A text run lying directly in N (N's text and its
  children's tails) is N's *own* text. Only visible text counts (not the text inside
  evalkit.core.visible's invisible elements, such as iframe or svg, which the output skips too).
* The set ``S(N)``: the children c of N with ``textCnt(c) > 0`` whose text-to-link ratio
  ``(textCnt(c) - linkCnt(c)) / textCnt(c)`` exceeds ``threshold`` (0.9).
  ``setTextCnt(N)`` = N's own words + the ``textCnt`` of the children in S;
  ``setLinkCnt(N)`` likewise (own link words + their ``linkCnt``).
* ``score(N) = weight_ratio * (setTextCnt - setLinkCnt) / setTextCnt
  + weight_text * setTextCnt / pageText`` with ``pageText = textCnt(body)``,
  weights 0.99 and 0.01; an element with ``setTextCnt = 0`` has no score. With
  ``textCnt`` counting only the words outside links the first term reads
  ``textCnt / (textCnt + linkCnt)``: the same number.
* The main content node is the element with the highest score (the first in document
  order on ties); the output is its visible text without the children outside S (its
  own text stays), in document order.

Departures and readings (each a named setting where it is a choice):

* Words are white-space tokens, each Han/Kana character one word (``evalkit.core.text.words``,
  the metrics' tokens). ``link_words="words"`` counts every word under a link as a link
  word; ``"links"`` is the other reading of "number of links", one text word and one
  link word per ``<a>`` whatever its anchor text.
* The ratio test is strict (a child at exactly ``threshold`` is not in S).
* No title step: the publication's text could not be read here beyond the abstract
  (the search tool holds its first page only), so no headline heuristic is added; the
  output is the content node's text alone. The set rule, the formula, the 0.99/0.01
  weights and the 0.9 threshold follow an independent implementation that states it
  follows the publication (GitHub ``fkdosilovic/coreex``, read only; no code taken) and
  could not be checked against the publication's text: docs/methods/coreex.md.
"""

from __future__ import annotations

import lxml.etree

from evalkit.core.method import Extractor
from evalkit.core.page import CODE_TAGS, Extraction, Page, PageError
from evalkit.core.page import drop_code as clean_tree  # script, style, noscript, comments
from evalkit.core.text import words
from evalkit.core.validate import check_choice, check_number, check_share
from evalkit.core.visible import INVISIBLE_TAGS, element_text

__all__ = [
    "DEFAULT_THRESHOLD",
    "DEFAULT_WEIGHT_RATIO",
    "DEFAULT_WEIGHT_TEXT",
    "LINK_TAGS",
    "LINK_WORDS",
    "REMOVED_TAGS",
    "CoreEx",
    "NodeCounts",
    "best_node",
    "clean_tree",
    "node_counts",
    "node_scores",
    "set_members",
]

#: weight of a node's text-to-link ratio in its score (Prasad & Paepcke)
DEFAULT_WEIGHT_RATIO = 0.99
#: weight of a node's share of the page's words in its score
DEFAULT_WEIGHT_TEXT = 0.01
#: a child joins its parent's set S when its text-to-link ratio exceeds this
DEFAULT_THRESHOLD = 0.9
#: elements whose text is link text
LINK_TAGS = frozenset({"a"})
#: how link words are counted: every word under a link, or one per link
LINK_WORDS = ("words", "links")
#: removed with their contents before counting (comments too)
REMOVED_TAGS = CODE_TAGS


class NodeCounts:
    """Per-element counts of one body, indexed in document (pre-)order; the body is 0.

    ``own[i]``/``own_links[i]``: words (link words) of the text lying directly in
    element i; ``text[i]``/``links[i]``: ``textCnt``/``linkCnt`` of its subtree;
    ``children[i]``: its child elements' indices, ``parent[i]`` its parent's (-1 for 0).
    """

    __slots__ = ("children", "links", "nodes", "own", "own_links", "parent", "text")

    def __init__(self, nodes, parent, children, own, own_links, text, links):
        self.nodes, self.parent, self.children = nodes, parent, children
        self.own, self.own_links, self.text, self.links = own, own_links, text, links


def _n_words(text: str | None) -> int:
    return len(words(text)) if text else 0


def node_counts(body, link_words: str = "words") -> NodeCounts:
    """``textCnt`` and ``linkCnt`` of every element under ``body`` (one pass down for the
    parents and the in-link flags, one pass up for the sums)."""
    nodes = list(body.iter(lxml.etree.Element))
    pos = {el: i for i, el in enumerate(nodes)}
    n = len(nodes)
    parent = [-1] * n
    children: list[list[int]] = [[] for _ in range(n)]
    in_link = [False] * n
    hidden = [False] * n
    own = [0] * n
    own_links = [0] * n
    for i in range(n):
        el = nodes[i]
        tag = el.tag.lower() if isinstance(el.tag, str) else ""
        if i:
            p = pos[el.getparent()]
            parent[i] = p
            children[p].append(i)
            in_link[i] = in_link[p]
            hidden[i] = hidden[p]
        in_link[i] = in_link[i] or tag in LINK_TAGS
        hidden[i] = hidden[i] or tag in INVISIBLE_TAGS  # no visible words: the output skips it
        if not hidden[i]:
            own[i] += _n_words(el.text)
        if i and el.tail and not hidden[parent[i]]:
            own[parent[i]] += _n_words(el.tail)
    # own link words: every own word of an element inside a link
    for i in range(n):
        if in_link[i]:
            own_links[i] = own[i]
    text, links = list(own), list(own_links)
    for i in range(n - 1, 0, -1):  # children before parents
        p = parent[i]
        text[p] += text[i]
        links[p] += links[i]
    if link_words == "links":  # one text word and one link word per outermost link
        for i in range(n - 1, -1, -1):
            if in_link[i] and (i == 0 or not in_link[parent[i]]):
                delta_t, delta_l = 1 - text[i], 1 - links[i]
                text[i], links[i] = 1, 1
                own[i] = own_links[i] = 0
                p = parent[i]
                while p >= 0:
                    text[p] += delta_t
                    links[p] += delta_l
                    p = parent[p]
    return NodeCounts(nodes, parent, children, own, own_links, text, links)


def set_members(counts: NodeCounts, i: int, threshold: float) -> list[int]:
    """The children of element i in its set S: text, and a text-to-link ratio above
    ``threshold``."""
    text, links = counts.text, counts.links
    return [
        c for c in counts.children[i] if text[c] > 0 and (text[c] - links[c]) / text[c] > threshold
    ]


def node_scores(
    counts: NodeCounts, threshold: float, weight_ratio: float, weight_text: float
) -> list[float | None]:
    """Every element's score (None where its set holds no word)."""
    page_text = counts.text[0] if counts.text else 0
    out: list[float | None] = []
    for i in range(len(counts.nodes)):
        members = set_members(counts, i, threshold)
        set_text = counts.own[i] + sum(counts.text[c] for c in members)
        set_links = counts.own_links[i] + sum(counts.links[c] for c in members)
        if set_text <= 0 or page_text <= 0:
            out.append(None)
            continue
        out.append(
            weight_ratio * (set_text - set_links) / set_text + weight_text * set_text / page_text
        )
    return out


def best_node(scores: list[float | None]) -> int | None:
    """Index of the highest score, the first in document order on ties; None when no
    element has a score."""
    best, top = None, None
    for i, s in enumerate(scores):
        if s is not None and (top is None or s > top):
            best, top = i, s
    return best


class CoreEx(Extractor):
    """CoreEx (Prasad & Paepcke 2008): the node with the best text-to-link score.

    Parameters
    ----------
    weight_ratio : weight of the set's text-to-link ratio (0.99).
    weight_text : weight of the set's share of the page's words (0.01).
    threshold : a child joins the set S when its text-to-link ratio exceeds this (0.9).
    link_words : ``"words"`` (every word under a link is a link word) or ``"links"``
        (one text word and one link word per link).
    """

    name = "coreex"

    def __init__(
        self,
        weight_ratio: float = DEFAULT_WEIGHT_RATIO,
        weight_text: float = DEFAULT_WEIGHT_TEXT,
        threshold: float = DEFAULT_THRESHOLD,
        link_words: str = "words",
    ):
        self.weight_ratio = weight_ratio
        self.weight_text = weight_text
        self.threshold = threshold
        self.link_words = link_words
        self._validate()

    def _validate(self) -> None:
        check_number("weight_ratio", self.weight_ratio, low=0)
        check_number("weight_text", self.weight_text, low=0)
        check_share("threshold", self.threshold)
        check_choice("link_words", self.link_words, LINK_WORDS)

    def extract(self, page: Page) -> Extraction:
        try:
            root = page.tree(plain=True)  # plain lxml elements: cheaper visits
        except PageError as exc:
            return Extraction(
                text="", info={"n_nodes": 0, "content_node": None, "skipped": exc.reason}
            )
        clean_tree(root)
        body = root.find(".//body")
        if body is None:
            body = root
        counts = node_counts(body, self.link_words)
        scores = node_scores(counts, self.threshold, self.weight_ratio, self.weight_text)
        best = best_node(scores)
        info = {"n_nodes": len(counts.nodes), "page_words": counts.text[0] if counts.text else 0}
        if best is None:
            return Extraction(text="", info={**info, "content_node": None})
        members = set(set_members(counts, best, self.threshold))
        dropped = {counts.nodes[c] for c in counts.children[best] if c not in members}
        text = element_text(counts.nodes[best], skip=dropped.__contains__ if dropped else None)
        return Extraction(
            text=text,
            info={
                **info,
                "content_node": root.getroottree().getpath(counts.nodes[best]),
                "score": scores[best],
                "set_size": len(members),
                "n_children": len(counts.children[best]),
            },
        )
