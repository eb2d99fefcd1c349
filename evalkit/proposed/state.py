"""What the proposed method knows of one page as it goes through the stages.

One :class:`PageState` is made per page by ``Proposed.extract`` and handed to each
stage in turn (``evalkit.proposed.stages``): stage 1.1 fills the tree's blocks, the
text cache and the body index; stage 1.2 marks blocks removed and keeps the cache
current; the survivors' texts are then fixed for stages 1.3 and 1.4, which share
their terms. ``info`` collects the counts and timings the extraction reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evalkit.core.page import Page
from evalkit.proposed.blocks import BlockNode, BodyIndex, TextCache

__all__ = ["PageState"]


@dataclass
class PageState:
    """One page on its way through the pipeline."""

    page: Page
    #: counts and timings, returned as ``Extraction.info``
    info: dict[str, Any] = field(default_factory=dict)
    #: the parsed tree, changed in place by stages 1.1 and 1.2
    root: Any = None
    #: block-delimiting tags, lower case
    tags: tuple[str, ...] = ()
    #: the page ``<title>``'s text (stage 1.4's title words)
    title: str = ""
    #: every block of stage 1.1, in document order (the residual block first)
    blocks: list[BlockNode] = field(default_factory=list)
    #: each block's own text, kept current by the tag rules
    cache: TextCache | None = None
    #: what the walk of the body learnt (owner of each element, texts, words)
    index: BodyIndex | None = None
    #: each block's text at separation, before later stages change the tree (for records)
    first_text: dict[int, str] = field(default_factory=dict)
    #: the final text of each block alive after stage 1.2
    texts: dict[int, str] = field(default_factory=dict)
    #: stage 1.3's terms of each block, reused by stage 1.4 (when the detector made them)
    block_terms: dict[int, list[str]] = field(default_factory=dict)

    def alive(self) -> list[BlockNode]:
        """The blocks no stage has removed, in document order."""
        return [b for b in self.blocks if b.alive]
