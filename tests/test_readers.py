"""Dataset readers: page counts and known contents of the real sets, and skip/missing rules."""

from collections import Counter

import pytest

from evalkit.core.domains import site_of
from evalkit.harness.registry import DATASETS
from evalkit.readers.aeb import AEBDataset
from evalkit.readers.base import DatasetMissingError, group_by_site
from evalkit.readers.cleaneval import PORTAL_SITE_PATTERN, CleanEvalDataset
from evalkit.readers.l3s import L3SGN1Dataset
from evalkit.readers.pairs import PairsDataset, decode_text, gold_to_text
from evalkit.readers.readability import ReadabilityDataset

CHAOS_PATTERN = r"^(?P<category>.+) \(\d+\)$"
BIG5_PATTERN = r"^(?P<category>[^()]+?)(?: \(\d+\))?$"


def _load(ds):
    pages = list(ds.pages())
    assert ds.skipped == [], ds.skipped[:5]
    # id order, then each site's pages moved up behind its first page (docs/sites.md)
    in_order = group_by_site(sorted(pages, key=lambda p: p.id), site_of)
    assert [p.id for p in pages] == [p.id for p in in_order]
    return pages


def test_l3s_gn1(shared):
    pages = _load(L3SGN1Dataset(path=str(shared("l3s-gn1"))))
    assert len(pages) == 621
    first = pages[0]
    assert first.id == "01ccc7c5-a1d1-46e1-a5f7-43310df16575"
    assert first.url == "http://www.un.org/apps/news/story.asp?NewsID=25318&Cr=kosovo&Cr1="
    assert first.site == "un.org" and first.dataset == "l3s_gn1"
    assert first.gold.text.startswith("No agreement reached on Kosovo?s future status")
    assert first.raw.startswith(b"<!DOCTYPE html PUBLIC")
    assert first.gold.annotation.html.startswith(b"<html><head>")
    assert first.gold.annotation.content_classes == ("sel1", "sel2")
    assert first.gold.annotation.source.endswith(".html") and not first.gold.extra
    assert all(p.url for p in pages) and len({p.site for p in pages}) > 300


def test_cleaneval_dev(shared):
    pages = _load(CleanEvalDataset(path=str(shared("cleaneval-dev")), name="cleaneval_dev"))
    assert len(pages) == 58
    by_id = {p.id: p for p in pages}
    one = by_id["1"]
    assert one.url == "http://1-las-vegas-real-estate.com/homes/sellers/list_today/"
    assert one.gold.text.startswith("If you feel it's time to start taking action")
    assert "<h>" not in one.gold.text and "<l>" not in one.gold.text
    assert "URL:" not in one.gold.text and one.site == "1-las-vegas-real-estate.com"
    # "URL:" alone, the address on the next line
    assert by_id["22"].url.startswith("http://books.guardian.co.uk/departments/")
    assert by_id["22"].gold.text.startswith("Your cheating heart")
    assert by_id["32"].gold.text == ""  # an index page: kept, with empty gold
    assert all(p.url for p in pages)


def test_cleanportaleval(shared):
    pages = _load(
        CleanEvalDataset(
            path=str(shared("cleanportaleval")),
            site_pattern=PORTAL_SITE_PATTERN,
            name="cleanportaleval",
        )
    )
    assert len(pages) == 71
    assert Counter(p.site for p in pages) == {
        "tv.msnbc.com_news": 30,
        "blogs.wsj.com_brussels": 14,
        "washingtonpost.com_blog1": 13,
        "bbc.co.uk_news": 12,
        "washingtonpost.com_blog2": 2,
    }
    first = pages[0]
    assert (
        first.id == "bbc.co.uk_news_01" and first.url == "http://bbc.co.uk/news/business-21302969"
    )
    assert first.gold.text.startswith("One couple's mission to find a better work/life balance")
    assert "the BBC's Kate Dailey" in first.gold.text  # &#039; decoded
    assert not any("&#" in p.gold.text for p in pages)


def test_readability(shared):
    pages = _load(ReadabilityDataset(path=str(shared("readability"))))
    assert len(pages) == 116
    first = pages[0]
    assert first.id == "001" and first.url is None
    assert first.gold.text.startswith("So finally you're testing your frontend JavaScript code?")
    assert "<p>" not in first.gold.text
    js = next(p for p in pages if p.id == "js-link-replacement")
    assert js.gold.text == "abc\ndef\nghi"


def test_aeb(shared):
    pages = _load(AEBDataset(path=str(shared("scrapinghub-aeb"))))
    assert len(pages) == 181
    first = pages[0]
    assert first.id == "042bb7b5fedab6eac7db576522b89b93904c237d344bcbe14a6a5ab7f7335856"
    assert first.url.startswith("https://www.wsj.com/articles/google-stadia-microsoft-xcloud")
    assert first.site == "wsj.com"
    assert first.gold.text.startswith("Gaming used to be so simple. We’d buy a game")
    assert b"<html" in first.raw[:2000].lower()  # gunzipped


def test_chaos(shared):
    pages = _load(
        PairsDataset(path=str(shared("chaos")), category_pattern=CHAOS_PATTERN, name="chaos")
    )
    assert len(pages) == 360
    counts = Counter(p.category for p in pages)
    assert len(counts) == 36 and set(counts.values()) == {10}
    assert "elon,musk" in counts and "north,korea" in counts
    first = pages[0]
    assert first.id == "affair (1)" and first.category == "affair"
    assert first.gold.text.startswith("Alabama governor abused power to cover up affair")


def test_big5(shared):
    pages = _load(
        PairsDataset(path=str(shared("big5-2017")), category_pattern=BIG5_PATTERN, name="big5_2017")
    )
    assert len(pages) == 90
    cats = {p.id: p.category for p in pages}
    assert cats["amazon (1)"] == "amazon" and cats["bush"] == "bush"
    assert cats["trump (10)"] == "trump"
    assert Counter(cats.values())["trump"] == 12
    assert pages[0].gold.text.startswith("Amazon buys Souq in big play for Middle East market")


def test_registry_builds_readers(shared):
    ds = DATASETS.get("pairs")(
        path=str(shared("chaos")), limit=3, name="chaos", category_pattern=CHAOS_PATTERN
    )
    pages = list(ds.pages())
    assert len(pages) == 3 and {p.dataset for p in pages} == {"chaos"}
    assert ds.get_params() == {
        "path": str(shared("chaos")),
        "limit": 3,
        "html_dir": "html",
        "gold_dir": "gold",
        "gold_format": "text",
        "category_pattern": CHAOS_PATTERN,
        "site_pattern": None,
        "keep_empty_gold": True,
        "name": "chaos",
    }
    ds = DATASETS.create("cleaneval", path=str(shared("cleanportaleval")), limit=1)
    assert ds.get_params()["gold_dir"] == "GoldStandard" and ds.gold_format == "cleaneval"


def test_missing_folder_says_how_to_fetch(tmp_path):
    for ds, name in [
        (L3SGN1Dataset(path=str(tmp_path / "l3s-gn1")), "l3s-gn1"),
        (PairsDataset(path=str(tmp_path / "chaos")), "chaos"),
        (AEBDataset(path=str(tmp_path / "x")), "scrapinghub-aeb"),
    ]:
        with pytest.raises(DatasetMissingError, match=f"python -m evalkit.readers.download {name}"):
            list(ds.pages())


def test_every_passed_over_file_is_recorded(tmp_path):
    (tmp_path / "html").mkdir()
    (tmp_path / "gold").mkdir()
    (tmp_path / "html" / "a (1).html").write_bytes(b"<html><body><p>A page</p></body></html>")
    (tmp_path / "gold" / "a (1).txt").write_bytes(b"A page \x85 caf\xe9")  # Windows-1252
    (tmp_path / "html" / "b.htm").write_bytes(b"<p>no gold</p>")
    (tmp_path / "html" / "c.html").write_bytes(b"  \n")
    (tmp_path / "gold" / "c.txt").write_bytes(b"gold of an empty page")
    (tmp_path / "gold" / "d.txt").write_bytes(b"gold without page")
    (tmp_path / "html" / "notes.pdf").write_bytes(b"%PDF")
    ds = PairsDataset(path=str(tmp_path), category_pattern=CHAOS_PATTERN)
    pages = list(ds.pages())
    assert [(p.id, p.category, p.gold.text) for p in pages] == [("a (1)", "a", "A page … café")]
    reasons = {s.file.rsplit("/", 1)[-1]: s.reason for s in ds.skipped}
    assert reasons == {
        "d.txt": "gold file without a page",
        "b.htm": "no gold file for this page",
        "c.html": "empty page",
        "notes.pdf": "not a page file (expected .html/.htm)",
    }


def test_gold_formats():
    assert decode_text(b"\xef\xbb\xbfURL: x") == "URL: x"
    text, url = gold_to_text(
        "\nURL: http://a.b/c\n<h>Title\n<p>Para one\n<l>item &amp; more\n<!-- no article -->",
        "cleaneval",
    )
    assert (text, url) == ("Title\nPara one\nitem & more", "http://a.b/c")
    assert gold_to_text("<div><p>One</p><p>Two <b>bold</b></p></div>", "html") == (
        "One\nTwo bold",
        None,
    )
    with pytest.raises(ValueError, match="gold_format"):
        PairsDataset(gold_format="xml")
