"""Methods that need a layout, through the page pipeline: the harness renders each page once,
a page that cannot be rendered is one recorded failure scored as empty while the other pages
are scored, and the runner counts rendered and cached layouts for run.json."""

from __future__ import annotations

from typing import ClassVar

import pytest

from evalkit.core.method import Extractor
from evalkit.core.page import Extraction, Gold, Page
from evalkit.core.rendered import RenderSettings
from evalkit.harness.render import RENDER_FAILED, browser_path
from evalkit.harness.runner import Runner
from evalkit.harness.scoring import score_extraction
from evalkit.harness.specs import MethodSpec

pytestmark = pytest.mark.skipif(
    browser_path() is None,
    reason="Debian's chromium is not installed (apt-get install -y chromium fonts-dejavu-core)",
)


class WidestText(Extractor):
    """The text of the widest visible <p> of the rendered page (a test method)."""

    needs_layout: ClassVar[bool] = True

    def __init__(self, render=None):
        self.render = render

    def extract(self, page: Page) -> Extraction:
        layout = page.layouts[RenderSettings.from_params(self.render).key()]
        boxes = layout.resolve(page.tree())
        ps = [(b.width, el) for el, b in boxes.items() if el.tag == "p" and b.visible]
        return Extraction(text=max(ps, key=lambda t: t[0])[1].text_content() if ps else "")


def _pages():
    html = (
        '<html><body><p style="width:100px">narrow words {}</p>'
        '<p style="width:600px">wide main words here</p>{}</body></html>'
    )
    # two pages of different bytes (one identical page would be read from the layout cache)
    out = [
        Page(
            id=f"p{i}",
            dataset="hand",
            raw=html.format(i, "").encode(),
            gold=Gold(text="wide main words here"),
            site=f"s{i}",
        )
        for i in range(2)
    ]
    out.insert(
        1,
        Page(
            id="endless",
            dataset="hand",
            raw=html.format(9, "<script>for(;;){}</script>").encode(),
            gold=Gold(text="wide main words here"),
            site="s9",
        ),
    )
    return out


@pytest.mark.parametrize("page_timeout", [None, 60])
def test_rendered_pages_are_scored_failures_recorded_and_a_rerun_renders_nothing(
    tmp_path, page_timeout
):
    spec = MethodSpec.from_object(
        "widest", WidestText, params={"render": {"javascript": True, "timeout": 3}}
    )
    runner = Runner(cache_root=str(tmp_path), progress=False, page_timeout=page_timeout)
    recs = runner.run_pages(iter(_pages()), [spec], score=score_extraction)
    assert [r["page_id"] for r in recs] == ["p0", "endless", "p1"]
    assert recs[0]["error"] is None and recs[0]["shingle_f1"] == 1.0
    assert recs[2]["error"] is None and recs[2]["shingle_f1"] == 1.0
    # the page whose script never ends is one failure, scored as an empty extraction
    assert recs[1]["error"].startswith(f"{RENDER_FAILED}timeout")
    assert recs[1]["n_words_out"] == 0
    counts = runner.render_counts
    assert (counts["rendered"], counts["cached"], counts["failed"]) == (2, 0, 1)
    assert counts["browser"]
    again = Runner(cache_root=str(tmp_path), progress=False, page_timeout=page_timeout)
    recs2 = again.run_pages(iter(_pages()), [spec], score=score_extraction)
    assert [r["shingle_f1"] for r in recs2 if r["error"] is None] == [1.0, 1.0]
    # the extractions come from the cache: no page is laid out again; the failed one is
    # tried again (failures are never cached) and fails again
    assert (again.render_counts["rendered"], again.render_counts["failed"]) == (0, 1)
