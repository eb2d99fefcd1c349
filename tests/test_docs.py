"""The docs inside the repository are the only documents the repository cites.

Two rules (issue 15, "Docs inside the repository"):

* no tracked file cites a document that lives outside the repository: the design notes
  that preceded docs/ (cited as "METHODS §1.4", "DESIGN.md §7", ".../shared/design/...")
  or local copies of the papers ("``000_...txt``", ".../shared/papers/..."); the papers
  are cited by author and year, and listed in docs/papers.md;
* every ``docs/<page>.md`` that a file cites exists, and every ``#anchor`` cited with it
  is the anchor of one of that page's headings (as GitHub makes them); relative links
  between Markdown files resolve too.
"""

from __future__ import annotations

import posixpath
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# The patterns are assembled from pieces so that this file does not match itself.
_NOTES = "(?:METHODS|DESIGN)"
EXTERNAL = re.compile(
    r"\b"
    + _NOTES
    + r"(?:\.md)?\s?§"  # a section of a design note
    + r"|\b"
    + _NOTES
    + r"\.md\b"  # a design note by file name
    + r"|\bMETHODS\s+(?:says|suggests|asks)\b"  # a design note as the subject of a sentence
    + r"|shared/"
    + r"(?:design|papers|checks)"  # the folders outside the repository
    + r"|\b00[0-4]_(?:\.\.\.|[0-9a-f]{16}\.)txt"  # a local copy of a paper
)
DOC_CITE = re.compile(r"(?<![\w./-])(?:\.\./)*(docs/[\w./-]+?\.md)(?:#([\w-]+))?")
MD_LINK = re.compile(r"\]\(([^)\s#]+\.md)(?:#([^)\s]+))?\)")
#: pages another branch of the same issue writes; checked as soon as they exist
PENDING = {"docs/floors.md"}


def tracked_texts() -> dict[str, str]:
    """Every tracked text file of the checkout (binary files such as figures left out)."""
    try:
        names = subprocess.run(
            ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    texts = {}
    for name in names:
        try:
            data = (ROOT / name).read_bytes()
        except OSError:
            continue  # deleted in the working tree
        if b"\0" in data[:8192]:
            continue
        texts[name] = data.decode("utf-8", errors="replace")
    return texts


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]{1,2}(?=\S)|(?<=\S)[`*_]{1,2}", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found, seen = set(), {}
    in_code = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if in_code or not line.startswith("#"):
            continue
        base = slug(line.lstrip("#"))
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def test_slug_follows_github():
    assert slug(" 3.1 Block separation") == "31-block-separation"
    assert slug(" kaur (word-count confusion)") == "kaur-word-count-confusion"
    assert (
        slug(" Downloads: capped, https only, nothing left behind")
        == "downloads-capped-https-only-nothing-left-behind"
    )
    assert slug(" Backends (`cfg.runner`)") == "backends-cfgrunner"


def test_the_pattern_catches_every_known_form_and_not_the_registry():
    cited = [
        "METHODS §1.4",
        "METHODS.md §2.3",
        "DESIGN §4",
        "(DESIGN.md §9)",
        "see METHODS.md",
        "../shared/" + "design/DESIGN.md",
        "METHODS suggests 40",
        "(``000_...txt``)",
        "/work/shared/" + "papers/001_89abed5d2aeae1c1.txt",
        "bash ../shared/" + "checks/trust-cache-key",
    ]
    fine = [
        "METHODS = Registry(",
        "evalkit/harness/registry.py METHODS",
        "OWN_METHODS §",
        "Saravanan & Sathya Bama (2020), §3.3",
        "docs/methods/proposed.md",
    ]
    assert [c for c in cited if not EXTERNAL.search(c)] == []
    assert [f for f in fine if EXTERNAL.search(f)] == []


def test_no_file_cites_a_document_outside_the_repository():
    hits = [
        f"{name}:{no}: {line.strip()}"
        for name, text in tracked_texts().items()
        if name != "tests/test_docs.py"
        for no, line in enumerate(text.splitlines(), 1)
        if EXTERNAL.search(line)
    ]
    assert hits == [], "citations of documents outside the repository:\n" + "\n".join(hits)


def test_every_cited_docs_page_and_anchor_exists():
    missing = []
    cache: dict[str, set[str]] = {}
    for name, text in tracked_texts().items():
        for no, line in enumerate(text.splitlines(), 1):
            for m in DOC_CITE.finditer(line):
                page, anchor = m.group(1), m.group(2)
                if not (ROOT / page).is_file():
                    if page not in PENDING:
                        missing.append(f"{name}:{no}: {page} does not exist")
                    continue
                if anchor and anchor not in cache.setdefault(page, anchors(ROOT / page)):
                    missing.append(f"{name}:{no}: {page} has no heading #{anchor}")
    assert missing == [], "\n".join(missing)


def test_relative_links_between_markdown_pages_resolve():
    missing = []
    cache: dict[Path, set[str]] = {}
    for name, text in tracked_texts().items():
        if not name.endswith(".md") or name.startswith("results/"):
            continue
        for no, line in enumerate(text.splitlines(), 1):
            for m in MD_LINK.finditer(line):
                target, anchor = m.group(1), m.group(2)
                if "://" in target:
                    continue
                rel = posixpath.normpath(posixpath.join(posixpath.dirname(name), target))
                path = ROOT / rel
                if not path.is_file():
                    if rel not in PENDING:
                        missing.append(f"{name}:{no}: {target} does not exist")
                    continue
                if anchor and anchor not in cache.setdefault(path, anchors(path)):
                    missing.append(f"{name}:{no}: {target} has no heading #{anchor}")
    assert missing == [], "\n".join(missing)


# ---------------------------------------------------------------- names the docs cite exist

#: a file of the repository named in a doc: `evalkit/core/page.py`, `configs/method/cetd.yaml`
FILE_CITE = re.compile(
    r"`((?:evalkit|baselines|configs|tests|experiments|datasets|results)"
    r"/[\w./-]*\.(?:py|yaml|json|csv|md))`"
)
#: a module of evalkit named in a doc: `evalkit.core.page`, `evalkit.metrics.prepare_gold`
MODULE_CITE = re.compile(r"(?<![\w.\"])(evalkit(?:\.\w+)+)")
#: files of a user's own config folder that the docs show as examples
EXAMPLES = {"mine", "mytool"}
#: names that look like modules but are not: the cache entries' format names (docs/cache.md)
NOT_MODULES = {"evalkit.extraction", "evalkit.scores"}


def _doc_pages() -> dict[str, str]:
    pages = {"README.md": (ROOT / "README.md").read_text(encoding="utf-8")}
    for path in sorted((ROOT / "docs").rglob("*.md")):
        pages[path.relative_to(ROOT).as_posix()] = path.read_text(encoding="utf-8")
    return pages


def test_every_file_the_docs_name_exists():
    missing = sorted(
        {
            (page, f)
            for page, text in _doc_pages().items()
            for f in FILE_CITE.findall(text)
            if "<" not in f
            and "*" not in f
            and Path(f).stem not in EXAMPLES
            and not (ROOT / f).exists()
        }
    )
    assert not missing, missing


def _resolves(dotted: str) -> bool:
    """``evalkit.a.b.c``: a module, or an attribute of the longest module prefix."""
    import importlib

    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:]:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


def test_every_module_and_name_the_docs_cite_exists():
    # an installed wheel's names (evalkit.baselines.x, evalkit.configs) exist only there
    wheel = ("evalkit.baselines", "evalkit.configs", "evalkit.datasets")
    missing = sorted(
        {
            (page, name)
            for page, text in _doc_pages().items()
            for name in {m.rstrip(".") for m in MODULE_CITE.findall(text)}
            if not name.startswith(wheel) and name not in NOT_MODULES and not _resolves(name)
        }
    )
    assert not missing, missing


def test_metrics_md_lists_every_metric_family():
    from evalkit.metrics import FAMILIES

    text = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    listed = re.search(r"family: `([\w, ]+)`", text).group(1).split(", ")
    assert listed == [f.name for f in FAMILIES]
