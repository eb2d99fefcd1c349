"""Issue 37, item 20: what evalkit shows of data is shown, never obeyed.

Each test performs the attack: escape sequences in file names on the console, page ids that a
spreadsheet runs as formulas in per_page.csv, labels that are HTML in report.md, and two page
files of one stem paired with the wrong gold."""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir
from omegaconf import open_dict

from evalkit.experiments import run_experiment
from evalkit.harness.config import register_resolvers
from evalkit.readers.pairs import PairsDataset
from evalkit.report.csv_safe import neutralise, restore, restore_frame
from evalkit.report.per_page_csv import read_per_page
from evalkit.shell.cli import CONFIG_DIR

register_resolvers()

ROOT = Path(__file__).resolve().parents[1]
GOLD = "The council approved the new budget on Tuesday after a long debate."
PAGE = f"<html><body><nav>Home News</nav><p>{GOLD}</p></body></html>"
#: clears the screen, paints red, retitles the terminal window
ESCAPES = "\x1b[2J\x1b[31mRED\x1b]0;owned\x07"
#: page ids a spreadsheet runs (OWASP's CSV injection examples)
FORMULAS = ('=HYPERLINK("http:\\\\evil","x")', "+1+cmd", "-2+3+cmd", "@SUM(1+1)")


def _pair(root: Path, stem: str, page: str = PAGE, gold: str = GOLD) -> None:
    (root / "html").mkdir(parents=True, exist_ok=True)
    (root / "gold").mkdir(parents=True, exist_ok=True)
    (root / "html" / f"{stem}.html").write_text(page)
    (root / "gold" / f"{stem}.txt").write_text(gold)


def test_escape_sequences_in_file_names_are_escaped_on_the_console(tmp_path):
    data, out = tmp_path / "pages", tmp_path / "stored"
    _pair(data, "plain")
    out.mkdir()
    (out / "plain.txt").write_text(GOLD)
    (out / f"zz{ESCAPES}.txt").write_text("a stored id that is no page of the run")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalkit",
            "experiment=extraction",
            f"dataset={data}",
            "method=stored",
            f"method.stored.path={out}",
            "method.stored.format=folder",
            f"hydra.run.dir={tmp_path / 'run'}",
            "runner.n_jobs=1",
            "extraction.n_boot=20",
        ],
        check=False,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    printed = done.stdout + done.stderr
    assert "\x1b" not in printed and "\x07" not in printed
    # the warning still names the file, its controls written out
    assert "zz\\x1b[2J\\x1b[31mRED\\x1b]0;owned\\x07" in done.stderr


def _run(data: Path, tmp_path: Path) -> Path:
    overrides = [
        "experiment=extraction",
        f"paths.results={tmp_path / 'results'}",
        "runner.n_jobs=1",
        "runner.progress=false",
        "extraction.n_boot=20",
        "method=fulltext",
    ]
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(config_name="config", overrides=overrides)
    with open_dict(cfg):
        cfg.dataset = {"<img src=x onerror=alert(1)>": {"_name_": "pairs", "path": str(data)}}
    return run_experiment(cfg, tmp_path / "run")


@pytest.fixture(scope="module")
def formula_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("formulas")
    for stem in FORMULAS:
        _pair(tmp / "pages", stem)
    _pair(tmp / "pages", "'quoted")  # an id that starts with a quote comes back as it was
    return _run(tmp / "pages", tmp)


def test_page_ids_that_are_formulas_go_into_the_csv_as_text(formula_run):
    with open(formula_run / "per_page.csv", newline="") as fh:
        written = {row["page_id"] for row in csv.DictReader(fh) if row["page_id"]}
    # every formula id is written with OWASP's leading quote: a spreadsheet shows it as text
    assert written == {"'" + f for f in FORMULAS} | {"''quoted"}
    # and evalkit's own reader gives every id back exactly
    ids = set(read_per_page(formula_run / "per_page.csv")["page_id"].dropna())
    assert ids == {*FORMULAS, "'quoted"}


def test_formula_cells_are_neutralised_and_restored_exactly():
    for text in [*FORMULAS, "'x", "''", "\tcmd", "\rcmd"]:
        assert neutralise(text).startswith("'") and restore(neutralise(text)) == text
    for text in ["-", "-0.5", "+3", "1e-5", "plain", "", "a=b"]:  # numbers and text stay
        assert neutralise(text) == text and restore(text) == text


def test_restore_frame_gives_back_category_columns_too():
    written = [neutralise(t) for t in ["=SUM(A1)", "plain", "'x", "plain"]]
    df = restore_frame(pd.DataFrame({"method": pd.Categorical(written), "id": written}))
    assert list(df["method"]) == list(df["id"]) == ["=SUM(A1)", "plain", "'x", "plain"]
    assert isinstance(df["method"].dtype, pd.CategoricalDtype)


def test_a_label_that_is_html_is_shown_in_report_md_not_run(formula_run):
    report = (formula_run / "report.md").read_text()
    # outside code spans (where markdown shows text as it is) no tag is left to run
    assert "<img" not in re.sub(r"(`+)[^`]*?\1", "", report)
    assert "&lt;img src=x onerror=alert(1)>" in report
    for table in (formula_run / "tables").glob("*.md"):
        assert "<img" not in re.sub(r"(`+)[^`]*?\1", "", table.read_text()), table


def test_p1_htm_beside_p1_html_is_refused_not_paired_with_the_wrong_gold(tmp_path):
    _pair(tmp_path, "p1", page="<html><body><p>An unrelated draft page.</p></body></html>")
    (tmp_path / "html" / "p1.htm").write_text(PAGE)
    _pair(tmp_path, "p2")
    ds = PairsDataset(path=str(tmp_path))
    assert [p.id for p in ds.pages()] == ["p2"]
    reasons = {Path(s.file).name: s.reason for s in ds.skipped}
    line = (
        "ambiguous page: p1.htm and p1.html share the stem 'p1' of one gold file; "
        "rename or remove all but one"
    )
    assert reasons == {"p1.htm": line, "p1.html": line, "p1.txt": "gold file of an ambiguous page"}
    assert ds._count_pages() == 1
    pd.testing.assert_index_equal(pd.Index(["p2"]), pd.Index([p.id for p in ds.pages()]))
