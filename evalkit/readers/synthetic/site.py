"""The template of one generated site: layout, naming scheme, ad slots and parts shown.

Each site has its own template: layout (``<div>``, HTML5 sectioning elements,
or ``<table>``/``<td>`` with content in table cells), naming scheme for
classes and ids (readable, BEM-prefixed, or meaningless tokens), which ad
slots it has and how they are marked, and whether it shows bylines, share
bars, related links and comments. Decoy names that contain the letters "ad"
but are not ads (``header``, ``shadow``, ``read-more``, ``thread``,
``article-header``) sit on real content and on non-ad noise, and part of the
noise carries no marker at all (neutral class names on related links,
comments, sponsored link lists and the site's "about" blurb), so the task is
not solvable from class names alone. Site-fixed blocks (header, navigation,
legal links, the about blurb ...) repeat on every page of a site.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from evalkit.readers.synthetic.noise import _AD_MARKED, _AD_UNMARKED, SOCIAL_HOSTS
from evalkit.readers.synthetic.topics import _CITIES

_SECTIONS = (
    "Home",
    "News",
    "Sports",
    "Politics",
    "Technology",
    "Health",
    "Business",
    "Travel",
    "Science",
    "Food",
    "Opinion",
    "Video",
    "Weather",
    "Culture",
)
_FOOTER_LINKS = (
    "About us",
    "Careers",
    "Advertise with us",
    "Site map",
    "Newsletters",
    "Archive",
    "Help",
    "Corrections",
)
_LEGAL_LINKS = (
    "Terms of Use",
    "Privacy Policy",
    "Cookie Policy",
    "Disclaimer",
    "Contact Us",
    "Accessibility",
)
_NAME_PREFIXES = (
    "daily",
    "morning",
    "global",
    "metro",
    "city",
    "valley",
    "northern",
    "coastal",
    "capital",
    "evening",
    "harbour",
    "western",
)
_NAME_SUFFIXES = (
    "herald",
    "ledger",
    "courier",
    "gazette",
    "tribune",
    "observer",
    "chronicle",
    "post",
    "dispatch",
    "sentinel",
    "times",
    "journal",
    "review",
    "record",
    "monitor",
)

# Names per region. Decoys that contain the letters "ad" but are not ads sit
# in "headline", "content", "more", "comments" and "header".
_REGION_NAMES = {
    "header": ("header", "masthead", "site-header", "top", "branding", "page-head"),
    "nav": ("nav", "menu", "main-menu", "navbar", "topnav", "sections"),
    "search": ("search", "search-box", "searchform", "site-search", "find"),
    "headline": (
        "article-header",
        "headline",
        "story-head",
        "entry-title",
        "post-header",
        "title-block",
    ),
    "byline": ("byline", "meta", "author-info", "dateline", "post-meta"),
    "share": ("share", "share-bar", "social-share", "sharing", "share-tools"),
    "content": (
        "article-body",
        "entry-content",
        "story-body",
        "post-content",
        "text",
        "shadow",
        "body-copy",
        "content",
        "card shadow",
        "copy",
    ),
    "more": ("read-more", "more-text", "continued", "story-continued", "rest"),
    "related": ("related", "more-stories", "see-also", "recommended", "box", "list"),
    "comments": ("comments", "thread", "comment-thread", "discussion", "responses", "talk"),
    "about": ("about", "info", "widget", "sidebox", "panel", "blurb"),
    "newsletter": ("newsletter", "signup", "subscribe", "mailing", "widget-2"),
    "social": ("social", "follow", "follow-us", "social-links", "connect"),
    "legal": ("legal", "terms", "copyright", "bottom-links", "fine-print"),
    "footer": ("footer", "site-footer", "bottom", "foot", "colophon"),
    "sidebar": ("sidebar", "rail", "aside", "right-col", "widgets", "secondary"),
    "main": ("main", "primary", "column", "story", "left-col", "container"),
    "wrap": ("wrap", "wrapper", "page", "outer", "container-fluid", "site"),
    "related_ad": ("around-the-web", "partner-links", "recommended-2", "more-from-web", "picks"),
}
_LAYOUTS = ("div", "div", "html5", "table")  # table layouts on about a quarter of the sites
_SCHEMES = ("readable", "readable", "bem", "opaque")


@dataclass
class _Site:
    index: int
    key: str  # e.g. "dailyherald"
    title: str  # e.g. "Daily Herald"
    host: str
    layout: str
    scheme: str
    names: dict[str, str]
    id_regions: frozenset[str]
    ad_slots: list[tuple[str, str, str, bool]]  # (placement, kind, class, has visible label)
    byline: bool
    share: bool
    related: bool
    comments: bool
    newsletter: bool
    content_cells: bool  # table sites: article blocks are <td> cells
    sections: list[str]
    socials: list[str]
    tagline: str
    about: str
    year: int
    footer_links: list[str] = field(default_factory=list)
    legal_links: list[str] = field(default_factory=list)
    header_background: bool = False  # a decorative background image (the paper's rule 1)


def _site_template(index: int, key: str, rng: random.Random) -> _Site:
    title = " ".join(
        w.capitalize()
        for w in re.findall(
            r"daily|morning|global|metro|city|valley|"
            r"northern|coastal|capital|evening|harbour|"
            r"western|\w+",
            key,
        )
    )
    scheme = rng.choice(_SCHEMES)
    prefix = "".join(w[0] for w in title.split()).lower()
    names: dict[str, str] = {}
    for region, pool in _REGION_NAMES.items():
        if scheme == "opaque":
            names[region] = "c" + "".join(
                rng.choice("abcdefghjkmnpqrstuvwxyz0123456789") for _ in range(5)
            )
        elif scheme == "bem":
            names[region] = f"{prefix}__{rng.choice(pool)}"
        else:
            names[region] = rng.choice(pool)
    # decoys are kept readable on every site: they test substring matching on ad tokens
    if rng.random() < 0.5:
        names["headline"] = "article-header"
    if rng.random() < 0.4:
        names["content"] = rng.choice(("shadow", "card shadow"))
    names["more"] = rng.choice(_REGION_NAMES["more"])
    if rng.random() < 0.5:
        names["comments"] = rng.choice(("thread", "comment-thread"))
    placements = ["top", "side", "inline", "bottom", "side"]
    n_slots = rng.randint(2, 4)
    slots = []
    for placement in placements[:n_slots]:
        kind = rng.choice(("image", "image", "adsense", "iframe", "native"))
        marked = scheme != "opaque" and rng.random() < 0.6
        cls = (
            rng.choice(_AD_MARKED)
            if marked
            else (names["related_ad"] if kind == "native" else rng.choice(_AD_UNMARKED))
        )
        slots.append((placement, kind, cls, rng.random() < 0.5))
    sections = ["Home"] + rng.sample(_SECTIONS[1:], rng.randint(5, 9))
    socials = rng.sample(list(SOCIAL_HOSTS), rng.randint(3, 6))
    year = rng.randint(1995, 2012)
    city = rng.choice(_CITIES)
    tagline = rng.choice(
        (
            "Independent news since {y}",
            "News you can trust",
            "Your city, your news",
            "Reporting from {c} since {y}",
            "The paper of record",
        )
    ).format(y=year, c=city)
    about = " ".join(
        rng.sample(
            [
                f"{title} is an independent newspaper based in {city}.",
                f"We have been covering local news, politics, sport and business since {year}.",
                "Our journalists are committed to accurate, fair and independent reporting.",
                "Found a mistake? Write to our corrections desk, and we will look into it.",
                f"Support {title}: subscribe today, from just $1 a week.",
            ],
            3,
        )
    )
    layout = rng.choice(_LAYOUTS)
    return _Site(
        index=index,
        key=key,
        title=title,
        host=f"www.{key}.example",
        layout=layout,
        scheme=scheme,
        names=names,
        id_regions=frozenset(
            r for r in ("header", "nav", "footer", "sidebar", "main", "wrap") if rng.random() < 0.5
        ),
        ad_slots=slots,
        byline=rng.random() < 0.6,
        share=rng.random() < 0.6,
        related=rng.random() < 0.9,
        comments=rng.random() < 0.8,
        newsletter=rng.random() < 0.5,
        content_cells=layout == "table" and rng.random() < 0.7,
        sections=sections,
        socials=socials,
        tagline=tagline,
        about=about,
        year=rng.randint(2016, 2020),
        footer_links=rng.sample(_FOOTER_LINKS, rng.randint(3, 6)),
        legal_links=rng.sample(_LEGAL_LINKS, rng.randint(3, 5)),
        header_background=rng.random() < 0.4,
    )


def _site_keys(n_sites: int, seed: int) -> list[str]:
    rng = random.Random(f"synthetic:{seed}:names")
    combos = [p + s for p in _NAME_PREFIXES for s in _NAME_SUFFIXES]
    rng.shuffle(combos)
    return [
        combos[i % len(combos)] + (str(i // len(combos)) if i >= len(combos) else "")
        for i in range(n_sites)
    ]
