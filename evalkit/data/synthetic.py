"""The ``synthetic`` data set: seeded, annotated news pages generated in memory.

Saravanan & Sathya Bama (2020, docs/papers.md#saravanan2020) evaluate their noise-removal
method on 300 pages, 10 from each of 30 news sites, and name the noise it
targets: advertisements (banner images of IAB sizes, ad-provider URLs,
``adsbygoogle`` slots), social and legal links, search bars, headers, footers
and navigation (the *primary* noise of their section 3.2), and duplicate and
near-duplicate blocks inside a page (the *secondary* noise of section 3.3).
This module builds a set of that shape with every fragment labelled, so all
methods can be scored without downloading anything and every planted noise
kind is present in known numbers.

Each site has its own template: layout (``<div>``, HTML5 sectioning elements,
or ``<table>``/``<td>`` with content in table cells), naming scheme for
classes and ids (readable, BEM-prefixed, or meaningless tokens), which ad
slots it has and how they are marked, and whether it shows bylines, share
bars, related links and comments. Decoy names that contain the letters "ad"
but are not ads (``header``, ``shadow``, ``read-more``, ``thread``,
``article-header``) sit on real content and on non-ad noise, and part of the
noise carries no marker at all (neutral class names on related links,
comments, sponsored link lists and the site's "about" blurb), so the task is
not solvable from class names alone.

Articles are drawn from per-topic vocabularies poured into English sentence
patterns rich in function words, so the text is topical (Naive Bayes can
learn the category) and reads as prose to stop-word based classifiers.
Comments and related links are written from the same topic vocabulary, which
makes them hard noise. Inside a page, one content block may be repeated
verbatim and one repeated with a few single-word substitutions; site-fixed
blocks (header, navigation, legal links, the about blurb ...) repeat on every
page of a site.

Gold: ``gold.text`` is the headline and the article paragraphs (one per line,
no copies, no comments). Units come from an annotated twin of each page in
which every fragment root carries ``data-gold="<fine class>"``; the raw page is
the same markup with those attributes removed, so its units line up one to one.

Departures from the paper: the pages are generated, not crawled; the 30 sites
are invented ``.example`` hosts; topics are assigned round-robin over the
page sequence (balanced to within one page) rather than following real site
sections; near copies differ by word substitutions only (no insertions or
deletions), so "differs by k words" is a position-wise count.
"""

from __future__ import annotations

import html
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import lxml.html

from evalkit.data.base import Dataset
from evalkit.page import CONTENT, NOISE, Gold, Page, parse_html
from evalkit.units import segment
from evalkit.validate import ParamError, check_int
from evalkit.visible import element_text

__all__ = [
    "SyntheticDataset",
    "TOPICS",
    "FINE_CLASSES",
    "CONTENT_FINE",
    "IAB_SIZES",
    "AD_HOSTS",
    "SOCIAL_HOSTS",
    "DEFAULT_N_SITES",
    "DEFAULT_PAGES_PER_SITE",
    "DEFAULT_N_TOPICS",
    "GOLD_ATTR",
    "block_text",
]

DEFAULT_N_SITES = 30  # the paper's experiment: 30 news sites ...
DEFAULT_PAGES_PER_SITE = 10  # ... 10 pages each
DEFAULT_N_TOPICS = 6
GOLD_ATTR = "data-gold"
_SPAN = ' colspan="2"'  # full-width rows of the table layout
#: elements the proposed method separates into blocks (docs/methods/proposed.md#31-block-separation)
SEPARATION_TAGS = frozenset({"div", "td"})

FINE_CLASSES = ("headline", "content", "nav", "header", "ad", "social", "legal", "footer",
                "related", "comments", "duplicate", "search", "template")
CONTENT_FINE = frozenset({"headline", "content"})
#: fine classes that are content or copies of content (gold.extra["blocks"])
PLANTED_FINE = frozenset({"headline", "content", "duplicate"})

# Each page independently gets an exact copy and a near copy with these odds,
# so some pages have no duplicates and "exactly right" has a negative case.
EXACT_COPY_RATE = 0.8
NEAR_COPY_RATE = 0.8
NEAR_EDITS = (1, 3)  # inclusive range of word substitutions in a near copy

#: IAB standard ad sizes by placement (the paper's list plus the common modern units)
IAB_SIZES = {
    "top": ((728, 90), (970, 90), (468, 60), (234, 60)),
    "side": ((300, 250), (160, 600), (120, 600), (300, 600), (336, 280), (120, 240), (125, 125)),
    "inline": ((300, 250), (468, 60), (336, 280)),
    "bottom": ((728, 90), (468, 60), (320, 50)),
}
ALL_IAB_SIZES = frozenset(s for sizes in IAB_SIZES.values() for s in sizes)
#: registrable domains of ad providers; images and click URLs use sub-hosts of these
AD_HOSTS = ("doubleclick.net", "googlesyndication.com", "adnxs.com", "taboola.com",
            "outbrain.com", "criteo.com", "pubmatic.com", "2mdn.net", "amazon-adsystem.com")
_AD_IMAGE_HOSTS = ("tpc.googlesyndication.com", "pagead2.googlesyndication.com",
                   "s0.2mdn.net", "ib.adnxs.com", "static.criteo.com", "ads.pubmatic.com",
                   "images-na.amazon-adsystem.com", "cdn.taboola.com", "images.outbrain.com")
_AD_CLICK_URLS = (
    "https://ad.doubleclick.net/ddm/clk/{n};{m}",
    "https://adclick.g.doubleclick.net/pcs/click?xai={n}",
    "https://ib.adnxs.com/click?{n}",
    "https://cat.criteo.com/delivery/ck.php?cppv=3&cpp={n}",
    "https://aax-us-east.amazon-adsystem.com/x/c/{n}",
)
_NATIVE_URLS = ("https://trc.taboola.com/{site}/log/3/click?pi={n}&ri={m}",
                "https://paid.outbrain.com/network/redir?p={n}&c={m}")
SOCIAL_HOSTS = {"Facebook": "www.facebook.com", "Twitter": "twitter.com",
                "Pinterest": "www.pinterest.com", "LinkedIn": "www.linkedin.com",
                "YouTube": "www.youtube.com", "Instagram": "www.instagram.com",
                "Google+": "plus.google.com"}
_SHARE_URLS = {"Facebook": "https://www.facebook.com/sharer/sharer.php?u={u}",
               "Twitter": "https://twitter.com/intent/tweet?url={u}",
               "Pinterest": "https://www.pinterest.com/pin/create/button/?url={u}",
               "LinkedIn": "https://www.linkedin.com/shareArticle?mini=true&url={u}"}
_CONTENT_IMAGE_SIZES = ((640, 360), (600, 400), (800, 450), (480, 320), (700, 394), (540, 360))

# ---------------------------------------------------------------------------- vocabulary
# Per topic: countable nouns, regular verbs (inflected by rule), adjectives, roles
# and organisations. Only regular verbs and plurals, so the rules stay simple.
_VOCAB = {
    "sports": dict(
        N="match season team league player goal title injury contract stadium tournament final "
          "squad transfer trophy championship victory defeat referee medal race record club "
          "fan game coach striker defender keeper point".split(),
        V="defeat train score sign injure celebrate qualify dominate announce replace release "
          "suspend host clinch extend".split(),
        A="decisive unbeaten young experienced dramatic late defensive attacking crucial "
          "disappointing impressive physical narrow historic".split(),
        R="coach manager captain striker goalkeeper analyst midfielder".split(),
        O=["the Premier League", "FIFA", "the Olympic committee", "the national team",
           "City Rovers", "the players' union", "United"]),
    "politics": dict(
        N="election vote minister parliament bill policy campaign party senator reform budget "
          "tax law coalition candidate debate poll majority government committee amendment "
          "ballot voter mayor treaty lawmaker district region".split(),
        V="approve propose reject debate support criticize announce delay pass block review "
          "negotiate elect accuse challenge".split(),
        A="controversial conservative liberal federal political electoral unpopular bipartisan "
          "constitutional local national public fragile".split(),
        R="senator minister official lawmaker governor mayor adviser".split(),
        O=["the Senate", "the Labour Party", "the electoral commission", "the Supreme Court",
           "the finance ministry", "the opposition", "the city council"]),
    "technology": dict(
        N="smartphone app user device chip network startup algorithm update server platform "
          "developer cloud battery screen browser robot feature engineer laptop processor "
          "hacker version password camera sensor tablet".split(),
        V="launch release develop install upgrade encrypt design test deploy download "
          "integrate connect update".split(),
        A="digital wireless open mobile faster secure artificial encrypted online powerful "
          "cheaper smart experimental".split(),
        R="engineer developer researcher founder analyst designer".split(),
        O=["Google", "Apple", "Microsoft", "Samsung", "a Berlin startup",
           "the open source community", "Intel"]),
    "health": dict(
        N="patient doctor hospital vaccine disease treatment study symptom nurse clinic virus "
          "infection drug therapy cancer surgery trial researcher diagnosis risk dose outbreak "
          "pharmacy allergy vitamin injury".split(),
        V="treat diagnose prescribe recommend test infect vaccinate monitor reduce prevent "
          "improve cure recover screen".split(),
        A="chronic medical clinical healthy severe mild mental early contagious elderly "
          "preventive effective".split(),
        R="doctor nurse surgeon researcher epidemiologist pharmacist".split(),
        O=["the World Health Organization", "the health ministry", "the university hospital",
           "the national institute", "a team of doctors", "the medical council"]),
    "business": dict(
        N="company market share investor profit bank price stock economy loss deal merger "
          "customer supplier quarter retailer factory shareholder dividend export salary "
          "contract brand startup sale wage".split(),
        V="invest acquire report raise merge announce expect export reduce borrow hire "
          "restructure list trade value".split(),
        A="quarterly annual global financial economic volatile profitable struggling strong "
          "weak fiscal cautious".split(),
        R="economist analyst executive investor banker trader".split(),
        O=["the central bank", "Wall Street", "the stock exchange", "the IMF",
           "the chamber of commerce", "a hedge fund"]),
    "travel": dict(
        N="hotel flight beach airport tourist passenger island resort museum tour destination "
          "guide cruise holiday passport visa ticket village mountain trail restaurant "
          "festival route coast ferry traveler".split(),
        V="visit explore book delay board arrive land recommend discover reopen welcome "
          "reserve renovate".split(),
        A="scenic crowded remote sunny historic popular cheap luxurious quiet tropical coastal "
          "famous affordable".split(),
        R="guide pilot traveler hotelier blogger agent".split(),
        O=["the tourism board", "the national airline", "the airport authority", "UNESCO",
           "a budget airline", "the cruise operator"]),
    "science": dict(
        N="scientist experiment planet telescope species discovery theory laboratory galaxy "
          "fossil molecule gene cell orbit sample ocean satellite physicist spacecraft particle "
          "temperature mission astronomer dinosaur volcano asteroid".split(),
        V="discover observe measure detect analyze publish confirm launch explore predict "
          "identify examine simulate".split(),
        A="ancient distant microscopic genetic rare unexpected chemical solar frozen remarkable "
          "theoretical".split(),
        R="scientist physicist astronomer biologist geologist chemist".split(),
        O=["NASA", "the European Space Agency", "a team at Oxford", "the Max Planck Institute",
           "the national observatory", "a research consortium"]),
    "food": dict(
        N="recipe chef restaurant dish flavor ingredient kitchen menu dessert vegetable soup "
          "salad oven spice meal farmer market diner bakery cake sandwich bottle cookbook "
          "potato onion".split(),
        V="cook bake roast serve taste season prepare grill mix order combine slice".split(),
        A="fresh spicy crispy sweet savory delicious seasonal homemade organic traditional "
          "rich simple".split(),
        R="chef baker critic farmer owner sommelier".split(),
        O=["the Michelin Guide", "the farmers' market", "a Parisian bistro",
           "the food festival", "a family bakery"]),
}
TOPICS = tuple(_VOCAB)

_FIRST = ("Anna José Zoë Liam Priya Kenji Maria Omar Chloé Lukas Fatima Ethan Søren Grace "
          "Mateo Aisha Noah Renée Tomás Hannah Ravi Ingrid Samuel Mei").split()
_LAST = ("Okafor García Müller Chen Novak Patel Rossi Dubois Kowalski Silva Jensen Murphy "
         "Tanaka Haddad Lindqvist Moreau Brennan Schmidt Costa Nakamura Walsh Ibrahim").split()
_CITIES = ("Lisbon Toronto Nairobi Osaka Melbourne Denver Glasgow Lyon Seville Bergen Austin "
           "Kraków Dublin Porto Seattle Mumbai Valencia Boston Hamburg Auckland").split()
_MONTHS = ("January February March April May June July August September October November "
           "December").split()
_DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()

_SENTENCES = (
    ("The {A} {N} was {Vd} by {P}, who said that the {Ns} would {V} the {N} before the end of the "
     "year."),
    "According to {P}, the {Rs} in {C} have {Vd} more than {num} {Ns} since {month}.",
    "In a statement on {day}, {O} said it would {V} its {A} {N} to meet the {A} demand.",
    "Many {Rs} believe that the {N} is not as {A} as it seems, but others are less sure.",
    "{P}, {aR} at {O}, {Vd} the {N} and warned that it could {V} the {Ns} of {num} {Ns}.",
    ("It is the first time that {aN} has been {Vd} in {C}, and the {Rs} are still waiting for "
     "answers."),
    "\"We are very {A} about the {N},\" said {P}, adding that the {Ns} will be {Vd} next {month}.",
    ("There were {num} {Ns} at the {N} on {day}, which is more than in any of the past {small} "
     "years."),
    "However, the {N} of the {N} remains {A}, and it is not yet clear when the {Ns} will {V} it.",
    "The {Rs} who {Vd} the {N} say they have no plans to {V} it again, at least for now.",
    "Since then, {O} has {Vd} {num} {A} {Ns}, most of them in {C} and {C}.",
    "For {Rs} like {P}, {aA} {N} is a reason to {V} the {N} with more care.",
    "What happens next will depend on whether the {Rs} can {V} the {N} before {month}.",
    "This is why the {R} has asked the {Rs} to {V} their {Ns} as soon as possible.",
    ("Some of the {Rs} that we spoke to were {A}; others told us that they had {Vd} the {N} on "
     "their own."),
    "If the {N} is {Vd} in time, it will be one of the most {A} {Ns} that {C} has seen.",
    "Even so, {P} thinks that the {A} {Ns} are only part of the story.",
    "The {R} did not say how much the {N} would cost, but {O} {Vd} it in {month}.",
)
_HEADLINES = (
    "{O} {Vz} {A} {N} in {C}",
    "{P} {Vz} {Ns} after {A} {N}",
    "Why the {A} {N} could {V} {Ns} in {C}",
    "{A} {Ns} {V} the {N} as {Ns} wait",
    "How {C} {Vd} its {A} {N}",
    "{num} {Ns} that {Vd} the {N} this year",
    "{A} {N} {Vz} {Ns} across {C}",
)
_COMMENTS = (
    "I think the {N} is {A}, but nobody wants to talk about it.",
    "Great article! My {N} was {Vd} last {month} too.",
    "This is exactly why I stopped trusting the {Ns}.",
    "Does anyone know when the {N} will be {Vd}? Asking for a friend.",
    "Not sure I agree with this. The {Ns} in {C} have always been {A}.",
    "Thanks for sharing, it was a very {A} read.",
    "Well said. We need more {Ns} like this one.",
    "Same thing happened to us in {C}; the {N} was {Vd} twice!",
)
_CLICKBAIT = (
    "Doctors are stunned by this simple {N} trick",
    "{num} {Ns} you should never buy again",
    "This {A} {N} is taking {C} by storm",
    "People in {C} are switching to this {N}",
    "You won't believe what this {R} found",
    "The {A} {N} everyone is talking about",
)
_SECTIONS = ("Home", "News", "Sports", "Politics", "Technology", "Health", "Business", "Travel",
             "Science", "Food", "Opinion", "Video", "Weather", "Culture")
_FOOTER_LINKS = ("About us", "Careers", "Advertise with us", "Site map", "Newsletters",
                 "Archive", "Help", "Corrections")
_LEGAL_LINKS = ("Terms of Use", "Privacy Policy", "Cookie Policy", "Disclaimer", "Contact Us",
                "Accessibility")
_NAME_PREFIXES = ("daily", "morning", "global", "metro", "city", "valley", "northern", "coastal",
                  "capital", "evening", "harbour", "western")
_NAME_SUFFIXES = ("herald", "ledger", "courier", "gazette", "tribune", "observer", "chronicle",
                  "post", "dispatch", "sentinel", "times", "journal", "review", "record",
                  "monitor")

# Names per region. Decoys that contain the letters "ad" but are not ads sit
# in "headline", "content", "more", "comments" and "header".
_REGION_NAMES = {
    "header": ("header", "masthead", "site-header", "top", "branding", "page-head"),
    "nav": ("nav", "menu", "main-menu", "navbar", "topnav", "sections"),
    "search": ("search", "search-box", "searchform", "site-search", "find"),
    "headline": ("article-header", "headline", "story-head", "entry-title", "post-header",
                 "title-block"),
    "byline": ("byline", "meta", "author-info", "dateline", "post-meta"),
    "share": ("share", "share-bar", "social-share", "sharing", "share-tools"),
    "content": ("article-body", "entry-content", "story-body", "post-content", "text", "shadow",
                "body-copy", "content", "card shadow", "copy"),
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
_AD_MARKED = ("ad", "ads", "ad-slot", "ad-unit", "banner", "adsense", "advert", "bottomgooglead",
              "rightgooglead", "simplead", "dfp-ad", "ad-container")
_AD_UNMARKED = ("promo", "partner", "spot", "rail-item", "feature-box", "extra")
_LAYOUTS = ("div", "div", "html5", "table")  # table layouts on about a quarter of the sites
_SCHEMES = ("readable", "readable", "bem", "opaque")


def block_text(el: lxml.html.HtmlElement) -> str:
    """Visible text of a div/td block minus its nested div/td blocks.

    See docs/methods/proposed.md#31-block-separation.
    """
    return element_text(el, skip_tags=SEPARATION_TAGS)


# ---------------------------------------------------------------------------- words
def _plural(noun: str) -> str:
    if noun.endswith(("s", "sh", "ch", "x", "z")):
        return noun + "es"
    if noun.endswith("y") and noun[-2] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def _past(verb: str) -> str:
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ied"
    return verb + "ed"


def _third(verb: str) -> str:
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _a(word: str) -> str:
    return ("an " if word[0].lower() in "aeiou" else "a ") + word


_SLOT = re.compile(r"\{(\w+)\}")


def _fill(pattern: str, topic: str, rng: random.Random) -> str:
    """One sentence: every ``{slot}`` replaced by a word drawn for the topic."""
    v = _VOCAB[topic]

    def word(m: re.Match) -> str:
        slot = m.group(1)
        if slot == "N":
            return rng.choice(v["N"])
        if slot == "Ns":
            return _plural(rng.choice(v["N"]))
        if slot == "aN":
            return _a(rng.choice(v["N"]))
        if slot == "A":
            return rng.choice(v["A"])
        if slot == "aA":
            return _a(rng.choice(v["A"]))
        if slot == "V":
            return rng.choice(v["V"])
        if slot == "Vd":
            return _past(rng.choice(v["V"]))
        if slot == "Vz":
            return _third(rng.choice(v["V"]))
        if slot == "R":
            return rng.choice(v["R"])
        if slot == "Rs":
            return _plural(rng.choice(v["R"]))
        if slot == "aR":
            return _a(rng.choice(v["R"]))
        if slot == "O":
            return rng.choice(v["O"])
        if slot == "P":
            return f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"
        if slot == "C":
            return rng.choice(_CITIES)
        if slot == "num":
            n = rng.choice((rng.randint(2, 99), rng.randint(100, 99_000)))
            return f"{n:,}"
        if slot == "small":
            return str(rng.randint(3, 12))
        if slot == "month":
            return rng.choice(_MONTHS)
        if slot == "day":
            return rng.choice(_DAYS)
        raise KeyError(slot)  # a typo in a pattern: fail loudly

    text = _SLOT.sub(word, pattern)
    return text[0].upper() + text[1:]


def _slug(headline: str) -> str:
    """URL slug: the first eight lowercase alphanumeric words, hyphenated."""
    return "-".join(re.findall(r"[a-z0-9]+", headline.lower())[:8])


def _esc(text: str) -> str:
    return html.escape(text, quote=False)


def _attr(value: str) -> str:
    return html.escape(value, quote=True)


# ---------------------------------------------------------------------------- site template
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
    title = " ".join(w.capitalize() for w in re.findall(r"daily|morning|global|metro|city|valley|"
                                                        r"northern|coastal|capital|evening|harbour|"
                                                        r"western|\w+", key))
    scheme = rng.choice(_SCHEMES)
    prefix = "".join(w[0] for w in title.split()).lower()
    names: dict[str, str] = {}
    for region, pool in _REGION_NAMES.items():
        if scheme == "opaque":
            names[region] = "c" + "".join(rng.choice("abcdefghjkmnpqrstuvwxyz0123456789")
                                          for _ in range(5))
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
        cls = rng.choice(_AD_MARKED) if marked else (
            names["related_ad"] if kind == "native" else rng.choice(_AD_UNMARKED))
        slots.append((placement, kind, cls, rng.random() < 0.5))
    sections = ["Home"] + rng.sample(_SECTIONS[1:], rng.randint(5, 9))
    socials = rng.sample(list(SOCIAL_HOSTS), rng.randint(3, 6))
    year = rng.randint(1995, 2012)
    city = rng.choice(_CITIES)
    tagline = rng.choice(("Independent news since {y}", "News you can trust",
                          "Your city, your news", "Reporting from {c} since {y}",
                          "The paper of record")).format(y=year, c=city)
    about = " ".join(rng.sample([
        f"{title} is an independent newspaper based in {city}.",
        f"We have been covering local news, politics, sport and business since {year}.",
        "Our journalists are committed to accurate, fair and independent reporting.",
        "Found a mistake? Write to our corrections desk, and we will look into it.",
        f"Support {title}: subscribe today, from just $1 a week.",
    ], 3))
    layout = rng.choice(_LAYOUTS)
    return _Site(
        index=index, key=key, title=title, host=f"www.{key}.example", layout=layout,
        scheme=scheme, names=names,
        id_regions=frozenset(r for r in ("header", "nav", "footer", "sidebar", "main", "wrap")
                             if rng.random() < 0.5),
        ad_slots=slots, byline=rng.random() < 0.6, share=rng.random() < 0.6,
        related=rng.random() < 0.9, comments=rng.random() < 0.8, newsletter=rng.random() < 0.5,
        content_cells=layout == "table" and rng.random() < 0.7, sections=sections,
        socials=socials, tagline=tagline, about=about, year=rng.randint(2016, 2020),
        footer_links=rng.sample(_FOOTER_LINKS, rng.randint(3, 6)),
        legal_links=rng.sample(_LEGAL_LINKS, rng.randint(3, 5)),
        header_background=rng.random() < 0.4,
    )


# ---------------------------------------------------------------------------- article
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
    short = " ".join(words[:rng.randint(min(4, len(words)), len(words))])
    title = rng.choice((f"{headline} | {site.title}", f"{short} - {site.title}", short))
    slug = _slug(headline)
    blocks = []
    for _ in range(rng.randint(3, 6)):
        paras = []
        for _ in range(rng.randint(1, 2)):
            tokens = " ".join(_fill(rng.choice(_SENTENCES), topic, rng)
                              for _ in range(rng.randint(2, 4))).split()
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


def _near_copy(paras: list[_Para], topic: str, rng: random.Random) -> tuple[list[_Para], int]:
    """The paragraphs with 1-3 single-word substitutions; returns (copy, number of edits)."""
    spots = [(i, j) for i, p in enumerate(paras) for j, t in enumerate(p.tokens)
             if t.isalpha() and t.islower() and len(t) > 3]
    n = min(rng.randint(*NEAR_EDITS), len(spots))
    out = [_Para(list(p.tokens), p.link, p.href) for p in paras]
    pool = _VOCAB[topic]["N"] + _VOCAB[topic]["A"]
    for i, j in rng.sample(spots, n):
        old = out[i].tokens[j]
        out[i].tokens[j] = rng.choice([w for w in pool if w != old])
    return out, n


# ---------------------------------------------------------------------------- rendering
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


def _header(r: _Render, tag: str, more: str = "") -> None:
    s = r.site
    if s.header_background:
        more += f' style="background-image:url(http://{s.host}/static/masthead.jpg)"'
    r.open(tag, "header", r.name("header") + more)
    r.add(f'<a href="/"><img src="http://{s.host}/static/logo.png" width="220" height="48" '
          f'alt="{_attr(s.title)}"></a><span class="name">{_esc(s.title)}</span> '
          f'<span class="tagline">{_esc(s.tagline)}</span>')
    r.close(tag)


def _nav(r: _Render, tag: str, more: str = "") -> None:
    s = r.site
    r.open(tag, "nav", r.name("nav") + more)
    items = "".join(f'<li><a href="/{x.lower()}/">{x}</a></li>' if x != "Home" else
                    '<li><a href="/">Home</a></li>' for x in s.sections)
    r.add(f"<ul>{items}</ul>")
    r.close(tag)


def _search(r: _Render, tag: str = "div") -> None:
    r.open(tag, "search", r.name("search"))
    r.add('<form action="/search" method="get"><label for="q">Search</label> '
          '<input type="text" id="q" name="q" placeholder="Search this site"> '
          '<button type="submit">Go</button></form>')
    r.close(tag)


def _ad(r: _Render, slot: tuple[str, str, str, bool], rng: random.Random, tag: str = "div",
        more: str = "") -> dict:
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
        r.add(f'<a href="{_attr(click)}" target="_blank"><img src="https://{host}/simgad/{n}" '
              f'width="{w}" height="{h}" alt="" border="0"></a>')
    elif kind == "iframe":
        r.add(f'<iframe src="https://ad.doubleclick.net/ddm/adi/N{m}/B{n}" width="{w}" '
              f'height="{h}" frameborder="0" scrolling="no"></iframe>')
    elif kind == "adsense":
        r.add('<script async src="https://pagead2.googlesyndication.com/pagead/js/adsbygoogle.js">'
              f'</script><ins class="adsbygoogle" style="display:inline-block;width:{w}px;'
              f'height:{h}px" data-ad-client="ca-pub-{n}{m}" data-ad-slot="{m}{n % 10000}"></ins>'
              '<script>(adsbygoogle = window.adsbygoogle || []).push({});</script>')
    else:  # native: a list of sponsored links, no image, often unmarked
        heading = rng.choice(("Around the web", "You may also like", "Sponsored stories",
                              "Promoted links"))
        topic = rng.choice(TOPICS)
        items = []
        for _ in range(rng.randint(3, 4)):
            url = rng.choice(_NATIVE_URLS).format(site=r.site.key, n=rng.randint(10**5, 10**6),
                                                  m=rng.randint(10**5, 10**6))
            items.append((_fill(rng.choice(_CLICKBAIT), topic, rng), url))
        r.add(f"<h4>{heading}</h4><ul>" + "".join(f"<li>{_links([it])}</li>" for it in items)
              + "</ul>")
        planted["size"] = None
    r.close(tag)
    return planted


def _headline(r: _Render, art: _Article, tag: str) -> None:
    r.open(tag, "headline", r.name("headline"))
    r.add(f"<h1>{_esc(art.headline)}</h1>")
    r.close(tag)


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


def _paras_html(paras: list[_Para]) -> str:
    out = []
    for p in paras:
        if p.link is None:
            out.append(f"<p>{_esc(p.text)}</p>")
        else:
            a, b = p.link
            t = p.tokens
            out.append("<p>" + _esc(" ".join(t[:a] + [""])) + f'<a href="{_attr(p.href)}">'
                       + _esc(" ".join(t[a:b])) + "</a>" + _esc(" ".join([""] + t[b:])) + "</p>")
    return "\n".join(out)


def _content(r: _Render, paras: list[_Para], fine: str, cls: str, tag: str,
             image: tuple[str, int, int] | None = None, alt: str = "") -> None:
    r.open(tag, fine, f'class="{_attr(cls)}"')
    if image is not None:
        src, w, h = image
        r.add(f'<figure><img src="{_attr(src)}" width="{w}" height="{h}" alt="{_attr(alt)}">'
              "</figure>\n")
    r.add(_paras_html(paras))
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
        r.add(f'<div class="{_attr(r.site.names["comments"])}-item"><p class="who">{_esc(who)} '
              f'<span>{when}</span></p><p>{_esc(text)}</p><a href="#reply">Reply</a></div>\n')
    r.close("div")


def _about(r: _Render, tag: str = "div") -> None:
    r.open(tag, "template", r.name("about"))
    r.add(f"<h4>About {_esc(r.site.title)}</h4><p>{_esc(r.site.about)}</p>")
    r.close(tag)


def _newsletter(r: _Render, tag: str = "div") -> None:
    r.open(tag, "template", r.name("newsletter"))
    r.add(f"<p>Get the best of {_esc(r.site.title)} in your inbox every morning. Sign up for our "
          "free newsletter, and never miss a story.</p><form action=\"/subscribe\"><input "
          "type=\"email\" name=\"email\" placeholder=\"Your email\"> <button>Subscribe</button>"
          "</form>")
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


def _render_page(site: _Site, art: _Article, url: str, rng: random.Random
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
    sequence: list[tuple[str, int, list[_Para], int]] = [("content", i, b, 0)
                                                          for i, b in enumerate(art.blocks)]
    for rate, near in ((EXACT_COPY_RATE, False), (NEAR_COPY_RATE, True)):
        if rng.random() >= rate:
            continue
        orig = rng.randrange(n)
        paras, edits = (_near_copy(art.blocks[orig], art.topic, rng) if near
                        else (art.blocks[orig], 0))
        pos_orig = next(k for k, x in enumerate(sequence) if x[0] == "content" and x[1] == orig)
        at = rng.randint(pos_orig + 1, len(sequence))
        sequence.insert(at, ("duplicate", orig, paras, edits))
    inline_at = rng.randint(1, len(sequence)) if slots["inline"] else None

    planted: list[tuple[str, int | None, int]] = [("headline", None, 0)]
    r.add("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          f"<title>{_esc(art.title)}</title>\n<meta name=\"description\" content="
          f"\"{_attr(art.headline)}\">\n<link rel=\"stylesheet\" href=\"/static/site.css\">\n"
          "<style>body{font-family:Georgia,serif} .tagline{color:#666}</style>\n</head>\n<body>\n")

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
        r.add("</td></tr>\n<tr><td colspan=\"2\">\n")
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
        r.add(f'<div {r.name("wrap")}>\n')
        r.add("<main>\n<article>\n" if html5 else f'<div {r.name("main")}>\n')
        article_column()
        r.add("</article>\n" if html5 else "")
        below_article()
        r.add("</main>\n" if html5 else "</div>\n")
        r.add(f'<aside {r.name("sidebar")}>\n' if html5 else f'<div {r.name("sidebar")}>\n')
        sidebar()
        r.add("</aside>\n" if html5 else "</div>\n")
        r.add("</div>\n")
        bottom()
        _footer(r, "footer" if html5 else "div")
    r.add("<script>window.dataLayer = window.dataLayer || []; dataLayer.push({'page': '"
          f"{_attr(art.slug)}'}});</script>\n</body>\n</html>\n")
    return r.html(), planted, ads


_GOLD_RE = re.compile(r' data-gold="[a-z]+"')


def _label_of(el) -> tuple[str, str] | None:
    node = el
    while node is not None:
        fine = node.get(GOLD_ATTR)
        if fine:
            return (CONTENT if fine in CONTENT_FINE else NOISE), fine
        node = node.getparent()
    return None


# ---------------------------------------------------------------------------- dataset
def _site_keys(n_sites: int, seed: int) -> list[str]:
    rng = random.Random(f"synthetic:{seed}:names")
    combos = [p + s for p in _NAME_PREFIXES for s in _NAME_SUFFIXES]
    rng.shuffle(combos)
    return [combos[i % len(combos)] + (str(i // len(combos)) if i >= len(combos) else "")
            for i in range(n_sites)]


class SyntheticDataset(Dataset):
    """Seeded annotated pages: ``n_sites`` x ``pages_per_site`` over ``n_topics`` topics.

    Page ids are ``site07-p03`` (1-based), urls
    ``http://www.<site>.example/<topic>/<slug>.html``, ``page.site`` the host
    and ``gold.category`` the topic (page g of the sequence gets topic
    g mod n_topics, so topics are balanced to within one page). The same seed
    gives byte-identical pages. ``path`` is accepted for a uniform dataset
    signature and ignored.

    Gold, besides ``text``, ``units`` (``unit_source="planted"``, ``fine`` one of
    :data:`FINE_CLASSES`) and ``duplicate_groups``:

    - ``extra["blocks"]``: :func:`block_text` of the div/td blocks that are
      headline, content or copies of content, in document order;
      ``duplicate_groups`` index into it, original first.
    - ``extra["near_edits"]``: ``{block index: words substituted}`` for each near
      copy (exact copies are absent).
    - ``extra["template_blocks"]``: block texts that occur on every page of the
      site (every page of a site is generated before the first is yielded).
    - ``extra["ads"]``: the planted ad slots (``kind`` image/iframe/adsense/native,
      ``size``); ``extra["layout"]``, ``extra["naming"]``, ``extra["title"]``.
    """

    name = "synthetic"

    def __init__(self, n_sites: int = DEFAULT_N_SITES, pages_per_site: int = DEFAULT_PAGES_PER_SITE,
                 n_topics: int = DEFAULT_N_TOPICS, seed: int = 0, limit: int | None = None,
                 name: str = "synthetic", path: str | None = None):
        super().__init__(path=path, limit=limit)
        check_int("n_sites", n_sites, low=1)
        check_int("pages_per_site", pages_per_site, low=1)
        check_int("seed", seed)
        try:
            check_int("n_topics", n_topics, low=1, high=len(TOPICS))
        except ParamError as exc:
            raise ParamError("n_topics", n_topics, f"{exc.allowed} ({', '.join(TOPICS)})") from None
        self.n_sites = n_sites
        self.pages_per_site = pages_per_site
        self.n_topics = n_topics
        self.seed = seed
        self.name = name

    def get_params(self) -> dict:
        return {"n_sites": self.n_sites, "pages_per_site": self.pages_per_site,
                "n_topics": self.n_topics, "seed": self.seed, "limit": self.limit,
                "name": self.name, "path": self.path}

    def topics(self) -> tuple[str, ...]:
        """The topics in use, in assignment order (page g gets topic g mod n_topics)."""
        return TOPICS[:self.n_topics]

    def _iter_pages(self) -> Iterator[Page]:
        topics = self.topics()
        width = max(2, len(str(max(self.n_sites, self.pages_per_site))))
        for s, key in enumerate(_site_keys(self.n_sites, self.seed)):
            site = _site_template(s, key, random.Random(f"synthetic:{self.seed}:site:{s}"))
            drafts = []
            for p in range(self.pages_per_site):
                g = s * self.pages_per_site + p
                rng = random.Random(f"synthetic:{self.seed}:site:{s}:page:{p}")
                drafts.append(self._draft(site, topics[g % len(topics)], rng,
                                          f"site{s + 1:0{width}d}-p{p + 1:0{width}d}"))
            common = set.intersection(*(set(d["all_blocks"]) for d in drafts))
            for d in drafts:
                d["gold"].extra["template_blocks"] = [t for t in d["all_blocks"] if t in common]
                yield Page(id=d["id"], dataset=self.name, raw=d["raw"], gold=d["gold"],
                           url=d["url"], source=d["id"], site=site.host)

    def _draft(self, site: _Site, topic: str, rng: random.Random, page_id: str) -> dict:
        art = _article(site, topic, rng)
        url = f"http://{site.host}/{topic}/{art.slug}.html"
        annotated, planted, ads = _render_page(site, art, url, rng)
        raw_html = _GOLD_RE.sub("", annotated)
        root = parse_html(annotated, source=page_id)
        units = segment(root, label_of=_label_of)
        blocks, all_blocks = [], []
        for el in root.iter("div", "td"):
            text = block_text(el)
            if text and text not in all_blocks:
                all_blocks.append(text)
            if el.get(GOLD_ATTR) in PLANTED_FINE:
                blocks.append(text)
        if len(blocks) != len(planted):  # the renderer and the tree must agree
            raise RuntimeError(f"{page_id}: {len(blocks)} planted blocks in the tree, "
                               f"{len(planted)} rendered")
        first = {}  # original content index -> its block index
        groups: dict[int, list[int]] = {}
        near_edits = {}
        for b, (fine, orig, edits) in enumerate(planted):
            if fine == "content":
                first[orig] = b
            elif fine == "duplicate":
                groups.setdefault(first[orig], [first[orig]]).append(b)
                if edits:
                    near_edits[b] = edits
        lines = [art.headline] + [p.text for paras in art.blocks for p in paras]
        gold = Gold(text="\n".join(lines), units=units, unit_source="planted",
                    duplicate_groups=[groups[k] for k in sorted(groups)], category=topic,
                    extra={"blocks": blocks, "near_edits": near_edits, "layout": site.layout,
                           "naming": site.scheme, "ads": ads, "title": art.title})
        return {"id": page_id, "url": url, "raw": raw_html.encode("utf-8"), "gold": gold,
                "all_blocks": all_blocks}
