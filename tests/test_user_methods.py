"""Your own method from your own file: ``method.<label>._target_=module.Class`` (Hydra's
convention), built in every worker, keyed in the cache by its file's source."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest
from conftest import REPO

from evalkit.harness.cache_keys import describe_method, outside_source
from evalkit.harness.config import ConfigError, check_specs, method_specs
from evalkit.harness.specs import MethodSpec
from evalkit.shell.overrides import check_overrides, target_overrides

MODULE = '''
"""A user's method: the first ``n`` words of the page's visible text."""
from evalkit.core.method import Extractor
from evalkit.core.page import Extraction
from evalkit.core.visible import visible_text


class FirstWords(Extractor):
    def __init__(self, n: int = 5):
        self.n = n

    def extract(self, page):
        words = visible_text(page.tree()).split()
        return Extraction(text=" ".join(words[:KEEP(self.n)]))


def KEEP(n):
    return n
'''


def _write(folder: Path, body: str = MODULE) -> Path:
    path = folder / "user_words.py"
    path.write_text(textwrap.dedent(body))
    return path


def _cli(tmp_path: Path, *args: str) -> Path:
    """``python -m evalkit`` from ``tmp_path`` (the user's folder, holding their module)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("PYTHONHASHSEED", None)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalkit",
            "experiment=extraction",
            "dataset=synthetic",
            "dataset.synthetic.n_sites=2",
            "dataset.synthetic.pages_per_site=3",
            "method=[fulltext]",
            "method.mine._target_=user_words.FirstWords",
            "method.mine.n=40",
            f"paths.results={tmp_path / 'results'}",
            f"paths.cache={tmp_path / 'cache'}",
            "extraction.n_boot=10",
            "runner.progress=false",
            *args,
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return Path(re.search(r"evalkit: results in (\S+)", done.stdout).group(1))


def _pages(run: Path) -> pd.DataFrame:
    pp = pd.read_csv(run / "per_page.csv")
    return pp[pp["method"].notna()].set_index(["method", "page_id"]).sort_index()


@pytest.mark.slow
def test_a_class_from_a_file_runs_in_two_workers_and_an_edit_re_extracts(tmp_path):
    path = _write(tmp_path)
    first = _pages(_cli(tmp_path, "runner.n_jobs=2"))
    mine = first.loc["mine"]
    assert len(mine) == 6 and mine["error"].isna().all()
    assert (mine["n_words_out"] == 40).all()  # built with n=40 in the workers
    assert not first["cached"].any()
    again = _pages(_cli(tmp_path, "runner.n_jobs=2"))
    assert again["cached"].all()  # nothing changed: every extraction read back
    # an edit to a helper in the same file changes what the method returns
    path.write_text(path.read_text().replace("    return n\n", "    return n // 2\n"))
    edited = _pages(_cli(tmp_path, "runner.n_jobs=2"))
    assert not edited.loc["mine", "cached"].any()  # re-extracted
    assert (edited.loc["mine", "n_words_out"] == 20).all()
    assert edited.loc["fulltext", "cached"].all()  # the other method is untouched


@pytest.mark.slow
def test_a_class_from_a_file_runs_on_dask_workers(tmp_path):
    _write(tmp_path)
    pp = _pages(_cli(tmp_path, "runner=dask", "runner.n_workers=2", "runner.cache=false"))
    assert (pp.loc["mine", "n_words_out"] == 40).all()
    assert pp["error"].isna().all()


def test_the_command_line_adds_a_target_method_without_a_plus():
    argv = [
        "dataset=aeb",
        "method.mine._target_=m.C",
        "method.mine.n=3",
        "method.cetd.variant=x",
        "+method.other.k=1",
    ]
    assert target_overrides(argv) == [
        "dataset=aeb",
        "++method.mine._target_=m.C",
        "++method.mine.n=3",
        "method.cetd.variant=x",
        "+method.other.k=1",
    ]


def test_name_checks_accept_a_target_and_name_its_mistakes(tmp_path, monkeypatch):
    _write(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    specs = method_specs({"mine": {"_target_": "user_words.FirstWords", "n": 3}})
    assert specs[0].origin == "target" and specs[0].params == {"n": 3}
    check_specs(specs)
    with pytest.raises(ConfigError, match=r"method 'mine' has no parameter k; valid: n"):
        check_specs(method_specs({"mine": {"_target_": "user_words.FirstWords", "k": 3}}))
    with pytest.raises(
        ConfigError,
        match=r"method.mine._target_=nowhere_xyz.C: cannot import "
        r"'nowhere_xyz'; the module must be importable",
    ):
        method_specs({"mine": {"_target_": "nowhere_xyz.C"}})
    with pytest.raises(ConfigError, match=r"either _target_ or _name_"):
        method_specs({"mine": {"_target_": "user_words.FirstWords", "_name_": "cetd"}})
    with pytest.raises(ConfigError, match=r"FirstWord.*has no attribute|no attribute"):
        method_specs({"mine": {"_target_": "user_words.FirstWord"}})
    monkeypatch.chdir(tmp_path)
    assert (
        check_overrides(
            target_overrides(["method=[fulltext]", "method.mine._target_=user_words.FirstWords"])
        )
        is None
    )
    msg = check_overrides(
        target_overrides(
            ["method=[fulltext]", "method.mine._target_=user_words.FirstWords", "method.mine.k=3"]
        )
    )
    assert msg == ("evalkit: method 'mine' has no parameter k; valid: n")


def test_the_key_holds_the_source_of_an_outside_function(tmp_path, monkeypatch):
    path = tmp_path / "user_fn.py"
    path.write_text("def upper(html):\n    return html.upper()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import user_fn

    assert outside_source(user_fn.upper) == path.read_text()
    spec = MethodSpec.from_object("up", user_fn.upper)
    facts = describe_method(spec)
    # its module's text, and what the function is (code, closure, defaults: issue 31)
    assert facts.uncached is None and sorted(facts.outside) == ["identity:user_fn.upper", "user_fn"]
    edited = MethodSpec(
        spec.label,
        spec.registry,
        {},
        origin="object",
        obj=user_fn.upper,
        source=spec.source + "# edited\n",
    )
    assert describe_method(edited).key() != facts.key()
    # a function whose source cannot be read is never cached
    blind = MethodSpec(
        spec.label, spec.registry, {}, origin="object", obj=user_fn.upper, source=None
    )
    assert describe_method(blind).key() is None
    assert "cannot be read" in describe_method(blind).uncached
    # a method from evalkit's own packages keys on its import closure, as registry methods do
    from baselines.reference import FullText

    own = describe_method(MethodSpec.from_object("ft", FullText()))
    assert not own.outside and "baselines.reference" in own.modules
