"""Check command-line overrides before any work: one line naming a bad key and its neighbours.

Hydra reports an override of a key that does not exist with several lines and a
tip (``To append to your config use +runner.n_job=2``) that would make the typo
stick. :func:`check_overrides` reads the overrides with Hydra's own parser
(quoting, lists, ``+``/``++``/``~``, sweeps), checks every group option, then
composes the config once (each sweep at its first value) and, when Hydra
refuses, finds the override at fault and names the closest valid keys with
:mod:`difflib`. It also builds every method and detector, so a misspelt method
parameter added with ``+`` is refused before Hydra makes a run folder; so is a
bad value of any method, detector, reader, runner or experiment key (one line
naming the key as typed, docs/inputs.md "Bad values"). No page is read and
nothing is written: the cost is one composition (about 0.3 s), and only when
the command line carries overrides.

The user's own configs count everywhere, as in the run: options and keys from
``--config-dir DIR`` (ahead of evalkit's), ``--config-path`` and ``hydra.searchpath=[...]``
(:func:`evalkit.harness.config.hydra_configs`), so ``dataset=mine`` defined only in DIR passes.

:func:`upgrade_overrides` runs first: an override of a method key that its class has
renamed (``method.proposed.k=4``; the class's ``renamed``) is moved to the new key
(``method.proposed.dedup.k=4``), which the command then uses and prints one warning
line about.
"""

from __future__ import annotations

import difflib
import os
import re

from hydra import compose
from hydra.core.global_hydra import GlobalHydra
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.override_parser.types import Override, OverrideType, ValueType
from hydra.errors import HydraException
from omegaconf import DictConfig, ListConfig, OmegaConf
from omegaconf.errors import (
    InterpolationKeyError,
    InterpolationResolutionError,
    OmegaConfBaseException,
)

__all__ = ["check_overrides", "closest", "target_overrides", "upgrade_overrides"]

_PROG = "evalkit"


def closest(word: str, names, n: int = 3) -> list[str]:
    """The valid ``names`` nearest to ``word`` (difflib's ratio of at least 0.6), best first."""
    return difflib.get_close_matches(word, [str(x) for x in names], n=n, cutoff=0.6)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _listing(names) -> str:
    return ", ".join(sorted(str(x) for x in names)) or "(none)"


def _choices(override: Override, options: list[str]) -> list[str]:
    """The option names a group override selects (every value of a sweep, every list item)."""
    if override.value_type == ValueType.GLOB_CHOICE_SWEEP:
        return []  # a glob selects among the valid options by construction
    values = (
        list(override.sweep_string_iterator())
        if override.is_sweep_override()
        else [override.value()]
    )
    out = []
    for value in values:
        if isinstance(value, str) and value.startswith("[") and value.endswith("]"):
            value = [v.strip() for v in value[1:-1].split(",") if v.strip()]
        out += [
            str(v)
            for v in (value if isinstance(value, list) else [value])
            if v is not None and str(v) != "null"
        ]
    return out


def _collapsed(override: Override, options: list[str]) -> str:
    """The override as one composition takes it: a sweep at its first value."""
    if not override.is_sweep_override():
        return override.input_line
    if override.value_type == ValueType.GLOB_CHOICE_SWEEP:
        first = (override.value().filter(options) or ["null"])[0]
    elif override.value_type in (ValueType.SIMPLE_CHOICE_SWEEP, ValueType.CHOICE_SWEEP):
        first = next(iter(override.sweep_string_iterator()))
    else:  # range() and interval(): whether the key exists does not depend on the value
        first = "0"
    return f"{override.get_key_element()}={first}"


def _missing(cfg: DictConfig, key: str) -> tuple[str, str, list[str]] | None:
    """Where ``key`` leaves ``cfg``: (the part that exists, the first missing name, the
    names valid there), or None when the whole key exists. Nothing is resolved."""
    node, parts = cfg, key.split(".")
    for i, part in enumerate(parts):
        here = ".".join(parts[:i])
        if isinstance(node, DictConfig):
            names = [str(k) for k in node]
            if part not in names:
                return here, part, names
            node = node._get_node(part)
        elif isinstance(node, ListConfig):
            if not (part.isdigit() and int(part) < len(node)):
                return here, part, [str(j) for j in range(len(node))]
            node = node._get_node(int(part))
        else:
            return here, part, []  # a value, not a section
    return None


def _unknown_key(cfg: DictConfig, override: Override, groups: dict[str, list[str]]) -> str | None:
    """The one-line message for a key override whose key ``cfg`` lacks, else None."""
    key = override.key_or_group
    where = _missing(cfg, key)
    if override.type in (OverrideType.ADD, OverrideType.FORCE_ADD):
        if override.type == OverrideType.ADD and where is None:
            return (
                f"{_PROG}: +{key} adds a key that exists already; "
                f"set it with {key}=... (or ++{key}=... to add or set)"
            )
        return None  # additions are legitimate
    if where is None:
        return None
    here, part, names = where
    full = f"{here}.{part}" if here else part
    if not names:
        return f"{_PROG}: unknown key {key}: {here} is a value, not a section"
    near = [f"{here}.{n}" if here else n for n in closest(part, names)]
    if not near:  # method.proposed.kk: the key may sit one group down (method.proposed.dedup.k)
        near = _closest_below(cfg, here, part)
    msg = f"{_PROG}: unknown key {key}"
    if full != key:
        msg += f" ({here or 'the config'} has no {part!r})"
    msg += f"; closest: {', '.join(near)}" if near else f"; valid: {_listing(names)}"
    if part in groups.get(here, ()):  # dataset.aeb.limit without dataset=aeb
        msg += f"; {part} is not selected ({here}={part} or '{here}=[...,{part}]' selects it)"
    return msg


def _node(cfg: DictConfig, path: str):
    """The node at the dotted ``path`` of ``cfg`` (the root for ""), unresolved."""
    node = cfg
    for part in path.split(".") if path else ():
        node = node._get_node(part)
    return node


def _closest_below(cfg: DictConfig, here: str, part: str) -> list[str]:
    """The keys of the sections right below ``here`` nearest to ``part``, as full keys."""
    node = _node(cfg, here)
    below: dict[str, list[str]] = {}
    for name in node:
        child = node._get_node(name)
        if isinstance(child, DictConfig):
            for leaf in child:
                full = f"{here}.{name}.{leaf}" if here else f"{name}.{leaf}"
                below.setdefault(str(leaf), []).append(full)
    return [full for leaf in closest(part, below) for full in below[leaf]]


def _renamed(key: str, renamed: dict[str, str], node: DictConfig, override: Override) -> str | None:
    """The new key of a method's setting ``key`` (relative to the method) when it is one of
    the method's renamed keys as the config now stands, else None."""
    head = key.split(".")[0]
    new = renamed.get(head)
    if new is None or override.type == OverrideType.DEL:
        return None
    if new.startswith(head + "."):  # a flag that became a group: primary=false
        value = None if override.is_sweep_override() else override.value()
        group = node._get_node(head) if head in node else None
        return (
            new
            if key == head and isinstance(group, DictConfig) and not isinstance(value, dict)
            else None
        )
    # moved to a group; kept as it is where the method's config still has the old key
    return new + key[len(head) :] if _missing(node, key) is not None else None


def target_overrides(argv: list[str]) -> list[str]:
    """``argv`` with every override of a method or detector that the command line itself
    gives a ``_target_`` or a ``_name_`` (``method.mine._target_=my_module.MyExtractor
    method.mine.k=3``, ``method.traf._name_=stored method.traf.path=out/traf.json``)
    made ``++`` (add or set): no config defines ``mine``, so Hydra would refuse its keys as
    unknown, and the user should not need Hydra's ``+`` for the convention Hydra names."""
    from hydra._internal.utils import get_args_parser

    args = get_args_parser().parse_args(argv)
    if not args.overrides:
        return argv
    try:
        parsed = OverridesParser.create().parse_overrides(args.overrides)
    except HydraException:
        return argv  # check_overrides says what is wrong

    def owner(o: Override) -> tuple[str, ...] | None:
        parts = o.key_or_group.split(".")
        if (
            o.package is None
            and o.type == OverrideType.CHANGE
            and len(parts) >= 3
            and parts[0] in ("method", "detector")
        ):
            return tuple(parts[:2])
        return None

    # _name_ as _target_: method.traf._name_=stored method.traf.path=... adds a method too
    new = {
        owner(o)
        for o in parsed
        if owner(o) and o.key_or_group.split(".")[2] in ("_target_", "_name_")
    }
    out = list(argv)
    for o in parsed:
        if owner(o) in new and o.input_line in out:
            out[out.index(o.input_line)] = "++" + o.input_line
    return out


def upgrade_overrides(
    argv: list[str], config_name: str = "config"
) -> tuple[list[str], list[tuple[str, str]]]:
    """``argv`` with each override of a renamed method or detector key set at its new key,
    and the ``(old, new)`` keys so moved. Composes the config (the group choices only) once,
    and only when an override reaches into a method's or detector's settings. The user's
    configs count (``--config-dir``, ``--config-path``, ``hydra.searchpath``)."""
    from hydra._internal.utils import get_args_parser

    from evalkit.harness.config import ConfigError, hydra_configs
    from evalkit.harness.registry import DETECTORS, METHODS

    argv = target_overrides(argv)
    args = get_args_parser().parse_args(argv)
    if not args.overrides:
        return argv, []
    config_name = args.config_name or config_name
    try:
        parsed = OverridesParser.create().parse_overrides(args.overrides)
    except HydraException:
        return argv, []  # check_overrides says what is wrong
    keyed = [
        o
        for o in parsed
        if o.package is None
        and o.key_or_group.count(".") >= 2
        and o.key_or_group.split(".")[0] in ("method", "detector")
    ]
    if not keyed:
        return argv, []
    where = _searchpath(parsed)
    try:
        with hydra_configs(args.config_dir, args.config_path, _PROG):
            loader = GlobalHydra.instance().config_loader()
            options = {
                o.key_or_group: names
                for o in parsed
                if (names := _options(loader, o.key_or_group, config_name, where))
            }
            chosen = [
                _collapsed(o, options[o.key_or_group]) for o in parsed if o.key_or_group in options
            ]
            base = compose(config_name=config_name, overrides=where + chosen)
    except (ConfigError, HydraException, OmegaConfBaseException):
        return argv, []  # check_overrides says what is wrong
    out, moved = list(argv), []
    for o in keyed:
        section, label, key = o.key_or_group.split(".", 2)
        node = base.get(section, {}).get(label) if section in base else None
        reg = METHODS if section == "method" else DETECTORS
        if not isinstance(node, DictConfig) or node.get("_name_", label) not in reg:
            continue
        renamed = getattr(reg.get(node.get("_name_", label)), "renamed", None) or {}
        new = _renamed(key, renamed, node, o)
        if new is None or o.input_line not in out:
            continue
        new_key = f"{section}.{label}.{new}"
        line = o.input_line
        at = line.index(o.key_or_group)
        out[out.index(line)] = line[:at] + new_key + line[at + len(o.key_or_group) :]
        moved.append((o.key_or_group, new_key))
    return out, moved


def _searchpath(parsed: list[Override]) -> list[str]:
    """The ``hydra.searchpath=[...]`` overrides, as typed (Hydra reads the first one)."""
    return [o.input_line for o in parsed if o.get_key_element() == "hydra.searchpath"][:1]


def _options(loader, group: str, config_name: str, searchpath: list[str]) -> list[str]:
    """The options of config group ``group`` on the search path a run uses: with a
    ``hydra.searchpath`` override the folders it adds count (Hydra reads them from the
    primary config and the overrides, so they are passed along)."""
    if not searchpath:
        return loader.get_group_options(group)
    return loader.get_group_options(group, config_name=config_name, overrides=searchpath)


def check_overrides(
    argv: list[str], config_name: str = "config", build_methods: bool = True
) -> str | None:
    """One line for the first override naming no key or option (or a bad method parameter),
    else None. ``argv`` is the command line after the program name, flags included. The
    user's configs count as in a run: ``--config-dir``, ``--config-path`` and
    ``hydra.searchpath`` add options to every name checked here."""
    from hydra._internal.utils import get_args_parser  # Hydra's own reading of the flags

    from evalkit.harness.config import ConfigError, hydra_configs

    args = get_args_parser().parse_args(argv)
    if args.config_dir is not None and not os.path.isdir(args.config_dir):
        return f"{_PROG}: --config-dir {args.config_dir}: no such folder"
    from evalkit.harness.rundir import prints_only

    shows = prints_only(argv) or args.help or args.hydra_help or args.info or args.shell_completion
    if shows and not (args.overrides or args.config_dir or args.config_path or args.config_name):
        return None  # nothing to check and nothing will be written
    config_name = args.config_name or config_name
    try:
        parsed = OverridesParser.create().parse_overrides(args.overrides or [])
    except HydraException as exc:
        return f"{_PROG}: cannot read the override: {_one_line(exc)}"
    try:
        with hydra_configs(args.config_dir, args.config_path, _PROG):
            return _check(parsed, config_name, build_methods, probe=not shows)
    except ConfigError as exc:  # --config-dir names no folder
        return f"{_PROG}: {exc}"


def _check(
    parsed: list[Override], config_name: str, build_methods: bool, probe: bool = True
) -> str | None:
    """:func:`check_overrides` inside the initialised Hydra; ``probe``: also check that the
    results and cache folders can be written (:func:`_folders`)."""
    loader = GlobalHydra.instance().config_loader()
    where = _searchpath(parsed)
    options: dict[str, list[str]] = {}
    for o in parsed:
        names = _options(loader, o.key_or_group, config_name, where)
        if names:
            options[o.key_or_group] = names
    for o in parsed:
        if o.key_or_group not in options or o.type == OverrideType.DEL:
            continue
        valid = options[o.key_or_group]
        unknown = [c for c in _choices(o, valid) if c not in valid]
        if unknown:
            near = closest(unknown[0], valid)
            hint = f"closest: {', '.join(near)}; " if near else ""
            return (
                f"{_PROG}: unknown {o.key_or_group} {', '.join(unknown)}; "
                f"{hint}valid choices: {', '.join(sorted(valid))}"
            )
    collapsed = [_collapsed(o, options.get(o.key_or_group, [])) for o in parsed]
    try:
        cfg = compose(config_name=config_name, overrides=collapsed, return_hydra_config=True)
    except (HydraException, OmegaConfBaseException) as exc:
        return _explain(exc, parsed, collapsed, options, config_name, where)
    loop = _unresolvable(cfg)
    if loop:
        return loop
    if probe:
        msg = _folders(cfg)
        if msg:
            return msg
    if build_methods:
        return _check_objects(cfg)
    return None


def _explain(
    exc: Exception,
    parsed: list[Override],
    collapsed: list[str],
    options: dict[str, list[str]],
    config_name: str,
    searchpath: list[str],
) -> str:
    """Name the override Hydra refused, from the config the group choices alone give."""
    for o in parsed:
        if o.package is not None and o.key_or_group not in options:
            return (
                f"{_PROG}: cannot set {o.get_key_element()}: Hydra reads the '@' in a key "
                f"as a package of a config group, and there is no group {o.key_or_group}"
            )
    chosen = [c for o, c in zip(parsed, collapsed) if o.key_or_group in options]
    try:
        base = compose(
            config_name=config_name, overrides=searchpath + chosen, return_hydra_config=True
        )
    except (HydraException, OmegaConfBaseException):
        base = None
    if base is not None:
        loader = GlobalHydra.instance().config_loader()
        groups = {g: _options(loader, g, config_name, searchpath) for g in _groups(base)}
        for o in parsed:
            if o.key_or_group not in options and o.package is None:
                msg = _unknown_key(base, o, groups)
                if msg:
                    return msg
    # not a key we can place: Hydra's own words, on one line, without its append tip
    lines = [ln for ln in str(exc).splitlines() if not ln.startswith("To append")]
    return f"{_PROG}: {_one_line(' '.join(lines))}"


def _unresolvable(cfg: DictConfig) -> str | None:
    """One line naming the key whose value cannot be resolved (an interpolation loop such as
    ``paths.cache=${paths.results}/c paths.results=${paths.cache}``, or a reference to no
    key), else None; Hydra would stop with a traceback after making the run folder. The
    ``hydra`` section is left out: resolving its run folder would reserve one
    (evalkit.harness.rundir); the keys it reads (``paths.results``) are checked here."""
    body = OmegaConf.masked_copy(cfg, [str(k) for k in cfg if str(k) != "hydra"])
    try:
        OmegaConf.to_container(body, resolve=True)
    except InterpolationKeyError as exc:  # ${paths.resuls}: a reference to no key
        what = str(exc).splitlines()[0]
        if "'hydra." in what:
            return None  # the hydra section is left out here; the run has it
        return f"{_PROG}: {getattr(exc, 'full_key', None) or '?'}: {_one_line(what)}"
    except InterpolationResolutionError as exc:
        key = getattr(exc, "full_key", None) or "?"
        if not str(exc).startswith("Recursive interpolation"):
            return None  # a resolver that needs the run (${hydra:...}): the run's to say
        loop = _loop(body, key)
        if loop:
            return (
                f"{_PROG}: {loop[0]}: interpolation loop "
                f"{' -> '.join(loop)} (a value that refers back to itself)"
            )
        return f"{_PROG}: {key}: its value refers back to itself (an interpolation loop)"
    return None


_REF = re.compile(r"\$\{(\.*[A-Za-z_][\w.\-]*)\}")


def _absolute(ref: str, key: str) -> str:
    """``ref`` of a value at ``key`` as a key from the root (``${.results}`` at
    ``paths.cache`` is ``paths.results``: one dot is the key's own section)."""
    dots = len(ref) - len(ref.lstrip("."))
    if not dots:
        return ref
    parts = key.split(".")[:-dots]
    return ".".join([*parts, ref[dots:]])


def _loop(cfg: DictConfig, start: str) -> list[str]:
    """The keys of an interpolation loop reached from key ``start``, first key again at the
    end (``seed -> extraction.n_boot -> seed``), following plain ``${key}`` references of
    the unresolved values; [] when none is found."""
    flat: dict[str, str] = {}

    def walk(node, prefix: str) -> None:
        for k, v in node.items():
            key = f"{prefix}{k}"
            if isinstance(v, dict):
                walk(v, key + ".")
            elif isinstance(v, str):
                flat[key] = v

    walk(OmegaConf.to_container(cfg, resolve=False), "")
    path: list[str] = []
    key = start
    while key in flat and key not in path:
        path.append(key)
        refs = [_absolute(r, key) for r in _REF.findall(flat[key])]
        if not refs:
            return []
        key = next((r for r in refs if r in flat), refs[0])
    if key not in path:
        return []
    return path[path.index(key) :] + [key]


def _folders(cfg: DictConfig) -> str | None:
    """One line when the results folder, or the cache folder of a run that uses the cache,
    cannot be written (read-only, full, a file in the way; evalkit.harness.rundir.unwritable),
    else None. A cache that cannot be written stops the run too, rather than running without
    it: a run the user asked to cache and resume would silently do neither."""
    from evalkit.harness.rundir import unwritable
    from evalkit.report.filenames import file_stem

    name = str((cfg.get("experiment") or {}).get("name", ""))
    if name and file_stem(name) != name:  # the run folder is results/runs/<name>/...
        return (
            f"{_PROG}: experiment.name={name}: not a plain name (letters, digits, _ - and ., "
            "not starting with . or -): it names the run's folder"
        )
    paths = cfg.get("paths") or {}
    results, cache = paths.get("results"), paths.get("cache")
    if results:
        msg = unwritable(results, "paths.results", "set paths.results to a folder you can write")
        if msg:
            return f"{_PROG}: {msg}"
    runner = cfg.get("runner") or {}
    if cache and runner.get("cache", True):
        msg = unwritable(
            cache,
            "paths.cache",
            "set paths.cache to a folder you can write, or runner.cache=false to run without it",
        )
        if msg:
            return f"{_PROG}: {msg}"
    return None


def _groups(cfg: DictConfig) -> set[str]:
    """Top-level config groups chosen by the defaults list (dataset, method, ...)."""
    try:
        return {
            str(k)
            for k in OmegaConf.select(cfg, "hydra.runtime.choices")
            if "/" not in str(k) and not str(k).startswith("hydra")
        }
    except Exception:  # noqa: BLE001 - a hint only; never block a run over it
        return set()


def _check_objects(cfg: DictConfig) -> str | None:
    """Check the experiment sections and build every method, detector, the runner and every
    reader once (no page is read): an unknown parameter or a bad value is one line too,
    before Hydra makes a run folder."""
    from evalkit.experiments import runner_from_config
    from evalkit.experiments.checks import check_sections
    from evalkit.harness.config import (
        ConfigError,
        RunConfig,
        build_datasets,
        check_specs,
        method_specs,
    )
    from evalkit.harness.errors import RunnerError
    from evalkit.harness.preflight import check_readers, preflight_specs
    from evalkit.harness.registry import UnknownNameError
    from evalkit.readers.base import DatasetMissingError

    try:
        cfg = RunConfig.of(cfg)  # resolved once, as the run resolves it
        check_sections(cfg)
        # every method built and its imports checked (evalkit.harness.preflight), rows split
        specs = preflight_specs(method_specs(cfg.section("method")), cfg.section("runner"))
        specs += method_specs(cfg.section("detector"), kind="detector")
        check_specs(specs, build_targets=False)  # a _target_'s code runs only in the run
        runner_from_config(cfg)  # a Dask client is not started here: only its settings
        check_readers(build_datasets(cfg))  # a reader's optional package, as a method's
    except (ConfigError, UnknownNameError, RunnerError, DatasetMissingError) as exc:
        return f"{_PROG}: {_one_line(exc)}"
    except Exception:  # noqa: BLE001 - anything else is the run's to report, as before
        return None
    return None
