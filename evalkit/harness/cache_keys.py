"""Cache keys that cannot go stale (docs/cache.md); the stores are evalkit.harness.cache
(extractions) and evalkit.harness.score_cache (score records).

An extraction is read back only when nothing that could change its bytes has
changed. Its key hashes three parts:

* the **method key** (:func:`method_key`, computed once per spec per process):
  the registry kind and name; the *resolved* parameters
  (:meth:`~evalkit.core.method.BaseMethod.resolved_params`: defaults and ``auto``
  filled in as this machine fills them); the source of every project module
  the method can execute, i.e. the import closure inside ``evalkit`` and
  ``baselines`` read from the code (:class:`SourceTree`) starting at
  ``evalkit.harness.registry`` (which builds every method), the registry entry's module
  and the modules the method imports by name
  (:meth:`~evalkit.core.method.BaseMethod.runtime_modules`: the detector a
  ``proposed`` config names, a peer's library); the version of every
  third-party distribution that closure imports and of everything those
  require; lxml, libxml2 and Python versions, ``PYTHONHASHSEED`` and the
  evalkit version;
* the **page key** (:func:`page_key`): what the method sees of the page: raw
  bytes, decoded HTML, URL, site and gold text, plus
  :data:`~evalkit.core.page.NORMALISATION_VERSION`;
* the runner's site context (site-scope methods).

So editing a module re-extracts exactly the methods whose closure holds it.
The same facts, minus the source hashes, are the method's provenance in
``run.json`` (:func:`describe_method`).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib
import importlib.util
import inspect
import json
import os
import re
import sys
import textwrap
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from evalkit import __version__
from evalkit.core.layout import layout
from evalkit.core.page import NORMALISATION_VERSION, Page, lxml_versions
from evalkit.harness.cache_closure import LocalClosure, local_closure, parse_source
from evalkit.harness.identity import CallableIdentity, callable_identity, unwrap

__all__ = [
    "NOT_INSTALLED",
    "PROJECT_PACKAGES",
    "MethodFacts",
    "SourceTree",
    "describe_method",
    "distribution_versions",
    "function_identity",
    "library_of",
    "lxml_versions",
    "method_key",
    "outside_closure",
    "outside_source",
    "page_key",
    "source_tree",
]

#: the packages whose source is hashed into the key in a checkout (everything else is
#: versioned); the wheel has ``evalkit`` alone, which holds ``evalkit.baselines``
#: (:meth:`evalkit.core.layout.Layout.package_roots`)
PROJECT_PACKAGES = ("evalkit", "baselines")
#: the version recorded for a distribution that is not installed
NOT_INSTALLED = "not installed"


class SourceTree:
    """The project's modules: file, source bytes, digest and imports, each read once.

    ``roots`` maps a top-level package name to its folder (default: the project's own
    code in this layout, :meth:`evalkit.core.layout.Layout.package_roots`); ``read`` returns a
    file's bytes (tests pass one that edits a file without touching the disk).
    """

    def __init__(
        self,
        roots: Mapping[str, str | os.PathLike] | None = None,
        read: Callable[[Path], bytes] = Path.read_bytes,
    ):
        if roots is None:
            roots = layout().package_roots()
        self.roots = {name: Path(folder) for name, folder in roots.items()}
        self._read = read
        self._paths: dict[str, Path | None] = {}
        self._sources: dict[str, bytes] = {}
        self._imports: dict[str, frozenset[str]] = {}

    def is_project(self, module: str) -> bool:
        return module.partition(".")[0] in self.roots

    def path(self, module: str) -> Path | None:
        """The file of a project module (``pkg/__init__.py`` for a package), None if none."""
        if module not in self._paths:
            top, *rest = module.split(".")
            found = None
            if top in self.roots:
                base = self.roots[top].joinpath(*rest)
                for candidate in (base / "__init__.py", base.with_name(base.name + ".py")):
                    if candidate.is_file():
                        found = candidate
                        break
            self._paths[module] = found
        return self._paths[module]

    def modules(self) -> list[str]:
        """Every project module, sorted (``pkg.mod``; a package is its ``__init__``)."""
        out = []
        for top, root in self.roots.items():
            for file in root.rglob("*.py"):
                parts = file.relative_to(root).with_suffix("").parts
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                out.append(".".join((top, *parts)))
        return sorted(out)

    def source(self, module: str) -> bytes:
        if module not in self._sources:
            self._sources[module] = self._read(self.path(module))
        return self._sources[module]

    def digest(self, module: str) -> str:
        return hashlib.sha256(self.source(module)).hexdigest()[:16]

    def imports(self, module: str) -> frozenset[str]:
        """Absolute names of every module ``module`` imports, anywhere in its code.

        Function-level imports count (a method imports optional packages lazily),
        as do ``importlib.import_module("literal")`` calls. ``from pkg import x``
        names ``pkg.x`` when that is a project module, else ``pkg``.
        """
        if module not in self._imports:
            path = self.path(module)
            package = module if path.name == "__init__.py" else module.rpartition(".")[0]
            tree = parse_source(self.source(module), str(path))
            found: set[str] = set()
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    found.update(alias.name for alias in node.names)
                elif isinstance(node, ast.ImportFrom):
                    base = node.module or ""
                    if node.level:
                        anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                        base = ".".join([*anchor, *([base] if base else [])])
                    found.add(base)
                    for alias in node.names:
                        if self.is_project(base) and self.path(f"{base}.{alias.name}"):
                            found.add(f"{base}.{alias.name}")
                elif (
                    isinstance(node, ast.Call)
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)
                    and getattr(node.func, "attr", getattr(node.func, "id", None))
                    == "import_module"
                ):
                    found.add(node.args[0].value)
            self._imports[module] = frozenset(found - {""})
        return self._imports[module]

    def closure(self, roots: Iterable[str]) -> tuple[frozenset[str], frozenset[str]]:
        """The project modules reachable from ``roots`` (with the packages around them, whose
        ``__init__`` runs on import) and the top-level names of the outside modules they
        import (standard library left out)."""
        project: set[str] = set()
        outside: set[str] = set()
        todo = list(roots)
        while todo:
            name = todo.pop()
            if not self.is_project(name):
                top = name.partition(".")[0]
                if top not in sys.stdlib_module_names:
                    outside.add(top)
                continue
            parts = name.split(".")
            for i in range(1, len(parts) + 1):
                mod = ".".join(parts[:i])
                if mod in project or self.path(mod) is None:
                    continue
                project.add(mod)
                todo.extend(self.imports(mod))
        return frozenset(project), frozenset(outside)

    def fingerprint(self) -> str:
        """Hash of every project module's source (whether anything changed at all)."""
        h = hashlib.sha256()
        for mod in self.modules():
            h.update(f"{mod}:{self.digest(mod)}\n".encode())
        return h.hexdigest()[:16]


@functools.cache
def source_tree() -> SourceTree:
    """This process's view of the project sources (read once; a run does not watch files)."""
    return SourceTree()


def _installs(dist: metadata.Distribution, top: str) -> bool:
    """Whether ``dist`` installs the top-level module ``top`` (by its top_level.txt, else
    its RECORD: a package folder, a module or an extension module of that name)."""
    listed = dist.read_text("top_level.txt")
    if listed is not None:
        return top in listed.split()
    record = dist.read_text("RECORD") or ""
    return re.search(rf"^{re.escape(top)}(/|\.[^/,]*,)", record, re.MULTILINE) is not None


@functools.cache
def _providers(top: str) -> tuple[str, ...]:
    """The distributions that install the top-level module ``top`` (none: not installed).

    ``importlib.metadata.packages_distributions`` answers this, but parses the metadata of
    every installed distribution (about a second here). Most distributions are named like
    their module (lxml, numpy), so that one is asked first; the others (sklearn) are found
    by reading only the small top_level.txt / RECORD files.
    """
    try:
        dist = metadata.distribution(top)
        if _installs(dist, top):
            return (dist.metadata["Name"],)
    except metadata.PackageNotFoundError:
        pass
    found = {d.metadata["Name"] for d in metadata.distributions() if _installs(d, top)}
    if not found and importlib.util.find_spec(top) is not None:
        # installed without metadata that names it (an unusual layout): the full answer
        found = set(metadata.packages_distributions().get(top, ()))
    return tuple(sorted(found))


@functools.cache
def _distribution(name: str) -> tuple[str, str, tuple[str, ...]]:
    """(canonical name, version, names it requires unconditionally) of an installed
    distribution; the version is :data:`NOT_INSTALLED` when it is missing."""
    canonical = canonicalize_name(name)
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return canonical, NOT_INSTALLED, ()
    needs = []
    for line in dist.requires or []:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        # extras are not installed by a plain dependency; other markers are decided here
        if req.marker is None or req.marker.evaluate({"extra": ""}):
            needs.append(req.name)
    return canonical, dist.version, tuple(needs)


def distribution_versions(import_names: Iterable[str]) -> dict[str, str]:
    """Canonical distribution name -> version for the distributions that provide these
    top-level import names and everything they require (what their code can call).

    A name no installed distribution provides is listed under itself as
    :data:`NOT_INSTALLED` (a lazily imported optional package).
    """
    out: dict[str, str] = {}
    todo: list[str] = []
    for name in import_names:
        dists = _providers(name)
        if dists:
            todo.extend(dists)
        else:
            out[canonicalize_name(name)] = NOT_INSTALLED
    while todo:
        canonical, version, needs = _distribution(todo.pop())
        if canonical not in out or out[canonical] == NOT_INSTALLED and version != NOT_INSTALLED:
            out[canonical] = version
            todo.extend(needs)
    return dict(sorted(out.items()))


def _runtime() -> dict[str, Any]:
    """What outside the method can change its bytes, on every method's key."""
    # imported here: evalkit.report.results brings pandas, which the page worker never needs
    from evalkit.report.results import interpreter_hash_seed

    return {
        "evalkit": __version__,
        "python": sys.version,
        **lxml_versions(),
        # string-hash order can decide a peer library's output (evalkit.shell.entry); the seed
        # this process runs under, not the one it passes to its workers (evalkit.shell.api)
        "python_hash_seed": interpreter_hash_seed(),
    }


@dataclass(frozen=True)
class MethodFacts:
    """What a method spec runs: its resolved parameters, code and outside packages."""

    kind: str
    registry: str
    params: dict[str, Any]
    resolved_params: dict[str, Any]
    modules: dict[str, str]  # project module -> source digest
    packages: dict[str, str]  # canonical distribution name -> version
    #: code from outside the project's packages (a ``_target_`` module, a notebook's
    #: function): its module or function name -> digest of the source read
    outside: dict[str, str] = field(default_factory=dict)
    #: why the method is never cached (its source cannot be read), else None
    uncached: str | None = None

    def provenance(self) -> dict[str, Any]:
        """The ``run.json`` entry of a method."""
        out = {
            "registry": self.registry,
            "params": self.params,
            "resolved_params": self.resolved_params,
            "packages": self.packages,
        }
        if self.outside:
            out["outside_sources"] = self.outside
        if self.uncached:
            out["cache"] = f"off: {self.uncached}"
        return out

    def key(self) -> str | None:
        if self.uncached:
            return None
        parts = [
            self.kind,
            self.registry,
            self.resolved_params,
            self.modules,
            self.packages,
            _runtime(),
        ]
        if self.outside:  # only then, so that the keys of the project's methods stay as they were
            parts.append(self.outside)
        blob = json.dumps(parts, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


def outside_source(code: Any) -> str | None:
    """The source the cache key holds of a method class or function ``code`` (docs/cache.md).

    ``""`` for code in the project's packages (their import closure is keyed instead); for
    code from outside, the text of its module's file when that is a file (so an edit anywhere
    in it re-extracts), else the code's own source (a function in a notebook cell); None
    when neither can be read (a function typed at an interactive prompt): such a method is
    never cached."""
    module_name = getattr(code, "__module__", None) or ""
    if module_name and source_tree().is_project(module_name):
        return ""
    file = getattr(sys.modules.get(module_name), "__file__", None)
    if file and Path(file).suffix == ".py" and Path(file).is_file():
        return Path(file).read_bytes().decode("utf-8", "surrogateescape")
    try:
        return inspect.getsource(code)
    except (OSError, TypeError):
        return None


def outside_closure(code: Any) -> LocalClosure | None:
    """The user's modules the file of ``code`` imports, by content
    (evalkit.harness.cache_closure): read where the spec is made, with :func:`outside_source`.
    None for code in the project's packages, or with no file (a notebook cell)."""
    module_name = getattr(code, "__module__", None) or ""
    if module_name and source_tree().is_project(module_name):
        return None
    file = getattr(sys.modules.get(module_name), "__file__", None)
    if file and Path(file).suffix == ".py" and Path(file).is_file():
        return local_closure(module_name, file)
    return None


def _code_of(method: Any) -> Any:
    """The class or function whose source is a built method's code (under a
    ``functools.partial``: the function it wraps)."""
    from evalkit.core.method import FunctionExtractor

    return unwrap(method.func) if isinstance(method, FunctionExtractor) else type(method)


def library_of(module: str) -> str | None:
    """Whose code ``module`` is, for :func:`function_identity`: the top-level name of the
    installed distribution that holds it (its version goes on the key), ``""`` for the
    standard library and evalkit's own packages (keyed by Python's version and the
    project's sources), None for the user's own code (``__main__``, a notebook, a script)."""
    top = module.partition(".")[0]
    if top in ("", "__main__", "__mp_main__"):
        return None
    if top in sys.stdlib_module_names or top == "builtins" or source_tree().is_project(module):
        return ""
    return top if _providers(top) else None


def function_identity(func: Any) -> CallableIdentity:
    """What a function handed to evalkit is (evalkit.harness.identity): its code, closure
    cells, defaults, the globals it reads, a partial's arguments; read where the spec is
    made, in the run's main process, and carried to the workers in the spec."""
    return callable_identity(func, library_of)


def _text_imports(source: str) -> set[str]:
    """Absolute names of the modules a piece of source imports (unparsable source: none)."""
    try:
        tree = parse_source(textwrap.dedent(source), "<source>")
    except (SyntaxError, ValueError):
        return set()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def describe_method(spec, tree: SourceTree | None = None) -> MethodFacts:
    """The facts of a method spec (``kind``, ``registry``, ``params``, ``build()``).

    Builds the method to resolve its parameters. A spec that cannot be built
    (a misspelt parameter) keys on its raw parameters and the error: it never
    reaches the cache, since building fails again in the runner.

    A method from outside the registry (``spec.origin``: Hydra's ``_target_``, an object of
    the Python API) keys on its class's or function's module when that is a project module,
    else on ``spec.source`` (:func:`outside_source`, read where the spec was made) and the
    project modules and installed packages that source imports.
    """
    from evalkit.harness.registry import DETECTORS, METHODS

    tree = tree or source_tree()
    registry = METHODS if spec.kind == "method" else DETECTORS
    origin = getattr(spec, "origin", "registry")
    roots = ["evalkit.harness.registry"]
    if origin == "registry" and spec.registry in registry:
        roots.append(registry.module_of(spec.registry))
    outside: dict[str, str] = {}
    uncached = None
    extra_names: set[str] = set()
    try:
        method = spec.build()
        resolved = method.resolved_params()
        roots += method.runtime_modules()
        declared = method.versions()
        if origin != "registry":
            code = _code_of(method)
            module = getattr(code, "__module__", None) or ""
            identity = getattr(spec, "identity", None)
            if identity is not None and identity.digest is None:
                uncached = f"{identity.why}; it is extracted afresh on every run"
            elif identity is not None:  # a function: keyed by what it is
                from evalkit.core.method import function_name

                outside[f"identity:{function_name(code)}"] = identity.digest
                extra_names.update(identity.libraries)
            if uncached:
                pass
            elif tree.is_project(module):
                roots.append(module)
            elif spec.source is None and identity is None:
                from evalkit.core.method import function_name

                uncached = (
                    f"the source of {function_name(code)} cannot be read (typed at an "
                    "interactive prompt?); it is extracted afresh on every run"
                )
            elif spec.source is not None:
                outside[module or "?"] = hashlib.sha256(
                    spec.source.encode("utf-8", "surrogateescape")
                ).hexdigest()[:16]
                names = _text_imports(spec.source)
                closure = getattr(spec, "closure", None)
                if closure is not None and closure.why:
                    uncached = f"{closure.why}; it is extracted afresh on every run"
                elif closure is not None:  # the user's modules it imports (issue 37)
                    outside.update((f"local:{m}", d) for m, d in closure.digests)
                    names |= set(closure.imports)
                for name in sorted(names):
                    if tree.is_project(name):
                        roots.append(name)
                    elif name.partition(".")[0] not in sys.stdlib_module_names:
                        extra_names.add(name.partition(".")[0])
    except Exception as exc:  # noqa: BLE001 - the runner reports the build error itself
        resolved = {"params": spec.params, "unbuildable": f"{type(exc).__name__}: {exc}"}
        declared = {}
    project, outside_names = tree.closure(roots)
    packages = distribution_versions(outside_names)
    # what outside code imports: installed packages only (a module of the user's own is
    # not a distribution; its file is not followed, docs/cache.md)
    packages.update(distribution_versions(n for n in extra_names if _providers(n)))
    for name, version in declared.items():
        packages.setdefault(canonicalize_name(name), version)
    return MethodFacts(
        kind=spec.kind,
        registry=spec.registry,
        params=dict(spec.params),
        resolved_params=json.loads(json.dumps(resolved, default=str)),
        modules={m: tree.digest(m) for m in sorted(project)},
        packages=dict(sorted(packages.items())),
        outside=outside,
        uncached=uncached,
    )


#: spec -> (facts, key), filled once per process (the runner asks for the key on every page)
_FACTS: dict[str, tuple[MethodFacts, str | None]] = {}


def _memo(spec) -> tuple[MethodFacts, str | None]:
    parts = [spec.kind, spec.registry, spec.params]
    if getattr(spec, "origin", "registry") != "registry":  # two lambdas share a name
        parts += [
            spec.origin,
            spec.label,
            spec.source,
            getattr(spec, "identity", None),
            getattr(spec, "closure", None),
        ]
    sid = json.dumps(parts, sort_keys=True, default=str)
    if sid not in _FACTS:
        facts = describe_method(spec)
        _FACTS[sid] = facts, facts.key()
    return _FACTS[sid]


def method_facts(spec) -> MethodFacts:
    """:func:`describe_method` against this process's sources, once per spec."""
    return _memo(spec)[0]


def method_key(spec) -> str | None:
    """The method part of an extraction's cache key (see the module docstring); None for a
    method whose code cannot be read (never cached)."""
    return _memo(spec)[1]


def page_key(page: Page) -> str:
    """Hash of everything a method sees of a page, and of how it was normalised."""
    h = hashlib.sha256(f"normalisation {NORMALISATION_VERSION}\n".encode())
    for part in (page.raw, page.html, page.url, page.site, page.gold.text if page.gold else None):
        if part is None:
            h.update(b"-")
            continue
        data = part if isinstance(part, bytes) else part.encode("utf-8", "surrogatepass")
        h.update(f"+{len(data)}:".encode())  # length-prefixed: no two pages run together
        h.update(data)
    return h.hexdigest()[:24]
