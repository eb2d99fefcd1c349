"""``python -m evalkit.compare``: two runs of one config differ by nothing, a known change is
found exactly, pages and methods of one run only are counted, bad input is one line
(docs/compare.md)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from evalkit.compare import compare_runs, console_text, main, read_run

FAST = {"n_boot": 200, "n_perm": 2000, "seed": 0}


def _records(methods=("m", "other"), pages=12, dataset="s") -> pd.DataFrame:
    rng = np.random.default_rng(7)
    rows = []
    for i in range(pages):
        for method in methods:
            f1 = float(rng.uniform(0.2, 0.8))
            rows.append(
                {
                    "experiment": "extraction",
                    "dataset": dataset,
                    "page_id": f"p{i:02d}",
                    "method": method,
                    "error": None,
                    "seconds": float(rng.uniform(0.001, 0.01)),  # no score: never compared
                    "kaur_tp": int(rng.integers(0, 100)),  # a count: never compared
                    "shingle_precision": float(rng.uniform(0.2, 0.8)),
                    "shingle_f1": f1,
                    "word_f1": f1 / 2,
                }
            )
    return pd.DataFrame(rows)


def _run(folder, frame: pd.DataFrame, info: dict | None = None):
    folder.mkdir(parents=True)
    frame.to_csv(folder / "per_page.csv", index=False)
    if info is not None:
        (folder / "run.json").write_text(json.dumps(info))
    return folder


def _assert_no_difference(cmp):
    rows = cmp.rows
    assert len(rows) and (rows["n_pages"] > 0).all()
    assert (rows["diff"] == 0.0).all()
    assert (rows["ci_low"] == 0.0).all() and (rows["ci_high"] == 0.0).all()
    assert (rows["mean_a"] == rows["mean_b"]).all()
    assert (rows["p_value"] == 1.0).all() and (rows["p_holm"] == 1.0).all()
    assert cmp.pages.empty
    assert not (cmp.pages_only_a or cmp.pages_only_b or cmp.methods_only_a or cmp.methods_only_b)
    assert (rows["only_a"] == 0).all() and (rows["only_b"] == 0).all()


def test_the_same_records_twice_differ_by_nothing(tmp_path):
    a = _run(tmp_path / "a", _records())
    b = _run(tmp_path / "b", _records())
    cmp = compare_runs(a, b, **FAST)
    _assert_no_difference(cmp)
    # every score of both runs, per method; ids, timings and counts are no scores
    assert set(cmp.rows["metric"]) == {"shingle_precision", "shingle_f1", "word_f1"}
    assert list(dict.fromkeys(cmp.rows["method"])) == ["m", "other"]
    text = console_text(cmp)
    assert "0.000 [0.000, 0.000]" in text and "no page moved on shingle_f1" in text


def test_a_known_difference_is_found_exactly_with_the_pages_that_moved(tmp_path, capsys):
    frame = _records()
    later = frame.copy()
    later.loc[later["method"] == "m", "shingle_f1"] += 0.1
    a, b = _run(tmp_path / "a", frame), _run(tmp_path / "b", later)
    cmp = compare_runs(a, b, top=5, **FAST)
    rows = cmp.rows.set_index(["method", "metric"])
    moved = rows.loc[("m", "shingle_f1")]
    assert moved["n_pages"] == 12
    assert moved["diff"] == pytest.approx(0.1, abs=1e-12)
    assert moved["mean_b"] - moved["mean_a"] == pytest.approx(0.1, abs=1e-12)
    assert moved["ci_low"] == pytest.approx(0.1, abs=1e-12)
    assert moved["ci_high"] == pytest.approx(0.1, abs=1e-12)
    assert moved["p_value"] < 0.01  # 12 pages all up: 2 of 4096 sign patterns reach it
    # every other row is unchanged
    rest = cmp.rows[~((cmp.rows["method"] == "m") & (cmp.rows["metric"] == "shingle_f1"))]
    assert (rest["diff"] == 0).all() and (rest["p_value"] == 1).all()
    # Holm over all 6 rows: the one small p times 6
    assert moved["p_holm"] == pytest.approx(min(1.0, 6 * moved["p_value"]))
    # the moved pages: method m only, the top 5, each by +0.1
    assert list(cmp.pages["method"].unique()) == ["m"] and len(cmp.pages) == 5
    assert np.allclose(cmp.pages["diff"], 0.1, atol=1e-12)
    assert (cmp.pages["score_b"] - cmp.pages["score_a"]).round(9).eq(0.1).all()
    assert main([str(a), str(b), "--n-boot", "200", "--n-perm", "2000"]) == 0
    out = capsys.readouterr().out
    assert "+0.100* [0.100, 0.100]" in out
    assert "pages that moved most on shingle_f1" in out


def test_a_page_of_one_run_only_is_counted_and_never_scored(tmp_path):
    frame = _records()
    later = frame[frame["page_id"] != "p00"].copy()
    extra = frame[frame["page_id"] == "p01"].assign(page_id="p99", shingle_f1=0.0)
    later = pd.concat([later, extra], ignore_index=True)
    cmp = compare_runs(_run(tmp_path / "a", frame), _run(tmp_path / "b", later), **FAST)
    assert cmp.pages_only_a == [("s", "p00")] and cmp.pages_only_b == [("s", "p99")]
    assert (cmp.rows["n_pages"] == 11).all()
    assert (cmp.rows["only_a"] == 1).all() and (cmp.rows["only_b"] == 1).all()
    assert (cmp.rows["diff"] == 0).all()  # the extra page's 0.0 is never scored
    text = console_text(cmp)
    assert "pages only in run A (1), not scored: s/p00" in text
    assert "pages only in run B (1), not scored: s/p99" in text


def test_an_undefined_value_leaves_the_page_out_of_that_row_only(tmp_path):
    frame = _records()
    later = frame.copy()
    later.loc[(later["method"] == "m") & (later["page_id"] == "p03"), "word_f1"] = math.nan
    cmp = compare_runs(_run(tmp_path / "a", frame), _run(tmp_path / "b", later), **FAST)
    n = cmp.rows.set_index(["method", "metric"])["n_pages"]
    assert n[("m", "word_f1")] == 11 and n[("m", "shingle_f1")] == 12
    assert n[("other", "word_f1")] == 12


def test_a_method_of_one_run_only_is_listed_and_a_version_change_said(tmp_path):
    info = {"evalkit_version": "0.1.0", "methods": {"m": {"packages": {"trafilatura": "1.12"}}}}
    newer = {"evalkit_version": "0.1.0", "methods": {"m": {"packages": {"trafilatura": "2.0"}}}}
    a = _run(tmp_path / "a", _records(("m", "other")), info)
    b = _run(tmp_path / "b", _records(("m", "new")), newer)
    cmp = compare_runs(a, b, **FAST)
    assert cmp.methods_only_a == ["other"] and cmp.methods_only_b == ["new"]
    assert set(cmp.rows["method"]) == {"m"}
    text = console_text(cmp)
    assert "methods only in run A, not compared: other" in text
    assert "methods only in run B, not compared: new" in text
    assert "m: packages trafilatura 1.12 -> 2.0" in text


def test_named_scores_and_the_headline(tmp_path):
    frame = _records()
    later = frame.assign(word_f1=frame["word_f1"] - 0.05)
    a, b = _run(tmp_path / "a", frame), _run(tmp_path / "b", later)
    cmp = compare_runs(a, b, scores=["word_f1", "nope"], headline="word_f1", top=2, **FAST)
    assert set(cmp.rows["metric"]) == {"word_f1"}
    assert cmp.rows["diff"].to_numpy() == pytest.approx([-0.05, -0.05], abs=1e-12)
    assert len(cmp.pages) == 4 and set(cmp.pages["metric"]) == {"word_f1"}
    assert any("nope" in n for n in cmp.notes)


def test_the_numbers_depend_on_the_seed_only(tmp_path):
    frame = _records()
    later = frame.assign(shingle_f1=frame["shingle_f1"] * 1.1)
    a, b = _run(tmp_path / "a", frame), _run(tmp_path / "b", later)
    one, two = compare_runs(a, b, **FAST), compare_runs(a, b, **FAST)
    pd.testing.assert_frame_equal(one.rows, two.rows)


def test_out_writes_the_tables(tmp_path, capsys):
    frame = _records()
    later = frame.assign(shingle_f1=frame["shingle_f1"] + 0.1)
    a, b = _run(tmp_path / "a", frame), _run(tmp_path / "b", later)
    out = tmp_path / "cmp"
    assert main([str(a), str(b), "--out", str(out), "--n-boot", "100", "--n-perm", "500"]) == 0
    for name in ("compare.csv", "compare.md", "compare.tex", "compare_pages.csv"):
        assert (out / name).is_file(), name
    table = pd.read_csv(out / "compare.csv")
    assert {"diff", "diff_ci_low", "diff_ci_high", "p_holm", "n_pages"} <= set(table.columns)
    assert table.loc[table["metric"] == "shingle_f1", "diff"].round(6).eq(0.1).all()
    pages = pd.read_csv(out / "compare_pages.csv", dtype={"page_id": str})
    assert len(pages) == 20 and set(pages["method"]) == {"m", "other"}
    assert "wrote compare.csv" in capsys.readouterr().out


def test_a_missing_folder_or_file_is_one_line_and_exit_2(tmp_path, capsys):
    a = _run(tmp_path / "a", _records())
    assert main([str(tmp_path / "nope"), str(a)]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == f"evalkit.compare: {tmp_path / 'nope'}: no such run folder\n"
    (tmp_path / "empty").mkdir()
    assert main([str(a), str(tmp_path / "empty")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{tmp_path / 'empty' / 'per_page.csv'}: not found" in err


def test_a_link_out_of_the_run_folder_is_refused(tmp_path, capsys):
    a = _run(tmp_path / "a", _records())
    (tmp_path / "b").mkdir()
    os.symlink(a / "per_page.csv", tmp_path / "b" / "per_page.csv")
    assert main([str(a), str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "out of" in err and "not read" in err


def test_a_table_that_is_no_per_page_table_is_one_line(tmp_path, capsys):
    a = _run(tmp_path / "a", _records())
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "per_page.csv").write_text("x,y\n1,2\n")
    assert main([str(a), str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a per-page table" in err


def test_a_parquet_copy_is_read_first(tmp_path):
    pytest.importorskip("pyarrow")
    from evalkit.report.per_page_parquet import write_per_page_parquet

    a = _run(tmp_path / "a", _records())
    b = _run(tmp_path / "b", _records())
    write_per_page_parquet(b / "per_page.csv")
    (b / "per_page.csv").write_text("not, a\ntable")  # would fail if it were read
    _assert_no_difference(compare_runs(a, b, **FAST))


def test_the_command_and_its_help():
    done = subprocess.run(
        [sys.executable, "-m", "evalkit.compare", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and "docs/compare.md" in done.stdout
    assert "--n-boot" in done.stdout and "--out DIR" in done.stdout


def _real_run(root, name, *overrides):
    """A real extraction run (12 synthetic pages, CETD and fulltext) in ``root / name``."""
    cmd = [
        sys.executable,
        "-m",
        "evalkit",
        "experiment=extraction",
        "dataset=synthetic",
        "dataset.synthetic.limit=12",
        "method=[cetd,fulltext]",
        *overrides,
        "extraction.n_boot=20",
        "runner.progress=false",
        "runner.cache=false",
        f"paths.results={root}",
        f"hydra.run.dir={root / name}",
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return root / name


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """Two real runs of one config (synthetic pages, CETD and fulltext)."""
    root = tmp_path_factory.mktemp("runs")
    return [_real_run(root, name) for name in ("a", "b")]


@pytest.mark.slow
def test_two_runs_of_one_config_report_zero_differences(two_runs):
    a, b = two_runs
    cmp = compare_runs(a, b, **FAST)
    _assert_no_difference(cmp)
    assert list(dict.fromkeys(cmp.rows["method"])) == ["cetd", "fulltext"]
    assert (cmp.rows["n_pages"] == 12).all()
    assert {"shingle_f1", "word_f1", "rouge_lsum_f1"} <= set(cmp.rows["metric"])
    assert not any(m.endswith(("_tp", "_fp", "_fn", "_tn")) for m in cmp.rows["metric"])
    assert not {"seconds", "n_bytes", "complexity"} & set(cmp.rows["metric"])
    assert read_run(a).info["methods"].keys() == {"cetd", "fulltext"}
    done = subprocess.run(
        [sys.executable, "-m", "evalkit.compare", str(a), str(b), "--n-boot", "100"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "no page moved on shingle_f1" in done.stdout
    assert "cetd      shingle_f1" in done.stdout


@pytest.mark.slow
def test_two_configs_give_the_known_difference_of_their_per_page_scores(two_runs, tmp_path):
    """Run b again with CETD's other variant (cetd_ds, Sun et al.'s plain text density): the
    compare finds, per metric, the mean of the per-page differences the two per_page.csv files
    hold, and fulltext, whose config did not change, moves by nothing."""
    a, _ = two_runs
    _real_run(tmp_path, "c", "method.cetd.variant=cetd_ds")
    cmp = compare_runs(a, tmp_path / "c", **FAST)
    rows = cmp.rows.set_index(["method", "metric"])
    pa = pd.read_csv(a / "per_page.csv").set_index(["method", "page_id"])["shingle_f1"]
    pb = pd.read_csv(tmp_path / "c" / "per_page.csv").set_index(["method", "page_id"])["shingle_f1"]
    known = (pb - pa).loc["cetd"]
    assert known.abs().max() > 0  # the variants keep different blocks on these pages
    assert rows.loc[("cetd", "shingle_f1"), "diff"] == pytest.approx(known.mean(), abs=1e-12)
    assert (rows.loc["fulltext"]["diff"] == 0).all()
    moved = cmp.pages[cmp.pages["metric"] == "shingle_f1"] if "metric" in cmp.pages else cmp.pages
    assert set(moved["method"]) <= {"cetd"}
