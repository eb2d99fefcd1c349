"""The proposed method of Saravanan & Sathya Bama (2020): four stages, one module each.

``blocks`` (1.1 block separation), ``primary_tags`` and ``primary_dom`` (1.2 tag
and DOM analysis), ``term_weights`` and ``dedup`` (1.3 term weights, modified simhash), ``scoring`` (1.4 weighted
block scoring) and ``pipeline`` (the :class:`Proposed` extractor that chains
them). Each module's docstring gives the paper's words, our reading and every
departure.
"""

from evalkit.proposed.dedup import ModifiedSimhash, fingerprint, hamming
from evalkit.proposed.term_weights import twc_pfm

__all__ = ["ModifiedSimhash", "fingerprint", "hamming", "twc_pfm"]
