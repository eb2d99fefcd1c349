"""The headless browser process and its DevTools connection (docs/rendering.md).

Debian's ``chromium`` (:data:`BROWSER_PACKAGE`) is started here with its DevTools endpoint and
driven over one WebSocket with the ``websocket-client`` library: no browser is downloaded,
every message has a deadline, and the process is ours to kill (it dies with the process that
started it). What a page is and how it is laid out is :mod:`evalkit.harness.render`'s.

The browser is offline by construction (docs/rendering.md#offline-by-construction): its
network stack has no way out whatever a page does (:func:`offline_args`): every connection
goes to a proxy on a local port that is bound and never listens, loopback included; no host
name resolves; WebRTC may send no UDP that does not go through that proxy; hyperlink pings
are off. Per page, :mod:`evalkit.harness.render` adds the DevTools layer: every request of
the page, its frames and its workers is intercepted and failed, but the page itself.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from typing import Any

from evalkit.harness.children import keep
from evalkit.harness.fonts import FONTS_PACKAGE, FontsMissing, write_config

__all__ = [
    "BROWSER_PACKAGE",
    "Browser",
    "RenderError",
    "browser_path",
    "browser_version",
    "missing_browser_line",
    "offline_args",
]

#: the Debian package that gives the browser, and where it puts it
BROWSER_PACKAGE = "chromium"
BROWSER_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
#: seconds a browser may take to start and print its DevTools endpoint
START_SECONDS = 30.0
#: switches of the headless browser: no sandbox (root in containers), no GPU, no background
#: traffic, scroll bars hidden (they would take width from the viewport), scale 1
BROWSER_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-extensions",
    "--disable-sync",
    "--disable-default-apps",
    "--mute-audio",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
    "--font-render-hinting=none",
    "--disable-dev-shm-usage",
    "--disable-features=HttpsUpgrades",
    "--remote-debugging-port=0",
)


def offline_args(proxy_port: int) -> tuple[str, ...]:
    """The switches that leave the browser's network stack no way out (issue 37): every
    connection (HTTP, WebSocket, a preconnect, WebRTC's TCP) goes through a proxy at
    ``127.0.0.1:proxy_port``, a port this process holds bound and never listens on, so it is
    refused; ``<-loopback>`` sends loopback through it too (Chrome bypasses the proxy for
    localhost by default); no host name resolves; WebRTC sends no UDP (STUN, media) outside
    the proxy; ``<a ping>`` pings nothing, and the domain reliability reports and component
    updates a browser sends of its own are off."""
    return (
        f"--proxy-server=http://127.0.0.1:{proxy_port}",
        "--proxy-bypass-list=<-loopback>",
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--webrtc-ip-handling-policy=disable_non_proxied_udp",
        "--no-pings",
        "--disable-domain-reliability",
        "--disable-component-update",
    )


class RenderError(RuntimeError):
    """A page the browser could not lay out (timeout, crash, refused page): its reason."""


def browser_path() -> str | None:
    """The browser executable, or None when the package is not installed."""
    for path in (os.environ.get("EVALKIT_CHROMIUM"), *BROWSER_PATHS):
        if path and os.access(path, os.X_OK):
            return path
    return shutil.which(BROWSER_PACKAGE)


def missing_browser_line() -> str:
    """The one line a method that needs a layout fails with where no browser is installed."""
    return (
        f"no headless browser: this method needs a rendered page; install Debian's "
        f"{BROWSER_PACKAGE} and {FONTS_PACKAGE} (apt-get install -y {BROWSER_PACKAGE} "
        f"{FONTS_PACKAGE})"
    )


def browser_version() -> str:
    """The browser's version as ``chromium --version`` prints it ('' when none), for cache keys
    before any browser is started."""
    path = browser_path()
    if path is None:
        return ""
    return _version_of(path)


_VERSIONS: dict[str, str] = {}


def _version_of(path: str) -> str:
    if path not in _VERSIONS:
        try:
            out = (
                subprocess.run(
                    [path, "--version"], capture_output=True, timeout=START_SECONDS, check=False
                )
                .stdout.decode("utf-8", "replace")
                .strip()
            )
        except (OSError, subprocess.TimeoutExpired):
            out = ""
        _VERSIONS[path] = out
    return _VERSIONS[path]


def _parent_death_hook():
    """A function for ``preexec_fn``: in the browser's process before it starts, Linux is
    asked to kill it when the process that started it dies (a page worker killed on a
    timeout leaves no browser behind). libc is loaded here, in the parent, so the child
    only calls into C (no import, no lock); None where there is no prctl."""
    try:
        import ctypes
        import signal

        prctl = ctypes.CDLL("libc.so.6", use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux: atexit and kill() are all there is
        return None
    return lambda: prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


#: prctl(2) option: the signal a process gets when its parent dies
PR_SET_PDEATHSIG = 1


def _closed_port() -> socket.socket:
    """A TCP socket bound to a free loopback port and never listening: a connection to it is
    refused, and no other program can take the port while the socket is held."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    return sock


class Browser:
    """One headless browser, started on demand (:meth:`ensure`), and its DevTools connection:
    commands with a deadline (:meth:`send`), events handed to the caller meanwhile."""

    def __init__(self, executable: str | None = None):
        self.executable = executable or browser_path()
        self.proc: subprocess.Popen | None = None
        self.ws = None
        self.profile: str | None = None
        self.proxy: socket.socket | None = None
        self.version = ""
        self._id = 0
        self.restarts = 0

    # -- the browser process -------------------------------------------------------------
    def start(self) -> None:
        import websocket  # websocket-client: the one WebSocket the DevTools protocol needs

        if self.executable is None:
            raise RenderError(missing_browser_line())
        self.profile = tempfile.mkdtemp(prefix="evalkit-chromium-")
        try:  # the fonts of every layout: DejaVu only, whatever else is installed (fonts.py)
            env = {**os.environ, "FONTCONFIG_FILE": str(write_config(self.profile))}
        except FontsMissing as exc:
            self.kill()
            raise RenderError(str(exc)) from None
        self.proxy = _closed_port()  # held as long as the browser runs
        offline = offline_args(self.proxy.getsockname()[1])
        self.proc = subprocess.Popen(
            [
                self.executable,
                *BROWSER_ARGS,
                *offline,
                f"--user-data-dir={self.profile}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
            preexec_fn=_parent_death_hook(),  # noqa: PLW1509 - prctl only, before exec
        )
        keep(self.proc.pid)  # this process's browser: no method's child (evalkit.harness.children)
        deadline = time.monotonic() + START_SECONDS
        endpoint = None
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline().decode("utf-8", "replace")
            if not line and self.proc.poll() is not None:
                break
            if "DevTools listening on " in line:
                endpoint = line.split("DevTools listening on ", 1)[1].strip()
                break
        if endpoint is None:
            self.kill()
            raise RenderError(f"{self.executable} did not start (no DevTools endpoint)")
        # no Origin header: Chromium 111+ refuses a DevTools WebSocket whose Origin it was not
        # told to allow (--remote-allow-origins), and allowing one would open the port to
        # pages; a client without an Origin is no page
        self.ws = websocket.create_connection(
            endpoint, timeout=START_SECONDS, enable_multithread=False, suppress_origin=True
        )
        self.version = self.send("Browser.getVersion", {}, time.monotonic() + START_SECONDS)[
            "product"
        ]

    def kill(self) -> None:
        if self.ws is not None:
            try:
                self.ws.close()
            except Exception:  # noqa: BLE001, S110 - the socket of a dead browser
                pass
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            if self.proc.stderr is not None:
                self.proc.stderr.close()
        if self.profile:
            shutil.rmtree(self.profile, ignore_errors=True)
        if self.proxy is not None:
            self.proxy.close()
        self.proc = self.ws = self.profile = self.proxy = None

    def ensure(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            if self.proc is not None:  # it died between pages
                self.restarts += 1
                self.kill()
            self.start()

    # -- the DevTools protocol -----------------------------------------------------------
    def recv(self, deadline: float) -> dict[str, Any]:
        """The next message of the browser, RenderError past ``deadline``."""
        import websocket

        left = deadline - time.monotonic()
        if left <= 0:
            raise RenderError("timeout")
        self.ws.settimeout(left)
        try:
            return json.loads(self.ws.recv())
        except websocket.WebSocketTimeoutException:
            raise RenderError("timeout") from None
        except (websocket.WebSocketException, OSError) as exc:
            raise RenderError(f"browser connection lost: {type(exc).__name__}") from None

    def send(
        self,
        method: str,
        params: dict[str, Any],
        deadline: float,
        session: str | None = None,
        on_event=None,
    ) -> dict[str, Any]:
        """Send one command and wait for its answer; events meanwhile go to ``on_event``."""
        self._id += 1
        mine = self._id
        msg = {"id": mine, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        self.ws.send(json.dumps(msg))
        while True:
            answer = self.recv(deadline)
            if answer.get("id") == mine:
                if "error" in answer:
                    raise RenderError(f"{method}: {answer['error'].get('message')}")
                return answer.get("result", {})
            if on_event is not None and "method" in answer:
                on_event(answer)

    def post(self, session: str, method: str, params: dict[str, Any]) -> None:
        """Send one command without waiting: its answer (an id nobody waits for) is skipped
        by :meth:`send`."""
        self._id += 1
        self.ws.send(
            json.dumps({"id": self._id, "method": method, "params": params, "sessionId": session})
        )
