"""The synthetic data set: counts, determinism, labels, planted noise and duplicates.

Numbers marked "measured" were read off the default set (seed 0) with
``python -m pytest tests/test_synthetic.py``; they pin the generator, so a
change to it shows up here before it silently changes every reference table.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections import Counter
from urllib.parse import urlparse

import pytest

from evalkit.core.page import CONTENT, NOISE
from evalkit.core.text import stopwords
from evalkit.core.units import segment
from evalkit.harness.registry import DATASETS
from evalkit.readers.synthetic import (
    AD_HOSTS,
    CONTENT_FINE,
    FINE_CLASSES,
    GOLD_ATTR,
    SOCIAL_HOSTS,
    TOPICS,
    SyntheticDataset,
    block_text,
)

IAB = {
    (234, 60),
    (468, 60),
    (120, 240),
    (745, 100),
    (728, 90),
    (300, 250),
    (160, 600),
    (120, 600),
    (336, 280),
    (300, 600),
    (970, 90),
    (320, 50),
    (125, 125),
    (88, 31),
}
AD_TOKENS = {"ad", "ads", "adsbygoogle", "banner", "adsense", "advert"}


@pytest.fixture(scope="module")
def pages():
    return list(SyntheticDataset().pages())


def _host_is(host: str | None, domains) -> bool:
    return bool(host) and any(host == d or host.endswith("." + d) for d in domains)


def _digest(pages) -> str:
    h = hashlib.sha256()
    for p in pages:
        h.update(p.raw)
    return h.hexdigest()


def test_counts_ids_and_topics(pages):
    assert len(pages) == 300
    assert len({p.id for p in pages}) == 300
    assert len({p.site for p in pages}) == 30
    assert pages[0].id == "site01-p01" and pages[-1].id == "site30-p10"
    # round-robin topic assignment: 300 pages / 6 topics = 50 each
    assert Counter(p.category for p in pages) == {t: 50 for t in TOPICS[:6]}
    for p in pages:
        assert p.dataset == "synthetic"
        assert re.fullmatch(r"http://www\.[a-z]+\.example/[a-z]+/[a-z0-9-]+\.html", p.url), p.url
        assert urlparse(p.url).hostname == p.site
        assert urlparse(p.url).path.split("/")[1] == p.category
        assert p.encoding == "utf-8"


def test_title_shares_words_with_headline(pages):
    for p in pages:
        title = p.tree().findtext(".//title")
        headline = p.gold.text.split("\n")[0]
        assert title == p.gold.extra["title"]
        assert title.startswith(" ".join(headline.split()[:4])), p.id  # at least 4 words


def test_same_seed_same_bytes_other_seed_other_pages(pages):
    again = list(SyntheticDataset().pages())
    assert [p.sha256 for p in again] == [p.sha256 for p in pages]
    assert _digest(again) == _digest(pages)
    small = list(SyntheticDataset(n_sites=3, pages_per_site=2, seed=1).pages())
    assert len(small) == 6
    assert not {p.sha256 for p in small} & {p.sha256 for p in pages}


def test_limit_is_a_prefix_and_params_round_trip(pages):
    head = list(SyntheticDataset(limit=5).pages())
    assert [p.raw for p in head] == [p.raw for p in pages[:5]]
    # Registry.create(name, **params) cannot take a `name` keyword; build via get()
    ds = DATASETS.get("synthetic")(
        n_sites=2, pages_per_site=3, n_topics=4, seed=7, name="syn-small"
    )
    assert ds.get_params() == {
        "n_sites": 2,
        "pages_per_site": 3,
        "n_topics": 4,
        "seed": 7,
        "limit": None,
        "name": "syn-small",
        "path": None,
    }
    got = list(ds.pages())
    assert [p.dataset for p in got] == ["syn-small"] * 6
    assert [p.category for p in got] == [
        "sports",
        "politics",
        "technology",
        "health",
        "sports",
        "politics",
    ]
    with pytest.raises(ValueError, match="n_topics"):
        SyntheticDataset(n_topics=len(TOPICS) + 1)


def test_generation_is_fast():
    # CPU time of this process, so other jobs on a shared machine do not make it flaky
    start = time.process_time()
    n = sum(1 for _ in SyntheticDataset().pages())
    assert n == 300
    assert time.process_time() - start < 5.0  # measured 0.7 s on the dev machine


def test_units_labelled_and_gold_text_is_the_content_units(pages):
    for p in pages:
        units = p.gold.units
        assert p.gold.unit_source == "planted"
        assert {u.label for u in units} == {CONTENT, NOISE}, p.id
        assert all(u.fine in FINE_CLASSES for u in units), p.id
        assert all((u.label == CONTENT) == (u.fine in CONTENT_FINE) for u in units)
        # headline and every paragraph is one unit (paragraphs hold only <a> inside)
        assert "\n".join(u.text for u in units if u.label == CONTENT) == p.gold.text, p.id
    assert {u.fine for p in pages for u in p.gold.units} == set(FINE_CLASSES)


def test_content_share_of_words(pages):
    per_page = []
    content = total = 0
    for p in pages:
        c = sum(u.n_words for u in p.gold.units if u.label == CONTENT)
        t = sum(u.n_words for u in p.gold.units)
        per_page.append(c / t)
        content += c
        total += t
    # measured: 0.518 of all words, pages between 0.256 and 0.744
    assert 0.48 < content / total < 0.56
    assert 0.2 < min(per_page) and max(per_page) < 0.8


def test_raw_page_has_no_gold_markup_and_same_units(pages):
    for p in pages:
        assert GOLD_ATTR.encode() not in p.raw
        raw_units = segment(p.tree())
        assert [(u.text, u.path, u.n_link_words) for u in raw_units] == [
            (u.text, u.path, u.n_link_words) for u in p.gold.units
        ], p.id


def test_planted_ads_social_and_legal(pages):
    iab_on_ad_host = slots = 0
    planted = Counter()
    for p in pages:
        root = p.tree()
        for img in root.iter("img"):
            host = urlparse(img.get("src")).hostname
            size = (int(img.get("width")), int(img.get("height")))
            if _host_is(host, AD_HOSTS):
                assert size in IAB, (p.id, size)
                iab_on_ad_host += 1
            else:  # logos and content images live on the page's own host, never IAB-sized
                assert host in (None, p.site), (p.id, host)
                assert size not in IAB, (p.id, size)
        slots += len(root.xpath('//ins[contains(concat(" ", @class, " "), " adsbygoogle ")]'))
        planted.update(a["kind"] for a in p.gold.extra["ads"])
        social = [
            a
            for a in root.iter("a")
            if _host_is(urlparse(a.get("href")).hostname, SOCIAL_HOSTS.values())
        ]
        assert len(social) >= 3, p.id  # the site's follow bar has 3-6 networks
        text = p.html
        assert "©" in text and "All rights reserved." in text
        assert 'action="/search"' in text
    assert iab_on_ad_host == planted["image"] == 350  # measured
    assert slots == planted["adsense"] == 180  # measured
    assert planted["iframe"] == 210 and planted["native"] == 190  # measured


def _name_tokens(el) -> set[str]:
    names = f"{el.get('class', '')} {el.get('id', '')}".lower()
    return set(re.split(r"[^a-z0-9]+", names)) - {""}


def test_decoys_and_unmarked_noise(pages):
    """Names holding the letters "ad" sit on non-ads; ads exist without any ad token."""
    decoys = Counter()
    unmarked_ads = 0
    for p in pages:
        planted = set(p.gold.block_texts)
        for el in p.tree().iter():
            if not isinstance(el.tag, str):
                continue
            tokens = _name_tokens(el)
            decoys.update(d for d in ("header", "shadow", "read", "thread") if d in tokens)
            if el.tag in ("div", "td") and block_text(el) in planted:
                assert not tokens & AD_TOKENS, (p.id, tokens)  # content is never ad-named
            if (
                el.tag == "img"
                and _host_is(urlparse(el.get("src")).hostname, AD_HOSTS)
                and not any(_name_tokens(a) & AD_TOKENS for a in el.iterancestors())
            ):
                unmarked_ads += 1
    assert all(decoys[d] > 0 for d in ("header", "shadow", "read", "thread")), decoys
    assert unmarked_ads == 240  # measured: ad images with no ad token on any ancestor


def test_duplicate_groups_are_exact_or_near_copies(pages):
    n_exact = n_near = pages_without = 0
    for p in pages:
        blocks = p.gold.block_texts
        near = p.gold.extra["near_edits"]
        groups = p.gold.duplicate_groups
        if not groups:
            pages_without += 1
        for group in groups:
            assert group == sorted(group) and len(group) >= 2
            original = blocks[group[0]].split()
            for i in group[1:]:
                copy = blocks[i].split()
                assert len(copy) == len(original)
                diff = sum(a != b for a, b in zip(original, copy, strict=True))
                if i in near:
                    assert 1 <= near[i] <= 3 and diff == near[i], (p.id, i)
                    n_near += 1
                else:
                    assert diff == 0, (p.id, i)
                    n_exact += 1
        # originals (and the headline) are distinct from each other and from the gold text lines
        members = {i for g in groups for i in g[1:]}
        distinct = [b for i, b in enumerate(blocks) if i not in members]
        assert len(set(distinct)) == len(distinct)
        assert "\n".join(distinct) == p.gold.text
        # the planted blocks are real div/td blocks of the raw page
        raw_blocks = [block_text(el) for el in p.tree().iter("div", "td")]
        assert all(b in raw_blocks for b in blocks)
    assert (n_exact, n_near, pages_without) == (247, 250, 8)  # measured


def test_template_blocks_repeat_on_every_page_of_the_site(pages):
    by_site: dict[str, list] = {}
    for p in pages:
        by_site.setdefault(p.site, []).append(p)
    for group in by_site.values():
        block_sets = [{block_text(el) for el in p.tree().iter("div", "td")} for p in group]
        for p in group:
            tb = p.gold.template_texts
            assert tb, p.id  # every site has at least its "about" blurb in a div
            assert all(all(t in bs for bs in block_sets) for t in tb), p.id
            assert not set(tb) & set(p.gold.block_texts)


def test_text_is_topical_and_reads_as_prose(pages):
    """Naive Bayes learns the topic from gold text; content is stop-word rich, links are not."""
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB

    train = [p for i, p in enumerate(pages) if i % 5]
    test = [p for i, p in enumerate(pages) if not i % 5]
    vec = CountVectorizer(stop_words="english")
    clf = MultinomialNB().fit(
        vec.fit_transform([p.gold.text for p in train]), [p.category for p in train]
    )
    acc = (
        clf.predict(vec.transform([p.gold.text for p in test])) == [p.category for p in test]
    ).mean()
    assert acc == 1.0  # measured
    stop = stopwords("english")

    def density(fines):
        words = [
            w.strip(".,;:!?\"'").lower()
            for p in pages
            for u in p.gold.units
            if u.fine in fines
            for w in u.text.split()
        ]
        return sum(w in stop for w in words) / len(words)

    assert density({"content"}) > 0.5  # measured 0.584
    assert density({"comments"}) > 0.35  # measured 0.434: comments are hard noise
    assert density({"nav", "footer", "social"}) < 0.25  # measured 0.178
