"""Base classes for the three kinds of method: extractors, detectors, evaluators.

Constructors follow scikit-learn: every tunable is a keyword argument with a
default and is stored unchanged under its own name; learned state ends in
``_``. ``get_params`` reads the constructor signature; ``resolved_params`` fills in
what is decided at run time, and is what the result cache keys on and what
``run.json`` records.

A method declares the data sets it was trained or tuned on (:attr:`BaseMethod.trained_on`,
read through :func:`trained_on`), so that a study can mark its rows on those sets: a score
on pages the method learned from is no measure of how it does on pages it has never seen.
"""

from __future__ import annotations

import inspect
from typing import Any, ClassVar

from evalkit.core.page import Extraction, Page

__all__ = [
    "BaseMethod",
    "Detector",
    "Extractor",
    "FunctionExtractor",
    "param_names",
    "trained_on",
]


def param_names(cls: type) -> list[str]:
    """Keyword parameters of a class's constructor, in order."""
    sig = inspect.signature(cls.__init__)
    return [
        p.name
        for p in sig.parameters.values()
        if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]


class BaseMethod:
    """scikit-learn style parameter handling."""

    #: registry name; set by each subclass
    name: str = ""
    #: old parameter name -> its new dotted place (``k`` -> ``dedup.k``): the harness moves
    #: an old key of a config or command line there with a one-line deprecation warning
    renamed: ClassVar[dict[str, str]] = {}
    #: the data sets the method was trained or tuned on, by evalkit data set name (the key of
    #: its ``configs/dataset/`` file, which names the shared folder: ``"wcxb_dev"``,
    #: ``"l3s_gn1"``): learned weights, templates or thresholds fitted on their pages, even
    #: when the method keeps the scored pages out of its own training (folds, held-out
    #: splits). Empty for a method that learned from none. A user's method declares its own
    #: (a class attribute; a plain function given to the Python API, a ``trained_on``
    #: attribute of the function). Read it through :func:`trained_on`.
    trained_on: ClassVar[tuple[str, ...]] = ()

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's parameters (scikit-learn's convention: ``deep=True`` by default,
        which a method with sub-objects, the proposed method's stages, also spells out as
        ``<group>__<key>``; a flat method returns the same either way)."""
        return {k: getattr(self, k) for k in param_names(type(self))}

    def set_params(self, **params: Any) -> BaseMethod:
        valid = param_names(type(self))
        for k, v in params.items():
            if k not in valid:
                raise ValueError(f"{type(self).__name__} has no parameter {k!r}; valid: {valid}")
            setattr(self, k, v)
        return self

    def validate(self) -> BaseMethod:
        """Check parameter values; raises ``ValueError`` (a :class:`ParamError` naming the key).

        Calls the subclass's ``_validate`` when it has one. evalkit's methods call it at the end
        of ``__init__``, so a bad value stops the run before any page (unlike scikit-learn,
        which checks at fit time: here there is no fit, and a run that fails on its first page
        would have read the data for nothing); the harness calls it again once per run.
        """
        check = getattr(self, "_validate", None)
        if check is not None:
            check()
        return self

    def versions(self) -> dict[str, str]:
        """Versions of outside packages this method depends on (recorded in run.json)."""
        return {}

    def resolved_params(self) -> dict[str, Any]:
        """The parameters as the method will use them on this machine.

        ``get_params`` with every value decided at run time filled in (an ``auto``
        that depends on what is installed, a sub-method's own defaults). The
        extraction cache keys on it and ``run.json`` records it, so two runs that
        resolve a setting differently never share an extraction. Override it
        wherever a method resolves something; the result must be JSON-able.
        """
        return self.get_params(deep=False)

    def bind_detectors(self, detectors) -> BaseMethod:
        """Receive the harness's detector registry (``evalkit.harness.registry.DETECTORS``) right
        after construction. A method whose parameters name a detector builds it here, so
        that no method imports the registry (methods import core only); others ignore it."""
        return self

    def runtime_modules(self) -> list[str]:
        """Modules this method imports by name at run time (``importlib``), which no import
        statement shows: the cache key follows them as it follows imports (evalkit.harness.cache).
        A method with a ``stoplist`` setting names the optional package its list comes from
        (``justext_english``: justext), so only a method that asks for it depends on it."""
        from evalkit.core.stoplists import stoplist_modules

        return stoplist_modules(getattr(self, "stoplist", None))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params(deep=False).items())
        return f"{type(self).__name__}({args})"


class Extractor(BaseMethod):
    """A method that turns a page into its main-content text."""

    #: exceptions the method raises by design, as its publication's rule for a page it cannot
    #: handle (target_entities on a site without a template): the run records them as any
    #: failure; tests that ask every method to extract every page accept these alone
    expected_failures: ClassVar[tuple[type[Exception], ...]] = ()

    def extract(self, page: Page) -> Extraction:  # pragma: no cover - interface
        raise NotImplementedError

    @classmethod
    def split_rows(cls, params: dict[str, Any]) -> dict[str, dict[str, Any]] | None:
        """Several method rows that one config stands for, as ``{row label: parameters}``, or
        None for one row (every method but one). The ``stored`` method whose ``path`` is a
        glob or a folder of tool files gives one row per file, named after its stem; the
        harness splits the config before anything is built (evalkit.harness.method_rows)."""
        return None

    def dataset_notes(self, dataset: str, page_ids) -> dict[str, Any]:
        """What the method has to say about a whole data set once all its pages ran
        (``page_ids``: the pages of the run): JSON-able facts for run.json, with an optional
        one-line ``warning`` the run prints. Most methods have nothing (``{}``); the
        ``stored`` method lists stored ids that are no page of the run."""
        return {}


class FunctionExtractor(Extractor):
    """A plain function ``html -> text`` as an extractor (the Python API's ``methods=[f]``).

    ``func`` gets the page's decoded HTML (``page.html``, after evalkit's input cleaning,
    docs/inputs.md) and returns the main text; anything but a ``str`` is a failure of that
    page, named in its record.
    """

    def __init__(self, func=None):
        self.func = func

    def _validate(self) -> None:
        if not callable(self.func):
            raise TypeError(f"func must be a function html -> text, got {self.func!r}")

    def resolved_params(self) -> dict[str, Any]:
        # the function's name, not its repr (which holds an address that differs per process);
        # its source is on the cache key (evalkit.harness.cache_keys.describe_method)
        return {"function": function_name(self.func)}

    def extract(self, page: Page) -> Extraction:
        text = self.func(page.html)
        if not isinstance(text, str):
            raise TypeError(f"{function_name(self.func)} returned {type(text).__name__}, not str")
        return Extraction(text=text)


def trained_on(method: BaseMethod | type[BaseMethod]) -> tuple[str, ...]:
    """The data sets ``method`` (an object or a class) declares it was trained or tuned on
    (:attr:`BaseMethod.trained_on`), each once, in the order declared; for a
    :class:`FunctionExtractor`, its function's ``trained_on`` attribute when it has one.

    A declaration that is not a list of names (a bare string, a name that is no string) is
    a ``TypeError`` naming the method, not a silent mark on the wrong sets.
    """
    declared = getattr(method, "trained_on", ())
    if isinstance(method, FunctionExtractor) and not declared:
        declared = getattr(method.func, "trained_on", ())
    label = getattr(method, "name", "") or getattr(method, "__name__", type(method).__name__)
    if isinstance(declared, str) or not isinstance(declared, (tuple, list)):
        raise TypeError(
            f"method {label!r}: trained_on must be a tuple of data set names, got {declared!r}"
        )
    bad = [d for d in declared if not isinstance(d, str) or not d.strip()]
    if bad:
        raise TypeError(f"method {label!r}: trained_on holds {bad[0]!r}, not a data set name")
    return tuple(dict.fromkeys(declared))


def function_name(func) -> str:
    """``module.qualname`` of a function (or other callable), for tables and keys."""
    module = getattr(func, "__module__", None) or "?"
    name = getattr(func, "__qualname__", None) or type(func).__qualname__
    return f"{module}.{name}"


class Detector(BaseMethod):
    """A near-duplicate detector over text blocks.

    See docs/methods/proposed.md#33-secondary-noise-removal and docs/methods/detectors.md.

    ``fingerprint(text)`` returns a comparable signature, ``similar(a, b)``
    decides on two signatures, and ``find_duplicates(texts)`` walks blocks in
    order and returns, for each block, the index of the earlier kept block it
    duplicates (or None). Detectors whose signatures are not comparable with
    each other's raise ``ValueError`` when mixed.
    """

    def fingerprint(self, text: str) -> Any:  # pragma: no cover - interface
        raise NotImplementedError

    def similar(self, a: Any, b: Any) -> bool:  # pragma: no cover - interface
        raise NotImplementedError

    def find_duplicates(self, texts: list[str], seen: list[Any] | None = None) -> list[int | None]:
        """For each text, the index of the earlier kept text it duplicates, else None.

        Texts with no terms (fingerprint ``None``) are never compared. ``seen``
        is an optional list of signatures kept earlier (site scope); a match
        against it is reported as ``-1 - i`` for its index ``i``.
        """
        return self.match_signatures([self.fingerprint(t) for t in texts], seen)

    def match_signatures(
        self, sigs: list[Any], seen: list[Any] | None = None, same=None
    ) -> list[int | None]:
        """The matching of :meth:`find_duplicates` on signatures already computed.

        ``same`` optionally replaces :meth:`similar` for pairs of the page's own
        signatures (a detector may skip re-validating what it just made);
        signatures in ``seen`` always go through :meth:`similar`.
        """
        same = same or self.similar
        kept: list[tuple[int, Any]] = []
        out: list[int | None] = []
        prior = list(seen or [])
        for i, sig in enumerate(sigs):
            match = None
            if sig is not None:
                for j, other in kept:
                    if same(sig, other):
                        match = j
                        break
                if match is None:
                    for j, other in enumerate(prior):
                        if self.similar(sig, other):
                            match = -1 - j
                            break
            out.append(match)
            if match is None and sig is not None:
                kept.append((i, sig))
        return out
