"""``python -m evalkit.compare RUN_A RUN_B``: the command of :mod:`evalkit.harness.compare_runs`
(docs/compare.md)."""

from evalkit.harness.compare_runs import *
from evalkit.harness.compare_runs import __all__, main  # noqa: F401

if __name__ == "__main__":
    raise SystemExit(main())
