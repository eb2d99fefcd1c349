"""Test-only methods for runner.page_timeout (tests/test_page_timeout.py).

A module of its own, not a test file, so the page worker process can import it: the
tests register ``stall_method:Stall`` in the method registry, and the worker builds
the class from that entry (evalkit.harness.page_worker).
"""

from __future__ import annotations

import os
import time

from evalkit.core.method import Extractor
from evalkit.core.page import Extraction, Page


class Stall(Extractor):
    """Returns the page's bytes as text, but never returns on a page containing ``stall_on``
    (sleeps in a loop: only killing the process ends it) and ends its own process on a
    page containing ``crash``."""

    def __init__(self, scope: str = "page", stall_on: str = "stall"):
        self.scope = scope
        self.stall_on = stall_on
        self.seen = 0  # pages seen: the "site memory" of scope=site

    def extract(self, page: Page) -> Extraction:
        if self.stall_on.encode() in page.raw:
            while True:
                time.sleep(1)
        if b"crash" in page.raw:
            os._exit(3)
        self.seen += 1
        return Extraction(text=page.raw.decode(), info={"seen": self.seen})


class SlowParsePage(Page):
    """A page whose parse never ends: stands for a page lxml parses for minutes (issue 37
    item 13, 100,000 attributes). Only the process parsing it can be killed."""

    def tree(self, plain: bool = False):
        while True:
            time.sleep(1)
