"""The proposed method's stage 1.1 on VIPS blocks (blocks.segmenter=vips): a hand-made
three-column page cut by VIPS, against the default cut at div/td. The rendering test needs
Debian's chromium and skips, saying so, where it is not installed."""

from __future__ import annotations

import pytest

from evalkit.core.page import Gold, Page
from evalkit.core.rendered import RenderSettings
from evalkit.core.validate import ParamError
from evalkit.harness.registry import METHODS
from evalkit.harness.render import browser_path, layout_for

#: a header, a navigation column, the article (a div of a heading and a paragraph), an aside
#: and a footer, placed by hand: only the article is a <div>
THREE_COLUMNS = """<!DOCTYPE html><html><head><title>T</title><style>
body{margin:0;font:16px/20px 'DejaVu Sans'} header,nav,div,aside,footer{position:absolute}
h1{margin:0;font:bold 32px/40px 'DejaVu Sans'} p{margin:0}
#head{left:0;top:0;width:1000px;height:100px;background:#ccc}
#left{left:0;top:120px;width:200px;height:400px}
#main{left:220px;top:120px;width:560px;height:400px}
#right{left:800px;top:120px;width:200px;height:400px}
#foot{left:0;top:560px;width:1000px;height:40px}
</style></head><body>
<header id=head>Site title</header><nav id=left><a href=/a>nav one</a> <a href=/b>nav two</a></nav>
<div id=main><h1>Big news</h1><p>The story, told.</p></div>
<aside id=right>ads</aside><footer id=foot>footer</footer>
</body></html>"""

#: every stage after 1.1 off: the records are the blocks of stage 1.1
ONLY_BLOCKS = {
    "primary": {"enabled": False},
    "dedup": {"enabled": False},
    "scoring": {"enabled": False},
}


def _blocks(ext):
    return [(b.tag, b.path, b.text) for b in ext.blocks]


@pytest.mark.skipif(
    browser_path() is None,
    reason="Debian's chromium is not installed (apt-get install -y chromium fonts-dejavu-core)",
)
def test_vips_blocks_of_a_three_column_page(tmp_path):
    page = Page(id="three", dataset="hand", raw=THREE_COLUMNS.encode(), gold=Gold(text=""))
    tags = METHODS.create("proposed", **ONLY_BLOCKS)
    vips = METHODS.create("proposed", blocks={"segmenter": "vips"}, **ONLY_BLOCKS)
    assert not tags.needs_layout and vips.needs_layout
    layout, _ = layout_for(page, RenderSettings(), tmp_path)
    page.layouts[RenderSettings().key()] = layout
    # default: the one <div> is a block; everything else is body text outside every div/td,
    # the residual block (first); a record's text has its white space collapsed
    assert _blocks(tags.extract(page)) == [
        ("body", "/html/body", "Site title nav one nav two ads footer"),
        ("div", "/html/body/div", "Big news The story, told."),
    ]
    # VIPS (tests/test_vips.py works the rules through on the same layout with divs):
    # body is divided (the header's grey background differs from its own); header, nav,
    # aside and footer hold inline content in one font: leaves of DoC 10. The article div
    # holds two block-level children and covers 560 x 400 of the 1000 x 600 page (37%, over
    # the 5% size share): divided into <h1> and <p>, one font each: leaves of DoC 10.
    # No body text lies outside the six leaves, so there is no residual block.
    ext = vips.extract(page)
    assert _blocks(ext) == [
        ("header", "/html/body/header", "Site title"),
        ("nav", "/html/body/nav", "nav one nav two"),
        ("h1", "/html/body/div/h1", "Big news"),
        ("p", "/html/body/div/p", "The story, told."),
        ("aside", "/html/body/aside", "ads"),
        ("footer", "/html/body/footer", "footer"),
    ]
    # with every later stage off the output is every block's text in document order (the
    # default puts the residual block first)
    assert (
        ext.text.split()
        == ("Site title nav one nav two Big news The story, told. ads footer").split()
    )


def test_the_segmenter_switch_is_checked_and_keys_only_what_it_changes():
    default = METHODS.create("proposed")
    assert "segmenter" not in default.resolved_params()["blocks"]  # default keys as before
    vips = METHODS.create("proposed", blocks={"segmenter": "vips", "pdoc": 9})
    assert vips.resolved_params()["blocks"]["pdoc"] == 9
    with pytest.raises(ParamError, match="blocks.segmenter"):
        METHODS.create("proposed", blocks={"segmenter": "visual"})
    with pytest.raises(ParamError, match="blocks.pdoc"):
        METHODS.create("proposed", blocks={"segmenter": "vips", "pdoc": 11})
    with pytest.raises(ParamError, match="blocks.render"):
        METHODS.create(
            "proposed",
            blocks={"segmenter": "vips", "render": {"viewport": [800, 600]}},
            primary={"image_size_from": "rendered"},
        )
    page = Page(id="x", dataset="hand", raw=THREE_COLUMNS.encode(), gold=Gold(text=""))
    with pytest.raises(RuntimeError, match="blocks.segmenter=vips"):
        vips.extract(page)
