"""The read gate (evalkit.core.capped) and the delete side of the write gate
(evalkit.core.files) against the attacks of issue 37, items 7, 8 and 9: each test performs
the attack and asserts the defence."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalkit.core.capped import Refused, inside, read_capped
from evalkit.core.files import OWNED_TAG, temp_beside
from evalkit.harness.cache import sweep_temps
from evalkit.readers.pairs import PairsDataset
from evalkit.readers.trafilatura_eval import TrafilaturaEvalDataset

SECRET = b"secret-outside-the-data-set 4242"
PAGE = b"<html><body><p>A page of the set with enough words in it.</p></body></html>"
GOLD = "A page of the set with enough words in it."


def _secret(tmp_path: Path) -> Path:
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_bytes(SECRET)
    return secret


def _pairs(root: Path) -> Path:
    (root / "html").mkdir(parents=True)
    (root / "gold").mkdir()
    (root / "html" / "ok.html").write_bytes(PAGE)
    (root / "gold" / "ok.txt").write_text(GOLD)
    return root


# item 7: links in html/ and gold/ leading out of the set are refused


@pytest.mark.parametrize("folder, name", [("html", "leak.html"), ("gold", "ok.txt")])
def test_a_link_in_a_data_folder_to_a_file_outside_is_not_read(tmp_path, folder, name):
    secret = _secret(tmp_path)
    root = _pairs(tmp_path / "set")
    if folder == "html":
        (root / "gold" / "leak.txt").write_text(GOLD)
    (root / folder / name).unlink(missing_ok=True)
    (root / folder / name).symlink_to(secret)
    ds = PairsDataset(path=str(root))
    pages = list(ds.pages())
    assert not any(
        SECRET.decode() in (p.html or "") or SECRET.decode() in (p.gold.text or "") for p in pages
    )
    assert [p.id for p in pages] == ([] if folder == "gold" else ["ok"])
    (skip,) = [s for s in ds.skipped if name.split(".")[0] in s.file]
    assert "symbolic link leading out of" in skip.reason


def test_a_linked_folder_leading_out_is_refused_but_a_link_inside_is_read(tmp_path):
    secret = _secret(tmp_path)
    root = _pairs(tmp_path / "set")
    (secret.parent / "x.html").write_bytes(PAGE)
    (secret.parent / "x.txt").write_text(GOLD)
    os.symlink(secret.parent, root / "html" / "sub")  # a folder link: not listed as a page
    (root / "html" / "alias.html").symlink_to("ok.html")  # stays inside: read
    (root / "gold" / "alias.txt").write_text(GOLD)
    ds = PairsDataset(path=str(root))
    assert sorted(p.id for p in ds.pages()) == ["alias", "ok"]
    with pytest.raises(Refused, match="leads out of"):
        read_capped(root / "html" / "sub" / "x.html", None, "cap", root)


def test_the_named_folder_may_itself_be_a_link(tmp_path):
    real = _pairs(tmp_path / "real")
    (tmp_path / "named").symlink_to(real)
    assert [p.id for p in PairsDataset(path=str(tmp_path / "named")).pages()] == ["ok"]


# item 8: evaldata.json names only files inside its folders


@pytest.mark.parametrize(
    "bad",
    ["ABS", "../../outside/secret.txt", "../evaldata.json", "sub/../../../outside/secret.txt"],
)
def test_trafilatura_evaldata_naming_a_file_outside_is_skipped(tmp_path, bad):
    secret = _secret(tmp_path)
    root = tmp_path / "set"
    (root / "eval").mkdir(parents=True)
    (root / "eval" / "a.html").write_bytes(PAGE)
    name = str(secret) if bad == "ABS" else bad
    (root / "evaldata.json").write_text(
        json.dumps(
            {
                "https://a.de/1": {"file": "a.html", "with": ["x"], "without": []},
                "https://b.de/2": {"file": name, "with": ["x"], "without": []},
            }
        )
    )
    ds = TrafilaturaEvalDataset(str(root))
    pages = list(ds.pages())
    assert [p.id for p in pages] == ["a.html"]
    assert all(SECRET not in p.raw for p in pages)
    (skip,) = ds.skipped
    assert skip.file.endswith("evaldata.json") and "absolute or '..'" in skip.reason


def test_trafilatura_evaldata_link_out_of_the_set_is_skipped(tmp_path):
    secret = _secret(tmp_path)
    root = tmp_path / "set"
    (root / "eval").mkdir(parents=True)
    (root / "eval" / "a.html").symlink_to(secret)
    (root / "evaldata.json").write_text(
        json.dumps({"https://a.de/1": {"file": "a.html", "with": ["x"], "without": []}})
    )
    ds = TrafilaturaEvalDataset(str(root))
    assert list(ds.pages()) == []
    assert "leading out of" in ds.skipped[0].reason


# item 9: prune and the temp sweep delete only what the cache made


def _old(path: Path) -> Path:
    past = time.time() - 30 * 86_400
    os.utime(path, (past, past))
    return path


def test_prune_pointed_at_an_ordinary_folder_deletes_nothing(tmp_path):
    folder = tmp_path / "mywork"
    (folder / "ab").mkdir(parents=True)
    notes = folder / "ab" / "notes.json"
    notes.write_text("{}")
    _old(notes)
    thesis = folder / "thesis.tex"
    thesis.write_text("x")
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalkit.cache",
            "--cache",
            str(folder),
            "--prune",
            "--older-than",
            "1",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert res.returncode == 2, res.stderr
    assert "not an evalkit cache" in res.stderr
    assert notes.exists() and thesis.exists()
    assert not (folder / OWNED_TAG).exists()


def test_the_temp_sweep_keeps_other_programs_tmp_files(tmp_path):
    cache = tmp_path / "cache"
    (cache / "ab").mkdir(parents=True)
    theirs = cache / "ab" / "download.tmp"
    theirs.write_text("another program's")
    _old(theirs)
    fd, ours = temp_beside(cache / "ab" / ("0" * 64 + ".json"))
    os.close(fd)
    _old(Path(ours))
    (cache / "hmac.key").write_bytes(b"k" * 32)
    assert sweep_temps(cache) == 1
    assert theirs.exists() and not Path(ours).exists()
    assert (cache / "hmac.key").exists() and (cache / OWNED_TAG).exists()


def test_the_temp_sweep_of_a_paths_cache_holding_other_files_deletes_nothing(tmp_path):
    folder = tmp_path / "home"
    (folder / "ab").mkdir(parents=True)
    (folder / "ab" / "x.tmp").write_text("mine")
    (folder / "letter.txt").write_text("mine")
    fd, ours = temp_beside(folder / "ab" / "e.json")
    os.close(fd)
    for p in (folder / "ab" / "x.tmp", Path(ours)):
        _old(p)
    assert sweep_temps(folder) == 0
    assert (folder / "ab" / "x.tmp").exists() and Path(ours).exists()


# property tests of the read gate (small budget: tests/conftest.py's profiles)

_part = st.sampled_from(["a", "b.html", "..", ".", "sub", "x y", "..."])


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(_part, min_size=1, max_size=5), absolute=st.booleans())
def test_a_name_from_data_never_leads_out(tmp_path, parts, absolute):
    name = ("/" if absolute else "") + "/".join(parts)
    try:
        path = inside(tmp_path / "set", name)
    except Refused:
        assert absolute or ".." in parts or not name
        return
    assert not absolute and ".." not in parts
    real = os.path.realpath(path)
    assert real == str((tmp_path / "set").resolve()) or real.startswith(
        str((tmp_path / "set").resolve()) + os.sep
    )


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(depth=st.integers(0, 3), up=st.integers(0, 5), link=st.booleans())
def test_read_capped_with_a_root_never_returns_a_file_outside(tmp_path, depth, up, link):
    base = tmp_path / f"case-{depth}-{up}-{link}"
    root = base / "set"
    deep = root.joinpath(*["d"] * depth)
    deep.mkdir(parents=True, exist_ok=True)
    outside = base / "secret.txt"
    outside.write_bytes(SECRET)
    (root / "page.html").write_bytes(PAGE)
    target = Path(*([".."] * up)) / "secret.txt" if up else Path("page.html")
    name = deep / "f.html"
    name.unlink(missing_ok=True)
    if link:
        name.symlink_to(target if up else root / "page.html")
        path = name
    else:
        path = deep / target
    try:
        data = read_capped(path, None, "cap", root)
    except (Refused, FileNotFoundError):
        return
    assert data == PAGE


# item 10: the report rebuilder embeds only figures of the run folder


@pytest.mark.parametrize("how", ["absolute", "dotdot", "link", "not_png"])
def test_report_rebuild_never_embeds_a_figure_from_outside_the_run(tmp_path, how, capsys):
    from evalkit.report.__main__ import main
    from evalkit.report.sections import Figure, Heading
    from evalkit.report.store import SECTIONS_FILE, dump_sections

    secret = tmp_path / "outside" / "secret.png"
    secret.parent.mkdir()
    secret.write_bytes(SECRET)
    run = tmp_path / "run"
    (run / "figures").mkdir(parents=True)
    (run / "figures" / "ok.png").write_bytes(b"\x89PNG fine")
    path = {
        "absolute": str(secret),
        "dotdot": "../outside/secret.png",
        "link": "figures/leak.png",
        "not_png": "../outside/secret.txt",
    }[how]
    if how == "link":
        (run / "figures" / "leak.png").symlink_to(secret)
    if how == "not_png":
        (tmp_path / "outside" / "secret.txt").write_bytes(SECRET)
    sections = [
        Heading("Run"),
        Figure(path="figures/ok.png", alt="ok"),
        Figure(path=path, alt="leak"),
    ]
    dump_sections(sections, run / SECTIONS_FILE, "t")
    assert main([str(run)]) == 0
    page = (run / "report.html").read_text()
    assert base64.b64encode(SECRET).decode() not in page
    assert base64.b64encode(b"\x89PNG fine").decode() in page
    assert "figure refused" in page
