"""The API and the command line agree (issue 29, item 6): one test per point."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

import evalkit
from baselines.reference import FullText
from evalkit.harness.config import register_resolvers
from evalkit.readers.synthetic import SyntheticDataset
from evalkit.report.per_page_csv import PER_PAGE_DTYPES, read_per_page
from evalkit.shell.cli import CONFIG_DIR
from evalkit.shell.dataset_paths import path_overrides

ROOT = Path(__file__).resolve().parents[1]
HANG = 600  # seconds: only to detect a hang
FAST = {"runner.n_jobs": 1, "runner.progress": False, "extraction.n_boot": 20}

register_resolvers()


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("api")
    return evaluate_small(tmp)


def evaluate_small(tmp):
    return evalkit.evaluate(
        dataset={"syn": "synthetic"},
        methods={"ft": "fulltext"},
        **{
            "dataset.synthetic.limit": 3,
            "paths.results": str(tmp),
            "paths.cache": str(tmp / "cache"),
        },
        **FAST,
    )


def test_mapping_keys_label_configured_names(result):
    assert set(result.summary["dataset"]) == {"syn"}
    assert set(result.summary["method"]) == {"ft"}


def test_a_run_indexes_its_cache_entries(result):
    import json

    from evalkit.harness.cache_admin import listing

    cache = json.loads((result.run_dir / "run.json").read_text())["paths"]["cache"]
    rows = {m: n for m, n, _ in listing(cache).rows()}
    assert rows["ft"] == 3  # python -m evalkit.cache names the run's 3 entries by label


def test_result_has_each_pages_text_per_method(result):
    pages = list(SyntheticDataset(limit=3).pages())
    texts = result.texts
    assert len(texts) == 3 and set(texts["method"]) == {"ft"} and set(texts["dataset"]) == {"syn"}
    for page in pages:  # what fulltext extracts from the page, read back from the run folder
        assert result.text(page.id, "ft") == FullText().extract(page).text
    assert (result.run_dir / "extractions.jsonl.gz").is_file()
    with pytest.raises(KeyError, match="no kept text of page 'nope' by method 'ft'"):
        result.text("nope", "ft")


def test_texts_of_a_run_in_worker_processes_are_kept(tmp_path):
    """With runner.n_jobs=2 the pages run in loky workers, started with PYTHONHASHSEED=0
    (evalkit.shell.api) while this process hashes with its own seed; each worker worked out
    the methods' cache keys itself, with its seed in them, so the run filed every extraction
    under a key the kept-extractions file never asked for, and Result.texts was empty (seen
    in CI). The keys are worked out once, here, and travel with the specs."""
    r = evalkit.evaluate(
        dataset={"syn": "synthetic"},
        methods={"ft": "fulltext"},
        **{
            "dataset.synthetic.limit": 4,
            "paths.results": str(tmp_path),
            "paths.cache": str(tmp_path / "cache"),
            "runner.n_jobs": 2,
            "runner.progress": False,
            "extraction.n_boot": 20,
        },
    )
    texts = r.texts
    assert len(texts) == 4 and texts["text"].str.len().gt(0).all()


def test_plot_of_an_unknown_metric_names_the_valid_ones(result):
    with pytest.raises(
        ValueError,
        match=r"^no metric 'bleu' in this run to plot; valid: "
        r"shingle, word, lcs, .*rouge_lsum",
    ):
        result.plot("bleu")
    assert set(result.plot("shingle")) == {"syn"}


def test_per_page_reads_with_stable_dtypes(tmp_path, result):
    # a column empty in the first rows and text later: pandas guesses per chunk and warns
    n = 300_000
    frame = pd.DataFrame(
        {
            "page_id": [f"{i:05d}" for i in range(n)],
            "method": "m",
            "site": [None] * (n - 1) + ["example.org"],
            "cached": [None] * (n // 2) + [True] * (n - n // 2),
            "shingle_f1": 0.5,
        }
    )
    frame.to_csv(tmp_path / "per_page.csv", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a mixed-type warning fails the test
        back = read_per_page(tmp_path / "per_page.csv")
    assert back["page_id"].iloc[42] == "00042"  # text, zeros kept
    assert str(back["cached"].dtype) == "boolean" and back["site"].iloc[-1] == "example.org"
    assert set(PER_PAGE_DTYPES) >= {"page_id", "site", "category", "cached", "error"}
    assert result.per_page["page_id"].map(type).eq(str).all()


def test_dataset_folder_on_the_command_line(tmp_path):
    folder = tmp_path / "my pages"
    (folder / "html").mkdir(parents=True)
    (folder / "gold").mkdir()
    for i, words in enumerate(["otters swim in the river", "bees make honey in hives"], 1):
        (folder / "html" / f"p{i}.html").write_text(
            f"<html><body><nav>Home News</nav><p>{words}</p></body></html>"
        )
        (folder / "gold" / f"p{i}.txt").write_text(words)
    assert path_overrides([f"dataset=[aeb,{folder}]", "method=fulltext"], ["aeb"]) == [
        "dataset=[aeb]",
        "++dataset.my_pages._name_=pairs",
        f"++dataset.my_pages.path='{folder}'",
        "method=fulltext",
    ]
    assert path_overrides(["dataset=aeb"], ["aeb"]) == ["dataset=aeb"]  # a set stays a set
    env = {**os.environ, "PYTHONHASHSEED": "0", "EVALKIT_ROOT": str(ROOT), "PYTHONPATH": str(ROOT)}
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalkit",
            "experiment=extraction",
            f"dataset={folder}",
            "method=fulltext",
            "runner.n_jobs=1",
            "runner.progress=false",
            "extraction.n_boot=20",
            f"hydra.run.dir={tmp_path}/run",
            f"paths.cache={tmp_path}/cache",
        ],
        env=env,
        check=False,
        capture_output=True,
        text=True,
        timeout=HANG,
        cwd=tmp_path,
    )
    assert res.returncode == 0, res.stderr
    summary = pd.read_csv(tmp_path / "run" / "summary.csv")
    assert set(summary["dataset"]) == {"my_pages"}
    pages = summary[(summary["metric"] == "shingle_f1")]["n_pages"].iloc[0]
    assert pages == 2


def test_help_examples_run_what_they_say():
    text = (Path(CONFIG_DIR) / "hydra" / "default.yaml").read_text()
    examples = re.findall(r"^\s+evalkit ([^#\n]*?)\s+# (.*)$", text, flags=re.MULTILINE)
    assert len(examples) == 5
    said = {args.strip(): what for args, what in examples}
    first = "experiment=extraction dataset=aeb method=proposed"
    assert said[first] == "one method scored on aeb"
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(config_name="config", overrides=first.split())
    assert list(cfg.experiment.parts) == ["extraction"]  # not every experiment
    assert list(cfg.dataset) == ["aeb"] and list(cfg.method) == ["proposed"]
    assert said["study=saravanan2020"] == "a paper's tables"
    assert "Bare `evalkit` runs every experiment" in text


def test_run_json_names_the_commit_the_run_started_from(tmp_path, monkeypatch):
    """A commit made while a long run goes is not the code it ran: run.json's ``git`` is read
    when the run starts, not when run.json is written."""
    import json

    import evalkit.experiments as E
    import evalkit.report.results as R

    started = {"commit": "0" * 40, "dirty": False}
    monkeypatch.setattr(E, "git_state", lambda root: started)

    def too_late(root):
        raise AssertionError("git read when run.json is written")

    monkeypatch.setattr(R, "git_state", too_late)
    result = evaluate_small(tmp_path)
    assert json.loads((result.run_dir / "run.json").read_text())["git"] == started
