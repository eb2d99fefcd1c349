"""Run methods on every page of the seven shared sets and the synthetic set, for the slow
zero-failure tests of single methods (tests/test_eniw.py, test_cectd_s.py, test_ecectd_s.py)."""

from __future__ import annotations

import pytest
from hydra import compose, initialize_config_dir

from evalkit.shell.cli import CONFIG_DIR
from evalkit.harness.config import method_specs

__all__ = ["SETS", "run_on_every_shared_page"]


def _error_only(page, label, ext):
    return {"dataset": page.dataset, "page_id": page.id, "method": label, "error": ext.error}


SETS = ["aeb", "big5_2017", "chaos", "cleaneval_dev", "cleanportaleval", "l3s_gn1",
        "readability", "synthetic"]


def run_on_every_shared_page(shared_root, methods):
    """Every page of the seven shared sets and the synthetic set, no cache: the failures."""
    if not shared_root.is_dir():
        pytest.skip(f"the shared data sets are not at {shared_root} (set EVALKIT_SHARED_DATA)")
    from evalkit.harness.config import build_datasets
    from evalkit.harness.runner import run_pages

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
