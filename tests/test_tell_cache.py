"""A cache you can manage (issue 29, item 7): listing and pruning a temporary cache."""

from __future__ import annotations

import json
import os

from evalkit.cache import main
from evalkit.harness.cache_admin import (
    INDEX,
    UNATTRIBUTED,
    WrittenLog,
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
    wrote = [(m, p) for m in ("cetd", "pab") for p in pages]
    record_run(root, [("cetd", "cetd", {}, "mk-cetd"), ("pab", "pab", {}, "mk-pab")], wrote)
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


def test_an_index_of_older_runs_listing_its_entries_in_its_json_is_still_read(tmp_path):
    root = _cache(tmp_path)
    older = entry_keys("mk-old", ["p1"])
    _entry(root, older[0], 300, 3)
    old = {"label": "old", "registry": "cetd", "params": {}, "entries": older}
    (root / INDEX / "mk-old.json").write_text(json.dumps(old))
    assert ("old", 1, 300) in listing(root).rows()
    assert prune(root, methods=["old"], now=NOW) == (1, 300)
    assert not (root / INDEX / "mk-old.json").exists()  # its index goes with it


def test_the_written_log_keeps_its_pairs_on_disk_in_the_index_folder(tmp_path):
    log = WrittenLog(tmp_path / "cache")
    assert not log and list(log) == []  # nothing written: no file, no folder
    assert not (tmp_path / "cache").exists()
    log.add("a\tlabel", "k1")
    log.add("b", "k2")
    assert list(log) == [("a\tlabel", "k1"), ("b", "k2")]
    log.add("b", "k3")  # adding after reading goes on at the end
    assert list(log)[-1] == ("b", "k3")
    many = [("m", f"page{i:05d}") for i in range(2000)]  # past one read buffer
    for pair in many:
        log.add(*pair)
    next(iter(log))  # a read stopped halfway
    log.add("c", "k4")
    assert list(log) == [("a\tlabel", "k1"), ("b", "k2"), ("b", "k3"), *many, ("c", "k4")]
    # an unnamed file: the folder lists only what record_run names
    assert [p.name for p in (tmp_path / "cache" / INDEX).iterdir()] == []
    log.close()


def test_a_run_appends_only_the_entries_it_wrote(tmp_path):
    root = _cache(tmp_path)
    keys = root / INDEX / "mk-cetd.keys"
    before = keys.read_text()
    record_run(root, [("cetd", "cetd", {}, "mk-cetd")], [("cetd", "p4"), ("pab", "p4")])
    # pab is not among the methods named: its pair is passed over
    assert keys.read_text() == before + entry_keys("mk-cetd", ["p4"])[0] + "\n"
    assert not (root / INDEX / "mk-pab.keys").read_text().count(entry_keys("mk-pab", ["p4"])[0])


def test_a_run_stopped_midway_indexes_the_entries_its_records_brought_back(tmp_path):
    from types import SimpleNamespace

    from evalkit.experiments import _record_index
    from evalkit.harness.runner import Runner
    from evalkit.harness.scoring import score_extraction
    from evalkit.harness.specs import MethodSpec
    from evalkit.readers.synthetic import SyntheticDataset

    specs = [MethodSpec("cetd", "cetd"), MethodSpec("fulltext", "fulltext")]
    root = tmp_path / "cache"
    ds = SyntheticDataset(n_sites=2, pages_per_site=3, seed=1)
    with Runner(progress=False, n_jobs=1, cache_root=str(root)) as runner:
        got = []
        for rec in runner.iter_records(ds.pages(), specs, score=score_extraction):
            got.append(rec)
            if len(got) == 6:  # the first site's 3 pages x 2 methods: stop there
                break
        _record_index(SimpleNamespace(runner=runner, specs=specs))
    assert not runner.written  # recorded and closed
    rows = {m: n for m, n, _ in listing(root).rows()}
    assert rows["cetd"] == rows["fulltext"] == 3
