"""Cache entries are data: JSON checked on read, never code (docs/cache.md, issue 14).

An entry that does not validate (bad JSON, a flipped byte, the wrong shape, another
key, a pickle) is a miss: re-extracted, rewritten, counted in one line per run. A
crafted pickle over every entry runs nothing; 1,000 flipped entries crash nothing;
both reruns end with the first run's summary.csv.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import extract_or_expected
from hydra import compose, initialize_config_dir
from test_golden_outputs import METHOD_NAMES, _digest

from evalkit.core.block import Block
from evalkit.core.page import Extraction
from evalkit.harness import cache_entry
from evalkit.harness.cache import ExtractionCache
from evalkit.harness.cache_seal import cache_seal
from evalkit.harness.config import build_datasets, method_specs, register_resolvers
from evalkit.harness.registry import METHODS
from evalkit.shell.cli import CONFIG_DIR

register_resolvers()

REPO = Path(__file__).resolve().parents[1]
KEY = "ab" + "0" * 62


# ----------------------------------------------------------------- round trips


def _pages(label: str, shared, shared_root: Path, limit: int):
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(
            config_name="config",
            overrides=[
                f"dataset={label}",
                f"dataset.{label}.limit={limit}",
                f"paths.shared_data={shared_root}",
                f"method=[{','.join(METHOD_NAMES)}]",
            ],
        )
    if label != "synthetic":
        shared(Path(cfg.dataset[label].path).name)  # skips, saying why, when it is absent
    (ds,) = build_datasets(cfg).values()
    methods = {spec.label: spec.build() for spec in method_specs(cfg.method)}
    methods["proposed@site"] = METHODS.create("proposed", dedup={"scope": "site"})
    return list(ds.pages()), methods


@pytest.mark.parametrize("label", ["synthetic", "chaos", "cleaneval_dev", "l3s_gn1"])
def test_every_own_method_reads_back_what_it_wrote(label, shared, shared_root, tmp_path):
    """What scoring, reports and the golden-output hashes see is the same after a round trip."""
    pages, methods = _pages(label, shared, shared_root, 6)
    assert pages
    cache = ExtractionCache(tmp_path)
    n = 0
    for page in pages:
        for name, method in methods.items():
            ext = extract_or_expected(method, page)
            if ext is None:  # a documented failure: nothing is cached
                n += 1
                continue
            ext.seconds = 0.125
            key = hashlib.sha256(f"{name}|{page.id}".encode()).hexdigest()
            # own methods give plain data already: the runner's normalising changes nothing
            assert cache_entry.as_data(ext) == ext, (name, page.id)
            cache.put(key, ext)
            back = cache.get(key)
            assert back == ext, (name, page.id)
            assert _digest(back) == _digest(ext)
            assert json.dumps(back.info, sort_keys=True) == json.dumps(ext.info, sort_keys=True)
            n += 1
    assert cache.invalid == 0 and n == len(pages) * len(methods)


def test_tuples_and_numpy_scalars_are_stored_as_the_plain_values_they_equal(tmp_path):
    ext = Extraction(
        text="t",
        kept_units=(np.int64(2), 5),
        blocks=[
            Block(
                index=np.int64(0),
                tag="p",
                words=np.int32(7),
                kept=np.bool_(True),
                attrs={"span": (1, 2)},
                scores={"score": np.float64(0.1), "f32": np.float32(0.5)},
            )
        ],
        info={"sizes": [np.int64(3)], "name": np.str_("x")},
        seconds=1,
    )
    plain = cache_entry.as_data(ext)
    assert plain.error is None
    assert plain.kept_units == [2, 5] and type(plain.kept_units[0]) is int
    block = plain.blocks[0]
    assert block == Block(
        index=0,
        tag="p",
        words=7,
        kept=True,
        attrs={"span": [1, 2]},
        scores={"score": 0.1, "f32": 0.5},
    )
    assert [
        type(v)
        for v in (block.index, block.words, block.kept, block.scores["score"], block.scores["f32"])
    ] == [int, int, bool, float, float]
    assert plain.info == {"sizes": [3], "name": "x"} and type(plain.info["name"]) is str
    assert plain.seconds == 1.0 and type(plain.seconds) is float
    cache = ExtractionCache(tmp_path)
    cache.put(KEY, ext)
    assert cache.get(KEY) == plain
    assert _digest(cache.get(KEY)) == _digest(plain)


def test_plain_blocks_take_the_short_copy_and_it_equals_the_long_route():
    """as_data copies a block whose fields are plain already without the to_dict/check
    round trip; both routes give the same record, and a separate one (no shared dicts)."""
    full = Block(
        index=3,
        tag="p",
        path="/html/body/p[2]",
        text="Some words",
        words=2,
        link_words=1,
        kept=False,
        stage="scoring",
        rule="punctuation",
        reason="1 of 2 words in links",
        duplicate_of=1,
        scores={"score": 0.25, "n": 4, "none": None, "inf": float("inf")},
        attrs={"cf_class": "short", "heading": True, "level": 2, "x": None},
    )
    short = cache_entry._copy_if_plain(full)
    assert short == Block.from_dict(cache_entry._plain(full.to_dict())) == full
    assert short is not full and short.scores is not full.scores and short.attrs is not full.attrs
    assert cache_entry.as_data(Extraction(blocks=[full])).blocks == [full]
    # what needs converting or naming goes the long way
    for odd in (
        Block(np.int64(0), "p"),
        Block(0, "p", kept=np.bool_(True)),
        Block(0, "p", scores={"s": True}),
        Block(0, "p", attrs={"span": [1, 2]}),
        Block(0, "p", words=2.5),
        Block(0, np.str_("p")),
    ):
        assert cache_entry._copy_if_plain(odd) is None


def test_a_block_pickles_as_its_fields():
    """The page worker sends blocks pickled: a record comes back equal, of the same types."""
    b = Block(
        index=1, tag="div", text="x", words=1, kept=False, scores={"s": 0.5}, attrs={"a": "b"}
    )
    back = pickle.loads(pickle.dumps(b))
    assert back == b and type(back) is Block and back.scores == {"s": 0.5}


@pytest.mark.parametrize(
    ("field", "value", "where"),
    [
        ("info", {"tags": {"a"}}, "info['tags'] is a set"),
        (
            "blocks",
            [Block(0, "p"), Block(1, "p", attrs={"raw": b"\x00"})],
            "blocks[1]['attrs']['raw'] is a bytes",
        ),
        ("blocks", [Block(0, "p", scores={"ids": {1}})], "blocks[0]['scores']['ids'] is a set"),
        (
            "blocks",
            [Block(0, "p", words=2.5)],
            "blocks[0] is not a Block record: block field 'words' is a float, not int or None",
        ),
        (
            "blocks",
            [Block(0, "p", scores={"level": "high"})],
            "blocks[0] is not a Block record: block score 'level' is a str, not a number or None",
        ),
        (
            "blocks",
            [Block(0, "p"), {"index": 1, "tag": "p"}],
            "blocks[1] is a dict, not a Block record",
        ),
        ("info", {"by_id": {3: 1.0}}, "info['by_id'] has a key 3 that is not a string"),
        ("info", {"arr": np.zeros(2)}, "info['arr'] is a ndarray"),
        ("kept_units", [1, 2.5], "kept_units is not None or a list of ints"),
        ("blocks", {"index": 0}, "blocks is a dict, not a list of Block records"),
    ],
)
def test_a_value_json_cannot_keep_fails_the_page_naming_it(field, value, where, tmp_path):
    ext = Extraction(text="kept", seconds=0.5, **{field: value})
    plain = cache_entry.as_data(ext)
    assert plain.error.startswith(f"the extraction is not JSON data: {where}")
    assert plain.text == "" and plain.seconds == 0.5
    with pytest.raises(TypeError, match=re.escape(where)):
        ExtractionCache(tmp_path).put(KEY, ext)
    assert not list(tmp_path.rglob("*.json"))


def test_text_in_any_script_and_odd_floats_survive(tmp_path):
    ext = Extraction(
        text="Ελληνικά 日本語 \ud800 emoji 🙂",
        blocks=[Block(0, "p", scores={"v": float("inf"), "w": -0.0, "tiny": 5e-324, "big": 2**70})],
        info={"nan": 1e308},
    )
    cache = ExtractionCache(tmp_path)
    cache.put(KEY, ext)
    back = cache.get(KEY)
    assert back == ext and str(back.blocks[0].scores["w"]) == "-0.0"
    assert "Ελληνικά".encode() in next(tmp_path.rglob("*.json")).read_bytes()  # readable


# ----------------------------------------------------------------- invalid entries


def _entry(ext: Extraction, key: str = KEY) -> dict:
    return json.loads(cache_entry.encode(key, ext))


def _with_checksum(entry: dict) -> bytes:
    """An entry whose checksum matches its (edited) payload: only the schema can refuse it."""
    entry["sha256"] = hashlib.sha256(cache_entry._canonical(entry["payload"])).hexdigest()
    return json.dumps(entry).encode()


class _Crafted:
    """Unpickling this creates ``path`` (what an attacker's payload would do, harmlessly)."""

    def __init__(self, path: Path):
        self.path = str(path)

    def __reduce__(self):
        return open, (self.path, "w")


GOOD = Extraction(
    text="main text",
    kept_units=[0, 2],
    blocks=[Block(0, "p", kept=True)],
    info={"n": 1},
    seconds=0.25,
)


def _bad_entries(tmp_path: Path) -> dict[str, bytes]:
    entry = _entry(GOOD)
    return {
        "empty file": b"",
        "truncated": cache_entry.encode(KEY, GOOD)[:-7],
        "not UTF-8": b"\xff\xfe" + cache_entry.encode(KEY, GOOD),
        "a JSON list": b"[1, 2]",
        "deep nesting": b"[" * 100_000 + b"]" * 100_000,
        "a pickle": pickle.dumps(_Crafted(tmp_path / "marker")),
        "an old pickled extraction": pickle.dumps(GOOD),
        "another key": cache_entry.encode("cd" + "1" * 62, GOOD),
        "another version": json.dumps({**entry, "version": 0}).encode(),
        "version 1 (free block dicts)": _with_checksum(
            {
                **entry,
                "version": 1,
                "payload": {**entry["payload"], "blocks": [{"block": 0, "kept": True}]},
            }
        ),
        "text changed, checksum kept": json.dumps(
            {**entry, "payload": {**entry["payload"], "text": "main texT"}}
        ).encode(),
        "no checksum": json.dumps({k: v for k, v in entry.items() if k != "sha256"}).encode(),
        "text not a string": _with_checksum({**entry, "payload": {**entry["payload"], "text": 5}}),
        "a field missing": _with_checksum(
            {**entry, "payload": {k: v for k, v in entry["payload"].items() if k != "info"}}
        ),
        "an extra field": _with_checksum({**entry, "payload": {**entry["payload"], "x": 1}}),
        "kept_units of bools": _with_checksum(
            {**entry, "payload": {**entry["payload"], "kept_units": [True]}}
        ),
        "blocks not objects": _with_checksum(
            {**entry, "payload": {**entry["payload"], "blocks": [[1]]}}
        ),
        "a block field unknown": _with_checksum(
            {**entry, "payload": {**entry["payload"], "blocks": [{"index": 0, "tag": "p", "i": 0}]}}
        ),
        "a block field of the wrong type": _with_checksum(
            {
                **entry,
                "payload": {
                    **entry["payload"],
                    "blocks": [{"index": 0, "tag": "p", "kept": "yes"}],
                },
            }
        ),
        "a block score not a number": _with_checksum(
            {
                **entry,
                "payload": {
                    **entry["payload"],
                    "blocks": [{"index": 0, "tag": "p", "scores": {"s": [1]}}],
                },
            }
        ),
        "info a list": _with_checksum({**entry, "payload": {**entry["payload"], "info": []}}),
        "error a number": _with_checksum({**entry, "payload": {**entry["payload"], "error": 1}}),
        "seconds an int": _with_checksum({**entry, "payload": {**entry["payload"], "seconds": 1}}),
    }


def test_every_kind_of_bad_entry_is_a_counted_miss_and_is_rewritten(tmp_path):
    cache = ExtractionCache(tmp_path / "cache")
    cache.put(KEY, GOOD)
    path = next((tmp_path / "cache").rglob("*.json"))
    assert cache.get(KEY) == GOOD and cache.invalid == 0
    bad = _bad_entries(tmp_path)
    for n, (what, data) in enumerate(bad.items(), 1):
        path.write_bytes(data)
        assert cache.get(KEY) is None, what
        assert cache.invalid == n, what
        cache.put(KEY, GOOD)  # what the runner does after re-extracting
        assert cache.get(KEY) == GOOD, what
    assert not (tmp_path / "marker").exists()
    # the crafted pickle would have run its code under the old loader
    pickle.loads(bad["a pickle"])
    assert (tmp_path / "marker").exists()


def test_a_block_record_that_does_not_fit_is_named():
    entry = _entry(GOOD)
    entry["payload"]["blocks"] = [{"index": 0, "tag": "p"}, {"index": 1, "tag": "p", "kept": "yes"}]
    with pytest.raises(
        cache_entry.InvalidEntry, match=r"^blocks\[1\]: block field 'kept' is a str, not bool$"
    ):
        cache_entry.decode(_with_checksum(entry), KEY)
    entry["payload"]["blocks"] = [{"index": 0, "tag": "p", "priority": 1.0}]
    with pytest.raises(cache_entry.InvalidEntry, match=r"^blocks\[0\]: unknown block field"):
        cache_entry.decode(_with_checksum(entry), KEY)
    entry["payload"]["blocks"] = [{"index": 0, "tag": "p", "words": 3, "scores": {"s": 0.5}}]
    assert cache_entry.decode(_with_checksum(entry), KEY).blocks == [
        Block(0, "p", words=3, scores={"s": 0.5})
    ]


def test_a_folder_in_place_of_an_entry_is_a_miss(tmp_path):
    cache = ExtractionCache(tmp_path)
    cache.put(KEY, GOOD)
    path = next(tmp_path.rglob("*.json"))
    path.unlink()
    path.mkdir()
    assert cache.get(KEY) is None and cache.invalid == 1


def test_a_missing_entry_is_a_plain_miss_and_old_pickles_are_never_opened(tmp_path):
    cache = ExtractionCache(tmp_path)
    old = tmp_path / KEY[:2] / f"{KEY}.pkl"
    old.parent.mkdir()
    old.write_bytes(pickle.dumps(_Crafted(tmp_path / "marker")))
    assert cache.get(KEY) is None and cache.invalid == 0
    assert not (tmp_path / "marker").exists()


def test_single_byte_flips_are_refused_or_read_back_unchanged():
    """1,000 seeded flips over one entry: none crashes, none reads back different data
    (a flip that keeps the JSON's meaning, such as ``e`` to ``E`` in a number, may pass)."""
    ext = Extraction(
        text="Some main text\nand more",
        blocks=[
            Block(i, "p", scores={"score": i / 7}, kept=i % 2 == 0, path=f"/p[{i}]")
            for i in range(20)
        ],
        info={"n_blocks": 20, "t": 1e-05},
        seconds=0.5,
    )
    data = cache_entry.encode(KEY, ext)
    rng = random.Random(14)
    outcomes = {"refused": 0, "same": 0}
    for _ in range(1000):
        flipped = bytearray(data)
        i = rng.randrange(len(flipped))
        flipped[i] ^= 1 << rng.randrange(8)
        try:
            back = cache_entry.decode(bytes(flipped), KEY)
        except cache_entry.InvalidEntry:
            outcomes["refused"] += 1
            continue
        assert back == ext
        outcomes["same"] += 1
    assert outcomes["refused"] >= 990


# ----------------------------------------------------------------- nothing loads code


FORBIDDEN = re.compile(
    r"pickle\.loads?\b|\bcPickle\b|joblib\.load\b|\bdill\b|\bshelve\b|"
    r"marshal\.loads?\b|read_pickle\b|allow_pickle\s*=\s*True|torch\.load\b"
)


def test_no_module_loads_pickles_or_other_code_from_disk():
    hits = [
        f"{path.relative_to(REPO)}:{n}: {line.strip()}"
        for folder in ("evalkit", "baselines")
        for path in sorted((REPO / folder).rglob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if FORBIDDEN.search(line)
    ]
    assert hits == []


def test_the_pattern_catches_each_form():
    for line in [
        "x = pickle.load(fh)",
        "pickle.loads(b)",
        "import cPickle",
        "joblib.load(p)",
        "import dill",
        "shelve.open(p)",
        "marshal.loads(b)",
        "pd.read_pickle(p)",
        "np.load(p, allow_pickle=True)",
        "torch.load(p)",
    ]:
        assert FORBIDDEN.search(line), line
    assert not FORBIDDEN.search("pickle.dump(x, fh)  # spindles")


# ----------------------------------------------------------------- end to end


def _run(results: Path, pages: int, methods: str | None = None) -> tuple[Path, str]:
    cmd = [
        sys.executable,
        "-m",
        "evalkit",
        "experiment=extraction",
        "dataset=synthetic",
        f"dataset.synthetic.limit={pages}",
        "runner.n_jobs=1",
        "runner.progress=false",
        f"paths.results={results}",
    ] + ([f"method=[{methods}]"] if methods else [])
    done = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    runs = sorted((results / "runs" / "extraction").glob("*/summary.csv"))
    return runs[-1], done.stderr


def _entries(results: Path) -> list[Path]:
    # extraction entries only: not the per-method index (methods/, python -m evalkit.cache)
    cache = results / "cache"
    return sorted(p for p in cache.rglob("*.json") if p.relative_to(cache).parts[0] != "methods")


def _invalid_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "did not validate" in line]


def test_a_crafted_pickle_over_every_entry_runs_no_code(tmp_path):
    results = tmp_path / "results"
    first, _ = _run(results, 5, "proposed,cetd,pab")
    entries = _entries(results)
    assert len(entries) == 15
    marker = tmp_path / "owned"
    for path in entries:
        path.write_bytes(pickle.dumps(_Crafted(marker)))
    second, err = _run(results, 5, "proposed,cetd,pab")
    assert not marker.exists()
    assert second.read_bytes() == first.read_bytes()
    assert _invalid_lines(err) == [
        (
            f"evalkit: 15 entries in the extraction cache {results / 'cache'} did not validate "
            "(corrupt, truncated, crafted or from another evalkit version); they were treated "
            "as misses, re-extracted and rewritten"
        )
    ]
    # rewritten: a third run reads every entry back and says nothing
    assert all(cache_entry.decode(p.read_bytes(), p.stem) for p in _entries(results))
    third, err = _run(results, 5, "proposed,cetd,pab")
    assert third.read_bytes() == first.read_bytes() and not _invalid_lines(err)


@pytest.mark.nightly  # 143 pages x 7 methods, each entry flipped and re-run: minutes
@pytest.mark.slow
def test_a_thousand_flipped_entries_crash_nothing(tmp_path):
    results = tmp_path / "results"
    first, _ = _run(results, 143)  # 143 pages x the 7 default methods
    entries = _entries(results)
    assert len(entries) == 1001
    rng = random.Random(1000)
    harmless = 0
    for path in entries:
        original = path.read_bytes()
        data = bytearray(original)
        i = rng.randrange(len(data))
        data[i] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(data))
        # a few flips keep the entry's meaning: the case of an escape's hex digit (\u00e9,
        # \u00E9) or of a float's exponent (1e-05, 1E-05). Where the flip lands depends on
        # the entry's length, which holds a timing, so count those rather than assume none
        key = json.loads(original)["key"]
        seal = cache_seal(results / "cache")  # a flip inside the MAC is harmful too
        try:
            harmless += cache_entry.decode(bytes(data), key, seal) == cache_entry.decode(
                original, key, seal
            )
        except cache_entry.InvalidEntry:
            pass
    second, err = _run(results, 143)
    assert second.read_bytes() == first.read_bytes()
    (line,) = _invalid_lines(err)
    assert harmless < 20
    assert line.startswith(f"evalkit: {1001 - harmless} entries in the extraction cache")
