"""Downloader: layout from a repository archive, tree hash, manifest check (file:// only, no network)."""

import hashlib
import io
import json
import tarfile
import zipfile

import pytest

from evalkit.readers import download as download_module
from evalkit.readers.download import (
    DEFAULT_MANIFEST,
    SOURCES,
    ChecksumError,
    Limits,
    UnsafeArchiveError,
    check_url,
    count_files,
    download,
    main,
    manifest_entry,
    tree_hash,
    write_manifest,
)
from evalkit.readers.pairs import PairsDataset

# what a GitHub archive of MSVCode/ir-research-data looks like, in miniature
ARCHIVE_FILES = {
    "ir-research-data-main/README.md": b"not part of the set",
    "ir-research-data-main/Extraction/chaos-all/html/storm (1).html": b"<html><body><p>Storm hits the coast.</p><div>Menu</div></body></html>",
    "ir-research-data-main/Extraction/chaos-all/gold/storm (1).txt": b"Storm hits the coast.",
    "ir-research-data-main/Extraction/big5-17/html/other.html": b"<p>another set</p>",
}
LAID_OUT = {"html/storm (1).html", "gold/storm (1).txt"}


def _tar(path, files):
    with tarfile.open(path, "w:gz") as tf:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path


def _expected_entry(tmp_path):
    """The manifest entry of the laid-out set, computed from a hand-made copy."""
    ref = tmp_path / "reference" / "chaos"
    for name, data in ARCHIVE_FILES.items():
        if "/chaos-all/" in name:
            out = ref / name.split("/chaos-all/")[1]
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(data)
    manifest = tmp_path / "manifest.json"
    write_manifest(tmp_path / "reference", ["chaos"], manifest)
    return manifest


def test_tree_hash_is_sha256_of_sorted_relpath_lines(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "x.txt").write_bytes(b"xx")
    (tmp_path / "a.txt").write_bytes(b"a")
    lines = (
        f"a.txt\t{hashlib.sha256(b'a').hexdigest()}\nb/x.txt\t{hashlib.sha256(b'xx').hexdigest()}\n"
    )
    assert tree_hash(tmp_path) == hashlib.sha256(lines.encode()).hexdigest()
    assert manifest_entry(tmp_path)["files"] == 2


def test_download_lays_out_and_verifies(tmp_path):
    manifest = _expected_entry(tmp_path)
    archive = _tar(tmp_path / "repo.tar.gz", ARCHIVE_FILES)
    folder = download(
        "chaos", dest=tmp_path / "data", source=archive.as_uri(), allow_file=True, manifest=manifest
    )
    assert folder == tmp_path / "data" / "chaos"
    got = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert got == LAID_OUT
    assert [p.name for p in (tmp_path / "data").iterdir()] == ["chaos"]  # no staging left
    pages = list(PairsDataset(path=str(folder), category_pattern=r"^(.+) \(\d+\)$").pages())
    assert [(p.id, p.category, p.gold.text) for p in pages] == [
        ("storm (1)", "storm", "Storm hits the coast.")
    ]
    with pytest.raises(FileExistsError, match="--force"):
        download(
            "chaos",
            dest=tmp_path / "data",
            source=archive.as_uri(),
            allow_file=True,
            manifest=manifest,
        )
    assert (
        download(
            "chaos",
            dest=tmp_path / "data",
            source=archive.as_uri(),
            allow_file=True,
            manifest=manifest,
            force=True,
        )
        == folder
    )


def test_zip_archives_work_too(tmp_path):
    manifest = _expected_entry(tmp_path)
    archive = tmp_path / "repo.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name, data in ARCHIVE_FILES.items():
            zf.writestr(name, data)
    folder = download(
        "chaos", dest=tmp_path / "data", source=archive.as_uri(), allow_file=True, manifest=manifest
    )
    assert tree_hash(folder) == json.loads(manifest.read_text())["datasets"]["chaos"]["tree_sha256"]


def test_checksum_mismatch_fails_clearly_and_writes_nothing(tmp_path, capsys):
    manifest = _expected_entry(tmp_path)
    changed = dict(ARCHIVE_FILES)
    changed["ir-research-data-main/Extraction/chaos-all/gold/storm (1).txt"] = b"Edited gold."
    archive = _tar(tmp_path / "repo.tar.gz", changed)
    with pytest.raises(ChecksumError, match=r"expected 2 files with tree hash [0-9a-f]{64}, got 2"):
        download(
            "chaos",
            dest=tmp_path / "data",
            source=archive.as_uri(),
            allow_file=True,
            manifest=manifest,
        )
    assert not (tmp_path / "data").exists()  # not even the folder this call made
    # the command line reports the same error and exits non-zero
    code = main(
        [
            "chaos",
            "--dest",
            str(tmp_path / "data"),
            "--source",
            archive.as_uri(),
            "--manifest",
            str(manifest),
            "--allow-file-url",
        ]
    )
    assert code == 1 and "do not match" in capsys.readouterr().err
    assert (
        main(
            [
                "chaos",
                "--dest",
                str(tmp_path / "data"),
                "--source",
                archive.as_uri(),
                "--manifest",
                str(manifest),
                "--no-verify",
                "--allow-file-url",
            ]
        )
        == 0
    )
    assert (tmp_path / "data" / "chaos" / "gold" / "storm (1).txt").read_bytes() == b"Edited gold."


def test_missing_entry_empty_archive_and_unsafe_paths(tmp_path):
    archive = _tar(tmp_path / "repo.tar.gz", ARCHIVE_FILES)
    with pytest.raises(ChecksumError, match="no manifest entry"):
        download(
            "chaos",
            dest=tmp_path / "d1",
            source=archive.as_uri(),
            allow_file=True,
            manifest=tmp_path / "none.json",
        )
    empty = _tar(tmp_path / "empty.tar.gz", {"top/README.md": b"x"})
    with pytest.raises(ChecksumError, match="no file of 'chaos'"):
        download(
            "chaos", dest=tmp_path / "d2", source=empty.as_uri(), verify=False, allow_file=True
        )
    evil = _tar(
        tmp_path / "evil.tar.gz", {"top/Extraction/chaos-all/html/../../../../evil.txt": b"x"}
    )
    with pytest.raises(ValueError, match="unsafe"):
        download("chaos", dest=tmp_path / "d3", source=evil.as_uri(), verify=False, allow_file=True)
    assert not (tmp_path / "evil.txt").exists()
    with pytest.raises(KeyError, match="known: l3s-gn1"):
        download("nope", dest=tmp_path)


def test_aliases_and_committed_manifest_cover_every_source(tmp_path):
    empty = _tar(tmp_path / "empty.tar.gz", {"top/README.md": b"x"})
    with pytest.raises(ChecksumError, match="no file of 'scrapinghub-aeb'"):
        download("aeb", dest=tmp_path / "d", source=empty.as_uri(), verify=False, allow_file=True)
    entries = json.loads(DEFAULT_MANIFEST.read_text())["datasets"]
    assert set(entries) == set(SOURCES)
    assert entries["l3s-gn1"]["files"] == 1244  # 621 originals + 621 annotated + 2 text files
    assert entries["scrapinghub-aeb"]["files"] == 215  # 181 pages + 32 outputs + 2


def test_committed_manifest_matches_the_shared_copies(shared):
    entries = json.loads(DEFAULT_MANIFEST.read_text())["datasets"]
    for name in ("chaos", "cleaneval-dev"):
        assert manifest_entry(shared(name)) == entries[name]


# ---------------------------------------------------------------- a careful downloader


def _zip(path, files):
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return path


def _left_behind(folder):
    return (
        sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))
        if folder.exists()
        else None
    )


def test_only_https_unless_file_urls_are_allowed(tmp_path, capsys):
    archive = _tar(tmp_path / "repo.tar.gz", ARCHIVE_FILES)
    dest = tmp_path / "data"
    with pytest.raises(UnsafeArchiveError, match="file:// URLs need --allow-file-url"):
        download("chaos", dest=dest, source=archive.as_uri(), verify=False)
    for url in ("http://example.org/a.tar.gz", "ftp://example.org/a.tar.gz", str(archive)):
        with pytest.raises(UnsafeArchiveError, match="only https:// URLs are fetched"):
            download("chaos", dest=dest, source=url, verify=False)
    assert not dest.exists()  # refused before anything was made
    assert main(["chaos", "--dest", str(dest), "--source", archive.as_uri(), "--no-verify"]) == 1
    err = capsys.readouterr().err
    assert err == f"error: refusing {archive.as_uri()}: file:// URLs need --allow-file-url\n"
    check_url("https://github.com/x/y/archive/HEAD.tar.gz")  # the public sources pass


def test_zip_bomb_is_refused_by_its_ratio_and_leaves_nothing(tmp_path, capsys):
    # 8 MiB of zeros deflate to about 8 KB: a ratio near 1,000, over the default cap of 100
    bomb = _zip(
        tmp_path / "bomb.zip",
        {
            "top/Extraction/chaos-all/gold/a.txt": b"gold",
            "top/Extraction/chaos-all/html/a.html": bytes(8 << 20),
        },
    )
    assert bomb.stat().st_size < 20_000
    dest = tmp_path / "data"
    with pytest.raises(UnsafeArchiveError, match=r"compression ratio over 100 .*--max-ratio"):
        download("chaos", dest=dest, source=bomb.as_uri(), verify=False, allow_file=True)
    assert _left_behind(dest) is None  # the folder this call made is gone too
    dest.mkdir()
    capsys.readouterr()  # the bar of the call above
    code = main(
        [
            "chaos",
            "--dest",
            str(dest),
            "--source",
            bomb.as_uri(),
            "--no-verify",
            "--allow-file-url",
            "--no-progress",
        ]
    )
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and err.startswith("error: refusing")
    assert _left_behind(dest) == []  # a folder that was there stays, empty
    # without --no-progress the download's bar (its total: the archive's length) comes
    # first and stays; the error is still the one last line
    main(
        ["chaos", "--dest", str(dest), "--source", bomb.as_uri(), "--no-verify", "--allow-file-url"]
    )
    lines = capsys.readouterr().err.split("\n")
    assert lines[0].split("\r")[-1].startswith("download bomb.zip: 100%")
    assert f"/{bomb.stat().st_size / 1000:.2f}k" in lines[0]
    assert lines[1].startswith("error: refusing") and lines[2:] == [""]
    # a larger cap lets the same archive through
    assert (
        main(
            [
                "chaos",
                "--dest",
                str(dest),
                "--source",
                bomb.as_uri(),
                "--no-verify",
                "--allow-file-url",
                "--max-ratio",
                "5000",
            ]
        )
        == 0
    )
    assert (dest / "chaos" / "html" / "a.html").stat().st_size == 8 << 20


def test_tar_bomb_is_refused_by_the_unpacked_cap_from_its_headers(tmp_path):
    bomb = _tar(
        tmp_path / "bomb.tar.gz",
        {
            "top/Extraction/chaos-all/gold/a.txt": b"gold",
            "top/Extraction/chaos-all/html/a.html": bytes(3 << 20),
        },
    )
    dest = tmp_path / "data"
    limits = Limits(max_unpacked=2 << 20, max_ratio=1e9)
    with pytest.raises(UnsafeArchiveError, match=r"unpacks to more than 2 MiB .*--max-unpacked-mb"):
        download(
            "chaos", dest=dest, source=bomb.as_uri(), verify=False, allow_file=True, limits=limits
        )
    assert _left_behind(dest) is None


def test_too_many_files_are_refused(tmp_path):
    many = _tar(
        tmp_path / "many.tar.gz",
        {f"top/Extraction/chaos-all/gold/{i}.txt": b"x" for i in range(11)},
    )
    with pytest.raises(UnsafeArchiveError, match=r"more than 10 files \(--max-files\)"):
        download(
            "chaos",
            dest=tmp_path / "data",
            source=many.as_uri(),
            verify=False,
            allow_file=True,
            limits=Limits(max_files=10),
        )
    folder = download(
        "chaos",
        dest=tmp_path / "data",
        source=many.as_uri(),
        verify=False,
        allow_file=True,
        limits=Limits(max_files=11),
    )
    assert count_files(folder) == 11


def test_download_cap_stops_an_endless_source_and_leaves_no_partial_file(tmp_path):
    dest = tmp_path / "data"
    with pytest.raises(UnsafeArchiveError, match=r"more than the download cap of 1 MiB"):
        download(
            "chaos",
            dest=dest,
            source="file:///dev/zero",
            verify=False,
            allow_file=True,
            limits=Limits(max_download=1 << 20),
        )
    assert _left_behind(dest) is None
    big = tmp_path / "big.tar.gz"
    big.write_bytes(bytes(2 << 20))  # refused from its length, before reading
    dest.mkdir()
    with pytest.raises(UnsafeArchiveError, match="download cap"):
        download(
            "chaos",
            dest=dest,
            source=big.as_uri(),
            verify=False,
            allow_file=True,
            limits=Limits(max_download=1 << 20),
        )
    assert _left_behind(dest) == []


def test_a_download_that_fails_midway_leaves_no_partial_file(tmp_path, monkeypatch):
    class Broken(io.BytesIO):
        """A response that sends 3 MiB, then loses the connection."""

        def __init__(self):
            super().__init__()
            self.headers, self.sent = {}, 0

        def geturl(self):
            return "https://example.org/repo.tar.gz"

        def read(self, n=-1):
            if self.sent >= 3 << 20:
                raise ConnectionResetError("connection reset by peer")
            self.sent += 1 << 20
            return bytes(1 << 20)

    monkeypatch.setattr(download_module.urllib.request, "urlopen", lambda url, timeout: Broken())
    dest = tmp_path / "data"
    dest.mkdir()
    with pytest.raises(ConnectionResetError):
        download("chaos", dest=dest, source="https://example.org/repo.tar.gz", verify=False)
    assert _left_behind(dest) == []


def test_limits_refuse_nonsense():
    with pytest.raises(ValueError, match="max_files must be a positive number"):
        Limits(max_files=0)
    with pytest.raises(SystemExit):
        main(["chaos", "--max-ratio", "-1"])
