"""Downloader: layout from a repository archive, tree hash, manifest check (file:// only, no network)."""

import hashlib
import io
import json
import tarfile
import zipfile

import pytest

from evalkit.data.download import (
    DEFAULT_MANIFEST,
    SOURCES,
    ChecksumError,
    download,
    main,
    manifest_entry,
    tree_hash,
    write_manifest,
)
from evalkit.data.pairs import PairsDataset

# what a GitHub archive of MSVCode/ir-research-data looks like, in miniature
ARCHIVE_FILES = {
    "ir-research-data-main/README.md": b"not part of the set",
    "ir-research-data-main/Extraction/chaos-all/html/storm (1).html":
        b"<html><body><p>Storm hits the coast.</p><div>Menu</div></body></html>",
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
    lines = (f"a.txt\t{hashlib.sha256(b'a').hexdigest()}\n"
             f"b/x.txt\t{hashlib.sha256(b'xx').hexdigest()}\n")
    assert tree_hash(tmp_path) == hashlib.sha256(lines.encode()).hexdigest()
    assert manifest_entry(tmp_path)["files"] == 2


def test_download_lays_out_and_verifies(tmp_path):
    manifest = _expected_entry(tmp_path)
    archive = _tar(tmp_path / "repo.tar.gz", ARCHIVE_FILES)
    folder = download("chaos", dest=tmp_path / "data", source=archive.as_uri(),
                      manifest=manifest)
    assert folder == tmp_path / "data" / "chaos"
    got = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert got == LAID_OUT
    assert [p.name for p in (tmp_path / "data").iterdir()] == ["chaos"]  # no staging left
    pages = list(PairsDataset(path=str(folder), category_pattern=r"^(.+) \(\d+\)$").pages())
    assert [(p.id, p.category, p.gold.text) for p in pages] == [
        ("storm (1)", "storm", "Storm hits the coast.")]
    with pytest.raises(FileExistsError, match="--force"):
        download("chaos", dest=tmp_path / "data", source=archive.as_uri(), manifest=manifest)
    assert download("chaos", dest=tmp_path / "data", source=archive.as_uri(),
                    manifest=manifest, force=True) == folder


def test_zip_archives_work_too(tmp_path):
    manifest = _expected_entry(tmp_path)
    archive = tmp_path / "repo.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name, data in ARCHIVE_FILES.items():
            zf.writestr(name, data)
    folder = download("chaos", dest=tmp_path / "data", source=archive.as_uri(),
                      manifest=manifest)
    assert tree_hash(folder) == json.loads(manifest.read_text())["datasets"]["chaos"][
        "tree_sha256"]


def test_checksum_mismatch_fails_clearly_and_writes_nothing(tmp_path, capsys):
    manifest = _expected_entry(tmp_path)
    changed = dict(ARCHIVE_FILES)
    changed["ir-research-data-main/Extraction/chaos-all/gold/storm (1).txt"] = b"Edited gold."
    archive = _tar(tmp_path / "repo.tar.gz", changed)
    with pytest.raises(ChecksumError, match=r"expected 2 files with tree hash [0-9a-f]{64}, got 2"):
        download("chaos", dest=tmp_path / "data", source=archive.as_uri(), manifest=manifest)
    assert list((tmp_path / "data").iterdir()) == []
    # the command line reports the same error and exits non-zero
    code = main(["chaos", "--dest", str(tmp_path / "data"), "--source", archive.as_uri(),
                 "--manifest", str(manifest)])
    assert code == 1 and "do not match" in capsys.readouterr().err
    assert main(["chaos", "--dest", str(tmp_path / "data"), "--source", archive.as_uri(),
                 "--manifest", str(manifest), "--no-verify"]) == 0
    assert (tmp_path / "data" / "chaos" / "gold" / "storm (1).txt").read_bytes() == b"Edited gold."


def test_missing_entry_empty_archive_and_unsafe_paths(tmp_path):
    archive = _tar(tmp_path / "repo.tar.gz", ARCHIVE_FILES)
    with pytest.raises(ChecksumError, match="no manifest entry"):
        download("chaos", dest=tmp_path / "d1", source=archive.as_uri(),
                 manifest=tmp_path / "none.json")
    empty = _tar(tmp_path / "empty.tar.gz", {"top/README.md": b"x"})
    with pytest.raises(ChecksumError, match="no file of 'chaos'"):
        download("chaos", dest=tmp_path / "d2", source=empty.as_uri(), verify=False)
    evil = _tar(tmp_path / "evil.tar.gz",
                {"top/Extraction/chaos-all/html/../../../../evil.txt": b"x"})
    with pytest.raises(ValueError, match="unsafe"):
        download("chaos", dest=tmp_path / "d3", source=evil.as_uri(), verify=False)
    assert not (tmp_path / "evil.txt").exists()
    with pytest.raises(KeyError, match="known: l3s-gn1"):
        download("nope", dest=tmp_path)


def test_aliases_and_committed_manifest_cover_every_source(tmp_path):
    empty = _tar(tmp_path / "empty.tar.gz", {"top/README.md": b"x"})
    with pytest.raises(ChecksumError, match="no file of 'scrapinghub-aeb'"):
        download("aeb", dest=tmp_path / "d", source=empty.as_uri(), verify=False)
    entries = json.loads(DEFAULT_MANIFEST.read_text())["datasets"]
    assert set(entries) == set(SOURCES)
    assert entries["l3s-gn1"]["files"] == 1244  # 621 originals + 621 annotated + 2 text files
    assert entries["scrapinghub-aeb"]["files"] == 215  # 181 pages + 32 outputs + 2


def test_committed_manifest_matches_the_shared_copies(shared):
    entries = json.loads(DEFAULT_MANIFEST.read_text())["datasets"]
    for name in ("chaos", "cleaneval-dev"):
        assert manifest_entry(shared(name)) == entries[name]
