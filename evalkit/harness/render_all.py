"""``python -m evalkit.harness.render_all [--jobs N] [--cache DIR [--against OTHER]] SET...``:
render every page of the named data sets (configs/dataset names) with N worker processes, one
browser each, and print pages, failures, seconds and peak memory (docs/rendering.md#measured;
the numbers are in the speed experiment's README). With ``--against``, the layouts of the
cache are compared with those of another cache root (the same pages rendered another time):
how many differ, and where (:func:`evalkit.core.rendered.layout_difference`;
docs/rendering.md#reproducibility).

This process reads the sets one after the other and hands their pages, one at a time, to
whichever worker is free (a bounded queue), so the workers stay busy to the last page whatever
the sizes of the sets. Each worker keeps one browser for all its pages, each page in a browser
context of its own (:class:`evalkit.harness.render.Renderer`). A layout does not depend on the
worker that made it: the cache key is the page's and the settings' (tests/test_render_all.py
renders the same pages serially and on two workers and compares the records).
"""

from __future__ import annotations

import os
import time
from typing import Any

from evalkit.core.page import parse_html
from evalkit.core.rendered import RenderSettings, layout_difference
from evalkit.harness.render import (
    LayoutCache,
    RenderError,
    browser_version,
    layout_for,
    renderer,
)

__all__ = ["compare_caches", "main", "memory_by_pages", "render_pages"]

#: pages waiting for a worker, per worker (enough to keep it busy, few enough to stay small)
QUEUE_PER_WORKER = 4
#: seconds between two samples of the workers' and their browsers' memory
MEMORY_SAMPLE_SECONDS = 1.0


def _worker(todo, done, settings: RenderSettings, cache_root) -> None:
    """One worker process: render pages from ``todo`` until None, put one result per page
    (label, page id, parse s, render s, failure or None) on ``done``."""
    try:
        while (item := todo.get()) is not None:
            label, page = item
            t0 = time.perf_counter()
            parse_html(page.html)
            parse_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            try:
                layout_for(page, settings, cache_root)
                failure = None
            except RenderError as exc:
                failure = str(exc)
            done.put((label, page.id, parse_s, time.perf_counter() - t0, failure))
    finally:
        renderer().kill()


def _pages(label: str, shared: str | None):
    from hydra import compose, initialize_config_dir

    from evalkit.harness.config import CONFIG_DIR, build_datasets, register_resolvers

    register_resolvers()
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(
            config_name="config",
            overrides=[
                f"dataset={label}",
                "method=[fulltext]",
                *([f"paths.shared_data={shared}"] if shared else []),
            ],
        )
    (ds,) = build_datasets(cfg).values()
    yield from ds.pages()


def _rss_tree(pid: int) -> int:
    """Resident bytes of process ``pid`` and all its descendants (0 without psutil)."""
    try:
        import psutil
    except ImportError:
        return 0
    try:
        proc = psutil.Process(pid)
        procs = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0
    total = 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def render_pages(
    items, jobs: int, settings: RenderSettings, cache_root, on_result=None
) -> dict[str, Any]:
    """Render the (label, page) pairs of ``items`` on ``jobs`` worker processes; the results
    per label ({"pages", "failed", "render_s", "parse_s"}), the peak resident memory of
    this process, the workers and their browsers (``peak_rss``, bytes; 0 without psutil) and
    every sample of it as (pages done, bytes) (``rss_samples``: does it grow with the pages?)."""
    import multiprocessing
    import queue

    ctx = multiprocessing.get_context("spawn")
    todo, done = ctx.Queue(QUEUE_PER_WORKER * jobs), ctx.Queue()
    workers = [
        ctx.Process(target=_worker, args=(todo, done, settings, cache_root)) for _ in range(jobs)
    ]
    for w in workers:
        w.start()
    out: dict[str, Any] = {}
    peak, last_sample = 0, 0.0
    samples: list[tuple[int, int]] = []
    sent = received = 0

    def collect(block: bool) -> None:
        nonlocal received, peak, last_sample
        while received < sent:
            try:
                label, pid, parse_s, render_s, failure = done.get(timeout=0.2 if block else 0)
            except queue.Empty:
                if not all(w.is_alive() for w in workers):
                    raise RuntimeError("a render worker died") from None
                if not block:
                    return
            else:
                received += 1
                r = out.setdefault(label, {"pages": 0, "failed": [], "render_s": [], "parse_s": []})
                r["pages"] += 1
                r["parse_s"].append(parse_s)
                r["render_s"].append(render_s)
                if failure is not None:
                    r["failed"].append((pid, failure))
                if on_result is not None:
                    on_result(received)
            if time.monotonic() - last_sample >= MEMORY_SAMPLE_SECONDS:
                rss, last_sample = _rss_tree(os.getpid()), time.monotonic()
                peak = max(peak, rss)
                samples.append((received, rss))
            if not block:
                return

    try:
        for item in items:
            while True:
                try:
                    todo.put(item, timeout=0.2)
                    break
                except queue.Full:
                    collect(block=False)
            sent += 1
            collect(block=False)
        collect(block=True)
    except BaseException:
        for w in workers:  # a worker's browser dies with it (render.py's parent-death hook)
            w.terminate()
        raise
    finally:
        for w in workers:
            if w.is_alive():
                todo.put(None)
        for w in workers:
            w.join()
    return {"sets": out, "peak_rss": peak, "rss_samples": samples}


def main(argv: list[str] | None = None) -> None:
    """The command of the module docstring."""
    from evalkit.core.terminal import guard_console

    guard_console()  # data's control characters are shown, never obeyed

    import argparse
    import statistics
    import sys

    ap = argparse.ArgumentParser(prog="python -m evalkit.harness.render_all")
    ap.add_argument("sets", nargs="+")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cache", default=None, help="layout cache root (default: none)")
    ap.add_argument(
        "--against",
        default=None,
        metavar="OTHER",
        help="compare the layouts of --cache with those of this cache root",
    )
    ap.add_argument(
        "--shared",
        default=None,
        help="the shared data sets' folder (default: paths.shared_data's default)",
    )
    args = ap.parse_args(argv)
    if args.jobs < 1:
        ap.error("--jobs must be 1 or more")
    if args.against and not args.cache:
        ap.error("--against needs --cache (the layouts to compare)")
    if args.against and not os.path.isdir(os.path.join(args.against, "layouts")):
        # before the render, not after it: a mistyped folder would compare nothing
        ap.error(
            f"--against {args.against}: no layout cache there "
            f"({os.path.join(args.against, 'layouts')} does not exist)"
        )
    settings = RenderSettings()
    t0 = time.perf_counter()
    load0 = os.getloadavg()[0]

    def progress(n: int) -> None:
        if n % 100 == 0:
            print(
                f"render_all: {n} pages rendered, {time.perf_counter() - t0:.0f} s",
                file=sys.stderr,
                flush=True,
            )

    items = ((label, page) for label in args.sets for page in _pages(label, args.shared))
    res = render_pages(items, args.jobs, settings, args.cache, on_result=progress)
    wall = time.perf_counter() - t0
    total = 0
    for label in args.sets:
        r = res["sets"].get(label)
        if r is None:
            print(f"{label}: 0 pages")
            continue
        total += r["pages"]
        med_r, med_p = statistics.median(r["render_s"]), statistics.median(r["parse_s"])
        print(
            f"{label}: {r['pages']} pages, {len(r['failed'])} failed, "
            f"render median {1000 * med_r:.0f} ms, lxml parse median {1000 * med_p:.1f} ms, "
            f"ratio {med_r / med_p:.0f}x"
        )
        for pid, why in r["failed"]:
            print(f"  failed {pid}: {why}")
    peak = f"{res['peak_rss'] / 2**20:.0f} MiB" if res["peak_rss"] else "not measured (no psutil)"
    print(
        f"all: {total} pages in {wall:.0f} s wall on {args.jobs} processes "
        f"({browser_version()}; load average {load0:.1f} at start, "
        f"{os.getloadavg()[0]:.1f} at end; peak resident memory of this process, "
        f"the workers and their browsers {peak})"
    )
    print(memory_by_pages(res["rss_samples"], total))
    if args.against:
        print(compare_caches(args.cache, args.against))


#: differing layouts named by compare_caches
SHOWN_DIFFERENCES = 10


def compare_caches(root: str, other: str) -> str:
    """Lines: how many layouts the two cache roots both hold and how many of them differ, and
    the first SHOWN_DIFFERENCES of those (URL and where)."""
    mine, theirs = (LayoutCache(os.path.join(r, "layouts")) for r in (root, other))
    both = sorted(set(mine.keys()) & set(theirs.keys()))
    found = []
    for key in both:
        a, b = mine.get(key), theirs.get(key)
        if a is None or b is None:
            found.append((key, "an entry that does not validate"))
        elif (where := layout_difference(a, b)) is not None:
            found.append((a.url, where))
    lines = [f"against {other}: {len(both)} layouts in both caches, {len(found)} differ"]
    lines += [f"  {url}: {where}" for url, where in found[:SHOWN_DIFFERENCES]]
    return "\n".join(lines)


#: pages between two memory figures of the summary line
MEMORY_EVERY = 250


def memory_by_pages(samples: list[tuple[int, int]], total: int) -> str:
    """One line: the resident memory (MiB) of the last sample at each MEMORY_EVERY pages
    done, and the mean of the first and the last third of the samples (growth shows there)."""
    if not samples or not any(rss for _, rss in samples):
        return "memory by pages rendered: not measured (no psutil)"
    marks = []
    for mark in range(MEMORY_EVERY, total + 1, MEMORY_EVERY):
        before = [rss for n, rss in samples if n <= mark]
        if before:
            marks.append(f"{mark}: {before[-1] / 2**20:.0f}")
    third = max(1, len(samples) // 3)
    first, last = (
        sum(rss for _, rss in part) / len(part) / 2**20
        for part in (samples[:third], samples[-third:])
    )
    return (
        f"memory by pages rendered (MiB, this process, the workers and their browsers): "
        f"{', '.join(marks)}; mean of the first third of the {len(samples)} samples "
        f"{first:.0f}, of the last third {last:.0f}"
    )


if __name__ == "__main__":
    main()
