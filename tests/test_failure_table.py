"""report.md's failure table: one row per (data set, method), and one row for the methods whose
first errors are the same but for their own names (a benchmark's stored outputs that all lack the
same pages), so the table stays readable with 23 of them."""

from __future__ import annotations

from evalkit.harness.summary import failure_table


def _fail(method, page, error, dataset="d"):
    return {"dataset": dataset, "method": method, "page": page, "error": error}


def test_stored_outputs_missing_the_same_page_share_one_row():
    tools = ["boilernet", "bs4", "bte"]
    failures = [
        _fail(f"published:{t}", "p1", f"MissingOutput: no page 'p1' in /x/{t}.jsonl.gz")
        for t in tools
    ]
    failures += [_fail("newspaper4k", "p2", "LookupError: punkt"), _fail("cetd", "p3", "boom")]
    table = failure_table(failures)
    assert list(table["method"]) == ["published:boilernet (+2: bs4, bte)", "newspaper4k", "cetd"]
    assert list(table["failed pages"]) == [1, 1, 1]
    assert table.loc[0, "first error"].endswith("/x/boilernet.jsonl.gz")


def test_methods_with_other_counts_or_sets_keep_their_rows():
    failures = [
        _fail("published:a", "p1", "missing in /a.jsonl"),
        _fail("published:b", "p1", "missing in /b.jsonl"),
        _fail("published:b", "p2", "missing in /b.jsonl"),  # two pages: not alike
        _fail("published:c", "p1", "missing in /c.jsonl", dataset="e"),  # another set
    ]
    assert list(failure_table(failures)["method"]) == ["published:a", "published:b", "published:c"]


def test_the_console_says_it_once_for_methods_failing_alike():
    from evalkit.harness.preflight import failure_lines

    failures = [
        _fail(f"published:{t}", "p1", f"MissingOutput: no page 'p1' in /x/{t}.jsonl.gz")
        for t in ("boilernet", "bs4", "bte")
    ] + [_fail("cetd", "p3", "boom")]
    pages = {("d", f"published:{t}"): 30 for t in ("boilernet", "bs4", "bte")} | {("d", "cetd"): 30}
    lines = failure_lines(failures, pages)
    assert lines == [
        (
            "  published:boilernet and 2 more alike on d: 1 of 30 pages failed each; first: "
            "MissingOutput: no page 'p1' in /x/boilernet.jsonl.gz"
        ),
        "  cetd on d: 1 of 30 pages failed; first: boom",
    ]
