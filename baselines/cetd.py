"""CETD: content extraction via text density (Sun, Song & Liao, SIGIR 2011).

Two variants of the family compared by Sandeep Kaur (2015, docs/papers.md#kaur2015,
Table 4.2.1): **cetd_ds** (text density + DensitySum) and **cectd_ds**
(composite text density + DensitySum, the default). Our reading is written
out in docs/methods/cetd.md; the first author's C++ code (GitHub
``FeiSun/ContentExtraction``) settled the details the paper leaves open.

For every element i under ``<body>``:

* ``C_i`` characters of its text, whitespace-normalised (runs collapsed to one
  space, ends stripped), with a break at block-level tags as a browser's plain
  text has; ``T_i`` number of descendant elements; ``LC_i`` characters under
  link tags (a, button, select); ``LT_i`` link tags among the descendants;
  ``nLC_i = C_i - LC_i``; ``C_b``, ``LC_b`` the body's totals.
* ``TD_i = C_i / T_i``;
  ``CTD_i = (C_i/T_i) ln((C_i/LC_i)(T_i/LT_i)) / ln(ln((C_i/nLC_i) LC_i + (LC_b/C_b) C_i + e))``,
  where T, LC, LT and nLC equal to 0 count as 1 (nLC is taken before the
  clamping) and an element with no text has density 0.
* ``DensitySum_i`` = the densities of i's child elements plus one term per
  text run lying directly in i (``L`` for TD; ``L ln L / ln ln((LC_b/C_b) L + e)``
  for CTD, with ``L`` the run's normalised length). An element with no child
  element has its own density as DensitySum.
* The content root is the element with the largest DensitySum (the first in
  document order on ties); the threshold is the smallest density on the path
  from it up to body. From body down, each element whose density reaches the
  threshold has the largest-DensitySum element of its subtree marked as
  content with all its descendants, and its ancestors marked as kept; the
  walk goes on into the children of such elements only. Unmarked elements
  are dropped with their subtree; the text lying directly in a kept ancestor
  stays. The output is the visible text of what is left, in document order.

All counts come (:mod:`evalkit.core.density`) from one bottom-up pass over the elements (children before
parents), which also keeps each element's text and tail, so the output text
is assembled from those lists: lxml is asked for each string once and no
subtree text is extracted twice.

Where evalkit departs from the paper and the reference code:

* No rendering engine: the reference code removes ``display:none`` elements
  by computed style; we remove script, style, noscript and comments only.
* ``C_i`` counts normalised characters; the reference counts the browser's
  plain-text characters (which keep some line breaks); text-run lengths are
  likewise normalised, so whitespace-only runs contribute nothing.
* Everything inside a link counts as link text and link tags (LC = C and
  LT = T for a link's descendants). The reference code means the same but
  refreshes the link-character count where it should refresh the link-tag
  count, which leaves ``LT`` of elements nested inside links at their own
  count; this only changes densities of elements inside links.
* ``LT_i`` follows the reference: besides the link tags, a descendant that is
  not a link but whose tags and characters are all link ones (a ``<li>``
  wrapping only an ``<a>``) counts as a link tag too.
* The CTD text-run term is the reference's; on a page without links
  (``LC_b = 0``) it would divide by zero and is left out. The TD run term
  ``L`` is always added (it cannot divide by zero).
* Kaur's CECTD-S (smoothing) and ECECTD-S (pattern matching) are
  ``baselines/cectd_s.py`` (registry names ``cectd_s``, ``ecectd_s``); the counts,
  densities and selection both use are :mod:`evalkit.core.density`.
"""

from __future__ import annotations

from evalkit.core.density import (
    LINK_TAGS,
    REMOVED_TAGS,
    DomStats,
    clean_tree,
    composite_text_density,
    densities,
    density_sums,
    dom_stats,
    kept_text,
    run_density,
    select_content,
    subtree_best,
    sums_and_best,
    text_density,
)
from evalkit.core.markdown_out import pruned_markdown
from evalkit.core.method import Extractor
from evalkit.core.page import Extraction, Page, PageError
from evalkit.core.validate import check_bool, check_choice

__all__ = [
    "CETD",
    "DEFAULT_VARIANT",
    "LINK_TAGS",
    "REMOVED_TAGS",
    "VARIANTS",
    "DomStats",
    "clean_tree",
    "composite_text_density",
    "densities",
    "density_sums",
    "dom_stats",
    "kept_text",
    "run_density",
    "select_content",
    "text_density",
]

#: variant name -> density used ("td" text density, "ctd" composite text density)
VARIANTS = {"cetd_ds": "td", "cectd_ds": "ctd"}
DEFAULT_VARIANT = "cectd_ds"

# the names tests and older callers import from here (the code is in evalkit.core.density)
_sums_and_best = sums_and_best
_best = subtree_best


class CETD(Extractor):
    """Text-density content extraction (Sun, Song & Liao 2011).

    Parameters
    ----------
    variant : ``"cectd_ds"`` (composite text density + DensitySum, default) or
        ``"cetd_ds"`` (text density + DensitySum).
    markdown : bool, default False
        Also give the Markdown of the body without the nodes CETD drops
        (``Extraction.markdown``: evalkit.core.markdown_out, the one converter of the own
        methods), for the structure metrics. Not part of the paper; the text is unchanged.
    """

    name = "cetd"

    def __init__(self, variant: str = DEFAULT_VARIANT, markdown: bool = False):
        self.variant = variant
        self.markdown = markdown
        self._validate()  # an unknown variant fails at construction, as it always did

    def _validate(self) -> None:
        check_choice("variant", self.variant, sorted(VARIANTS))
        check_bool("markdown", self.markdown)

    def extract(self, page: Page) -> Extraction:
        try:
            root = page.tree(plain=True)  # no lxml.html helpers needed: cheaper element visits
        except PageError as exc:  # nothing to extract from an empty document
            return Extraction(
                text="",
                info={"n_nodes": 0, "threshold": None, "content_root": None, "skipped": exc.reason},
            )
        clean_tree(root)
        body = root.find(".//body")
        if body is None:  # a frameset page, or a fragment lxml gave no body
            body = root
        kind = VARIANTS[self.variant]
        stats = dom_stats(body)
        dens = densities(stats, kind)
        sums, best = sums_and_best(stats, dens, kind)
        marks, content_root, threshold = select_content(stats, dens, sums, best)
        text = kept_text(stats, marks)
        markdown = None
        if self.markdown:
            dropped = [node for node, mark in zip(stats.nodes, marks, strict=True) if not mark]
            markdown = pruned_markdown(body, dropped)
        return Extraction(
            text=text,
            markdown=markdown,
            info={
                "n_nodes": len(stats.nodes),
                "threshold": threshold,
                "content_root": root.getroottree().getpath(stats.nodes[content_root]),
                "max_density_sum": sums[content_root],
            },
        )
