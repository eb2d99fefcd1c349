"""Makes the Hydra configs a package in the wheel (``pkg://evalkit.configs``; Hydra needs this file)."""
