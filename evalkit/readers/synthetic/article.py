"""The article of a page: headline, title, content blocks of paragraphs, and their markup.

The article is the gold content: its headline and paragraphs, one content
``<div>``/``<td>`` block per list of paragraphs, drawn from the page's topic
(:mod:`.topics`), with an image in one block and a link in some paragraphs.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from evalkit.readers.synthetic.markup import _attr, _esc, _Render
from evalkit.readers.synthetic.site import _Site
from evalkit.readers.synthetic.topics import _HEADLINES, _SENTENCES, _VOCAB, _fill, _slug

_CONTENT_IMAGE_SIZES = ((640, 360), (600, 400), (800, 450), (480, 320), (700, 394), (540, 360))


@dataclass
class _Para:
    tokens: list[str]
    link: tuple[int, int] | None  # token span wrapped in <a>
    href: str = ""

    @property
    def text(self) -> str:
        return " ".join(self.tokens)


@dataclass
class _Article:
    topic: str
    headline: str
    title: str
    slug: str
    blocks: list[list[_Para]]  # one list of paragraphs per content div/td
    image_block: int
    image: tuple[str, int, int]


def _article(site: _Site, topic: str, rng: random.Random) -> _Article:
    headline = _fill(rng.choice(_HEADLINES), topic, rng)
    words = headline.split()
    short = " ".join(words[: rng.randint(min(4, len(words)), len(words))])
    title = rng.choice((f"{headline} | {site.title}", f"{short} - {site.title}", short))
    slug = _slug(headline)
    blocks = []
    for _ in range(rng.randint(3, 6)):
        paras = []
        for _ in range(rng.randint(1, 2)):
            tokens = " ".join(
                _fill(rng.choice(_SENTENCES), topic, rng) for _ in range(rng.randint(2, 4))
            ).split()
            link = None
            if rng.random() < 0.25:
                start = rng.randrange(0, len(tokens) - 3)
                link = (start, start + rng.randint(2, 3))
            other = "-".join(rng.sample(_VOCAB[topic]["N"], 3))
            paras.append(_Para(tokens, link, f"/{topic}/{other}.html"))
        blocks.append(paras)
    w, h = rng.choice(_CONTENT_IMAGE_SIZES)
    # content images live on the page's own host, absolute or relative
    own = f"http://{site.host}/images/{slug}.jpg"
    relative = f"/media/{rng.randint(1000, 9999)}/{slug}-{w}.jpg"
    src = rng.choice((own, relative))
    return _Article(topic, headline, title, slug, blocks, rng.randrange(len(blocks)), (src, w, h))


def _headline(r: _Render, art: _Article, tag: str) -> None:
    r.open(tag, "headline", r.name("headline"))
    r.add(f"<h1>{_esc(art.headline)}</h1>")
    r.close(tag)


def _paras_html(paras: list[_Para]) -> str:
    out = []
    for p in paras:
        if p.link is None:
            out.append(f"<p>{_esc(p.text)}</p>")
        else:
            a, b = p.link
            t = p.tokens
            out.append(
                "<p>"
                + _esc(" ".join(t[:a] + [""]))
                + f'<a href="{_attr(p.href)}">'
                + _esc(" ".join(t[a:b]))
                + "</a>"
                + _esc(" ".join([""] + t[b:]))
                + "</p>"
            )
    return "\n".join(out)


def _content(
    r: _Render,
    paras: list[_Para],
    fine: str,
    cls: str,
    tag: str,
    image: tuple[str, int, int] | None = None,
    alt: str = "",
) -> None:
    r.open(tag, fine, f'class="{_attr(cls)}"')
    if image is not None:
        src, w, h = image
        r.add(
            f'<figure><img src="{_attr(src)}" width="{w}" height="{h}" alt="{_attr(alt)}">'
            "</figure>\n"
        )
    r.add(_paras_html(paras))
    r.close(tag)
