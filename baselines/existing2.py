"""Existing 2 (R. Uma & B. Latha 2018, the seed paper's [25]): hybrid hash, three block
parameters, enhanced sketching. A reconstruction.

The second system of Saravanan & Sathya Bama (2020), Experiment 3 / Table 8
(docs/papers.md#saravanan2020). Uma & Latha's paper ("Noise elimination from web pages for
efficacious information retrieval", Cluster Computing, 2018) could not be read, so this is a
**reconstruction** from the seed paper's sentences:

    §2: "Uma and Latha [25] proposed a similar framework [to Sivakumar's] in which the hybrid
    hash is used instead of simhash and enhanced sketching algorithm is used for extracting the
    important contents."

    §2: "Hybridhash is another similarity computation approach that works similar to Simhash
    algorithm however simhash works for real values of data but the Hybrid hash can work on
    binary vectors to find the similarity."

    §4, Experiment 3: "a method that uses hybridhash algorithm termed as and enhanced sketching
    algorithm to eliminate the noise and extract the core content proposed by Uma and Latha
    [25] termed as Exiting 2".

The pipeline is Existing 1's (``baselines.existing1``; both run
``evalkit.core.sketching.extract_sketched``) with two steps replaced, as the first sentence says:

* **Hybrid hash** instead of simhash: the fingerprint of a block is simhash's sign projection of
  its *binary* vector (each distinct term, or k-term shingle with ``shingle`` > 1, weighted 1;
  ``evalkit.core.sketching.hybrid_fingerprint``, the ``hybridhash`` detector's fingerprint); a block
  within Hamming ``k`` = 3 of 64 bits of an earlier kept block is removed.
* **Enhanced sketching** instead of sketching (``sketching``: ``enhanced`` by default, ``plain``
  gives Existing 1's): each of the three parameters is min-max normalised over the page's
  sketched blocks before the weighted mean, so a parameter weighs by where a block stands
  among the page's blocks rather than by its raw scale (LP's share, KR's and TR's small
  ranges). What "enhanced" means in [25] is not said; this is our reading.

Every other setting is Existing 1's, with the same defaults (docs/methods/existing2.md).
Block records and departures are Existing 1's.
"""

from __future__ import annotations

from evalkit.core.method import Extractor
from evalkit.core.page import Extraction, Page
from evalkit.core.sketching import (
    BLOCK_TAGS,
    DEFAULT_BITS,
    DEFAULT_K,
    binary_vector,
    binary_weights,
    extract_sketched,
    validate_settings,
)
from evalkit.core.validate import check_choice, check_int

__all__ = ["SKETCHING", "Existing2"]

#: sketching variants: min-max normalised parameters (enhanced) or raw ones (Existing 1's)
SKETCHING = ("enhanced", "plain")


class Existing2(Extractor):
    """Uma & Latha (2018) as the seed paper describes it: blocks, hybrid hash, KR/LP/TR,
    enhanced sketching.

    Parameters
    ----------
    block_tags : list of str
        Elements that delimit blocks.
    bits, k : int
        Hybrid hash width and the largest Hamming distance of a near duplicate.
    shingle : int
        1: the binary vector is over distinct terms; k > 1: over distinct k-term shingles.
    sketching : str
        ``enhanced`` (min-max normalised parameters) or ``plain`` (Existing 1's sketching).
    redundancy, title_relevancy, w_kr, w_lp, w_tr, threshold, stoplist, stemmer
        As in ``baselines.existing1.Existing1``.
    """

    name = "existing2"

    def __init__(
        self,
        block_tags: list[str] | tuple[str, ...] = BLOCK_TAGS,
        bits: int = DEFAULT_BITS,
        k: int = DEFAULT_K,
        shingle: int = 1,
        sketching: str = "enhanced",
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
        self.shingle = shingle
        self.sketching = sketching
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
        check_int("shingle", self.shingle, low=1)
        check_choice("sketching", self.sketching, SKETCHING)

    def _weights(self, text: str, keywords: list[str]) -> dict[str, float] | None:
        """The hybrid hash's weights of a block: 1 for each feature of its binary vector."""
        if self.shingle == 1:  # the binary vector over terms: the keywords already made
            return binary_weights(frozenset(keywords))
        return binary_weights(binary_vector(text, self.shingle, self.stoplist, self.stemmer))

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
            enhanced=self.sketching == "enhanced",
            stoplist=self.stoplist,
            stemmer=self.stemmer,
            block_tags=tuple(self.block_tags),
        )
