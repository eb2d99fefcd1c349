"""ENIW (Kabir et al.'s description of Oza & Mishra 2013) on a page whose blocks are counted by hand."""

from __future__ import annotations

import pytest

from baselines.eniw import ENIW, UNRELATED_TAGS, count_blocks, remove_unrelated
from evalkit.core.page import Gold, Page, parse_html
from evalkit.harness.config import register_resolvers
from evalkit.harness.registry import METHODS

register_resolvers()

# The page, tag by tag ("all the tags of a page as a tree structure"):
#   head: title "My page"          -> informative block 1 (include_title)
#         meta                      -> unrelated, removed; no text, so no block
#         script "var a=1;"         -> unrelated: noisy block 1
#   body: div#nav: <a>Home</a> <a>News</a>
#           the div holds only a space between the links: not a block;
#           a "Home", a "News"      -> informative blocks 2, 3
#         form: <input> " Search here"  -> unrelated: noisy block 2 (input and its tail go too)
#         div: <p>aaaa bbbb</p><img><p>cccc <b>dd</b> ee</p>
#           p "aaaa bbbb"           -> informative 4
#           img                     -> no text anywhere under it: the one "tag with no text"
#           p "cccc " + tail " ee"  -> informative 5;  b "dd" -> informative 6
#         marquee "Breaking"        -> unrelated: noisy block 3
# blocks = 6 informative + 3 noisy = 9 (noisy_blocks="tags": the meta too, 4 and 10); the
# output is the title, then the body's visible
# text without the form and the marquee, one line per block-level element.
PAGE = (
    "<html><head><title>My page</title><meta name=d content=x><script>var a=1;</script>"
    "</head><body><div id=nav><a href=/>Home</a> <a href=/n>News</a></div>"
    "<form><input> Search here</form><div><p>aaaa bbbb</p><img src=x>"
    "<p>cccc <b>dd</b> ee</p></div><marquee>Breaking</marquee></body></html>"
)


def _page(html: str) -> Page:
    return Page(id="p", dataset="test", raw=html.encode("utf-8"), gold=Gold(text=""))


def test_hand_worked_page():
    ext = ENIW().extract(_page(PAGE))
    assert ext.text == "My page\nHome News\naaaa bbbb\ncccc dd ee"
    assert ext.info == {
        "n_blocks": 9,
        "n_informative": 6,
        "n_noisy": 3,
        "n_merged": 0,
        "n_empty": 1,
    }
    tags = ENIW(noisy_blocks="tags").extract(_page(PAGE))
    assert tags.text == ext.text
    assert (tags.info["n_blocks"], tags.info["n_noisy"]) == (10, 4)


def test_the_five_tags_kabir_names_are_the_default():
    assert UNRELATED_TAGS == ("script", "style", "form", "marquee", "meta")
    assert ENIW().get_params() == {
        "unrelated_tags": UNRELATED_TAGS,
        "include_title": True,
        "noisy_blocks": "text",
    }
    assert METHODS.get("eniw") is ENIW


def test_without_title_and_with_an_empty_tag_list():
    # no title: 5 informative; nothing unrelated: form's text and marquee stay (the input is
    # a tag with no text, the script and meta hold no visible text: 0 noisy blocks)
    ext = ENIW(unrelated_tags=[], include_title=False).extract(_page(PAGE))
    assert ext.text == "Home News\nSearch here\naaaa bbbb\ncccc dd ee\nBreaking"
    # form " Search here" and marquee "Breaking" are blocks now; title not counted
    assert ext.info["n_informative"] == 5 + 2 and ext.info["n_noisy"] == 0


def test_boundary_a_tag_is_removed_only_when_listed_and_nested_ones_count_once():
    html = (
        "<html><body><form>outer<form>inner</form></form><blink>kept</blink>"
        "<p>text</p></body></html>"
    )
    root = parse_html(html)
    # lxml nests no form in a form; whatever it builds, the outermost ones count once each
    n_forms = len(root.xpath("//form[not(ancestor::form)]"))
    assert remove_unrelated(root, frozenset({"form"})) == (n_forms, n_forms)
    assert not root.xpath("//form")
    assert count_blocks(root) == (2, 0)  # blink "kept", p "text"; html/body hold text below
    ext = ENIW().extract(_page(html))
    assert ext.text == "kept\ntext" and ext.info["n_noisy"] == n_forms
    # "blink" is not one of Kabir's five: only listing it removes it
    assert ENIW(unrelated_tags=["form", "blink"]).extract(_page(html)).text == "text"


def test_upper_case_settings_and_odd_pages():
    assert ENIW(unrelated_tags=["FORM"]).extract(_page(PAGE)).info["n_noisy"] == 1
    # an empty script (src only) is removed but holds no text: a noisy block only as a tag
    empty_script = "<html><body><script src=x.js></script><p>t</p></body></html>"
    assert ENIW().extract(_page(empty_script)).info["n_noisy"] == 0
    assert ENIW(noisy_blocks="tags").extract(_page(empty_script)).info["n_noisy"] == 1
    for html in [
        "",
        "<!-- only a comment -->",
        "<html><body></body></html>",
        "\x00\x01 junk \xff",
        "<form>all in a form</form>",
    ]:
        ext = ENIW().extract(_page(html))
        assert isinstance(ext.text, str) and ext.info["n_blocks"] >= 0
    assert ENIW().extract(_page("<form>all in a form</form>")).text == ""


def test_bad_settings_fail_at_construction():
    with pytest.raises(ValueError, match="unrelated_tags"):
        ENIW(unrelated_tags="script")
    with pytest.raises(ValueError, match="include_title"):
        ENIW(include_title="yes")
    with pytest.raises(ValueError, match="noisy_blocks"):
        ENIW(noisy_blocks="all")
