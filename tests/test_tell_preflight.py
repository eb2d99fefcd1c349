"""Loud failures (issue 29, item 1): a method that cannot run stops the run before any page,
or is dropped and said so; a method that fails most pages makes the command exit non-zero.

"Without the peers installed" is simulated, not done: the command runs in a subprocess
that first imports tests/block_peers.py, which makes every import of a peer library fail
as on a machine without it (the shared environment keeps its packages).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit.harness.config import ConfigError
from evalkit.harness.preflight import (
    Settings,
    check_methods,
    failure_lines,
    over_share,
    unavailable,
)
from evalkit.harness.specs import MethodSpec

ROOT = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent
HANG = 600  # seconds: only to detect a hang


def _evalkit(args, cwd, block=True, extra_path=()):
    env = {
        **os.environ,
        "PYTHONHASHSEED": "0",
        "EVALKIT_ROOT": str(ROOT),
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(TESTS), *map(str, extra_path)]),
    }
    code = (
        "import block_peers; block_peers.run_evalkit()"
        if block
        else "import sys; from evalkit.shell.entry import run; sys.argv=['evalkit', "
        "*sys.argv[1:]]; run()"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        env=env,
        check=False,
        capture_output=True,
        text=True,
        timeout=HANG,
    )


def _lines(text):
    return [line for line in text.splitlines() if line.strip()]


def test_a_missing_peer_stops_the_study_in_one_line(tmp_path):
    res = _evalkit(
        ["study=kabir2015", "runner.progress=false", f"paths.results={tmp_path}/res"], tmp_path
    )
    out = _lines(res.stdout + res.stderr)
    assert res.returncode == 2, res.stderr
    assert out == [
        (
            "evalkit: method 'trafilatura': trafilatura is not installed: pip install "
            '"evalkit[peers]" (or runner.skip_unavailable=true to run without it)'
        )
    ]
    assert not list(tmp_path.rglob("run.json"))  # no run folder
    assert not (tmp_path / "res" / "runs").exists()


def test_skip_unavailable_drops_the_peer_and_says_so_everywhere(tmp_path):
    res = _evalkit(
        [
            "experiment=extraction",
            "dataset=synthetic",
            "dataset.synthetic.limit=3",
            "method=[cetd,trafilatura]",
            "runner.skip_unavailable=true",
            "runner.n_jobs=1",
            "runner.progress=false",
            "extraction.n_boot=20",
            f"hydra.run.dir={tmp_path}/run",
            f"paths.cache={tmp_path}/cache",
        ],
        tmp_path,
    )
    assert res.returncode == 0, res.stderr
    assert (
        "evalkit: skipped method 'trafilatura': trafilatura is not installed: pip install "
        '"evalkit[peers]"'
    ) in res.stderr
    run = tmp_path / "run"
    info = json.loads((run / "run.json").read_text())
    assert list(info["methods"]) == ["cetd"]
    assert info["skipped_methods"] == {
        "trafilatura": 'trafilatura is not installed: pip install "evalkit[peers]"'
    }
    report = (run / "report.md").read_text()
    note = "Skipped (runner.skip_unavailable): trafilatura (trafilatura is not installed"
    # the head says it once, and each table's caption (the line above it) carries it too
    n_tables = len(re.findall(r"^\|[-:| ]+\|$", report, flags=re.MULTILINE))
    assert n_tables == 4 and report.count(note) == n_tables + 1


def test_a_bad_constructor_value_of_ones_own_method_stops_before_any_page(tmp_path):
    (tmp_path / "mymod.py").write_text(
        "from evalkit.method import Extractor\n"
        "from evalkit.page import Extraction\n"
        "class Mine(Extractor):\n"
        "    def __init__(self, n=3):\n"
        "        self.n = n\n"
        "    def extract(self, page):\n"
        "        return Extraction(text=' '.join(page.html.split()[: self.n * 10]))\n"
    )
    res = _evalkit(
        [
            "experiment=extraction",
            "dataset=synthetic",
            "method=fulltext",
            "method.mine._target_=mymod.Mine",
            "method.mine.n=abc",
            "runner.progress=false",
            f"paths.results={tmp_path}/res",
        ],
        tmp_path,
        block=False,
    )
    assert res.returncode == 2, res.stdout + res.stderr
    # 'abc' * 10 is a string; slicing a list with it raises TypeError on the test page
    assert _lines(res.stderr) == [
        (
            "evalkit: method 'mine' fails on a small test page before the run: TypeError: "
            "slice indices must be integers or None or have an __index__ method (its "
            "parameters: n='abc')"
        )
    ]
    assert not list(tmp_path.rglob("run.json"))


def test_a_method_failing_most_pages_exits_1_after_writing_everything(tmp_path):
    stored = tmp_path / "tool.json"  # outputs for no page of the synthetic set: all fail
    stored.write_text(json.dumps({"nope": {"articleBody": "text"}}))
    res = _evalkit(
        [
            "experiment=extraction",
            "dataset=synthetic",
            "dataset.synthetic.limit=4",
            "method=[fulltext,stored]",
            f"method.stored.path={stored}",
            "runner.n_jobs=1",
            "runner.progress=false",
            "extraction.n_boot=20",
            f"hydra.run.dir={tmp_path}/run",
            f"paths.cache={tmp_path}/cache",
        ],
        tmp_path,
        block=False,
    )
    assert res.returncode == 1, res.stderr
    assert (tmp_path / "run" / "summary.csv").is_file()  # written before the exit
    assert "evalkit: failures per method (first error; all in run.json):" in res.stdout
    assert (
        "  stored on synthetic: 4 of 4 pages failed; first: MissingOutput: no stored "
        "output for page" in res.stdout
    )
    over = [line for line in res.stderr.splitlines() if "max_failure_share" in line]
    assert len(over) == 1 and over[0].startswith(
        "evalkit: method 'stored' failed on 4 of 4 pages of synthetic (more than "
        "runner.max_failure_share=0.5); first error: MissingOutput: no stored output"
    )


def test_unavailable_names_cause_and_fix_in_process(monkeypatch):
    monkeypatch.setitem(sys.modules, "trafilatura", None)  # import fails; find_spec raises
    gone = unavailable(MethodSpec("traf", "trafilatura"))
    assert gone is not None and gone.line() == (
        "method 'traf': trafilatura is not installed: pip install \"evalkit[peers]\""
    )
    assert unavailable(MethodSpec("cetd", "cetd")) is None
    specs = [MethodSpec("cetd", "cetd"), MethodSpec("traf", "trafilatura")]
    with pytest.raises(ConfigError, match="^method 'traf': trafilatura is not installed"):
        check_methods(specs, Settings())
    kept, dropped = check_methods(specs, Settings(skip_unavailable=True))
    assert [s.label for s in kept] == ["cetd"] and [u.label for u in dropped] == ["traf"]


def test_failure_shares_count_each_page_once():
    failures = [
        {"dataset": "aeb", "page": p, "method": "m", "error": f"ValueError: {p}"}
        for p in ("a", "b", "a")
    ]  # page a recorded by two parts
    pages = {("aeb", "m"): 4}
    assert failure_lines(failures, pages) == [
        ("  m on aeb: 2 of 4 pages failed; first: ValueError: a")
    ]
    assert over_share(failures, pages, 0.5) == []  # 2 of 4 is not more than half
    assert over_share(failures, {("aeb", "m"): 3}, 0.5)[0].startswith(
        "method 'm' failed on 2 of 3 pages of aeb"
    )


def test_bad_tell_settings_are_one_line():
    with pytest.raises(ConfigError, match=r"runner.max_failure_share=2: must be a share"):
        Settings.from_runner({"max_failure_share": 2})
    with pytest.raises(ConfigError, match=r"^runner.quiet=yes: must be true or false$"):
        Settings.from_runner({"quiet": "yes"})


def test_a_submodule_registered_by_its_package_counts_as_installed(tmp_path, monkeypatch):
    # resiliparse 2 registers its compiled extract.html2text when the package is imported:
    # find_spec finds no file for it (None), and after the import raises ValueError (its
    # __spec__ is None); both once made preflight call an installed peer missing
    from evalkit.harness.preflight import _importable

    pkg = tmp_path / "regpkg_evalkit_test"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        "import sys, types\nsys.modules[__name__ + '.inner'] = types.ModuleType(__name__ + '.inner')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert _importable("regpkg_evalkit_test.inner")  # before the package is imported
    assert _importable("regpkg_evalkit_test.inner")  # after: in sys.modules, no spec
    assert not _importable("regpkg_evalkit_test.absent")
    assert not _importable("no_such_package_evalkit_test.inner")
