"""Metadata: the scores on hand-worked examples, WCXB's gold parser on real records, the
meta_tags baseline on hand-made pages, and each peer adapter on one small page."""

from __future__ import annotations

import json
import math
import socket
from pathlib import Path

import pytest
import yaml

from baselines import metadata_peers
from baselines.meta_tags import MetaTags, parse_day
from evalkit.core.metadata import PageMetadata
from evalkit.core.method import param_names
from evalkit.core.page import Gold, Page, prepare_html
from evalkit.core.validate import ParamError
from evalkit.metrics import metadata as mm
from tests.conftest import shared_dataset

REPO = Path(__file__).resolve().parents[1]
nan = math.isnan


def page_of(html: str, url: str | None = "https://example.com/news/otters") -> Page:
    return Page(id="p", dataset="hand", raw=html.encode(), gold=Gold(text=""), url=url)


# --- titles -------------------------------------------------------------------------------


def test_title_normalisation_is_nfkc_quotes_casefold_space_and_edge_punctuation():
    assert mm.normalise_title("  “Otters’ Return,”\n\tNow!  ") == "otters' return,\" now"
    assert mm.normalise_title("ﬁsh  —  Ｆｏｏ") == "fish - foo"  # NFKC ligature, full width
    assert mm.normalise_title("...") == "" and mm.normalise_title(None) == ""
    assert mm.normalise_title("It’s", fold_quotes=False) == "it’s"


def test_title_accuracy_exact_after_normalisation():
    assert mm.title_accuracy("Otters’ Return — Now", "otters' return - now") == 1.0
    assert mm.title_accuracy("Otters Return", "Otters Returned") == 0.0
    assert mm.title_accuracy(None, "Otters") == 0.0
    assert nan(mm.title_accuracy("Otters", None)) and nan(mm.title_accuracy("Otters", " ! "))


def test_site_suffix_switch_is_off_by_default_and_reads_the_prediction_both_ways():
    assert mm.STRIP_SITE_SUFFIX is False
    assert mm.title_accuracy("Otters return | Example Media", "Otters return") == 0.0
    assert mm.title_accuracy("Otters return | Example Media", "Otters return", True) == 1.0
    assert mm.title_accuracy("A - B | Site", "A - B", True) == 1.0  # the last separator only
    assert mm.title_accuracy("A - B", "A - B", True) == 1.0  # the gold is never cut
    assert (
        mm.title_accuracy("A - B", "A", True) == 1.0
        and mm.title_accuracy("A", "A - B", True) == 0.0
    )
    assert mm.cut_site_suffix("Otters") == "Otters" and mm.cut_site_suffix("| Site") == "| Site"


def test_title_f1_is_bag_of_tokens():
    # pred 3 tokens, gold 5, overlap 2: P 2/3, R 2/5, F1 = 2PR/(P+R) = 0.5
    assert mm.title_f1("River otters return", "Otters return to the valley") == pytest.approx(0.5)
    # repeated tokens count min(counts): overlap 2 of pred 3 and gold 2 -> P 2/3, R 1, F1 0.8
    assert mm.title_f1("the the cat", "The cat") == pytest.approx(0.8)
    assert mm.title_f1(None, "cat") == 0.0 and mm.title_f1("dog", "cat") == 0.0
    assert nan(mm.title_f1("cat", None))
    assert mm.title_f1("Otters | Site", "Otters", strip_site_suffix=True) == 1.0


# --- authors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw, names",
    [
        (
            "Danielle DeSiato, Donna Enzmann, and Natalie Nguyen",
            ("Danielle DeSiato", "Donna Enzmann", "Natalie Nguyen"),
        ),
        ("Maria & Katerina", ("Maria", "Katerina")),
        ("Manoj Jain and Jagpreet Chhatwal", ("Manoj Jain", "Jagpreet Chhatwal")),
        ("Dylan Bailey, MS, RD, FAND", ("Dylan Bailey",)),
        ("Genevieve Carlton, Ph.D.", ("Genevieve Carlton",)),
        ("Holly Wilgus, E-RYT 200", ("Holly Wilgus",)),
        ("Rebecca Lake, CEPF®", ("Rebecca Lake",)),
        (
            (
                "Ellen Lindell, VMD, DACVB; Monique Feyrecilde, BA, LVT, VTS (Behavior); "
                "Debra Horwitz, DVM, DACVB & Gary Landsberg, DVM, DACVB"
            ),
            ("Ellen Lindell", "Monique Feyrecilde", "Debra Horwitz", "Gary Landsberg"),
        ),
        ("By Jane Doe", ("Jane Doe",)),
        ("The Team, edited by Walter", ("The Team", "Walter")),
        (
            "Sergio Martínez-Beltrán | The Texas Newsroom",
            ("Sergio Martínez-Beltrán", "The Texas Newsroom"),
        ),
        ("Maria &amp; Katerina", ("Maria", "Katerina")),  # an entity left in JSON-LD
        ("JOHN DOE, JANE ROE", ("JOHN DOE", "JANE ROE")),  # all capitals: no credentials
        ("Mike Marshall, Shipping Expert", ("Mike Marshall", "Shipping Expert")),  # a role stays
        ("", ()),
        (None, ()),
    ],
)
def test_split_authors_on_real_forms(raw, names):
    assert mm.split_authors(raw) == names


def test_normalise_author():
    assert mm.normalise_author("Dr. Marna van der Merwe") == "marna van der merwe"
    assert mm.normalise_author("Dr Marna van der Merwe") == "marna van der merwe"
    assert mm.normalise_author("Jeffrey A. Slotnick CPP") == "jeffrey a slotnick"
    assert mm.normalise_author("Rory O’Sullivan") == "rory o'sullivan"
    assert mm.normalise_author("Jane Doe PhD") == "jane doe"
    assert mm.normalise_author("John A. McKay") == "john a mckay"
    assert mm.normalise_author("Dr") == "dr"  # an honorific alone stays


def test_author_set_f1_hand_worked():
    gold = ("Jane Doe", "Ann Poe", "Bob Roe")
    # pred splits into {jane doe, bob roe}: 2 hits of 2 predicted, 3 gold: P 1, R 2/3, F1 0.8
    p, r, f = mm.author_scores(["Jane Doe; Bob Roe"], gold)
    assert (p, r, f) == pytest.approx((1.0, 2 / 3, 0.8))
    # 1 hit of 2 predicted, 1 gold: P 1/2, R 1, F1 2/3
    assert mm.author_scores(("By JANE DOE", "Someone Else"), ("Jane Doe, MD",)) == pytest.approx(
        (0.5, 1.0, 2 / 3)
    )
    assert mm.author_scores(("X Y",), ("Jane Doe",)) == (0.0, 0.0, 0.0)
    p, r, f = mm.author_scores((), ("Jane Doe",))
    assert nan(p) and (r, f) == (0.0, 0.0)  # AUTHOR_EMPTY_PREDICTION
    assert all(nan(x) for x in mm.author_scores(("Jane Doe",), ()))
    assert mm.author_set("Jane Doe and Jane Doe") == frozenset({"jane doe"})


# --- dates, whole pages -------------------------------------------------------------------


def test_date_accuracy_is_exact_day():
    assert mm.date_accuracy("2024-03-05", "2024-03-05") == 1.0
    assert mm.date_accuracy("2024-03-06", "2024-03-05") == 0.0
    assert mm.date_accuracy(None, "2024-03-05") == 0.0
    assert nan(mm.date_accuracy("2024-03-05", None))


def test_score_columns_coverage_and_missing_gold():
    gold = PageMetadata("Otters return", ("Jane Doe",), "2024-03-05")
    pred = {"title": "Otters Return", "authors": ["Jane Doe", "Bob Roe"], "date": "2024-03-06"}
    s = mm.score(pred, gold)
    assert tuple(s) == mm.COLUMNS
    assert s["title_accuracy"] == 1.0 and s["title_f1"] == 1.0
    assert s["author_precision"] == 0.5 and s["author_recall"] == 1.0
    assert s["author_f1"] == pytest.approx(2 / 3)
    assert s["date_accuracy"] == 0.0
    assert s["title_coverage"] == s["author_coverage"] == s["date_coverage"] == 1.0
    empty = mm.score(None, PageMetadata("Otters"))
    assert empty["title_accuracy"] == 0.0 and empty["title_coverage"] == 0.0
    assert nan(empty["author_f1"]) and nan(empty["date_accuracy"])  # gold lacks them
    assert empty["author_coverage"] == empty["date_coverage"] == 0.0  # defined on every page


def test_score_fields_leaves_other_columns_nan():
    s = mm.score(
        PageMetadata(date="2024-03-05"), PageMetadata("T", ("A B",), "2024-03-05"), fields=("date",)
    )
    assert s["date_accuracy"] == 1.0 and s["date_coverage"] == 1.0
    assert all(nan(s[c]) for c in mm.COLUMNS if not c.startswith("date"))
    with pytest.raises(ValueError, match="unknown metadata fields"):
        mm.score(None, PageMetadata("T"), fields=("titles",))


# --- WCXB's gold --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, day, reason",
    [
        ("2025-09-04", "2025-09-04", None),
        (" 2025-09-04T10:00:00Z", "2025-09-04", None),
        ("2015-11", None, "month_only"),
        (None, None, "missing"),
        ("", None, "missing"),
        ("2025-02-30", None, "not_a_calendar_day"),
        ("September 4, 2025", None, "not_a_day"),
        (20250904, None, "not_a_day"),
    ],
)
def test_wcxb_gold_date_rules(value, day, reason):
    assert mm.wcxb_gold_date(value) == (day, reason)
    if reason:
        assert reason in mm.GOLD_DATE_RULES


def test_wcxb_gold_metadata_on_a_hand_record():
    record = {
        "url": "https://example.com/a",
        "ground_truth": {
            "title": "  Otters\n return ",
            "author": "Jane Doe, MD and Bob Roe",
            "publish_date": "2015-11",
        },
    }
    assert mm.wcxb_gold_metadata(record) == PageMetadata(
        "Otters return", ("Jane Doe", "Bob Roe"), None
    )
    assert mm.wcxb_gold_metadata(record["ground_truth"]).title == "Otters return"
    assert mm.wcxb_gold_metadata({"ground_truth": {"title": "", "author": None}}) == PageMetadata()


def test_wcxb_gold_on_real_records_and_gold_against_itself():
    root = shared_dataset("wcxb-dev")
    files = sorted((root / "ground-truth").glob("*.json"))
    assert len(files) == 1497
    golds, reasons = [], {}
    for f in files:
        record = json.loads(f.read_text(encoding="utf-8"))
        golds.append(mm.wcxb_gold_metadata(record))
        why = mm.wcxb_gold_date(record["ground_truth"].get("publish_date")).reason
        reasons[why] = reasons.get(why, 0) + 1
    assert sum(1 for g in golds if g.title) == 1497
    assert sum(1 for g in golds if g.authors) == 739
    assert sum(1 for g in golds if g.date) == 780
    assert reasons == {None: 780, "missing": 715, "month_only": 2}
    for g in golds:  # a gold scored against itself is 1 on every field it has
        s = mm.score(g, g)
        assert s["title_accuracy"] == s["title_f1"] == 1.0
        assert nan(s["author_f1"]) if not g.authors else s["author_f1"] == 1.0
        assert nan(s["date_accuracy"]) if not g.date else s["date_accuracy"] == 1.0


# --- the meta_tags baseline ---------------------------------------------------------------

ARTICLE = """<!doctype html><html><head>
<title>River otters return to the valley | Example Media</title>
<meta property="og:title" content="River otters return to the valley | Example Media">
<meta property="og:site_name" content="Example Media">
<meta name="author" content="Someone From Meta">
<meta property="article:published_time" content="2020-01-01T00:00:00Z">
<script type="application/ld+json">{"@context": "https://schema.org", "@graph": [
  {"@type": "NewsArticle", "headline": "River otters return", "author": {"@id": "#jane"},
   "datePublished": "2024-03-05T23:30:00-05:00", "dateModified": "2024-04-01"},
  {"@type": "Person", "@id": "#jane", "name": "Jane Doe"}]}</script>
</head><body><h1>River otters return to the valley</h1><p>Otters are back.</p>
<time datetime="2019-05-05">May 5</time></body></html>"""

PLAIN = """<html><head><title>River otters return home - Example</title>
<meta name="author" content="By John Smith">
<meta property="article:author" content="https://www.facebook.com/example">
</head><body><h1>Welcome</h1><p>Text <time datetime="2023-01-02T08:00">Jan 2</time></p>
</body></html>"""


def test_meta_tags_on_a_json_ld_article():
    ex = MetaTags().extract(page_of(ARTICLE))
    assert ex.text == ""
    meta = PageMetadata.from_dict(ex.metadata)
    # og:title first; its head is the <h1> followed by " | ": the <h1> is the title
    assert meta.title == "River otters return to the valley"
    assert meta.authors == ("Jane Doe",)  # JSON-LD author, @id resolved in the graph
    assert meta.date == "2024-03-05"  # the day as written, not moved to UTC
    assert ex.info == {
        "title_source": "og_title",
        "author_source": "json_ld",
        "date_source": "json_ld",
    }


def test_meta_tags_settings_change_the_source():
    page = page_of(ARTICLE)
    meta = MetaTags(h1_title=False, cut_site_suffix=False).extract(page).metadata
    assert meta["title"] == "River otters return to the valley | Example Media"
    # without the <h1> rule the site's name is cut (it is og:site_name)
    assert (
        MetaTags(h1_title=False).extract(page).metadata["title"]
        == "River otters return to the valley"
    )
    assert (
        MetaTags(title_sources=["json_ld"]).extract(page).metadata["title"] == "River otters return"
    )
    assert MetaTags(author_sources=["meta_author"]).extract(page).metadata["authors"] == [
        "Someone From Meta"
    ]
    assert MetaTags(date_sources=["time_datetime"]).extract(page).metadata["date"] == "2019-05-05"
    assert (
        MetaTags(date_sources=["article_published_time"]).extract(page).metadata["date"]
        == "2020-01-01"
    )
    assert MetaTags(date_sources=[]).extract(page).metadata["date"] == "2024-04-01"  # modified
    assert MetaTags(date_sources=[], modified_fallback=False).extract(page).metadata["date"] is None


def test_meta_tags_on_a_plain_page():
    ex = MetaTags().extract(page_of(PLAIN))
    assert ex.metadata == {
        "title": "River otters return home",
        "authors": ["John Smith"],
        "date": "2023-01-02",
    }
    assert ex.info["title_source"] == "title" and ex.info["date_source"] == "time_datetime"
    # a short head keeps its suffix; site_suffix_max_words=0 cuts only a declared site name
    assert MetaTags(site_suffix_max_words=0).extract(page_of(PLAIN)).metadata["title"] == (
        "River otters return home - Example"
    )


def test_meta_tags_skips_non_names_and_empty_pages():
    html = """<html><head><meta property="article:author" content="https://facebook.com/x">
    <meta name="author" content="262588213843476"></head><body>
    <a rel="author" href="/a">Ann Poe</a><span itemprop="author">By Someone</span></body></html>"""
    assert MetaTags().extract(page_of(html)).metadata["authors"] == ["Ann Poe"]
    ex = MetaTags().extract(page_of("<html><body></body></html>"))
    assert ex.metadata == {"title": None, "authors": [], "date": None}
    ex = MetaTags().extract(page_of("<!-- nothing -->"))
    assert ex.metadata == PageMetadata().to_dict() and ex.text == ""


def test_meta_tags_ignores_broken_json_ld():
    html = """<html><head><script type="application/ld+json">{"author": </script>
    <script type="APPLICATION/LD+JSON">[{"@type": ["BlogPosting"], "author": [{"name": "A B"}, "C D"],
    "datePublished": "Feb 08, 2022"}]</script></head><body></body></html>"""
    meta = MetaTags().extract(page_of(html)).metadata
    assert meta["authors"] == ["A B", "C D"] and meta["date"] == "2022-02-08"


@pytest.mark.parametrize(
    "value, day",
    [
        ("2024-03-05T23:30:00-05:00", "2024-03-05"),
        ("2024/3/5", "2024-03-05"),
        ("Feb 08, 2022", "2022-02-08"),
        ("November 18, 2025", "2025-11-18"),
        ("8th February 2022", "2022-02-08"),
        ("Thu, 25 Sep 2025 11:38:00 GMT", "2025-09-25"),
        ("13/11/2025 09:21:40", "2025-11-13"),  # day first: 13 > 12
        ("Thu, 09/25/2025 - 11:38", "2025-09-25"),  # month first: 25 > 12
        ("09/10/2025", None),  # ambiguous
        ("1990-01-01", None),  # before MIN_YEAR
        ("2025-02-30", None),
        ("Smarch 3, 2025", None),
        (None, None),
        (20250101, None),
    ],
)
def test_parse_day(value, day):
    assert parse_day(value) == day


def test_meta_tags_parameters_are_checked_and_match_the_config():
    with pytest.raises(ParamError, match="title_sources"):
        MetaTags(title_sources=["bogus"])
    with pytest.raises(ParamError, match="h1_title"):
        MetaTags(h1_title="yes")
    with pytest.raises(ParamError, match="site_suffix_max_words"):
        MetaTags(site_suffix_max_words=-1)
    config = yaml.safe_load((REPO / "configs/method/meta_tags.yaml").read_text())["meta_tags"]
    assert config.pop("_name_") == MetaTags.name
    assert set(config) == set(param_names(MetaTags))
    defaults = MetaTags().get_params()
    assert {k: list(v) if isinstance(v, tuple) else v for k, v in defaults.items()} == config


# --- peer adapters ------------------------------------------------------------------------

PEER_PAGE = """<html><head><title>River otters return to the valley | Example Media</title>
<meta name="author" content="Jane Doe">
<meta property="article:published_time" content="2024-03-05T10:00:00+00:00">
</head><body><article><h1>River otters return to the valley</h1>
<p>After an absence of more than forty years, river otters have been seen again in the upper
valley, according to a survey published by the regional wildlife trust on Monday.</p>
<p>The trust said that cleaner water and the removal of two old weirs had allowed fish numbers
to recover, which in turn made the river attractive to otters once more.</p></article>
</body></html>"""


@pytest.fixture
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a metadata peer tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def _run_peer(name: str) -> PageMetadata:
    module = metadata_peers.PACKAGES[name][1]
    pytest.importorskip(module, reason=f"{name} is not installed")
    return metadata_peers.METADATA_PEERS[name](prepare_html(PEER_PAGE), "https://example.com/a")


@pytest.mark.parametrize("name", ["trafilatura", "goose3", "newspaper4k"])
def test_peer_metadata_on_a_small_page(name, no_network):
    meta = _run_peer(name)
    assert isinstance(meta, PageMetadata)
    assert "river otters return to the valley" in mm.normalise_title(meta.title)
    assert mm.author_set(meta.authors) == {"jane doe"}
    assert meta.date == "2024-03-05"


def test_htmldate_on_a_small_page(no_network):
    pytest.importorskip("htmldate", reason="htmldate is not installed")
    assert metadata_peers.htmldate_date(prepare_html(PEER_PAGE), None) == "2024-03-05"
    assert _run_peer("htmldate") == PageMetadata(date="2024-03-05")


def test_a_missing_peer_names_its_install_command(monkeypatch):
    monkeypatch.setitem(
        metadata_peers.PACKAGES,
        "newspaper4k",
        ("newspaper4k", "no_such_module_xyz", "pip install newspaper4k"),
    )
    with pytest.raises(metadata_peers.MetadataPeerUnavailable, match="pip install newspaper4k"):
        metadata_peers.newspaper4k_metadata("<html></html>")
    assert metadata_peers.versions("goose3")["goose3"]  # a version or "not installed"
