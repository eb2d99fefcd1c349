"""The proposed extractor: the four stages of Saravanan & Sathya Bama (2020) chained.

Block separation (``blocks``, stage 1.1), primary noise removal by tag and DOM
analysis (``primary_tags``, ``primary_dom``, stage 1.2), secondary noise removal
with the modified simhash (``dedup``, stage 1.3) and weighted block scoring
(``scoring``, stage 1.4); docs/methods/proposed.md is the specification and each module's
docstring lists where it departs from the paper.

Each stage can be switched off (``primary``, ``dedup``, ``scoring``), and
each primary rule has its own switch (``rule_<name>``), so ablations are
configurations (``configs/method/proposed_primary.yaml`` runs stages 1-2,
``proposed_dedup.yaml`` stages 1-3). The extraction records, for every block,
the stage and rule that removed it with a short reason, its score and the
threshold when it reached stage 1.4, and ``duplicate_of`` (the earlier block
it duplicates) when stage 1.3 removed it. Its ``info`` holds the number of
blocks left after each stage and the wall seconds of each step
(``seconds_parse``, ``seconds_blocks``, ``seconds_primary``, ``seconds_dedup``,
``seconds_scoring``, ``seconds_output``: the records and the text), which the
``speed`` experiment breaks down.

Site scope (``scope="site"``): the fingerprints of blocks that survive stage
1.3 are remembered per site (:func:`evalkit.domains.site_of`: ``page.site``,
else the host of ``page.url``) in ``site_fingerprints_``, and later pages of
the same site compare their blocks against them, which removes repeated
template blocks. The result therefore depends on the order of the pages and
on all pages of a site going through the same ``Proposed`` instance; the
runner sends all of a site's pages, in order, to one worker as one task
(docs/sites.md). ``reset()`` forgets them. With page scope (the default)
every page is independent.
"""

from __future__ import annotations

import time
from typing import Any

from evalkit.block import Block as BlockRecord
from evalkit.domains import site_of
from evalkit.method import Extractor
from evalkit.page import Extraction, Page
from evalkit.proposed import primary_dom, primary_tags, scoring
from evalkit.proposed.blocks import (
    BLOCK_TAGS,
    Block,
    BodyIndex,
    TextCache,
    block_anchor_text,
    drop_scripts,
    iter_own,
    link_words,
    split_body,
)
from evalkit.proposed.dedup import DEFAULT_BITS, DEFAULT_K, SUPPORTED_BITS, ModifiedSimhash
from evalkit.text import STEMMERS, STOPLISTS, normalize_space, terms, terms_many
from evalkit.validate import (
    ParamError,
    check_bool,
    check_choice,
    check_int,
    check_number,
    check_share,
    check_str_list,
)

__all__ = ["RECORD_TEXT_CHARS", "SCOPES", "STAGES", "Proposed"]

STAGES = ("primary", "dedup", "scoring")
#: the primary rules, each switched by ``rule_<name>``
RULES = (*primary_tags.TAG_RULES, "min_subtree", "punctuation")
_SWITCHES = (*STAGES, *(f"rule_{r}" for r in RULES), "background_removes_block")
SCOPES = ("page", "site")
#: characters of block text kept in each block record
RECORD_TEXT_CHARS = 80


class Proposed(Extractor):
    """Saravanan & Sathya Bama (2020) noise removal and core-content extraction.

    Parameters (docs/methods/proposed.md; every one is a key of ``configs/method/proposed.yaml``)
    ----------
    primary, dedup, scoring : bool
        Run stage 1.2, 1.3, 1.4. Block separation always runs.
    rule_background, rule_offsite_image, rule_ad_marker, rule_iab_size, rule_plugin,
    rule_utility_links, rule_min_subtree, rule_punctuation : bool
        Switch each primary rule.
    block_tags : list of str
        Elements that delimit blocks (div, td).
    background_removes_block : bool
        False strips background images only; True drops the element (literal reading).
    ad_tokens, ad_substrings, ad_hosts, social_hosts, legal_phrases : list of str
        Word lists of the tag rules (see ``primary_tags``).
    iab_sizes : list of [width, height]
        Banner sizes removed by ``iab_size``.
    ad_max_share, utility_link_share, utility_max_words, ad_container_chars
        Limits of ``ad_marker``, ``utility_links`` and the ad-container check
        (see ``primary_tags``).
    min_subtree_coverage : float
        Share of punctuation the content root must hold (0.8).
    outside_subtree : {"remove", "keep"}
        What happens to blocks outside the content root.
    short_text_chars : int
        Blocks shorter than this are merged with sibling blocks for the punctuation rule.
    stoplist, stemmer : str
        Term preprocessing for stages 1.3 and 1.4.
    bits, k : int
        Modified simhash width and Hamming threshold (used when ``detector`` is
        ``modified_simhash``; ``detector_params`` may override them).
    scope : {"page", "site"}
        Compare blocks within a page, or also against earlier pages of the same site.
    detector : str
        Any name in ``evalkit.registry.DETECTORS``.
    detector_params : dict
        Keyword arguments for the detector.
    alpha, beta, gamma : float
        Eq. 4 weights (alpha <= beta <= gamma, sum 1).
    content_denominator : {"block_distinct_sum", "page_distinct"}
        D_content of Eq. 7 (see ``scoring``).
    title_source, title_count, link_scope, link_count, content_count, content_weight, bound,
    threshold_blocks, comparison, if_none_pass : str
        The other readings of stage 1.4, fields of :class:`evalkit.proposed.scoring.Reading`
        (its docstring quotes the paper for each; docs/readings.md).
    """

    name = "proposed"

    def __init__(
        self,
        primary: bool = True,
        dedup: bool = True,
        scoring: bool = True,
        rule_background: bool = True,
        rule_offsite_image: bool = True,
        rule_ad_marker: bool = True,
        rule_iab_size: bool = True,
        rule_plugin: bool = True,
        rule_utility_links: bool = True,
        rule_min_subtree: bool = True,
        rule_punctuation: bool = True,
        block_tags: tuple[str, ...] = BLOCK_TAGS,
        background_removes_block: bool = False,
        ad_tokens: tuple[str, ...] = primary_tags.DEFAULT_AD_TOKENS,
        ad_substrings: tuple[str, ...] = primary_tags.DEFAULT_AD_SUBSTRINGS,
        ad_hosts: tuple[str, ...] = primary_tags.DEFAULT_AD_HOSTS,
        social_hosts: tuple[str, ...] = primary_tags.DEFAULT_SOCIAL_HOSTS,
        legal_phrases: tuple[str, ...] = primary_tags.DEFAULT_LEGAL_PHRASES,
        iab_sizes: tuple[tuple[int, int], ...] = primary_tags.IAB_SIZES,
        ad_max_share: float = primary_tags.DEFAULT_AD_MAX_SHARE,
        utility_link_share: float = primary_tags.DEFAULT_UTILITY_LINK_SHARE,
        utility_max_words: int = primary_tags.DEFAULT_UTILITY_MAX_WORDS,
        ad_container_chars: int = primary_tags.DEFAULT_AD_CONTAINER_CHARS,
        min_subtree_coverage: float = primary_dom.DEFAULT_MIN_SUBTREE_COVERAGE,
        outside_subtree: str = "remove",
        short_text_chars: int = primary_dom.DEFAULT_SHORT_TEXT_CHARS,
        stoplist: str = "english",
        stemmer: str = "porter",
        bits: int = DEFAULT_BITS,
        k: int = DEFAULT_K,
        scope: str = "page",
        detector: str = "modified_simhash",
        detector_params: dict[str, Any] | None = None,
        alpha: float = scoring.DEFAULT_ALPHA,
        beta: float = scoring.DEFAULT_BETA,
        gamma: float = scoring.DEFAULT_GAMMA,
        content_denominator: str = "block_distinct_sum",
        title_source: str = "title",
        title_count: str = "occurrences",
        link_scope: str = "block",
        link_count: str = "occurrences",
        content_count: str = "remainder",
        content_weight: str = "eq4",
        bound: str = "none",
        threshold_blocks: str = "stage1",
        comparison: str = "gt",
        if_none_pass: str = "nothing",
    ):
        self.primary = primary
        self.dedup = dedup
        self.scoring = scoring
        self.rule_background = rule_background
        self.rule_offsite_image = rule_offsite_image
        self.rule_ad_marker = rule_ad_marker
        self.rule_iab_size = rule_iab_size
        self.rule_plugin = rule_plugin
        self.rule_utility_links = rule_utility_links
        self.rule_min_subtree = rule_min_subtree
        self.rule_punctuation = rule_punctuation
        self.block_tags = block_tags
        self.background_removes_block = background_removes_block
        self.ad_tokens = ad_tokens
        self.ad_substrings = ad_substrings
        self.ad_hosts = ad_hosts
        self.social_hosts = social_hosts
        self.legal_phrases = legal_phrases
        self.iab_sizes = iab_sizes
        self.ad_max_share = ad_max_share
        self.utility_link_share = utility_link_share
        self.utility_max_words = utility_max_words
        self.ad_container_chars = ad_container_chars
        self.min_subtree_coverage = min_subtree_coverage
        self.outside_subtree = outside_subtree
        self.short_text_chars = short_text_chars
        self.stoplist = stoplist
        self.stemmer = stemmer
        self.bits = bits
        self.k = k
        self.scope = scope
        self.detector = detector
        self.detector_params = detector_params
        self.alpha = alpha
        self.beta = beta
        self.gamma = gamma
        self.content_denominator = content_denominator
        self.title_source = title_source
        self.title_count = title_count
        self.link_scope = link_scope
        self.link_count = link_count
        self.content_count = content_count
        self.content_weight = content_weight
        self.bound = bound
        self.threshold_blocks = threshold_blocks
        self.comparison = comparison
        self.if_none_pass = if_none_pass

    # -- validation and helpers -------------------------------------------------------

    def validate(self) -> Proposed:
        """Check every parameter value (once per run, before any page: evalkit.config
        ``check_specs``): :meth:`_validate` and the word lists and sizes, which are too
        long to walk on every page."""
        check_str_list("block_tags", self.block_tags)
        for name in ("ad_tokens", "ad_substrings", "ad_hosts", "social_hosts", "legal_phrases"):
            check_str_list(name, getattr(self, name), allow_empty=True)  # [] switches a list off
        sizes = self.iab_sizes
        if not isinstance(sizes, (list, tuple)) or not all(
                isinstance(s, (list, tuple)) and len(s) == 2
                and all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in s)
                for s in sizes):
            raise ParamError("iab_sizes", sizes, "must be a list of [width,height] pairs of "
                                                 "whole numbers > 0, e.g. [[468,60]]")
        self._validate()
        return self

    def _validate(self) -> None:
        """Check the scalar parameter values; called before every use, never in ``__init__``.

        Raises :class:`evalkit.validate.ParamError` naming the parameter (the builder puts
        ``method.<label>.`` in front).
        """
        for name in _SWITCHES:
            check_bool(name, getattr(self, name))
        check_share("ad_max_share", self.ad_max_share)
        check_share("utility_link_share", self.utility_link_share)
        check_int("utility_max_words", self.utility_max_words, low=0)
        check_int("ad_container_chars", self.ad_container_chars, low=0)
        check_number("min_subtree_coverage", self.min_subtree_coverage, low=0.5, high=1.0,
                     low_open=True)
        check_choice("outside_subtree", self.outside_subtree, primary_dom.OUTSIDE_SUBTREE)
        check_int("short_text_chars", self.short_text_chars, low=0)
        check_choice("stoplist", self.stoplist, STOPLISTS)
        check_choice("stemmer", self.stemmer, STEMMERS)
        check_choice("bits", self.bits, SUPPORTED_BITS)
        check_int("k", self.k, low=0)
        check_choice("scope", self.scope, SCOPES)
        if self.detector_params is not None and not isinstance(self.detector_params, dict):
            raise ParamError("detector_params", self.detector_params,
                             "must be a mapping of detector keyword arguments, e.g. {k: 4}")
        self._reading()  # the weights and every reading of stage 1.4
        from evalkit.registry import DETECTORS

        if self.detector not in DETECTORS:
            DETECTORS.get(self.detector)  # raises with the list of known names

    def _reading(self) -> scoring.Reading:
        """Stage 1.4's reading from the flat parameters (validated on construction)."""
        return scoring.Reading(**{f: getattr(self, f) for f in scoring.Reading.__dataclass_fields__})

    def _tag_rules(self) -> list[str]:
        return [r for r in primary_tags.TAG_RULES if getattr(self, f"rule_{r}")]

    def _make_detector(self):
        """The near-duplicate detector (created once per parameter set, then reused)."""
        from evalkit.registry import DETECTORS

        params = dict(self.detector_params or {})
        if self.detector == "modified_simhash":
            params = {"bits": self.bits, "k": int(self.k), "stoplist": self.stoplist,
                      "stemmer": self.stemmer, **params}
        key = (self.detector, repr(sorted(params.items())))
        cached = getattr(self, "detector_", None)
        if cached is None or getattr(self, "detector_key_", None) != key:
            self.detector_ = DETECTORS.create(self.detector, **params)
            self.detector_key_ = key
        return self.detector_

    def resolved_params(self) -> dict[str, Any]:
        """``detector_params`` as the detector is built: its own defaults filled in and, for
        the modified simhash, ``bits``/``k``/``stoplist``/``stemmer`` passed down."""
        return {**self.get_params(), "detector_params": self._make_detector().resolved_params()}

    def runtime_modules(self) -> list[str]:
        from evalkit.registry import DETECTORS

        return [DETECTORS.module_of(self.detector)]  # the registry imports it by name

    def reset(self) -> Proposed:
        """Forget the fingerprints remembered for site scope."""
        self.site_fingerprints_: dict[str, list[Any]] = {}
        return self

    # -- the extraction -----------------------------------------------------------------

    def extract(self, page: Page) -> Extraction:
        self._validate()
        tags = tuple(t.lower() for t in self.block_tags)
        info: dict[str, Any] = {}
        t0 = time.perf_counter()
        root = page.tree(plain=True)  # no lxml.html helpers are needed: cheaper elements
        info["seconds_parse"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        title_el = root.find(".//title")
        title = normalize_space(title_el.xpath("string()")) if title_el is not None else ""
        drop_scripts(root)
        cache = TextCache(tags)  # each block's own text, kept current by the tag rules
        # the index holds every element of the body, so later visits reuse their proxies
        blocks, index = split_body(root, tags, texts=cache)
        # block texts before later stages change the tree, for the records
        first_text = {b.index: cache[b] for b in blocks}
        info["n_blocks"] = len(blocks)
        info["seconds_blocks"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        if self.primary:
            info["primary_counts"] = self._primary(root, blocks, page, tags, cache, index)
        info["n_after_primary"] = sum(b.alive for b in blocks)
        info["seconds_primary"] = time.perf_counter() - t0

        # final texts of the survivors (tag rules may have removed parts of them)
        texts = {b.index: cache[b] for b in blocks if b.alive}

        t0 = time.perf_counter()
        block_terms: dict[int, list[str]] = {}  # stage 1.3's terms, reused by stage 1.4
        if self.dedup:
            block_terms = self._dedup([b for b in blocks if b.alive], texts, page)
        info["n_after_dedup"] = sum(b.alive for b in blocks)
        info["seconds_dedup"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        if self.scoring:
            self._score([b for b in blocks if b.alive], texts, title, len(blocks), tags,
                        block_terms, index, info["n_after_primary"])
        info["n_kept"] = sum(b.alive for b in blocks)
        info["seconds_scoring"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        lines = [" ".join(texts[b.index].split("\n")) for b in blocks if b.alive]
        records = [self._record(b, texts.get(b.index, first_text[b.index])) for b in blocks]
        info["seconds_output"] = time.perf_counter() - t0
        return Extraction(text="\n".join(x for x in lines if x), blocks=records, info=info)

    def _record(self, b: Block, text: str) -> BlockRecord:
        """The block's record (:class:`evalkit.block.Block`): ``path``, ``words``, ``kept``,
        ``stage``/``rule``/``reason`` of its removal, ``duplicate_of`` for a duplicate, and in
        ``scores``: ``score`` and ``threshold`` (None unless stage 1.4 scored the block)."""
        return BlockRecord(
            index=b.index, tag=b.tag, path=b.path, text=" ".join(text.split())[:RECORD_TEXT_CHARS],
            words=b.words, kept=b.alive, stage=b.stage, rule=b.rule, reason=b.reason or None,
            duplicate_of=b.extra.get("duplicate_of"),
            scores={"score": b.score, "threshold": b.threshold})

    def _primary(self, root, blocks: list[Block], page: Page, tags, texts: TextCache,
                 index: BodyIndex | None = None) -> dict[str, int]:
        counts = primary_tags.apply_tag_rules(
            root, blocks, page_url=page.url, rules=self._tag_rules(),
            background_removes_block=self.background_removes_block,
            ad_tokens=self.ad_tokens, ad_substrings=self.ad_substrings,
            ad_hosts=self.ad_hosts, ad_max_share=self.ad_max_share,
            social_hosts=self.social_hosts, legal_phrases=self.legal_phrases,
            iab_sizes=self.iab_sizes, utility_link_share=self.utility_link_share,
            utility_max_words=self.utility_max_words,
            ad_container_chars=self.ad_container_chars, block_tags=tags, texts=texts,
            index=index)
        if self.rule_min_subtree:
            _, inside = primary_dom.apply_min_subtree(
                root, blocks, coverage=self.min_subtree_coverage,
                outside_subtree=self.outside_subtree, block_tags=tags)
        else:
            inside = [b for b in blocks if b.alive]
        counts["min_subtree"] = sum(b.rule == "min_subtree" for b in blocks)
        if self.rule_punctuation:
            counts["punctuation"] = primary_dom.apply_punctuation(
                inside, short_text_chars=self.short_text_chars, block_tags=tags, texts=texts)
        return counts

    def _dedup(self, alive: list[Block], texts: dict[int, str],
               page: Page) -> dict[int, list[str]]:
        """Stage 1.3; returns the blocks' terms when the detector made them as stage 1.4 does."""
        det = self._make_detector()
        site = site_of(page) if self.scope == "site" else None
        if not hasattr(self, "site_fingerprints_"):
            self.reset()
        seen = self.site_fingerprints_.get(site, []) if site is not None else None
        block_terms: dict[int, list[str]] = {}
        fps = None
        if isinstance(det, ModifiedSimhash) and (det.stoplist, det.stemmer) == (self.stoplist,
                                                                                 self.stemmer):
            # the detector's terms are the scoring's: make them once
            lists = terms_many([texts[b.index] for b in alive], self.stoplist, self.stemmer)
            block_terms = {b.index: t for b, t in zip(alive, lists)}
            fps = det.fingerprint_many(lists)  # the page's blocks at once
            matches = det.match_fingerprints(fps, seen=seen)
        else:
            matches = det.find_duplicates([texts[b.index] for b in alive], seen=seen)
        for b, m in zip(alive, matches):
            if m is None:
                continue
            if m >= 0:
                b.remove("dedup", "near_duplicate",
                         f"near duplicate of block b{alive[m].index} ({self.detector})")
                b.extra["duplicate_of"] = alive[m].index
            else:
                b.remove("dedup", "site_duplicate",
                         f"near duplicate of a block kept earlier on {site} ({self.detector})")
        if site is not None:
            if fps is not None:
                kept = [f for b, f in zip(alive, fps) if b.alive]
            else:
                kept = [det.fingerprint(texts[b.index]) for b in alive if b.alive]
            self.site_fingerprints_.setdefault(site, []).extend(f for f in kept if f is not None)
        return block_terms

    def _score(self, alive: list[Block], texts: dict[int, str], title: str, n_blocks: int,
               tags, block_terms: dict[int, list[str]], index: BodyIndex | None = None,
               n_primary: int | None = None) -> None:
        reading = self._reading()
        prep = (self.stoplist, self.stemmer)
        anchors = _anchor_texts(alive, index, tags) if index is not None else None
        heads = _heading_texts(alive, index, tags) if reading.title_source == "headings" else {}
        inputs = []
        for b in alive:
            own = block_terms.get(b.index)
            link_text = anchors.get(b.index, "") if anchors is not None else \
                block_anchor_text(b, tags)
            inputs.append(scoring.BlockInputs(
                terms=own if own is not None else terms(texts[b.index], *prep),
                anchor_terms=terms(link_text, *prep),
                heading_terms=terms(heads[b.index], *prep) if b.index in heads else ()))
        out = scoring.score_page(reading, scoring.PageInputs(
            blocks=inputs, title_terms=terms(title, *prep), n_blocks_stage1=n_blocks,
            n_blocks_stage2=n_blocks if n_primary is None else n_primary))
        below = "<=" if reading.comparison == "gt" else "<"
        for b, s, keep in zip(alive, out.scores, out.kept):
            b.score, b.threshold = s, out.threshold
            if not keep:
                b.remove("scoring", "low_score", f"score {s:.3f} {below} threshold "
                                                 f"{out.threshold:.3f}")


def _anchor_texts(alive: list[Block], index: BodyIndex, tags) -> dict[int, str]:
    """``block_anchor_text`` of each alive block, from the index: the ``<a>`` elements still
    in the tree, grouped by the block that owns them, each one's own text."""
    by_el = {b.element: b.index for b in alive}
    residual = next((b.index for b in alive if b.residual), None)
    parts: dict[int, list[str]] = {}
    owner, gone = index.owner, index.gone
    for el in index.elements:
        if el.tag != "a" or el in gone:  # libxml2's HTML parser gives lower-case names
            continue
        holder = owner[el]
        i = by_el.get(holder) if holder is not None else residual
        if i is not None:
            parts.setdefault(i, []).append(link_words(el, tags))
    return {i: normalize_space(" ".join(p)) for i, p in parts.items()}


_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


def _heading_texts(alive: list[Block], index: BodyIndex | None, tags) -> dict[int, str]:
    """Own text of the ``<h1>``-``<h6>`` elements each alive block owns (for
    ``title_source="headings"``), from the index when there is one."""
    parts: dict[int, list[str]] = {}
    if index is None:
        for b in alive:
            for node in iter_own(b.element, tags):
                if node.tag in _HEADINGS:
                    parts.setdefault(b.index, []).append(link_words(node, tags))
    else:
        by_el = {b.element: b.index for b in alive}
        residual = next((b.index for b in alive if b.residual), None)
        for el in index.elements:
            if el.tag not in _HEADINGS or el in index.gone:
                continue
            holder = index.owner[el]
            i = by_el.get(holder) if holder is not None else residual
            if i is not None:
                parts.setdefault(i, []).append(link_words(el, tags))
    return {i: normalize_space(" ".join(p)) for i, p in parts.items()}
