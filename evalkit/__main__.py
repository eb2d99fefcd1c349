"""``python -m evalkit``: the same Hydra app as the ``evalkit`` console script."""

from evalkit.cli import main

main()
