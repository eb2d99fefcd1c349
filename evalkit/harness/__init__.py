"""The harness floor: turns a config into readers and methods by registry name, runs pages, caches,
scores and writes run folders; knows no particular method (docs/floors.md)."""
