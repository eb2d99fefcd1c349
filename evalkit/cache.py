"""``python -m evalkit.cache``: the command of :mod:`evalkit.harness.cache_admin` (docs/cache.md)."""

from evalkit.harness.cache_admin import *
from evalkit.harness.cache_admin import __all__, main  # noqa: F401

if __name__ == "__main__":
    raise SystemExit(main())
