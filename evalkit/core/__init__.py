"""The core floor: records, text, units and alignment, the method base classes, fingerprints and
term sets. Pure functions and records every floor above uses; nothing here knows a method, a reader,
Hydra or the runner (docs/floors.md)."""
