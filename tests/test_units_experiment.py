"""The ``units`` experiment: shallow features worked by hand, 1R, grouped folds, scores, a real run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from omegaconf import OmegaConf
from sklearn.metrics import precision_recall_fscore_support

from evalkit.core.page import parse_html
from evalkit.core.units import segment
from evalkit.experiments import EXPERIMENTS, Context
from evalkit.experiments import units as U

REPO = Path(__file__).resolve().parents[1]

PARAGRAPH = (
    "The quick brown fox jumps over the lazy dog near the river bank today and then "
    "runs far away into the deep dark forest."
)
PAGE = f"""<html><body>
<h1>Big News Today</h1>
<p>{PARAGRAPH}</p>
<div><a href="/">Home</a> | <a href="/world">World news</a></div>
</body></html>"""


def test_registered():
    assert EXPERIMENTS.get("units") is U.run


def test_wrap_lines_fills_to_the_width_and_never_splits_a_token():
    assert U.wrap_lines(["a" * 40, "b" * 39, "c"]) == [["a" * 40, "b" * 39], ["c"]]  # 80 fits
    assert U.wrap_lines(["a" * 40, "b" * 40]) == [["a" * 40], ["b" * 40]]  # 81 does not
    assert U.wrap_lines(["x" * 100, "y"]) == [["x" * 100], ["y"]]
    assert U.wrap_lines([]) == []
    with pytest.raises(ValueError):
        U.wrap_lines(["a"], width=0)


def test_text_density_excludes_the_last_line():
    # 20 three-letter words fill 79 characters; 45 words wrap as 20 / 20 / 5
    assert U.text_density(" ".join(["abc"] * 45)) == 20.0
    # a single line counts all its words
    assert U.text_density("one two three") == 3.0
    # punctuation-only tokens take room on a line but are not words: 13 "abc |" pairs fill
    # 77 characters, so 30 pairs wrap as 13 / 13 / 4 pairs, 13 words per full line
    assert U.text_density(" ".join(["abc |"] * 30)) == 13.0
    assert U.text_density("") == 0.0


def test_words_need_a_letter_or_digit():
    assert U.words_of("Home | World -- news 2010 »") == ["Home", "World", "news", "2010"]


def test_features_of_a_hand_made_page():
    units = segment(parse_html(PAGE))
    assert [u.text for u in units] == ["Big News Today", PARAGRAPH, "Home | World news"]
    f = [U.unit_features(u) for u in units]
    assert f[0] == {
        "n_words": 3.0,
        "avg_word_length": 4.0,
        "link_density": 0.0,
        "text_density": 3.0,
    }
    # the paragraph wraps after "then" (78 characters): 16 words on the first of two lines
    assert f[1]["n_words"] == 24.0
    assert f[1]["avg_word_length"] == pytest.approx(96 / 24)  # 63 letters on line 1, 33 on line 2
    assert f[1]["text_density"] == 16.0
    assert f[1]["link_density"] == 0.0
    # 3 of the 4 whitespace tokens are inside <a>; "|" is not a word
    assert f[2] == {
        "n_words": 3.0,
        "avg_word_length": pytest.approx(13 / 3),
        "link_density": 0.75,
        "text_density": 3.0,
    }


def test_page_rows_context_and_labels():
    units = segment(parse_html(PAGE + "<p>|</p>"))
    units[0].fine, units[1].fine = "sel1", "sel2"
    rows = U.page_rows(units, "p1", by_span=True)
    assert len(rows) == 3  # the word-less "|" unit is dropped
    assert rows["prev_n_words"].tolist() == [0.0, 3.0, 24.0]
    assert rows["next_n_words"].tolist() == [24.0, 3.0, 0.0]
    assert rows["next_link_density"].tolist() == [0.0, 0.75, 0.0]
    assert rows["weight"].tolist() == [3.0, 24.0, 3.0]
    assert rows["y_main"].tolist() == [1, 1, 0]
    assert rows["y_any"].tolist() == [1, 1, 0]
    # aligned gold (no spans): every task uses the unit's content/noise label
    for u, lab in zip(units, ["noise", "content", "noise"]):
        u.label = lab
    rows = U.page_rows(units, "p1", by_span=False)
    assert rows["y_main"].tolist() == [0, 1, 0]


def test_units_inside_drop_down_lists_are_left_out():
    html = PAGE.replace(
        "</body>",
        "<form><select><option>United Kingdom</option>"
        "<option>United States</option></select> Go</form></body>",
    )
    units = segment(parse_html(html))
    assert [u.text for u in units[3:]] == ["United Kingdom", "United States", "Go"]
    assert U.inside(units[3].path, ["select"]) and not U.inside(units[5].path, ["select"])
    rows = U.page_rows(units, "p", by_span=False)
    assert rows["n_words"].tolist() == [3.0, 24.0, 3.0, 1.0]  # "Go" (after the list) stays
    assert rows["prev_n_words"].iloc[-1] == 3.0  # neighbours skip the dropped units
    assert len(U.page_rows(units, "p", by_span=False, drop_inside=())) == 6


def test_one_r_picks_the_cut_with_least_error():
    x = np.array([[1.0], [2.0], [3.0], [10.0], [11.0], [12.0]])
    est = U.OneR().fit(x, [0, 0, 0, 1, 1, 1])
    assert est.threshold_ == 6.5 and est.left_class_ == 0 and est.right_class_ == 1
    assert est.predict([[6.0], [7.0]]).tolist() == [0, 1]
    # reversed classes: high values are the first class
    est = U.OneR().fit(x, ["b", "b", "b", "a", "a", "a"])
    assert (est.threshold_, est.left_class_, est.right_class_) == (6.5, "b", "a")


def test_one_r_weights_move_the_cut():
    x, y, w = [[1.0], [2.0], [3.0], [4.0]], [0, 0, 1, 0], [1, 1, 10, 1]
    # unweighted no cut beats majority (3 of 4 right either way): predict 0 everywhere
    est = U.OneR().fit(x, y)
    assert est.predict(x).tolist() == [0, 0, 0, 0]
    # weighted, the cut at 2.5 is right on 12 of 13 units
    est = U.OneR().fit(x, y, sample_weight=w)
    assert est.threshold_ == 2.5
    assert est.predict(x).tolist() == [0, 0, 1, 1]


def test_one_r_chooses_the_informative_column():
    x = np.array([[5, 1], [5, 2], [5, 3], [5, 10], [5, 11], [5, 12]], dtype=float)
    est = U.OneR().fit(x, [0, 0, 0, 1, 1, 1])
    assert est.feature_ == 1 and est.threshold_ == 6.5


def test_group_folds_never_split_a_page():
    rng = np.random.default_rng(3)
    groups = rng.integers(0, 57, size=2000).astype(str)
    fold = U.group_folds(groups, n_folds=10, seed=0)
    df = pd.DataFrame({"g": groups, "f": fold})
    assert (df.groupby("g")["f"].nunique() == 1).all()
    assert sorted(set(fold)) == list(range(10))
    assert (U.group_folds(groups, 10, seed=0) == fold).all()  # seeded
    assert not (U.group_folds(groups, 10, seed=1) == fold).all()
    with pytest.raises(ValueError, match="at least 10 pages"):
        U.group_folds(["a", "b", "c"], n_folds=10)


def test_word_scores_by_hand_and_against_sklearn():
    s = U.word_scores(6, 2, 3, 9)
    assert s["precision"] == pytest.approx(0.75)
    assert s["recall"] == pytest.approx(6 / 9)
    assert s["f1"] == pytest.approx(12 / 17)
    assert s["accuracy"] == pytest.approx(15 / 20)
    assert s["precision_weighted"] == pytest.approx(0.75)
    assert s["recall_weighted"] == pytest.approx(0.75)
    assert s["f1_weighted"] == pytest.approx((9 * 12 / 17 + 11 * 18 / 23) / 20)
    y = [1] * 9 + [0] * 11
    pred = [1] * 6 + [0] * 3 + [1] * 2 + [0] * 9
    p, r, f, _ = precision_recall_fscore_support(y, pred, average="weighted")
    assert (s["precision_weighted"], s["recall_weighted"], s["f1_weighted"]) == pytest.approx(
        (p, r, f)
    )


def test_word_scores_reproduce_the_papers_zero_r_row():
    # ZeroR predicting content on a 63.8 % content share gives the paper's 40.7 / 63.8 / 49.7
    s = U.word_scores(638, 362, 0, 0)
    assert round(100 * float(s["precision_weighted"]), 1) == 40.7
    assert round(100 * float(s["recall_weighted"]), 1) == 63.8
    assert round(100 * float(s["f1_weighted"]), 1) == 49.7
    assert U.word_scores(0, 0, 0, 0)["f1"] == 0.0  # empty counts are 0, not NaN


def test_unknown_feature_and_model_fail_clearly():
    with pytest.raises(ValueError, match="unknown unit features"):
        U.feature_columns({"features": ["n_wrods"]})
    with pytest.raises(ValueError, match="unknown unit classifier model"):
        U.make_classifier({"model": "svm"})
    assert U.feature_columns({"features": ["n_words"], "context": True}) == [
        "prev_n_words",
        "n_words",
        "next_n_words",
    ]


def test_study_config_composes_with_every_paper_row_a_classifier():
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(REPO / "configs"), version_base="1.3"):
        cfg = compose("config", overrides=["study=san_aye", "detector=[]", "method=[fulltext]"])
    # units (Table 1), then the paper's whole pipeline as an extractor (method san_aye)
    assert cfg.experiment.name == "units" and list(cfg.experiment.parts) == ["units", "extraction"]
    assert list(cfg.dataset) == ["l3s_gn1"]
    paper = cfg.units.paper
    assert paper.task in cfg.units.tasks
    assert len(paper.rows) == 9
    for method, row in paper.rows.items():
        assert method in cfg.units.classifiers
        assert len(row["values"]) == len(paper.metrics) == 3


def _ctx(tmp_path, ds, **units):
    base = OmegaConf.load(REPO / "configs" / "experiment" / "units.yaml")
    opts = OmegaConf.to_container(base.units, resolve=False)
    opts.update(seed=0, **units)
    cfg = OmegaConf.create({"runner": {"n_jobs": 1}, "seed": 0, "units": opts})
    (tmp_path / "tables").mkdir()
    (tmp_path / "figures").mkdir()
    return Context(cfg=cfg, out=tmp_path, datasets={"l3s_gn1": ds}, specs=[], seed=0)


def test_reduced_run_on_l3s_gn1(shared, tmp_path):
    from evalkit.readers.l3s import L3SGN1Dataset

    ds = L3SGN1Dataset(path=str(shared("l3s-gn1")), limit=40)
    paper = OmegaConf.to_container(
        OmegaConf.load(REPO / "configs" / "study" / "san_aye.yaml").units.paper
    )
    ctx = _ctx(tmp_path, ds, min_samples_leaf=100, n_boot=200, paper=paper)
    summary = U.run(ctx)
    assert set(summary["method"]) == set(U.DEFAULT_CLASSIFIERS)
    assert (summary["n_pages"] == 40).all()
    wide = summary.pivot(index="method", columns="metric", values="value")
    for task in ("main", "any"):
        f1 = wide[f"f1_{task}"]
        assert f1.between(0, 1).all()
        assert (wide[f"recall_weighted_{task}"] - wide[f"accuracy_{task}"]).abs().max() < 1e-12
        assert f1["tree_all"] > f1["zero_r"] + 0.1
        assert (
            wide.loc["tree_all", f"f1_weighted_{task}"]
            > wide.loc["zero_r", f"f1_weighted_{task}"] + 0.2
        )
    # the interval belongs to the reported value (the mean over folds)
    eps = 1e-12
    assert (
        (summary["ci_low"] <= summary["value"] + eps)
        & (summary["value"] <= summary["ci_high"] + eps)
    ).all()
    # ZeroR predicts content (the majority by words) on every unit: recall 1
    assert wide.loc["zero_r", "recall_any"] == 1.0
    for name in (
        "units_l3s_gn1_main.md",
        "units_l3s_gn1_any.csv",
        "units_l3s_gn1_paper.md",
        "units_l3s_gn1_classes.csv",
        "units_l3s_gn1_folds.csv",
    ):
        assert (tmp_path / "tables" / name).is_file(), name
    assert (tmp_path / "figures" / "units_l3s_gn1_paper_f1.png").is_file()
    table = pd.read_csv(tmp_path / "tables" / "units_l3s_gn1_paper.csv")
    assert len(table) == 9 and not table["f1_weighted ours"].eq("-").any()
    folds = pd.read_csv(tmp_path / "tables" / "units_l3s_gn1_folds.csv")
    assert set(folds["fold"]) == set(range(10))


def test_summarize_interval_of_the_fold_mean():
    # fold 0: three identical pages (6, 2, 3, 9); fold 1: three perfect pages. Resampling
    # pages within a fold cannot change that fold's score, so the interval collapses on the mean.
    pages = pd.DataFrame(
        [
            {
                "task": "t",
                "method": "m",
                "page_id": f"a{i}",
                "fold": 0,
                "words_tp": 6,
                "words_fp": 2,
                "words_fn": 3,
                "words_tn": 9,
            }
            for i in range(3)
        ]
        + [
            {
                "task": "t",
                "method": "m",
                "page_id": f"b{i}",
                "fold": 1,
                "words_tp": 10,
                "words_fp": 0,
                "words_fn": 0,
                "words_tn": 10,
            }
            for i in range(3)
        ]
    )
    fold_counts = {0: (18, 6, 9, 27), 1: (30, 0, 0, 30)}
    folds = pd.DataFrame(
        [
            {
                "task": "t",
                "method": "m",
                "fold": k,
                **{m: float(v) for m, v in U.word_scores(*c).items()},
            }
            for k, c in fold_counts.items()
        ]
    )
    s = U.summarize(folds, pages, "d", n_boot=50).set_index("metric")
    assert s.loc["f1_t", "value"] == pytest.approx((12 / 17 + 1) / 2)
    assert s.loc["f1_t", "ci_low"] == pytest.approx(s.loc["f1_t", "value"])
    assert s.loc["f1_t", "ci_high"] == pytest.approx(s.loc["f1_t", "value"])
    assert (s["n_pages"] == 6).all()
    with pytest.raises(ValueError, match="alpha"):
        U.summarize(folds, pages, "d", alpha=1.5)


@pytest.mark.slow
def test_content_share_of_all_l3s_gn1_matches_the_papers_zero_r(shared):
    """The papers' ZeroR recall is the content share by words: 63.8 %; ours is 63.9 %."""
    from evalkit.readers.l3s import L3SGN1Dataset

    ds = L3SGN1Dataset(path=str(shared("l3s-gn1")))
    from evalkit.harness.runner import Runner

    failures = []
    rows = U._features(
        Runner(progress=False),
        ds,
        U.DEFAULT_TASKS,
        U.DEFAULT_LINE_WIDTH,
        U.DEFAULT_DROP_INSIDE,
        failures,
    )
    assert failures == []
    assert rows["page_id"].nunique() == 621
    share = rows.loc[rows["y_any"] == 1, "weight"].sum() / rows["weight"].sum()
    assert share == pytest.approx(0.638, abs=0.002)
    main = rows.loc[rows["y_main"] == 1, "weight"].sum() / rows["weight"].sum()
    assert main == pytest.approx(0.523, abs=0.002)  # headline + full text


def test_fewer_pages_than_folds_is_one_line_and_no_numbers(tmp_path, capsys):
    from evalkit.readers.synthetic import SyntheticDataset

    ctx = _ctx(tmp_path, SyntheticDataset(limit=2), folds=5)
    assert U.run(ctx) is None  # no summary rows: nothing cross-validated on 2 pages
    said = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("evalkit:")]
    line = (
        "evalkit: units: l3s_gn1 has 2 page(s) with units, fewer than units.folds=5: its unit"
        " classifiers are not cross-validated (more pages, or a smaller units.folds)"
    )
    assert said == [line]
    assert not list((tmp_path / "tables").iterdir())
