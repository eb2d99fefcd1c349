"""VIPS (evalkit.core.vips): separators worked out by hand on blocks placed by hand, and the
blocks, separators and degrees of coherence of a hand-made three-column page rendered by
Chromium (skipped, saying so, where it is not installed)."""

from __future__ import annotations

import pytest
from conftest import hand_box

from evalkit.core.page import Gold, Page
from evalkit.core.rendered import RenderSettings
from evalkit.core.validate import ParamError
from evalkit.core.vips import Vips, VisualBlock, detect_separators
from evalkit.harness.render import browser_path, layout_for

needs_browser = pytest.mark.skipif(
    browser_path() is None,
    reason="Debian's chromium is not installed (apt-get install -y chromium fonts-dejavu-core)",
)


def _block(x, y, w, h):
    return VisualBlock(elements=[], box=(x, y, w, h), doc=10)


def test_separators_are_split_trimmed_and_removed_by_the_blocks():
    # region 0..100 across; blocks at x 0..20, 30..60 and 70..100 (full height)
    blocks = [_block(0, 0, 20, 50), _block(30, 0, 30, 50), _block(70, 0, 30, 50)]
    region = (0, 0, 100, 50)
    # vertical: start (0,100); block 1 crosses from before -> (20,100); block 2 inside ->
    # (20,30),(60,100); block 3 crosses from after -> (60,70); none touches the border
    assert detect_separators(blocks, region, horizontal=False) == [(20, 30), (60, 70)]
    # horizontal: every block covers the whole height 0..50 -> no separator is left
    assert detect_separators(blocks, region, horizontal=True) == []
    # a block spanning 10..90 across removes both vertical gaps
    assert detect_separators([*blocks, _block(10, 0, 80, 50)], region, False) == []


def test_vips_settings_are_checked_when_made():
    with pytest.raises(ParamError, match="pdoc"):
        Vips(pdoc=11)
    with pytest.raises(ParamError, match="gap_step"):
        Vips(gap_step=0)


THREE_COLUMNS = """<!DOCTYPE html><html><head><style>
body{margin:0;font:16px/20px 'DejaVu Sans'} div{position:absolute}
#head{left:0;top:0;width:1000px;height:100px;background:#ccc}
#left{left:0;top:120px;width:200px;height:400px}
#main{left:220px;top:120px;width:560px;height:400px}
#right{left:800px;top:120px;width:200px;height:400px}
#foot{left:0;top:560px;width:1000px;height:40px}
</style></head><body>
<div id=head>Site title</div><div id=left><a href=/a>nav one</a> <a href=/b>nav two</a></div>
<div id=main>Main text here.</div><div id=right>ads</div><div id=foot>footer</div>
</body></html>"""


@needs_browser
def test_a_three_column_page_gives_the_blocks_and_separators_worked_out_by_hand(tmp_path):
    page = Page(id="three", dataset="hand", raw=THREE_COLUMNS.encode(), gold=Gold(text=""))
    layout, _ = layout_for(page, RenderSettings(), tmp_path)
    tree = Vips().segment(page.tree(), layout)
    ids = [[el.get("id") for el in b.elements] for b in tree.leaves()]
    # step 1: body is divided (the header's grey background differs from body's
    # transparent one); each div holds text only in one font: a block of DoC 10
    assert ids == [["head"], ["left"], ["main"], ["right"], ["foot"]]
    assert [b.doc for b in tree.leaves()] == [10] * 5
    # step 2 on the whole page: horizontal bands y 100..120 (header | columns) and
    # 520..560 (columns | footer); vertical gaps are crossed by header and footer.
    # weights: 1 + width // 10 (at most 5): 20 px -> 3, 40 px -> 5; +1 for the header's
    # background against the left column's -> 4; same font above and below both
    seps = [(s.horizontal, s.start, s.end, s.weight) for s in tree.separators]
    assert seps == [(True, 100, 120, 4), (True, 520, 560, 5)]
    # step 3: the heaviest (5) cuts the footer off; DoC = 11 - 5 = 6
    assert tree.doc == 6 and tree.box == (0, 0, 1000, 600)
    upper, foot = tree.children
    assert [el.get("id") for el in foot.elements] == ["foot"]
    # the upper part's one separator (weight 4) cuts the header off: DoC 11 - 4 = 7
    assert upper.doc == 7 and [(s.start, s.end) for s in upper.separators] == [(100, 120)]
    head, columns = upper.children
    assert [el.get("id") for el in head.elements] == ["head"] and head.doc == 10
    # the columns: vertical gaps x 200..220 and 780..800, 20 px -> weight 3, DoC 8
    assert [(s.horizontal, s.start, s.end, s.weight) for s in columns.separators] == [
        (False, 200, 220, 3),
        (False, 780, 800, 3),
    ]
    assert columns.doc == 8 and columns.box == (0, 120, 1000, 400)
    assert [[el.get("id") for el in c.elements] for c in columns.children] == [
        ["left"],
        ["main"],
        ["right"],
    ]


MIXED = """<!DOCTYPE html><html><head><style>body{margin:0;font:16px 'DejaVu Sans'}</style>
</head><body><div style="width:800px;height:600px;background:#eee">
<p>plain words <b>bold words</b></p><p>more plain words</p></div></body></html>"""


@needs_browser
def test_the_permitted_degree_of_coherence_sets_the_granularity(tmp_path):
    page = Page(id="mixed", dataset="hand", raw=MIXED.encode(), gold=Gold(text=""))
    layout, _ = layout_for(page, RenderSettings(), tmp_path)
    # the div (its grey background differs from body's) is reached by dividing body; it
    # holds two <p> (block-level): divided. The first <p> mixes weights 400 and 700
    # (DoC 9), the second has one font (DoC 10)
    coarse = Vips(pdoc=9).segment(page.tree(), layout)
    assert [(b.elements[0].tag, b.doc) for b in coarse.leaves()] == [("p", 9), ("p", 10)]
    # PDoC 10: the first <p> is not coherent enough and is divided into its one inline
    # child <b> (its own text "plain words" stays with the <p>, which is no longer a block)
    fine = Vips(pdoc=10).segment(page.tree(), layout)
    assert [(b.elements[0].tag, b.doc) for b in fine.leaves()] == [("b", 10), ("p", 10)]


PAB_PAGE = """<!DOCTYPE html><html><head><title>T</title><style>
body{margin:0;font:16px/20px 'DejaVu Sans'} div{position:absolute}
#art{left:0;top:0;width:700px;height:400px}
#ads{left:800px;top:0;width:200px;height:400px}
#foot{left:0;top:500px;width:1000px;height:40px}
</style></head><body>
<div id=art><h1>Big news</h1><p>The story, told.</p></div>
<div id=ads><a href="http://ads.example.net/1">buy</a> <a href="http://ads.example.net/2">now</a></div>
<div id=foot>copyright</div></body></html>"""


@needs_browser
def test_pab_on_vips_blocks_scores_the_leaves_by_their_tags(tmp_path):
    from baselines.pab import PAB

    page = Page(
        id="pab",
        dataset="hand",
        raw=PAB_PAGE.encode(),
        gold=Gold(text=""),
        url="http://news.example.com/a.html",
    )
    method = PAB(segmenter="vips")
    layout, _ = layout_for(page, method.settings_, tmp_path)
    page.layouts[method.settings_.key()] = layout
    ext = method.extract(page)
    # VIPS leaves: #art is divided (two block-level children) into <h1> and <p> (one font
    # each: DoC 10), #ads (links only) and #foot (text only) are leaves. PAB priorities:
    # title 1.0; h1 1.0; p 0.1; #ads 0.2 + 0.2 but both links lead to another site (share
    # 1 > 0.5): 0; #foot has no tag of the table: 0
    assert [(b.tag, b.scores["priority"], b.kept) for b in ext.blocks] == [
        ("title", 1.0, True),
        ("h1", 1.0, True),
        ("p", 0.1, True),
        ("div", 0.0, False),
        ("div", 0.0, False),
    ]
    assert ext.text == "T\nBig news\nThe story, told."


def test_a_block_of_an_empty_box_is_where_its_content_is_drawn():
    from evalkit.core.rendered import Layout

    page = Page(
        id="e",
        dataset="hand",
        gold=Gold(text=""),
        raw=(
            b"<html><body><a href=/x><span>one</span> <span>two</span></a>"
            b"<div>words of a paragraph</div></body></html>"
        ),
    )
    # the link's own box has no size, at a position Chromium does not give reliably
    # (rendered.ElementBox.empty): its block is the union of its spans, 10..120 x 10..30
    layout = Layout(
        url="http://a/",
        viewport=(1000, 600),
        browser="b",
        width=1000.0,
        height=600.0,
        elements=(
            hand_box("/html[1]", 0, 0, 1000, 600),
            hand_box("/html[1]/body[1]", 0, 0, 1000, 600),
            hand_box("/html[1]/body[1]/a[1]", 777, 5, 0, 0, "inline"),
            hand_box("/html[1]/body[1]/a[1]/span[1]", 10, 10, 40, 20, "inline"),
            hand_box("/html[1]/body[1]/a[1]/span[2]", 60, 12, 60, 18, "inline"),
            hand_box("/html[1]/body[1]/div[1]", 0, 100, 1000, 20),
        ),
    )
    tree = Vips().segment(page.tree(), layout)
    link = next(b for b in tree.leaves() if b.elements[0].tag == "a")
    assert link.box == (10, 10, 110, 20)
