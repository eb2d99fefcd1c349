"""Dataset x methods -> per-page records, in worker processes, failure-isolated and cached.

Pages stream from the reader in tasks: consecutive pages of the same site go
together, so methods with site-scope state (the proposed method's
``scope=site``) see a site's pages in order, whatever the number of workers.
Each task builds fresh method instances from their (name, params) specs, so
no state leaks between tasks and results do not depend on scheduling.

A method that raises on a page yields a record with ``error`` set; the run
goes on. Extractions (not scores) are cached on disk (evalkit.cache), keyed by
everything that can change them: the method's resolved parameters, the source
of every module it can execute, the versions of the packages it calls, the
page as the method sees it and the site context. So a rerun or an interrupted
run resumes, and re-scoring with a new metric needs no re-extraction.
"""

from __future__ import annotations

import hashlib
import itertools
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from evalkit.cache import ExtractionCache, method_key
from evalkit.cache import page_key as _page_key
from evalkit.page import Extraction, Page

__all__ = [
    "ExtractionCache",
    "MethodSpec",
    "extract_one",
    "iter_tasks",
    "run_pages",
    "run_task",
]


@dataclass(frozen=True)
class MethodSpec:
    """How to build a method: its table name, registry name and keyword parameters."""

    label: str
    registry: str
    params: dict[str, Any] = field(default_factory=dict)
    kind: str = "method"

    def build(self):
        from evalkit.registry import DETECTORS, METHODS

        reg = METHODS if self.kind == "method" else DETECTORS
        return reg.create(self.registry, **self.params)

    def key(self) -> str:
        """Everything about the method that can change an extraction (evalkit.cache),
        worked out once per process."""
        return method_key(self)

    def __hash__(self):
        return hash((self.label, self.key()))


def extract_one(method, page: Page) -> Extraction:
    """Run one method on one page; an exception becomes ``Extraction.error``."""
    t0 = time.perf_counter()
    try:
        ext = method.extract(page)
    except Exception as exc:  # noqa: BLE001 - a failing page must never stop the run
        tb = traceback.extract_tb(exc.__traceback__)
        where = f" at {tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}" if tb else ""
        ext = Extraction(error=f"{type(exc).__name__}: {exc}{where}"[:500])
    ext.seconds = time.perf_counter() - t0
    return ext


def run_task(pages: list[Page], specs: list[MethodSpec], cache_root: str | None,
             score: Callable[[Page, str, Extraction], dict[str, Any]]) -> list[dict[str, Any]]:
    """Run every method on a task's pages (one site's run of pages); returns records."""
    cache = ExtractionCache(cache_root)
    methods = []
    for spec in specs:
        try:
            methods.append((spec, spec.build(), None))
        except Exception as exc:  # noqa: BLE001 - e.g. a peer whose package is missing
            methods.append((spec, None, f"{type(exc).__name__}: {exc}"))
    records = []
    context = hashlib.sha256()
    for page in pages:
        pkey = _page_key(page)
        for spec, method, build_error in methods:
            stateful = getattr(method, "scope", "page") == "site"
            key = hashlib.sha256(
                f"{spec.key()}|{pkey}|{context.hexdigest() if stateful else ''}".encode()
            ).hexdigest()
            ext = None if stateful else cache.get(key)
            cached = ext is not None
            if ext is None:
                if method is None:
                    ext = Extraction(error=build_error)
                else:
                    ext = extract_one(method, page)
                if ext.error is None and not stateful:
                    cache.put(key, ext)
            try:
                rec = score(page, spec.label, ext)
            except Exception as exc:  # noqa: BLE001 - a page the scorer chokes on is a record too
                rec = {"dataset": page.dataset, "page_id": page.id, "method": spec.label,
                       "error": f"scoring failed: {type(exc).__name__}: {exc}"[:500]}
            rec["cached"] = cached
            records.append(rec)
        context.update(pkey.encode())
    return records


def iter_tasks(pages: Iterable[Page], max_pages: int = 20) -> Iterator[list[Page]]:
    """Group consecutive pages of one site (at most ``max_pages`` per task when no site)."""
    for site, group in itertools.groupby(pages, key=lambda p: p.site):
        group = list(group)
        if site is None:
            for i in range(0, len(group), max_pages):
                yield group[i:i + max_pages]
        else:
            yield group


def run_pages(pages: Iterable[Page], specs: list[MethodSpec], *, score, n_jobs: int = 1,
              cache_root: str | None = None, progress: bool = True, total: int | None = None,
              desc: str = "pages") -> list[dict[str, Any]]:
    """Run ``specs`` over ``pages`` in ``n_jobs`` local processes; records in page order."""
    from tqdm.auto import tqdm

    tasks = iter_tasks(pages, max_pages=1 if n_jobs > 1 else 20)
    bar = tqdm(total=total, desc=desc, unit="page", disable=not progress, leave=False)
    out: list[dict[str, Any]] = []
    n_methods = max(len(specs), 1)
    if n_jobs == 1:
        for task in tasks:
            recs = run_task(task, specs, cache_root, score)
            out.extend(recs)
            bar.update(len(recs) // n_methods)
    else:
        from joblib import Parallel, delayed

        par = Parallel(n_jobs=n_jobs, return_as="generator", batch_size=1, pre_dispatch="4*n_jobs")
        for recs in par(delayed(run_task)(t, specs, cache_root, score) for t in tasks):
            out.extend(recs)
            bar.update(len(recs) // n_methods)
    bar.close()
    return out
