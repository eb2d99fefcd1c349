"""The ``synthetic`` data set: seeded, annotated news pages generated in memory.

Saravanan & Sathya Bama (2020, docs/papers.md#saravanan2020) evaluate their noise-removal
method on 300 pages, 10 from each of 30 news sites, and name the noise it
targets: advertisements (banner images of IAB sizes, ad-provider URLs,
``adsbygoogle`` slots), social and legal links, search bars, headers, footers
and navigation (the *primary* noise of their section 3.2), and duplicate and
near-duplicate blocks inside a page (the *secondary* noise of section 3.3).
This package builds a set of that shape with every fragment labelled, so all
methods can be scored without downloading anything and every planted noise
kind is present in known numbers.

One concern per module, from the words up:

* :mod:`.topics`: per-topic vocabularies and the sentences, headlines and
  comments written from them;
* :mod:`.markup`: escaping and the emitter that marks every fragment root
  with its gold class;
* :mod:`.noise`: ads, navigation, social and legal links and the other
  noise fragments;
* :mod:`.site`: each site's template (layout, naming scheme, ad slots, which
  parts it shows);
* :mod:`.article`: the article (the gold content) and its markup;
* :mod:`.duplicates`: exact and near copies of content blocks;
* :mod:`.layout`: where each fragment goes on the page;
* :mod:`.dataset`: the reader, :class:`SyntheticDataset`, and the gold.

Departures from the paper: the pages are generated, not crawled; the 30 sites
are invented ``.example`` hosts; topics are assigned round-robin over the
page sequence (balanced to within one page) rather than following real site
sections; near copies differ by word substitutions only (no insertions or
deletions), so "differs by k words" is a position-wise count.
"""

from __future__ import annotations

from evalkit.readers.synthetic.dataset import (
    CONTENT_FINE,
    DEFAULT_N_SITES,
    DEFAULT_N_TOPICS,
    DEFAULT_PAGES_PER_SITE,
    FINE_CLASSES,
    SiteTask,
    SyntheticDataset,
    block_text,
)
from evalkit.readers.synthetic.markup import GOLD_ATTR
from evalkit.readers.synthetic.noise import AD_HOSTS, IAB_SIZES, SOCIAL_HOSTS
from evalkit.readers.synthetic.topics import TOPICS

__all__ = [
    "AD_HOSTS",
    "CONTENT_FINE",
    "DEFAULT_N_SITES",
    "DEFAULT_N_TOPICS",
    "DEFAULT_PAGES_PER_SITE",
    "FINE_CLASSES",
    "GOLD_ATTR",
    "IAB_SIZES",
    "SOCIAL_HOSTS",
    "TOPICS",
    "SiteTask",
    "SyntheticDataset",
    "block_text",
]
