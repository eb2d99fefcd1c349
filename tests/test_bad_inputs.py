"""Bad-input catalogue (docs/inputs.md): each bad file goes through a real reader and the real
extraction experiment. Every one is either scored like any page or listed as skipped in
run.json with a reason that names the file; the run always finishes."""

from __future__ import annotations

import codecs
import json
import math
from pathlib import Path

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir
from omegaconf import open_dict

from evalkit.core.page import Gold, Page
from evalkit.experiments import run_experiment
from evalkit.harness.config import register_resolvers
from evalkit.readers.base import Dataset
from evalkit.readers.pairs import PairsDataset
from evalkit.shell.cli import CONFIG_DIR

register_resolvers()

OWN_METHODS = [
    "proposed",
    "proposed@primary",
    "proposed@dedup",
    "cetd",
    "pab",
    "justext_style",
    "fulltext",
]
GOLD = "Main story text here about the river and the town council meeting."
PAGE = (
    "<html><head><title>T</title></head><body><div><p>" + GOLD + "</p></div>"
    "<div><a href='/'>Home</a> <a href='/x'>News</a></div></body></html>"
)
ACCENTED = "Caf\u00e9 na\u00efve r\u00e9sum\u00e9 text about the harbour."

# stem -> (page bytes, gold text or None for no gold file)
CASES = {
    "empty": (b"", GOLD),
    "binary": (bytes(range(256)) * 40, GOLD),
    # UTF-8 bytes under a latin-1 declaration: decoding cp1252 would turn é into Ã©
    "wrong_charset": (
        (
            f'<html><head><meta charset="iso-8859-1"></head><body><p>{ACCENTED}</p></body></html>'
        ).encode(),
        ACCENTED,
    ),
    "utf16_bom": (codecs.BOM_UTF16_LE + PAGE.encode("utf-16-le"), GOLD),
    "xml_decl": (('<?xml version="1.0" encoding="utf-8"?>\n' + PAGE).encode(), GOLD),
    "deep": (
        (
            "<html><body>"
            + "<div>" * 5000
            + "deep text"
            + "</div>" * 5000
            + "<p>"
            + GOLD
            + "</p></body></html>"
        ).encode(),
        GOLD,
    ),
    "unclosed": (
        (
            b"<html><body><div><p>Main story text here about the river <b>and the town "
            b"<i>council meeting.<div><table><tr><td>cell"
        ),
        GOLD,
    ),
    "no_gold": (PAGE.encode(), None),
    "empty_gold": (PAGE.encode(), ""),
    "json": (b'{"title": "x", "body": "Main story text here"}', GOLD),
    "pdf": (
        b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"
        + bytes(range(128, 256)) * 10
        + b"\n%%EOF\n",
        GOLD,
    ),
    "dup": (PAGE.encode(), GOLD),  # and dup.htm: two page files for one gold, both refused
}
SCORED = ["deep", "empty_gold", "unclosed", "utf16_bom", "wrong_charset", "xml_decl"]
#: why dup.htm and dup.html are both skipped (evalkit.readers.pairs)
AMBIGUOUS = (
    "ambiguous page: dup.htm and dup.html share the stem 'dup' of one gold file; "
    "rename or remove all but one"
)


def _write_pairs(root: Path, cases: dict) -> Path:
    (root / "html").mkdir(parents=True)
    (root / "gold").mkdir()
    for stem, (raw, gold) in cases.items():
        (root / "html" / f"{stem}.html").write_bytes(raw)
        if gold is not None:
            (root / "gold" / f"{stem}.txt").write_text(gold, encoding="utf-8")
    return root


def _run(
    data: Path,
    out: Path,
    methods: list[str] | None = None,
    experiment: tuple[str, ...] = ("experiment=extraction",),
) -> Path:
    overrides = [
        *experiment,
        f"paths.results={out / 'results'}",
        "runner.n_jobs=1",
        "runner.progress=false",
        "extraction.n_boot=20",
    ]
    if methods:
        overrides.append(f"method=[{','.join(methods)}]")
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(config_name="config", overrides=overrides)
    with open_dict(cfg):
        cfg.dataset = {"bad": {"_name_": "pairs", "path": str(data)}}
    return run_experiment(cfg, out / "run")


@pytest.fixture(scope="module")
def bad_run(tmp_path_factory):
    root = _write_pairs(tmp_path_factory.mktemp("bad") / "data", CASES)
    (root / "html" / "dup.htm").write_bytes(PAGE.encode())
    (root / "gold" / "orphan.txt").write_text(GOLD)
    out = _run(root, tmp_path_factory.mktemp("out"))
    per_page = pd.read_csv(out / "per_page.csv")
    per_page = per_page[per_page["skipped_file"].isna()]  # the scored rows
    run = json.loads((out / "run.json").read_text())
    skipped = {Path(s["file"]).name: s["reason"] for s in run["datasets"]["bad"]["skipped"]}
    return per_page, skipped, run, out


def test_every_good_enough_page_is_scored_by_every_method(bad_run):
    per_page, _, run, out = bad_run
    assert sorted(per_page["page_id"].unique()) == SCORED
    assert len(per_page) == len(SCORED) * len(OWN_METHODS)
    assert set(per_page["method"]) == set(OWN_METHODS)
    assert per_page["error"].isna().all(), per_page.loc[per_page["error"].notna(), "error"]
    assert run["n_failures"] == 0 and run["datasets"]["bad"]["n_pages"] == len(SCORED)
    summary = pd.read_csv(out / "summary.csv")
    failures = summary[summary["metric"] == "failures"].set_index("method")
    assert failures["value"].to_dict() == dict.fromkeys(OWN_METHODS, 0.0)
    assert (failures["n_pages"] == len(SCORED)).all()


def test_every_unusable_file_is_listed_with_its_reason(bad_run):
    _, skipped, _, _ = bad_run
    assert skipped == {
        "binary.html": "not HTML: binary data (11% control bytes in the first 4096 bytes)",
        "dup.htm": AMBIGUOUS,
        "dup.html": AMBIGUOUS,
        "dup.txt": "gold file of an ambiguous page",
        "empty.html": "empty page",
        "json.html": "not HTML: a JSON document",
        "no_gold.html": "no gold file for this page",
        "orphan.txt": "gold file without a page",
        "pdf.html": "not HTML: a PDF document",
    }
    # and per_page.csv has a row for each, so it accounts for every input file
    rows = pd.read_csv(bad_run[3] / "per_page.csv").dropna(subset=["skipped_file"])
    assert {Path(f).name: e for f, e in zip(rows["skipped_file"], rows["error"])} == {
        name: f"skipped: {reason}" for name, reason in skipped.items()
    }
    assert rows["method"].isna().all() and set(rows["dataset"]) == {"bad"}


def _fulltext(per_page, page_id):
    rows = per_page[(per_page["page_id"] == page_id) & (per_page["method"] == "fulltext")]
    assert len(rows) == 1
    return rows.iloc[0]


@pytest.mark.parametrize("page_id", ["wrong_charset", "utf16_bom", "xml_decl"])
def test_decoding_problems_lose_no_word(bad_run, page_id):
    # the whole visible text is the gold here, so any mis-decoded word would cost F1
    row = _fulltext(bad_run[0], page_id)
    if page_id == "wrong_charset":
        assert row["word_f1"] == 1.0 and row["n_words_out"] == 7
    else:  # visible text = gold (12 words) + "Home News"
        assert row["n_words_out"] == 14 and row["word_recall"] == 1.0
        assert row["word_precision"] == pytest.approx(12 / 14)


def test_deep_and_unclosed_pages_keep_all_their_text(bad_run):
    deep = _fulltext(bad_run[0], "deep")
    assert deep["n_words_out"] == 14 and deep["word_recall"] == 1.0  # "deep text" + gold
    unclosed = _fulltext(bad_run[0], "unclosed")
    assert unclosed["n_words_out"] == 13 and unclosed["word_recall"] == 1.0  # + "cell"


def test_an_empty_gold_page_is_scored_by_the_empty_rules(bad_run):
    per_page = bad_run[0]
    row = _fulltext(per_page, "empty_gold")
    assert row["n_words_gold"] == 0
    assert row["word_f1"] == 0.0 and math.isnan(row["word_recall"])  # nothing to find
    assert row["word_precision"] == 0.0  # every output word is a false positive
    js = per_page[(per_page["page_id"] == "empty_gold") & (per_page["method"] == "justext_style")]
    assert js["n_words_out"].item() == 0 and js["word_f1"].item() == 1.0  # both empty


def test_a_repeated_page_id_is_skipped_for_any_reader():
    class Twice(Dataset):
        name = "twice"

        def _iter_pages(self):
            for src in ("a/p1.html", "b/p1.html", "b/p2.html"):
                yield Page(
                    id=src[-7:-5],
                    dataset=self.name,
                    raw=PAGE.encode(),
                    source=src,
                    gold=Gold(text=GOLD),
                )

    ds = Twice(limit=2)
    assert [p.source for p in ds.pages()] == ["a/p1.html", "b/p2.html"]
    assert [(s.file, s.reason) for s in ds.skipped] == [
        ("b/p1.html", "duplicate page id 'p1' (first read from a/p1.html)")
    ]


def test_a_utf16_page_without_bom_is_read_from_its_nul_pattern(tmp_path):
    root = _write_pairs(tmp_path, {"u16": (PAGE.encode("utf-16-le"), GOLD)})
    ds = PairsDataset(path=str(root))
    (page,) = ds.pages()
    assert (page.html, page.encoding, page.encoding_source) == (PAGE, "utf-16-le", "nul-pattern")
    assert ds.skipped == []


def test_nul_bytes_that_are_not_utf16_are_named_as_such(tmp_path):
    # odd length: not UTF-16, so the NUL bytes make it binary, with the hint
    root = _write_pairs(tmp_path, {"u16": (PAGE.encode("utf-16-le") + b"x", GOLD)})
    ds = PairsDataset(path=str(root))
    assert list(ds.pages()) == []
    (skip,) = ds.skipped
    assert skip.file.endswith("u16.html")
    assert skip.reason.endswith("UTF-16 without a byte-order mark?)")


def test_a_10_mb_page_is_scored(tmp_path):
    # about 2 million words; the LCS masks used to be built in quadratic time (minutes)
    para = "<div><p>" + " ".join(f"w{i % 997}" for i in range(200)) + ".</p></div>\n"
    raw = "<html><body>" + para * (10_000_000 // len(para)) + f"<p>{GOLD}</p></body></html>"
    root = _write_pairs(tmp_path / "data", {"huge": (raw.encode(), GOLD)})
    assert (root / "html" / "huge.html").stat().st_size > 10_000_000
    # runner.max_score_words (100,000 by default) would make fulltext's 2-million-word output a
    # "too long to score" failure (tests/test_redteam_score.py): lifted to score it
    out = _run(
        root,
        tmp_path,
        methods=["fulltext", "pab"],  # ~13 s here (the old masks: minutes)
        experiment=("experiment=extraction", "runner.max_score_words=null"),
    )
    per_page = pd.read_csv(out / "per_page.csv").set_index("method")
    assert per_page["error"].isna().all()
    assert per_page.loc["fulltext", "n_words_out"] > 1_900_000
    assert per_page.loc["fulltext", "word_recall"] == 1.0
    assert per_page.loc["fulltext", "unit_tp"] == 12  # the gold paragraph's unit, kept


def test_the_dedup_and_units_experiments_also_take_the_bad_set(tmp_path):
    root = _write_pairs(tmp_path / "data", CASES)
    out = _run(root, tmp_path, experiment=("experiment=all", "experiment.parts=[dedup,units]"))
    per_page = pd.read_csv(out / "per_page.csv")
    skipped = per_page[per_page["skipped_file"].notna()]
    per_page = per_page[per_page["skipped_file"].isna()]
    assert set(per_page["experiment"]) == {"dedup", "units"}
    assert set(per_page["page_id"]) == {*SCORED, "dup"}  # no dup.htm beside dup.html here
    assert "error" not in per_page or per_page["error"].isna().all()
    # the files the reader passed over, once each, under the run's experiment name
    assert len(skipped) == len(CASES) - len(SCORED) - 1 and set(skipped["experiment"]) == {"all"}
    run = json.loads((out / "run.json").read_text())
    assert run["n_failures"] == 0
    summary = pd.read_csv(out / "summary.csv")
    assert set(summary["experiment"]) == {"dedup", "units"}
