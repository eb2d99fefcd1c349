"""Target-entity template files (Kaur 2017, Algorithm 2): format, validation, sites, splits.

A template names, for one site of one data set, the CSS/HTML/XML entities that hold a
news page's title, description and body (the "target entity template" the user gives
Kaur's scraper). One YAML file per site, ``<folder>/<dataset>/<site>.yaml``
(docs/methods/target_entities.md#template-files)::

    format: target_entities/1         # this format, exactly
    dataset: l3s_gn1                  # the data set label (Page.dataset)
    site: news.bbc.co.uk              # the page's site (page_site)
    split:                            # the fixed, seeded training split of the site's pages
      seed: 0
      train_share: 0.5
      train: [id1, id2]               # pages the template was written from
      test: [id3, id4]                # the only pages it is scored on
    entities:                         # role -> alternative entities, most wanted first
      title: ["h1.headline", "h1"]
      description: ["p.introduction"]
      body: ["div.story-body p"]
    note: free text (optional)

An entity is a CSS selector of the small grammar :func:`compile_entity` reads:
compound selectors ``tag``, ``.class``, ``#id``, ``[attr]``, ``[attr=value]`` in any
combination (``div.story#main[itemprop=articleBody]``), joined by spaces for "inside"
(``div.story p``); a bare tag name is an HTML entity, an attribute test an XML one.

:func:`load_template` checks a file and raises :class:`TemplateError` whose message is
one line naming the file and the key. :func:`page_site` is a page's site for template
look-up: :func:`evalkit.core.domains.site_of`, else the host of the page's
``<link rel=canonical>`` or ``<meta property=og:url>`` (readers without URLs).
:func:`split_site` is the seeded split a template records.
"""

from __future__ import annotations

import hashlib
import math
import random
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from evalkit.core.domains import host_of, site_of
from evalkit.core.layout import PACKAGE_DIR, layout

__all__ = [
    "DEFAULT_FOLDER",
    "FORMAT",
    "ROLES",
    "Template",
    "TemplateError",
    "canonical_site",
    "compile_entity",
    "load_template",
    "load_templates",
    "page_site",
    "resolve_folder",
    "split_site",
    "templates_digest",
    "write_template",
]

#: the shipped templates, relative to a checkout (datasets/templates/target_entities/README.md)
DEFAULT_FOLDER = "datasets/templates/target_entities"
#: the ``format`` value of a version-1 template file
FORMAT = "target_entities/1"
#: the roles of Kaur's template, in output order ("the title, description and news body")
ROLES = ("title", "description", "body")
_TOP_KEYS = {"format", "dataset", "site", "split", "entities", "note"}
_SPLIT_KEYS = {"seed", "train_share", "train", "test"}
# one compound selector: an optional tag, then .class, #id, [attr] or [attr=value] parts
_TAG = re.compile(r"[A-Za-z][A-Za-z0-9_-]*|\*")
_PART = re.compile(
    r"\.(?P<cls>[A-Za-z0-9_-]+)|#(?P<id>[A-Za-z0-9_:.-]+)"
    r"|\[(?P<attr>[A-Za-z_][A-Za-z0-9_:-]*)(?:=(?P<q>['\"]?)(?P<val>[^'\"\]]*)(?P=q))?\]"
)


class TemplateError(ValueError):
    """A template file that cannot be used: ``<file>: <key>: <what is wrong>`` (one line)."""

    def __init__(self, path: str | Path, key: str, message: str):
        self.path, self.key = str(path), key
        super().__init__(f"{path}: {key}: {message}")


@dataclass(frozen=True)
class Template:
    """One site's template: its entities per role and the split it was written from."""

    path: str
    dataset: str
    site: str
    entities: dict[str, tuple[str, ...]]
    seed: int
    train_share: float
    train: tuple[str, ...]
    test: tuple[str, ...]
    xpaths: dict[str, tuple[str, ...]] = field(default_factory=dict, compare=False)

    def split_of(self, page_id: str) -> str | None:
        """``train``, ``test`` or None (a page the split does not list)."""
        if page_id in self.train:
            return "train"
        return "test" if page_id in self.test else None


def compile_entity(entity: str) -> str:
    """The XPath (relative to the document) of one entity; ValueError names what is wrong."""
    steps = entity.split()
    if not steps:
        raise ValueError("empty entity")
    xpath = ""
    for step in steps:
        m = _TAG.match(step)
        tag, pos = (m.group(0).lower(), m.end()) if m else ("*", 0)
        tests = []
        while pos < len(step):
            part = _PART.match(step, pos)
            if part is None:
                raise ValueError(f"cannot read {step[pos:]!r} in entity {entity!r}")
            if part.group("cls"):
                tests.append(
                    f"contains(concat(' ', normalize-space(@class), ' '), ' {part.group('cls')} ')"
                )
            elif part.group("id"):
                tests.append(f"@id='{part.group('id')}'")
            elif part.group("val") is not None:
                tests.append(f"@{part.group('attr')}='{part.group('val')}'")
            else:
                tests.append(f"@{part.group('attr')}")
            pos = part.end()
        if m is None and not tests:
            raise ValueError(f"cannot read {step!r} in entity {entity!r}")
        xpath += f"//{tag}" + "".join(f"[{t}]" for t in tests)
    return xpath


def _fail(path, key, message):
    raise TemplateError(path, key, message)


def _check_ids(path, key, value) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        _fail(path, key, "must be a list of page ids")
    return tuple(value)


def load_template(path: str | Path) -> Template:
    """Read and check one template file (module docstring); TemplateError on any fault."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        _fail(path, "(file)", f"cannot read: {exc.strerror or exc}")
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        _fail(path, "(yaml)", f"not valid YAML{where}: {getattr(exc, 'problem', None) or exc}")
    if not isinstance(data, dict):
        _fail(path, "(top)", "must be a mapping of format, dataset, site, split, entities")
    for key in sorted(set(data) - _TOP_KEYS):
        _fail(path, str(key), f"unknown key; known: {', '.join(sorted(_TOP_KEYS))}")
    for key in ("format", "dataset", "site", "split", "entities"):
        if key not in data:
            _fail(path, key, "missing")
    if data["format"] != FORMAT:
        _fail(path, "format", f"must be {FORMAT!r}, got {data['format']!r}")
    for key in ("dataset", "site"):
        if not isinstance(data[key], str) or not data[key]:
            _fail(path, key, "must be a non-empty string")
    split = data["split"]
    if not isinstance(split, dict):
        _fail(path, "split", "must be a mapping of seed, train_share, train, test")
    for key in sorted(set(split) - _SPLIT_KEYS) + sorted(_SPLIT_KEYS - set(split)):
        _fail(path, f"split.{key}", "unknown key" if key in split else "missing")
    if not isinstance(split["seed"], int) or isinstance(split["seed"], bool):
        _fail(path, "split.seed", "must be an integer")
    share = split["train_share"]
    if isinstance(share, bool) or not isinstance(share, int | float) or not 0 < share < 1:
        _fail(path, "split.train_share", "must be a number in (0, 1)")
    train = _check_ids(path, "split.train", split["train"])
    test = _check_ids(path, "split.test", split["test"])
    both = set(train) & set(test)
    if both:
        _fail(path, "split.test", f"page {min(both)!r} is also in split.train")
    entities = data["entities"]
    if not isinstance(entities, dict) or not entities:
        _fail(path, "entities", f"must map some of {', '.join(ROLES)} to lists of entities")
    out, xpaths = {}, {}
    for role, alternatives in entities.items():
        key = f"entities.{role}"
        if role not in ROLES:
            _fail(path, key, f"unknown role; known: {', '.join(ROLES)}")
        if not isinstance(alternatives, list) or not alternatives:
            _fail(path, key, "must be a non-empty list of entities")
        for i, entity in enumerate(alternatives):
            if not isinstance(entity, str):
                _fail(path, f"{key}[{i}]", "must be a string")
            try:
                compile_entity(entity)
            except ValueError as exc:
                _fail(path, f"{key}[{i}]", str(exc))
        out[role] = tuple(alternatives)
        xpaths[role] = tuple(compile_entity(e) for e in alternatives)
    if "body" not in out:
        _fail(path, "entities.body", "missing (the news body is the one role every template has)")
    return Template(
        str(path),
        data["dataset"],
        data["site"],
        {r: out[r] for r in ROLES if r in out},
        split["seed"],
        float(share),
        train,
        test,
        {r: xpaths[r] for r in ROLES if r in xpaths},
    )


def resolve_folder(templates: str | None) -> Path:
    """The template folder a ``templates`` setting names: None is :data:`DEFAULT_FOLDER`; a
    relative path is taken from the checkout (from the working folder when installed)."""
    path = Path(templates or DEFAULT_FOLDER).expanduser()
    if not path.is_absolute():
        root = layout().root
        if root is None and templates is None:  # the wheel carries them in evalkit/datasets/
            return PACKAGE_DIR / DEFAULT_FOLDER
        path = (root if root is not None else Path.cwd()) / path
    return path


def load_templates(folder: str | Path) -> dict[tuple[str, str], Template]:
    """Every ``*.yaml`` under ``folder``: ``{(dataset, site): template}``; a second template
    for one site is a TemplateError."""
    folder = Path(folder)
    if not folder.is_dir():
        raise TemplateError(folder, "(folder)", "not a folder of template files")
    out: dict[tuple[str, str], Template] = {}
    for path in sorted(folder.rglob("*.yaml")):
        t = load_template(path)
        key = (t.dataset, t.site)
        if key in out:
            _fail(path, "site", f"{t.site!r} of {t.dataset!r} already has {out[key].path}")
        out[key] = t
    return out


def templates_digest(folder: str | Path) -> str:
    """sha256 over the names and bytes of the folder's template files (the cache key)."""
    h = hashlib.sha256()
    folder = Path(folder)
    for path in sorted(folder.rglob("*.yaml")):
        h.update(path.relative_to(folder).as_posix().encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


def canonical_site(root) -> str | None:
    """Host (no ``www.``) of the first ``<link rel=canonical href>`` or
    ``<meta property=og:url content>`` of a parsed page; None without either."""
    for el in root.xpath("//link|//meta"):  # XPath: lxml's iter() can stop early on a page
        if el.tag == "link" and "canonical" in (el.get("rel") or "").lower().split():
            url = el.get("href")
        elif el.tag == "meta" and (el.get("property") or "").lower() == "og:url":
            url = el.get("content")
        else:
            continue
        host = host_of(url) if url and "//" in url else None
        if host:
            return host
    return None


def page_site(page, root=None) -> str | None:
    """The page's site for template look-up: its reader site or URL host, else the host of
    its canonical or og:url link (``root``: the parsed page, parsed here when None)."""
    site = site_of(page)
    if site is not None:
        return site
    return canonical_site(page.tree(plain=True) if root is None else root)


def split_site(
    page_ids: Iterable[str], seed: int, train_share: float, dataset: str, site: str
) -> tuple[list[str], list[str]]:
    """``(train, test)``: the sorted ids shuffled by a generator seeded with
    ``"<seed>/<dataset>/<site>"``; ``max(1, floor(n * train_share))`` pages train, the
    rest test (both sorted)."""
    ids = sorted(page_ids)
    random.Random(f"{seed}/{dataset}/{site}").shuffle(ids)
    n_train = max(1, math.floor(len(ids) * train_share))
    return sorted(ids[:n_train]), sorted(ids[n_train:])


def write_template(
    path: str | Path,
    dataset: str,
    site: str,
    entities: dict[str, list[str]],
    seed: int,
    train_share: float,
    train: list[str],
    test: list[str],
    note: str | None = None,
) -> Path:
    """Write a version-1 template file (and check it reads back)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "format": FORMAT,
        "dataset": dataset,
        "site": site,
        "split": {
            "seed": seed,
            "train_share": train_share,
            "train": list(train),
            "test": list(test),
        },
        "entities": {r: list(entities[r]) for r in ROLES if entities.get(r)},
    }
    if note:
        data["note"] = note
    path.write_text(
        yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100), encoding="utf-8"
    )
    load_template(path)
    return path
