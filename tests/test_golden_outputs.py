"""Every own method gives, page for page, the outputs recorded in ``golden_outputs.json``.

A regression guard for work that must not change results (speed work above all):
the first 12 pages of each shared set and of the synthetic set, each own method
and the proposed method's ablations and site scope, hashed as text plus every
block record (floats rounded to 9 digits, so a last-bit difference of another
BLAS is no change). A change that is meant to alter outputs regenerates the file
with ``pytest tests/test_golden_outputs.py --update-golden`` and says why in
its commit. The hashes depend on the parser, so they are checked only under the
lxml and libxml2 versions they were recorded with (the test skips, saying so,
under others).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import lxml.etree
import pytest
from conftest import OWN
from hydra import compose, initialize_config_dir

from evalkit.harness.config import build_datasets, method_specs, register_resolvers
from evalkit.harness.extract import extract_one
from evalkit.harness.registry import METHODS
from evalkit.shell.cli import CONFIG_DIR

register_resolvers()

GOLDEN = Path(__file__).with_name("golden_outputs.json")
SETS = [
    "synthetic",
    "aeb",
    "big5_2017",
    "chaos",
    "cleaneval_dev",
    "cleanportaleval",
    "l3s_gn1",
    "readability",
]
#: every own method's config (derived from configs/method/ and the registry: tests/conftest.py)
METHOD_NAMES = list(OWN)
PAGES_PER_SET = 12


def _versions() -> dict[str, str]:
    return {
        "lxml": ".".join(map(str, lxml.etree.LXML_VERSION)),
        "libxml2": ".".join(map(str, lxml.etree.LIBXML_VERSION)),
    }


def _rounded(value):
    if isinstance(value, float):
        return round(value, 9)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_rounded(v) for v in value]
    return value


def _md5(record) -> str:
    return hashlib.md5(json.dumps(record, sort_keys=True, default=str).encode()).hexdigest()


def _digest(ext) -> str:
    """``text:<md5 of text and error> full:<md5 with the block records>``: a change of the
    records' encoding alone shows as a changed ``full`` beside an unchanged ``text``."""
    blocks = [b if isinstance(b, dict) else b.to_dict() for b in ext.blocks]
    # a failure's kind and message, without where in the file it was raised (extract_one
    # appends " at module.py:line", which moves with every edit above that line)
    error = None if ext.error is None else re.sub(r" at [\w.]+:\d+$", "", ext.error)
    text = _md5({"text": ext.text, "error": error})
    # an own method's Markdown and metadata, where it gives them (meta_tags: metadata only)
    more = {k: v for k in ("markdown", "metadata") if (v := getattr(ext, k, None)) is not None}
    full = _md5({"text": ext.text, "blocks": _rounded(blocks), "error": error, **more})
    return f"text:{text} full:{full}"


def _what_changed(want: str | None, got: str | None) -> str:
    if want and got and want.split()[0] == got.split()[0]:
        return "block records changed, text unchanged"
    return "output changed"


def _config(label: str, shared_root: Path):
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        return compose(
            config_name="config",
            overrides=[
                f"dataset={label}",
                f"dataset.{label}.limit={PAGES_PER_SET}",
                f"paths.shared_data={shared_root}",
                f"method=[{','.join(METHOD_NAMES)}]",
            ],
        )


def _outputs(cfg) -> dict[str, dict[str, str]]:
    """page id -> method -> digest, for the first pages of one set (in reader order)."""
    (ds,) = build_datasets(cfg).values()
    methods = {spec.label: spec.build() for spec in method_specs(cfg.method)}
    # site scope carries fingerprints from page to page: one instance, pages in order
    methods["proposed@site"] = METHODS.create("proposed", dedup={"scope": "site"})
    out: dict[str, dict[str, str]] = {}
    for page in ds.pages():
        # a failure is an output too (target_entities on a site without a template)
        out[page.id] = {name: _digest(extract_one(m, page)) for name, m in methods.items()}
    return out


@pytest.mark.shared
@pytest.mark.parametrize("label", SETS)
def test_outputs_match_the_recorded_ones(label, request, shared, shared_root):
    cfg = _config(label, shared_root)
    if label != "synthetic":
        shared(Path(cfg.dataset[label].path).name)  # skips, saying why, when it is absent
    got = _outputs(cfg)
    assert len(got) == PAGES_PER_SET
    if request.config.getoption("--update-golden"):
        data = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
        if data.get("versions") != _versions():
            data = {"versions": _versions(), "sets": {}}
        data["sets"][label] = got
        GOLDEN.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        pytest.skip(f"recorded the outputs of {label} in {GOLDEN.name}")
    data = json.loads(GOLDEN.read_text())
    if data["versions"] != _versions():
        pytest.skip(
            f"golden outputs were recorded with {data['versions']}, this is "
            f"{_versions()}: regenerate with --update-golden"
        )
    problems = _differences(label, data["sets"][label], got)
    assert not problems, "\n".join(problems)


def _differences(label: str, want: dict, got: dict, limit: int = 20) -> list[str]:
    """One line per (data set, page, method) whose output differs from the recorded one."""
    lines = [
        f"{label}: page {page!r} was recorded but is not read now"
        for page in sorted(set(want) - set(got))
    ]
    lines += [
        f"{label}: page {page!r} is read now but was not recorded"
        for page in sorted(set(got) - set(want))
    ]
    for page in sorted(set(want) & set(got)):
        for name in sorted(set(want[page]) | set(got[page])):
            if got[page].get(name) != want[page].get(name):
                old, new = want[page].get(name), got[page].get(name)
                lines.append(
                    f"{label}: page {page!r}, method {name}: "
                    f"{_what_changed(old, new)} (recorded {old}, now {new})"
                )
    if len(lines) > limit:
        lines = lines[:limit] + [f"... and {len(lines) - limit} more"]
    if lines:
        lines.insert(
            0,
            f"golden outputs of {label} differ ({GOLDEN.name}; rerun with "
            "--update-golden only if the change is meant):",
        )
    return lines


def test_a_difference_names_the_data_set_page_and_method():
    want = {"p1": {"cetd": "a", "pab": "b"}, "p2": {"cetd": "c"}}
    got = {"p1": {"cetd": "a", "pab": "B"}, "p3": {"cetd": "c"}}
    assert _differences("chaos", want, got) == [
        (
            f"golden outputs of chaos differ ({GOLDEN.name}; rerun with --update-golden only "
            "if the change is meant):"
        ),
        "chaos: page 'p2' was recorded but is not read now",
        "chaos: page 'p3' is read now but was not recorded",
        "chaos: page 'p1', method pab: output changed (recorded b, now B)",
    ]
    assert _differences("chaos", want, want) == []
    same_text = _differences(
        "chaos", {"p": {"pab": "text:1 full:2"}}, {"p": {"pab": "text:1 full:3"}}
    )
    assert same_text[1] == (
        "chaos: page 'p', method pab: block records changed, text unchanged "
        "(recorded text:1 full:2, now text:1 full:3)"
    )
