"""A page's site, reader order by site, and one runner task per site (docs/sites.md)."""

from __future__ import annotations

from collections import Counter

import pytest

from evalkit.core.domains import site_key, site_of
from evalkit.core.page import Gold, Page
from evalkit.harness.runner import run_pages
from evalkit.harness.specs import MethodSpec
from evalkit.harness.tasks import iter_tasks
from evalkit.readers.base import Dataset, InMemoryDataset, group_by_site
from evalkit.readers.l3s import L3SGN1Dataset
from evalkit.readers.pairs import PairsDataset, gold_url

TEMPLATE = "<div class='about'><p>Example News is an independent paper, founded in 1901.</p></div>"
BODIES = [
    "Data mining is the process of finding patterns, trends and rules in large data sets.",
    "Evaluation of mining results matters: precision, recall and accuracy are measures.",
    "Noise removal keeps the main content of a page and drops its navigation and ads.",
]


def _page(pid, site=None, url=None, dataset="t", body=""):
    html = (
        f"<html><head><title>t</title></head><body>{TEMPLATE}<div><p>{body}</p></div></body></html>"
    )
    return Page(
        id=pid, dataset=dataset, raw=html.encode(), gold=Gold(text=body), url=url, site=site
    )


def _ids(tasks):
    return [[p.id for p in t] for t in tasks]


# -- the rule ------------------------------------------------------------------------------


def test_a_pages_site_is_the_readers_site_else_its_urls_host_else_none():
    assert site_key("bbc.co.uk_news", "http://www.bbc.co.uk/news/1") == "bbc.co.uk_news"
    assert site_key(None, "HTTP://News.Example.COM:8080/a?b") == "news.example.com"
    assert site_key("", "//cdn.example.org/x") == "cdn.example.org"  # an empty site is no site
    assert site_key(None, "/relative/path.html") is None
    assert site_key(None, None) is None
    assert site_of(_page("p", url="https://www.example.com/a")) == "www.example.com"
    assert site_of(_page("p", site="example.com", url="https://www.example.com/a")) == "example.com"


def test_group_by_site_moves_a_sites_items_up_behind_its_first():
    items = [("a1", "a"), ("b1", "b"), ("a2", "a"), ("n1", None), ("c1", "c"), ("b2", "b")]
    out = group_by_site(items, lambda x: x[1])
    assert [x[0] for x in out] == ["a1", "a2", "b1", "b2", "n1", "c1"]
    contiguous = [("a1", "a"), ("a2", "a"), ("n1", None), ("b1", "b")]
    assert group_by_site(contiguous, lambda x: x[1]) == contiguous  # already grouped: unchanged


# -- readers hand out a site's pages together ----------------------------------------------


class FileListReader(Dataset):
    """A reader whose file list interleaves sites: it orders the list, then reads lazily."""

    name = "files"

    def __init__(self, listing):
        super().__init__(path=None)
        self.listing = listing  # (page id, site) in file-name order
        self.reads: list[str] = []

    def _iter_pages(self):
        for pid, site in group_by_site(self.listing, lambda entry: entry[1]):
            self.reads.append(pid)  # the bytes of a page are read only here
            yield _page(pid, site=site, dataset=self.name)


def test_a_reader_whose_sites_interleave_gives_one_task_per_site():
    reader = FileListReader([("p1", "a"), ("p2", "b"), ("p3", "a")])
    pages = reader.pages()
    first = next(pages)
    assert first.id == "p1" and reader.reads == ["p1"]  # ordered before reading, read lazily
    assert _ids(iter_tasks([first, *pages])) == [["p1", "p3"], ["p2"]]
    assert _ids(iter_tasks(reader.pages(), max_pages=1)) == [["p1", "p3"], ["p2"]]


def test_in_memory_pages_are_grouped_by_site_and_hosts_count_as_sites():
    ds = InMemoryDataset(
        [
            _page("p1", url="http://a.example/1"),
            _page("p2", site="b"),
            _page("p3", url="http://a.example/2"),
            _page("p4"),
        ]
    )
    assert _ids(iter_tasks(ds.pages())) == [["p1", "p3"], ["p2"], ["p4"]]


def test_pages_without_a_site_go_max_pages_to_a_task():
    loose = [_page(f"p{i}") for i in range(5)]
    assert [len(t) for t in iter_tasks(loose, max_pages=2)] == [2, 2, 1]
    assert [len(t) for t in iter_tasks(loose, max_pages=1)] == [1] * 5


def test_a_site_in_two_runs_stops_the_run_with_one_line():
    pages = [_page("p1", site="a"), _page("p2", site="b"), _page("p3", site="a")]
    tasks = iter_tasks(pages)
    assert _ids([next(tasks), next(tasks)]) == [["p1"], ["p2"]]
    with pytest.raises(
        ValueError,
        match=r"data set 't': the pages of site 'a' come in two runs "
        r"\(page 'p3' follows",
    ):
        next(tasks)


def test_one_site_name_in_two_data_sets_is_two_sites():
    pages = [
        _page("p1", site="a", dataset="x"),
        _page("p2", site="a", dataset="y"),
        _page("p3", site="a", dataset="x"),
    ]
    assert _ids(iter_tasks(pages[:2])) == [["p1"], ["p2"]]
    with pytest.raises(ValueError, match="data set 'x'"):
        list(iter_tasks(pages))


def _score(page, method, ext):
    return {
        "page_id": page.id,
        "method": method,
        "error": ext.error,
        "rules": [b.rule for b in ext.blocks],
    }


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_site_scope_sees_a_sites_earlier_pages_whatever_the_readers_order(n_jobs):
    # p3 repeats p1's template block; only one task for site a lets stage 1.3 see it
    ds = InMemoryDataset(
        [
            _page("p1", site="a", body=BODIES[0]),
            _page("p2", site="b", body=BODIES[1]),
            _page("p3", site="a", body=BODIES[2]),
        ]
    )
    spec = MethodSpec(
        "proposed@site",
        "proposed",
        {
            "dedup": {"scope": "site"},
            "primary": {"rule_min_subtree": False},
            "scoring": {"enabled": False},
        },
    )
    recs = run_pages(ds.pages(), [spec], score=_score, n_jobs=n_jobs, progress=False)
    assert [(r["page_id"], r["rules"]) for r in recs] == [
        ("p1", [None, None]),
        ("p3", ["site_duplicate", None]),
        ("p2", [None, None]),
    ]


# -- readers order their file lists before reading -----------------------------------------


def test_cleaneval_gold_urls_order_pages_by_host(tmp_path):
    (tmp_path / "input").mkdir()
    (tmp_path / "GoldStandard").mkdir()
    golds = {
        "1": "URL: http://www.a.example/1\n<p>One",
        "2": "\r\nURL: http://b.example/2\r\n<p>Two",
        "3": "URL:\nhttp://a.example/3\n<p>Three",
        "4": "<p>No address",
    }
    for stem, gold in golds.items():
        (tmp_path / "input" / f"{stem}.html").write_bytes(b"<html><body><p>x</p></body></html>")
        (tmp_path / "GoldStandard" / f"{stem}.txt").write_bytes(gold.encode())
    ds = PairsDataset(
        path=str(tmp_path), html_dir="input", gold_dir="GoldStandard", gold_format="cleaneval"
    )
    pages = list(ds.pages())
    # the reader's site drops "www.", so pages 1 and 3 share the site a.example
    assert [(p.id, p.site) for p in pages] == [
        ("1", "a.example"),
        ("3", "a.example"),
        ("2", "b.example"),
        ("4", None),
    ]
    assert gold_url(golds["3"].encode(), "cleaneval") == "http://a.example/3"
    assert gold_url(golds["2"].encode(), "cleaneval") == "http://b.example/2"
    assert gold_url(b"URL: http://a.example/", "text") is None  # plain-text gold names no URL


@pytest.mark.shared
def test_l3s_gn1_runs_one_task_per_distinct_site(shared):
    pages = list(L3SGN1Dataset(path=str(shared("l3s-gn1"))).pages())
    for max_pages in (1, 20):  # several workers, one worker
        tasks = list(iter_tasks(pages, max_pages=max_pages))
        sites = [{site_of(p) for p in t} for t in tasks]
        assert all(len(s) == 1 for s in sites)  # a task is one site
        assert len(tasks) == len({s for (s,) in sites}) == 405  # a site is one task
        assert sum(len(t) for t in tasks) == 621
        sizes = Counter(len(t) for t in tasks)
        assert max(sizes) > 1 and sizes[1] < 405  # sites with several pages run together
