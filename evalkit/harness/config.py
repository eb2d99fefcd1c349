"""From a composed Hydra config to objects: config sources, paths, datasets and method specs.

Kept apart from the Hydra shell (cli.py) so that tests and scripts can compose a
config with ``hydra.compose`` and call the same functions.
"""

from __future__ import annotations

import copy
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from omegaconf import DictConfig, OmegaConf

from evalkit.core.layout import default_results, default_shared_data, layout, start_dir
from evalkit.harness.specs import MethodSpec

__all__ = [
    "CONFIG_DIR",
    "CONFIG_SOURCE",
    "ConfigError",
    "build_datasets",
    "check_specs",
    "hydra_configs",
    "method_specs",
    "plain",
    "project_root",
    "register_resolvers",
    "run_paths",
    "warn_renamed",
]


class ConfigError(ValueError):
    """A configuration mistake found before any work starts (one line for the user)."""


def project_root() -> str | None:
    """The checkout evalkit runs from; None for an installed package (:mod:`evalkit.core.layout`:
    decided from the package's files, never from the working directory; EVALKIT_ROOT
    overrides)."""
    root = layout().root
    return None if root is None else str(root)


#: the Hydra config folder on disk (a checkout's configs/, or the one inside the installed
#: package); here, not in the shell, so that the harness (evalkit.harness.reference) can compose a
#: config without importing cli.py (docs/floors.md)
CONFIG_DIR = layout().config_dir
#: the primary config source the command gives Hydra: the folder, or pkg://evalkit.configs
CONFIG_SOURCE = layout().config_source


def register_resolvers(make_folders: bool = True) -> None:
    """Register evalkit's resolvers: ``evalkit_root`` (the checkout, null when installed),
    ``evalkit_results`` and ``evalkit_shared_data`` (the defaults of ``paths.results`` and
    ``paths.shared_data``: evalkit.core.layout) and ``evalkit_unique`` (a run folder's unique
    name, evalkit.harness.rundir; made on disk unless ``make_folders`` is false)."""
    from evalkit.harness.rundir import propose, reserve

    start_dir()  # the working directory is read once, now, before anything can move it
    for name, fn in (
        ("evalkit_root", project_root),
        ("evalkit_results", lambda: str(default_results())),
        ("evalkit_shared_data", lambda: str(default_shared_data())),
    ):
        if not OmegaConf.has_resolver(name):
            OmegaConf.register_new_resolver(name, fn)
    if not OmegaConf.has_resolver("evalkit_unique"):
        # cached: a config reserves one folder however often its run dir is read
        OmegaConf.register_new_resolver(
            "evalkit_unique", reserve if make_folders else propose, use_cache=True
        )


def run_paths(cfg: DictConfig | RunConfig) -> dict[str, Any]:
    """What ``run.json`` records of where things were: the layout, the checkout, the folder
    the command started in, where results went and why, the cache and the shared data."""
    paths = RunConfig.of(cfg).section("paths")
    results = paths.get("results")
    default = str(default_results())
    source = (
        "paths.results"
        if results != default
        else "working directory"
        if layout().installed
        else "checkout"
    )
    return {
        "layout": layout().kind,
        "root": project_root(),
        "started_in": str(start_dir()),
        "results": results,
        "results_from": source,
        "cache": paths.get("cache"),
        "shared_data": paths.get("shared_data"),
    }


@contextmanager
def hydra_configs(
    config_dir: str | None = None, config_path: str | None = None, job_name: str = "evalkit"
) -> Iterator[None]:
    """Hydra initialised with the config search path the ``evalkit`` command builds:
    evalkit's configs (or ``--config-path``) with ``--config-dir`` ahead of them, so that a
    composition (and every option list) sees the user's configs as a run does.
    ``hydra.searchpath`` overrides are Hydra's: pass them to ``compose`` and to
    ``get_group_options(..., overrides=...)``. A missing ``--config-dir`` raises
    ConfigError."""
    from hydra import version
    from hydra._internal.hydra import Hydra
    from hydra._internal.utils import compute_search_path_dir, create_config_search_path
    from hydra.core.config_search_path import SearchPathQuery
    from hydra.initialize import get_gh_backup, restore_gh_from_backup

    primary = CONFIG_SOURCE
    if config_path is not None:  # as Hydra reads --config-path for the app in evalkit.shell.cli
        primary = compute_search_path_dir(None, "evalkit.shell.cli", config_path)
    search = create_config_search_path(primary)
    if config_dir is not None:
        folder = os.path.abspath(config_dir)
        if not os.path.isdir(folder):
            raise ConfigError(f"--config-dir {config_dir}: no such folder")
        # where Hydra's command line puts it: ahead of evalkit's configs
        search.prepend(
            provider="command-line",
            path=f"file://{folder}",
            anchor=SearchPathQuery(provider="schema"),
        )
    backup = get_gh_backup()
    version.setbase("1.3")
    Hydra.create_main_hydra2(task_name=job_name, config_search_path=search)
    try:
        yield
    finally:
        restore_gh_from_backup(backup)


def plain(node: Any) -> Any:
    """A resolved plain-Python copy of a config node."""
    if isinstance(node, DictConfig) or OmegaConf.is_config(node):
        return OmegaConf.to_container(node, resolve=True)
    return node


class RunConfig:
    """A run's composed config, resolved once into plain Python (every interpolation and
    resolver run here, once); the harness passes this on instead of the raw Hydra node.

    :meth:`of` is where a raw config enters: the run (``run_experiment``), the command's
    check before Hydra's run folder (evalkit.shell.overrides) and the API take a config and
    make it here; every stage below reads sections from it (:meth:`section`, :meth:`get`)."""

    __slots__ = ("data",)

    def __init__(self, data: dict[str, Any]):
        self.data = data

    @classmethod
    def of(cls, cfg: Any) -> RunConfig:
        """``cfg`` as a RunConfig: a DictConfig or a mapping converted, a RunConfig as it is."""
        if isinstance(cfg, RunConfig):
            return cfg
        # section by section, Hydra's own node left out: resolving it would reserve a run
        # folder (evalkit_unique) before the run is allowed to start
        data = {str(k): plain(cfg[k]) for k in cfg if k != "hydra"} if hasattr(cfg, "keys") else cfg
        if not isinstance(data, dict):
            raise ConfigError(f"a run's config is a mapping of sections, not {type(data).__name__}")
        return cls(data)

    def get(self, name: str, default: Any = None) -> Any:
        value = self.data.get(name)
        return default if value is None else value

    def __contains__(self, name: str) -> bool:
        return name in self.data

    @property
    def experiment(self) -> str:
        """The experiment's name (``experiment.name``)."""
        return str(self.section("experiment").get("name"))

    def section(self, name: str) -> dict[str, Any]:
        """The section ``name`` as a dict (empty when absent or null)."""
        value = self.data.get(name)
        return value if isinstance(value, dict) else {}


def _entries(node) -> dict[str, dict[str, Any]]:
    entries = copy.deepcopy(plain(node)) or {}  # a spec's settings are its own to change
    if not isinstance(entries, dict):
        raise ValueError(f"expected a mapping of name -> settings, got {entries!r}")  # noqa: TRY004 - callers catch ValueError
    return {str(k): dict(v or {}) for k, v in entries.items()}


def build_datasets(cfg: DictConfig | RunConfig, skip_missing: bool = False) -> dict[str, Any]:
    """``cfg.dataset`` (name -> settings) to reader objects, checking that data folders exist.

    With ``skip_missing`` (``experiment.skip_missing_data``, the readings study) a set whose
    folder is absent is left out with one line on stderr instead of stopping the run."""
    from evalkit.core.validate import ParamError, show
    from evalkit.harness.registry import DATASETS
    from evalkit.readers.base import DatasetMissingError

    cfg = RunConfig.of(cfg)
    out = {}
    for label, settings in _entries(cfg.section("dataset")).items():
        registry = settings.pop("_name_", label)
        if registry not in DATASETS:  # a set from the user's own config folder, say
            readers = ", ".join(DATASETS.names())
            raise ConfigError(
                f"dataset.{label}._name_={registry}: no such reader; readers: {readers}"
                if registry != label
                else f"dataset.{label} names no reader: set dataset.{label}._name_ "
                f"to one of {readers}"
            )
        try:
            ds = DATASETS.create(registry, **settings)  # readers check their values here
        except ParamError as exc:  # dataset.chaos.limit=-1: ...
            raise ConfigError(exc.under(f"dataset.{label}")) from exc
        except ValueError as exc:  # a misspelt parameter (the registry names it)
            raise ConfigError(f"dataset {label!r}: {exc}") from exc
        ds.name = label  # pages carry the name shown in the tables
        runner = cfg.section("runner")
        for cap in ("max_page_bytes", "max_gold_bytes"):  # checked before a file is read
            if cap in runner:
                setattr(ds, cap, runner[cap])
        if ds.path is not None:
            try:
                ds.root()  # raises DatasetMissingError with the fetch hint
            except DatasetMissingError as exc:  # the key as typed, the value, the fetch hint
                if skip_missing:
                    print(
                        f"evalkit: dataset.{label}.path={show(ds.path)}: no such folder, "
                        f"left out; {ds.fetch_hint}",
                        file=sys.stderr,
                    )
                    continue
                raise DatasetMissingError(
                    f"dataset.{label}.path={show(ds.path)}: no such folder; {ds.fetch_hint}"
                ) from exc
        out[label] = ds
    return out


#: the deprecation lines printed so far (each once per process)
_WARNED: set[str] = set()


def warn_renamed(old: str, new: str) -> None:
    """Print, once per process, the one line saying that key ``old`` is now ``new``."""
    _warn_once(f"evalkit: {old} is deprecated: use {new}")


def _warn_once(line: str) -> None:
    """Print ``line`` on stderr, once per process."""
    if line not in _WARNED:
        _WARNED.add(line)
        print(line, file=sys.stderr)


def method_specs(node, kind: str = "method") -> list[MethodSpec]:
    """``cfg.method`` (name -> settings) to specs: each entry names its class by ``_name_``
    (a registry name) or ``_target_`` (a class path).

    An entry with neither is settings for a method that was not selected: every method's
    config file (configs/method/) sets ``_name_``, so such an entry comes from a study's
    settings for its methods (``method.trafilatura.markdown: true`` in configs/study/) or a
    ``method.<x>.<key>=`` typed for a method not in ``method=[...]``. It is not run, with one
    line naming it (before, its key was taken as the registry name and the method ran).

    A key a method has renamed (its class's ``renamed``: ``k`` -> ``dedup.k``) is moved
    to its new place, with one warning line naming both."""
    from evalkit.core.validate import renamed_keys
    from evalkit.harness.registry import DETECTORS, METHODS

    reg = METHODS if kind == "method" else DETECTORS
    specs = []
    for label, settings in _entries(node).items():
        if "_target_" in settings:  # Hydra's convention: a class from any importable module
            specs.append(_target_spec(label, settings, kind))
            continue
        if "_name_" not in settings:
            _warn_once(
                f"evalkit: {kind}.{label} is not among the selected {kind}s "
                f"({kind}=[...]): its settings are not used and it does not run"
            )
            continue
        registry = settings.pop("_name_")
        cls = reg.get(registry)  # unknown names fail now, listing the valid ones
        renamed = getattr(cls, "renamed", None)
        if renamed:
            settings, moved = renamed_keys(settings, renamed)
            for old, new in moved:
                warn_renamed(f"{kind}.{label}.{old}", f"{kind}.{label}.{new}")
        specs.append(MethodSpec(label=label, registry=registry, params=settings, kind=kind))
    return specs


def _target_spec(label: str, settings: dict[str, Any], kind: str) -> MethodSpec:
    """The spec of ``method.<label>._target_=module.Class`` (the other keys are the class's
    parameters); a target that cannot be imported here, or that names code a config may not
    turn into a method (the standard library, evalkit's dependencies: evalkit.harness.targets),
    is one line naming the key. Nothing is built."""
    target = settings.pop("_target_")
    where = f"{kind}.{label}._target_={target}"
    if "_name_" in settings:
        raise ConfigError(f"{where}: a {kind} has either _target_ or _name_, not both")
    special = sorted(k for k in settings if k.startswith("_"))
    if special:
        raise ConfigError(
            f"{kind}.{label}.{special[0]}: not supported (a _target_ {kind} "
            "takes the class's keyword parameters only)"
        )
    from evalkit.harness.targets import TargetRefused, resolve_target

    try:
        resolve_target(target, kind)  # refused by origin before its module is imported
        return MethodSpec.from_target(label, target, settings, kind=kind)
    except TargetRefused as exc:
        raise ConfigError(f"{kind}.{label}._target_: {exc}") from exc
    except ModuleNotFoundError as exc:
        raise ConfigError(
            f"{where}: cannot import {exc.name!r}; the module must be "
            "importable (installed, on PYTHONPATH, or in the folder evalkit "
            "runs in)"
        ) from exc
    except Exception as exc:  # an error inside the user's module: one line naming the key
        raise ConfigError(f"{where}: cannot import it: {type(exc).__name__}: {exc}") from exc


def check_specs(specs: list[MethodSpec], build_targets: bool = True) -> None:
    """Build every method once and check its parameters, so that a misspelt key or an
    invalid value stops the run before any page is read, naming the method.

    ``build_targets=False`` (the override check, evalkit.shell.overrides): a ``_target_``
    method is not built -- its code is the user's and runs only in the run -- and only its
    keys are checked against the constructor's signature."""
    from evalkit.core.validate import ParamError
    from evalkit.harness.specs import locate
    from evalkit.harness.targets import check_params

    for spec in specs:
        try:
            if spec.origin == "target" and not build_targets:
                check_params(locate(spec.registry), spec.kind, spec.label, spec.params)
                continue
            method = spec.build()
            method.validate()
        except ParamError as exc:  # names the key as typed: method.proposed.k=-1: ...
            raise ConfigError(exc.under(f"{spec.kind}.{spec.label}")) from exc
        except (TypeError, ValueError) as exc:
            # the registry says "method 'proposed' has no parameter ...": name the label once
            msg = str(exc)
            own = next(
                (
                    p
                    for p in (f"{spec.kind} {spec.registry!r} ", f"{spec.kind} {spec.label!r} ")
                    if msg.startswith(p)
                ),
                None,
            )
            text = (
                f"{spec.kind} {spec.label!r} {msg[len(own) :]}"
                if own
                else f"{spec.kind} {spec.label!r}: {msg}"
            )
            raise ConfigError(text) from exc
        if getattr(method, "needs_layout", False):  # fails at start, not on every page
            from evalkit.harness.render import browser_path, missing_browser_line

            if browser_path() is None:
                raise ConfigError(f"{spec.kind} {spec.label!r}: {missing_browser_line()}")
