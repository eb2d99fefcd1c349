"""Sweep aggregation: job folders -> one table and one plot; sweep configs compose; a real multirun."""

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from evalkit.harness.config import method_specs, plain, register_resolvers
from evalkit.harness.sweep import aggregate, collect, main, objective, sweep_table
from evalkit.report.results import SUMMARY_COLUMNS
from evalkit.shell.cli import CONFIG_DIR

register_resolvers()


def _job(root: Path, num: int, overrides: list[str], rows: list[tuple], metric_default=None):
    job = root / str(num)
    (job / ".hydra").mkdir(parents=True)
    (job / ".hydra" / "overrides.yaml").write_text(yaml.safe_dump(overrides))
    cfg = {"aggregate": {"metric": metric_default}} if metric_default else {}
    (job / ".hydra" / "config.yaml").write_text(yaml.safe_dump(cfg))
    df = pd.DataFrame([("extraction", *r) for r in rows], columns=SUMMARY_COLUMNS)
    df.to_csv(job / "summary.csv", index=False)
    return job


def _fake_sweep(root: Path) -> Path:
    # k = 10 is job 0 so that a string sort (10 < 2) would put it first
    for num, k, f1 in ((0, 10, 0.5), (1, 2, 0.7), (2, 0, 0.6)):
        _job(
            root,
            num,
            [f"method.proposed.dedup.k={k}", "sweep=proposed_k", "dataset.synthetic.limit=15"],
            [
                ("synthetic", "proposed", "shingle_f1", f1, f1 - 0.1, f1 + 0.1, 15),
                ("synthetic", "proposed", "word_f1", f1 / 2, f1 / 2 - 0.1, f1 / 2 + 0.1, 15),
            ],
            metric_default="word_f1",
        )
    (root / "3").mkdir()  # a job that failed before writing its summary
    (root / "multirun.yaml").write_text("{}\n")
    return root


def test_collect_finds_the_varying_parameter_the_fixed_ones_and_the_missing_job(tmp_path):
    rows, params, fixed, missing = collect(_fake_sweep(tmp_path))
    assert params == ["method.proposed.dedup.k"]
    assert fixed == {"sweep": "proposed_k", "dataset.synthetic.limit": "15"}
    assert missing == ["3"]
    assert len(rows) == 6 and set(rows["job"]) == {0, 1, 2}


def test_table_sorts_parameter_values_as_numbers_and_keeps_the_interval(tmp_path):
    rows, params, _, _ = collect(_fake_sweep(tmp_path))
    table = sweep_table(rows, params, "shingle_f1")
    assert list(table["method.proposed.dedup.k"]) == ["0", "2", "10"]
    assert list(table["shingle_f1"]) == [0.6, 0.7, 0.5]
    assert list(table["ci_low"]) == pytest.approx([0.5, 0.6, 0.4])
    with pytest.raises(ValueError, match="metrics in this sweep: shingle_f1, word_f1"):
        sweep_table(rows, params, "lcs_f1")
    with pytest.raises(ValueError, match="on dataset 'aeb'"):
        sweep_table(rows, params, "shingle_f1", dataset="aeb")


def test_aggregate_uses_the_sweep_configs_metric_and_writes_table_and_plot(tmp_path):
    root = _fake_sweep(tmp_path)
    res = aggregate(root)
    assert res["metric"] == "word_f1"  # from aggregate.metric in the jobs' config
    assert list(res["table"]["word_f1"]) == [0.3, 0.35, 0.25]
    for name in (
        "sweep_table.csv",
        "sweep_table.md",
        "sweep_table.tex",
        "sweep_plot.png",
        "sweep_plot.svg",
    ):
        assert (root / name).stat().st_size > 0, name
    md = (root / "sweep_table.md").read_text()
    assert "0.350 [0.250, 0.450]" in md and "jobs without results: 3" in md
    assert aggregate(root, metric="shingle_f1")["metric"] == "shingle_f1"


def test_a_grid_of_several_parameters_plots_one_point_per_combination(tmp_path):
    for num, (a, g) in enumerate(((0.2, 0.5), (0.3, 0.4))):
        _job(
            tmp_path,
            num,
            [f"method.proposed.scoring.alpha={a}", f"method.proposed.scoring.gamma={g}"],
            [
                ("synthetic", "proposed", "shingle_f1", 0.8 + num / 10, 0.7, 0.95, 10),
                ("synthetic", "cetd", "shingle_f1", 0.6, float("nan"), float("nan"), 10),
            ],
        )
    res = aggregate(tmp_path)
    assert res["params"] == ["method.proposed.scoring.alpha", "method.proposed.scoring.gamma"]
    assert len(res["table"]) == 4 and (tmp_path / "sweep_plot.png").is_file()


def test_main_reports_a_missing_folder_in_one_line(tmp_path, capsys):
    assert main([str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("evalkit.harness.sweep: ") and err.count("\n") == 1


def test_objective_reads_the_configured_cell_of_the_summary(tmp_path):
    job = _job(
        tmp_path,
        0,
        [],
        [
            ("aeb", "proposed", "shingle_f1", 0.81, 0.7, 0.9, 5),
            ("synthetic", "proposed", "shingle_f1", 0.92, 0.9, 0.95, 5),
            ("synthetic", "cetd", "shingle_f1", 0.5, 0.4, 0.6, 5),
        ],
    )
    cfg = OmegaConf.create(
        {"aggregate": {"metric": "shingle_f1", "method": "proposed", "dataset": "synthetic"}}
    )
    assert objective(cfg, job) == 0.92
    cfg.aggregate.dataset = None
    assert objective(cfg, job) == 0.81  # the first data set's row
    assert objective(OmegaConf.create({}), job) is None  # no optimising sweeper configured


def _compose(overrides):
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        return compose(config_name="config", overrides=overrides, return_hydra_config=True)


def test_weight_grid_keeps_the_papers_constraints_and_reaches_the_method():
    cfg = _compose(["sweep=proposed_weights"])
    names = str(cfg.hydra.sweeper.params.proposed_weights).split(",")
    assert len(names) == 14 and set(names) == set(cfg.weight_grid)
    for name in names:
        w = plain(cfg.weight_grid[name])
        assert w["alpha"] <= w["beta"] <= w["gamma"]
        assert w["alpha"] + w["beta"] + w["gamma"] == pytest.approx(1.0)
    cfg = _compose(["sweep=proposed_weights", "proposed_weights=a1_b3_g6"])
    params = method_specs(cfg.method)[0].params
    weights = params["scoring"]
    assert (weights["alpha"], weights["beta"], weights["gamma"]) == (0.1, 0.3, 0.6)


def test_minhash_threshold_feeds_the_detector_and_the_proposed_stage():
    cfg = _compose(["sweep=minhash_threshold", "detector.minhash.threshold=0.65"])
    params = method_specs(cfg.method)[0].params
    assert params["dedup"]["detector"] == "minhash"
    assert params["dedup"]["detector_params"] == {"threshold": 0.65}
    assert list(cfg.detector) == ["minhash"]


@pytest.mark.slow
def test_real_multirun_of_five_k_values_aggregates_into_five_rows(tmp_path):
    cmd = [
        sys.executable,
        "-m",
        "evalkit",
        "-m",
        "sweep=proposed_k",
        "method.proposed.dedup.k=0,2,4,6,8",
        "dataset.synthetic.limit=15",
        "extraction.n_boot=200",
        "runner.n_jobs=1",
        "runner.progress=false",
        f"paths.results={tmp_path}",
    ]
    done = subprocess.run(
        cmd, check=False, capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-2000:]
    sweeps = list((tmp_path / "sweeps" / "extraction").iterdir())
    assert len(sweeps) == 1
    res = aggregate(sweeps[0])
    table = res["table"]
    assert res["params"] == ["method.proposed.dedup.k"] and len(table) == 5
    assert list(table["method.proposed.dedup.k"]) == ["0", "2", "4", "6", "8"]
    assert set(table["n_pages"]) == {15} and set(table["method"]) == {"proposed"}
    f1 = table["shingle_f1"].to_numpy()
    assert ((table["ci_low"] <= f1) & (f1 <= table["ci_high"])).all()
    assert 0.5 < f1.min() and f1.max() <= 1.0
    assert len(list(sweeps[0].glob("sweep_plot.png"))) == 1


def test_optuna_search_space_keeps_k_within_0_to_8():
    pytest.importorskip("hydra_plugins.hydra_optuna_sweeper")
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra_plugins.hydra_optuna_sweeper._impl import create_optuna_distribution_from_override

    cfg = _compose(["sweep=proposed_optuna"])
    params = plain(cfg.hydra.sweeper.params)
    parser = OverridesParser.create()
    dists = {
        k: create_optuna_distribution_from_override(parser.parse_override(f"{k}={v}"))
        for k, v in params.items()
    }
    # Optuna's integer range includes its end, the basic sweeper's does not
    assert (dists["method.proposed.dedup.k"].low, dists["method.proposed.dedup.k"].high) == (0, 8)
    cov = dists["method.proposed.primary.min_subtree_coverage"]
    assert 0.5 < cov.low and cov.high <= 1.0  # the method accepts (0.5, 1]
    assert cfg.aggregate.method == "proposed" and cfg.hydra.sweeper.direction == "maximize"


@pytest.mark.slow
def test_joblib_and_submitit_launchers_run_the_jobs_the_basic_launcher_runs(tmp_path):
    # the same two-job sweep through Hydra's basic launcher, the joblib launcher (parallel
    # processes) and submitit's local executor (what SLURM runs, without a cluster): each
    # job's summary.csv must be byte-identical across the three
    sweep = [
        "-m",
        "experiment=extraction",
        "method=[cetd]",
        "method.cetd.variant=cetd_ds,cectd_ds",
        "dataset.synthetic.limit=12",
        "extraction.n_boot=100",
        "runner.n_jobs=1",
        "runner.progress=false",
    ]
    launchers = {
        "basic": [],
        "joblib": ["hydra/launcher=joblib", "hydra.launcher.n_jobs=2"],
        "submitit": ["hydra/launcher=submitit_local", "hydra.launcher.timeout_min=10"],
    }
    summaries = {}
    for name, extra in launchers.items():
        out = tmp_path / name
        done = subprocess.run(
            [sys.executable, "-m", "evalkit", *sweep, *extra, f"paths.results={out}"],
            check=False,
            capture_output=True,
            text=True,
            timeout=300,
            cwd=tmp_path,
        )
        assert done.returncode == 0, (name, done.stderr[-2000:])
        (folder,) = (out / "sweeps" / "extraction").iterdir()
        summaries[name] = [(folder / str(j) / "summary.csv").read_bytes() for j in (0, 1)]
        variants = [
            yaml.safe_load((folder / str(j) / ".hydra" / "overrides.yaml").read_text())
            for j in (0, 1)
        ]
        assert [[o for o in v if o.startswith("method.cetd.variant=")] for v in variants] == [
            ["method.cetd.variant=cetd_ds"],
            ["method.cetd.variant=cectd_ds"],
        ], variants
    assert summaries["basic"][0] != summaries["basic"][1]  # the two variants differ
    assert summaries["joblib"] == summaries["basic"] == summaries["submitit"]
