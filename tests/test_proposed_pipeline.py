"""The proposed extractor end to end: records, switches, validation, site scope, data sets."""

from __future__ import annotations

import gzip
from collections import Counter
from pathlib import Path

import pytest
import yaml
from conftest import without_interpolations

from evalkit.core.page import Gold, Page
from evalkit.harness.registry import METHODS
from evalkit.proposed.blocks import owner_block
from evalkit.proposed.pipeline import Proposed

OFF = {"enabled": False}  # a stage switched off

REPO = Path(__file__).resolve().parents[1]
PARA1 = (
    "Data mining is the process of finding patterns, trends and rules in large data sets. "
    "It draws on statistics, machine learning and databases."
)
PARA2 = "Evaluation of mining results matters: precision, recall and accuracy are common measures."
PAGE = f"""<html><head><title>Data mining evaluation</title></head><body>
<div id="nav"><a href="/">Home</a> <a href="/a">About</a> <a href="/b">Products and services</a></div>
<div class="main"><h1>Data mining</h1><div><p>{PARA1}</p></div>
<div><p>{PARA2} <a href="/m">Read about measures</a></p></div>
<div><p>{PARA1}</p></div></div>
<div class="ad-slot">Buy now! Cheap stuff.</div>
<div class="share"><a href="https://facebook.com/x">f</a><a href="https://twitter.com/x">t</a></div>
<div id="footer">Copyright 2020 Example Inc. All rights reserved.</div>
</body></html>"""
RECORD_SCORES = {"score", "threshold"}  # the names every proposed block record's scores hold
INFO_KEYS = {
    "n_blocks",
    "n_after_primary",
    "n_after_dedup",
    "n_kept",
    "seconds_parse",
    "seconds_blocks",
    "seconds_primary",
    "seconds_dedup",
    "seconds_scoring",
    "seconds_output",
}


def page(html: str = PAGE, url: str | None = "https://www.example.com/a", site=None, pid="p"):
    return Page(id=pid, dataset="t", raw=html.encode(), gold=Gold(text=""), url=url, site=site)


def test_hand_page_all_stages():
    e = Proposed().extract(page())
    assert e.text.split("\n") == ["Data mining", PARA1, PARA2 + " Read about measures"]
    assert all(set(r.scores) == RECORD_SCORES and not r.attrs for r in e.blocks)
    assert INFO_KEYS <= set(e.info)
    got = [(r.path, r.stage, r.rule, r.kept) for r in e.blocks]
    assert got == [
        ("/html/body/div[1]", "primary", "min_subtree", False),
        ("/html/body/div[2]", None, None, True),  # "Data mining": merged with PARA1, kept
        ("/html/body/div[2]/div[1]", None, None, True),
        ("/html/body/div[2]/div[2]", None, None, True),
        ("/html/body/div[2]/div[3]", "dedup", "near_duplicate", False),
        ("/html/body/div[3]", "primary", "ad_marker", False),
        ("/html/body/div[4]", "primary", "utility_links", False),
        ("/html/body/div[5]", "primary", "utility_links", False),
    ]
    assert e.blocks[4].duplicate_of == 2
    assert (e.blocks[1].text, e.blocks[1].words, e.blocks[1].reason) == ("Data mining", 2, None)
    assert (
        e.info["n_blocks"],
        e.info["n_after_primary"],
        e.info["n_after_dedup"],
        e.info["n_kept"],
    ) == (8, 4, 3, 3)
    # By hand. Title terms {data, mine, evalu}: D_title = 3.
    # headline: [data, mine], 2 title words                          N=2,  distinct 2
    # PARA1: data mine process find pattern trend rule larg data set draw statist machin
    #        learn databas: 3 title words (data x2, mine), 12 content  N=15, distinct 14
    # PARA2 + link: evalu mine result matter precis recal accuraci common measur
    #        + read measur: 2 title, 2 link (read, measur), 7 content  N=11, distinct 10
    # D_link = 2, D_content = 2 + 14 + 10 = 26; threshold = 3 distinct / 8 blocks
    scores = [e.blocks[i].scores["score"] for i in (1, 2, 3)]
    assert scores == pytest.approx(
        [
            1 - 0.3 * 2 / 3,
            1 - (0.3 * 3 / 3 + 0.4 * 12 / 26),
            1 - (0.3 * 2 / 3 + 0.3 * 2 / 2 + 0.4 * 7 / 26),
        ],
        abs=1e-12,
    )
    assert all(e.blocks[i].scores["threshold"] == 3 / 8 for i in (1, 2, 3))


def test_scoring_drops_low_score_block():
    # a block made of title and link words only scores low and falls under the threshold
    html = (
        "<html><head><title>alpha beta gamma delta</title></head><body>"
        f"<div><p>{PARA1}</p></div><div><p>{PARA1}</p></div>"
        "<div><p>Alpha, beta; gamma: delta! <a href='/x'>epsilon zeta</a>.</p></div>"
        "</body></html>"
    )
    e = Proposed(primary=OFF).extract(page(html))
    assert [r.rule for r in e.blocks] == [None, "near_duplicate", "low_score"]
    # D_content = 14 + 6 distinct terms; threshold = 2 distinct of 3 blocks
    assert e.blocks[0].scores["score"] == pytest.approx(1 - 0.4 * 15 / 20)
    assert e.blocks[2].scores["score"] == pytest.approx(1 - (0.3 * 4 / 4 + 0.3 * 2 / 2))
    assert e.blocks[2].scores["threshold"] == pytest.approx(2 / 3)


def test_threshold_is_one_when_nothing_was_removed():
    # Eq. 8 gives t = 1 when every block is distinct, and no score exceeds 1
    html = f"<html><body><div><p>{PARA1}</p></div><div><p>{PARA2}</p></div></body></html>"
    e = Proposed(primary=OFF).extract(page(html))
    assert e.text == "" and {r.scores["threshold"] for r in e.blocks} == {1.0}


def test_stage_switches_and_ablation_configs():
    full = Proposed(primary=OFF, dedup=OFF, scoring=OFF).extract(page())
    assert all(r.kept for r in full.blocks) and full.info["n_kept"] == 8
    only_primary = Proposed(dedup=OFF, scoring=OFF).extract(page())
    assert only_primary.info["n_kept"] == only_primary.info["n_after_primary"] == 4
    for name, want in (("proposed_primary", (False, False)), ("proposed_dedup", (True, False))):
        cfg = yaml.safe_load((REPO / "configs" / "method" / f"{name}.yaml").read_text())
        ((label, settings),) = cfg.items()
        assert label == name.replace("_", "@")
        params = {k: v for k, v in settings.items() if k != "_name_"}
        m = METHODS.create(settings["_name_"], **params)
        assert (m.dedup_.enabled, m.scoring_.enabled) == want
        assert m.extract(page()).error is None


def test_full_config_matches_constructor_defaults():
    from evalkit.core.method import param_names

    cfg = yaml.safe_load((REPO / "configs" / "method" / "proposed.yaml").read_text())["proposed"]
    assert set(cfg) - {"_name_"} == set(param_names(Proposed))
    cfg = without_interpolations(cfg)  # render: ${render} names the run's settings
    m = METHODS.create("proposed", **{k: v for k, v in cfg.items() if k != "_name_"})
    assert m.extract(page()).text == Proposed().extract(page()).text


@pytest.mark.parametrize(
    "params,msg",
    [
        (
            {"scoring": {"alpha": 0.5, "beta": 0.3, "gamma": 0.2}},
            "scoring.alpha=0.5, scoring.beta=0.3, scoring.gamma=0.2: scoring weights need alpha <= ",
        ),
        (
            {"scoring": {"alpha": 0.3, "beta": 0.3, "gamma": 0.3}},
            "scoring.alpha=0.3, scoring.beta=0.3, scoring.gamma=0.3: scoring weights must sum to 1",
        ),
        ({"dedup": {"scope": "world"}}, "dedup.scope=world: must be one of page, site"),
        ({"primary": {"outside_subtree": "drop"}}, "primary.outside_subtree=drop: must be one of"),
        ({"scoring": {"content_denominator": "words"}}, "scoring.content_denominator=words: "),
        ({"dedup": {"bits": 16}}, "dedup.bits=16: must be one of 32, 64, 128"),
        ({"dedup": {"k": -1}}, "dedup.k=-1: must be a whole number >= 0"),
        ({"blocks": {"tags": "div"}}, "blocks.tags=div: must be a list of strings"),
        ({"primary": {"enabled": "no"}}, "primary.enabled=no: must be true or false"),
        ({"dedup": {"detector_params": {"k": -2}}}, "dedup.detector_params.k=-2: must be a whole"),
        ({"dedup": {"detector": "nope"}}, "dedup.detector=nope: must be one of modified_simhash, "),
    ],
)
def test_bad_settings_are_refused_when_the_method_is_made(params, msg):
    with pytest.raises(ValueError, match="^" + msg.replace("[", r"\[").replace("(", r"\(")):
        METHODS.create("proposed", **params)


def test_other_detectors_plug_in():
    m = METHODS.create(
        "proposed", dedup={"detector": "jaccard", "detector_params": {"threshold": 0.9}}
    )
    e = m.extract(page())
    assert [r.rule for r in e.blocks].count("near_duplicate") == 1
    assert "jaccard" in next(r.reason for r in e.blocks if r.rule == "near_duplicate")
    assert m.runtime_modules() == ["baselines.jaccard"]  # the cache key follows its code
    # a detector object needs no registry; its records name it
    from baselines.jaccard import Jaccard

    e2 = Proposed(dedup={"detector": Jaccard(threshold=0.9)}).extract(page())
    assert [r.rule for r in e2.blocks] == [r.rule for r in e.blocks]
    # a name other than the modified simhash is the harness's to build
    with pytest.raises(ValueError, match="dedup.detector=jaccard: is built by the harness"):
        Proposed(dedup={"detector": "jaccard"}).extract(page())


def test_page_without_url_skips_offsite_rule():
    html = f'<html><body><div><img src="https://cdn.other.com/x.jpg"><p>{PARA1}</p></div></body></html>'
    e = Proposed(scoring=OFF).extract(page(html, url=None))
    assert e.error is None and e.text == PARA1
    assert e.info["primary_counts"]["offsite_image"] == 0


def test_site_scope_removes_template_blocks_on_later_pages():
    template = (
        "<div class='about'><p>Example News is an independent paper, founded in 1901.</p></div>"
    )

    def html(body):
        return f"<html><head><title>t</title></head><body>{template}<div><p>{body}</p></div></body></html>"

    pages = [
        page(html(PARA1), site="example.com", pid="1"),
        page(html(PARA2), site="example.com", pid="2"),
        page(html(PARA2), site="other.org", pid="3"),
    ]
    m = Proposed(dedup={"scope": "site"}, primary={"rule_min_subtree": False}, scoring=OFF)
    out = [m.extract(p) for p in pages]
    assert [r.rule for r in out[0].blocks] == [None, None]
    assert [r.rule for r in out[1].blocks] == ["site_duplicate", None]
    assert [r.rule for r in out[2].blocks] == [None, None]  # another site
    assert set(m.dedup_.site_fingerprints_) == {"example.com", "other.org"}
    m.reset()
    assert [r.rule for r in m.extract(pages[1]).blocks] == [None, None]
    # page scope never looks across pages
    m = Proposed(primary={"rule_min_subtree": False}, scoring=OFF)
    assert [r.rule for r in [m.extract(p) for p in pages][1].blocks] == [None, None]


# -- the synthetic set: planted noise and duplicates ---------------------------------------


def _unit_block_paths(p: Page) -> list[str]:
    root = p.tree()
    tree = root.getroottree()
    body = root.find(".//body")
    out = []
    for u in p.gold.units:
        found = root.xpath(u.path)
        holder = owner_block(found[0]) if found else None
        out.append(tree.getpath(holder if holder is not None else body))
    return out


def test_synthetic_primary_noise_and_duplicates():
    from evalkit.readers.synthetic import SyntheticDataset

    pages = list(SyntheticDataset(n_sites=30, pages_per_site=2, seed=0).pages())
    # stage 1.2: units of each fine class whose block primary removed
    m = Proposed(dedup=OFF, scoring=OFF)
    removed, total = Counter(), Counter()
    for p in pages:
        by_path = {r.path: r for r in m.extract(p).blocks}
        for u, path in zip(p.gold.units, _unit_block_paths(p)):
            total[u.fine] += 1
            removed[u.fine] += by_path[path].stage == "primary"
    share = {f: removed[f] / total[f] for f in total}
    # measured (60 pages): ad, nav, footer, social 1.000; content 0.000, headline 0.000
    for fine in ("ad", "nav", "footer", "social"):
        assert share[fine] >= 0.90, (fine, share)
    content = (removed["content"] + removed["headline"]) / (total["content"] + total["headline"])
    assert content <= 0.05, share

    # stage 1.3 after primary: planted duplicate blocks found, false pairs
    def dedup_scores(method):
        found = planted = reported = false = 0
        for p in pages:
            e = method.extract(p)
            dup_paths = {
                path for u, path in zip(p.gold.units, _unit_block_paths(p)) if u.fine == "duplicate"
            }
            planted += len(dup_paths)
            for r in e.blocks:
                if r.stage == "dedup":
                    reported += 1
                    found += r.path in dup_paths
                    false += r.path not in dup_paths
        return found / planted, false / max(reported, 1)

    # the paper's k = 3 finds the exact copies but few near copies of these short blocks
    # (measured: recall 0.67, no false pair); k = 10 is needed for 64-bit fingerprints of
    # 30-60 term blocks with 1-3 substituted words (measured: recall 0.96, no false pair)
    recall, false_share = dedup_scores(Proposed(scoring=OFF, dedup={"k": 10}))
    assert recall >= 0.90 and false_share <= 0.05, (recall, false_share)
    recall3, false3 = dedup_scores(Proposed(scoring=OFF))
    assert 0.5 < recall3 < 0.9 and false3 == 0.0


# -- real data: 20 pages of each shared set -------------------------------------------------

REAL = {
    "l3s-gn1": "original/*.html",
    "cleaneval-dev": "input/*.html",
    "cleanportaleval": "input/*.html",
    "readability": "input/*.html",
    "scrapinghub-aeb": "html/*.html.gz",
    "chaos": "html/*.htm*",
    "big5-2017": "html/*.htm*",
}


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_pages_run_without_errors(shared, name):
    root = shared(name)
    files = sorted(root.glob(REAL[name]))[:20]
    assert files, f"no pages under {root}"
    m = Proposed()
    n_kept = 0
    for f in files:
        raw = f.read_bytes()
        if f.suffix == ".gz":
            raw = gzip.decompress(raw)
        e = m.extract(Page(id=f.name, dataset=name, raw=raw, gold=Gold(text=""), source=str(f)))
        assert (
            e.info["n_kept"]
            <= e.info["n_after_dedup"]
            <= e.info["n_after_primary"]
            <= e.info["n_blocks"]
        )
        n_kept += bool(e.text)
    assert n_kept >= len(files) // 2  # most pages keep some text
