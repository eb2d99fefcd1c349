"""The shingle scorer reproduces the article-extraction-benchmark's published figures.

Inputs are the benchmark's own stored outputs and ground truth
(``scrapinghub-aeb/output/<system>.json``, ``ground-truth.json``); the
expected F1/precision/recall are the figures its README publishes for them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalkit.metrics import aggregate_prf, bootstrap_ci_pages, shingle_prf

# system (output file stem) -> published (F1, precision, recall)
PUBLISHED = {
    "trafilatura": (0.958, 0.938, 0.978),
    "readability": (0.922, 0.913, 0.931),
    "justext": (0.804, 0.858, 0.756),
    "boilerpipe": (0.860, 0.850, 0.870),
    "html-text": (0.665, 0.500, 0.994),
}
TOLERANCE = 0.002


def load_aeb_outputs(path: Path) -> dict[str, str]:
    """``{page id: articleBody}`` from a benchmark output or ground-truth file.

    Accepts both layouts (``{id: {...}}`` and ``{"version": ..., "output":
    {id: {...}}}``); a missing entry or body reads as empty text.
    """
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if set(data) <= {"version", "output"} and isinstance(data.get("output"), dict):
        data = data["output"]
    return {key: (item or {}).get("articleBody") or "" for key, item in data.items()}


def score(pred: dict[str, str], gold: dict[str, str]) -> dict[str, float]:
    if pred.keys() != gold.keys():
        raise ValueError(
            f"prediction ids differ from ground truth: {len(pred.keys() ^ gold.keys())} ids"
        )
    pages = [shingle_prf(pred[key], gold[key]) for key in gold]
    return aggregate_prf([p.precision for p in pages], [p.recall for p in pages])


@pytest.fixture
def aeb(shared):
    root = shared("scrapinghub-aeb")
    return root, load_aeb_outputs(root / "ground-truth.json")


@pytest.mark.parametrize("system", sorted(PUBLISHED))
def test_reproduces_published_scores(aeb, system):
    root, gold = aeb
    assert len(gold) == 181
    got = score(load_aeb_outputs(root / "output" / f"{system}.json"), gold)
    f1, precision, recall = PUBLISHED[system]
    assert got["f1"] == pytest.approx(f1, abs=TOLERANCE)
    assert got["precision"] == pytest.approx(precision, abs=TOLERANCE)
    assert got["recall"] == pytest.approx(recall, abs=TOLERANCE)


def test_ground_truth_scores_perfectly(aeb):
    _, gold = aeb
    assert score(gold, gold) == {"precision": 1.0, "recall": 1.0, "f1": 1.0}


def test_interval_brackets_the_published_f1(aeb):
    root, gold = aeb
    pred = load_aeb_outputs(root / "output" / "trafilatura.json")
    pages = [shingle_prf(pred[key], gold[key]) for key in gold]
    low, high = bootstrap_ci_pages(
        [[p.precision for p in pages], [p.recall for p in pages]],
        lambda p, r: aggregate_prf(p, r)["f1"],
        seed=0,
    )
    assert low < 0.958 < high
    assert 0.01 < high - low < 0.04  # measured (0.946, 0.968) over the 181 pages
