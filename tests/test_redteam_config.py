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

HOSTILE = ("../../x", "a/b", "v1.0", "v1.1")


def _env(**more) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO), EVALKIT_ROOT=str(REPO), **more)
    env.pop("PYTHONHASHSEED", None)
    return env


def _evalkit(*args, cwd, timeout=120, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "evalkit", *args],
        cwd=cwd,
        env=env or _env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.strip()]


# ---------------------------------------------------------------- item 6: labels as file names


def test_the_mapping_keeps_plain_labels_and_hashes_every_other():
    from evalkit.report.filenames import HASH_HEX, MAX_PLAIN, file_stem

    assert [file_stem(x) for x in ("aeb", "l3s_gn1", "v1.0", "v1.1")] == [
        "aeb",
        "l3s_gn1",
        "v1.0",
        "v1.1",
    ]
    up, slash = file_stem("../../x"), file_stem("a/b")
    # ../../x: "/" -> "_" gives ".._.._x"; its leading "." -> "_"; then "-" and 8 hex digits
    assert re.fullmatch(rf"_\._\.\._x-[0-9a-f]{{{HASH_HEX}}}", up)
    assert re.fullmatch(rf"a_b-[0-9a-f]{{{HASH_HEX}}}", slash)
    # a/b and a:b clean to the same text and differ by their hashes; a_b keeps its name
    assert len({file_stem("a/b"), file_stem("a:b"), file_stem("a_b")}) == 3
    for label in ("..", ".", "", ".hidden", "-rf", "é", "x" * (MAX_PLAIN + 1), "a\\b", "a\0b"):
        stem = file_stem(label)
        assert stem and "/" not in stem and "\\" not in stem and "\0" not in stem
        assert stem not in (".", "..") and not stem.startswith((".", "-"))
        assert len(stem) <= MAX_PLAIN + 1 + HASH_HEX


def test_an_extension_is_appended_never_cut_at_a_dot():
    from evalkit.report.filenames import with_ext

    assert with_ext(Path("t/extraction_v1.0"), ".csv") == Path("t/extraction_v1.0.csv")
    assert with_ext("t/extraction_v1.1", ".png") != with_ext("t/extraction_v1.0", ".png")


def _tiny_folder(root: Path) -> Path:
    root.mkdir(parents=True)
    for i in (1, 2, 3):
        (root / f"p{i}.html").write_text(
            f"<html><body><p>alpha beta gamma {i} delta</p><div>menu home</div></body></html>"
        )
        (root / f"p{i}.txt").write_text(f"alpha beta gamma {i} delta\n")
    return root


def test_hostile_labels_write_inside_the_run_folder_to_distinct_files(tmp_path):
    data = _tiny_folder(tmp_path / "d" / "e" / "data")
    results = tmp_path / "d" / "e" / "res"
    before = {p for p in tmp_path.rglob("*")}
    r = evalkit.evaluate(
        dataset={label: str(data) for label in HOSTILE},
        methods=["fulltext"],
        **{
            "paths.results": str(results),
            "runner.n_jobs": 1,
            "runner.progress": False,
            "runner.cache": False,
            "extraction.n_boot": 20,
        },
    )
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


# ---------------------------------------------------------------- item 7: what _target_ may name

USER_MODULE = '''
from evalkit.core.method import Extractor
from evalkit.core.page import Extraction

BUILT = []


class Loud(Extractor):
    """Writes a file when built: building it during the override check is visible."""

    def __init__(self, path: str = "", n: int = 3):
        self.path, self.n = path, n
        if path:
            open(path, "w").close()

    def extract(self, page):
        return Extraction(text=" ".join(page.html.split()[:self.n]))


def first_words(html):
    return " ".join(html.split()[:3])


import os
system = os.system          # a re-export: defined in the standard library
'''


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / "rt_user.py").write_text(textwrap.dedent(USER_MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    sys.modules.pop("rt_user", None)
    return tmp_path


@pytest.mark.parametrize(
    "target",
    [
        "os.system",
        "subprocess.Popen",
        "builtins.eval",
        "shutil.rmtree",
        "functools.partial",
        "posix.system",
        "numpy.load",
        "pandas.read_pickle",
        "cloudpickle.loads",
        "rt_user.system",
        "evalkit.harness.rundir.discard",
    ],
)
def test_a_target_outside_the_users_code_is_refused_in_one_line(target, user_module):
    from evalkit.harness.config import ConfigError, method_specs

    with pytest.raises(ConfigError) as err:
        method_specs({"x": {"_target_": target}})
    assert str(err.value).startswith("method.x._target_: ") and "\n" not in str(err.value)


def test_the_users_class_and_function_and_a_registry_class_are_accepted(user_module):
    from evalkit.harness.config import method_specs

    specs = method_specs(
        {
            "a": {"_target_": "rt_user.Loud", "n": 2},
            "b": {"_target_": "rt_user.first_words"},
            "c": {"_target_": "baselines.cetd.CETD"},
        }
    )
    assert [s.origin for s in specs] == ["target"] * 3


def test_checking_the_overrides_builds_nothing(user_module):
    from evalkit.shell.overrides import check_overrides, target_overrides

    built = user_module / "built"
    argv = target_overrides(
        [
            "experiment=extraction",
            "dataset=synthetic",
            "method=[fulltext]",
            "method.a._target_=rt_user.Loud",
            f"method.a.path={built}",
            f"paths.results={user_module / 'res'}",
        ]
    )
    assert check_overrides(argv) is None
    assert not built.exists()  # the class was checked against its signature, not built
    bad = check_overrides(
        target_overrides(
            [
                "experiment=extraction",
                "dataset=synthetic",
                "method.a._target_=rt_user.Loud",
                f"method.a.path={built}",
                "method.a.m=1",
            ]
        )
    )
    assert bad == "evalkit: method 'a' has no parameter m; valid: path, n"
    assert not built.exists()


def test_popen_with_args_runs_nothing_while_the_overrides_are_checked(tmp_path):
    from evalkit.shell.overrides import check_overrides, target_overrides

    pwned = tmp_path / "pwned"
    argv = target_overrides(
        [
            "experiment=extraction",
            "dataset=synthetic",
            "method.x._target_=subprocess.Popen",
            f"method.x.args=[touch,{pwned}]",
            f"paths.results={tmp_path / 'res'}",
        ]
    )
    msg = check_overrides(argv)
    assert msg is not None and msg.startswith("evalkit: method.x._target_: subprocess.Popen")
    assert not pwned.exists()


def test_a_global_package_data_set_cannot_inject_a_method(tmp_path):
    from evalkit.shell.overrides import check_overrides

    (tmp_path / "conf" / "dataset").mkdir(parents=True)
    pwned = tmp_path / "pwned"
    (tmp_path / "conf" / "dataset" / "evil.yaml").write_text(
        "# @package _global_\nmethod:\n  x:\n    _target_: subprocess.Popen\n"
        f"    args: [touch, {pwned}]\n"
    )
    msg = check_overrides(
        [
            "--config-dir",
            str(tmp_path / "conf"),
            "experiment=extraction",
            "dataset=evil",
            f"paths.results={tmp_path / 'res'}",
        ]
    )
    assert msg is not None and "subprocess.Popen is from the standard library" in msg
    assert not pwned.exists()


@pytest.mark.parametrize("cfg_job", [False, True])
def test_the_command_stops_with_one_line_and_no_run_folder(tmp_path, cfg_job):
    pwned = tmp_path / "pwned"
    args = (["--cfg", "job"] if cfg_job else []) + [
        "experiment=extraction",
        "dataset=synthetic",
        "method.x._target_=subprocess.Popen",
        f"method.x.args=[touch,{pwned}]",
        f"paths.results={tmp_path / 'res'}",
        "runner.progress=false",
    ]
    done = _evalkit(*args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert len(_lines(done.stderr)) == 1 and "subprocess.Popen" in done.stderr
    assert not pwned.exists() and not (tmp_path / "res").exists()


# ---------------------------------------------------------------- item 14: folders and loops


def test_a_results_or_cache_folder_that_cannot_be_written_is_one_line(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    for key, extra in (
        ("paths.results", []),
        ("paths.cache", [f"paths.results={tmp_path / 'res'}"]),
    ):
        done = _evalkit(
            "experiment=extraction",
            "dataset=synthetic",
            f"{key}={blocker / 'sub'}",
            *extra,
            cwd=tmp_path,
        )
        assert done.returncode == 2, done.stderr
        assert _lines(done.stderr) == [
            f"evalkit: {key}={blocker / 'sub'}: cannot write there ({blocker}): ENOTDIR: "
            f"Not a directory; set {key} to a folder you can write"
            + (", or runner.cache=false to run without it" if key == "paths.cache" else "")
        ]
        assert not (tmp_path / "res").exists()


@pytest.mark.parametrize("code", ["ENOSPC", "EROFS"])
def test_a_full_or_read_only_folder_fails_the_probe_and_leaves_nothing(tmp_path, monkeypatch, code):
    import errno as errno_

    from evalkit.harness import rundir

    def full(fd, data):
        raise OSError(getattr(errno_, code), os.strerror(getattr(errno_, code)))

    monkeypatch.setattr(rundir.os, "write", full)
    msg = rundir.unwritable(tmp_path / "res", "paths.results")
    assert msg.startswith(
        f"paths.results={tmp_path / 'res'}: cannot write there ({tmp_path}): {code}: "
    )
    assert list(tmp_path.iterdir()) == []  # the probe file is gone, no folder was made


def test_a_disk_that_fills_during_the_run_is_one_line(tmp_path):
    # the run's own writes failing midway: run_experiment raises ENOSPC naming a file
    script = textwrap.dedent(f"""
        import errno, os, sys
        import evalkit.experiments as E
        def boom(cfg, out, **kw):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), os.path.join(out, "x.csv"))
        E.run_experiment = boom
        from evalkit.shell.cli import main
        sys.argv = ["evalkit", "experiment=extraction", "dataset=synthetic",
                    "paths.results={tmp_path / "res"}"]
        main()
    """)
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    (line,) = _lines(done.stderr)
    assert re.fullmatch(
        r"evalkit: cannot write .*/x\.csv: ENOSPC: No space left on device; "
        r".* is incomplete",
        line,
    )


@pytest.mark.parametrize(
    "loop",
    [
        ["paths.cache=${paths.results}/c", "paths.results=${paths.cache}/r"],
        ["extraction.n_boot=${seed}", "seed=${extraction.n_boot}"],
    ],
)
def test_an_interpolation_loop_is_one_line_naming_the_key_and_no_folder(tmp_path, loop):
    results = tmp_path / "res"
    extra = [] if loop[0].startswith("paths") else [f"paths.results={results}"]
    done = _evalkit("experiment=extraction", "dataset=synthetic", *loop, *extra, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    (line,) = _lines(done.stderr)
    a, b = (x.split("=")[0] for x in loop)
    assert re.fullmatch(
        rf"evalkit: ({a}|{b}): interpolation loop ({a} -> {b} -> {a}|"
        rf"{b} -> {a} -> {b}) \(a value that refers back to itself\)",
        line,
    ), line
    assert list(tmp_path.iterdir()) == []  # no run folder, no .hydra/ folder


def test_an_experiment_name_that_is_no_plain_name_makes_no_folder(tmp_path):
    from evalkit.shell.overrides import check_overrides

    msg = check_overrides(
        [
            "experiment=extraction",
            "dataset=synthetic",
            "experiment.name=../../escaped",
            f"paths.results={tmp_path / 'r'}",
        ]
    )
    assert msg == (
        "evalkit: experiment.name=../../escaped: not a plain name (letters, digits, "
        "_ - and ., not starting with . or -): it names the run's folder"
    )
    assert list(tmp_path.iterdir()) == []
