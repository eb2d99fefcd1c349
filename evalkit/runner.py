"""Dataset x methods -> per-page records, in worker processes, failure-isolated and cached.

Pages stream from the reader in tasks: consecutive pages of the same site go
together, so methods with site-scope state (the proposed method's
``scope=site``) see a site's pages in order, whatever the number of workers.
Each task builds fresh method instances from their (name, params) specs, so
no state leaks between tasks and results do not depend on scheduling.

A method that raises on a page yields a record with ``error`` set; the run
goes on. Extractions (not scores) are cached on disk keyed by method,
parameters, page hash, site context, evalkit version and a hash of the
source code, so a rerun or an
interrupted run resumes, and re-scoring with a new metric needs no
re-extraction.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import itertools
import json
import os
import pickle
import tempfile
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit import __version__
from evalkit.page import Extraction, Page

__all__ = ["MethodSpec", "ExtractionCache", "code_fingerprint", "run_task", "iter_tasks",
           "run_pages", "extract_one"]


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """Hash of every source file of evalkit and baselines.

    Part of every cache key, so that editing a method (or anything it calls)
    can never let a rerun reuse extractions made by the old code. Modules that
    only score, tabulate or plot are left out: the cache holds extractions only.
    """
    h = hashlib.sha256()
    for pkg in ("evalkit", "baselines"):
        root = Path(importlib.import_module(pkg).__file__).parent
        for path in sorted(root.rglob("*.py")):
            rel = path.relative_to(root)
            if pkg == "evalkit" and (rel.parts[0] == "experiments" or rel.name in _NOT_EXTRACTION):
                continue
            h.update(str(rel).encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


# modules that never touch an extraction (scoring, tables, figures, the shell):
# editing them must not throw away the cache
_NOT_EXTRACTION = frozenset({"plots.py", "tables.py", "results.py", "cli.py", "__main__.py",
                             "reference.py", "sweep.py", "scoring.py", "metrics.py",
                             "dask_runner.py", "config.py"})


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
        blob = json.dumps([self.registry, self.params, __version__, code_fingerprint()],
                          sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def __hash__(self):
        return hash((self.label, self.key()))


class ExtractionCache:
    """One pickle file per (method, params, page, context); writes are atomic."""

    def __init__(self, root: str | os.PathLike | None):
        self.root = Path(root) if root else None

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.pkl"

    def get(self, key: str) -> Extraction | None:
        if self.root is None:
            return None
        path = self._path(key)
        try:
            with open(path, "rb") as fh:
                return pickle.load(fh)
        except (FileNotFoundError, EOFError, pickle.UnpicklingError):
            return None

    def put(self, key: str, ext: Extraction) -> None:
        if self.root is None:
            return
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(ext, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)


def _page_key(page: Page) -> str:
    return hashlib.sha256(page.raw + (page.url or "").encode()).hexdigest()[:24]


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
    """One task per site (:func:`evalkit.domains.site_of`, within a data set) with all its
    pages, in order; pages without a site in tasks of at most ``max_pages``.

    Streams: readers hand out a site's pages next to each other
    (:func:`evalkit.data.base.group_by_site`, docs/sites.md), so only the site names
    seen so far are kept. A site whose pages come in two runs raises ValueError: two
    tasks would give it two fresh memories, and its site scope would silently be
    partly page scope.
    """
    from evalkit.domains import site_of

    def key(page: Page) -> tuple[str, str] | None:
        site = site_of(page)
        return None if site is None else (page.dataset, site)

    done: set[tuple[str, str]] = set()
    for site, group in itertools.groupby(pages, key=key):
        group = list(group)
        if site is None:
            for i in range(0, len(group), max_pages):
                yield group[i:i + max_pages]
            continue
        if site in done:
            raise ValueError(
                f"data set {site[0]!r}: the pages of site {site[1]!r} come in two runs (page "
                f"{group[0].id!r} follows pages of other sites); a reader must hand out a "
                "site's pages together (evalkit.data.base.group_by_site, docs/sites.md)")
        done.add(site)
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
