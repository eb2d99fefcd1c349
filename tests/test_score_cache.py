"""Score records cached beside the extractions (evalkit.harness.score_cache.ScoreCache): a warm re-run of
the same config re-scores nothing, and anything that could change a record is in its key."""

from __future__ import annotations

import functools
import json
import math

from evalkit.core.page import Extraction, Gold, Page
from evalkit.harness.score_cache import ScoreCache, cached_scorer, scorer_key
from evalkit.harness.scoring import score_extraction

KEY = "k" * 16


def _page(
    text="alpha beta gamma delta",
    raw=b"<html><body><p>alpha beta gamma delta</p><p>menu</p></body></html>",
    units=None,
):
    return Page(id="p1", dataset="d", raw=raw, gold=Gold(text=text, units=units))


class Counting:
    """A scorer that counts its calls and returns a record with every JSON scalar type."""

    def __init__(self):
        self.calls = 0

    def __call__(self, page, label, ext):
        self.calls += 1
        return {
            "page_id": page.id,
            "method": label,
            "n": len(ext.text.split()),
            "f1": 0.25,
            "nan": float("nan"),
            "flag": True,
            "none": None,
        }


def test_a_record_is_read_back_not_rescored(tmp_path):
    score = Counting()
    cache = ScoreCache(score, tmp_path, KEY)
    ext = Extraction(text="alpha beta", seconds=0.5)
    first = cache(_page(), "m", ext)
    again = ScoreCache(score, tmp_path, KEY)(
        _page(), "m", Extraction(text="alpha beta", seconds=0.5)
    )
    assert score.calls == 1
    assert list(again) == list(first)  # column order kept: per_page.csv stays the same
    assert math.isnan(again.pop("nan")) and math.isnan(first.pop("nan"))
    assert (
        again
        == first
        == {"page_id": "p1", "method": "m", "n": 2, "f1": 0.25, "flag": True, "none": None}
    )


def test_what_changes_a_record_changes_its_key(tmp_path):
    score = Counting()
    base = (_page(), "m", Extraction(text="alpha beta", seconds=0.5))
    ScoreCache(score, tmp_path, KEY)(*base)
    variants = [
        (_page(), "m2", base[2]),  # method label
        (_page(), "m", Extraction(text="alpha", seconds=0.5)),  # extraction text
        (_page(), "m", Extraction(text="alpha beta", seconds=0.25)),  # its time
        (_page(), "m", Extraction(text="alpha beta", seconds=0.5, error="boom")),
        (_page(text="alpha beta"), "m", base[2]),  # gold text
        (_page(raw=b"<html><body><p>other</p></body></html>"), "m", base[2]),  # page bytes
    ]
    for page, label, ext in variants:
        ScoreCache(score, tmp_path, KEY)(page, label, ext)
    assert score.calls == 1 + len(variants)
    ScoreCache(score, tmp_path, "another-scorer!!")(*base)  # another scorer key
    assert score.calls == 2 + len(variants)


def test_a_crafted_or_broken_entry_is_a_miss_and_rewritten(tmp_path):
    score = Counting()
    args = (_page(), "m", Extraction(text="alpha beta", seconds=0.5))
    ScoreCache(score, tmp_path, KEY)(*args)
    (path,) = (tmp_path / "scores").rglob("*.score")
    entry = json.loads(path.read_text())
    entry["record"]["f1"] = 0.99  # an edited value: the checksum no longer matches
    path.write_text(json.dumps(entry))
    cache = ScoreCache(score, tmp_path, KEY)
    assert cache(*args)["f1"] == 0.25 and cache.invalid == 1 and score.calls == 2
    path.write_text('{"format": "evalkit.scores", "record": {"x": [1]}}')
    cache = ScoreCache(score, tmp_path, KEY)
    assert cache(*args)["f1"] == 0.25 and cache.invalid == 1 and score.calls == 3
    assert ScoreCache(score, tmp_path, KEY)(*args)["f1"] == 0.25 and score.calls == 3


def test_only_project_scorers_are_keyed(tmp_path):
    real = functools.partial(score_extraction, shingle_n=4, unit_min_share=0.5)
    other = functools.partial(score_extraction, shingle_n=3, unit_min_share=0.5)
    assert scorer_key(real) is not None and scorer_key(real) != scorer_key(other)
    assert isinstance(cached_scorer(real, tmp_path), ScoreCache)
    assert cached_scorer(real, None) is real
    local = Counting()  # defined in a test module: its source is not followed, never cached
    assert scorer_key(local) is None and cached_scorer(local, tmp_path) is local


def test_the_real_scorer_gives_the_same_record_warm(tmp_path):
    units = None
    page = _page(units=units)
    ext = Extraction(text="alpha beta gamma", seconds=0.001)
    real = functools.partial(score_extraction, shingle_n=4, unit_min_share=0.5)
    cold = cached_scorer(real, tmp_path)(page, "m", ext)
    warm = cached_scorer(real, tmp_path)(
        _page(), "m", Extraction(text="alpha beta gamma", seconds=0.001)
    )
    assert json.dumps(warm, sort_keys=True) == json.dumps(cold, sort_keys=True)
    assert cold["word_precision"] == 1.0 and cold["word_recall"] == 0.75


def test_a_warm_run_reads_records_back_and_parses_no_page(tmp_path, monkeypatch):
    from evalkit.core import page as page_mod
    from evalkit.harness.runner import Runner
    from evalkit.harness.specs import MethodSpec
    from evalkit.readers.synthetic import SyntheticDataset

    specs = [MethodSpec("fulltext", "fulltext"), MethodSpec("cetd", "cetd")]
    real = functools.partial(score_extraction, shingle_n=4, unit_min_share=0.5)

    def run():
        with Runner(cache_root=str(tmp_path), progress=False) as runner:
            return runner.run_pages(
                SyntheticDataset(n_sites=2, pages_per_site=2).pages(), specs, score=real
            )

    cold = run()
    assert not any(r["cached"] for r in cold) and "word_f1" in cold[0]

    def no_parse(*args, **kwargs):
        raise RuntimeError("parsed on the warm pass")

    # scoring parses the page (its visible words, its units); methods were cached: a
    # warm pass that re-scored or re-extracted anything would record the error
    monkeypatch.setattr(page_mod.Page, "tree", no_parse)
    warm = run()
    assert all(r["cached"] for r in warm)
    assert [{k: v for k, v in r.items() if k != "cached"} for r in warm] == [
        {k: v for k, v in r.items() if k != "cached"} for r in cold
    ]
