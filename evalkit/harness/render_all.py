"""``python -m evalkit.harness.render_all [--jobs N] [--cache DIR] SET...``: render every page of
the named data sets (configs/dataset names) with N worker processes, one browser each, and
print pages, failures and seconds (docs/rendering.md#measured; the numbers are in the speed
experiment's README)."""

from __future__ import annotations

import os
import time
from typing import Any

from evalkit.core.page import parse_html
from evalkit.core.rendered import RenderSettings
from evalkit.harness.render import RenderError, browser_version, layout_for, renderer

__all__ = ["main"]


def _render_set(args) -> dict[str, Any]:
    """Render every page of one data set (one worker process, one browser): wall seconds per
    page, the lxml parse seconds of the same pages, failures."""
    label, settings, cache_root, shared = args
    from hydra import compose, initialize_config_dir

    from evalkit.harness.config import CONFIG_DIR, build_datasets, register_resolvers

    register_resolvers()
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(config_name="config", overrides=[
            f"dataset={label}", f"paths.shared_data={shared}", "method=[fulltext]"])
    (ds,) = build_datasets(cfg).values()
    out = {"dataset": label, "pages": 0, "failed": [], "render_s": [], "parse_s": []}
    for page in ds.pages():
        t0 = time.perf_counter()
        parse_html(page.html)
        out["parse_s"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        try:
            layout_for(page, settings, cache_root)
        except RenderError as exc:
            out["failed"].append((page.id, str(exc)))
        out["render_s"].append(time.perf_counter() - t0)
        out["pages"] += 1
    renderer().kill()
    return out


def main(argv: list[str] | None = None) -> None:
    """The command of the module docstring."""
    import argparse
    import multiprocessing
    import statistics

    ap = argparse.ArgumentParser(prog="python -m evalkit.harness.render_all")
    ap.add_argument("sets", nargs="+")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cache", default=None, help="layout cache root (default: none)")
    ap.add_argument("--shared", default=os.environ.get("EVALKIT_SHARED_DATA",
                                                      "/work/shared/datasets"))
    args = ap.parse_args(argv)
    settings = RenderSettings()
    t0 = time.perf_counter()
    load0 = os.getloadavg()[0]
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        results = pool.map(_render_set, [(s, settings, args.cache, args.shared)
                                         for s in args.sets], chunksize=1)
    wall = time.perf_counter() - t0
    total = sum(r["pages"] for r in results)
    for r in results:
        med_r = statistics.median(r["render_s"]) if r["render_s"] else float("nan")
        med_p = statistics.median(r["parse_s"]) if r["parse_s"] else float("nan")
        print(f"{r['dataset']}: {r['pages']} pages, {len(r['failed'])} failed, "
              f"render median {1000 * med_r:.0f} ms, lxml parse median {1000 * med_p:.1f} ms, "
              f"ratio {med_r / med_p:.0f}x")
        for pid, why in r["failed"]:
            print(f"  failed {pid}: {why}")
    print(f"all: {total} pages in {wall:.0f} s wall on {args.jobs} processes "
          f"({browser_version()}; load average {load0:.1f} at start, "
          f"{os.getloadavg()[0]:.1f} at end)")



if __name__ == "__main__":
    main()
