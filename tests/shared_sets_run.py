"""Run one method over every page of the seven shared sets and the synthetic set, with no
cache and no scoring: what the slow zero-failure tests of the DOM baselines share."""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from evalkit.cli import CONFIG_DIR
from evalkit.config import build_datasets, method_specs
from evalkit.runner import run_pages

SETS = ["synthetic", "aeb", "big5_2017", "chaos", "cleaneval_dev", "cleanportaleval", "l3s_gn1",
        "readability"]


def _error_only(page, label: str, ext) -> dict:
    return {"dataset": page.dataset, "page_id": page.id, "method": label, "error": ext.error}


def failures_on_shared_sets(method: str, shared_root: Path) -> tuple[list, dict[str, int]]:
    """``(failures, pages per set)`` of ``method`` (a config name) on every page."""
    if not shared_root.is_dir():
        pytest.skip(f"the shared data sets are not at {shared_root} (set EVALKIT_SHARED_DATA)")
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(config_name="config", overrides=[
            f"dataset=[{','.join(SETS)}]", f"paths.shared_data={shared_root}",
            f"method=[{method}]"])
    specs = method_specs(cfg.method)
    failures, n_pages = [], {}
    for name, ds in build_datasets(cfg).items():
        records = run_pages(ds.pages(), specs, score=_error_only, n_jobs=1, cache_root=None,
                            progress=False)
        n_pages[name] = len(records)
        failures += [(r["dataset"], r["page_id"], r["error"]) for r in records
                     if r["error"] is not None]
    return failures, n_pages
