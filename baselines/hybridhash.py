"""Hybridhash near-duplicate detector (Uma & Latha 2018, the seed paper's [25]): a reconstruction.

The fourth detector of Saravanan & Sathya Bama (2020), Experiment 2 / Table 7
(docs/papers.md#saravanan2020). Uma & Latha's paper (Cluster Computing, 2018) could not be
read, so this is a **reconstruction** from the one sentence the seed paper gives (§2):

    "Hybridhash is another similarity computation approach that works similar to Simhash
    algorithm however simhash works for real values of data but the Hybrid hash can work on
    binary vectors to find the similarity. This method is highly helpful when binary data is
    more superfluous [25]."

Our most literal reading (``evalkit.core.sketching.hybrid_fingerprint``, docs/methods/detectors.md):
a block is the *binary* vector of its features (its distinct index terms, as the Jaccard and
MinHash detectors read it: ``evalkit.core.termsets.features``); the fingerprint is simhash's sign
projection of that vector (``evalkit.core.fingerprint``: each present feature adds 1 to bit
counter k when bit k of its XXH64 hash is 1 and subtracts 1 otherwise; bit k of the
fingerprint is 1 iff the counter ends positive); two blocks are near duplicates iff their
fingerprints differ in at most ``k`` bits. It is "hybrid" in taking the set representation of
the set-based hashes and the fingerprint of simhash.

Every assumption is a setting whose default is that reading: ``shingle`` (1: the binary vector
is over single terms; k > 1: over contiguous k-term shingles), ``bits`` and ``k`` (64 and 3:
the seed paper's values for its own simhash, §3.3, as the ``simhash`` detector uses), and the
preprocessing shared by every detector (``stoplist``, ``stemmer``). A block with no terms has
no fingerprint and is never compared.

Departures: none known from the sentence above; everything the sentence leaves open is one of
the settings. Whatever Uma & Latha's own construction is (the name suggests a combination of
two hash families), it is not reproduced beyond this reading.
"""

from __future__ import annotations

from typing import Any

from evalkit.core.fingerprint import SUPPORTED_BITS, checked_hamming
from evalkit.core.method import Detector
from evalkit.core.sketching import DEFAULT_BITS, DEFAULT_K, binary_vector, hybrid_fingerprint
from evalkit.core.text import STEMMERS, STOPLISTS
from evalkit.core.validate import check_choice, check_int

__all__ = ["DEFAULT_BITS", "DEFAULT_K", "DEFAULT_SHINGLE", "Hybridhash"]

#: 1 = the binary vector is over single terms; k > 1 = over contiguous k-term shingles
DEFAULT_SHINGLE = 1


class Hybridhash(Detector):
    """Simhash's sign projection of a block's binary term vector; near duplicate iff Hamming <= k.

    Parameters
    ----------
    bits : int
        Fingerprint width, 32, 64 or 128 (XXH32, XXH64, XXH3-128).
    k : int
        Largest Hamming distance at which two blocks are near duplicates.
    shingle : int
        1: the binary vector's features are the block's distinct terms; k > 1: its distinct
        contiguous k-term shingles.
    stoplist, stemmer : str
        Preprocessing, shared with the other detectors (``evalkit.core.text.terms``).
    """

    name = "hybridhash"

    def __init__(
        self,
        bits: int = DEFAULT_BITS,
        k: int = DEFAULT_K,
        shingle: int = DEFAULT_SHINGLE,
        stoplist: str = "english",
        stemmer: str = "porter",
    ):
        self.bits = bits
        self.k = k
        self.shingle = shingle
        self.stoplist = stoplist
        self.stemmer = stemmer
        self._validate()

    def _validate(self) -> None:
        check_choice("bits", self.bits, SUPPORTED_BITS)
        check_int("k", self.k, low=0, high=self.bits)
        check_int("shingle", self.shingle, low=1)
        check_choice("stoplist", self.stoplist, STOPLISTS)
        check_choice("stemmer", self.stemmer, STEMMERS)

    def fingerprint(self, text: str) -> int | None:
        """The block's hybrid hash, or None when it has no terms."""
        return hybrid_fingerprint(
            binary_vector(text, self.shingle, self.stoplist, self.stemmer), self.bits
        )

    def distance(self, a: Any, b: Any) -> int:
        """Hamming distance of two fingerprints of this detector's width."""
        return checked_hamming(a, b, self.bits, "Hybridhash")

    def similar(self, a: Any, b: Any) -> bool:
        return self.distance(a, b) <= self.k
