"""ECECTD-S: CECTD-S with pattern matching of link and advertisement noise under ``<div>`` (Kaur 2015).

Sandeep Kaur's extension (2015, docs/papers.md#kaur2015, §3.4.1, Table
4.2.1): "CTDPM calculated the updated and non-updated hyperlinks and
advertisement noise under the <div> tag in the web page. The pattern matching
algorithm is used with the CECTD-S algorithm to increase its efficiency of
noise detection from the web page. Pattern-matching algorithm scans the text
with the help of window in which the size of the window is equal to the
length of the pattern." and (Fig. 3.4.1) "after a mismatch is found, pattern
is shifted one place right and new matching process start". The thesis
gives no pattern list, no link rule and no place in the pipeline, so this
module is a **reconstruction**; each assumption is a named setting
(docs/methods/cectd_s.md, docs/readings.md#cectd-s-and-ecectd-s):

1. CECTD-S exactly as ``baselines/cectd_s.py`` (shared code in
   :mod:`evalkit.core.density`): Sun et al.'s composite text density, Gaussian data
   smoothing in DensitySum's place, Sun et al.'s threshold walk.
2. Advertisement noise: a ``<div>`` (``noise_tags``) whose ``id`` or ``class``
   (``pattern_attributes``), lower-cased, contains one of ``ad_patterns``, found
   by the brute-force window scan the thesis describes (:func:`naive_find`).
3. Hyperlink noise ("updated and non-updated hyperlinks"): a ``<div>`` with text
   whose link characters are at least ``link_share`` of its characters (Sun et
   al.'s LC/C). The thesis does not say what makes a link "updated"; both kinds
   are treated alike.
4. ``stage="after"`` (default): the matched divs are dropped from CECTD-S's
   content ("used with the CECTD-S algorithm": CECTD-S runs unchanged and the
   matches are removed from what it keeps); ``stage="before"``: they are removed
   from the DOM first and CECTD-S runs on the rest (its densities change).

Departures: those of CECTD-S and CECTD-DS (``baselines/cetd.py``). The pattern
list and the link share 0.5 are ours; the thesis names neither.
"""

from __future__ import annotations

from evalkit.core.density import (
    DENSITIES,
    DomStats,
    check_smoothing,
    clean_tree,
    dom_stats,
    gaussian_weights,
    kept_text,
    select_smoothed,
)
from evalkit.core.method import Extractor
from evalkit.core.page import Extraction, Page, PageError, drop_tree
from evalkit.core.validate import (
    check_choice,
    check_share,
    check_str_list,
)

__all__ = [
    "AD_PATTERNS",
    "DEFAULT_LINK_SHARE",
    "DENSITIES",
    "ECECTDS",
    "NOISE_TAGS",
    "PATTERN_ATTRIBUTES",
    "STAGES",
    "naive_find",
    "noise_divs",
]

#: attribute substrings that mark an advertisement container (ours: the thesis names none)
AD_PATTERNS = ("advert", "sponsor", "banner", "adsense", "adsbygoogle", "doubleclick", "promo")
#: the tags whose subtrees the pattern matching judges ("under the <div> tag")
NOISE_TAGS = ("div",)
#: the attributes scanned for the patterns
PATTERN_ATTRIBUTES = ("id", "class")
#: a div is hyperlink noise when at least this share of its characters is link text (ours)
DEFAULT_LINK_SHARE = 0.5
#: where the matched divs are removed: from CECTD-S's output, or from the DOM before it
STAGES = ("after", "before")


def naive_find(pattern: str, text: str) -> int:
    """First index of ``pattern`` in ``text`` by the thesis's window scan, or -1.

    A window as long as the pattern is set at the left end of the text; characters are
    compared left to right, and after a mismatch the window moves one place right
    (Kaur 2015, Fig. 3.4.1). An empty pattern matches at 0.
    """
    m, n = len(pattern), len(text)
    for s in range(n - m + 1):
        j = 0
        while j < m and text[s + j] == pattern[j]:
            j += 1
        if j == m:
            return s
    return -1


def _ad_match(el, patterns: tuple[str, ...], attributes: tuple[str, ...]) -> bool:
    for attr in attributes:
        value = el.get(attr)
        if value:
            value = value.lower()
            if any(naive_find(p, value) >= 0 for p in patterns):
                return True
    return False


def noise_divs(
    stats: DomStats,
    patterns: tuple[str, ...],
    link_share: float,
    tags: tuple[str, ...] = NOISE_TAGS,
    attributes: tuple[str, ...] = PATTERN_ATTRIBUTES,
) -> tuple[list[int], list[int]]:
    """``(advertisement, hyperlink)``: the outermost matching elements, in document order.

    An element inside one already matched is not listed (its subtree goes with it).
    Advertisement is checked first, so an element is in one list only.
    """
    ads: list[int] = []
    links: list[int] = []
    end = 0
    for i, name in enumerate(stats.names):
        if i < end or name not in tags:
            continue
        c = stats.chars[i]
        if patterns and _ad_match(stats.nodes[i], patterns, attributes):
            ads.append(i)
        elif c and stats.link_chars[i] >= link_share * c:
            links.append(i)
        else:
            continue
        end = i + stats.tags[i] + 1  # a subtree is contiguous in pre-order
    return ads, links


class ECECTDS(Extractor):
    """CECTD-S plus pattern matching of hyperlink and advertisement divs (Kaur 2015;
    reconstruction).

    Parameters
    ----------
    sigma, radius, scope, use, density : CECTD-S's (``baselines/cectd_s.py``).
    ad_patterns : lower-case substrings of ``id``/``class`` marking advertisement divs.
    link_share : a div whose link characters reach this share of its characters is noise.
    stage : ``"after"`` (default) or ``"before"``: drop matches from CECTD-S's output, or
        from the DOM before CECTD-S runs.
    noise_tags : the tags judged (``["div"]``).
    pattern_attributes : the attributes scanned (``["id", "class"]``).
    """

    name = "ecectd_s"

    def __init__(
        self,
        sigma: float = 1.0,
        radius: int | None = None,
        scope: str = "siblings",
        use: str = "select",
        density: str = "ctd",
        ad_patterns=AD_PATTERNS,
        link_share: float = DEFAULT_LINK_SHARE,
        stage: str = "after",
        noise_tags=NOISE_TAGS,
        pattern_attributes=PATTERN_ATTRIBUTES,
    ):
        self.sigma = sigma
        self.radius = radius
        self.scope = scope
        self.use = use
        self.density = density
        self.ad_patterns = ad_patterns
        self.link_share = link_share
        self.stage = stage
        self.noise_tags = noise_tags
        self.pattern_attributes = pattern_attributes
        self._validate()

    def _validate(self) -> None:
        check_smoothing(self)
        check_str_list("ad_patterns", self.ad_patterns, allow_empty=True)
        check_share("link_share", self.link_share)
        check_choice("stage", self.stage, STAGES)
        check_str_list("noise_tags", self.noise_tags)
        check_str_list("pattern_attributes", self.pattern_attributes, allow_empty=True)

    def extract(self, page: Page) -> Extraction:
        try:
            root = page.tree(plain=True)
        except PageError as exc:  # nothing to extract from an empty document
            return Extraction(
                text="",
                info={"n_nodes": 0, "threshold": None, "content_root": None, "skipped": exc.reason},
            )
        clean_tree(root)
        body = root.find(".//body")
        if body is None:  # a frameset page, or a fragment lxml gave no body
            body = root
        patterns = tuple(p.lower() for p in self.ad_patterns)
        tags = tuple(t.lower() for t in self.noise_tags)
        attributes = tuple(self.pattern_attributes)
        stats = dom_stats(body)
        ads, links = noise_divs(stats, patterns, self.link_share, tags, attributes)
        if self.stage == "before" and (ads or links):
            for i in ads + links:
                el = stats.nodes[i]
                if el is not body and el.getparent() is not None:
                    drop_tree(el)
            stats = dom_stats(body)
        weights = gaussian_weights(self.sigma, self.radius)
        marks, content_root, threshold, smoothed = select_smoothed(
            stats, self.density, weights, self.scope, self.use
        )
        if self.stage == "after":
            for i in ads + links:
                end = i + stats.tags[i] + 1
                marks[i:end] = [0] * (end - i)
        return Extraction(
            text=kept_text(stats, marks),
            info={
                "n_nodes": len(stats.nodes),
                "threshold": threshold,
                "content_root": root.getroottree().getpath(stats.nodes[content_root]),
                "max_smoothed_density": smoothed[content_root],
                "n_ad_divs": len(ads),
                "n_link_divs": len(links),
            },
        )
