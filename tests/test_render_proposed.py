"""The proposed method's iab_size rule on rendered sizes (primary.image_size_from=rendered):
a banner sized by the page's style sheet is caught only when sizes come from the layout."""

from __future__ import annotations

import pytest

from evalkit.core.page import Gold, Page
from evalkit.core.rendered import RenderSettings
from evalkit.harness.registry import METHODS
from evalkit.harness.render import browser_path, layout_for

PAGE = """<!DOCTYPE html><html><head><style>
.wide{width:468px;height:60px} .photo{width:300px;height:200px}
</style></head><body><div><p>First paragraph of the story, with commas, and periods.</p>
<img class=wide src="/w.gif"><img class=photo src="/p.jpg">
<p>Second paragraph, also with commas, and a period.</p></div></body></html>"""


@pytest.mark.skipif(
    browser_path() is None,
    reason="Debian's chromium is not installed (apt-get install -y chromium fonts-dejavu-core)",
)
def test_a_banner_sized_by_css_is_caught_only_with_rendered_sizes(tmp_path):
    page = Page(id="css", dataset="hand", raw=PAGE.encode(), gold=Gold(text=""))
    attrs = METHODS.create("proposed", scoring={"enabled": False})
    rendered = METHODS.create(
        "proposed", scoring={"enabled": False}, primary={"image_size_from": "rendered"}
    )
    assert not attrs.needs_layout and rendered.needs_layout
    layout, _ = layout_for(page, RenderSettings(), tmp_path)
    page.layouts[RenderSettings().key()] = layout
    # the <img> elements carry no width/height attribute or style: attributes see no size
    assert attrs.extract(page).info["primary_counts"]["iab_size"] == 0
    # rendered: the first image's box is 468 x 60 (an IAB size), the photo's 300 x 200 is
    # not (class names with no ad word, so the ad_marker rule takes neither first)
    ext = rendered.extract(page)
    assert ext.info["primary_counts"]["iab_size"] == 1
    assert ext.info["primary_counts"]["ad_marker"] == 0


def test_without_a_layout_the_rendered_reading_is_a_clear_failure():
    page = Page(id="x", dataset="hand", raw=PAGE.encode(), gold=Gold(text=""))
    rendered = METHODS.create("proposed", primary={"image_size_from": "rendered"})
    with pytest.raises(RuntimeError, match="no rendered layout"):
        rendered.extract(page)
    with pytest.raises(ValueError, match="image_size_from"):
        METHODS.create("proposed", primary={"image_size_from": "css"})
