"""``python -m evalkit``: the same command as the ``evalkit`` console script."""

from evalkit.shell.entry import run

run()
