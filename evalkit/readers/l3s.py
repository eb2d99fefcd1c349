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
  strips punctuation, so this does not hurt projection (see evalkit.core.align).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from evalkit.core.domains import host_of, url_site
from evalkit.core.method import param_names
from evalkit.core.page import CONTENT, Annotation, Gold, Page, PageError, undecodable
from evalkit.core.units import DEFAULT_CONTENT_CLASSES, L3S_CLASSES, span_units
from evalkit.core.validate import check_str_list
from evalkit.readers.base import (
    DEFAULT_MAX_FILE_BYTES,
    Dataset,
    FileTooLarge,
    group_by_site,
    read_capped,
)

__all__ = ["L3SGN1Dataset", "read_url_mapping"]

_UUID_LINE = re.compile(r"^<urn:uuid:([0-9a-fA-F-]+)>\s+(\S.*)$")


def read_url_mapping(path: Path, root: Path | None = None) -> dict[str, str]:
    """uuid -> URL from ``url-mapping.txt`` (``<urn:uuid:...>`` TAB url per line), read
    through the read gate (inside ``root``, regular, capped: evalkit.core.capped)."""
    mapping: dict[str, str] = {}
    raw = read_capped(path, DEFAULT_MAX_FILE_BYTES, "the index file size cap", root)
    for line in raw.decode("utf-8", errors="replace").splitlines():
        m = _UUID_LINE.match(line.strip())
        if m:
            mapping[m.group(1).lower()] = m.group(2).strip()
    return mapping


class L3SGN1Dataset(Dataset):
    """L3S-GN1 pages with span-labelled gold (see module docstring)."""

    def __init__(
        self,
        path: str | None = None,
        limit: int | None = None,
        content_classes: Sequence[str] = DEFAULT_CONTENT_CLASSES,
        name: str = "l3s_gn1",
    ):
        super().__init__(path=path, limit=limit)
        check_str_list("content_classes", content_classes, choices=L3S_CLASSES)
        self.content_classes = content_classes
        self.name = name

    fetch_hint = "fetch it with `python -m evalkit.readers.download l3s-gn1`"

    def get_params(self) -> dict:
        return {k: getattr(self, k) for k in param_names(type(self))}

    def _count_pages(self) -> int:
        return sum(1 for _ in (self.root() / "original").glob("*.html"))

    def _iter_pages(self) -> Iterator[Page]:
        root = self.root()
        mapping_file = root / "url-mapping.txt"
        try:
            urls = read_url_mapping(mapping_file, root) if mapping_file.is_file() else {}
        except FileTooLarge as exc:
            self.skip(mapping_file, str(exc))
            urls = {}
        if not urls:
            self.skip(mapping_file, "no url-mapping.txt: pages have no URL")
        classes = tuple(self.content_classes)
        # by site before any page is read: the file names (uuids) scatter a site's pages
        originals = group_by_site(
            sorted((root / "original").glob("*.html")), lambda f: url_site(urls.get(f.stem.lower()))
        )
        annotated_names = {p.name for p in (root / "annotated").glob("*.html")}
        for extra in sorted(annotated_names - {p.name for p in originals}):
            self.skip(root / "annotated" / extra, "annotated copy without an original page")
        for file in originals:
            ann_file = root / "annotated" / file.name
            if file.name not in annotated_names:
                self.skip(file, "no annotated copy (gold) for this page")
                continue
            try:  # sizes checked before either file is read (runner.max_*_bytes)
                raw = self.read_page_file(file)
                annotated = self.read_gold_file(ann_file)
            except FileTooLarge as exc:
                self.skip(file, str(exc))
                continue
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
                id=file.stem,
                dataset=self.name,
                raw=raw,
                url=url,
                source=str(file),
                site=host_of(url),
                gold=Gold(
                    text=text,
                    annotation=Annotation(
                        annotated, source=str(ann_file), content_classes=tuple(classes)
                    ),
                ),
            )
