"""V-Wrapper (baselines/vwrapper.py): the features of a hand-made page checked by hand, the
folds by site, the learned selection on hand-made pages, and its settings."""

from __future__ import annotations

import math

import pytest

from baselines.vwrapper import FEATURES, VWrapper, node_text, site_fold
from evalkit.core.page import Gold, Page
from evalkit.core.rendered import RenderSettings
from evalkit.core.validate import ParamError
from evalkit.harness.render import browser_path, layout_for

needs_browser = pytest.mark.skipif(
    browser_path() is None,
    reason="Debian's chromium is not installed (apt-get install -y chromium fonts-dejavu-core)",
)

HAND = """<!DOCTYPE html><html><head><style>
body{margin:0;font:16px/20px 'DejaVu Sans'} div{position:absolute}
#nav{left:0;top:0;width:200px;height:400px}
#art{left:300px;top:100px;width:600px;height:300px;font-size:20px}
</style></head><body><div id=nav><a href=/1>one two</a> <a href=/2>three</a></div>
<div id=art>Alpha beta gamma. Delta epsilon.</div></body></html>"""


@needs_browser
def test_the_features_of_a_hand_made_page_are_those_worked_out_by_hand(tmp_path):
    page = Page(id="hand", dataset="hand", raw=HAND.encode(), gold=Gold(text="x"))
    layout, _ = layout_for(page, RenderSettings(), tmp_path)
    method = VWrapper()
    cands = method.candidates(page, layout)
    # the page is 1366 wide (the viewport) and 400 high (standards mode: the lowest box,
    # #nav's bottom, not the viewport's 768)
    W, H = 1366.0, 400.0
    assert (layout.width, layout.height) == (W, H)
    # the VIPS tree: body (extent 900 x 400, over 5% of 1366 x 400) is divided into #nav
    # (links only: inline, one font -> DoC 10) and #art (text only -> DoC 10); one vertical
    # separator x 200..300 (100 px -> 1 + 5 steps = 6), so the root has DoC 11 - 6 = 5
    names = [[el.get("id") for el in node.elements] for node, _ in cands]
    assert names == [["nav", "art"], ["nav"], ["art"]]
    f = [dict(zip(FEATURES, feats)) for _, feats in cands]
    # words: nav 3 (all in links, 16 px), art 5 (20 px, 4 marks . , . -> 2 full stops);
    # the page's word-weighted font size = (3*16 + 5*20) / 8 = 18.5
    root, nav, art = f
    assert art["left"] == pytest.approx(300 / W) and art["top"] == pytest.approx(100 / H)
    assert art["width"] == pytest.approx(600 / W) and art["height"] == pytest.approx(300 / H)
    assert art["centre_offset"] == pytest.approx(abs(300 + 300 - W / 2) / W)
    assert art["area_share"] == pytest.approx(600 * 300 / (W * H))
    assert art["font_ratio"] == pytest.approx(20 / 18.5)
    assert (art["bold_share"], art["link_share"]) == (0.0, 0.0)
    assert art["log_words"] == pytest.approx(math.log1p(5))
    assert art["word_share"] == pytest.approx(5 / 8)
    assert art["word_density"] == pytest.approx(1000 * 5 / (600 * 300))
    assert art["punctuation"] == pytest.approx(2 / 5)
    assert (art["doc"], art["depth"]) == (1.0, 1.0)
    assert nav["link_share"] == 1.0 and nav["font_ratio"] == pytest.approx(16 / 18.5)
    assert nav["word_share"] == pytest.approx(3 / 8) and nav["punctuation"] == 0.0
    assert root["link_share"] == pytest.approx(3 / 8) and root["font_ratio"] == pytest.approx(1)
    assert (root["doc"], root["depth"], root["width"]) == (0.5, 0.0, pytest.approx(900 / W))
    assert node_text(cands[2][0]) == "Alpha beta gamma. Delta epsilon."


def test_sites_fall_in_seeded_folds():
    folds = [site_fold(f"site{i}", 5, seed=0) for i in range(200)]
    assert set(folds) == {0, 1, 2, 3, 4}
    assert folds == [site_fold(f"site{i}", 5, seed=0) for i in range(200)]
    assert folds != [site_fold(f"site{i}", 5, seed=1) for i in range(200)]


@needs_browser
def test_the_selection_learned_on_other_sites_picks_the_article(tmp_path):
    # ten pages on ten sites: a link column at the left and the article at the centre,
    # their sizes varying; trained with two folds by site, each page scored by the model
    # of the other fold
    pages = []
    for i in range(10):
        art = " ".join(f"word{i}x{j}." for j in range(20 + 5 * i))
        html = (
            f"<html><head><style>body{{margin:0}} div{{position:absolute}}</style></head>"
            f"<body><div style='left:0;top:0;width:{150 + 10 * i}px;height:500px'>"
            + " ".join(f"<a href=/{k}>link {k}</a>" for k in range(8 + i))
            + f"</div><div style='left:{250 + 10 * i}px;top:80px;width:600px;"
            f"height:{300 + 20 * i}px'>{art}</div></body></html>"
        )
        pages.append(
            Page(
                id=f"p{i}", dataset="hand", raw=html.encode(), gold=Gold(text=art), site=f"site{i}"
            )
        )
    method = VWrapper(train={"pages": 10, "folds": 2})
    pairs = [(p, layout_for(p, method.settings_, tmp_path)[0]) for p in pages]
    model = method.fit_model(pairs)
    assert model["folds"] == 2 and len(model["models"]) == 2
    fitted = VWrapper(train={"pages": 10, "folds": 2}, model=model)
    for page, layout in pairs:
        page.layouts[fitted.settings_.key()] = layout
        assert fitted.extract(page).text == page.gold.text


def test_settings_are_checked_when_made():
    with pytest.raises(ParamError, match="train.folds"):
        VWrapper(train={"folds": 1})
    with pytest.raises(ParamError, match="train.size"):
        VWrapper(train={"size": 3})
    with pytest.raises(ParamError, match="viewport"):
        VWrapper(render={"viewport": [10]})
    with pytest.raises(ParamError, match="model"):
        VWrapper(model={"models": []})
    with pytest.raises(RuntimeError, match="no fitted model"):
        VWrapper().extract(Page(id="x", dataset="d", raw=b"<p>x</p>", gold=Gold(text="")))
