"""The seven shared data sets and the synthetic set, read as a run reads them, for the tests that
read a whole set (tests/test_existing2.py, test_san_aye.py, ...). That no own method fails on
any of their pages is one test for every method at once, sharing each page's reading:
tests/test_refused_chars.py::test_no_own_method_fails_on_any_shared_or_synthetic_page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from conftest import shared_dataset
from hydra import compose, initialize_config_dir

from evalkit.core.page import Page
from evalkit.harness.config import CONFIG_DIR, build_datasets, register_resolvers

register_resolvers()

#: the shared sets (config name -> folder under the shared data) and the synthetic set
SETS = {
    "aeb": "scrapinghub-aeb",
    "l3s_gn1": "l3s-gn1",
    "cleaneval_dev": "cleaneval-dev",
    "cleanportaleval": "cleanportaleval",
    "readability": "readability",
    "chaos": "chaos",
    "big5_2017": "big5-2017",
    "synthetic": None,
}


def dataset(label: str, shared_root: Path):
    """The reader of ``label`` with the shipped config (paths under ``shared_root``)."""
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(
            config_name="config",
            overrides=[f"dataset={label}", f"paths.shared_data={shared_root}", "method=[fulltext]"],
        )
    (ds,) = build_datasets(cfg).values()
    return ds


def shared_set_pages(name: str) -> Iterator[Page]:
    """Pages of the shared set ``name``, or skip saying which folder is missing."""
    folder = shared_dataset(SETS[name])  # skips when absent
    yield from dataset(name, folder.parent).pages()
