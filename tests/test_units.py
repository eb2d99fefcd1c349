"""Atomic text blocks: runs split by every tag but <a>, with link words and DOM paths."""

from evalkit.core.page import parse_html
from evalkit.core.units import segment
from evalkit.core.visible import visible_text


def _units(html, **kw):
    return segment(parse_html(html), **kw)


def test_runs_split_by_tags_but_not_by_links():
    units = _units(
        "<html><body><div>Hello <a href='x'>big world</a> again<p>Para <b>bold</b> "
        "tail</p><script>var x;</script>after script</div></body></html>"
    )
    assert [u.text for u in units] == [
        "Hello big world again",
        "Para",
        "bold",
        "tail",
        "after script",
    ]
    assert [(u.n_words, u.n_link_words) for u in units] == [(4, 2), (1, 0), (1, 0), (1, 0), (2, 0)]
    assert units[1].path == "/html/body/div/p" and units[2].path == "/html/body/div/p/b"


def test_labels_come_from_the_label_function():
    html = (
        "<html><body><div data-gold='nav'>Home <a href='/'>News</a></div>"
        "<div data-gold='content'><p>Text here.</p></div></body></html>"
    )

    def label_of(el):
        for anc in [el, *el.iterancestors()]:
            if anc.get("data-gold"):
                return (
                    "content" if anc.get("data-gold") == "content" else "noise",
                    anc.get("data-gold"),
                )
        return None

    units = _units(html, label_of=label_of)
    assert [(u.text, u.label, u.fine) for u in units] == [
        ("Home News", "noise", "nav"),
        ("Text here.", "content", "content"),
    ]


def test_deep_nesting_does_not_recurse():
    depth = 5000
    # libxml2 drops everything past depth 2048; parse_html flattens the excess instead
    html = (
        "<html><body>" + "<div>" * depth + "deep" + "</div>" * depth + "<p>after</p></body></html>"
    )
    units = _units(html)
    assert [u.text for u in units] == ["deep", "after"]


def test_invisible_elements_and_empty_body():
    assert _units("<html><body><style>p{}</style><noscript>x</noscript></body></html>") == []


def test_the_walk_also_gives_the_visible_text_pieces():
    # inline tags join their text with the neighbours' ("foo" + "bar" is one visible word),
    # block tags and <br> break it; invisible elements and comments keep only their tails
    html = (
        "<html><head><title>T</title></head><body>lead<div>foo<span>bar</span> baz"
        "<script>x()</script>qux<!-- c -->tail<p>One <a>two</a><br>three</p>four</div>"
        "end</body></html>"
    )
    pieces: list[str] = []
    units = segment(parse_html(html), visible=pieces)
    assert [u.text for u in units] == [
        "lead",
        "foo",
        "bar",
        "bazquxtail",
        "One two",
        "three",
        "four",
        "end",
    ]
    assert "".join(pieces).split() == [
        "lead",
        "foobar",
        "bazquxtail",
        "One",
        "two",
        "three",
        "four",
        "end",
    ]
    assert "".join(pieces).split() == visible_text(parse_html(html)).split()
    assert [u.text for u in segment(parse_html(html))] == [u.text for u in units]
