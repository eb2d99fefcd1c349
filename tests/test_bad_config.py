"""Careless config values (issue 14 item 7): one line naming the key, exit status 2, and no
run folder left behind.

Every case goes through the real command path: ``evalkit.shell.cli.main()`` in this process
with ``paths.results`` in a fresh temporary folder (a few cases also through a
subprocess), and must be refused before Hydra makes a run folder: the results folder
stays empty. The line must name the key as the user typed it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit.shell import cli

ROOT = Path(__file__).resolve().parent.parent

# (extra overrides, the key the one line must name)
CASES = [
    # -- the runner (configs/runner/local.yaml, dask.yaml)
    (["runner.n_jobs=0"], "runner.n_jobs=0"),
    (["runner.n_jobs=-2"], "runner.n_jobs=-2"),
    (["runner.n_jobs=abc"], "runner.n_jobs=abc"),
    (["runner.on_failure=skip"], "runner.on_failure"),
    (["runner.cache=yes"], "runner.cache=yes"),
    (["runner.progress=no"], "runner.progress=no"),
    (["runner.page_timeout=-5"], "runner.page_timeout=-5"),
    (["runner.page_timeout=soon"], "runner.page_timeout=soon"),
    (["runner.max_page_bytes=0"], "runner.max_page_bytes=0"),
    (["runner.max_page_bytes=50MB"], "runner.max_page_bytes=50MB"),
    (["runner=dask", "runner.n_workers=0"], "runner.n_workers=0"),
    (["runner=dask", "runner.retries=-1"], "runner.retries=-1"),
    (["runner=dask", "runner.processes=maybe"], "runner.processes=maybe"),
    (["runner=dask", "runner.window_per_worker=x"], "runner.window_per_worker=x"),
    # -- the readers (configs/dataset/*.yaml)
    (["dataset.synthetic.limit=-1"], "dataset.synthetic.limit=-1"),
    (["dataset.synthetic.limit=0"], "dataset.synthetic.limit=0"),
    (["dataset.synthetic.limit=abc"], "dataset.synthetic.limit=abc"),
    (["dataset.synthetic.n_sites=0"], "dataset.synthetic.n_sites=0"),
    (["dataset.synthetic.n_topics=99"], "dataset.synthetic.n_topics=99"),
    (["dataset.synthetic.pages_per_site=ten"], "dataset.synthetic.pages_per_site=ten"),
    (["dataset=chaos", "dataset.chaos.path=/nonexistent/chaos"], "dataset.chaos.path"),
    (["dataset=chaos", "dataset.chaos.gold_format=pdf"], "dataset.chaos.gold_format=pdf"),
    (
        ["dataset=chaos", "dataset.chaos.category_pattern='(oops'"],
        "dataset.chaos.category_pattern=(oops",
    ),
    (
        ["dataset=big5_2017", "dataset.big5_2017.gold_format=xml"],
        "dataset.big5_2017.gold_format=xml",
    ),
    (
        ["dataset=cleaneval_dev", "dataset.cleaneval_dev.keep_empty_gold=maybe"],
        "dataset.cleaneval_dev.keep_empty_gold=maybe",
    ),
    (["dataset=cleaneval_dev", "dataset.cleaneval_dev.limit=-3"], "dataset.cleaneval_dev.limit=-3"),
    (
        ["dataset=l3s_gn1", "dataset.l3s_gn1.content_classes=[]"],
        "dataset.l3s_gn1.content_classes=[]",
    ),
    (
        ["dataset=l3s_gn1", "dataset.l3s_gn1.content_classes=sel1"],
        "dataset.l3s_gn1.content_classes=sel1",
    ),
    (
        ["dataset=l3s_gn1", "dataset.l3s_gn1.content_classes=[sel1,sel9]"],
        "dataset.l3s_gn1.content_classes",
    ),
    (["dataset=aeb", "dataset.aeb.limit=2.5"], "dataset.aeb.limit=2.5"),
    (
        ["dataset=readability", "dataset.readability.path=/nonexistent/r"],
        "dataset.readability.path",
    ),
    # -- the proposed method, stage by stage (evalkit/proposed/stages.py)
    (["method.proposed.blocks.tags=[]"], "method.proposed.blocks.tags=[]"),  # 1.1
    (["method.proposed.blocks.tags=div"], "method.proposed.blocks.tags=div"),
    (["method.proposed.primary.enabled=yes"], "method.proposed.primary.enabled=yes"),  # 1.2
    (["method.proposed.primary.rule_plugin=off"], "method.proposed.primary.rule_plugin=off"),
    (["method.proposed.primary.ad_max_share=-0.1"], "method.proposed.primary.ad_max_share=-0.1"),
    (
        ["method.proposed.primary.utility_link_share=2"],
        "method.proposed.primary.utility_link_share=2",
    ),
    (
        ["method.proposed.primary.ad_container_chars=-1"],
        "method.proposed.primary.ad_container_chars=-1",
    ),
    (["method.proposed.primary.iab_sizes=[[0,60]]"], "method.proposed.primary.iab_sizes"),
    (
        ["method.proposed.primary.min_subtree_coverage=1.5"],
        "method.proposed.primary.min_subtree_coverage=1.5",
    ),
    (
        ["method.proposed.primary.outside_subtree=drop"],
        "method.proposed.primary.outside_subtree=drop",
    ),
    (
        ["method.proposed.primary.short_text_chars=-1"],
        "method.proposed.primary.short_text_chars=-1",
    ),
    (["method.proposed.dedup.k=-1"], "method.proposed.dedup.k=-1"),  # 1.3
    (["method.proposed.dedup.k=abc"], "method.proposed.dedup.k=abc"),
    (["method.proposed.dedup.bits=48"], "method.proposed.dedup.bits=48"),
    (["method.proposed.dedup.stoplist=klingon"], "method.proposed.dedup.stoplist=klingon"),
    (["method.proposed.dedup.stemmer=snowball"], "method.proposed.dedup.stemmer=snowball"),
    (["method.proposed.dedup.scope=world"], "method.proposed.dedup.scope=world"),
    (["method.proposed.dedup.detector=jacard"], "method.proposed.dedup.detector=jacard"),
    (["+method.proposed.dedup.detector_params.k=-2"], "method.proposed.dedup.detector_params.k=-2"),
    (["method.proposed.scoring.gamma=0.5"], "method.proposed.scoring.gamma=0.5"),  # 1.4
    (
        ["method.proposed.scoring.alpha=0.35", "method.proposed.scoring.beta=0.25"],  # order broken
        "method.proposed.scoring.alpha=0.35",
    ),
    (
        [
            "method.proposed.scoring.alpha=-0.1",
            "method.proposed.scoring.beta=0.5",
            "method.proposed.scoring.gamma=0.6",
        ],
        "method.proposed.scoring.alpha=-0.1",
    ),
    (
        ["method.proposed.scoring.content_denominator=words"],
        "method.proposed.scoring.content_denominator=words",
    ),
    # -- the own baselines and detectors
    (["method=cetd", "method.cetd.variant=cetd_xx"], "method.cetd.variant=cetd_xx"),
    (["method=pab", "method.pab.max_outer_link_share=1.5"], "method.pab.max_outer_link_share=1.5"),
    (["method=pab", "method.pab.merge_duplicates=no"], "method.pab.merge_duplicates=no"),
    (
        ["method=justext_style", "method.justext_style.length_low=300"],
        "method.justext_style.length_low=300",
    ),
    (
        ["method=justext_style", "method.justext_style.max_link_density=abc"],
        "method.justext_style.max_link_density=abc",
    ),
    (
        ["method=justext_style", "method.justext_style.stoplist=klingon"],
        "method.justext_style.stoplist=klingon",
    ),
    (["detector.jaccard.threshold=1.5"], "detector.jaccard.threshold=1.5"),
    (["detector.jaccard.shingle=0"], "detector.jaccard.shingle=0"),
    (["detector.minhash.num_perm=1"], "detector.minhash.num_perm=1"),
    (["detector.simhash.k=-1"], "detector.simhash.k=-1"),
    (["detector.modified_simhash.bits=48"], "detector.modified_simhash.bits=48"),
    (["detector.modified_simhash.stemmer=snowball"], "detector.modified_simhash.stemmer=snowball"),
    (["method=stored"], "method.stored.path=null"),
    (["method=stored", "method.stored.path=/nonexistent/out.json"], "method.stored.path"),
    (
        ["method=stored", "method.stored.path={empty}", "method.stored.format=csv"],
        "method.stored.format=csv",
    ),
    # -- the experiment sections (configs/experiment/*.yaml) and the seed
    (["extraction.n_boot=0"], "extraction.n_boot=0"),
    (["extraction.n_boot=abc"], "extraction.n_boot=abc"),
    (["extraction.alpha=1.5"], "extraction.alpha=1.5"),
    (["extraction.pages_correct_threshold=2"], "extraction.pages_correct_threshold=2"),
    (["extraction.unit_min_share=-0.5"], "extraction.unit_min_share=-0.5"),
    (["extraction.shingle_n=0"], "extraction.shingle_n=0"),
    (["extraction.metrics=[shingle,rouge]"], "extraction.metrics=[shingle,rouge]"),
    (["extraction.rouge_n=0"], "extraction.rouge_n=0"),
    (["experiment=dedup", "dedup.theta=1.5"], "dedup.theta=1.5"),
    (["experiment=dedup", "dedup.truth=oracle"], "dedup.truth=oracle"),
    (["experiment=dedup", "dedup.scopes=[]"], "dedup.scopes=[]"),
    (["experiment=dedup", "dedup.minhash_lsh=no"], "dedup.minhash_lsh=no"),
    (
        ["experiment=classification", "classification.test_fractions=[0.1,1.5]"],
        "classification.test_fractions",
    ),
    (
        ["experiment=classification", "classification.test_fractions=0.1"],
        "classification.test_fractions=0.1",
    ),
    (["experiment=units", "units.folds=1"], "units.folds=1"),
    (["experiment=units", "units.criterion=variance"], "units.criterion=variance"),
    (["experiment=speed", "speed.clock=sundial"], "speed.clock=sundial"),
    (["experiment=speed", "speed.micro.lengths=[]"], "speed.micro.lengths=[]"),
    (["seed=abc"], "seed=abc"),
]

BASE = ["experiment=extraction", "runner.progress=false"]


def _ids(case):
    return " ".join(case[0])


@pytest.mark.parametrize("overrides,key", CASES, ids=[_ids(c) for c in CASES])
def test_bad_value_is_one_line_naming_the_key(overrides, key, tmp_path, monkeypatch, capsys):
    results = tmp_path / "results"
    results.mkdir()
    empty = tmp_path / "empty"  # a folder of its own: /tmp may hold other programs' .json
    empty.mkdir()
    overrides = [o.replace("{empty}", str(empty)) for o in overrides]
    argv = ["evalkit", *BASE, f"paths.results={results}", *overrides]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as stop:
        cli.main()
    err = capsys.readouterr().err
    assert stop.value.code == 2, err
    lines = err.strip("\n").splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("evalkit: "), lines[0]
    assert key in lines[0], lines[0]
    assert list(results.iterdir()) == [], "a refused run left a run folder"


def test_at_least_25_cases():
    assert len(CASES) >= 25


@pytest.mark.parametrize(
    "overrides,key",
    [
        (["runner.n_jobs=0"], "runner.n_jobs=0: must be a whole number >= 1"),
        (["method.proposed.dedup.k=-1"], "method.proposed.dedup.k=-1: must be a whole number >= 0"),
        (["method.proposed.scoring.gamma=0.5"], "must sum to 1"),
        (
            ["dataset.synthetic.limit=abc"],
            "dataset.synthetic.limit=abc: must be a whole number >= 1",
        ),
    ],
)
def test_bad_value_through_a_subprocess(overrides, key, tmp_path):
    """The installed command path, Hydra and all, in its own process."""
    results = tmp_path / "results"
    results.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "evalkit", *BASE, f"paths.results={results}", *overrides],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip("\n").splitlines()
    assert len(lines) == 1 and key in lines[0], proc.stderr
    assert list(results.iterdir()) == []
    assert not (tmp_path / "outputs").exists()  # Hydra's default folder, had it got that far


def test_valid_values_still_pass_the_check():
    """The defaults of every method, reader and section are accepted (no false alarm)."""
    methods = "proposed,proposed_dedup,proposed_primary,cetd,cetd_ds,pab,justext_style,fulltext"
    argv = [
        *BASE,
        "experiment=all",
        f"method=[{methods}]",
        "runner=dask",
        "method.proposed.scoring.alpha=0.2",
        "method.proposed.scoring.beta=0.3",
        "method.proposed.scoring.gamma=0.5",
    ]
    assert cli.check_overrides(argv) is None


def test_a_value_refused_inside_the_run_leaves_no_folder(tmp_path, monkeypatch, capsys):
    # a bad value in a config file passes the command-line check and is found only after
    # Hydra made the run folder: the refusal removes what the run made, and only that
    results = tmp_path / "results"
    results.mkdir()
    monkeypatch.setattr(cli, "check_overrides", lambda argv: None)
    monkeypatch.setattr(
        sys, "argv", ["evalkit", *BASE, f"paths.results={results}", "runner.n_jobs=0"]
    )
    with pytest.raises(SystemExit) as stop:
        cli.main()
    assert stop.value.code == 2
    assert "runner.n_jobs" in capsys.readouterr().err
    assert [p for p in results.rglob("*") if p.is_file()] == []
    assert not any(p.name.startswith("20") for p in results.rglob("*")), "run folder left"


def test_a_refused_run_keeps_files_it_did_not_write(tmp_path, monkeypatch, capsys):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    monkeypatch.setattr(cli, "check_overrides", lambda argv: None)
    monkeypatch.setattr(
        sys,
        "argv",
        [
            "evalkit",
            *BASE,
            f"hydra.run.dir={mine}",
            f"paths.results={tmp_path / 'results'}",
            "runner.n_jobs=0",
        ],
    )
    with pytest.raises(SystemExit):
        cli.main()
    assert (mine / "notes.txt").read_text() == "keep me"
    assert not (mine / ".hydra").exists()
