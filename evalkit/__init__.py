"""evalkit: evaluate web-page noise removal methods on annotated page sets."""

__version__ = "0.1.0"

__all__ = ["__version__"]
