"""The leaderboard (issue 40): each benchmark's summary rule worked by hand, and on real pages
the study's cells equal each benchmark's own study (AEB: the extraction experiment's shingle
rows; WCXB; trafilatura's evaluation; WCEB's stored outputs), a method trained on a set is
marked and left out of the ranks unless asked, and the published rows say why they are not run."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from evalkit.core.page import Extraction, Gold, Page
from evalkit.experiments.benchmarks import BENCHMARKS
from evalkit.experiments.leaderboard import scores, tables
from evalkit.metrics.snippets import PREFIX as TRAF
from tests.test_studies import _run

LIMIT = 6


def _frame(rows):
    return pd.DataFrame(rows).assign(error=None)


def test_every_benchmark_has_a_summary_rule():
    assert set(scores.MAIN) == set(BENCHMARKS)


def test_aeb_is_the_f1_of_the_mean_precision_and_mean_recall():
    # P = (1 + 0.5) / 2 = 0.75 (the page without output has none), R = (1 + 0.5 + 0) / 3 = 0.5
    df = _frame(
        [
            {"shingle_precision": 1.0, "shingle_recall": 1.0},
            {"shingle_precision": 0.5, "shingle_recall": 0.5},
            {"shingle_precision": math.nan, "shingle_recall": 0.0},
        ]
    )
    assert scores.main_value(df, "aeb") == pytest.approx(2 * 0.75 * 0.5 / 1.25)


def test_trafilatura_eval_is_micro_over_the_summed_counts():
    # tp 3, fp 1, fn 2 over two documents: F = 2*3 / (2*3 + 1 + 2) = 6/9
    df = _frame(
        [
            {f"{TRAF}tp": 2, f"{TRAF}fp": 0, f"{TRAF}fn": 1, f"{TRAF}tn": 3},
            {f"{TRAF}tp": 1, f"{TRAF}fp": 1, f"{TRAF}fn": 1, f"{TRAF}tn": 0},
        ]
    )
    assert scores.main_value(df, "trafilatura_eval") == pytest.approx(6 / 9)


def test_wceb_leaves_failed_pages_out_and_wcxb_counts_them():
    df = pd.DataFrame(
        {
            "wceb_rougelsum_f1": [0.8, 0.4, math.nan],
            "wcxb_f1": [0.8, 0.4, 0.0],
            "error": [None, None, "stored: no output"],
        }
    )
    assert scores.main_value(df, "wceb") == pytest.approx(0.6)
    assert scores.main_value(df, "wcxb") == pytest.approx(0.4)


def test_a_record_carries_its_pages_language_and_complexity():
    gold = Gold(text="Der Hund läuft schnell über die Wiese und bellt laut in der Sonne.")
    gold.visible_words = gold.text.split() * 4  # a quarter of what shows is gold
    page = Page(id="p", dataset="d", raw=b"<p>x</p>", gold=gold)
    rec = scores.score(page, "m", Extraction(text=gold.text), benchmark="wcxb")
    assert rec["language"] == "de"
    assert rec["complexity"] == pytest.approx(0.75)
    assert rec["wcxb_f1"] == pytest.approx(1.0)


def test_the_board_marks_a_trained_cell_and_sorts_by_rank():
    summary = pd.DataFrame(
        [
            {
                "dataset": s,
                "method": m,
                "metric": "board_score",
                "value": v,
                "ci_low": v - 0.1,
                "ci_high": v + 0.1,
                "n_pages": 3,
            }
            for s, m, v in [("a", "x", 0.5), ("a", "y", 0.9), ("b", "x", 0.4), ("b", "y", 0.8)]
        ]
    )
    board = tables.board_table(summary, ["x", "y"], ["a", "b"], {"b": {"x"}}, pd.Series({"y": 1.0}))
    assert list(board["method"]) == ["y", "x"]
    assert board.loc[1, "b"] == "0.400 [0.300, 0.500] †"
    assert board.loc[1, "mean rank"] == "-"


@pytest.mark.shared
@pytest.mark.slow
def test_the_leaderboards_cells_equal_each_benchmarks_own_study(tmp_path, shared):
    for name in ("scrapinghub-aeb", "wcxb-dev", "trafilatura-eval", "wceb"):
        shared(name)
    sets = ["aeb", "wcxb_dev", "trafilatura_eval", "wceb_readability"]
    methods = "method=[fulltext,cetd,chromerag]"
    limits = [f"dataset.{s}.limit={LIMIT}" for s in sets]
    common = ["leaderboard.cost.pages=0", "leaderboard.n_boot=50", *limits]
    board = pd.read_csv(
        _run(tmp_path, ["study=leaderboard", f"dataset=[{','.join(sets)}]", methods, *common])
        / "summary.csv"
    )
    cell = board[board["metric"] == "board_score"].set_index(["dataset", "method"])["value"]

    def own(overrides, metric, name):
        s = pd.read_csv(_run(tmp_path, overrides, name) / "summary.csv")
        return s[s["metric"] == metric].set_index(["dataset", "method"])["value"]

    aeb = own(["experiment=extraction", "dataset=aeb", methods, limits[0]], "shingle_f1", "aeb")
    wcxb = own(["study=wcxb", methods, limits[1]], "wcxb_f1", "wcxb")
    traf = own(["study=trafilatura_eval", methods, limits[2]], f"{TRAF}f_score", "traf")
    wceb = own(
        ["study=wceb", "dataset=wceb_readability", "wceb.tools=[trafilatura]", limits[3]],
        "wceb_rougelsum_f1",
        "wceb",
    )
    for m in ("fulltext", "cetd", "chromerag"):
        assert cell[("aeb", m)] == pytest.approx(aeb[("aeb", m)], abs=1e-12)
        assert cell[("wcxb_dev", m)] == pytest.approx(wcxb[("wcxb_dev", m)], abs=1e-12)
        assert cell[("trafilatura_eval", m)] == pytest.approx(
            traf[("trafilatura_eval", m)], abs=1e-12
        )
    got = cell[("wceb_readability", "published:trafilatura")]
    assert got == pytest.approx(wceb[("wceb_readability", "trafilatura")], abs=1e-12)
    # chromerag was trained on WCXB dev: its cell is marked and it is not ranked
    ranked = set(board[(board["dataset"] == "ranks") & (board["metric"] == "mean_rank")]["method"])
    assert ranked == {"fulltext", "cetd"}
    out = next((tmp_path / "run").glob("tables/leaderboard.csv"), None) or (
        tmp_path / "run" / "tables" / "leaderboard.csv"
    )
    table = pd.read_csv(out)
    wcxb_col = next(c for c in table.columns if c.startswith("wcxb_dev"))
    assert table.set_index("method").loc["chromerag", wcxb_col].endswith(tables.TRAINED)
    published = pd.read_csv(tmp_path / "run" / "tables" / "leaderboard_published_wcxb_dev.csv")
    rs = published.set_index("tool (published row)").loc["rs-trafilatura", "agreement"]
    assert rs.startswith("not run here: a Rust crate")


@pytest.mark.shared
@pytest.mark.slow
def test_rank_trained_puts_a_trained_method_back_into_the_ranks(tmp_path, shared):
    shared("wcxb-dev")
    shared("trafilatura-eval")
    run = _run(
        tmp_path,
        [
            "study=leaderboard",
            "dataset=[wcxb_dev,trafilatura_eval]",
            "method=[fulltext,chromerag]",
            "dataset.wcxb_dev.limit=4",
            "dataset.trafilatura_eval.limit=4",
            "leaderboard.cost.pages=0",
            "leaderboard.n_boot=20",
            "leaderboard.rank_trained=true",
        ],
    )
    s = pd.read_csv(run / "summary.csv")
    assert set(s[s["metric"] == "mean_rank"]["method"]) == {"fulltext", "chromerag"}
