"""The proposed method of Saravanan & Sathya Bama (2020): four stages, one module or two each.

``blocks`` (1.1 block separation), ``primary_tags`` with its recognisers in
``primary_markers``, and ``primary_dom`` (1.2 tag and DOM analysis),
``term_weights`` and ``dedup`` (1.3 TWC-PFM weights, modified simhash),
``scoring`` (1.4 weighted block scoring); ``stages`` makes each stage an object
with its own settings, ``state`` is the page that flows through them, and
``pipeline`` holds the :class:`Proposed` extractor that chains them. Each
module's docstring gives the paper's words, our reading and every departure.
"""

from evalkit.proposed.dedup import ModifiedSimhash, fingerprint, hamming
from evalkit.proposed.term_weights import twc_pfm

__all__ = ["ModifiedSimhash", "fingerprint", "hamming", "twc_pfm"]
