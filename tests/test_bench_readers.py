"""Readers of the field's benchmarks: WCXB, trafilatura's evaluation, the shared sets as WCEB reads
them. Small folders written here (fast); the real copies in ../shared/datasets are slow-marked."""

from __future__ import annotations

import collections
import gzip
import hashlib
import json

import pytest

from evalkit.readers.trafilatura_eval import TrafilaturaEvalDataset
from evalkit.readers.wceb import WcebDataset, l3s_gold
from evalkit.readers.wcxb import WCXBDataset, page_type
from tests.conftest import shared_dataset

HTML = b"<html><body><h1>Title</h1><p>Some main text of the page here.</p></body></html>"


def _gt(url, text, ptype, **extra):
    return {
        "url": url,
        "_internal": {"page_type": {"primary": ptype}},
        "ground_truth": {"main_content": text, "with": ["main text"], "without": ["Menu"], **extra},
    }


def test_wcxb_pages_carry_page_type_domain_and_snippets(tmp_path):
    (tmp_path / "html").mkdir()
    (tmp_path / "ground-truth").mkdir()
    (tmp_path / "html" / "0001.html.gz").write_bytes(gzip.compress(HTML))
    (tmp_path / "html" / "0002.html").write_bytes(HTML)  # plain files are read too
    (tmp_path / "ground-truth" / "0001.json").write_text(
        json.dumps(_gt("https://www.a.com/x", "Main", "category"))
    )
    (tmp_path / "ground-truth" / "0002.json").write_text(
        json.dumps({"url": "https://b.org/", "ground_truth": {"main_content": None}})
    )
    (tmp_path / "metadata.json").write_text(
        json.dumps({"files": {"0001": {"domain": "a.com", "spa": False}}})
    )
    pages = list(WCXBDataset(str(tmp_path)).pages())
    assert [p.id for p in pages] == ["0001", "0002"]
    a, b = pages
    # "category" counts as collection; a missing type is an article (evaluate.py)
    assert (a.category, b.category) == ("collection", "article")
    assert a.site == "a.com" and a.url == "https://www.a.com/x" and b.site == "b.org"
    assert a.gold.text == "Main" and b.gold.text == ""  # null main_content: empty gold
    assert a.gold.extra["with"] == ["main text"] and a.gold.extra["without"] == ["Menu"]
    assert a.raw == HTML
    bare = next(iter(WCXBDataset(str(tmp_path), snippets=False).pages()))
    assert "with" not in bare.gold.extra
    assert page_type({"_internal": {"page_type": "forum"}}) == "forum"


def test_trafilatura_eval_reads_segments_and_both_folders(tmp_path):
    (tmp_path / "eval").mkdir()
    (tmp_path / "cache").mkdir()
    (tmp_path / "eval" / "a.html.gz").write_bytes(gzip.compress(HTML))
    (tmp_path / "cache" / "b.html").write_bytes(HTML)
    (tmp_path / "evaldata.json").write_text(
        json.dumps(
            {
                "https://a.de/1": {
                    "file": "a.html",
                    "with": ["main text"],
                    "without": ["Impressum"],
                },
                "https://c.de/2": {"file": "b.html", "with": [], "without": ["x"]},
                "https://d.de/3": {"file": "gone.html", "with": [], "without": []},
            }
        )
    )
    ds = TrafilaturaEvalDataset(str(tmp_path))
    pages = {p.id: p for p in ds.pages()}
    assert set(pages) == {"a.html", "b.html"}
    assert pages["a.html"].gold.extra == {"with": ["main text"], "without": ["Impressum"]}
    assert pages["a.html"].url == "https://a.de/1" and pages["a.html"].site == "a.de"
    assert [s.file.endswith("gone.html") for s in ds.skipped] == [True]
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "evaldata.json").write_text(json.dumps({"u": {"with": []}}))
    with pytest.raises(ValueError, match="needs 'file'"):
        list(TrafilaturaEvalDataset(str(bad)).pages())


def test_wceb_scrapinghub_ids_are_the_sha256_of_the_gunzipped_page(tmp_path):
    (tmp_path / "html").mkdir()
    (tmp_path / "html" / "k1.html.gz").write_bytes(gzip.compress(HTML))
    (tmp_path / "ground-truth.json").write_text(
        json.dumps({"k1": {"articleBody": " Body text. ", "url": "https://a.com/"}})
    )
    (page,) = WcebDataset(str(tmp_path), set="scrapinghub").pages()
    assert page.id == hashlib.sha256(HTML).hexdigest()
    assert page.gold.text == " Body text. "  # verbatim, as WCEB reads it
    assert page.dataset == "wceb_scrapinghub"


def test_wceb_files_are_read_under_the_size_caps_and_skips_are_recorded(tmp_path):
    pytest.importorskip("resiliparse", reason="resiliparse (extra peers) is not installed")
    (tmp_path / "input").mkdir()
    (tmp_path / "GoldStandard").mkdir()
    for key, body in (("small", b"x" * 10), ("big", b"x" * 5000), ("broken", None)):
        page = HTML.replace(b"</body>", b"<p>" + (body or b"") + b"</p></body>")
        if body is None:  # a .gz file that is not gzip: recorded, not raised
            (tmp_path / "input" / f"{key}.html.gz").write_bytes(b"not gzip")
        else:
            (tmp_path / "input" / f"{key}.html").write_bytes(page)
        (tmp_path / "GoldStandard" / f"{key}.txt").write_text("Body text.")
    ds = WcebDataset(str(tmp_path), set="readability")
    ds.max_page_bytes = 2000  # runner.max_page_bytes: checked before the file is read
    pages = list(ds.pages())
    assert [p.source.rsplit("/", 1)[1] for p in pages] == ["small.html"]
    why = {s.file.rsplit("/", 1)[1]: s.reason for s in ds.skipped}
    assert set(why) == {"big.html", "broken.html.gz"}
    assert why["big.html"].startswith("too large") and "runner.max_page_bytes" in why["big.html"]
    assert why["broken.html.gz"].startswith("not a readable page file")


def test_wceb_l3s_gold_is_class_by_class():
    pytest.importorskip("resiliparse", reason="resiliparse (extra peers) is not installed")
    # document order: full text (sel2), then headline (sel1), supplemental (sel3), comments (sel5)
    ann = (
        "<html><body><div><span class='x-nc-sel2'>Body words</span></div>"
        "<div><span class='x-nc-sel1'>Headline</span></div>"
        "<p><span class='x-nc-sel3'>Extra</span></p><span class='x-nc-sel5'>Comment</span>"
        "</body></html>"
    )
    # all sel1, then sel2, then sel3; each leaf's text stripped + " ", a line break before a
    # leaf whose parent is a block element (div, p); the whole stripped; sel5 left out
    assert l3s_gold(ann) == "Headline \nBody words \nExtra"


def test_wceb_reader_checks_its_set():
    from evalkit.core.validate import ParamError

    with pytest.raises(ParamError):
        WcebDataset("/nowhere", set="dragnet")


@pytest.mark.slow
def test_the_real_benchmark_copies():
    wcxb = list(WCXBDataset(str(shared_dataset("wcxb-dev"))).pages())
    types = collections.Counter(p.category for p in wcxb)
    # WCXB README, dev split: 793 article, 165 service, 119 product, 117 collection, 113 forum,
    # 99 listing, 91 documentation; 21 pages without gold text (WCXB SOURCE.md)
    assert types == {
        "article": 793,
        "service": 165,
        "product": 119,
        "collection": 117,
        "forum": 113,
        "listing": 99,
        "documentation": 91,
    }
    assert sum(not p.gold.text.strip() for p in wcxb) == 21
    traf = list(TrafilaturaEvalDataset(str(shared_dataset("trafilatura-eval"))).pages())
    assert len(traf) == 990
    assert sum(len(p.gold.extra["with"]) for p in traf) == 2951
    assert sum(len(p.gold.extra["without"]) for p in traf) == 2966


@pytest.mark.slow
@pytest.mark.parametrize(
    "wceb_set,folder,n,paired",
    [
        ("scrapinghub", "scrapinghub-aeb", 181, 181),
        ("readability", "readability", 116, 115),
        ("l3s-gn1", "l3s-gn1", 621, 613),
        ("cleanportaleval", "cleanportaleval", 71, 71),
    ],
)
def test_wceb_ids_pair_with_the_stored_outputs(wceb_set, folder, n, paired):
    pytest.importorskip("resiliparse", reason="resiliparse (extra peers) is not installed")
    root = shared_dataset("wceb")
    ids = {p.id for p in WcebDataset(str(shared_dataset(folder)), set=wceb_set).pages()}
    with gzip.open(root / "outputs" / wceb_set / "trafilatura.jsonl.gz", "rt") as fh:
        stored = {json.loads(line)["page_id"] for line in fh}
    # wceb/SOURCE.md: all 181 + 115 + 71 pair; 8 of 621 L3S-GN1 originals differ from WCEB's
    assert len(ids) == n and len(ids & stored) == paired
