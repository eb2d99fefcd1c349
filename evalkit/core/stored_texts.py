"""Stored tools' outputs: the records a stored file holds, and the layouts of JSON lines.

The ``stored`` method (baselines/stored.py, docs/methods/stored.md) reads every output of a
tool file at once; these records keep them small and say what each output is: plain text, the
output's Markdown (its structure kept for the structure metrics, evalkit.metrics.structure),
the output's HTML (an LLM extractor that returns the page's main HTML), or a request that
failed. The JSON lines readers are here too: the generic one's field rules and the named
layouts of LLM extractors' outputs (:data:`LAYOUTS`), each from its project's own code.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import lxml.etree

from evalkit.core.elements import markdown_text
from evalkit.core.jsonfile import DataFileError, loads
from evalkit.core.markdown_out import html_markdown
from evalkit.core.page import Extraction, parse_html
from evalkit.core.visible import drop_invisible, visible_text

__all__ = [
    "CONTENTS",
    "GOLD_FIELDS",
    "ID_FIELDS",
    "LAYOUTS",
    "MARKDOWN_FIELDS",
    "TEXT_FIELDS",
    "FailedOutput",
    "HtmlOutput",
    "MarkdownOutput",
    "PackedTexts",
    "StoredFileError",
    "as_content",
    "json_lines",
    "layout_record",
    "pick",
    "read_lines",
    "text_value",
]

#: id fields a JSON line may use, in the order they are looked for (Bevendorff et al.:
#: page_id; WebMainBench: id or track_id)
ID_FIELDS = ("page_id", "id", "track_id", "url_hash", "doc_id")
#: text fields a JSON line may use (Bevendorff et al.: plaintext; WebMainBench: content,
#: extracted_content; the ScrapingHub benchmark: articleBody)
TEXT_FIELDS = ("text", "plaintext", "content", "extracted_content", "articleBody")
#: fields that hold a tool's output as Markdown (its structure kept for the structure metrics):
#: a line may give Markdown instead of text, or both
MARKDOWN_FIELDS = ("markdown",)
#: fields that hold gold, not a tool's output (WebMainBench and MinerU-HTML's benchmark keep
#: it in the page's line): a line with one of them needs ``text_field``, so the gold is never
#: scored as the tool's text (in such a line ``main_html`` is the gold's HTML too)
GOLD_FIELDS = ("groundtruth_content", "groundtruth", "ground_truth", "gold", "convert_main_content")
#: how an LLM layout's content is read (``content``): ``auto`` as the layout gives it
#: (:data:`LAYOUTS`), or ``html`` (visible text, and Markdown by the one converter),
#: ``markdown`` (text = its elements' texts) or ``text`` (as it is)
CONTENTS = ("auto", "html", "markdown", "text")
#: the JSON lines layouts of LLM extractors' outputs: format -> (its id fields, its content
#: fields in the order they are taken, each with how it is read). docs/methods/stored.md,
#: "LLM extractors' outputs", gives each one's source.
LAYOUTS: dict[str, tuple[tuple[str, ...], tuple[tuple[str, str], ...]]] = {
    # MinerU-HTML's output record (mineru_html/base.py MinerUHTMLOutput: main_html, the
    # model's main HTML; main_content, its conversion, Markdown by default)
    "mineru_html": (ID_FIELDS, (("main_html", "html"), ("main_content", "markdown"))),
    # WebMainBench's toolkit, DataSaver.save_dataset_with_extraction: the page's line with
    # '<extractor>_content' beside its gold; the Dripper extractor is registered as 'dripper'
    "dripper": (("id", "track_id"), (("dripper_content", "markdown"),)),
    # ReaderLM-v2 returns Markdown; custom_id + response.body is the OpenAI batch output line
    # (vLLM's run-batch writes it), response as a string a plain record
    "readerlm": (("custom_id", *ID_FIELDS), (("response", "markdown"),)),
}


class StoredFileError(DataFileError):
    """A stored file that cannot be read as its format says; the message names the file."""


class MarkdownOutput(str):
    """A stored output given as Markdown (a ``markdown`` field): the string is the Markdown;
    ``text`` the line's own text field when it has one (else the Markdown's element texts)."""

    __slots__ = ("text",)

    def __new__(cls, markdown: str, text: str | None = None):
        made = super().__new__(cls, markdown)
        made.text = text
        return made

    def extraction(self) -> Extraction:
        text = markdown_text(str(self)) if self.text is None else self.text
        return Extraction(text=text, markdown=str(self))


class HtmlOutput(str):
    """A stored output given as HTML (an LLM extractor's main HTML): its text is the visible
    text (:func:`evalkit.core.visible.visible_text`, as for a stored ``.html`` file), its
    Markdown that of the same visible part (:func:`evalkit.core.markdown_out.html_markdown`,
    the converter of every own method). Converted when a page asks for it."""

    __slots__ = ()

    def extraction(self) -> Extraction:
        if not self.strip():
            return Extraction(text="", markdown="")  # the tool returned nothing
        root = parse_html(str(self), source="the stored HTML output")
        text = visible_text(root)
        body = drop_invisible(root).find(".//body")
        part = lxml.etree.tostring(
            root if body is None else body, encoding="unicode", method="html", with_tail=False
        )
        return Extraction(text=text, markdown=html_markdown(part))


class FailedOutput(str):
    """A stored record saying the tool failed on the page (an OpenAI batch line's ``error``,
    or an HTTP status other than 200); the string says why. The page is a failure."""

    __slots__ = ()


def text_value(value: Any, where: str) -> str:
    """A JSON value as an output's text: null is empty; anything but a string an error."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise StoredFileError(f"{where}: the text is a JSON {type(value).__name__}, not a string")
    return value


def pick(record: dict, given: str | None, names: tuple[str, ...], what: str, where: str) -> Any:
    """The value of field ``given``, else of the one field of ``names`` the record has (none,
    or two, is an error saying to set ``<what>_field``)."""
    if given is not None:
        if given not in record:
            raise StoredFileError(f"{where}: no {what} field {given!r}")
        return record[given]
    found = [n for n in names if n in record]
    if not found:
        raise StoredFileError(
            f"{where}: no {what} field (looked for {', '.join(names)}; set {what}_field)"
        )
    if len(found) > 1:
        raise StoredFileError(
            f"{where}: {len(found)} {what} fields ({', '.join(found)}); "
            f"set {what}_field to say which one"
        )
    return record[found[0]]


def page_key(value: Any, where: str) -> str:
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        raise StoredFileError(f"{where}: the page id is a JSON {type(value).__name__}")
    return str(value)


def json_lines(path: Path, raw: bytes) -> Iterator[tuple[str, dict]]:
    """``("<file>:<line>", object)`` for each non-blank line of a JSON lines file; a line
    that is no JSON object is an error naming the file and the line."""
    try:
        # lines end at \n only: str.splitlines also cuts at U+2028, \x1c and others, which
        # JSON allows raw inside a string (WCEB's l3s-gn1 outputs hold U+2028)
        lines = raw.decode(json.detect_encoding(raw)).split("\n")
    except UnicodeDecodeError as exc:
        raise StoredFileError(f"{path}: not UTF-8 text ({exc})") from exc
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            record = loads(line, where)  # a field twice is refused, not the last kept
        except DataFileError as exc:  # cut off, nested too deeply, a key twice
            raise StoredFileError(str(exc)) from None
        if not isinstance(record, dict):
            raise StoredFileError(
                f"{where}: expected a JSON object, got a JSON {type(record).__name__}"
            )
        yield where, record


def as_content(value: str, kind: str) -> str:
    """An output's string as ``kind`` says (:data:`CONTENTS`, ``auto`` resolved)."""
    if kind == "html":
        return HtmlOutput(value)
    return MarkdownOutput(value) if kind == "markdown" else value


def _batch_answer(record: dict, response: dict, where: str) -> str:
    """The answer of an OpenAI batch output line (``response.body.choices[0]``: a chat
    message's ``content``, or a completion's ``text``); :class:`FailedOutput` for a failed
    request."""
    status, body = response.get("status_code", 200), response.get("body")
    if record.get("error") is not None or status != 200 or body is None:
        why = record.get("error") or (body.get("error") if isinstance(body, dict) else None)
        why = why or (f"HTTP status {status}" if status != 200 else "no response body")
        return FailedOutput(f"the request failed: {json.dumps(why, ensure_ascii=False)[:300]}")
    try:
        choice = body["choices"][0]
        answer = choice["message"]["content"] if "message" in choice else choice["text"]
    except (KeyError, IndexError, TypeError):
        raise StoredFileError(
            f"{where}: the response has no body.choices[0].message.content "
            "(an OpenAI batch output line)"
        ) from None
    return text_value(answer, where)


def layout_record(
    record: dict,
    fmt: str,
    id_field: str | None,
    text_field: str | None,
    content: str,
    where: str,
) -> tuple[str, str]:
    """``(page id, output)`` of one line in the LLM layout ``fmt`` (:data:`LAYOUTS`).

    The content is the first of the layout's fields the line has (``text_field``: that one,
    read as its layout says, or as Markdown for a field the layout does not name), read as
    ``content`` says unless ``auto``. A line holding gold (:data:`GOLD_FIELDS`) needs
    ``text_field``, except in the ``dripper`` layout, whose tool field is named by it."""
    ids, fields = LAYOUTS[fmt]
    if id_field is None and fmt == "readerlm" and "custom_id" in record:
        key = page_key(record["custom_id"], where)  # the batch line's id is the request's
    else:
        key = page_key(pick(record, id_field, ids, "id", where), where)
    gold = [f for f in GOLD_FIELDS if f in record]
    if gold and text_field is None and fmt != "dripper":
        raise StoredFileError(
            f"{where}: the line holds gold too ({', '.join(gold)}), so it is a benchmark's "
            "page line, whose main_html is gold; set text_field to the tool's field"
        )
    kinds = dict(fields)
    if text_field is not None:
        field = text_field
        if field not in record:
            raise StoredFileError(f"{where}: no text field {field!r}")
    else:
        found = [f for f, _ in fields if f in record]
        if not found:
            names = ", ".join(f for f, _ in fields)
            raise StoredFileError(f"{where}: no content field (looked for {names}; set text_field)")
        field = found[0]
    kind = kinds.get(field, "markdown") if content == "auto" else content
    value = record[field]
    if fmt == "readerlm" and (isinstance(value, Mapping) or record.get("error") is not None):
        answer = _batch_answer(record, dict(value or {}), where)  # an OpenAI batch line
        return key, answer if isinstance(answer, FailedOutput) else as_content(answer, kind)
    return key, as_content(text_value(value, where), kind)


def _jsonl_record(
    record: dict, id_field: str | None, text_field: str | None, where: str
) -> tuple[str, str]:
    """``(page id, output)`` of one line of the generic ``jsonl`` format."""
    key = page_key(pick(record, id_field, ID_FIELDS, "id", where), where)
    gold = [f for f in GOLD_FIELDS if f in record]
    if gold and text_field is None:
        raise StoredFileError(
            f"{where}: the line holds gold too ({', '.join(gold)}); set "
            "text_field to the tool's field"
        )
    md = [f for f in MARKDOWN_FIELDS if f in record and text_field not in MARKDOWN_FIELDS]
    if text_field in MARKDOWN_FIELDS or (md and not any(f in record for f in TEXT_FIELDS)):
        value = record[text_field or md[0]]
        return key, MarkdownOutput(text_value(value, where))  # the Markdown is the output
    text = text_value(pick(record, text_field, TEXT_FIELDS, "text", where), where)
    if md:  # the output's text, and its Markdown beside
        return key, MarkdownOutput(text_value(record[md[0]], where), text)
    return key, text


def read_lines(
    path: Path,
    raw: bytes,
    fmt: str,
    id_field: str | None,
    text_field: str | None,
    content: str = "auto",
) -> dict[str, str]:
    """``{page id: output}`` of a JSON lines file: the generic ``jsonl`` format, or an LLM
    layout of :data:`LAYOUTS`. The same id twice with two outputs is an error."""
    out: dict[str, str] = {}
    for where, record in json_lines(path, raw):
        if fmt in LAYOUTS:
            key, output = layout_record(record, fmt, id_field, text_field, content, where)
        else:
            key, output = _jsonl_record(record, id_field, text_field, where)
        was = out.get(key, output)
        if (type(was), was) != (type(output), output):
            raise StoredFileError(f"{where}: page {key!r} again, with another text")
        out[key] = output
    return out


class PackedTexts(Mapping):
    """A stored file's ``{page id: output}`` held as UTF-8 bytes, each output decoded when a
    page asks for it: a third to a quarter of the memory of the texts as ``str`` (a text
    holding one character beyond Latin-1 takes 2 or 4 bytes a character), which a glob of many
    tool files multiplies by every file in every process (issue 37, item 14). An output that
    is not plain text (:class:`MarkdownOutput`, :class:`HtmlOutput`, :class:`FailedOutput`)
    comes back as what it was."""

    __slots__ = ("_data", "_kind")

    def __init__(self, texts: dict[str, str]):
        self._data = {k: v.encode("utf-8", "surrogatepass") for k, v in texts.items()}
        # outputs that are not plain text: their class, and a Markdown output's own text
        self._kind = {
            k: (type(v), getattr(v, "text", None)) for k, v in texts.items() if type(v) is not str
        }

    def __getitem__(self, key: str) -> str:
        value = self._data[key].decode("utf-8", "surrogatepass")
        kind = self._kind.get(key)
        if kind is None:
            return value
        cls, text = kind
        return MarkdownOutput(value, text) if cls is MarkdownOutput else cls(value)

    def __iter__(self):
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data
