"""The page template: where each fragment goes in the ``div``, ``html5`` and ``table`` layouts.

:func:`_render_page` writes the annotated page of one article on one site:
header, navigation, search and top ad; the article column (headline, byline,
share bar, content blocks with their planted copies and an inline ad); the
related links and comments below it; the sidebar (ads, about blurb,
newsletter); the bottom ads, social and legal links and the footer. On
``table`` sites the regions are table cells, and on most of them every
article fragment is a ``<td>`` of its own.
"""

from __future__ import annotations

import random

from evalkit.readers.synthetic.article import _Article, _content, _headline
from evalkit.readers.synthetic.duplicates import _plant_copies
from evalkit.readers.synthetic.markup import _attr, _esc, _Render
from evalkit.readers.synthetic.noise import (
    IAB_SIZES,
    _about,
    _ad,
    _byline,
    _comments,
    _footer,
    _header,
    _legal,
    _nav,
    _newsletter,
    _related,
    _search,
    _share,
    _social,
)
from evalkit.readers.synthetic.site import _Site

_SPAN = ' colspan="2"'  # full-width rows of the table layout


def _render_page(
    site: _Site, art: _Article, url: str, rng: random.Random
) -> tuple[str, list[tuple[str, int | None, int]], list[dict]]:
    """The annotated page; also the planted article blocks in emission (document) order as
    ``(fine, original block index or None, edits)`` and the planted ads."""
    r = _Render(site)
    s = site
    ads: list[dict] = []
    slots = {p: [sl for sl in s.ad_slots if sl[0] == p] for p in IAB_SIZES}
    table = s.layout == "table"
    html5 = s.layout == "html5"
    cell = "td" if s.content_cells else "div"

    # the article column: headline, copies placed after their originals, an inline ad
    n = len(art.blocks)
    sequence = _plant_copies(art, rng)
    inline_at = rng.randint(1, len(sequence)) if slots["inline"] else None

    planted: list[tuple[str, int | None, int]] = [("headline", None, 0)]
    r.add(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
        f'<title>{_esc(art.title)}</title>\n<meta name="description" content='
        f'"{_attr(art.headline)}">\n<link rel="stylesheet" href="/static/site.css">\n'
        "<style>body{font-family:Georgia,serif} .tagline{color:#666}</style>\n</head>\n<body>\n"
    )

    def row(emit, *args):  # content-cell sites put every article fragment in its own row
        if s.content_cells:
            r.add("<tr>")
        emit(*args)
        if s.content_cells:
            r.add("</tr>\n")

    def article_column():
        if s.content_cells:
            r.add(f'<table class="{_attr(s.names["content"])}-table" cellpadding="4">\n')
        row(_headline, r, art, cell)
        if s.byline:
            row(_byline, r, rng, cell)
        if s.share:
            row(_share, r, url, cell)
        for k, (fine, orig, paras, edits) in enumerate(sequence):
            if inline_at == k:
                row(lambda: ads.append(_ad(r, slots["inline"][0], rng, cell)))
            # the last block is the "continued" part on sites that split the story
            cls = s.names["more"] if orig == n - 1 and n > 1 else s.names["content"]
            # a verbatim copy of a div carries its figure too
            image = art.image if orig == art.image_block else None
            row(_content, r, paras, fine, cls, cell, image, art.headline)
            planted.append((fine, orig, edits))
        if inline_at == len(sequence):
            row(lambda: ads.append(_ad(r, slots["inline"][0], rng, cell)))
        if s.content_cells:
            r.add("</table>\n")

    def below_article():
        if s.related:
            _related(r, art.topic, rng)
        if s.comments:
            _comments(r, art.topic, rng)

    def sidebar():
        for slot in slots["side"]:
            ads.append(_ad(r, slot, rng))
        _about(r)
        if s.newsletter:
            _newsletter(r)

    def bottom():
        for slot in slots["bottom"]:
            ads.append(_ad(r, slot, rng))
        _social(r)
        _legal(r)

    if table:
        r.add(f'<table {r.name("wrap")} width="100%" cellpadding="0" cellspacing="0">\n<tr>')
        _header(r, "td", _SPAN)
        r.add("</tr>\n<tr>")
        _nav(r, "td", _SPAN)
        r.add("</tr>\n")
        if slots["top"]:
            r.add("<tr>")
            ads.append(_ad(r, slots["top"][0], rng, "td", _SPAN))
            r.add("</tr>\n")
        r.add(f'<tr><td {r.name("sidebar")} valign="top" width="200">\n')
        _search(r)
        sidebar()
        r.add(f'</td>\n<td {r.name("main")} valign="top">\n')
        article_column()
        below_article()
        r.add('</td></tr>\n<tr><td colspan="2">\n')
        bottom()
        r.add("</td></tr>\n<tr>")
        _footer(r, "td", _SPAN)
        r.add("</tr>\n</table>\n")
    else:
        outer = "header" if html5 else "div"
        _header(r, outer)
        _nav(r, "nav" if html5 else "div")
        _search(r)
        for slot in slots["top"]:
            ads.append(_ad(r, slot, rng))
        r.add(f"<div {r.name('wrap')}>\n")
        r.add("<main>\n<article>\n" if html5 else f"<div {r.name('main')}>\n")
        article_column()
        r.add("</article>\n" if html5 else "")
        below_article()
        r.add("</main>\n" if html5 else "</div>\n")
        r.add(f"<aside {r.name('sidebar')}>\n" if html5 else f"<div {r.name('sidebar')}>\n")
        sidebar()
        r.add("</aside>\n" if html5 else "</div>\n")
        r.add("</div>\n")
        bottom()
        _footer(r, "footer" if html5 else "div")
    r.add(
        "<script>window.dataLayer = window.dataLayer || []; dataLayer.push({'page': '"
        f"{_attr(art.slug)}'}});</script>\n</body>\n</html>\n"
    )
    return r.html(), planted, ads
