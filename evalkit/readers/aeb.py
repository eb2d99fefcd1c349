"""Reader for the Zyte (Scrapinghub) article-extraction-benchmark (Lopukhin et al., 2019).

181 news and blog articles: ``html/<id>.html.gz`` (gzip, UTF-8) and
``ground-truth.json`` mapping ``id -> {"articleBody": ..., "url": ...}``. The
``output/<system>.json`` files hold other extractors' published outputs; they
are read by the scorer that reproduces the benchmark's table, not here.

Departures: none in the data. The page id is the benchmark's own id (the
sha256 of the page); ``raw`` is the gunzipped HTML. A page's site is its URL's
host without ``www.`` (126 sites); pages come grouped by site, sites in the
order of their first id, each site's pages in id order (decided from the
ground truth before any page is read).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from pathlib import Path

from evalkit.core.domains import host_of, url_site
from evalkit.core.jsonfile import DataFileError, loads
from evalkit.core.method import param_names
from evalkit.core.page import Gold, Page, decode_gold, undecodable
from evalkit.readers.base import Dataset, FileTooLarge, group_by_site, read_capped

__all__ = ["AEBDataset", "read_ground_truth"]

_SUFFIX = ".html.gz"


def read_ground_truth(
    path: Path, max_bytes: int | None = None, root: Path | None = None
) -> dict[str, dict]:
    """The benchmark's ground truth, ``{id: {"articleBody": str, "url": str}}``.

    The file is decoded as every gold file is (:func:`evalkit.core.page.decode_gold`), so a
    copy saved as UTF-16 or with a byte-order mark reads the same. ``max_bytes``
    (``runner.max_gold_bytes``): a larger file is refused before it is read, as is one
    whose real path is outside ``root`` (the read gate, evalkit.core.capped).
    """
    try:
        raw = read_capped(path, max_bytes, "runner.max_gold_bytes", root)
    except FileTooLarge as exc:
        raise DataFileError(f"{path}: {exc}") from None
    data = loads(decode_gold(raw)[0], path)
    if not isinstance(data, dict):
        raise DataFileError(f"{path}: expected a JSON object mapping ids to records")
    return data


class AEBDataset(Dataset):
    """Article-extraction-benchmark pages with their ``articleBody`` gold."""

    fetch_hint = "fetch it with `python -m evalkit.readers.download scrapinghub-aeb`"

    def __init__(
        self,
        path: str | None = None,
        limit: int | None = None,
        html_dir: str = "html",
        ground_truth: str = "ground-truth.json",
        name: str = "aeb",
    ):
        super().__init__(path=path, limit=limit)
        self.html_dir = html_dir
        self.ground_truth = ground_truth
        self.name = name

    def get_params(self) -> dict:
        return {k: getattr(self, k) for k in param_names(type(self))}

    def _count_pages(self) -> int:
        return sum(
            1
            for f in (self.root() / self.html_dir).iterdir()
            if f.is_file() and f.name.endswith(_SUFFIX)
        )

    def _iter_pages(self) -> Iterator[Page]:
        root = self.root()
        truth = read_ground_truth(root / self.ground_truth, self.max_gold_bytes, root)
        files = {
            f.name[: -len(_SUFFIX)]: f
            for f in sorted((root / self.html_dir).iterdir())
            if f.is_file() and f.name.endswith(_SUFFIX)
        }
        for key in sorted(set(truth) - set(files)):
            self.skip(root / self.html_dir / f"{key}{_SUFFIX}", "ground truth without a page file")

        def site(key: str) -> str | None:
            return url_site((truth.get(key) or {}).get("url"))

        # by site before any page is read: the ids (sha256 of the page) scatter a site's pages
        for key in group_by_site(sorted(files), site):
            file = files[key]
            record = truth.get(key)
            if record is None:
                self.skip(file, "no ground-truth record for this page")
                continue
            try:  # its size and its decompressed size checked as it is read
                raw = self.read_page_file(file)
            except FileTooLarge as exc:
                self.skip(file, str(exc))
                continue
            except (OSError, EOFError, zlib.error) as exc:
                self.skip(file, f"not a readable gzip file ({exc})")
                continue
            if not raw.strip():
                self.skip(file, "empty page")
                continue
            text = (record.get("articleBody") or "").strip()
            reason = undecodable(text)
            if reason is not None:
                self.skip(file, f"unreadable ground truth: {reason}")
                continue
            url = record.get("url")
            yield Page(
                id=key,
                dataset=self.name,
                raw=raw,
                url=url,
                source=str(file),
                site=host_of(url),
                gold=Gold(text=text),
            )
