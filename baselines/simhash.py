"""Plain simhash near-duplicate detector (Charikar 2002) with term-frequency weights.

The third baseline of Saravanan & Sathya Bama (2020), Experiment 2 / Table 7
(docs/papers.md#saravanan2020): the simhash that their modified simhash improves on. Each
distinct term of a block adds its weight to bit counter k when bit k of its
hash is 1 and subtracts it otherwise; the fingerprint bit is 1 iff the counter
ends positive; blocks whose fingerprints differ in at most ``k`` bits are near
duplicates (Manku, Jain & Das Sarma 2007 use 64 bits and k = 3).

The weight is the term's frequency in the block. Everything else is the
code the proposed detector uses (``evalkit.core.fingerprint``: ``fingerprint`` and
``hamming``, XXH64 seed 0 per term, ties at 0 give bit 0) and its preprocessing
(``evalkit.core.text.terms``), so that a comparison with ``modified_simhash``
isolates the TWC-PFM proximity weight (docs/methods/detectors.md).

Departures: the paper gives no parameters for its simhash baseline; bits and
k follow the proposed detector's defaults. A block with no terms has no
fingerprint and is never compared (it would otherwise be fingerprint 0).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from evalkit.core.fingerprint import checked_hamming, fingerprint
from evalkit.core.method import Detector
from evalkit.core.text import STEMMERS, STOPLISTS, terms
from evalkit.core.validate import check_choice, check_int

__all__ = ["DEFAULT_BITS", "DEFAULT_K", "Simhash", "tf_weights"]

#: fingerprint width; 32 and 128 use XXH32 and XXH3-128 (as the proposed detector)
DEFAULT_BITS = 64
#: near duplicate iff Hamming distance <= this
DEFAULT_K = 3


def tf_weights(text: str, stoplist: str = "english", stemmer: str = "porter") -> dict[str, int]:
    """Term frequencies of a block: the plain simhash weight."""
    return dict(Counter(terms(text, stoplist, stemmer)))


class Simhash(Detector):
    """Charikar simhash over term-frequency weights; near duplicate iff Hamming <= k.

    Parameters
    ----------
    bits : int
        Fingerprint width, 32, 64 or 128.
    k : int
        Largest Hamming distance at which two blocks are near duplicates.
    stoplist, stemmer : str
        Preprocessing, shared with the proposed detector (``evalkit.core.text.terms``).
    """

    name = "simhash"

    def __init__(
        self,
        bits: int = DEFAULT_BITS,
        k: int = DEFAULT_K,
        stoplist: str = "english",
        stemmer: str = "porter",
    ):
        self.bits = bits
        self.k = k
        self.stoplist = stoplist
        self.stemmer = stemmer
        self._validate()  # bad values fail at construction, as they always did

    def _validate(self) -> None:
        check_choice("bits", self.bits, (32, 64, 128))
        check_int("k", self.k, low=0, high=self.bits)
        check_choice("stoplist", self.stoplist, STOPLISTS)
        check_choice("stemmer", self.stemmer, STEMMERS)

    def fingerprint(self, text: str) -> int | None:
        """The block's simhash, or None when it has no terms."""
        weights = tf_weights(text, self.stoplist, self.stemmer)
        if not weights:
            return None
        return fingerprint(weights, self.bits)

    def distance(self, a: Any, b: Any) -> int:
        """Hamming distance of two fingerprints of this detector's width."""
        return checked_hamming(a, b, self.bits, "Simhash")

    def similar(self, a: Any, b: Any) -> bool:
        return self.distance(a, b) <= self.k
