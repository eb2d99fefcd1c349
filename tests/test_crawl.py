"""experiment=crawl (issue 41, item 3): extractors compared without gold on a WARC folder.

Numbers worked by hand: the agreement F1 of two known outputs, union and intersection of
token multisets, the yield and languages of a German, an English and an empty page; the
WARC generator's bytes; the same run on the Dask runner gives the same summary.csv bytes.
"""

from __future__ import annotations

import gzip
import math
import pickle

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from evalkit.core.page import Extraction, Gold, Page
from evalkit.experiments import run_experiment
from evalkit.experiments.crawl.records import (
    CrawlScorer,
    agreement,
    page_scorer,
    union_intersection,
)
from evalkit.harness.config import ConfigError, register_resolvers
from evalkit.harness.make_warc import http_response, warc_record, write_crawl
from evalkit.shell.cli import CONFIG_DIR

pytest.importorskip("fastwarc.warc")
pytest.importorskip("py3langid")
register_resolvers()

GERMAN = "Die Katze sitzt auf der Matte und schläft den ganzen Tag, weil sie sehr müde ist."
ENGLISH = (
    "The cat sits on the mat and sleeps all day long because it is very tired. It dreams of fish."
)


def _page(pid: str = "p", raw: bytes = b"<p>x</p>") -> Page:
    return Page(id=pid, dataset="t", raw=raw, gold=Gold(text=""))


def test_agreement_is_symmetric_bag_of_words_f1_with_the_empty_rules():
    a, b = "a b c d".split(), "a b e".split()
    # overlap {a, b} = 2: F1 = 2 * 2 / (4 + 3)
    assert agreement(a, b) == agreement(b, a) == pytest.approx(4 / 7)
    # multisets: "a a b" and "a b b c" share one a and one b: 2 * 2 / (3 + 4)
    assert agreement("a a b".split(), "a b b c".split()) == pytest.approx(4 / 7)
    assert agreement(a, []) == 0.0
    assert math.isnan(agreement([], []))
    assert math.isnan(agreement(a, None))  # a failed output under runner.on_failure=drop


def test_union_and_intersection_of_token_multisets():
    # union: a2 b2 c1 = 5 tokens; intersection: a1 b1 = 2
    assert union_intersection(["a a b".split(), "a b b c".split()]) == (5, 2)
    assert union_intersection(["a b".split(), None]) == (2, 0)  # failed counts as empty
    assert union_intersection([["x"]]) == (1, 1)


def test_records_per_page_language_agreement_and_union():
    scorer = CrawlScorer(min_words=3, metric="word", union=("a", "b"))
    page = _page()
    ra = scorer(page, "a", Extraction(text=GERMAN))
    rb = scorer(page, "b", Extraction(text="Die Katze"))
    rc = scorer(page, "c", Extraction(text=""))
    assert (ra["n_words_out"], ra["has_output"], ra["language"]) == (16, 1, "de")
    assert (rb["n_words_out"], rb["has_output"], rb["language"]) == (2, 0, "und")  # too short
    assert not any(k.startswith("agree_") for k in ra)
    assert rb["agree_a"] == pytest.approx(2 * 2 / (16 + 2))
    assert rc["agree_a"] == rc["agree_b"] == 0.0
    assert (rb["union_tokens"], rb["intersection_tokens"]) == (16, 2)  # on b: the last of union
    assert "union_tokens" not in ra and "union_tokens" not in rc
    # a method scored again on the page (the pipeline re-scores a failed scoring as empty)
    again = scorer(page, "b", Extraction(text=""))
    assert again["agree_a"] == 0.0 and "agree_b" not in again
    assert (again["union_tokens"], again["intersection_tokens"]) == (16, 0)
    # the next page starts afresh: its first method agrees with nothing yet
    q = _page("q")
    nxt = scorer(q, "a", Extraction(text=ENGLISH))
    assert nxt["language"] == "en" and not any(k.startswith("agree_") for k in nxt)
    # a failed extraction (runner.on_failure=drop hands it over as it is): no output columns
    bad = scorer(q, "b", Extraction(error="boom"))
    assert math.isnan(bad["n_words_out"]) and bad["language"] is None
    assert math.isnan(bad["agree_a"])


def test_wcxb_tokens_lower_case_and_drop_punctuation():
    page = _page()
    word, wcxb = CrawlScorer(metric="word"), CrawlScorer(metric="wcxb")
    for scorer in (word, wcxb):
        scorer(page, "a", Extraction(text="The Cat"))
    assert word(page, "b", Extraction(text="the cat."))["agree_a"] == 0.0
    assert wcxb(page, "b", Extraction(text="the cat."))["agree_a"] == 1.0


def test_the_scorer_pickles_without_its_open_pages():
    import cloudpickle

    scorer = CrawlScorer(union=("a",))
    scorer(_page(), "a", Extraction(text="x y"))
    again = pickle.loads(pickle.dumps(scorer))
    assert again._open == {} and again.union == ("a",)
    score = cloudpickle.loads(cloudpickle.dumps(page_scorer(min_words=1, metric="word", union=())))
    assert score(_page(), "a", Extraction(text="one two"))["n_words_out"] == 2


def test_make_warc_is_deterministic_and_read_back(tmp_path):
    from evalkit.readers.warc import WarcDataset

    one = write_crawl(tmp_path / "one", 7, seed=3, pages_per_site=3, records_per_file=4)
    two = write_crawl(tmp_path / "two", 7, seed=3, pages_per_site=3, records_per_file=4)
    assert [p.name for p in one] == ["crawl-00000.warc.gz", "crawl-00001.warc.gz"]
    assert [p.read_bytes() for p in one] == [p.read_bytes() for p in two]
    first = gzip.decompress(one[0].read_bytes())
    assert first.startswith(b"WARC/1.1\r\nWARC-Type: warcinfo\r\n")
    assert first.count(b"WARC-Type: response") == 4
    ds = WarcDataset(str(tmp_path / "one"))
    pages = list(ds.pages())
    assert len(pages) == 7 and len({p.id for p in pages}) == 7 and not ds.skipped
    assert len({p.site for p in pages}) == 3 and all(p.gold.text == "" for p in pages)
    with pytest.raises(ValueError, match=r"already holds crawl-00000.warc.gz; add --force"):
        write_crawl(tmp_path / "one", 7)


def _tiny_crawl(folder):
    """A German, an English and a textless page, each a site of its own."""
    records = []
    for rid, host, body in (
        ("de-1", "de.example", GERMAN),
        ("en-2", "en.example", ENGLISH),
        ("none-3", "none.example", ""),
    ):
        html = f"<html><body><p>{body}</p></body></html>".encode()
        head = [
            ("WARC-Type", "response"),
            ("WARC-Record-ID", f"<urn:uuid:{rid}>"),
            ("WARC-Date", "2024-01-01T00:00:00Z"),
            ("WARC-Target-URI", f"http://{host}/"),
            ("Content-Type", "application/http; msgtype=response"),
        ]
        records.append(gzip.compress(warc_record(head, http_response(html)), mtime=0))
    folder.mkdir()
    (folder / "tiny.warc.gz").write_bytes(b"".join(records))


def _compose(overrides):
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        return compose(config_name="config", overrides=overrides)


def _common(folder) -> list[str]:
    return [
        "experiment=crawl",
        f"dataset.warc.path={folder}",
        "runner.cache=false",
        "runner.progress=false",
        "runner.quiet=true",
        "report.html=false",
    ]


def test_end_to_end_numbers_by_hand(tmp_path):
    _tiny_crawl(tmp_path / "crawl")
    cfg = _compose(
        [
            *_common(tmp_path / "crawl"),
            "method=[fulltext,cetd,empty]",
            "crawl.union=[fulltext,empty]",
        ]
    )
    out = run_experiment(cfg, tmp_path / "run")
    s = pd.read_csv(out / "summary.csv").set_index(["method", "metric"])
    value, pages = s["value"], s["n_pages"]
    # fulltext: 16 and 20 words on the German and English pages, nothing on the third
    assert value["fulltext", "output_share"] == pytest.approx(2 / 3)
    assert value["fulltext", "words_mean"] == pytest.approx(12.0)
    assert value["fulltext", "words_median"] == 16
    assert value["fulltext", "words_p90"] == pytest.approx(19.2)  # 16 + 0.8 * (20 - 16)
    assert value["fulltext", "words_total"] == 36
    assert value["empty", "output_share"] == 0
    for lang in ("de", "en", "und"):
        assert value["fulltext", f"language_{lang}"] == pytest.approx(1 / 3)
    assert value["empty", "language_und"] == 1
    # agreement: cetd gives fulltext's text on these one-paragraph pages; empty agrees with
    # nothing; the textless page (both empty) is left out of every pair
    assert value["fulltext", "agreement_cetd"] == value["cetd", "agreement_fulltext"] == 1
    assert value["fulltext", "agreement_empty"] == 0 and pages["fulltext", "agreement_empty"] == 2
    # union of fulltext and empty is fulltext; their intersection is empty
    assert value["union", "tokens_total"] == 36 and value["union", "tokens_mean"] == 12
    assert value["intersection", "tokens_total"] == 0
    assert value["fulltext", "union_share"] == 1 and value["empty", "union_share"] == 0
    assert value["fulltext", "failures"] == 0 and pages["fulltext", "failures"] == 3
    for kind in ("yield", "languages", "agreement", "union"):
        assert (out / "tables" / f"crawl_{kind}_warc.csv").is_file()
    assert (out / "figures" / "crawl_agreement_warc.png").is_file()
    per_page = pd.read_csv(out / "per_page.csv")
    assert len(per_page) == 9 and set(per_page["language"].dropna()) == {"de", "en", "und"}


def test_a_bad_setting_is_one_line_naming_the_key(tmp_path):
    _tiny_crawl(tmp_path / "crawl")
    cfg = _compose([*_common(tmp_path / "crawl"), "method=[fulltext]", "crawl.union=[nope]"])
    with pytest.raises(ConfigError, match=r"^crawl.union=\[nope\]: names a method the run"):
        run_experiment(cfg, tmp_path / "run")


def test_dask_gives_the_local_summary_bytes(tmp_path):
    pytest.importorskip("distributed")
    write_crawl(tmp_path / "crawl", 12, pages_per_site=4, records_per_file=5)
    common = [*_common(tmp_path / "crawl"), "method=[fulltext,cetd,justext_style]"]
    local = run_experiment(_compose([*common, "runner.n_jobs=1"]), tmp_path / "local")
    dask = run_experiment(
        _compose([*common, "runner=dask", "runner.processes=false", "runner.n_workers=2"]),
        tmp_path / "dask",
    )
    a = (local / "summary.csv").read_bytes()
    assert a.count(b"\n") > 40 and b"agreement_cetd" in a
    assert a == (dask / "summary.csv").read_bytes()
    for kind in ("yield", "languages", "agreement", "union"):
        name = f"tables/crawl_{kind}_warc.csv"
        assert (local / name).read_bytes() == (dask / name).read_bytes()


def test_a_folder_of_warc_files_on_the_command_line_is_a_crawl(tmp_path):
    from evalkit.shell.dataset_paths import folder_overrides, path_overrides

    _tiny_crawl(tmp_path / "crawl")
    assert folder_overrides("crawl", tmp_path / "crawl")[0] == "++dataset.crawl._name_=warc"
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "a.warc").write_bytes(b"")
    assert folder_overrides("plain", tmp_path / "plain")[2] == "++dataset.plain.files='*.warc'"
    argv = path_overrides(["experiment=crawl", f"dataset={tmp_path / 'crawl'}"], ["warc"])
    cfg = _compose(
        [*argv, "runner.cache=false", "runner.quiet=true", "report.html=false", "method=[fulltext]"]
    )
    out = run_experiment(cfg, tmp_path / "run")
    s = pd.read_csv(out / "summary.csv").set_index(["method", "metric"])["value"]
    assert s["fulltext", "output_share"] == pytest.approx(2 / 3)
