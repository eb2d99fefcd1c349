"""ENIW: Elimination of Noisy Information from Web pages (Oza & Mishra 2013), as Kabir et al. (2015) describe it.

ENIW is the baseline of every table of Kabir, Kabir & Amin (2015,
docs/papers.md#kabir2015: Tables 4.1.1, 4.2.1, 4.3.2, 4.4.1). Its publication
(A. K. Oza and S. Mishra, "Elimination of noisy information from web pages",
IJRTE 2, 2013, pp. 574-581; Kabir's reference [1]) could not be found, so this
module is a **reconstruction** from Kabir's description (§2), quoted in full:

    "Oza and Mishra [1] proposed a method which extracts the blocks from the page
    by using Document Object Module (DOM) tree. They considered all the tags of a
    page as a tree structure. They first removed the tags with no text. Moreover,
    they discarded the tags unrelated to the page content such as <script>,
    <style>, <form>, <marquee> and <meta>. Finally, they built the DOM tree
    structure with the remaining tags. Finally, they identified the location of
    content from the tree and extracted the content by the html parser."

and from what Kabir says ENIW lacks: "they did not consider the ratio
comparison between inner and outer hyperlink to detect noisy data" (so no link
rule here) and "the tags <marquee> and <meta> are not contained noisy
information for all the time" (so those tags are removed whatever they hold).

Our reading (docs/methods/eniw.md); every assumption is a named setting:

1. The whole document is one tree ("all the tags of a page"), head included.
2. Every outermost element whose tag is in ``unrelated_tags`` (default the five
   Kabir names: script, style, form, marquee, meta) is removed with its
   subtree (its tail stays); each that holds text is one **noisy block**
   (``noisy_blocks="text"``: a block is text, as the informative ones are; a
   ``<meta>`` holds none), or each one whatever it holds (``"tags"``).
3. Elements without text in their subtree are "tags with no text"; removing
   them changes no text, so they are only counted (``n_empty``), not blocks.
4. The remaining tree is the content ("the location of content" is read as
   the tree that is left: Kabir's Table 4.1.1 has ENIW keep 94.5 % of the
   blocks, more than PAB, which no narrower content locator would). An
   **informative block** is an element of it that holds visible text directly
   (its own text or a child's tail), the page ``<title>`` included when
   ``include_title`` (it is a tag of the page with text).
5. The output is the title (``include_title``), then the visible text of the
   body without the removed elements, in document order (block-level tags
   break lines, as everywhere in evalkit).

Departures: no block segmentation is shared with PAB, so the total block
count differs from PAB's (in Kabir's Table 4.1.1 both methods count the same
120,237 blocks; the paper does not say how ENIW's blocks were cut). Invisible
elements other than the unrelated tags (noscript, iframe, svg, ...) hold no
visible text and count as neither kind of block. Kabir's ENIW was PHP; this is
Python on lxml.
"""

from __future__ import annotations

import lxml.etree

from evalkit.core.method import Extractor
from evalkit.core.page import Extraction, Page, PageError, drop_tree
from evalkit.core.validate import check_bool, check_choice, check_str_list
from evalkit.core.visible import INVISIBLE_TAGS, element_text

__all__ = ["ENIW", "NOISY_BLOCKS", "UNRELATED_TAGS", "count_blocks", "remove_unrelated"]

#: the tags Kabir et al. list as discarded by ENIW ("such as <script>, <style>, <form>,
#: <marquee> and <meta>")
UNRELATED_TAGS = ("script", "style", "form", "marquee", "meta")
#: which removed elements are noisy blocks: those holding text (a block is text, as the
#: informative ones are), or every removed element
NOISY_BLOCKS = ("text", "tags")


def remove_unrelated(root, tags: frozenset[str]) -> tuple[int, int]:
    """Remove every outermost element whose tag is in ``tags`` (tails stay).

    Returns ``(removed, with_text)``: how many were removed, and how many of them held
    some non-white-space text (script code, a form's labels; a ``<meta>`` holds none).
    """
    if not tags:  # root.iter() without tags would visit every element
        return 0, 0
    outermost = []
    for el in root.iter(*tags):
        p = el.getparent()
        while p is not None and p.tag not in tags:
            p = p.getparent()
        if p is None:
            outermost.append(el)
    n = n_text = 0
    for el in outermost:
        if el.getparent() is not None:
            if any(not t.isspace() for t in el.itertext()):
                n_text += 1
            drop_tree(el)
            n += 1
    return n, n_text


def _has_words(s: str | None) -> bool:
    return bool(s) and not s.isspace()


def count_blocks(root, include_title: bool = True) -> tuple[int, int]:
    """``(informative, empty)`` of a tree whose unrelated tags are gone.

    informative: elements holding visible text directly (own text or a child's tail),
    outside invisible subtrees; the ``<title>`` counts when ``include_title``.
    empty: elements with no text in their whole subtree (the "tags with no text").
    """
    informative = empty = 0
    hidden = 0  # depth inside invisible elements
    has_text: list[bool] = []  # per open element: some text in its subtree so far
    for event, el in lxml.etree.iterwalk(root, events=("start", "end")):
        if not isinstance(el.tag, str):  # a comment or processing instruction
            continue
        tag = el.tag.lower()
        invisible = tag in INVISIBLE_TAGS and not (include_title and tag == "title")
        if event == "start":
            if invisible:
                hidden += 1
            own = _has_words(el.text) or any(_has_words(c.tail) for c in el)
            if own and (not hidden or (include_title and tag == "title")):
                informative += 1
            has_text.append(own)
        else:
            mine = has_text.pop()
            if not mine:
                empty += 1
            elif has_text:
                has_text[-1] = True
            if invisible:
                hidden -= 1
    return informative, empty


class ENIW(Extractor):
    """ENIW after Kabir et al.'s description (reconstruction; docs/methods/eniw.md).

    Parameters
    ----------
    unrelated_tags : tags removed with their subtree, each one noisy block
        (default script, style, form, marquee, meta).
    include_title : the page ``<title>`` is part of the content (first line) and an
        informative block.
    noisy_blocks : ``"text"`` (default): a removed element is a noisy block when it holds
        text; ``"tags"``: every removed element is one (a ``<meta>`` too).
    """

    name = "eniw"

    def __init__(
        self, unrelated_tags=UNRELATED_TAGS, include_title: bool = True, noisy_blocks: str = "text"
    ):
        self.unrelated_tags = unrelated_tags
        self.include_title = include_title
        self.noisy_blocks = noisy_blocks
        self._validate()

    def _validate(self) -> None:
        check_str_list("unrelated_tags", self.unrelated_tags, allow_empty=True)
        check_bool("include_title", self.include_title)
        check_choice("noisy_blocks", self.noisy_blocks, NOISY_BLOCKS)

    def extract(self, page: Page) -> Extraction:
        try:
            root = page.tree()
        except PageError as exc:  # nothing to extract from an empty document
            return Extraction(
                text="",
                info={
                    "n_blocks": 0,
                    "n_informative": 0,
                    "n_noisy": 0,
                    "n_merged": 0,
                    "n_empty": 0,
                    "skipped": exc.reason,
                },
            )
        # comments are no tags and hold no visible text
        for c in list(root.iter(lxml.etree.Comment, lxml.etree.ProcessingInstruction)):
            if c.getparent() is not None:
                drop_tree(c)
        tags = frozenset(t.lower() for t in self.unrelated_tags)
        n_removed, n_with_text = remove_unrelated(root, tags)
        n_noisy = n_with_text if self.noisy_blocks == "text" else n_removed
        n_informative, n_empty = count_blocks(root, self.include_title)
        lines = []
        if self.include_title:
            title = root.find(".//title")
            if title is not None and _has_words(title.text_content()):
                lines.append(" ".join(title.text_content().split()))
        body = root.find(".//body")
        text = element_text(body if body is not None else root)
        if text:
            lines.append(text)
        return Extraction(
            text="\n".join(lines),
            info={
                "n_blocks": n_informative + n_noisy,
                "n_informative": n_informative,
                "n_noisy": n_noisy,
                "n_merged": 0,
                "n_empty": n_empty,
            },
        )
