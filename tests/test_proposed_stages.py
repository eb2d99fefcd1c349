"""The proposed method as stage objects: per-stage settings, the renamed flat keys, the rule
table, the state that flows through the stages, and the detector handed in by the harness."""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from evalkit.core.method import param_names
from evalkit.core.page import Gold, Page
from evalkit.core.validate import ParamError, renamed_keys
from evalkit.harness.cache_keys import SourceTree
from evalkit.harness.config import method_specs, register_resolvers
from evalkit.harness.registry import METHODS
from evalkit.proposed import primary_tags
from evalkit.proposed.pipeline import RENAMED, Proposed
from evalkit.proposed.stages import (
    STAGES,
    BlocksStage,
    DedupStage,
    PrimaryStage,
    ScoringStage,
)
from evalkit.proposed.state import PageState
from evalkit.shell import cli

register_resolvers()
REPO = Path(__file__).resolve().parents[1]
PARA = (
    "Data mining is the process of finding patterns, trends and rules in large data sets. "
    "It draws on statistics, machine learning and databases."
)
PAGE = f"""<html><head><title>Data mining</title></head><body>
<div id="nav"><a href="/">Home</a> <a href="/a">About</a></div>
<div class="main"><h1>Data mining</h1><div><p>{PARA}</p></div><div><p>{PARA}</p></div></div>
<div class="ad-slot">Buy now! Cheap stuff.</div>
<embed src="x.swf">
<div id="footer">Copyright 2020 Example Inc. All rights reserved.</div>
</body></html>"""

#: for every old flat key, a valid value other than its default (the weights move together)
OLD_VALUES = {
    "block_tags": ["div"],
    "primary": False,
    "background_removes_block": True,
    **{
        f"rule_{r}": False
        for r in (
            "background",
            "offsite_image",
            "ad_marker",
            "iab_size",
            "plugin",
            "utility_links",
            "min_subtree",
            "punctuation",
        )
    },
    "ad_tokens": ["ad"],
    "ad_substrings": [],
    "ad_hosts": ["ads.example"],
    "social_hosts": ["social.example"],
    "legal_phrases": ["imprint"],
    "iab_sizes": [[1, 2]],
    "ad_max_share": 0.7,
    "utility_link_share": 0.6,
    "utility_max_words": 10,
    "ad_container_chars": 5,
    "min_subtree_coverage": 0.9,
    "outside_subtree": "keep",
    "short_text_chars": 40,
    "dedup": False,
    "stoplist": "none",
    "stemmer": "none",
    "bits": 128,
    "k": 5,
    "scope": "site",
    "detector": "jaccard",
    "detector_params": {"k": 4},
    "scoring": False,
    "content_denominator": "page_distinct",
    "title_source": "headings",
    "title_count": "distinct",
    "link_scope": "page",
    "link_count": "distinct",
    "content_count": "occurrences",
    "content_weight": "pseudocode",
    "bound": "ratios",
    "threshold_blocks": "stage2",
    "comparison": "ge",
    "if_none_pass": "best",
}
WEIGHTS = {"alpha": 0.2, "beta": 0.3, "gamma": 0.5}


@pytest.fixture(autouse=True)
def _fresh_warnings(monkeypatch):
    """Each test sees its deprecation lines (the command prints each once per process)."""
    monkeypatch.setattr("evalkit.harness.config._WARNED", set())


def page(html: str = PAGE) -> Page:
    return Page(
        id="p", dataset="t", raw=html.encode(), gold=Gold(text=""), url="https://www.example.com/a"
    )


def _setting(method: Proposed, new: str):
    group, key = new.split(".")
    return getattr(getattr(method, f"{group}_"), key)


# -- the groups --------------------------------------------------------------------------


def test_stages_are_made_from_their_groups():
    m = Proposed(
        blocks={"tags": ["div"]},
        primary={"rule_ad_marker": False},
        dedup={"k": 4},
        scoring={"enabled": False},
    )
    assert [type(s) for s in m.stages().values()] == [
        BlocksStage,
        PrimaryStage,
        DedupStage,
        ScoringStage,
    ]
    assert (m.blocks_.tags, m.primary_.rule_ad_marker, m.dedup_.k, m.scoring_.enabled) == (
        ["div"],
        False,
        4,
        False,
    )
    assert m.primary_.rule_plugin is True and m.dedup_.bits == 64  # the rest: defaults
    # the parameters are the groups as given (scikit-learn: stored unchanged) ...
    assert m.get_params(deep=False) == {
        "blocks": {"tags": ["div"]},
        "primary": {"rule_ad_marker": False},
        "dedup": {"k": 4},
        "scoring": {"enabled": False},
        "markdown": False,
    }
    # ... and, deep, every setting of every stage as <group>__<key>
    deep = m.get_params(deep=True)
    assert deep["primary__rule_ad_marker"] is False and deep["dedup__k"] == 4
    assert deep["scoring__alpha"] == 0.3 and deep["blocks__tags"] == ["div"]
    n_settings = sum(len(param_names(cls)) for cls in STAGES.values())
    # the four groups, markdown, and every setting of every stage
    assert len(deep) == 5 + n_settings == 5 + 6 + 27 + 11 + 15
    # the config file's groups are the constructor's, its keys the stages'
    with initialize_config_dir(config_dir=str(cli.CONFIG_DIR), version_base="1.3"):
        cfg = compose(config_name="config", overrides=["method=proposed"])
    (spec,) = method_specs(cfg.method)
    params = dict(spec.params)
    assert params.pop("markdown") is False  # the one setting beside the groups
    assert {g: set(v) for g, v in params.items()} == {
        g: set(param_names(cls)) for g, cls in STAGES.items()
    }


def test_set_params_takes_groups_and_nested_keys_and_checks_them():
    m = Proposed(dedup={"k": 4})
    m.set_params(dedup__bits=128, scoring__enabled=False)
    assert (m.dedup_.k, m.dedup_.bits, m.scoring_.enabled) == (4, 128, False)
    assert m.get_params(deep=False)["dedup"] == {**DedupStage(k=4).get_params(), "bits": 128}
    m.set_params(primary={"enabled": False})
    assert m.primary_.enabled is False and m.dedup_.bits == 128
    with pytest.raises(ParamError, match=r"^dedup.k=-1: must be a whole number >= 0$"):
        m.set_params(dedup__k=-1)
    with pytest.raises(ValueError, match="has no stage 'dedupp'"):
        m.set_params(dedupp__k=1)


def test_a_stage_object_is_used_as_it_is():
    stage = DedupStage(k=6)
    m = Proposed(dedup=stage)
    assert m.dedup_ is stage and m.get_params(deep=False)["dedup"] is stage
    assert m.resolved_params()["dedup"]["detector_params"]["k"] == 6


@pytest.mark.parametrize(
    "settings, msg",
    [
        (
            {"dedup": {"kk": 4}},
            (
                "method 'proposed' has no parameter dedup.kk; closest: dedup.k; "
                "valid: dedup.enabled, dedup.stoplist, "
            ),
        ),
        (
            {"primary": {"rule_ad_markr": False}},
            "method 'proposed' has no parameter primary.rule_ad_markr; closest: primary.rule_ad_marker",
        ),
    ],
)
def test_a_mistyped_key_of_a_group_is_named_with_its_group(settings, msg):
    with pytest.raises(TypeError, match="^" + re.escape(msg)):
        Proposed(**settings)


def test_a_group_that_is_not_a_mapping_is_refused():
    with pytest.raises(ParamError, match=r"^blocks=\[div\]: must be a mapping of the blocks "):
        Proposed(blocks=["div"])


# -- the renamed flat keys ---------------------------------------------------------------


#: settings made after the move to groups (readings of stages 1.1-1.3): no old flat key
NEW_SETTINGS = {
    "blocks.nested_text",
    "blocks.residual_block",
    "primary.coverage_by",
    "primary.punctuation_marks",
    "dedup.duplicate_keeps",
    "dedup.compare_with",
    "dedup.proximity",
    "primary.image_size_from",
    "primary.render",
    "blocks.segmenter",
    "blocks.pdoc",
    "blocks.render",
}


def test_every_old_key_names_an_existing_setting_and_every_setting_has_one():
    targets = set(RENAMED.values())
    assert not targets & NEW_SETTINGS
    assert targets | NEW_SETTINGS == {
        f"{g}.{k}" for g, cls in STAGES.items() for k in param_names(cls)
    }
    assert set(OLD_VALUES) | set(WEIGHTS) == set(RENAMED)
    changelog = (REPO / "CHANGELOG.md").read_text()
    listed = dict(re.findall(r"^\| `(\w+)` \| `([\w.]+)` \|$", changelog, re.MULTILINE))
    assert listed == RENAMED


@pytest.mark.parametrize("old", sorted(OLD_VALUES))
def test_an_old_keyword_warns_once_naming_the_new_key_and_works(old):
    new, value = RENAMED[old], OLD_VALUES[old]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = METHODS.create("proposed", **{old: value})
    assert [str(w.message) for w in caught] == [
        f"proposed parameter {old} is deprecated: use {new}"
    ]
    assert caught[0].category is FutureWarning
    assert _setting(m, new) == value
    # the same method as the new key gives: same resolved parameters
    group, key = new.split(".")
    assert (
        m.resolved_params() == METHODS.create("proposed", **{group: {key: value}}).resolved_params()
    )


def test_old_weights_move_together_and_old_and_new_keys_mix():
    with pytest.warns(FutureWarning) as caught:
        m = Proposed(scoring={"content_denominator": "page_distinct"}, k=7, **WEIGHTS)
    assert sorted(str(w.message) for w in caught) == [
        "proposed parameter alpha is deprecated: use scoring.alpha",
        "proposed parameter beta is deprecated: use scoring.beta",
        "proposed parameter gamma is deprecated: use scoring.gamma",
        "proposed parameter k is deprecated: use dedup.k",
    ]
    assert m.get_params(deep=False)["scoring"] == {
        "content_denominator": "page_distinct",
        **WEIGHTS,
    }
    assert m.dedup_.k == 7
    with pytest.raises(TypeError, match="unexpected keyword argument 'kk'"):
        Proposed(kk=3)


def test_old_keys_extract_byte_identically_to_new_ones():
    with pytest.warns(FutureWarning):
        old = Proposed(primary=False, k=10, scoring=False).extract(page())
    new = Proposed(primary={"enabled": False}, dedup={"k": 10}, scoring={"enabled": False}).extract(
        page()
    )
    assert (old.text, old.blocks) == (new.text, new.blocks)
    assert old.text  # the page keeps text without stages 1.2 and 1.4


def test_renamed_keys_moves_flags_into_groups_and_leaves_groups_alone():
    got, moved = renamed_keys(
        {"primary": False, "rule_plugin": False, "dedup": {"k": 2}, "k": 5, "other": 1}, RENAMED
    )
    assert got == {
        "primary": {"enabled": False, "rule_plugin": False},
        "dedup": {"k": 5},
        "other": 1,
    }
    assert moved == [
        ("primary", "primary.enabled"),
        ("rule_plugin", "primary.rule_plugin"),
        ("k", "dedup.k"),
    ]
    assert renamed_keys({"dedup": {"enabled": False}}, RENAMED) == (
        {"dedup": {"enabled": False}},
        [],
    )


def test_a_config_with_old_keys_warns_once_per_key_with_one_line(capsys):
    node = {"mine": {"_name_": "proposed", "k": 4, "scoring": False, "dedup": {"stoplist": "none"}}}
    specs = method_specs(node) + method_specs(node)  # twice: one warning line per key
    assert specs[0].params == {"dedup": {"stoplist": "none", "k": 4}, "scoring": {"enabled": False}}
    assert capsys.readouterr().err.splitlines() == [
        "evalkit: method.mine.k is deprecated: use method.mine.dedup.k",
        "evalkit: method.mine.scoring is deprecated: use method.mine.scoring.enabled",
    ]


def test_old_keys_on_the_command_line_are_moved_before_hydra_sees_them():
    argv = [
        "-m",
        "method.proposed.k=1,3",
        "method.proposed.primary=false",
        "method.proposed.rule_ad_marker=false",
        "+method.proposed.detector_params.bits=32",
        "method.proposed.dedup.bits=128",
        "method.proposed.scoring={enabled:false}",
        "seed=2",
    ]
    new, moved = cli.upgrade_overrides(argv)
    assert new == [
        "-m",
        "method.proposed.dedup.k=1,3",
        "method.proposed.primary.enabled=false",
        "method.proposed.primary.rule_ad_marker=false",
        "+method.proposed.dedup.detector_params.bits=32",
        "method.proposed.dedup.bits=128",
        "method.proposed.scoring={enabled:false}",
        "seed=2",
    ]
    assert moved == [
        ("method.proposed.k", "method.proposed.dedup.k"),
        ("method.proposed.primary", "method.proposed.primary.enabled"),
        ("method.proposed.rule_ad_marker", "method.proposed.primary.rule_ad_marker"),
        ("method.proposed.detector_params.bits", "method.proposed.dedup.detector_params.bits"),
    ]
    assert cli.check_overrides(new) is None
    # nothing to move: the command line is left alone (and no config is composed)
    assert cli.upgrade_overrides(["seed=1", "runner.n_jobs=1"]) == (
        ["seed=1", "runner.n_jobs=1"],
        [],
    )


def test_an_old_key_runs_with_one_warning_line(monkeypatch, capsys):
    monkeypatch.setattr(
        sys, "argv", ["evalkit", "--cfg", "job", "method=proposed", "method.proposed.k=4"]
    )
    cli.main()
    out, err = capsys.readouterr()
    assert err == "evalkit: method.proposed.k is deprecated: use method.proposed.dedup.k\n"
    assert re.search(r"\n    dedup:\n(      .*\n)*      k: 4\n", out), out


def test_an_old_key_with_a_bad_value_names_the_new_key(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(
        sys, "argv", ["evalkit", "method.proposed.k=-1", f"paths.results={tmp_path}"]
    )
    with pytest.raises(SystemExit) as stop:
        cli.main()
    assert stop.value.code == 2
    assert capsys.readouterr().err.splitlines() == [
        "evalkit: method.proposed.k is deprecated: use method.proposed.dedup.k",
        "evalkit: method.proposed.dedup.k=-1: must be a whole number >= 0",
    ]
    assert list(tmp_path.iterdir()) == []


# -- the rule table and the state ----------------------------------------------------------


def test_the_tag_rules_are_a_table_run_in_order(monkeypatch):
    assert list(primary_tags.TAG_RULES) == [
        "background",
        "offsite_image",
        "ad_marker",
        "iab_size",
        "plugin",
        "utility_links",
    ]
    ran = []
    for name, rule in list(primary_tags.TAG_RULES.items()):

        def spy(p, name=name, rule=rule):
            ran.append(name)
            rule(p)

        monkeypatch.setitem(primary_tags.TAG_RULES, name, spy)
    e = Proposed(primary={"rule_iab_size": False}).extract(page())
    assert ran == ["background", "offsite_image", "ad_marker", "plugin", "utility_links"]
    assert e.info["primary_counts"]["plugin"] == 1 and e.info["primary_counts"]["ad_marker"] == 1


def test_one_state_flows_through_the_stages():
    m = Proposed()
    state = PageState(page=page())
    state.root = state.page.tree(plain=True)
    m.blocks_.run(state)
    # nav, main, its two paragraphs, the ad, the footer (libxml2 puts it inside the embed)
    assert len(state.blocks) == 6 and state.title == "Data mining" and state.tags == ("div", "td")
    assert state.first_text == {b.index: state.cache[b] for b in state.blocks}
    m.primary_.run(state)
    assert state.info["primary_counts"]["ad_marker"] == 1
    state.texts = {b.index: state.cache[b] for b in state.alive()}
    m.dedup_.run(state)
    m._run_scoring(state)
    want = m.extract(page())
    assert [(b.stage, b.rule, b.score) for b in state.blocks] == [
        (r.stage, r.rule, r.scores["score"]) for r in want.blocks
    ]
    assert set(state.block_terms) == set(state.texts)  # stage 1.3's terms, reused by 1.4


# -- the detector ------------------------------------------------------------------------


def test_the_proposed_package_does_not_import_the_registry():
    tree = SourceTree()
    modules = [m for m in tree.modules() if m.startswith("evalkit.proposed")]
    project, _ = tree.closure(modules)
    assert "evalkit.harness.registry" not in project
    assert not any(m.startswith("baselines") for m in project)


def test_the_harness_builds_a_named_detector_and_the_key_follows_it():
    m = METHODS.create(
        "proposed", dedup={"detector": "minhash", "detector_params": {"threshold": 0.6}}
    )
    assert m.dedup_.detector_.threshold == 0.6 and m.runtime_modules() == ["baselines.minhash"]
    assert m.resolved_params()["dedup"]["detector"] == "minhash"
    own = Proposed()  # the modified simhash needs no registry
    assert own.runtime_modules() == ["evalkit.proposed.dedup"]
    assert own.resolved_params()["dedup"]["detector_params"] == {
        "bits": 64,
        "k": 3,
        "stoplist": "english",
        "stemmer": "porter",
        "proximity": "pointer",
    }
