"""The noise fragments of a page: ads, navigation, social and legal links, boilerplate.

The noise Saravanan & Sathya Bama (2020, docs/papers.md#saravanan2020) name
as *primary* (their section 3.2): advertisements (banner images of IAB sizes,
ad-provider URLs, ``adsbygoogle`` slots, iframes, sponsored link lists),
social and legal links, search bars, headers, footers and navigation; besides
them the byline, share bar, related links, comments, the site's "about" blurb
and newsletter box. Each fragment is written by one function onto a
:class:`~evalkit.readers.synthetic.markup._Render`, under the fine class it is
labelled with. Ad slots are marked by a class from :data:`_AD_MARKED` or carry
a neutral one from :data:`_AD_UNMARKED` (the site template decides), so part
of the noise carries no marker at all.
"""

from __future__ import annotations

import random

from evalkit.readers.synthetic.markup import _attr, _esc, _links, _Render
from evalkit.readers.synthetic.topics import (
    _CLICKBAIT,
    _COMMENTS,
    _FIRST,
    _HEADLINES,
    _LAST,
    _MONTHS,
    TOPICS,
    _fill,
    _slug,
)

#: IAB standard ad sizes by placement (the paper's list plus the common modern units)
IAB_SIZES = {
    "top": ((728, 90), (970, 90), (468, 60), (234, 60)),
    "side": ((300, 250), (160, 600), (120, 600), (300, 600), (336, 280), (120, 240), (125, 125)),
    "inline": ((300, 250), (468, 60), (336, 280)),
    "bottom": ((728, 90), (468, 60), (320, 50)),
}
ALL_IAB_SIZES = frozenset(s for sizes in IAB_SIZES.values() for s in sizes)
#: registrable domains of ad providers; images and click URLs use sub-hosts of these
AD_HOSTS = (
    "doubleclick.net",
    "googlesyndication.com",
    "adnxs.com",
    "taboola.com",
    "outbrain.com",
    "criteo.com",
    "pubmatic.com",
    "2mdn.net",
    "amazon-adsystem.com",
)
_AD_IMAGE_HOSTS = (
    "tpc.googlesyndication.com",
    "pagead2.googlesyndication.com",
    "s0.2mdn.net",
    "ib.adnxs.com",
    "static.criteo.com",
    "ads.pubmatic.com",
    "images-na.amazon-adsystem.com",
    "cdn.taboola.com",
    "images.outbrain.com",
)
_AD_CLICK_URLS = (
    "https://ad.doubleclick.net/ddm/clk/{n};{m}",
    "https://adclick.g.doubleclick.net/pcs/click?xai={n}",
    "https://ib.adnxs.com/click?{n}",
    "https://cat.criteo.com/delivery/ck.php?cppv=3&cpp={n}",
    "https://aax-us-east.amazon-adsystem.com/x/c/{n}",
)
_NATIVE_URLS = (
    "https://trc.taboola.com/{site}/log/3/click?pi={n}&ri={m}",
    "https://paid.outbrain.com/network/redir?p={n}&c={m}",
)
SOCIAL_HOSTS = {
    "Facebook": "www.facebook.com",
    "Twitter": "twitter.com",
    "Pinterest": "www.pinterest.com",
    "LinkedIn": "www.linkedin.com",
    "YouTube": "www.youtube.com",
    "Instagram": "www.instagram.com",
    "Google+": "plus.google.com",
}
_SHARE_URLS = {
    "Facebook": "https://www.facebook.com/sharer/sharer.php?u={u}",
    "Twitter": "https://twitter.com/intent/tweet?url={u}",
    "Pinterest": "https://www.pinterest.com/pin/create/button/?url={u}",
    "LinkedIn": "https://www.linkedin.com/shareArticle?mini=true&url={u}",
}
_AD_MARKED = (
    "ad",
    "ads",
    "ad-slot",
    "ad-unit",
    "banner",
    "adsense",
    "advert",
    "bottomgooglead",
    "rightgooglead",
    "simplead",
    "dfp-ad",
    "ad-container",
)
_AD_UNMARKED = ("promo", "partner", "spot", "rail-item", "feature-box", "extra")


def _header(r: _Render, tag: str, more: str = "") -> None:
    s = r.site
    if s.header_background:
        more += f' style="background-image:url(http://{s.host}/static/masthead.jpg)"'
    r.open(tag, "header", r.name("header") + more)
    r.add(
        f'<a href="/"><img src="http://{s.host}/static/logo.png" width="220" height="48" '
        f'alt="{_attr(s.title)}"></a><span class="name">{_esc(s.title)}</span> '
        f'<span class="tagline">{_esc(s.tagline)}</span>'
    )
    r.close(tag)


def _nav(r: _Render, tag: str, more: str = "") -> None:
    s = r.site
    r.open(tag, "nav", r.name("nav") + more)
    items = "".join(
        f'<li><a href="/{x.lower()}/">{x}</a></li>'
        if x != "Home"
        else '<li><a href="/">Home</a></li>'
        for x in s.sections
    )
    r.add(f"<ul>{items}</ul>")
    r.close(tag)


def _search(r: _Render, tag: str = "div") -> None:
    r.open(tag, "search", r.name("search"))
    r.add(
        '<form action="/search" method="get"><label for="q">Search</label> '
        '<input type="text" id="q" name="q" placeholder="Search this site"> '
        '<button type="submit">Go</button></form>'
    )
    r.close(tag)


def _ad(
    r: _Render,
    slot: tuple[str, str, str, bool],
    rng: random.Random,
    tag: str = "div",
    more: str = "",
) -> dict:
    """One ad slot; returns what was planted, for the counts in gold.extra."""
    placement, kind, cls, labelled = slot
    r.open(tag, "ad", f'class="{_attr(cls)}"' + more)
    if labelled:
        r.add('<span class="label">Advertisement</span>')
    n, m = rng.randint(10**6, 10**7), rng.randint(10**5, 10**6)
    w, h = rng.choice(IAB_SIZES[placement])
    planted = {"kind": kind, "size": f"{w}x{h}"}
    if kind == "image":
        host = rng.choice(_AD_IMAGE_HOSTS)
        click = rng.choice(_AD_CLICK_URLS).format(n=n, m=m)
        r.add(
            f'<a href="{_attr(click)}" target="_blank"><img src="https://{host}/simgad/{n}" '
            f'width="{w}" height="{h}" alt="" border="0"></a>'
        )
    elif kind == "iframe":
        r.add(
            f'<iframe src="https://ad.doubleclick.net/ddm/adi/N{m}/B{n}" width="{w}" '
            f'height="{h}" frameborder="0" scrolling="no"></iframe>'
        )
    elif kind == "adsense":
        r.add(
            '<script async src="https://pagead2.googlesyndication.com/pagead/js/adsbygoogle.js">'
            f'</script><ins class="adsbygoogle" style="display:inline-block;width:{w}px;'
            f'height:{h}px" data-ad-client="ca-pub-{n}{m}" data-ad-slot="{m}{n % 10000}"></ins>'
            "<script>(adsbygoogle = window.adsbygoogle || []).push({});</script>"
        )
    else:  # native: a list of sponsored links, no image, often unmarked
        heading = rng.choice(
            ("Around the web", "You may also like", "Sponsored stories", "Promoted links")
        )
        topic = rng.choice(TOPICS)
        items = []
        for _ in range(rng.randint(3, 4)):
            url = rng.choice(_NATIVE_URLS).format(
                site=r.site.key, n=rng.randint(10**5, 10**6), m=rng.randint(10**5, 10**6)
            )
            items.append((_fill(rng.choice(_CLICKBAIT), topic, rng), url))
        r.add(
            f"<h4>{heading}</h4><ul>"
            + "".join(f"<li>{_links([it])}</li>" for it in items)
            + "</ul>"
        )
        planted["size"] = None
    r.close(tag)
    return planted


def _byline(r: _Render, rng: random.Random, tag: str = "div") -> None:
    who = f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"
    when = f"{rng.choice(_MONTHS)} {rng.randint(1, 28)}, {r.site.year}"
    r.open(tag, "header", r.name("byline"))
    r.add(f'By <a href="/authors/{_attr(who.split()[1].lower())}">{_esc(who)}</a> | {when}')
    r.close(tag)


def _share(r: _Render, url: str, tag: str = "div") -> None:
    r.open(tag, "social", r.name("share"))
    nets = [n for n in r.site.socials if n in _SHARE_URLS] or ["Facebook", "Twitter"]
    r.add("Share: " + _links([(f"Share on {n}", _SHARE_URLS[n].format(u=url)) for n in nets], " "))
    r.close(tag)


def _related(r: _Render, topic: str, rng: random.Random) -> None:
    r.open("div", "related", r.name("related"))
    heading = rng.choice(("Related stories", "More on this", "Read next", "Most read"))
    items = []
    for _ in range(rng.randint(3, 5)):
        h = _fill(rng.choice(_HEADLINES), topic, rng)
        items.append((h, f"/{topic}/{_slug(h)}.html"))
    r.add(f"<h3>{heading}</h3><ul>" + "".join(f"<li>{_links([it])}</li>" for it in items) + "</ul>")
    r.close("div")


def _comments(r: _Render, topic: str, rng: random.Random) -> None:
    n = rng.randint(2, 4)
    r.open("div", "comments", r.name("comments"))
    r.add(f"<h3>{n} Comments</h3>\n")
    for _ in range(n):
        who = f"{rng.choice(_FIRST)}{rng.choice(('', '_', '.'))}{rng.choice(_LAST)[0]}"
        text = " ".join(_fill(rng.choice(_COMMENTS), topic, rng) for _ in range(rng.randint(1, 3)))
        month, day = rng.choice(_MONTHS), rng.randint(1, 28)
        hour, minute = rng.randint(1, 12), rng.randint(0, 59)
        when = f"{month} {day}, {r.site.year} at {hour}:{minute:02d} pm"
        r.add(
            f'<div class="{_attr(r.site.names["comments"])}-item"><p class="who">{_esc(who)} '
            f'<span>{when}</span></p><p>{_esc(text)}</p><a href="#reply">Reply</a></div>\n'
        )
    r.close("div")


def _about(r: _Render, tag: str = "div") -> None:
    r.open(tag, "template", r.name("about"))
    r.add(f"<h4>About {_esc(r.site.title)}</h4><p>{_esc(r.site.about)}</p>")
    r.close(tag)


def _newsletter(r: _Render, tag: str = "div") -> None:
    r.open(tag, "template", r.name("newsletter"))
    r.add(
        f"<p>Get the best of {_esc(r.site.title)} in your inbox every morning. Sign up for our "
        'free newsletter, and never miss a story.</p><form action="/subscribe"><input '
        'type="email" name="email" placeholder="Your email"> <button>Subscribe</button>'
        "</form>"
    )
    r.close(tag)


def _social(r: _Render, tag: str = "div") -> None:
    s = r.site
    r.open(tag, "social", r.name("social"))
    follow = [(n, f"https://{SOCIAL_HOSTS[n]}/{s.key}") for n in s.socials]
    r.add("Follow us: " + _links(follow, " "))
    r.close(tag)


def _legal(r: _Render, tag: str = "div") -> None:
    s = r.site
    r.open(tag, "legal", r.name("legal"))
    slug = {"Contact Us": "/contact"}
    links = [(t, slug.get(t, "/" + t.lower().replace(" ", "-"))) for t in s.legal_links]
    r.add(f"<p>{_links(links, ' | ')}</p><p>© {s.year} {_esc(s.title)}. All rights reserved.</p>")
    r.close(tag)


def _footer(r: _Render, tag: str, more: str = "") -> None:
    s = r.site
    r.open(tag, "footer", r.name("footer") + more)
    r.add(_links([(t, "/" + t.lower().replace(" ", "-")) for t in s.footer_links], " · "))
    r.close(tag)
