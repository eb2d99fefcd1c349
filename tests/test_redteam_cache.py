"""Issue 37's attacks on the cache (items 2, 6, 17 and 19), each performed and its defence
asserted: a user's helper module is in its method's key, a forged or foreign score or
extraction record is a miss, a full cache disk is one line naming the cache folder, and two
processes recording the method index at once lose no key (docs/cache.md)."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

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
