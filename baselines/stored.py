"""Stored outputs: score what any tool already wrote for each page, without running it.

A Go, Java or Rust extractor, an LLM, a paper's released outputs: whatever made the text,
``method=stored`` reads it back by page id (:attr:`evalkit.core.page.Page.id`) and hands it to
the scorers like any other method's extraction. The specification, with every format and
field name, is docs/methods/stored.md.

Formats (``format``):

- ``folder``: a folder of ``<page id>.txt``, ``.md`` or ``.html``; text is taken as it is
  (decoded as gold files are, :func:`evalkit.core.page.decode_gold`), Markdown is the
  extraction's Markdown (the structure metrics) and its text is the text of its elements
  (:func:`evalkit.core.elements.markdown_text`: no ``#``, ``|`` or fences), HTML is reduced
  to its visible text by :func:`evalkit.core.visible.visible_text`, the function behind the
  ``fulltext`` reference.
- ``aeb``: the ScrapingHub article-extraction-benchmark's ``output/<tool>.json``, a JSON
  object ``{page id: {"articleBody": text}}``, bare or inside ``{"version": ..., "output":
  {...}}`` as most of the benchmark's files have it.
- ``jsonl``: JSON lines, one object per page with an id field and a text field (the layout of
  Bevendorff et al.'s web-content-extraction benchmark, ``page_id`` and ``plaintext``, and of
  WebMainBench). Field names: ``id_field`` / ``text_field``, or the first of
  :data:`ID_FIELDS` / :data:`TEXT_FIELDS` a line has; a ``markdown`` field
  (:data:`MARKDOWN_FIELDS`) is the output's Markdown, beside its text or instead of it (the
  text is then the Markdown's element texts). Two of them in one line, or a gold
  field (:data:`GOLD_FIELDS`) without ``text_field``, is an error: WebMainBench keeps its
  gold beside the tools' outputs, and the gold must never be scored as a tool's text.
- ``mineru_html``, ``dripper``, ``readerlm``: LLM extractors' outputs (docs/methods/stored.md,
  "LLM extractors' outputs", with each layout's source). A file is JSON lines in the layout
  of :data:`evalkit.core.stored_texts.LAYOUTS` (main content as HTML is reduced to its
  visible text and converted to Markdown by the one converter, ``html_markdown``; Markdown is
  Markdown); a folder is MinerU-HTML's evaluation folder, ``cases/<page id>/pred_main.html``
  or ``pred_main.txt`` (``mineru_html``, ``dripper``), or ``<page id>.md`` files
  (``readerlm``). ``content`` says how the content is read where the layout's rule is an
  assumption (``auto``: the layout's own).
- ``auto``: ``folder`` for a folder, ``jsonl`` for ``.jsonl``/``.ndjson``, ``aeb`` for
  ``.json`` (each also gzipped, ``.gz``).

``path`` is one file or folder for every data set, a template holding ``{dataset}`` (the
data set's name in the run), or a mapping data set -> path. A page with no stored output
is a failure (``runner.on_failure`` scores it as an empty extraction); stored ids that are
no page of the run are counted in one warning line and listed in run.json
(:meth:`Stored.dataset_notes`). A stored record whose text is null or empty is an empty
extraction, not a failure: the tool ran and returned nothing.

Files are parsed as JSON (never unpickled, never imported); the cache key holds the
sha256 of every file the config can read (:meth:`Stored.resolved_params`), so editing a
stored file re-scores it.
"""

from __future__ import annotations

import glob
import hashlib
import os
import zlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from evalkit.core.capped import FileTooLarge, read_capped, within
from evalkit.core.jsonfile import DataFileError, loads
from evalkit.core.method import Extractor
from evalkit.core.page import (
    Extraction,
    Page,
    PageError,
    clean_chars,
    decode_gold,
    decode_html,
    parse_html,
)
from evalkit.core.stored_texts import (
    CONTENTS,
    GOLD_FIELDS,
    ID_FIELDS,
    LAYOUTS,
    MARKDOWN_FIELDS,
    TEXT_FIELDS,
    FailedOutput,
    HtmlOutput,
    MarkdownOutput,
    PackedTexts,
    StoredFileError,
    as_content,
    read_lines,
    text_value,
)
from evalkit.core.validate import ParamError, check_choice, check_int
from evalkit.core.visible import visible_text

__all__ = [
    "CASE_FILES",
    "CONTENTS",
    "DEFAULT_MAX_BYTES",
    "FOLDER_SUFFIXES",
    "FORMATS",
    "GOLD_FIELDS",
    "ID_FIELDS",
    "MARKDOWN_FIELDS",
    "TEXT_FIELDS",
    "MissingOutput",
    "Stored",
    "StoredFileError",
    "read_outputs",
]

FORMATS = ("auto", "folder", "aeb", "jsonl", *LAYOUTS)
#: a case folder's output files in MinerU-HTML's evaluation folder (eval_baselines/base.py:
#: the main HTML, written when there is one; the main content, Markdown for ReaderLM and the
#: ``*-html-md`` extractors); its gt_main.txt is gold and never read
CASE_FILES = ("pred_main.html", "pred_main.txt")
#: the formats whose folder is MinerU-HTML's evaluation folder (Dripper: its first name)
CASE_FORMATS = ("mineru_html", "dripper")
#: file suffixes of the folder format; .html is reduced to its visible text
FOLDER_SUFFIXES = (".txt", ".md", ".html")
#: the default of ``max_bytes``: a stored file (or a .gz file's decompressed bytes) larger
#: than this is not read; the ScrapingHub benchmark's largest output file is under 2 MB and a
#: jsonl file of a whole benchmark run a few tens of MB
DEFAULT_MAX_BYTES = 500_000_000
#: the placeholder a path template is filled with
DATASET = "{dataset}"


class MissingOutput(LookupError):
    """No stored output for a page: the page is a failure of the stored method."""


def _format_of(path: Path, fmt: str) -> str:
    if fmt != "auto":
        return fmt
    if path.is_dir():
        return "folder"
    name = path.name.lower().removesuffix(".gz")
    if name.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    if name.endswith(".json"):
        return "aeb"
    raise StoredFileError(
        f"{path}: cannot tell the format from the name; set format ({', '.join(FORMATS[1:])})"
    )


def _reads_folder(path: Path, fmt: str) -> bool:
    """Whether ``path`` is read as a folder of outputs, file by file."""
    return _format_of(path, fmt) == "folder" or (fmt in LAYOUTS and path.is_dir())


def _read_bytes(
    path: Path, max_bytes: int | None = DEFAULT_MAX_BYTES, root: Path | None = None
) -> bytes:
    """A stored file's bytes (a .gz file decompressed) through the read gate
    (evalkit.core.capped): inside ``root`` (a folder's files), its size and decompressed
    size checked against ``max_bytes`` before they are in memory."""
    try:
        return read_capped(path, max_bytes, "method.stored.max_bytes", root)
    except FileTooLarge as exc:
        raise StoredFileError(f"{path}: {exc}") from None
    except OSError as exc:
        if path.name.lower().endswith(".gz") and not isinstance(exc, FileNotFoundError):
            raise StoredFileError(f"{path}: not a readable gzip file ({exc})") from exc
        raise StoredFileError(f"{path}: cannot read it ({exc.strerror or exc})") from exc
    except (EOFError, zlib.error) as exc:
        raise StoredFileError(f"{path}: not a readable gzip file ({exc})") from exc


def _read_aeb(path: Path, raw: bytes, text_field: str | None) -> dict[str, str]:
    try:
        data = loads(raw, path)  # json detects UTF-8/16/32 and a UTF-8 byte-order mark
    except DataFileError as exc:  # cut off, nested too deeply, not text
        raise StoredFileError(str(exc)) from None
    if (
        isinstance(data, dict)
        and set(data) <= {"version", "output"}
        and isinstance(data.get("output"), dict)
    ):
        data = data["output"]  # the benchmark's {"version": ..., "output": {...}} wrapper
    if not isinstance(data, dict):
        raise StoredFileError(
            f'{path}: expected a JSON object mapping page ids to {{"articleBody": ...}}'
        )
    field = text_field or "articleBody"
    out = {}
    for key, item in data.items():
        if isinstance(item, dict):
            item = item.get(field)
        elif item is not None and not isinstance(item, str):
            raise StoredFileError(
                f"{path}: page {key!r}: expected an object with "
                f"{field!r}, got a JSON {type(item).__name__}"
            )
        out[key] = text_value(item, f"{path}: page {key!r}")
    return out


class _Refused(str):
    """A folder entry that is never read: a link leading out of the stored folder. The
    string is the one-line error of its page."""


def _leaves(file: Path, folder: Path) -> bool:
    """Whether ``file`` (a link) resolves outside ``folder`` (the read gate's
    evalkit.core.capped.within) or nowhere (dangling, a loop)."""
    try:
        within(file, folder)
        file.resolve(strict=True)
    except (FileTooLarge, OSError, RuntimeError):
        return True
    return False


def _folder_files(
    path: Path, fmt: str = "folder", content: str = "auto"
) -> dict[str, Path | _Refused]:
    """``{page id: file}`` of a folder of stored outputs; one id with two files is an error.

    An entry that is a symbolic link resolving outside the folder (``/etc/passwd``,
    ``/proc/self/environ``) is never opened: its page is a failure saying so."""
    if not path.is_dir():
        raise StoredFileError(f"{path}: no such folder")
    if fmt in CASE_FORMATS:
        return _case_files(_case_root(path), content)
    out: dict[str, Path | _Refused] = {}
    for file in sorted(path.iterdir()):
        suffix = file.suffix.lower()
        if suffix not in FOLDER_SUFFIXES:
            continue
        if file.is_symlink() and _leaves(file, path):
            key = file.name[: -len(suffix)]
            if key in out:
                raise StoredFileError(f"{path}: page {key!r} has two files")
            out[key] = _Refused(
                f"{file}: a symbolic link leading out of the stored folder {path}; not read"
            )
            continue
        if not file.is_file():
            continue
        key = file.name[: -len(suffix)]
        if key in out:
            raise StoredFileError(
                f"{path}: page {key!r} has two files, "
                f"{getattr(out[key], 'name', 'a link')} and {file.name}"
            )
        out[key] = file
    return out


def _case_root(path: Path) -> Path:
    """MinerU-HTML's evaluation folder (``--task_dir``) holds ``cases/``; or ``path`` is it."""
    return path / "cases" if (path / "cases").is_dir() else path


def _case_files(root: Path, content: str) -> dict[str, Path | _Refused]:
    """``{page id: file}`` of MinerU-HTML's ``cases/<track_id>/``: its main HTML
    (``pred_main.html``) if there is one, else its main content (``pred_main.txt``);
    ``content`` html or markdown/text takes only the one or the other."""
    names = {"html": CASE_FILES[:1], "auto": CASE_FILES}.get(content, CASE_FILES[1:])
    out: dict[str, Path | _Refused] = {}
    for case in sorted(root.iterdir()):
        for file in [case, *(case / n for n in names)]:
            if file.is_symlink() and _leaves(file, root):
                out[case.name] = _Refused(
                    f"{file}: a symbolic link leading out of the stored folder {root}; not read"
                )
                break
            if file is not case and file.is_file():
                out[case.name] = file
                break
    return out


def _folder_text(
    file: Path | _Refused,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    fmt: str = "folder",
    content: str = "auto",
) -> str:
    """A folder file's output: ``.txt`` text, ``.md`` Markdown, ``.html`` its visible text;
    in the LLM layouts ``.html`` is the output's HTML and ``.txt`` Markdown (``content``)."""
    if isinstance(file, _Refused):
        raise StoredFileError(str(file))
    raw = _read_bytes(file, max_bytes, file.parent)  # a link swapped in since the listing
    suffix = file.suffix.lower()
    if fmt in LAYOUTS and suffix == ".html" and content in ("auto", "html"):
        return HtmlOutput(clean_chars(decode_html(raw)[0]))
    if suffix != ".html":
        text = clean_chars(decode_gold(raw)[0])
        if fmt in LAYOUTS:
            return as_content(text, "markdown" if content == "auto" else content)
        return MarkdownOutput(text) if suffix == ".md" else text
    try:
        return visible_text(parse_html(raw, source=str(file)))
    except PageError:
        if not raw.strip():
            return ""  # the tool wrote an empty page: an empty extraction
        raise


def read_outputs(
    path: str | os.PathLike,
    fmt: str = "auto",
    id_field: str | None = None,
    text_field: str | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    content: str = "auto",
) -> dict[str, str]:
    """``{page id: output}`` of one stored file or folder: a ``str`` is the text (a stored
    page's HTML reduced to its visible text); a :class:`MarkdownOutput` or
    :class:`HtmlOutput` gives its text and Markdown by ``.extraction()``, a
    :class:`FailedOutput` says why the tool failed on the page.

    Raises :class:`StoredFileError` naming the file (and line) for anything unreadable, a
    file over ``max_bytes`` (decompressed too) and a folder's link leading out of it.
    """
    path = Path(path)
    if _reads_folder(path, fmt):
        fmt = _format_of(path, fmt)
        files = _folder_files(path, fmt, content).items()
        return {key: _folder_text(file, max_bytes, fmt, content) for key, file in files}
    fmt = _format_of(path, fmt)
    if path.is_dir():
        raise StoredFileError(f"{path}: a folder, but format is {fmt}")
    raw = _read_bytes(path, max_bytes)
    if fmt == "aeb":
        return _read_aeb(path, raw, text_field)
    return read_lines(path, raw, fmt, id_field, text_field, content)  # jsonl, LLM layouts


def _digest(
    path: Path, fmt: str, max_bytes: int | None = DEFAULT_MAX_BYTES, content: str = "auto"
) -> str:
    """sha256 of a stored file's bytes, or of a folder's file names and contents (a refused
    link by its error only, a file too large by its error)."""
    if not _reads_folder(path, fmt):
        return hashlib.sha256(_read_bytes(path, max_bytes)).hexdigest()
    h = hashlib.sha256()
    for key, file in sorted(_folder_files(path, fmt, content).items()):
        try:
            data = _folder_bytes(file, max_bytes)
        except StoredFileError as exc:
            data = str(exc).encode("utf-8", "surrogateescape")
            file = Path(key)
        name = f"{key}/{file.name}" if fmt in CASE_FORMATS else file.name
        h.update(f"{name}\0{len(data)}\0".encode("utf-8", "surrogateescape"))
        h.update(data)
    return h.hexdigest()


def _folder_bytes(file: Path | _Refused, max_bytes: int | None) -> bytes:
    if isinstance(file, _Refused):
        raise StoredFileError(str(file))
    return _read_bytes(file, max_bytes, file.parent)


#: (file, format, fields) -> (file signature, outputs): a file is parsed once per process,
#: not once per task (each task builds a fresh method); a changed file is parsed again
_LOADED: dict[tuple, tuple[tuple, Mapping]] = {}


def _listed(path: Path, fmt: str = "folder", content: str = "auto") -> dict[str, Path]:
    """:func:`_folder_files`, listed again only when the folder's entries change (its
    mtime; MinerU-HTML's: its ``cases/``), not on every page."""
    root = _case_root(path) if fmt in CASE_FORMATS else path
    key, sig = (str(path), "folder", fmt, content), (root.stat().st_mtime_ns,)
    hit = _LOADED.get(key)
    if hit is None or hit[0] != sig:
        hit = (sig, _folder_files(path, fmt, content))
        _LOADED[key] = hit
    return hit[1]


def _loaded(
    path: Path,
    fmt: str,
    id_field: str | None,
    text_field: str | None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    content: str = "auto",
) -> Mapping[str, str]:
    st = path.stat()
    key = (str(path), fmt, id_field, text_field, max_bytes, content)
    sig = (st.st_mtime_ns, st.st_size)
    hit = _LOADED.get(key)
    if hit is None or hit[0] != sig:
        outputs = read_outputs(path, fmt, id_field, text_field, max_bytes, content)
        hit = (sig, PackedTexts(outputs))
        _LOADED[key] = hit
    return hit[1]


#: file suffixes of one tool's outputs in a folder of tools (each also gzipped)
TOOL_SUFFIXES = (".json", ".jsonl", ".ndjson")


def _tool_file(path: Path) -> bool:
    return path.name.lower().removesuffix(".gz").endswith(TOOL_SUFFIXES)


def _stem(path: Path) -> str:
    """A tool file's row name: its name without ``.gz`` and the format suffix."""
    name = path.name
    if name.lower().endswith(".gz"):
        name = name[:-3]
    return name.rsplit(".", 1)[0] if "." in name else name


def _absolute(path: str | os.PathLike) -> Path:
    """A user's path made absolute from the working directory (``..`` folded, links kept)."""
    return Path(os.path.abspath(os.path.expanduser(path)))


class Stored(Extractor):
    """The stored output of any tool for each page, read by page id (module docstring).

    Parameters
    ----------
    path : str or mapping
        A file or folder; a template holding ``{dataset}``; or ``{data set: path}``. A
        relative path is taken from the folder the command was started in.
    format : str
        ``auto``, ``folder``, ``aeb``, ``jsonl``, or an LLM layout: ``mineru_html``,
        ``dripper``, ``readerlm``.
    id_field, text_field : str or None
        The JSON fields of the page id and the text (``jsonl`` and the LLM layouts;
        ``text_field`` also names the ``aeb`` record's field); None: the documented
        alternatives.
    max_bytes : int or None
        A stored file larger than this (a ``.gz`` file: or inflating to more) is not read:
        its pages fail saying so (:data:`DEFAULT_MAX_BYTES`; None: no cap).
    content : str
        How an LLM layout's content is read: ``auto`` (the layout's own), ``html``,
        ``markdown`` or ``text`` (:data:`CONTENTS`).
    """

    name = "stored"

    def __init__(
        self,
        path: str | Mapping[str, str] | None = None,
        format: str = "auto",
        id_field: str | None = None,
        text_field: str | None = None,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
        content: str = "auto",
    ):
        self.path = path
        self.format = format
        self.id_field = id_field
        self.text_field = text_field
        self.max_bytes = max_bytes
        self.content = content

    # -- where the outputs are ------------------------------------------------------------

    def _path_for(self, dataset: str) -> Path:
        if isinstance(self.path, Mapping):
            if dataset not in self.path:
                raise MissingOutput(
                    f"no stored outputs for data set {dataset!r} (path "
                    f"names {', '.join(map(str, self.path))})"
                )
            return _absolute(self.path[dataset])
        return _absolute(str(self.path).replace(DATASET, dataset))

    def files(self) -> list[Path]:
        """Every stored file or folder this config can read (a template's matches), sorted."""
        if isinstance(self.path, Mapping):
            return sorted({_absolute(p) for p in self.path.values()})
        path = os.path.expanduser(str(self.path))
        if DATASET not in path:
            return [_absolute(path)]
        pattern = glob.escape(path).replace(DATASET, "*")
        return sorted(_absolute(p) for p in glob.glob(pattern))

    def _outputs(self, path: Path) -> Mapping[str, str] | dict[str, Path]:
        fmt = _format_of(path, self.format)
        if _reads_folder(path, fmt):  # files are read page by page: a folder may be large
            return _listed(path, fmt, self.content)
        return _loaded(path, fmt, self.id_field, self.text_field, self.max_bytes, self.content)

    @classmethod
    def split_rows(cls, params: dict[str, Any]) -> dict[str, dict[str, Any]] | None:
        """One row per tool file when ``path`` is a glob (``output/*.json``) or a folder
        holding tool files (``.json``, ``.jsonl``, ``.ndjson``, each also ``.gz``) and no
        ``<page id>.txt|.md|.html`` files; each row is named after its file's stem
        (``output/trafilatura.json`` -> ``trafilatura``). None otherwise (one row)."""
        path = params.get("path")
        if not isinstance(path, (str, os.PathLike)) or DATASET in str(path):
            return None
        text = os.path.expanduser(str(path))
        if params.get("format") in LAYOUTS and os.path.isdir(text):
            return None  # one tool's folder (MinerU-HTML's holds error.jsonl and a .json)
        if glob.has_magic(text):
            files = [Path(p) for p in sorted(glob.glob(text))]
            if not files:
                raise ParamError("path", path, "no file or folder matches")
        elif os.path.isdir(text) and not _folder_files(Path(text)):
            files = sorted(p for p in Path(text).iterdir() if p.is_file() and _tool_file(p))
            if not files:
                return None  # an empty folder: the folder format says what is missing
        else:
            return None
        rows: dict[str, dict[str, Any]] = {}
        for file in files:
            stem = _stem(file)
            if stem in rows:
                raise ParamError(
                    "path",
                    path,
                    f"two files are named {stem!r} "
                    f"({rows[stem]['path']} and {file}): each row needs its own name",
                )
            rows[stem] = {**params, "path": str(_absolute(file))}
        return rows

    # -- the method -----------------------------------------------------------------------

    def _validate(self) -> None:
        check_choice("format", self.format, FORMATS)
        check_int("max_bytes", self.max_bytes, low=1, allow_none=True)
        check_choice("content", self.content, CONTENTS)
        if self.content != "auto" and self.format not in LAYOUTS:
            raise ParamError("content", self.content, f"applies to {', '.join(LAYOUTS)} only")
        want = (
            "a file or folder of stored outputs, a path holding {dataset}, or a mapping "
            "data set -> path"
        )
        if isinstance(self.path, Mapping):
            if not self.path or not all(isinstance(p, str) for p in self.path.values()):
                raise ParamError("path", self.path, f"must be {want}")
        elif not isinstance(self.path, (str, os.PathLike)) or not str(self.path).strip():
            raise ParamError("path", self.path, f"must be {want}")
        for name, value in (("id_field", self.id_field), ("text_field", self.text_field)):
            if value is not None and not (isinstance(value, str) and value):
                raise ParamError(name, value, "must be a JSON field name or null")
        files = self.files()
        if not files:
            raise ParamError("path", self.path, "no file or folder matches")
        for file in files:
            if not file.exists():
                raise ParamError("path", self.path, f"no such file or folder: {file}")
            if _reads_folder(file, self.format):  # read page by page; a bad one fails its page
                _folder_files(file, _format_of(file, self.format), self.content)
            else:  # names the file
                read_outputs(*(file, self.format, self.id_field, self.text_field), self.max_bytes)

    def resolved_params(self) -> dict[str, Any]:
        """The parameters plus each readable stored file's format and sha256: the cache key
        changes when a stored file does."""
        files = {}
        for file in self.files():
            if file.exists():
                files[str(file)] = {
                    "format": _format_of(file, self.format),
                    "sha256": _digest(file, self.format, self.max_bytes, self.content),
                }
        return {**self.get_params(), "files": files}

    def extract(self, page: Page) -> Extraction:
        path = self._path_for(page.dataset)
        outputs = self._outputs(path)
        if page.id not in outputs:
            raise MissingOutput(f"no stored output for page {page.id!r} in {path}")
        text = outputs[page.id]
        if isinstance(text, (Path, _Refused)):  # a folder's file, read page by page
            text = _folder_text(text, self.max_bytes, _format_of(path, self.format), self.content)
        if isinstance(text, FailedOutput):
            raise MissingOutput(f"page {page.id!r} in {path}: {text}")
        if isinstance(text, (MarkdownOutput, HtmlOutput)):  # text and Markdown of its structure
            return text.extraction()
        return Extraction(text=text)

    def dataset_notes(self, dataset: str, page_ids: Iterable[str]) -> dict[str, Any]:
        """The stored ids that are no page of ``dataset`` in this run: a count in a warning
        line, every id in run.json. Nothing when there are none."""
        try:
            path = self._path_for(dataset)
            stored = set(self._outputs(path))
        except (MissingOutput, OSError, StoredFileError):
            return {}  # every page already failed, saying why
        unknown = sorted(stored - set(page_ids))
        if not unknown:
            return {}
        shown = ", ".join(unknown[:3]) + (", ..." if len(unknown) > 3 else "")
        return {
            "file": str(path),
            "n_unknown_ids": len(unknown),
            "unknown_ids": unknown,
            "warning": f"{len(unknown)} of {len(stored)} stored ids in {path} are no page "
            f"of {dataset} in this run ({shown}); listed in run.json",
        }
