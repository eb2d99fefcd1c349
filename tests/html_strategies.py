"""Generated HTML for the property tests: nested containers and void elements with ad-like
attributes, unclosed tags, stray markup, comments, scripts, XML declarations.

A plain module beside the tests (pytest puts this folder on ``sys.path``), so that every
property test draws from the same pages.
"""

from __future__ import annotations

from hypothesis import strategies as st

__all__ = ["HTML", "SENTENCES", "TEXT"]

_WORDS = [
    "news",
    "the",
    "river",
    "council",
    "Café",
    "menu",
    "Home",
    "ad",
    "banner",
    "share",
    "© 2024",
    "»",
    "|",
    "naïve",
    "東京",
    "42",
    "&amp;",
    "&nbsp;",
    "&#8217;",
    "e.g.,",
    "!",
]
TEXT = st.lists(st.sampled_from(_WORDS), max_size=12).map(" ".join)
# article-like sentences, so the content-finding rules of the methods have work to do
SENTENCES = st.lists(
    st.sampled_from(_WORDS[:6] + ["town", "said", "on", "Monday", "a", "new"]),
    min_size=8,
    max_size=40,
).map(lambda ws: " ".join(ws) + ". " + ", ".join(ws))
_ATTRS = st.dictionaries(
    st.sampled_from(
        [
            "class",
            "id",
            "href",
            "src",
            "style",
            "width",
            "height",
            "align",
            "bgcolor",
            "background",
            "hidden",
        ]
    ),
    st.sampled_from(
        [
            "ad",
            "ads banner",
            "content",
            "main",
            "nav",
            "728",
            "90",
            "300",
            "http://ads.example.com/x.gif",
            "/img/a.png",
            "https://other.org/p",
            "background:url(bg.png)",
            "display:none",
            "",
            '"quoted"',
            "x y z",
        ]
    ),
    max_size=3,
)
_CONTAINERS = [
    "div",
    "p",
    "span",
    "a",
    "b",
    "li",
    "ul",
    "td",
    "tr",
    "table",
    "h1",
    "h2",
    "section",
    "article",
    "nav",
    "footer",
    "form",
    "iframe",
    "script",
    "style",
    "noscript",
    "center",
    "font",
    "blockquote",
    "pre",
]
_VOID = ["br", "img", "hr", "input", "embed", "meta", "link"]


def _attr_text(attrs: dict) -> str:
    return "".join(f' {k}="{v}"' for k, v in attrs.items())


def _element(children):
    container = st.builds(
        lambda tag, attrs, kids, closed: (
            f"<{tag}{_attr_text(attrs)}>{''.join(kids)}" + ("" if closed == 3 else f"</{tag}>")
        ),  # 1 in 4 unclosed
        st.sampled_from(_CONTAINERS),
        _ATTRS,
        st.lists(children, min_size=1, max_size=5),
        st.integers(0, 3),
    )
    void = st.builds(
        lambda tag, attrs: f"<{tag}{_attr_text(attrs)}>", st.sampled_from(_VOID), _ATTRS
    )
    return st.one_of(container, container, container, void)


_LEAVES = st.one_of(
    TEXT, TEXT, SENTENCES, st.sampled_from(["<!-- c -->", "<", "&", "</div>", "<p", "<a href=x>"])
)
_NODES = st.recursive(_LEAVES, _element, max_leaves=40)
HTML = st.builds(
    lambda head, body, title, decl: (
        decl + f"<html><head><title>{title}</title>{head}</head><body>{''.join(body)}</body></html>"
    ),
    st.sampled_from(
        ["", "<meta charset='utf-8'>", "<style>p{}</style>", "<script>var a = '<p>x</p>';</script>"]
    ),
    st.lists(_NODES, min_size=1, max_size=6),
    TEXT,
    st.sampled_from(["", "<!DOCTYPE html>", '<?xml version="1.0" encoding="utf-8"?>']),
)
