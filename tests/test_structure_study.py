"""Structure and metadata end to end (issue 39): stored Markdown copies of WCXB's gold score 1.0
on every element kind a page has, the same copies with their headings demoted lose every heading
and nothing else, and ``study=structure`` writes its named rows with the own methods never failing."""

from __future__ import annotations

import gzip
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from evalkit.core.elements import markdown_text, parse_markdown
from evalkit.core.page import Extraction, Gold, Page
from evalkit.metrics import structure

ROOT = Path(__file__).resolve().parents[1]
PAGES = 40
ATX = re.compile(r"^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
LEADS_BLOCK = re.compile(r"^(\d+(?=[.)])|(?=[-+*>]))([.)+*>-])(?=\s|$)")
FENCE = re.compile(r"^ {0,3}(```|~~~)")
BASE = [
    "runner.progress=false",
    "runner.cache=false",
    "runner.n_jobs=1",
]


def _evalkit(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "evalkit", *BASE, f"paths.results={tmp_path / 'results'}", *args]
    return subprocess.run(cmd, check=False, capture_output=True, text=True, cwd=ROOT, timeout=900)


def _demoted(md: str) -> str:
    """``md`` with every ATX heading made a paragraph of the same text (fences left alone)."""
    out, fenced = [], False
    for line in md.split("\n"):
        if FENCE.match(line):
            fenced = not fenced
        m = None if fenced else ATX.match(line)
        # a heading text that would open a list or a quote as a paragraph is escaped
        out += [LEADS_BLOCK.sub(r"\1\\\2", m.group(1)), ""] if m else [line]
    return "\n".join(out)


def _gold_copies(root: Path, folder: Path, demote: bool) -> int:
    """``<page id>.md`` copies of every WCXB gold Markdown text (the reader's limit takes
    its pages site by site, not the first ids); how many."""
    folder.mkdir(parents=True)
    files = sorted((root / "ground-truth").glob("*.json*"))
    for f in files:
        raw = gzip.decompress(f.read_bytes()) if f.suffix == ".gz" else f.read_bytes()
        md = json.loads(raw)["ground_truth"].get("main_content_markdown") or ""
        stem = f.name.split(".")[0]
        (folder / f"{stem}.md").write_text(_demoted(md) if demote else md, encoding="utf-8")
    return len(files)


def test_a_text_only_output_is_paragraphs_and_a_gold_against_itself_is_one():
    md = "# Title\n\nText here.\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\nx = 1\n```\n"
    gold = Page(id="p", dataset="d", raw=b"<p>x</p>", gold=Gold(text="", markdown=md)).gold
    state = structure.gold_state(gold)
    same = structure.extraction_scores(Extraction(text="", markdown=md), state)
    assert all(v == 1.0 for v in same.values()), same
    flat = structure.extraction_scores(Extraction(text=markdown_text(md)), state)
    # the same words as paragraphs: no heading, item, table or code block is found
    assert flat["heading_recall"] == flat["list_recall"] == flat["code_recall"] == 0.0
    assert flat["table_teds"] == 0.0 and math.isnan(flat["heading_precision"])
    assert [e.kind for e in parse_markdown(_demoted(md))].count("heading") == 0


@pytest.mark.shared
@pytest.mark.slow
def test_stored_gold_markdown_scores_one_and_demoted_headings_lose_only_headings(tmp_path, shared):
    root = shared("wcxb-dev")
    runs = {}
    for demote in (False, True):
        folder = tmp_path / ("demoted" if demote else "copies")
        _gold_copies(root, folder, demote)
        run = tmp_path / f"run_{demote}"
        done = _evalkit(
            tmp_path,
            "experiment=extraction",
            "dataset=wcxb_dev",
            f"dataset.wcxb_dev.limit={PAGES}",
            "method=stored",
            f"method.stored.path={folder}",
            "extraction.metrics=[shingle,structure]",
            "extraction.n_boot=10",
            f"hydra.run.dir={run}",
        )
        assert done.returncode == 0, done.stderr[-3000:]
        runs[demote] = pd.read_csv(
            run / "per_page.csv", low_memory=False, dtype={"page_id": str}
        ).set_index("page_id")
    same, demoted = runs[False], runs[True]
    assert len(same) == PAGES and same["error"].isna().all()
    for col in structure.COLUMNS:
        values = same[col].dropna()
        assert (values == 1.0).all(), (col, values[values != 1.0].head())
    with_headings = same["heading_recall"].notna()
    assert with_headings.sum() > PAGES // 2  # most WCXB pages have headings
    assert (demoted.loc[with_headings, "heading_recall"] == 0.0).all()
    for col in ("list_f1", "table_teds", "code_f1"):
        pd.testing.assert_series_equal(same[col], demoted[col])
    for col in ("shingle_f1", "word_f1", "lcs_f1"):
        if col in same:
            assert abs(same[col].mean() - demoted[col].mean()) <= 0.01, col


@pytest.mark.shared
@pytest.mark.slow
def test_structure_study_writes_its_named_rows_and_own_methods_never_fail(tmp_path, shared):
    shared("wcxb-dev"), shared("cleaneval-dev")
    run = tmp_path / "run"
    done = _evalkit(
        tmp_path,
        "study=structure",
        "dataset.wcxb_dev.limit=12",
        "dataset.cleaneval_dev.limit=6",
        "method=[proposed,cetd,meta_tags,trafilatura]",
        "structure.n_boot=20",
        f"hydra.run.dir={run}",
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "structure, sorted by heading F1" in done.stdout
    summary = pd.read_csv(run / "summary.csv")
    wcxb = summary[summary["dataset"] == "wcxb_dev"]
    for name in ("heading_f1", "heading_level_accuracy", "list_f1", "table_teds"):
        assert set(wcxb.loc[wcxb["metric"] == name, "method"]) >= {"proposed", "cetd"}, name
    for name in ("title_accuracy", "author_f1", "date_accuracy"):
        assert "meta_tags" in set(wcxb.loc[wcxb["metric"] == name, "method"]), name
    assert "meta_tags" not in set(wcxb.loc[wcxb["metric"] == "heading_f1", "method"])
    fails = summary[
        (summary["metric"] == "failures") & summary["method"].isin(["proposed", "cetd"])
    ]
    assert (fails["value"] == 0).all() and len(fails) == 6  # wcxb, cleaneval, webmainbench
    for stem in ("structure_wcxb_dev", "metadata_wcxb_dev", "structure_cleaneval_dev"):
        assert (run / "tables" / f"{stem}.tex").is_file(), stem
    assert (run / "figures" / "structure_wcxb_dev.png").is_file()


def test_element_diff_lists_what_was_kept_missed_and_invented_row_by_row():
    gold = parse_markdown("# A\n\n## B\n\n- x\n- y\n\n| h | k |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n")
    pred = parse_markdown("# A\n\n# Z\n\n- x\n\n| h | k |\n|---|---|\n| 1 | 2 |\n")
    assert structure.element_diff(pred, gold) == [
        ("heading", "kept", "A"),
        ("heading", "missed", "B"),
        ("heading", "invented", "Z"),
        ("list_item", "kept", "x"),
        ("list_item", "missed", "y"),
        ("table row", "kept", "h | k"),
        ("table row", "kept", "1 | 2"),
        ("table row", "missed", "3 | 4"),
    ]
    assert all(s == "kept" for _, s, _ in structure.element_diff(gold, gold))


def test_the_page_browser_shows_a_methods_structure_diff(tmp_path):
    from evalkit.report.pages import KEPT_FILE, page_records

    gold_md = "# Title\n\nBody.\n\n- one\n- two\n"
    rows = [
        {
            "kind": "page",
            "dataset": "d",
            "page_id": "p",
            "gold": "Title Body. one two",
            "elements": [
                ["heading", "Title", 1, 0, None],
                ["paragraph", "Body.", None, 0, None],
                ["list_item", "one", None, 0, None],
                ["list_item", "two", None, 0, None],
            ],
        },
        {
            "kind": "extraction",
            "dataset": "d",
            "page_id": "p",
            "method": "m",
            "text": "Title Body. one",
            "error": None,
            "blocks": [],
            "markdown": "Title\n\nBody.\n\n- one\n",
        },
    ]
    with gzip.open(tmp_path / KEPT_FILE, "wt", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in rows)
    per_page = pd.DataFrame(
        [{"dataset": "d", "page_id": "p", "method": "m", "shingle_f1": 0.9, "error": None}]
    )
    (page,) = page_records(tmp_path, per_page, [("d", "p", "all")])
    assert page["methods"]["m"]["structure"] == [
        ["heading", "missed", "Title"],
        ["list_item", "kept", "one"],
        ["list_item", "missed", "two"],
    ]
    assert parse_markdown(gold_md)[0].level == 1


def test_stored_jsonl_markdown_fields_are_the_outputs_markdown(tmp_path):
    from baselines.stored import Stored

    md = "# Title\n\nBody text.\n\n- one\n"
    lines = [
        {"page_id": "a", "markdown": md},
        {"page_id": "b", "text": "plain words", "markdown": md},
        {"page_id": "c", "text": "only text"},
    ]
    (tmp_path / "tool.jsonl").write_text("\n".join(json.dumps(x) for x in lines), encoding="utf-8")
    method = Stored(path=str(tmp_path / "tool.jsonl"))

    def page(pid):
        return Page(id=pid, dataset="d", raw=b"<p>x</p>", gold=Gold(text=""))

    a, b, c = (method.extract(page(p)) for p in "abc")
    assert (a.text, a.markdown) == ("Title\nBody text.\none", md)
    assert (b.text, b.markdown) == ("plain words", md)
    assert (c.text, c.markdown) == ("only text", None)


def test_webmainbench_reader_gives_markdown_gold_and_skips_what_it_cannot_read(tmp_path):
    from evalkit.readers.webmainbench import WebMainBenchDataset

    lines = [
        {
            "track_id": "a",
            "url": "https://x.org/a",
            "html": "<h1>T</h1><p>Body</p>",
            "groundtruth_content": "# T\n\nBody\n",
            "meta": {"level": "simple", "language": "en"},
        },
        {"track_id": "b", "html": "", "groundtruth_content": "x"},
        "not an object",
    ]
    (tmp_path / "one.jsonl").write_text("\n".join(json.dumps(x) for x in lines), encoding="utf-8")
    ds = WebMainBenchDataset(path=str(tmp_path), files=("one.jsonl", "absent.jsonl"))
    (page,) = list(ds.pages())
    assert (page.id, page.url, page.site, page.category) == (
        "a",
        "https://x.org/a",
        "x.org",
        "simple",
    )
    assert (page.gold.markdown, page.gold.text, page.html) == (
        "# T\n\nBody\n",
        "T\nBody",
        lines[0]["html"],
    )
    reasons = " ".join(s.reason for s in ds.skipped)
    assert "no html" in reasons and "not a JSON object" in reasons and "no such file" in reasons


@pytest.mark.shared
def test_webmainbench_sample_gold_scored_against_itself_is_one(shared):
    from evalkit.readers.webmainbench import WebMainBenchDataset

    ds = WebMainBenchDataset(path=str(shared("webmainbench-sample")))
    pages = list(ds.pages())
    assert len(pages) == 5  # 6 lines, one page in both files (skipped as a duplicate id)
    for page in pages:
        state = structure.gold_state(page.gold)
        scores = structure.extraction_scores(
            Extraction(text="", markdown=page.gold.markdown), state
        )
        assert all(v == 1.0 for v in scores.values() if not math.isnan(v)), page.id
