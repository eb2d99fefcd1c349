"""Reader for trafilatura's evaluation set (Barbaresi; GitHub ``adbar/trafilatura``, Apache-2.0).

``evaldata.json`` maps each document's URL to ``{"file": ..., "with": [...], "without":
[...]}``: the HTML file (looked up in ``eval/`` then ``cache/``, plain or as ``<file>.gz``)
and the text segments a right extraction must contain (``with``) or must not (``without``).
990 documents, 2,951 + 2,966 segments. A page carries:

* ``id``: the ``file`` name (unique in the set); ``url``: the key; ``site``: its host
  without ``www.``; ``raw``: the file's bytes (gunzipped), decoded by evalkit as every page is.
* ``gold.extra``: ``with`` and ``without``, the benchmark's whole gold.
* gold text: the ``with`` segments, one per line. **Departure**: the set has no main-text
  gold; this stand-in only lets evalkit's own text metrics run, and scores under them are
  not the benchmark's (its metric is :mod:`evalkit.metrics.snippets`, read by
  ``study=trafilatura_eval``).

A document whose file is in neither folder is skipped with the file named. Pages come
grouped by site, in file-name order otherwise.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from evalkit.core.domains import host_of, url_site
from evalkit.core.method import param_names
from evalkit.core.page import Gold, Page
from evalkit.core.validate import ParamError
from evalkit.readers.base import Dataset, Refused, group_by_site, inside, read_json

__all__ = ["TrafilaturaEvalDataset", "read_evaldata"]


def read_evaldata(path: Path, root: Path | None = None) -> dict[str, dict]:
    """``evaldata.json`` (plain or gzipped, inside ``root``), checked: URL -> file, with,
    without."""
    data = read_json(path, root=root)
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object mapping URLs to documents")  # noqa: TRY004 - bad data
    for url, item in data.items():
        if not (
            isinstance(item, dict)
            and isinstance(item.get("file"), str)
            and all(isinstance(item.get(k, []), list) for k in ("with", "without"))
        ):
            raise ValueError(
                f"{path}: the entry of {url!r} needs 'file' and the lists 'with' and 'without'"
            )
    return data


class TrafilaturaEvalDataset(Dataset):
    """trafilatura's evaluation documents with their ``with``/``without`` segments."""

    fetch_hint = "see datasets/README.md, trafilatura-eval, for where to fetch it"

    def __init__(
        self,
        path: str | None = None,
        limit: int | None = None,
        evaldata: str = "evaldata.json",
        folders: tuple[str, ...] = ("eval", "cache"),
        name: str = "trafilatura_eval",
    ):
        super().__init__(path=path, limit=limit)
        if isinstance(folders, str) or not all(isinstance(f, str) for f in folders):
            raise ParamError("folders", folders, "must be a list of folder names")
        self.evaldata = evaldata
        self.folders = tuple(folders)
        self.name = name

    def get_params(self) -> dict:
        return {k: getattr(self, k) for k in param_names(type(self))}

    def _find(self, root: Path, file: str) -> Path | None:
        """The page file ``file`` names in one of the folders; a name that is absolute or
        climbs out (``..``) is :class:`Refused` (data names files inside its folder only)."""
        for folder in self.folders:
            for name in (file, f"{file}.gz"):
                cand = inside(root / folder, name, "file name in evaldata")
                if cand.is_file():
                    return cand
        return None

    def _count_pages(self) -> int:
        return len(read_evaldata(self.root() / self.evaldata, self.root()))

    def _iter_pages(self) -> Iterator[Page]:
        root = self.root()
        data = read_evaldata(root / self.evaldata, root)
        by_file = {item["file"]: url for url, item in data.items()}
        for file in group_by_site(sorted(by_file), lambda f: url_site(by_file[f])):
            url = by_file[file]
            item = data[url]
            try:
                where = self._find(root, file)
            except Refused as exc:
                self.skip(root / self.evaldata, str(exc))
                continue
            if where is None:
                self.skip(
                    root / self.folders[0] / file,
                    f"page file not found in {', '.join(self.folders)}",
                )
                continue
            raw = self.page_or_skip(where)  # size capped before reading, .gz too
            if raw is None:
                continue
            with_, without = list(item.get("with") or []), list(item.get("without") or [])
            yield Page(
                id=file,
                dataset=self.name,
                raw=raw,
                url=url,
                source=str(where),
                site=host_of(url),
                gold=Gold(text="\n".join(with_), extra={"with": with_, "without": without}),
            )
