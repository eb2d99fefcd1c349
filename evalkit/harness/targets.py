"""What a config's ``_target_`` may name, decided by where the named code comes from.

``method.<label>._target_=module.Name`` (Hydra's convention, evalkit.harness.config) lets a
config name the user's own extractor. Any dotted path used to be accepted and built while
the command line was checked: ``method.x._target_=os.system`` ran every page's HTML in a
shell, and ``subprocess.Popen`` with ``method.x.args=[...]`` ran a program during the
override check, even for ``evalkit --cfg job``. Configs name code, so they are code
(docs/security.md); what this module stops is a config turning code that was never meant
to be a method -- the standard library's, an installed library's -- into one.

The rule (:func:`resolve_target`), applied to the path as typed *before* it is imported,
and again to the module that defines what it names (a user module re-exporting
``os.system`` is refused too):

* a module of the standard library (:data:`sys.stdlib_module_names`, ``builtins`` and
  every built-in module) is refused;
* a module of an installed distribution that evalkit depends on, directly or through
  another dependency, extras included (``hydra``, ``numpy``, ``pandas``, ``trafilatura``,
  ``cloudpickle`` ...; :func:`dependency_modules`) is refused;
* evalkit's own modules may be named only for an Extractor (a method) or a Detector
  subclass: the registry's classes under another label;
* anything else -- the user's module, in the working folder, on PYTHONPATH or installed on
  its own -- may be named when it is an :class:`~evalkit.core.method.Extractor` subclass or
  a function ``html -> text`` (a method), or a :class:`~evalkit.core.method.Detector`
  subclass (a detector). Objects of other kinds are refused.

Nothing is built here: :func:`check_params` compares the keys with the constructor's
signature, so a misspelt parameter is one line while nothing of the user's code has run
but its module's import.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import re
import sys
from importlib import metadata
from typing import Any

from evalkit.core.method import Detector, Extractor, param_names

__all__ = [
    "OWN_PACKAGES",
    "TargetRefused",
    "check_params",
    "dependency_modules",
    "module_origin",
    "resolve_target",
]

#: evalkit's own top-level packages (a checkout's ``baselines``; the wheel's ``evalkit``)
OWN_PACKAGES = ("evalkit", "baselines")
#: the distribution whose requirements are followed
_DISTRIBUTION = "evalkit"


class TargetRefused(ValueError):
    """A ``_target_`` that may not be used; the message says why, in one line."""


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@functools.cache
def _dependencies() -> frozenset[str]:
    """Normalised names of every distribution evalkit requires, directly or through another,
    extras included (evalkit's own name too). Empty when evalkit's metadata is absent (a
    checkout that was never installed): then only the standard library is refused."""
    seen: set[str] = set()
    todo = [_DISTRIBUTION]
    while todo:
        name = _norm(todo.pop())
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        for req in requires:
            m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req)
            if m:
                todo.append(m.group(1))
    return frozenset(seen) if len(seen) > 1 else frozenset()


@functools.cache
def dependency_modules() -> frozenset[str]:
    """Top-level import names of evalkit's dependencies (:func:`_dependencies`), evalkit's own
    packages left out (:data:`OWN_PACKAGES` have their own rule)."""
    deps = _dependencies()
    return frozenset(
        top
        for top, dists in metadata.packages_distributions().items()
        if top not in OWN_PACKAGES and any(_norm(d) in deps for d in dists)
    )


def module_origin(module: str) -> str:
    """``stdlib``, ``dependency``, ``evalkit`` or ``user``: where module ``module`` comes from."""
    top = module.split(".")[0]
    if top in OWN_PACKAGES:
        return "evalkit"
    if (
        top in sys.stdlib_module_names
        or top in sys.builtin_module_names
        or top == "builtins"
        or top.startswith("_")
        and top.lstrip("_") in sys.stdlib_module_names
    ):
        return "stdlib"
    if top in dependency_modules():
        return "dependency"
    return "user"


def _path_module(target: str) -> str:
    """The module part of a dotted path as typed (``os.system`` -> ``os``; ``a.b:C`` -> ``a.b``)."""
    if ":" in target:
        return target.partition(":")[0]
    return target.rpartition(".")[0] or target


_WHY = {"stdlib": "the standard library", "dependency": "a library evalkit depends on"}


def _refuse_origin(module: str, what: str) -> None:
    origin = module_origin(module)
    if origin in _WHY:
        raise TargetRefused(
            f"{what} is from {_WHY[origin]} ({module.split('.')[0]}); a "
            "_target_ names your own Extractor or Detector class or "
            "function html -> text (docs/security.md)"
        )


def resolve_target(target: str, kind: str) -> Any:
    """The class or function ``target`` names, when a config may use it as a ``kind``
    (``method`` or ``detector``); raises :class:`TargetRefused` otherwise, before importing
    ``target`` when its path alone is refused. ImportError and AttributeError when it cannot
    be imported (the caller names the key)."""
    from evalkit.harness.specs import locate

    if not isinstance(target, str) or "." not in target.strip(".:"):
        raise TargetRefused(f"{target!r} is not a dotted path module.Name")
    _refuse_origin(_path_module(target), target)
    obj = locate(target)
    defined = obj if isinstance(obj, type) or callable(obj) else type(obj)
    home = getattr(defined, "__module__", None) or type(obj).__module__
    _refuse_origin(home, f"{target} (defined in {home})")
    base = Extractor if kind == "method" else Detector
    if isinstance(obj, type) and issubclass(obj, base):
        return obj
    if module_origin(home) == "evalkit" or module_origin(_path_module(target)) == "evalkit":
        raise TargetRefused(
            f"{target} is evalkit's own code but not an {base.__name__} "
            "class; name a method or detector by its registry name"
        )
    if kind == "method" and inspect.isfunction(obj):
        return obj
    allowed = (
        "an Extractor subclass or a function html -> text"
        if kind == "method"
        else "a Detector subclass"
    )
    raise TargetRefused(f"{target} is a {type(obj).__name__}, not {allowed}")


def check_params(obj: Any, kind: str, label: str, params: dict[str, Any]) -> None:
    """Raise ValueError when ``params`` are not keyword parameters of ``obj`` (a class from
    :func:`resolve_target`, or a function, which takes none), without building anything;
    the message is the registry's (evalkit.harness.registry.instantiate)."""
    if not isinstance(obj, type):
        if params:
            raise ValueError(
                f"{kind} {label!r} is a function: it takes no parameters "
                f"(got {', '.join(sorted(params))})"
            )
        return
    valid = param_names(obj)
    takes_any = any(
        p.kind == p.VAR_KEYWORD for p in inspect.signature(obj.__init__).parameters.values()
    )
    unknown = sorted(set(params) - set(valid))
    if unknown and not takes_any:
        near = difflib.get_close_matches(unknown[0], valid, n=3)
        hint = f"closest: {', '.join(near)}; " if near else ""
        raise ValueError(
            f"{kind} {label!r} has no parameter {', '.join(unknown)}; "
            f"{hint}valid: {', '.join(valid)}"
        )
