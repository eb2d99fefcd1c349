"""The renderer is offline by construction (docs/rendering.md#offline-by-construction): pages
that try every way out of a browser (frames, a meta refresh, images, link prefetch and
preconnect, style sheets, fetch(), a worker, WebSocket, EventSource, a beacon, WebRTC with a
STUN and a TURN server, an ``<a ping>`` clicked) are rendered with JavaScript on and off, every
address aimed at listeners of this test (TCP and UDP, on 127.0.0.1 and on this machine's
non-loopback address when it has one), which must see nothing at all."""

from __future__ import annotations

import selectors
import socket
import threading
import time
from html import escape
from urllib.parse import quote

import pytest

from evalkit.core.page import Gold, Page
from evalkit.core.rendered import RenderSettings
from evalkit.harness.render import browser_path, layout_for

needs_browser = pytest.mark.skipif(
    browser_path() is None,
    reason="Debian's chromium is not installed (apt-get install -y chromium fonts-dejavu-core)",
)

#: an HTTP answer, so that a request that did get out is seen whole and does not hang the page
ANSWER = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"


def _outward_address() -> str | None:
    """This machine's address on its route out (a UDP connect sends nothing), if any."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.254", 9))
            addr = s.getsockname()[0]
        except OSError:
            return None
    return None if addr.startswith("127.") or addr == "0.0.0.0" else addr


class Listener:
    """A TCP and a UDP socket on each address, read by one thread: ``seen`` gathers each
    connection (with the first line it sent) and each datagram."""

    def __init__(self, hosts: list[str]):
        self.seen: list[str] = []
        self.page = ""  # the page being rendered, named in what is seen
        self.ports: dict[str, tuple[int, int]] = {}
        self._sel = selectors.DefaultSelector()
        self._stop = threading.Event()
        for host in hosts:
            tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            tcp.bind((host, 0))
            tcp.listen(64)
            udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            udp.bind((host, 0))
            for s in (tcp, udp):
                s.setblocking(False)
                self._sel.register(s, selectors.EVENT_READ, host)
            self.ports[host] = (tcp.getsockname()[1], udp.getsockname()[1])
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            for key, _ in self._sel.select(timeout=0.1):
                s, host = key.fileobj, key.data
                if s.type == socket.SOCK_DGRAM:
                    data, _ = s.recvfrom(65536)
                    self.seen.append(f"{self.page}: udp {host}, {len(data)} bytes")
                    continue
                conn, _ = s.accept()
                threading.Thread(
                    target=self._answer, args=(conn, host, self.page), daemon=True
                ).start()

    def _answer(self, conn: socket.socket, host: str, page: str) -> None:
        """Read what a connection sends first (a preconnect sends nothing) and answer it."""
        conn.settimeout(1.0)
        try:
            first = conn.recv(4096).split(b"\r\n", 1)[0].decode("latin-1")
            conn.sendall(ANSWER)
        except OSError:
            first = "(nothing sent)"
        finally:
            conn.close()
        self.seen.append(f"{page}: tcp {host} {first!r}")

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        for key in list(self._sel.get_map().values()):
            key.fileobj.close()
        self._sel.close()


@pytest.fixture
def listener():
    hosts = ["127.0.0.1"] + [a for a in [_outward_address()] if a]
    lis = Listener(hosts)
    yield lis
    lis.close()


def _attacks(lis: Listener) -> dict[str, str]:
    """One page per way out, each aimed at every listener (and at ``localhost``)."""
    targets = [(h, *lis.ports[h]) for h in lis.ports]
    targets.append(("localhost", *lis.ports["127.0.0.1"]))
    pages: dict[str, str] = {}
    html, js = "", ""
    for host, tcp, udp in targets:
        base = f"http://{host}:{tcp}"
        html += (
            f"<iframe src='{base}/iframe'></iframe><img src='{base}/img.png'>"
            f"<link rel=prefetch href='{base}/prefetch'>"
            f"<link rel=preconnect href='{base}/'><link rel=dns-prefetch href='{base}/'>"
            f"<link rel=preload as=image href='{base}/preload.png'>"
            f"<link rel=stylesheet href='{base}/style.css'>"
            f"<style>@import url('{base}/import.css'); body{{background:url('{base}/bg.png')}}"
            f"</style><object data='{base}/object'></object>"
            f"<video poster='{base}/poster.png' src='{base}/video.mp4'></video>"
            f"<script src='{base}/script.js'></script>"
            f"<a ping='{base}/ping' href='{base}/link' class=ping>link</a>"
        )
        js += (
            f"try {{ fetch('{base}/fetch').catch(() => 0); }} catch (e) {{}}"
            f"try {{ new WebSocket('ws://{host}:{tcp}/ws'); }} catch (e) {{}}"
            f"try {{ new EventSource('{base}/events'); }} catch (e) {{}}"
            f"try {{ navigator.sendBeacon('{base}/beacon', 'x'); }} catch (e) {{}}"
            f"try {{ new Worker(URL.createObjectURL(new Blob(["
            f"\"fetch('{base}/worker').catch(() => 0)\"]))); }} catch (e) {{}}"
            f"try {{ const pc = new RTCPeerConnection({{iceServers: ["
            f"{{urls: 'stun:{host}:{udp}'}},"
            f"{{urls: 'turn:{host}:{tcp}?transport=tcp', username: 'u', credential: 'c'}}]}});"
            f" pc.createDataChannel('d');"
            f" pc.createOffer().then(o => pc.setLocalDescription(o)); }} catch (e) {{}}"
        )
        # a meta refresh and the page's own address: one per page
        pages[f"refresh {host}"] = (
            f"<meta http-equiv=refresh content='0;url={base}/refresh'><p>stay</p>"
        )
    pages["elements"] = html + "<p>stay</p>"
    # the same scripts in frames of another origin (a sandboxed frame may get a process of
    # its own, beyond the page's own request interception), whatever the page's JavaScript
    frame = escape(f"<script>{js}</script>", quote=True)
    pages["frames"] = (
        f'<p>stay</p><iframe sandbox=allow-scripts srcdoc="{frame}"></iframe>'
        f'<iframe src="data:text/html,{quote(f"<script>{js}</script>")}"></iframe>'
    )
    # the scripts start everything, click the pinging links, then give it half a second
    # before the load event (a busy wait: the network runs in another process)
    pages["scripts"] = (
        "<p>stay</p><script>"
        + js
        + "document.querySelectorAll('a.ping').forEach(a => a.click());"
        + "const t0 = Date.now(); while (Date.now() - t0 < 500) {}</script>"
    )
    return pages


@needs_browser
@pytest.mark.parametrize("javascript", [False, True], ids=["js-off", "js-on"])
def test_no_page_reaches_a_listener_on_this_machine(listener, javascript):
    port = listener.ports["127.0.0.1"][0]
    pages = _attacks(listener)
    for n, (name, html) in enumerate(pages.items()):
        # the page's own URL at the listener too: it is answered by the renderer, not fetched
        url = f"http://127.0.0.1:{port}/page{n}" if n % 2 else f"http://s{n}.example.com/"
        listener.page = name
        page = Page(
            id=f"{name}-{javascript}",
            dataset="hand",
            raw=html.encode(),
            gold=Gold(text=""),
            url=url,
        )
        lay, _ = layout_for(page, RenderSettings(javascript=javascript, timeout=20), None)
        assert any(e.tag == "p" and e.visible for e in lay.elements), name
    listener.page = "after the pages"
    time.sleep(1.5)  # late attempts (a retried STUN binding, a delayed connect)
    assert listener.seen == [], f"{len(listener.seen)} attempts got out: {listener.seen}"
