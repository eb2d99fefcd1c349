"""Results quoted in the docs, generated from the committed reference (issue 38).

A number or table that README.md, an experiment's README or a docs page quotes from a run is
a marked block whose body this module writes from ``results/reference/``::

    <!-- evalkit:results saravanan2020/tables/saravanan2020_table6_synthetic.md -->
    | pages | method (ours) | ... |
    <!-- /evalkit:results -->

    about <!-- evalkit:results all_synthetic/run.json:wall_seconds -->42.7 s<!-- /evalkit:results -->

The source names a file under ``results/reference/`` (never outside it):

* ``ENTRY/tables/NAME.md``: the table's rows (its lines that start with ``|``), on lines of
  their own between the markers;
* ``ENTRY/run.json:KEY`` (``KEY`` may be dotted: ``render.render_seconds``): the value inline,
  a ``*_seconds`` key as ``42.7 s``;
* ``ENTRY/summary.csv:DATASET,METHOD,METRIC``: the value inline, three decimals.

``python -m evalkit.harness.docs_results --write`` rewrites every block of :data:`DOCS`;
``--check`` rewrites nothing and lists each block that differs (exit 1), as
``tests/test_docs_results.py`` does. After ``python -m evalkit.reference`` regenerates an
entry, ``--write`` carries its numbers into the docs.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path

import pandas as pd

from evalkit.harness.config import project_root

__all__ = ["BLOCK", "DOCS", "DocsResultsError", "check", "render", "rewrite", "write"]

#: the files whose blocks are generated, as globs under the checkout
DOCS = ("README.md", "experiments/*/README.md", "docs/*.md", "docs/*/*.md", "datasets/README.md")
BLOCK = re.compile(
    r"<!-- evalkit:results (?P<source>\S+) -->(?P<body>.*?)"
    r"<!-- /evalkit:results -->",
    re.DOTALL,
)


class DocsResultsError(ValueError):
    """A block whose source cannot be read: one line naming the doc and the source."""


def _reference(root: Path) -> Path:
    return root / "results" / "reference"


def _file(source: str, root: Path) -> tuple[Path, str]:
    name, _, key = source.partition(":")
    base = _reference(root).resolve()
    path = (base / name).resolve()
    if not path.is_relative_to(base) or not path.is_file():
        raise DocsResultsError(f"no file {name} under results/reference/")
    return path, key


def _number(value) -> str:
    if isinstance(value, (bool, int)) or not isinstance(value, float):
        return str(value)
    return "-" if math.isnan(value) else f"{value:.3f}"


def render(source: str, root: Path | None = None) -> str:
    """The body of a block of ``source`` (module docstring), from the reference of ``root``."""
    root = Path(root or project_root())
    path, key = _file(source, root)
    if path.suffix == ".md" and not key:
        rows = [
            line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("|")
        ]
        if not rows:
            raise DocsResultsError(f"{source} holds no table")
        return "\n" + "\n".join(rows) + "\n"
    if path.name == "run.json" and key:
        value = json.loads(path.read_text(encoding="utf-8"))
        for part in key.split("."):
            if not isinstance(value, dict) or part not in value:
                raise DocsResultsError(f"{source}: run.json has no {key}")
            value = value[part]
        if key.endswith("seconds") and isinstance(value, (int, float)):
            return f"{value:.1f} s"
        return _number(value)
    if path.suffix == ".csv" and key.count(",") == 2:
        dataset, method, metric = key.split(",")
        df = pd.read_csv(path, dtype={"dataset": str, "method": str, "metric": str})
        hit = df[(df["dataset"] == dataset) & (df["method"] == method) & (df["metric"] == metric)]
        if hit.empty:
            raise DocsResultsError(f"{source}: no row {key}")
        return _number(float(hit["value"].iloc[0]))
    raise DocsResultsError(
        f"{source}: a source is ENTRY/tables/NAME.md, ENTRY/run.json:KEY "
        "or ENTRY/summary.csv:DATASET,METHOD,METRIC"
    )


def rewrite(text: str, root: Path | None = None, doc: str = "<text>") -> tuple[str, list[str]]:
    """``text`` with every block's body generated, and one line per block that differed."""
    differ: list[str] = []

    def one(m: re.Match) -> str:
        source = m.group("source")
        try:
            body = render(source, root)
        except DocsResultsError as exc:
            raise DocsResultsError(f"{doc}: {exc}") from None
        if body != m.group("body"):
            differ.append(f"{doc}: block {source} differs from results/reference/")
        return f"<!-- evalkit:results {source} -->{body}<!-- /evalkit:results -->"

    return BLOCK.sub(one, text), differ


def _docs(root: Path) -> list[Path]:
    return sorted({p for pattern in DOCS for p in root.glob(pattern) if p.is_file()})


def check(root: Path | None = None) -> list[str]:
    """One line per block of the docs that differs from the reference (nothing written)."""
    root = Path(root or project_root())
    out: list[str] = []
    for path in _docs(root):
        out += rewrite(path.read_text(encoding="utf-8"), root, str(path.relative_to(root)))[1]
    return out


def write(root: Path | None = None) -> list[Path]:
    """Rewrite every block of the docs from the reference; the files that changed."""
    root = Path(root or project_root())
    changed = []
    for path in _docs(root):
        text = path.read_text(encoding="utf-8")
        new, differ = rewrite(text, root, str(path.relative_to(root)))
        if differ:
            path.write_text(new, encoding="utf-8")
            changed.append(path)
    return changed


def main(argv: list[str] | None = None) -> int:
    from evalkit.core.terminal import guard_console

    guard_console()  # data's control characters are shown, never obeyed

    parser = argparse.ArgumentParser(
        prog="python -m evalkit.harness.docs_results",
        description="Generate the results quoted in the docs from results/reference/.",
    )
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite every block")
    mode.add_argument("--check", action="store_true", help="list the blocks that differ")
    args = parser.parse_args(argv)
    root = project_root()
    if root is None:
        print(
            "evalkit.docs_results: needs a checkout (README.md and results/reference/)",
            file=sys.stderr,
        )
        return 2
    try:
        if args.write:
            for path in write(root):
                print(f"evalkit.docs_results: rewrote {path.relative_to(root)}")
            return 0
        lines = check(root)
    except DocsResultsError as exc:
        print(f"evalkit.docs_results: {exc}", file=sys.stderr)
        return 2
    for line in lines:
        print(f"evalkit.docs_results: {line}", file=sys.stderr)
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
