"""The ``speed`` experiment: growth exponents and summaries worked by hand, a short real run."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from evalkit.core.page import Gold, Page, parse_html
from evalkit.experiments import EXPERIMENTS, run_experiment
from evalkit.experiments import speed as S
from evalkit.harness.config import register_resolvers
from evalkit.harness.specs import MethodSpec
from evalkit.shell.cli import CONFIG_DIR

register_resolvers()


def test_registered():
    assert EXPERIMENTS.get("speed") is S.run


def test_growth_exponent_recovers_power_laws():
    x = np.array([100.0, 1000.0, 10000.0])
    assert S.growth_exponent(x, 3 * x) == pytest.approx(1.0)
    assert S.growth_exponent(x, 0.5 * x**2) == pytest.approx(2.0)
    # log x = 0, 1, 2 (base 10) and log y = 0, 0, 3: slope = 3 / 2 by least squares
    assert S.growth_exponent([1, 10, 100], [1, 1, 1000]) == pytest.approx(1.5)
    # non-positive times have no log: they are left out, not turned into -inf
    assert S.growth_exponent([1, 10, 100, 1000], [1, 10, 0, 1000]) == pytest.approx(1.0)
    assert np.isnan(S.growth_exponent([5], [2]))


def test_zipf_terms_are_seeded_and_frequent_terms_come_first():
    a = S.zipf_terms(2000, vocabulary=100, seed=3)
    assert a == S.zipf_terms(2000, vocabulary=100, seed=3)
    assert a != S.zipf_terms(2000, vocabulary=100, seed=4)
    counts = pd.Series(a).value_counts()
    # P(rank 1) / P(rank 2) = 2 under exponent 1: term0 about twice as common as term1
    assert counts.index[0] == "term0"
    assert 1.6 < counts["term0"] / counts["term1"] < 2.5


def _per_page():
    # three pages; method m takes exactly 2x, 4x, 6x the parse time; the error row is left out
    rows = []
    for i, (size, parse) in enumerate([(1000, 1.0), (2000, 2.0), (4000, 3.0)]):
        rows.append(
            {
                "dataset": "d",
                "page_id": f"p{i}",
                "site": None,
                "method": "m",
                "n_bytes": size,
                "ms": 2.0 * parse * (i + 1),
                "parse_ms": parse,
                "error": None,
            }
        )
        rows.append(
            {
                "dataset": "d",
                "page_id": f"p{i}",
                "site": None,
                "method": "bad",
                "n_bytes": size,
                "ms": 1.0,
                "parse_ms": parse,
                "error": "ValueError: x" if i == 0 else None,
            }
        )
    return pd.DataFrame(rows)


def test_summary_numbers_by_hand():
    s = S.summarize(_per_page(), "d", targets={"m": 3.0, "bad": 3.0}, n_boot=50)
    v = s.set_index(["method", "metric"])["value"]
    # parse: 1, 2, 3 ms -> median 2, mean 2 -> 500 pages/s
    assert v[("lxml_parse", "ms_median")] == 2.0
    assert v[("lxml_parse", "pages_per_s")] == pytest.approx(500.0)
    # m: 2, 8, 18 ms -> median 8, p90 = 8 + 0.8 * (18 - 8) = 16, mean 28/3
    assert v[("m", "ms_median")] == 8.0
    assert v[("m", "ms_p90")] == pytest.approx(16.0)
    assert v[("m", "pages_per_s")] == pytest.approx(1000 / (28 / 3))
    assert v[("m", "ratio_to_parse")] == 4.0  # median 8 over median parse 2
    assert v[("m", "meets_target")] == 0.0 and v[("m", "target_ratio")] == 3.0
    # m against bytes 1000, 2000, 4000: log-log slope of (2, 8, 18)
    lx, ly = np.log([1000, 2000, 4000]), np.log([2, 8, 18])
    assert v[("m", "growth_exponent")] == pytest.approx(np.polyfit(lx, ly, 1)[0])
    # bad: the failing page is counted and left out of the timings: 1 ms on pages p1, p2
    assert v[("bad", "failures")] == 1.0
    assert v[("bad", "ms_median")] == 1.0
    assert v[("bad", "ratio_to_parse")] == pytest.approx(1.0 / 2.5)
    assert v[("bad", "meets_target")] == 1.0
    lo, hi = s.set_index(["method", "metric"]).loc[("m", "ms_median"), ["ci_low", "ci_high"]]
    assert 2.0 <= lo <= 8.0 <= hi <= 18.0
    table = S.speed_table(s.assign(experiment="speed"), "d")
    assert list(table["method"]) == ["lxml_parse", "m", "bad"]
    assert list(table["meets_target"]) == ["-", "no", "yes"]


def test_time_pages_times_every_method_and_records_failures():
    pages = [
        Page(id=f"p{i}", dataset="t", raw=html.encode(), gold=Gold(text="x"))
        for i, html in enumerate(["<html><body><p>One page.</p></body></html>", ""])
    ]
    specs = [MethodSpec("fulltext", "fulltext"), MethodSpec("nope", "no_such_method")]
    df = S.time_pages(pages, specs, clock="wall")
    assert list(df["method"]) == ["fulltext", "nope", "fulltext", "nope"]
    assert (df["ms"].iloc[[0, 2]] > 0).all() and (df["parse_ms"].iloc[:2] > 0).all()
    assert df["parse_ms"].iloc[2:].isna().all()  # lxml has nothing to parse in an empty file
    assert (df["walk_ms"].iloc[:2] > 0).all() and df["walk_ms"].iloc[2:].isna().all()
    assert pd.isna(df["error"].iloc[0])
    assert df["error"].iloc[2].startswith("PageError: p1: empty document")
    assert df["error"].iloc[1].startswith("UnknownNameError") and np.isnan(df["ms"].iloc[1])
    assert list(df["n_bytes"]) == [len(pages[0].raw)] * 2 + [0, 0]
    v = S.summarize(df, "t", n_boot=10).set_index(["method", "metric"])["value"]
    assert v[("lxml_parse", "failures")] == 1.0 and v[("fulltext", "failures")] == 1.0
    assert v[("nope", "failures")] == 2.0 and ("nope", "ms_median") not in v.index


def test_python_walk_reads_every_element_once():
    root = parse_html(
        "<html><head><title>t</title></head><body><!-- c --><div id=a>x<p>y</p>"
        "z</div><?pi x?><img src=i.png></body></html>",
        plain=True,
    )
    # html, head, title, body, div, p, img: comments and processing instructions are no elements
    assert S.python_walk(root) == 7


def test_summary_has_the_pure_python_floor_by_hand():
    df = _per_page()
    # the walk takes 0.5, 1 and 4 ms on the three pages: parse + walk = 1.5, 3, 7
    df["walk_ms"] = df["page_id"].map({"p0": 0.5, "p1": 1.0, "p2": 4.0})
    v = S.summarize(df, "d", n_boot=20).set_index(["method", "metric"])["value"]
    assert v[(S.PY_WALK_LABEL, "ms_median")] == 3.0
    assert v[(S.PY_WALK_LABEL, "ratio_to_parse")] == 1.5  # median 3 over median parse 2
    assert v[(S.PY_WALK_LABEL, "failures")] == 0.0
    assert (S.PY_WALK_LABEL, "meets_target") not in v.index  # a floor, not a method
    table = S.speed_table(S.summarize(df, "d", n_boot=20), "d")
    assert list(table["method"]) == ["lxml_parse", S.PY_WALK_LABEL, "m", "bad"]
    # pages without the walk (python_walk off) give no floor row
    assert S.PY_WALK_LABEL not in set(
        S.summarize(df.assign(walk_ms=np.nan), "d", n_boot=20)["method"]
    )


def test_step_table_by_hand():
    # "m" timed two steps on three pages (the failed page is left out); "n" timed none
    df = pd.DataFrame(
        {
            "page_id": ["p0", "p1", "p2", "p0", "p1"],
            "method": ["m", "m", "m", "n", "n"],
            "error": [None, None, "boom", None, None],
            "ms": [4.0, 8.0, 1.0, 1.0, 1.0],
            "parse_ms": [1.0, 2.0, 3.0, 1.0, 2.0],
            "n_bytes": [1000, 2000, 4000, 1000, 2000],
            "dataset": "d",
            "site": None,
            "step_parse": [1.0, 2.0, 99.0, np.nan, np.nan],
            "step_work": [3.0, 5.0, 99.0, np.nan, np.nan],
        }
    )
    steps = S.step_table(df)
    assert list(steps["method"]) == ["m", "m"] and list(steps["step"]) == ["parse", "work"]
    assert list(steps["ms_mean"]) == [1.5, 4.0] and list(steps["ms_median"]) == [1.5, 4.0]
    assert list(steps["share"]) == pytest.approx([1.5 / 5.5, 4.0 / 5.5])
    v = S.summarize(df, "d", n_boot=20).set_index(["method", "metric"])
    assert v.loc[("m", "step_work_ms_mean"), "value"] == 4.0
    assert v.loc[("m", "step_work_ms_mean"), "n_pages"] == 2
    assert 3.0 <= v.loc[("m", "step_work_ms_mean"), "ci_low"] <= 4.0
    assert ("n", "step_work_ms_mean") not in v.index


def test_time_pages_keeps_the_steps_the_proposed_method_times():
    page = Page(
        id="p",
        dataset="t",
        raw=b"<html><body><div><p>Some text, here.</p></div></body></html>",
        gold=Gold(text="x"),
    )
    df = S.time_pages(
        [page],
        [MethodSpec("proposed", "proposed"), MethodSpec("fulltext", "fulltext")],
        clock="wall",
    )
    names = ["parse", "blocks", "primary", "dedup", "scoring", "output"]
    assert [c for c in df.columns if c.startswith(S.STEP_PREFIX)] == [
        S.STEP_PREFIX + n for n in names
    ]
    steps = df.set_index("method").loc["proposed", [S.STEP_PREFIX + n for n in names]]
    assert (steps > 0).all() and steps.sum() <= df.set_index("method").loc["proposed", "ms"]
    assert (
        df.set_index("method").loc["fulltext", S.STEP_PREFIX + "parse"]
        != df.set_index("method").loc["fulltext", S.STEP_PREFIX + "parse"]
    )  # NaN: not timed


def test_micro_benchmark_rows_and_target():
    bench = S.twc_pfm_benchmark(lengths=(200, 1000), repeat=1)
    assert list(bench["n_terms"]) == [200, 1000] and (bench["ms"] > 0).all()
    rows = pd.DataFrame(S._micro_rows(bench, 1)).set_index("metric")["value"]
    # 5,000 not measured: read off the fitted power law through the two points
    b = np.log(bench["ms"][1] / bench["ms"][0]) / np.log(5)
    assert rows["growth_exponent"] == pytest.approx(b)
    assert rows["twc_pfm_ms_5000"] == pytest.approx(bench["ms"][1] * 5**b)
    assert rows["meets_target"] == float(rows["twc_pfm_ms_5000"] <= S.TWC_PFM_TARGET_MS)


def _compose(overrides):
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        return compose(config_name="config", overrides=overrides)


def test_speed_run_on_synthetic_pages_writes_tables_figures_and_summary(tmp_path):
    cfg = _compose(
        [
            "experiment=speed",
            "dataset.synthetic.limit=6",
            "speed.n_boot=20",
            "method=[cetd,fulltext]",
            "speed.micro.lengths=[500,1000]",
            "speed.micro.repeat=1",
            # one process: the micro-benchmark's peak then includes the data set's (two
            # workers may each take one of the tasks)
            "runner.n_jobs=1",
        ]
    )
    out = run_experiment(cfg, tmp_path)
    s = pd.read_csv(out / "summary.csv")
    assert set(s["experiment"]) == {"speed"}
    v = s.set_index(["dataset", "method", "metric"])["value"]
    assert v[("synthetic", "cetd", "ms_median")] > 0
    # the floor row: parse plus a walk is slower than the parse alone, on every page
    assert v[("synthetic", S.PY_WALK_LABEL, "ratio_to_parse")] > 1
    assert v[("synthetic", "cetd", "target_ratio")] == 3.0
    assert ("synthetic", "fulltext", "target_ratio") not in v.index
    assert v[(S.MICRO_DATASET, S.MICRO_METHOD, "twc_pfm_ms_1000")] > 0
    assert v[("synthetic", "process", "peak_rss_mb")] > 10
    assert (
        v[(S.MICRO_DATASET, S.MICRO_METHOD, "peak_rss_mb")]
        >= v[("synthetic", "process", "peak_rss_mb")]
    )
    assert (s.loc[s["metric"] == "ms_median", "n_pages"] == 6).all()
    assert not (out / "tables" / "speed_synthetic_steps.md").exists()  # no method timed steps
    for name in [
        "tables/speed_synthetic.md",
        "tables/speed_twc_pfm.tex",
        "figures/speed_synthetic_time_vs_size.png",
        "figures/speed_synthetic_ratio.png",
        "figures/speed_twc_pfm.svg",
    ]:
        assert (out / name).is_file(), name
    per_page = pd.read_csv(out / "per_page.csv")
    assert len(per_page) == 12 and set(per_page["method"]) == {"cetd", "fulltext"}


def test_speed_run_breaks_down_the_proposed_methods_steps(tmp_path):
    cfg = _compose(
        [
            "experiment=speed",
            "dataset.synthetic.limit=4",
            "speed.n_boot=20",
            "method=[proposed]",
            "speed.micro.enabled=false",
            "speed.python_walk=false",
        ]
    )
    out = run_experiment(cfg, tmp_path)
    steps = pd.read_csv(out / "tables" / "speed_synthetic_steps.csv")
    assert list(steps["step"]) == ["parse", "blocks", "primary", "dedup", "scoring", "output"]
    assert set(steps["method"]) == {"proposed"}
    shares = steps["share"].str.rstrip("%").astype(float)
    assert shares.sum() == pytest.approx(100.0, abs=0.5)
    assert (out / "figures" / "speed_synthetic_steps.png").is_file()
    assert "## Where the time goes on synthetic" in (out / "report.md").read_text()
    s = pd.read_csv(out / "summary.csv").set_index(["method", "metric"])
    assert (S.PY_WALK_LABEL, "ms_median") not in s.index  # speed.python_walk=false
    assert s.loc[("proposed", "step_primary_ms_mean"), "n_pages"] == 4


def test_ladder_pages_have_the_asked_number_of_elements():
    for shape in S.LADDER_SHAPES:
        for n in (5, S.LADDER_CHAIN + 7):
            page = S.ladder_page(n, shape)
            root = parse_html(page.html)
            # html, body, article, p, (wide: the div holding the spans) + n
            assert sum(1 for _ in root.iter()) == 4 + (shape == "wide") + n
            assert page.gold.text and page.site == shape


def test_speed_ladder_reports_a_growth_exponent_per_shape_and_method(tmp_path):
    cfg = _compose(
        [
            "experiment=speed",
            "dataset.synthetic.limit=2",
            "speed.n_boot=20",
            "method=[fulltext]",
            "speed.micro.enabled=false",
            "speed.python_walk=false",
            "speed.ladder.enabled=true",
            "speed.ladder.sizes=[200,2000]",
        ]
    )
    out = run_experiment(cfg, tmp_path)
    summary = pd.read_csv(out / "summary.csv")
    rows = summary[summary["metric"] == "growth_exponent"]
    for shape in ("wide", "deep"):
        for method in ("fulltext", S.PARSE_LABEL):
            sel = rows[(rows["dataset"] == f"ladder_{shape}") & (rows["method"] == method)]
            assert len(sel) == 1 and sel["value"].notna().all()
    assert (out / "tables" / "speed_ladder.md").is_file()
    per_page = pd.read_csv(out / "per_page.csv")
    ladder = per_page[per_page["dataset"] == "ladder"]
    assert sorted(zip(ladder["shape"], ladder["n_elements"])) == [
        ("deep", 200),
        ("deep", 2000),
        ("wide", 200),
        ("wide", 2000),
    ]
