"""Fetch a public page set, lay it out in evalkit's folder format, verify it against the manifest.

Usage::

    python -m evalkit.readers.download NAME [--dest DIR] [--source URL] [--force] [--no-verify] [--no-progress]
    python -m evalkit.readers.download --write-manifest [--from DIR] [NAME ...]

``NAME`` is a folder name of ``datasets/README.md`` (``l3s-gn1``, ``cleaneval-dev``,
``cleanportaleval``, ``readability``, ``scrapinghub-aeb``, ``chaos``, ``big5-2017``)
or its config name (``l3s_gn1``, ``aeb``, ...). The source is a repository
archive (tar or zip) at an ``https://`` URL (``file://`` only with
``--allow-file-url``); the files of the set are picked out of it by path
prefix, copied under ``DEST/NAME`` and checked against
``datasets/manifest.json``: the number of files and a tree hash, the sha256 of
the sorted lines ``relpath<TAB>sha256(file)``. A mismatch stops with an error
naming both hashes and leaves nothing behind; the folder appears only after the
check passes (staged, then renamed).

An archive is data from outside, so what it may cost is capped (:class:`Limits`):
the bytes downloaded, the bytes it unpacks to, its number of files and its
compression ratio, each overridable on the command line. Every cap is checked
while the bytes stream (from the headers first, then as they come), so a bomb is
refused after reading at most a cap's worth; the refusal is one line naming the
cap and its flag. On any failure, the downloaded archive and the staged files are
removed (and the destination folder, if this call made it).

``--write-manifest`` recomputes the manifest from existing copies (by default
the shared copies next to the project), so the manifest is never written by
hand.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from urllib.parse import urlsplit

from evalkit.core.layout import PACKAGE_DIR, default_shared_data, layout
from evalkit.readers.sources import ALIASES, SOURCES, Source
from evalkit.report.progress import bar, set_enabled

__all__ = [
    "ALIASES",
    "DEFAULT_DEST",
    "DEFAULT_MANIFEST",
    "SOURCES",
    "ChecksumError",
    "Limits",
    "Source",
    "UnsafeArchiveError",
    "check_url",
    "count_files",
    "download",
    "load_manifest",
    "main",
    "manifest_entry",
    "tree_hash",
    "write_manifest",
]

#: the committed manifest of expected file counts and tree hashes (a checkout's
#: datasets/manifest.json; the wheel carries it as evalkit/datasets/manifest.json)
DEFAULT_MANIFEST = (layout().root or PACKAGE_DIR) / "datasets" / "manifest.json"
#: where the harness looks for the sets by default (``paths.shared_data``: evalkit.core.layout)
DEFAULT_DEST = default_shared_data()
_CHUNK = 1 << 20


class ChecksumError(RuntimeError):
    """The fetched files are not the ones the manifest describes."""


class UnsafeArchiveError(ValueError):
    """A URL, download or archive refused before it could cost too much; one line."""


_MIB = 1 << 20


@dataclass(frozen=True)
class Limits:
    """Caps on what one download may cost.

    Measured on the seven shared sets (laid out): at most 54.3 MB (chaos), 1,244 files
    (l3s-gn1), 3.5 MB in one file (an AEB page), a tar.gz compression ratio of 2.4-5.8.
    The archives are whole repositories, so the caps leave a wide margin: 512 MiB
    downloaded, 1 GiB unpacked, 50,000 files, a ratio of 100 (deflate reaches about
    1,000 on a run of zeros). The ratio (unpacked bytes over archive bytes) is only
    checked past :data:`RATIO_FLOOR` unpacked bytes: small text files compress well.
    """

    max_download: int = 512 * _MIB
    max_unpacked: int = 1024 * _MIB
    max_files: int = 50_000
    max_ratio: float = 100.0

    def __post_init__(self):
        for name in ("max_download", "max_unpacked", "max_files", "max_ratio"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ValueError(f"Limits.{name} must be a positive number, got {value!r}")


#: unpacked bytes below which the compression ratio is not checked
RATIO_FLOOR = 1 * _MIB
#: seconds a connection may stall before the download fails
TIMEOUT = 60


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def count_files(root: Path) -> int:
    """Number of regular files under ``root``."""
    return len(_files(Path(root)))


def tree_hash(root: Path) -> str:
    """sha256 of the sorted lines ``relpath<TAB>sha256(file)`` (POSIX paths, one per file)."""
    root = Path(root)
    lines = sorted(f"{p.relative_to(root).as_posix()}\t{_file_sha256(p)}\n" for p in _files(root))
    return hashlib.sha256("".join(lines).encode("utf-8")).hexdigest()


def manifest_entry(root: Path) -> dict:
    """``{"files": n, "tree_sha256": h}`` for one laid-out set."""
    return {"files": count_files(root), "tree_sha256": tree_hash(root)}


def load_manifest(path: Path = DEFAULT_MANIFEST) -> dict:
    path = Path(path)
    if not path.is_file():
        return {}
    with open(path, encoding="utf-8") as fh:
        return json.load(fh).get("datasets", {})


def write_manifest(
    source_dir: Path, names: list[str] | None = None, path: Path = DEFAULT_MANIFEST
) -> dict:
    """Recompute manifest entries from the copies under ``source_dir``; returns the datasets map.

    Entries for sets not recomputed are kept; the file is replaced atomically.
    """
    source_dir, path = Path(source_dir), Path(path)
    entries = load_manifest(path)
    for name in names or [n for n in SOURCES if (source_dir / n).is_dir()]:
        name = _canonical(name)
        if not (source_dir / name).is_dir():
            raise FileNotFoundError(f"no copy of {name!r} at {source_dir / name}")
        entries[name] = manifest_entry(source_dir / name)
    doc = {
        "comment": "written by `python -m evalkit.readers.download --write-manifest`; "
        "tree_sha256 = sha256 of sorted 'relpath<TAB>sha256(file)' lines",
        "datasets": {k: entries[k] for k in sorted(entries)},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
    return doc["datasets"]


def _canonical(name: str) -> str:
    name = ALIASES.get(name, name)
    if name not in SOURCES:
        raise KeyError(
            f"unknown data set {name!r}; known: {', '.join(SOURCES)} (or {', '.join(ALIASES)})"
        )
    return name


def check_url(url: str, allow_file: bool = False) -> None:
    """Refuse anything but ``https://`` (and ``file://`` when ``allow_file``), before any I/O."""
    scheme = urlsplit(url).scheme.lower()
    if scheme == "https" or (scheme == "file" and allow_file):
        return
    if scheme == "file":
        raise UnsafeArchiveError(f"refusing {url}: file:// URLs need --allow-file-url")
    raise UnsafeArchiveError(
        f"refusing {url}: only https:// URLs are fetched (file:// with --allow-file-url)"
    )


def _mib(n: float) -> str:
    return f"{n / _MIB:g} MiB"


def _fetch(url: str, into: Path, limits: Limits, allow_file: bool = False) -> Path:
    """Download ``url`` to a file in ``into``, refusing more than ``limits.max_download``."""
    target = into / "archive"
    too_big = UnsafeArchiveError(
        f"refusing {url}: more than the download cap of "
        f"{_mib(limits.max_download)} (--max-download-mb)"
    )
    with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
        check_url(response.geturl(), allow_file)  # a redirect must not leave https
        length = response.headers.get("Content-Length", "")
        if length.isdigit() and int(length) > limits.max_download:
            raise too_big
        # a bar of bytes (evalkit.report.progress): its total is the Content-Length when the
        # server sends one (GitHub's archives often do not: then bytes and rate alone)
        total = int(length) if length.isdigit() else None
        where = urlsplit(url).netloc or Path(urlsplit(url).path).name  # file:// has no host
        with (
            open(target, "wb") as out,
            bar(total, f"download {where}", unit="B", unit_scale=True) as progress,
        ):
            got = 0
            while chunk := response.read(_CHUNK):
                got += len(chunk)
                if got > limits.max_download:
                    raise too_big
                out.write(chunk)
                progress.update(len(chunk))
    return target


def _copy(src: BinaryIO, out: BinaryIO, size: int, what: str) -> None:
    """Copy at most ``size`` bytes (the size the archive declared) from ``src`` to ``out``."""
    left = size
    while chunk := src.read(min(_CHUNK, left + 1)):
        left -= len(chunk)
        if left < 0:
            raise UnsafeArchiveError(f"refusing {what}: more bytes than its header declares")
        out.write(chunk)


Member = tuple[str, Callable[[BinaryIO], None]]


def _members(archive: Path, limits: Limits, url: str) -> Iterator[Member]:
    """(path inside the archive, writer of its bytes) for every regular file, refusing an
    archive that passes a cap of ``limits`` (file count, unpacked bytes, ratio) as soon
    as the member headers read so far show it."""
    packed = max(archive.stat().st_size, 1)
    files = unpacked = 0

    def account(name: str, size: int) -> None:
        nonlocal files, unpacked
        files += 1
        unpacked += size
        if files > limits.max_files:
            raise UnsafeArchiveError(
                f"refusing {url}: more than {limits.max_files} files (--max-files)"
            )
        if unpacked > limits.max_unpacked:
            raise UnsafeArchiveError(
                f"refusing {url}: unpacks to more than "
                f"{_mib(limits.max_unpacked)} (at {name!r}; "
                "--max-unpacked-mb)"
            )
        if unpacked > RATIO_FLOOR and unpacked > limits.max_ratio * packed:
            raise UnsafeArchiveError(
                f"refusing {url}: {packed} bytes unpack to more than "
                f"{unpacked} bytes, a compression ratio over "
                f"{limits.max_ratio:g} (at {name!r}; --max-ratio)"
            )

    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                if info.is_dir():
                    continue
                account(info.filename, info.file_size)

                def write(out, i=info):
                    with zf.open(i) as src:
                        _copy(src, out, i.file_size, f"{url} member {i.filename!r}")

                yield info.filename, write
    elif tarfile.is_tarfile(archive):
        with tarfile.open(archive) as tf:
            for info in tf:
                if not info.isfile():
                    continue
                account(info.name, info.size)

                def write(out, i=info):
                    _copy(tf.extractfile(i), out, i.size, f"{url} member {i.name!r}")

                yield info.name, write
    else:
        raise ValueError(f"{archive}: neither a tar nor a zip archive")


def _place(inner: str, layout) -> str | None:
    """Destination relpath for an archive path (its top folder removed), or None if unused."""
    for src, dst in layout:
        if src.endswith("/") and inner.startswith(src) and len(inner) > len(src):
            return dst + inner[len(src) :]
        if inner == src:
            return dst
    return None


def _safe(relpath: str) -> bool:
    parts = Path(relpath).parts
    return bool(parts) and not Path(relpath).is_absolute() and ".." not in parts


def download(
    name: str,
    dest: Path = DEFAULT_DEST,
    source: str | None = None,
    manifest: Path = DEFAULT_MANIFEST,
    verify: bool = True,
    force: bool = False,
    allow_file: bool = False,
    limits: Limits | None = None,
) -> Path:
    """Fetch set ``name`` into ``dest/name``, verified against ``manifest``; returns the folder.

    ``source`` must be ``https://`` (``file://`` too when ``allow_file``); ``limits`` caps
    what the download may cost (:class:`Limits`). On any failure nothing is left behind.
    """
    name = _canonical(name)
    spec = SOURCES[name]
    url = source or spec.url
    check_url(url, allow_file)
    limits = limits or Limits()
    dest = Path(dest)
    final = dest / name
    if final.exists() and not force:
        raise FileExistsError(f"{final} already exists (use --force to replace it)")
    expected = load_manifest(manifest).get(name)
    if verify and expected is None:
        raise ChecksumError(
            f"no manifest entry for {name!r} in {manifest}: cannot verify "
            "(use --no-verify to accept unverified files)"
        )
    made = [p for p in (dest, *dest.parents) if not p.exists()]  # removed again on failure
    dest.mkdir(parents=True, exist_ok=True)
    try:
        return _download_into(
            dest, final, name, spec, url, expected, manifest, verify, allow_file, limits
        )
    except BaseException:
        for folder in made:  # innermost first; only folders this call made, and only if empty
            try:
                folder.rmdir()
            except OSError:
                break
        raise


def _download_into(
    dest: Path,
    final: Path,
    name: str,
    spec: Source,
    url: str,
    expected: dict | None,
    manifest: Path,
    verify: bool,
    allow_file: bool,
    limits: Limits,
) -> Path:
    """The staged work of :func:`download`: everything lives in a temporary folder inside
    ``dest`` (removed on any exit, the partial archive with it) until the final rename."""
    with tempfile.TemporaryDirectory(dir=dest, prefix=f".{name}.") as tmp:
        tmp = Path(tmp)
        archive = _fetch(url, tmp, limits, allow_file)
        stage = tmp / name
        for path, write in _members(archive, limits, url):
            inner = path.split("/", 1)[1] if "/" in path else path  # drop the archive's top folder
            rel = _place(inner, spec.layout)
            if rel is None:
                continue
            if not _safe(rel):
                raise ValueError(f"{url}: refusing unsafe archive path {path!r}")
            out = stage / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            with open(out, "wb") as fh:
                write(fh)
        if not stage.is_dir():
            raise ChecksumError(
                f"{url}: no file of {name!r} found in the archive "
                f"(expected paths under {[s for s, _ in spec.layout]})"
            )
        if verify:
            got = manifest_entry(stage)
            if got != expected:
                raise ChecksumError(
                    f"{name}: downloaded files do not match {manifest}: expected "
                    f"{expected['files']} files with tree hash {expected['tree_sha256']}, got "
                    f"{got['files']} files with tree hash {got['tree_sha256']} (source {url}). "
                    "The upstream copy may have changed; nothing was written."
                )
        if final.exists():
            shutil.rmtree(final)
        stage.rename(final)
    return final


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number")
    return value


def main(argv: list[str] | None = None) -> int:
    from evalkit.core.terminal import guard_console

    guard_console()  # data's control characters are shown, never obeyed

    parser = argparse.ArgumentParser(
        prog="python -m evalkit.readers.download", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "names", nargs="*", metavar="NAME", help=f"data set(s): {', '.join(SOURCES)}"
    )
    parser.add_argument(
        "--dest",
        type=Path,
        default=DEFAULT_DEST,
        help=f"parent folder of the set (default {DEFAULT_DEST})",
    )
    parser.add_argument("--source", help="archive URL to use instead of the public source")
    parser.add_argument(
        "--manifest",
        type=Path,
        default=DEFAULT_MANIFEST,
        help=f"manifest file (default {DEFAULT_MANIFEST})",
    )
    parser.add_argument("--no-verify", action="store_true", help="skip the checksum check")
    parser.add_argument("--force", action="store_true", help="replace an existing folder")
    parser.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar (as runner.progress=false does for a run)",
    )
    parser.add_argument(
        "--allow-file-url",
        action="store_true",
        help="accept a file:// --source (a local archive); otherwise https only",
    )
    default = Limits()
    parser.add_argument(
        "--max-download-mb",
        type=_positive,
        default=default.max_download / _MIB,
        help="refuse a download larger than this (default %(default)g MiB)",
    )
    parser.add_argument(
        "--max-unpacked-mb",
        type=_positive,
        default=default.max_unpacked / _MIB,
        help="refuse an archive that unpacks to more (default %(default)g MiB)",
    )
    parser.add_argument(
        "--max-files",
        type=_positive,
        default=default.max_files,
        help="refuse an archive with more files (default %(default)g)",
    )
    parser.add_argument(
        "--max-ratio",
        type=_positive,
        default=default.max_ratio,
        help="refuse an archive that unpacks to more than this many times its "
        "size (default %(default)g)",
    )
    parser.add_argument(
        "--write-manifest",
        action="store_true",
        help="recompute manifest entries from existing copies instead",
    )
    parser.add_argument(
        "--from",
        dest="source_dir",
        type=Path,
        default=DEFAULT_DEST,
        help="folder holding the copies for --write-manifest",
    )
    args = parser.parse_args(argv)
    set_enabled(not args.no_progress)
    try:
        if args.write_manifest:
            entries = write_manifest(args.source_dir, args.names or None, args.manifest)
            for name in args.names or entries:
                name = _canonical(name)
                print(f"{name}: {entries[name]['files']} files, {entries[name]['tree_sha256']}")
            return 0
        if not args.names:
            parser.error("give at least one NAME (or --write-manifest)")
        if args.source and len(args.names) > 1:
            parser.error("--source applies to one NAME at a time")
        limits = Limits(
            max_download=int(args.max_download_mb * _MIB),
            max_unpacked=int(args.max_unpacked_mb * _MIB),
            max_files=int(args.max_files),
            max_ratio=args.max_ratio,
        )
        for name in args.names:
            folder = download(
                name,
                args.dest,
                args.source,
                args.manifest,
                verify=not args.no_verify,
                force=args.force,
                allow_file=args.allow_file_url,
                limits=limits,
            )
            print(f"{name}: {count_files(folder)} files in {folder}")
        return 0
    except (
        ChecksumError,
        KeyError,
        FileExistsError,
        FileNotFoundError,
        ValueError,
        OSError,
    ) as exc:
        print(f"error: {exc.args[0] if isinstance(exc, KeyError) else exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
