"""``python -m evalkit.reference``: the command of :mod:`evalkit.harness.reference` (docs/reference.md)."""

from evalkit.harness.reference import *
from evalkit.harness.reference import __all__, main  # noqa: F401

if __name__ == "__main__":
    raise SystemExit(main())
