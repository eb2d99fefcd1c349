"""The presentation room (core floor): run-folder files, tables and figures (docs/floors.md)."""
