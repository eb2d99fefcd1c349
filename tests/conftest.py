"""Shared fixtures: where the real data sets live, and skipping when they are absent."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalkit.core.layout import default_shared_data

REPO = Path(__file__).resolve().parents[1]
#: the shared data sets: $EVALKIT_SHARED_DATA, else ../shared/datasets (evalkit.core.layout, as a run)
SHARED = default_shared_data()


def shared_dataset(name: str) -> Path:
    """Path of one shared data set, or skip the test with the reason."""
    path = SHARED / name
    if not path.is_dir():
        pytest.skip(f"real data set {name!r} not found at {path} (set EVALKIT_SHARED_DATA)")
    return path


@pytest.fixture
def shared_root() -> Path:
    """The folder that holds the shared data sets (it may be absent)."""
    return SHARED


@pytest.fixture
def shared():
    """Callable fixture: ``shared("l3s-gn1")`` -> Path, or skip when absent."""
    return shared_dataset


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden_outputs.json from the current code "
                          "(tests/test_golden_outputs.py)")
