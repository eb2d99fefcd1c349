"""The pip constraints file that pins the environment the reference was made in.

``results/reference/constraints.txt`` lists, as ``name==version``, every installed
distribution that evalkit's core dependencies and its ``dev`` extra pull in (the whole
requirement closure, read from the installed metadata; ``dev`` names the other extras,
``evalkit[peers,dask,launchers,render,bench]``, which are followed): the peers, lxml, numpy,
pandas, scikit-learn, scipy, datasketch, xxhash, charset-normalizer and everything under
them (htmldate, courlan, ... for trafilatura), the benchmarks' scorers (nltk and its Punkt
model, jieba), and the test and lint tools. Any of these can move a number or a verdict:
on a fresh machine nltk, which floated, moved WCEB's sentences (issue 42). So all are
pinned, and ``tests/test_constraints.py`` fails when one the ``dev`` extra installs is
missing. :func:`pins` reads them from the running interpreter and the reference tool writes
the file each time it regenerates, so the file cannot disagree with what made the numbers.
``pip install -c results/reference/constraints.txt`` reproduces the environment.
"""

from __future__ import annotations

import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

__all__ = ["libxml2_version", "pins", "read_constraints", "render", "root_requirements"]

#: the extra of pyproject.toml whose closure is pinned: what the README's test command installs
PINNED_EXTRAS = ("dev",)


def root_requirements(pyproject: str | Path) -> list[Requirement]:
    """evalkit's core dependencies and those of :data:`PINNED_EXTRAS`, from pyproject.toml;
    an extra that names evalkit's own extras (``evalkit[peers,bench]``) brings theirs."""
    project = tomllib.loads(Path(pyproject).read_text(encoding="utf-8"))["project"]
    extras = project.get("optional-dependencies", {})
    specs = list(project.get("dependencies", []))
    todo, seen = list(PINNED_EXTRAS), set()
    while todo:
        extra = todo.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for spec in extras.get(extra, []):
            req = Requirement(spec)
            if canonicalize_name(req.name) == canonicalize_name(project["name"]):
                todo += sorted(req.extras)
            else:
                specs.append(spec)
    return [Requirement(s) for s in specs]


def _applies(req: Requirement, extras: set[str]) -> bool:
    if req.marker is None:
        return True
    # a requirement applies when its marker holds for no extra or for one we asked for
    return any(req.marker.evaluate({"extra": e}) for e in ({""} | extras))


def pins(roots: list[Requirement]) -> dict[str, str]:
    """``{canonical name: installed version}`` of the installed closure of ``roots``.

    A requirement that is not installed is left out (a peer missing here is
    reported by the check, not pinned to a guess); evalkit itself never appears.
    """
    out: dict[str, str] = {}
    todo = [(r, set(r.extras)) for r in roots if _applies(r, set())]
    while todo:
        req, extras = todo.pop()
        name = canonicalize_name(req.name)
        if name == "evalkit":
            continue
        try:
            dist = metadata.distribution(req.name)
        except metadata.PackageNotFoundError:
            continue
        seen = name in out
        out[name] = dist.version
        if seen and not extras:
            continue
        for spec in dist.requires or []:
            sub = Requirement(spec)
            if _applies(sub, extras):
                todo.append((sub, set(sub.extras)))
    return dict(sorted(out.items()))


def libxml2_version() -> str:
    """The libxml2 that lxml runs on (bundled in lxml's wheels, so pinned through lxml)."""
    from lxml import etree

    return ".".join(map(str, etree.LIBXML_VERSION))


def render(pinned: dict[str, str], made: str) -> str:
    """The constraints file's text: a header saying what it is, then one ``name==version``."""
    head = [
        "# Versions the committed reference (results/reference/) was made with.",
        "# Written by `python -m evalkit.reference` from the installed packages each time it",
        "# regenerates; do not edit by hand. Install with",
        "#   python -m pip install -e . -c results/reference/constraints.txt",
        f"# made {made}; Python {sys.version.split()[0]}; libxml2 {libxml2_version()} (inside lxml)",
    ]
    return "\n".join(head + [f"{n}=={v}" for n, v in pinned.items()]) + "\n"


def read_constraints(path: str | Path) -> dict[str, str]:
    """``{canonical name: version}`` from a constraints file ({} when it does not exist)."""
    path = Path(path)
    if not path.is_file():
        return {}
    out = {}
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        if not sep or not name.strip() or not version.strip():
            raise ValueError(f"{path}:{lineno}: expected name==version, got {line!r}")
        out[canonicalize_name(name.strip())] = version.strip()
    return out
