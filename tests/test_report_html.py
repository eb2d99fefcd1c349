"""report.html (evalkit.report.html, pages, diff, store, build): the renderer, the page browser
and the page in a real browser (Debian's chromium, headless; skipped when it is absent)."""

from __future__ import annotations

import gzip
import json
import math
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from evalkit.report.build import write_html
from evalkit.report.cells import Cell, numeric_frame
from evalkit.report.diff import word_opcodes
from evalkit.report.pages import KEPT_FILE, choose_pages, diff_ops
from evalkit.report.sections import Bullets, Figure, Heading, Table, Text
from evalkit.report.store import dump_sections, load_sections
from evalkit.report.tables import format_cell

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (Debian: chromium)"
)


def test_word_opcodes_of_a_hand_worked_pair():
    gold = ["the", "cat", "sat", "on", "the", "mat"]
    text = ["menu", "the", "cat", "sat", "on", "a", "mat"]
    # "menu" added before the gold, "the" (5th gold word) replaced by "a"
    assert word_opcodes(gold, text) == [
        ("insert", 0, 0, 0, 1),
        ("equal", 0, 4, 1, 5),
        ("replace", 4, 5, 5, 6),
        ("equal", 5, 6, 6, 7),
    ]
    strings: dict[str, int] = {}
    assert diff_ops(gold, text, strings) == [["+", 0, 0], ["=", 4], ["-", 1], ["+", 1, 0], ["=", 1]]
    assert list(strings) == ["menu", "a"]


def test_a_long_pair_is_cut_at_unique_words_and_still_covers_both_lists():
    # 30,000 distinct gold words; the extraction drops every 7th and adds a word every 11th:
    # 30000 * 27000 > WORDS_DIRECT, so the anchors (unique words) cut the pair
    gold = [f"w{i}" for i in range(30_000)]
    text = []
    for i, w in enumerate(gold):
        if i % 11 == 0:
            text.append(f"x{i}")
        if i % 7:
            text.append(w)
    ops = word_opcodes(gold, text)
    i = j = 0
    for tag, i1, i2, j1, j2 in ops:
        assert (i1, j1) == (i, j)
        if tag == "equal":
            assert gold[i1:i2] == text[j1:j2]
        i, j = i2, j2
    assert (i, j) == (len(gold), len(text))
    # every kept gold word is matched: 30000 - ceil(30000 / 7) = 30000 - 4286 = 25714
    assert sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag == "equal") == 25_714


def _per_page(n_pages: int) -> pd.DataFrame:
    rows = []
    for p in range(n_pages):
        # page p: method a scores p / n, method b scores 1 - p / n: spread |1 - 2p/n|
        rows.append(("extraction", "d", str(p), "a", None, p / n_pages))
        rows.append(("extraction", "d", str(p), "b", None, 1 - p / n_pages))
    return pd.DataFrame(
        rows, columns=["experiment", "dataset", "page_id", "method", "error", "shingle_f1"]
    )


def test_choose_pages_takes_the_widest_spread_and_a_seeded_sample():
    chosen = choose_pages(_per_page(100), max_pages=10, seed=3)
    assert len(chosen) == 10
    top = {p for _, p, why in chosen if why == "disagreement"}
    # spread |1 - 2p/100| is widest at p = 0 (1.0), 99 (0.98), 1 (0.98), 98, 2: five pages
    assert top == {"0", "1", "2", "98", "99"}
    sample = [p for _, p, why in chosen if why == "sample"]
    assert len(sample) == 5 and chosen == choose_pages(_per_page(100), 10, seed=3)
    assert choose_pages(_per_page(100), 10, seed=4) != chosen
    assert {why for *_, why in choose_pages(_per_page(5), 10)} == {"all"}


def test_numeric_frame_splits_cells_into_value_and_interval_columns():
    df = pd.DataFrame(
        {
            "method": ["m1", "m2"],
            "f1": [format_cell(0.8125, 0.8, 0.83), format_cell(float("nan"))],
            "diff": [Cell(0.5, signed=True, mark="*"), "-"],
            "n": ["12", "-"],
        }
    )
    out = numeric_frame(df)
    assert list(out.columns) == [
        "method",
        "f1",
        "f1_ci_low",
        "f1_ci_high",
        "diff",
        "diff_mark",
        "n",
    ]
    assert out["f1"].tolist()[0] == 0.8125 and math.isnan(out["f1"].tolist()[1])
    assert out["f1_ci_high"].tolist()[0] == 0.83 and out["n"].dtype == float
    assert str(df["f1"][0]) == "0.812 [0.800, 0.830]"  # the md and tex text is unchanged


def _run_folder(tmp: Path) -> Path:
    """A run folder made by hand: sections, run.json, per_page.csv and kept extractions of
    two pages and three methods (one with removed blocks, one that failed)."""
    run = tmp / "run"
    (run / "figures").mkdir(parents=True)
    (run / "figures" / "f.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="5" '
        'height="5"/></svg>'
    )
    table = pd.DataFrame(
        {
            "method": ["good", "bad"],
            "shingle_f1": [format_cell(0.9, 0.85, 0.95), format_cell(0.25, 0.2, 0.3)],
        }
    )
    sections = [
        Heading("evalkit run: extraction", 1),
        Text("Datasets: `d`. **bold**"),
        Table(table, lead="**shingle F1**"),
        Figure("figures/f.png", "F1"),
        Bullets(("one", "two")),
    ]
    dump_sections(sections, run / "report_sections.json", "evalkit run: extraction")
    (run / "run.json").write_text(json.dumps({"experiment": "extraction", "seed": 0}))
    rows = [
        ("extraction", "d", "p1", "good", None, 1.0),
        ("extraction", "d", "p1", "bad", None, 0.2),
        ("extraction", "d", "p1", "broken", "boom: it failed", 0.0),
        ("extraction", "d", "p2", "good", None, 0.5),
        ("extraction", "d", "p2", "bad", None, 0.9),
        ("extraction", "d", "p2", "broken", "boom: it failed", 0.0),
    ]
    pd.DataFrame(
        rows, columns=["experiment", "dataset", "page_id", "method", "error", "shingle_f1"]
    ).to_csv(run / "per_page.csv", index=False)
    recs = []
    for page, gold, good, bad in (
        ("p1", "alpha beta gamma delta", "alpha beta gamma delta", "menu alpha login"),
        ("p2", "one two three four", "one two", "one two three four"),
    ):
        recs.append({"kind": "page", "dataset": "d", "page_id": page, "gold": gold})
        recs.append(
            {
                "kind": "extraction",
                "dataset": "d",
                "page_id": page,
                "method": "good",
                "text": good,
                "error": None,
                "blocks": [],
            }
        )
        recs.append(
            {
                "kind": "extraction",
                "dataset": "d",
                "page_id": page,
                "method": "bad",
                "text": bad,
                "error": None,
                "blocks": [
                    {
                        "index": 0,
                        "tag": "div",
                        "text": "beta gamma",
                        "words": 2,
                        "kept": False,
                        "stage": "scoring",
                        "rule": "low_score",
                        "reason": "score 0.1 < 0.5",
                        "duplicate_of": None,
                        "scores": {"score": 0.1},
                        "attrs": {"cf_class": "short"},
                    }
                ],
            }
        )
        recs.append(
            {
                "kind": "extraction",
                "dataset": "d",
                "page_id": page,
                "method": "broken",
                "missing": "not in the cache: the method failed on the page",
            }
        )
    with gzip.open(run / KEPT_FILE, "wt") as f:
        f.writelines(json.dumps(r) + "\n" for r in recs)
    return run


def test_report_html_stands_alone_with_sortable_tables_and_the_page_data(tmp_path):
    run = _run_folder(tmp_path)
    title, sections = load_sections(run / "report_sections.json")
    assert sections[2].frame["shingle_f1"][0] == "0.900 [0.850, 0.950]"  # a Cell again
    path = write_html(run, sections, title, max_pages=None)
    page = path.read_text()
    assert not re.search(r'(src|href)="https?://', page)
    assert 'src="data:image/svg+xml;base64,' in page
    assert '<td class="n" data-v="0.9">0.900 [0.850, 0.950]</td>' in page
    assert "<code>d</code>" in page and "<b>bold</b>" in page
    packed = re.search(r'id="pages-data" data-encoding="gzip-base64">([^<]+)<', page).group(1)
    import base64

    data = json.loads(gzip.decompress(base64.b64decode(packed)))
    assert data["methods"] == ["good", "bad", "broken"]
    p1 = data["pages"][0]
    assert p1["gold"] == "alpha beta gamma delta" and p1["methods"]["good"]["diff"] == [["=", 4]]
    # bad on p1: "menu" added, "alpha" kept, "beta gamma delta" missed, "login" added
    assert p1["methods"]["bad"]["diff"] == [["+", 0, 0], ["=", 1], ["-", 3], ["+", 1, 0]]
    assert p1["methods"]["bad"]["removed"] == [
        [0, "scoring", "low_score", "score 0.1 < 0.5", "cf_class=short, score=0.1", 2, "beta gamma"]
    ]
    assert p1["methods"]["broken"]["missing"].startswith("not in the cache")
    assert p1["scores"]["broken"]["error"] == "boom: it failed"


def _chromium(url: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=10000",
            *args,
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@needs_chromium
def test_the_page_browser_in_chromium_shows_a_diff_and_sorts(tmp_path):
    run = _run_folder(tmp_path)
    title, sections = load_sections(run / "report_sections.json")
    path = write_html(run, sections, title, max_pages=None)
    # page 1, A = good, B = bad, the list sorted by A - B (a click on its head): p1 (+0.8)
    # and p2 (-0.4) -> p2 first
    url = path.as_uri() + "#page=1&a=good&b=bad&sort=diff"
    done = _chromium(url, "--dump-dom")
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    assert console == [], console  # no error, no message at all
    dom = done.stdout
    assert 'data-browser="ready"' in dom
    rows = re.findall(r'<tr data-i="(\d+)"[^>]*>(.*?)</tr>', dom)
    assert [i for i, _ in rows] == ["1", "0"]  # p2 (index 1) before p1 after the sort
    assert '<th id="col-d" aria-sort="ascending">' in dom
    bad = dom[dom.index('data-method="bad"') :]
    bad = bad[: bad.index('data-method="broken"')]
    assert "<ins>menu </ins>alpha <del>beta gamma delta </del><ins>login </ins>" in bad
    assert "low_score" in bad and "score 0.1 &lt; 0.5" in bad
    assert "Extraction not kept: not in the cache" in dom and "Error: boom: it failed" in dom
    shot = tmp_path / "report.png"
    _chromium(
        url + "&view=pages", "--hide-scrollbars", "--window-size=1200,900", f"--screenshot={shot}"
    )
    assert shot.exists() and shot.stat().st_size > 10_000
    keep = Path("/tmp/evalkit-report-html-screenshot.png")  # to be looked at by a person
    shutil.copyfile(shot, keep)


@pytest.mark.slow
def test_an_extraction_run_writes_report_html_and_keeps_its_extractions(tmp_path, shared):
    from hydra import compose, initialize_config_dir

    from evalkit.experiments import run_experiment
    from evalkit.harness.config import CONFIG_DIR, register_resolvers

    shared("cleaneval-dev")
    register_resolvers()
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(
            config_name="config",
            overrides=[
                "experiment=extraction",
                "dataset=cleaneval_dev",
                "dataset.cleaneval_dev.limit=4",
                "method=[cetd,justext_style]",
                "runner.progress=false",
                f"paths.cache={tmp_path / 'cache'}",
                "report.max_pages=3",
            ],
        )
    out = run_experiment(cfg, tmp_path / "run")
    page = (out / "report.html").read_text()
    assert "<table" in page and not re.search(r'(src|href)="https?://', page)
    assert "3 of the run&#39;s 4 pages (report.max_pages=3)" in page  # ' escaped
    with gzip.open(out / KEPT_FILE, "rt") as f:
        kept = [json.loads(line) for line in f]
    # 4 pages: a page record and two extraction records each
    assert len(kept) == 12 and sum(r["kind"] == "page" for r in kept) == 4
    js = [r for r in kept if r.get("method") == "justext_style"]
    # the jusText-style classifier records no stage or rule, but each paragraph's classes
    assert all("text" in r for r in js), [r.get("missing") for r in js]
    assert any(not b["kept"] and b["attrs"].get("cf_class") for r in js for b in r["blocks"])


def test_python_m_evalkit_report_rebuilds_with_every_page_or_fewer(tmp_path, capsys):
    from evalkit.report.__main__ import main

    run = _run_folder(tmp_path)
    assert main([str(run), "--pages", "all"]) == 0
    assert "All 2 pages of the run." in (run / "report.html").read_text()
    assert main([str(run), "--pages", "1"]) == 0
    page = (run / "report.html").read_text()
    # one page of two: max_pages // 2 = 0 by disagreement, one drawn with the run's seed
    assert "1 of the run&#39;s 2 pages (report.max_pages=1): the 0 where" in page
    assert main([str(tmp_path / "nowhere")]) == 2
    assert "report_sections.json not found" in capsys.readouterr().err


def test_report_settings_are_checked_before_a_run():
    from omegaconf import OmegaConf

    from evalkit.experiments.checks import check_sections
    from evalkit.harness.config import ConfigError

    check_sections(OmegaConf.create({"report": {"max_pages": None, "method_order": "config"}}))
    with pytest.raises(ConfigError, match="report.method_order"):
        check_sections(OmegaConf.create({"report": {"method_order": "alphabet"}}))
    with pytest.raises(ConfigError, match="report.max_pages"):
        check_sections(OmegaConf.create({"report": {"max_pages": 0}}))
