"""Every config composes, every method/detector/dataset entry names a registry entry with
valid parameters, and configuration mistakes give one clear line."""

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from evalkit.core.method import param_names
from evalkit.harness.config import method_specs, plain, register_resolvers
from evalkit.harness.registry import DATASETS, DETECTORS, METHODS
from evalkit.shell.cli import CONFIG_DIR, check_overrides

register_resolvers()


def _options(group):
    return sorted(p.stem for p in (CONFIG_DIR / group).glob("*.yaml"))


def _compose(overrides=()):
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        return compose(config_name="config", overrides=list(overrides))


def test_default_config_composes_with_paths_from_the_checkout():
    repo = Path(__file__).resolve().parents[1]  # this checkout, whatever the working directory
    cfg = _compose()
    assert Path(cfg.paths.results) == repo / "results"
    assert Path(cfg.paths.cache) == repo / "results" / "cache"
    assert list(cfg.dataset) == ["synthetic"]


@pytest.mark.parametrize("group", ["experiment", "study", "sweep", "runner"])
def test_every_option_of_a_group_composes(group):
    for option in _options(group):
        _compose([f"{group}={option}"])


@pytest.mark.parametrize(
    "group, registry", [("method", METHODS), ("detector", DETECTORS), ("dataset", DATASETS)]
)
def test_every_entry_names_a_registered_class_and_its_parameters(group, registry):
    options = _options(group)
    assert options, f"configs/{group}/ is empty"
    for option in options:
        cfg = _compose([f"{group}={option}"])
        for label, settings in plain(cfg[group]).items():
            name = settings.pop("_name_", label)
            cls = registry.get(name)
            unknown = set(settings) - set(param_names(cls))
            assert not unknown, f"configs/{group}/{option}.yaml: {name} has no {unknown}"


def test_method_specs_keep_table_names_and_registry_names():
    cfg = _compose(["method=[proposed,proposed_primary]"])
    specs = method_specs(cfg.method)
    assert [(s.label, s.registry) for s in specs] == [
        ("proposed", "proposed"),
        ("proposed@primary", "proposed"),
    ]


def test_a_studys_settings_for_a_method_not_selected_do_not_run_it(capsys, monkeypatch):
    monkeypatch.setattr("evalkit.harness.config._WARNED", set())  # lines are once per process
    # study=structure sets markdown: true for trafilatura, readability_lxml, proposed and cetd
    cfg = _compose(["study=structure", "method=[proposed,cetd,meta_tags]"])
    specs = method_specs(cfg.method)
    assert [(s.label, s.params.get("markdown")) for s in specs] == [
        ("proposed", True),
        ("cetd", True),
        ("meta_tags", None),
    ]
    err = capsys.readouterr().err.splitlines()
    assert sorted(line.split()[1] for line in err) == [
        "method.readability_lxml",
        "method.trafilatura",
    ]
    assert all("is not among the selected methods" in line for line in err)
    # the study's own selection runs all four with their Markdown
    full = {s.label: s.params for s in method_specs(_compose(["study=structure"]).method)}
    assert all(full[m]["markdown"] for m in ("trafilatura", "readability_lxml", "proposed", "cetd"))


def test_config_mistakes_are_one_line_with_the_choices(shared_root):
    msg = check_overrides(["dataset=nosuch"])
    assert msg.startswith("evalkit: unknown dataset nosuch; valid choices: ")
    assert "aeb" in msg and "\n" not in msg
    assert check_overrides(["method=[proposed,bogus]"]).startswith("evalkit: unknown method bogus")
    if not shared_root.is_dir():
        pytest.skip(f"the shared data sets are not at {shared_root} (the aeb case checks them)")
    assert check_overrides(["dataset=aeb", "seed=3"]) is None


def test_bad_method_parameters_stop_before_any_page_naming_the_method():
    from evalkit.harness.config import ConfigError, check_specs

    cfg = _compose(["method=proposed", "+method.proposed.kk=3"])
    with pytest.raises(
        ConfigError,
        match=r"^method 'proposed' has no parameter kk; "
        r"valid: blocks, primary, dedup, scoring, markdown$",
    ):
        check_specs(method_specs(cfg.method))
    # a key inside a stage's group is named with its group
    cfg = _compose(["method=proposed", "+method.proposed.dedup.kk=3"])
    with pytest.raises(
        ConfigError,
        match=r"^method 'proposed' has no parameter dedup.kk; "
        r"closest: dedup.k; valid: dedup.enabled, ",
    ):
        check_specs(method_specs(cfg.method))
    cfg = _compose(["method=proposed", "method.proposed.scoring.alpha=0.5"])
    with pytest.raises(
        ConfigError,
        match=r"^method.proposed.scoring.alpha=0.5, "
        r"method.proposed.scoring.beta=0.3, "
        r"method.proposed.scoring.gamma=0.4: .*alpha <= beta",
    ):
        check_specs(method_specs(cfg.method))
