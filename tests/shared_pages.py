"""The seven shared data sets and the synthetic set, built as a run builds them (for the
slow tests that run a method over every page)."""

from __future__ import annotations

from pathlib import Path

from hydra import compose, initialize_config_dir

from evalkit.cli import CONFIG_DIR
from evalkit.config import build_datasets, register_resolvers

register_resolvers()

#: the shared sets (config name -> folder under the shared data) and the synthetic set
SETS = {"aeb": "scrapinghub-aeb", "l3s_gn1": "l3s-gn1", "cleaneval_dev": "cleaneval-dev",
        "cleanportaleval": "cleanportaleval", "readability": "readability", "chaos": "chaos",
        "big5_2017": "big5-2017", "synthetic": None}


def dataset(label: str, shared_root: Path):
    """The reader of ``label`` with the shipped config (paths under ``shared_root``)."""
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(config_name="config", overrides=[
            f"dataset={label}", f"paths.shared_data={shared_root}", "method=[fulltext]"])
    (ds,) = build_datasets(cfg).values()
    return ds
