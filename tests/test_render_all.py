"""Rendering on worker processes (evalkit.harness.render_all) gives the layouts one process
gives: the same cache entries (but for each cache's own MAC), whichever worker (and whichever
pages before) made them. Needs Debian's chromium; skips, saying so, where it is not installed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import hand_box

from evalkit.core.page import Gold, Page
from evalkit.core.rendered import Layout, RenderSettings
from evalkit.harness.render import LayoutCache, browser_path, layout_for, renderer
from evalkit.harness.render_all import compare_caches, main, memory_by_pages, render_pages

needs_browser = pytest.mark.skipif(
    browser_path() is None,
    reason="Debian's chromium is not installed (apt-get install -y chromium fonts-dejavu-core)",
)

URL = "http://site.evalkit.invalid/a"
#: pages that could leak into the page after them in a reused tab: the same URL with and
#: without a fragment, a meta refresh to another page, a frame, an image with and without size
HTML = [
    "<html><body><div style='width:200px;height:40px'>one</div></body></html>",
    (
        "<html><head><meta http-equiv=refresh content='0;url=http://x.invalid/'></head>"
        "<body><p>refresh</p><iframe src='http://y.invalid/'></iframe></body></html>"
    ),
    "<html><body><img src=a.png><img src=b.png width=120 height=60><p>two</p></body></html>",
    (
        "<html><body><table><tr><td>cell</td><td style='width:300px'>wide</td></tr></table>"
        "</body></html>"
    ),
    "<html><body><h1 style='font-size:40px'>big</h1><a href='#x'>link</a></body></html>",
    "<html><body><ul><li>a<li>b<li>c</ul></body></html>",
]
URLS = [URL, URL, URL + "#frag", URL + "#frag", None, None]


def _pages() -> list[Page]:
    return [
        Page(id=f"p{i}", dataset="hand", raw=h.encode(), gold=Gold(text=""), url=u)
        for i, (h, u) in enumerate(zip(HTML, URLS, strict=True))
    ]


def _entries(root: Path) -> dict[str, dict]:
    """Each layout entry without its MAC (made under each cache's own key, cache_seal)."""
    return {
        p.name: {k: v for k, v in json.loads(p.read_bytes()).items() if k != "mac"}
        for p in sorted((root / "layouts").rglob("*.json"))
    }


@needs_browser
def test_two_workers_write_the_entries_one_process_writes(tmp_path):
    settings = RenderSettings()
    serial, parallel = tmp_path / "serial", tmp_path / "parallel"
    # one process, one tab, the pages in order ...
    layouts = [layout_for(p, settings, serial)[0] for p in _pages()]
    renderer().kill()
    # ... and two workers taking the pages as they come, in reverse order
    res = render_pages([("hand", p) for p in reversed(_pages())], 2, settings, parallel)
    assert res["sets"]["hand"]["pages"] == len(HTML)
    assert res["sets"]["hand"]["failed"] == []
    one, two = _entries(serial), _entries(parallel)
    assert len(one) == len(HTML)  # six pages, six keys (bodies or URLs differ)
    assert one == two
    # and the records read back are the ones rendered
    again = [layout_for(p, settings, parallel) for p in _pages()]
    assert all(hit for _, hit in again)
    assert [lay for lay, _ in again] == layouts


@needs_browser
def test_a_reused_tab_gives_a_fresh_tabs_layout(tmp_path):
    """The third page (images) rendered after the refresh page in the same tab, and alone in
    a fresh browser: the same record."""
    settings = RenderSettings()
    pages = _pages()
    after = [renderer().layout(p, settings) for p in pages[:3]][2]
    renderer().kill()
    alone = renderer().layout(pages[2], settings)
    renderer().kill()
    assert isinstance(alone, Layout)
    assert after == alone
    # the two images: no picture, no size -> the broken-image box; the sized one 120 x 60
    imgs = [e for e in alone.elements if e.tag == "img"]
    assert [(e.width, e.height) for e in imgs][1] == (120.0, 60.0)


def test_the_memory_line_reads_the_last_sample_at_each_mark_and_the_thirds():
    mib = 2**20
    samples = [
        (0, 100 * mib),
        (120, 200 * mib),
        (260, 210 * mib),
        (510, 205 * mib),
        (600, 190 * mib),
        (700, 230 * mib),
    ]
    line = memory_by_pages(samples, 700)
    # 250 pages: the sample at 120 (200); 500: the one at 260 (210); thirds of six samples:
    # (100 + 200) / 2 = 150 and (190 + 230) / 2 = 210
    assert line.endswith(
        "250: 200, 500: 210; mean of the first third of the 6 samples 150, of the last third 210"
    )
    assert memory_by_pages([], 10).endswith("not measured (no psutil)")


def test_two_caches_are_compared_layout_by_layout(tmp_path):
    def lay(width, link_x=5.0):
        return Layout(
            url="http://a/",
            viewport=(800, 600),
            browser="b",
            width=width,
            height=50.0,
            elements=(
                hand_box("/html[1]/body[1]", 0.0, 0.0, width, 50.0),
                hand_box("/html[1]/body[1]/a[1]", link_x, 1.0, 0.0, 0.0),
            ),
        )

    a, b = (LayoutCache(tmp_path / r / "layouts") for r in ("a", "b"))
    for key, la, lb in (
        ("k1", lay(800.0), lay(800.0, link_x=45.0)),  # an empty box moved
        ("k2", lay(800.0), lay(810.0)),  # the page is wider
        ("k3", lay(800.0), None),
    ):  # in one cache only
        a.put(key, la)
        if lb is not None:
            b.put(key, lb)
    assert compare_caches(str(tmp_path / "a"), str(tmp_path / "b")).splitlines() == [
        f"against {tmp_path / 'b'}: 2 layouts in both caches, 1 differ",
        "  http://a/: width",
    ]


def test_against_a_folder_without_layouts_stops_before_rendering(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--cache", str(tmp_path / "a"), "--against", str(tmp_path / "typo"), "synthetic"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.endswith(
        f"--against {tmp_path / 'typo'}: no layout cache there "
        f"({tmp_path / 'typo' / 'layouts'} does not exist)"
    )
    assert not (tmp_path / "a").exists()  # nothing was rendered
