"""per_page.parquet: written past report.parquet_rows, read back equal to per_page.csv."""

from __future__ import annotations

import pandas as pd
import pytest

from evalkit.report.per_page_csv import read_per_page
from evalkit.report.per_page_parquet import (
    DEFAULT_PARQUET_ROWS,
    PARQUET_NAME,
    wants_parquet,
    write_per_page_parquet,
)

pytest.importorskip("pyarrow")

# a per_page.csv as two experiments write it: page ids with leading zeros, a text column one
# experiment leaves empty, a nullable boolean, whole and fractional scores, a missing score
CSV = """experiment,dataset,page_id,method,site,cached,shingle_f1,words,error,info_matched
extraction,aeb,0042,cetd,,True,0.5,120,,
extraction,aeb,0043,cetd,,False,,0,failed: ValueError: no body,True
dedup,aeb,0042,simhash,a.example,,0.25,7,,False
"""


def test_wants_parquet_only_past_the_threshold():
    assert DEFAULT_PARQUET_ROWS == 10_000
    assert not wants_parquet(10_000, 10_000) and wants_parquet(10_001, 10_000)
    assert wants_parquet(1, 0) and not wants_parquet(0, 0)
    assert not wants_parquet(10**9, None)


def test_the_copy_reads_back_equal_to_the_csv_with_its_dtypes(tmp_path):
    csv = tmp_path / "per_page.csv"
    csv.write_text(CSV)
    path = write_per_page_parquet(csv)
    assert path == tmp_path / PARQUET_NAME
    from_csv, from_parquet = read_per_page(csv), pd.read_parquet(path)
    pd.testing.assert_frame_equal(from_parquet, from_csv)  # values and dtypes
    assert list(from_parquet["page_id"]) == ["0042", "0043", "0042"]  # zeros kept
    assert str(from_parquet["cached"].dtype) == "boolean"
    # a method's flag with gaps (an object column of True/False/NaN in pandas' guess)
    assert str(from_parquet["info_matched"].dtype) == "boolean"
    assert from_parquet["info_matched"].tolist() == [pd.NA, True, False]
    assert from_parquet["cached"].isna().tolist() == [False, False, True]
    assert from_parquet["words"].dtype == "int64"
    assert from_parquet["shingle_f1"].isna().sum() == 1
    # same csv, same bytes (no timestamp, fixed row groups)
    again = write_per_page_parquet(csv, tmp_path / "again.parquet")
    assert again.read_bytes() == path.read_bytes()
    assert not list(tmp_path.glob(".*tmp"))  # no temporary file left


@pytest.mark.parametrize("rows, written", [(0, True), (10_000, False)])
def test_an_extraction_run_writes_the_copy_past_report_parquet_rows(tmp_path, rows, written):
    from hydra import compose, initialize_config_dir

    from evalkit.experiments import run_experiment
    from evalkit.harness.config import CONFIG_DIR, register_resolvers

    register_resolvers()
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(
            config_name="config",
            overrides=[
                "experiment=extraction",
                "dataset=synthetic",
                "dataset.synthetic.limit=3",
                "method=[cetd,fulltext]",
                "extraction.n_boot=10",
                "runner.progress=false",
                "report.html=false",
                f"report.parquet_rows={rows}",
                f"paths.cache={tmp_path / 'cache'}",
            ],
        )
    out = run_experiment(cfg, tmp_path / "run")
    assert (out / PARQUET_NAME).exists() is written
    if written:
        from_csv = read_per_page(out / "per_page.csv")
        assert len(from_csv) == 6  # 3 pages x 2 methods
        pd.testing.assert_frame_equal(pd.read_parquet(out / PARQUET_NAME), from_csv)


def test_a_bad_threshold_is_refused_before_the_run():
    from omegaconf import OmegaConf

    from evalkit.experiments.checks import check_sections
    from evalkit.harness.config import ConfigError

    check_sections(OmegaConf.create({"report": {"parquet_rows": None}}))
    with pytest.raises(ConfigError, match="report.parquet_rows"):
        check_sections(OmegaConf.create({"report": {"parquet_rows": -1}}))
