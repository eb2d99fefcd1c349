"""Reader for WebMainBench's pages (OpenDataLab 2025; GitHub ``opendatalab/WebMainBench``, Apache-2.0).

WebMainBench ships its pages as JSON lines: the page's ``html``, its ``url`` and the gold as
Markdown (``groundtruth_content``). The full benchmark (7,809 pages) is on a model hub this
machine cannot reach; its repository ships six sample pages (``webmainbench-sample``:
``sample_dataset.jsonl`` and ``WebMainBench_dataset_sample2.jsonl``, each also ``.gz``). A
page carries:

* ``id``: the line's ``track_id`` (else ``id``); ``url``; ``site``: the URL's host.
* ``gold.markdown``: ``groundtruth_content``, read by the structure metrics with the parser
  that reads every Markdown (evalkit.core.elements); ``gold.text``: its elements' texts, one
  per line (:func:`evalkit.core.elements.markdown_text`). **Departure**: WebMainBench scores
  the Markdown itself (evalkit.metrics.webmainbench); evalkit's word metrics need a text.
* ``category``: the page's ``meta.level`` (v1.1: simple, mid, hard) or ``layout_type``.

A line without ``html`` or gold is skipped with the file and line named; the files are read
through the read gate (inside the folder, regular, size-capped before reading).
"""

from __future__ import annotations

from collections.abc import Iterator

from evalkit.core.domains import host_of
from evalkit.core.elements import markdown_text
from evalkit.core.jsonfile import DataFileError, loads
from evalkit.core.method import param_names
from evalkit.core.page import Gold, Page
from evalkit.core.validate import check_str_list
from evalkit.readers.base import Dataset

__all__ = ["FILES", "WebMainBenchDataset"]

#: the sample files the repository ships, read in this order (each plain or ``.gz``)
FILES = ("sample_dataset.jsonl", "WebMainBench_dataset_sample2.jsonl")


class WebMainBenchDataset(Dataset):
    """WebMainBench pages with their Markdown gold (module docstring)."""

    fetch_hint = "see datasets/README.md, webmainbench-sample, for where to fetch it"

    def __init__(
        self,
        path: str | None = None,
        limit: int | None = None,
        files: tuple[str, ...] = FILES,
        name: str = "webmainbench",
    ):
        super().__init__(path=path, limit=limit)
        check_str_list("files", list(files))
        self.files = tuple(files)
        self.name = name

    def get_params(self) -> dict:
        return {k: getattr(self, k) for k in param_names(type(self))}

    def _records(self) -> Iterator[tuple[str, int, dict]]:
        root = self.root()
        for name in self.files:
            path = next((root / n for n in (name, f"{name}.gz") if (root / n).is_file()), None)
            if path is None:
                self.skip(root / name, "no such file (plain or .gz)")
                continue
            raw = self.read_gold_file(path)
            for number, line in enumerate(raw.decode("utf-8").split("\n"), 1):
                if not line.strip():
                    continue
                try:
                    rec = loads(line, f"{path}:{number}")
                except DataFileError as exc:
                    self.skip(path, str(exc))
                    continue
                if isinstance(rec, dict):
                    yield str(path), number, rec
                else:
                    self.skip(path, f"line {number}: not a JSON object")

    def _count_pages(self) -> int:
        return sum(1 for _ in self._records())

    def _iter_pages(self) -> Iterator[Page]:
        for path, number, rec in self._records():
            html, gold = rec.get("html"), rec.get("groundtruth_content")
            key = rec.get("track_id") or rec.get("id")
            if not (isinstance(html, str) and html.strip() and isinstance(gold, str) and key):
                self.skip(path, f"line {number}: no html, groundtruth_content or id")
                continue
            meta = rec.get("meta") if isinstance(rec.get("meta"), dict) else {}
            url = rec.get("url") if isinstance(rec.get("url"), str) else None
            yield Page(
                id=str(key),
                dataset=self.name,
                raw=html.encode("utf-8", "surrogatepass"),
                html=html,  # already text (JSON): never decoded again by a charset it declares
                encoding="utf-8",
                encoding_source="json",
                url=url,
                source=f"{path}:{number}",
                site=host_of(url),
                gold=Gold(
                    text=markdown_text(gold),
                    markdown=gold,
                    category=meta.get("level") or rec.get("layout_type"),
                    extra={"language": meta.get("language")},
                ),
            )
