"""One method on one page, and the marks a page's records carry through the pipeline.

Light on purpose: the page worker process (evalkit.harness.page_worker) imports it at start.
"""

from __future__ import annotations

import gc
import time
import traceback

from evalkit.core.page import Extraction, Page

__all__ = [
    "BUILD_FAILED",
    "CACHE_INVALID",
    "KEPT_PAGE",
    "METHOD_KEY",
    "ON_FAILURE",
    "PAGE_KEY",
    "PAGE_SHA",
    "TOO_LARGE",
    "extract_one",
    "page_bytes",
]


def extract_one(method, page: Page) -> Extraction:
    """Run one method on its own copy of one page (:meth:`Page.copy`: whatever it changes
    stays with it); an exception, any ``BaseException`` (``SystemExit``,
    ``asyncio.CancelledError``, ``GeneratorExit``) included, becomes ``Extraction.error``, and
    so does a return value that is not an :class:`Extraction`.

    ``KeyboardInterrupt`` is the user's Ctrl-C (or SIGTERM) and stops the run. A method that ends its
    process (``os._exit``, a signal) cannot be caught where it runs: in a page worker
    (``runner.page_timeout``, the default) that page is a ``worker died`` failure; in the
    run's own process (``runner.page_timeout=0``) it ends the run (docs/inputs.md).

    ``seconds`` is not charged for walking the run's own objects: in the run's own process
    (``runner.n_jobs=1``, which holds the run's pages and records) a full garbage collection
    took ~9 s and was charged to whichever method set it off (fulltext on a tiny page, issue
    31). Those objects are frozen (``gc.freeze``, O(1)) while the method runs, so a collection
    then walks only what the method made; a gc callback that subtracted collection time did
    this before, but a Ctrl-C landing in it was lost (gc ignores a callback's exceptions)."""
    mine = page.copy()  # not timed: the harness's work, not the method's
    gc.freeze()
    t0 = time.perf_counter()
    try:
        ext = method.extract(mine)
        if not isinstance(ext, Extraction):
            raise TypeError(
                f"{type(method).__qualname__}.extract returned "
                f"{type(ext).__name__}, not an Extraction"
            )
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - a failing page never stops the run
        tb = traceback.extract_tb(exc.__traceback__)
        where = f" at {tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}" if tb else ""
        ext = Extraction(error=f"{type(exc).__name__}: {exc}{where}"[:500])
    finally:
        seconds = time.perf_counter() - t0
        gc.unfreeze()
    ext.seconds = max(0.0, seconds)
    return ext


ON_FAILURE = ("empty", "drop")
"""What a page on which a method raised counts as (``runner.on_failure``): ``empty`` scores
it as an empty extraction (its record keeps ``error``), ``drop`` leaves its scores out."""

#: the error of a method that could not be built: no page was tried, so it is never scored
BUILD_FAILED = "method could not be built: "

#: the record key that marks a record whose cache entry was found invalid (popped before
#: records leave Runner.run_pages; the run prints one line with the count)
CACHE_INVALID = "_cache_invalid"

#: the record key that carries the sha256 of a page a worker made from a reader's site task
#: (evalkit.readers.base.LazyPages); popped by Runner.run_pages into the reader's ``seen_``
PAGE_SHA = "_page_sha256"

#: the record key that carries the method's cache key as the page's pipeline worked it out
#: (in a worker process, with that process's string-hash seed); popped by Runner.run_pages
#: into ``Runner.method_keys``, by which the run reads its entries back (kept extractions,
#: the cache index)
METHOD_KEY = "_method_key"

#: the record key that carries the cache key of a page (evalkit.harness.cache_keys.page_key)
#: on its first record when the run has a cache, worked out where the page was read (a
#: worker's site or shard task); popped by Runner.run_pages, which notes the entries the
#: page's methods wrote in ``Runner.written``, the run's cache index to be
#: (evalkit.harness.cache_admin.record_run)
PAGE_KEY = "_page_key"

#: the record key that carries a page's line of the run's kept extractions (its gold, from
#: evalkit.harness.kept.page_line) on the page's first record, when the runner is asked for it
#: (``keep_gold``): a run without cache keeps its pages' gold as they stream by instead of
#: reading every page again; popped by evalkit.harness.kept.StreamedKept
KEPT_PAGE = "_kept_page"


#: start of the error of every method's record on a page over ``runner.max_page_bytes``
TOO_LARGE = "too large: "


def page_bytes(page: Page) -> int:
    """The size ``runner.max_page_bytes`` is compared with: the page's file bytes (its text
    in UTF-8 when a reader handed over text only)."""
    return len(page.raw) if page.raw else len(page.html.encode("utf-8", "surrogatepass"))
