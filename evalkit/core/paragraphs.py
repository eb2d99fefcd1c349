"""jusText-style paragraphs: segmentation and classification (Pomikálek 2011).

The shared core of two baselines, ``justext_style`` (baselines/justext_style.py,
whose docstring documents the algorithm and every departure from the thesis and
from San & Aye's Algorithm 1) and ``san_aye`` (baselines/san_aye.py, which runs
this cleaning before its duplicate removal and block importance). Moved here
unchanged from baselines/justext_style.py so that neither baseline imports the
other (docs/floors.md).

Stages, one function each: :func:`preprocess` (tags jusText never classifies),
:func:`make_paragraphs` (paragraphs at block-level tags and double ``<br>``),
:func:`classify_context_free` (Algorithm 1 plus the © and ``<select>`` rules) and
:func:`revise` (the context-sensitive revision); :func:`check_cleaning` checks the
settings, the stop list among them (:data:`DEFAULT_STOPLIST` ships with evalkit; jusText's
own list only when asked for by name).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import lxml.etree

from evalkit.core.page import drop_tree
from evalkit.core.stoplists import STOPLIST_INSTALL, STOPLIST_MODULES, stoplist_available
from evalkit.core.text import STOPLISTS
from evalkit.core.validate import ParamError, check_bool, check_int, check_share

__all__ = [
    "BAD",
    "DEFAULT_LENGTH_HIGH",
    "DEFAULT_LENGTH_LOW",
    "DEFAULT_MAX_HEADING_DISTANCE",
    "DEFAULT_MAX_LINK_DENSITY",
    "DEFAULT_STOPLIST",
    "DEFAULT_STOPWORDS_HIGH",
    "DEFAULT_STOPWORDS_LOW",
    "GOOD",
    "NEARGOOD",
    "PARAGRAPH_TAGS",
    "SHORT",
    "Paragraph",
    "check_cleaning",
    "check_stoplist",
    "classify_context_free",
    "make_paragraphs",
    "preprocess",
    "revise",
]

# Defaults of the thesis and of the jusText package (docs/methods/justext_style.md).
DEFAULT_LENGTH_LOW = 70  # characters: below is "short"
DEFAULT_LENGTH_HIGH = 200  # characters: above (with enough stop words) is "good"
DEFAULT_STOPWORDS_LOW = 0.30  # stop-word density: below is "bad"
DEFAULT_STOPWORDS_HIGH = 0.32  # stop-word density: at or above may be "good"
DEFAULT_MAX_LINK_DENSITY = 0.2  # link characters / characters: above is "bad"
DEFAULT_MAX_HEADING_DISTANCE = 200  # characters between a heading and a good paragraph

#: block-level tags that open and close paragraphs (the thesis's list, plus body)
PARAGRAPH_TAGS = frozenset(
    {
        "body",
        "blockquote",
        "caption",
        "center",
        "col",
        "colgroup",
        "dd",
        "div",
        "dl",
        "dt",
        "fieldset",
        "form",
        "legend",
        "optgroup",
        "option",
        "p",
        "pre",
        "table",
        "td",
        "textarea",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
        "li",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
    }
)
# Removed with everything inside; their tail text stays.
_DROP_WITH_CONTENT = frozenset(
    {"head", "base", "script", "style", "applet", "button", "input", "select", "textarea"}
)
# Removed as tags; their text and children stay in place.
_UNWRAP = frozenset({"form", "iframe", "embed", "layer", "object", "param"})
_COPYRIGHT = ("\u00a9", "&copy")

GOOD, BAD, SHORT, NEARGOOD = "good", "bad", "short", "neargood"


@lru_cache(maxsize=1024)  # few distinct tags; the cached call runs in C
def _is_heading_tag(tag: str) -> bool:
    """``h`` and one digit: what the regular expression ``h\\d`` matches in full
    (``\\d`` is Unicode's decimal digits, as ``str.isdecimal``)."""
    return len(tag) == 2 and tag[0] == "h" and tag[1].isdecimal()


@lru_cache(maxsize=4096)  # a page's paragraphs share few paths; a hit costs one tuple hash
def _has_heading(path: tuple[str, ...]) -> bool:
    return any(map(_is_heading_tag, path))


@dataclass
class Paragraph:
    """One jusText paragraph: its text, link characters and where it started."""

    text: str
    link_chars: int
    path: tuple[str, ...]
    cf_class: str = ""
    cls: str = ""
    heading: bool = False

    def __len__(self) -> int:
        return len(self.text)

    @property
    def link_density(self) -> float:
        return self.link_chars / len(self.text) if self.text else 0.0

    def stopword_density(self, stop: frozenset[str]) -> float:
        # lower-casing the whole text gives each token's lower case: white space is neither
        # cased nor case-ignorable, so the final-sigma rule never looks across it
        tokens = self.text.lower().split()
        if not tokens:
            return 0.0
        return sum(map(stop.__contains__, tokens)) / len(tokens)

    @property
    def in_heading(self) -> bool:
        return _has_heading(self.path)


def _drop_tag(el) -> None:
    """``lxml.html``'s ``drop_tag`` for any element: remove the tag ``el``, keeping its
    text, children and tail in place."""
    parent = el.getparent()
    previous = el.getprevious()
    if el.text and isinstance(el.tag, str):  # not a comment or the like
        if previous is None:
            parent.text = (parent.text or "") + el.text
        else:
            previous.tail = (previous.tail or "") + el.text
    if el.tail:
        if len(el):
            last = el[-1]
            last.tail = (last.tail or "") + el.tail
        elif previous is None:
            parent.text = (parent.text or "") + el.tail
        else:
            previous.tail = (previous.tail or "") + el.tail
    index = parent.index(el)
    parent[index : index + 1] = el[:]


def preprocess(root):
    """Strip what jusText never classifies (see the module docstring), in place.

    Works on ``lxml.html`` and plain ``lxml.etree`` trees.
    """
    drop, unwrap = [], []
    # lxml picks the candidates in C (the HTML parser gives lower-case tag names)
    for el in root.iter(
        *_DROP_WITH_CONTENT,
        *_UNWRAP,
        lxml.etree.Comment,
        lxml.etree.ProcessingInstruction,
        lxml.etree.Entity,
    ):
        tag = el.tag.lower() if isinstance(el.tag, str) else None
        if tag is None or tag in _DROP_WITH_CONTENT:  # comments and processing instructions
            drop.append(el)
        elif tag in _UNWRAP:
            unwrap.append(el)
    for el in drop:
        if el.getparent() is not None:
            drop_tree(el)
    for el in reversed(unwrap):  # innermost first so each parent is still attached
        if el.getparent() is not None:
            _drop_tag(el)
    return root


def make_paragraphs(root) -> list[Paragraph]:
    """Split a (preprocessed) tree into paragraphs, in document order; iterative walk."""
    out: list[Paragraph] = []
    path: list[str] = []  # the open tags
    parts: list[str] = []  # the current paragraph's pieces of text
    link_chars = 0  # its characters inside <a>
    # the open tags where the current paragraph started: start_path, or while that is
    # None, path[:start_depth] (copied only once a tag of that prefix closes: most
    # paragraph boundaries are followed by another one before any text)
    start_path: tuple[str, ...] | None = ()
    start_depth = 0
    links_open = 0
    after_br = False  # the last thing seen was a <br> (white space aside)
    paragraph_tags, new = PARAGRAPH_TAGS, Paragraph

    push, pop = path.append, path.pop
    # start and end events come for elements only (comments, processing instructions:
    # other events), so an end event's tag is the one its start pushed
    for event, el in lxml.etree.iterwalk(root, events=("start", "end"), tag=lxml.etree.Element):
        if event == "start":
            tag = el.tag.lower()
            push(tag)
            if tag in paragraph_tags or (tag == "br" and after_br):
                boundary = True  # a paragraph ends and another starts here
            else:
                boundary = False
                after_br = tag == "br"
                if after_br:
                    parts.append(" ")
                elif tag == "a":
                    links_open += 1
            s = el.text
        else:
            tag = path[-1]
            boundary = tag in paragraph_tags
            if not boundary:
                if start_path is None and len(path) == start_depth:
                    start_path = tuple(path)
                if tag == "a" and links_open:
                    links_open -= 1
            s = el.tail
        if boundary:
            if parts:  # no parts, no text (and no link characters)
                text = " ".join("".join(parts).split())  # = re.sub(r"\s+", " ", ...).strip()
                if text:
                    if start_path is None:
                        start_path = tuple(path[:start_depth])
                    out.append(new(text, link_chars, start_path))  # positional: a cheaper call
                parts, link_chars = [], 0
            if event == "end":
                pop()
            start_path, start_depth = None, len(path)
        elif event == "end":
            pop()
        if not s or s.isspace():
            continue
        if links_open:  # link characters: len(re.sub(r"\s+", " ", s)), a run at either end
            # counting one (\s and str.split agree on what is white space)
            link_chars += len(" ".join(s.split())) + s[0].isspace() + s[-1].isspace()
        parts.append(s)  # the paragraph's text is normalised as a whole
        after_br = False
    text = " ".join("".join(parts).split())
    if text:
        if start_path is None:
            start_path = tuple(path[:start_depth])
        out.append(new(text, link_chars, start_path))
    return out


def classify_context_free(
    paragraphs: list[Paragraph],
    stop: frozenset[str],
    *,
    length_low: int = DEFAULT_LENGTH_LOW,
    length_high: int = DEFAULT_LENGTH_HIGH,
    stopwords_low: float = DEFAULT_STOPWORDS_LOW,
    stopwords_high: float = DEFAULT_STOPWORDS_HIGH,
    max_link_density: float = DEFAULT_MAX_LINK_DENSITY,
    no_headings: bool = False,
    densities: list[float] | None = None,
) -> None:
    """Set ``cf_class`` (and ``heading``) of every paragraph: Algorithm 1 plus the © and select rules.

    ``densities``: the paragraphs' stop-word densities when the caller has them
    already (else computed here, for the paragraphs that need them).
    """
    for i, p in enumerate(paragraphs):
        p.heading = not no_headings and p.in_heading
        text = p.text
        if (
            p.link_density > max_link_density
            or _COPYRIGHT[0] in text
            or _COPYRIGHT[1] in text
            or "select" in p.path
        ):
            c = BAD
        elif len(text) < length_low:
            # a short paragraph with any link text is navigation
            c = BAD if p.link_chars > 0 else SHORT
        else:
            density = p.stopword_density(stop) if densities is None else densities[i]
            if density >= stopwords_high:
                c = GOOD if len(text) > length_high else NEARGOOD
            elif density >= stopwords_low:
                c = NEARGOOD
            else:
                c = BAD
        p.cf_class = c


def _neighbour(classes: list[str], i: int, step: int, skip_neargood: bool) -> str:
    """Class of the first decided paragraph from ``i`` in direction ``step``; edges are bad.

    The definition; :func:`_nearest` gives the same for every paragraph at once."""
    j = i + step
    while 0 <= j < len(classes):
        c = classes[j]
        if c in (GOOD, BAD) or (c == NEARGOOD and not skip_neargood):
            return c
        j += step
    return BAD


def _nearest(classes: list[str], step: int) -> tuple[list[str], list[str]]:
    """For every paragraph, the nearest decided class and the nearest decided-or-near-good
    class before it (``step=1``) or after it (``step=-1``): :func:`_neighbour` with
    ``skip_neargood`` true and false, for all paragraphs in one sweep (edges are bad)."""
    n = len(classes)
    decided, any_ = [BAD] * n, [BAD] * n
    last_dec = last_any = BAD
    order = range(n) if step == 1 else range(n - 1, -1, -1)
    for i in order:
        decided[i], any_[i] = last_dec, last_any
        c = classes[i]
        if c in (GOOD, BAD):
            last_dec = last_any = c
        elif c == NEARGOOD:
            last_any = c
    return decided, any_


def _good_follows(
    paragraphs: list[Paragraph], classes: list[str], i: int, max_distance: int
) -> bool:
    """Whether a good paragraph follows ``i`` with at most ``max_distance`` characters between."""
    distance = 0
    for j in range(i + 1, len(paragraphs)):
        if distance > max_distance:
            return False
        if classes[j] == GOOD:
            return True
        distance += len(paragraphs[j])
    return False


def revise(
    paragraphs: list[Paragraph],
    *,
    max_heading_distance: int = DEFAULT_MAX_HEADING_DISTANCE,
    heading_pass_bug_compatible: bool = False,
) -> None:
    """Context-sensitive revision: set ``cls`` of every paragraph to good or bad."""
    cls = [p.cf_class for p in paragraphs]

    # 1. short headings just before good text may be kept (skipped by justext 3.0.2)
    if not heading_pass_bug_compatible:
        cf = list(cls)  # the look-ahead sees context-free classes only
        for i, p in enumerate(paragraphs):
            if (
                p.heading
                and cf[i] == SHORT
                and _good_follows(paragraphs, cf, i, max_heading_distance)
            ):
                cls[i] = NEARGOOD

    # 2. short paragraphs: decided together from the classes before this pass. The
    # neighbours come from one sweep each way (not a scan per paragraph: quadratic on a
    # page of many short paragraphs)
    prev_dec, prev_any = _nearest(cls, 1)
    next_dec, next_any = _nearest(cls, -1)
    decided = {}
    for i, c in enumerate(cls):
        if c != SHORT:
            continue
        prev, nxt = prev_dec[i], next_dec[i]
        if prev == nxt:
            decided[i] = prev
        elif (prev == BAD and prev_any[i] == NEARGOOD) or (nxt == BAD and next_any[i] == NEARGOOD):
            # a near-good paragraph stands between this one and the bad side
            decided[i] = GOOD
        else:
            decided[i] = BAD
    for i, c in decided.items():
        cls[i] = c

    # 3. near-good paragraphs: bad only between two bad neighbours (in place, in order).
    # In place: the previous decided class is read after earlier near-good ones were
    # settled; the next one is not touched before it is read, so one backward sweep holds it.
    next_dec, _ = _nearest(cls, -1)
    prev = BAD
    for i, c in enumerate(cls):
        if c == NEARGOOD:
            cls[i] = BAD if (prev, next_dec[i]) == (BAD, BAD) else GOOD
        if cls[i] in (GOOD, BAD):
            prev = cls[i]

    # 4. headings the context made bad come back when good text follows closely
    for i, p in enumerate(paragraphs):
        if (
            p.heading
            and cls[i] == BAD
            and p.cf_class != BAD
            and _good_follows(paragraphs, cls, i, max_heading_distance)
        ):
            cls[i] = GOOD

    for p, c in zip(paragraphs, cls):
        p.cls = c


#: the stop list of the jusText-style cleaning: the English list evalkit ships (scikit-learn's,
#: a dependency), whatever else is installed. ``justext_english`` (the justext package's list,
#: which jusText's thresholds were tuned on) is used only when named, and is an error when the
#: package is absent. The old ``auto`` took jusText's list when the package happened to be
#: installed, so installing an extra changed this method's numbers (issue 29).
DEFAULT_STOPLIST = "english"


def check_stoplist(name) -> None:
    """Check a ``stoplist`` setting: a known name, and its package installed when it needs one."""
    if name == "auto":
        raise ParamError(
            "stoplist",
            name,
            "'auto' is no longer a stop list (it chose jusText's "
            "list whenever the justext package was installed); use english "
            f"(the default, shipped) or justext_english ({STOPLIST_INSTALL})",
        )
    if name not in STOPLISTS:
        raise ParamError(
            "stoplist", name, f"unknown stoplist; must be one of {', '.join(STOPLISTS)}"
        )
    if not stoplist_available(name):
        raise ParamError(
            "stoplist",
            name,
            f"needs the {STOPLIST_MODULES[name]} package, "
            f"which is not installed: {STOPLIST_INSTALL}",
        )


def check_cleaning(m) -> None:
    """Check the jusText cleaning settings of a method that runs these stages (``length_low``
    ... ``heading_pass_bug_compatible``, ``stoplist``); raises :class:`ParamError`."""
    check_int("length_low", m.length_low, low=0)
    check_int("length_high", m.length_high, low=0)
    check_share("stopwords_low", m.stopwords_low)
    check_share("stopwords_high", m.stopwords_high)
    check_share("max_link_density", m.max_link_density)
    check_int("max_heading_distance", m.max_heading_distance, low=0)
    check_bool("no_headings", m.no_headings)
    check_bool("heading_pass_bug_compatible", m.heading_pass_bug_compatible)
    check_stoplist(m.stoplist)
    if not m.length_low <= m.length_high:
        raise ParamError(
            ("length_low", "length_high"),
            (m.length_low, m.length_high),
            "length_low must not exceed length_high",
        )
    if not m.stopwords_low <= m.stopwords_high:
        raise ParamError(
            ("stopwords_low", "stopwords_high"),
            (m.stopwords_low, m.stopwords_high),
            "stopwords_low must not exceed stopwords_high",
        )
