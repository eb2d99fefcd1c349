"""The metric families are one table (evalkit.metrics.families): the table's own rules, and a toy
family added the way docs/extending.md says, in a copy of the repository, touching only the
files that page names, then scored and summarised by an ordinary extraction run."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from evalkit.harness.scoring import FAMILIES as SCORED
from evalkit.metrics import BY_NAME, FAMILIES, TEXT_FAMILIES, Family, family_of

REPO = Path(__file__).resolve().parents[1]


def test_every_column_of_a_record_belongs_to_one_family():
    # rouge2_f1 is ROUGE-N's, rouge_lsum_f1 ROUGE-LSum's, edit_similarity edit's
    assert family_of("rouge_lsum_f1").name == "rouge_lsum"
    assert family_of("rouge2_f1").name == "rouge_n"
    assert family_of("edit_similarity").name == "edit"
    assert family_of("unit_tp").name == "unit"
    assert family_of("n_words_out") is None
    assert SCORED == tuple(f.name for f in FAMILIES)
    assert TEXT_FAMILIES == ("shingle", "word", "lcs", "kaur", "rouge_lsum", "rouge_n", "edit")


def test_the_mean_rule_summarises_precision_recall_f1_then_accuracy():
    cols = ["kaur_tp", "kaur_f1", "kaur_accuracy", "kaur_precision", "kaur_recall", "word_f1"]
    assert BY_NAME["kaur"].summary_columns(cols) == [
        "kaur_precision",
        "kaur_recall",
        "kaur_f1",
        "kaur_accuracy",
    ]
    assert BY_NAME["rouge_n"].summary_columns(["rouge3_f1", "rouge3_recall", "rouge_lsum_f1"]) == [
        "rouge3_recall",
        "rouge3_f1",
    ]


def test_a_family_is_checked_when_it_is_made():
    with pytest.raises(ValueError, match="summary must be one of"):
        Family("x", "x_", "median", "nobody")
    with pytest.raises(ValueError, match="both prepare and score"):
        Family("x", "x_", "mean", "nobody", prepare=len)


TOY = '''"""A toy metric family for tests/test_families.py: the share of the gold's distinct
lower-cased words that the extraction holds (recall of the word set), and its precision."""

from evalkit.metrics.scores import prf_from_counts


def prepare(gold_text):
    return set(gold_text.lower().split())


def score(text, gold):
    got = set(text.lower().split())
    hit = len(got & gold)
    prf = prf_from_counts(hit, len(got) - hit, len(gold) - hit)
    return {f"toy_{k}": v for k, v in prf._asdict().items()}
'''


def _named_files(name: str) -> set[str]:
    """The files docs/extending.md's "A metric family" says a new family touches."""
    text = (REPO / "docs" / "extending.md").read_text(encoding="utf-8")
    section = text.split("## A metric family\n", 1)[1].split("\n## ", 1)[0]
    files = re.findall(r"`((?:evalkit|tests|docs)/[\w/<>.]+\.(?:py|md))`", section)
    files += ["docs/" + f for f in re.findall(r"\]\((\w+\.md)\)", section)]
    # the ones the section cites for another reason: what checks the list, where the unit
    # scores are, how mutation testing is done
    cited = {"tests/test_docs.py", "evalkit/harness/scoring.py", "docs/mutation.md"}
    return {f.replace("<name>", name) for f in files} - cited


@pytest.mark.slow
def test_a_toy_family_added_as_the_docs_say_is_scored_and_summarised(tmp_path):
    root = tmp_path / "repo"
    for part in ("evalkit", "baselines", "configs", "docs", "tests"):
        shutil.copytree(REPO / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
    for part in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(REPO / part, root / part)
    before = {
        p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()
    }
    # 1. the module, 2. one entry in the table, 3. the docs, 4. its test
    (root / "evalkit/metrics/toy.py").write_text(TOY, encoding="utf-8")
    table = root / "evalkit/metrics/families.py"
    text = table.read_text(encoding="utf-8")
    text = text.replace(
        "from typing import Any\n", "from typing import Any\n\nfrom evalkit.metrics import toy\n"
    )
    end = "\n)\n\n#: family name"  # the end of the FAMILIES table: the entry goes last
    assert end in text
    text = text.replace(
        end,
        """
    Family("toy", "toy_", "mean", "a toy", summarized=("precision", "recall", "f1"),
           after_units=True, prepare=toy.prepare, score=toy.score),"""
        + end,
    )
    table.write_text(text, encoding="utf-8")
    doc = root / "docs/metrics.md"
    text = doc.read_text(encoding="utf-8").replace("aeb_exact`", "aeb_exact, toy`")
    doc.write_text(
        text + "\n## toy\n\nThe distinct-word overlap of tests/test_families.py.\n",
        encoding="utf-8",
    )
    (root / "tests/test_toy.py").write_text(
        "from evalkit.metrics.toy import prepare, score\n\n\ndef test_half():\n"
        "    assert score('a b', prepare('A c'))['toy_recall'] == 0.5\n",
        encoding="utf-8",
    )
    after = {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    touched = {f for f in after if before.get(f) != after[f]}
    assert touched == _named_files("toy")

    env = {**os.environ, "PYTHONPATH": str(root), "EVALKIT_ROOT": str(root)}
    out = tmp_path / "run"
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalkit",
            "experiment=extraction",
            "dataset=synthetic",
            "dataset.synthetic.n_sites=2",
            "method=[fulltext,cetd]",
            "runner.progress=false",
            "extraction.metrics=[shingle,toy]",
            "extraction.n_boot=20",
            f"hydra.run.dir={out}",
            f"paths.cache={tmp_path / 'cache'}",
        ],
        cwd=root,
        env=env,
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    summary = pd.read_csv(out / "summary.csv")
    toy = summary[summary["metric"].str.startswith("toy_")]
    assert set(toy["metric"]) == {"toy_precision", "toy_recall", "toy_f1"}
    assert set(toy["method"]) == {"fulltext", "cetd"}
    # fulltext holds every word of the page, so every gold word: recall 1
    assert toy[(toy["method"] == "fulltext") & (toy["metric"] == "toy_recall")]["value"].iloc[
        0
    ] == pytest.approx(1.0)
    # the new rows come after the older ones: last of each method's rows
    rows = summary[summary["method"] == "cetd"]["metric"].tolist()
    assert rows[-3:] == ["toy_precision", "toy_recall", "toy_f1"] or rows.index(
        "toy_f1"
    ) > rows.index("pages_correct")
    per_page = pd.read_csv(out / "per_page.csv")
    assert per_page["toy_f1"].notna().all()
