"""``evalkit.method``: the public name of :mod:`evalkit.core.method` (docs/api.md).

Users' own methods import from here; code inside evalkit imports the core module itself
(the floors contract forbids the lower floors to import this alias).
"""

from evalkit.core.method import *
from evalkit.core.method import __all__  # noqa: F401
