"""The hostile-input catalogue, configs, labels and folders (issue 31 items 6, 7 and 14;
docs/inputs.md "Configs, labels and folders"): each case and its documented outcome.

* Labels become file names by one mapping (evalkit.report.filenames): ``../../x``, ``a/b``,
  ``v1.0`` and ``v1.1`` write only inside the run folder, to distinct files, and report.md's
  figure links resolve.
* A config's ``_target_`` names an Extractor/Detector subclass or a user function, never the
  standard library or evalkit's dependencies, and nothing is built while the overrides are
  checked: one line, exit 2, no run folder.
* A cache or results folder that cannot be written, and an interpolation loop, are one line
  and exit 2, and leave no run folder.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import REPO

import evalkit
from evalkit.report.filenames import HASH_HEX, MAX_PLAIN, file_stem, with_ext

HOSTILE = ("../../x", "a/b", "v1.0", "v1.1")


def _env(**more) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO), EVALKIT_ROOT=str(REPO), **more)
    env.pop("PYTHONHASHSEED", None)
    return env


def _evalkit(*args, cwd, timeout=120, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evalkit", *args], cwd=cwd, env=env or _env(),
                          capture_output=True, text=True, timeout=timeout)


def _lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.strip()]


# ---------------------------------------------------------------- item 6: labels as file names

def test_the_mapping_keeps_plain_labels_and_hashes_every_other():
    assert [file_stem(x) for x in ("aeb", "l3s_gn1", "v1.0", "v1.1")] == \
        ["aeb", "l3s_gn1", "v1.0", "v1.1"]
    up, slash = file_stem("../../x"), file_stem("a/b")
    # ../../x: "/" -> "_" gives ".._.._x"; its leading "." -> "_"; then "-" and 8 hex digits
    assert re.fullmatch(r"_\._\.\._x-[0-9a-f]{%d}" % HASH_HEX, up)
    assert re.fullmatch(r"a_b-[0-9a-f]{%d}" % HASH_HEX, slash)
    # a/b and a:b clean to the same text and differ by their hashes; a_b keeps its name
    assert len({file_stem("a/b"), file_stem("a:b"), file_stem("a_b")}) == 3
    for label in ("..", ".", "", ".hidden", "-rf", "é", "x" * (MAX_PLAIN + 1), "a\\b", "a\0b"):
        stem = file_stem(label)
        assert stem and "/" not in stem and "\\" not in stem and "\0" not in stem
        assert stem not in (".", "..") and not stem.startswith((".", "-"))
        assert len(stem) <= MAX_PLAIN + 1 + HASH_HEX


def test_an_extension_is_appended_never_cut_at_a_dot():
    assert with_ext(Path("t/extraction_v1.0"), ".csv") == Path("t/extraction_v1.0.csv")
    assert with_ext("t/extraction_v1.1", ".png") != with_ext("t/extraction_v1.0", ".png")


def _tiny_folder(root: Path) -> Path:
    root.mkdir(parents=True)
    for i in (1, 2, 3):
        (root / f"p{i}.html").write_text(
            f"<html><body><p>alpha beta gamma {i} delta</p><div>menu home</div></body></html>")
        (root / f"p{i}.txt").write_text(f"alpha beta gamma {i} delta\n")
    return root


def test_hostile_labels_write_inside_the_run_folder_to_distinct_files(tmp_path):
    data = _tiny_folder(tmp_path / "d" / "e" / "data")
    results = tmp_path / "d" / "e" / "res"
    before = {p for p in tmp_path.rglob("*")}
    r = evalkit.evaluate(dataset={label: str(data) for label in HOSTILE}, methods=["fulltext"],
                         **{"paths.results": str(results), "runner.n_jobs": 1,
                            "runner.progress": False, "runner.cache": False,
                            "extraction.n_boot": 20})
    made = {p for p in tmp_path.rglob("*") if p.is_file()} - before
    outside = [p for p in made if results not in p.parents]
    assert outside == []
    info = json.loads((r.run_dir / "run.json").read_text())
    stems = info["file_names"]["datasets"]
    assert sorted(stems) == sorted(HOSTILE)
    assert len(set(stems.values())) == 4
    for label, stem in stems.items():
        for ext in (".csv", ".md", ".tex"):  # the data set's own table, one file per label
            assert (r.run_dir / "tables" / f"extraction_{stem}{ext}").is_file(), (label, ext)
        assert (r.run_dir / "figures" / f"extraction_{stem}_shingle_prf.png").is_file()
    # every figure the report links exists where the link points
    links = re.findall(r"\]\((figures/[^)]+)\)", r.report())
    assert len(links) >= 4 * 2
    assert [x for x in links if not (r.run_dir / x).is_file()] == []
    # the four sets hold the same pages: the same scores, under four names
    f1 = r.summary[r.summary["metric"] == "shingle_f1"].set_index("dataset")["value"]
    assert sorted(f1.index) == sorted(HOSTILE) and f1.nunique() == 1
