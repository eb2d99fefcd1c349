"""A page as a browser laid it out: the typed :class:`Layout` record (docs/rendering.md).

A layout holds one :class:`ElementBox` per element of the browser's DOM: its box (x, y,
width, height in CSS pixels of the page, origin at the top left of the document), whether it
is visible, its display, font size and weight, colour and background, and its *path*: the tag
names from the root with each element's position among its siblings of the same tag
(``/html[1]/body[1]/div[2]``). The same path is worked out on evalkit's lxml tree
(:func:`element_path`), so a box maps back to the element a method sees. Where the browser's
tree and lxml's differ (malformed HTML is repaired differently), a browser element whose path
does not exist in lxml's tree, or names another tag there, is *unmapped*: it is counted
(:attr:`Layout.n_unmapped`) and never matched by guessing.

Nothing here starts a browser: :mod:`evalkit.harness.render` drives one and turns its
``DOMSnapshot.captureSnapshot`` answer into a layout with :func:`layout_from_snapshot`.
:class:`RenderSettings` are the settings a method that needs a layout takes (``render.*``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evalkit.core.validate import ParamError, check_bool, check_number

__all__ = [
    "DEFAULT_IMAGE_SIZE",
    "DEFAULT_VIEWPORT",
    "LAYOUT_VERSION",
    "SNAPSHOT_STYLES",
    "ElementBox",
    "Layout",
    "RenderSettings",
    "element_path",
    "layout_difference",
    "layout_from_snapshot",
    "tree_paths",
]

#: raise when the layout record changes: cached layouts of other versions are misses
LAYOUT_VERSION = 1
#: ``render.viewport``: width and height of the window, CSS pixels
DEFAULT_VIEWPORT = (1366, 768)
#: the box a browser gives an ``<img>`` whose picture is absent (every request is blocked)
#: and that has no width/height attribute or CSS size: Chromium's broken-image icon box
DEFAULT_IMAGE_SIZE = (16, 16)
#: the computed styles asked of DOMSnapshot.captureSnapshot, in this order
SNAPSHOT_STYLES = (
    "display",
    "visibility",
    "font-size",
    "font-weight",
    "color",
    "background-color",
    "opacity",
)
_ELEMENT = 1  # DOM nodeType of an element
#: tags a browser inserts where the markup has none (a table's ``tbody``): their children are
#: numbered as children of their parent, so a row's path is the same in a tree with the
#: inserted tag and in one without it (the inserted element itself stays unmapped)
TRANSPARENT = frozenset({"tbody"})


@dataclass(frozen=True)
class RenderSettings:
    """How a page is rendered (``render.*``): each is part of the layout cache key.

    ``javascript``: run the page's inline scripts (external scripts are never fetched);
    ``viewport``: (width, height) of the window in CSS pixels; ``timeout``: seconds one page
    may take from loading to the captured snapshot, over it the page is a failure.
    """

    javascript: bool = False
    viewport: tuple[int, int] = DEFAULT_VIEWPORT
    timeout: float = 30.0

    def __post_init__(self):
        check_bool("javascript", self.javascript)
        vp = self.viewport
        if (
            not isinstance(vp, Sequence)
            or isinstance(vp, str)
            or len(vp) != 2
            or not all(
                isinstance(v, int) and not isinstance(v, bool) and 16 <= v <= 10000 for v in vp
            )
        ):
            raise ParamError("viewport", vp, "must be [width, height], whole pixels in 16..10000")
        object.__setattr__(self, "viewport", (int(vp[0]), int(vp[1])))
        check_number("timeout", self.timeout, low=0, low_open=True)
        # one key for 30 and 30.0 (a config's whole number and a default's float)
        object.__setattr__(self, "timeout", float(self.timeout))

    @classmethod
    def from_params(cls, params: Mapping[str, Any] | None) -> RenderSettings:
        """Settings from a method's ``render`` parameter (None: the defaults); an unknown key
        is a :class:`ParamError` naming it."""
        params = dict(params or {})
        unknown = sorted(set(params) - {"javascript", "viewport", "timeout"})
        if unknown:
            raise ParamError(
                unknown[0],
                params[unknown[0]],
                "unknown render setting (javascript, viewport, timeout)",
            )
        if "viewport" in params and isinstance(params["viewport"], list):
            params["viewport"] = tuple(params["viewport"])
        return cls(**params)

    def key(self) -> str:
        """The settings canonically: the name of a layout in ``Page.layouts``."""
        return json.dumps(self.as_dict(), sort_keys=True, separators=(",", ":"))

    def as_dict(self) -> dict[str, Any]:
        return {
            "javascript": self.javascript,
            "viewport": list(self.viewport),
            "timeout": self.timeout,
        }


@dataclass(frozen=True)
class ElementBox:
    """One element as laid out. ``x``, ``y``, ``width``, ``height`` are None for an element
    the browser made no box for (``display:none``, the head); ``mapped``: its path names an
    element of the same tag in evalkit's lxml tree."""

    path: str
    tag: str
    x: float | None
    y: float | None
    width: float | None
    height: float | None
    visible: bool
    display: str
    font_size: float
    font_weight: int
    color: str
    background: str
    mapped: bool = False

    @property
    def area(self) -> float:
        return (self.width or 0.0) * (self.height or 0.0)

    @property
    def empty(self) -> bool:
        """A box of no width and no height (an empty link, a link around a floated image):
        Chromium's position for it can vary between loads of the same page, 40 px apart on
        2 of 20 loads of one L3S-GN1 page (docs/rendering.md#reproducibility), so nothing
        reads it."""
        return not self.width and not self.height


_FIELDS = (
    "path",
    "tag",
    "x",
    "y",
    "width",
    "height",
    "visible",
    "display",
    "font_size",
    "font_weight",
    "color",
    "background",
    "mapped",
)


@dataclass(frozen=True)
class Layout:
    """Every element of a rendered page (:class:`ElementBox`, document order) and the facts of
    the rendering: the page URL it was loaded under, the viewport, the browser's version, the
    document's full width and height (over every box but the empty ones), and how many
    elements did not map to lxml's tree."""

    url: str
    viewport: tuple[int, int]
    browser: str
    width: float
    height: float
    elements: tuple[ElementBox, ...] = field(repr=False)

    @property
    def n_unmapped(self) -> int:
        return sum(not e.mapped for e in self.elements)

    def by_path(self) -> dict[str, ElementBox]:
        """Mapped elements by path (unmapped ones are left out, never guessed)."""
        return {e.path: e for e in self.elements if e.mapped}

    def resolve(self, root) -> dict[Any, ElementBox]:
        """lxml element -> its box, for the elements of ``root`` (a tree parsed as the layout's
        was mapped: :func:`evalkit.core.page.parse_html` of the page) that have one."""
        boxes = self.by_path()
        return {el: boxes[p] for el, p in tree_paths(root) if p in boxes}

    def to_dict(self) -> dict[str, Any]:
        """JSON data: the elements as one list per field (compact for pages of many elements)."""
        return {
            "version": LAYOUT_VERSION,
            "url": self.url,
            "viewport": list(self.viewport),
            "browser": self.browser,
            "width": self.width,
            "height": self.height,
            "elements": {f: [getattr(e, f) for e in self.elements] for f in _FIELDS},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Layout:
        """The layout :meth:`to_dict` gave; ValueError when ``data`` is not one."""
        if data.get("version") != LAYOUT_VERSION:
            raise ValueError(f"not a layout of version {LAYOUT_VERSION}")
        cols = data["elements"]
        if set(cols) != set(_FIELDS) or len({len(cols[f]) for f in _FIELDS}) > 1:
            raise ValueError("layout elements of the wrong shape")
        n = len(cols["path"])
        elements = tuple(ElementBox(**{f: cols[f][i] for f in _FIELDS}) for i in range(n))
        return cls(
            url=str(data["url"]),
            viewport=tuple(data["viewport"]),
            browser=str(data["browser"]),
            width=float(data["width"]),
            height=float(data["height"]),
            elements=elements,
        )


def _step(tag: str, counts: dict[str, int]) -> str:
    counts[tag] = counts.get(tag, 0) + 1
    return f"{tag}[{counts[tag]}]"


def tree_paths(root) -> Iterator[tuple[Any, str]]:
    """(element, path) for every element of an lxml tree, document order; comments and
    processing instructions are not elements and take no position. The children of a
    ``tbody`` are numbered as children of its table (:data:`TRANSPARENT`)."""
    counters: dict[Any, dict[str, int]] = {}
    owner: dict[Any, tuple[Any, str]] = {}  # element -> (counter owner, its path)
    stack = [(root, f"/{_tag(root.tag)}[1]")]
    while stack:
        el, path = stack.pop()
        yield el, path
        own = owner[el] if _tag(el.tag) in TRANSPARENT and el in owner else (el, path)
        kids = []
        for c in el:
            if isinstance(c.tag, str):
                tag = _tag(c.tag)
                if tag in TRANSPARENT:
                    kids.append((c, f"{path}/{_step(tag, counters.setdefault(el, {}))}"))
                    owner[c] = own
                else:
                    kids.append((c, f"{own[1]}/{_step(tag, counters.setdefault(own[0], {}))}"))
        stack.extend(reversed(kids))


def element_path(el) -> str:
    """The path of one lxml element (:func:`tree_paths` gives every element's at once)."""
    root = el.getroottree().getroot()
    return next(p for e, p in tree_paths(root) if e is el)


def _tag(tag: str) -> str:
    return tag.rpartition("}")[2].lower()


def _number(text: str, default: float) -> float:
    try:
        return float(text.removesuffix("px"))
    except ValueError:
        return default


def layout_from_snapshot(
    snapshot: Mapping[str, Any],
    *,
    url: str,
    viewport: tuple[int, int],
    browser: str,
    lxml_root=None,
) -> Layout:
    """The :class:`Layout` of a ``DOMSnapshot.captureSnapshot`` answer (its first document,
    styles asked as :data:`SNAPSHOT_STYLES`); with ``lxml_root`` each element is marked
    ``mapped`` when its path names an element of the same tag in that tree."""
    strings = snapshot["strings"]
    doc = snapshot["documents"][0]
    nodes, lay = doc["nodes"], doc["layout"]
    parents, types, names = nodes["parentIndex"], nodes["nodeType"], nodes["nodeName"]
    first: dict[int, int] = {}
    for i, node in enumerate(lay["nodeIndex"]):
        first.setdefault(node, i)
    paths: dict[int, str] = {}
    counts: dict[int, dict[str, int]] = {}
    owners: dict[int, tuple[int, str]] = {}  # a tbody -> (counter owner, its path)
    known = {p for _, p in tree_paths(lxml_root)} if lxml_root is not None else set()
    out = []
    for i, kind in enumerate(types):
        if kind != _ELEMENT:
            continue
        tag = strings[names[i]].lower()
        parent = parents[i]
        base = paths.get(parent, "")  # an element under the document node is the root
        if tag not in TRANSPARENT and parent in owners:
            parent, base = owners[parent]
        if tag in TRANSPARENT:
            owners[i] = owners.get(parent, (parent, base))
        paths[i] = f"{base}/{_step(tag, counts.setdefault(parent, {}))}"
        j = first.get(i)
        style = (
            [strings[s] if s >= 0 else "" for s in lay["styles"][j]]
            if j is not None
            else [""] * len(SNAPSHOT_STYLES)
        )
        display, visibility, size, weight, color, background, opacity = style
        box = lay["bounds"][j] if j is not None else None
        x, y, w, h = (float(v) for v in box) if box else (None, None, None, None)
        visible = (
            box is not None
            and display != "none"
            and visibility == "visible"
            and _number(opacity, 1.0) > 0
            and w > 0
            and h > 0
        )
        out.append(
            ElementBox(
                path=paths[i],
                tag=tag,
                x=x,
                y=y,
                width=w,
                height=h,
                visible=visible,
                display=display or "none",
                font_size=_number(size, 0.0),
                font_weight=int(_number(weight, 400)),
                color=color,
                background=background,
                mapped=paths[i] in known,
            )
        )
    # the extent of the boxes: an empty box has no reliable position (ElementBox.empty)
    drawn = [e for e in out if e.x is not None and not e.empty]
    width = max((e.x + e.width for e in drawn), default=0.0)
    height = max((e.y + e.height for e in drawn), default=0.0)
    return Layout(
        url=url,
        viewport=tuple(viewport),
        browser=browser,
        width=width,
        height=height,
        elements=tuple(out),
    )


def layout_difference(a: Layout, b: Layout) -> str | None:
    """Where two layouts of the same page differ (the first field, and the element's path),
    None when they are the same: every field of every element, but not the position of an
    empty box (:attr:`ElementBox.empty`), which Chromium does not give reliably."""
    for name in ("url", "viewport", "browser", "width", "height"):
        if getattr(a, name) != getattr(b, name):
            return name
    if len(a.elements) != len(b.elements):
        return f"elements: {len(a.elements)} against {len(b.elements)}"
    for x, y in zip(a.elements, b.elements):
        for name in _FIELDS:
            if name in ("x", "y") and x.empty and y.empty:
                continue
            if getattr(x, name) != getattr(y, name):
                return f"{name} of {x.path}"
    return None
