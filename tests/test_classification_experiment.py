"""The ``classification`` experiment: reference rows, draws worked by hand, summaries, runs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from omegaconf import OmegaConf

from evalkit.core.naive_bayes import naive_bayes_accuracy
from evalkit.core.page import Gold, Page
from evalkit.experiments import EXPERIMENTS, Context
from evalkit.experiments import classification as C
from evalkit.harness.specs import MethodSpec
from evalkit.readers.base import InMemoryDataset


def test_registered():
    assert EXPERIMENTS.get("classification") is C.run


def test_references_come_first_and_are_not_doubled():
    specs = [MethodSpec("pab", "pab"), MethodSpec("cetd", "cetd")]
    assert [s.label for s in C.classification_specs(specs)] == ["raw", "gold", "pab", "cetd"]
    raw = C.classification_specs(specs)[0]
    assert (raw.registry, raw.params) == ("fulltext", {})
    mine = [MethodSpec("gold", "gold"), MethodSpec("pab", "pab")]
    assert [s.label for s in C.classification_specs(mine)] == ["raw", "gold", "pab"]


def _per_page(methods: dict[str, list[str | None]], labels: list[str]) -> pd.DataFrame:
    rows = []
    for method, texts in methods.items():
        for i, (text, label) in enumerate(zip(texts, labels)):
            rows.append(
                {
                    "method": method,
                    "page_id": f"p{i}",
                    "category": label,
                    "text": text or "",
                    "error": "boom" if text is None else None,
                }
            )
    return pd.DataFrame(rows)


LABELS = ["a"] * 10 + ["b"] * 10


def test_draws_worked_by_hand():
    # 20 pages, 2 classes of 10. A test fraction of 0.1 holds 2 pages, stratified: one of each.
    # "clean": each class has its own words -> every test page right. "same": one text for all
    # pages -> equal likelihoods and equal training priors (9 v 9), so NB picks the first class,
    # "a": 1 of 2 right. "dead": every extraction failed -> unavailable, no draws.
    per_page = _per_page(
        {
            "clean": ["apple pear plum"] * 10 + ["engine wheel brake"] * 10,
            "same": ["river stone"] * 20,
            "dead": [None] * 20,
        },
        LABELS,
    )
    draws, status = C.accuracy_draws(per_page, test_fractions=(0.1,), repeats=4, seed=3)
    assert status["clean"] == status["same"] == "ok"
    assert status["dead"] == "unavailable: boom"
    assert set(draws["method"]) == {"clean", "same"}
    assert draws.groupby("method")["accuracy"].apply(list).to_dict() == {
        "clean": [1.0] * 4,
        "same": [0.5] * 4,
    }
    assert (draws["n_test"] == 2).all() and draws["stratified"].all()


def test_failed_pages_count_as_empty_and_are_noted():
    texts = ["apple pear"] * 10 + ["engine wheel"] * 10
    texts[0] = None
    draws, status = C.accuracy_draws(_per_page({"m": texts}, LABELS), (0.5,), repeats=2, seed=0)
    assert status["m"] == "ok (1 failed pages counted as empty)"
    expected = naive_bayes_accuracy([t or "" for t in texts], LABELS, (0.5,), repeats=2, seed=0)
    assert draws["accuracy"].tolist() == expected["accuracy"].tolist()


def test_same_splits_for_every_method():
    texts = [f"w{i % 7} x{i}" for i in range(20)]
    draws, _ = C.accuracy_draws(
        _per_page({"m1": texts, "m2": texts[::-1]}, LABELS), (0.2, 0.3), repeats=3, seed=5
    )
    a, b = (draws[draws["method"] == m].reset_index(drop=True) for m in ("m1", "m2"))
    assert a[["case", "repeat", "n_test", "n_train"]].equals(
        b[["case", "repeat", "n_test", "n_train"]]
    )


def _draws(method: str, case_acc: dict[int, list[float]]) -> pd.DataFrame:
    rows = [
        {
            "method": method,
            "case": c,
            "test_fraction": 0.1 * c,
            "repeat": r,
            "n_train": 90,
            "n_test": 10 * c,
            "n_correct": 0,
            "accuracy": a,
            "stratified": True,
            "note": "",
        }
        for c, accs in case_acc.items()
        for r, a in enumerate(accs)
    ]
    return pd.DataFrame(rows)


def test_summarize_numbers():
    # case 1 draws 0.8, 0.9, 1.0; case 2 draws 0.6, 0.7, 0.8
    draws = _draws("m", {1: [0.8, 0.9, 1.0], 2: [0.6, 0.7, 0.8]})
    s = C.summarize(
        draws, {"m": "ok", "gone": "unavailable: x"}, {"gone": 30}, "d", 30, n_boot=200
    ).set_index(["method", "metric"])
    v = s["value"]
    assert v["m", "accuracy_case1"] == pytest.approx(0.9)
    assert v["m", "accuracy_case1_std"] == pytest.approx(0.1)
    assert v["m", "accuracy_case1_first"] == pytest.approx(0.8)
    assert v["m", "accuracy_case2"] == pytest.approx(0.7)
    # per repeat: (0.8+0.6)/2, (0.9+0.7)/2, (1.0+0.8)/2 -> 0.7, 0.8, 0.9
    assert v["m", "accuracy"] == pytest.approx(0.8)
    # the paper's standard error: mean error over the cases' first draws = 1 - (0.8+0.6)/2
    assert v["m", "kabir_se"] == pytest.approx(0.3)
    assert v["m", "kabir_se_mean"] == pytest.approx(1 - 0.8)
    assert v["m", "se"] == pytest.approx(np.std([0.8, 0.6], ddof=1) / math.sqrt(2))
    assert v["m", "failures"] == 0 and v["gone", "failures"] == 30
    # an unavailable method has its failures row and nothing else
    assert list(s.loc["gone"].index) == ["failures"]
    lo, hi = s.loc[("m", "accuracy_case1"), ["ci_low", "ci_high"]]
    assert 0.8 <= lo <= 0.9 <= hi <= 1.0
    assert (s["n_pages"] == 30).all()


def test_paper_tables_put_the_paper_beside_ours():
    draws = _draws("pab", {1: [0.8, 1.0], 2: [0.5, 0.7]})
    status = {"pab": "ok", "peer": "unavailable: missing"}
    summary = C.summarize(draws, status, {}, "d", 100, n_boot=50)
    paper = {
        "test_pages": [10, 20],
        "rows": {
            "pab": {"row": "PAB", "accuracy": [80, 85.5], "kabir_se": 0.1},
            "eniw": {"row": "ENIW", "accuracy": [70, 75], "kabir_se": 0.2},
        },
    }
    cases, se = C.paper_tables(summary, draws, status, paper)
    assert cases.columns.tolist() == [
        "case",
        "test pages (paper)",
        "test pages (ours)",
        "PAB (paper)",
        "ENIW (paper)",
        "pab",
        "peer",
    ]
    assert cases.iloc[0].tolist() == [1, 10, 10, "80", "70", "90.0 ± 14.1", "unavailable"]
    assert cases.iloc[1]["PAB (paper)"] == "85.5"
    se = se.set_index("method")
    assert se.loc["pab", "kabir_se (paper)"] == "0.1"
    assert se.loc["pab", "kabir_se"] == "0.3500"  # 1 - (0.8 + 0.5) / 2
    assert se.loc["eniw", "kabir_se"] == "not run"
    assert se.loc["peer", "kabir_se"] == "unavailable: missing"


def _page(i, words, category):
    html = f"<html><body><div>menu home</div><p>{words}</p></body></html>"
    return Page(
        id=f"p{i:02d}", dataset="tiny", raw=html.encode(), gold=Gold(text=words, category=category)
    )


def _ctx(tmp_path, ds, specs, **opts):
    cfg = OmegaConf.create(
        {
            "runner": {"n_jobs": 1, "cache": False, "progress": False},
            "paths": {"cache": str(tmp_path / "cache")},
            "classification": {"repeats": 3, "n_boot": 100, **opts},
        }
    )
    for sub in ("tables", "figures"):
        (tmp_path / sub).mkdir(exist_ok=True)
    return Context(cfg=cfg, out=tmp_path, datasets={ds.name: ds}, specs=specs, seed=0)


def test_a_page_without_category_is_a_clear_error(tmp_path):
    ds = InMemoryDataset(
        [_page(0, "apple pear", "fruit"), _page(1, "engine wheel", None)], name="tiny"
    )
    with pytest.raises(
        C.MissingCategoryError,
        match=r"data set 'tiny' has no category for "
        r"page 'p01'",
    ):
        C.run(_ctx(tmp_path, ds, []))


def test_experiment_all_skips_a_set_without_categories_with_one_line(tmp_path, capsys):
    # bare `evalkit dataset=aeb` runs every part; classification cannot apply to aeb, the
    # other parts can, so the part is skipped for that set (and said so), not the whole run
    ds = InMemoryDataset([_page(0, "apple pear", None)], name="tiny")
    ctx = _ctx(tmp_path, ds, [])
    ctx.cfg.data["experiment"] = {"name": "all"}  # the typed config a run hands on
    assert C.run(ctx) is None
    out = capsys.readouterr().out
    assert "classification skipped for 'tiny': data set 'tiny' has no category" in out
    assert ctx.dataset_info["tiny"]["classification"].startswith("skipped: data set 'tiny'")


def test_run_on_a_tiny_set_with_an_unavailable_method(tmp_path):
    # 12 pages of 2 topics; raw adds the shared menu words to every page, gold does not.
    pages = [
        _page(i, "apple pear plum" if i % 2 else "engine wheel brake", "fruit" if i % 2 else "car")
        for i in range(12)
    ]
    broken = MethodSpec("broken", "pab", {"max_outer_link_share": 5.0})  # fails to build
    ctx = _ctx(tmp_path, InMemoryDataset(pages, name="tiny"), [broken], test_fractions=[0.2, 0.5])
    summary = C.run(ctx)
    wide = summary.pivot(index="method", columns="metric", values="value")
    assert list(dict.fromkeys(summary["method"])) == ["raw", "gold", "broken"]
    assert wide.loc["gold", "accuracy"] == 1.0 and wide.loc["raw", "accuracy"] == 1.0
    assert wide.loc["broken", "failures"] == 12 and math.isnan(wide.loc["broken", "accuracy"])
    tables = tmp_path / "tables"
    cases = pd.read_csv(tables / "classification_tiny_cases.csv")
    assert cases["test pages"].tolist() == [2, 6]  # 0.2 * 12 = 2.4 -> 2, 0.5 * 12 = 6
    assert (cases["broken"] == "unavailable").all()
    methods = pd.read_csv(tables / "classification_tiny_methods.csv").set_index("method")
    assert methods.loc["broken", "status"].startswith(
        "unavailable: method could not be built: ParamError"
    )  # a ValueError
    assert (tmp_path / "figures" / "classification_tiny_accuracy.png").is_file()
    assert len(ctx.failures) == 12
    # two topics without a shared word: every draw right, and the report says it is a ceiling
    assert any("cannot rank the methods" in getattr(s, "text", "") for s in ctx.report)
    per_page = pd.concat(ctx.per_page)
    assert "text" not in per_page and len(per_page) == 36


def test_synthetic_raw_matches_the_protocol_run_directly(tmp_path):
    from baselines.reference import FullText
    from evalkit.readers.synthetic import SyntheticDataset

    ds = SyntheticDataset(n_sites=6, pages_per_site=6, n_topics=3, seed=1)
    ctx = _ctx(tmp_path, ds, [MethodSpec("pab", "pab")])
    summary = C.run(ctx).set_index(["method", "metric"])["value"]
    pages = list(ds.pages())
    direct = naive_bayes_accuracy(
        [FullText().extract(p).text for p in pages], [p.category for p in pages], repeats=3, seed=0
    )
    for case, acc in direct.groupby("case")["accuracy"]:
        assert summary["raw", f"accuracy_case{case}"] == pytest.approx(acc.mean())
    assert set(summary.index.get_level_values(0)) == {"raw", "gold", "pab"}


# measured on the first 60 chaos pages (6 topics x 10), 3 draws per case, seed 0 (2026-11-22)
GOLD_CHAOS_60 = 1.0
RAW_CHAOS_60 = 0.895124716553288
PAB_CHAOS_60 = 0.8415532879818594


def test_reduced_run_on_chaos(shared, tmp_path):
    from evalkit.readers.pairs import PairsDataset

    ds = PairsDataset(
        path=str(shared("chaos")),
        limit=60,
        html_dir="html",
        gold_dir="gold",
        gold_format="text",
        category_pattern=r"^(?P<category>.+) \(\d+\)$",
    )
    ds.name = "chaos"
    ctx = _ctx(tmp_path, ds, [MethodSpec("pab", "pab")])
    summary = C.run(ctx)
    wide = summary.pivot(index="method", columns="metric", values="value")
    assert (summary["n_pages"] == 60).all()
    assert wide["failures"].eq(0).all()
    # gold classifies every draw right; the menus in raw and pab's kept blocks cost accuracy
    assert wide.loc["gold", "accuracy"] == pytest.approx(GOLD_CHAOS_60, abs=1e-9)
    assert wide.loc["raw", "accuracy"] == pytest.approx(RAW_CHAOS_60, abs=1e-9)
    assert wide.loc["pab", "accuracy"] == pytest.approx(PAB_CHAOS_60, abs=1e-9)
    assert not any("cannot rank the methods" in getattr(s, "text", "") for s in ctx.report)
