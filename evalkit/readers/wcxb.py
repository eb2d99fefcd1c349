"""Reader for WCXB, the Web Content eXtraction Benchmark (Foley 2026; CC-BY-4.0).

GitHub ``Murrough-Foley/web-content-extraction-benchmark``: per split (the shared copy holds
the 1,497-page development split), ``html/<id>.html.gz`` (or ``.html``), ``ground-truth/<id>.json``
(or ``.json.gz``) and ``metadata.json``. A page carries:

* ``id``: the benchmark's file id (``0001``); ``url``: the ground truth's ``url``; ``site``:
  the metadata's ``domain`` (else the URL's host without ``www.``).
* gold text: ``ground_truth.main_content`` (headings on their lines, paragraphs apart by a
  blank line), empty when the key is missing or null (21 development pages: single-page apps
  and two without the key; the benchmark's metric scores them 1 only for an empty output).
* ``gold.category``: the page type, ``_internal.page_type.primary`` as the benchmark's
  ``evaluate.py`` reads it (``category`` counts as ``collection``; missing: ``article``), one
  of :data:`PAGE_TYPES`; so ``per_page.csv``'s ``category`` column is the page type.
* ``gold.extra``: ``with`` and ``without`` (the snippet lists), ``page_type``, ``domain``,
  ``spa`` (metadata), ``title``; with ``snippets=False`` the two lists are left out.

Pages come grouped by site, in id order otherwise (decided from the ground truth before any
page is read). Departures: none in the data.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from pathlib import Path

from evalkit.core.domains import host_of, url_site
from evalkit.core.method import param_names
from evalkit.core.page import Gold, Page
from evalkit.core.validate import check_bool
from evalkit.metrics.metadata import wcxb_gold_metadata
from evalkit.readers.base import Dataset, group_by_site, read_json

__all__ = ["PAGE_TYPES", "WCXBDataset", "page_type", "read_json"]

#: the benchmark's seven page types, in its README's order
PAGE_TYPES = ("article", "forum", "product", "collection", "listing", "documentation", "service")


def page_type(record: dict) -> str:
    """The page type as the benchmark's ``evaluate.py`` reads it."""
    pt = (record.get("_internal") or {}).get("page_type", {})
    if isinstance(pt, dict):
        pt = pt.get("primary", "article")
    elif not isinstance(pt, str):
        pt = "article"
    return "collection" if pt == "category" else pt


def _stem(name: str) -> str:
    return name.removesuffix(".gz").removesuffix(".json").removesuffix(".html")


class WCXBDataset(Dataset):
    """WCXB pages with ``main_content`` gold, page type and snippets (module docstring)."""

    fetch_hint = "see datasets/README.md, wcxb-dev, for where to fetch it"

    def __init__(
        self,
        path: str | None = None,
        limit: int | None = None,
        html_dir: str = "html",
        ground_truth: str = "ground-truth",
        metadata: str = "metadata.json",
        snippets: bool = True,
        name: str = "wcxb",
    ):
        super().__init__(path=path, limit=limit)
        check_bool("snippets", snippets)
        self.html_dir = html_dir
        self.ground_truth = ground_truth
        self.metadata = metadata
        self.snippets = snippets
        self.name = name

    def get_params(self) -> dict:
        return {k: getattr(self, k) for k in param_names(type(self))}

    def _files(self, root: Path) -> tuple[dict[str, Path], dict[str, Path]]:
        gt = {
            _stem(f.name): f
            for f in sorted((root / self.ground_truth).iterdir())
            if f.name.endswith((".json", ".json.gz"))
        }
        html = {
            _stem(f.name): f
            for f in sorted((root / self.html_dir).iterdir())
            if f.name.endswith((".html", ".html.gz"))
        }
        return gt, html

    def _count_pages(self) -> int:
        gt_files, html_files = self._files(self.root())
        return len(set(gt_files) & set(html_files))

    def _iter_pages(self) -> Iterator[Page]:
        root = self.root()
        meta_file = root / self.metadata
        meta = read_json(meta_file, root=root).get("files", {}) if meta_file.is_file() else {}
        if not meta:
            self.skip(meta_file, "no metadata.json: pages have no domain or SPA flag")
        gt_files, html_files = self._files(root)
        for key in sorted(set(gt_files) - set(html_files)):
            self.skip(gt_files[key], "ground truth without a page file")
        records: dict[str, dict] = {}
        for key in sorted(set(html_files)):
            if key not in gt_files:
                self.skip(html_files[key], "no ground-truth file for this page")
                continue
            try:
                records[key] = read_json(gt_files[key], self.max_gold_bytes, root)
            except (ValueError, OSError, EOFError, zlib.error) as exc:
                self.skip(gt_files[key], f"unreadable ground truth ({exc})")

        def site(key: str) -> str | None:
            dom = (meta.get(key) or {}).get("domain")
            return dom or url_site(records[key].get("url"))

        for key in group_by_site(sorted(records), site):
            file, record = html_files[key], records[key]
            raw = self.page_or_skip(file)  # size capped before reading, .gz too
            if raw is None:
                continue
            truth = record.get("ground_truth")
            if not isinstance(truth, dict):
                self.skip(gt_files[key], "no ground_truth object")
                continue
            info = meta.get(key) or {}
            url = record.get("url")
            extra = {
                "page_type": page_type(record),
                "domain": info.get("domain"),
                "spa": info.get("spa"),
                "title": truth.get("title") or "",
            }
            if self.snippets:
                extra["with"] = list(truth.get("with") or [])
                extra["without"] = list(truth.get("without") or [])
            yield Page(
                id=key,
                dataset=self.name,
                raw=raw,
                url=url,
                source=str(file),
                site=info.get("domain") or host_of(url),
                gold=Gold(
                    text=truth.get("main_content") or "",
                    category=extra["page_type"],
                    extra=extra,
                    markdown=_markdown(truth),
                    metadata=wcxb_gold_metadata(truth),
                ),
            )


def _markdown(truth: dict) -> str | None:
    """The gold's Markdown (``main_content_markdown``), None when absent or not a string."""
    md = truth.get("main_content_markdown")
    return md if isinstance(md, str) else None
