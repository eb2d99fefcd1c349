"""The import closure of a user's method file, by content (docs/cache.md).

A method from the user's own file (Hydra's ``_target_``, an object or function handed to
``evalkit.evaluate``) runs that file and every module of the user's that it imports: a
helper ``hh.py`` beside it, a package of the user's. Its cache key must hold all of them,
or an edit to the helper hands back the old extractions (issue 37, item 2).
:func:`local_closure` reads the import statements of the method's file with :mod:`ast`
(module- and function-level imports, relative imports, ``from pkg import module``, and
``importlib.import_module`` / ``__import__`` of a literal name), resolves each name to a
file as Python does from the method's folder and the root of its package, and does the
same for every module found, once each (a cycle ends at a module already seen). Every
module found is hashed by its bytes; the names that are not the user's (the standard
library, evalkit's packages, installed distributions) are returned for the caller to key
as it keys those (source closure, versions).

Not followed: imports of a name computed at run time, and data files a module reads.
"""

from __future__ import annotations

import ast
import hashlib
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from evalkit.core.files import NotRegular, read_regular

__all__ = [
    "MAX_MODULES",
    "MAX_MODULE_BYTES",
    "LocalClosure",
    "local_closure",
    "parse_source",
]


def parse_source(source: bytes | str, filename: str) -> ast.Module:
    """``ast.parse`` one call at a time in this process. CPython 3.11 keeps the AST
    constructor's recursion depth in state all threads share, so two threads parsing at once
    (a run's warm-up thread hashing the methods' sources while the main thread keys a scorer)
    can fail with a spurious "AST constructor recursion depth mismatch" SystemError (CPython
    gh-106905, seen here on 3.11.7): the parses are serialised, and one such error is retried."""
    with _PARSE_LOCK:
        try:
            return ast.parse(source, filename=filename)
        except SystemError as exc:
            if "recursion depth mismatch" not in str(exc):
                raise
            return ast.parse(source, filename=filename)


#: serialises :func:`parse_source`
_PARSE_LOCK = threading.Lock()

#: local modules followed at most; a closure larger than that is not keyed (never cached)
MAX_MODULES = 2000
#: a local module larger than this is not read (its method is never cached)
MAX_MODULE_BYTES = 16 << 20


@dataclass(frozen=True)
class LocalClosure:
    """The user's modules a method file runs: ``digests`` are (module name, sha256 of its
    bytes) of each but the method's own module (whose text the key holds already), sorted; ``imports`` the absolute names
    of the other modules they import; ``why`` says why the closure could not be read (then
    the method is never cached), else None."""

    digests: tuple[tuple[str, str], ...] = ()
    imports: tuple[str, ...] = ()
    why: str | None = None


def _roots(module: str, file: Path) -> tuple[list[Path], str]:
    """(folders a name is resolved in, the module's own dotted name there): the root of its
    package (the folder on ``sys.path`` it was imported from) and its own folder."""
    parts = module.split(".")
    is_init = file.name == "__init__.py"
    names = [p.name for p in (file.parents if is_init else [file, *file.parents])]
    stems = [Path(n).stem if i == 0 and not is_init else n for i, n in enumerate(names)]
    if module not in ("__main__", "__mp_main__") and stems[: len(parts)] == parts[::-1]:
        root = file.parents[len(parts) - (0 if is_init else 1)]
        return list(dict.fromkeys([root, file.parent])), module
    return [file.parent], file.stem  # a script run as __main__, or a file outside its package


def _installed_here(root: Path) -> bool:
    """Whether ``root`` is a folder of installed distributions (site-packages): there only
    the method's own package is the user's, the others are keyed by their versions."""
    try:
        return any(p.suffix == ".dist-info" for p in root.iterdir())
    except OSError:
        return False


def _present(path: Path) -> bool:
    """Whether a module file is there: a FIFO or a dangling link in its place counts (and is
    then refused when read), so it cannot pass for a module that is not the user's."""
    return os.path.lexists(path) and not path.is_dir()


class _Reader:
    def __init__(self, roots: list[Path], own_top: str):
        self.roots = roots
        self.own_top = own_top
        self.shared = {r: _installed_here(r) for r in roots}
        self.files: dict[str, Path] = {}  # local module -> file
        self.outside: set[str] = set()

    def resolve(self, name: str) -> list[tuple[str, Path]]:
        """The local modules importing ``name`` runs (its packages' ``__init__`` and itself),
        or [] when ``name`` is not the user's (it is then noted in ``outside``)."""
        parts = name.split(".")
        top = parts[0]
        if not top or top in sys.stdlib_module_names:
            return []
        for root in self.roots:
            if self.shared[root] and top != self.own_top:
                continue
            found, folder = [], root
            for i, part in enumerate(parts):
                package, module = folder / part / "__init__.py", folder / f"{part}.py"
                dotted = ".".join(parts[: i + 1])
                if _present(package):
                    found.append((dotted, package))
                elif _present(module):
                    found.append((dotted, module))
                    break
                elif not (folder / part).is_dir():  # an attribute (from pkg import func)
                    break
                folder = folder / part  # a package (or a namespace package, no file)
            if found:
                return found
        self.outside.add(name)
        return []

    def imports(self, name: str, file: Path, source: bytes) -> set[str]:
        """Absolute names ``source`` (module ``name`` at ``file``) imports anywhere in it."""
        try:
            tree = parse_source(source, str(file))
        except (SyntaxError, ValueError, RecursionError):
            return set()  # it cannot have been imported: nothing runs from it
        package = name if file.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".") if package else []
                    if node.level - 1 > len(anchor):
                        continue  # beyond the top package: the import fails
                    anchor = anchor[: len(anchor) - node.level + 1]
                    base = ".".join([*anchor, *([base] if base else [])])
                if base:
                    found.add(base)
                found.update(
                    f"{base}.{a.name}" if base else a.name for a in node.names if a.name != "*"
                )
            elif (
                isinstance(node, ast.Call)
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
                and getattr(node.func, "attr", getattr(node.func, "id", None))
                in ("import_module", "__import__")
            ):
                found.add(node.args[0].value)
        return {n for n in found if n and not n.startswith(".")}


def local_closure(module: str, file: str | Path) -> LocalClosure:
    """The :class:`LocalClosure` of the module ``module`` whose file is ``file``."""
    file = Path(file).absolute()
    roots, own = _roots(module, file)
    reader = _Reader(roots, own.partition(".")[0])
    todo = [(own, file)]
    digests: dict[str, str] = {}
    while todo:
        name, path = todo.pop()
        if name in digests:
            continue  # a cycle, or a module two others import
        if len(digests) > MAX_MODULES:
            return LocalClosure(
                why=f"its file imports more than {MAX_MODULES} modules of its own folder"
            )
        try:
            source = read_regular(path, MAX_MODULE_BYTES)
        except (NotRegular, OSError) as exc:
            return LocalClosure(
                why=f"its module {name} ({path}) cannot be read: {exc.strerror or exc}"
            )
        digests[name] = hashlib.sha256(source).hexdigest()[:16]
        for imported in sorted(reader.imports(name, path, source)):
            todo.extend(reader.resolve(imported))
    digests.pop(own)  # the method's own file: keyed by its text (MethodSpec.source)
    return LocalClosure(
        digests=tuple(sorted(digests.items())), imports=tuple(sorted(reader.outside))
    )
