"""Timing pages: each method against the lxml parse of the same page, in one process.

Per page, interleaved so that a change in machine load hits all alike, the
parse (:func:`evalkit.core.page.parse_html`), the pure-Python floor
(:func:`python_walk`) and each method through
:func:`evalkit.harness.runner.extract_one`, with the clock the run chose (CPU time of
the process by default); and the peak resident memory of the process that
timed.
"""

from __future__ import annotations

import resource
import sys
import time
from collections.abc import Callable

import lxml.etree
import pandas as pd

from evalkit.core.page import Page, PageError, parse_html
from evalkit.harness.extract import extract_one
from evalkit.harness.specs import MethodSpec
from evalkit.harness.tasks import iter_tasks

#: clocks a timing can use: CPU time of this process, or elapsed time
CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}
#: the row label of the parse floor in the tables
PARSE_LABEL = "lxml_parse"
#: the row label of the pure-Python floor: the parse plus :func:`python_walk`
PY_WALK_LABEL = "lxml_parse+python_walk"
_WALK_EVENTS = ("start", "end")
#: per-page columns of the steps a method times itself (``info["seconds_<step>"]``), in ms
STEP_PREFIX = "step_"


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MiB (maxrss is KiB on Linux, B on macOS)."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024


def python_walk(root) -> int:
    """Visit every element below ``root`` from Python, reading its tag, text and tail and its
    id, class, src and href; returns the number of elements.

    The least a pure-Python method that reads the page once pays on top of
    the parse: the proposed method reads each element's text (stage 1.1) and
    these four attributes (the tag rules), besides all else it does.
    """
    n = 0
    for event, el in lxml.etree.iterwalk(root, events=_WALK_EVENTS):  # elements only
        if event == "start":
            get = el.get
            el.tag, el.text, get("id"), get("class"), get("src"), get("href")
            n += 1
        else:
            el.tail  # noqa: B018 - read, as a method collecting text does
    return n


#: the row of rendering a page in headless Chromium (``speed.render=true``), wall clock
RENDER_LABEL = "render_chromium_wall"


def render_row(page: Page) -> dict:
    """Rendering one page (evalkit.harness.render, default settings, no cache) and its lxml
    parse, both in wall-clock ms: the browser works in processes of its own, which the
    CPU clock of this process would not see."""
    from evalkit.core.rendered import RenderSettings
    from evalkit.harness.render import RenderError, layout_for

    t0 = time.perf_counter()
    try:
        parse_html(page.html, source=page.source or page.id)
        parse_ms = (time.perf_counter() - t0) * 1000
    except PageError:
        parse_ms = float("nan")
    t0 = time.perf_counter()
    try:
        layout_for(page, RenderSettings(), None)
        error = None
    except RenderError as exc:
        error = f"render failed: {exc}"
    return {
        "dataset": page.dataset,
        "page_id": page.id,
        "site": page.site,
        "method": RENDER_LABEL,
        "n_bytes": len(page.raw),
        "ms": (time.perf_counter() - t0) * 1000,
        "parse_ms": parse_ms,
        "walk_ms": float("nan"),
        "error": error,
    }


def time_pages(
    pages: list[Page],
    specs: list[MethodSpec],
    clock: str = "cpu",
    warmup: bool = True,
    walk: bool = True,
    render: bool = False,
) -> pd.DataFrame:
    """Per page and method: ms of the method, ms of the parse, page bytes, error, and the
    ms of each step the method timed itself (columns ``step_<name>``); with ``walk``, the
    ms of :func:`python_walk` over the parsed page (column ``walk_ms``, else NaN); with
    ``render``, a :data:`RENDER_LABEL` row per page (:func:`render_row`).

    Methods are built afresh for each site's run of pages, as the runner
    builds them per task, so site-scope methods see the same history; the
    building is not timed.
    """
    tick = CLOCKS[clock]
    if warmup and pages:
        parse_html(pages[0].html, source=pages[0].id)
        for spec in specs:
            _build_and(spec, lambda m: extract_one(m, pages[0]))
        if render:  # starts the browser, untimed
            render_row(pages[0])
    rows = []
    for task in iter_tasks(pages):
        methods = [(spec, _build_and(spec, lambda m: m)) for spec in specs]
        for page in task:
            t0 = tick()
            walk_ms = float("nan")
            try:
                # the tree is freed inside the timing, as a method's own tree is
                parse_html(page.html, source=page.source or page.id)
                parse_ms = (tick() - t0) * 1000
            except PageError:  # e.g. an empty file; the methods record their own error
                parse_ms = float("nan")
            else:
                if walk:  # on a tree of its own: keeping the timed one would move its freeing
                    root = parse_html(page.html, source=page.source or page.id)
                    t0 = tick()
                    python_walk(root)
                    walk_ms = (tick() - t0) * 1000
                    del root
            for spec, method in methods:
                steps = {}
                if isinstance(method, str):  # the method could not be built
                    ms, error = float("nan"), method
                else:
                    t0 = tick()
                    ext = extract_one(method, page)
                    ms, error = (tick() - t0) * 1000, ext.error
                    steps = {
                        f"{STEP_PREFIX}{k[len('seconds_') :]}": v * 1000
                        for k, v in ext.info.items()
                        if k.startswith("seconds_") and isinstance(v, (int, float))
                    }
                rows.append(
                    {
                        "dataset": page.dataset,
                        "page_id": page.id,
                        "site": page.site,
                        "method": spec.label,
                        "n_bytes": len(page.raw),
                        "ms": ms,
                        "parse_ms": parse_ms,
                        "walk_ms": walk_ms,
                        "error": error,
                        **steps,
                    }
                )
            if render:
                rows.append(render_row(page))
    columns = [
        "dataset",
        "page_id",
        "site",
        "method",
        "n_bytes",
        "ms",
        "parse_ms",
        "walk_ms",
        "error",
    ]
    columns += list(dict.fromkeys(k for r in rows for k in r if k.startswith(STEP_PREFIX)))
    return pd.DataFrame(rows, columns=columns)


def _build_and(spec: MethodSpec, then):
    try:
        method = spec.build()
    except Exception as exc:  # noqa: BLE001 - e.g. a peer whose package is missing
        return f"{type(exc).__name__}: {exc}"
    return then(method)


def time_dataset_task(
    pages: list[Page],
    *,
    specs: list[MethodSpec],
    clock: str = "cpu",
    warmup: bool = True,
    walk: bool = True,
    render: bool = False,
) -> tuple[pd.DataFrame, float]:
    """The runner task of one data set: :func:`time_pages` over all its pages and methods,
    then the peak memory of the process that timed them. One task, so every method of a
    data set is timed in the same process. Module level, so workers can run it."""
    return (
        time_pages(pages, specs, clock=clock, warmup=warmup, walk=walk, render=render),
        peak_rss_mb(),
    )
