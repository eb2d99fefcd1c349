"""The gold audit (``evalkit experiment=audit``): its checks worked by hand, each flag firing
and not firing on hand-made pages, and a run on a real set."""

from __future__ import annotations

import itertools
import math
import random
from pathlib import Path

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from evalkit.core import gold_audit as G
from evalkit.core.fingerprint import hamming
from evalkit.experiments import EXPERIMENTS, Context, run_experiment
from evalkit.experiments import audit as A
from evalkit.harness.config import CONFIG_DIR, ConfigError, register_resolvers


def _compose(overrides):
    register_resolvers()
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        return compose(config_name="config", overrides=list(overrides))


def test_registered_and_configured():
    assert EXPERIMENTS.get("audit") is A.run
    cfg = _compose(["experiment=audit"])
    assert list(cfg.experiment.parts) == ["audit"]
    assert list(cfg.method) == ["cetd", "justext_style", "trafilatura"]
    # the config's values are the module's defaults, so a test of one is a test of the other
    assert {k: cfg.audit[k] for k in A.DEFAULTS} == A.DEFAULTS


# ------------------------------------------------------------------ the checks by hand


def test_coverage_worked_by_hand():
    # gold tokens a b c d e, visible a b c d x: 4 of 5 words; gold 4-shingles (a b c d),
    # (b c d e), visible (a b c d), (b c d x): 1 of 2
    assert G.coverage("a b c d e", "a b c d x") == (0.8, 0.5)
    # multisets: the gold's two "a" need two in the page
    words, _ = G.coverage("a a b", "a b b")
    assert words == pytest.approx(2 / 3)
    assert G.coverage("x y", "x y") == (1.0, 1.0)  # shorter than n: one shingle
    # a CJK run is one shingle token but one word per character: 東京タワー against
    # 東京タワ has 4 of 5 characters (0.8), where a whole-run token would give 0
    assert G.coverage("東京タワー", "東京タワ")[0] == pytest.approx(0.8)
    w, s = G.coverage("", "page text")
    assert math.isnan(w) and math.isnan(s)


def test_artefacts_fire_on_markup_the_page_does_not_show():
    gold = "<p>First paragraph.</p>\n<h>Heading\nTom &amp; Jerry, caf\u00c3\u00a9 \ufffd"
    assert G.artefacts(gold, "First paragraph. Heading Tom & Jerry, caf\u00e9") == {
        "annotation_marker": 2,  # <p> and <h>
        "html_tag": 1,  # </p>
        "entity": 1,
        "mojibake": 1,
        "replacement_char": 1,
    }
    assert G.artefacts("URL: http://example.org/a\nText") == {"annotation_marker": 1}


def test_artefacts_do_not_fire_on_text():
    # angle brackets around words that are not HTML elements, and a URL: line mid-text
    assert G.artefacts('Google "<noun>.js" and <The Palace: Tale>\nsee URL: x') == {}
    # a page about HTML shows <img> as text: the gold may hold it too
    assert G.artefacts("Use the <img> element.", "Use the <img> element.") == {}
    assert G.artefacts("Use <img> and <img>.", "Use the <img> element.") == {"html_tag": 1}


def test_truncated_and_shortest():
    assert G.shortest({"a": 120, "b": None, "c": 80}) == ("c", 80)
    assert G.shortest({"a": None}) == (None, None)
    assert G.truncated(39, 80, 0.5, 50)  # 39 < 40
    assert not G.truncated(40, 80, 0.5, 50)  # 40 is not < 40
    assert not G.truncated(10, 49, 0.5, 50)  # the shortest output is too short to judge
    assert not G.truncated(0, 80, 0.5, 50)  # empty gold is its own flag
    assert not G.truncated(10, None, 0.5, 50)  # every method failed


def test_near_pairs_equal_brute_force():
    rng = random.Random(3)
    base = [rng.getrandbits(64) for _ in range(60)]
    # copies with 0-5 bits flipped, so pairs exist on both sides of k
    fps = (
        base
        + [b ^ sum(1 << rng.randrange(64) for _ in range(rng.randint(0, 5))) for b in base[:40]]
        + [None]
    )
    for k in (0, 3, 6):
        brute = sorted(
            (i, j)
            for i, j in itertools.combinations(range(len(fps)), 2)
            if fps[i] is not None and fps[j] is not None and hamming(fps[i], fps[j]) <= k
        )
        assert G.near_pairs(fps, k) == brute
        assert brute
    assert G.near_pairs([0, 0b111, 0b1111], 3) == [(0, 1), (1, 2)]


def test_duplicate_of_is_the_first_of_each_group():
    # groups {0, 1, 3} (joined through 3) and {2, 4}
    assert G.duplicate_of(6, [(1, 3), (0, 3), (2, 4)]) == [None, 0, None, 0, 2, None]


def test_text_simhash_and_exact_key():
    text = "The council approved the harbour budget after a long debate about ferry fares."
    assert G.text_simhash(text) == G.text_simhash(text.upper().replace(" ", "  "))
    assert G.text_simhash("") == 0
    assert G.exact_key("a  b\nc") == G.exact_key("a b c") != G.exact_key("a b d")


# ------------------------------------------------------------------ hand-made pages


def _words(prefix: str, n: int, start: int = 0) -> str:
    """n distinct words (alpha0 alpha1 ...): pages made of different prefixes share no word,
    so no two of them are near duplicates by accident."""
    return " ".join(f"{prefix}{i}" for i in range(start, start + n))


def _page(*paragraphs: str) -> str:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return f"<html><head><title>t</title></head><body><div>{body}</div></body></html>"


@pytest.fixture
def hand_set(tmp_path) -> Path:
    """Six pages as a ``pairs`` folder (pages sorted by name): each flag once, one clean page."""
    root = tmp_path / "set"
    (root / "html").mkdir(parents=True)
    (root / "gold").mkdir()
    first, second = _words("epsilon", 30), _words("epsilon", 30, start=30)
    pages = {
        "a_clean": (_page(_words("alpha", 176)), _words("alpha", 176)),
        "b_copy": (_page(_words("alpha", 176)), _words("alpha", 176)),  # a_clean's bytes and gold
        "c_elsewhere": (_page(_words("gamma", 100)), _words("delta", 100)),
        # 60 words on the page; the gold adds <p>, </p>, <p>: tokens p p p, 60 of 63 found
        "d_tagged": (_page(first, second), f"<p>{first}</p>\n<p>{second}"),
        "e_short": (_page(_words("zeta", 182)), _words("zeta", 20)),  # 20 gold words of 182
    }
    for name, (html, gold) in pages.items():
        (root / "html" / f"{name}.html").write_text(html, encoding="utf-8")
        (root / "gold" / f"{name}.txt").write_text(gold, encoding="utf-8")
    (root / "html" / "f_empty.html").write_text("  \n", encoding="utf-8")
    (root / "gold" / "f_empty.txt").write_text("gold of a page that is not there", "utf-8")
    return root


def test_hand_made_pages_each_flag_fires_once(hand_set, tmp_path):
    cfg = _compose(
        [
            "experiment=audit",
            "dataset=chaos",
            f"dataset.chaos.path={hand_set}",
            "dataset.chaos.category_pattern=null",
            "method=[fulltext]",
            "runner.progress=false",
            f"paths.cache={tmp_path / 'cache'}",
        ]
    )
    out = run_experiment(cfg, tmp_path / "run")
    audit = pd.read_csv(out / "audit.csv", dtype={"page_id": str}).set_index("page_id")
    flags = audit["flags"].fillna("").to_dict()
    assert flags == {
        "a_clean": "",
        "b_copy": "duplicate",
        "c_elsewhere": "not_in_page",
        "d_tagged": "artefacts",
        "e_short": "truncated",
        "f_empty.html": "unreadable",
    }
    # by hand: a_clean's 176 gold words are all on the page; c_elsewhere's none
    assert audit.loc["a_clean", "gold_word_share"] == 1.0
    assert audit.loc["a_clean", "gold_words"] == 176
    assert audit.loc["c_elsewhere", "gold_word_share"] == 0.0
    assert audit.loc["b_copy", "duplicate_of"] == "a_clean"
    assert audit.loc["b_copy", "duplicate_kind"] == "html+text_near+gold+gold_near"
    assert audit.loc["d_tagged", "artefact_kinds"] == "annotation_marker:2;html_tag:1"
    assert audit.loc["d_tagged", "gold_word_share"] == pytest.approx(60 / 63)
    # e_short: 20 gold words, fulltext 182 words, 20 < 0.5 x 182
    assert audit.loc["e_short", "shortest_words"] == 182
    assert audit.loc["e_short", "gold_to_shortest"] == pytest.approx(20 / 182)
    assert audit.loc["f_empty.html", "page_error"] == "skipped: empty page"
    summary = pd.read_csv(out / "summary.csv").set_index("metric")
    assert summary.loc["any_pages", "value"] == 5
    assert summary.loc["duplicate_share", "value"] == pytest.approx(1 / 6, abs=1e-6)  # 6 digits
    assert summary.loc["duplicate_share", "n_pages"] == 6
    report = (out / "report.md").read_text()
    assert "- **truncated**: 1 page, e.g. `e_short` gold 20 words, shortest fulltext 182" in report
    assert (out / "tables" / "audit_summary.md").is_file()
    flagged = pd.read_csv(out / "tables" / "audit_flagged.csv", dtype={"page_id": str})
    assert flagged["page_id"].tolist() == [
        "b_copy",
        "c_elsewhere",
        "d_tagged",
        "e_short",
        "f_empty.html",
    ]


def test_no_flag_when_the_thresholds_say_so(hand_set, tmp_path):
    # the same pages with every check loosened: only the unreadable file and the copy
    # (identical bytes are a duplicate at any simhash distance) stay flagged
    cfg = _compose(
        [
            "experiment=audit",
            "dataset=chaos",
            f"dataset.chaos.path={hand_set}",
            "dataset.chaos.category_pattern=null",
            "method=[fulltext]",
            "audit.coverage_min=0.0",
            "audit.truncated_fraction=0.1",
            "runner.progress=false",
            "runner.cache=false",
        ]
    )
    out = run_experiment(cfg, tmp_path / "run")
    audit = pd.read_csv(out / "audit.csv", dtype={"page_id": str}).set_index("page_id")
    assert not audit["not_in_page"].any()
    assert not audit["truncated"].any()
    assert audit["artefacts"].sum() == 1  # markup is markup whatever the thresholds


# ------------------------------------------------------------------ a real set


@pytest.mark.shared
def test_real_set_cleaneval_dev(shared, tmp_path):
    path = shared("cleaneval-dev")  # skips, naming the folder, when the shared data is absent
    cfg = _compose(
        [
            "experiment=audit",
            "dataset=cleaneval_dev",
            f"dataset.cleaneval_dev.path={path}",
            "method=[cetd]",
            "runner.progress=false",
            f"paths.cache={tmp_path / 'cache'}",
        ]
    )
    out = run_experiment(cfg, tmp_path / "run")
    audit = pd.read_csv(out / "audit.csv", dtype={"page_id": str}).set_index("page_id")
    assert len(audit) == 58
    # page 49's stored HTML ends before the article (a fragment of another page): none of
    # its gold is on it
    assert audit.loc["49", "gold_word_share"] == 0.0
    assert audit.loc["49", "not_in_page"]
    assert audit.loc["32", "empty_gold"]  # an index page the annotators left empty
    # page 58's gold keeps 33 CleanEval <p>/<h>/<l> markers the reader's line rule missed
    assert audit.loc["58", "artefact_kinds"] == "annotation_marker:33"
    assert not audit["unreadable"].any()


def test_no_method_is_one_clear_line(tmp_path):
    # (the command line cannot empty cfg.method; the API and a composed config can)
    ctx = Context(cfg=_compose(["experiment=audit"]), out=tmp_path, datasets={}, specs=[], seed=0)
    with pytest.raises(ConfigError, match=r"experiment audit needs at least one method"):
        A.run(ctx)
