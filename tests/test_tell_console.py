"""The result on the console (issue 29, item 3): a compact table per data set, sorted by F1."""

from __future__ import annotations

import math

import pandas as pd
from hydra import compose, initialize_config_dir

from evalkit.experiments import run_experiment
from evalkit.harness.config import register_resolvers
from evalkit.report.console import WIDTH, console_table
from evalkit.shell.cli import CONFIG_DIR

register_resolvers()


def _rows(method, f1, lo, hi, p, r, failed, n=10):
    def row(metric, value, a=math.nan, b=math.nan, pages=n):
        return {
            "dataset": "aeb",
            "method": method,
            "metric": metric,
            "value": value,
            "ci_low": a,
            "ci_high": b,
            "n_pages": pages,
        }

    return [
        row("shingle_f1", f1, lo, hi),
        row("shingle_precision", p),
        row("shingle_recall", r),
        row("failures", failed),
    ]


def test_the_table_is_sorted_by_f1_and_fits_100_columns():
    long = "a_method_with_a_name_far_longer_than_the_console_can_show_in_its_column_x"
    summary = pd.DataFrame(
        _rows("cetd", 0.8123, 0.75, 0.86, 0.7, 0.95, 0)
        + _rows(long, 0.9, 0.85, 0.93, 0.92, 0.88, 2)
        + _rows("empty", math.nan, math.nan, math.nan, math.nan, math.nan, 10)
    )
    text = console_table(summary, "aeb")
    lines = text.splitlines()
    assert lines[0] == "aeb (10 pages): shingle F1 with its 95% bootstrap CI, sorted by F1"
    assert [ln.split()[0] for ln in lines[2:]] == [
        long[: len(lines[2].split()[0]) - 1] + "~",
        "cetd",
        "empty",
    ]
    assert lines[3].split()[1:] == ["0.812", "[0.750,", "0.860]", "0.700", "0.950", "0/10"]
    assert lines[4].split()[1:] == ["-", "-", "-", "10/10"]  # no F1: last
    assert max(map(len, lines)) <= WIDTH


def _run(tmp_path, capsys, *extra):
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(
            config_name="config",
            overrides=[
                "experiment=extraction",
                "dataset=synthetic",
                "dataset.synthetic.limit=4",
                "method=[cetd,fulltext]",
                "extraction.n_boot=20",
                "runner.n_jobs=1",
                "runner.progress=false",
                f"paths.cache={tmp_path}/cache",
                *extra,
            ],
        )
    run_experiment(cfg, tmp_path / "run")
    return capsys.readouterr().out


def test_an_extraction_ends_with_the_table_unless_quiet(tmp_path, capsys):
    out = _run(tmp_path, capsys)
    summary = pd.read_csv(tmp_path / "run" / "summary.csv")
    f1 = summary[summary["metric"] == "shingle_f1"].set_index("method")["value"]
    best = f1.idxmax()
    head = "synthetic (4 pages): shingle F1 with its 95% bootstrap CI, sorted by F1"
    assert head in out
    rows = out.split(head)[1].splitlines()[2:4]
    assert rows[0].split()[:2] == [best, f"{f1[best]:.3f}"]
    assert head not in _run(tmp_path, capsys, "runner.quiet=true")
