"""Synthetic pages made in the workers (one runner task per site) are the pages the reader
makes in the main process: same bytes, same gold, same fingerprint, same records."""

from __future__ import annotations

import functools
import hashlib
import pickle

import pytest

from evalkit.harness.runner import Runner
from evalkit.harness.specs import MethodSpec
from evalkit.readers.synthetic import SiteTask, SyntheticDataset


def _digest(pages) -> list[tuple[str, str]]:
    out = []
    for p in pages:
        g = p.gold
        gold = repr(
            (
                p.url,
                p.site,
                g.text,
                g.template_texts,
                g.block_texts,
                g.duplicate_groups,
                g.category,
                g.extra,
                [repr(u) for u in g.units],
            )
        )
        out.append((p.id, hashlib.sha256(p.raw + gold.encode()).hexdigest()))
    return out


CONFIGS = [
    {"n_sites": 3, "pages_per_site": 4, "seed": 7},
    {"n_sites": 5, "pages_per_site": 3, "n_topics": 3, "seed": 2, "limit": 8},
    {"n_sites": 4, "pages_per_site": 1, "seed": 0},
]


@pytest.mark.parametrize("cfg", CONFIGS)
def test_site_tasks_make_the_same_pages(cfg):
    ds = SyntheticDataset(**cfg)
    here = _digest(ds.pages())
    tasks = list(SyntheticDataset(**cfg).pages().site_tasks())
    # a task travels to a worker: it must pickle, and carry parameters, not pages
    moved = [pickle.loads(pickle.dumps(t)) for t in tasks]
    assert all(isinstance(t, SiteTask) for t in moved)
    there = _digest(p for t in moved for p in t.pages())
    assert there == here
    assert len(here) == cfg.get("limit", cfg["n_sites"] * cfg["pages_per_site"])


def test_limit_cuts_the_last_site():
    # 5 sites x 3 pages, limit 8: sites 1-2 whole, site 3 two pages, no task for sites 4-5
    tasks = list(SyntheticDataset(n_sites=5, pages_per_site=3, limit=8).pages().site_tasks())
    assert [(t.site, t.take) for t in tasks] == [(0, 3), (1, 3), (2, 2)]


def _score(page, method, ext):
    return {
        "dataset": page.dataset,
        "page_id": page.id,
        "method": method,
        "n_out": len(ext.text.split()),
        "n_bytes": len(page.raw),
    }


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_runner_records_and_seen_pages_match(n_jobs):
    specs = [MethodSpec("fulltext", "fulltext")]
    cfg = {"n_sites": 3, "pages_per_site": 2, "seed": 5}
    ref = SyntheticDataset(**cfg)
    pages = list(ref.pages())
    with Runner(progress=False) as runner:
        expected = runner.run_pages(pages, specs, score=_score)
    lazy = SyntheticDataset(**cfg)
    with Runner(n_jobs=n_jobs, progress=False) as runner:
        got = runner.run_pages(lazy.pages(), specs, score=functools.partial(_score))
    assert got == expected
    assert [r["page_id"] for r in got] == [
        "site01-p01",
        "site01-p02",
        "site02-p01",
        "site02-p02",
        "site03-p01",
        "site03-p02",
    ]
    # run.json's fingerprint reads seen_: filled from the workers' page hashes
    assert lazy.seen_ == ref.seen_ and len(lazy.seen_) == 6
