"""Parameter checks shared by every method, reader, runner and experiment section.

Each ``check_*`` takes the parameter's name as its owner knows it (``k``,
``limit``) and its value, and returns the value unchanged or raises
:class:`ParamError`. The owner's builder (evalkit.harness.config, evalkit.harness.runner) puts
the config path in front, so the user reads one line naming the key as typed,
the value and what is allowed::

    method.proposed.k=-1: must be a whole number >= 0

Strict on purpose: a bool is not a number, a string is not a bool or a list
(``primary=no`` or ``block_tags=div`` would otherwise run, silently wrong).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from numbers import Real
from typing import Any

__all__ = [
    "WORKERS_PER_CPU",
    "ParamError",
    "check_bool",
    "check_choice",
    "check_int",
    "check_number",
    "check_path",
    "check_share",
    "check_str_list",
    "check_workers",
    "max_workers",
    "renamed_keys",
    "show",
]


def show(value: Any) -> str:
    """A value as the user would type it on the command line."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value if value.strip() and value == value.strip() else repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(show(v) for v in value) + "]"
    return repr(value)


class ParamError(ValueError):
    """A parameter value that is not allowed: its name(s), value(s) and what is allowed.

    ``names`` are relative to the owner (``k``); :meth:`under` puts a config path in
    front (``method.proposed``) for the one line the user sees.
    """

    def __init__(self, names: str | Sequence[str], values: Any, allowed: str):
        self.names = (names,) if isinstance(names, str) else tuple(names)
        self.values = (values,) if isinstance(names, str) else tuple(values)
        self.allowed = allowed
        super().__init__(self.under(""))

    def under(self, prefix: str) -> str:
        """The message with every name as ``<prefix>.<name>``."""
        head = ", ".join(
            f"{prefix}.{n}={show(v)}" if prefix else f"{n}={show(v)}"
            for n, v in zip(self.names, self.values)
        )
        return f"{head}: {self.allowed}"


def _is_real(value: Any) -> bool:
    # the plain types first: an ABC isinstance is slow, and methods check on every page
    if type(value) in (int, float):
        return True
    return isinstance(value, Real) and not isinstance(value, bool)


def _bounds(low, high, low_open=False, high_open=False) -> str:
    parts = []
    if low is not None:
        parts.append(f"{'>' if low_open else '>='} {low}")
    if high is not None:
        parts.append(f"{'<' if high_open else '<='} {high}")
    return " and ".join(parts)


def check_int(
    name: str, value: Any, low: int | None = None, high: int | None = None, allow_none: bool = False
) -> Any:
    """A whole number (not a bool, a float or a string) within [low, high]."""
    if value is None and allow_none:
        return value
    ok = isinstance(value, int) and not isinstance(value, bool)
    if ok and low is not None and value < low:
        ok = False
    if ok and high is not None and value > high:
        ok = False
    if not ok:
        want = "must be a whole number" + (
            f" {_bounds(low, high)}" if low is not None or high is not None else ""
        )
        raise ParamError(name, value, want + (" or null" if allow_none else ""))
    return value


def check_number(
    name: str,
    value: Any,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> Any:
    """A finite real number (not a bool or a string) within the bounds."""
    ok = _is_real(value) and math.isfinite(value)
    if ok and low is not None:
        ok = value > low if low_open else value >= low
    if ok and high is not None:
        ok = value < high if high_open else value <= high
    if not ok:
        bounds = _bounds(low, high, low_open, high_open)
        raise ParamError(name, value, "must be a number" + (f" {bounds}" if bounds else ""))
    return value


#: worker processes (or threads) a run may start, per CPU of the machine: past a few per CPU
#: they only compete for it, and ``runner.n_jobs=100000`` would start that many Pythons
WORKERS_PER_CPU = 4


def max_workers() -> int:
    """The most workers a runner setting may ask for: :data:`WORKERS_PER_CPU` times the CPUs
    (``os.cpu_count()``, at least 1)."""
    return WORKERS_PER_CPU * (os.cpu_count() or 1)


def check_workers(name: str, value: Any) -> Any:
    """A count of workers: a whole number from 1 to :func:`max_workers`."""
    high = max_workers()
    if isinstance(value, int) and not isinstance(value, bool) and value > high:
        raise ParamError(
            name,
            value,
            f"must be a whole number from 1 to {high} ({WORKERS_PER_CPU} per CPU of this machine)",
        )
    return check_int(name, value, low=1)


def check_share(name: str, value: Any) -> Any:
    """A share: a number in [0, 1]."""
    if not (_is_real(value) and 0 <= value <= 1):
        raise ParamError(name, value, "must be a share, a number in [0, 1]")
    return value


def check_bool(name: str, value: Any) -> Any:
    """true or false (a string such as ``"no"`` is refused, not read as truthy)."""
    if not isinstance(value, bool):
        raise ParamError(name, value, "must be true or false")
    return value


def check_choice(name: str, value: Any, choices: Iterable[Any]) -> Any:
    """One of ``choices``."""
    for c in choices:  # same type too: neither True nor 64.0 passes for 1 or 64
        if value == c and type(value) is type(c):
            return value
    raise ParamError(name, value, f"must be one of {', '.join(map(show, choices))}")


def check_str_list(
    name: str, value: Any, choices: Iterable[str] | None = None, allow_empty: bool = False
) -> Any:
    """A list of strings (a bare string is refused: it is not a list of one), optionally
    each one of ``choices``; empty only when ``allow_empty``."""
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ParamError(name, value, "must be a list of strings, e.g. [a,b]")
    if not value and not allow_empty:
        raise ParamError(name, value, "must not be an empty list")
    if choices is not None:
        choices = tuple(choices)
        bad = [v for v in value if v not in choices]
        if bad:
            raise ParamError(
                name, value, f"{show(bad[0])} is not one of {', '.join(map(show, choices))}"
            )
    return value


def check_path(name: str, value: Any, folder: bool = True) -> Any:
    """An existing folder (or file when ``folder`` is false)."""
    kind = "folder" if folder else "file"
    if not isinstance(value, (str, os.PathLike)):
        raise ParamError(name, value, f"must be the path of an existing {kind}")
    path = os.path.expanduser(value)
    if not (os.path.isdir(path) if folder else os.path.isfile(path)):
        raise ParamError(name, value, f"no such {kind}")
    return value


def renamed_keys(
    params: Mapping[str, Any], renamed: Mapping[str, str]
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """``params`` with each old key of ``renamed`` (old flat name -> new dotted place) moved
    to its new place, and the ``(old, new)`` pairs moved, in the order given.

    An old name that is now a group (``primary`` -> ``primary.enabled``) is old only when
    its value is not a mapping: a mapping is the group itself. An old key's value wins
    over a value already at its new place (that one may be a config file's default; the
    old key is what the user wrote). ``params`` and the mappings in it are not changed.
    """

    def is_old(key: str) -> bool:
        new = renamed.get(key)
        return new is not None and not (
            new.startswith(key + ".") and isinstance(params[key], Mapping)
        )

    moved = [(key, renamed[key]) for key in params if is_old(key)]
    olds = {old for old, _ in moved}
    out = {k: v for k, v in params.items() if k not in olds}
    for old, new in moved:
        *path, leaf = new.split(".")
        node = out
        for part in path:
            inner = node.get(part)
            node[part] = dict(inner) if isinstance(inner, Mapping) else {}
            node = node[part]
        node[leaf] = params[old]
    return out, moved
