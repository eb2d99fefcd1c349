"""The extraction cache key (evalkit.harness.cache_keys): what it covers, and that nothing else moves it.

The key of a method must change when, and only when, something that can change its
output changes: a module it can execute (its import closure, read from the code), its
resolved parameters, an outside package or lxml/libxml2, or the page as it sees it.
Every file of the proposed method and the baselines is edited in turn (through the
source reader, the disk is never touched) and the methods whose key moves are compared
with a hand-written list.
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import lxml.etree
import pytest
from hydra import compose, initialize_config_dir

from evalkit.core.page import Gold, Page
from evalkit.harness import cache_keys as cache
from evalkit.harness.cache_keys import SourceTree, describe_method, distribution_versions, page_key
from evalkit.harness.registry import DETECTORS, METHODS
from evalkit.harness.runner import run_pages
from evalkit.harness.specs import MethodSpec

REPO = Path(__file__).resolve().parents[1]

#: the proposed method's detectors chosen by name (its default, the modified simhash, is in it)
NAMED_DETECTORS = [d for d in DETECTORS.names() if d != "modified_simhash"]
#: label -> spec of every registry entry with its defaults, plus proposed with each detector
#: (derived from the registry: a new method is in every case below by being registered)
SPECS = {
    **{name: MethodSpec(name, name) for name in METHODS.names()},
    **{
        f"proposed[{d}]": MethodSpec(f"proposed[{d}]", "proposed", {"dedup": {"detector": d}})
        for d in NAMED_DETECTORS
    },
    **{f"det:{d}": MethodSpec(d, d, kind="detector") for d in DETECTORS.names()},
}
PEERS = [n for n in METHODS.names() if METHODS.module_of(n) == "baselines.peers"]
PROPOSED = {"proposed", *(f"proposed[{d}]" for d in NAMED_DETECTORS)}
#: everything whose closure reaches into baselines/ (all but the default proposed pipeline)
USES_BASELINES = set(SPECS) - {"proposed", "det:modified_simhash"}


def _of_module(module: str) -> set[str]:
    """The labels a baseline module's edit re-keys: its registry entries, and for a detector
    the proposed method that loads it by name."""
    out = {n for n in METHODS.names() if METHODS.module_of(n) == module}
    for d in DETECTORS.names():
        if DETECTORS.module_of(d) == module:
            out |= {f"det:{d}", f"proposed[{d}]"}
    return out


#: file edited -> labels whose key must change (worked out by reading the imports; a
#: baseline module re-keys its own registry entries: _of_module)
EXPECTED = {
    # evalkit/proposed/__init__.py imports dedup, so the package and dedup go together
    "evalkit/proposed/__init__.py": PROPOSED | {"det:modified_simhash"},
    "evalkit/proposed/dedup.py": PROPOSED | {"det:modified_simhash"},
    "evalkit/proposed/term_weights.py": PROPOSED | {"det:modified_simhash"},
    "evalkit/proposed/blocks.py": PROPOSED,
    "evalkit/proposed/pipeline.py": PROPOSED,
    "evalkit/proposed/primary_dom.py": PROPOSED,
    "evalkit/proposed/primary_markers.py": PROPOSED,
    "evalkit/proposed/primary_tags.py": PROPOSED,
    "evalkit/proposed/stages.py": PROPOSED,
    "evalkit/proposed/stage.py": PROPOSED,
    "evalkit/proposed/dedup_stage.py": PROPOSED,
    "evalkit/proposed/state.py": PROPOSED,
    "evalkit/proposed/scoring.py": PROPOSED,  # stage 4: the file the name list left out
    "evalkit/proposed/vips_blocks.py": PROPOSED,  # stage 1 with VIPS blocks (blocks.segmenter)
    "baselines/__init__.py": USES_BASELINES,
    **{
        f"baselines/{p.name}": _of_module(f"baselines.{p.stem}")
        for p in sorted((REPO / "baselines").glob("*.py"))
        if p.stem != "__init__"
    },
}
#: core files: what every method runs, and what none does
CORE = {
    "evalkit/core/page.py": set(SPECS),
    "evalkit/core/method.py": set(SPECS),
    "evalkit/harness/registry.py": set(SPECS),  # it builds every method
    "evalkit/harness/scoring.py": set(),  # scores extractions; shares stage 4's file name
    "evalkit/metrics/__init__.py": set(),
    "evalkit/metrics/scores.py": set(),  # the metrics package's bottom module
    "evalkit/harness/runner.py": set(),
    "evalkit/report/tables.py": set(),
    # shared by two detectors each (docs/floors.md), so each re-keys exactly those
    # and evalkit/core/sketching.py (the Existing systems and Hybridhash) imports both
    "evalkit/core/fingerprint.py": PROPOSED
    | {"det:modified_simhash", "det:simhash", "existing1", "existing2", "det:hybridhash"},
    "evalkit/core/termsets.py": {
        "proposed[jaccard]",
        "proposed[minhash]",
        "proposed[hybridhash]",
        "det:jaccard",
        "det:minhash",
        "existing1",
        "existing2",
        "det:hybridhash",
    },
    # the jusText paragraph stages, shared by justext_style and san_aye
    "evalkit/core/paragraphs.py": {"justext_style", "san_aye"},
    # the template format; the writer (entity_authoring) is no method's
    "evalkit/core/entity_templates.py": {"target_entities"},
    "evalkit/core/entity_authoring.py": set(),
}
METHOD_FILES = sorted(
    p.relative_to(REPO).as_posix()
    for folder in ("evalkit/proposed", "baselines")
    for p in (REPO / folder).rglob("*.py")
)


def _edited(rel: str) -> SourceTree:
    """The project's sources with a comment appended to ``rel``."""
    target = (REPO / rel).resolve()

    def read(path: Path) -> bytes:
        data = path.read_bytes()
        return data + b"\n# edited to test the cache key\n" if path.resolve() == target else data

    return SourceTree(read=read)


@pytest.fixture(scope="module")
def base_facts():
    tree = SourceTree()
    return {label: describe_method(spec, tree) for label, spec in SPECS.items()}


def _changed(base_facts, rel: str) -> set[str]:
    tree = _edited(rel)
    return {
        label
        for label, spec in SPECS.items()
        if describe_method(spec, tree).key() != base_facts[label].key()
    }


def _module(rel: str) -> str:
    parts = Path(rel).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@pytest.mark.parametrize("rel", METHOD_FILES)
def test_editing_a_method_file_re_keys_exactly_the_methods_that_import_it(base_facts, rel):
    assert rel in EXPECTED, f"{rel} is new: add the methods that import it to EXPECTED"
    changed = _changed(base_facts, rel)
    assert changed == EXPECTED[rel]
    # and the key follows the closure, so run.json's module list explains every change
    assert changed == {label for label, f in base_facts.items() if _module(rel) in f.modules}


@pytest.mark.parametrize("rel", sorted(CORE))
def test_core_files_re_key_every_method_or_none(base_facts, rel):
    assert _changed(base_facts, rel) == CORE[rel]


def test_the_trust_check_case_proposed_re_extracts_and_cetd_stays(tmp_path, monkeypatch):
    """Stage 4 edited between two runs: proposed is extracted again, cetd read back."""
    page = Page(
        id="p",
        dataset="t",
        raw=b"<html><title>A b</title><body><div><p>Words of "
        b"text in a block that stays.</p></div></body></html>",
        gold=Gold(text="x"),
    )
    specs = [SPECS["proposed"], SPECS["cetd"]]

    def run():
        monkeypatch.setattr(cache, "_FACTS", {})  # a new process: closures computed afresh
        return {
            r["method"]: r["cached"]
            for r in run_pages(
                [page],
                specs,
                score=lambda p, m, e: {"method": m},
                cache_root=str(tmp_path),
                progress=False,
            )
        }

    assert run() == {"proposed": False, "cetd": False}
    assert run() == {"proposed": True, "cetd": True}
    monkeypatch.setattr(cache, "source_tree", lambda: _edited("evalkit/proposed/scoring.py"))
    assert run() == {"proposed": False, "cetd": True}


def test_closures_follow_the_imports_a_method_really_executes():
    """Run each method in a fresh interpreter; every project module it imported (at
    module level, in a function, or by name through the registry) is in its closure."""
    probe = r"""
import json, sys
from evalkit.core.page import Gold, Page
from evalkit.harness.registry import DETECTORS, METHODS
kind, name, params = json.loads(sys.argv[1])
m = (METHODS if kind == "method" else DETECTORS).create(name, **params)
html = b"<html><title>T</title><body><div><p>Some words about things, and more words.</p>" \
       b"</div><div><a href='http://x.com/a'>a link</a></div></body></html>"
if kind == "method":
    m.extract(Page(id="p", dataset="t", raw=html, gold=Gold(text="x"), url="http://x.com/"))
else:
    m.find_duplicates(["some words about things here", "some words about things here", "x"])
print(json.dumps(sorted(k for k in sys.modules if k.split(".")[0] in ("evalkit", "baselines"))))
"""
    labels = [
        "fulltext",
        "proposed",
        "proposed[jaccard]",
        "proposed[minhash]",
        "cetd",
        "pab",
        "justext_style",
        "trafilatura",
        "det:simhash",
        "det:minhash",
    ]
    procs = {
        label: subprocess.Popen(  # all at once: most of the time is interpreter start-up
            [
                sys.executable,
                "-c",
                probe,
                json.dumps([SPECS[label].kind, SPECS[label].registry, SPECS[label].params]),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )
        for label in labels
    }
    for label, proc in procs.items():
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err[-1000:]
        missed = set(json.loads(out)) - set(describe_method(SPECS[label]).modules)
        assert not missed, (label, missed)


def test_the_closure_reader_resolves_every_kind_of_import(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "a.py": (
            "from . import b\nfrom .sub import c\nimport numpy.linalg\n"
            "def f():\n    import lxml.html\n    from pkg import d\n"
            "    import importlib\n    return importlib.import_module('pkg.e')\n"
        ),
        "b.py": "import json\n",
        "d.py": "from pkg.sub.c import X\n",
        "e.py": "",
        "f.py": "",
        "sub/__init__.py": "from ..f import Y\n",
        "sub/c.py": "X = 1\n",
    }
    for rel, text in files.items():
        (pkg / rel).write_text(text)
    tree = SourceTree(roots={"pkg": pkg})
    project, outside = tree.closure(["pkg.a"])
    # f comes in through sub/__init__.py, which runs whenever sub.c is imported
    assert project == {"pkg", "pkg.a", "pkg.b", "pkg.d", "pkg.e", "pkg.sub", "pkg.sub.c", "pkg.f"}
    assert outside == {"numpy", "lxml"}  # json and importlib are the standard library
    assert tree.closure(["pkg.b"]) == ({"pkg", "pkg.b"}, frozenset())


def test_resolved_parameters_are_in_the_key(monkeypatch):
    pytest.importorskip("justext")
    tree = SourceTree()

    def facts(**params):
        return describe_method(MethodSpec("j", "justext_style", params), tree)

    default = facts()
    # the default stop list ships with evalkit (issue 29): spelling it out is the same key
    assert default.params == {} and default.resolved_params["stoplist"] == "english"
    assert default.key() == facts(stoplist="english").key()
    named = facts(stoplist="justext_english")
    assert named.key() != default.key() and "justext" in named.packages
    assert "justext" not in default.packages  # installing the peer does not move the key
    monkeypatch.setitem(sys.modules, "justext", None)  # a machine without the peer
    assert facts().key() == default.key()


def test_proposed_resolves_its_detector_and_its_defaults():
    tree = SourceTree()
    own = describe_method(MethodSpec("p", "proposed", {"dedup": {"k": 5}}), tree)
    assert own.resolved_params["dedup"]["detector_params"] == {
        "bits": 64,
        "k": 5,
        "stoplist": "english",
        "stemmer": "porter",
        "proximity": "pointer",
    }
    # every stage's settings, defaults filled in
    assert own.resolved_params["blocks"] == {
        "tags": ["div", "td"],
        "nested_text": "own",
        "residual_block": True,
    }
    assert own.resolved_params["scoring"] == {
        "enabled": True,
        "alpha": 0.3,
        "beta": 0.3,
        "gamma": 0.4,
        "content_denominator": "block_distinct_sum",
        "title_source": "title",
        "title_count": "occurrences",
        "link_scope": "block",
        "link_count": "occurrences",
        "content_count": "remainder",
        "content_weight": "eq4",
        "bound": "none",
        "threshold_blocks": "stage1",
        "comparison": "gt",
        "if_none_pass": "nothing",
    }
    assert own.resolved_params["primary"]["rule_ad_marker"] is True
    assert own.key() != describe_method(MethodSpec("p", "proposed", {}), tree).key()
    jac = describe_method(MethodSpec("p", "proposed", {"dedup": {"detector": "jaccard"}}), tree)
    assert jac.resolved_params["dedup"]["detector_params"] == {
        "threshold": 0.8,
        "shingle": 1,
        "stoplist": "english",
        "stemmer": "porter",
    }
    assert "baselines.jaccard" in jac.modules  # the detector's code is in the key
    # an explicit default is the same method as an implicit one
    same = describe_method(
        MethodSpec(
            "p", "proposed", {"dedup": {"detector": "jaccard", "detector_params": {"shingle": 1}}}
        ),
        tree,
    )
    assert same.key() == jac.key()
    other = describe_method(
        MethodSpec(
            "p", "proposed", {"dedup": {"detector": "jaccard", "detector_params": {"shingle": 2}}}
        ),
        tree,
    )
    assert other.key() != jac.key()
    # the settings as a dict or as the defaults they equal: one method, one key
    spelled = describe_method(
        MethodSpec("p", "proposed", {"dedup": {"k": 3}, "blocks": {"tags": ["div", "td"]}}), tree
    )
    assert spelled.key() == describe_method(MethodSpec("p", "proposed", {}), tree).key()


def test_outside_packages_and_lxml_are_in_the_key(monkeypatch):
    tree = SourceTree()
    proposed = describe_method(SPECS["proposed"], tree)
    cetd = describe_method(SPECS["cetd"], tree)
    assert proposed.packages["numpy"] == metadata.version("numpy")
    assert cetd.packages["lxml"] == lxml.etree.__version__ and "numpy" not in cetd.packages
    before = cetd.key()
    monkeypatch.setattr(
        cache, "lxml_versions", lambda: {"lxml": lxml.etree.__version__, "libxml2": "2.9.0"}
    )
    assert cetd.key() != before
    monkeypatch.undo()
    monkeypatch.setattr(
        cache,
        "distribution_versions",
        lambda names: {**distribution_versions(names), "lxml": "4.0.0"},
    )
    assert describe_method(SPECS["cetd"], tree).key() != before


def test_distribution_versions_follow_requirements_and_name_what_is_missing():
    pytest.importorskip("trafilatura")
    got = distribution_versions(["trafilatura", "no_such_module_xyz"])
    assert got["trafilatura"] == metadata.version("trafilatura")
    assert got["justext"] == metadata.version("justext")  # required by trafilatura
    assert got["lxml"] == lxml.etree.__version__
    assert got["no-such-module-xyz"] == "not installed"
    # a module named unlike its distribution, found through the distributions' file lists
    assert distribution_versions(["sklearn"])["scikit-learn"] == metadata.version("scikit-learn")


def _page(**kw):
    base = {
        "id": "p",
        "dataset": "t",
        "raw": b"<p>caf\xc3\xa9</p>",
        "gold": Gold(text="g"),
        "url": "http://a.org/x",
        "site": "a.org",
    }
    return Page(**{**base, **kw})


def test_the_page_key_covers_what_a_method_sees(monkeypatch):
    key = page_key(_page())
    assert page_key(_page()) == key
    assert page_key(_page(html="<p>cafÃ©</p>")) != key  # same bytes, decoded otherwise
    assert page_key(_page(url="http://a.org/y")) != key
    assert page_key(_page(url=None)) != key
    assert page_key(_page(site="b.org")) != key
    assert page_key(_page(gold=Gold(text="other"))) != key  # the gold method returns it
    assert page_key(_page(id="q", dataset="u", source="f.html")) == key  # names only
    monkeypatch.setattr(cache, "NORMALISATION_VERSION", cache.NORMALISATION_VERSION + 1)
    assert page_key(_page()) != key


def test_closures_are_computed_once_per_spec_not_per_page(monkeypatch, tmp_path):
    calls = []
    real = cache.describe_method
    monkeypatch.setattr(cache, "_FACTS", {})
    monkeypatch.setattr(cache, "describe_method", lambda spec: calls.append(spec) or real(spec))
    pages = [_page(id=f"p{i}", raw=f"<p>page {i}</p>".encode()) for i in range(5)]
    specs = [SPECS["fulltext"], SPECS["cetd"]]
    # with a cache: without one the page keys are skipped (the method keys may be too)
    run_pages(pages, specs, score=lambda p, m, e: {}, progress=False, cache_root=str(tmp_path))
    assert sorted(s.label for s in calls) == ["cetd", "fulltext"]


def test_run_json_lists_each_peers_package_version(tmp_path):
    for module in ("trafilatura", "justext"):
        pytest.importorskip(module)
    from evalkit.experiments import run_experiment
    from evalkit.harness.config import register_resolvers
    from evalkit.shell.cli import CONFIG_DIR

    register_resolvers()
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(
            config_name="config",
            overrides=[
                "experiment=extraction",
                "dataset=synthetic",
                "dataset.synthetic.limit=2",
                "method=[proposed,justext_style,trafilatura,justext]",
                "extraction.n_boot=10",
                "runner.n_jobs=1",
                "runner.progress=false",
                f"paths.results={tmp_path}",
            ],
        )
    info = json.loads((run_experiment(cfg, tmp_path / "run") / "run.json").read_text())
    methods = info["methods"]
    assert methods["trafilatura"]["packages"]["trafilatura"] == metadata.version("trafilatura")
    assert methods["justext"]["packages"]["justext"] == metadata.version("justext")
    assert methods["trafilatura"]["registry"] == "trafilatura"
    assert methods["justext_style"]["params"]["stoplist"] == "english"
    assert methods["justext_style"]["resolved_params"]["stoplist"] == "english"
    assert methods["proposed"]["resolved_params"]["dedup"]["detector_params"]["k"] == 3
    assert methods["proposed"]["params"]["dedup"]["k"] == 3  # as the config gives it
    assert all(isinstance(v, str) for m in methods.values() for v in m["packages"].values())
    assert info["lxml"] == {
        "lxml": lxml.etree.__version__,
        "libxml2": ".".join(map(str, lxml.etree.LIBXML_VERSION)),
    }
    assert len(info["datasets"]["synthetic"]["fingerprint"]) == 64
