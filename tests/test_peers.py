"""Peer adapters: each installed library extracts the article of a small hand page,
a missing library gives a clear error instead of a crash, versions are recorded."""

from __future__ import annotations

import socket
import sys
from importlib import metadata

import pytest

from baselines.peers import PEERS, Peer, PeerUnavailable, available
from evalkit.core.page import Gold, Page
from evalkit.harness.registry import METHODS

PAGE = """<?xml version="1.0" encoding="utf-8"?>
<html><head><title>Otters | Example Media</title></head><body>
<div class="nav"><a href="/">Home</a> | <a href="/news">News</a></div>
<article><h1>River otters return to the valley</h1>
<p>After an absence of more than forty years, river otters have been seen again in the upper
valley, according to a survey published by the regional wildlife trust on Monday. The animals
were recorded on camera traps at six sites along the river.</p>
<p>The trust said that cleaner water and the removal of two old weirs had allowed fish numbers
to recover, which in turn made the river attractive to otters once more. Volunteers will
continue to monitor the sites through the winter.</p>
<p>Local farmers, who had worried about the effect on their fish ponds, said that they were
pleased with the news and that they would work with the trust to protect the banks.</p>
</article><div class="footer">Copyright 2020 &copy; Example Media. All rights reserved.</div>
</body></html>"""

SENTENCE = "river otters have been seen again in the upper valley"
# peers that find the article and leave the navigation and footer out on this page
ARTICLE_ONLY = {"trafilatura", "justext", "readability_lxml", "resiliparse", "goose3"}
# all-text (html_text) and boilerpipe's ArticleExtractor keep "Home | News" here
ALL_TEXT = {"html_text", "boilerpy3"}

PACKAGES = {
    "trafilatura": "trafilatura",
    "justext": "justext",
    "readability_lxml": "readability-lxml",
    "resiliparse": "resiliparse",
    "boilerpy3": "boilerpy3",
    "goose3": "goose3",
    "html_text": "html-text",
}
MODULES = {
    "trafilatura": "trafilatura",
    "justext": "justext",
    "readability_lxml": "readability",
    "resiliparse": "resiliparse",
    "boilerpy3": "boilerpy3",
    "goose3": "goose3",
    "html_text": "html_text",
}


@pytest.fixture
def page():
    return Page(id="otters", dataset="hand", raw=PAGE.encode("utf-8"), gold=Gold(text=""))


def flat(text: str) -> str:
    return " ".join(text.split())


def test_registry_names_match_peer_classes():
    assert set(PEERS) == set(PACKAGES) == ARTICLE_ONLY | ALL_TEXT
    for name, cls in PEERS.items():
        assert METHODS.get(name) is cls
        assert issubclass(cls, Peer)


@pytest.mark.parametrize("name", sorted(PEERS))
def test_available_peer_extracts_the_article(name, page, monkeypatch):
    ok, reason = available(name)
    if not ok:
        pytest.skip(reason)

    def no_network(*args, **kwargs):
        raise AssertionError(f"peer {name} tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    text = flat(METHODS.create(name).extract(page).text)
    assert SENTENCE in text
    assert "protect the banks" in text
    if name in ARTICLE_ONLY:
        assert "Home | News" not in text and "All rights reserved" not in text
    else:
        assert "Home | News" in text


@pytest.mark.parametrize("name", sorted(PEERS))
def test_versions_are_recorded(name):
    peer = PEERS[name]()
    ok, _ = available(name)
    expected = metadata.version(PACKAGES[name]) if ok else "not installed"
    assert peer.versions() == {PACKAGES[name]: expected}


@pytest.mark.parametrize("name", sorted(PEERS))
def test_missing_package_is_a_clear_error(name, page, monkeypatch):
    # a None entry in sys.modules makes `import x` raise ImportError, as if not installed
    for mod in list(sys.modules):
        if mod == MODULES[name] or mod.startswith(MODULES[name] + "."):
            monkeypatch.setitem(sys.modules, mod, None)
    monkeypatch.setitem(sys.modules, MODULES[name], None)
    peer = METHODS.create(name)  # still constructs
    ok, reason = available(name)
    assert not ok
    assert PACKAGES[name] in reason and 'pip install "evalkit[peers]"' in reason
    with pytest.raises(PeerUnavailable, match=r'pip install "evalkit\[peers\]"') as info:
        peer.extract(page)
    assert info.value.package == PACKAGES[name] and info.value.peer == name


def test_unknown_peer_name():
    with pytest.raises(ValueError, match="known peers: trafilatura"):
        available("newspaper")


def test_justext_peer_matches_package_call(page):
    justext = pytest.importorskip("justext")
    ours = METHODS.create("justext", length_low=50).extract(page).text
    paragraphs = justext.justext(
        PAGE.split("?>", 1)[1], justext.get_stoplist("English"), length_low=50
    )
    assert ours == "\n".join(p.text for p in paragraphs if not p.is_boilerplate)


def test_justext_all_languages_is_the_union_of_every_stop_list():
    justext = pytest.importorskip("justext", reason="justext (extra peers) is not installed")
    from baselines.peers import ALL_LANGUAGES, Justext

    union = Justext(language=ALL_LANGUAGES)._stoplist(justext)
    names = justext.get_stoplists()
    assert len(names) > 50  # the package ships about a hundred lists
    english, german = justext.get_stoplist("English"), justext.get_stoplist("German")
    assert english | german <= union and "und" in union and "the" in union
    assert len(union) == len(frozenset().union(*(justext.get_stoplist(n) for n in names)))
    assert Justext()._stoplist(justext) == english  # the default stays one language


def test_a_librarys_per_page_warning_is_not_printed_but_reaches_a_configured_handler(capsys):
    # boilerpy3 warns on every page with nested links; a WCXB run printed hundreds of them
    pytest.importorskip("boilerpy3", reason="boilerpy3 (extra peers) is not installed")
    import logging

    html = "<html><body><a href=x>a<a href=y>b</a></a><p>" + "word " * 100 + "</p></body></html>"
    page = Page(id="p", dataset="hand", raw=html.encode(), gold=Gold(text=""))
    PEERS["boilerpy3"]().extract(page)
    assert "nested A elements" not in capsys.readouterr().err
    seen: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: seen.append(record.getMessage())
    logging.getLogger().addHandler(handler)  # the user's own logging configuration
    try:
        PEERS["boilerpy3"]().extract(page)
    finally:
        logging.getLogger().removeHandler(handler)
    assert any("nested A elements" in m for m in seen)
