"""Which stop lists need an optional package, and how a method says so (issue 29).

Kept apart from :mod:`evalkit.core.text` (which reads the lists) so that the method base
class can name a list's package without importing the lists' own dependencies: the cache
key of every method follows what its modules import (evalkit.harness.cache_keys).
"""

from __future__ import annotations

import importlib.util

__all__ = ["STOPLIST_INSTALL", "STOPLIST_MODULES", "stoplist_available", "stoplist_modules"]

#: stop lists that come from an optional package (the peers extra), by module name; the
#: others ship with evalkit (``english``: scikit-learn's list, a dependency; ``none``)
STOPLIST_MODULES = {"justext_english": "justext"}
#: how to get the optional stop lists
STOPLIST_INSTALL = 'pip install "evalkit[peers]"'


def stoplist_modules(name: str | None) -> list[str]:
    """The optional module a stop list is read from (``justext_english`` -> ``["justext"]``),
    none for the lists evalkit ships: what a method using it adds to its runtime_modules."""
    return [STOPLIST_MODULES[name]] if name in STOPLIST_MODULES else []


def stoplist_available(name: str) -> bool:
    """Whether stop list ``name`` can be read here (its optional package is importable)."""
    if name not in STOPLIST_MODULES:
        return True
    try:
        return importlib.util.find_spec(STOPLIST_MODULES[name]) is not None
    except (ImportError, ValueError):  # a blocked or half-installed package
        return False
