"""The per-page scorer: gold-side work once per page, records as the metric functions give them."""

from evalkit.core.page import Extraction, Gold, Page
from evalkit.harness import scoring

HTML = (
    "<html><body><nav>Home | News</nav><article><h1>Rain in Spain</h1>"
    "<p>The rain stays mainly in the plain.</p></article><footer>(c) 2020</footer>"
    "</body></html>"
)
GOLD = "Rain in Spain\nThe rain stays mainly in the plain."


def _page(pid="p"):
    return Page(id=pid, dataset="t", raw=HTML.encode(), gold=Gold(text=GOLD))


def test_gold_side_work_runs_once_per_page(monkeypatch):
    parses = []
    real_tree = Page.tree
    monkeypatch.setattr(
        Page, "tree", lambda self, plain=False: parses.append(self.id) or real_tree(self, plain)
    )
    page = _page()
    recs = [
        scoring.score_extraction(page, m, Extraction(text=t))
        for m, t in (("a", "The rain stays mainly in the plain."), ("b", "Home News Rain in Spain"))
    ]
    assert parses == ["p"]  # one parse serves the visible words and the units
    assert page.gold.visible_words == [
        "Home",
        "|",
        "News",
        "Rain",
        "in",
        "Spain",
        "The",
        "rain",
        "stays",
        "mainly",
        "in",
        "the",
        "plain.",
        "(c)",
        "2020",
    ]
    # method a kept the paragraph (7 of the gold's 10 words), not the headline
    a = recs[0]
    assert (a["word_precision"], a["word_recall"]) == (1.0, 7 / 10)
    assert (a["unit_tp"], a["unit_fp"], a["unit_fn"]) == (7.0, 0.0, 3.0)
    # Kaur's TN: Home | News (c) 2020 = 5 page words neither gold nor output
    assert a["kaur_tn"] == 5.0
    b = recs[1]
    assert (b["unit_tp"], b["unit_fp"], b["unit_fn"]) == (3.0, 3.0, 7.0)
    assert b["word_precision"] == 3 / 5  # Home and News are not gold
    scoring.score_extraction(_page("q"), "a", Extraction(text="x"))
    assert parses == ["p", "q"]  # another page, another context


def test_a_fresh_context_gives_the_same_record():
    page = _page()
    ext = Extraction(text="Rain in Spain. The rain stays in the plain.")
    shared = scoring.score_extraction(page, "a", ext)
    fresh = scoring.score_extraction(_page(), "a", ext, context=scoring.scoring_context(_page()))
    assert shared == fresh


def test_a_page_that_cannot_be_parsed_is_still_scored_on_its_text():
    page = Page(id="e", dataset="t", raw=b"", gold=Gold(text="some gold words"))
    rec = scoring.score_extraction(page, "a", Extraction(text="some words"))
    assert (rec["word_precision"], rec["word_recall"]) == (1.0, 2 / 3)
    assert "unit_tp" not in rec and rec["kaur_tn"] == 0.0


def test_an_output_with_cjk_counts_white_space_words_and_cjk_tokens():
    page = Page(
        id="jp",
        dataset="t",
        gold=Gold(text="東京 tower"),
        raw="<html><body><p>東京 tower</p><p>menu</p></body></html>".encode(),
    )
    rec = scoring.score_extraction(page, "m", Extraction(text="東京 tower menu"))
    # n_words_out splits on white space (3 words); the metrics' tokens split 東京 (4)
    assert (rec["n_words_gold"], rec["n_words_out"]) == (2, 3)
    assert (rec["word_precision"], rec["word_recall"]) == (3 / 4, 1.0)
    rec = scoring.score_extraction(page, "m", Extraction(text="tower  menu"))
    assert (rec["n_words_out"], rec["word_precision"], rec["word_recall"]) == (2, 1 / 2, 1 / 3)
