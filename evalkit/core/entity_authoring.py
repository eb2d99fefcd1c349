"""Writing a site's target-entity template from its training pages (Kaur 2017's "user").

Kaur's scraper takes its templates from a user who has read the newspaper's HTML.
For the shared sets evalkit writes them mechanically, from the *training* pages of
each site only (the split of :func:`evalkit.core.entity_templates.split_site`), with the
training pages' gold text standing in for the user's reading of the page:

* **body**: every element holding at least :data:`MIN_BODY_WORDS` words (with a word
  F1 of at least 0.2 against the gold) proposes its entities: ``tag#id``, ``tag.class``,
  ``tag[itemprop=v]`` when it carries such names (else ``tag[attr=v]`` of its presentational
  attributes :data:`LAYOUT_ATTRS`), else ``<entity> tag`` of its nearest
  named ancestor up to three levels up; each also followed by `` p``. Each proposed entity is
  applied to every training page and scored by the word F1 of its text against the
  gold (multisets of lower-cased ``\\w+`` words); the :data:`BODY_ALTERNATIVES` best
  (mean F1 over the training pages, at least :data:`MIN_BODY_F1`) become the body's
  alternatives, best first.
* **title**: ``h1``/``h2`` elements and elements whose class or id names a title
  propose ``tag``, ``tag.class``, ``tag#id``; an entity is kept when on *every*
  training page it selects at most two elements whose text has 2 to 40 words, at
  least :data:`MIN_PRECISION` of them in the gold; the most specific first.
* **description**: elements whose class or id names a summary
  (:data:`DESCRIPTION_WORDS`) propose entities, kept under the title's rule (up to
  80 words) and only when they lie outside the best body container on every
  training page.

A role without an entity is left out of the template; a site without a body entity
gets no template.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from evalkit.core.entity_templates import compile_entity
from evalkit.core.text import bag_f1
from evalkit.core.visible import element_text

__all__ = [
    "BODY_ALTERNATIVES",
    "DESCRIPTION_WORDS",
    "MIN_BODY_F1",
    "MIN_BODY_WORDS",
    "MIN_PRECISION",
    "TITLE_WORDS",
    "author_entities",
    "entity_score",
    "proposed_entities",
]

MIN_BODY_WORDS = 20  # an element proposes body entities from this many words
MIN_BODY_F1 = 0.2  # mean word F1 a body entity needs over the training pages
BODY_ALTERNATIVES = 3  # body entities kept, best first
TITLE_ALTERNATIVES = 2
DESCRIPTION_ALTERNATIVES = 2
MIN_PRECISION = 0.8  # share of a title/description's words found in the gold
TITLE_WORDS = frozenset({"title", "headline", "heading", "headings", "hed", "h1"})
DESCRIPTION_WORDS = frozenset(
    {
        "description",
        "summary",
        "intro",
        "introduction",
        "standfirst",
        "lede",
        "lead",
        "dek",
        "subtitle",
        "subheadline",
        "subhead",
        "teaser",
        "abstract",
        "excerpt",
        "strapline",
        "sapo",
        "deck",
    }
)
#: attributes that name an element of a page without ids and classes (old table layouts)
LAYOUT_ATTRS = ("role", "width", "align", "valign", "size", "face", "colspan", "bgcolor")
_VALUE = re.compile(r"[A-Za-z0-9_.%#-]+\Z")
_IDENT = re.compile(r"-?[A-Za-z_][A-Za-z0-9_-]*\Z")
_DIGITS = re.compile(r"\d{3,}")  # generated ids and classes (post-12345) are page-specific
_WORD = re.compile(r"\w+")
_NAME_WORD = re.compile(r"[a-z0-9]+")
_SKIP = frozenset({"script", "style", "noscript", "img", "figure", "figcaption", "form"})


def _words(text: str) -> Counter:
    return Counter(_WORD.findall(text.lower()))


def proposed_entities(el) -> list[str]:
    """``tag#id``, ``tag.class`` (each usable class) and ``tag[itemprop=v]`` of ``el``;
    names that look generated (3 digits in a row) are skipped. Without any of them,
    ``tag[attr=v]`` for its :data:`LAYOUT_ATTRS`."""
    tag = el.tag.lower()
    out = []
    ident = el.get("id") or ""
    if _IDENT.match(ident) and not _DIGITS.search(ident):
        out.append(f"{tag}#{ident}")
    for cls in (el.get("class") or "").split()[:4]:
        if _IDENT.match(cls) and not _DIGITS.search(cls):
            out.append(f"{tag}.{cls}")
    prop = el.get("itemprop") or ""
    if _IDENT.match(prop):
        out.append(f"{tag}[itemprop={prop}]")
    if not out:  # old table layouts: presentational attributes are the only names
        for attr in LAYOUT_ATTRS:
            value = el.get(attr)
            if value and len(value) <= 30 and _VALUE.match(value):
                out.append(f"{tag}[{attr}={value}]")
    return out


def _ancestor_entities(el, up: int = 3) -> list[str]:
    """For an element without usable names: ``<ancestor entity> <tag>`` from the nearest of
    its ``up`` ancestors that has entities (``td.storybody table``)."""
    parent = el.getparent()
    for _ in range(up):
        if parent is None or not isinstance(parent.tag, str):
            return []
        props = proposed_entities(parent)
        if props:
            return [f"{p} {el.tag.lower()}" for p in props]
        parent = parent.getparent()
    return []


def _selected(root, entity: str) -> list:
    """The entity's components, those inside another one left out."""
    els = root.xpath(compile_entity(entity))
    chosen = {id(e) for e in els}
    out = []
    for el in els:
        parent = el.getparent()
        while parent is not None and id(parent) not in chosen:
            parent = parent.getparent()
        if parent is None:
            out.append(el)
    return out


def entity_score(root, entity: str, gold: Counter) -> float:
    """Word F1 of the entity's text on one page against the gold's words."""
    text = "\n".join(element_text(el, skip_tags=_SKIP) for el in _selected(root, entity))
    return bag_f1(_words(text), gold)


def _names(el) -> set[str]:
    return set(_NAME_WORD.findall(f"{el.get('class') or ''} {el.get('id') or ''}".lower()))


def _short_ok(root, entity: str, gold: Counter, max_words: int) -> bool:
    els = _selected(root, entity)
    if not els or len(els) > 2:
        return False
    words = _words(" ".join(element_text(el, skip_tags=_SKIP) for el in els))
    n = sum(words.values())
    return 2 <= n <= max_words and sum((words & gold).values()) >= MIN_PRECISION * n


def _specificity(entity: str) -> tuple:
    return (-(entity.count(".") + entity.count("#") + entity.count("[")), entity)


def _inside(el, containers) -> bool:
    ids = {id(c) for c in containers}
    while el is not None:
        if id(el) in ids:
            return True
        el = el.getparent()
    return False


def author_entities(pages: Sequence[tuple[object, str]]) -> dict[str, list[str]]:
    """``{role: entities}`` from training pages given as ``(parsed root, gold text)``."""
    golds = [_words(gold) for _, gold in pages]
    body_cands, title_cands, desc_cands = set(), set(), set()
    for (root, _), gold in zip(pages, golds):
        for el in root.xpath("//*"):  # not iter(): it can stop early (target_entities.py)
            if not isinstance(el.tag, str):
                continue
            tag = el.tag.lower()
            names = _names(el)
            if tag in ("h1", "h2") or names & TITLE_WORDS:
                title_cands.add(tag)
                title_cands.update(proposed_entities(el))
            if names & DESCRIPTION_WORDS:
                desc_cands.update(proposed_entities(el))
            props = proposed_entities(el) or _ancestor_entities(el)
            if props and len(el) and tag not in ("html", "body", "head"):
                text_words = _words(element_text(el, skip_tags=_SKIP))
                if sum(text_words.values()) >= MIN_BODY_WORDS and bag_f1(text_words, gold) >= 0.2:
                    body_cands.update(props)
                    body_cands.update(f"{p} p" for p in props)
    scored = []
    for entity in sorted(body_cands):
        mean = sum(entity_score(root, entity, g) for (root, _), g in zip(pages, golds)) / len(pages)
        if mean >= MIN_BODY_F1:
            scored.append((-mean, _specificity(entity), entity))
    body = [e for _, _, e in sorted(scored)[:BODY_ALTERNATIVES]]
    if not body:
        return {}
    title = sorted(
        (
            e
            for e in title_cands
            if all(_short_ok(root, e, g, 40) for (root, _), g in zip(pages, golds))
        ),
        key=_specificity,
    )[:TITLE_ALTERNATIVES]
    best_body = [_selected(root, body[0]) for root, _ in pages]
    description = sorted(
        (
            e
            for e in desc_cands
            if all(
                _short_ok(root, e, g, 80) and not any(_inside(el, b) for el in _selected(root, e))
                for (root, _), g, b in zip(pages, golds, best_body)
            )
        ),
        key=_specificity,
    )[:DESCRIPTION_ALTERNATIVES]
    out = {"title": title, "description": description, "body": body}
    return {r: v for r, v in out.items() if v}
