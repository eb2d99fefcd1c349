"""VIPS: vision-based page segmentation (Cai, Yu, Wen & Ma, Microsoft Research MSR-TR-2003-79).

A page laid out by a browser (:class:`evalkit.core.rendered.Layout`, resolved onto evalkit's
lxml tree) is cut into visual blocks in the report's three steps, repeated until every block
is coherent enough:

1. **Visual block extraction** (:func:`extract_blocks`): from ``<body>`` down, each element is
   either *divided* (its valid children are looked at in turn) or kept as one block with a
   *degree of coherence* (DoC, 1..10, 10 the most coherent). Our rules, in the report's order
   of cues (tag, colour, text, size):

   * an element without a box, invisible, or with no box and no valid child is not a block;
   * an element with a single valid child is divided (the child stands for it);
   * an element whose valid children are all inline (text-level) is a block: DoC 10 when its
     inline parts share one font size and weight, 9 otherwise;
   * an element with an ``<hr>`` or ``<br>`` child is divided (a line-break / rule cue);
   * an element with a child whose background differs from its own (and is not transparent)
     is divided;
   * an element holding text whose extent (the union of its box and its valid descendants'
     boxes) is below ``size_share`` of the page's area is a block with DoC 8;
   * any other element is divided.

   A kept block whose DoC is below the *permitted degree of coherence* ``pdoc`` is divided
   all the same (the report's granularity control), while it has valid children.
2. **Separator detection** (:func:`detect_separators`): in a region holding some blocks, the
   horizontal (and vertical) separators start as the whole region; each block splits a
   separator it lies inside, trims one it crosses and removes one it covers; separators
   touching the region's border are dropped. Each gets a weight (:func:`separator_weight`):
   1 plus one step per ``gap_step`` pixels of width (at most ``max_gap_steps``), plus
   ``hr_bonus`` when an ``<hr>`` lies in it, plus 1 when the blocks on both sides differ in
   background, plus 1 (horizontal only) when they differ in font size or weight.
3. **Content structure construction** (:func:`content_structure`): the separators of the
   highest weight split the region's blocks into groups, each group becoming a node whose
   own separators are found again, until a group holds one block. A node's DoC is
   ``11 -`` the highest separator weight inside it (clipped to 1..10); a leaf keeps the DoC
   of step 1.

Departures (this is a reading of the report, which gives the rules in prose; each choice is
a named setting): text nodes have no box of their own in the snapshot, so an element's
directly held text belongs to the element and is a block only with it; the report's rule
numbers 3, 7, 10 and 11 (table roots, children larger than the parent, the largest child
below a size threshold, and a sibling kept whole) are not applied; weights are integers on
one scale for both directions. A block whose element's box is empty (no width, no height: a
link around a floated image) takes as its rectangle the union of its valid descendants'
boxes: Chromium gives an empty box a position that varies between loads of the same page
(:attr:`evalkit.core.rendered.ElementBox.empty`), and it is not where the block is seen.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evalkit.core.rendered import ElementBox
from evalkit.core.validate import check_int, check_number

__all__ = [
    "DEFAULT_PDOC",
    "INLINE_DISPLAYS",
    "Separator",
    "Vips",
    "VisualBlock",
    "content_structure",
    "detect_separators",
    "extract_blocks",
    "separator_weight",
]

#: the permitted degree of coherence: blocks less coherent than this are divided further
DEFAULT_PDOC = 8
#: share of the page's area under which a text-holding element is kept whole (DoC 8)
DEFAULT_SIZE_SHARE = 0.05
#: pixels of separator width per weight step, and the most steps a width can give
DEFAULT_GAP_STEP = 10.0
DEFAULT_MAX_GAP_STEPS = 5
#: weight added to a separator an ``<hr>`` lies in
DEFAULT_HR_BONUS = 2
#: computed ``display`` values that lay an element out inside a line
INLINE_DISPLAYS = frozenset(
    {"inline", "inline-block", "inline-flex", "inline-grid", "inline-table", "contents"}
)
#: tags whose presence among the children divides an element (line-break cues)
BREAK_TAGS = frozenset({"hr", "br"})
_TRANSPARENT_BG = frozenset({"", "transparent", "rgba(0, 0, 0, 0)"})
MAX_DOC = 10


@dataclass(frozen=True)
class Separator:
    """A horizontal (``horizontal=True``: a band across the region, between blocks above and
    below) or vertical separator: its band ``start``..``end`` on the axis it cuts, and its
    weight."""

    horizontal: bool
    start: float
    end: float
    weight: int = 0

    @property
    def width(self) -> float:
        return self.end - self.start


@dataclass
class VisualBlock:
    """A node of the content structure: the elements it covers (document order), their
    bounding box (x, y, width, height), its DoC, its children and the separators between
    them (empty for a leaf)."""

    elements: list[Any]
    box: tuple[float, float, float, float]
    doc: int
    children: list[VisualBlock] = field(default_factory=list)
    separators: list[Separator] = field(default_factory=list)

    def leaves(self) -> list[VisualBlock]:
        if not self.children:
            return [self]
        return [leaf for c in self.children for leaf in c.leaves()]

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()


def _tag(el) -> str:
    return el.tag.rpartition("}")[2].lower() if isinstance(el.tag, str) else ""


def _union(boxes) -> tuple[float, float, float, float]:
    boxes = list(boxes)
    x0 = min(b[0] for b in boxes)
    y0 = min(b[1] for b in boxes)
    x1 = max(b[0] + b[2] for b in boxes)
    y1 = max(b[1] + b[3] for b in boxes)
    return (x0, y0, x1 - x0, y1 - y0)


class _Extractor:
    """Step 1 on one tree: ``boxes`` maps lxml elements to their :class:`ElementBox`."""

    def __init__(
        self, boxes: dict[Any, ElementBox], page_area: float, pdoc: int, size_share: float
    ):
        self.boxes, self.page_area = boxes, max(page_area, 1.0)
        self.pdoc, self.size_share = pdoc, size_share
        self._valid: dict[Any, bool] = {}
        self._kids: dict[Any, list[Any]] = {}
        self._inline: dict[Any, bool] = {}
        self._union_of: dict[Any, tuple[float, float, float, float]] = {}

    def valid(self, el) -> bool:
        """Laid out and visible, or holding a valid child (a container of floats has no
        height of its own)."""
        if el not in self._valid:
            box = self.boxes.get(el)
            ok = False
            if box is not None and box.x is not None and box.display != "none":
                ok = box.visible or any(self.valid(c) for c in self.kids_of(el))
            self._valid[el] = ok
        return self._valid[el]

    def kids_of(self, el) -> list[Any]:
        return [c for c in el if isinstance(c.tag, str)]

    def valid_kids(self, el) -> list[Any]:
        if el not in self._kids:
            self._kids[el] = [c for c in self.kids_of(el) if self.valid(c)]
        return self._kids[el]

    def union(self, el) -> tuple[float, float, float, float]:
        """The union of the element's box and its valid descendants' (a container of
        absolutely placed or floated children may have no height of its own)."""
        if el not in self._union_of:
            b = self.boxes[el]
            boxes = [(b.x, b.y, b.width, b.height)] if b.area > 0 else []
            boxes += [self.union(c) for c in self.valid_kids(el)]
            self._union_of[el] = _union(boxes) if boxes else (b.x, b.y, 0.0, 0.0)
        return self._union_of[el]

    def extent(self, el) -> float:
        """Area of :meth:`union`."""
        u = self.union(el)
        return u[2] * u[3]

    def inline_only(self, el, kids=None) -> bool:
        """Every valid descendant of ``el`` is laid out inline (text level); ``kids``, when
        given, are ``el``'s valid children (the only ones it is ever called with)."""
        if el not in self._inline:
            self._inline[el] = all(
                self.boxes[c].display in INLINE_DISPLAYS
                and _tag(c) not in BREAK_TAGS
                and self.inline_only(c)
                for c in self.valid_kids(el)
            )
        return self._inline[el]

    def text_doc(self, el, kids) -> int:
        """DoC of an element of inline parts only: one font throughout -> 10, else 9."""
        fonts = {
            (self.boxes[x].font_size, self.boxes[x].font_weight)
            for x in [el, *kids]
            if x in self.boxes
        }
        return MAX_DOC if len(fonts) <= 1 else MAX_DOC - 1

    def decide(self, el) -> int | None:
        """The DoC when ``el`` is kept as one block, None when it is divided."""
        kids = self.valid_kids(el)
        box = self.boxes[el]
        has_text = bool((el.text or "").strip()) or any((c.tail or "").strip() for c in el)
        if not kids:
            return MAX_DOC
        if len(kids) == 1 and not has_text and not self.inline_only(el, kids):
            return None
        if self.inline_only(el, kids):
            return self.text_doc(el, kids)
        if any(_tag(c) in BREAK_TAGS for c in kids):
            return None
        if any(
            self.boxes[c].background not in _TRANSPARENT_BG
            and self.boxes[c].background != box.background
            for c in kids
        ):
            return None
        if (has_text or any(self.inline_only(c) for c in kids)) and self.extent(
            el
        ) < self.size_share * self.page_area:
            return MAX_DOC - 2
        return None

    def run(self, el, out: list[VisualBlock]) -> None:
        doc = self.decide(el)
        kids = self.valid_kids(el)
        if doc is not None and (doc >= self.pdoc or not kids):
            b = self.boxes[el]
            # an empty box: where its content is drawn (see the module's departures)
            rect = self.union(el) if b.empty else (b.x, b.y, b.width, b.height)
            out.append(VisualBlock([el], rect, doc))
            return
        for c in kids:
            if _tag(c) != "hr":  # a rule is a separator cue, never a block
                self.run(c, out)


def extract_blocks(
    body,
    boxes: dict[Any, ElementBox],
    page_area: float,
    pdoc: int = DEFAULT_PDOC,
    size_share: float = DEFAULT_SIZE_SHARE,
) -> list[VisualBlock]:
    """Step 1: the visual blocks under ``body`` (document order), each with its DoC."""
    out: list[VisualBlock] = []
    ex = _Extractor(boxes, page_area, pdoc, size_share)
    if ex.valid(body):
        ex.run(body, out)
    return out


def _axis(box, horizontal: bool) -> tuple[float, float]:
    return (box[1], box[1] + box[3]) if horizontal else (box[0], box[0] + box[2])


def detect_separators(
    blocks: list[VisualBlock], region: tuple[float, float, float, float], horizontal: bool
) -> list[tuple[float, float]]:
    """Step 2 without weights: the bands of one direction between ``blocks`` in ``region``."""
    lo, hi = _axis(region, horizontal)
    seps = [(lo, hi)]
    for b in blocks:
        b0, b1 = _axis(b.box, horizontal)
        nxt = []
        for s0, s1 in seps:
            if b1 <= s0 or b0 >= s1:  # apart: untouched
                nxt.append((s0, s1))
            elif b0 > s0 and b1 < s1:  # inside: split in two
                nxt += [(s0, b0), (b1, s1)]
            elif b0 <= s0 and b1 >= s1:  # covers: removed
                continue
            elif b0 <= s0:  # crosses from before: trimmed
                nxt.append((b1, s1))
            else:  # crosses from after
                nxt.append((s0, b0))
        seps = nxt
    return [(s0, s1) for s0, s1 in seps if s0 > lo and s1 < hi and s1 > s0]


def separator_weight(
    band: tuple[float, float],
    horizontal: bool,
    blocks: list[VisualBlock],
    boxes: dict[Any, ElementBox],
    rules: list[tuple[float, float, float, float]],
    gap_step: float = DEFAULT_GAP_STEP,
    max_gap_steps: int = DEFAULT_MAX_GAP_STEPS,
    hr_bonus: int = DEFAULT_HR_BONUS,
) -> int:
    """The weight of one separator band (module docstring, step 2)."""
    s0, s1 = band
    weight = 1 + min(max_gap_steps, int((s1 - s0) // gap_step))
    if any(s0 <= _axis(r, horizontal)[0] and _axis(r, horizontal)[1] <= s1 for r in rules):
        weight += hr_bonus
    before = [b for b in blocks if _axis(b.box, horizontal)[1] <= s0]
    after = [b for b in blocks if _axis(b.box, horizontal)[0] >= s1]
    if before and after:
        near_b = max(before, key=lambda b: _axis(b.box, horizontal)[1])
        near_a = min(after, key=lambda b: _axis(b.box, horizontal)[0])
        eb, ea = boxes.get(near_b.elements[0]), boxes.get(near_a.elements[0])
        if eb is not None and ea is not None:
            if eb.background != ea.background:
                weight += 1
            if horizontal and (eb.font_size, eb.font_weight) != (ea.font_size, ea.font_weight):
                weight += 1
    return weight


def content_structure(
    blocks: list[VisualBlock],
    boxes: dict[Any, ElementBox],
    rules: list[tuple[float, float, float, float]] = (),
    gap_step: float = DEFAULT_GAP_STEP,
    max_gap_steps: int = DEFAULT_MAX_GAP_STEPS,
    hr_bonus: int = DEFAULT_HR_BONUS,
) -> VisualBlock:
    """Step 3: the tree of ``blocks`` split at their heaviest separators, recursively."""
    region = _union(b.box for b in blocks)
    elements = [e for b in blocks for e in b.elements]
    if len(blocks) == 1:
        return blocks[0]
    seps = []
    for horizontal in (True, False):
        for band in detect_separators(blocks, region, horizontal):
            seps.append(
                Separator(
                    horizontal,
                    band[0],
                    band[1],
                    separator_weight(
                        band, horizontal, blocks, boxes, rules, gap_step, max_gap_steps, hr_bonus
                    ),
                )
            )
    node = VisualBlock(elements, region, MAX_DOC, separators=seps)
    if not seps:  # blocks that overlap: no separator, they stay side by side
        node.children = list(blocks)
        node.doc = min(b.doc for b in blocks)
        return node
    top = max(s.weight for s in seps)
    node.doc = max(1, min(MAX_DOC, MAX_DOC + 1 - top))
    # the direction of the heaviest separators (horizontal first on a tie)
    horizontal = any(s.horizontal and s.weight == top for s in seps)
    cuts = sorted(s.start for s in seps if s.horizontal == horizontal and s.weight == top)
    groups: list[list[VisualBlock]] = [[] for _ in range(len(cuts) + 1)]
    for b in blocks:
        start = _axis(b.box, horizontal)[0]
        groups[sum(start >= c for c in cuts)].append(b)
    node.children = [
        content_structure(g, boxes, rules, gap_step, max_gap_steps, hr_bonus) for g in groups if g
    ]
    return node


class Vips:
    """VIPS segmentation with its settings checked at construction (module docstring).

    ``pdoc``: the permitted degree of coherence (1..10); ``size_share``: share of the page's
    area under which a text-holding element is kept whole; ``gap_step``, ``max_gap_steps``,
    ``hr_bonus``: the separator weights.
    """

    def __init__(
        self,
        pdoc: int = DEFAULT_PDOC,
        size_share: float = DEFAULT_SIZE_SHARE,
        gap_step: float = DEFAULT_GAP_STEP,
        max_gap_steps: int = DEFAULT_MAX_GAP_STEPS,
        hr_bonus: int = DEFAULT_HR_BONUS,
    ):
        self.pdoc = check_int("pdoc", pdoc, low=1, high=MAX_DOC)
        self.size_share = check_number("size_share", size_share, low=0, high=1)
        self.gap_step = check_number("gap_step", gap_step, low=0, low_open=True)
        self.max_gap_steps = check_int("max_gap_steps", max_gap_steps, low=0)
        self.hr_bonus = check_int("hr_bonus", hr_bonus, low=0)

    def segment(self, root, layout) -> VisualBlock | None:
        """The content structure of a page: ``root`` is evalkit's lxml tree of the page
        (:func:`evalkit.core.page.parse_html`), ``layout`` its :class:`Layout`; None when the
        page has no visible block."""
        boxes = layout.resolve(root)
        body = next((c for c in root if _tag(c) == "body"), None)
        if body is None:
            return None
        blocks = extract_blocks(
            body, boxes, layout.width * layout.height, self.pdoc, self.size_share
        )
        if not blocks:
            return None
        rules = [
            (b.x, b.y, b.width, b.height)
            for el, b in boxes.items()
            if _tag(el) == "hr" and b.x is not None
        ]
        return content_structure(
            blocks, boxes, rules, self.gap_step, self.max_gap_steps, self.hr_bonus
        )
