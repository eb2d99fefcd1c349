"""``python -m evalkit``: the same command as the ``evalkit`` console script."""

from evalkit.entry import run

run()
