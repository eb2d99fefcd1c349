"""jusText-style paragraph classifier (Pomikálek 2011; Algorithm 1 of San & Aye).

Reference: J. Pomikálek, *Removing Boilerplate and Duplicate Content from Web
Corpora*, PhD thesis, Masaryk University, 2011, as summarised by Pan Ei San &
Nilar Aye, "Noise Block Cleaning and Main Content Block Extraction from
Dynamic Web Page" (docs/papers.md#san-aye, §4.1.2 and Algorithm 1). The installed
``justext`` 3.0.2 package is the behavioural check; this is an independent
implementation on evalkit's :class:`~evalkit.core.page.Page`. The stages below live in
:mod:`evalkit.core.paragraphs`, shared with ``san_aye`` (San & Aye's whole pipeline).

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
- Stop list: ``stoplist="english"`` (the default) is the English list evalkit
  ships, whatever else is installed; jusText's own list, which its thresholds
  were tuned on, is ``stoplist="justext_english"`` and needs the justext
  package (an error when it is absent). The two lists differ, so the two
  settings give different numbers (docs/methods/justext_style.md).
"""

from __future__ import annotations

from evalkit.core.block import PREVIEW_CHARS, Block
from evalkit.core.method import Extractor
from evalkit.core.page import Extraction, Page
from evalkit.core.paragraphs import (  # the underscored names: tests/test_baseline_fast_paths.py
    _DROP_WITH_CONTENT,
    _UNWRAP,
    DEFAULT_LENGTH_HIGH,
    DEFAULT_LENGTH_LOW,
    DEFAULT_MAX_HEADING_DISTANCE,
    DEFAULT_MAX_LINK_DENSITY,
    DEFAULT_STOPLIST,
    DEFAULT_STOPWORDS_HIGH,
    DEFAULT_STOPWORDS_LOW,
    GOOD,
    PARAGRAPH_TAGS,
    Paragraph,
    _is_heading_tag,
    check_cleaning,
    classify_context_free,
    make_paragraphs,
    preprocess,
    revise,
)
from evalkit.core.text import stopwords

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
    "revise",
]

# _DROP_WITH_CONTENT, _UNWRAP and _is_heading_tag stay importable from here (tests)
_REEXPORTED = (_DROP_WITH_CONTENT, _UNWRAP, _is_heading_tag)


class JustextStyle(Extractor):
    """jusText-style boilerplate removal: keep the paragraphs classified good.

    Parameters are the thesis's (see the module docstring); ``stoplist`` is a
    name from :data:`evalkit.core.text.STOPLISTS` (default ``english``, shipped).

    Block records (:class:`evalkit.core.block.Block`), one per paragraph in document
    order, tag ``#paragraph``: ``words``, ``kept`` (the final class is good), in
    ``scores``: ``chars`` (the length test's characters), ``link_density`` and
    ``stopword_density`` (rounded to 4 digits), and in ``attrs``: ``cf_class`` (the
    context-free class), ``class`` (the final one) and ``heading``.
    """

    name = "justext_style"

    def __init__(
        self,
        length_low: int = DEFAULT_LENGTH_LOW,
        length_high: int = DEFAULT_LENGTH_HIGH,
        stopwords_low: float = DEFAULT_STOPWORDS_LOW,
        stopwords_high: float = DEFAULT_STOPWORDS_HIGH,
        max_link_density: float = DEFAULT_MAX_LINK_DENSITY,
        max_heading_distance: int = DEFAULT_MAX_HEADING_DISTANCE,
        no_headings: bool = False,
        stoplist: str = DEFAULT_STOPLIST,
        heading_pass_bug_compatible: bool = False,
    ):
        self.length_low = length_low
        self.length_high = length_high
        self.stopwords_low = stopwords_low
        self.stopwords_high = stopwords_high
        self.max_link_density = max_link_density
        self.max_heading_distance = max_heading_distance
        self.no_headings = no_headings
        self.stoplist = stoplist
        self.heading_pass_bug_compatible = heading_pass_bug_compatible
        self.validate()  # checked when made, as every method (scikit-learn style constructor)

    def _validate(self) -> None:
        check_cleaning(self)

    def versions(self) -> dict[str, str]:
        if self.stoplist != "justext_english":
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
        stop = stopwords(self.stoplist)
        densities = [p.stopword_density(stop) for p in paras]
        classify_context_free(
            paras,
            stop,
            length_low=self.length_low,
            length_high=self.length_high,
            stopwords_low=self.stopwords_low,
            stopwords_high=self.stopwords_high,
            max_link_density=self.max_link_density,
            no_headings=self.no_headings,
            densities=densities,
        )
        revise(
            paras,
            max_heading_distance=self.max_heading_distance,
            heading_pass_bug_compatible=self.heading_pass_bug_compatible,
        )
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
            append(
                Block(
                    i,
                    "#paragraph",
                    text=text[:PREVIEW_CHARS],
                    words=text.count(" ") + 1,
                    kept=cls == GOOD,
                    scores={
                        "chars": chars,
                        # Paragraph.link_density, written out
                        "link_density": round(p.link_chars / chars if chars else 0.0, 4),
                        "stopword_density": round(density, 4),
                    },
                    attrs={"cf_class": p.cf_class, "class": cls, "heading": p.heading},
                )
            )
        good = [p.text for p in paras if p.cls == GOOD]
        return Extraction(
            text="\n".join(good), blocks=blocks, info={"paragraphs": len(paras), "good": len(good)}
        )
