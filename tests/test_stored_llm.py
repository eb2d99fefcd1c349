"""LLM extractors' stored outputs (issue 40, item 3): the layouts ``method=stored`` reads for
MinerU-HTML (Dripper) and ReaderLM-v2, on files the tests make (docs/methods/stored.md, "LLM
extractors' outputs", gives each layout's source).

Main content given as HTML is reduced to its visible text and converted to Markdown by the
one converter (evalkit.core.markdown_out.html_markdown); Markdown is the output's Markdown,
its text that of its elements. Every bad line is one error naming the file and the line.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
import pytest

from baselines.stored import MissingOutput, Stored, StoredFileError, read_outputs
from evalkit.core.markdown_out import html_markdown
from evalkit.core.page import Gold, Page
from evalkit.core.stored_texts import FailedOutput, HtmlOutput, MarkdownOutput, PackedTexts
from evalkit.core.validate import ParamError
from evalkit.shell import cli

#: an LLM's main HTML: a heading, a paragraph, a list; the head's title and the script are
#: not visible, so they are neither text nor Markdown
HTML = (
    "<html><head><title>Site</title></head><body><h2>Head</h2>"
    "<p>Body <b>words</b></p><ul><li>one</li><li>two</li></ul>"
    "<script>var hidden = 1;</script></body></html>"
)
HTML_TEXT = "Head\nBody words\none\ntwo"
HTML_MD = "## Head\n\nBody **words**\n\n- one\n- two"
MD = "# Title\n\nSome text.\n\n- first\n- second\n"
MD_TEXT = "Title\nSome text.\nfirst\nsecond"


def _lines(path: Path, *records) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n")
    return path


def _extract(method: Stored, pid: str):
    return method.extract(Page(id=pid, dataset="d", raw=b"<p>x</p>", gold=Gold(text="")))


def _got(out: dict) -> dict:
    """``{page id: (text, Markdown)}`` of read outputs, as a page would get them."""
    got = {}
    for key, value in out.items():
        ext = value.extraction() if hasattr(value, "extraction") else None
        got[key] = (ext.text, ext.markdown) if ext else (value, None)
    return got


# -- MinerU-HTML: its output records as JSON lines, and its evaluation folder ------------


def test_mineru_html_lines_read_main_html_as_html_and_main_content_as_markdown(tmp_path):
    file = _lines(
        tmp_path / "mineru.jsonl",
        # main_html is the model's output; main_content (its conversion) is left beside it
        {"track_id": "a", "uid": "0b1f", "main_html": HTML, "main_content": "converted"},
        {"track_id": "b", "main_content": MD},  # Markdown only
        {"track_id": "c", "main_html": ""},  # the tool returned nothing
        {"track_id": "d", "main_html": None},
    )
    assert _got(read_outputs(file, "mineru_html")) == {
        "a": (HTML_TEXT, HTML_MD),
        "b": (MD_TEXT, MD),
        "c": ("", ""),
        "d": ("", ""),
    }
    assert html_markdown(HTML.split("<body>")[1].split("<script>")[0]) == HTML_MD  # one converter
    _lines(file, {"track_id": "a", "main_html": HTML, "main_content": "converted"})
    picked = read_outputs(file, "mineru_html", text_field="main_content")
    assert picked["a"] == "converted" and isinstance(picked["a"], MarkdownOutput)
    as_text = read_outputs(file, "mineru_html", text_field="main_content", content="text")
    assert _got(as_text)["a"] == ("converted", None)
    method = Stored(path=str(file), format="mineru_html").validate()
    got = _extract(method, "a")
    assert (got.text, got.markdown) == (HTML_TEXT, HTML_MD)


def test_mineru_html_bad_lines_are_one_error_naming_file_and_line(tmp_path):
    file = tmp_path / "mineru.jsonl"
    cases = [
        ('{"track_id": "a", "main_html": "<p>x</p>"', r"mineru.jsonl:2: not a JSON"),
        ('["a", "<p>x</p>"]', r"mineru.jsonl:2: expected a JSON object, got a JSON list"),
        ('{"uid": "0b1f", "main_html": "<p>x</p>"}', r"mineru.jsonl:2: no id field"),
        ('{"track_id": "a", "html": "<p>x</p>"}', r"mineru.jsonl:2: no content field"),
        ('{"track_id": "a", "main_html": 3}', r"mineru.jsonl:2: the text is a JSON int"),
        ('{"track_id": "z", "main_html": "<p>y</p>"}', r"mineru.jsonl:2: page 'z' again"),
        # a benchmark's page line: its main_html is the gold, never the tool's output
        (
            '{"track_id": "a", "html": "", "main_html": "", "convert_main_content": "x"}',
            r"mineru.jsonl:2: the line holds gold too \(convert_main_content\)",
        ),
    ]
    for bad, message in cases:
        _lines(file, {"track_id": "z", "main_html": "<p>z</p>"}, bad)
        with pytest.raises(StoredFileError, match=message):
            read_outputs(file, "mineru_html")
    with pytest.raises(StoredFileError, match=r"mineru.jsonl:2: the line holds gold too"):
        Stored(path=str(file), format="mineru_html").validate()  # before any page is read


def _task_dir(root: Path) -> Path:
    """MinerU-HTML's ``eval_baselines.py --dump-data`` folder: cases/<track_id>/ with the
    page (input.html), the gold (gt_main.txt), the main content (pred_main.txt) and the main
    HTML (pred_main.html, only when there is one), beside the run's summary files."""
    cases = {
        "a": {"pred_main.html": HTML, "pred_main.txt": "## Head (html2text)\n"},
        "b": {"pred_main.txt": MD},  # ReaderLM (readerlm-text) writes Markdown, no HTML
        "c": {"pred_main.txt": ""},  # MinerU-HTML failed: no HTML, empty content
    }
    for key, files in cases.items():
        case = root / "cases" / key
        case.mkdir(parents=True)
        (case / "input.html").write_text("<html><body><p>page</p></body></html>")
        (case / "gt_main.txt").write_text("the gold, never read")
        (case / "rouge_score.json").write_text('{"prec": 1, "rec": 1, "f1": 1}')
        for name, text in files.items():
            (case / name).write_text(text)
    (root / "error.jsonl").write_text("")
    (root / "mean_eval_result.json").write_text("{}")
    return root


@pytest.mark.parametrize("fmt", ["mineru_html", "dripper"])
def test_mineru_html_evaluation_folder_reads_pred_main_html_else_its_markdown(fmt, tmp_path):
    root = _task_dir(tmp_path / "task")
    want = {"a": (HTML_TEXT, HTML_MD), "b": (MD_TEXT, MD), "c": ("", "")}
    assert _got(read_outputs(root, fmt)) == want
    assert _got(read_outputs(root / "cases", fmt)) == want  # the cases folder itself
    md = read_outputs(root, fmt, content="markdown")  # pred_main.txt only (html2text's)
    assert _got(md)["a"] == ("Head (html2text)", "## Head (html2text)\n")
    assert set(read_outputs(root, fmt, content="html")) == {"a"}
    # one tool's folder, not a folder of tool files (error.jsonl, mean_eval_result.json)
    assert Stored.split_rows({"path": str(root), "format": fmt}) is None
    method = Stored(path=str(root), format=fmt).validate()
    got = _extract(method, "a")
    assert (got.text, got.markdown) == (HTML_TEXT, HTML_MD)
    with pytest.raises(MissingOutput, match="no stored output for page 'x'"):
        _extract(method, "x")
    key = method.resolved_params()["files"][str(root)]["sha256"]
    (root / "cases" / "b" / "pred_main.txt").write_text("# edited\n")
    assert method.resolved_params()["files"][str(root)]["sha256"] != key


def test_a_case_linked_out_of_the_folder_fails_its_page_only(tmp_path):
    root = _task_dir(tmp_path / "task")
    secret = tmp_path / "secret.txt"
    secret.write_text("not an output")
    (root / "cases" / "d").mkdir()
    (root / "cases" / "d" / "pred_main.txt").symlink_to(secret)
    method = Stored(path=str(root), format="mineru_html").validate()
    with pytest.raises(StoredFileError, match="symbolic link leading out of the stored folder"):
        _extract(method, "d")
    assert _extract(method, "b").markdown == MD


# -- Dripper in WebMainBench's toolkit: <extractor>_content beside the page's gold --------


def test_dripper_lines_read_the_dripper_content_as_markdown_never_the_gold(tmp_path):
    page = {"html": "<html>...</html>", "groundtruth_content": "# Gold\n", "llm_webkit_md": "x"}
    file = _lines(
        tmp_path / "dataset_with_results.jsonl",
        {"id": "a", **page, "dripper_content": MD, "dripper_success": True,
         "trafilatura_content": "# Other tool\n"},
        {"id": "b", **page, "dripper_content": None, "dripper_success": False,
         "trafilatura_content": ""},
    )  # fmt: skip
    assert _got(read_outputs(file, "dripper")) == {"a": (MD_TEXT, MD), "b": ("", "")}
    other = read_outputs(file, "dripper", text_field="trafilatura_content")
    assert _got(other)["a"] == ("Other tool", "# Other tool\n")
    _lines(file, {"id": "a", **page, "dripper_content": MD}, {"id": "b", **page})
    with pytest.raises(StoredFileError, match=r"dataset_with_results.jsonl:2: no content field"):
        read_outputs(file, "dripper")
    _lines(file, {"id": "a", "dripper_content": MD}, "{'id': 'b'}")
    with pytest.raises(StoredFileError, match=r"dataset_with_results.jsonl:2: not a JSON"):
        read_outputs(file, "dripper")
    _lines(file, {"id": ["a"], "dripper_content": MD})
    with pytest.raises(StoredFileError, match=r"jsonl:1: the page id is a JSON list"):
        read_outputs(file, "dripper")


# -- ReaderLM-v2: Markdown per page, a response field, or an OpenAI batch output ----------


def _batch(custom_id: str, answer: str | None, status: int = 200, error=None) -> dict:
    body = {"object": "chat.completion", "choices": [{"message": {"content": answer}}]}
    return {
        "id": f"batch_req_{custom_id}",  # the request's id, not the page's
        "custom_id": custom_id,
        "response": {"status_code": status, "request_id": "r", "body": body},
        "error": error,
    }


def test_readerlm_lines_response_strings_and_openai_batch_output(tmp_path):
    plain = _lines(tmp_path / "readerlm.jsonl", {"id": "a", "response": MD}, {"id": "b"})
    with pytest.raises(StoredFileError, match=r"readerlm.jsonl:2: no content field"):
        read_outputs(plain, "readerlm")
    _lines(plain, {"id": "a", "response": MD}, {"id": "b", "response": "plain words"})
    assert _got(read_outputs(plain, "readerlm")) == {
        "a": (MD_TEXT, MD),
        "b": ("plain words", "plain words"),
    }
    assert _got(read_outputs(plain, "readerlm", content="text"))["a"] == (MD, None)

    batch = _lines(
        tmp_path / "batch_output.jsonl",
        _batch("a", MD),
        _batch("b", None, status=400),
        {**_batch("c", None), "response": None, "error": {"message": "prompt too long"}},
    )
    out = read_outputs(batch, "readerlm")
    assert _got({"a": out["a"]}) == {"a": (MD_TEXT, MD)}
    assert isinstance(out["b"], FailedOutput) and "HTTP status 400" in out["b"]
    method = Stored(path=str(batch), format="readerlm").validate()
    assert _extract(method, "a").markdown == MD
    with pytest.raises(MissingOutput, match="page 'c' in .*: the request failed.*prompt too long"):
        _extract(method, "c")
    _lines(batch, _batch("a", MD), {**_batch("b", MD), "response": {"body": {"choices": []}}})
    with pytest.raises(StoredFileError, match=r"batch_output.jsonl:2: the response has no body"):
        read_outputs(batch, "readerlm")


def test_readerlm_folder_reads_md_and_txt_as_markdown(tmp_path):
    out = tmp_path / "readerlm"
    out.mkdir()
    (out / "a.md").write_text(MD)
    (out / "b.txt").write_text("## Sub\n\ntext")
    assert _got(read_outputs(out, "readerlm")) == {
        "a": (MD_TEXT, MD),
        "b": ("Sub\ntext", "## Sub\n\ntext"),
    }
    got = _extract(Stored(path=str(out), format="readerlm").validate(), "b")
    assert (got.text, got.markdown) == ("Sub\ntext", "## Sub\n\ntext")


# -- settings and records ------------------------------------------------------------------


def test_content_is_checked_and_only_for_the_llm_layouts(tmp_path):
    file = _lines(tmp_path / "tool.jsonl", {"id": "a", "text": "x"})
    with pytest.raises(ParamError, match="content"):
        Stored(path=str(file), format="jsonl", content="html").validate()
    with pytest.raises(ParamError, match="content"):
        Stored(path=str(file), format="readerlm", content="pdf").validate()


def test_packed_outputs_come_back_as_what_they_were():
    outputs = {
        "t": "text",
        "m": MarkdownOutput("# m", "own text"),
        "h": HtmlOutput("<p>h</p>"),
        "f": FailedOutput("the request failed"),
    }
    packed = PackedTexts(outputs)
    for key, value in outputs.items():
        assert type(packed[key]) is type(value) and packed[key] == value
    assert packed["m"].text == "own text"


# -- end to end: the command scores each layout as worked by hand -------------------------
#
# gold p1 = six words -> 3 shingles; p2 = five words -> 2; p3 -> 1. Stored p1 = its gold
# (P = R = 1), p2 = "alpha beta gamma delta" (one shingle, in the gold: P = 1, R = 1/2),
# p3 none (a failure, R = 0). Shingle P = 1, R = 1/2, F1 = 2/3 (as tests/test_stored.py).
GOLD = {
    "p1": "one two three four five six",
    "p2": "alpha beta gamma delta epsilon",
    "p3": "red green blue yellow",
}


def _write_layout(fmt: str, out: Path) -> Path:
    p1, p2 = f"<h1>{GOLD['p1']}</h1>", "## alpha beta\n\ngamma delta\n"
    if fmt == "mineru_html":
        lines = [{"track_id": "p1", "main_html": p1}, {"track_id": "p2", "main_content": p2}]
    elif fmt == "dripper":
        lines = [
            {"id": "p1", "groundtruth_content": GOLD["p1"], "dripper_content": f"# {GOLD['p1']}"},
            {"id": "p2", "groundtruth_content": GOLD["p2"], "dripper_content": p2},
        ]
    else:
        lines = [_batch("p1", f"# {GOLD['p1']}"), _batch("p2", p2)]
    return _lines(out, *lines)


@pytest.mark.parametrize("fmt", ["mineru_html", "dripper", "readerlm"])
def test_each_layout_scores_as_worked_by_hand(fmt, tmp_path, monkeypatch, capsys):
    data = tmp_path / "pages"
    (data / "html").mkdir(parents=True)
    (data / "gold").mkdir()
    for key, text in GOLD.items():
        (data / "html" / f"{key}.html").write_text(f"<html><body><p>{text}</p></body></html>")
        (data / "gold" / f"{key}.txt").write_text(text)
    stored = _write_layout(fmt, tmp_path / f"{fmt}.jsonl")
    results = tmp_path / "results"
    argv = ["evalkit", "experiment=extraction", "runner.progress=false", "runner.n_jobs=1"]
    argv += [f"paths.results={results}", "dataset=chaos", f"dataset.chaos.path={data}"]
    argv += ["method=stored", f"method.stored.path={stored}", f"method.stored.format={fmt}"]
    monkeypatch.setattr(sys, "argv", argv)
    cli.main()
    capsys.readouterr()
    (run,) = (results / "runs" / "extraction").iterdir()
    summary = pd.read_csv(run / "summary.csv").set_index("metric")["value"]
    assert summary["shingle_precision"] == pytest.approx(1.0)
    assert summary["shingle_recall"] == pytest.approx(0.5)
    assert summary["shingle_f1"] == pytest.approx(2 / 3)
    assert summary["failures"] == 1
    pages = pd.read_csv(run / "per_page.csv").set_index("page_id")
    assert pages.loc["p3", "error"].startswith("MissingOutput: no stored output for page 'p3'")
