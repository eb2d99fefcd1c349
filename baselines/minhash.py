"""MinHash near-duplicate detector (Broder 1997) built on datasketch.

The second baseline of Saravanan & Sathya Bama (2020), Experiment 2 / Table 7
(docs/papers.md#saravanan2020), named there without parameters. evalkit's reading
(docs/methods/detectors.md): a datasketch ``MinHash(num_perm=128, seed=1)`` over exactly the
features the Jaccard baseline uses (``evalkit.core.termsets.features``: the term
set, or k-term shingles), duplicate iff the estimated Jaccard similarity is
>= ``threshold``. With many blocks (site scope) ``candidates`` narrows the
pairs to compare with a ``MinHashLSH`` index at the same threshold.

Hashing scheme: datasketch 2.0.0 changed its default permutation scheme from
``legacy`` ((a h + b) mod (2^61 - 1), truncated to 32 bits) to ``affine32``
(SHA-1 32-bit input hash, pre-mixed by the MurmurHash3 finalizer, then
a h + b mod 2^32 with odd a). Estimates from the two schemes differ, so the
package is pinned in ``pyproject.toml`` and ``versions()`` records the scheme
read from a live MinHash, not assumed.

Departures from the paper: thresholds, permutation count and preprocessing are
evalkit's choices (the paper gives none). Blocks with no terms are never
compared. Signatures made with another ``num_perm``, ``seed`` or scheme are
refused with a ``ValueError`` rather than compared.
"""

from __future__ import annotations

from typing import Any

import datasketch

from evalkit.core.method import Detector
from evalkit.core.termsets import DEFAULT_SHINGLE, DEFAULT_THRESHOLD, features
from evalkit.core.text import STEMMERS, STOPLISTS
from evalkit.core.validate import check_choice, check_int, check_share

__all__ = ["DEFAULT_NUM_PERM", "DEFAULT_SEED", "MinHash"]

#: permutations per signature; the estimator's std is sqrt(J(1-J)/num_perm)
DEFAULT_NUM_PERM = 128
#: datasketch's own default seed, fixed here so signatures stay comparable
DEFAULT_SEED = 1


class MinHash(Detector):
    """Near duplicates by MinHash-estimated Jaccard similarity.

    Parameters
    ----------
    threshold : float
        Duplicate iff the estimated Jaccard similarity is >= this; also the
        LSH threshold used by ``candidates``.
    num_perm : int
        Number of permutation functions (signature length).
    seed : int
        Seed of the permutations; signatures with different seeds are incomparable.
    shingle : int
        1 = term sets; k > 1 = contiguous k-term shingles (as ``Jaccard``).
    stoplist, stemmer : str
        Preprocessing, shared with the proposed detector (``evalkit.core.text.terms``).
    """

    name = "minhash"

    def __init__(
        self,
        threshold: float = DEFAULT_THRESHOLD,
        num_perm: int = DEFAULT_NUM_PERM,
        seed: int = DEFAULT_SEED,
        shingle: int = DEFAULT_SHINGLE,
        stoplist: str = "english",
        stemmer: str = "porter",
    ):
        self.threshold = threshold
        self.num_perm = num_perm
        self.seed = seed
        self.shingle = shingle
        self.stoplist = stoplist
        self.stemmer = stemmer
        self._validate()  # bad values fail at construction, as they always did

    def _validate(self) -> None:
        check_share("threshold", self.threshold)
        check_int("num_perm", self.num_perm, low=2)
        check_int("seed", self.seed, low=0)
        check_int("shingle", self.shingle, low=1)
        check_choice("stoplist", self.stoplist, STOPLISTS)
        check_choice("stemmer", self.stemmer, STEMMERS)

    def versions(self) -> dict[str, str]:
        probe = datasketch.MinHash(num_perm=2, seed=self.seed)
        return {
            "datasketch": datasketch.__version__,
            "minhash_hash_scheme": probe.scheme,
            "minhash_input_hash": getattr(probe.hashfunc, "__name__", repr(probe.hashfunc)),
        }

    def fingerprint(self, text: str) -> datasketch.MinHash | None:
        """The block's MinHash signature, or None when it has no terms."""
        feats = features(text, self.shingle, self.stoplist, self.stemmer)
        if not feats:
            return None
        sig = datasketch.MinHash(num_perm=self.num_perm, seed=self.seed)
        # sorted: the minimum does not depend on order, but a fixed order keeps runs byte-identical
        sig.update_batch([f.encode("utf-8") for f in sorted(feats)])
        return sig

    def _check(self, sig: Any) -> None:
        if not isinstance(sig, datasketch.MinHash):
            raise TypeError(
                f"MinHash compares datasketch.MinHash signatures, got {type(sig).__name__}"
            )
        if sig.num_perm != self.num_perm or sig.seed != self.seed:
            raise ValueError(
                "incomparable MinHash signatures: this detector uses "
                f"num_perm={self.num_perm}, seed={self.seed}; the signature has "
                f"num_perm={sig.num_perm}, seed={sig.seed}"
            )

    def estimate(self, a: Any, b: Any) -> float:
        """Estimated Jaccard similarity of two signatures made with this detector's settings."""
        self._check(a)
        self._check(b)
        return a.jaccard(b)

    def similar(self, a: Any, b: Any) -> bool:
        return self.estimate(a, b) >= self.threshold

    def candidates(self, signatures: list[Any]) -> set[tuple[int, int]]:
        """Index pairs (i, j), i < j, that share an LSH band: the pairs worth comparing.

        ``None`` entries (blocks with no terms) are skipped. The band layout is
        datasketch's choice for ``threshold`` and ``num_perm`` (equal weights on
        false positives and false negatives), so a pair with J well above the
        threshold is a candidate with high probability, not certainty.
        """
        lsh = datasketch.MinHashLSH(threshold=self.threshold, num_perm=self.num_perm)
        present = []
        for i, sig in enumerate(signatures):
            if sig is None:
                continue
            self._check(sig)
            lsh.insert(i, sig)
            present.append(i)
        pairs = set()
        for i in present:
            for j in lsh.query(signatures[i]):
                if j != i:
                    pairs.add((min(i, j), max(i, j)))
        return pairs
