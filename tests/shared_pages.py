"""The seven shared data sets and the synthetic set, read as a run reads them, for the slow tests
that run a method over every page (one module for all of them: tests/test_existing1.py,
test_eniw.py, test_san_aye.py, ...)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import shared_dataset
from hydra import compose, initialize_config_dir

from evalkit.core.page import Page
from evalkit.harness.config import CONFIG_DIR, build_datasets, method_specs, register_resolvers
from evalkit.harness.runner import run_pages

register_resolvers()

#: the shared sets (config name -> folder under the shared data) and the synthetic set
SETS = {"aeb": "scrapinghub-aeb", "l3s_gn1": "l3s-gn1", "cleaneval_dev": "cleaneval-dev",
        "cleanportaleval": "cleanportaleval", "readability": "readability", "chaos": "chaos",
        "big5_2017": "big5-2017", "synthetic": None}
#: the seven shared sets every extractor must run on without a failure
SHARED_SETS = tuple(label for label, folder in SETS.items() if folder)


def dataset(label: str, shared_root: Path):
    """The reader of ``label`` with the shipped config (paths under ``shared_root``)."""
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(config_name="config", overrides=[
            f"dataset={label}", f"paths.shared_data={shared_root}", "method=[fulltext]"])
    (ds,) = build_datasets(cfg).values()
    return ds


def shared_set_pages(name: str) -> Iterator[Page]:
    """Pages of the shared set ``name``, or skip saying which folder is missing."""
    folder = shared_dataset(SETS[name])  # skips when absent
    yield from dataset(name, folder.parent).pages()


def _error_only(page, label, ext):
    return {"dataset": page.dataset, "page_id": page.id, "method": label, "error": ext.error}


def run_on_every_shared_page(shared_root: Path, methods: list[str]):
    """Every page of the seven shared sets and the synthetic set, no cache: the failures
    (data set, page, method, error) and the pages per set."""
    if not shared_root.is_dir():
        pytest.skip(f"the shared data sets are not at {shared_root} (set EVALKIT_SHARED_DATA)")
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(config_name="config", overrides=[
            f"dataset=[{','.join(SETS)}]", f"paths.shared_data={shared_root}",
            f"method=[{','.join(methods)}]"])
    specs = method_specs(cfg.method)
    failures, n_pages = [], {}
    for name, ds in build_datasets(cfg).items():
        records = run_pages(ds.pages(), specs, score=_error_only, n_jobs=1, cache_root=None,
                            progress=False)
        n_pages[name] = len(records) // len(specs)
        failures += [(r["dataset"], r["page_id"], r["method"], r["error"])
                     for r in records if r["error"] is not None]
    return failures, n_pages
