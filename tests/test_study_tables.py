"""The benchmark studies' console tables (issue 38, item 2): each study prints its headline
numbers per set as an extraction run does, with the published figure and a short verdict."""

from __future__ import annotations

import pandas as pd

from evalkit.experiments.benchmarks import comparison, pages_note
from evalkit.experiments.studies import headline, verdict
from evalkit.harness.summary import summary_row
from evalkit.report.console import WIDTH, text_table


def _summary():
    rows = []
    for method, (f, p, r) in {
        "goose3": (0.812, 0.929, 0.722),
        "trafilatura": (0.901, 0.914, 0.889),
    }.items():
        for key, v in (("f_score", f), ("precision", p), ("recall", r)):
            rows.append(summary_row("te", method, f"traf_{key}", v, n_pages=12))
    return pd.DataFrame(rows)


def test_a_study_headline_table_sorts_by_its_score_and_says_subset_not_differs():
    per_page = pd.DataFrame(
        {
            "page_id": ["a", "b"] * 2,
            "method": ["goose3"] * 2 + ["trafilatura"] * 2,
            "error": [None, "boom", None, None],
        }
    )
    pub = [
        {
            "row": "goose3 3.1.22",
            "method": "goose3",
            "package": "pandas",
            "version": pd.__version__,
            "f_score": 0.810,
        }
    ]
    ours = {"goose3": {"f_score": 0.812}, "trafilatura": {"f_score": 0.901}}
    table = comparison(ours, pub, ["f_score"], 0.01, pages_note(12, 990))
    frame = headline(
        _summary(),
        per_page,
        "traf_",
        {"f_score": "F-score", "precision": "P", "recall": "R"},
        table,
    )
    assert list(frame["method"]) == ["trafilatura", "goose3"]
    assert frame.iloc[1].to_dict() == {
        "method": "goose3",
        "F-score": "0.812",
        "P": "0.929",
        "R": "0.722",
        "failures": "1/2",
        "F-score published": "0.810",
        "verdict": "not comparable",
    }
    text = text_table(frame, "te (12 documents)", ("  subset of 12 of 990 pages",))
    lines = text.splitlines()
    assert lines[2].split() == ["trafilatura", "0.901", "0.914", "0.889", "0/2", "-", "-"]
    assert lines[3].split()[:2] == ["goose3", "0.812"] and "differs" not in text
    assert all(len(line) <= WIDTH for line in lines) and lines[-1].endswith("990 pages")


def test_verdicts_are_shortened_not_changed():
    assert verdict("within 0.01 (largest difference 0.004)") == "within 0.01"
    assert verdict("differs by up to 0.067 at the published version") == "differs by 0.067"
    assert verdict("subset of 50 of 990 pages: not comparable") == "not comparable"


def test_a_long_method_name_is_cut_to_fit_the_width():
    frame = pd.DataFrame({"method": ["m" * 150], "F1": ["0.500"]})
    lines = text_table(frame, "t").splitlines()
    assert len(lines[2]) <= WIDTH and "~" in lines[2]


def _wceb_sets():
    from evalkit.experiments.wceb import F1

    rows = [
        summary_row(s, t, F1, 0.5 + i / 10, n_pages=3)
        for i, s in enumerate(["a", "b", "c", "d"])
        for t in ("trafilatura", "inscriptis")
        if not (t == "inscriptis" and s == "d")
    ]
    return pd.DataFrame(rows)


def test_wceb_marks_a_tool_aggregated_over_fewer_sets():
    from evalkit.experiments.wceb import FEWER, MEAN, _aggregate_table

    agg = pd.DataFrame(
        [
            summary_row("micro", t, MEAN, v, n_pages=9)
            for t, v in (("trafilatura", 0.7), ("inscriptis", 0.8))
        ]
    )
    table = _aggregate_table(agg, _wceb_sets())
    sets = dict(zip(table["tool"], table["sets"]))
    assert sets == {"inscriptis": f"3{FEWER}", "trafilatura": "4"}


def test_wceb_says_expected_id_mismatches_in_one_line_and_warns_of_all_empty_outputs(capsys):
    from types import SimpleNamespace

    from evalkit.experiments.wceb import _tell_set

    miss = "MissingOutput: no stored output for page 'x'"
    per_page = pd.DataFrame(
        {
            "page_id": ["x", "x", "y", "y"],
            "method": ["go_domdistiller", "goose3"] * 2,
            "error": [miss, miss, None, None],
            "n_words_out": [0, 0, 0, 12],
        }
    )
    failures = [
        {"dataset": "l3s", "page": "x", "method": m, "error": miss}
        for m in ("go_domdistiller", "goose3")
    ]
    ctx = SimpleNamespace(failures=list(failures), dataset_info={})
    _tell_set(ctx, per_page, "l3s")
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and "1 page(s) have no stored output of any of the 2 tools" in err[0]
    assert "all 1 stored outputs of go_domdistiller are empty" in err[1]
    assert ctx.failures == [] and ctx.dataset_info["l3s"]["without_stored_output"] == ["x"]


def test_a_method_trained_on_the_set_is_marked_in_the_headline():
    per_page = pd.DataFrame(
        {"page_id": ["a", "a"], "method": ["goose3", "trafilatura"], "error": [None, None]}
    )
    frame = headline(_summary(), per_page, "traf_", {"f_score": "F"}, None, {"goose3"})
    assert dict(zip(frame["method"], frame["note"])) == {
        "goose3": "trained on this set",
        "trafilatura": "",
    }
    assert "note" not in headline(_summary(), per_page, "traf_", {"f_score": "F"}).columns


def test_trained_here_matches_the_label_or_the_folder_name():
    from types import SimpleNamespace

    from evalkit.experiments.studies import trained_here
    from evalkit.harness.specs import MethodSpec

    ctx = SimpleNamespace(
        datasets={"mine": SimpleNamespace(path="/data/wcxb-dev")},
        specs=[MethodSpec("chromerag", "chromerag"), MethodSpec("fulltext", "fulltext")],
    )
    assert trained_here(ctx, "mine") == {"chromerag"}
