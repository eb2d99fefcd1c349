"""How a method is named and built: :class:`MethodSpec` (a registry name, Hydra's ``_target_``, or
an object handed over in Python) and :func:`locate` for dotted paths.

A spec is what travels to a worker: each task builds fresh methods from it, and its
:meth:`MethodSpec.key` names the method's cache entries (evalkit.harness.cache_keys).
"""

from __future__ import annotations

import copy
import os
import pkgutil
import sys
from dataclasses import dataclass, field
from typing import Any

from evalkit.core.method import Detector, Extractor, FunctionExtractor, function_name
from evalkit.harness.cache_closure import LocalClosure
from evalkit.harness.cache_keys import (
    function_identity,
    method_key,
    outside_closure,
    outside_source,
)
from evalkit.harness.identity import CallableIdentity, unwrap
from evalkit.harness.registry import DETECTORS, METHODS, instantiate

__all__ = ["ORIGINS", "MethodSpec", "locate"]


#: where a :class:`MethodSpec` comes from: a registry name, Hydra's ``_target_`` (a dotted
#: path to a class or function), or an object handed over in Python (evalkit.shell.api)
ORIGINS = ("registry", "target", "object")


@dataclass(frozen=True)
class MethodSpec:
    """How to build a method: its table name, registry name and keyword parameters.

    ``origin="target"``: ``registry`` is a dotted path (``my_module.MyExtractor``, Hydra's
    ``_target_``) imported where the method is built, in every worker. ``origin="object"``:
    ``obj`` is an :class:`~evalkit.core.method.Extractor` object (copied for every task), a class
    (built with ``params``) or a function ``html -> text``; it travels to worker processes by
    value (joblib's loky and Dask pickle tasks with cloudpickle, and so does
    :class:`evalkit.harness.page_worker.PageWorker`), so a function typed in a notebook runs there.
    ``source`` is the code of a method from outside evalkit's packages as read where the
    spec was made (the cache key holds it; None: unreadable, so never cached). Make such
    specs with
    :meth:`from_target` and :meth:`from_object`, which read it. ``identity`` is what a
    function method *is* (evalkit.harness.identity: code, closure cells, defaults, a partial's
    arguments), worked out there too: the cache key holds it, so two lambdas, closures or
    partials never share entries unless they compute the same thing.
    """

    label: str
    registry: str
    params: dict[str, Any] = field(default_factory=dict)
    kind: str = "method"
    origin: str = "registry"
    obj: Any = field(default=None, repr=False)
    source: str | None = field(default=None, repr=False)
    identity: CallableIdentity | None = field(default=None, repr=False)
    #: the user's modules ``source`` imports, by content (evalkit.harness.cache_closure)
    closure: LocalClosure | None = field(default=None, repr=False)

    @classmethod
    def from_target(
        cls, label: str, target: str, params: dict[str, Any] | None = None, kind: str = "method"
    ) -> MethodSpec:
        """A spec of ``target`` (``module.Class``); ImportError or AttributeError when it cannot
        be imported here, ValueError when it is not a dotted path."""
        found = locate(target)
        return cls(
            label=label,
            registry=target,
            params=dict(params or {}),
            kind=kind,
            origin="target",
            source=outside_source(unwrap(found)),
            closure=outside_closure(unwrap(found)),
            identity=function_identity(found) if _is_function(found) else None,
        )

    @classmethod
    def from_object(
        cls, label: str, obj: Any, params: dict[str, Any] | None = None, kind: str = "method"
    ) -> MethodSpec:
        """A spec of an extractor object, an extractor class or a function ``html -> text``."""
        code = unwrap(obj) if isinstance(obj, type) or _is_function(obj) else type(obj)
        return cls(
            label=label,
            registry=function_name(code),
            params=dict(params or {}),
            kind=kind,
            origin="object",
            obj=obj,
            source=outside_source(code),
            closure=outside_closure(code),
            identity=function_identity(obj) if _is_function(obj) else None,
        )

    def build(self):
        if self.origin == "registry":
            reg = METHODS if self.kind == "method" else DETECTORS
            return reg.create(self.registry, **self.params)
        made = locate(self.registry) if self.origin == "target" else self.obj
        if isinstance(made, type):
            method = instantiate(made, self.kind, self.label, self.params)
        elif _is_function(made):
            if self.params:
                raise ValueError(
                    f"{self.kind} {self.label!r} is a function: it takes no "
                    f"parameters (got {', '.join(sorted(self.params))})"
                )
            method = FunctionExtractor(made)
        else:  # an object: a fresh copy per task, so no state leaks between tasks
            method = copy.deepcopy(made)
        base = Extractor if self.kind == "method" else Detector
        if not isinstance(method, base):
            raise TypeError(
                f"{self.kind} {self.label!r}: {type(method).__qualname__} is not "
                f"an evalkit.core.method.{base.__name__}"
            )
        return method

    def key(self) -> str | None:
        """Everything about the method that can change an extraction (evalkit.harness.cache_keys),
        worked out once per process; None when it cannot be known (a method whose source
        cannot be read), and then the method is never cached. It holds the string-hash seed
        of the process that works it out, where the pages run: a loky worker under
        ``evalkit.evaluate`` runs with ``PYTHONHASHSEED=0``, the notebook's process maybe
        not; each record carries the key its pipeline used (:data:`METHOD_KEY`), and the run
        reads its entries back by that key (Runner.method_keys)."""
        return method_key(self)

    def __hash__(self):
        return hash((self.label, self.key()))


def _is_function(obj: Any) -> bool:
    return callable(obj) and not isinstance(obj, type) and not hasattr(obj, "extract")


def locate(target: str) -> Any:
    """The class or function a dotted path names (``my_module.MyExtractor``).

    :func:`pkgutil.resolve_name` imports it by Python's rules. When its top-level module is
    not found, the working folder is appended to ``sys.path`` and the import tried again,
    so ``evalkit`` finds a module in the folder it is started in as ``python -m evalkit``
    does (worker processes inherit ``sys.path``)."""
    if not isinstance(target, str) or "." not in target.strip(".:"):
        raise ValueError(f"{target!r} is not a dotted path module.Name")
    try:
        return pkgutil.resolve_name(target)
    except ModuleNotFoundError as exc:
        here = os.getcwd()
        if exc.name != target.split(".")[0].split(":")[0] or here in sys.path:
            raise
        sys.path.append(here)
        return pkgutil.resolve_name(target)
