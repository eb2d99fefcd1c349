"""A crawl made from the built-in synthetic pages: WARC files to try ``experiment=crawl`` on.

    python -m evalkit.harness.make_warc --pages 100000 --out DIR [--seed 0]
        [--pages-per-site 10] [--records-per-file 10000]

writes ``DIR/crawl-00000.warc.gz``, ``crawl-00001.warc.gz``, ...: each file a ``warcinfo``
record then up to ``--records-per-file`` ``response`` records, one gzip member per record
(WARC/1.1, ISO 28500 annex D), as :class:`evalkit.readers.warc.WarcDataset` reads them. The
pages are those of ``dataset=synthetic`` with ``n_sites = ceil(pages / pages_per_site)``,
generated a site at a time (memory stays flat at any page count). Deterministic: the same
arguments give the same bytes (record ids are UUIDv5 of the seed and page number, dates are
fixed, gzip headers carry no time). A folder that already holds ``crawl-*.warc.gz`` is
refused (one line), unless ``--force``. Files are written whole or not at all (a temporary
file renamed).

The harness floor, not the readers': it uses the synthetic reader, and readers import only
``readers.base`` (docs/floors.md).
"""

from __future__ import annotations

import argparse
import gzip
import math
import os
import sys
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from evalkit.core.page import Page

__all__ = ["FILE_PATTERN", "http_response", "main", "warc_record", "write_crawl"]

#: the names of the files written (``{:05d}`` the file's number)
FILE_PATTERN = "crawl-{:05d}.warc.gz"
#: the crawl's fixed start time; record ``i`` is dated ``i`` seconds later
START = datetime(2024, 1, 1, tzinfo=UTC)
#: the namespace of the record ids
NAMESPACE = uuid.UUID("6f0c2a8e-4b53-5b0e-9d3a-3c1e8f6a2b10")
#: gzip level of every member (fixed: the same bytes on every run)
LEVEL = 6


def warc_record(headers: list[tuple[str, str]], block: bytes) -> bytes:
    """One WARC/1.1 record: ``headers`` (Content-Length added), a blank line, ``block``, and
    the two CRLF that end a record."""
    head = "WARC/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers)
    head += f"Content-Length: {len(block)}\r\n\r\n"
    return head.encode("utf-8") + block + b"\r\n\r\n"


def http_response(body: bytes, content_type: str = "text/html; charset=utf-8") -> bytes:
    """An HTTP/1.1 200 response carrying ``body``."""
    head = f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n\r\n"
    return head.encode("ascii") + body


def _member(record: bytes) -> bytes:
    return gzip.compress(record, compresslevel=LEVEL, mtime=0)


def _date(i: int) -> str:
    return (START + timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _warcinfo(name: str, seed: int, info_id: str) -> bytes:
    fields = f"software: evalkit make_warc\r\nformat: WARC File Format 1.1\r\nseed: {seed}\r\n"
    return warc_record(
        [
            ("WARC-Type", "warcinfo"),
            ("WARC-Record-ID", f"<urn:uuid:{info_id}>"),
            ("WARC-Date", _date(0)),
            ("WARC-Filename", name),
            ("Content-Type", "application/warc-fields"),
        ],
        fields.encode("ascii"),
    )


def _response(page: Page, i: int, seed: int, info_id: str) -> bytes:
    rid = uuid.uuid5(NAMESPACE, f"{seed}:{i}")
    return warc_record(
        [
            ("WARC-Type", "response"),
            ("WARC-Record-ID", f"<urn:uuid:{rid}>"),
            ("WARC-Date", _date(i)),
            ("WARC-Target-URI", page.url or f"http://page{i}.example/"),
            ("WARC-Warcinfo-ID", f"<urn:uuid:{info_id}>"),
            ("Content-Type", "application/http; msgtype=response"),
        ],
        http_response(page.raw),
    )


def _pages(n: int, seed: int, pages_per_site: int) -> Iterator[Page]:
    from evalkit.readers.synthetic import SyntheticDataset

    n_sites = max(1, math.ceil(n / pages_per_site))
    ds = SyntheticDataset(n_sites=n_sites, pages_per_site=pages_per_site, seed=seed, limit=n)
    yield from ds.pages()


def write_crawl(
    out: str | os.PathLike,
    pages: int,
    *,
    seed: int = 0,
    pages_per_site: int = 10,
    records_per_file: int = 10_000,
    force: bool = False,
) -> list[Path]:
    """Write ``pages`` synthetic pages as WARC files into ``out`` (module docstring); returns
    the files. ``ValueError`` (one line) for a bad argument or a folder holding a crawl."""
    for name, value in (("pages", pages), ("pages_per_site", pages_per_site)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"--{name.replace('_', '-')}={value}: must be a whole number >= 1")
    if not isinstance(records_per_file, int) or records_per_file < 1:
        raise ValueError(f"--records-per-file={records_per_file}: must be a whole number >= 1")
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"--out={folder}: not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    old = sorted(folder.glob("crawl-*.warc.gz"))
    if old and not force:
        raise ValueError(f"--out={folder}: already holds {old[0].name}; add --force to replace")
    for path in old:
        path.unlink()
    written: list[Path] = []
    fh, tmp = None, None
    try:
        for i, page in enumerate(_pages(pages, seed, pages_per_site)):
            if i % records_per_file == 0:
                if fh is not None:
                    fh.close()
                    os.replace(tmp, written[-1])
                number = len(written)
                name = FILE_PATTERN.format(number)
                written.append(folder / name)
                tmp = folder / f".{name}.tmp"
                fh = open(tmp, "wb")  # noqa: SIM115 - closed at the file's end or in finally
                info_id = uuid.uuid5(NAMESPACE, f"{seed}:warcinfo:{number}")
                fh.write(_member(_warcinfo(name, seed, str(info_id))))
            fh.write(_member(_response(page, i, seed, str(info_id))))
        if fh is not None:
            fh.close()
            os.replace(tmp, written[-1])
            fh = None
    finally:
        if fh is not None:  # interrupted: no half file is left behind
            fh.close()
            tmp.unlink(missing_ok=True)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evalkit.harness.make_warc",
        description="Write synthetic pages as WARC files (for evalkit experiment=crawl).",
    )
    parser.add_argument("--pages", type=int, required=True, help="response records to write")
    parser.add_argument("--out", required=True, help="the folder the WARC files go to")
    parser.add_argument("--seed", type=int, default=0, help="the synthetic generator's seed")
    parser.add_argument("--pages-per-site", type=int, default=10, help="pages of each site")
    parser.add_argument(
        "--records-per-file", type=int, default=10_000, help="response records per WARC file"
    )
    parser.add_argument("--force", action="store_true", help="replace crawl-*.warc.gz in --out")
    args = parser.parse_args(argv)
    try:
        files = write_crawl(
            args.out,
            args.pages,
            seed=args.seed,
            pages_per_site=args.pages_per_site,
            records_per_file=args.records_per_file,
            force=args.force,
        )
    except (ValueError, OSError) as exc:
        print(f"evalkit make_warc: {exc}", file=sys.stderr)
        return 2
    size = sum(p.stat().st_size for p in files)
    print(
        f"wrote {args.pages} response records in {len(files)} file(s), {size / 1e6:.1f} MB, "
        f"to {Path(args.out)}; run: evalkit experiment=crawl dataset.warc.path={Path(args.out)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
