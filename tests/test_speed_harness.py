"""The speed experiment's harness measures (issue 17): tables worked by hand, a short real
run whose cold/warm ratio is a column, the memory sampler. No timed asserts."""

from __future__ import annotations

import os
import sys

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from evalkit.experiments import run_experiment
from evalkit.experiments.speed import harness as H
from evalkit.harness.config import register_resolvers
from evalkit.harness.reference_check import is_timing
from evalkit.harness.summary import summary_row
from evalkit.shell.cli import CONFIG_DIR

register_resolvers()


def _rows():
    rows = [
        summary_row("s", "harness", "harness_cold_wall_s", 2.0, n_pages=10),
        summary_row("s", "harness", "harness_warm_wall_s", 0.5, n_pages=10),
        summary_row("s", "harness", "harness_warm_over_cold", 0.25, n_pages=10),
        summary_row("s", "harness", "harness_overhead_ratio", 0.2, n_pages=10),
        summary_row("s", "harness", "harness_stage_score_ms_per_page", 3.0, n_pages=10),
        summary_row("s", "harness", "harness_stage_score_share", 0.3, n_pages=10),
        summary_row("ladder_300", "local", "harness_pss_tree_mb", 250.0, n_pages=300),
        summary_row("ladder_300", "local", "harness_rss_max_process_mb", 120.0, n_pages=300),
        summary_row("ladder_300", "local", "harness_rss_sum_processes_mb", 300.0, n_pages=300),
        summary_row("ladder_300", "local", "harness_ladder_wall_s", 9.0, n_pages=300),
        summary_row("ladder_3000", "local", "harness_pss_tree_mb", 275.0, n_pages=3000),
        summary_row("ladder_3000", "local", "harness_rss_max_process_mb", 150.0, n_pages=3000),
        summary_row("ladder_3000", "local", "harness_rss_sum_processes_mb", 330.0, n_pages=3000),
        summary_row("ladder_3000", "local", "harness_ladder_wall_s", 30.0, n_pages=3000),
    ]
    return pd.DataFrame(rows)


def test_tables_by_hand():
    t = H.harness_table(_rows())
    assert len(t) == 1
    row = t.iloc[0]
    assert (row["cold_s"], row["warm_s"], row["warm_over_cold"]) == (2.0, 0.5, 0.25)
    assert (row["score_ms"], row["score_share"], row["n_pages"]) == (3.0, 0.3, 10)
    assert row["overhead_ratio"] == 0.2 and pd.isna(row["read_ms"])
    lad = H.ladder_table(_rows())
    assert lad.to_dict("records") == [
        {
            "pages": 300,
            "runner": "local",
            "tree_pss_mb": 250.0,
            "tree_vs_smallest": 1.0,
            "rss_max_process_mb": 120.0,
            "rss_sum_processes_mb": 300.0,
            "wall_s": 9.0,
        },
        {
            "pages": 3000,
            "runner": "local",
            "tree_pss_mb": 275.0,
            "tree_vs_smallest": 1.1,  # 275 / 250
            "rss_max_process_mb": 150.0,
            "rss_sum_processes_mb": 330.0,
            "wall_s": 30.0,
        },
    ]


def test_harness_rows_are_timings_for_the_reference_check():
    assert is_timing("speed", "harness_warm_over_cold")
    assert is_timing("speed", "harness_rss_max_process_mb")
    assert not is_timing("extraction", "harness_warm_over_cold")


def test_peak_memory_sees_the_largest_process_and_the_sum():
    # a child that holds 200 MiB for a second under a parent that holds little
    code = (
        "import subprocess, sys; subprocess.run([sys.executable, '-c', "
        "'import time; b = bytearray(200 * 2**20); time.sleep(1.5)'])"
    )
    got = H.peak_memory([sys.executable, "-c", code], sample_s=0.05)
    assert got["returncode"] == 0
    assert 200 <= got["max_mb"] < 400
    assert got["sum_mb"] > got["max_mb"]  # the parent is counted too


def test_the_whole_tree_counts_a_forked_childs_shared_pages_once():
    # 200 MiB written by the parent, then a forked child that only sleeps: both processes
    # show them resident, but they are one copy of the memory
    code = (
        "import os, time; b = bytearray(os.urandom(1024)) * (200 * 1024); pid = os.fork()\n"
        "if pid == 0: time.sleep(1.5); os._exit(0)\n"
        "os.waitpid(pid, 0)"
    )
    got = H.peak_memory([sys.executable, "-c", code], sample_s=0.05)
    assert got["returncode"] == 0
    assert got["sum_mb"] > 400  # both resident sets hold the 200 MiB
    assert 200 <= got["tree_mb"] < 300  # proportional: counted once


def test_proc_fallback_reads_this_process():
    ((rss, pss), *_) = H._rss_tree_proc(os.getpid())
    assert rss > 10 * 2**20 and 0 < pss <= rss


def _speed(*overrides: str):
    """A speed run's config: one method, no micro-benchmark, the harness on, one process."""
    common = ["experiment=speed", "speed.n_boot=20", "method=[fulltext]"]
    common += ["speed.micro.enabled=false", "speed.harness.enabled=true", "runner.n_jobs=1"]
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        return compose(config_name="config", overrides=[*common, *overrides])


def test_speed_run_reports_cold_warm_and_stages(tmp_path):
    cfg = _speed(
        "dataset.synthetic.n_sites=2",
        "dataset.synthetic.pages_per_site=3",
        "speed.harness.ladder_sizes=[]",
        "+extraction.n_boot=20",
        f"paths.cache={tmp_path / 'cache'}",
    )
    out = run_experiment(cfg, tmp_path / "out")
    s = pd.read_csv(out / "summary.csv").set_index(["dataset", "method", "metric"])["value"]
    cold = s[("synthetic", "harness", "harness_cold_wall_s")]
    warm = s[("synthetic", "harness", "harness_warm_wall_s")]
    # summary.csv keeps 6 significant digits
    assert s[("synthetic", "harness", "harness_warm_over_cold")] == pytest.approx(
        warm / cold, rel=2e-5
    )
    shares = [s[("synthetic", "harness", f"harness_stage_{st}_share")] for st in H.STAGES]
    assert sum(shares) == pytest.approx(1, abs=1e-5)
    table = pd.read_csv(out / "tables" / "speed_harness.csv")
    assert "warm_over_cold" in table.columns and table["n_pages"].tolist() == [6]
    assert not (out / "tables" / "speed_memory_ladder.csv").exists()
    # the harness's passes use a cache of their own, never the run's
    assert not (tmp_path / "cache").exists()


def test_the_overhead_run_keeps_methods_metrics_and_its_own_set_only():
    task = [
        "experiment=speed",
        "dataset=[aeb,chaos]",
        "method=[cetd,fulltext]",
        "dataset.chaos.limit=36",
        "dataset.aeb.limit=5",
        "runner=dask",
        "runner.n_jobs=2",
        "runner.page_timeout=30",
        "+extraction.n_boot=50",
        "speed.harness.enabled=true",
        "hydra.run.dir=x",
        "seed=3",
        "paths.shared_data=/d",
    ]
    assert H.overhead_overrides(task, "chaos") == [
        "method=[cetd,fulltext]",
        "dataset.chaos.limit=36",
        "runner.page_timeout=30",
        "+extraction.n_boot=50",
        "seed=3",
        "paths.shared_data=/d",
    ]


def test_the_speed_command_reports_the_overhead_of_its_own_extraction_run(tmp_path):
    # the overhead row is issue 17's check run as a process of its own: its ratio is
    # (run.json wall - per-page method seconds) / method seconds of that run
    import subprocess
    import sys

    run = tmp_path / "run"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "evalkit",
            "experiment=speed",
            "dataset.synthetic.n_sites=2",
            "dataset.synthetic.pages_per_site=3",
            "method=[fulltext]",
            "speed.micro.enabled=false",
            "speed.n_boot=20",
            "speed.harness.enabled=true",
            "speed.harness.ladder_sizes=[]",
            "runner.n_jobs=1",
            "runner.progress=false",
            f"paths.cache={tmp_path / 'c'}",
            f"hydra.run.dir={run}",
        ],
        check=True,
        capture_output=True,
    )
    s = pd.read_csv(run / "summary.csv").set_index(["dataset", "method", "metric"])["value"]
    wall = s[("synthetic", "harness", "harness_one_process_wall_s")]
    methods = s[("synthetic", "harness", "harness_method_s")]
    assert wall > methods > 0
    assert s[("synthetic", "harness", "harness_overhead_ratio")] == pytest.approx(
        (wall - methods) / methods, rel=1e-4
    )


def test_memory_ladder_figure_is_drawn(tmp_path):
    from evalkit.experiments.speed.report import memory_ladder_figure

    memory_ladder_figure(H.ladder_table(_rows()), tmp_path / "ladder")
    assert (tmp_path / "ladder.png").stat().st_size > 5000


def test_the_memory_ladder_alone(tmp_path):
    # speed.harness.passes=false: no stage, overhead or cold/warm pass, only the rungs, each a
    # synthetic extraction of its own, in the table and the figure
    cfg = _speed(
        "dataset.synthetic.limit=3",
        "speed.diff.enabled=false",
        "speed.harness.passes=false",
        "speed.harness.ladder_sizes=[20,10]",
        "speed.harness.ladder_runners=[local]",
        "speed.harness.ladder_methods=[fulltext]",
    )
    out = run_experiment(cfg, tmp_path / "out")
    s = pd.read_csv(out / "summary.csv")
    assert not s["metric"].str.startswith("harness_stage").any()
    assert "harness_cold_wall_s" not in set(s["metric"])
    table = pd.read_csv(out / "tables" / "speed_memory_ladder.csv")
    assert table["pages"].tolist() == [10, 20]  # rungs smallest first
    assert table["tree_vs_smallest"].iloc[0] == 1.0
    assert (table["tree_pss_mb"] > 50).all()
    assert (out / "figures" / "speed_memory_ladder.png").exists()
