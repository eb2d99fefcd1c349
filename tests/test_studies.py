"""The benchmark studies as first-class runs (issue 38): honest verdicts on a subset, a result
table on the console, readers that meet the pre-flight, a run of only skipped methods, WCEB's
marks and warnings. Real runs on the shared sets, limited to a few pages."""

from __future__ import annotations

import json
import sys

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from evalkit.experiments import run_experiment
from evalkit.experiments.benchmarks import comparison, pages_note
from evalkit.harness.config import register_resolvers
from evalkit.shell.cli import CONFIG_DIR
from tests.conftest import shared_dataset

register_resolvers()


def _compose(overrides):
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        return compose(config_name="config", overrides=list(overrides))


def _run(tmp_path, overrides, name="run"):
    cfg = _compose(
        [*overrides, "runner.progress=false", "runner.n_jobs=1", f"paths.cache={tmp_path}/cache"]
    )
    return run_experiment(cfg, tmp_path / name)


def test_a_published_figure_is_never_said_to_differ_on_a_subset():
    pub = [{"row": "G", "method": "g", "package": "pandas", "version": pd.__version__, "f1": 0.81}]
    note = pages_note(50, 990)
    assert note == "subset of 50 of 990 pages: not comparable"
    assert pages_note(990, 990) == "" and pages_note(24, None, limited=True) == (
        "subset of 24 pages (a limited run): not comparable"
    )
    full = comparison({"g": {"f1": 0.864}}, pub, ["f1"], 0.01)
    part = comparison({"g": {"f1": 0.864}}, pub, ["f1"], 0.01, note)
    assert full["agreement"][0] == "differs by up to 0.054 at the published version"
    assert part["agreement"][0] == "subset of 50 of 990 pages: not comparable"
    old = [{**pub[0], "version": "0.1"}]
    assert comparison({"g": {"f1": 0.864}}, old, ["f1"], 0.01, note)["agreement"][0] == (
        f"subset of 50 of 990 pages: not comparable ({pd.__version__} installed, "
        "published with 0.1)"
    )


def test_a_limited_trafilatura_eval_run_says_subset_not_differs(tmp_path, capsys):
    shared_dataset("trafilatura-eval")
    pytest.importorskip("goose3")
    out = _run(
        tmp_path, ["study=trafilatura_eval", "dataset.trafilatura_eval.limit=12", "method=[goose3]"]
    )
    table = pd.read_csv(out / "tables" / "trafilatura_eval_published_trafilatura_eval.csv")
    row = table[table["method"] == "goose3"].iloc[0]
    # goose3 3.1.22 is the published version: on 12 of 990 documents the old verdict was
    # "differs by up to 0.0xx at the published version"
    assert row["agreement"] == "subset of 12 of 990 pages: not comparable"
    assert not any("differs by" in f.read_text() for f in (out / "tables").iterdir())


def _block(monkeypatch, package):
    """Make every import of ``package`` fail in this process, as on a machine without it."""
    for name in [m for m in sys.modules if m.split(".")[0] == package] or [package]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, package, None)


WCEB_SMALL = [
    "study=wceb",
    *[
        f"dataset.wceb_{s}.limit=2"
        for s in ("scrapinghub", "readability", "l3s_gn1", "cleanportaleval")
    ],
]


def test_a_readers_missing_package_stops_the_run_before_any_page(tmp_path, monkeypatch):
    from evalkit.harness.config import ConfigError
    from evalkit.shell.overrides import check_overrides

    shared_dataset("wceb")
    _block(monkeypatch, "resiliparse")
    line = (
        "datasets 'wceb_scrapinghub', 'wceb_readability', 'wceb_l3s_gn1', "
        "'wceb_cleanportaleval': their reader needs resiliparse, which is not installed: "
        'pip install "evalkit[peers]"'
    )
    # the command's check, before Hydra makes a run folder
    assert check_overrides([*WCEB_SMALL, f"paths.results={tmp_path}/res"]) == f"evalkit: {line}"
    # the run itself (the Python API's path): the same line, nothing written, no traceback
    with pytest.raises(ConfigError) as err:
        _run(tmp_path, WCEB_SMALL)
    assert str(err.value) == line
    assert not (tmp_path / "run").exists()


def test_the_wceb_study_without_resiliparse_is_one_line_exit_2_and_no_folder(tmp_path):
    from tests.test_tell_preflight import _evalkit, _lines

    shared_dataset("wceb")
    res = _evalkit(
        [
            *WCEB_SMALL[:1],
            "dataset=wceb_l3s_gn1",
            "runner.progress=false",
            f"hydra.run.dir={tmp_path}/run",
        ],
        tmp_path,
    )
    assert res.returncode == 2, res.stderr
    assert _lines(res.stdout + res.stderr) == [
        (
            "evalkit: dataset 'wceb_l3s_gn1': its reader needs resiliparse, which is not "
            'installed: pip install "evalkit[peers]"'
        )
    ]
    assert not (tmp_path / "run").exists()


def test_a_run_whose_every_method_is_skipped_stops_saying_so(tmp_path, monkeypatch):
    from evalkit.harness.config import ConfigError

    _block(monkeypatch, "trafilatura")
    _block(monkeypatch, "goose3")
    with pytest.raises(ConfigError) as err:
        _run(
            tmp_path,
            [
                "experiment=extraction",
                "dataset=synthetic",
                "dataset.synthetic.limit=2",
                "method=[trafilatura,goose3]",
                "runner.skip_unavailable=true",
            ],
        )
    assert str(err.value) == (
        "no method can run here, and runner.skip_unavailable=true would leave nothing to run: "
        "'trafilatura' (trafilatura is not installed), 'goose3' (goose3 is not installed): "
        'pip install "evalkit[peers]"'
    )
    assert not (tmp_path / "run").exists()
    # one method left: the run goes on without the other, as before
    out = _run(
        tmp_path,
        [
            "experiment=extraction",
            "dataset=synthetic",
            "dataset.synthetic.limit=2",
            "method=[fulltext,goose3]",
            "runner.skip_unavailable=true",
            "extraction.n_boot=10",
        ],
        name="one",
    )
    assert list(json.loads((out / "run.json").read_text())["skipped_methods"]) == ["goose3"]


def test_the_wceb_reader_counts_its_pages_for_the_progress_bar():
    from evalkit.readers.wceb import WcebDataset

    sets = {
        "scrapinghub": ("scrapinghub-aeb", 181),
        "readability": ("readability", 116),
        "l3s-gn1": ("l3s-gn1", 621),
        "cleanportaleval": ("cleanportaleval", 71),
    }
    for name, (folder, n) in sets.items():
        assert WcebDataset(str(shared_dataset(folder)), set=name).page_count() == n, name
    assert WcebDataset(str(shared_dataset("l3s-gn1")), set="l3s-gn1", limit=5).page_count() == 5


def _browser_data(run):
    import base64
    import gzip
    import re

    page = (run / "report.html").read_text()
    packed = re.search(r'id="pages-data" data-encoding="gzip-base64">([^<]+)<', page).group(1)
    return json.loads(gzip.decompress(base64.b64decode(packed)))


def test_a_study_keeps_extractions_and_browses_pages_by_its_own_score(tmp_path):
    # issue 38: study runs kept no extractions, and report.html had no page browser
    shared_dataset("wcxb-dev")
    pytest.importorskip("trafilatura")
    out = _run(tmp_path, ["study=wcxb", "dataset.wcxb_dev.limit=3", "method=[trafilatura]"])
    assert (out / "extractions.jsonl.gz").is_file()
    data = _browser_data(out)
    assert data["scores"] == ["wcxb_precision", "wcxb_recall", "wcxb_f1"]
    assert data["by"] == "wcxb_f1" and data["methods"] == ["trafilatura"]
    per_page = pd.read_csv(out / "per_page.csv", dtype={"page_id": str}).set_index("page_id")
    assert [p["page_id"] for p in data["pages"]] == list(per_page.index)
    for p in data["pages"]:
        want = per_page.loc[p["page_id"], "wcxb_f1"]
        assert p["scores"]["trafilatura"]["wcxb_f1"] == pytest.approx(want, abs=5e-5)
        assert p["gold"] and p["methods"]["trafilatura"]["diff"]  # the texts, not scores only
    # the report rebuilt with fewer pages holds fewer pages
    from evalkit.report.__main__ import main as rebuild

    assert rebuild([str(out), "--pages", "2"]) in (None, 0)
    assert len(_browser_data(out)["pages"]) == 2
