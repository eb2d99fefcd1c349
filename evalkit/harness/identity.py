"""What a callable handed to evalkit *is*, as a digest for the cache key (docs/cache.md).

A function given to :func:`evalkit.evaluate` (a lambda, a closure made by a factory, a
``functools.partial``, a function typed in a notebook) is keyed by its behaviour, not by
where it was written: two of them share cache entries only when they would compute the
same thing. :func:`callable_identity` walks the callable and hashes

* a function's **code object**: its bytecode, its constants (nested code objects
  recursively), the names and variables it uses and its argument counts; not its file
  name or line numbers, so moving a function does not re-extract;
* its **defaults** and **keyword-only defaults**, and the value in every **closure cell**;
* the value of every **global it reads** (``LOAD_GLOBAL``, nested functions included):
  a helper function of the same script is walked the same way, a module or a library
  function by its name (the library's version is on the key as every package's is);
* a ``functools.partial``'s function, positional arguments and keywords; a bound
  method's function and object;
* a **value** by its content: numbers, strings, bytes, containers (a set in sorted order),
  regular expressions, enum members, numpy arrays (their bytes), pandas objects (their
  pickled state: their repr rounds and cuts), an evalkit method object
  (its class and parameters), an object of a class written by the user (its class, walked
  like a function, and its attributes), any other object by its ``repr`` when that repr
  holds no memory address and is not cut short (``...``).

A value with no such identity (an object whose repr is ``<Foo object at 0x...>``, an
lxml element, an open file, a large pandas frame, or more than :data:`MAX_NODES` values in all) makes the
callable :class:`Unidentified`: evalkit then never caches it and says so in one line
(evalkit.experiments), rather than risk reading another callable's outputs.
"""

from __future__ import annotations

import dis
import enum
import functools
import hashlib
import re
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["MAX_NODES", "CallableIdentity", "Unidentified", "callable_identity", "unwrap"]

#: values walked at most for one callable; a larger one is not identified (a model's weights
#: in a closure would otherwise be hashed for every run)
MAX_NODES = 200_000

#: a repr that shows where an object lives in memory says nothing about what it is
_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]+|0x[0-9a-fA-F]{8,}")

#: class attributes that are bookkeeping, not behaviour
_CLASS_SKIP = frozenset(
    {
        "__dict__",
        "__weakref__",
        "__module__",
        "__qualname__",
        "__doc__",
        "__annotations__",
        "_abc_impl",
        "__parameters__",
        "__orig_bases__",
    }
)

_GLOBAL_OPS = frozenset({"LOAD_GLOBAL", "LOAD_NAME"})


class Unidentified(Exception):
    """The callable holds a value whose identity cannot be established (the message says
    which and where)."""


@dataclass(frozen=True)
class CallableIdentity:
    """The identity of a callable: ``digest`` (None when ``why`` says it cannot be known)
    and the top-level names of the installed libraries it reaches (their versions go on
    the key, evalkit.harness.cache_keys)."""

    digest: str | None
    why: str | None = None
    libraries: tuple[str, ...] = ()


def unwrap(func: Any) -> Any:
    """The function under ``functools.partial`` layers and bound methods (its name and
    source stand for the callable in tables and run.json)."""
    while True:
        if isinstance(func, functools.partial):
            func = func.func
        elif isinstance(func, types.MethodType):
            func = func.__func__
        else:
            return func


def callable_identity(func: Any, library: Callable[[str], str | None]) -> CallableIdentity:
    """The :class:`CallableIdentity` of ``func``.

    ``library(module_name)`` says whether a module is someone else's code: the top-level
    name to record for an installed library, the standard library or evalkit (keyed by
    their versions and sources elsewhere), or None for the user's own code (``__main__``,
    a notebook, a script next to it), which is walked."""
    walker = _Walker(library)
    try:
        walker.feed(func, "the method")
    except Unidentified as exc:
        return CallableIdentity(None, str(exc))
    except RecursionError:
        return CallableIdentity(None, "it nests values too deeply to identify")
    return CallableIdentity(walker.h.hexdigest()[:24], None, tuple(sorted(walker.libraries)))


class _Walker:
    """Feeds a tagged, length-prefixed description of values into one sha256."""

    def __init__(self, library: Callable[[str], str | None]):
        self.h = hashlib.sha256()
        self.library = library
        self.libraries: set[str] = set()
        self.active: dict[int, int] = {}  # id -> depth, for cycles (a recursive function)
        self.nodes = 0

    def tag(self, *parts: Any) -> None:
        for part in parts:
            data = part if isinstance(part, bytes) else str(part).encode("utf-8", "surrogatepass")
            self.h.update(f"{len(data)}:".encode())
            self.h.update(data)

    def foreign(self, module: str | None) -> bool:
        """True (and the library noted) when ``module`` is not the user's own code."""
        top = self.library(module or "")
        if top is None:
            return False
        if top:
            self.libraries.add(top)
        return True

    def feed(self, value: Any, where: str) -> None:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise Unidentified(f"{where} holds more than {MAX_NODES} values")
        kind = type(value)
        if value is None or kind in (bool, int, float, complex, str, bytes, range, slice):
            self.tag(kind.__name__, repr(value))
            return
        if id(value) in self.active:  # a cycle: the same object further up
            self.tag("cycle", self.active[id(value)])
            return
        self.active[id(value)] = len(self.active)
        try:
            self._compound(value, kind, where)
        finally:
            del self.active[id(value)]

    def _compound(self, value: Any, kind: type, where: str) -> None:
        if kind in (list, tuple, bytearray):
            self.tag(kind.__name__, len(value))
            for i, item in enumerate(value):
                self.feed(item, f"{where}[{i}]")
        elif kind in (set, frozenset):
            self.tag(kind.__name__, len(value))
            for digest in sorted(self._digest(item, f"an item of {where}") for item in value):
                self.tag(digest)
        elif kind is dict:
            self.tag("dict", len(value))
            for k, v in value.items():
                self.feed(k, f"a key of {where}")
                self.feed(v, f"{where}[{k!r}]")
        elif kind is types.FunctionType:
            self._function(value, where)
        elif kind is types.CodeType:
            self._code(value, where)
        elif isinstance(value, functools.partial):
            self.tag("partial")
            self.feed(value.func, f"the function of {where}")
            self.feed(value.args, f"the arguments of {where}")
            self.feed(value.keywords, f"the keywords of {where}")
        elif kind is types.MethodType:
            self.tag("bound method")
            self.feed(value.__func__, where)
            self.feed(value.__self__, f"the object of {where}")
        elif kind in (
            types.BuiltinFunctionType,
            types.WrapperDescriptorType,
            types.MethodDescriptorType,
            types.MethodWrapperType,
        ):
            self._builtin(value, where)
        elif kind is types.ModuleType:
            self.foreign(value.__name__)
            self.tag("module", value.__name__)
        elif isinstance(value, type):
            self._class(value, where)
        elif kind in (staticmethod, classmethod):
            self.tag(kind.__name__)
            self.feed(value.__func__, where)
        elif kind is property:
            self.tag("property")
            for part in (value.fget, value.fset, value.fdel):
                self.feed(part, where)
        elif kind is re.Pattern:
            self.tag("pattern", value.flags)
            self.feed(value.pattern, where)
        elif isinstance(value, enum.Enum):
            self.feed(kind, where)
            self.tag("member", value.name)
        else:
            self._object(value, kind, where)

    def _digest(self, value: Any, where: str) -> str:
        sub = _Walker(self.library)
        sub.nodes, sub.active = self.nodes, self.active
        sub.feed(value, where)
        self.nodes = sub.nodes
        self.libraries |= sub.libraries
        return sub.h.hexdigest()

    def _function(self, func: types.FunctionType, where: str) -> None:
        name = getattr(func, "__qualname__", func.__name__)
        if self.foreign(func.__module__):
            # a library's code is keyed by the library's version; what a library factory
            # closed over (its caller's settings) is still walked below
            self.tag("function", func.__module__, name)
        else:
            self.tag("user function", name)
            self._code(func.__code__, f"{name}")
        self.feed(func.__defaults__, f"the defaults of {name}")
        self.feed(func.__kwdefaults__, f"the keyword defaults of {name}")
        cells = func.__closure__ or ()
        for var, cell in zip(func.__code__.co_freevars, cells):
            try:
                content = cell.cell_contents
            except ValueError:  # a cell not filled yet
                self.tag("empty cell", var)
                continue
            self.tag("cell", var)
            self.feed(content, f"closure variable {var!r} of {name}")
        if self.foreign(func.__module__):
            return
        builtins = func.__globals__.get("__builtins__", {})
        builtins = vars(builtins) if isinstance(builtins, types.ModuleType) else builtins
        for var in sorted(_globals_read(func.__code__)):
            self.tag("global", var)
            if var in func.__globals__:
                self.feed(func.__globals__[var], f"global {var!r} read by {name}")
            elif var in builtins:
                self.tag("builtin")
            else:
                self.tag("unbound")

    def _code(self, code: types.CodeType, where: str) -> None:
        self.tag(
            "code",
            code.co_argcount,
            code.co_posonlyargcount,
            code.co_kwonlyargcount,
            code.co_flags,
            code.co_code,
            *code.co_names,
            "|",
            *code.co_varnames,
            "|",
            *code.co_freevars,
            "|",
            *code.co_cellvars,
        )
        self.tag(len(code.co_consts))
        for const in code.co_consts:
            self.feed(const, f"a constant of {where}")

    def _builtin(self, func: Any, where: str) -> None:
        owner = getattr(func, "__self__", None)
        module = getattr(func, "__module__", None) or getattr(
            getattr(func, "__objclass__", None), "__module__", None
        )
        self.foreign(module or "builtins")
        self.tag("builtin", module, getattr(func, "__qualname__", getattr(func, "__name__", "")))
        if owner is not None and not isinstance(owner, (types.ModuleType, type)):
            self.feed(owner, f"the object of {where}")  # "sep".join: the string matters

    def _class(self, cls: type, where: str) -> None:
        if self.foreign(cls.__module__):
            self.tag("class", cls.__module__, cls.__qualname__)
            return
        self.tag("user class", cls.__qualname__, len(cls.__bases__))
        for base in cls.__bases__:
            self.feed(base, f"a base of {cls.__qualname__}")
        for name in sorted(vars(cls)):
            if name in _CLASS_SKIP:
                continue
            self.tag("attribute", name)
            self.feed(vars(cls)[name], f"{cls.__qualname__}.{name}")

    def _object(self, value: Any, kind: type, where: str) -> None:
        from evalkit.core.method import BaseMethod

        if isinstance(value, BaseMethod):
            self.feed(kind, where)
            self.feed(value.get_params(deep=False), f"the parameters of {where}")
            return
        if kind.__module__ == "numpy" and hasattr(value, "tobytes"):
            self.tag("array", str(getattr(value, "dtype", "")), getattr(value, "shape", ""))
            self.tag(hashlib.sha256(value.tobytes()).hexdigest())
            return
        if kind.__module__.partition(".")[0] == "pandas":  # its repr rounds: its full state
            import pickle

            self.foreign(kind.__module__)  # pandas's version goes on the key
            try:
                self.tag(
                    "pandas",
                    kind.__qualname__,
                    hashlib.sha256(pickle.dumps(value, protocol=4)).hexdigest(),
                )
                return
            except Exception as exc:
                raise Unidentified(f"{where} is a pandas object that does not pickle") from exc
        wrapped = getattr(value, "__wrapped__", None)
        if callable(wrapped):  # functools.lru_cache and other wrappers: what they wrap
            self.tag("wrapper", kind.__module__, kind.__qualname__)
            self.feed(wrapped, where)
            return
        if not self.foreign(kind.__module__):  # an object of the user's own class
            self.feed(kind, where)
            state = getattr(value, "__dict__", None)
            self.feed(dict(state) if state is not None else None, f"the attributes of {where}")
            for slot in _slots(kind):
                self.tag("slot", slot)
                self.feed(getattr(value, slot, None), f"{where}.{slot}")
            return
        text = repr(value) if kind.__repr__ is not object.__repr__ else ""
        # an address says where it is, not what; "..." marks a repr cut short (a large
        # pandas frame), which two different values can share
        if not text or _ADDRESS.search(text) or "..." in text or "…" in text:
            raise Unidentified(
                f"{where} is a {kind.__module__}.{kind.__qualname__} object "
                "with no stable value to key on"
            )
        self.tag("object", kind.__module__, kind.__qualname__, text)


def _slots(kind: type) -> list[str]:
    out: list[str] = []
    for klass in kind.__mro__:
        slots = vars(klass).get("__slots__", ())
        out += [slots] if isinstance(slots, str) else [s for s in slots if s not in out]
    return [s for s in out if s not in ("__dict__", "__weakref__")]


def _globals_read(code: types.CodeType) -> set[str]:
    """Names a code object (and the code nested in it) reads as globals."""
    found = {ins.argval for ins in dis.get_instructions(code) if ins.opname in _GLOBAL_OPS}
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found |= _globals_read(const)
    return found
