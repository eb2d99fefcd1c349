"""Issue 37, items 7-9: the read gate (evalkit.core.capped) and the delete gate
(evalkit.core.files), each written as the attack."""

from __future__ import annotations

import json
import os
import string
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.core.capped import Refused, inside, read_capped
from evalkit.harness.cache import sweep_temps
from evalkit.harness.cache_admin import main as cache_main
from evalkit.readers.pairs import PairsDataset
from evalkit.readers.trafilatura_eval import TrafilaturaEvalDataset

SECRET = "secret outside the data folder"


def _outside(tmp_path):
    f = tmp_path / "outside.txt"
    f.write_text(f"<html><body><p>{SECRET}</p></body></html>")
    return f


def test_7_a_symlink_in_html_or_gold_leading_out_is_skipped_not_read(tmp_path):
    data = tmp_path / "set"
    (data / "html").mkdir(parents=True)
    (data / "gold").mkdir()
    (data / "html" / "a.html").write_text("<html><body><p>page a text</p></body></html>")
    (data / "gold" / "a.txt").write_text("page a text")
    (data / "html" / "b.html").symlink_to(_outside(tmp_path))
    (data / "gold" / "b.txt").write_text("gold b")
    (data / "html" / "c.html").write_text("<html><body><p>page c</p></body></html>")
    (data / "gold" / "c.txt").symlink_to(_outside(tmp_path))
    ds = PairsDataset(path=str(data))
    pages = list(ds.pages())
    assert [p.id for p in pages] == ["a"]
    assert all(SECRET not in p.html and SECRET not in p.gold.text for p in pages)
    reasons = {os.path.basename(s.file): s.reason for s in ds.skipped}
    assert "leading out of" in reasons["b.html"] and "leading out of" in reasons["c.html"]


def test_8_evaldata_names_outside_the_folder_are_refused(tmp_path):
    data = tmp_path / "te"
    (data / "eval").mkdir(parents=True)
    (data / "eval" / "ok.html").write_text("<html><body><p>fine page</p></body></html>")
    out = _outside(tmp_path)
    doc = {
        "https://a.example/1": {"file": "ok.html", "with": ["fine"], "without": []},
        "https://b.example/2": {"file": str(out), "with": [], "without": []},
        "https://c.example/3": {"file": "../../outside.txt", "with": [], "without": []},
    }
    (data / "evaldata.json").write_text(json.dumps(doc))
    ds = TrafilaturaEvalDataset(path=str(data))
    pages = list(ds.pages())
    assert [p.id for p in pages] == ["ok.html"]
    assert all(SECRET not in p.html for p in pages)
    assert sum("leads out of" in s.reason for s in ds.skipped) == 2


def test_9_prune_of_an_ordinary_folder_deletes_nothing(tmp_path, capsys):
    mine = tmp_path / "mine"
    (mine / "ab").mkdir(parents=True)
    kept = [
        mine / "notes.txt",
        mine / "ab" / ("ab" + "0" * 62 + ".json"),
        mine / "ab" / "report.json",
    ]
    for f in kept:
        f.write_text("mine")
        os.utime(f, (0, 0))
    assert cache_main(["--cache", str(mine), "--prune", "--older-than", "1"]) == 2
    assert "not an evalkit cache" in capsys.readouterr().err
    assert all(f.exists() for f in kept)


def test_9_the_temp_sweep_leaves_other_programs_tmp_files(tmp_path):
    cache = tmp_path / "cache"
    (cache / "ab").mkdir(parents=True)
    other = cache / "ab" / "editor-save.tmp"
    other.write_text("someone else's")
    os.utime(other, (time.time() - 7200,) * 2)
    assert sweep_temps(cache) == 0
    assert other.exists()
    assert (cache / "CACHEDIR.TAG").read_bytes().startswith(b"Signature: 8a477f597d28d1")


_NAMES = st.lists(
    st.sampled_from(["..", ".", "a", "b", "x.html", "/", "~", "c d"]), min_size=1, max_size=5
).map("/".join)


@settings(max_examples=60, deadline=None, database=None)
@given(name=st.one_of(_NAMES, st.text(string.printable, min_size=1, max_size=12)))
def test_read_gate_never_reads_outside_the_root(tmp_path_factory, name):
    base = tmp_path_factory.mktemp("gate")
    root = base / "root"
    (root / "a").mkdir(parents=True)
    (root / "a" / "x.html").write_text("in")
    (base / "x.html").write_text(SECRET)
    (root / "b").symlink_to(base) if not (root / "b").exists() else None
    try:
        path = inside(root, name)
    except Refused:
        assert name.startswith(("/", "\\")) or ".." in name or "\0" in name
        return
    try:
        data = read_capped(path, 1000, "cap", root)
    except (Refused, OSError):
        return
    assert SECRET.encode() not in data


def test_10_the_report_rebuilder_embeds_no_figure_outside_the_run(tmp_path):
    from evalkit.report.html import render
    from evalkit.report.sections import Figure

    secret = tmp_path / "secret.png"
    secret.write_bytes(SECRET.encode())
    run = tmp_path / "run"
    run.mkdir()
    (run / "link.png").symlink_to(secret)
    import base64

    for path in (str(secret), "../secret.png", "link.png"):
        page = render([Figure(path, "fig", False)], run, title="t")
        assert base64.b64encode(SECRET.encode()).decode() not in page
        assert "figure refused" in page or "not embedded" in page
