"""``evalkit.page``: the public name of :mod:`evalkit.core.page` (docs/api.md).

Users' own methods import from here; code inside evalkit imports the core module itself
(the floors contract forbids the lower floors to import this alias).
"""

from evalkit.core.page import *
from evalkit.core.page import __all__  # noqa: F401
