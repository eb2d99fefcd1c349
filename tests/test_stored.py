"""``method=stored``: the stored outputs of any tool, scored by page id (baselines/stored.py).

Small stored files are written to ``tmp_path`` in each format; the scores they get are
worked by hand below. The last test feeds the ScrapingHub benchmark's stored trafilatura
output through the command and gets its published F1.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pandas as pd
import pytest

from baselines.stored import MissingOutput, Stored, StoredFileError, read_outputs
from evalkit.core.page import Gold, Page
from evalkit.harness.cache_keys import describe_method
from evalkit.harness.extract import extract_one
from evalkit.harness.specs import MethodSpec
from evalkit.shell import cli

# -- a three-page set and what a tool stored for it -------------------------------------
#
# gold p1: 6 tokens -> shingles (one..four) (two..five) (three..six)
# gold p2: 5 tokens -> (alpha..delta) (beta..epsilon)
# gold p3: 4 tokens -> (red green blue yellow)
# stored p1 = its gold: P = 1, R = 1
# stored p2 = "alpha beta gamma delta": one shingle, in the gold: P = 1, R = 1/2
# stored p3: none -> a failure, scored as empty: P undefined (left out), R = 0
# stored p9: no such page -> an unknown id
# shingle precision = mean(1, 1) = 1; recall = mean(1, 1/2, 0) = 1/2; F1 = 2*1*0.5/1.5 = 2/3
GOLD = {
    "p1": "one two three four five six",
    "p2": "alpha beta gamma delta epsilon",
    "p3": "red green blue yellow",
}
STORED = {
    "p1": "one two three four five six",
    "p2": "alpha beta gamma delta",
    "p9": "a page the data set does not have",
}
EXPECTED = {"shingle_precision": 1.0, "shingle_recall": 0.5, "shingle_f1": 2 / 3, "failures": 1.0}


def _page_set(root: Path) -> Path:
    """A ``pairs`` data set (html/<id>.html, gold/<id>.txt) of the three pages."""
    (root / "html").mkdir(parents=True)
    (root / "gold").mkdir()
    for key, text in GOLD.items():
        (root / "html" / f"{key}.html").write_text(
            f"<html><body><div>menu home about</div><p>{text}</p></body></html>"
        )
        (root / "gold" / f"{key}.txt").write_text(text)
    return root


def _write_folder(out: Path) -> Path:
    out.mkdir(parents=True)
    (out / "p1.txt").write_text(STORED["p1"])
    # HTML is reduced to its visible text: the script and the head's title are not text
    (out / "p2.html").write_text(
        "<html><head><title>T</title></head><body><p>alpha beta "
        "gamma delta</p><script>var epsilon = 1;</script></body></html>"
    )
    (out / "p9.md").write_text(STORED["p9"])
    (out / "notes.csv").write_text("ignored: not a stored-output suffix")
    return out


def _write_aeb(out: Path) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "version": "1.0",
                "output": {key: {"articleBody": text} for key, text in STORED.items()},
            }
        )
    )
    return out


def _write_jsonl(out: Path) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps({"page_id": key, "plaintext": text, "model": "tool"})
        for key, text in STORED.items()
    ]
    out.write_text("\n".join(lines) + "\n")
    return out


def _run(tmp_path, monkeypatch, capsys, *overrides) -> tuple[Path, str]:
    """``evalkit experiment=extraction dataset=chaos`` on the three pages; (run folder, stderr)."""
    results = tmp_path / "results"
    data = _page_set(tmp_path / "pages")
    argv = [
        "evalkit",
        "experiment=extraction",
        "runner.progress=false",
        "runner.n_jobs=1",
        f"paths.results={results}",
        "dataset=chaos",
        f"dataset.chaos.path={data}",
        "method=stored",
        *overrides,
    ]
    monkeypatch.setattr(sys, "argv", argv)
    cli.main()
    err = capsys.readouterr().err
    (run,) = (results / "runs" / "extraction").iterdir()
    return run, err


def _summary(run: Path) -> dict[str, float]:
    df = pd.read_csv(run / "summary.csv")
    return dict(zip(df["metric"], df["value"]))


@pytest.mark.parametrize("fmt", ["folder", "aeb", "jsonl"])
def test_each_format_scores_as_worked_by_hand(fmt, tmp_path, monkeypatch, capsys):
    if fmt == "folder":
        path = str(_write_folder(tmp_path / "out"))
    elif fmt == "aeb":
        path = str(_write_aeb(tmp_path / "out" / "tool.json"))
    else:  # one file per data set, named by a template (Bevendorff et al.'s layout)
        _write_jsonl(tmp_path / "out" / "chaos" / "tool.jsonl")
        path = "'" + str(tmp_path / "out" / "{dataset}" / "tool.jsonl") + "'"
    run, err = _run(
        tmp_path, monkeypatch, capsys, f"method.stored.path={path}", f"method.stored.format={fmt}"
    )
    got = _summary(run)
    for metric, value in EXPECTED.items():
        assert got[metric] == pytest.approx(value, abs=1e-6), metric
    # the missing page is a failure with the reason, scored as an empty extraction
    pages = pd.read_csv(run / "per_page.csv").set_index("page_id")
    assert pages.loc["p3", "error"].startswith("MissingOutput: no stored output for page 'p3'")
    assert pages.loc["p3", "shingle_recall"] == 0
    assert pages["error"].drop("p3").isna().all()
    # the unknown id: one warning line with the count, every id in run.json
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "1 of 3 stored ids" in warnings[0], err
    notes = json.loads((run / "run.json").read_text())["methods"]["stored"]["notes"]
    assert notes["chaos"]["unknown_ids"] == ["p9"]
    assert notes["chaos"]["n_unknown_ids"] == 1


def test_folder_reads_text_markdown_and_visible_text_of_html(tmp_path):
    out = read_outputs(_write_folder(tmp_path / "out"), "folder")
    assert out == {"p1": STORED["p1"], "p2": "alpha beta gamma delta", "p9": STORED["p9"]}


def test_a_folder_with_two_files_for_one_id_is_refused(tmp_path):
    out = _write_folder(tmp_path / "out")
    (out / "p1.md").write_text("another")
    with pytest.raises(StoredFileError, match="page 'p1' has two files, p1.md and p1.txt"):
        read_outputs(out, "folder")


def test_aeb_reads_both_layouts_and_a_null_body_is_empty(tmp_path):
    bare = tmp_path / "bare.json"
    bare.write_text(
        json.dumps({"a": {"articleBody": "x y"}, "b": {"articleBody": None}, "c": {"url": "u"}})
    )
    assert read_outputs(bare) == {"a": "x y", "b": "", "c": ""}  # auto: .json is aeb
    wrapped = _write_aeb(tmp_path / "wrapped.json.gz")
    wrapped.write_bytes(gzip.compress(wrapped.read_bytes()))
    assert read_outputs(wrapped) == STORED


def test_jsonl_field_names_and_their_alternatives(tmp_path):
    file = tmp_path / "out.jsonl"
    file.write_text('{"track_id": "a", "content": "x"}\n\n{"id": 7, "text": null}\n')
    assert read_outputs(file) == {"a": "x", "7": ""}
    file.write_text('{"page_id": "a", "content": "gold", "extracted_content": "tool"}\n')
    with pytest.raises(
        StoredFileError,
        match=r"out.jsonl:1: 2 text fields "
        r"\(content, extracted_content\)",
    ):
        read_outputs(file)
    assert read_outputs(file, text_field="extracted_content") == {"a": "tool"}
    file.write_text('{"id": "a", "text": "tool", "groundtruth_content": "gold"}\n')
    with pytest.raises(
        StoredFileError, match="holds gold too .groundtruth_content.; set text_field"
    ):
        read_outputs(file)
    assert read_outputs(file, text_field="text") == {"a": "tool"}
    file.write_text('{"key": "a", "body": "t"}\n')
    assert read_outputs(file, "jsonl", id_field="key", text_field="body") == {"a": "t"}
    with pytest.raises(StoredFileError, match="out.jsonl:1: no id field"):
        read_outputs(file)


def test_jsonl_lines_end_at_newline_only(tmp_path):
    """JSON allows U+2028, U+2029 and U+0085 raw inside a string; str.splitlines cuts at
    each (WCEB's l3s-gn1 outputs hold U+2028), so lines end at \n (and \r\n) only."""
    file = tmp_path / "out.jsonl"
    text = "one\u2028two\u2029three\x85four"
    file.write_bytes(
        (f'{{"page_id": "a", "text": "{text}"}}\r\n{{"page_id": "b", "text": "x"}}\n').encode()
    )
    assert read_outputs(file) == {"a": text, "b": "x"}


def test_bad_json_is_one_line_naming_the_file(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"page_id": "a", "text": "x"}\n{"page_id": "b", "text": \n')
    with pytest.raises(StoredFileError, match=r"bad.jsonl:2: not a JSON document"):
        read_outputs(bad)
    broken = tmp_path / "broken.json"
    broken.write_text('{"a": {"articleBody": "x"')
    with pytest.raises(StoredFileError, match=r"broken.json: not a JSON document"):
        Stored(path=str(broken)).validate()


def test_bad_json_stops_the_command_with_one_line(tmp_path, monkeypatch, capsys):
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    results = tmp_path / "results"
    monkeypatch.setattr(
        sys,
        "argv",
        [
            "evalkit",
            "experiment=extraction",
            "method=stored",
            f"method.stored.path={broken}",
            f"paths.results={results}",
            "runner.progress=false",
        ],
    )
    with pytest.raises(SystemExit) as stop:
        cli.main()
    lines = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2
    assert len(lines) == 1 and str(broken) in lines[0] and "not a JSON document" in lines[0]


def test_a_path_that_does_not_exist_names_the_key(tmp_path):
    with pytest.raises(ValueError, match="path=.*: no such file or folder"):
        Stored(path=str(tmp_path / "nope.json")).validate()
    with pytest.raises(ValueError, match="path=null"):
        Stored().validate()
    with pytest.raises(ValueError, match="format=csv"):
        Stored(path=str(tmp_path), format="csv").validate()


def _page(key: str, dataset: str = "d") -> Page:
    return Page(
        id=key, dataset=dataset, raw=b"<html><body><p>x</p></body></html>", gold=Gold(text="x")
    )


def test_a_missing_id_is_a_recorded_failure(tmp_path):
    method = Stored(path=str(_write_jsonl(tmp_path / "t.jsonl")))
    assert method.extract(_page("p2")).text == "alpha beta gamma delta"
    with pytest.raises(MissingOutput):
        method.extract(_page("p3"))
    ext = extract_one(method, _page("p3"))  # what the runner records
    assert ext.text == "" and ext.error.startswith("MissingOutput: no stored output")


def test_a_mapping_gives_each_data_set_its_file(tmp_path):
    a = _write_jsonl(tmp_path / "a.jsonl")
    b = tmp_path / "b.json"
    b.write_text(json.dumps({"p1": {"articleBody": "from b"}}))
    method = Stored(path={"one": str(a), "two": str(b)})
    method.validate()
    assert method.extract(_page("p1", "one")).text == STORED["p1"]
    assert method.extract(_page("p1", "two")).text == "from b"
    with pytest.raises(MissingOutput, match="no stored outputs for data set 'three'"):
        method.extract(_page("p1", "three"))


def test_unknown_ids_are_listed(tmp_path):
    method = Stored(path=str(_write_aeb(tmp_path / "t.json")))
    note = method.dataset_notes("d", ["p1", "p2", "p3"])
    assert note["unknown_ids"] == ["p9"] and note["n_unknown_ids"] == 1
    assert "1 of 3 stored ids" in note["warning"]
    assert method.dataset_notes("d", ["p1", "p2", "p9"]) == {}


@pytest.mark.parametrize("fmt", ["jsonl", "folder"])
def test_editing_a_stored_file_changes_the_cache_key(fmt, tmp_path):
    if fmt == "folder":
        path = _write_folder(tmp_path / "out")
        edited = path / "p1.txt"
    else:
        path = edited = _write_jsonl(tmp_path / "t.jsonl")
    spec = MethodSpec(label="stored", registry="stored", params={"path": str(path)})
    before = describe_method(spec).key()
    edited.write_text(edited.read_text())  # rewritten, same bytes: same key
    assert describe_method(spec).key() == before
    edited.write_text(edited.read_text().replace("one", "uno"))
    assert describe_method(spec).key() != before
    # and the method reads the edited file, not a copy it kept
    assert Stored(path=str(path)).extract(_page("p1")).text.startswith("uno")


def test_the_aeb_trafilatura_output_gives_the_published_f1(shared, tmp_path, monkeypatch, capsys):
    """ScrapingHub's stored trafilatura output through ``method=stored``: published F1
    0.958, P 0.938, R 0.978 (their README), within 0.002."""
    output = shared("scrapinghub-aeb") / "output" / "trafilatura.json"
    results = tmp_path / "results"
    monkeypatch.setattr(
        sys,
        "argv",
        [
            "evalkit",
            "experiment=extraction",
            "dataset=aeb",
            "method=stored",
            f"method.stored.path={output}",
            "method.stored.format=aeb",
            f"paths.results={results}",
            "runner.progress=false",
            "runner.n_jobs=1",
        ],
    )
    cli.main()
    (run,) = (results / "runs" / "extraction").iterdir()
    got = _summary(run)
    assert got["failures"] == 0
    assert got["shingle_f1"] == pytest.approx(0.958, abs=0.002)
    assert got["shingle_precision"] == pytest.approx(0.938, abs=0.002)
    assert got["shingle_recall"] == pytest.approx(0.978, abs=0.002)
    assert "warning" not in capsys.readouterr().err  # every stored id is a page


def test_a_loaded_file_keeps_its_texts_as_utf8_and_gives_back_the_same_strings(tmp_path):
    # issue 37 item 14: a glob of many tool files holds every file in every process; the
    # texts are kept as UTF-8 bytes (a text with one character past Latin-1 costs 2-4 bytes a
    # character as str) and decoded, unchanged, when a page asks
    from baselines.stored import _loaded, read_outputs

    texts = {
        "a": "plain ascii",
        "b": "\u201ccurly\u201d caf\u00e9 \U0001f600",
        "c": "",
        "d": "x\ud800y",
    }
    path = tmp_path / "tool.json"
    path.write_text(json.dumps({k: {"articleBody": v} for k, v in texts.items()}))
    held = _loaded(path, "aeb", None, None)
    assert dict(held) == read_outputs(path, "aeb") == texts
    assert "b" in held and "z" not in held and len(held) == 4 and list(held) == list(texts)
    assert all(isinstance(v, bytes) for v in held._data.values())
    assert held._data["b"] == texts["b"].encode("utf-8")
