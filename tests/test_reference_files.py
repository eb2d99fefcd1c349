"""``python -m evalkit.reference --check`` compares every number file of an entry, not only
summary.csv (issue 31, item 15): buckets.csv, pairwise.csv and the csv tables, timings
checked for presence only, and the CI subset (``--quick``) holds every kind of entry. And no
committed summary has a method with fewer pages than another of its table (item 3)."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest
from conftest import REPO

from evalkit.harness import reference
from evalkit.harness.reference_check import (
    Comparison,
    compare_number_file,
    is_timing_column,
    is_timing_file,
    number_files,
)

QUICK_REF = REPO / "results" / "reference" / "quick"


def _frame(rows: list[list[str]], columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=columns, dtype=str)


BUCKETS = [
    "dataset",
    "bucket",
    "complexity_min",
    "complexity_max",
    "method",
    "metric",
    "value",
    "ci_low",
    "ci_high",
    "n_pages",
]


def test_a_page_moved_to_another_bucket_is_a_difference():
    old = _frame(
        [
            ["aeb", "low", "0", "0.2", "cetd", "shingle_f1", "0.5", "0.4", "0.6", "9"],
            ["aeb", "medium", "0.2", "0.5", "cetd", "shingle_f1", "0.7", "0.6", "0.8", "8"],
        ],
        BUCKETS,
    )
    new = old.copy()
    new.loc[0, "n_pages"], new.loc[1, "n_pages"] = "10", "7"  # one page moved low <- medium
    out = compare_number_file("e", "buckets.csv", old, new)
    assert out.compared == 2
    assert out.differences == [
        "e: buckets.csv row 1 (aeb / low / cetd): n_pages committed 9 recomputed 10",
        "e: buckets.csv row 2 (aeb / medium / cetd): n_pages committed 8 recomputed 7",
    ]
    same = compare_number_file("e", "buckets.csv", old, old.copy())
    assert same.differences == [] and same.compared == 2


def test_rows_and_columns_that_differ_in_number_are_one_line_each():
    old = _frame([["a", "1"], ["b", "2"]], ["method", "x"])
    assert compare_number_file("e", "t.csv", old, old.iloc[:1]).differences == [
        "e: t.csv: committed 2 rows, recomputed 1"
    ]
    wider = old.assign(y="3")
    assert compare_number_file("e", "t.csv", old, wider).differences == [
        "e: t.csv: columns differ (committed only: -; recomputed only: ['y'])"
    ]


def test_timings_are_checked_for_presence_only():
    assert all(
        is_timing_column(c)
        for c in (
            "ms",
            "total_ms",
            "fingerprint_ms",
            "time (s)",
            "ms / page",
            "seconds",
            "pages/s",
            "peak_rss_mb",
        )
    )
    assert not any(
        is_timing_column(c)
        for c in ("items", "stored (MB)", "n_pages", "method", "shingle_f1", "terms", "timestamps")
    )
    assert is_timing_file("speed_aeb.csv") and not is_timing_file("dedup_aeb_timing.csv")
    old = _frame(
        [["cetd", "page", "1.5", "12", "3.1"]],
        ["method", "scope", "fingerprint_ms", "items", "total_ms"],
    )
    new = old.assign(fingerprint_ms="9.9", total_ms="20.0")
    assert compare_number_file("e", "tables/dedup_aeb_timing.csv", old, new).differences == []
    assert (
        compare_number_file(
            "e", "tables/dedup_aeb_timing.csv", old, new.assign(items="13")
        ).differences
        != []
    )
    timed = compare_number_file("e", "tables/speed_aeb.csv", old, new.assign(items="13"))
    assert timed.differences == [] and timed.timing == 1


def test_a_method_of_another_version_is_not_compared():
    old = _frame([["trafilatura", "0.5"], ["cetd", "0.7"]], ["method", "shingle_f1"])
    new = _frame([["trafilatura", "0.6"], ["cetd", "0.7"]], ["method", "shingle_f1"])
    out = compare_number_file(
        "e",
        "tables/extraction_aeb.csv",
        old,
        new,
        {"trafilatura": "trafilatura 2 installed, reference made with 1"},
    )
    assert out.differences == [] and out.not_comparable == {"trafilatura": 1}
    # a wide table: its column is left out, the other columns compared
    wide = _frame([["cetd", "0.1", "0.2"]], ["method", "cetd", "trafilatura"])
    out = compare_number_file(
        "e", "tables/x.csv", wide, wide.assign(trafilatura="0.9"), {"trafilatura": "..."}
    )
    assert out.differences == []


@pytest.mark.skipif(not QUICK_REF.is_dir(), reason="no committed quick reference")
def test_every_number_file_of_a_committed_entry_is_compared(tmp_path):
    files = number_files(QUICK_REF)
    assert "buckets.csv" in files and "pairwise.csv" in files
    assert any(f.startswith("tables/extraction_") for f in files)
    fresh = tmp_path / "quick"
    shutil.copytree(QUICK_REF, fresh)
    result = Comparison("quick")
    reference.compare_files(result, "quick", QUICK_REF, fresh, {})
    assert result.differences == [] and result.files == 1 + len(files)
    # one page's complexity bucket moved in buckets.csv: caught though summary.csv is equal
    frame = pd.read_csv(fresh / "buckets.csv", dtype=str, keep_default_na=False)
    frame.loc[0, "n_pages"] = str(int(frame.loc[0, "n_pages"]) + 1)
    frame.to_csv(fresh / "buckets.csv", index=False)
    (fresh / "tables" / "extraction_aeb.csv").unlink()
    result = Comparison("quick")
    reference.compare_files(result, "quick", QUICK_REF, fresh, {})
    assert len(result.differences) == 2
    assert result.differences[0].startswith("quick: buckets.csv row 1 (")
    assert result.differences[1] == (
        "quick: tables/extraction_aeb.csv committed, not made by the recomputed run"
    )


def _tables(summary: pd.DataFrame) -> pd.DataFrame:
    """Each summary row's table: (experiment, dataset, metric family, or the metric itself for
    a row of no family: failures, seconds, pages_correct...). The readings study writes a
    second table per data set, its stage 1-3 switches (labels ``switch; preset``,
    ``(default); preset`` among them), on its first ``readings.switch_pages`` pages only."""
    from evalkit.metrics.families import family_of

    # a family's own breakdown rows (WCXB's wcxb_f1_<page type>: the pages of that type) are
    # a table each; the family's summarised columns are one table
    def table(metric: str) -> str:
        fam = family_of(metric)
        if fam is None:
            return metric
        head = metric.rpartition("_")[0]  # wcxb_f1 of wcxb_f1_forum
        return metric if fam.summary_columns([head]) else fam.name

    family = [table(m) for m in summary.metric]
    part = summary.method.str.contains("; ", regex=False).map({True: "switches", False: ""})
    return summary.assign(table=family, part=part)


#: experiments whose methods cover different pages by the benchmark's own definition: WCEB
#: scores a stored tool on the pages it has an output for (its means are over those), and
#: some tools have none for some sets (evalkit/experiments/wceb.py); the structure study
#: averages each element kind over the pages where the gold or the output has it, so a
#: method that invents a table has one more page for TEDS (docs/metrics.md, structure)
OWN_PAGES = {"wceb", "structure"}


def _uneven(summary: pd.DataFrame) -> list[str]:
    """One line per table in which a method has fewer pages than another."""
    lines = []
    summary = summary[~summary["experiment"].isin(OWN_PAGES)]
    for key, rows in _tables(summary).groupby(["experiment", "dataset", "table", "part"]):
        counts = rows.groupby("method").n_pages.agg(["min", "max"])
        if counts["min"].min() != counts["max"].max():
            low = counts["min"].idxmin()
            lines.append(
                f"{'/'.join(str(k) for k in key if k)}: {low} has "
                f"{counts['min'].min()} pages, {counts['max'].idxmax()} "
                f"{counts['max'].max()}"
            )
    return lines


def test_a_method_with_fewer_pages_than_another_of_its_table_is_found():
    # the CleanEval-final case: resiliparse's scoring failed on one page of 681
    rows = [
        ["extraction", "cleaneval_final", m, f"shingle_{k}", "0.5", n]
        for m, n in (("resiliparse", 680), ("fulltext", 681))
        for k in ("f1", "recall")
    ]
    rows += [
        ["extraction", "cleaneval_final", m, "failures", "0", 681]
        for m in ("resiliparse", "fulltext")
    ]
    summary = pd.DataFrame(
        rows, columns=["experiment", "dataset", "method", "metric", "value", "n_pages"]
    )
    assert _uneven(summary) == [
        ("extraction/cleaneval_final/shingle: resiliparse has 680 pages, fulltext 681")
    ]
    summary["n_pages"] = 681
    assert _uneven(summary) == []


REFERENCE_SUMMARIES = sorted((REPO / "results" / "reference").glob("*/summary.csv"))


@pytest.mark.skipif(not REFERENCE_SUMMARIES, reason="no committed reference")
def test_no_committed_summary_has_a_method_with_fewer_pages_than_another_of_its_table():
    # issue 31, item 3: a page whose scoring failed was left out of one method's means only
    # (resiliparse 680 pages beside 681); every committed entry is read
    uneven = [
        f"{path.parent.name}: {line}"
        for path in REFERENCE_SUMMARIES
        for line in _uneven(pd.read_csv(path))
    ]
    assert len(REFERENCE_SUMMARIES) >= 18
    assert uneven == []


def _kind(overrides: list[str]) -> str:
    """What an entry exercises: its study, else its experiment (``all`` with no overrides)."""
    for o in overrides:
        if o.startswith("study="):
            return o
    return next((o for o in overrides if o.startswith("experiment=")), "experiment=all")


def test_the_ci_subset_holds_every_kind_of_entry():
    kinds = {_kind(v) for v in reference.ENTRIES.values()}
    quick = {_kind(reference.ENTRIES[name]) for name in reference.QUICK}
    assert kinds - quick == set()
    # every method of the full extraction entry runs in CI on some pages
    full = reference.ENTRIES["extraction_all"]
    methods = next(o for o in full if o.startswith("method="))
    assert any(methods in reference.ENTRIES[name] for name in reference.QUICK)
