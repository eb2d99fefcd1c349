"""The kabir2015 study: its config, the Table 4.1.1 block counts, and a reduced end-to-end run."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from baselines.pab import PAB
from evalkit.core.page import Gold, Page
from evalkit.experiments import EXPERIMENTS, Context
from evalkit.experiments import kabir2015 as K
from evalkit.harness.config import register_resolvers
from evalkit.harness.specs import MethodSpec
from evalkit.metrics import kabir_standard_error
from evalkit.readers.base import InMemoryDataset

REPO = Path(__file__).resolve().parents[1]
register_resolvers()  # ${evalkit_results:} in the composed config (the suite's order did this before)


def _compose(overrides=()):
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(REPO / "configs"), version_base="1.3"):
        return compose("config", overrides=["study=kabir2015", *overrides])


def test_registered():
    assert EXPERIMENTS.get("kabir_blocks") is K.run_blocks


def test_study_config():
    cfg = _compose()
    assert cfg.experiment.name == "kabir2015"
    assert list(cfg.experiment.parts) == ["kabir_blocks", "classification"]
    assert list(cfg.dataset) == ["chaos"]
    assert list(cfg.method) == ["proposed", "cetd", "pab", "eniw", "justext_style", "trafilatura"]
    assert list(cfg.kabir_blocks.methods) == ["pab", "eniw"]
    assert cfg.classification.repeats == 10 and len(cfg.classification.test_fractions) == 7
    paper = cfg.classification.paper
    # Table 4.3.1: case k tests 10k of 500 pages, i.e. the configured fractions
    assert [t / 500 for t in paper.test_pages] == pytest.approx(
        list(cfg.classification.test_fractions)
    )
    # Table 4.4.1's PAB value is the mean error rate of its Table 4.3.2 column; ENIW's is not
    pab, eniw = paper.rows.pab, paper.rows.eniw
    assert round(kabir_standard_error([a / 100 for a in pab.accuracy]), 4) == pab.kabir_se
    assert kabir_standard_error([a / 100 for a in eniw.accuracy]) == pytest.approx(
        0.16814, abs=1e-5
    )
    # Table 4.1.1: informative + noisy = total blocks for both approaches
    for row in cfg.kabir_blocks.paper.rows:
        assert row.informative + row.noisy == row.blocks == 120237


def test_block_table_and_summary_by_hand():
    pages = pd.DataFrame(
        [
            {
                "page_id": "a",
                "seconds": 0.010,
                "error": None,
                "n_blocks": 10,
                "n_informative": 8,
                "n_noisy": 2,
                "n_merged": 1,
            },
            {
                "page_id": "b",
                "seconds": 0.030,
                "error": None,
                "n_blocks": 30,
                "n_informative": 24,
                "n_noisy": 6,
                "n_merged": 0,
            },
            {
                "page_id": "c",
                "seconds": 0.0,
                "error": "boom",
                "n_blocks": None,
                "n_informative": None,
                "n_noisy": None,
                "n_merged": None,
            },
        ]
    )
    paper = [
        {
            "source": "paper",
            "row": "PAB",
            "pages": 500,
            "blocks": 120237,
            "informative": 111918,
            "noisy": 8319,
            "seconds": 89.56,
        }
    ]
    table = K.block_table(pages, "d", "pab", paper)
    assert table.iloc[0].to_dict() == {
        "source": "evalkit, d",
        "approach": "pab",
        "pages": 2,
        "total blocks": "40",
        "informative": "32",
        "noisy": "8",
        "noisy %": "20.0",
        "blocks / page": "20.0",
        "informative / page": "16.0",
        "noisy / page": "4.0",
        "time (s)": "0.04",
        "ms / page": "20.0",
    }
    assert table.iloc[1][["total blocks", "noisy %", "blocks / page", "ms / page"]].tolist() == [
        "120,237",
        "6.9",
        "240.5",
        "179.1",
    ]
    s = K.summarize_blocks(pages, "d", "pab", n_boot=100).set_index("metric")
    assert s.loc["failures", "value"] == 1
    assert s.loc["blocks_total", "value"] == 40 and s.loc["merged_total", "value"] == 1
    assert s.loc["noisy_per_page", "value"] == 4
    assert s.loc["noisy_share", "value"] == pytest.approx(0.2)
    # both pages have 20 % noisy blocks, so every resample does too
    assert s.loc["noisy_share", ["ci_low", "ci_high"]].tolist() == pytest.approx([0.2, 0.2])
    assert (s.loc["blocks_per_page", "ci_low"], s.loc["blocks_per_page", "ci_high"]) == (10, 30)


PAGE = """<html><head><title>Local news</title></head><body>
<h1>Bridge reopens</h1><p>The old bridge reopened on <b>Monday</b> after repairs.</p>
<div><a href="http://elsewhere.example/a">Ad one</a> <a href="http://other.example/b">Ad two</a></div>
</body></html>"""


def test_run_blocks_counts_what_pab_reports(tmp_path):
    from omegaconf import OmegaConf

    pages = [
        Page(
            id=f"p{i}",
            dataset="tiny",
            raw=PAGE.encode(),
            url="http://news.example/x",
            gold=Gold(text="", category="c"),
        )
        for i in range(3)
    ]
    ds = InMemoryDataset(pages, name="tiny")
    ds.name = "tiny"
    cfg = OmegaConf.create(
        {
            "runner": {"n_jobs": 1, "cache": True, "progress": False},
            "paths": {"cache": str(tmp_path / "cache")},
            "kabir_blocks": {"first_pages": 2, "n_boot": 50},
        }
    )
    (tmp_path / "tables").mkdir()
    ctx = Context(
        cfg=cfg, out=tmp_path, datasets={"tiny": ds}, specs=[MethodSpec("pab", "pab")], seed=0
    )
    summary = K.run_blocks(ctx).set_index("metric")["value"]
    info = PAB().extract(pages[0]).info
    assert info["n_noisy"] >= 2  # the two off-site links get priority 0
    assert summary["blocks_total"] == 3 * info["n_blocks"]
    assert summary["noisy_total"] == 3 * info["n_noisy"]
    assert summary["informative_per_page"] == info["n_informative"]
    first = pd.read_csv(tmp_path / "tables" / "kabir_blocks_tiny_first.csv")
    assert first["page"].tolist() == ["p0", "p1"]
    assert not (tmp_path / "cache").exists()  # the timing part never reads or fills the cache


@pytest.mark.slow
def test_reduced_study_run(shared, tmp_path):
    from evalkit.experiments import run_experiment

    data = shared("chaos").parent
    cfg = _compose(
        [
            f"paths.shared_data={data}",
            f"paths.cache={tmp_path / 'cache'}",
            "dataset.chaos.limit=20",
            "method=[pab,eniw,trafilatura]",
            "classification.repeats=2",
            "classification.n_boot=50",
            "kabir_blocks.n_boot=50",
            "runner.n_jobs=1",
            "runner.progress=false",
        ]
    )
    out = run_experiment(cfg, tmp_path / "run")
    summary = pd.read_csv(out / "summary.csv")
    assert set(summary["experiment"]) == {"kabir_blocks", "classification"}
    assert set(summary.loc[summary["experiment"] == "classification", "method"]) == {
        "raw",
        "gold",
        "pab",
        "eniw",
        "trafilatura",
    }
    tables = out / "tables"
    for name in (
        "kabir_blocks_chaos.md",
        "kabir_blocks_chaos_first.md",
        "classification_chaos_paper_accuracy.md",
        "classification_chaos_paper_se.md",
        "classification_chaos_cases.md",
        "classification_chaos_methods.md",
    ):
        assert (tables / name).is_file(), name
    se = pd.read_csv(tables / "classification_chaos_paper_se.csv").set_index("method")
    assert str(se.loc["pab", "kabir_se (paper)"]) == "0.1496"
    assert str(se.loc["eniw", "kabir_se (paper)"]) == "0.20396"
    assert 0 <= float(se.loc["eniw", "kabir_se"]) <= 1  # ENIW is run, not "not run"
    blocks = pd.read_csv(tables / "kabir_blocks_chaos.csv")
    assert blocks["approach"].tolist() == ["pab", "eniw", "PAB", "ENIW"]
    assert blocks["stored (MB)"].tolist()[2:] == [19.4, 22.6]
    report = (out / "report.md").read_text()
    assert "not run" not in report and "not implemented" not in report
    assert "Kabir" in (out / "report.md").read_text()


def test_run_blocks_tables_pab_and_eniw_with_the_stored_size(tmp_path):
    from omegaconf import OmegaConf

    from baselines.eniw import ENIW

    pages = [
        Page(
            id=f"p{i}",
            dataset="tiny",
            raw=PAGE.encode(),
            url="http://news.example/x",
            gold=Gold(text="", category="c"),
        )
        for i in range(2)
    ]
    ds = InMemoryDataset(pages, name="tiny")
    ds.name = "tiny"
    cfg = OmegaConf.create(
        {
            "runner": {"n_jobs": 1, "cache": True, "progress": False},
            "paths": {"cache": str(tmp_path / "cache")},
            "kabir_blocks": {
                "methods": ["pab", "eniw"],
                "n_boot": 20,
                "paper": {
                    "rows": [
                        {
                            "row": "ENIW",
                            "pages": 500,
                            "blocks": 120237,
                            "informative": 113624,
                            "noisy": 6613,
                            "seconds": 95.58,
                            "stored_mb": 22.6,
                        }
                    ]
                },
            },
        }
    )
    (tmp_path / "tables").mkdir()
    ctx = Context(cfg=cfg, out=tmp_path, datasets={"tiny": ds}, specs=[], seed=0)
    summary = K.run_blocks(ctx)
    eniw = summary[summary["method"] == "eniw"].set_index("metric")["value"]
    # PAGE by ENIW's rules: title, h1, p ("The old bridge reopened on " + tail " after
    # repairs."), b "Monday", the two links "Ad one", "Ad two" hold text directly: 6
    # informative; no script, style, form, marquee or meta: 0 noisy
    ext = ENIW().extract(pages[0])
    assert (ext.info["n_informative"], ext.info["n_noisy"]) == (6, 0)
    assert eniw["informative_total"] == 12 and eniw["noisy_total"] == 0
    # stored = UTF-8 bytes of the kept text, per page and in total
    assert eniw["stored_bytes_per_page"] == len(ext.text.encode("utf-8"))
    assert eniw["stored_bytes_total"] == 2 * len(ext.text.encode("utf-8"))
    table = pd.read_csv(tmp_path / "tables" / "kabir_blocks_tiny.csv")
    assert table["approach"].tolist() == ["pab", "eniw", "ENIW"]
    assert table["stored (MB)"].tolist()[-1] == 22.6
    first = pd.read_csv(tmp_path / "tables" / "kabir_blocks_tiny_first.csv")
    assert first["method"].tolist() == ["pab", "pab", "eniw", "eniw"]
