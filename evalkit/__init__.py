"""evalkit: evaluate web-page noise removal methods on annotated page sets.

``evalkit.evaluate`` and ``evalkit.Result`` (evalkit.shell.api, the shells floor) are loaded on
first use (PEP 562), so ``import evalkit`` loads nothing above the core floor
(docs/floors.md). The import is by name: every core module imports this package (for
``__version__``), and an import statement here would read to import-linter as core
importing the API; at run time the API is loaded only when asked for.
"""

import importlib

__version__ = "0.1.0"

__all__ = ["Result", "__version__", "evaluate"]

_LAZY = {"evaluate": "evalkit.shell.api", "Result": "evalkit.shell.api"}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'evalkit' has no attribute {name!r}")
