"""A folder of pages as a data set, on the command line as in the Python API (issue 29).

``evalkit dataset=path/to/pages`` reads the folder with the ``pairs`` reader, as
``evalkit.evaluate(dataset="path/to/pages")`` does: pages and gold in ``html/`` and
``gold/``, or side by side. A folder of crawl files (``*.warc.gz`` or ``*.warc`` inside it,
no ``html/``) is read with the ``warc`` reader instead (``evalkit experiment=crawl
dataset=path/to/crawl``). :func:`folder_overrides` is the one translation both use;
:func:`path_overrides` applies it to a command line before Hydra reads it (a folder is
no option of the ``dataset`` group, which Hydra would refuse).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = ["WARC_PATTERNS", "folder_label", "folder_overrides", "is_folder", "path_overrides"]

#: the file name patterns that make a folder a crawl (the warc reader's ``files``), in order
WARC_PATTERNS = ("*.warc.gz", "*.warc")


def _quote(text: str) -> str:
    tail = len(text) - len(text.rstrip("\\"))  # Hydra: a backslash escapes only a quote
    text = text + "\\" * tail
    return "'" + text.replace("'", "\\'") + "'"


def is_folder(value: str, names: list[str]) -> bool:
    """Whether a ``dataset=`` value names a folder rather than a configured set."""
    if value in names:
        return False
    return Path(value).expanduser().is_dir() or os.sep in value


def folder_label(folder: Path) -> str:
    """The data set's name in the tables: the folder's name as a config key."""
    return re.sub(r"\W+", "_", folder.name).strip("_").lower() or "pages"


def folder_overrides(label: str, source: str | os.PathLike) -> list[str]:
    """The overrides that add folder ``source`` as data set ``label``: the ``warc`` reader
    for a folder of WARC files, else the ``pairs`` reader."""
    folder = Path(source).expanduser().resolve()
    path = f"++dataset.{label}.path={_quote(str(folder))}"
    if not (folder / "html").is_dir():
        crawl = next((p for p in WARC_PATTERNS if any(folder.glob(p))), None)
        if crawl is not None:  # WARC files: the warc reader, without gold
            return [f"++dataset.{label}._name_=warc", path, f"++dataset.{label}.files='{crawl}'"]
    out = [f"++dataset.{label}._name_=pairs", path]
    if not (folder / "html").is_dir():  # pages and gold side by side
        out += [f"++dataset.{label}.html_dir=.", f"++dataset.{label}.gold_dir=."]
    return out


def _values(text: str) -> list[str] | None:
    """The items of ``a`` or ``[a,b]`` (plain or quoted, no nesting); None otherwise."""
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        items = [t.strip() for t in text[1:-1].split(",") if t.strip()]
    else:
        items = [text]
    out = []
    for item in items:
        if len(item) >= 2 and item[0] == item[-1] and item[0] in "'\"":
            item = item[1:-1]
        out.append(item)
    return out


def path_overrides(argv: list[str], names: list[str]) -> list[str]:
    """``argv`` with a ``dataset=`` override that names folders turned into the ``pairs``
    overrides of :func:`folder_overrides` (the configured sets in it are kept)."""
    out: list[str] = []
    for arg in argv:
        if not arg.startswith("dataset=") or arg.startswith("dataset=="):
            out.append(arg)
            continue
        values = _values(arg[len("dataset=") :])
        if not values or not any(is_folder(v, names) for v in values):
            out.append(arg)
            continue
        chosen, adds, taken = [], [], set(names)
        for value in values:
            if not is_folder(value, names):
                chosen.append(value)
                continue
            label = base = folder_label(Path(value).expanduser().resolve())
            n = 1
            while label in taken:
                n += 1
                label = f"{base}_{n}"
            taken.add(label)
            adds += folder_overrides(label, value)
        out.append(f"dataset=[{','.join(chosen)}]")
        out += adds
    return out
