"""The WARC reader (evalkit.readers.warc): pages from a tiny WARC made here, by hand (WARC/1.1,
ISO 28500), one gzip member per record; the gates; the reader through the registry and a run."""

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("fastwarc.warc")

from evalkit.harness.registry import DATASETS
from evalkit.readers.warc import WarcDataset, http_charset_label, record_id

DATE = b"2024-01-02T03:04:05Z"
#: compressed bytes cut off the last record: inside its block (its headers are whole)
CUT_BYTES = 20
LATIN1_BODY = "<html><body><p>Grüße aus Köln</p></body></html>".encode("latin-1")
GZIP_BODY = "<html><body><p>Zweite Seite €</p></body></html>".encode()


def record(kind: bytes, uuid: bytes, uri: bytes | None, block: bytes, msgtype=b"response"):
    head = b"WARC/1.1\r\nWARC-Type: " + kind + b"\r\nWARC-Record-ID: <urn:uuid:" + uuid + b">\r\n"
    head += b"WARC-Date: " + DATE + b"\r\n"
    if uri is not None:
        head += b"WARC-Target-URI: " + uri + b"\r\n"
    ctype = b"application/warc-fields" if kind == b"warcinfo" else b"application/http;msgtype="
    ctype += b"" if kind == b"warcinfo" else msgtype
    head += b"Content-Type: " + ctype + b"\r\nContent-Length: %d\r\n\r\n" % len(block)
    return head + block + b"\r\n\r\n"


def http(content_type: bytes, body: bytes, extra: bytes = b"", status: bytes = b"200 OK"):
    return (
        b"HTTP/1.1 "
        + status
        + b"\r\nContent-Type: "
        + content_type
        + b"\r\n"
        + extra
        + b"Content-Length: %d\r\n\r\n" % len(body)
        + body
    )


def tiny_warc(folder: Path, name: str = "crawl.warc.gz", truncated: bool = True) -> Path:
    """warcinfo, two HTML responses (a charset in one Content-Type, a gzip body in the other),
    a PDF response, a request, a 404, another page of the first site, a truncated last record."""
    records = [
        record(b"warcinfo", b"0000", None, b"software: evalkit tests\r\n", b""),
        record(
            b"response",
            b"aaaa-1",
            b"http://www.a.example/one",
            http(b"text/html; charset=ISO-8859-1", LATIN1_BODY),
        ),
        record(
            b"response",
            b"bbbb-2",
            b"https://b.example/two",
            http(b"application/xhtml+xml", gzip.compress(GZIP_BODY), b"Content-Encoding: gzip\r\n"),
        ),
        record(
            b"response",
            b"cccc-3",
            b"http://a.example/doc.pdf",
            http(b"application/pdf", b"%PDF-1.4"),
        ),
        record(
            b"request", b"dddd-4", b"http://a.example/one", b"GET /one HTTP/1.1\r\n\r\n", b"request"
        ),
        record(
            b"response",
            b"eeee-5",
            b"http://b.example/gone",
            http(b"text/html", b"<p>gone</p>", status=b"404 Not Found"),
        ),
        record(
            b"response",
            b"ffff-6",
            b"http://a.example/three",
            http(b"text/html", b"<html><body><p>Third page, first site</p></body></html>"),
        ),
    ]
    data = b"".join(gzip.compress(r) for r in records)
    if truncated:
        last = record(
            b"response", b"9999-9", b"http://c.example/cut", http(b"text/html", b"<p>x</p>" * 200)
        )
        data += gzip.compress(last)[:-CUT_BYTES]
    path = folder / name
    path.write_bytes(data)
    return path


def test_pages_ids_urls_text_and_order(tmp_path):
    tiny_warc(tmp_path)
    ds = WarcDataset(str(tmp_path))
    pages = list(ds.pages())
    # grouped by site: a.example's two pages first (the first site seen), then b.example
    assert [p.id for p in pages] == ["aaaa-1", "ffff-6", "bbbb-2"]
    assert [p.url for p in pages] == [
        "http://www.a.example/one",
        "http://a.example/three",
        "https://b.example/two",
    ]
    assert [p.site for p in pages] == ["a.example", "a.example", "b.example"]
    first, _, second = pages
    assert "Grüße aus Köln" in first.html
    assert (first.encoding, first.encoding_source) == ("cp1252", "http")  # WHATWG: latin1
    assert first.raw == LATIN1_BODY
    assert second.raw == GZIP_BODY  # the gzip content encoding undone
    assert "Zweite Seite €" in second.html and second.encoding == "utf-8"
    assert all(p.gold.text == "" for p in pages)
    assert first.source.rpartition("@")[0].endswith("crawl.warc.gz")


def test_skipped_records_are_counted_and_named(tmp_path):
    path = tiny_warc(tmp_path)
    ds = WarcDataset(str(tmp_path))
    list(ds.pages())
    reasons = [(Path(s.file).name, s.reason) for s in ds.skipped]
    assert ("crawl.warc.gz", "1 response record(s) skipped: not HTML (application/pdf)") in reasons
    assert ("crawl.warc.gz", "1 response record(s) skipped: HTTP status 404") in reasons
    cut = [s for s in ds.skipped if s.file.startswith(f"{path}@")]
    assert len(cut) == 1 and "truncated record" in cut[0].reason  # named with its offset


def test_a_record_cut_in_its_headers_is_skipped(tmp_path):
    cut = record(b"response", b"cut", b"http://c.example/", http(b"text/html", b"<p>x</p>" * 200))
    ok = record(b"response", b"ok", b"http://f.example/", http(b"text/html", b"<p>ok</p>"))
    (tmp_path / "x.warc.gz").write_bytes(gzip.compress(ok) + gzip.compress(cut)[:-60])
    ds = WarcDataset(str(tmp_path))
    assert [p.id for p in ds.pages()] == ["ok"]
    assert any("no Content-Length" in s.reason for s in ds.skipped)


def test_limit_counts_pages_and_plain_warc(tmp_path):
    tiny_warc(tmp_path, "crawl.warc", truncated=False)
    plain = tmp_path / "crawl.warc"
    plain.write_bytes(gzip.decompress((tmp_path / "crawl.warc").read_bytes()))
    ds = WarcDataset(str(tmp_path), files="*.warc", limit=2)
    assert [p.id for p in ds.pages()] == ["aaaa-1", "ffff-6"]
    assert WarcDataset(str(tmp_path), files="*.warc").page_count() is None  # needs a pass


def test_record_over_the_cap_and_bad_body_are_skipped(tmp_path):
    bad = record(
        b"response",
        b"bad-gz",
        b"http://d.example/",
        http(b"text/html", b"not gzip at all", b"Content-Encoding: gzip\r\n"),
    )
    big = record(b"response", b"big", b"http://e.example/", http(b"text/html", b"<p>big</p>" * 500))
    ok = record(b"response", b"ok", b"http://f.example/", http(b"text/html", b"<p>ok</p>"))
    (tmp_path / "x.warc.gz").write_bytes(b"".join(gzip.compress(r) for r in (bad, big, ok)))
    ds = WarcDataset(str(tmp_path), max_record_bytes=2000)
    assert [p.id for p in ds.pages()] == ["ok"]  # the run goes on past both
    reasons = " | ".join(s.reason for s in ds.skipped)
    assert "malformed record" in reasons and "over max_record_bytes" in reasons


def test_a_link_leading_out_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    tiny_warc(outside, truncated=False)
    data = tmp_path / "data"
    data.mkdir()
    os.symlink(outside / "crawl.warc.gz", data / "link.warc.gz")
    ds = WarcDataset(str(data))
    assert list(ds.pages()) == []
    assert any("symbolic link" in s.reason for s in ds.skipped)


def test_bad_parameters_and_helpers(tmp_path):
    from evalkit.core.validate import ParamError

    with pytest.raises(ParamError):
        WarcDataset(str(tmp_path), files="../*.warc.gz")
    with pytest.raises(ParamError):
        WarcDataset(str(tmp_path), max_record_bytes=0)
    assert record_id("<urn:uuid:ab-cd>", None, None) == "ab-cd"
    assert len(record_id(None, "http://x/", "2024")) == 64
    assert http_charset_label('text/html; Charset="UTF-8"') == "UTF-8"
    assert http_charset_label("text/html") is None


def test_registry_and_a_tiny_run(tmp_path):
    data = tmp_path / "crawl"
    data.mkdir()
    tiny_warc(data)
    assert DATASETS.get("warc") is WarcDataset
    assert [p.id for p in DATASETS.create("warc", path=str(data)).pages()] == [
        "aaaa-1",
        "ffff-6",
        "bbbb-2",
    ]
    run = tmp_path / "run"
    cmd = [
        *(sys.executable, "-m", "evalkit", "experiment=extraction", "dataset=warc"),
        *(f"dataset.warc.path={data}", "method=[fulltext,cetd]", "runner.progress=false"),
        *("extraction.n_boot=10", "runner.cache=false", f"hydra.run.dir={run}"),
    ]
    done = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "evalkit: 0 failed (page, method) pairs" in done.stdout + done.stderr
    assert "warc (3 pages)" in done.stdout + done.stderr
