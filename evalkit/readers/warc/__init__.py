"""Reader for crawl files: the HTML responses of WARC files, without gold.

WARC is the Web ARChive format (ISO 28500; WARC/1.1, IIPC 2017): a file is a sequence of
records, each a block of WARC headers (``WARC-Type``, ``WARC-Record-ID``,
``WARC-Target-URI``, ``WARC-Date``, ``Content-Length``) and a content block; a ``response``
record's block is the HTTP response as the crawler received it. A ``.warc.gz`` file
compresses each record as its own gzip member (ISO 28500, annex D), so a record can be
read from its offset. The records are read with FastWARC (Bevendorff, Potthast & Stein
2021, part of the resiliparse project, GitHub ``chatnoir-eu/chatnoir-resiliparse``),
record by record: no file is ever held in memory.

``WarcDataset(path, files="*.warc.gz")`` reads every file in the folder ``path`` whose name
matches ``files`` (sorted by name; plain ``.warc`` or ``.warc.gz``, the compression found
from the bytes). A page per ``response`` record whose HTTP status is 2xx and whose
Content-Type is HTML (:data:`HTML_TYPES`):

* ``id``: the ``WARC-Record-ID`` without ``<urn:uuid:`` and ``>`` (else the sha256 of the
  target URI and ``WARC-Date``); ``url``: ``WARC-Target-URI``; ``site``: the URL's host
  without ``www.``; ``source``: ``<file>@<offset>``, the record's offset in the file.
* ``raw``: the HTTP body, its transfer and content encodings (chunked, gzip, deflate,
  brotli) undone by FastWARC. The charset of the HTTP Content-Type is used when it is a
  WHATWG label and the bytes decode with it (the Encoding Standard puts the transport's
  charset before the page's ``<meta>``); bytes that are valid non-ASCII UTF-8 and
  everything else go to the page's own rules (:func:`evalkit.core.decode.decode_html`).
* ``gold``: none (``Gold(text="")``). Crawled pages are for the comparison of extractors
  without gold (issue 41, item 3); under the text metrics their scores are those of an
  empty gold (undefined or empty, evalkit's empty-gold rules).

The gates (docs/security.md, the read gate): a file is read only when its real path lies
inside ``path`` (a link leading out is refused) and it is a regular file, opened without
following a last link; a record whose ``Content-Length`` is over ``max_record_bytes`` is
skipped before its block is read, and a body over ``runner.max_page_bytes`` once decoded.
A malformed record (a truncated block or gzip member, HTTP headers that do not parse, an
encoding that does not decode) is skipped with its file and offset named and the run goes
on. Responses that are not HTML or not 2xx are counted, one skip line per file and reason.

Pages come out grouped by site (docs/sites.md): a first pass reads only the WARC and
HTTP headers and keeps, per site, the file number and offset of its records (12 bytes a record); the
second reads each site's records from their offsets. FastWARC is an optional package
(``requires``): a run without it stops before any page with one line. A runner with workers
has each file indexed and, when no site or page id is in two files, read by a worker
(evalkit.readers.warc.shards): the same pages, skips and order.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from evalkit.core.capped import within
from evalkit.core.domains import host_of, url_site
from evalkit.core.method import param_names
from evalkit.core.page import Gold, Page
from evalkit.core.validate import ParamError, check_int
from evalkit.core.web_encodings import web_codec
from evalkit.readers.base import DEFAULT_MAX_FILE_BYTES, Dataset, Refused, inside
from evalkit.readers.warc.runs import SiteRuns
from evalkit.readers.warc.shards import WarcPages, WarcShard, scan_shard

__all__ = [
    "DEFAULT_FILES",
    "HTML_TYPES",
    "WarcDataset",
    "WarcPages",
    "WarcShard",
    "http_charset_label",
    "record_id",
    "scan_shard",
]

#: the files read by default: compressed WARC files, one gzip member per record
DEFAULT_FILES = "*.warc.gz"
#: HTTP Content-Types read as pages (the media type, lower case, without parameters)
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
#: HTTP statuses whose body is a page; redirects and errors are counted and skipped
OK_STATUS = range(200, 300)
#: the default cap of a record's ``Content-Length`` (the HTTP response as stored)
DEFAULT_MAX_RECORD_BYTES = DEFAULT_MAX_FILE_BYTES
#: FastWARC undoes chunked transfer and gzip/deflate/brotli content encodings
AUTO_DECODE = "all"
#: HTTP headers ended by a bare LF (some crawlers write them) are read, as browsers do
QUIRKS_MODE = True
#: the prefix and suffix of a ``WARC-Record-ID`` dropped from the page id
URN_PREFIX, URN_SUFFIX = "<urn:uuid:", ">"
#: the WARC header block that turns a stored block into a record FastWARC parses alone
_RECORD_HEAD = (
    b"WARC/1.1\r\nWARC-Type: response\r\n"
    b"Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n"
)
_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_NOFOLLOW", 0)
)


def _fastwarc():
    try:
        from fastwarc.warc import ArchiveIterator, WarcRecord, WarcRecordType
    except ImportError as exc:
        raise ImportError(
            "the warc reader reads WARC files with FastWARC, which is not installed "
            '(pip install "evalkit[warc]")'
        ) from exc
    return ArchiveIterator, WarcRecord, WarcRecordType


def record_id(warc_id: str | None, uri: str | None, date: str | None) -> str:
    """A page id from a ``WARC-Record-ID`` (``<urn:uuid:X>`` -> ``X``; another URN without
    its angle brackets), else the sha256 of the target URI and date."""
    if warc_id:
        key = warc_id.strip()
        if key.startswith(URN_PREFIX) and key.endswith(URN_SUFFIX):
            return key[len(URN_PREFIX) : -len(URN_SUFFIX)]
        return key.removeprefix("<").removesuffix(">")
    return hashlib.sha256(f"{uri or ''} {date or ''}".encode("utf-8", "replace")).hexdigest()


def http_charset_label(content_type: str | None) -> str | None:
    """The ``charset`` parameter of an HTTP Content-Type value, unquoted, or None."""
    for param in (content_type or "").split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            return value.strip().strip("\"'") or None
    return None


def _decoded(raw: bytes, label: str | None) -> tuple[str, str] | None:
    """``(text, codec)`` when the HTTP charset ``label`` decides (module docstring), else None."""
    codec = web_codec(label) if label else None
    if codec is None or raw.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
        return None  # a byte-order mark comes first (Encoding Standard); the page decides
    if codec != "utf-8" and not raw.isascii():
        try:
            raw.decode("utf-8")
            return None  # declared legacy over valid UTF-8: the page's rules (utf-8-over-declared)
        except UnicodeDecodeError:
            pass
    try:
        return raw.decode(codec), codec
    except UnicodeDecodeError:
        return None


def _site(uri: str | None) -> str | None:
    try:
        return url_site(uri)
    except ValueError:  # a URL urlsplit refuses (a bad IPv6 literal)
        return None


class WarcDataset(Dataset):
    """The HTML responses of WARC files, without gold (module docstring)."""

    fetch_hint = "a folder of WARC files (datasets/README.md, warc)"
    requires = ("fastwarc.warc",)
    install_hint = 'pip install "evalkit[warc]"'

    def __init__(
        self,
        path: str | None = None,
        limit: int | None = None,
        files: str = DEFAULT_FILES,
        max_record_bytes: int | None = DEFAULT_MAX_RECORD_BYTES,
        name: str = "warc",
    ):
        super().__init__(path=path, limit=limit)
        if not isinstance(files, str) or not files:
            raise ParamError("files", files, "must be a file name pattern such as '*.warc.gz'")
        try:
            inside(".", files, "files pattern")  # relative, no '..': never a file outside
        except Refused as exc:
            raise ParamError("files", files, str(exc)) from None
        check_int("max_record_bytes", max_record_bytes, low=1, allow_none=True)
        self.files = files
        self.max_record_bytes = max_record_bytes
        self.name = name
        #: pass 1 already made by the workers (evalkit.readers.warc.shards): taken by the next read
        self._made: tuple | None = None

    def get_params(self) -> dict:
        return {k: getattr(self, k) for k in param_names(type(self))}

    # -- files through the read gate -------------------------------------------------------

    def _warc_files(self) -> list[Path]:
        root = self.root()
        found = []
        for path in sorted(root.glob(self.files)):
            try:
                within(path, root)
            except Refused as exc:
                self.skip(path, str(exc))
                continue
            found.append(path)
        if not found:
            self.skip(root / self.files, "no WARC file matches")
        return found

    def _open(self, path: Path):
        """``path`` opened for reading: inside the folder (checked again), no last link
        followed, a regular file (checked on the open file); :class:`Refused` otherwise."""
        fd = os.open(within(path, self.root()), _OPEN_FLAGS)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise Refused("not a regular file (a FIFO, device, socket or folder); not read")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")

    # -- pass 1: the index, by site --------------------------------------------------------

    def _index(self, files: list[Path], counts: dict[Path, Counter], ids=None) -> list[tuple]:
        """Runs ``(site, file numbers, offsets)``: a site's HTML responses in file order,
        sites in the order of their first record (:func:`group_by_site` on offsets). ``ids``
        (a list): each record's page id is appended (evalkit.readers.warc.shards)."""
        ArchiveIterator, _, WarcRecordType = _fastwarc()
        runs = SiteRuns()
        for number, path in enumerate(files):
            tally = counts[path]
            try:
                with self._open(path) as stream:
                    records = ArchiveIterator(
                        stream,
                        record_types=WarcRecordType.response,
                        parse_http=True,
                        auto_decode="none",  # headers only: bodies are decoded in pass 2
                        quirks_mode=QUIRKS_MODE,
                        fsspec_args=False,
                    )
                    for record in records:
                        reason = self._pass_over(record)
                        if reason is not None:
                            tally[reason] += 1
                            continue
                        run = runs.run(_site(record.headers.get("WARC-Target-URI")))
                        run[1].append(number)
                        run[2].append(record.stream_pos)
                        if ids is not None:
                            head = record.headers
                            ids.append(
                                record_id(
                                    head.get("WARC-Record-ID"),
                                    head.get("WARC-Target-URI"),
                                    head.get("WARC-Date"),
                                )
                            )
            except Refused as exc:
                self.skip(path, str(exc))
            except (OSError, ValueError) as exc:  # a broken file: its records so far are kept
                self.skip(path, f"not a readable WARC file past its indexed records ({exc})")
        return runs.runs

    def _pass_over(self, record) -> str | None:
        """Why a response record is no page (a count's key), from its headers alone."""
        declared = record.headers.get("Content-Length")
        cap = self.max_record_bytes
        if cap is not None and declared and declared.strip().isdigit() and int(declared) > cap:
            return "over max_record_bytes"
        http = record.http_headers
        if http is None or http.status_code is None:
            return None  # malformed: named with its offset in pass 2
        if http.status_code not in OK_STATUS:
            return f"HTTP status {http.status_code}"
        media = (record.http_content_type or "").lower()
        return None if media in HTML_TYPES else f"not HTML ({media or 'no Content-Type'})"

    # -- pass 2: one record at a time ------------------------------------------------------

    def pages(self):
        """The pages, as :meth:`Dataset.pages`, from a stream that can also hand a runner with
        workers one task per WARC file (:class:`WarcPages`)."""
        self.skipped, self._made = [], None
        return WarcPages(self)

    def _iter_pages(self) -> Iterator[Page]:
        made, self._made = self._made, None
        if made is None:
            files = self._warc_files()
            counts: dict[Path, Counter] = {path: Counter() for path in files}
            runs = self._index(files, counts)
        else:  # the files, their runs, counts and skips as the two steps above leave them
            files, runs, counts, skipped = made
            self.skipped.extend(skipped)
        opened: tuple[int, object] | None = None
        try:
            for site, numbers, offsets in runs:
                for number, offset in zip(numbers, offsets, strict=True):
                    if opened is None or opened[0] != number:
                        if opened is not None:
                            opened[1].close()
                        opened = None
                        try:  # swapped for a link or a FIFO since pass 1: refused again
                            opened = (number, self._open(files[number]))
                        except (OSError, Refused) as exc:
                            self.skip(f"{files[number]}@{offset}", f"not read ({exc})")
                            continue
                    page = self._page(opened[1], files[number], offset, site)
                    if page is not None:
                        yield page
        finally:
            if opened is not None:
                opened[1].close()
            self._skip_counts(counts)

    def _skip_counts(self, counts: dict[Path, Counter]) -> None:
        for path, tally in counts.items():  # one line per file and reason
            for reason, n in sorted(tally.items()):
                self.skip(path, f"{n} response record(s) skipped: {reason}")

    def _page(self, stream, path: Path, offset: int, site: str | None) -> Page | None:
        where = f"{path}@{offset}"
        ArchiveIterator, WarcRecord, WarcRecordType = _fastwarc()
        try:
            stream.seek(offset)
            record = next(
                iter(
                    ArchiveIterator(
                        stream,
                        record_types=WarcRecordType.any_type,
                        parse_http=False,
                        fsspec_args=False,
                    )
                ),
                None,
            )
            if record is None:
                self.skip(where, "no WARC record at its offset (one gzip stream for the file?)")
                return None
            headers = record.headers
            uri = headers.get("WARC-Target-URI")
            if _site(uri) != site:
                self.skip(where, "another record at its offset (one gzip stream for the file?)")
                return None
            declared = (headers.get("Content-Length") or "").strip()
            if not declared.isdigit():  # required (ISO 28500, 5.2): a record cut in its headers
                self.skip(where, "malformed WARC headers (no Content-Length)")
                return None
            declared = int(declared)
            block = record.reader.read(declared)
            if len(block) < declared:
                self.skip(where, f"truncated record: {len(block)} of {declared} bytes")
                return None
            # parsed alone, so a body that does not decode stops this record only
            alone = WarcRecord.from_bytes(_RECORD_HEAD % len(block) + block + b"\r\n\r\n")
            alone.parse_http(auto_decode=AUTO_DECODE, quirks_mode=QUIRKS_MODE)
            http = alone.http_headers
            if http is None or http.status_code is None:
                self.skip(where, "malformed HTTP headers")
                return None
            cap = self.max_page_bytes
            raw = alone.reader.read(cap + 1) if cap is not None else alone.reader.read()
        except (OSError, ValueError) as exc:
            self.skip(where, f"malformed record ({exc})")
            return None
        if cap is not None and len(raw) > cap:
            self.skip(where, f"too large: over {cap} bytes decoded > runner.max_page_bytes")
            return None
        decoded = _decoded(raw, http_charset_label(http.get("Content-Type")))
        html, encoding = decoded if decoded is not None else ("", "")
        return Page(
            id=record_id(headers.get("WARC-Record-ID"), uri, headers.get("WARC-Date")),
            dataset=self.name,
            raw=raw,
            html=html,
            encoding=encoding,
            encoding_source="http" if decoded is not None else "",
            url=uri,
            source=where,
            site=_host(uri),
            gold=Gold(text=""),
        )


def _host(uri: str | None) -> str | None:
    try:
        return host_of(uri)
    except ValueError:
        return None
