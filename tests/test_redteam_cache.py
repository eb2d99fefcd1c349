"""Issue 37's attacks on the cache (items 2, 6, 17 and 19), each performed and its defence
asserted: a user's helper module is in its method's key, a forged or foreign score or
extraction record is a miss, a full cache disk is one line naming the cache folder, and two
processes recording the method index at once lose no key (docs/cache.md)."""

from __future__ import annotations

import hashlib
import json
import math
import multiprocessing
import os
import stat
import sys
import textwrap
from pathlib import Path

import pytest
from full_cache_disk import fdopen_for

from evalkit.harness.cache_closure import local_closure
from evalkit.harness.cache_keys import describe_method
from evalkit.harness.specs import MethodSpec

METHOD = """
from evalkit.core.method import Extractor
from evalkit.core.page import Extraction
from evalkit.core.visible import visible_text
from hh import keep


class FirstWords(Extractor):
    def extract(self, page):
        words = visible_text(page.tree()).split()
        return Extraction(text=" ".join(words[:keep()]))
"""


def _user_files(folder: Path, n: int) -> None:
    (folder / "mm.py").write_text(textwrap.dedent(METHOD))
    (folder / "hh.py").write_text(f"def keep():\n    return {n}\n")


def _forget(*names: str) -> None:
    for name in names:
        sys.modules.pop(name, None)


# ---- item 2: the user's helper module is part of the key --------------------------------


def test_editing_the_helper_module_of_a_method_file_re_extracts(tmp_path, monkeypatch):
    # the attack: mm.py imports hh.py beside it; edit hh.py, run again: on 86dd307 every
    # page came back cached with the old output
    from evalkit.harness.runner import Runner
    from evalkit.harness.scoring import score_extraction
    from evalkit.readers.synthetic import SyntheticDataset

    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # hh.py is read afresh
    _user_files(tmp_path, 7)
    pages = SyntheticDataset(n_sites=1, pages_per_site=3).pages()

    def run():
        _forget("mm", "hh")
        spec = MethodSpec.from_target("mine", "mm.FirstWords")
        with Runner(cache_root=str(tmp_path / "cache"), progress=False) as runner:
            return runner.run_pages(pages, [spec], score=score_extraction)

    first = run()
    assert [r["n_words_out"] for r in first] == [7, 7, 7] and not any(r["cached"] for r in first)
    assert all(r["cached"] for r in run())  # nothing changed: read back
    (tmp_path / "hh.py").write_text("def keep():\n    return 3\n")
    edited = run()
    assert not any(r["cached"] for r in edited)
    assert [r["n_words_out"] for r in edited] == [3, 3, 3]
    _forget("mm", "hh")


def test_the_closure_follows_every_kind_of_local_import_and_ends_at_cycles(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from . import deep\n")
    (pkg / "sub" / "deep.py").write_text("import pkg.method\n")  # a cycle back to the method
    (pkg / "helpers.py").write_text("import numpy\nfrom .sub import deep\n")
    (pkg / "late.py").write_text("X = 1\n")
    (pkg / "dyn.py").write_text("")
    (tmp_path / "top.py").write_text("import json\n")
    (pkg / "method.py").write_text(
        textwrap.dedent("""
        import os, top
        from . import helpers
        from .helpers import something
        import importlib

        def f():
            from pkg import late
            return importlib.import_module("pkg.dyn")
    """)
    )
    (tmp_path / "unrelated.py").write_text("")  # never imported: not in the key
    closure = local_closure("pkg.method", pkg / "method.py")
    assert closure.why is None
    assert [m for m, _ in closure.digests] == [
        "pkg",
        "pkg.dyn",
        "pkg.helpers",
        "pkg.late",
        "pkg.sub",
        "pkg.sub.deep",
        "top",
    ]
    assert "numpy" in closure.imports and "os" not in closure.imports  # stdlib: not keyed
    before = dict(closure.digests)
    (pkg / "sub" / "deep.py").write_text("import pkg.method\nY = 2\n")
    after = dict(local_closure("pkg.method", pkg / "method.py").digests)
    assert {m for m in after if after[m] != before[m]} == {"pkg.sub.deep"}


def test_a_helper_that_cannot_be_read_leaves_the_method_uncached(tmp_path, monkeypatch):
    _user_files(tmp_path, 5)
    os.mkfifo(tmp_path / "hh2.py")  # a FIFO in a helper's place is refused, not waited on
    # imported inside a function: run only on a page (the FIFO would block Python's import)
    (tmp_path / "mm.py").write_text(
        (tmp_path / "mm.py").read_text() + "\ndef later():\n    import hh2\n"
    )
    closure = local_closure("mm", tmp_path / "mm.py")
    assert closure.digests == () and "hh2" in closure.why
    monkeypatch.syspath_prepend(str(tmp_path))
    _forget("mm", "hh")
    facts = describe_method(MethodSpec.from_target("mine", "mm.FirstWords"))
    assert facts.key() is None and "hh2" in facts.uncached
    _forget("mm", "hh")


# ---- item 6: records are authenticated with the cache's own key (HMAC) -------------------


def _run_fulltext(cache: Path, pages) -> list[dict]:
    from evalkit.harness.runner import Runner
    from evalkit.harness.scoring import score_extraction

    with Runner(cache_root=str(cache), progress=False) as runner:
        recs = runner.run_pages(pages, [MethodSpec("fulltext", "fulltext")], score=score_extraction)
    return sorted(recs, key=lambda r: r["page_id"])


def _numbers(recs: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if isinstance(v, float) and k != "seconds"} for r in recs]


def _forge_scores(cache: Path) -> int:
    """What the red team did: every score record's numbers set to 1.0, checksum redone."""
    from evalkit.harness.score_cache import _record_digest

    n = 0
    for path in (cache / "scores").rglob("*.score"):
        entry = json.loads(path.read_text())
        entry["record"] = {
            k: 1.0 if isinstance(v, float) and not math.isnan(v) else v
            for k, v in entry["record"].items()
        }
        entry["sha256"] = _record_digest(entry["record"])
        path.write_text(json.dumps(entry))
        n += 1
    return n


def _forge_extractions(cache: Path, pages) -> int:
    """Every extraction entry's text replaced by its page's gold, checksum redone."""
    from evalkit.harness import cache_entry

    n = 0
    for path in cache.glob("??/*.json"):
        entry = json.loads(path.read_text())
        entry["payload"]["text"] = " ".join(p.gold.text for p in pages)
        entry["sha256"] = hashlib.sha256(cache_entry._canonical(entry["payload"])).hexdigest()
        path.write_text(json.dumps(entry))
        n += 1
    return n


def test_forged_score_and_extraction_records_are_misses_not_numbers(tmp_path):
    from evalkit.readers.synthetic import SyntheticDataset

    pages = SyntheticDataset(n_sites=1, pages_per_site=3).pages()
    cold = _run_fulltext(tmp_path / "c", pages)
    assert all(0 < r["word_f1"] < 1 for r in cold)
    assert _forge_scores(tmp_path / "c") == 3
    warm = _run_fulltext(tmp_path / "c", pages)
    # on 86dd307 the forged 1.000 came back; now every forged record is recomputed
    assert _numbers(warm) == _numbers(cold)
    assert _numbers(_run_fulltext(tmp_path / "c", pages)) == _numbers(cold)  # rewritten
    # the extraction a score is made of: its text forged to the gold, checksum redone
    assert _forge_extractions(tmp_path / "c", pages) == 3
    _forge_scores(tmp_path / "c")
    again = _run_fulltext(tmp_path / "c", pages)
    assert not any(r["cached"] for r in again) and _numbers(again) == _numbers(cold)


def test_a_foreign_or_unsigned_record_is_a_miss(tmp_path):
    from evalkit.readers.synthetic import SyntheticDataset

    pages = SyntheticDataset(n_sites=1, pages_per_site=2).pages()
    other = _run_fulltext(tmp_path / "other", pages)
    # another cache's records, entries and all, copied in: signed with another key
    (tmp_path / "mine").mkdir()
    for path in (tmp_path / "other").rglob("*"):
        if path.is_file() and path.name != "hmac.key":
            dest = tmp_path / "mine" / path.relative_to(tmp_path / "other")
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(path.read_bytes())
    mine = _run_fulltext(tmp_path / "mine", pages)
    assert not any(r["cached"] for r in mine) and _numbers(mine) == _numbers(other)
    # records of before this change had no MAC: misses
    for path in [*(tmp_path / "other").rglob("*.score"), *(tmp_path / "other").glob("??/*.json")]:
        entry = json.loads(path.read_text())
        del entry["mac"]
        path.write_text(json.dumps(entry))
    old = _run_fulltext(tmp_path / "other", pages)
    assert not any(r["cached"] for r in old) and _numbers(old) == _numbers(other)


def test_the_key_is_made_once_private_and_refused_when_others_can_read_it(tmp_path):
    from evalkit.core.page import Extraction
    from evalkit.harness.cache_seal import KEY_BYTES, CacheKeyError, Seal
    from evalkit.harness.score_cache import ScoreCache
    from evalkit.harness.score_limits import ScoreWriteError
    from evalkit.readers.synthetic import SyntheticDataset

    pages = list(SyntheticDataset(n_sites=1, pages_per_site=1).pages())
    _run_fulltext(tmp_path / "c", pages)
    key = tmp_path / "c" / "hmac.key"
    st = key.stat()
    assert stat.S_IMODE(st.st_mode) == 0o600 and st.st_size == KEY_BYTES
    secret = key.read_bytes()
    assert all(r["cached"] for r in _run_fulltext(tmp_path / "c", pages))
    assert key.read_bytes() == secret  # made once, kept
    key.chmod(0o644)  # readable by others: anyone could forge with it
    with pytest.raises(
        CacheKeyError,
        match=rf"the key of the extraction cache {key} cannot "
        r"be trusted \(mode 0644: .*\); delete it",
    ):
        Seal(tmp_path / "c").secret(create=False)
    # in a run: one line that stops it, not a scoring failure on every page
    with pytest.raises(ScoreWriteError, match=r"cannot be trusted"):
        ScoreCache(lambda *a: {"x": 1.0}, tmp_path / "c", "k")(pages[0], "m", Extraction())


def test_a_forged_layout_entry_is_a_miss(tmp_path):
    # layouts become VIPS blocks, outputs and numbers: signed like the other records
    from evalkit.core.rendered import Layout
    from evalkit.harness import cache_entry
    from evalkit.harness.render import LayoutCache

    cache = LayoutCache(tmp_path / "layouts")
    cache.put("ab" * 8, Layout("http://a/", (1280, 800), "Chromium 1", 1280.0, 900.0, ()))
    assert cache.get("ab" * 8).height == 900.0
    (path,) = (tmp_path / "layouts").rglob("*.json")
    entry = json.loads(path.read_text())
    entry["payload"]["height"] = 5.0
    entry["sha256"] = hashlib.sha256(cache_entry._canonical(entry["payload"])).hexdigest()
    path.write_text(json.dumps(entry))
    fresh = LayoutCache(tmp_path / "layouts")
    assert fresh.get("ab" * 8) is None and fresh.invalid == 1


# ---- item 17: a full cache disk is one line naming the cache folder ---------------------


def test_a_full_cache_disk_names_the_cache_folder(tmp_path, monkeypatch):
    from evalkit.core.page import Extraction
    from evalkit.harness.cache import ExtractionCache
    from evalkit.harness.cache_seal import cache_seal
    from evalkit.harness.errors import CacheWriteError

    cache = tmp_path / "cache"
    cache_seal(cache).secret(create=True)  # the key was made before the disk filled
    monkeypatch.setattr(os, "fdopen", fdopen_for(cache))
    with pytest.raises(CacheWriteError) as caught:
        ExtractionCache(cache).put("ab" * 32, Extraction(text="x", seconds=0.1))
    assert str(caught.value) == (
        f"cannot write to the extraction cache {cache} (paths.cache): ENOSPC: No space left "
        "on device; free space there, set paths.cache to another folder, or runner.cache=false"
    )
    assert not list(cache.rglob("*.tmp"))  # the half-written file is gone


@pytest.mark.slow
def test_a_full_cache_disk_during_a_run_is_one_line_naming_the_cache(tmp_path):
    # on 86dd307: "evalkit: cannot write a file: ENOSPC: ...; <run folder> is incomplete"
    import subprocess

    from conftest import REPO

    from evalkit.harness.cache_seal import cache_seal

    cache, run = tmp_path / "cache", tmp_path / "run"
    cache_seal(cache).secret(create=True)  # a cache in use: the disk fills at its entries
    script = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(REPO / "tests")!r})
        from full_cache_disk import fdopen_for
        os.fdopen = fdopen_for({str(cache)!r})
        from evalkit.shell.cli import main
        sys.argv = ["evalkit", "experiment=extraction", "dataset=synthetic",
                    "dataset.synthetic.n_sites=1", "dataset.synthetic.pages_per_site=2",
                    "method=[fulltext]", "runner.n_jobs=1", "runner.progress=false",
                    "extraction.n_boot=10", "paths.cache={cache}",
                    "paths.results={tmp_path / "res"}", "hydra.run.dir={run}"]
        main()
    """)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert "Traceback" not in done.stderr
    assert lines[-1] == (
        f"evalkit: cannot write to the extraction cache {cache} (paths.cache): ENOSPC: No "
        "space left on device; free space there, set paths.cache to another folder, or "
        "runner.cache=false"
    )


# ---- item 19: two processes recording the method index at once lose no key -------------


def _record_many(root: str, start: int, n: int) -> None:
    from evalkit.harness.cache_admin import record_run

    for i in range(start, start + n):
        record_run(root, [("mine", "mine", {}, "f" * 16)], [("mine", f"page{i:05d}")])


def test_two_processes_writing_the_method_index_lose_no_key(tmp_path):
    from evalkit.harness.cache_admin import INDEX, entry_keys

    ctx = multiprocessing.get_context("fork")
    n = 150
    procs = [ctx.Process(target=_record_many, args=(str(tmp_path), i * n, n)) for i in (0, 1)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    index = json.loads((tmp_path / INDEX / f"{'f' * 16}.json").read_text())
    assert index == {"label": "mine", "registry": "mine", "params": {}}
    # on 86dd307 an update read the file, merged and replaced it unlocked: keys were lost
    expected = entry_keys("f" * 16, [f"page{i:05d}" for i in range(2 * n)])
    keys = (tmp_path / INDEX / f"{'f' * 16}.keys").read_text().splitlines()
    assert sorted(keys) == sorted(expected)
    assert not [p.name for p in (tmp_path / INDEX).iterdir() if p.suffix == ".tmp"]
