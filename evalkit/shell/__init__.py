"""The shells floor: the ``evalkit`` command and the Python API (docs/floors.md)."""
