"""Dataset readers: one module per format, plus the synthetic generator and alignment."""

from evalkit.readers.base import Dataset, DatasetMissingError, InMemoryDataset, Skipped

__all__ = ["Dataset", "DatasetMissingError", "InMemoryDataset", "Skipped"]
