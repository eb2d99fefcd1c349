"""Score records cached beside the extractions (docs/cache.md).

A warm re-run of the same config used to re-score every (page, method): 0.79 x the cold
run, most of it alignment and metrics over extractions already on disk. The score record
of an extraction is as fixed as the extraction once the scorer's code and parameters
are: so it is cached too, keyed by the scorer (the source of its import closure, its
arguments, the packages that closure imports), the page and the extraction's digest.
A new or edited metric changes the scorer key and re-scores from the cached extractions.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evalkit.core.page import Extraction, Page
from evalkit.harness import cache_entry
from evalkit.harness.cache import read_entry, write_atomic
from evalkit.harness.cache_keys import _runtime, distribution_versions, page_key, source_tree
from evalkit.harness.cache_seal import cache_seal
from evalkit.harness.errors import RunnerError, cache_write_line
from evalkit.harness.score_limits import ScoreWriteError

__all__ = ["SCORES_DIR", "ScoreCache", "cached_scorer", "scorer_key"]

#: the folder under the cache root that holds score records
SCORES_DIR = "scores"
SCORE_FORMAT = "evalkit.scores"
SCORE_VERSION = 1
_SCALARS = (str, int, float, bool, type(None))


@functools.cache
def _scorer_key(module: str, name: str, args: str) -> str:
    tree = source_tree()
    project, outside = tree.closure([module])
    blob = json.dumps(
        [
            module,
            name,
            args,
            {m: tree.digest(m) for m in sorted(project)},
            distribution_versions(outside),
            _runtime(),
        ],
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def scorer_key(score: Callable) -> str | None:
    """What can change a scorer's records: its module's import closure (source digests), its
    name, its bound arguments (a ``functools.partial``'s) and the outside packages. None
    for a scorer outside the project's packages (a test's or a notebook's function,
    whose source the key cannot follow): such a scorer is never cached."""
    args: tuple = ()
    keywords: dict = {}
    func = score
    while isinstance(func, functools.partial):
        args, keywords = func.args + args, {**func.keywords, **keywords}
        func = func.func
    module, name = getattr(func, "__module__", None), getattr(func, "__qualname__", "")
    if not module or not source_tree().is_project(module) or "<" in name:
        return None
    return _scorer_key(module, name, json.dumps([args, keywords], sort_keys=True, default=repr))


class ScoreCache:
    """A scorer (``score(page, label, ext) -> record``) whose records are cached under
    ``<root>/scores/``: a record is read back for the same scorer key, page key, method label
    and extraction digest, so a warm re-run re-scores nothing and parses no page.

    Entries are JSON files ``<key>.score`` (``{"format", "version", "key", "sha256", "mac",
    "record"}``), checked like
    extraction entries: a record that is not a flat object of JSON scalars, or whose
    checksum, key or HMAC (the cache's own key, evalkit.harness.cache_seal) does not match,
    is a miss (counted in ``invalid``) and is rescored
    and rewritten. Records with a value that is not a JSON scalar are not cached.
    """

    #: not ``.json``: tools and tests that count extraction entries (``*.json``) skip these
    SUFFIX = ".score"

    def __init__(self, score: Callable, root: str | os.PathLike, key: str):
        self.score = score
        self.root = Path(root) / SCORES_DIR
        self.seal = cache_seal(root)  # records carry its HMAC: a forged one is a miss
        self.key = key
        self.invalid = 0
        self._page: Page | None = None
        self._page_part = ""

    def _key(self, page: Page, label: str, ext: Extraction) -> str | None:
        try:
            ext_digest = cache_entry.digest(ext)
        except TypeError:
            return None
        if page is not self._page:  # a page's methods are scored one after another
            self._page, self._page_part = page, _scored_page_key(page)
        blob = f"{self.key}|{self._page_part}|{label}|{ext_digest}"
        return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()

    def __call__(self, page: Page, label: str, ext: Extraction) -> dict[str, Any]:
        key = self._key(page, label, ext)
        if key is None:
            return self.score(page, label, ext)
        path = self.root / key[:2] / f"{key}{self.SUFFIX}"
        try:
            rec = self._read(path, key)
        except RunnerError as exc:  # a key file that cannot be trusted: one line, not a
            raise ScoreWriteError(str(exc)) from None  # scoring failure on every page
        if rec is not None:
            return rec
        rec = self.score(page, label, ext)
        self._write(path, key, rec)
        return rec

    def _read(self, path: Path, key: str) -> dict[str, Any] | None:
        data = read_entry(path)  # regular files within a size cap only (a FIFO: a miss)
        if data is None:
            return None
        if data is False:
            self.invalid += 1
            return None
        try:
            entry = json.loads(data.decode("utf-8", "surrogatepass"))
            rec = entry["record"]
            ok = (
                entry.get("format") == SCORE_FORMAT
                and entry.get("version") == SCORE_VERSION
                and entry.get("key") == key
                and isinstance(rec, dict)
                and all(isinstance(v, _SCALARS) for v in rec.values())
                and entry.get("sha256") == _record_digest(rec)
                and self.seal.verify(SCORE_FORMAT, key, entry["sha256"], entry.get("mac"))
            )
        except (ValueError, TypeError, KeyError, RecursionError, AttributeError):
            ok = False
        if not ok:
            self.invalid += 1
            return None
        return rec

    def _write(self, path: Path, key: str, rec: dict[str, Any]) -> None:
        if not isinstance(rec, dict) or not all(isinstance(v, _SCALARS) for v in rec.values()):
            return
        digest = _record_digest(rec)
        try:
            entry = {
                "format": SCORE_FORMAT,
                "version": SCORE_VERSION,
                "key": key,
                "sha256": digest,
                "mac": self.seal.sign(SCORE_FORMAT, key, digest),
                "record": rec,
            }
            data = json.dumps(entry, ensure_ascii=False, allow_nan=True).encode(
                "utf-8", "surrogatepass"
            )
            write_atomic(path, data)
        except OSError as exc:  # a full or read-only disk: every page would fail alike
            raise ScoreWriteError(cache_write_line(self.root.parent, exc)) from None
        except RunnerError as exc:  # the key could not be made or trusted: the same
            raise ScoreWriteError(str(exc)) from None


def _scored_page_key(page: Page) -> str:
    """Everything of a page a scorer can read: what a method sees (:func:`page_key`), its id
    and data set, and the gold the reader gave. Units a scorer fills in itself on first use
    (aligned from the gold text, or from the annotation, both hashed here) are left out, so
    the key is the same before and after the first method of the page is scored."""
    gold = page.gold
    given = None
    if gold is not None:
        given = (
            gold.text,
            gold.category,
            gold.unit_source == "planted" and gold.units,
            gold.duplicate_groups,
            gold.block_texts,
            gold.template_texts,
            gold.extra,
            gold.annotation,
        )
    blob = f"{page_key(page)}|{page.id}|{page.dataset}|{given!r}"
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()


def _record_digest(rec: dict[str, Any]) -> str:
    return hashlib.sha256(
        json.dumps(rec, sort_keys=True, allow_nan=True, separators=(",", ":")).encode()
    ).hexdigest()


def cached_scorer(score: Callable, root: str | os.PathLike | None) -> Callable:
    """``score`` with its records cached under ``root`` (:class:`ScoreCache`); ``score``
    itself when there is no cache or the scorer's code cannot be keyed."""
    if root is None or isinstance(score, ScoreCache):
        return score
    key = scorer_key(score)
    return score if key is None else ScoreCache(score, root, key)
