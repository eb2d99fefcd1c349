"""The stages of the proposed method as objects, one per config group.

Each stage holds the settings of one group of ``configs/method/proposed.yaml``
(``blocks``, ``primary``, ``dedup``, ``scoring``), stores them unchanged under their
own names, checks them when it is made and names a bad one by its dotted key
(``dedup.k=-1: must be a whole number >= 0``). Stages 1.1 to 1.3 ``run`` on a page's
:class:`~evalkit.proposed.state.PageState`; stage 1.4's work is
``Proposed._score`` (``evalkit.proposed.pipeline``), whose weights this module's
:class:`ScoringStage` holds and checks.

The stage-1.3 detector is the modified simhash unless ``dedup.detector`` names
another detector, which the harness builds (:meth:`DedupStage.bind`: the
registry is handed in, never imported), or is a
:class:`~evalkit.core.method.Detector` object.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from evalkit.core.method import param_names
from evalkit.core.rendered import RenderSettings
from evalkit.core.text import normalize_space
from evalkit.core.validate import (
    ParamError,
    check_bool,
    check_choice,
    check_int,
    check_number,
    check_share,
    check_str_list,
)
from evalkit.core.vips import DEFAULT_PDOC, Vips
from evalkit.proposed import primary_dom, primary_tags, scoring
from evalkit.proposed.blocks import BLOCK_TAGS, NESTED_TEXT, TextCache, drop_scripts, split_body
from evalkit.proposed.dedup_stage import SCOPES, DedupStage
from evalkit.proposed.stage import Stage
from evalkit.proposed.state import PageState
from evalkit.proposed.vips_blocks import BLOCK_TAG as VIPS_BLOCK_TAG
from evalkit.proposed.vips_blocks import mark_leaves, name_blocks, page_layout

__all__ = [
    "RULES",
    "SCOPES",
    "STAGES",
    "BlocksStage",
    "DedupStage",
    "PrimaryStage",
    "ScoringStage",
    "Stage",
    "make_stage",
]

#: the primary rules, each switched by ``primary.rule_<name>``, in the order they run
RULES = (*primary_tags.TAG_RULES, "min_subtree", "punctuation")

#: what cuts the page into blocks (BlocksStage.segmenter)
SEGMENTERS = ("tags", "vips")


class BlocksStage(Stage):
    """Stage 1.1, block separation (``evalkit.proposed.blocks``).

    Parameters
    ----------
    tags : list of str
        Elements that delimit blocks (div, td).
    nested_text : {"own", "subtree"}
        What a block's text is when blocks nest. The paper: "inner block tags (<DIV>) as
        well as the outer block tag along with other tags (<TD><P></TD>) are considered
        as a separate block". ``own`` (default): the outer block owns its subtree minus
        the inner blocks, so every text is counted once; ``subtree``: the outer block
        holds the inner blocks' text too, counted in both (a slower path).
    residual_block : bool
        Whether the body's text outside every div/td is a block. The paper: "n is the
        number of <DIV> tags and <TD> tags inside the <BODY> tag". ``true`` (default):
        one residual block holds it and counts in n (the threshold of stage 1.4);
        ``false``: no residual block, that text is dropped and n counts div/td only.
    segmenter : {"tags", "vips"}
        What cuts the page into blocks. The paper: "Initially, the web page is divided
        into various blocks", then names the <DIV> and <TD> tags. ``tags`` (default): the
        elements of ``tags``; ``vips``: the leaves of the VIPS content structure of the
        page rendered by headless Chromium (evalkit.proposed.vips_blocks,
        docs/readings.md#vips-blocks); ``tags`` is not read then.
    pdoc : int
        With ``segmenter="vips"``: VIPS's permitted degree of coherence (1..10).
    render : dict
        With ``segmenter="vips"``: the render settings (``render.*``; default the defaults
        of evalkit.core.rendered.RenderSettings).
    """

    group = "blocks"

    def __init__(
        self,
        tags: tuple[str, ...] = BLOCK_TAGS,
        nested_text: str = "own",
        residual_block: bool = True,
        segmenter: str = "tags",
        pdoc: int = DEFAULT_PDOC,
        render: Mapping[str, Any] | None = None,
    ):
        self.tags = tags
        self.nested_text = nested_text
        self.residual_block = residual_block
        self.segmenter = segmenter
        self.pdoc = pdoc
        self.render = render
        self.validate()

    def _check(self) -> None:
        check_str_list("tags", self.tags)
        check_choice("nested_text", self.nested_text, NESTED_TEXT)
        check_bool("residual_block", self.residual_block)
        check_choice("segmenter", self.segmenter, SEGMENTERS)
        self.vips_ = Vips(pdoc=self.pdoc)  # a bad pdoc fails here, named blocks.pdoc
        RenderSettings.from_params(self.render)  # a bad render setting fails here

    def run(self, state: PageState) -> None:
        """The title, then the blocks of the script-free body, their texts and the index."""
        root = state.root
        title_el = root.find(".//title")
        state.title = normalize_space(title_el.xpath("string()")) if title_el is not None else ""
        marks = None
        if self.segmenter == "vips":  # on the tree as the layout was mapped onto it
            marks = mark_leaves(root, page_layout(state.page, self.render), self.vips_)
            state.tags = tags = (VIPS_BLOCK_TAG,)
        else:
            state.tags = tags = tuple(t.lower() for t in self.tags)
        drop_scripts(root)
        # each block's own text (its subtree's: nested_text), kept current by the tag rules
        state.cache = TextCache(tags, nested=self.nested_text)
        # the index holds every element of the body, so later visits reuse their proxies
        state.blocks, state.index = split_body(
            root, tags, texts=state.cache, residual=self.residual_block
        )
        if marks:
            name_blocks(state.blocks, marks)
        # block texts before later stages change the tree, for the records
        state.first_text = {b.index: state.cache[b] for b in state.blocks}


#: where the iab_size rule reads sizes (PrimaryStage.image_size_from)
IMAGE_SIZE_FROM = ("attributes", "rendered")


class PrimaryStage(Stage):
    """Stage 1.2, primary noise removal: the tag rules (``primary_tags``), then the minimum
    subtree and punctuation rules (``primary_dom``).

    Parameters
    ----------
    enabled : bool
        Run the stage.
    rule_background, rule_offsite_image, rule_ad_marker, rule_iab_size, rule_plugin,
    rule_utility_links, rule_min_subtree, rule_punctuation : bool
        Switch each rule.
    background_removes_block : bool
        False strips background images only; True drops the element (literal reading).
    ad_tokens, ad_substrings, ad_hosts, social_hosts, legal_phrases : list of str
        Word lists of the tag rules (see ``primary_tags``); ``[]`` switches one off.
    iab_sizes : list of [width, height]
        Banner sizes removed by ``iab_size``.
    ad_max_share, utility_link_share, utility_max_words, ad_container_chars
        Limits of ``ad_marker``, ``utility_links`` and the ad-container check.
    min_subtree_coverage : float
        Share of punctuation the content root must hold (0.8).
    outside_subtree : {"remove", "keep"}
        What happens to blocks outside the content root.
    short_text_chars : int
        Blocks shorter than this are merged with sibling blocks for the punctuation rule.
    coverage_by : {"punctuation", "characters"}
        What the content root's share is measured in. The paper: "the minimum subtree that
        covers the entire web page content by computing the punctuation marks".
        ``punctuation`` (default): punctuation marks (``punctuation_marks``);
        ``characters``: non-white-space characters of text, content as text length
        (``primary_dom.content_root``).
    image_size_from : {"attributes", "rendered"}
        Where ``iab_size`` reads an element's size: its ``width``/``height`` attributes and
        pixel styles (default), or the box of the page rendered by headless Chromium
        (docs/rendering.md), which also catches a banner sized by a style sheet of the page.
    render : dict
        The render settings with ``image_size_from="rendered"`` (``render.*``; default the
        defaults of evalkit.core.rendered.RenderSettings).
    punctuation_marks : str
        The marks the minimum-subtree and punctuation rules count. The paper: "The core
        content in the web page has more punctuations such as comma, periods than other
        noise contents". ``",.;:!?"`` (default) or any other set of punctuation
        characters, e.g. ``",."`` (comma and period only).
    """

    group = "primary"

    def __init__(
        self,
        enabled: bool = True,
        rule_background: bool = True,
        rule_offsite_image: bool = True,
        rule_ad_marker: bool = True,
        rule_iab_size: bool = True,
        rule_plugin: bool = True,
        rule_utility_links: bool = True,
        rule_min_subtree: bool = True,
        rule_punctuation: bool = True,
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
        coverage_by: str = "punctuation",
        punctuation_marks: str = primary_dom.PUNCTUATION,
        image_size_from: str = "attributes",
        render: Mapping[str, Any] | None = None,
    ):
        self.enabled = enabled
        self.rule_background = rule_background
        self.rule_offsite_image = rule_offsite_image
        self.rule_ad_marker = rule_ad_marker
        self.rule_iab_size = rule_iab_size
        self.rule_plugin = rule_plugin
        self.rule_utility_links = rule_utility_links
        self.rule_min_subtree = rule_min_subtree
        self.rule_punctuation = rule_punctuation
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
        self.coverage_by = coverage_by
        self.punctuation_marks = punctuation_marks
        self.image_size_from = image_size_from
        self.render = render
        self.validate()

    def _check(self) -> None:
        for name in ("enabled", *(f"rule_{r}" for r in RULES), "background_removes_block"):
            check_bool(name, getattr(self, name))
        for name in ("ad_tokens", "ad_substrings", "ad_hosts", "social_hosts", "legal_phrases"):
            check_str_list(name, getattr(self, name), allow_empty=True)  # [] switches a list off
        sizes = self.iab_sizes
        if not isinstance(sizes, (list, tuple)) or not all(
            isinstance(s, (list, tuple))
            and len(s) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in s)
            for s in sizes
        ):
            raise ParamError(
                "iab_sizes",
                sizes,
                "must be a list of [width,height] pairs of whole numbers > 0, e.g. [[468,60]]",
            )
        check_share("ad_max_share", self.ad_max_share)
        check_share("utility_link_share", self.utility_link_share)
        check_int("utility_max_words", self.utility_max_words, low=0)
        check_int("ad_container_chars", self.ad_container_chars, low=0)
        check_number(
            "min_subtree_coverage", self.min_subtree_coverage, low=0.5, high=1.0, low_open=True
        )
        check_choice("outside_subtree", self.outside_subtree, primary_dom.OUTSIDE_SUBTREE)
        check_int("short_text_chars", self.short_text_chars, low=0)
        check_choice("coverage_by", self.coverage_by, primary_dom.COVERAGE_BY)
        marks = self.punctuation_marks
        if (
            not isinstance(marks, str)
            or not marks
            or len(set(marks)) != len(marks)
            or any(c.isalnum() or c.isspace() or c == "_" for c in marks)
        ):
            raise ParamError(
                "punctuation_marks",
                marks,
                "must be a string of distinct punctuation characters, e.g. ',.;:!?' or ',.'",
            )

        check_choice("image_size_from", self.image_size_from, IMAGE_SIZE_FROM)
        RenderSettings.from_params(self.render)  # a bad render setting fails here

    def rendered_sizes(self, state: PageState) -> dict | None:
        """Each sized element's rendered (width, height), rounded to whole pixels, from the
        page's layout (``image_size_from="rendered"``); None otherwise."""
        if self.image_size_from != "rendered":
            return None
        layout = state.page.layouts.get(RenderSettings.from_params(self.render).key())
        if layout is None:
            raise RuntimeError(
                "no rendered layout for this page (image_size_from=rendered: "
                "the harness renders pages for methods that need one)"
            )
        return {
            el: (round(b.width), round(b.height))
            for el, b in layout.resolve(state.root).items()
            if b.width is not None
        }

    def tag_rules(self) -> list[str]:
        """The tag rules switched on, in the order they run."""
        return [r for r in primary_tags.TAG_RULES if getattr(self, f"rule_{r}")]

    def run(self, state: PageState) -> None:
        """The tag rules, the content root and the punctuation rule; their counts go to
        ``info["primary_counts"]``."""
        blocks, tags = state.blocks, state.tags
        counts = primary_tags.apply_tag_rules(
            state.root,
            blocks,
            page_url=state.page.url,
            rules=self.tag_rules(),
            background_removes_block=self.background_removes_block,
            ad_tokens=self.ad_tokens,
            ad_substrings=self.ad_substrings,
            ad_hosts=self.ad_hosts,
            ad_max_share=self.ad_max_share,
            social_hosts=self.social_hosts,
            legal_phrases=self.legal_phrases,
            iab_sizes=self.iab_sizes,
            utility_link_share=self.utility_link_share,
            utility_max_words=self.utility_max_words,
            ad_container_chars=self.ad_container_chars,
            block_tags=tags,
            texts=state.cache,
            index=state.index,
            rendered_sizes=self.rendered_sizes(state),
        )
        if self.rule_min_subtree:
            _, inside = primary_dom.apply_min_subtree(
                state.root,
                blocks,
                coverage=self.min_subtree_coverage,
                outside_subtree=self.outside_subtree,
                block_tags=tags,
                coverage_by=self.coverage_by,
                marks=self.punctuation_marks,
            )
        else:
            inside = state.alive()
        counts["min_subtree"] = sum(b.rule == "min_subtree" for b in blocks)
        if self.rule_punctuation:
            counts["punctuation"] = primary_dom.apply_punctuation(
                inside,
                short_text_chars=self.short_text_chars,
                block_tags=tags,
                texts=state.cache,
                marks=self.punctuation_marks,
            )
        state.info["primary_counts"] = counts


#: the most literal reading of stage 1.4: the scoring stage's defaults are its fields
_LITERAL = scoring.Reading()


class ScoringStage(Stage):
    """Stage 1.4, weighted block scoring (``scoring``; run by ``Proposed._score``).

    Parameters
    ----------
    enabled : bool
        Run the stage.
    alpha, beta, gamma : float
        Eq. 4 weights (alpha <= beta <= gamma, sum 1).
    content_denominator : {"block_distinct_sum", "page_distinct"}
        D_content of Eq. 7 (see ``scoring``).
    title_source, title_count, link_scope, link_count, content_count, content_weight, bound,
    threshold_blocks, comparison, if_none_pass : str
        The other readings of stage 1.4: fields of :class:`evalkit.proposed.scoring.Reading`,
        whose docstring quotes the paper's sentence for each (docs/readings.md). The defaults
        are the most literal reading.
    """

    group = "scoring"

    def __init__(
        self,
        enabled: bool = True,
        alpha: float = _LITERAL.alpha,
        beta: float = _LITERAL.beta,
        gamma: float = _LITERAL.gamma,
        content_denominator: str = _LITERAL.content_denominator,
        title_source: str = _LITERAL.title_source,
        title_count: str = _LITERAL.title_count,
        link_scope: str = _LITERAL.link_scope,
        link_count: str = _LITERAL.link_count,
        content_count: str = _LITERAL.content_count,
        content_weight: str = _LITERAL.content_weight,
        bound: str = _LITERAL.bound,
        threshold_blocks: str = _LITERAL.threshold_blocks,
        comparison: str = _LITERAL.comparison,
        if_none_pass: str = _LITERAL.if_none_pass,
    ):
        self.enabled = enabled
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
        self.validate()

    def reading(self) -> scoring.Reading:
        """The stage's reading of §3.4 (every setting but ``enabled``)."""
        return scoring.Reading(
            **{f: getattr(self, f) for f in scoring.Reading.__dataclass_fields__}
        )

    def _check(self) -> None:
        check_bool("enabled", self.enabled)
        self.reading()  # the weights and every reading, each named when bad


#: the stage classes by config group, in the order they run
STAGES: dict[str, type[Stage]] = {
    "blocks": BlocksStage,
    "primary": PrimaryStage,
    "dedup": DedupStage,
    "scoring": ScoringStage,
}


def make_stage(group: str, settings: Any) -> Stage:
    """The stage of ``group`` from its settings: None (the defaults), a mapping of them, or a
    stage object (used as it is). An unknown key raises TypeError naming it
    (``dedup.kk``) with the closest valid key."""
    cls = STAGES[group]
    if settings is None:
        return cls()
    if isinstance(settings, cls):
        return settings
    if not isinstance(settings, Mapping):
        raise ParamError(
            group,
            settings,
            f"must be a mapping of the {group} stage's settings, "
            f"e.g. {{{param_names(cls)[-1]}: ...}}",
        )
    valid = param_names(cls)
    unknown = [str(k) for k in settings if k not in valid]
    if unknown:
        near = difflib.get_close_matches(unknown[0], valid, n=3)
        hint = f"closest: {', '.join(f'{group}.{n}' for n in near)}; " if near else ""
        raise TypeError(
            f"has no parameter {', '.join(f'{group}.{u}' for u in unknown)}; "
            f"{hint}valid: {', '.join(f'{group}.{n}' for n in valid)}"
        )
    return cls(**settings)
