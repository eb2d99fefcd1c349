"""The seven shared data sets as the configs read them, for the slow every-page tests of methods.

``shared_set_pages(name)`` builds the reader of ``configs/dataset/<name>.yaml`` with the data
folder of ``tests/conftest.py`` (skipping, with the reason, when the set is absent) and yields
its pages.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import yaml
from conftest import SHARED, shared_dataset

from evalkit.core.page import Page
from evalkit.harness.registry import DATASETS

REPO = Path(__file__).resolve().parents[1]
#: the seven shared sets every extractor must run on without a failure
SHARED_SETS = ("aeb", "l3s_gn1", "cleaneval_dev", "cleanportaleval", "readability", "chaos",
               "big5_2017")


def shared_set_pages(name: str) -> Iterator[Page]:
    """Pages of the shared set ``name`` (the config's reader and settings), or skip."""
    cfg = yaml.safe_load((REPO / "configs" / "dataset" / f"{name}.yaml").read_text())[name]
    reader = cfg.pop("_name_")
    folder = cfg["path"].replace("${paths.shared_data}/", "")
    cfg["path"] = str(shared_dataset(folder))
    assert cfg["path"].startswith(str(SHARED))
    yield from DATASETS.create(reader, **cfg).pages()
