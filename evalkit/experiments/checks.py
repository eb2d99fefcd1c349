"""Checks of the experiment sections of the config (``extraction.n_boot``, ``dedup.theta``, ...).

The experiments read their sections with ``int(...)``/``float(...)`` and defaults, so a
careless value would stop a run half-way with a traceback (``n_boot=abc``) or run
silently wrong (``alpha=1.5``, ``minhash_lsh="no"``). :func:`check_sections` checks every
key that is set, before a run folder is made, and names it as typed
(``extraction.n_boot=0: must be a whole number >= 1``). A key that is absent takes the
experiment's default and is not checked; keys listed nowhere here (a study's published
numbers, ``units.classifiers``) are the experiment's own to read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from omegaconf import DictConfig

from evalkit.core.validate import (
    ParamError,
    check_bool,
    check_choice,
    check_int,
    check_number,
    check_share,
    check_str_list,
)
from evalkit.harness.config import ConfigError, RunConfig
from evalkit.harness.scoring import FAMILIES

__all__ = ["SECTION_CHECKS", "check_sections"]

Check = Callable[[str, Any], Any]


def _at_least(low: int) -> Check:
    return lambda name, value: check_int(name, value, low=low)


def _choice(*choices: str) -> Check:
    return lambda name, value: check_choice(name, value, choices)


def _alpha(name: str, value: Any) -> Any:
    # 1 - confidence level: 0 and 1 make intervals that mean nothing
    return check_number(name, value, low=0, high=1, low_open=True, high_open=True)


def _name(name: str, value: Any) -> Any:
    if not isinstance(value, str) or not value:
        raise ParamError(name, value, "must be a method name")
    return value


def _list_of(item: Check) -> Check:
    """A non-empty list, each item passing ``item``."""

    def check(name: str, value: Any) -> Any:
        if not isinstance(value, (list, tuple)) or not value:
            raise ParamError(name, value, "must be a non-empty list, e.g. [1,2]")
        for v in value:
            try:
                item(name, v)
            except ParamError as exc:
                raise ParamError(name, value, f"every item {exc.allowed}") from None
        return value

    return check


def _positive(name: str, value: Any) -> Any:
    return check_number(name, value, low=0, low_open=True)


def _targets(name: str, value: Any) -> Any:
    if not isinstance(value, dict):
        raise ParamError(name, value, "must be a mapping of method -> ratio, e.g. {proposed: 3}")
    for method, ratio in value.items():
        _positive(f"{name}.{method}", ratio)
    return value


def _cut_points(name: str, value: Any) -> Any:
    # the two quantiles that cut each set's pages into low / medium / high complexity
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
        or not 0 < value[0] < value[1] < 1
    ):
        raise ParamError(name, value, "must be two quantiles 0 < q1 < q2 < 1, e.g. [0.25,0.75]")
    return value


_BOOT = {"n_boot": _at_least(1), "alpha": _alpha}

#: section -> key -> check (a nested dict is a sub-section)
SECTION_CHECKS: dict[str, dict[str, Any]] = {
    "extraction": {
        "reference": _name,
        "pages_correct_threshold": check_share,
        "shingle_n": _at_least(1),
        "unit_min_share": check_share,
        "compare_metrics": lambda n, v: check_str_list(n, v, allow_empty=True),
        "pairwise_max_methods": _at_least(2),
        "complexity_quantiles": _cut_points,
        # [] is allowed: shingle alone, always scored (evalkit.harness.scoring.check_metrics)
        "metrics": lambda n, v: check_str_list(n, v, choices=FAMILIES, allow_empty=True),
        "rouge_n": _at_least(1),
        **_BOOT,
    },
    "dedup": {
        "scopes": lambda n, v: check_str_list(n, v, choices=("page", "site")),
        "truth": _choice("auto", "gold", "shingles"),
        "theta": check_share,
        "shingle": _at_least(1),
        "minhash_lsh": check_bool,
        **_BOOT,
    },
    "classification": {
        "test_fractions": _list_of(
            lambda n, v: check_number(n, v, low=0, high=1, low_open=True, high_open=True)
        ),
        "repeats": _at_least(1),
        **_BOOT,
    },
    "units": {
        "folds": _at_least(2),
        "seed": check_int,
        "min_samples_leaf": _at_least(1),
        "criterion": _choice("gini", "entropy", "log_loss"),
        "train_weight": _choice("words", "none"),
        "line_width": _at_least(1),
        "drop_inside": lambda n, v: check_str_list(n, v, allow_empty=True),
        **_BOOT,
    },
    "speed": {
        "clock": _choice("cpu", "wall"),
        "warmup": check_bool,
        "python_walk": check_bool,
        "targets": _targets,
        **_BOOT,
        "diff": {
            "enabled": check_bool,
            "words": _at_least(1),
            "repeat": _at_least(1),
            "seed": check_int,
        },
        "micro": {
            "enabled": check_bool,
            "lengths": _list_of(_at_least(1)),
            "repeat": _at_least(1),
            "vocabulary": _at_least(1),
            "exponent": _positive,
            "seed": check_int,
        },
    },
    "study": {
        "page_counts": _list_of(_at_least(1)),
        "correct_f1": check_share,
        "unit_min_share": check_share,
        **_BOOT,
    },
    "readings": {
        "pages_correct_threshold": check_share,
        "shingle_n": _at_least(1),
        "stage_switches": check_bool,
        "max_pages": lambda n, v: None if v is None else check_int(n, v, low=1),
        "switch_pages": lambda n, v: None if v is None else check_int(n, v, low=1),
    },
    "audit": {
        "coverage_min": check_share,
        "shingle_n": _at_least(1),
        "truncated_fraction": _positive,
        "truncated_min_words": _at_least(0),
        "simhash_shingle": _at_least(1),
        "simhash_k": lambda n, v: check_int(n, v, low=0, high=63),
        "duplicate_min_words": _at_least(1),
        "examples": _at_least(0),
    },
    "kabir_blocks": {
        "method": _name,
        "methods": _list_of(_name),
        "first_pages": _at_least(1),
        **_BOOT,
    },
    "report": {
        "html": check_bool,
        "keep_extractions": check_bool,
        "max_pages": lambda n, v: None if v is None else check_int(n, v, low=1),
        "method_order": _choice("score", "config"),
        "parquet_rows": lambda n, v: None if v is None else check_int(n, v, low=0),
    },
    "structure": {
        "match_threshold": lambda n, v: check_number(n, v, low=0, high=1, low_open=True),
        **_BOOT,
    },
    "kaur2017": {
        "pages": _at_least(1),
        "shingle_n": _at_least(1),
        "unit_min_share": check_share,
        **_BOOT,
        "held_out_pages": lambda n, v: None if v is None else check_int(n, v, low=1),
    },
}


def _check(prefix: str, settings: Any, checks: dict[str, Any]) -> None:
    if not isinstance(settings, dict):
        raise ConfigError(f"{prefix}={settings!r}: must be a section of settings")
    for key, check in checks.items():
        if key not in settings:
            continue
        if isinstance(check, dict):
            _check(f"{prefix}.{key}", settings[key], check)
            continue
        try:
            check(key, settings[key])
        except ParamError as exc:
            raise ConfigError(exc.under(prefix)) from None


def check_sections(cfg: DictConfig | RunConfig) -> None:
    """Check ``seed`` and every experiment section ``cfg`` holds; raises :class:`ConfigError`
    with one line naming the key (``extraction.alpha=1.5: must be a number > 0 and < 1``)."""
    cfg = RunConfig.of(cfg)
    if "seed" in cfg:
        try:
            check_int("seed", cfg.data["seed"], low=0)
        except ParamError as exc:
            raise ConfigError(str(exc)) from None
    for section, checks in SECTION_CHECKS.items():
        if section in cfg and cfg.get(section) is not None:
            _check(section, cfg.get(section), checks)
