"""From a composed Hydra config to objects: project root, datasets and method specs.

Kept apart from the Hydra shell (cli.py) so that tests and scripts can compose a
config with ``hydra.compose`` and call the same functions.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from evalkit.runner import MethodSpec

__all__ = [
    "CONFIG_DIR",
    "ConfigError",
    "build_datasets",
    "check_specs",
    "method_specs",
    "plain",
    "project_root",
    "register_resolvers",
    "warn_renamed",
]


class ConfigError(ValueError):
    """A configuration mistake found before any work starts (one line for the user)."""

_PACKAGE_DIR = Path(__file__).resolve().parent


def project_root() -> str:
    """The folder holding evalkit's pyproject.toml (EVALKIT_ROOT overrides).

    Found from the installed package, never from the working directory, so
    ``evalkit`` behaves the same wherever it is started.
    """
    env = os.environ.get("EVALKIT_ROOT")
    if env:
        return str(Path(env).expanduser().resolve())
    for parent in (_PACKAGE_DIR.parent, *_PACKAGE_DIR.parents):
        if (parent / "pyproject.toml").is_file() and (parent / "configs").is_dir():
            return str(parent)
    return str(_PACKAGE_DIR.parent)


#: the Hydra config folder; here, not in the shell, so that the harness (evalkit.reference)
#: can compose a config without importing cli.py (docs/floors.md)
CONFIG_DIR = Path(project_root()) / "configs"


def register_resolvers(make_folders: bool = True) -> None:
    """Register evalkit's resolvers: ``evalkit_root`` and ``evalkit_unique`` (a run
    folder's unique name, evalkit.rundir; made on disk unless ``make_folders`` is false)."""
    from evalkit.rundir import propose, reserve

    if not OmegaConf.has_resolver("evalkit_root"):
        OmegaConf.register_new_resolver("evalkit_root", project_root)
    if not OmegaConf.has_resolver("evalkit_unique"):
        # cached: a config reserves one folder however often its run dir is read
        OmegaConf.register_new_resolver("evalkit_unique", reserve if make_folders else propose,
                                        use_cache=True)


def plain(node: Any) -> Any:
    """A resolved plain-Python copy of a config node."""
    if isinstance(node, DictConfig) or OmegaConf.is_config(node):
        return OmegaConf.to_container(node, resolve=True)
    return node


def _entries(node) -> dict[str, dict[str, Any]]:
    entries = plain(node) or {}
    if not isinstance(entries, dict):
        raise ValueError(f"expected a mapping of name -> settings, got {entries!r}")  # noqa: TRY004 - callers catch ValueError
    return {str(k): dict(v or {}) for k, v in entries.items()}


def build_datasets(cfg: DictConfig, skip_missing: bool = False) -> dict[str, Any]:
    """``cfg.dataset`` (name -> settings) to reader objects, checking that data folders exist.

    With ``skip_missing`` (``experiment.skip_missing_data``, the readings study) a set whose
    folder is absent is left out with one line on stderr instead of stopping the run."""
    from evalkit.data.base import DatasetMissingError
    from evalkit.registry import DATASETS
    from evalkit.validate import ParamError, show

    out = {}
    for label, settings in _entries(cfg.get("dataset") or {}).items():
        registry = settings.pop("_name_", label)
        try:
            ds = DATASETS.create(registry, **settings)  # readers check their values here
        except ParamError as exc:  # dataset.chaos.limit=-1: ...
            raise ConfigError(exc.under(f"dataset.{label}")) from exc
        except ValueError as exc:  # a misspelt parameter (the registry names it)
            raise ConfigError(f"dataset {label!r}: {exc}") from exc
        ds.name = label  # pages carry the name shown in the tables
        if ds.path is not None:
            try:
                ds.root()  # raises DatasetMissingError with the fetch hint
            except DatasetMissingError as exc:  # the key as typed, the value, the fetch hint
                if skip_missing:
                    print(f"evalkit: dataset.{label}.path={show(ds.path)}: no such folder, "
                          f"left out; {ds.fetch_hint}", file=sys.stderr)
                    continue
                raise DatasetMissingError(f"dataset.{label}.path={show(ds.path)}: no such "
                                          f"folder; {ds.fetch_hint}") from exc
        out[label] = ds
    return out


#: the deprecation lines printed so far (each once per process)
_WARNED: set[str] = set()


def warn_renamed(old: str, new: str) -> None:
    """Print, once per process, the one line saying that key ``old`` is now ``new``."""
    line = f"evalkit: {old} is deprecated: use {new}"
    if line not in _WARNED:
        _WARNED.add(line)
        print(line, file=sys.stderr)


def method_specs(node, kind: str = "method") -> list[MethodSpec]:
    """``cfg.method`` (name -> settings) to specs; the registry name defaults to the key.

    A key a method has renamed (its class's ``renamed``: ``k`` -> ``dedup.k``) is moved
    to its new place, with one warning line naming both."""
    from evalkit.registry import DETECTORS, METHODS
    from evalkit.validate import renamed_keys

    reg = METHODS if kind == "method" else DETECTORS
    specs = []
    for label, settings in _entries(node).items():
        if "_target_" in settings:  # Hydra's convention: a class from any importable module
            specs.append(_target_spec(label, settings, kind))
            continue
        registry = settings.pop("_name_", label)
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
    parameters); a target that cannot be imported here is one line naming the key."""
    target = settings.pop("_target_")
    where = f"{kind}.{label}._target_={target}"
    if "_name_" in settings:
        raise ConfigError(f"{where}: a {kind} has either _target_ or _name_, not both")
    special = sorted(k for k in settings if k.startswith("_"))
    if special:
        raise ConfigError(f"{kind}.{label}.{special[0]}: not supported (a _target_ {kind} "
                          "takes the class's keyword parameters only)")
    try:
        return MethodSpec.from_target(label, target, settings, kind=kind)
    except ModuleNotFoundError as exc:
        raise ConfigError(f"{where}: cannot import {exc.name!r}; the module must be "
                          "importable (installed, on PYTHONPATH, or in the folder evalkit "
                          "runs in)") from exc
    except Exception as exc:  # an error inside the user's module: one line naming the key
        raise ConfigError(f"{where}: cannot import it: {type(exc).__name__}: {exc}") from exc


def check_specs(specs: list[MethodSpec]) -> None:
    """Build every method once and check its parameters, so that a misspelt key or an
    invalid value stops the run before any page is read, naming the method."""
    from evalkit.validate import ParamError

    for spec in specs:
        try:
            spec.build().validate()
        except ParamError as exc:  # names the key as typed: method.proposed.k=-1: ...
            raise ConfigError(exc.under(f"{spec.kind}.{spec.label}")) from exc
        except (TypeError, ValueError) as exc:
            # the registry says "method 'proposed' has no parameter ...": name the label once
            msg = str(exc)
            own = next((p for p in (f"{spec.kind} {spec.registry!r} ",
                                    f"{spec.kind} {spec.label!r} ") if msg.startswith(p)), None)
            text = (f"{spec.kind} {spec.label!r} {msg[len(own):]}" if own
                    else f"{spec.kind} {spec.label!r}: {msg}")
            raise ConfigError(text) from exc
