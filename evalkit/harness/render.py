"""The rendering layer: pages laid out by a headless Chromium, offline, cached (docs/rendering.md).

A method that needs a layout says so (``needs_layout = True`` on its class, and a ``render``
parameter: :class:`evalkit.core.rendered.RenderSettings`); the page pipeline then calls
:func:`layout_for` before handing the page over, and the method finds the
:class:`~evalkit.core.rendered.Layout` in ``page.layouts`` under :func:`settings_id`.

The browser process and its DevTools connection are :mod:`evalkit.harness.browser`'s (offline
switches included). For each page:

* every request of the tab, its frames and workers goes through ``Fetch`` (:func:`guard`):
  the page's own URL is answered with the page's HTML (evalkit's decoded text, as UTF-8
  bytes), every other request fails (docs/rendering.md#offline-by-construction);
* JavaScript is off unless ``render.javascript=true``; the window is ``render.viewport``;
* each page gets a tab in a browser context of its own, as in a browser that never loaded
  another page, and its Web Animations (a ``<marquee>``'s scrolling) are held at their start;
* after the load event CSS transitions and animations are ended (:data:`SETTLED_CSS`), the
  browser draws one frame, then one ``DOMSnapshot.captureSnapshot`` gives every node's box
  and computed styles (:data:`evalkit.core.rendered.SNAPSHOT_STYLES`).

Two renders of the same page give the same layout (docs/rendering.md#reproducibility), but
for the position of an empty box, which nothing reads.

One browser per process (:class:`Renderer`), started on first use. A page that takes longer
than ``render.timeout`` from navigation to snapshot, or a browser that dies, is a
:class:`RenderError`: the browser is killed and the next page starts a fresh one.

Layouts are cached as checksummed JSON (:class:`LayoutCache`, beside the extraction cache
under ``<paths.cache>/layouts``), keyed by the HTML bytes and URL, the browser version, the
fonts (only ``fonts-dejavu-core``: :mod:`evalkit.harness.fonts`), and every render setting
(:func:`layout_key`).
"""

from __future__ import annotations

import atexit
import base64
import functools
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from evalkit.core import rendered
from evalkit.core.page import Page, parse_html
from evalkit.core.rendered import (
    LAYOUT_VERSION,
    SNAPSHOT_STYLES,
    Layout,
    RenderSettings,
    layout_from_snapshot,
)
from evalkit.harness import browser, fonts
from evalkit.harness.browser import (
    BROWSER_PACKAGE,
    Browser,
    RenderError,
    browser_path,
    browser_version,
    missing_browser_line,
)
from evalkit.harness.cache import write_atomic
from evalkit.harness.cache_entry import InvalidEntry, _canonical
from evalkit.harness.cache_seal import cache_seal
from evalkit.harness.fonts import FONTS_PACKAGE
from evalkit.harness.fonts import fingerprint as fonts_fingerprint

__all__ = [
    "BROWSER_PACKAGE",
    "FALLBACK_URL",
    "FONTS_PACKAGE",
    "LayoutCache",
    "RenderError",
    "Renderer",
    "browser_path",
    "browser_version",
    "fonts_fingerprint",
    "layout_for",
    "layout_key",
    "missing_browser_line",
    "settings_id",
]

#: the URL a page without an http(s) URL is loaded under
FALLBACK_URL = "http://page.evalkit.invalid/"
FORMAT = "evalkit.layout"
#: the style added to every page after its load: a CSS transition or animation starts when
#: the browser happens to compute a style before the page's last style arrives (a parser
#: pause), so whether one ran, and where it is, depends on timing (a list 8,040 or 8,000 px
#: wide on two loads of one aeb page, its ``transition: all 0.3s`` held at its start or never
#: started). Without them every element has its settled style. An adopted style sheet: no
#: element is added to the page
SETTLED_CSS = "*, *::before, *::after { transition: none !important; animation: none !important; }"
#: adds SETTLED_CSS (DevTools' Runtime.evaluate runs when the page's own scripts are off)
SETTLE_SCRIPT = (
    "(() => { const sheet = new CSSStyleSheet(); sheet.replaceSync("
    + json.dumps(SETTLED_CSS)
    + "); document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet]; })()"
)
#: the screenshot that makes the browser draw a frame before the snapshot: one pixel, since
#: only the frame is wanted
FRAME_CLIP = {"x": 0, "y": 0, "width": 1, "height": 1, "scale": 1}
#: the schemes of requests DevTools' Fetch does not see (a WebSocket's handshake), blocked
BLOCKED_URLS = ["ws://*", "wss://*"]


def guard(javascript: bool) -> list[tuple[str, dict[str, Any]]]:
    """The DevTools commands that keep one target (the tab, or a frame or worker attached to
    it) offline: every request paused (and failed, but the page itself), WebSocket
    handshakes blocked, every frame or worker it starts attached paused (and guarded in
    turn), and with ``javascript`` false its scripts off, as the page's (a frame of another
    origin runs in a process of its own, beyond the tab's own setting)."""
    return [
        ("Fetch.enable", {"patterns": [{"urlPattern": "*"}]}),
        ("Network.setBlockedURLs", {"urls": BLOCKED_URLS}),
        (
            "Target.setAutoAttach",
            {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True},
        ),
        *([] if javascript else [("Emulation.setScriptExecutionDisabled", {"value": True})]),
    ]


def settings_id(settings: RenderSettings) -> str:
    """The name a layout has in ``page.layouts``: its settings, canonically."""
    return settings.key()


def page_url(page: Page) -> str:
    url = page.url or ""
    return url if url.startswith(("http://", "https://")) else FALLBACK_URL


def page_body(page: Page) -> bytes:
    """The bytes the browser is given: evalkit's decoded text of the page in UTF-8 (the
    response says so), so the browser and lxml read the same characters."""
    return page.html.encode("utf-8", "replace")


def layout_key(body: bytes, url: str, settings: RenderSettings, browser: str, fonts: str) -> str:
    blob = json.dumps(
        {
            "body": hashlib.sha256(body).hexdigest(),
            "url": url,
            "settings": settings.as_dict(),
            "browser": browser,
            "fonts": fonts,
            "layout": LAYOUT_VERSION,
            "styles": SNAPSHOT_STYLES,
            "code": _code_digest(),
        },
        sort_keys=True,
    )
    return hashlib.sha256(blob.encode()).hexdigest()


@functools.cache
def _code_digest() -> str:
    """sha256 of the code that turns a snapshot into a layout and drives the browser: an
    edit of either renders again."""
    h = hashlib.sha256()
    for module in (rendered, fonts, browser, sys.modules[__name__]):
        h.update(Path(module.__file__).read_bytes())
    return h.hexdigest()[:16]


class LayoutCache:
    """Layouts as checksummed JSON entries under ``root`` (the extraction cache's scheme:
    :func:`evalkit.harness.cache.write_atomic`, canonical sha256 of the payload, its HMAC
    under the key of the cache ``root`` is in); an entry that does not validate is a miss, counted in ``invalid``."""

    def __init__(self, root: str | os.PathLike | None):
        self.root = Path(root) if root else None
        self.invalid = 0

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> Layout | None:
        if self.root is None:
            return None
        try:
            data = self._path(key).read_bytes()
        except FileNotFoundError:
            return None
        except OSError:
            self.invalid += 1
            return None
        try:
            entry = json.loads(data)
            digest = hashlib.sha256(_canonical(entry["payload"])).hexdigest()
            if (
                entry.get("format") != FORMAT
                or entry.get("key") != key
                or digest != entry.get("sha256")
                or not cache_seal(self.root.parent).verify(FORMAT, key, digest, entry.get("mac"))
            ):
                raise InvalidEntry("not this key's layout")
            return Layout.from_dict(entry["payload"])
        except (ValueError, KeyError, TypeError, AttributeError):
            self.invalid += 1
            return None

    def keys(self) -> list[str]:
        """The keys of the entries under ``root``, sorted."""
        if self.root is None or not self.root.is_dir():
            return []
        return sorted(p.stem for p in self.root.glob("??/*.json"))

    def put(self, key: str, layout: Layout) -> None:
        if self.root is None:
            return
        payload = layout.to_dict()
        digest = hashlib.sha256(_canonical(payload)).hexdigest()
        entry = {
            "format": FORMAT,
            "key": key,
            "sha256": digest,
            "payload": payload,
            "mac": cache_seal(self.root.parent).sign(FORMAT, key, digest),
        }
        write_atomic(self._path(key), json.dumps(entry, separators=(",", ":")).encode())


class Renderer(Browser):
    """One headless browser of this process (:class:`~evalkit.harness.browser.Browser`) that
    lays pages out, started on first use, killed and started again after a page fails
    (:class:`RenderError`)."""

    # -- one page ------------------------------------------------------------------------
    def snapshot(self, body: bytes, url: str, settings: RenderSettings) -> dict[str, Any]:
        """The ``DOMSnapshot.captureSnapshot`` of ``body`` loaded as ``url``; RenderError
        (and a killed browser) on a timeout or a crash.

        Each page is loaded in a tab of a browser context of its own (:meth:`open_tab`), as
        if in a browser that had never loaded anything: nothing of what it loaded before
        (history, a late request, a refresh) reaches the page. Web Animations (and so a
        ``<marquee>``) are held at their start, and one frame is drawn before the snapshot,
        since a marquee starts on the first frame; CSS transitions and animations are ended
        (:data:`SETTLED_CSS`). With one tab for every page and nothing of this, 12 of 621
        L3S-GN1 layouts differed between two renders (docs/rendering.md#reproducibility)."""
        self.ensure()
        deadline = time.monotonic() + settings.timeout
        try:
            context, target, session = self.open_tab(settings, deadline)
            snap = self._load_and_capture(session, target, body, url, deadline)
            # (after a failure the browser is killed, contexts and all)
            self.send("Target.disposeBrowserContext", {"browserContextId": context}, deadline)
            return snap
        except RenderError:
            self.kill()  # a page stuck in a script or a dead browser: start afresh
            self.restarts += 1
            raise

    def open_tab(self, settings: RenderSettings, deadline: float) -> tuple[str, str, str]:
        """(context id, target id, session id) of a new tab in a new browser context, with
        every request intercepted, animations held, and ``settings``' JavaScript and
        viewport."""
        context = self.send("Target.createBrowserContext", {"disposeOnDetach": True}, deadline)[
            "browserContextId"
        ]
        target = self.send(
            "Target.createTarget", {"url": "about:blank", "browserContextId": context}, deadline
        )["targetId"]
        session = self.send(
            "Target.attachToTarget", {"targetId": target, "flatten": True}, deadline
        )["sessionId"]
        w, h = settings.viewport
        self._kids: set[str] = set()
        self._kid_setup = guard(settings.javascript)
        quiet = self._offline(session, target, None)
        for method, params in (
            ("Page.enable", {}),
            ("Page.setLifecycleEventsEnabled", {"enabled": True}),
            *guard(True),
            ("Animation.enable", {}),
            ("Animation.setPlaybackRate", {"playbackRate": 0}),
            ("Emulation.setScriptExecutionDisabled", {"value": not settings.javascript}),
            (
                "Emulation.setDeviceMetricsOverride",
                {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": False},
            ),
        ):
            self.send(method, params, deadline, session, quiet)
        return context, target, session

    def _offline(self, session: str, target: str, body: bytes | None):
        """The event handler of one load: the first document request of the tab's own frame
        is answered with ``body`` (None: nothing is answered), every other request of the
        tab, its frames and its workers fails, so nothing leaves the machine;
        ``handler.loads`` gathers the loader ids whose load event has fired. A frame or
        worker with a target of its own (another origin's frame, in a process of its own)
        is attached paused, gets :func:`guard` and runs only then."""
        state = {"main": body is None}
        kids = self._kids

        def on_event(ev):
            sid = ev.get("sessionId")
            if sid != session and sid not in kids:
                return
            name, params = ev["method"], ev.get("params", {})
            if name == "Target.attachedToTarget":
                kid = params["sessionId"]
                kids.add(kid)
                for method, args in self._kid_setup:
                    self.post(kid, method, args)
                self.post(kid, "Runtime.runIfWaitingForDebugger", {})
            elif name == "Fetch.requestPaused":
                rid = params["requestId"]
                own = (
                    sid == session
                    and params.get("resourceType") == "Document"
                    and params.get("frameId") == target
                )
                if own and not state["main"]:
                    # the navigation to the page (Chrome may have normalised its URL)
                    state["main"] = True
                    self.post(
                        session,
                        "Fetch.fulfillRequest",
                        {
                            "requestId": rid,
                            "responseCode": 200,
                            "responseHeaders": [
                                {"name": "Content-Type", "value": "text/html; charset=utf-8"}
                            ],
                            "body": base64.b64encode(body).decode("ascii"),
                        },
                    )
                else:  # offline: nothing but the page itself is ever answered
                    # A later navigation of the tab itself (a meta refresh, a script's
                    # location change) is aborted, which leaves the page in place: blocked, it
                    # would put an error page in the tab, and a snapshot taken after that came
                    # out empty (tests/test_render.py's meta-refresh test)
                    self.post(
                        sid,
                        "Fetch.failRequest",
                        {"requestId": rid, "errorReason": "Aborted" if own else "BlockedByClient"},
                    )
            elif name == "Page.lifecycleEvent" and params.get("name") == "load":
                on_event.loads.add(params.get("loaderId"))

        on_event.loads = set()
        return on_event

    def _navigate(self, session: str, url: str, deadline: float, on_event) -> None:
        """Load ``url`` in the tab and wait for the load event of that navigation (the
        lifecycle event of its loader: a late event of the page before cannot pass for it)."""
        loader = self.send("Page.navigate", {"url": url}, deadline, session, on_event).get(
            "loaderId"
        )
        if loader is None:
            raise RenderError(f"Page.navigate: no document loaded for {url[:80]}")
        while loader not in on_event.loads:
            ev = self.recv(deadline)
            if "method" in ev:
                on_event(ev)

    def _load_and_capture(self, session, target, body, url, deadline) -> dict[str, Any]:
        on_event = self._offline(session, target, body)
        self._navigate(session, url, deadline, on_event)
        # CSS transitions end and CSS animations go (SETTLED_CSS), whenever they started
        self.send("Runtime.evaluate", {"expression": SETTLE_SCRIPT}, deadline, session, on_event)
        # one frame drawn before the snapshot: what starts on the first frame (a marquee's
        # scrolling, held at its start by the playback rate 0) has then always started
        self.send(
            "Page.captureScreenshot",
            {"format": "jpeg", "quality": 1, "clip": FRAME_CLIP},
            deadline,
            session,
            on_event,
        )
        return self.send(
            "DOMSnapshot.captureSnapshot",
            {"computedStyles": list(SNAPSHOT_STYLES)},
            deadline,
            session,
            on_event,
        )

    def layout(self, page: Page, settings: RenderSettings) -> Layout:
        """The page's :class:`Layout`, its elements mapped onto evalkit's lxml tree."""
        url = page_url(page)
        snap = self.snapshot(page_body(page), url, settings)
        try:
            root = parse_html(page.html, page.source or page.id)
        except ValueError:
            root = None  # a page lxml cannot parse: every element is unmapped
        return layout_from_snapshot(
            snap, url=url, viewport=settings.viewport, browser=self.version, lxml_root=root
        )


_RENDERER: Renderer | None = None


def renderer() -> Renderer:
    """This process's browser (one per worker process)."""
    global _RENDERER
    if _RENDERER is None:
        _RENDERER = Renderer()
        atexit.register(_RENDERER.kill)
    return _RENDERER


def layout_for(
    page: Page, settings: RenderSettings, cache_root: str | os.PathLike | None
) -> tuple[Layout, bool]:
    """The page's layout under ``settings`` and whether it came from the cache
    (``<cache_root>/layouts``); RenderError when it cannot be rendered."""
    if browser_path() is None:
        raise RenderError(missing_browser_line())
    cache = LayoutCache(Path(cache_root) / "layouts" if cache_root else None)
    key = layout_key(
        page_body(page), page_url(page), settings, browser_version(), fonts_fingerprint_cached()
    )
    found = cache.get(key)
    if found is not None:
        return found, True
    made = renderer().layout(page, settings)
    cache.put(key, made)
    return made, False


_FONTS: list[str] = []


def fonts_fingerprint_cached() -> str:
    if not _FONTS:
        _FONTS.append(fonts_fingerprint())
    return _FONTS[0]


#: the record key that carries how a page's layout was had ({"status": "rendered" | "cached" |
#: "failed", "browser", "seconds"}); popped by Runner.iter_records into its render counts
RENDER_MARK = "_render"
#: the start of the error of a method whose page could not be rendered
RENDER_FAILED = "render failed: "


def render_settings(spec) -> RenderSettings | None:
    """The render settings of a method spec whose method needs a layout (its
    ``needs_layout``, a class attribute or a property of its settings), None for any other
    method or one that cannot be built (it fails where it is built, naming the key)."""
    from evalkit.harness.registry import DETECTORS, METHODS

    try:
        if spec.origin == "registry":  # most methods never read a layout: no build for them
            cls = (METHODS if spec.kind == "method" else DETECTORS).get(spec.registry)
            if not hasattr(cls, "needs_layout"):
                return None
        method = spec.build()
    except Exception:  # noqa: BLE001 - an unknown or misconfigured method fails elsewhere
        return None
    if not getattr(method, "needs_layout", False):
        return None
    try:
        return RenderSettings.from_params(getattr(method, "render", None))
    except (TypeError, ValueError):
        return None


def render_todo(page: Page, state, settings: list[RenderSettings | None], cache_root) -> None:
    """Lay ``page`` out once per render setting the methods of ``state.todo`` need and put
    the layouts in ``page.layouts``; a method whose page cannot be rendered gets a
    ``render failed: ...`` failure instead of the page (scored as ``runner.on_failure``)."""
    from evalkit.core.page import Extraction

    done: dict[str, dict[str, Any]] = {}
    for j in list(state.todo):
        if settings[j] is None:
            continue
        sid = settings_id(settings[j])
        first = sid not in done
        if first:
            t0 = time.perf_counter()
            try:
                made, hit = layout_for(page, settings[j], cache_root)
                page.layouts[sid] = made
                done[sid] = {"status": "cached" if hit else "rendered", "browser": made.browser}
            except RenderError as exc:
                done[sid] = {
                    "status": "failed",
                    "browser": renderer().version,
                    "error": f"{RENDER_FAILED}{exc}"[:500],
                }
            done[sid]["seconds"] = time.perf_counter() - t0
        mark = done[sid]
        if first:  # a layout shared by several methods is counted once
            state.render[j] = {k: v for k, v in mark.items() if k != "error"}
        if mark["status"] == "failed":
            state.todo.remove(j)
            state.exts[j] = Extraction(error=mark["error"])


def count_render(counts: dict[str, Any], mark: dict[str, Any] | None) -> None:
    """Add one record's :data:`RENDER_MARK` to a run's render counts (run.json ``render``:
    the browser, layouts rendered, from the cache, failed, and seconds spent rendering)."""
    if not mark:
        return
    if not counts:
        counts.update(
            {
                "browser": "",
                "fonts": FONTS_PACKAGE,
                "rendered": 0,
                "cached": 0,
                "failed": 0,
                "render_seconds": 0.0,
            }
        )
    counts[mark["status"]] += 1
    counts["render_seconds"] += float(mark.get("seconds", 0.0))
    if mark.get("browser") and not counts["browser"]:
        counts["browser"] = mark["browser"]


def render_record(specs) -> dict[str, Any]:
    """run.json's ``render`` record before any page: the browser and zero counts when a
    method of ``specs`` reads rendered pages, else empty."""
    if not any(render_settings(s) is not None for s in specs):
        return {}
    counts: dict[str, Any] = {}
    count_render(counts, {"status": "rendered", "browser": browser_version()})
    counts["rendered"] = 0
    counts["settings"] = sorted(
        {render_settings(s).key() for s in specs if render_settings(s) is not None}
    )
    return counts
