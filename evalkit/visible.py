"""``evalkit.visible``: the public name of :mod:`evalkit.core.visible` (docs/api.md).

Users' own methods import from here; code inside evalkit imports the core module itself
(the floors contract forbids the lower floors to import this alias).
"""

from evalkit.core.visible import *
from evalkit.core.visible import __all__  # noqa: F401
