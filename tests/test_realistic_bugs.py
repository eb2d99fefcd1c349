"""Three one-line bugs that the fast suite and CI's quick reference check let through
(issue 31, item 15), each pinned by a hand-worked example that fails when the bug is put
back (docs/inputs.md "Hostile-input catalogue" lists them):

1. page complexity counting the gold's words with another tokenisation than the visible
   words (``len(gold.text.split())`` for ``len(text.words)`` in evalkit.harness.scoring);
2. the gold audit's near-duplicate check reading the visible text or its word count where
   it means the gold's (evalkit.experiments.audit);
3. the Naive Bayes split rounding a .5 boundary down or to even instead of up
   (``round(fraction * n_pages)`` in evalkit.core.naive_bayes.n_test_pages).
"""

from __future__ import annotations

import pandas as pd
import pytest

from evalkit.core.naive_bayes import n_test_pages
from evalkit.core.page import Extraction, Gold, Page
from evalkit.experiments.audit import DEFAULTS, audit_pages, audit_record
from evalkit.harness.scoring import scoring_context


def _page(pid: str, html: str, gold: str) -> Page:
    return Page(id=pid, dataset="t", raw=html.encode("utf-8"), gold=Gold(text=gold))


# ------------------------------------------------------------------ 1. page complexity


def test_complexity_counts_gold_and_visible_words_alike_on_cjk_text():
    # visible text: 東京タワー (5 characters, one token each) + "menu home" = 7 tokens;
    # gold 東京タワー: 5 tokens as the metrics count them (1 white-space word).
    # complexity = 1 - 5/7 = 2/7; counting the gold by white space gives 1 - 1/7 = 6/7
    page = _page(
        "cjk", "<html><body><p>東京タワー</p><div>menu home</div></body></html>", "東京タワー"
    )
    ctx = scoring_context(page)
    assert ctx.complexity == pytest.approx(2 / 7)


def test_complexity_of_latin_text_is_unchanged_by_the_tokenisation():
    # 4 gold words of 6 visible: 1 - 4/6 = 1/3 whichever way the words are counted
    page = _page(
        "lat",
        "<html><body><p>one two three four</p><nav>menu home</nav></body></html>",
        "one two three four",
    )
    assert scoring_context(page).complexity == pytest.approx(1 / 3)


# ------------------------------------------------------------------ 2. gold audit duplicates


def _words(prefix: str, n: int) -> str:
    return " ".join(f"{prefix}{i}" for i in range(n))


def _audit(pages: list[Page]) -> pd.DataFrame:
    records = [audit_record(p, "fulltext", Extraction(text=p.gold.text)) for p in pages]
    per_page = pd.DataFrame.from_records(records)
    return audit_pages(per_page, ["fulltext"], dict(DEFAULTS)).set_index("page_id")


def test_gold_near_duplicates_are_found_from_the_gold_not_the_page():
    # a_long/b_long: 5 visible words each, none shared (their visible texts are not near);
    # golds of 30 words equal up to case: the same lower-cased shingles, simhash distance 0,
    # but different exact keys. 30 >= duplicate_min_words (20): b_long repeats a_long's gold.
    # c_short/d_short: 30 visible words each, none shared; golds of 5 words equal up to case:
    # 5 < 20 gold words, too few to call a near duplicate, whatever the visible count.
    long_gold, short_gold = _words("epsilon", 30), _words("theta", 5)
    pages = [
        _page("a_long", f"<html><body><p>{_words('alpha', 5)}</p></body></html>", long_gold),
        _page("b_long", f"<html><body><p>{_words('beta', 5)}</p></body></html>", long_gold.upper()),
        _page("c_short", f"<html><body><p>{_words('gamma', 30)}</p></body></html>", short_gold),
        _page(
            "d_short", f"<html><body><p>{_words('delta', 30)}</p></body></html>", short_gold.upper()
        ),
    ]
    audit = _audit(pages)
    assert DEFAULTS["duplicate_min_words"] == 20
    assert audit.loc["b_long", "duplicate_kind"] == "gold_near"
    assert audit.loc["b_long", "duplicate_of"] == "a_long"
    assert not audit.loc["d_short", "duplicate"]
    assert audit["duplicate"].tolist() == [False, True, False, False]
    assert audit.loc["a_long", "gold_words"] == 30 and audit.loc["a_long", "visible_words"] == 5


# ------------------------------------------------------------------ 3. Naive Bayes split


def test_the_test_share_rounds_a_half_up():
    # fractions with exact binary values, so fraction x pages is exactly k + 0.5:
    # 0.25 x 10 = 2.5 -> 3 (to even would give 2); 0.125 x 12 = 1.5 -> 2 (down gives 1);
    # 0.375 x 20 = 7.5 -> 8 (down gives 7); 0.25 x 18 = 4.5 -> 5 (to even and down give 4)
    assert n_test_pages(10, 0.25) == 3
    assert n_test_pages(12, 0.125) == 2
    assert n_test_pages(20, 0.375) == 8
    assert n_test_pages(18, 0.25) == 5
    # below and above a half, and the bounds: at least 1 test page, at least 1 training page
    assert n_test_pages(10, 0.24) == 2 and n_test_pages(10, 0.26) == 3
    assert n_test_pages(4, 0.01) == 1 and n_test_pages(4, 0.99) == 3
