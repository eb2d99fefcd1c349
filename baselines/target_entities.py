"""Target-entity extraction with user templates (Kaur 2017, Algorithms 1-3).

Reference: Sukhvir Kaur, "An Algorithm to Eliminate Noisy Content from Web Pages",
M.Tech dissertation, Lovely Professional University, 2017 (docs/papers.md#kaur2017),
§3.3 "Purposed model": Algorithm 1 (DOM-tree extraction), Algorithm 2 (target entity
extraction) and Algorithm 3 (final content summarisation), with the "content
cleaning" paragraph. The dissertation's scraper (Node.js, Cheerio) is not
published; this is a reconstruction from the pseudocode, every assumption a named
setting (docs/methods/target_entities.md quotes the sentences).

Stages, one function each:

1. :func:`dom_components` (Algorithm 1): the page's elements in document order, each
   with its position and its "one-step up (stage parent)".
2. :func:`match_components` (Algorithm 2, steps 1-7): the template's entities (per
   role, its alternatives) matched against every DOM component; each match is a row
   of the matching component array (MCA): role, alternative, component, position.
3. :func:`anchor_combination` (steps 2 and 8-11): the template reformed into its
   combinations (one alternative per role, in the user's order of preference); the
   first combination all of whose entities matched is the target anchored entity
   (TAE: "If coA+coB == TE").
4. :func:`containers` (steps 12-13 with Algorithm 1's parent rule): the anchored
   combination's matched components, title, description, body; a component whose
   stage parent (or any ancestor) is itself a container is left out, its text being
   in that container already; ``container="stage_parent"`` takes each component's
   stage parent as the container instead.
5. :func:`container_text` (Algorithm 3 and "Content Cleaning"): each container's text
   without images, captions, forms, scripts and advertisement components; link text
   is kept as plain text.

A page whose site has no template, or on which no combination anchors, falls back as
``fallback`` says: the dissertation says nothing of such pages, so the default
``"failure"`` raises :class:`NoTemplateMatch` (the harness records the page as a
failure and scores it empty); ``"empty"`` returns an empty extraction instead.

Templates: ``templates`` is a folder of template files
(:mod:`evalkit.core.entity_templates`), read and checked when the method is built, so a
malformed file stops a run with one line naming the file and the key. A page's
template is the one of its data set and site (:func:`evalkit.core.entity_templates.page_site`).
``info`` of each extraction says which template and which split (``train``/``test``)
the page belongs to and which combination anchored.

Where this departs from the dissertation
----------------------------------------
- Templates for the shared sets are written from the training pages of each site
  (experiments/kaur2017/write_templates.py), not by a reader of the newspaper's HTML;
  the scored pages are the held-out ones.
- Entities are the CSS subset of :func:`evalkit.core.entity_templates.compile_entity`
  (tag, class, id, attribute tests, descendant steps), not Cheerio's full CSS.
- "Returns the entities with higher likelihood as per the input entities": the
  likelihood is the user's order of alternatives; the first fully matched
  combination wins (``partial="best"`` takes the combination with the most roles
  matched, body included, when none matches fully).
- Advertisement components are those with a class or id word in
  :data:`AD_WORDS`; "image captions" are ``figcaption`` and ``figure``.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from pathlib import Path

from evalkit.core.block import PREVIEW_CHARS, Block
from evalkit.core.entity_templates import (
    DEFAULT_FOLDER,
    ROLES,
    Template,
    load_templates,
    page_site,
    resolve_folder,
    templates_digest,
)
from evalkit.core.method import Extractor
from evalkit.core.page import Extraction, Page
from evalkit.core.validate import ParamError, check_choice, check_str_list
from evalkit.core.visible import element_text

__all__ = [
    "AD_WORDS",
    "CLEAN_TAGS",
    "DEFAULT_TEMPLATES",
    "Match",
    "NoTemplateMatch",
    "TargetEntities",
    "anchor_combination",
    "container_text",
    "containers",
    "dom_components",
    "match_components",
]

#: the shipped templates, relative to a checkout (datasets/templates/target_entities/README.md)
DEFAULT_TEMPLATES = DEFAULT_FOLDER
#: removed from a container before its text is taken ("images, image captions, ad or other
#: similar contents"; forms and media carry no news text)
CLEAN_TAGS = (
    "img",
    "picture",
    "figure",
    "figcaption",
    "video",
    "audio",
    "form",
    "button",
    "select",
    "textarea",
    "input",
    "aside",
)
#: class or id words that mark an advertisement component
AD_WORDS = (
    "ad",
    "ads",
    "advert",
    "advertisement",
    "adsense",
    "sponsor",
    "sponsored",
    "promo",
    "banner",
)
CONTAINERS = ("element", "stage_parent")
PARTIALS = ("none", "best")
FALLBACKS = ("failure", "empty")
_WORD = re.compile(r"[a-z0-9]+")


def _templates(folder: Path) -> dict[tuple[str, str], Template]:
    """:func:`evalkit.core.entity_templates.load_templates`, read once per process for each
    content of the folder (the runner builds a method per task, i.e. per site)."""
    key = (str(folder), templates_digest(folder) if folder.is_dir() else "")
    if key not in _LOADED:
        _LOADED.clear()
        _LOADED[key] = load_templates(folder)
    return _LOADED[key]


_LOADED: dict[tuple[str, str], dict[tuple[str, str], Template]] = {}


class NoTemplateMatch(ValueError):
    """A page no template covers (the fallback ``failure``): recorded as a failed page."""


@dataclass(frozen=True)
class Match:
    """One row of the matching component array: the entity and the component it matched."""

    role: str
    alternative: int
    entity: str
    position: int
    element: object


def dom_components(root) -> tuple[list, dict[int, int]]:
    """Algorithm 1: the elements under ``root`` in document order and ``{id(element):
    position}``; each element's stage parent is ``element.getparent()``."""
    # XPath, not root.iter(): on one L3S-GN1 page lxml's iter() stops after the root while
    # the parsed tree holds the whole page (the entities' XPath finds it)
    elements = root.xpath("//*")
    return elements, {id(el): i for i, el in enumerate(elements)}


def match_components(root, template: Template) -> list[Match]:
    """Algorithm 2, steps 1-7: every (component, entity) match, by component position, then
    role and alternative. Each entity is evaluated once (its XPath); the rows are those the
    pseudocode's double loop over components and entities appends."""
    _, position = dom_components(root)
    rows = []
    for role in template.entities:
        for alt, (entity, xpath) in enumerate(zip(template.entities[role], template.xpaths[role])):
            for el in root.xpath(xpath):
                rows.append(Match(role, alt, entity, position[id(el)], el))
    rows.sort(key=lambda m: (m.position, ROLES.index(m.role), m.alternative))
    return rows


def anchor_combination(
    template: Template, rows: list[Match], partial: str = "none"
) -> dict[str, int] | None:
    """Steps 2 and 8-11: ``{role: alternative}`` of the first combination (in the order of
    preference) whose every entity matched; None when none does. ``partial="best"``: else
    the combination with the most matched roles among those whose body matched."""
    matched = {(m.role, m.alternative) for m in rows}
    roles = list(template.entities)
    combos = [
        dict(zip(roles, c))
        for c in itertools.product(*(range(len(template.entities[r])) for r in roles))
    ]
    for combo in combos:
        if all((r, a) in matched for r, a in combo.items()):
            return combo
    if partial == "best":
        scored = [
            (sum((r, a) in matched for r, a in c.items()), -i, c)
            for i, c in enumerate(combos)
            if ("body", c["body"]) in matched
        ]
        if scored:
            best = max(scored, key=lambda s: s[:2])[2]
            return {r: a for r, a in best.items() if (r, a) in matched}
    return None


def containers(
    rows: list[Match], combo: dict[str, int], container: str = "element"
) -> list[tuple[str, object]]:
    """Steps 12-13: ``(role, element)`` of the anchored combination, roles in the order
    title, description, body and components in document order; ``container="stage_parent"``
    lifts each component to its parent. A component inside another container is dropped."""
    picked: list[tuple[str, object]] = []
    seen = set()
    for role in ROLES:
        if role not in combo:
            continue
        for m in rows:
            if m.role != role or m.alternative != combo[role]:
                continue
            el = m.element
            if container == "stage_parent" and el.getparent() is not None:
                el = el.getparent()
            if id(el) not in seen:
                seen.add(id(el))
                picked.append((role, el))
    chosen = {id(el) for _, el in picked}
    out = []
    for role, el in picked:
        parent = el.getparent()
        inside = False
        while parent is not None:  # the stage parent first, then further up
            if id(parent) in chosen:
                inside = True
                break
            parent = parent.getparent()
        if not inside:
            out.append((role, el))
    return out


def _is_ad(el) -> bool:
    words = _WORD.findall(f"{el.get('class') or ''} {el.get('id') or ''}".lower())
    return any(w in AD_WORDS for w in words)


def container_text(el, clean_tags=CLEAN_TAGS) -> str:
    """Algorithm 3 and "Content Cleaning": the container's visible text without the
    ``clean_tags`` components and advertisement components; links stay as plain text."""
    return element_text(el, skip=_is_ad, skip_tags=frozenset(clean_tags))


class TargetEntities(Extractor):
    """Kaur (2017): the page's title, description and body found by its site's template.

    ``templates``: folder of template files (None: the checkout's
    :data:`DEFAULT_TEMPLATES`; a relative path is taken from the checkout). Block records:
    one per container, tag = the element's tag, ``attrs`` ``role``, ``entity``.
    """

    name = "target_entities"
    #: no template for the page's site: a failure scored empty (the dissertation has no fallback)
    expected_failures = (NoTemplateMatch,)
    trained_on = ("big5_2017", "chaos", "cleanportaleval", "l3s_gn1", "readability")  # templates

    def __init__(
        self,
        templates: str | None = None,
        container: str = "element",
        partial: str = "none",
        fallback: str = "failure",
        clean_tags: tuple[str, ...] | list[str] = CLEAN_TAGS,
    ):
        self.templates = templates
        self.container = container
        self.partial = partial
        self.fallback = fallback
        self.clean_tags = clean_tags
        self._validate()
        self._loaded = _templates(self.folder())  # a bad file: one line, file and key

    def folder(self) -> Path:
        """The template folder this instance reads."""
        return resolve_folder(self.templates)

    def _validate(self) -> None:
        if self.templates is not None and (
            not isinstance(self.templates, str) or not self.templates
        ):
            raise ParamError("templates", self.templates, "must be a folder of template files")
        check_choice("container", self.container, CONTAINERS)
        check_choice("partial", self.partial, PARTIALS)
        check_choice("fallback", self.fallback, FALLBACKS)
        check_str_list("clean_tags", list(self.clean_tags), allow_empty=True)

    def resolved_params(self) -> dict:
        # the templates are data the output depends on: their bytes key the cache
        return {
            **self.get_params(),
            "clean_tags": list(self.clean_tags),
            "templates_sha256": templates_digest(self.folder()),
        }

    def template_for(self, page: Page, root=None) -> Template | None:
        """The template of the page's data set and site, or None."""
        return self._loaded.get((page.dataset, page_site(page, root)))

    def _miss(self, reason: str, info: dict) -> Extraction:
        if self.fallback == "failure":
            raise NoTemplateMatch(reason)
        return Extraction(text="", info={**info, "matched": False, "reason": reason})

    def extract(self, page: Page) -> Extraction:
        root = page.tree(plain=True)
        site = page_site(page, root)
        template = self._loaded.get((page.dataset, site))
        if template is None:
            return self._miss(
                f"no template for site {site!r} of {page.dataset!r}",
                {"template": None, "split": None},
            )
        info = {
            "template": f"{template.dataset}/{template.site}",
            "split": template.split_of(page.id),
        }
        rows = match_components(root, template)
        combo = anchor_combination(template, rows, self.partial)
        if combo is None:
            return self._miss(
                f"template {info['template']}: no combination of its entities matches the page",
                info,
            )
        parts, blocks = [], []
        for i, (role, el) in enumerate(containers(rows, combo, self.container)):
            text = container_text(el, self.clean_tags)
            if text:
                parts.append(text)
            blocks.append(
                Block(
                    i,
                    el.tag,
                    text=text[:PREVIEW_CHARS],
                    words=len(text.split()),
                    kept=bool(text),
                    attrs={"role": role, "entity": template.entities[role][combo[role]]},
                )
            )
        return Extraction(
            text="\n".join(parts),
            blocks=blocks,
            info={
                **info,
                "matched": True,
                "combination": {r: template.entities[r][a] for r, a in combo.items()},
                "mca_rows": len(rows),
            },
        )
