"""Text density over a DOM: the counts, densities and selection of Sun, Song & Liao (SIGIR 2011).

The shared core of the text-density family (``baselines/cetd.py``: CETD-DS and
CECTD-DS; ``baselines/cectd_s.py``: CECTD-S and ECECTD-S, Kaur 2015). It was
``baselines/cetd.py``'s own code until a second baseline needed it; baselines
may not import each other, so it lives here. What every function computes is
written out in docs/methods/cetd.md; nothing here changed in the move (the
CETD numbers, tests/test_cetd.py and tests/test_golden_outputs.py, are the same).

For every element i under ``<body>`` (:func:`dom_stats`): ``C_i`` characters of
its whitespace-normalised text with a break at block-level tags, ``T_i``
descendant elements, ``LC_i`` characters under link tags, ``LT_i`` link tags
among the descendants; :func:`densities` gives TD or CTD of every element,
:func:`sums_and_best` the DensitySums and the largest-DensitySum element of each
subtree, :func:`select_content` the threshold walk, :func:`kept_text` the text of
what is left.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from itertools import compress

import lxml.etree

from evalkit.core.page import drop_tree
from evalkit.core.validate import check_choice, check_int, check_number
from evalkit.core.visible import BLOCK_TAGS, INVISIBLE_TAGS, join_lines

__all__ = [
    "DENSITIES",
    "LINK_TAGS",
    "REMOVED_TAGS",
    "SMOOTHED_USES",
    "SMOOTHING_SCOPES",
    "TOLERANCE",
    "DomStats",
    "check_smoothing",
    "clean_tree",
    "composite_text_density",
    "densities",
    "density_sums",
    "dom_stats",
    "gaussian_weights",
    "kept_text",
    "run_density",
    "select_content",
    "select_smoothed",
    "smooth_densities",
    "smooth_sequence",
    "subtree_best",
    "sums_and_best",
    "text_density",
]

#: elements whose text counts as link text (Sun et al.: "hyperlink and sth like that")
LINK_TAGS = frozenset({"a", "button", "select"})
#: removed with their contents before counting (comments are dropped too)
REMOVED_TAGS = frozenset({"script", "style", "noscript"})
# densities are compared with this slack, as the reference does with DBL_EPSILON
TOLERANCE = 1e-12

# What a parent needs of a text piece (a text, a tail, or an element with its tail) is
# m = non-space characters + whitespace-separated tokens (0 when it has no token) and
# an edge code: two letters for the kind of its first ("a" space, "b" word) and last
# ("c" space, "d" word) character, "" for no string at all. Joining pieces adds their
# m, less one per "db" in the joined codes (a token running across the seam); an
# empty code leaves its neighbours adjacent. The normalised length is then m - 1.
_BLOCK_EDGE = "ac"  # a block element is set off by white space on both sides
_EDGE = {(False, False): "bd", (False, True): "bc", (True, False): "ad", (True, True): "ac"}


def _piece(text: str) -> tuple[int, str]:
    """``(m, edge code)`` of a non-empty string (see above)."""
    length = len(" ".join(text.split()))
    if not length:
        return 0, _BLOCK_EDGE
    return length + 1, _EDGE[text[0].isspace(), text[-1].isspace()]


@dataclass
class DomStats:
    """Per-element counts of one body, indexed by document (pre-)order; body is 0.

    A subtree is contiguous in that order: element i and its ``tags[i]``
    descendants are ``i .. i + tags[i]``, so its children are ``i + 1``, then
    each next one right after the previous one's subtree. ``text_runs[i]`` and
    ``tail_runs[i]`` are the normalised lengths of element i's text and tail
    (0 without a token); ``names[i]`` is its lower-case tag, ``texts[i]`` and
    ``tails[i]`` its raw text and tail, read once from lxml.
    """

    nodes: list = field(default_factory=list)
    parent: list[int] = field(default_factory=list)
    chars: list[int] = field(default_factory=list)
    tags: list[int] = field(default_factory=list)
    link_chars: list[int] = field(default_factory=list)
    link_tags: list[int] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    texts: list[str | None] = field(default_factory=list)
    tails: list[str | None] = field(default_factory=list)
    text_runs: list[int] = field(default_factory=list)
    tail_runs: list[int] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        """``LC_b / C_b``: the body's link-character share (0 for a body without text)."""
        return self.link_chars[0] / self.chars[0] if self.chars and self.chars[0] else 0.0

    def child_list(self, i: int) -> list[int]:
        """The children of element i, in document order."""
        tags = self.tags
        out, j, end = [], i + 1, i + tags[i] + 1
        while j < end:
            out.append(j)
            j += tags[j] + 1
        return out

    @cached_property
    def children(self) -> list[list[int]]:
        """The children of every element, in document order."""
        return [self.child_list(i) for i in range(len(self.tags))]

    def run_list(self, i: int) -> list[int]:
        """The normalised lengths of the non-empty text runs lying directly in element i
        (its text and its children's tails), in document order."""
        tail_runs = self.tail_runs
        out = [self.text_runs[i]] if self.text_runs[i] else []
        out += [tail_runs[j] for j in self.child_list(i) if tail_runs[j]]
        return out

    @cached_property
    def runs(self) -> list[list[int]]:
        """:meth:`run_list` of every element."""
        return [self.run_list(i) for i in range(len(self.tags))]


def clean_tree(root):
    """Remove script, style, noscript, comments and processing instructions in place.

    Their tails (the text after them) stay. Works on ``lxml.html`` and plain
    ``lxml.etree`` trees.
    """
    # lxml filters by tag in C; the HTML parser gives lower-case tag names
    doomed = list(root.iter(*REMOVED_TAGS, lxml.etree.Comment, lxml.etree.ProcessingInstruction))
    for el in doomed:
        if el.getparent() is not None:
            drop_tree(el)
    return root


def dom_stats(body) -> DomStats:
    """C, T, LC, LT and text runs of every element under ``body``, in one bottom-up pass."""
    nodes = list(body.iter(lxml.etree.Element))  # elements only, filtered in C
    n = len(nodes)
    n_kids = list(map(len, nodes))  # children of every kind, counted in C
    if sum(n_kids) != n - 1:  # some child is no element (an entity?): count elements only
        n_kids = [sum(1 for _ in el.iterchildren(lxml.etree.Element)) for el in nodes]
    names = [el.tag.lower() for el in nodes]
    texts = [el.text for el in nodes]
    tails = [el.tail for el in nodes]
    parent = [-1] * n
    chars, tags, lchars, ltags = [0] * n, [0] * n, [0] * n, [0] * n
    text_runs, tail_runs = [0] * n, [0] * n
    # what a parent needs of each child besides T, LC and the tail's run: m and edge code
    # of the child's text (a block element set off by spaces) joined with its tail's,
    # and LT + 1 if the child counts as a link tag
    seen_m, seen_edge, lt1 = [0] * n, [""] * n, [0] * n
    block_tags, link_tags, piece, edge_kind = BLOCK_TAGS, LINK_TAGS, _piece, _EDGE
    links = []

    # reversed pre-order: every child before its parent
    for i in range(n - 1, -1, -1):
        text = texts[i]
        if not text:
            m, edge = 0, ""
        elif text.isspace():  # the commonest text: only white space between tags
            m, edge = 0, _BLOCK_EDGE
        else:  # _piece(text), written out
            m = len(" ".join(text.split()))
            text_runs[i] = m
            m += 1
            edge = edge_kind[text[0].isspace(), text[-1].isspace()]
        k = n_kids[i]
        tag = names[i]
        if not k:  # a leaf: T, LC and LT stay 0
            if m:
                chars[i] = m - 1
            if tag in link_tags:
                links.append(i)
                lchars[i] = chars[i]
                lt1[i] = 1
        else:  # the first child is i + 1, each next one right after the previous subtree
            if k == 1:
                j = i + 1
                parent[j] = i
                m += seen_m[j]
                edge += seen_edge[j]
                t, lc, lt = tags[j] + 1, lchars[j], lt1[j]
            else:
                j = i + 1
                t = lc = lt = 0
                for _ in range(k):  # document order
                    parent[j] = i
                    m += seen_m[j]
                    edge += seen_edge[j]
                    size = tags[j] + 1
                    t += size
                    lc += lchars[j]
                    lt += lt1[j]
                    j += size
            if len(edge) > 2:  # a token across each seam
                m -= edge.count("db")
                edge = edge[:: len(edge) - 1]
            c = chars[i] = m - 1 if m else 0
            tags[i] = t
            if tag in link_tags:
                links.append(i)
                lchars[i], ltags[i], lt1[i] = c, t, t + 1
            else:
                lchars[i], ltags[i] = lc, lt
                # a wrapper holding nothing but links counts as a link tag too
                lt1[i] = lt + 1 if (lt and lt == t and lc == c) else lt
        if tag in block_tags:
            edge = _BLOCK_EDGE
        tail = tails[i]
        if tail:
            if tail.isspace():  # the commonest tail: no token, no seam
                edge = edge[:1] + "c" if edge else _BLOCK_EDGE
            else:
                t_m, t_edge = piece(tail)
                tail_runs[i] = t_m - 1
                m += t_m
                edge += t_edge
                if len(edge) > 2:
                    m -= edge.count("db")
                    edge = edge[:: len(edge) - 1]
        seen_m[i], seen_edge[i] = m, edge

    # inside a link, everything is link text and every tag a link tag; a subtree is
    # contiguous in pre-order, so a link's descendants are the next tags[i] elements
    end = 0
    for i in reversed(links):  # document order; links inside a link are covered already
        if i < end:
            continue
        end = i + tags[i] + 1
        lchars[i + 1 : end] = chars[i + 1 : end]
        ltags[i + 1 : end] = tags[i + 1 : end]
    return DomStats(
        nodes=nodes,
        parent=parent,
        chars=chars,
        tags=tags,
        link_chars=lchars,
        link_tags=ltags,
        names=names,
        texts=texts,
        tails=tails,
        text_runs=text_runs,
        tail_runs=tail_runs,
    )


def text_density(c: int, t: int) -> float:
    """``TD = C / T`` with T = 0 counted as 1; 0 for an element without text."""
    return c / (t or 1) if c else 0.0


def composite_text_density(c: int, t: int, lc: int, lt: int, ratio: float) -> float:
    """Sun et al.'s CTD of an element; ``ratio`` is the body's ``LC_b / C_b``."""
    if not c:
        return 0.0
    nlc = c - lc
    t, lc, lt, nlc = t or 1, lc or 1, lt or 1, nlc or 1
    return (
        (c / t)
        * math.log((c / lc) * (t / lt))
        / math.log(math.log((c / nlc) * lc + ratio * c + math.e))
    )


def run_density(length: int, kind: str, ratio: float) -> float:
    """The DensitySum term of one text run of ``length`` normalised characters.

    ``td``: the run's own text density (``L`` characters over one tag). ``ctd``:
    ``L ln L / ln ln(ratio L + e)``; 0 when ``ratio`` is 0 (the page has no
    links and the term would divide by zero).
    """
    if length <= 0:
        return 0.0
    if kind == "td":
        return float(length)
    if ratio <= 0.0:
        return 0.0
    return length * math.log(length) / math.log(math.log(ratio * length + math.e))


def densities(stats: DomStats, kind: str) -> list[float]:
    """The density (``td`` or ``ctd``) of every element."""
    if kind == "td":  # text_density inlined
        return [c / (t or 1) if c else 0.0 for c, t in zip(stats.chars, stats.tags)]
    if kind == "ctd":
        # composite_text_density inlined: a call per element costs as much as the
        # arithmetic; elements often share their counts (wrappers of one text, empty
        # cells), so each distinct (C, T, LC, LT) is worked out once
        ratio, log, e = stats.ratio, math.log, math.e
        out = []
        append = out.append
        seen: dict[tuple[int, int, int, int], float] = {}
        for key in zip(stats.chars, stats.tags, stats.link_chars, stats.link_tags):
            d = seen.get(key)
            if d is None:
                c, t, lc, lt = key
                if c:
                    nlc = c - lc
                    t, lc, lt, nlc = t or 1, lc or 1, lt or 1, nlc or 1
                    d = (
                        (c / t)
                        * log((c / lc) * (t / lt))
                        / log(log((c / nlc) * lc + ratio * c + e))
                    )
                else:
                    d = 0.0
                seen[key] = d
            append(d)
        return out
    raise ValueError(f"unknown density {kind!r}; known: ['td', 'ctd']")


def sums_and_best(stats: DomStats, dens: list[float], kind: str) -> tuple[list[float], list[int]]:
    """DensitySum of every element and the largest-DensitySum element of its subtree
    (the first in document order on ties), in one pass from the leaves up."""
    r = stats.ratio
    tags, text_runs, tail_runs = stats.tags, stats.text_runs, stats.tail_runs
    n = len(dens)
    sums = list(dens)  # an element without children: its own density
    best = list(range(n))
    for i in reversed(list(compress(range(n), tags))):  # the elements with children
        total = 0
        has_runs = text_runs[i]
        top = best[i + 1]  # the first child's
        j, end = i + 1, i + tags[i] + 1
        while j < end:  # the children, left to right
            total += dens[j]
            if tail_runs[j]:
                has_runs = True
            if sums[best[j]] > sums[top]:
                top = best[j]
            j += tags[j] + 1
        if has_runs:
            runs = stats.run_list(i)
            if kind == "td":
                total += sum(map(float, runs))
            else:
                total += sum(run_density(length, kind, r) for length in runs)
        sums[i] = total
        if sums[top] > total:
            best[i] = top
    return sums, best


def density_sums(stats: DomStats, dens: list[float], kind: str) -> list[float]:
    """DensitySum of every element: children's densities plus its own text runs."""
    return sums_and_best(stats, dens, kind)[0]


def subtree_best(stats: DomStats, sums: list[float]) -> list[int]:
    """The largest-DensitySum element of each subtree (the first in document order on ties)."""
    tags = stats.tags
    best = list(range(len(sums)))
    for i in reversed(list(compress(range(len(sums)), tags))):  # children before parents
        b = i
        j, end = i + 1, i + tags[i] + 1
        while j < end:
            if sums[best[j]] > sums[b]:
                b = best[j]
            j += tags[j] + 1
        best[i] = b
    return best


def select_content(
    stats: DomStats, dens: list[float], sums: list[float], best: list[int] | None = None
) -> tuple[list[int], int, float]:
    """Mark content: returns ``(marks, content_root, threshold)``.

    ``marks[i]`` is 1 for content (a marked element and its subtree), 2 for a
    kept ancestor of content, 0 for dropped. ``best``: the largest-DensitySum
    element of each subtree, when the caller has it already.
    """
    n = len(stats.nodes)
    if best is None:
        best = subtree_best(stats, sums)
    marks = [0] * n

    def mark(target: int) -> None:
        end = target + stats.tags[target] + 1  # a subtree is contiguous in pre-order
        marks[target:end] = [1] * (end - target)
        p = stats.parent[target]
        while p >= 0 and marks[p] != 2:
            marks[p] = 2
            p = stats.parent[p]

    root = best[0]
    threshold = dens[root]
    p = stats.parent[root]
    while p >= 0:
        threshold = min(threshold, dens[p])
        p = stats.parent[p]
    mark(root)

    stack = [0]
    while stack:
        i = stack.pop()
        if marks[i] == 1 or dens[i] < threshold - TOLERANCE:
            continue
        if marks[best[i]] != 1:
            mark(best[i])
        stack.extend(reversed(stats.child_list(i)))
    return marks, root, threshold


def kept_text(stats: DomStats, marks: list[int]) -> str:
    """Visible text of the body without the elements marked 0 (their tails stay).

    The same text as :func:`evalkit.core.visible.element_text` of the body skipping
    those elements, built from the texts and tails ``dom_stats`` already read.
    """
    names, texts, tails, tags, parent = (
        stats.names,
        stats.texts,
        stats.tails,
        stats.tags,
        stats.parent,
    )
    n = len(names)
    if not n or names[0] in INVISIBLE_TAGS:
        return ""
    parts: list[str] = ["\n"] if names[0] in BLOCK_TAGS else []
    append = parts.append
    if texts[0]:
        append(texts[0])
    open_ = [0]  # kept elements whose subtree the walk is inside, innermost last
    i = 1
    while i < n:
        p = parent[i]
        while open_[-1] != p:  # the walk left that element's subtree: close it
            k = open_.pop()
            if names[k] in BLOCK_TAGS:
                append("\n")
            if tails[k]:
                append(tails[k])
        name = names[i]
        if not marks[i] or name in INVISIBLE_TAGS:
            if tails[i]:
                append(tails[i])
            i += tags[i] + 1  # a subtree is contiguous in pre-order
            continue
        if name in BLOCK_TAGS:
            append("\n")
        if texts[i]:
            append(texts[i])
        open_.append(i)
        i += 1
    while open_:
        k = open_.pop()
        if names[k] in BLOCK_TAGS:
            append("\n")
        if k and tails[k]:
            append(tails[k])
    return join_lines(parts)


# --- data smoothing (the "-S" variants: Kaur 2015's CECTD-S and ECECTD-S) ----------------
#
# Sun, Song & Liao (SIGIR 2011) "propose a technique called DensitySum to replace Data
# Smoothing"; the -S variants put a smoothed density back in DensitySum's place. The
# smoothing itself is a reconstruction (docs/methods/cectd_s.md): a Gaussian kernel
# truncated at ``radius`` neighbours on each side, its weights renormalised where the
# sequence ends.

#: the neighbours whose densities are smoothed together
SMOOTHING_SCOPES = ("siblings", "preorder")
#: the density CECTD-S smooths: composite (CTD) or plain (TD) text density
DENSITIES = ("ctd", "td")


def gaussian_weights(sigma: float, radius: int | None = None) -> list[float]:
    """``w[k] = exp(-k^2 / (2 sigma^2))`` for k = 0 .. radius (``ceil(3 sigma)`` when None).

    ``sigma = 0`` gives ``[1.0]``: no smoothing.
    """
    if sigma <= 0:
        return [1.0]
    if radius is None:
        radius = math.ceil(3 * sigma)
    return [math.exp(-(k * k) / (2 * sigma * sigma)) for k in range(radius + 1)]


def smooth_sequence(values: list[float], weights: list[float]) -> list[float]:
    """Weighted mean of each value and its neighbours up to ``len(weights) - 1`` away.

    Near the ends only the neighbours that exist count (weights renormalised), so a
    constant sequence stays constant.
    """
    n, r = len(values), len(weights) - 1
    if r == 0 or n < 2:
        return list(values)
    out = []
    for i in range(n):
        total = weights[0] * values[i]
        norm = weights[0]
        for k in range(1, r + 1):
            w = weights[k]
            if i - k >= 0:
                total += w * values[i - k]
                norm += w
            if i + k < n:
                total += w * values[i + k]
                norm += w
        out.append(total / norm)
    return out


def smooth_densities(
    stats: DomStats, dens: list[float], weights: list[float], scope: str = "siblings"
) -> list[float]:
    """Smoothed density of every element.

    ``siblings``: each element's density is smoothed with its siblings' (the children of
    its parent, in document order); body has none and keeps its own. ``preorder``: the
    densities of all elements in document (pre-)order are one sequence, smoothed as
    CETR smooths its lines.
    """
    if scope == "preorder":
        return smooth_sequence(dens, weights)
    if scope != "siblings":
        raise ValueError(f"unknown smoothing scope {scope!r}; known: {list(SMOOTHING_SCOPES)}")
    out = list(dens)
    if len(weights) < 2:
        return out
    for kids in stats.children:
        if len(kids) > 1:
            for j, v in zip(kids, smooth_sequence([dens[k] for k in kids], weights)):
                out[j] = v
    return out


#: where the smoothed density stands in for the raw one: ``select`` = only in DensitySum's
#: place (choosing each subtree's content element); ``both`` = in the threshold walk too
SMOOTHED_USES = ("select", "both")


def select_smoothed(
    stats: DomStats, kind: str, weights: list[float], scope: str = "siblings", use: str = "select"
) -> tuple[list[int], int, float, list[float]]:
    """Sun et al.'s selection with a smoothed density in place of DensitySum.

    Returns ``(marks, content_root, threshold, smoothed)``: the content root is the
    element with the largest smoothed density (first in document order on ties), each
    subtree's content element its largest-smoothed one; the threshold walk compares the
    raw densities (``use="select"``) or the smoothed ones (``use="both"``).
    """
    if use not in SMOOTHED_USES:
        raise ValueError(f"unknown use {use!r}; known: {list(SMOOTHED_USES)}")
    dens = densities(stats, kind)
    smoothed = smooth_densities(stats, dens, weights, scope)
    best = subtree_best(stats, smoothed)
    walk = smoothed if use == "both" else dens
    marks, root, threshold = select_content(stats, walk, smoothed, best)
    return marks, root, threshold, smoothed


def check_smoothing(m) -> None:
    """Check the smoothing settings of CECTD-S and its extension (``sigma``, ``radius``,
    ``scope``, ``use``, ``density``); raises :class:`evalkit.core.validate.ParamError`."""
    check_number("sigma", m.sigma, low=0)
    check_int("radius", m.radius, low=0, allow_none=True)
    check_choice("scope", m.scope, SMOOTHING_SCOPES)
    check_choice("use", m.use, SMOOTHED_USES)
    check_choice("density", m.density, DENSITIES)
