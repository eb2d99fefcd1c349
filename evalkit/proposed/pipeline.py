"""The proposed extractor: the four stages of Saravanan & Sathya Bama (2020) chained.

Block separation (``blocks``, stage 1.1), primary noise removal by tag and DOM
analysis (``primary_tags``, ``primary_dom``, stage 1.2), secondary noise removal
with the modified simhash (``dedup``, stage 1.3) and weighted block scoring
(``scoring``, stage 1.4); docs/methods/proposed.md is the specification and each module's
docstring lists where it departs from the paper.

Each stage is an object of :mod:`evalkit.proposed.stages` made from its own
group of settings (``blocks``, ``primary``, ``dedup``, ``scoring``: the groups of
``configs/method/proposed.yaml``, set as ``method.proposed.dedup.k=4``), and one
:class:`~evalkit.proposed.state.PageState` goes through them. Stages 1.2 to 1.4
can be switched off (``primary.enabled``, ...), and each primary rule has its own
switch (``primary.rule_<name>``), so ablations are configurations
(``configs/method/proposed_primary.yaml`` runs stages 1-2, ``proposed_dedup.yaml``
stages 1-3). The flat keys of earlier versions (``k``, ``primary: false``) still
work, with a deprecation warning naming the new key (:data:`RENAMED`; CHANGELOG.md).

The extraction records, for every block, the stage and rule that removed it with
a short reason, its score and the threshold when it reached stage 1.4, and
``duplicate_of`` (the earlier block it duplicates) when stage 1.3 removed it. Its
``info`` holds the number of blocks left after each stage and the wall seconds of
each step (``seconds_parse``, ``seconds_blocks``, ``seconds_primary``,
``seconds_dedup``, ``seconds_scoring``, ``seconds_output``: the records and the
text), which the ``speed`` experiment breaks down.

Site scope (``dedup.scope=site``): the fingerprints of blocks that survive stage
1.3 are remembered per site (:func:`evalkit.core.domains.site_of`: ``page.site``,
else the host of ``page.url``) in the dedup stage's ``site_fingerprints_``, and
later pages of the same site compare their blocks against them, which removes
repeated template blocks. The result therefore depends on the order of the pages
and on all pages of a site going through the same ``Proposed`` instance; the
runner sends all of a site's pages, in order, to one worker as one task
(docs/sites.md). ``reset()`` forgets them. With page scope (the default)
every page is independent.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from evalkit.core.block import Block as BlockRecord
from evalkit.core.markdown_out import blocks_markdown
from evalkit.core.method import Extractor
from evalkit.core.page import Extraction, Page
from evalkit.core.rendered import RenderSettings
from evalkit.core.text import normalize_space, terms
from evalkit.core.validate import ParamError, check_bool, renamed_keys
from evalkit.proposed import scoring
from evalkit.proposed.blocks import (
    BlockNode,
    BodyIndex,
    block_anchor_text,
    iter_own,
    link_words,
)
from evalkit.proposed.stages import (
    RULES,
    SCOPES,
    STAGES,
    BlocksStage,
    DedupStage,
    PrimaryStage,
    ScoringStage,
    Stage,
    make_stage,
)
from evalkit.proposed.state import PageState

__all__ = ["RECORD_TEXT_CHARS", "RENAMED", "RULES", "SCOPES", "STAGES", "Proposed"]

#: characters of block text kept in each block record
RECORD_TEXT_CHARS = 80

#: every flat key of earlier versions -> its key now (CHANGELOG.md lists them)
RENAMED: dict[str, str] = {
    "block_tags": "blocks.tags",
    "primary": "primary.enabled",
    **{f"rule_{r}": f"primary.rule_{r}" for r in RULES},
    **{
        k: f"primary.{k}"
        for k in (
            "background_removes_block",
            "ad_tokens",
            "ad_substrings",
            "ad_hosts",
            "social_hosts",
            "legal_phrases",
            "iab_sizes",
            "ad_max_share",
            "utility_link_share",
            "utility_max_words",
            "ad_container_chars",
            "min_subtree_coverage",
            "outside_subtree",
            "short_text_chars",
        )
    },
    "dedup": "dedup.enabled",
    **{
        k: f"dedup.{k}"
        for k in ("stoplist", "stemmer", "bits", "k", "scope", "detector", "detector_params")
    },
    "scoring": "scoring.enabled",
    # the readings of stage 1.4 were flat keys for one day (docs/readings.md), moved with the rest
    **{k: f"scoring.{k}" for k in scoring.Reading.__dataclass_fields__},
}


def _setting(group: str, name: str) -> property:
    """A read-only view of one stage setting under its old flat name."""
    return property(
        lambda self: getattr(getattr(self, f"{group}_"), name),
        doc=f"``{group}.{name}`` (read by stage 1.4 and the runner).",
    )


class Proposed(Extractor):
    """Saravanan & Sathya Bama (2020) noise removal and core-content extraction.

    Parameters (docs/methods/proposed.md; each a group of ``configs/method/proposed.yaml``)
    ----------
    blocks : dict or BlocksStage, optional
        Stage 1.1 settings: ``tags`` (:class:`~evalkit.proposed.stages.BlocksStage`).
    primary : dict or PrimaryStage, optional
        Stage 1.2 settings: ``enabled``, the ``rule_<name>`` switches, the word lists
        and limits (:class:`~evalkit.proposed.stages.PrimaryStage`).
    dedup : dict or DedupStage, optional
        Stage 1.3 settings: ``enabled``, ``stoplist``, ``stemmer``, ``bits``, ``k``,
        ``scope``, ``detector``, ``detector_params``
        (:class:`~evalkit.proposed.stages.DedupStage`).
    scoring : dict or ScoringStage, optional
        Stage 1.4 settings: ``enabled``, ``alpha``, ``beta``, ``gamma``,
        ``content_denominator`` and the other readings of the stage (``title_count``,
        ``bound``, ...; :class:`~evalkit.proposed.stages.ScoringStage`, docs/readings.md).
    markdown : bool, default False
        Also give the Markdown of the kept blocks in their places (``Extraction.markdown``:
        evalkit.core.markdown_out.blocks_markdown, the one converter of the own methods),
        for the structure metrics. Not part of the paper; the text is the same either way.

    A group left out takes its defaults; a mapping gives some of its settings. The
    stages are made, and every setting checked, when the method is made
    (``blocks_``, ``primary_``, ``dedup_``, ``scoring_``). ``get_params(deep=True)``
    adds each stage's settings as ``<group>__<key>`` (scikit-learn's nesting), which
    ``set_params`` takes too. The old flat keyword arguments (``k=4``,
    ``primary=False``) map to the new ones with a ``FutureWarning`` (:data:`RENAMED`).
    """

    name = "proposed"
    renamed: ClassVar[dict[str, str]] = RENAMED

    #: the settings stage 1.4 (``_score``) reads, and ``scope``, which the runner reads
    stoplist = _setting("dedup", "stoplist")
    stemmer = _setting("dedup", "stemmer")
    scope = _setting("dedup", "scope")
    alpha = _setting("scoring", "alpha")
    beta = _setting("scoring", "beta")
    gamma = _setting("scoring", "gamma")
    content_denominator = _setting("scoring", "content_denominator")

    def __init__(
        self,
        blocks: Mapping[str, Any] | BlocksStage | None = None,
        primary: Mapping[str, Any] | PrimaryStage | None = None,
        dedup: Mapping[str, Any] | DedupStage | None = None,
        scoring: Mapping[str, Any] | ScoringStage | None = None,
        markdown: bool = False,
        **old: Any,
    ):
        groups = {"blocks": blocks, "primary": primary, "dedup": dedup, "scoring": scoring}
        if old or any(
            v is not None and not isinstance(v, (Mapping, Stage)) for v in groups.values()
        ):
            groups = self._upgrade(groups, old)
        self.blocks = groups["blocks"]
        self.primary = groups["primary"]
        self.dedup = groups["dedup"]
        self.scoring = groups["scoring"]
        self.markdown = markdown
        check_bool("markdown", markdown)
        self._make_stages()

    @classmethod
    def _upgrade(cls, groups: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
        """The groups with the old flat keyword arguments moved in, each with a warning."""
        unknown = [k for k in old if k not in RENAMED]
        if unknown:  # the registry turns this into its "has no parameter" line
            raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {unknown[0]!r}")
        plain = {g: v for g, v in groups.items() if v is not None and not isinstance(v, Stage)}
        moved_in, moved = renamed_keys({**plain, **old}, RENAMED)
        for old_key, new_key in moved:
            warnings.warn(
                f"proposed parameter {old_key} is deprecated: use {new_key}",
                FutureWarning,
                stacklevel=3,
            )
        out = dict(groups)
        for group, given in groups.items():
            if group in moved_in:
                if isinstance(given, Stage):
                    raise TypeError(
                        f"{group} is a stage object: set its own settings, not old flat keys for it"
                    )
                out[group] = moved_in[group]
        return out

    def _make_stages(self) -> None:
        """Make (and so check) every stage from its group's settings."""
        made = {}
        for group in STAGES:
            try:
                made[group] = make_stage(group, getattr(self, group))
            except TypeError as exc:  # an unknown key of the group, named as dotted key
                raise TypeError(f"method {self.name!r} {exc}") from None
        self.blocks_: BlocksStage = made["blocks"]
        self.primary_: PrimaryStage = made["primary"]
        self.dedup_: DedupStage = made["dedup"]
        self.scoring_: ScoringStage = made["scoring"]
        if (
            self.blocks_.segmenter == "vips"
            and self.primary_.image_size_from == "rendered"
            and RenderSettings.from_params(self.blocks_.render)
            != RenderSettings.from_params(self.primary_.render)
        ):
            raise ParamError(
                "blocks.render",
                self.blocks_.render,
                "must equal primary.render when both stages read the rendered "
                "page (one layout per page)",
            )

    @property
    def needs_layout(self) -> bool:
        """``blocks.segmenter=vips`` or ``primary.image_size_from=rendered``: the harness
        renders the page first."""
        return self.blocks_.segmenter == "vips" or self.primary_.image_size_from == "rendered"

    @property
    def render(self) -> Mapping[str, Any] | None:
        """The render settings the harness renders the page with (``blocks.render`` with
        VIPS blocks, else ``primary.render``)."""
        if self.blocks_.segmenter == "vips":
            return self.blocks_.render
        return self.primary_.render

    def stages(self) -> dict[str, Stage]:
        """The stage objects by group, in the order they run."""
        return {group: getattr(self, f"{group}_") for group in STAGES}

    # -- parameters -----------------------------------------------------------------------

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The four groups as given and (``deep``, the default as in scikit-learn) every stage
        setting as ``<group>__<key>``."""
        out = super().get_params(deep=False)
        if deep:
            for group, stage in self.stages().items():
                out.update({f"{group}__{k}": v for k, v in stage.get_params().items()})
        return out

    def set_params(self, **params: Any) -> Proposed:
        """Set groups (``dedup={...}``) or single settings (``dedup__k=4``); the stages are
        made again, and checked."""
        top = {k: v for k, v in params.items() if "__" not in k}
        for key, value in params.items():
            if "__" in key:
                group, _, name = key.partition("__")
                if group not in STAGES:
                    raise ValueError(f"Proposed has no stage {group!r}; stages: {list(STAGES)}")
                settings = top.get(group)
                if settings is None:
                    settings = getattr(self, f"{group}_").get_params()
                top[group] = {**settings, name: value}
        super().set_params(**top)
        self._make_stages()
        return self

    def validate(self) -> Proposed:
        """Check every stage's settings again (they were checked when the method was made;
        evalkit.harness.config ``check_specs`` calls this once per run, before any page)."""
        for stage in self.stages().values():
            stage.validate()
        return self

    def resolved_params(self) -> dict[str, Any]:
        """Every setting of every stage, defaults filled in, and the stage-1.3 detector's
        parameters as it is built (``dedup.detector_params``)."""
        out = {group: stage.get_params() for group, stage in self.stages().items()}
        if self.blocks_.segmenter == "tags":  # VIPS's settings change nothing then
            for key in ("segmenter", "pdoc", "render"):
                out["blocks"].pop(key)
        out["dedup"] = self.dedup_.resolved_params()
        return out

    def bind_detectors(self, detectors) -> Proposed:
        """Let stage 1.3 build the detector its settings name (evalkit.harness.registry hands its
        DETECTORS in; this package never imports the registry)."""
        self.dedup_.bind(detectors)
        return self

    def runtime_modules(self) -> list[str]:
        return self.dedup_.runtime_modules()  # the detector's module, built by name

    def reset(self) -> Proposed:
        """Forget the fingerprints remembered for site scope."""
        self.dedup_.reset()
        return self

    # -- the extraction -----------------------------------------------------------------

    def extract(self, page: Page) -> Extraction:
        state = self._through_dedup(page)
        _step(state, "scoring", "n_kept", self._run_scoring if self.scoring_.enabled else None)
        t0 = time.perf_counter()
        blocks, texts, first_text = state.blocks, state.texts, state.first_text
        lines = [" ".join(texts[b.index].split("\n")) for b in blocks if b.alive]
        records = [self._record(b, texts.get(b.index, first_text[b.index])) for b in blocks]
        markdown = self._markdown(state) if self.markdown else None
        state.info["seconds_output"] = time.perf_counter() - t0
        return Extraction(
            text="\n".join(x for x in lines if x),
            blocks=records,
            info=state.info,
            markdown=markdown,
        )

    def _markdown(self, state: PageState) -> str | None:
        """The kept blocks' Markdown in their places (None for VIPS blocks: not elements)."""
        if self.blocks_.segmenter != "tags":
            return None
        body = state.root.find(".//body")
        removed = [b.element for b in state.blocks if not b.alive and b.element is not None]
        return blocks_markdown(state.root if body is None else body, removed, self.blocks_.tags)

    def _through_dedup(self, page: Page) -> PageState:
        """Stages 1.1 to 1.3 on ``page`` (each as its switch says): the page's state just
        before stage 1.4."""
        state = PageState(page=page)
        info = state.info
        t0 = time.perf_counter()
        state.root = page.tree(plain=True)  # no lxml.html helpers are needed: cheaper elements
        info["seconds_parse"] = time.perf_counter() - t0
        _step(state, "blocks", "n_blocks", self.blocks_.run)
        _step(
            state,
            "primary",
            "n_after_primary",
            self.primary_.run if self.primary_.enabled else None,
        )
        # final texts of the survivors (tag rules may have removed parts of them)
        state.texts = {b.index: state.cache[b] for b in state.alive()}
        _step(state, "dedup", "n_after_dedup", self.dedup_.run if self.dedup_.enabled else None)
        return state

    def scoring_inputs(
        self, page: Page, headings: bool = True
    ) -> tuple[scoring.PageInputs, list[str]]:
        """What stage 1.4 would score on ``page``, without deciding: its
        :class:`~evalkit.proposed.scoring.PageInputs` (stages 1.1-1.3 as configured; heading
        terms too unless ``headings`` is False) and the output line of each distinct block,
        in the same order. ``"\n".join(line for line, keep in zip(lines, out.kept) if keep
        and line)`` of ``out = scoring.score_page(reading, inputs)`` is the text
        :meth:`extract` gives under ``reading`` (the readings study scores every reading
        from one pass). With site scope, pages of a site must come in order, as for
        :meth:`extract`."""
        state = self._through_dedup(page)
        alive = state.alive()
        inputs = self._inputs(
            alive,
            state.texts,
            state.title,
            len(state.blocks),
            state.tags,
            state.block_terms,
            state.index,
            state.info.get("n_after_primary"),
            headings=headings,
            nested=_nested(state),
        )
        lines = [" ".join(state.texts[b.index].split("\n")) for b in alive]
        return inputs, lines

    def _record(self, b: BlockNode, text: str) -> BlockRecord:
        """The block's record (:class:`evalkit.core.block.Block`): ``path``, ``words``, ``kept``,
        ``stage``/``rule``/``reason`` of its removal, ``duplicate_of`` for a duplicate, and in
        ``scores``: ``score`` and ``threshold`` (None unless stage 1.4 scored the block)."""
        return BlockRecord(
            index=b.index,
            tag=b.tag,
            path=b.path,
            text=" ".join(text.split())[:RECORD_TEXT_CHARS],
            words=b.words,
            kept=b.alive,
            stage=b.stage,
            rule=b.rule,
            reason=b.reason or None,
            duplicate_of=b.extra.get("duplicate_of"),
            scores={"score": b.score, "threshold": b.threshold},
        )

    def _run_scoring(self, state: PageState) -> None:
        """Stage 1.4 on the page's alive blocks (:meth:`_score`)."""
        self._score(
            state.alive(),
            state.texts,
            state.title,
            len(state.blocks),
            state.tags,
            state.block_terms,
            state.index,
            state.info.get("n_after_primary"),
            nested=_nested(state),
        )

    def _score(
        self,
        alive: list[BlockNode],
        texts: dict[int, str],
        title: str,
        n_blocks: int,
        tags,
        block_terms: dict[int, list[str]],
        index: BodyIndex | None = None,
        n_primary: int | None = None,
        nested: bool = False,
    ) -> None:
        """Stage 1.4; ``nested``: the blocks' texts are their subtrees'
        (``blocks.nested_text=subtree``), so their link and heading words are too."""
        reading = self.scoring_.reading()
        inputs = self._inputs(
            alive,
            texts,
            title,
            n_blocks,
            tags,
            block_terms,
            index,
            n_primary,
            headings=reading.title_source == "headings",
            nested=nested,
        )
        out = scoring.score_page(reading, inputs)
        below = "<=" if reading.comparison == "gt" else "<"
        for b, s, keep in zip(alive, out.scores, out.kept):
            b.score, b.threshold = s, out.threshold
            if not keep:
                b.remove(
                    "scoring", "low_score", f"score {s:.3f} {below} threshold {out.threshold:.3f}"
                )

    def _inputs(
        self,
        alive: list[BlockNode],
        texts: dict[int, str],
        title: str,
        n_blocks: int,
        tags,
        block_terms: dict[int, list[str]],
        index: BodyIndex | None,
        n_primary: int | None,
        headings: bool,
        nested: bool = False,
    ) -> scoring.PageInputs:
        """Stage 1.4's inputs of the alive blocks (stage 1.3's preprocessing throughout);
        heading terms only when ``headings`` (a reading that reads title words from them);
        ``nested``: the blocks' texts are their subtrees' (``blocks.nested_text=subtree``)."""
        prep = (self.stoplist, self.stemmer)
        anchors = _anchor_texts(alive, index, tags, nested) if index is not None else None
        heads = _heading_texts(alive, index, tags, nested) if headings else {}
        inputs = []
        for b in alive:
            own = block_terms.get(b.index)
            link_text = (
                anchors.get(b.index, "") if anchors is not None else block_anchor_text(b, tags)
            )
            inputs.append(
                scoring.BlockInputs(
                    terms=own if own is not None else terms(texts[b.index], *prep),
                    anchor_terms=terms(link_text, *prep),
                    heading_terms=terms(heads[b.index], *prep) if b.index in heads else (),
                )
            )
        return scoring.PageInputs(
            blocks=inputs,
            title_terms=terms(title, *prep),
            n_blocks_stage1=n_blocks,
            n_blocks_stage2=n_blocks if n_primary is None else n_primary,
        )


def _nested(state: PageState) -> bool:
    """Whether the page's block texts are their subtrees' (``blocks.nested_text=subtree``)."""
    return state.cache is not None and state.cache.nested == "subtree"


def _step(state: PageState, name: str, count: str, run: Callable[[PageState], None] | None) -> None:
    """Run one stage (None: switched off), then note the blocks left and its wall seconds."""
    t0 = time.perf_counter()
    if run is not None:
        run(state)
    state.info[count] = sum(b.alive for b in state.blocks)
    state.info[f"seconds_{name}"] = time.perf_counter() - t0


def _holders(holder, by_el: dict, residual: int | None, nested: bool) -> list[int]:
    """The alive blocks whose text holds an element owned by ``holder`` (its nearest block
    element, None: the residual): that block, and with ``nested`` every block around it."""
    if holder is None:
        return [] if residual is None else [residual]
    if not nested:
        i = by_el.get(holder)
        return [] if i is None else [i]
    out = []
    node = holder
    while node is not None:
        i = by_el.get(node)
        if i is not None and i != residual:  # the residual holds the body's own text only
            out.append(i)
        node = node.getparent()
    return out


def _anchor_texts(
    alive: list[BlockNode], index: BodyIndex, tags, nested: bool = False
) -> dict[int, str]:
    """``block_anchor_text`` of each alive block, from the index: the ``<a>`` elements still
    in the tree, grouped by the block that owns them (with ``nested``, also by every block
    around that one), each one's own text."""
    by_el = {b.element: b.index for b in alive}
    residual = next((b.index for b in alive if b.residual), None)
    parts: dict[int, list[str]] = {}
    owner, gone = index.owner, index.gone
    for el in index.elements:
        if el.tag != "a" or el in gone:  # libxml2's HTML parser gives lower-case names
            continue
        holder = owner[el]
        if nested:
            for i in _holders(holder, by_el, residual, nested):
                parts.setdefault(i, []).append(link_words(el, tags))
            continue
        i = by_el.get(holder) if holder is not None else residual
        if i is not None:
            parts.setdefault(i, []).append(link_words(el, tags))
    return {i: normalize_space(" ".join(p)) for i, p in parts.items()}


_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


def _heading_texts(
    alive: list[BlockNode], index: BodyIndex | None, tags, nested: bool = False
) -> dict[int, str]:
    """Own text of the ``<h1>``-``<h6>`` elements each alive block owns (for
    ``title_source="headings"``), from the index when there is one; with ``nested``, also
    those of the blocks inside it."""
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
            for i in _holders(holder, by_el, residual, nested):
                parts.setdefault(i, []).append(link_words(el, tags))
    return {i: normalize_space(" ".join(p)) for i, p in parts.items()}
