"""Reader for L3S-GN1 (Kohlschütter, Fankhauser & Nejdl, WSDM 2010).

621 Google-News articles from 408 sites. ``original/<uuid>.html`` is the page
as crawled; ``annotated/<uuid>.html`` is the same page with every atomic text
block wrapped in ``<span class="x-nc-selN">`` (0 not content, 1 headline,
2 full text, 3 supplemental, 4 related content, 5 comments); elements the
annotators could not see carry ``x-nc-invisible``. ``url-mapping.txt`` maps
``<urn:uuid:...>`` to the page URL. A page's site is its URL's host without
``www.`` (405 sites); pages come grouped by site, sites in the order of their
first file name, each site's pages in file-name order (the order is decided
from ``url-mapping.txt`` before any page is read).

Where evalkit departs from the data's own conventions:

* The gold text is the text of the units whose class is in
  ``content_classes`` (headline + full text by default, the convention of the
  paper's "main content"), joined one unit per line. Text outside any span is
  noise, as the data set's readme says ("unselected text is regarded not
  content").
* ``x-nc-invisible`` elements are removed before segmenting: they were not
  shown to the annotators, so they are not units.
* The annotated copy replaced non-ASCII punctuation with ``?``; word alignment
  strips punctuation, so this does not hurt projection (see evalkit.align).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from urllib.parse import urlsplit

from evalkit.data.base import Dataset, group_by_site
from evalkit.domains import site_key
from evalkit.method import param_names
from evalkit.page import (
    CONTENT,
    NOISE,
    Annotation,
    Gold,
    Page,
    PageError,
    Unit,
    parse_html,
    undecodable,
)
from evalkit.units import segment
from evalkit.validate import check_str_list

__all__ = [
    "DEFAULT_CONTENT_CLASSES",
    "L3S_CLASSES",
    "L3SGN1Dataset",
    "host_of",
    "read_url_mapping",
    "span_label",
    "span_units",
    "url_site",
]

#: headline + full text, the data set's conventional main content
DEFAULT_CONTENT_CLASSES = ("sel1", "sel2")
#: every class the annotators used
L3S_CLASSES = ("sel0", "sel1", "sel2", "sel3", "sel4", "sel5")
_SEL = re.compile(r"\bx-nc-(sel[0-9])\b")
_INVISIBLE = "x-nc-invisible"
_UUID_LINE = re.compile(r"^<urn:uuid:([0-9a-fA-F-]+)>\s+(\S.*)$")


def host_of(url: str | None) -> str | None:
    """Host name of a URL, lower-cased, without a leading ``www.``; None when absent."""
    if not url:
        return None
    host = (urlsplit(url.strip()).hostname or "").lower()
    host = host.removeprefix("www.")
    return host or None


def url_site(url: str | None) -> str | None:
    """The site a page with this URL gets (its ``site`` field is :func:`host_of` the URL)."""
    return site_key(host_of(url), url)


def read_url_mapping(path: Path) -> dict[str, str]:
    """uuid -> URL from ``url-mapping.txt`` (``<urn:uuid:...>`` TAB url per line)."""
    mapping: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        m = _UUID_LINE.match(line.strip())
        if m:
            mapping[m.group(1).lower()] = m.group(2).strip()
    return mapping


def span_label(el, content_classes: Sequence[str] = DEFAULT_CONTENT_CLASSES):
    """``(label, fine)`` from the nearest enclosing ``x-nc-selN`` span (noise, None if none)."""
    while el is not None:
        m = _SEL.search(el.get("class") or "")
        if m:
            fine = m.group(1)
            return (CONTENT if fine in content_classes else NOISE), fine
        el = el.getparent()
    return NOISE, None


def span_units(annotated: bytes | str, content_classes: Sequence[str] = DEFAULT_CONTENT_CLASSES,
               source: str = "<annotated>") -> list[Unit]:
    """Atomic text blocks of an annotated L3S-GN1 document, labelled from its spans."""
    classes = tuple(content_classes)
    root = parse_html(annotated, source=source)
    for el in list(root.iter()):
        hidden = isinstance(el.tag, str) and _INVISIBLE in (el.get("class") or "").split()
        if hidden and el.getparent() is not None:
            el.drop_tree()  # keeps the tail, which was visible
    return segment(root, label_of=lambda el: span_label(el, classes))


class L3SGN1Dataset(Dataset):
    """L3S-GN1 pages with span-labelled gold (see module docstring)."""

    def __init__(self, path: str | None = None, limit: int | None = None,
                 content_classes: Sequence[str] = DEFAULT_CONTENT_CLASSES,
                 name: str = "l3s_gn1"):
        super().__init__(path=path, limit=limit)
        check_str_list("content_classes", content_classes, choices=L3S_CLASSES)
        self.content_classes = content_classes
        self.name = name

    fetch_hint = "fetch it with `python -m evalkit.data.download l3s-gn1`"

    def get_params(self) -> dict:
        return {k: getattr(self, k) for k in param_names(type(self))}

    def _iter_pages(self) -> Iterator[Page]:
        root = self.root()
        mapping_file = root / "url-mapping.txt"
        urls = read_url_mapping(mapping_file) if mapping_file.is_file() else {}
        if not urls:
            self.skip(mapping_file, "no url-mapping.txt: pages have no URL")
        classes = tuple(self.content_classes)
        # by site before any page is read: the file names (uuids) scatter a site's pages
        originals = group_by_site(sorted((root / "original").glob("*.html")),
                                  lambda f: url_site(urls.get(f.stem.lower())))
        annotated_names = {p.name for p in (root / "annotated").glob("*.html")}
        for extra in sorted(annotated_names - {p.name for p in originals}):
            self.skip(root / "annotated" / extra, "annotated copy without an original page")
        for file in originals:
            ann_file = root / "annotated" / file.name
            if file.name not in annotated_names:
                self.skip(file, "no annotated copy (gold) for this page")
                continue
            raw = file.read_bytes()
            annotated = ann_file.read_bytes()
            if not raw.strip():
                self.skip(file, "empty page")
                continue
            try:
                units = span_units(annotated, classes, source=str(ann_file))
            except PageError as exc:
                self.skip(ann_file, f"unreadable annotated copy: {exc.reason}")
                continue
            text = "\n".join(u.text for u in units if u.label == CONTENT)
            if not text:
                self.skip(ann_file, f"no text labelled {'/'.join(classes)}")
                continue
            reason = undecodable(text)
            if reason is not None:
                self.skip(ann_file, f"unreadable annotated copy: {reason}")
                continue
            url = urls.get(file.stem.lower())
            yield Page(
                id=file.stem, dataset=self.name, raw=raw, url=url, source=str(file),
                site=host_of(url),
                gold=Gold(text=text, annotation=Annotation(
                    annotated, source=str(ann_file), content_classes=tuple(classes))),
            )
