"""Stored tools' outputs held in memory: texts as UTF-8 bytes, and outputs given as Markdown.

The ``stored`` method (baselines/stored.py) reads every output of a tool file at once; these
records keep them small and say which came as Markdown (its structure kept for the structure
metrics, evalkit.metrics.structure).
"""

from __future__ import annotations

from collections.abc import Mapping

from evalkit.core.elements import markdown_text
from evalkit.core.page import Extraction

__all__ = ["MarkdownOutput", "PackedTexts"]


class MarkdownOutput(str):
    """A stored output given as Markdown (a ``markdown`` field): the string is the Markdown;
    ``text`` the line's own text field when it has one (else the Markdown's element texts)."""

    __slots__ = ("text",)

    def __new__(cls, markdown: str, text: str | None = None):
        made = super().__new__(cls, markdown)
        made.text = text
        return made

    def extraction(self) -> Extraction:
        text = markdown_text(str(self)) if self.text is None else self.text
        return Extraction(text=text, markdown=str(self))


class PackedTexts(Mapping):
    """A stored file's ``{page id: text}`` held as UTF-8 bytes, each text decoded when a page
    asks for it: a third to a quarter of the memory of the texts as ``str`` (a text holding
    one character beyond Latin-1 takes 2 or 4 bytes a character), which a glob of many tool
    files multiplies by every file in every process (issue 37, item 14)."""

    __slots__ = ("_data", "_text")

    def __init__(self, texts: dict[str, str]):
        self._data = {k: v.encode("utf-8", "surrogatepass") for k, v in texts.items()}
        # Markdown outputs: which, and the text beside each (None: the Markdown's own)
        self._text = {k: v.text for k, v in texts.items() if isinstance(v, MarkdownOutput)}

    def __getitem__(self, key: str) -> str:
        value = self._data[key].decode("utf-8", "surrogatepass")
        return MarkdownOutput(value, self._text[key]) if key in self._text else value

    def __iter__(self):
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data
