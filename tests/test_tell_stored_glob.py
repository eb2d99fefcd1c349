"""Many stored tools at once (issue 29, item 5): ``method.stored.path`` as a glob or a folder
of tool files gives one method row per file, named after its stem; ``_name_`` on the
command line gets its ``++`` as ``_target_`` does."""

from __future__ import annotations

import json

import pytest
from hydra import compose, initialize_config_dir

from baselines.stored import Stored
from evalkit.experiments import run_experiment
from evalkit.harness.config import ConfigError, method_specs, register_resolvers
from evalkit.harness.method_rows import split_specs
from evalkit.harness.specs import MethodSpec
from evalkit.shell.cli import CONFIG_DIR
from evalkit.shell.overrides import target_overrides

register_resolvers()


def _tools(folder, names):
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_text(json.dumps({"p": {"articleBody": name}}))
    return folder


def test_a_glob_or_a_folder_of_tool_files_is_one_row_per_file(tmp_path):
    out = _tools(tmp_path / "output", ["b.json", "a.json", "c.jsonl.gz.txt"])
    rows = Stored.split_rows({"path": str(out / "*.json"), "format": "auto"})
    assert list(rows) == ["a", "b"]  # sorted, named after the stem
    assert rows["a"] == {"path": str(out / "a.json"), "format": "auto"}
    # the folder: its .json files (no <page id>.txt|.md|.html, so not the folder format)
    folder = _tools(tmp_path / "tools", ["x.json", "y.json"])
    assert list(Stored.split_rows({"path": str(folder)})) == ["x", "y"]
    assert Stored.split_rows({"path": str(out / "a.json")}) is None  # one file: one row
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "p1.txt").write_text("text")
    assert Stored.split_rows({"path": str(pages)}) is None  # the folder format
    specs = split_specs(
        [MethodSpec("stored", "stored", {"path": str(out / "*.json")}), MethodSpec("cetd", "cetd")]
    )
    assert [(s.label, s.registry) for s in specs] == [
        ("a", "stored"),
        ("b", "stored"),
        ("cetd", "cetd"),
    ]
    with pytest.raises(
        ConfigError,
        match=r"^method.stored.path=.*nothing\*.json: no file or "
        r"folder matches$",
    ):
        split_specs([MethodSpec("stored", "stored", {"path": str(tmp_path / "nothing*.json")})])


def test_name_on_the_command_line_adds_a_method_as_target_does():
    argv = [
        "method=cetd",
        "method.traf._name_=stored",
        "method.traf.path=out/t.json",
        "method.cetd.variant=cetd_ds",
    ]
    assert target_overrides(argv) == [
        "method=cetd",
        "++method.traf._name_=stored",
        "++method.traf.path=out/t.json",
        "method.cetd.variant=cetd_ds",
    ]


@pytest.mark.slow
def test_the_benchmarks_outputs_in_one_run(tmp_path, shared):
    """Four of the ScrapingHub benchmark's tool files by one glob on its first 20 pages:
    four rows, each as a run of that file alone gives it (checked for go_trafilatura)."""
    root = shared("scrapinghub-aeb")
    pattern = str(
        root / "output" / "go_*.json"
    )  # go_domdistiller, go_readability(_fork), go_trafilatura
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(
            config_name="config",
            overrides=[
                "experiment=extraction",
                "dataset=aeb",
                "dataset.aeb.limit=20",
                "method=stored",
                f"method.stored.path={pattern}",
                "extraction.n_boot=20",
                "runner.n_jobs=1",
                "runner.progress=false",
                f"paths.shared_data={root.parent}",
                f"paths.cache={tmp_path}/cache",
            ],
        )
        one = compose(
            config_name="config",
            overrides=[
                "experiment=extraction",
                "dataset=aeb",
                "dataset.aeb.limit=20",
                "method=stored",
                f"method.stored.path={root / 'output' / 'go_trafilatura.json'}",
                "extraction.n_boot=20",
                "runner.n_jobs=1",
                "runner.progress=false",
                f"paths.shared_data={root.parent}",
                f"paths.cache={tmp_path}/cache",
            ],
        )
    assert [s.label for s in split_specs(method_specs(cfg.method))] == [
        "go_domdistiller",
        "go_readability",
        "go_readability_fork",
        "go_trafilatura",
    ]
    import pandas as pd

    many = pd.read_csv(run_experiment(cfg, tmp_path / "many") / "summary.csv")
    alone = pd.read_csv(run_experiment(one, tmp_path / "one") / "summary.csv")
    f1 = many[many["metric"] == "shingle_f1"].set_index("method")["value"]
    assert sorted(f1.index) == [
        "go_domdistiller",
        "go_readability",
        "go_readability_fork",
        "go_trafilatura",
    ]
    ref = alone[alone["metric"] == "shingle_f1"]["value"].iloc[0]
    assert f1["go_trafilatura"] == pytest.approx(ref, abs=1e-12)
