"""A cache you can manage (issue 29, item 7): listing and pruning a temporary cache."""

from __future__ import annotations

import os

from evalkit.cache import main
from evalkit.harness.cache_admin import (
    UNATTRIBUTED,
    entry_keys,
    listing,
    prune,
    record_run,
    size_line,
)

DAY = 86_400
NOW = 1_800_000_000.0


def _entry(root, key, size, age_days):
    path = root / key[:2] / f"{key}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    os.utime(path, (NOW - age_days * DAY, NOW - age_days * DAY))
    return path


def _cache(tmp_path):
    """Two methods on three pages (cetd 1,000 bytes an entry, pab 2,000), one entry of
    an older run without an index (500 bytes) and one score record (100 bytes)."""
    root = tmp_path / "cache"
    pages = ["p1", "p2", "p3"]
    for age, key in zip((1, 10, 40), entry_keys("mk-cetd", pages)):
        _entry(root, key, 1000, age)
    for age, key in zip((2, 20, 50), entry_keys("mk-pab", pages)):
        _entry(root, key, 2000, age)
    _entry(root, "ab" + "0" * 62, 500, 100)
    score = root / "scores" / "cd" / ("cd" + "1" * 62 + ".score")
    score.parent.mkdir(parents=True)
    score.write_bytes(b"s" * 100)
    os.utime(score, (NOW - 5 * DAY, NOW - 5 * DAY))
    record_run(root, [("cetd", "cetd", {}, "mk-cetd"), ("pab", "pab", {}, "mk-pab")], pages)
    return root


def test_listing_counts_entries_and_bytes_per_method(tmp_path):
    found = listing(_cache(tmp_path))
    assert len(found.entries) == 8 and found.size == 3 * 1000 + 3 * 2000 + 500 + 100
    assert found.rows() == [("pab", 3, 6000), ("cetd", 3, 3000), (UNATTRIBUTED, 2, 600)]


def test_prune_by_method_age_and_size(tmp_path):
    root = _cache(tmp_path)
    assert prune(root, methods=["cetd"], now=NOW, dry_run=True) == (3, 3000)
    assert len(listing(root).entries) == 8  # a dry run deletes nothing
    assert prune(root, methods=["cetd"], now=NOW) == (3, 3000)
    assert listing(root).rows() == [("pab", 3, 6000), (UNATTRIBUTED, 2, 600)]
    # older than 30 days: pab's 50-day entry and the 100-day unindexed one
    assert prune(root, older_than_days=30, now=NOW) == (2, 2500)
    # 4,100 bytes left (pab 2 x 2,000 and the score); down to 0.0025 MB = 2,500 bytes:
    # the oldest first, pab's 20-day entry (2,000), leaves 2,100
    assert prune(root, max_size_mb=0.0025, now=NOW) == (1, 2000)
    assert listing(root).size == 2100


def test_the_command_lists_and_prunes(tmp_path, capsys):
    root = _cache(tmp_path)
    assert main(["--cache", str(root)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{root}: 8 entries, 0.0 MB"
    assert out[2].split() == ["pab", "3", "0.0"] and out[4].split()[:2] == [UNATTRIBUTED, "2"]
    assert main(["--cache", str(root), "--prune", "--method", "pab"]) == 0
    assert capsys.readouterr().out.startswith("evalkit.cache: deleted 3 entries, 0.0 MB\n")
    assert main(["--cache", str(root), "--prune"]) == 2  # prune what?
    assert "--prune needs" in capsys.readouterr().err
    assert main(["--cache", str(root), "--prune", "--method", "nope"]) == 2
    assert "no method 'nope' in the index" in capsys.readouterr().err


def test_the_size_line_appears_past_the_threshold(tmp_path):
    root = _cache(tmp_path)  # 9,600 bytes
    assert size_line(root, 0.01) is None  # 10,000 bytes
    line = size_line(root, 0.009)
    assert line.startswith(
        f"evalkit: the extraction cache {root} holds 0 MB (more than runner.cache_report_mb=0.009)"
    )
    assert size_line(root, None) is None
