"""The run's kept extractions: every page's extracted text per method, in the run folder.

``extractions.jsonl.gz`` holds one JSON object per (page, method) of the run's extraction
experiment: ``{"dataset": ..., "page": <page id>, "method": <label>, "text": ...}``.
:class:`evalkit.shell.api.Result` reads it back (``Result.texts``), so a notebook sees
what each method extracted without the cache (which may be pruned, shared or off) and
without re-running anything.

:func:`keep_from_cache` writes it at the end of a run from the extraction cache entries
the run itself used (their keys are known: evalkit.harness.cache_admin.entry_keys), when
no other part of the run wrote the file. What the cache does not hold is left out: a
failed extraction (its text is empty; per_page.csv has its error), a site-scope method
(never cached) and everything of a run with ``runner.cache=false``.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

__all__ = ["FILE", "KeptExtractions", "keep_from_cache", "read_kept", "texts_table"]

#: the file in the run folder
FILE = "extractions.jsonl.gz"


class KeptExtractions:
    """Appends (page, method, text) lines to ``<run>/extractions.jsonl.gz``."""

    def __init__(self, run_dir: str | Path):
        self.path = Path(run_dir) / FILE
        self._fh = None
        self.n = 0

    def add(self, dataset: str, page: str, method: str, text: str) -> None:
        if self._fh is None:
            self._fh = gzip.open(self.path, "wt", encoding="utf-8", compresslevel=6)
        line = {"dataset": dataset, "page": str(page), "method": method, "text": text}
        self._fh.write(json.dumps(line, ensure_ascii=False) + "\n")
        self.n += 1

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def read_kept(run_dir: str | Path) -> Iterator[dict[str, Any]]:
    """The lines of a run's ``extractions.jsonl.gz`` (none when the run kept none)."""
    path = Path(run_dir) / FILE
    if not path.is_file():
        return
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def texts_table(lines: Iterable[dict[str, Any]]):
    """The kept lines as a frame: ``dataset, page, method, text`` (and ``error``)."""
    import pandas as pd

    frame = pd.DataFrame(list(lines))
    if frame.empty:
        return pd.DataFrame(columns=["dataset", "page", "method", "text"])
    return frame


def keep_from_cache(run_dir: str | Path, cache_root: str | Path | None,
                    pages: Iterable[tuple[str, str, str]],
                    methods: Iterable[tuple[str, str | None]]) -> int:
    """Write ``extractions.jsonl.gz`` from the cache: ``pages`` are (data set, page id, page
    key), ``methods`` (label, method key). Returns the lines written; nothing when the run
    folder already has the file or there is no cache."""
    from evalkit.harness.cache import ExtractionCache
    from evalkit.harness.cache_admin import entry_keys

    if not cache_root or (Path(run_dir) / FILE).exists():
        return 0
    cache = ExtractionCache(cache_root)
    kept = KeptExtractions(run_dir)
    methods = [(label, key) for label, key in methods if key]
    try:
        for dataset, page, pkey in pages:
            for label, mkey in methods:
                ext = cache.get(entry_keys(mkey, [pkey])[0])
                if ext is not None:
                    kept.add(dataset, page, label, ext.text or "")
    finally:
        kept.close()
    return kept.n
