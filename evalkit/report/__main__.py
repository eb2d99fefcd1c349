"""``python -m evalkit.report RUN_DIR [--pages all|N] [--seed S]``: rebuild a run's report.html.

Reads the run folder only (report_sections.json, run.json, per_page.csv and the kept
extractions, extractions.jsonl.gz); runs no method. ``--pages all`` embeds every page in the
page browser (the file grows with the run), ``--pages N`` at most N.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from evalkit.report.build import write_html
from evalkit.report.pages import DEFAULT_MAX_PAGES
from evalkit.report.store import SECTIONS_FILE, load_sections


def _pages(value: str) -> int | None:
    if value == "all":
        return None
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--pages must be 'all' or a whole number, got {value!r}")
    if n < 1:
        raise argparse.ArgumentTypeError(f"--pages must be at least 1, got {n}")
    return n


def main(argv: list[str] | None = None) -> int:
    from evalkit.core.terminal import guard_console

    guard_console()  # data's control characters are shown, never obeyed

    parser = argparse.ArgumentParser(
        prog="python -m evalkit.report", description="Rebuild report.html of a run folder."
    )
    parser.add_argument("run_dir", type=Path)
    parser.add_argument(
        "--pages",
        type=_pages,
        default=DEFAULT_MAX_PAGES,
        help=f"'all' or the most pages to embed (default {DEFAULT_MAX_PAGES})",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed of the page sample (default: the run's seed, run.json)",
    )
    args = parser.parse_args(argv)
    sections_file = args.run_dir / SECTIONS_FILE
    if not sections_file.exists():
        print(
            f"evalkit.report: {sections_file} not found (a run folder of this evalkit version "
            "holds it)",
            file=sys.stderr,
        )
        return 2
    try:
        title, sections = load_sections(sections_file)
    except ValueError as exc:
        print(f"evalkit.report: {exc}", file=sys.stderr)
        return 2
    seed = args.seed
    if seed is None:
        try:
            seed = int(json.loads((args.run_dir / "run.json").read_text()).get("seed", 0))
        except (OSError, ValueError, TypeError):
            seed = 0
    path = write_html(args.run_dir, sections, title, args.pages, seed)
    print(f"evalkit.report: wrote {path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
