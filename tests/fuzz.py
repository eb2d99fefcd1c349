"""The Hypothesis budget of a test that sets its own ``max_examples`` (tests/conftest.py's
profiles): ``scaled(300)`` is 300 under the ``ci`` profile and 50 times that under ``nightly``."""

from __future__ import annotations

from hypothesis import settings


def scaled(n: int) -> int:
    """``n`` examples times the loaded profile's budget over the ``ci`` profile's."""
    return max(1, n * settings().max_examples // settings.get_profile("ci").max_examples)
