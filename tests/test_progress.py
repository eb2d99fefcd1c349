"""evalkit.report.progress: bars with a total that stay as the last line; progress=false is silent."""

from __future__ import annotations

import io
import re

import pytest

from evalkit.report import progress


@pytest.fixture(autouse=True)
def _progress_on():
    progress.set_enabled(True)
    yield
    progress.set_enabled(True)


def _last_line(text: str) -> str:
    # what a terminal shows last: the text after the last carriage return of the last line
    lines = [ln for ln in text.split("\n") if ln.strip()]
    return lines[-1].split("\r")[-1]


def test_a_bar_has_its_total_rate_and_eta_and_stays_as_the_last_line():
    out = io.StringIO()
    got = list(progress.track(range(7), 7, "extraction aeb", unit="page", stream=out))
    assert got == list(range(7))
    text = out.getvalue()
    assert text.endswith("\n")  # closed with leave=True: the bar stays, the cursor below it
    last = _last_line(text)
    assert last.startswith("extraction aeb: 100%")
    assert "7/7" in last  # count of its total
    assert re.search(r"\[\d\d:\d\d<\d\d:\d\d, ", last)  # elapsed<time left (ETA)
    assert re.search(r"(page/s|s/page)\]$", last)  # the rate


def test_count_moves_the_bar_by_each_items_weight():
    out = io.StringIO()
    list(progress.track([[1, 2], [3], [4, 5, 6]], 6, "pages", count=len, stream=out))
    assert "6/6" in _last_line(out.getvalue())


def test_progress_false_prints_nothing_at_all():
    out = io.StringIO()
    progress.set_enabled(False)
    assert list(progress.track(range(3), 3, "pages", stream=out)) == [0, 1, 2]
    with progress.bar(10, "bootstrap", stream=out) as b:
        b.update(10)
    progress.line("evalkit: sweep job 0 ended", stream=out)
    assert list(progress.steps(["a", "b"], 2, "[reference] entry", stream=out)) == ["a", "b"]
    assert out.getvalue() == ""
    # show= decides for one bar whatever the switch says
    list(progress.track(range(2), 2, "forced", stream=out, show=True))
    assert "2/2" in out.getvalue()


def test_steps_print_a_line_per_step_with_the_time_left():
    out = io.StringIO()
    ticks = iter([0.0, 0.0, 10.0, 10.0, 30.0])  # start; step 1 from 0 to 10; step 2 to 30
    got = list(
        progress.steps(["aeb", "chaos"], 3, "[check] entry", stream=out, clock=lambda: next(ticks))
    )
    assert got == ["aeb", "chaos"]
    # after step 1: 10 s for 1 of 3, so 2 x 10 s left; after step 2: 30 s / 2 x 1 = 15 s left
    assert out.getvalue().splitlines() == [
        "[check] entry 1/3 (aeb) done in 00:10; 00:10 elapsed, about 00:20 left",
        "[check] entry 2/3 (chaos) done in 00:20; 00:30 elapsed, about 00:15 left",
    ]


def test_the_runner_draws_one_bar_per_map_and_none_with_progress_false(capsys):
    from evalkit.harness.runner import Runner

    assert list(Runner(progress=True).map(abs, [-1, -2, -3], desc="tasks", total=3)) == [1, 2, 3]
    err = capsys.readouterr().err
    assert _last_line(err).startswith("tasks: 100%") and "3/3" in _last_line(err)
    assert list(Runner(progress=False).map(abs, [-1, -2], desc="tasks", total=2)) == [1, 2]
    assert capsys.readouterr().err == ""


def test_a_summary_bootstrap_draws_a_bar_of_its_resamples(capsys):
    import numpy as np

    from evalkit.harness.summary import SummaryRows

    rows = SummaryRows(n_boot=200, alpha=0.05, seed=0)
    rows.mean("aeb", "cetd", "word_f1", np.array([0.5, 0.7, 0.9]), n_pages=3)
    rows.mean("aeb", "pab", "word_f1", np.array([0.1, 0.2]), n_pages=2)
    # two page counts (3 and 2): 200 resamples each
    assert rows.batch.n_draws() == 400
    out = rows.rows("bootstrap aeb")
    assert len(out) == 2 and out[0]["ci_low"] <= 0.7 <= out[0]["ci_high"]
    last = _last_line(capsys.readouterr().err)
    assert last.startswith("bootstrap aeb: 100%") and "400/400" in last


def test_a_reader_counts_its_pages_for_the_total_without_reading_them():
    from evalkit.readers.synthetic import SyntheticDataset

    assert SyntheticDataset(n_sites=3, pages_per_site=4).page_count() == 12
    assert SyntheticDataset(n_sites=3, pages_per_site=4, limit=5).page_count() == 5


#: pages of each shared set (run.json of extraction_all), each the page total its reader counts
SHARED_PAGES = {
    "aeb": 181,
    "l3s_gn1": 621,
    "cleaneval_dev": 58,
    "cleanportaleval": 71,
    "readability": 116,
    "chaos": 360,
    "big5_2017": 90,
}


@pytest.mark.slow
@pytest.mark.parametrize("label", list(SHARED_PAGES))
def test_a_shared_sets_page_total_is_the_pages_it_reads(label):
    from conftest import shared_dataset
    from shared_pages import SETS, dataset

    ds = dataset(label, shared_dataset(SETS[label]).parent)
    total = ds.page_count()  # file names only
    n_pages = sum(1 for _ in ds.pages())
    assert total == n_pages == SHARED_PAGES[label] and ds.skipped == []
