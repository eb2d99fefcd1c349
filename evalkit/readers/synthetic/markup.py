"""Writing the annotated page: escaping, links, and the emitter that marks fragment roots.

Every fragment root carries ``data-gold="<fine class>"`` (:data:`GOLD_ATTR`);
the raw page is the same markup with those attributes removed
(:mod:`.dataset`), so its units line up one to one with the annotated twin.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evalkit.readers.synthetic.site import _Site

GOLD_ATTR = "data-gold"


def _esc(text: str) -> str:
    return html.escape(text, quote=False)


def _attr(value: str) -> str:
    return html.escape(value, quote=True)


class _Render:
    """Emits the annotated page; fragment roots carry data-gold."""

    def __init__(self, site: _Site):
        self.site = site
        self.parts: list[str] = []

    def name(self, region: str) -> str:
        kind = "id" if region in self.site.id_regions else "class"
        return f'{kind}="{_attr(self.site.names[region])}"'

    def open(self, tag: str, fine: str | None, attrs: str = "") -> None:
        gold = f' {GOLD_ATTR}="{fine}"' if fine else ""
        self.parts.append(f"<{tag}{' ' + attrs if attrs else ''}{gold}>")

    def close(self, tag: str) -> None:
        self.parts.append(f"</{tag}>\n")

    def add(self, s: str) -> None:
        self.parts.append(s)

    def html(self) -> str:
        return "".join(self.parts)


def _links(items: list[tuple[str, str]], sep: str = "") -> str:
    return sep.join(f'<a href="{_attr(h)}">{_esc(t)}</a>' for t, h in items)
