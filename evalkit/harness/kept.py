"""The extractions of a run, kept in its folder: ``extractions.jsonl.gz``.

``report.html`` shows each page's extraction against its gold; to rebuild it later
(``python -m evalkit.report RUN_DIR --pages all``) without running the methods again, the
extraction experiment keeps every page's gold and every method's text, error and block
records here, gzip-compressed JSON lines (one gzip member per data set):

* ``{"kind": "page", "dataset", "page_id", "gold"}`` once per page (with ``elements``, the
  gold's structure as ``[kind, text, level, depth, rows]``, where the gold has one), then
* ``{"kind": "extraction", "dataset", "page_id", "method", "text", "error", "blocks"}`` per
  method (with ``markdown`` where the method gave it), or ``{"kind": "extraction", ..., "missing": reason}`` when the extraction cannot
  be had.

The extractions are read back from the run's extraction cache (evalkit.harness.cache), under
the key the page pipeline stored them with (evalkit.harness.pipeline), so keeping them costs a
second read of the pages and of the cache, not a second extraction; a run without cache keeps
its pages' gold as the records stream by (:class:`StreamedKept`). What the cache does not
hold is said, not made up: a method whose result depends on the site's other pages
(``scope = "site"``) and every method of a run without cache (``runner.cache=false``) are
written as missing with the reason.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from evalkit.core.elements import parse_markdown
from evalkit.core.page import Page
from evalkit.harness.cache import ExtractionCache
from evalkit.harness.cache_keys import page_key
from evalkit.harness.extract import KEPT_PAGE

__all__ = [
    "BLOCK_KEYS",
    "NO_CACHE",
    "StreamedKept",
    "keep_extractions",
    "page_line",
    "read_kept",
    "texts_table",
]

#: the fields of a block record kept (evalkit.core.block.Block): enough to say why it went
BLOCK_KEYS = (
    "index",
    "tag",
    "text",
    "words",
    "kept",
    "stage",
    "rule",
    "reason",
    "duplicate_of",
    "scores",
    "attrs",
)


def _scope(spec) -> str:
    try:
        return getattr(spec.build(), "scope", "page")
    except Exception:  # noqa: BLE001 - a method that cannot be built failed every page
        return "page"


#: why a run without cache keeps no extraction
NO_CACHE = "the run had no extraction cache (runner.cache=false)"


def _gold_elements(page: Page) -> list[list[Any]] | None:
    """The gold's structure as ``[kind, text, level, depth, rows]`` lists (None: it has none)."""
    gold = page.gold
    if gold is None:
        return None
    elements = gold.elements
    if elements is None and gold.markdown is not None:
        elements = parse_markdown(gold.markdown)
    if elements is None:
        return None
    return [[e.kind, e.text, e.level, e.depth, e.rows] for e in elements]


def page_line(page: Page) -> dict[str, Any]:
    """A page's line of the kept file: its gold text and, where the gold has it, its
    structure."""
    rec = {
        "kind": "page",
        "dataset": page.dataset,
        "page_id": page.id,
        "gold": page.gold.text if page.gold is not None else None,
    }
    elements = _gold_elements(page)
    if elements is not None:  # the page browser's structure diff
        rec["elements"] = elements
    return rec


def _blocks(ext) -> list[dict[str, Any]]:
    return [{k: getattr(b, k) for k in BLOCK_KEYS} for b in ext.blocks]


def keep_extractions(
    path: str | os.PathLike,
    pages: Iterable[Page],
    specs: list,
    cache_root: str | None,
    method_keys: dict[str, str] | None = None,
) -> dict[str, int]:
    """Append the pages' gold and every method's extraction (from the cache at
    ``cache_root``) to ``path``; returns counts (pages, kept, missing). ``method_keys``:
    label -> the key the run's pipelines filed a method's entries under
    (``Runner.method_keys``: a worker process works it out with its own string-hash seed);
    a method not in it is looked up by its key in this process."""
    cache = ExtractionCache(cache_root)
    site = [_scope(s) == "site" for s in specs]
    used = method_keys or {}
    keys = [used.get(s.label) or s.key() if cache.root is not None else None for s in specs]
    counts = {"pages": 0, "kept": 0, "missing": 0}
    # a gzip member per data set, appended; no time stamp in its header (the same bytes on
    # every run of the same config)
    with (
        open(Path(path), "ab") as raw,
        gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as zipped,
        io.TextIOWrapper(zipped, encoding="utf-8", errors="surrogatepass") as out,
    ):
        for page in pages:
            counts["pages"] += 1
            head = {"dataset": page.dataset, "page_id": page.id}
            out.write(json.dumps(page_line(page)) + "\n")
            pkey = page_key(page) if cache.root is not None else ""
            for spec, is_site, mkey in zip(specs, site, keys):
                rec = {"kind": "extraction", **head, "method": spec.label}
                ext = None
                if cache.root is None:
                    rec["missing"] = NO_CACHE
                elif is_site:
                    rec["missing"] = (
                        "a site-scope method: its extraction depends on the "
                        "site's other pages and is not cached"
                    )
                elif mkey is None:
                    rec["missing"] = "the method's code cannot be read, so it is not cached"
                else:
                    # the page pipeline's key for a page-scope method (pipeline._start)
                    key = hashlib.sha256(f"{mkey}|{pkey}|".encode()).hexdigest()
                    ext = cache.get(key)
                    if ext is None:
                        rec["missing"] = (
                            "not in the cache: the method failed on the page "
                            "(per_page.csv error) or the entry was removed"
                        )
                if ext is not None:
                    rec.update(text=ext.text, error=ext.error, blocks=_blocks(ext))
                    if ext.markdown is not None:
                        rec["markdown"] = ext.markdown
                    counts["kept"] += 1
                else:
                    counts["missing"] += 1
                out.write(json.dumps(rec) + "\n")
    return counts


class StreamedKept:
    """The kept lines of a run without cache, written as its records stream by: each page's
    line (carried by its first record, evalkit.harness.extract.KEPT_PAGE), then one line per
    method saying there is no extraction to keep (:data:`NO_CACHE`). The same lines, in the
    same order and the same gzip member, as :func:`keep_extractions` writes from a second read
    of the pages, without that read."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._parts: list[Any] = []  # opened at the first line: no member for no records

    def add(self, rec: dict[str, Any]) -> None:
        """Write the lines of one record (its page's line first when it carries it); the
        page's line is taken off the record."""
        if not self._parts:
            raw = open(self.path, "ab")  # noqa: SIM115 - closed by close(), after the stream
            zipped = gzip.GzipFile(fileobj=raw, mode="wb", mtime=0)
            self._parts = [io.TextIOWrapper(zipped, encoding="utf-8", errors="surrogatepass")]
            self._parts += [zipped, raw]
        out = self._parts[0]
        line = rec.pop(KEPT_PAGE, None)
        if line is not None:
            out.write(json.dumps(line) + "\n")
        missing = {
            "kind": "extraction",
            "dataset": rec["dataset"],
            "page_id": rec["page_id"],
            "method": rec["method"],
            "missing": NO_CACHE,
        }
        out.write(json.dumps(missing) + "\n")

    def close(self) -> None:
        for part in self._parts:  # the text layer, the gzip member, the file
            part.close()
        self._parts = []


def read_kept(run_dir: str | os.PathLike) -> Iterable[dict[str, Any]]:
    """Each kept extraction of a run as ``{"dataset", "page", "method", "text"}`` (``text``
    empty and ``error`` set where the method failed; nothing for extractions kept as missing,
    nor when the run kept none). Read by :class:`evalkit.shell.api.Result`."""
    from evalkit.report.pages import KEPT_FILE  # pandas: not for the pipeline's page_line

    path = Path(run_dir) / KEPT_FILE
    if not path.is_file():
        return
    with gzip.open(path, "rt", encoding="utf-8", errors="surrogatepass") as fh:
        for line in fh:
            rec = json.loads(line) if line.strip() else {}
            if rec.get("kind") != "extraction" or "missing" in rec:
                continue
            out = {
                "dataset": rec["dataset"],
                "page": str(rec["page_id"]),
                "method": rec["method"],
                "text": rec.get("text") or "",
            }
            if rec.get("error"):
                out["error"] = rec["error"]
            yield out


def texts_table(lines: Iterable[dict[str, Any]]):
    """Kept extractions as a frame: ``dataset, page, method, text`` (and ``error``)."""
    import pandas as pd

    frame = pd.DataFrame(list(lines))
    if frame.empty:
        return pd.DataFrame(columns=["dataset", "page", "method", "text"])
    return frame
