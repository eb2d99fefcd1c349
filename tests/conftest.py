"""Shared fixtures: where the real data sets live, and skipping when they are absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

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


# Hypothesis budgets: `ci`, the default, runs each property
# test on few examples, derandomized (the same ones every run); `nightly` runs 50 times as
# many, drawn afresh each night (.ci/nightly sets HYPOTHESIS_PROFILE=nightly). A test that sets
# its own max_examples scales it with fuzz.scaled. No example database: nothing is written.
settings.register_profile("ci", max_examples=100, derandomize=True, database=None, deadline=None)
settings.register_profile(
    "nightly",
    max_examples=50 * 100,
    derandomize=False,
    database=None,
    deadline=None,
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_collection_modifyitems(items):
    """Every Hypothesis test is a `property` test (`-m property` selects them all)."""
    for item in items:
        if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
            item.add_marker(pytest.mark.property)


def pytest_addoption(parser):
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite tests/golden_outputs.json from the current code "
        "(tests/test_golden_outputs.py)",
    )


def own_methods() -> dict[str, tuple[str, str, dict]]:
    """Every own method's config file (configs/method/*.yaml) as config name -> (label,
    registry name, parameters): the methods evalkit implements, derived from the registry and the config
    folder instead of a list copied into each test. Peers (a library's method), stored
    outputs and the gold/empty references are not own methods."""
    import yaml

    from evalkit.harness.registry import METHODS

    # peers: baselines/peers.py, metadata_peers.py and a module per newer peer (<name>_peer.py)
    foreign = {
        n for n in METHODS.names() if METHODS.module_of(n).endswith(("peers", "_peer", "stored"))
    }
    foreign |= {"gold", "empty"}
    out = {}
    for path in sorted((REPO / "configs" / "method").glob("*.yaml")):
        for label, body in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).items():
            body = dict(body or {})
            name = body.pop("_name_", label)
            if name in METHODS and name not in foreign:
                out[path.stem] = (label, name, without_interpolations(body))
    return out


def without_interpolations(value):
    """A config body without Hydra interpolations (``render: ${render}``): they name the run's
    settings, which a bare constructor takes as its defaults."""
    if isinstance(value, dict):
        return {
            k: without_interpolations(v)
            for k, v in value.items()
            if not (isinstance(v, str) and v.startswith("${") and v.endswith("}"))
        }
    return value


#: config name -> (label, registry name, parameters) of every own method
OWN = own_methods()


def extract_or_expected(method, page):
    """``method.extract(page)``, or None when it raised one of the failures its class
    documents (``Extractor.expected_failures``); any other exception propagates."""
    try:
        return method.extract(page)
    except getattr(method, "expected_failures", ()):
        return None


def hand_box(path: str, x, y, w, h, display: str = "block"):
    """An element box placed by hand (a test's layout without a browser): its tag from the
    last step of ``path``, visible when it has an area, the default font and colours."""
    from evalkit.core.rendered import ElementBox

    return ElementBox(
        path=path,
        tag=path.rsplit("/", 1)[-1].split("[")[0],
        x=x,
        y=y,
        width=w,
        height=h,
        visible=bool(w and h),
        display=display,
        font_size=16.0,
        font_weight=400,
        color="rgb(0, 0, 0)",
        background="",
        mapped=True,
    )
