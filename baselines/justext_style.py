"""jusText-style paragraph classifier (Pomikálek 2011; Algorithm 1 of San & Aye).

Reference: J. Pomikálek, *Removing Boilerplate and Duplicate Content from Web
Corpora*, PhD thesis, Masaryk University, 2011, as summarised by Pan Ei San &
Nilar Aye, "Noise Block Cleaning and Main Content Block Extraction from
Dynamic Web Page" (docs/papers.md#san-aye, §4.1.2 and Algorithm 1). The installed
``justext`` 3.0.2 package is the behavioural check; this is an independent
implementation on evalkit's :class:`~evalkit.core.page.Page`.

Stages, one function each:

1. :func:`preprocess` removes ``head``, ``script``, ``style``, form controls
   (``select``, ``textarea``, ``input``, ``button``) and applets with their
   contents, and unwraps ``form``, ``iframe``, ``object``, ``embed``,
   ``param`` and ``layer`` (their text stays, the tag goes).
2. :func:`make_paragraphs` walks the tree in document order and starts a new
   paragraph at the opening and the closing of every block-level tag
   (:data:`PARAGRAPH_TAGS`) and at the second of two consecutive ``<br>``.
   Each paragraph records its whitespace-normalised text, the characters
   that sat inside ``<a>``, and the open tags where it started (a paragraph
   started inside ``h1``-``h6`` is a heading).
3. :func:`classify_context_free` assigns ``bad``/``short``/``neargood``/
   ``good`` from length in characters, link density (link characters over
   all characters) and stop-word density (stop-list tokens over all
   whitespace tokens); a "©" (or a literal ``&copy``) or a paragraph inside
   ``<select>`` is ``bad``.
4. :func:`revise` is the context-sensitive part: the first heading pass
   (short headings followed within ``max_heading_distance`` characters by a
   good paragraph become near-good), short paragraphs by their nearest
   good/bad neighbours (document edges count as bad), near-good paragraphs
   likewise, and the second heading pass (headings made bad by the context
   but not bad on their own become good when a good paragraph follows within
   the distance).

The justext 3.0.2 heading-pass bug
----------------------------------
In ``justext.core.revise_paragraph_classification`` the first ("good
headings") loop copies each paragraph's context-free class into its working
class *inside the same loop* that looks ahead for a good paragraph. When
paragraph *i* looks at paragraphs *j > i*, their working class has not been
copied yet and is still the empty string that ``Paragraph.__init__`` set,
so the test "is paragraph j good" is never true and the first heading pass
never changes anything. The thesis intends the look-ahead to see the
context-free classes. ``heading_pass_bug_compatible=False`` (the default)
does that; ``True`` skips the pass, reproducing the package.

Check against the package (``tests/test_justext_style.py -m slow``): with
``heading_pass_bug_compatible=True`` the paragraph classes agree with
justext 3.0.2 on 100 % of characters on the 181 ScrapingHub pages and on
99.84 % on the 621 L3S-GN1 pages (one page evalkit's parser rejects, one
nested-anchor page); shingle F1 0.7918 vs 0.7918 and 0.8087 vs 0.8091.
With the thesis's first heading pass (the default) agreement is 99.93 % and
99.75 %, F1 0.7911 and 0.8072.

Where this departs from the paper(s)
------------------------------------
- Thresholds compare with ``>=`` for stop-word density (as the jusText
  package does) where San & Aye's Algorithm 1 prints ``>``; the "©" and
  ``<select>`` rules, which San & Aye mention only in prose, come before the
  length test, as in the package.
- Link density counts characters (the package's reading), not the tokens
  San & Aye describe; a link's characters are counted after collapsing its
  white space, so a link padded with spaces can push the density above 1,
  as in the package.
- Text counts as link text while any ``<a>`` is open; the package clears
  its link flag at the first ``</a>``, so text after a nested anchor inside
  an outer one is link text here and not there (1 of 621 L3S-GN1 pages).
- Paragraphs that hold no text (a lone ``<br>`` inside a block) are not
  produced; the package keeps them as empty ``short`` paragraphs, which
  never change another paragraph's class and carry no characters.
- The near-good revision updates classes in place in document order (a
  near-good paragraph revised to good is a good neighbour for the next
  one), as the package does; short paragraphs are decided all at once from
  the classes before the short pass.
- Stop list: ``stoplist="auto"`` takes jusText's English list when the
  package is installed, else evalkit's shipped English list (a different
  list: the thresholds were tuned for jusText's).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import lxml.etree

from evalkit.core.block import PREVIEW_CHARS, Block
from evalkit.core.method import Extractor
from evalkit.core.page import Extraction, Page, drop_tree
from evalkit.core.text import STOPLISTS, stopwords
from evalkit.core.validate import ParamError, check_bool, check_int, check_share

__all__ = [
    "DEFAULT_LENGTH_HIGH",
    "DEFAULT_LENGTH_LOW",
    "DEFAULT_MAX_HEADING_DISTANCE",
    "DEFAULT_MAX_LINK_DENSITY",
    "DEFAULT_STOPWORDS_HIGH",
    "DEFAULT_STOPWORDS_LOW",
    "PARAGRAPH_TAGS",
    "JustextStyle",
    "Paragraph",
    "classify_context_free",
    "make_paragraphs",
    "preprocess",
    "resolve_stoplist",
    "revise",
]

# Defaults of the thesis and of the jusText package (docs/methods/justext_style.md).
DEFAULT_LENGTH_LOW = 70            # characters: below is "short"
DEFAULT_LENGTH_HIGH = 200          # characters: above (with enough stop words) is "good"
DEFAULT_STOPWORDS_LOW = 0.30       # stop-word density: below is "bad"
DEFAULT_STOPWORDS_HIGH = 0.32      # stop-word density: at or above may be "good"
DEFAULT_MAX_LINK_DENSITY = 0.2     # link characters / characters: above is "bad"
DEFAULT_MAX_HEADING_DISTANCE = 200  # characters between a heading and a good paragraph

#: block-level tags that open and close paragraphs (the thesis's list, plus body)
PARAGRAPH_TAGS = frozenset({
    "body", "blockquote", "caption", "center", "col", "colgroup", "dd", "div", "dl", "dt",
    "fieldset", "form", "legend", "optgroup", "option", "p", "pre", "table", "td", "textarea",
    "tfoot", "th", "thead", "tr", "ul", "li", "h1", "h2", "h3", "h4", "h5", "h6",
})
# Removed with everything inside; their tail text stays.
_DROP_WITH_CONTENT = frozenset({"head", "base", "script", "style", "applet", "button", "input",
                                "select", "textarea"})
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
    parent[index:index + 1] = el[:]


def preprocess(root):
    """Strip what jusText never classifies (see the module docstring), in place.

    Works on ``lxml.html`` and plain ``lxml.etree`` trees.
    """
    drop, unwrap = [], []
    # lxml picks the candidates in C (the HTML parser gives lower-case tag names)
    for el in root.iter(*_DROP_WITH_CONTENT, *_UNWRAP, lxml.etree.Comment,
                        lxml.etree.ProcessingInstruction, lxml.etree.Entity):
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


def classify_context_free(paragraphs: list[Paragraph], stop: frozenset[str], *,
                          length_low: int = DEFAULT_LENGTH_LOW,
                          length_high: int = DEFAULT_LENGTH_HIGH,
                          stopwords_low: float = DEFAULT_STOPWORDS_LOW,
                          stopwords_high: float = DEFAULT_STOPWORDS_HIGH,
                          max_link_density: float = DEFAULT_MAX_LINK_DENSITY,
                          no_headings: bool = False,
                          densities: list[float] | None = None) -> None:
    """Set ``cf_class`` (and ``heading``) of every paragraph: Algorithm 1 plus the © and select rules.

    ``densities``: the paragraphs' stop-word densities when the caller has them
    already (else computed here, for the paragraphs that need them).
    """
    for i, p in enumerate(paragraphs):
        p.heading = not no_headings and p.in_heading
        text = p.text
        if p.link_density > max_link_density or _COPYRIGHT[0] in text or _COPYRIGHT[1] in text \
                or "select" in p.path:
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


def _good_follows(paragraphs: list[Paragraph], classes: list[str], i: int,
                  max_distance: int) -> bool:
    """Whether a good paragraph follows ``i`` with at most ``max_distance`` characters between."""
    distance = 0
    for j in range(i + 1, len(paragraphs)):
        if distance > max_distance:
            return False
        if classes[j] == GOOD:
            return True
        distance += len(paragraphs[j])
    return False


def revise(paragraphs: list[Paragraph], *,
           max_heading_distance: int = DEFAULT_MAX_HEADING_DISTANCE,
           heading_pass_bug_compatible: bool = False) -> None:
    """Context-sensitive revision: set ``cls`` of every paragraph to good or bad."""
    cls = [p.cf_class for p in paragraphs]

    # 1. short headings just before good text may be kept (skipped by justext 3.0.2)
    if not heading_pass_bug_compatible:
        cf = list(cls)  # the look-ahead sees context-free classes only
        for i, p in enumerate(paragraphs):
            if p.heading and cf[i] == SHORT and _good_follows(paragraphs, cf, i,
                                                               max_heading_distance):
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
        if p.heading and cls[i] == BAD and p.cf_class != BAD and \
                _good_follows(paragraphs, cls, i, max_heading_distance):
            cls[i] = GOOD

    for p, c in zip(paragraphs, cls):
        p.cls = c


def resolve_stoplist(name: str) -> str:
    """``auto`` -> ``justext_english`` when the justext package imports, else ``english``."""
    if name != "auto":
        return name
    try:
        import justext  # noqa: F401  (optional peer; only its stop list is used)
    except ImportError:
        return "english"
    return "justext_english"


class JustextStyle(Extractor):
    """jusText-style boilerplate removal: keep the paragraphs classified good.

    Parameters are the thesis's (see the module docstring); ``stoplist`` is a
    name from :data:`evalkit.core.text.STOPLISTS` or ``"auto"``.

    Block records (:class:`evalkit.core.block.Block`), one per paragraph in document
    order, tag ``#paragraph``: ``words``, ``kept`` (the final class is good), in
    ``scores``: ``chars`` (the length test's characters), ``link_density`` and
    ``stopword_density`` (rounded to 4 digits), and in ``attrs``: ``cf_class`` (the
    context-free class), ``class`` (the final one) and ``heading``.
    """

    name = "justext_style"

    def __init__(self, length_low: int = DEFAULT_LENGTH_LOW,
                 length_high: int = DEFAULT_LENGTH_HIGH,
                 stopwords_low: float = DEFAULT_STOPWORDS_LOW,
                 stopwords_high: float = DEFAULT_STOPWORDS_HIGH,
                 max_link_density: float = DEFAULT_MAX_LINK_DENSITY,
                 max_heading_distance: int = DEFAULT_MAX_HEADING_DISTANCE,
                 no_headings: bool = False,
                 stoplist: str = "auto",
                 heading_pass_bug_compatible: bool = False):
        self.length_low = length_low
        self.length_high = length_high
        self.stopwords_low = stopwords_low
        self.stopwords_high = stopwords_high
        self.max_link_density = max_link_density
        self.max_heading_distance = max_heading_distance
        self.no_headings = no_headings
        self.stoplist = stoplist
        self.heading_pass_bug_compatible = heading_pass_bug_compatible

    def _validate(self) -> None:
        check_int("length_low", self.length_low, low=0)
        check_int("length_high", self.length_high, low=0)
        check_share("stopwords_low", self.stopwords_low)
        check_share("stopwords_high", self.stopwords_high)
        check_share("max_link_density", self.max_link_density)
        check_int("max_heading_distance", self.max_heading_distance, low=0)
        check_bool("no_headings", self.no_headings)
        check_bool("heading_pass_bug_compatible", self.heading_pass_bug_compatible)
        if self.stoplist != "auto" and self.stoplist not in STOPLISTS:
            raise ParamError("stoplist", self.stoplist, "unknown stoplist; must be one of "
                                                        f"{', '.join(['auto', *STOPLISTS])}")
        if not self.length_low <= self.length_high:
            raise ParamError(("length_low", "length_high"), (self.length_low, self.length_high),
                             "length_low must not exceed length_high")
        if not self.stopwords_low <= self.stopwords_high:
            raise ParamError(("stopwords_low", "stopwords_high"),
                             (self.stopwords_low, self.stopwords_high),
                             "stopwords_low must not exceed stopwords_high")

    def resolved_params(self) -> dict:
        # "auto" depends on whether justext imports here: a run with it and one without
        # differ (saravanan2020 Table 6: 277 vs 280 of 300 pages), so the key holds the outcome
        return {**self.get_params(), "stoplist": resolve_stoplist(self.stoplist)}

    def versions(self) -> dict[str, str]:
        if resolve_stoplist(self.stoplist) != "justext_english":
            return {}
        from importlib.metadata import version

        return {"justext": version("justext")}  # its stop list is data this method uses

    def paragraphs(self, page: Page) -> list[Paragraph]:
        """The page's paragraphs with ``cf_class`` and final ``cls`` set."""
        return self._classified(page)[0]

    def _classified(self, page: Page) -> tuple[list[Paragraph], list[float]]:
        """The classified paragraphs and their stop-word densities (each computed once)."""
        self._validate()
        root = preprocess(page.tree(plain=True))  # no lxml.html helpers: cheaper element visits
        paras = make_paragraphs(root)
        stop = stopwords(resolve_stoplist(self.stoplist))
        densities = [p.stopword_density(stop) for p in paras]
        classify_context_free(paras, stop, length_low=self.length_low,
                              length_high=self.length_high, stopwords_low=self.stopwords_low,
                              stopwords_high=self.stopwords_high,
                              max_link_density=self.max_link_density,
                              no_headings=self.no_headings, densities=densities)
        revise(paras, max_heading_distance=self.max_heading_distance,
               heading_pass_bug_compatible=self.heading_pass_bug_compatible)
        return paras, densities

    def extract(self, page: Page) -> Extraction:
        paras, densities = self._classified(page)
        blocks = []
        append = blocks.append
        for i, (p, density) in enumerate(zip(paras, densities)):
            text, cls = p.text, p.cls
            chars = len(text)
            # a paragraph's text is whitespace-normalised and never empty: its words are
            # its spaces plus one, and its preview its first characters
            append(Block(i, "#paragraph", text=text[:PREVIEW_CHARS], words=text.count(" ") + 1,
                         kept=cls == GOOD, scores={
                             "chars": chars,
                             # Paragraph.link_density, written out
                             "link_density": round(p.link_chars / chars if chars else 0.0, 4),
                             "stopword_density": round(density, 4)},
                         attrs={"cf_class": p.cf_class, "class": cls, "heading": p.heading}))
        good = [p.text for p in paras if p.cls == GOOD]
        return Extraction(text="\n".join(good), blocks=blocks,
                          info={"paragraphs": len(paras), "good": len(good)})
