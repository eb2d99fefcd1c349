"""Existing 1 (P. Sivakumar 2015, the seed paper's [24]): simhash, three block parameters,
sketching. A reconstruction.

The first system of Saravanan & Sathya Bama (2020), Experiment 3 / Table 8
(docs/papers.md#saravanan2020). Sivakumar's paper ("Effectual web content mining using noise
removal from web pages", Wireless Personal Communications 84(1): 99-121, 2015) could not be
read beyond its abstract, so this is a **reconstruction** from the seed paper's sentences:

    §2: "P.Sivakumar [24] proposed a framework to extract the relevant content by eliminating
    the noises present in the web page. The noises are removed using simhash algorithm and for
    each block, three parameters namely keyword redundancy (KR), linkword percentage (LP) and
    titleword relevancy (TR) are computed based on which the significant blocks are extracted
    using sketching algorithm."

    §4, Experiment 3: "a method that uses simhash algorithm and sketching algorithm in
    extracting the relevant content form the web page proposed by the P. Sivakumar [24] termed
    as Exiting 1".

The pipeline (``evalkit.core.sketching.extract_sketched``, shared with Existing 2):

1. **Blocks**: the page's ``<div>`` and ``<td>`` blocks inside ``<body>`` (``block_tags``; each
   owns its text minus nested blocks) and one residual block for the text outside them.
2. **Simhash**: each block's Charikar simhash over its term frequencies (``bits`` = 64, XXH64);
   a block within Hamming ``k`` = 3 of an earlier kept block is a near duplicate and removed.
3. **KR, LP, TR** of every remaining block with keywords: keyword redundancy (``redundancy``:
   ``block`` = (n - d) / n of its n keyword occurrences and d distinct keywords; ``page`` = the
   share of its distinct keywords found in other blocks), linkword percentage (100 x words in
   ``<a>`` / words) and titleword relevancy (``title_relevancy``: ``coverage`` = the share of
   the ``<title>``'s distinct terms in the block; ``eq5`` = the seed paper's Eq. 5).
4. **Sketching**: the block's sketch (KR, 1 - LP/100, TR), importance = their weighted mean
   (``w_kr``, ``w_lp``, ``w_tr``, equal by default); a block is significant iff importance >=
   ``threshold`` (``mean``: the mean importance of the page's sketched blocks, or a number).
   The output is the text of the significant blocks in block order.

Every choice the sentences leave open is one of the settings above, the default being the most
literal reading (docs/methods/existing1.md lists each with the alternatives). Block records:
stage ``dedup`` (rule ``near_duplicate``) or ``sketching`` (``no_keywords``,
``below_threshold``); scores ``kr``, ``lp``, ``tr``, ``importance``, ``threshold``.

Departures: the primary-noise rules Sivakumar's abstract lists (navigation bars, panels,
frames, headers and footers, copyright, advertisements, audio and video) are not reproduced
beyond dropping invisible and plug-in elements (script, style, iframe, object, embed): the seed
paper attributes only the three steps above to [24]. A block without keywords is not sketched
(its KR and TR would be 0 by definition) and is dropped.
"""

from __future__ import annotations

from evalkit.core.method import Extractor
from evalkit.core.page import Extraction, Page
from evalkit.core.sketching import (
    BLOCK_TAGS,
    DEFAULT_BITS,
    DEFAULT_K,
    extract_sketched,
    tf_weights,
    validate_settings,
)

__all__ = ["Existing1"]


class Existing1(Extractor):
    """Sivakumar (2015) as the seed paper describes it: blocks, simhash, KR/LP/TR, sketching.

    Parameters
    ----------
    block_tags : list of str
        Elements that delimit blocks.
    bits, k : int
        Simhash width and the largest Hamming distance of a near duplicate.
    redundancy : str
        Keyword redundancy inside the block (``block``) or against the page (``page``).
    title_relevancy : str
        ``coverage`` (share of title terms in the block) or ``eq5`` (the seed's Eq. 5).
    w_kr, w_lp, w_tr : float
        Weights of KR, 1 - LP/100 and TR in the importance (a weighted mean).
    threshold : str or float
        ``mean`` (the mean importance of the page's sketched blocks) or a fixed number in [0, 1].
    stoplist, stemmer : str
        Keyword preprocessing (``evalkit.core.text.terms``).
    """

    name = "existing1"

    def __init__(
        self,
        block_tags: list[str] | tuple[str, ...] = BLOCK_TAGS,
        bits: int = DEFAULT_BITS,
        k: int = DEFAULT_K,
        redundancy: str = "block",
        title_relevancy: str = "coverage",
        w_kr: float = 1.0,
        w_lp: float = 1.0,
        w_tr: float = 1.0,
        threshold: str | float = "mean",
        stoplist: str = "english",
        stemmer: str = "porter",
    ):
        self.block_tags = block_tags
        self.bits = bits
        self.k = k
        self.redundancy = redundancy
        self.title_relevancy = title_relevancy
        self.w_kr = w_kr
        self.w_lp = w_lp
        self.w_tr = w_tr
        self.threshold = threshold
        self.stoplist = stoplist
        self.stemmer = stemmer
        self._validate()

    def _validate(self) -> None:
        validate_settings(self)

    def _weights(self, text: str, keywords: list[str]) -> dict[str, float] | None:
        """Simhash's weights of a block: its keyword frequencies."""
        return tf_weights(keywords)

    def extract(self, page: Page) -> Extraction:
        return extract_sketched(
            page,
            self._weights,
            bits=self.bits,
            k=self.k,
            redundancy=self.redundancy,
            title_relevancy=self.title_relevancy,
            weights=(self.w_kr, self.w_lp, self.w_tr),
            threshold=self.threshold,
            enhanced=False,
            stoplist=self.stoplist,
            stemmer=self.stemmer,
            block_tags=tuple(self.block_tags),
        )
