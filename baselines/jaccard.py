"""Exact Jaccard near-duplicate detector over term sets or word k-shingles.

The Jaccard coefficient |A ∩ B| / |A ∪ B| is the first baseline of Saravanan &
Sathya Bama (2020), Experiment 2 / Table 7 (docs/papers.md#saravanan2020), where it is named
but not specified. evalkit's reading (docs/methods/detectors.md): the features of a block are
the set of its index terms, built exactly as the proposed detector builds them
(``evalkit.core.text.terms``: lowercase ``\\w+`` words with a letter, stop words
dropped, original Porter stemming), or, with ``shingle=k > 1``, the set of
contiguous k-term shingles of that term sequence. Two blocks are near
duplicates when J >= ``threshold``.

Departures from the paper: the paper gives no threshold, shingle size or
preprocessing for this baseline; the defaults (0.8, single terms, the shared
preprocessing) are evalkit's so that the only difference between detectors is
the similarity measure. A block with no terms has no fingerprint and is never
compared (two empty sets would otherwise count as identical).

The feature function and the coefficient live in ``evalkit.core.termsets``, shared
with the MinHash baseline, which estimates this same quantity.
"""

from __future__ import annotations

from typing import Any

from evalkit.core.method import Detector
from evalkit.core.termsets import DEFAULT_SHINGLE, DEFAULT_THRESHOLD, features, jaccard
from evalkit.core.text import STEMMERS, STOPLISTS
from evalkit.core.validate import check_choice, check_int, check_share

__all__ = ["DEFAULT_SHINGLE", "DEFAULT_THRESHOLD", "Jaccard", "features", "jaccard"]


class Jaccard(Detector):
    """Near duplicates by exact Jaccard similarity of feature sets.

    Parameters
    ----------
    threshold : float
        Two blocks are near duplicates when their Jaccard similarity is >= this.
    shingle : int
        1 compares term sets; k > 1 compares sets of contiguous k-term shingles.
    stoplist, stemmer : str
        Preprocessing, shared with the proposed detector (``evalkit.core.text.terms``).
    """

    name = "jaccard"

    def __init__(
        self,
        threshold: float = DEFAULT_THRESHOLD,
        shingle: int = DEFAULT_SHINGLE,
        stoplist: str = "english",
        stemmer: str = "porter",
    ):
        self.threshold = threshold
        self.shingle = shingle
        self.stoplist = stoplist
        self.stemmer = stemmer
        self._validate()  # bad values fail at construction, as they always did

    def _validate(self) -> None:
        check_share("threshold", self.threshold)
        check_int("shingle", self.shingle, low=1)
        check_choice("stoplist", self.stoplist, STOPLISTS)
        check_choice("stemmer", self.stemmer, STEMMERS)

    def fingerprint(self, text: str) -> frozenset[str] | None:
        """The block's feature set, or None when it has no terms."""
        feats = features(text, self.shingle, self.stoplist, self.stemmer)
        return feats or None

    def similarity(self, a: Any, b: Any) -> float:
        """Exact Jaccard similarity of two fingerprints."""
        for sig in (a, b):
            if not isinstance(sig, frozenset):
                raise TypeError(
                    f"Jaccard compares feature sets from Jaccard.fingerprint, got {type(sig).__name__}"
                )
        return jaccard(a, b)

    def similar(self, a: Any, b: Any) -> bool:
        return self.similarity(a, b) >= self.threshold
