"""The peers of issue 40 (chromerag, inscriptis, newspaper4k, trafilatura's named modes), the
peer base in core and the contamination declaration (``trained_on``)."""

from __future__ import annotations

import socket

import pytest
from test_peers import PAGE, SENTENCE

from evalkit.core.method import BaseMethod, Extractor, FunctionExtractor, trained_on
from evalkit.core.page import Gold, Page
from evalkit.core.peer import Peer, PeerUnavailable
from evalkit.core.validate import ParamError
from evalkit.harness.registry import METHODS

NEW = ("chromerag", "inscriptis", "newspaper4k")
# the extractors leave the navigation and the footer out; inscriptis renders the whole page
ARTICLE_ONLY = {"chromerag", "newspaper4k"}


def _page(url: str | None = None) -> Page:
    return Page(id="otters", dataset="hand", raw=PAGE.encode(), gold=Gold(text=""), url=url)


def _flat(text: str) -> str:
    return " ".join(text.split())


def _ready(name: str) -> Peer:
    peer = METHODS.create(name)
    ok, reason = peer.available()
    if not ok:
        pytest.skip(reason)
    return peer


@pytest.fixture
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a peer tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.mark.parametrize("name", NEW)
@pytest.mark.parametrize("url", [None, "https://news.example.org/2020/otters"])
def test_new_peer_gives_the_article_words_without_the_network(name, url, no_network):
    peer = _ready(name)
    text = _flat(peer.extract(_page(url)).text)
    assert SENTENCE in text and "protect the banks" in text
    if name in ARTICLE_ONLY:
        assert "All rights reserved" not in text and "Home | News" not in text
    else:  # the whole page: no main-content detection
        assert "Home | News" in text and "All rights reserved" in text


@pytest.mark.parametrize("name", NEW)
def test_new_peers_are_peers_with_versions_and_a_clear_missing_error(name, monkeypatch):
    import sys
    from importlib import metadata

    cls = METHODS.get(name)
    assert issubclass(cls, Peer) and cls.name == name
    peer = cls()
    try:
        expected = metadata.version(cls.package)
    except metadata.PackageNotFoundError:
        expected = "not installed"
    assert peer.versions() == {cls.package: expected}
    # a None entry in sys.modules makes `import x` raise ImportError, as if not installed
    for mod in [m for m in sys.modules if m == cls.module or m.startswith(cls.module + ".")]:
        monkeypatch.setitem(sys.modules, mod, None)
    monkeypatch.setitem(sys.modules, cls.module, None)
    ok, reason = peer.available()
    assert not ok and cls.package in reason and "pip install" in reason
    with pytest.raises(PeerUnavailable) as info:
        peer.extract(_page())
    assert info.value.peer == name and info.value.package == cls.package


def test_chromerag_markdown_and_priority(no_network):
    _ready("chromerag")
    plain = METHODS.create("chromerag").extract(_page())
    assert plain.markdown is None
    made = METHODS.create("chromerag", markdown=True).extract(_page())
    assert made.text == plain.text
    assert made.markdown.startswith("# River otters return to the valley")
    assert "---" not in made.markdown.splitlines()[0]  # no YAML front-matter
    assert SENTENCE in _flat(made.markdown)
    assert SENTENCE in _flat(METHODS.create("chromerag", priority="coverage").extract(_page()).text)
    with pytest.raises(ParamError, match="priority"):
        METHODS.create("chromerag", priority="high")
    with pytest.raises(ParamError, match="markdown"):
        METHODS.create("chromerag", markdown="yes")


def test_trained_on_is_declared_and_read():
    chromerag = METHODS.get("chromerag")
    assert chromerag.trained_on == ("wcxb_dev",)
    assert trained_on(chromerag) == trained_on(chromerag()) == ("wcxb_dev",)
    assert trained_on(METHODS.get("vwrapper")) == ("l3s_gn1", "wceb_l3s_gn1")
    assert "l3s_gn1" in trained_on(METHODS.get("target_entities"))
    for name in ("inscriptis", "newspaper4k", "trafilatura", "fulltext"):
        assert trained_on(METHODS.get(name)) == ()
    assert BaseMethod.trained_on == ()

    class Mine(Extractor):  # a user's method declares its own
        name = "mine"
        trained_on = ("wcxb_dev", "aeb", "wcxb_dev")

    assert trained_on(Mine()) == ("wcxb_dev", "aeb")

    def tuned(html):
        return html

    tuned.trained_on = ["aeb"]
    assert trained_on(FunctionExtractor(tuned)) == ("aeb",)
    assert trained_on(FunctionExtractor(len)) == ()

    class Wrong(Extractor):
        name = "wrong"
        trained_on = "wcxb_dev"  # a bare string is not a list of names

    with pytest.raises(TypeError, match="'wrong'.*tuple of data set names"):
        trained_on(Wrong)


class _Recorder:
    """Stands for the trafilatura module: records each ``extract`` call."""

    def __init__(self, signature_has_fast: bool = True):
        self.calls: list[tuple[tuple, dict]] = []
        self.extract = self._extract if signature_has_fast else self._extract_1x

    def _extract(self, filecontent, url=None, fast=False, no_fallback=False, **kwargs):
        self.calls.append(((filecontent,), {"url": url, **kwargs, **_set(fast, no_fallback)}))
        return "text"

    def _extract_1x(self, filecontent, url=None, no_fallback=False, **kwargs):
        self.calls.append(((filecontent,), {"url": url, **kwargs, **_set(None, no_fallback)}))
        return "text"


def _set(fast, no_fallback) -> dict:
    out = {}
    if fast:
        out["fast"] = fast
    if no_fallback:
        out["no_fallback"] = no_fallback
    return out


def _traf_calls(monkeypatch, recorder, **params):
    peer = METHODS.create("trafilatura", **params)
    monkeypatch.setattr(type(peer), "_import", lambda self: recorder)
    peer.extract(_page("https://example.org/a"))
    return recorder.calls


def test_trafilatura_default_call_is_unchanged(monkeypatch):
    class Exact:  # no default arguments: every keyword the peer passes is recorded as given
        def __init__(self):
            self.calls: list = []

        def extract(self, *args, **kwargs):
            self.calls.append((args, kwargs))
            return "text"

    rec = Exact()
    peer = METHODS.create("trafilatura")
    monkeypatch.setattr(type(peer), "_import", lambda self: rec)
    peer.extract(_page("https://example.org/a"))
    html = rec.calls[0][0][0]
    assert "River otters" in html
    # the call of the releases before the modes, keyword for keyword
    assert rec.calls == [
        (
            (html,),
            {
                "url": "https://example.org/a",
                "include_comments": True,
                "include_tables": True,
                "favor_precision": False,
                "favor_recall": False,
                "output_format": "txt",
            },
        )
    ]


def test_trafilatura_modes_reach_the_library(monkeypatch):
    calls = _traf_calls(monkeypatch, _Recorder(), favor_precision=True)
    assert calls[0][1]["favor_precision"] is True and calls[0][1]["favor_recall"] is False
    calls = _traf_calls(monkeypatch, _Recorder(), favor_recall=True, fast=True)
    assert calls[0][1]["favor_recall"] is True and calls[0][1]["fast"] is True
    assert "no_fallback" not in calls[0][1]
    # trafilatura 1.x has no `fast`: the same switch is no_fallback
    calls = _traf_calls(monkeypatch, _Recorder(signature_has_fast=False), fast=True)
    assert calls[0][1]["no_fallback"] is True and "fast" not in calls[0][1]
    # the Markdown call runs in the same mode
    calls = _traf_calls(monkeypatch, _Recorder(), favor_precision=True, markdown=True)
    assert [c[1]["output_format"] for c in calls] == ["txt", "markdown"]
    assert all(c[1]["favor_precision"] is True for c in calls)


def test_trafilatura_mode_validation():
    with pytest.raises(ParamError, match=r"favor_precision=true, favor_recall=true: .*not both"):
        METHODS.create("trafilatura", favor_precision=True, favor_recall=True)
    for key in ("favor_precision", "favor_recall", "fast"):
        with pytest.raises(ParamError, match=f"{key}=.*true or false"):
            METHODS.create("trafilatura", **{key: "yes"})
    peer = METHODS.create("trafilatura", fast=True, favor_precision=True)
    assert peer.get_params()["fast"] is True


def test_trafilatura_modes_on_the_library(no_network):
    peer = _ready("trafilatura")
    for params in ({"favor_precision": True}, {"favor_recall": True}, {"fast": True}):
        text = _flat(METHODS.create("trafilatura", **params).extract(_page()).text)
        assert SENTENCE in text, params
    assert peer.extract(_page()).text


def test_mode_configs_name_the_trafilatura_peer():
    from hydra import compose, initialize_config_dir

    from evalkit.harness.config import method_specs
    from evalkit.shell.cli import CONFIG_DIR

    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(
            config_name="config",
            overrides=["method=[trafilatura_precision,trafilatura_recall,trafilatura_fast]"],
        )
    specs = {s.label: s for s in method_specs(cfg.method)}
    assert set(specs) == {"trafilatura@precision", "trafilatura@recall", "trafilatura@fast"}
    assert {s.registry for s in specs.values()} == {"trafilatura"}
    assert specs["trafilatura@precision"].params["favor_precision"] is True
    assert specs["trafilatura@recall"].params["favor_recall"] is True
    assert specs["trafilatura@fast"].params["fast"] is True
    for spec in specs.values():
        spec.build()  # valid settings


def test_core_peer_is_reexported_by_baselines_peers():
    import baselines.metadata_peers as metadata_peers
    import baselines.peers as peers
    from evalkit.core import peer as core

    assert peers.Peer is core.Peer and peers.PeerUnavailable is core.PeerUnavailable
    assert peers.INSTALL_HINT == core.INSTALL_HINT == 'pip install "evalkit[peers]"'
    assert peers._quiet_logger is core.quiet_logger
    assert peers._html_for_library is core.html_for_library
    assert metadata_peers.PLACEHOLDER_URL == core.PLACEHOLDER_URL
    assert metadata_peers.INSTALL_HINT == core.INSTALL_HINT
    for name in peers.__all__:
        assert hasattr(peers, name)
    for cls in peers.PEERS.values():
        assert issubclass(cls, core.Peer)


def test_metadata_peer_error_keeps_its_form(monkeypatch):
    import sys

    from baselines.metadata_peers import MetadataPeerUnavailable, htmldate_date, versions

    monkeypatch.setitem(sys.modules, "htmldate", None)
    with pytest.raises(MetadataPeerUnavailable) as info:
        htmldate_date("<html></html>")
    msg = str(info.value)
    assert msg.startswith("metadata peer 'htmldate' needs the package 'htmldate', which is not")
    assert msg.endswith('install it with `pip install "evalkit[peers]"`')
    assert set(versions("htmldate")) == {"htmldate"}
