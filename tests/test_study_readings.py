"""The readings study: its shortcuts decide as score_page does for every reading, and its numbers
for the literal reading and the presets are those of the extraction experiment on the same pages."""

from __future__ import annotations

import itertools
from pathlib import Path

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from evalkit.experiments import EXPERIMENTS, run_experiment
from evalkit.experiments import readings as R
from evalkit.harness.config import register_resolvers
from evalkit.proposed.scoring import READING_CHOICES, Reading, score_page, table4_inputs

REPO = Path(__file__).resolve().parents[1]
register_resolvers()


def _cfg(overrides=()):
    with initialize_config_dir(config_dir=str(REPO / "configs"), version_base="1.3"):
        return compose("config", overrides=list(overrides))


def test_registered_and_the_grid_is_every_combination():
    assert EXPERIMENTS.get("readings") is R.run
    assert len(R.GRID) == 2**7 * 3**4 == 10368
    assert len(set(R.GRID)) == len(R.GRID)
    assert R.GRID[0] == Reading() and R.reading_label(R.GRID[0]) == "literal"
    assert set(R.COUNTED) | set(R.ARITHMETIC) | set(R.DERIVED) == set(READING_CHOICES)


def _synthetic_inputs():
    from evalkit.harness.registry import DATASETS, METHODS

    ds = DATASETS.create("synthetic", n_sites=2, pages_per_site=3)
    method = METHODS.create("proposed")
    return [method.scoring_inputs(p)[0] for p in itertools.islice(ds.pages(), 4)]


def test_shortcuts_decide_as_score_page_for_every_reading():
    # Table 4's page (7 blocks, threshold 7/14) and generated pages: every one of the 10,368
    # readings keeps the blocks score_page keeps
    for inputs in [table4_inputs(), *_synthetic_inputs()]:
        decisions = R.grid_decisions(inputs)
        for reading, kept in zip(R.GRID, decisions):
            assert kept == score_page(reading, inputs).kept, R.reading_label(reading)


def test_decide_by_hand():
    assert R.decide([0.6, 0.5, 0.4], 0.5, "gt", "nothing") == (True, False, False)
    assert R.decide([0.6, 0.5, 0.4], 0.5, "ge", "nothing") == (True, True, False)
    # nothing passes t = 1: the best block (the first of equal ones), every block, or none
    assert R.decide([0.2, 0.7, 0.7], 1.0, "gt", "best") == (False, True, False)
    assert R.decide([0.2, 0.7], 1.0, "gt", "all") == (True, True)
    assert R.decide([0.2, 0.7], 1.0, "gt", "nothing") == (False, False)
    assert R.decide([], 0.0, "gt", "best") == ()


def test_rescore_gives_table4_scores():
    res = score_page(Reading(), table4_inputs())
    scores, t = R.rescore(res, table4_inputs(), "eq4", "none", "stage1")
    assert [round(s, 3) for s in scores] == [0.756, 0.803, 0.942, 0.495, 0.458, 0.937, 0.928]
    assert t == 0.5
    _, t2 = R.rescore(res, table4_inputs(), "eq4", "none", "stage2")
    assert t2 == 7 / 8  # 7 distinct blocks of the 8 left after primary noise removal


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The study and the extraction experiment on the same 12 generated pages."""
    common = [
        "dataset=synthetic",
        "dataset.synthetic.n_sites=2",
        "dataset.synthetic.pages_per_site=6",
        "runner.n_jobs=1",
        "runner.progress=false",
        "runner.cache=false",
    ]
    study = run_experiment(
        _cfg(["study=readings", *common, "study.n_boot=50", "readings.stage_switches=false"]),
        tmp_path_factory.mktemp("readings"),
    )
    extraction = run_experiment(
        _cfg(
            [
                "experiment=extraction",
                *common,
                "extraction.n_boot=50",
                ("method=[proposed,proposed_bounded,proposed_best_table4,proposed_dedup]"),
            ]
        ),
        tmp_path_factory.mktemp("extraction"),
    )
    return study, extraction


@pytest.mark.parametrize(
    "reading, method",
    [
        ("literal", "proposed"),
        ("title_count=distinct link_count=distinct bound=ratios", "proposed@bounded"),
        (
            (
                "title_count=distinct link_scope=page link_count=distinct content_count=occurrences "
                "bound=ratios if_none_pass=all"
            ),
            "proposed@best_table4",
        ),
        ("proposed@dedup", "proposed@dedup"),
    ],
)
def test_numbers_equal_the_extraction_experiments(runs, reading, method):
    study, extraction = runs
    s = pd.read_csv(study / "summary.csv")
    e = pd.read_csv(extraction / "summary.csv")
    for metric in (
        "shingle_precision",
        "shingle_recall",
        "shingle_f1",
        "unit_f1_micro_words",
        "pages_correct",
    ):
        mine = s[(s["method"] == reading) & (s["metric"] == metric)]
        theirs = e[(e["method"] == method) & (e["metric"] == metric)]
        assert len(mine) == len(theirs) == 1, (reading, metric)
        for col in ("value", "ci_low", "ci_high", "n_pages"):
            assert mine.iloc[0][col] == theirs.iloc[0][col], (reading, metric, col)


def test_table4_column_and_outputs(runs):
    study, _ = runs
    grid = pd.read_csv(study / "tables" / "readings_grid.csv.gz").set_index("reading")
    assert len(grid) == len(R.GRID)
    for name in (
        "literal",
        "title_count=distinct link_count=distinct bound=ratios",
        (
            "title_count=distinct link_scope=page link_count=distinct "
            "content_count=occurrences bound=ratios if_none_pass=all"
        ),
    ):
        assert bool(grid.loc[name, "reproduces_table4"]) is True
    # the pseudocode's 0.3 * 0.4 * w_c gives other scores (b2: 1 - 0.3 * 7/12 - 0.3 * 0.4 * 39/227 = 0.804, not 0.756)
    assert bool(grid.loc["content_weight=pseudocode", "reproduces_table4"]) is False
    assert bool(grid.loc["comparison=ge", "reproduces_table4"]) is True
    report = (study / "report.md").read_text()
    assert "saravanan2020_correct" in report and "pages_correct" in report and "93 %" in report
    assert (study / "figures" / "readings_f1.png").is_file()
    s = pd.read_csv(study / "summary.csv")
    assert {"saravanan2020_correct", "pages_correct", "unit_f1_micro_words"} <= set(s["metric"])
