"""The reference check (``python -m evalkit.reference --check``) and its constraints file.

The end-to-end tests make a tiny entry (four synthetic pages, cetd and trafilatura) in a
temporary reference folder, so they recompute in seconds; the comparison rules (timing
rows, not-comparable peers, Holm families) are tested on hand-made summaries.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
from importlib import metadata
from pathlib import Path

import pandas as pd
import pytest
from packaging.requirements import Requirement

from evalkit.harness import reference
from evalkit.harness.constraints import pins, read_constraints, render
from evalkit.harness.reference_check import comparability, compare_summaries, is_timing

ROOT = Path(__file__).resolve().parents[1]
TINY = [
    "experiment=extraction",
    "dataset=synthetic",
    "dataset.synthetic.n_sites=2",
    "dataset.synthetic.pages_per_site=2",
    "method=[cetd,trafilatura]",
    "runner.n_jobs=1",
]


def _summary(rows):
    cols = ["experiment", "dataset", "method", "metric", "value", "ci_low", "ci_high", "n_pages"]
    return pd.DataFrame([dict(zip(cols, r)) for r in rows], columns=cols).astype(str)


# --- comparison rules --------------------------------------------------------------------

SPEED = [
    ("speed", "aeb", "cetd", "failures", "0", "", "", "181"),
    ("speed", "aeb", "cetd", "ms_median", "2.25981", "2.01734", "2.39081", "181"),
    ("speed", "aeb", "cetd", "target_ratio", "3", "", "", "181"),
    ("speed", "aeb", "cetd", "meets_target", "1", "", "", "181"),
    ("speed", "twc_pfm_bench", "twc_pfm+fingerprint", "twc_pfm_ms_500", "0.24675", "", "", "5"),
]


def test_speed_timing_rows_are_checked_for_presence_only():
    changed = _summary(SPEED)
    changed.loc[1, ["value", "ci_low"]] = ["9.1", "8.0"]  # ms_median: a timing
    changed.loc[3, "value"] = "0"  # meets_target follows the clock
    changed.loc[4, "value"] = "0.3"
    result = compare_summaries("speed_aeb", _summary(SPEED), changed)
    assert result.differences == []
    assert (result.compared, result.timing) == (2, 3)  # failures and target_ratio compared

    missing = compare_summaries("speed_aeb", _summary(SPEED), _summary(SPEED).drop(index=1))
    assert missing.differences == [
        (
            "speed_aeb: speed / aeb / cetd / ms_median: committed "
            "2.25981, missing from the recomputed summary"
        )
    ]


def test_non_timing_rows_of_speed_and_timing_named_rows_elsewhere_are_compared():
    changed = _summary(SPEED)
    changed.loc[0, "value"] = "1"  # a failed page is not a timing
    result = compare_summaries("speed_aeb", _summary(SPEED), changed)
    assert result.differences == [
        ("speed_aeb: speed / aeb / cetd / failures: value committed 0 recomputed 1")
    ]
    assert is_timing("speed", "step_scoring_ms_mean") and is_timing("speed", "peak_rss_mb")
    # the report-diff and start-up timings (issues 28 and 29); their target rows are compared
    assert is_timing("speed", "diff_s_50000") and is_timing("speed", "startup_first_page_s")
    assert not is_timing("speed", "target_s")
    assert not is_timing("extraction", "ms_median")  # only the speed experiment times
    assert not is_timing("speed", "some_new_metric")  # unknown: compared until decided


TABLE = [
    ("extraction", "aeb", "cetd", "shingle_f1", "0.843", "0.83", "0.856", "181"),
    ("extraction", "aeb", "cetd", "p_holm_vs_proposed", "0.0002", "", "", "181"),
    ("extraction", "aeb", "trafilatura", "shingle_f1", "0.953", "0.94", "0.964", "181"),
    ("extraction", "chaos", "cetd", "p_holm_vs_proposed", "0.0004", "", "", "40"),
]


def test_a_not_comparable_peer_is_reported_not_compared_and_taints_its_holm_family():
    changed = _summary(TABLE)
    changed.loc[1, "value"] = "0.0003"  # Holm over a family that holds the changed peer
    changed.loc[2, "value"] = "0.912"  # the peer itself
    reason = {"trafilatura": "trafilatura 2.3.1 installed, reference made with 2.0.0"}
    result = compare_summaries("x", _summary(TABLE), changed, reason)
    assert result.differences == []
    assert result.not_comparable == {"trafilatura": 1, "cetd (Holm family)": 1}
    assert result.compared == 2  # cetd's F1 on aeb and its p-value on chaos
    # without the version difference the same changes are two findings
    assert len(compare_summaries("x", _summary(TABLE), changed).differences) == 2


def test_an_extra_recomputed_row_is_a_difference_and_formatting_alone_is_not():
    changed = pd.concat(
        [
            _summary(TABLE),
            _summary([("extraction", "aeb", "pab", "shingle_f1", "0.6", "", "", "181")]),
        ],
        ignore_index=True,
    )
    changed.loc[0, "ci_low"] = "0.830"  # the same number written differently
    result = compare_summaries("x", _summary(TABLE), changed)
    assert result.differences == [
        ("x: extraction / aeb / pab / shingle_f1: recomputed 0.6, not in the committed summary")
    ]


def test_comparability_uses_the_recorded_packages_then_the_fallbacks():
    old = {
        "methods": {
            "trafilatura": {
                "registry": "trafilatura",
                "params": {},
                "packages": {"trafilatura": "2.0.0"},
            },
            "cetd": {"registry": "cetd", "params": {}, "packages": {}},
        }
    }
    new = {
        "methods": {
            "trafilatura": {
                "registry": "trafilatura",
                "params": {},
                "packages": {"trafilatura": "2.3.1"},
            },
            "cetd": {"registry": "cetd", "params": {}, "packages": {}},
        }
    }
    assert comparability(old, new, {}) == {
        "trafilatura": "trafilatura 2.3.1 installed, reference made with 2.0.0"
    }
    assert comparability(new, new, {}) == {}
    detectors = {"detectors": {"minhash": {"packages": {"datasketch": "1.6.0"}}}}
    assert comparability(
        detectors, {"detectors": {"minhash": {"packages": {"datasketch": "2.0.0"}}}}, {}
    ) == {"minhash": "datasketch 2.0.0 installed, reference made with 1.6.0"}
    gone = {"methods": {"trafilatura": {"packages": {"trafilatura": "not installed"}}}}
    assert comparability(old, gone, {}) == {
        "trafilatura": "trafilatura not installed, reference made with 2.0.0"
    }

    # a run.json from before the contract: the method names its packages, run.json's
    # "packages" and then the constraints file say which versions made the reference
    legacy = {
        "packages": {"xxhash": "4.1.0"},
        "methods": {
            "goose3": {"registry": "goose3", "params": {}},
            "proposed": {"registry": "proposed", "params": {}},
        },
    }
    fresh = {
        "methods": {
            "goose3": {"registry": "goose3", "params": {}, "packages": {"goose3": "3.1.22"}},
            "proposed": {"registry": "proposed", "params": {}, "packages": {"xxhash": "4.1.0"}},
        }
    }
    assert comparability(legacy, fresh, {"goose3": "3.1.22"}) == {}
    assert comparability(legacy, fresh, {"goose3": "3.1.19"}) == {
        "goose3": "goose3 3.1.22 installed, reference made with 3.1.19"
    }
    assert comparability(legacy, fresh, {}) == {
        "goose3": "goose3 3.1.22 installed, reference version not recorded"
    }


def test_comparability_asks_the_method_when_neither_run_json_records_packages():
    class Stub:
        def versions(self):
            return {"trafilatura": "2.3.1"}

    old = {"packages": {}, "methods": {"trafilatura": {"registry": "trafilatura"}}}
    got = comparability(old, old, {"trafilatura": "2.0.0"}, create=lambda name, **kw: Stub())
    assert got == {"trafilatura": "trafilatura 2.3.1 installed, reference made with 2.0.0"}


# --- the constraints file ----------------------------------------------------------------


def test_pins_are_the_installed_closure_and_round_trip(tmp_path):
    got = pins([Requirement("datasketch>=2"), Requirement("evalkit")])
    assert got["datasketch"] == metadata.version("datasketch")
    assert got["numpy"] == metadata.version("numpy")  # datasketch needs numpy
    assert "evalkit" not in got
    path = tmp_path / "constraints.txt"
    path.write_text(render(got, "2026-11-25"))
    assert read_constraints(path) == got
    path.write_text("numpy>=2\n")
    with pytest.raises(ValueError, match=r"constraints.txt:1: expected name==version"):
        read_constraints(path)


# --- end to end: a tiny entry in a temporary reference folder ----------------------------


@pytest.fixture(scope="module")
def tiny_reference(tmp_path_factory):
    ref = tmp_path_factory.mktemp("reference")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(reference, "ENTRIES", {"tiny": TINY})
        assert reference.main(["--only", "tiny", "--dest", str(ref), "runner.progress=false"]) == 0
    return ref


@pytest.fixture
def tiny(tiny_reference, tmp_path, monkeypatch):
    monkeypatch.setattr(reference, "ENTRIES", {"tiny": TINY})
    shutil.copytree(tiny_reference, tmp_path / "ref")
    return tmp_path / "ref"


def test_the_regenerated_reference_writes_its_constraints(tiny):
    pinned = read_constraints(tiny / "constraints.txt")
    assert pinned["trafilatura"] == metadata.version("trafilatura")
    assert pinned["lxml"] == metadata.version("lxml")
    assert (
        "`evalkit " + " ".join(TINY) + " runner.progress=false`" in (tiny / "INDEX.md").read_text()
    )


def _edit(ref: Path, method: str, metric: str, value: str) -> str:
    path = ref / "tiny" / "summary.csv"
    rows = list(csv.DictReader(path.open()))
    row = next(r for r in rows if r["method"] == method and r["metric"] == metric)
    old, row["value"] = row["value"], value
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return old


def test_check_passes_on_an_unchanged_reference(tiny, capsys):
    assert reference.main(["--check", "--only", "tiny", "--dest", str(tiny)]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert re.match(
        r"\[check\] 1 entries checked, \d+ rows compared, 0 timing rows present, "
        r"0 differences, 0 rows not comparable \(0 methods\): ok$",
        last,
    ), last


def test_check_names_a_changed_value_and_reports_a_peer_of_another_version(tiny, capsys):
    old = _edit(tiny, "cetd", "shingle_f1", "0.123456")
    _edit(tiny, "trafilatura", "shingle_f1", "0.5")  # not comparable: not a finding
    run = json.loads((tiny / "tiny" / "run.json").read_text())
    run["methods"]["trafilatura"]["packages"] = {"trafilatura": "0.0.1"}
    (tiny / "tiny" / "run.json").write_text(json.dumps(run))

    index = tiny / "INDEX.md"  # made by another command
    index.write_text(index.read_text().replace("n_sites=2", "n_sites=3"))

    assert reference.main(["--check", "--only", "tiny", "--dest", str(tiny)]) == 1
    out = capsys.readouterr().out.splitlines()
    diffs = [ln for ln in out if ln.startswith("DIFF")]
    assert diffs == [
        "DIFF tiny: INDEX.md says the reference was made by `evalkit "
        + " ".join(TINY).replace("n_sites=2", "n_sites=3")
        + " runner.progress=false`, "
        "the entry is now `evalkit " + " ".join(TINY) + "` (regenerate it)",
        (
            f"DIFF tiny: extraction / synthetic / cetd / shingle_f1: value committed "
            f"0.123456 recomputed {old}"
        ),
    ]
    installed = metadata.version("trafilatura")
    assert any(
        ln.startswith("NOT COMPARABLE tiny: trafilatura, ")
        and ln.endswith(
            f"not comparable: trafilatura {installed} installed, reference made with 0.0.1"
        )
        for ln in out
    ), out
    assert re.search(r"2 differences, \d+ rows not comparable \(\d+ methods\): FAIL$", out[-1])


def test_a_partial_regeneration_under_other_versions_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(reference, "ENTRIES", {"tiny": TINY, "other": []})
    (tmp_path / "constraints.txt").write_text("numpy==0.0.1\n")
    assert reference.main(["--only", "tiny", "--dest", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"numpy {metadata.version('numpy')} installed, constraints.txt has 0.0.1" in err
    assert not (tmp_path / "tiny").exists()  # nothing was run


def test_check_skips_an_entry_whose_data_is_absent(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(reference, "ENTRIES", {"aeb": ["experiment=extraction", "dataset=aeb"]})
    missing = tmp_path / "nowhere"
    assert reference.missing_data(["dataset=aeb", f"paths.shared_data={missing}"]) == str(
        missing / "scrapinghub-aeb"
    )
    assert reference.missing_data(["dataset=synthetic"]) is None
    assert (
        reference.main(
            ["--check", "--only", "aeb", "--dest", str(tmp_path), f"paths.shared_data={missing}"]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert f"[check] aeb: skipped, its data {missing / 'scrapinghub-aeb'} is absent" in out
    assert "0 entries checked, 1 skipped (no data)" in out


def test_quick_entries_exist_and_ci_runs_the_readme_test_command():
    assert set(reference.QUICK) <= set(reference.ENTRIES) and "quick" in reference.QUICK
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    readme = (ROOT / "README.md").read_text()
    assert ci in readme, ci  # the README's command, verbatim
    assert "python -m evalkit.reference --check --quick" in ci
